// Diagonals: diagonal (a view) and its copies (diagonal_copy, linalg_diagonal, diag of a
// matrix), the matrices built around a diagonal (diag of a vector, diag_embed, diagflat),
// diagonal_scatter, trace, and the triangles (tril, triu).
#include <algorithm>
#include <limits>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// The view of `self`'s diagonal `offset` over dims (dim1, dim2), as at::diagonal makes it: both
// dims removed, the diagonal appended last with stride stride(dim1) + stride(dim2).
StridedTensor diagonal_view(const KernelCall& call, const StridedTensor& self, int64_t offset, int64_t dim1_arg,
                            int64_t dim2_arg) {
    const auto rank = static_cast<int64_t>(self.rank());
    if (rank < 2) call.fail("diagonal() needs a tensor of at least 2 dims, got shape " + shape_text(self.sizes));
    const int64_t dim1 = normalize_dim(call, dim1_arg, rank);
    const int64_t dim2 = normalize_dim(call, dim2_arg, rank);
    if (dim1 == dim2) call.fail("diagonal dimensions cannot be identical " + std::to_string(dim1_arg) + ", " + std::to_string(dim2_arg));
    const int64_t rows = self.sizes[dim1], columns = self.sizes[dim2];
    const int64_t length = offset >= 0 ? std::max<int64_t>(std::min(rows, columns - offset), 0)
                                       : std::max<int64_t>(std::min(rows + offset, columns), 0);
    int64_t start = 0;
    if (length > 0) start = offset >= 0 ? offset * self.strides[dim2] : -offset * self.strides[dim1];
    std::vector<int64_t> sizes, strides;
    for (int64_t d = 0; d < rank; ++d) {
        if (d == dim1 || d == dim2) continue;
        sizes.push_back(self.sizes[d]);
        strides.push_back(self.strides[d]);
    }
    sizes.push_back(length);
    strides.push_back(self.strides[dim1] + self.strides[dim2]);
    return self.view(sizes, strides, start);
}

// diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1), and diagonal_copy.
StridedTensor diagonal_of(const KernelCall& call) {
    return diagonal_view(call, call.tensor("self", 0), call.int_arg("offset", 1, 0), call.int_arg("dim1", 2, 0),
                         call.int_arg("dim2", 3, 1));
}

// linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1)
StridedTensor linalg_diagonal_of(const KernelCall& call) {
    return diagonal_view(call, call.tensor("A", 0), call.int_arg("offset", kKeywordOnly, 0),
                         call.int_arg("dim1", kKeywordOnly, -2), call.int_arg("dim2", kKeywordOnly, -1));
}

std::vector<RuntimeValue> copied(const KernelCall& call, const StridedTensor& view) {
    StridedTensor out = allocate_output(call, 0, view.sizes, view.dtype);
    copy_into(view, out);
    return single(out);
}

// A zero tensor of rank self.rank() + 1 with self's last dim on diagonal `offset` of dims
// (dim1, dim2): diag_embed, and diag / diagflat of a vector.
std::vector<RuntimeValue> embedded(const KernelCall& call, const StridedTensor& self, int64_t offset, int64_t dim1_arg,
                                   int64_t dim2_arg) {
    const auto rank = static_cast<int64_t>(self.rank()) + 1;
    const int64_t dim1 = normalize_dim(call, dim1_arg, rank);
    const int64_t dim2 = normalize_dim(call, dim2_arg, rank);
    if (dim1 == dim2) call.fail("diagonal dimensions cannot be identical " + std::to_string(dim1_arg) + ", " + std::to_string(dim2_arg));
    const int64_t length = self.sizes.back();
    int64_t side = 0;
    if (offset == std::numeric_limits<int64_t>::min() || __builtin_add_overflow(length, offset < 0 ? -offset : offset, &side)) {
        call.fail("offset " + std::to_string(offset) + " makes a matrix larger than an int64 counts");
    }
    std::vector<int64_t> sizes;
    for (size_t d = 0; d + 1 < self.rank(); ++d) sizes.push_back(self.sizes[d]);
    for (int64_t d = 0; d < rank; ++d) {
        if (d == dim1 || d == dim2) sizes.insert(sizes.begin() + d, side);
    }
    StridedTensor out = allocate_output(call, 0, sizes, self.dtype);  // zero-filled
    // The diagonal view lists the other dims in order, then the diagonal: self's own order.
    copy_into(self, diagonal_view(call, out, offset, dim1, dim2));
    return single(out);
}

// diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1)
std::vector<RuntimeValue> diag_embed(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("diag_embed() needs a tensor of at least 1 dim, got a 0-dim tensor");
    return embedded(call, self, call.int_arg("offset", 1, 0), call.int_arg("dim1", 2, -2), call.int_arg("dim2", 3, -1));
}

// diag(Tensor self, int diagonal=0): a vector becomes a matrix, a matrix gives its diagonal.
std::vector<RuntimeValue> diag(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t offset = call.int_arg("diagonal", 1, 0);
    if (self.rank() == 1) return embedded(call, self, offset, 0, 1);
    if (self.rank() == 2) return copied(call, diagonal_view(call, self, offset, 0, 1));
    call.fail("diag() supports 1-D or 2-D tensors, got " + std::to_string(self.rank()) + "-D");
}

// diagflat(Tensor self, int offset=0): diag of the flattened tensor, in row-major order.
std::vector<RuntimeValue> diagflat(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor dense = contiguous_as(self, self.dtype);
    return embedded(call, dense.view({dense.numel()}, {1}), call.int_arg("offset", 1, 0), 0, 1);
}

// diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1): a copy of
// self with src written over that diagonal.
std::vector<RuntimeValue> diagonal_scatter(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& src = call.tensor("src", 1);
    StridedTensor out = allocate_output(call, 0, self.sizes, self.dtype);
    const StridedTensor target =
        diagonal_view(call, out, call.int_arg("offset", 2, 0), call.int_arg("dim1", 3, 0), call.int_arg("dim2", 4, 1));
    if (src.sizes != target.sizes) {
        call.fail("diagonal_scatter(): src of shape " + shape_text(src.sizes) + " does not match the diagonal's shape " +
                  shape_text(target.sizes));
    }
    copy_into(self, out);
    copy_into(src, target);
    return single(out);
}

// trace(Tensor self): the sum of a matrix's main diagonal. As PyTorch's CPU kernel does, float
// sums in double, float16/bfloat16 in float, integers in int64 (and the result is int64).
std::vector<RuntimeValue> trace(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() != 2) call.fail("trace() expects a matrix, got a tensor of shape " + shape_text(self.sizes));
    if (self.dtype == DType::Bool) call.fail("trace() is not implemented for bool (PyTorch refuses it too)");
    const StridedTensor diagonal = diagonal_view(call, self, 0, 0, 1);
    const DType out_dtype = call.output_meta(0).dtype;
    StridedTensor out = StridedTensor::allocate(out_dtype, {});
    const int64_t step = diagonal.strides[0] * static_cast<int64_t>(diagonal.element_size());
    visit_dtype(self.dtype, [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool>) {
            using Acc = std::conditional_t<is_integer_v<T>, uint64_t,
                                           std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>, double, float>>;
            Acc sum = 0;
            for (int64_t i = 0; i < diagonal.sizes[0]; ++i) {
                const auto v = load<T>(diagonal.data + i * step);
                if constexpr (is_integer_v<T>) {
                    sum += static_cast<uint64_t>(static_cast<int64_t>(v));  // wraps as int64 does
                } else {
                    sum += static_cast<Acc>(v);
                }
            }
            if constexpr (is_integer_v<T>) {
                if (out_dtype != DType::Int64) call.fail("trace() of an integer tensor gives int64, the program records " + std::string(dtype_name(out_dtype)));
                store<int64_t>(out.data, static_cast<int64_t>(sum));
            } else {
                if (out_dtype != self.dtype) call.fail("trace() keeps a floating dtype, the program records " + std::string(dtype_name(out_dtype)));
                store<T>(out.data, cast<T>(sum));
            }
        }
    });
    return single(out);
}

// Shape contracts.
// The length of diagonal `offset` of a [rows, columns] matrix (0 when it misses the matrix).
std::optional<int64_t> diagonal_length(const std::optional<int64_t>& rows, const std::optional<int64_t>& columns, int64_t offset) {
    if (offset >= 0 && rows && *rows == 0) return 0;
    if (offset <= 0 && columns && *columns == 0) return 0;
    if (!rows || !columns) return std::nullopt;
    const auto wide = static_cast<__int128>(offset);
    const __int128 length = offset >= 0 ? std::min<__int128>(*rows, *columns - wide) : std::min<__int128>(*rows + wide, *columns);
    return static_cast<int64_t>(std::max<__int128>(length, 0));
}

// `self` without dims dim1 and dim2, its diagonal `offset` over them appended (at::diagonal).
ExpectedSizes diagonal_sizes(const ShapeQuery& query, const ExpectedSizes& self, int64_t offset, int64_t dim1, int64_t dim2) {
    const auto rank = static_cast<int64_t>(self.size());
    if (rank < 2) query.contradiction("it takes a diagonal of a tensor of rank " + std::to_string(rank));
    const int64_t d1 = wrap_dim(query, dim1, rank), d2 = wrap_dim(query, dim2, rank);
    if (d1 == d2) query.contradiction("its diagonal dims " + std::to_string(dim1) + " and " + std::to_string(dim2) + " are the same");
    ExpectedSizes out;
    for (int64_t d = 0; d < rank; ++d) {
        if (d != d1 && d != d2) out.push_back(self[static_cast<size_t>(d)]);
    }
    out.push_back(diagonal_length(self[static_cast<size_t>(d1)], self[static_cast<size_t>(d2)], offset));
    return out;
}

// diagonal, diagonal_copy (self) and linalg_diagonal (A, whose dims default to the last two).
std::optional<std::vector<ExpectedSizes>> diagonal_shape(const ShapeQuery& query) {
    const bool linalg = query.node().op == graph::op_id("aten.linalg_diagonal.default");
    const auto self = linalg ? query.sizes("A", 0) : query.sizes("self", 0);
    const auto offset = query.int_arg("offset", 1), dim1 = query.int_arg("dim1", 2), dim2 = query.int_arg("dim2", 3);
    if (!self || !offset || !dim1 || !dim2) return std::nullopt;
    return std::vector<ExpectedSizes>{diagonal_sizes(query, *self, *offset, *dim1, *dim2)};
}

// The side of the square matrix whose diagonal `offset` holds `length` values.
std::optional<int64_t> square_side(const std::optional<int64_t>& length, int64_t offset) {
    int64_t side = 0;
    if (!length || offset == std::numeric_limits<int64_t>::min() || __builtin_add_overflow(*length, offset < 0 ? -offset : offset, &side)) {
        return std::nullopt;
    }
    return side;
}

// diag: a vector's square matrix, or a matrix's diagonal.
std::optional<std::vector<ExpectedSizes>> diag_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto offset = query.int_arg("diagonal", 1);
    if (!self || !offset) return std::nullopt;
    if (self->size() == 1) {
        const auto side = square_side((*self)[0], *offset);
        return std::vector<ExpectedSizes>{{side, side}};
    }
    if (self->size() != 2) query.contradiction("diag() of a tensor of rank " + std::to_string(self->size()) + " (1 or 2 expected)");
    return std::vector<ExpectedSizes>{{diagonal_length((*self)[0], (*self)[1], *offset)}};
}

// diag_embed: the last dim becomes diagonal `offset` of a square over dims dim1 and dim2 of the
// result (one rank more).
std::optional<std::vector<ExpectedSizes>> diag_embed_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto offset = query.int_arg("offset", 1), dim1 = query.int_arg("dim1", 2), dim2 = query.int_arg("dim2", 3);
    if (!self || self->empty() || !offset || !dim1 || !dim2) return std::nullopt;
    const auto rank = static_cast<int64_t>(self->size()) + 1;
    const int64_t d1 = wrap_dim(query, *dim1, rank), d2 = wrap_dim(query, *dim2, rank);
    if (d1 == d2) query.contradiction("its diagonal dims " + std::to_string(*dim1) + " and " + std::to_string(*dim2) + " are the same");
    const auto side = square_side(self->back(), *offset);
    ExpectedSizes out(self->begin(), self->end() - 1);
    out.insert(out.begin() + std::min(d1, d2), side);
    out.insert(out.begin() + std::max(d1, d2), side);
    return std::vector<ExpectedSizes>{out};
}

// diagflat: the flattened self on diagonal `offset` of a square matrix.
std::optional<std::vector<ExpectedSizes>> diagflat_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto offset = query.int_arg("offset", 1);
    if (!self || !offset) return std::nullopt;
    const auto side = square_side(element_count(*self), *offset);
    return std::vector<ExpectedSizes>{{side, side}};
}

// diagonal_scatter: self's sizes (its dims must admit the diagonal).
std::optional<std::vector<ExpectedSizes>> diagonal_scatter_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto offset = query.int_arg("offset", 2), dim1 = query.int_arg("dim1", 3), dim2 = query.int_arg("dim2", 4);
    if (!self) return std::nullopt;
    if (offset && dim1 && dim2) diagonal_sizes(query, *self, *offset, *dim1, *dim2);
    return std::vector<ExpectedSizes>{*self};
}

// trace: the 0-d sum of a matrix's diagonal.
std::optional<std::vector<ExpectedSizes>> trace_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    if (self->size() != 2) query.contradiction("trace() of a tensor of rank " + std::to_string(self->size()) + " (a matrix expected)");
    return std::vector<ExpectedSizes>{ExpectedSizes{}};
}

// tril(self, diagonal=0) / triu(self, diagonal=0): a row-major copy of `self` with the elements
// above (tril: column - row > diagonal) or below (triu: column - row < diagonal) the diagonal of
// its last two dims zeroed, every dtype (a zero is all bits 0).
template <bool Lower>
std::vector<RuntimeValue> triangle(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() < 2) call.fail("tril/triu need a tensor of at least 2 dims, got shape " + shape_text(self.sizes));
    const int64_t diagonal = call.int_arg("diagonal", 1, 0);
    StridedTensor out = StridedTensor::allocate(self.dtype, self.sizes);
    copy_into(self, out);
    const int64_t rows = self.sizes[self.rank() - 2], columns = self.sizes[self.rank() - 1];
    const int64_t matrices = rows * columns == 0 ? 0 : out.numel() / (rows * columns);
    const size_t element = dtype_size(self.dtype);
    for (int64_t m = 0; m < matrices; ++m) {
        for (int64_t i = 0; i < rows; ++i) {
            std::byte* row = out.data + static_cast<size_t>((m * rows + i) * columns) * element;
            // The columns zeroed: j > i + diagonal (tril) or j < i + diagonal (triu), clamped.
            const int64_t edge = std::clamp<int64_t>(i + diagonal + (Lower ? 1 : 0), 0, columns);
            if (Lower) std::fill(row + edge * static_cast<int64_t>(element), row + columns * static_cast<int64_t>(element), std::byte{0});
            else std::fill(row, row + edge * static_cast<int64_t>(element), std::byte{0});
        }
    }
    return single(out);
}

PT2OV_KERNEL("aten.diagonal.default", [](const KernelCall& c) { return single(diagonal_of(c)); }, diagonal_shape);
PT2OV_KERNEL("aten.diagonal_copy.default", [](const KernelCall& c) { return copied(c, diagonal_of(c)); }, diagonal_shape);
PT2OV_KERNEL("aten.linalg_diagonal.default", [](const KernelCall& c) { return single(linalg_diagonal_of(c)); }, diagonal_shape);
PT2OV_KERNEL("aten.diag.default", diag, diag_shape);
PT2OV_KERNEL("aten.diag_embed.default", diag_embed, diag_embed_shape);
PT2OV_KERNEL("aten.diagflat.default", diagflat, diagflat_shape);
PT2OV_KERNEL("aten.diagonal_scatter.default", diagonal_scatter, diagonal_scatter_shape);
PT2OV_KERNEL("aten.trace.default", trace, trace_shape);
PT2OV_KERNEL("aten.tril.default", triangle<true>, same_as_self);
PT2OV_KERNEL("aten.triu.default", triangle<false>, same_as_self);

}  // namespace
}  // namespace pt2ov::kernels
