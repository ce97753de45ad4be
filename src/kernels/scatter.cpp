// Writes and reads along one dim by an index tensor: scatter (all four overloads), scatter_add,
// scatter_reduce, gather and take_along_dim; and by a 1-D index of slices: index_add,
// index_copy, index_fill and index_reduce. Each result is a copy of self with the writes
// applied in the index's row-major order, so of duplicate indices the last write wins, as on
// PyTorch's CPU; reductions store after every step, rounding as PyTorch's scalar_t loops do.
#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "kernels/contracts.h"
#include "kernels/dense_paths.h"

namespace pt2ov::kernels {
namespace {

enum class Combine { Replace, Sum, Prod, Mean, Max, Min };

std::string string_arg(const KernelCall& call, ArgName name, size_t position) {
    const graph::Argument* a = call.arg(name, position);
    if (!a || a->kind != graph::Argument::Kind::String) call.fail("argument '" + std::string(name.text()) + "' is not a string");
    return a->string_value;
}

// scatter.reduce / scatter.value_reduce spell "add" and "multiply"; scatter_reduce.two and
// index_reduce spell "sum", "prod", "mean", "amax" and "amin".
Combine combine_named(const KernelCall& call, const std::string& name, bool legacy_spelling) {
    if (legacy_spelling) {
        if (name == "add") return Combine::Sum;
        if (name == "multiply") return Combine::Prod;
        call.fail("reduce argument must be either add or multiply, got " + name);
    }
    if (name == "sum") return Combine::Sum;
    if (name == "prod") return Combine::Prod;
    if (name == "mean") return Combine::Mean;
    if (name == "amax") return Combine::Max;
    if (name == "amin") return Combine::Min;
    call.fail("reduce argument must be one of sum, prod, mean, amax, amin, got " + name);
}

// a op b in T's compute type; integers wrap as PyTorch's do (computed unsigned, no UB).
template <typename T>
compute_t<T> combined(Combine op, compute_t<T> a, compute_t<T> b) {
    using V = compute_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
        switch (op) {
            case Combine::Sum: case Combine::Mean: case Combine::Max: return a || b;
            case Combine::Prod: case Combine::Min: return a && b;
            case Combine::Replace: return b;
        }
    } else if constexpr (is_integer_v<T>) {
        switch (op) {
            case Combine::Sum: case Combine::Mean: return static_cast<V>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
            case Combine::Prod: return static_cast<V>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
            case Combine::Max: return std::max(a, b);
            case Combine::Min: return std::min(a, b);
            case Combine::Replace: return b;
        }
    } else {
        switch (op) {
            case Combine::Sum: case Combine::Mean: return a + b;
            case Combine::Prod: return a * b;
            case Combine::Max: return std::isnan(b) ? b : std::max(a, b);  // NaN wins from either side
            case Combine::Min: return std::isnan(b) ? b : std::min(a, b);
            case Combine::Replace: return b;
        }
    }
    return b;
}

// Where include_self=False starts: the identity of the reduction.
template <typename T>
compute_t<T> identity_of(Combine op) {
    using V = compute_t<T>;
    switch (op) {
        case Combine::Prod: return V(1);
        case Combine::Max:
            if constexpr (std::is_floating_point_v<V>) return -std::numeric_limits<V>::infinity();
            else return std::numeric_limits<V>::lowest();
        case Combine::Min:
            if constexpr (std::is_floating_point_v<V>) return std::numeric_limits<V>::infinity();
            else return std::numeric_limits<V>::max();
        default: return V(0);
    }
}

// The mean's division by the count of values reduced into an element: floor division for
// integers, as scatter_reduce and index_reduce do (div_ with rounding_mode="floor").
template <typename T>
compute_t<T> divided(compute_t<T> sum, int64_t count) {
    using V = compute_t<T>;
    if constexpr (is_integer_v<T>) {
        const auto c = static_cast<V>(count);
        V q = static_cast<V>(sum / c);
        if (sum % c != 0 && ((sum < 0) != (c < 0))) --q;
        return q;
    } else {
        return static_cast<V>(sum / static_cast<V>(count));
    }
}

StridedTensor at_least_1d(const StridedTensor& t) { return t.rank() == 0 ? t.view({1}, {1}) : t; }

// The index tensor's values, row-major, as int64 (PyTorch takes int64, some ops also int32).
std::vector<int64_t> index_values(const KernelCall& call, const StridedTensor& index, bool int32_allowed) {
    if (index.dtype != DType::Int64 && !(int32_allowed && index.dtype == DType::Int32)) {
        call.fail(std::string("expected an int64") + (int32_allowed ? " or int32" : "") + " index, got " +
                  std::string(dtype_name(index.dtype)));
    }
    const StridedTensor dense = contiguous_as(index, DType::Int64);
    const auto* p = reinterpret_cast<const int64_t*>(dense.data);
    return std::vector<int64_t>(p, p + dense.numel());
}

// A new output holding a copy of self, in the dim order recorded for output 0.
StridedTensor copy_of_self(const KernelCall& call, const StridedTensor& self) {
    StridedTensor out = allocate_output_for_overwrite(call, 0, self.sizes, self.dtype);
    copy_into(self, out);  // every element
    return out;
}

// ---- scatter / gather: one index element per written or read element ----------------------

// The byte offsets, for each index position (row-major), of that position in `t` with the
// coordinate along `dim` zeroed (so the index value picks it), or kept (`keep_dim`).
std::vector<int64_t> positions_in(const StridedTensor& t, const std::vector<int64_t>& index_sizes, int64_t dim, bool keep_dim) {
    std::vector<int64_t> strides = t.strides;
    if (!keep_dim) strides[dim] = 0;
    return byte_offsets(index_sizes, strides, t.element_size());
}

// PyTorch's scatter/gather shape rule: same rank, and index no larger than self apart from
// dim (and than src everywhere); 0-dim and 1-dim count as the same rank.
void check_scatter_shapes(const KernelCall& call, const StridedTensor& self, const StridedTensor& index, int64_t dim,
                          const StridedTensor* src) {
    if (index.rank() != self.rank() || (src && src->rank() != self.rank())) {
        call.fail("index " + shape_text(index.sizes) + " must have as many dims as self " + shape_text(self.sizes) +
                  (src ? " and src " + shape_text(src->sizes) : std::string()));
    }
    if (index.numel() == 0) return;
    for (size_t d = 0; d < index.rank(); ++d) {
        const bool too_large = (static_cast<int64_t>(d) != dim && index.sizes[d] > self.sizes[d]) ||
                               (src && index.sizes[d] > src->sizes[d]);
        if (too_large) {
            call.fail("index " + shape_text(index.sizes) + " must be no larger than self " + shape_text(self.sizes) +
                      " apart from dim " + std::to_string(dim) +
                      (src ? " and no larger than src " + shape_text(src->sizes) : std::string()));
        }
    }
}

void check_in_range(const KernelCall& call, const std::vector<int64_t>& values, int64_t size, int64_t dim) {
    for (int64_t v : values) {
        if (v < 0 || v >= size) {
            call.fail("index " + std::to_string(v) + " is out of bounds for dimension " + std::to_string(dim) +
                      " with size " + std::to_string(size));
        }
    }
}

// ---- The dense last-dim path -----------------------------------------------------------------
// When the index runs along the last dim of row-major tensors whose other dims all match the
// index's, row r of the index reads or writes only row r of self: rows are independent, and
// split over threads, each row in its index order, so results are those of the row-major walk.
// Each index is checked before its read or write; at one out of range its row stops, and the
// whole index is checked again in order afterwards, for the general path's error.

// The rows of an int64 index, when the path applies to `self` (and `src`, of the index's sizes).
struct DenseRowsOfIndex {
    int64_t rows = 0, cols = 0, self_cols = 0;
};
std::optional<DenseRowsOfIndex> dense_last_dim(const StridedTensor& self, const StridedTensor& index, int64_t dim,
                                                const StridedTensor* src) {
    const size_t rank = self.rank();
    if (rank == 0 || dim != static_cast<int64_t>(rank) - 1 || index.dtype != DType::Int64 || index.rank() != rank) return std::nullopt;
    if (!self.is_contiguous() || !index.is_contiguous() || (src && (!src->is_contiguous() || src->sizes != index.sizes))) {
        return std::nullopt;
    }
    for (size_t d = 0; d + 1 < rank; ++d) {
        if (index.sizes[d] != self.sizes[d]) return std::nullopt;
    }
    DenseRowsOfIndex r;
    r.cols = index.sizes.back();
    r.self_cols = self.sizes.back();
    r.rows = r.cols == 0 ? 0 : index.numel() / r.cols;
    return r;
}

// body(row_begin, row_end) over the rows, split over threads for big indices.
template <typename Body>
void over_index_rows(const DenseRowsOfIndex& r, const Body& body) {
    if (r.rows * r.cols < kParallelMinElements || r.rows < 2) {
        body(int64_t{0}, r.rows);
    } else {
        parallel_ranges(r.rows, std::max<int64_t>(1, kParallelMinElements / 2 / std::max<int64_t>(r.cols, 1)), body);
    }
}

inline bool in_range(int64_t index, int64_t size) { return static_cast<uint64_t>(index) < static_cast<uint64_t>(size); }

// The scatter family: a copy of self, then for every index position p, out[p with dim := index[p]]
// combined with src[p] (or `value`), in row-major order of p.
std::vector<RuntimeValue> scatter_kernel(const KernelCall& call, const std::optional<StridedTensor>& src_arg,
                                         const std::optional<Scalar>& value, Combine op, bool include_self) {
    const StridedTensor& self_arg = call.tensor("self", 0);
    const StridedTensor& index_arg = call.tensor("index", 2);
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self_arg.rank()));
    if (src_arg && src_arg->dtype != self_arg.dtype) {
        call.fail("expected self.dtype to be equal to src.dtype, got " + std::string(dtype_name(self_arg.dtype)) + " and " +
                  std::string(dtype_name(src_arg->dtype)));
    }
    if (op == Combine::Mean && self_arg.dtype == DType::Bool) call.fail("a mean of bool is not implemented (PyTorch refuses it too)");
    if (src_arg && src_arg->rank() != self_arg.rank() && std::max(src_arg->rank(), self_arg.rank()) > 1) {
        call.fail("src " + shape_text(src_arg->sizes) + " must have as many dims as self " + shape_text(self_arg.sizes));
    }
    const StridedTensor self = at_least_1d(self_arg);
    const StridedTensor index = at_least_1d(index_arg);
    const std::optional<StridedTensor> src = src_arg ? std::optional(at_least_1d(*src_arg)) : std::nullopt;
    check_scatter_shapes(call, self, index, dim, src ? &*src : nullptr);
    if (const auto rows = include_self && op != Combine::Mean ? dense_last_dim(self, index, dim, src ? &*src : nullptr)
                                                              : std::nullopt) {
        StridedTensor out_arg = copy_of_self(call, self_arg);
        if (out_arg.is_contiguous()) {
            const auto* positions = reinterpret_cast<const int64_t*>(index.data);
            std::atomic<bool> out_of_range{false};
            visit_dtype(out_arg.dtype, [&]<typename T>() {
                using V = compute_t<T>;
                const V fixed = value ? std::visit([](auto v) { return cast<T>(v); }, *value) : V{};
                const int64_t element = static_cast<int64_t>(sizeof(T));
                // The op as a template argument, so the loop has no switch per element.
                auto rows_with = [&]<Combine kOp>() {
                    over_index_rows(*rows, [&](int64_t begin, int64_t end) {
                        for (int64_t row = begin; row < end; ++row) {
                            const int64_t* at = positions + row * rows->cols;
                            std::byte* target = out_arg.data + row * rows->self_cols * element;
                            const std::byte* from = src ? src->data + row * rows->cols * element : nullptr;
                            for (int64_t j = 0; j < rows->cols; ++j) {
                                if (!in_range(at[j], rows->self_cols)) {  // checked before its write
                                    out_of_range = true;
                                    break;
                                }
                                std::byte* p = target + at[j] * element;
                                store<T>(p, combined<T>(kOp, load<T>(p), from ? load<T>(from + j * element) : fixed));
                            }
                        }
                    });
                };
                switch (op) {
                    case Combine::Replace: rows_with.template operator()<Combine::Replace>(); break;
                    case Combine::Sum: rows_with.template operator()<Combine::Sum>(); break;
                    case Combine::Prod: rows_with.template operator()<Combine::Prod>(); break;
                    case Combine::Max: rows_with.template operator()<Combine::Max>(); break;
                    case Combine::Min: rows_with.template operator()<Combine::Min>(); break;
                    case Combine::Mean: break;  // not on this path
                }
            });
            if (out_of_range) check_in_range(call, index_values(call, index_arg, true), self.sizes[dim], dim);
            return single(out_arg);
        }
    }
    const auto values = index_values(call, index_arg, true);
    check_in_range(call, values, self.sizes[dim], dim);

    StridedTensor out_arg = copy_of_self(call, self_arg);
    const StridedTensor out = at_least_1d(out_arg);
    const auto targets = positions_in(out, index.sizes, dim, false);
    const auto sources = src ? positions_in(*src, index.sizes, dim, true) : std::vector<int64_t>{};
    const int64_t element = static_cast<int64_t>(out.element_size());
    const int64_t dim_bytes = out.strides[dim] * element;
    visit_dtype(out.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        const V fixed = value ? std::visit([](auto v) { return cast<T>(v); }, *value) : V{};
        auto target = [&](size_t i) { return out.data + targets[i] + values[i] * dim_bytes; };
        if (!include_self) {
            for (size_t i = 0; i < values.size(); ++i) store<T>(target(i), identity_of<T>(op));
        }
        // out is dense and ours, so an element's byte offset / element size numbers it.
        std::vector<int64_t> counts(op == Combine::Mean ? static_cast<size_t>(out.numel()) : 0, include_self ? 1 : 0);
        for (size_t i = 0; i < values.size(); ++i) {
            std::byte* p = target(i);
            const V v = src ? load<T>(src->data + sources[i]) : fixed;
            store<T>(p, combined<T>(op, load<T>(p), v));
            if (op == Combine::Mean) ++counts[static_cast<size_t>((p - out.data) / element)];
        }
        if (op == Combine::Mean) {
            for (size_t i = 0; i < values.size(); ++i) {
                std::byte* p = target(i);
                auto& count = counts[static_cast<size_t>((p - out.data) / element)];
                if (count > 1) store<T>(p, divided<T>(load<T>(p), count));
                count = 0;  // divided once
            }
        }
    });
    return single(out_arg);
}

// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True)
std::vector<RuntimeValue> scatter_reduce(const KernelCall& call) {
    const Combine op = combine_named(call, string_arg(call, "reduce", 4), false);
    return scatter_kernel(call, call.tensor("src", 3), std::nullopt, op, call.bool_arg("include_self", kKeywordOnly, true));
}

// gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False): out[p] = self[p with
// dim := index[p]], shaped like index.
std::vector<RuntimeValue> gather_along(const KernelCall& call, const StridedTensor& self_arg, int64_t dim_arg,
                                       const StridedTensor& index_arg) {
    const int64_t dim = normalize_dim(call, dim_arg, static_cast<int64_t>(self_arg.rank()));
    const StridedTensor self = at_least_1d(self_arg);
    const StridedTensor index = at_least_1d(index_arg);
    check_scatter_shapes(call, self, index, dim, nullptr);
    if (const auto rows = dense_last_dim(self, index, dim, nullptr)) {
        StridedTensor out_arg = allocate_output_for_overwrite(call, 0, index_arg.sizes, self.dtype);
        if (out_arg.is_contiguous()) {
            const auto* positions = reinterpret_cast<const int64_t*>(index.data);
            std::atomic<bool> out_of_range{false};
            visit_bits(self.element_size(), [&]<typename Bits>() {
                const auto* from = reinterpret_cast<const Bits*>(self.data);
                auto* to = reinterpret_cast<Bits*>(out_arg.data);
                over_index_rows(*rows, [&](int64_t begin, int64_t end) {
                    for (int64_t row = begin; row < end; ++row) {
                        const int64_t* at = positions + row * rows->cols;
                        const Bits* source = from + row * rows->self_cols;
                        Bits* target = to + row * rows->cols;
                        for (int64_t j = 0; j < rows->cols; ++j) {
                            if (!in_range(at[j], rows->self_cols)) {
                                out_of_range = true;
                                break;
                            }
                            target[j] = source[at[j]];
                        }
                    }
                });
            });
            if (out_of_range) check_in_range(call, index_values(call, index_arg, true), self.sizes[dim], dim);
            return single(out_arg);
        }
    }
    const auto values = index_values(call, index_arg, true);
    check_in_range(call, values, self.sizes[dim], dim);
    StridedTensor out_arg = allocate_output(call, 0, index_arg.sizes, self.dtype);
    const StridedTensor out = at_least_1d(out_arg);
    const auto sources = positions_in(self, index.sizes, dim, false);
    const auto targets = positions_in(out, index.sizes, dim, true);
    const int64_t element = static_cast<int64_t>(self.element_size());
    const int64_t dim_bytes = self.strides[dim] * element;
    for (size_t i = 0; i < values.size(); ++i) {
        std::memcpy(out.data + targets[i], self.data + sources[i] + values[i] * dim_bytes, static_cast<size_t>(element));
    }
    return single(out_arg);
}

// take_along_dim(Tensor self, Tensor indices, int? dim=None). With a dim, self and indices are
// broadcast over the other dims and indices wrap modulo the dim's size (PyTorch takes them
// Python's `%` way); without one it gathers from the flattened self, and indices do not wrap.
std::vector<RuntimeValue> take_along_dim(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& indices = call.tensor("indices", 1);
    if (indices.dtype != DType::Int64 && indices.dtype != DType::Int32) {
        call.fail("take_along_dim() expects int64 or int32 indices, got " + std::string(dtype_name(indices.dtype)));
    }
    const graph::Argument* dim_arg = call.arg("dim", 2);
    if (!dim_arg || dim_arg->kind == graph::Argument::Kind::None) {
        const StridedTensor flat_self = contiguous_as(self, self.dtype);
        const StridedTensor flat_indices = contiguous_as(indices, indices.dtype);
        return gather_along(call, flat_self.view({flat_self.numel()}, {1}), 0,
                            flat_indices.view({flat_indices.numel()}, {1}));
    }
    if (self.rank() != indices.rank()) {
        call.fail("take_along_dim() expects indices " + shape_text(indices.sizes) + " with as many dims as self " +
                  shape_text(self.sizes));
    }
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 2), static_cast<int64_t>(self.rank()));
    std::vector<int64_t> self_sizes = self.sizes, index_sizes = indices.sizes;
    for (size_t d = 0; d < self.rank(); ++d) {
        if (static_cast<int64_t>(d) == dim) continue;
        const auto common = broadcast_shapes(call, {self.sizes[d]}, {indices.sizes[d]});
        self_sizes[d] = index_sizes[d] = common[0];
    }
    const int64_t size = self.rank() == 0 ? 1 : self.sizes[dim];
    // The wrapped indices go to new memory, never through contiguous_as: for an int64 index that
    // is already row-major it returns the index itself, and wrapping in place wrote into the
    // argument (a module's buffer lives in the archive's read-only mapping: SIGSEGV; an input
    // or another node's value would have been changed under its other readers).
    StridedTensor wrapped = StridedTensor::allocate_for_overwrite(DType::Int64, index_sizes);
    copy_into(broadcast_to(call, indices, index_sizes), wrapped);  // every element
    auto* p = reinterpret_cast<int64_t*>(wrapped.data);
    if (size == 0 && wrapped.numel() > 0) call.fail("take_along_dim(): indices into a dim of size 0");
    for (int64_t i = 0; i < wrapped.numel(); ++i) p[i] = ((p[i] % size) + size) % size;
    return gather_along(call, broadcast_to(call, self, self_sizes), dim, wrapped);
}

// ---- index_*: whole slices along dim, picked by a 1-D index --------------------------------

struct SliceWrites {
    StridedTensor out;                      // the result (a copy of self), at least 1-D
    StridedTensor result;                   // the same memory, in self's own rank
    int64_t dim = 0;
    std::vector<int64_t> positions;         // the index, wrapped where the op allows
    std::vector<int64_t> slice_sizes;       // out's sizes without dim
    std::vector<int64_t> out_slice_strides;
};

StridedTensor slice_of(const StridedTensor& t, int64_t dim, int64_t position, const std::vector<int64_t>& sizes) {
    std::vector<int64_t> strides = t.strides;
    strides.erase(strides.begin() + dim);
    return t.view(sizes, strides, position * t.strides[dim]);
}

// Reads self, dim and the index of an index_* op and makes the copy it writes into. Negative
// indices wrap only where PyTorch lets them (index_fill).
SliceWrites plan_slice_writes(const KernelCall& call, const char* op, bool negative_wraps, bool int32_allowed) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& index = call.tensor("index", 2);
    SliceWrites w;
    w.dim = normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()));
    if (index.rank() > 1) call.fail(std::string(op) + "(): index should have at most one dim, got " + shape_text(index.sizes));
    w.positions = index_values(call, index, int32_allowed);
    w.result = copy_of_self(call, self);
    w.out = at_least_1d(w.result);
    const int64_t size = w.out.sizes[w.dim];
    for (int64_t& v : w.positions) {
        if (v < (negative_wraps ? -size : 0) || v >= size) {
            call.fail(std::string(op) + "(): index " + std::to_string(v) + " is out of bounds for dimension " +
                      std::to_string(w.dim) + " with size " + std::to_string(size));
        }
        if (v < 0) v += size;
    }
    w.slice_sizes = w.out.sizes;
    w.slice_sizes.erase(w.slice_sizes.begin() + w.dim);
    return w;
}

// The source of index_add/index_copy/index_reduce: self's rank and sizes apart from dim, where
// it has one slice per index.
StridedTensor checked_source(const KernelCall& call, const SliceWrites& w, const char* op) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& source_arg = call.tensor("source", 3);
    if (source_arg.dtype != self.dtype) {
        call.fail(std::string(op) + "(): self and source must have the same dtype, got " + std::string(dtype_name(self.dtype)) +
                  " and " + std::string(dtype_name(source_arg.dtype)));
    }
    const StridedTensor source = at_least_1d(source_arg);
    bool fits = source.rank() == w.out.rank() && source.sizes[w.dim] == static_cast<int64_t>(w.positions.size());
    for (size_t d = 0; fits && d < source.rank(); ++d) {
        fits = static_cast<int64_t>(d) == w.dim || source.sizes[d] == w.out.sizes[d];
    }
    if (!fits) {
        call.fail(std::string(op) + "(): source " + shape_text(source_arg.sizes) + " must match self " +
                  shape_text(self.sizes) + " apart from dim " + std::to_string(w.dim) + ", where it has one slice for each of the " +
                  std::to_string(w.positions.size()) + " indices");
    }
    return source;
}

// Combines source's slice i into out's slice index[i], for every i in order; reductions with
// include_self=False start every indexed slice at the identity; a mean divides at the end.
template <typename T, typename Op>
void combine_slices(const SliceWrites& w, const StridedTensor& source, Combine mode, bool include_self, Op&& op) {
    if (!include_self) {
        const StridedTensor start = scalar_tensor_as(Scalar(0.0), w.out.dtype);
        store<T>(start.data, identity_of<T>(mode));
        for (int64_t position : w.positions) {
            copy_into(start.view(w.slice_sizes, std::vector<int64_t>(w.slice_sizes.size(), 0)),
                      slice_of(w.out, w.dim, position, w.slice_sizes));
        }
    }
    std::vector<int64_t> counts(mode == Combine::Mean ? static_cast<size_t>(w.out.sizes[w.dim]) : 0, include_self ? 1 : 0);
    for (size_t i = 0; i < w.positions.size(); ++i) {
        const StridedTensor target = slice_of(w.out, w.dim, w.positions[i], w.slice_sizes);
        const StridedTensor from = slice_of(source, w.dim, static_cast<int64_t>(i), w.slice_sizes);
        for_each_element<2>(w.slice_sizes, {&target, &from}, [&](const std::array<std::byte*, 2>& p) {
            store<T>(p[0], op(load<T>(p[0]), load<T>(p[1])));
        });
        if (mode == Combine::Mean) ++counts[static_cast<size_t>(w.positions[i])];
    }
    if (mode != Combine::Mean) return;
    for (size_t position = 0; position < counts.size(); ++position) {
        const int64_t count = counts[position];
        if (count <= 1) continue;
        const StridedTensor target = slice_of(w.out, w.dim, static_cast<int64_t>(position), w.slice_sizes);
        for_each_element<1>(w.slice_sizes, {&target}, [&](const std::array<std::byte*, 1>& p) {
            store<T>(p[0], divided<T>(load<T>(p[0]), count));
        });
    }
}

// index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1)
std::vector<RuntimeValue> index_add(const KernelCall& call) {
    SliceWrites w = plan_slice_writes(call, "index_add", false, true);
    const StridedTensor source = checked_source(call, w, "index_add");
    const Scalar alpha = call.arg("alpha", kKeywordOnly) ? call.scalar("alpha", kKeywordOnly) : Scalar(int64_t{1});
    visit_dtype(w.out.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        const V scale = std::visit([](auto v) { return cast<T>(v); }, alpha);
        combine_slices<T>(w, source, Combine::Sum, true, [&](V a, V b) {
            if constexpr (std::is_same_v<T, bool>) {
                return a || (scale && b);
            } else if constexpr (is_integer_v<T>) {
                return static_cast<V>(static_cast<uint64_t>(a) + static_cast<uint64_t>(scale) * static_cast<uint64_t>(b));
            } else {
                return static_cast<V>(a + scale * b);
            }
        });
    });
    return single(w.result);
}

// index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True)
std::vector<RuntimeValue> index_reduce(const KernelCall& call) {
    const Combine mode = combine_named(call, string_arg(call, "reduce", 4), false);
    if (mode == Combine::Sum) call.fail("index_reduce(): reduce must be one of prod, mean, amax, amin, got sum");
    if (call.tensor("self", 0).dtype == DType::Bool) call.fail("index_reduce() is not implemented for bool (PyTorch refuses it too)");
    SliceWrites w = plan_slice_writes(call, "index_reduce", false, true);
    const StridedTensor source = checked_source(call, w, "index_reduce");
    const bool include_self = call.bool_arg("include_self", kKeywordOnly, true);
    visit_dtype(w.out.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        combine_slices<T>(w, source, mode, include_self, [&](V a, V b) { return combined<T>(mode, a, b); });
    });
    return single(w.result);
}

// index_copy(Tensor self, int dim, Tensor index, Tensor source): int64 index only.
std::vector<RuntimeValue> index_copy(const KernelCall& call) {
    SliceWrites w = plan_slice_writes(call, "index_copy", false, false);
    const StridedTensor source = checked_source(call, w, "index_copy");
    for (size_t i = 0; i < w.positions.size(); ++i) {
        copy_into(slice_of(source, w.dim, static_cast<int64_t>(i), w.slice_sizes),
                  slice_of(w.out, w.dim, w.positions[i], w.slice_sizes));
    }
    return single(w.result);
}

// index_fill.int_Scalar / int_Tensor(Tensor self, int dim, Tensor index, value): int64 index,
// negative indices wrap; a tensor value must be 0-dim, and is converted to self's dtype.
std::vector<RuntimeValue> index_fill(const KernelCall& call) {
    SliceWrites w = plan_slice_writes(call, "index_fill", true, false);
    const graph::Argument* value_arg = call.arg("value", 3);
    StridedTensor value;
    if (value_arg && value_arg->kind == graph::Argument::Kind::Tensor) {
        const StridedTensor& given = call.tensor("value", 3);
        if (given.rank() != 0) call.fail("index_fill() only supports a 0-dim value tensor, got shape " + shape_text(given.sizes));
        value = StridedTensor::allocate(w.out.dtype, {});
        copy_into(given, value);
    } else {
        value = scalar_tensor_as(call.scalar("value", 3), w.out.dtype);
    }
    const StridedTensor spread = value.view(w.slice_sizes, std::vector<int64_t>(w.slice_sizes.size(), 0));
    for (int64_t position : w.positions) copy_into(spread, slice_of(w.out, w.dim, position, w.slice_sizes));
    return single(w.result);
}

// Shape contracts.
// What scatter_gather_checks refuse of an index that has elements: a rank other than self's (0
// and 1 count alike), a size beyond self's in a dim other than `dim`.
int64_t checked_index_dim(const ShapeQuery& query, const ExpectedSizes& self, const ExpectedSizes& index) {
    const auto rank = static_cast<int64_t>(self.size());
    const auto dim = query.int_arg("dim", 1);
    const int64_t d = dim ? wrap_dim(query, *dim, rank) : -1;
    const auto count = element_count(index);
    if (!count || *count == 0) return d;
    if (std::max<size_t>(self.size(), 1) != std::max<size_t>(index.size(), 1)) {
        query.contradiction(fmt::format("its index has rank {} where its tensor has rank {}", index.size(), self.size()));
    }
    for (size_t k = 0; k < std::min(self.size(), index.size()); ++k) {
        if (static_cast<int64_t>(k) != d && self[k] && index[k] && *index[k] > *self[k]) {
            query.contradiction(fmt::format("its index has size {} in dim {}, where its tensor has {}", *index[k], k, *self[k]));
        }
    }
    return d;
}

// scatter, scatter_add, scatter_reduce: self's sizes.
std::optional<std::vector<ExpectedSizes>> scatter_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto index = query.sizes("index", 2);
    if (!self) return std::nullopt;
    if (index) checked_index_dim(query, *self, *index);
    return std::vector<ExpectedSizes>{*self};
}

// gather: the index's sizes.
std::optional<std::vector<ExpectedSizes>> gather_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto index = query.sizes("index", 2);
    if (!self || !index) return std::nullopt;
    checked_index_dim(query, *self, *index);
    return std::vector<ExpectedSizes>{*index};
}

// take_along_dim: without dim, the flattened self gathered by the flattened indices; with it,
// self and indices (of one rank) broadcast but along dim, which the indices' is.
std::optional<std::vector<ExpectedSizes>> take_along_dim_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto indices = query.sizes("indices", 1);
    if (!self || !indices) return std::nullopt;
    const graph::Argument& dim_arg = query.node().arg(2);
    if (dim_arg.kind == graph::Argument::Kind::None) return std::vector<ExpectedSizes>{{element_count(*indices)}};
    const auto dim = query.int_arg("dim", 2);
    if (!dim) return std::nullopt;
    if (self->size() != indices->size()) {
        query.contradiction(fmt::format("its indices have rank {} where its tensor has rank {}", indices->size(), self->size()));
    }
    const int64_t d = wrap_dim(query, *dim, static_cast<int64_t>(self->size()));
    if (self->empty()) return std::vector<ExpectedSizes>{ExpectedSizes{}};
    ExpectedSizes along = *self;
    along[static_cast<size_t>(d)] = (*indices)[static_cast<size_t>(d)];
    return std::vector<ExpectedSizes>{broadcast(query, along, *indices)};
}

// index_add, index_copy, index_fill, index_reduce: self's sizes, written along a dim of it.
std::optional<std::vector<ExpectedSizes>> index_write_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 1);
    if (!self) return std::nullopt;
    if (dim) wrap_dim(query, *dim, static_cast<int64_t>(self->size()));
    return std::vector<ExpectedSizes>{*self};
}

PT2OV_KERNEL("aten.scatter.src", [](const KernelCall& c) {
    return scatter_kernel(c, c.tensor("src", 3), std::nullopt, Combine::Replace, true);
}, scatter_shape);
PT2OV_KERNEL("aten.scatter.value", [](const KernelCall& c) {
    return scatter_kernel(c, std::nullopt, c.scalar("value", 3), Combine::Replace, true);
}, scatter_shape);
PT2OV_KERNEL("aten.scatter.reduce", [](const KernelCall& c) {
    const Combine op = combine_named(c, string_arg(c, "reduce", kKeywordOnly), true);
    return scatter_kernel(c, c.tensor("src", 3), std::nullopt, op, true);
}, scatter_shape);
PT2OV_KERNEL("aten.scatter.value_reduce", [](const KernelCall& c) {
    const Combine op = combine_named(c, string_arg(c, "reduce", kKeywordOnly), true);
    return scatter_kernel(c, std::nullopt, c.scalar("value", 3), op, true);
}, scatter_shape);
PT2OV_KERNEL("aten.scatter_add.default", [](const KernelCall& c) {
    return scatter_kernel(c, c.tensor("src", 3), std::nullopt, Combine::Sum, true);
}, scatter_shape);
PT2OV_KERNEL("aten.scatter_reduce.two", scatter_reduce, scatter_shape);
PT2OV_KERNEL("aten.gather.default", [](const KernelCall& c) {
    return gather_along(c, c.tensor("self", 0), c.int_arg("dim", 1), c.tensor("index", 2));
}, gather_shape);
PT2OV_KERNEL("aten.take_along_dim.default", take_along_dim, take_along_dim_shape);
PT2OV_KERNEL("aten.index_add.default", index_add, index_write_shape);
PT2OV_KERNEL("aten.index_reduce.default", index_reduce, index_write_shape);
PT2OV_KERNEL("aten.index_copy.default", index_copy, index_write_shape);
PT2OV_KERNEL("aten.index_fill.int_Scalar", index_fill, index_write_shape);
PT2OV_KERNEL("aten.index_fill.int_Tensor", index_fill, index_write_shape);

}  // namespace
}  // namespace pt2ov::kernels
