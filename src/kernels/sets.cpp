// Set-like ops: unique (_unique2, unique_dim, unique_consecutive), isin, combinations, and the binary
// searches searchsorted and bucketize. Values compare with == and <, as in PyTorch: NaN equals
// nothing (each NaN is its own unique value and is in no set), -0.0 equals 0.0.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

template <typename T>
std::vector<compute_t<T>> row_major_values(const StridedTensor& t) {
    std::vector<compute_t<T>> values;
    for (int64_t offset : byte_offsets(t.sizes, t.strides, t.element_size())) values.push_back(load<T>(t.data + offset));
    return values;
}

void store_int64s(const StridedTensor& out, const std::vector<int64_t>& values) {
    for (size_t i = 0; i < values.size(); ++i) store<int64_t>(out.data + static_cast<int64_t>(i) * out.strides[0] * 8, values[i]);
}

// Writes `values` (row-major) into `out`, whatever its strides.
template <typename T>
void store_row_major(const StridedTensor& out, const std::vector<compute_t<T>>& values) {
    const auto offsets = byte_offsets(out.sizes, out.strides, out.element_size());
    for (size_t i = 0; i < offsets.size(); ++i) store<T>(out.data + offsets[i], values[i]);
}

// The unique values of a flattened tensor, from runs of equal values in `order` (the positions
// of the elements in the order they are walked): each run's first element is its value.
struct Runs {
    std::vector<size_t> first;       // the position of each run's first element
    std::vector<int64_t> counts;     // each run's length
    std::vector<int64_t> inverse;    // for each position, its run
};

template <typename V>
Runs runs_of(const std::vector<V>& values, const std::vector<size_t>& order) {
    Runs runs;
    runs.inverse.resize(values.size());
    for (size_t i = 0; i < order.size(); ++i) {
        const size_t at = order[i];
        if (i == 0 || !(values[at] == values[runs.first.back()])) {
            runs.first.push_back(at);
            runs.counts.push_back(0);
        }
        ++runs.counts.back();
        runs.inverse[at] = static_cast<int64_t>(runs.first.size()) - 1;
    }
    return runs;
}

// Outputs (values, inverse, counts) of a flat unique: inverse has self's sizes when asked for,
// counts one per value when asked for; either is empty ([0]) otherwise.
template <typename T>
std::vector<RuntimeValue> flat_unique_outputs(const KernelCall& call, const StridedTensor& self, const Runs& runs,
                                              bool return_inverse, bool return_counts) {
    const auto count = static_cast<int64_t>(runs.first.size());
    StridedTensor out = allocate_output(call, 0, {count}, self.dtype);
    const size_t element = self.element_size();
    const auto offsets = byte_offsets(self.sizes, self.strides, element);
    for (int64_t i = 0; i < count; ++i) {
        // The element itself, bit for bit (the sign of a zero that stands for -0.0 and 0.0).
        std::memcpy(out.data + i * out.strides[0] * static_cast<int64_t>(element),
                    self.data + offsets[runs.first[static_cast<size_t>(i)]], element);
    }
    StridedTensor inverse = allocate_output(call, 1, return_inverse ? self.sizes : std::vector<int64_t>{0}, DType::Int64);
    if (return_inverse) {
        const auto inverse_offsets = byte_offsets(inverse.sizes, inverse.strides, 8);
        for (size_t i = 0; i < inverse_offsets.size(); ++i) store<int64_t>(inverse.data + inverse_offsets[i], runs.inverse[i]);
    }
    StridedTensor counts = allocate_output(call, 2, {return_counts ? count : 0}, DType::Int64);
    if (return_counts) store_int64s(counts, runs.counts);
    return {RuntimeValue::of(out), RuntimeValue::of(inverse), RuntimeValue::of(counts)};
}

// _unique2(self, sorted=True, return_inverse=False, return_counts=False): PyTorch's CPU kernel
// always sorts, whatever `sorted` says: a std::sort with NaN last, whose order among equal
// values (which NaN comes first, whether -0.0 or 0.0 stands for zero) is std::sort's.
std::vector<RuntimeValue> unique2(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const bool return_inverse = call.bool_arg("return_inverse", 2, false);
    const bool return_counts = call.bool_arg("return_counts", 3, false);
    return visit_dtype(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        const auto values = row_major_values<T>(self);
        std::vector<size_t> order(values.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return less_nan_last<V>(values[a], values[b]); });
        return flat_unique_outputs<T>(call, self, runs_of(values, order), return_inverse, return_counts);
    });
}

// self viewed as [size of dim, everything else] in row-major order of the moved dims: one
// vector of values per slice.
template <typename T>
std::vector<std::vector<compute_t<T>>> slices_along(const StridedTensor& self, int64_t dim) {
    std::vector<int64_t> sizes = self.sizes, strides = self.strides;
    sizes.erase(sizes.begin() + dim);
    strides.erase(strides.begin() + dim);
    const auto inner = byte_offsets(sizes, strides, self.element_size());
    std::vector<std::vector<compute_t<T>>> slices(static_cast<size_t>(self.sizes[static_cast<size_t>(dim)]));
    for (size_t s = 0; s < slices.size(); ++s) {
        const std::byte* base = self.data + static_cast<int64_t>(s) * self.strides[static_cast<size_t>(dim)] *
                                                static_cast<int64_t>(self.element_size());
        for (int64_t offset : inner) slices[s].push_back(load<T>(base + offset));
    }
    return slices;
}

// unique over slices along dim (unique_dim, unique_consecutive with dim): the output keeps
// each run's first slice; inverse and counts are always returned, one per slice and per run.
std::vector<RuntimeValue> unique_slices(const KernelCall& call, const StridedTensor& self, int64_t dim, bool sort_first) {
    for (size_t d = 0; d < self.rank(); ++d) {
        if (self.sizes[d] == 0 && static_cast<int64_t>(d) != dim) {
            call.fail("there are zero-sized dims other than dim " + std::to_string(dim) + ", so unique cannot be applied");
        }
    }
    return visit_dtype(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        const auto slices = slices_along<T>(self, dim);
        std::vector<int64_t> order(slices.size());
        std::iota(order.begin(), order.end(), int64_t{0});
        if (sort_first) {
            // PyTorch's comparator, lexicographic by < and > (NaN compares neither way).
            std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                const auto &x = slices[static_cast<size_t>(a)], &y = slices[static_cast<size_t>(b)];
                for (size_t i = 0; i < x.size(); ++i) {
                    if (x[i] < y[i]) return true;
                    if (x[i] > y[i]) return false;
                }
                return false;
            });
        }
        auto equal = [](const std::vector<V>& x, const std::vector<V>& y) {
            for (size_t i = 0; i < x.size(); ++i) {
                if (!(x[i] == y[i])) return false;
            }
            return true;
        };
        std::vector<int64_t> kept, counts, inverse(slices.size());
        size_t run_start = 0;
        for (size_t i = 0; i < order.size(); ++i) {
            const auto& slice = slices[static_cast<size_t>(order[i])];
            if (i == 0 || !equal(slice, slices[static_cast<size_t>(kept.back())])) {
                if (i > 0) counts.push_back(static_cast<int64_t>(i - run_start));
                run_start = i;
                kept.push_back(order[i]);
            }
            inverse[static_cast<size_t>(order[i])] = static_cast<int64_t>(kept.size()) - 1;
        }
        if (!order.empty()) counts.push_back(static_cast<int64_t>(order.size() - run_start));
        std::vector<int64_t> out_sizes = self.sizes;
        out_sizes[static_cast<size_t>(dim)] = static_cast<int64_t>(kept.size());
        StridedTensor out = allocate_output(call, 0, out_sizes, self.dtype);
        for (size_t k = 0; k < kept.size(); ++k) {
            std::vector<int64_t> sizes = self.sizes;
            sizes[static_cast<size_t>(dim)] = 1;
            const int64_t dim_stride = self.strides[static_cast<size_t>(dim)];
            const StridedTensor from = self.view(sizes, self.strides, kept[k] * dim_stride);
            const StridedTensor to = out.view(sizes, out.strides, static_cast<int64_t>(k) * out.strides[static_cast<size_t>(dim)]);
            copy_into(from, to);
        }
        StridedTensor inverse_out = allocate_output(call, 1, {static_cast<int64_t>(inverse.size())}, DType::Int64);
        store_int64s(inverse_out, inverse);
        StridedTensor counts_out = allocate_output(call, 2, {static_cast<int64_t>(counts.size())}, DType::Int64);
        store_int64s(counts_out, counts);
        return std::vector<RuntimeValue>{RuntimeValue::of(out), RuntimeValue::of(inverse_out), RuntimeValue::of(counts_out)};
    });
}

// unique_dim(self, dim, sorted=True, return_inverse=False, return_counts=False)
std::vector<RuntimeValue> unique_dim(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("unique_dim needs a tensor with at least one dim");
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()));
    return unique_slices(call, self, dim, true);
}

// unique_consecutive(self, return_inverse=False, return_counts=False, dim=None)
std::vector<RuntimeValue> unique_consecutive(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (call.has("dim", 3)) {
        if (self.rank() == 0) call.fail("unique_consecutive with dim needs a tensor with at least one dim");
        const int64_t dim = normalize_dim(call, call.int_arg("dim", 3), static_cast<int64_t>(self.rank()));
        return unique_slices(call, self, dim, false);
    }
    const bool return_inverse = call.bool_arg("return_inverse", 1, false);
    const bool return_counts = call.bool_arg("return_counts", 2, false);
    return visit_dtype(self.dtype, [&]<typename T>() {
        const auto values = row_major_values<T>(self);
        std::vector<size_t> order(values.size());
        std::iota(order.begin(), order.end(), size_t{0});
        return flat_unique_outputs<T>(call, self, runs_of(values, order), return_inverse, return_counts);
    });
}

// isin(elements, test_elements, *, assume_unique=False, invert=False), with either a number
// (Tensor_Scalar, Scalar_Tensor): bool of elements' sizes, compared in the promoted dtype.
std::vector<RuntimeValue> isin(const KernelCall& call, ArgName elements_name, ArgName tests_name) {
    const Operand elements = read_operand(call, elements_name, 0), tests = read_operand(call, tests_name, 1);
    const bool invert = call.bool_arg("invert", kKeywordOnly, false);
    const DType common = common_dtype(call, {&elements, &tests});
    const StridedTensor a = elements.as_dtype(common), b = tests.as_dtype(common);
    StridedTensor out = allocate_output(call, 0, a.sizes, DType::Bool);
    visit_dtype(common, [&]<typename T>() {
        using V = compute_t<T>;
        const auto candidates = row_major_values<T>(b);
        for_each_element<2>(a.sizes, {&out, &a}, [&](const std::array<std::byte*, 2>& p) {
            const V v = load<T>(p[1]);
            const bool found = std::any_of(candidates.begin(), candidates.end(), [v](V c) { return c == v; });
            store<bool>(p[0], found != invert);
        });
    });
    return single(out);
}

// The binary searches of PyTorch's bucketization kernel, over `size` boundaries read through
// `at(i)`: the first boundary >= value (left) or > value (right); NaN goes past the end.
template <typename V, typename At>
int64_t search(int64_t size, V value, bool right, At&& at) {
    int64_t start = 0, end = size;
    while (start < end) {
        const int64_t mid = start + ((end - start) >> 1);
        const V mid_value = at(mid);
        const bool before = right ? !(mid_value > value) : !(mid_value >= value);
        if (before) {
            start = mid + 1;
        } else {
            end = mid;
        }
    }
    return start;
}

// The search of every element of `values` in the last dim of `boundaries` (1-d, or with the
// same leading sizes as values), into the recorded int64 or int32 output.
std::vector<RuntimeValue> search_sorted(const KernelCall& call, const Operand& boundaries_operand, const Operand& values_operand,
                                        bool right, const std::optional<StridedTensor>& sorter) {
    const StridedTensor& raw_boundaries = *boundaries_operand.tensor;
    const DType common = common_dtype(call, {&boundaries_operand, &values_operand});
    const StridedTensor boundaries = boundaries_operand.as_dtype(common), values = values_operand.as_dtype(common);
    if (boundaries.rank() == 0) call.fail("the boundaries must have at least one dim (got a 0-d tensor)");
    const bool one_row = boundaries.rank() == 1;
    if (!one_row) {
        bool leading_match = boundaries.rank() == values.rank();
        for (size_t d = 0; leading_match && d + 1 < boundaries.rank(); ++d) leading_match = boundaries.sizes[d] == values.sizes[d];
        if (!leading_match) {
            call.fail("boundaries of shape " + shape_text(raw_boundaries.sizes) +
                      " need to be 1-d or match the input's leading dims (input shape " + shape_text(values.sizes) + ")");
        }
    }
    if (sorter) {
        if (sorter->dtype != DType::Int64) call.fail("sorter must be an int64 tensor");
        if (sorter->sizes != raw_boundaries.sizes) call.fail("sorter must have the boundaries' shape");
        for (int64_t offset : byte_offsets(sorter->sizes, sorter->strides, 8)) {
            const int64_t s = load<int64_t>(sorter->data + offset);
            if (s < 0 || s >= sorter->sizes.back()) call.fail("sorter index " + std::to_string(s) + " is out of range");
        }
    }
    const DType out_dtype = call.output_meta(0).dtype;
    // Positions are stored as int32 or int64 below: any other recorded dtype (a damaged archive)
    // would have them written past the elements of a narrower output.
    if (out_dtype != DType::Int32 && out_dtype != DType::Int64) {
        call.fail("expects an int32 or int64 output, the archive records " + std::string(dtype_name(out_dtype)));
    }
    StridedTensor out = allocate_output(call, 0, values.sizes, out_dtype);
    const int64_t size = boundaries.sizes.back();
    const int64_t step = boundaries.strides.back() * static_cast<int64_t>(boundaries.element_size());
    // The byte offset of each boundary row, and of the matching sorter row.
    std::vector<int64_t> leading(boundaries.sizes.begin(), boundaries.sizes.end() - 1);
    std::vector<int64_t> leading_strides(boundaries.strides.begin(), boundaries.strides.end() - 1);
    const auto rows = byte_offsets(leading, leading_strides, boundaries.element_size());
    std::vector<int64_t> sorter_rows;
    if (sorter) {
        std::vector<int64_t> sorter_strides(sorter->strides.begin(), sorter->strides.end() - 1);
        sorter_rows = byte_offsets(leading, sorter_strides, 8);
    }
    const int64_t row_length = values.rank() == 0 ? 1 : values.sizes.back();
    visit_dtype(common, [&]<typename T>() {
        using V = compute_t<T>;
        const auto value_offsets = byte_offsets(values.sizes, values.strides, values.element_size());
        const auto out_offsets = byte_offsets(out.sizes, out.strides, out.element_size());
        for (size_t i = 0; i < value_offsets.size(); ++i) {
            const size_t row = one_row ? 0 : i / static_cast<size_t>(row_length);
            const std::byte* base = boundaries.data + rows[row];
            auto at = [&](int64_t k) {
                if (sorter) k = load<int64_t>(sorter->data + sorter_rows[row] + k * sorter->strides.back() * 8);
                return load<T>(base + k * step);
            };
            const int64_t position = search<V>(size, load<T>(values.data + value_offsets[i]), right, at);
            if (out_dtype == DType::Int32) {
                store<int32_t>(out.data + out_offsets[i], static_cast<int32_t>(position));
            } else {
                store<int64_t>(out.data + out_offsets[i], position);
            }
        }
    });
    return single(out);
}

bool right_of(const KernelCall& call) {
    const bool right = call.bool_arg("right", kKeywordOnly, false);
    const auto* side = call.arg("side", kKeywordOnly);
    if (!side || side->kind != graph::Argument::Kind::String) return right;
    if (side->string_value != "left" && side->string_value != "right") {
        call.fail("side must be 'left' or 'right', got '" + side->string_value + "'");
    }
    if (side->string_value == "left" && right) call.fail("side='left' and right=True contradict each other");
    return side->string_value == "right";
}

// searchsorted(sorted_sequence, self, *, out_int32=False, right=False, side=None, sorter=None)
std::vector<RuntimeValue> searchsorted(const KernelCall& call) {
    const Operand boundaries{call.tensor("sorted_sequence", 0), int64_t{0}};
    return search_sorted(call, boundaries, read_operand(call, "self", 1), right_of(call),
                         call.optional_tensor("sorter", kKeywordOnly));
}

// bucketize(self, boundaries, *, out_int32=False, right=False): boundaries 1-d.
std::vector<RuntimeValue> bucketize(const KernelCall& call) {
    const Operand boundaries{call.tensor("boundaries", 1), int64_t{0}};
    if (boundaries.tensor->rank() != 1) {
        call.fail("bucketize needs 1-d boundaries, got shape " + shape_text(boundaries.tensor->sizes));
    }
    return search_sorted(call, boundaries, read_operand(call, "self", 0), call.bool_arg("right", kKeywordOnly, false),
                         std::nullopt);
}

// combinations(self, r=2, with_replacement=False): the r-element combinations of a 1-d tensor's
// elements in lexicographic order of their indices, as rows of [count, r] (r = 0 gives [0]).
std::vector<RuntimeValue> combinations(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() != 1) call.fail("combinations needs a 1-d tensor, got shape " + shape_text(self.sizes));
    const int64_t r = call.int_arg("r", 1, 2);
    const bool with_replacement = call.bool_arg("with_replacement", 2, false);
    if (r < 0) call.fail("combinations needs r >= 0, got " + std::to_string(r));
    if (r > (int64_t{1} << 20)) call.fail("combinations of r = " + std::to_string(r) + " elements is more than pt2ov computes");
    if (r == 0) return single(allocate_output(call, 0, {0}, self.dtype));
    const int64_t n = self.sizes[0];
    std::vector<std::vector<int64_t>> rows;
    std::vector<int64_t> pick(static_cast<size_t>(r));
    // Odometer over non-decreasing (with replacement) or increasing index tuples.
    auto fill_from = [&](size_t k) {
        for (size_t j = k; j < pick.size(); ++j) pick[j] = j == 0 ? 0 : pick[j - 1] + (with_replacement ? 0 : 1);
    };
    fill_from(0);
    auto valid = [&] { return pick.back() < n; };
    while (n > 0 && valid()) {
        rows.push_back(pick);
        size_t k = pick.size();
        while (k-- > 0) {
            const int64_t room = with_replacement ? n - 1 : n - r + static_cast<int64_t>(k);
            if (pick[k] < room) break;
        }
        if (k == static_cast<size_t>(-1)) break;
        ++pick[k];
        fill_from(k + 1);
    }
    StridedTensor out = allocate_output(call, 0, {static_cast<int64_t>(rows.size()), r}, self.dtype);
    const auto element = static_cast<int64_t>(self.element_size());
    for (size_t i = 0; i < rows.size(); ++i) {
        for (int64_t j = 0; j < r; ++j) {
            std::memcpy(out.data + (static_cast<int64_t>(i) * out.strides[0] + j * out.strides[1]) * element,
                        self.data + rows[i][static_cast<size_t>(j)] * self.strides[0] * element, static_cast<size_t>(element));
        }
    }
    return single(out);
}

// ---- Shape contracts -----------------------------------------------------------------------

using Sizes = std::vector<ExpectedSizes>;

// unique of self's elements (_unique2, unique_consecutive without dim): as many values and
// counts as the data have, an inverse in self's sizes; an inverse or counts not asked for are
// empty ([0]).
Sizes unique_elements_shape(const ShapeQuery& query, const ExpectedSizes& self) {
    const bool return_inverse = query.int_arg("return_inverse", 2).value_or(0) != 0;
    const bool return_counts = query.int_arg("return_counts", 3).value_or(0) != 0;
    const ExpectedSizes some{std::nullopt}, empty{0};
    return Sizes{some, return_inverse ? self : empty, return_counts ? some : empty};
}

// unique over slices along `dim` (unique_dim, unique_consecutive with dim): self's sizes with as
// many slices as the data have, an inverse of one per slice of self. The CPU kernel computes
// the inverse and counts whether asked for or not (and fake tensors size them so), other
// devices' leave them empty: their sizes are left open then.
std::optional<Sizes> unique_slices_shape(const ShapeQuery& query, ExpectedSizes self, int64_t dim) {
    if (self.empty()) return std::nullopt;
    const auto d = static_cast<size_t>(wrap_dim(query, dim, static_cast<int64_t>(self.size())));
    const bool return_inverse = query.int_arg("return_inverse", 3).value_or(0) != 0;
    const ExpectedSizes inverse = return_inverse ? ExpectedSizes{self[d]} : ExpectedSizes{std::nullopt};
    self[d] = std::nullopt;
    return Sizes{self, inverse, ExpectedSizes{std::nullopt}};
}

std::optional<Sizes> unique_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    const auto at = query.node().schema ? query.node().schema->position_of(ArgName("dim").id()) : std::nullopt;
    if (!at || query.node().arg(*at).kind == graph::Argument::Kind::None) return unique_elements_shape(query, *self);
    const auto dim = query.int_arg("dim", *at);
    if (!dim) return std::nullopt;
    // torch 2.13's fake unique_consecutive slices self's sizes by a negative dim unwrapped (a
    // [5] by -1 records [?, 5]): what such an archive records is not eager's, and not refused.
    if (*dim < 0 && query.node().op == graph::op_id("aten.unique_consecutive.default")) return std::nullopt;
    return unique_slices_shape(query, *self, *dim);
}

// isin: one answer per element of `elements` (a 0-d tensor for a scalar element).
std::optional<Sizes> isin_shape(const ShapeQuery& query) {
    const auto elements = query.sizes("elements", 0);
    return Sizes{elements ? *elements : ExpectedSizes{}};
}

// searchsorted and bucketize: one position per value of self (a 0-d tensor for a scalar). The
// boundaries are 1-d (bucketize's always; a scalar's always) or, for searchsorted, of self's
// rank with self's sizes but the last.
std::optional<Sizes> search_shape(const ShapeQuery& query) {
    const bool bucketize = query.node().op == graph::op_id("aten.bucketize.Tensor") ||
                           query.node().op == graph::op_id("aten.bucketize.Scalar");
    const auto boundaries = bucketize ? query.sizes("boundaries", 1) : query.sizes("sorted_sequence", 0);
    const auto values = query.sizes("self", bucketize ? 0 : 1);
    if (!boundaries) return std::nullopt;
    if (boundaries->size() != 1 && (bucketize || !values)) {
        query.contradiction(fmt::format("its boundaries have rank {}, not 1", boundaries->size()));
    }
    if (boundaries->empty()) query.contradiction("its boundaries have rank 0");
    if (boundaries->size() > 1) {
        if (boundaries->size() != values->size()) {
            query.contradiction(fmt::format("its boundaries have rank {} and its values rank {}", boundaries->size(), values->size()));
        }
        for (size_t d = 0; d + 1 < values->size(); ++d) {
            require_same_size(query, (*boundaries)[d], (*values)[d], fmt::format("the sizes of dim {} of the boundaries and the values", d));
        }
    }
    if (const auto sorter = query.sizes("sorter", 5)) {
        bool agree = sorter->size() == boundaries->size();
        for (size_t d = 0; agree && d < sorter->size(); ++d) agree = !(*sorter)[d] || !(*boundaries)[d] || *(*sorter)[d] == *(*boundaries)[d];
        if (!agree) query.contradiction("its sorter's sizes are not its boundaries'");
    }
    return Sizes{values ? *values : ExpectedSizes{}};
}

// The number of ways to choose r of n, nullopt past int64.
std::optional<int64_t> binomial(int64_t n, int64_t r) {
    if (r < 0 || r > n) return 0;
    r = std::min(r, n - r);
    int64_t c = 1;
    for (int64_t i = 1; i <= r; ++i) {
        // c * (n - r + i) / i is exact: it is C(n - r + i, i)
        if (__builtin_mul_overflow(c, n - r + i, &c)) return std::nullopt;
        c /= i;
    }
    return c;
}

// combinations of a 1-d tensor's n elements: [C(n, r), r] ([C(n + r - 1, r), r] with
// replacement); r = 0 gives an empty [0].
std::optional<Sizes> combinations_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto r = query.int_arg("r", 1), with_replacement = query.int_arg("with_replacement", 2);
    if (!self || !r || !with_replacement) return std::nullopt;
    if (self->size() != 1) query.contradiction(fmt::format("it combines the elements of a tensor of rank {}, not 1", self->size()));
    if (*r < 0) query.contradiction(fmt::format("it chooses {} elements", *r));
    if (*r == 0) return Sizes{ExpectedSizes{0}};
    const auto n = self->front();
    std::optional<int64_t> count;
    if (n) count = *with_replacement ? (*n == 0 ? std::optional<int64_t>(0) : binomial(*n + *r - 1, *r)) : binomial(*n, *r);
    return Sizes{ExpectedSizes{count, *r}};
}

PT2OV_KERNEL("aten.combinations.default", combinations, combinations_shape);
PT2OV_KERNEL("aten._unique2.default", unique2, unique_shape);
PT2OV_KERNEL("aten.unique_dim.default", unique_dim, unique_shape);
PT2OV_KERNEL("aten.unique_consecutive.default", unique_consecutive, unique_shape);
PT2OV_KERNEL("aten.isin.Tensor_Tensor", [](const KernelCall& c) { return isin(c, "elements", "test_elements"); }, isin_shape);
PT2OV_KERNEL("aten.isin.Tensor_Scalar", [](const KernelCall& c) { return isin(c, "elements", "test_element"); }, isin_shape);
PT2OV_KERNEL("aten.isin.Scalar_Tensor", [](const KernelCall& c) { return isin(c, "element", "test_elements"); }, isin_shape);
PT2OV_KERNEL("aten.searchsorted.Tensor", searchsorted, search_shape);
PT2OV_KERNEL("aten.searchsorted.Scalar", searchsorted, search_shape);
PT2OV_KERNEL("aten.bucketize.Tensor", bucketize, search_shape);
PT2OV_KERNEL("aten.bucketize.Scalar", bucketize, search_shape);

}  // namespace
}  // namespace pt2ov::kernels
