// Ops whose result size depends on the values: masked_select, the nonzero family beyond
// nonzero itself (argwhere, nonzero_numpy, nonzero_static), and repeat_interleave's indices. Elements are visited in row-major
// order, as PyTorch does.
#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// The row-major numbers of the non-zero elements of `self`.
std::vector<int64_t> nonzero_positions(const StridedTensor& self) {
    const auto offsets = byte_offsets(self.sizes, self.strides, self.element_size());
    std::vector<int64_t> found;
    visit_dtype(self.dtype, [&]<typename T>() {
        for (size_t i = 0; i < offsets.size(); ++i) {
            if (load<T>(self.data + offsets[i]) != compute_t<T>(0)) found.push_back(static_cast<int64_t>(i));
        }
    });
    return found;
}

// Writes the index of row-major element `position` of `sizes` into row `row` of the int64
// matrix `out` ([rows, rank]).
void write_index(const StridedTensor& out, int64_t row, int64_t position, const std::vector<int64_t>& sizes) {
    for (size_t d = sizes.size(); d-- > 0;) {
        store<int64_t>(out.data + (row * out.strides[0] + static_cast<int64_t>(d) * out.strides[1]) * 8,
                       position % sizes[d]);
        position /= sizes[d];
    }
}

// masked_select(self, mask) -> 1-d: the elements of self where the bool mask is true, both
// broadcast to one shape.
std::vector<RuntimeValue> masked_select(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& mask = call.tensor("mask", 1);
    if (mask.dtype != DType::Bool) call.fail("masked_select needs a bool mask, got " + std::string(dtype_name(mask.dtype)));
    const auto sizes = broadcast_shapes(call, self.sizes, mask.sizes);
    const StridedTensor values = broadcast_to(call, self, sizes), selected = broadcast_to(call, mask, sizes);
    const auto value_offsets = byte_offsets(sizes, values.strides, values.element_size());
    std::vector<int64_t> picked;
    for (int64_t position : nonzero_positions(selected)) picked.push_back(value_offsets[static_cast<size_t>(position)]);
    StridedTensor out = allocate_output(call, 0, {static_cast<int64_t>(picked.size())}, self.dtype);
    const size_t element = self.element_size();
    for (size_t i = 0; i < picked.size(); ++i) {
        std::memcpy(out.data + static_cast<int64_t>(i) * out.strides[0] * static_cast<int64_t>(element),
                    values.data + picked[i], element);
    }
    return single(out);
}

// argwhere(self) -> int64 [n, rank], as nonzero.
std::vector<RuntimeValue> argwhere(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto found = nonzero_positions(self);
    const auto count = static_cast<int64_t>(found.size());
    StridedTensor out = allocate_output(call, 0, {count, static_cast<int64_t>(self.rank())}, DType::Int64);
    for (int64_t r = 0; r < count; ++r) write_index(out, r, found[static_cast<size_t>(r)], self.sizes);
    return single(out);
}

// nonzero_numpy(self) -> one int64 1-d tensor per dim (nonzero(as_tuple=True)); a 0-d tensor
// gives one tensor, [0] when its element is non-zero.
std::vector<RuntimeValue> nonzero_numpy(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto found = nonzero_positions(self);
    const auto count = static_cast<int64_t>(found.size());
    const size_t rank = self.rank();
    std::vector<RuntimeValue> outs;
    for (size_t d = 0; d < std::max<size_t>(rank, 1); ++d) {
        StridedTensor out = allocate_output(call, d, {count}, DType::Int64);
        outs.push_back(RuntimeValue::of(out));
    }
    for (int64_t r = 0; r < count; ++r) {
        int64_t position = found[static_cast<size_t>(r)];
        for (size_t d = rank; d-- > 0;) {
            const auto& out = outs[d].tensor();
            store<int64_t>(out.data + r * out.strides[0] * 8, position % self.sizes[d]);
            position /= self.sizes[d];
        }
        if (rank == 0) store<int64_t>(outs[0].tensor().data, 0);
    }
    return outs;
}

// nonzero_static(self, *, size, fill_value=-1) -> int64 [size, rank]: the first `size` indices
// of nonzero, the rows beyond them filled with fill_value.
std::vector<RuntimeValue> nonzero_static(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t size = call.int_arg("size", kKeywordOnly);
    const int64_t fill = call.int_arg("fill_value", kKeywordOnly, -1);
    if (size < 0) call.fail("nonzero_static: size must be non-negative, got " + std::to_string(size));
    const auto found = nonzero_positions(self);
    const auto rank = static_cast<int64_t>(self.rank());
    StridedTensor out = allocate_output(call, 0, {size, rank}, DType::Int64);
    for (int64_t r = 0; r < size; ++r) {
        if (r < static_cast<int64_t>(found.size())) {
            write_index(out, r, found[static_cast<size_t>(r)], self.sizes);
            continue;
        }
        for (int64_t d = 0; d < rank; ++d) store<int64_t>(out.data + (r * out.strides[0] + d * out.strides[1]) * 8, fill);
    }
    return single(out);
}

// repeat_interleave.Tensor(repeats, *, output_size=None) -> [sum(repeats)]: each index i
// repeated repeats[i] times, in the repeats' dtype, as ATen's repeat_interleave_cpu. Every
// repeat-interleave of a tensor by a tensor of repeats is an index_select by these indices
// (torch._refs and the decomposition of repeat_interleave.self_Tensor).
std::vector<RuntimeValue> repeat_interleave_indices(const KernelCall& call) {
    const StridedTensor& repeats = call.tensor("repeats", 0);
    if (repeats.rank() != 1) call.fail("repeat_interleave: repeats must be a 1-d tensor, got " + std::to_string(repeats.rank()) + " dims");
    if (repeats.dtype != DType::Int64 && repeats.dtype != DType::Int32) {
        call.fail("repeat_interleave: repeats must be int32 or int64, got " + std::string(dtype_name(repeats.dtype)));
    }
    const DType dtype = call.output_meta(0).dtype;
    if (dtype != repeats.dtype) call.fail("repeat_interleave: the recorded result dtype differs from the repeats'");
    std::vector<int64_t> counts(static_cast<size_t>(repeats.sizes[0]));
    int64_t total = 0;
    visit_dtype(repeats.dtype, [&]<typename T>() {
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, int32_t>) {
            for (size_t i = 0; i < counts.size(); ++i) {
                counts[i] = static_cast<int64_t>(load<T>(repeats.data + static_cast<int64_t>(i) * repeats.strides[0] * static_cast<int64_t>(sizeof(T))));
                if (counts[i] < 0) call.fail("repeat_interleave: repeats can not be negative (PyTorch raises the same)");
                if (counts[i] > std::numeric_limits<int64_t>::max() - total) call.fail("repeat_interleave: the repeats' sum overflows int64");
                total += counts[i];
            }
        }
    });
    if (const auto* size = call.arg("output_size", kKeywordOnly); size && size->kind == graph::Argument::Kind::Int && size->int_value != total) {
        call.fail("repeat_interleave: output_size " + std::to_string(size->int_value) + " is not the repeats' sum " + std::to_string(total));
    }
    StridedTensor out = allocate_output_for_overwrite(call, 0, {total}, dtype);
    int64_t row = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
        for (int64_t k = 0; k < counts[i]; ++k, ++row) {
            std::byte* at = out.data + row * out.strides[0] * static_cast<int64_t>(out.element_size());
            if (dtype == DType::Int64) store<int64_t>(at, static_cast<int64_t>(i));
            else store<int32_t>(at, static_cast<int32_t>(i));
        }
    }
    return single(out);
}

// Shape contracts: how many elements these select depends on the data, so only the other dims
// (and nonzero_static's given count) are known.
std::optional<std::vector<ExpectedSizes>> masked_select_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto mask = query.sizes("mask", 1);
    if (self && mask) broadcast(query, *self, *mask);
    return std::vector<ExpectedSizes>{{std::nullopt}};
}

// argwhere: one row of coordinates per nonzero element.
std::optional<std::vector<ExpectedSizes>> argwhere_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    return std::vector<ExpectedSizes>{{std::nullopt, static_cast<int64_t>(self->size())}};
}

// nonzero_numpy: one vector of positions per dim of self.
std::optional<std::vector<ExpectedSizes>> nonzero_numpy_shape(const ShapeQuery&) {
    return std::vector<ExpectedSizes>{{std::nullopt}};
}

// nonzero_static: `size` rows of coordinates (padded or cut).
std::optional<std::vector<ExpectedSizes>> nonzero_static_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    const auto size = query.int_arg("size", 1);
    if (size && *size < 0) query.contradiction("its size " + std::to_string(*size) + " is negative");
    return std::vector<ExpectedSizes>{{size, static_cast<int64_t>(self->size())}};
}

// repeat_interleave.Tensor: output_size positions when given, else as many as the repeats add up to.
std::optional<std::vector<ExpectedSizes>> repeat_interleave_shape(const ShapeQuery& query) {
    return std::vector<ExpectedSizes>{{query.int_arg("output_size", 1)}};
}

PT2OV_KERNEL("aten.masked_select.default", masked_select, masked_select_shape);
PT2OV_KERNEL("aten.repeat_interleave.Tensor", repeat_interleave_indices, repeat_interleave_shape);
PT2OV_KERNEL("aten.argwhere.default", argwhere, argwhere_shape);
PT2OV_KERNEL("aten.nonzero_numpy.default", nonzero_numpy, nonzero_numpy_shape);
PT2OV_KERNEL("aten.nonzero_static.default", nonzero_static, nonzero_static_shape);

}  // namespace
}  // namespace pt2ov::kernels
