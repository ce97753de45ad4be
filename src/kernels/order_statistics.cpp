// Ops that order the elements of a dim: sort / argsort (msort decomposes into sort), median and nanmedian, mode,
// quantile and nanquantile. PyTorch's CPU kernels use the C++ standard algorithms (std::sort,
// std::stable_sort, std::nth_element) with the comparators written here, so these kernels call
// the same algorithms with the same comparators: which of equal elements an index names then
// agrees with PyTorch's, also where the algorithm is not stable.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "kernels/contracts.h"
#include "kernels/dense_paths.h"

namespace pt2ov::kernels {
namespace {

int64_t dim_of(const KernelCall& call, const StridedTensor& self, size_t position, int64_t fallback) {
    return normalize_dim(call, call.int_arg("dim", position, fallback), static_cast<int64_t>(self.rank()));
}

std::vector<int64_t> dims_for(const StridedTensor& self, int64_t dim) {
    return self.rank() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
}

// ---- sort ----------------------------------------------------------------------------------

// Sorts self along dim into `values` (when given) and `indices`, both of self's sizes.
void sort_into(const StridedTensor& self, int64_t dim, bool descending, bool stable, const StridedTensor* values,
               const StridedTensor& indices) {
    const auto dims = dims_for(self, dim);
    const Reduction in = plan_reduction(self, dims, true);
    const Reduction at_indices = plan_reduction(indices, dims, true);
    const Reduction at_values = plan_reduction(values ? *values : indices, dims, true);
    const size_t element = self.element_size();
    visit_dtype(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        const size_t length = in.reduced_bytes.size();
        // Rows are sorted independently, each by one thread.
        for_each_element_parallel<3>(in.kept_sizes, {&at_indices.kept_input, &in.kept_input, &at_values.kept_input},
                            static_cast<int64_t>(length) * 4,  // a sort costs several passes over its row
                            [length] { return std::vector<std::pair<V, int64_t>>(length); },
                            [&](std::vector<std::pair<V, int64_t>>& row, const std::array<std::byte*, 3>& p) {
                                for (size_t i = 0; i < row.size(); ++i) {
                                    row[i] = {load<T>(p[1] + in.reduced_bytes[i]), static_cast<int64_t>(i)};
                                }
                                auto ascending = [](const auto& a, const auto& b) { return less_nan_last(a.first, b.first); };
                                auto descending_order = [](const auto& a, const auto& b) {
                                    return greater_nan_first(a.first, b.first);
                                };
                                if (stable) {
                                    descending ? std::stable_sort(row.begin(), row.end(), descending_order)
                                               : std::stable_sort(row.begin(), row.end(), ascending);
                                } else {
                                    descending ? std::sort(row.begin(), row.end(), descending_order)
                                               : std::sort(row.begin(), row.end(), ascending);
                                }
                                for (size_t i = 0; i < row.size(); ++i) {
                                    store<int64_t>(p[0] + at_indices.reduced_bytes[i], row[i].second);
                                    if (values) {
                                        // The element itself, bit for bit (NaN payloads, -0.0).
                                        std::memcpy(p[2] + at_values.reduced_bytes[i],
                                                    p[1] + in.reduced_bytes[static_cast<size_t>(row[i].second)], element);
                                    }
                                }
                            });
    });
}

// sort(self, dim=-1, descending=False) and sort.stable(self, *, stable, dim=-1, descending=False)
std::vector<RuntimeValue> sort(const KernelCall& call, bool stable_overload) {
    const StridedTensor& self = call.tensor("self", 0);
    const size_t first = stable_overload ? 2 : 1;  // the schema position of dim
    const bool stable = stable_overload && call.bool_arg("stable", 1, false);
    const int64_t dim = dim_of(call, self, first, -1);
    const bool descending = call.bool_arg("descending", first + 1, false);
    StridedTensor values = allocate_output(call, 0, self.sizes, self.dtype);
    StridedTensor indices = allocate_output(call, 1, self.sizes, DType::Int64);
    sort_into(self, dim, descending, stable, &values, indices);
    return {RuntimeValue::of(values), RuntimeValue::of(indices)};
}

// argsort(self, dim=-1, descending=False) and argsort.stable(self, *, stable, dim=-1, descending=False)
std::vector<RuntimeValue> argsort(const KernelCall& call, bool stable_overload) {
    const StridedTensor& self = call.tensor("self", 0);
    const size_t first = stable_overload ? 2 : 1;
    const bool stable = stable_overload && call.bool_arg("stable", 1, false);
    const int64_t dim = dim_of(call, self, first, -1);
    const bool descending = call.bool_arg("descending", first + 1, false);
    StridedTensor indices = allocate_output(call, 0, self.sizes, DType::Int64);
    sort_into(self, dim, descending, stable, nullptr, indices);
    return single(indices);
}

// ---- median --------------------------------------------------------------------------------

void refuse_bool(const KernelCall& call, const StridedTensor& self, const char* op) {
    if (self.dtype == DType::Bool) call.fail(std::string(op) + " does not take bool (PyTorch has no CPU kernel for it)");
}

// median() / nanmedian() of every element: the lower median; NaN when any element is NaN
// (median) or every element is (nanmedian); NaN cast to the dtype for an empty tensor.
std::vector<RuntimeValue> median_all(const KernelCall& call, bool ignore_nan) {
    const StridedTensor& self = call.tensor("self", 0);
    refuse_bool(call, self, ignore_nan ? "nanmedian" : "median");
    StridedTensor out = allocate_output(call, 0, {}, self.dtype);
    const auto offsets = byte_offsets(self.sizes, self.strides, self.element_size());
    visit_dtype(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        if (offsets.empty()) {
            store<T>(out.data, cast<T>(std::numeric_limits<double>::quiet_NaN()));
            return;
        }
        std::vector<V> values;
        values.reserve(offsets.size());
        for (int64_t offset : offsets) values.push_back(load<T>(self.data + offset));
        const auto nans = static_cast<int64_t>(std::count_if(values.begin(), values.end(), [](V v) { return is_nan(v); }));
        if (!ignore_nan && nans > 0) {
            store<T>(out.data, cast<T>(std::numeric_limits<double>::quiet_NaN()));
            return;
        }
        const int64_t k = (static_cast<int64_t>(values.size()) - nans - 1) / 2;
        std::nth_element(values.begin(), values.begin() + k, values.end(), less_nan_last<V>);
        store<T>(out.data, values[static_cast<size_t>(k)]);
    });
    return single(out);
}

// median.dim / nanmedian.dim(self, dim, keepdim=False) -> (values, indices). Of equal elements
// the one at the lower index counts as smaller; median gives the first NaN of a row with one.
std::vector<RuntimeValue> median_dim(const KernelCall& call, bool ignore_nan) {
    const StridedTensor& self = call.tensor("self", 0);
    refuse_bool(call, self, ignore_nan ? "nanmedian" : "median");
    const int64_t dim = dim_of(call, self, 1, 0);
    const Reduction r = plan_reduction(self, dims_for(self, dim), call.bool_arg("keepdim", 2, false));
    StridedTensor values = allocate_output(call, 0, r.out_sizes, self.dtype);
    StridedTensor indices = allocate_output(call, 1, r.out_sizes, DType::Int64);
    if (r.reduced_count() == 0 && values.numel() > 0) {
        call.fail("median(): cannot reduce over dim " + std::to_string(dim) + " of size zero (input shape " +
                  shape_text(self.sizes) + ")");
    }
    const StridedTensor kept_values = r.kept_output(values), kept_indices = r.kept_output(indices);
    visit_dtype(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        std::vector<V> row(r.reduced_bytes.size());
        std::vector<int64_t> order(row.size());
        for_each_element<3>(r.kept_sizes, {&kept_values, &kept_indices, &r.kept_input}, [&](const std::array<std::byte*, 3>& p) {
            for (size_t i = 0; i < row.size(); ++i) row[i] = load<T>(p[2] + r.reduced_bytes[i]);
            auto pick = [&](size_t index) {
                store<T>(p[0], row[index]);
                store<int64_t>(p[1], static_cast<int64_t>(index));
            };
            if (!ignore_nan) {
                const auto nan = std::find_if(row.begin(), row.end(), [](V v) { return is_nan(v); });
                if (nan != row.end()) return pick(static_cast<size_t>(nan - row.begin()));
            }
            std::iota(order.begin(), order.end(), int64_t{0});
            const auto nans = static_cast<int64_t>(std::count_if(row.begin(), row.end(), [](V v) { return is_nan(v); }));
            const auto nth = order.begin() + (static_cast<int64_t>(row.size()) - nans - 1) / 2;
            std::nth_element(order.begin(), nth, order.end(), [&](int64_t i, int64_t j) {
                const V a = row[static_cast<size_t>(i)], b = row[static_cast<size_t>(j)];
                return a < b || (a == b && i < j) || (ignore_nan && is_nan(b) && !is_nan(a));
            });
            pick(static_cast<size_t>(*nth));
        });
    });
    return {RuntimeValue::of(values), RuntimeValue::of(indices)};
}

// ---- mode ----------------------------------------------------------------------------------

// mode(self, dim=-1, keepdim=False) -> (values, indices): the most frequent value (the smallest
// of equally frequent ones) and an index of it, as PyTorch's kernel finds them: a std::sort of
// (value, index) by value, then the last element of the first longest run.
std::vector<RuntimeValue> mode(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t dim = dim_of(call, self, 1, -1);
    const Reduction r = plan_reduction(self, dims_for(self, dim), call.bool_arg("keepdim", 2, false));
    StridedTensor values = allocate_output(call, 0, r.out_sizes, self.dtype);
    StridedTensor indices = allocate_output(call, 1, r.out_sizes, DType::Int64);
    if (r.reduced_count() == 0 && values.numel() > 0) {
        call.fail("mode(): cannot reduce over dim " + std::to_string(dim) + " of size zero (input shape " +
                  shape_text(self.sizes) + ")");
    }
    const StridedTensor kept_values = r.kept_output(values), kept_indices = r.kept_output(indices);
    visit_dtype(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        std::vector<std::pair<V, int64_t>> row(r.reduced_bytes.size());
        for_each_element<3>(r.kept_sizes, {&kept_values, &kept_indices, &r.kept_input}, [&](const std::array<std::byte*, 3>& p) {
            for (size_t i = 0; i < row.size(); ++i) row[i] = {load<T>(p[2] + r.reduced_bytes[i]), static_cast<int64_t>(i)};
            std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            V best{};
            int64_t best_index = 0, run = 0, longest = 0;
            for (size_t i = 0; i < row.size(); ++i) {
                ++run;
                if (i + 1 == row.size() || row[i].first != row[i + 1].first) {
                    if (run > longest) {
                        best = row[i].first;
                        best_index = row[i].second;
                        longest = run;
                    }
                    run = 0;
                }
            }
            store<T>(p[0], best);
            store<int64_t>(p[1], best_index);
        });
    });
    return {RuntimeValue::of(values), RuntimeValue::of(indices)};
}

// ---- quantile ------------------------------------------------------------------------------

enum class Interpolation { Linear, Lower, Higher, Midpoint, Nearest };

Interpolation interpolation_of(const KernelCall& call) {
    const auto* a = call.arg("interpolation", kKeywordOnly);
    const std::string name = a && a->kind == graph::Argument::Kind::String ? a->string_value : "linear";
    if (name == "linear") return Interpolation::Linear;
    if (name == "lower") return Interpolation::Lower;
    if (name == "higher") return Interpolation::Higher;
    if (name == "midpoint") return Interpolation::Midpoint;
    if (name == "nearest") return Interpolation::Nearest;
    call.fail("quantile: interpolation must be linear, lower, higher, midpoint or nearest, got '" + name + "'");
}

// PyTorch's CPU lerp (the vectorized form: one fused multiply-add).
template <typename V>
V lerp(V start, V end, V weight) {
    return std::abs(weight) < V(0.5) ? std::fma(weight, end - start, start) : std::fma(weight - V(1), end - start, end);
}

// The quantile q of one sorted row (NaN last), as PyTorch's quantile_compute works it out in
// the input's dtype: the rank q * (n - 1) (of the non-NaN count with ignore_nan; the last
// index when a NaN is present without it), rounded by the interpolation, then interpolated.
template <typename V>
V quantile_of_sorted(const std::vector<V>& sorted, int64_t nans, V q, Interpolation how, bool ignore_nan) {
    const auto last_index = static_cast<int64_t>(sorted.size()) - 1;
    V rank;
    if (ignore_nan) {
        rank = q * static_cast<V>(static_cast<int64_t>(sorted.size()) - nans - 1);
        if (rank < V(0)) rank = V(0);
    } else {
        rank = nans > 0 ? static_cast<V>(last_index) : q * static_cast<V>(last_index);
    }
    if (how == Interpolation::Lower) rank = std::floor(rank);
    if (how == Interpolation::Higher) rank = std::ceil(rank);
    if (how == Interpolation::Nearest) rank = std::nearbyint(rank);
    const auto below = static_cast<int64_t>(rank);
    const V low = sorted[static_cast<size_t>(below)];
    if (how != Interpolation::Linear && how != Interpolation::Midpoint) return low;
    const V weight = how == Interpolation::Midpoint ? V(0.5) : rank - static_cast<V>(below);
    const auto above = static_cast<int64_t>(std::ceil(rank));
    return lerp(low, sorted[static_cast<size_t>(above)], weight);
}

// quantile / nanquantile (.scalar: q a number; .default: q a 0-d or 1-d tensor of self's dtype)
// (self, q, dim=None, keepdim=False, *, interpolation='linear'): q's dim first, then self's
// sizes without dim (every dim reduced without one; keepdim leaves them as ones).
std::vector<RuntimeValue> quantile(const KernelCall& call, bool ignore_nan, bool scalar_q) {
    const StridedTensor& self = call.tensor("self", 0);
    const char* op = ignore_nan ? "nanquantile" : "quantile";
    if (self.dtype != DType::Float32 && self.dtype != DType::Float64) {
        call.fail(std::string(op) + "() needs a float32 or float64 input, got " + std::string(dtype_name(self.dtype)));
    }
    if (self.numel() == 0) call.fail(std::string(op) + "() input tensor must be non-empty");
    StridedTensor q_tensor;
    if (scalar_q) {
        q_tensor = scalar_tensor_as(Scalar{call.float_arg("q", 1, 0.0)}, self.dtype);
    } else {
        q_tensor = call.tensor("q", 1);
        if (q_tensor.rank() > 1) call.fail(std::string(op) + "() q must be a scalar or 1D tensor");
        if (q_tensor.dtype != self.dtype) call.fail(std::string(op) + "() q tensor must be same dtype as the input tensor");
    }
    const bool keepdim = call.bool_arg("keepdim", 3, false);
    const Interpolation how = interpolation_of(call);
    std::vector<int64_t> dims;  // empty: every dim, as one flattened row
    std::vector<int64_t> out_sizes;
    const auto* dim_arg = call.arg("dim", 2);
    const bool has_dim = dim_arg && dim_arg->kind != graph::Argument::Kind::None;
    if (has_dim && self.rank() > 0) {
        const int64_t dim = dim_of(call, self, 2, 0);
        dims = {dim};
        out_sizes = self.sizes;
        if (keepdim) {
            out_sizes[static_cast<size_t>(dim)] = 1;
        } else {
            out_sizes.erase(out_sizes.begin() + dim);
        }
    } else if (keepdim) {
        out_sizes.assign(self.rank(), 1);
    }
    const int64_t q_count = q_tensor.numel();
    if (q_tensor.rank() == 1) out_sizes.insert(out_sizes.begin(), q_count);
    const Reduction r = plan_reduction(self, dims, false);
    StridedTensor out = allocate_output(call, 0, out_sizes, self.dtype);
    StridedTensor dense = StridedTensor::allocate(self.dtype, out_sizes);  // row-major: q, then kept dims
    visit_floating(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        std::vector<V> qs;
        for (int64_t offset : byte_offsets(q_tensor.sizes, q_tensor.strides, q_tensor.element_size())) {
            const V q = load<T>(q_tensor.data + offset);
            if (!(q >= V(0) && q <= V(1))) call.fail(std::string(op) + "() q values must be in the range [0, 1]");
            qs.push_back(q);
        }
        const auto kept = byte_offsets(r.kept_sizes, r.kept_input.strides, self.element_size());
        auto* result = reinterpret_cast<V*>(dense.data);
        std::vector<V> row(r.reduced_bytes.size());
        for (size_t k = 0; k < kept.size(); ++k) {
            for (size_t i = 0; i < row.size(); ++i) row[i] = load<T>(r.kept_input.data + kept[k] + r.reduced_bytes[i]);
            std::sort(row.begin(), row.end(), less_nan_last<V>);
            const auto nans = static_cast<int64_t>(std::count_if(row.begin(), row.end(), [](V v) { return is_nan(v); }));
            for (size_t j = 0; j < qs.size(); ++j) {
                result[j * kept.size() + k] = quantile_of_sorted(row, nans, qs[j], how, ignore_nan);
            }
        }
    });
    copy_into(dense, out);
    return single(out);
}

// ---- Shape contracts -----------------------------------------------------------------------

// sort and argsort: the values and their indices in self's sizes, along a dim in range.
std::optional<std::vector<ExpectedSizes>> sorted_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 1);
    if (!self || !dim) return std::nullopt;
    wrap_dim(query, *dim, static_cast<int64_t>(self->size()));
    return std::vector<ExpectedSizes>{*self};
}

// median and nanmedian of every element: a 0-d tensor.
std::optional<std::vector<ExpectedSizes>> scalar_shape(const ShapeQuery&) { return std::vector<ExpectedSizes>{{}}; }

// quantile and nanquantile: self reduced over `dim` (every dim when None) and, for a 1-d q, a
// leading dim of q's size.
std::optional<std::vector<ExpectedSizes>> quantile_shape(const ShapeQuery& query) {
    auto reduced = reduced_self(query);
    if (!reduced) return std::nullopt;
    if (const auto q = query.sizes("q", 1)) {
        if (q->size() > 1) query.contradiction(fmt::format("its q has rank {}, not 0 or 1", q->size()));
        if (q->size() == 1) reduced->front().insert(reduced->front().begin(), q->front());
    }
    return reduced;
}

PT2OV_KERNEL("aten.sort.default", [](const KernelCall& c) { return sort(c, false); }, sorted_shape);
PT2OV_KERNEL("aten.sort.stable", [](const KernelCall& c) { return sort(c, true); }, sorted_shape);
PT2OV_KERNEL("aten.argsort.default", [](const KernelCall& c) { return argsort(c, false); }, sorted_shape);
PT2OV_KERNEL("aten.argsort.stable", [](const KernelCall& c) { return argsort(c, true); }, sorted_shape);
PT2OV_KERNEL("aten.median.default", [](const KernelCall& c) { return median_all(c, false); }, scalar_shape);
PT2OV_KERNEL("aten.nanmedian.default", [](const KernelCall& c) { return median_all(c, true); }, scalar_shape);
PT2OV_KERNEL("aten.median.dim", [](const KernelCall& c) { return median_dim(c, false); }, reduced_self);
PT2OV_KERNEL("aten.nanmedian.dim", [](const KernelCall& c) { return median_dim(c, true); }, reduced_self);
PT2OV_KERNEL("aten.mode.default", mode, reduced_self);
PT2OV_KERNEL("aten.quantile.scalar", [](const KernelCall& c) { return quantile(c, false, true); }, quantile_shape);
PT2OV_KERNEL("aten.quantile.default", [](const KernelCall& c) { return quantile(c, false, false); }, quantile_shape);
PT2OV_KERNEL("aten.nanquantile.scalar", [](const KernelCall& c) { return quantile(c, true, true); }, quantile_shape);
PT2OV_KERNEL("aten.nanquantile.default", [](const KernelCall& c) { return quantile(c, true, false); }, quantile_shape);

}  // namespace
}  // namespace pt2ov::kernels
