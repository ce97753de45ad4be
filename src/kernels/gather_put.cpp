// Writes by advanced indexing: index_put (and _unsafe_index_put), _unsafe_masked_index and
// _unsafe_masked_index_put_accumulate; and by flat (row-major) positions: put and take.
// Advanced indices follow index.Tensor's rules (index.cpp): bool masks stand for the
// coordinates of their true elements, None keeps a dim whole, the broadcast index shape
// replaces the indexed dims where they are adjacent and comes first otherwise.
#include <algorithm>
#include <cstring>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"
#include "kernels/index_lists.h"

namespace pt2ov::kernels {
namespace {

using graph::Argument;

// The shape of self[indices] and how its elements map to self's.
struct IndexPlan {
    std::vector<int64_t> result_sizes;
    std::vector<size_t> kept;                   // self's dims kept whole, in order
    std::vector<size_t> kept_result_dims;       // where each lands in the result
    std::vector<int64_t> index_shape;           // the broadcast index shape
    size_t index_position = 0;                  // where it starts in the result
    std::vector<std::vector<int64_t>> indices;  // per indexed dim of self: wrapped, one per index position
    std::vector<size_t> indexed;

    // Element offsets into a tensor of self's sizes with `strides`, one per index position.
    std::vector<int64_t> offsets(const std::vector<int64_t>& strides) const {
        int64_t count = 1;
        for (int64_t s : index_shape) count *= s;
        std::vector<int64_t> result(static_cast<size_t>(count), 0);
        for (size_t k = 0; k < indexed.size(); ++k) {
            for (size_t i = 0; i < result.size(); ++i) result[i] += indices[k][i] * strides[indexed[k]];
        }
        return result;
    }
    std::vector<int64_t> kept_sizes(const std::vector<int64_t>& self_sizes) const {
        std::vector<int64_t> sizes;
        for (size_t d : kept) sizes.push_back(self_sizes[d]);
        return sizes;
    }
};

// Plans self[indices]. The unsafe masked ops clamp their indices (`clamp`: whether into
// [0, size - 1] rather than [-size, size - 1]); otherwise an index outside [-size, size) fails.
IndexPlan plan_index(const KernelCall& call, const StridedTensor& self, const DimIndices& indices,
                     std::optional<std::pair<bool, bool>> clamp = std::nullopt) {
    IndexPlan plan;
    for (size_t d = 0; d < indices.size(); ++d) (indices[d] ? plan.indexed : plan.kept).push_back(d);
    if (plan.indexed.empty()) {
        plan.result_sizes = self.sizes;
        for (size_t d = 0; d < self.rank(); ++d) plan.kept_result_dims.push_back(d);
        return plan;
    }
    plan.index_shape = indices[plan.indexed[0]]->sizes;
    for (size_t d : plan.indexed) plan.index_shape = broadcast_shapes(call, plan.index_shape, indices[d]->sizes);
    const bool adjacent = plan.indexed.back() - plan.indexed.front() + 1 == plan.indexed.size();
    const size_t kept_before = adjacent ? plan.indexed.front() : 0;
    plan.index_position = kept_before;
    for (size_t k = 0; k < kept_before; ++k) {
        plan.result_sizes.push_back(self.sizes[plan.kept[k]]);
        plan.kept_result_dims.push_back(k);
    }
    plan.result_sizes.insert(plan.result_sizes.end(), plan.index_shape.begin(), plan.index_shape.end());
    for (size_t k = kept_before; k < plan.kept.size(); ++k) {
        plan.kept_result_dims.push_back(plan.result_sizes.size());
        plan.result_sizes.push_back(self.sizes[plan.kept[k]]);
    }
    for (size_t d : plan.indexed) {
        const StridedTensor b = broadcast_to(call, *indices[d], plan.index_shape);
        const auto positions = byte_offsets(b.sizes, b.strides, sizeof(int64_t));
        std::vector<int64_t> wrapped(positions.size());
        const int64_t size = self.sizes[d];
        for (size_t i = 0; i < positions.size(); ++i) {
            int64_t index = load<int64_t>(b.data + positions[i]);
            if (clamp) {
                if (size == 0) {  // an empty self: only the result's shape is wanted
                    wrapped[i] = 0;
                    continue;
                }
                index = std::clamp<int64_t>(index, clamp->first ? 0 : -size, size - 1);
            }
            if (index < -size || index >= size) {
                call.fail("index " + std::to_string(index) + " is out of bounds for dimension " + std::to_string(d) +
                          " with size " + std::to_string(size));
            }
            wrapped[i] = index < 0 ? index + size : index;
        }
        plan.indices.push_back(std::move(wrapped));
    }
    return plan;
}

// Writes `values` (self's dtype, broadcast to the plan's result shape) into `out` (of self's
// sizes) at the planned positions, in index order; with `accumulate`, adds them.
void put_indexed(const KernelCall& call, const IndexPlan& plan, const StridedTensor& out, const StridedTensor& values_arg,
                 bool accumulate) {
    const StridedTensor values = broadcast_to(call, values_arg, plan.result_sizes);
    const std::vector<int64_t> kept_sizes = plan.kept_sizes(out.sizes);
    std::vector<int64_t> kept_out_strides, kept_value_strides, index_value_strides;
    for (size_t k = 0; k < plan.kept.size(); ++k) {
        kept_out_strides.push_back(out.strides[plan.kept[k]]);
        kept_value_strides.push_back(values.strides[plan.kept_result_dims[k]]);
    }
    for (size_t j = 0; j < plan.index_shape.size(); ++j) index_value_strides.push_back(values.strides[plan.index_position + j]);
    if (plan.indexed.empty()) {
        // No index tensor: the whole of self is written.
        if (!accumulate) {
            copy_into(values, out);
            return;
        }
    }
    const auto targets = plan.indexed.empty() ? std::vector<int64_t>{0} : plan.offsets(out.strides);
    const auto sources = plan.indexed.empty() ? std::vector<int64_t>{0} : byte_offsets(plan.index_shape, index_value_strides, 1);
    for (size_t i = 0; i < targets.size(); ++i) {
        const StridedTensor target = out.view(kept_sizes, kept_out_strides, targets[i]);
        const StridedTensor source = values.view(kept_sizes, kept_value_strides, sources[i]);
        if (!accumulate) {
            copy_into(source, target);
            continue;
        }
        visit_dtype(out.dtype, [&]<typename T>() {
            for_each_element<2>(kept_sizes, {&target, &source}, [&](const std::array<std::byte*, 2>& p) {
                if constexpr (std::is_same_v<T, bool>) {
                    store<T>(p[0], load<T>(p[0]) || load<T>(p[1]));
                } else if constexpr (is_integer_v<T>) {
                    store<T>(p[0], static_cast<T>(static_cast<uint64_t>(load<T>(p[0])) + static_cast<uint64_t>(load<T>(p[1]))));
                } else {
                    store<T>(p[0], load<T>(p[0]) + load<T>(p[1]));
                }
            });
        });
    }
}

StridedTensor copy_of_self(const KernelCall& call, const StridedTensor& self) {
    StridedTensor out = allocate_output(call, 0, self.sizes, self.dtype);
    copy_into(self, out);
    return out;
}

void check_same_dtype(const KernelCall& call, const StridedTensor& self, const StridedTensor& values, const char* what) {
    if (values.dtype != self.dtype) {
        call.fail(std::string(what) + " requires the source and destination dtypes to match, got " +
                  std::string(dtype_name(self.dtype)) + " for the destination and " + std::string(dtype_name(values.dtype)) +
                  " for the source");
    }
}

// index_put / _unsafe_index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False)
std::vector<RuntimeValue> index_put(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& values = call.tensor("values", 2);
    check_same_dtype(call, self, values, "index_put");
    const bool accumulate = call.bool_arg("accumulate", 3, false);
    const IndexPlan plan = plan_index(call, self, dim_indices(call, self, 1, true));
    StridedTensor out = copy_of_self(call, self);
    put_indexed(call, plan, out, values, accumulate);
    return single(out);
}

// _unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill): self[indices]
// with the indices clamped into [-size, size - 1], and `fill` where the (broadcast) mask is
// false; all `fill` when self is empty. That is ATen's kernel; torch._decomp clamps into
// [0, size - 1] instead, so the two forms differ for negative indices, and each form runs
// what it says.
std::vector<RuntimeValue> unsafe_masked_index(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& mask = call.tensor("mask", 1);
    if (mask.dtype != DType::Bool) call.fail("the mask must be a bool tensor, got " + std::string(dtype_name(mask.dtype)));
    const bool empty = self.numel() == 0;
    const DimIndices indices = dim_indices(call, self, 2, false);
    const IndexPlan plan = plan_index(call, self, indices, std::pair{false, true});
    StridedTensor out = allocate_output(call, 0, plan.result_sizes, self.dtype);
    const StridedTensor fill = scalar_tensor_as(call.scalar("fill", 3), self.dtype);
    if (!empty) {
        const std::vector<int64_t> kept_sizes = plan.kept_sizes(self.sizes);
        std::vector<int64_t> kept_self_strides, kept_out_strides, index_out_strides;
        for (size_t k = 0; k < plan.kept.size(); ++k) {
            kept_self_strides.push_back(self.strides[plan.kept[k]]);
            kept_out_strides.push_back(out.strides[plan.kept_result_dims[k]]);
        }
        for (size_t j = 0; j < plan.index_shape.size(); ++j) index_out_strides.push_back(out.strides[plan.index_position + j]);
        const auto sources = plan.indexed.empty() ? std::vector<int64_t>{0} : plan.offsets(self.strides);
        const auto targets = plan.indexed.empty() ? std::vector<int64_t>{0} : byte_offsets(plan.index_shape, index_out_strides, 1);
        for (size_t i = 0; i < sources.size(); ++i) {
            copy_into(self.view(kept_sizes, kept_self_strides, sources[i]), out.view(kept_sizes, kept_out_strides, targets[i]));
        }
    }
    const StridedTensor spread_mask = broadcast_to(call, mask, plan.result_sizes);
    const size_t element = out.element_size();
    for_each_element<2>(plan.result_sizes, {&out, &spread_mask}, [&](const std::array<std::byte*, 2>& p) {
        if (empty || *reinterpret_cast<const uint8_t*>(p[1]) == 0) std::memcpy(p[0], fill.data, element);
    });
    return single(out);
}

// _unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices, Tensor values):
// index_put(self, indices clamped into [-size, size - 1], values with 0 where the mask is
// false, accumulate=True); a copy of self when self is empty.
std::vector<RuntimeValue> unsafe_masked_index_put_accumulate(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& mask = call.tensor("mask", 1);
    const StridedTensor& values = call.tensor("values", 3);
    if (mask.dtype != DType::Bool) call.fail("the mask must be a bool tensor, got " + std::string(dtype_name(mask.dtype)));
    check_same_dtype(call, self, values, "_unsafe_masked_index_put_accumulate");
    StridedTensor out = copy_of_self(call, self);
    if (self.numel() == 0) return single(out);
    const IndexPlan plan = plan_index(call, self, dim_indices(call, self, 2, false), std::pair{false, true});
    const auto masked_sizes = broadcast_shapes(call, values.sizes, mask.sizes);
    StridedTensor masked = StridedTensor::allocate(values.dtype, masked_sizes);  // zeros where the mask is false
    const StridedTensor spread_values = broadcast_to(call, values, masked_sizes);
    const StridedTensor spread_mask = broadcast_to(call, mask, masked_sizes);
    const size_t element = masked.element_size();
    for_each_element<3>(masked_sizes, {&masked, &spread_values, &spread_mask}, [&](const std::array<std::byte*, 3>& p) {
        if (*reinterpret_cast<const uint8_t*>(p[2]) != 0) std::memcpy(p[0], p[1], element);
    });
    put_indexed(call, plan, out, masked, true);
    return single(out);
}

// Element offsets of self's elements in row-major order (what put and take number).
std::vector<int64_t> row_major_offsets(const StridedTensor& t) { return byte_offsets(t.sizes, t.strides, 1); }

std::vector<int64_t> flat_positions(const KernelCall& call, const StridedTensor& index, int64_t numel, const char* op) {
    if (index.dtype != DType::Int64) call.fail(std::string(op) + "() expects an int64 index, got " + std::string(dtype_name(index.dtype)));
    const StridedTensor dense = contiguous_as(index, DType::Int64);
    const auto* p = reinterpret_cast<const int64_t*>(dense.data);
    std::vector<int64_t> positions(p, p + dense.numel());
    for (int64_t& v : positions) {
        if (v < -numel || v >= numel) {
            call.fail(std::string(op) + "(): index " + std::to_string(v) + " is out of range for a tensor of " +
                      std::to_string(numel) + " elements");
        }
        if (v < 0) v += numel;
    }
    return positions;
}

// put(Tensor self, Tensor index, Tensor source, bool accumulate=False): self's elements in
// row-major order, written (or added to) at index from source's, in order.
std::vector<RuntimeValue> put(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& source = call.tensor("source", 2);
    check_same_dtype(call, self, source, "put");
    const auto positions = flat_positions(call, call.tensor("index", 1), self.numel(), "put");
    if (source.numel() != static_cast<int64_t>(positions.size())) {
        call.fail("put(): source and index must have the same number of elements, got " + std::to_string(source.numel()) +
                  " and " + std::to_string(positions.size()));
    }
    const bool accumulate = call.bool_arg("accumulate", 3, false);
    StridedTensor out = copy_of_self(call, self);
    const auto targets = row_major_offsets(out);
    const auto sources = row_major_offsets(source);
    visit_dtype(out.dtype, [&]<typename T>() {
        for (size_t i = 0; i < positions.size(); ++i) {
            std::byte* p = out.data + targets[static_cast<size_t>(positions[i])] * static_cast<int64_t>(out.element_size());
            const std::byte* q = source.data + sources[i] * static_cast<int64_t>(source.element_size());
            if (!accumulate) {
                std::memcpy(p, q, out.element_size());
            } else if constexpr (std::is_same_v<T, bool>) {
                store<T>(p, load<T>(p) || load<T>(q));
            } else if constexpr (is_integer_v<T>) {
                store<T>(p, static_cast<T>(static_cast<uint64_t>(load<T>(p)) + static_cast<uint64_t>(load<T>(q))));
            } else {
                store<T>(p, load<T>(p) + load<T>(q));
            }
        }
    });
    return single(out);
}

// take(Tensor self, Tensor index): self's elements in row-major order, picked at index, shaped
// like index.
std::vector<RuntimeValue> take(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& index = call.tensor("index", 1);
    if (self.numel() == 0 && index.numel() > 0) call.fail("take(): cannot take from an empty tensor");
    const auto positions = flat_positions(call, index, self.numel(), "take");
    StridedTensor out = allocate_output(call, 0, index.sizes, self.dtype);
    const auto sources = row_major_offsets(self);
    const auto targets = row_major_offsets(out);
    const auto element = static_cast<int64_t>(self.element_size());
    for (size_t i = 0; i < positions.size(); ++i) {
        std::memcpy(out.data + targets[i] * element, self.data + sources[static_cast<size_t>(positions[i])] * element,
                    static_cast<size_t>(element));
    }
    return single(out);
}

// Shape contracts. The puts keep self's sizes; take has its index's.
// _unsafe_masked_index: self indexed, then filled where the mask is false (masked_fill, which
// broadcasts the mask).
std::optional<std::vector<ExpectedSizes>> masked_index_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto mask = query.sizes("mask", 1);
    if (!self || !mask) return std::nullopt;
    const auto indexed = indexed_sizes(query, *self, "indices");
    if (!indexed) return std::nullopt;
    return std::vector<ExpectedSizes>{broadcast(query, *indexed, *mask)};
}

std::optional<std::vector<ExpectedSizes>> take_shape(const ShapeQuery& query) {
    const auto index = query.sizes("index", 1);
    if (!index) return std::nullopt;
    return std::vector<ExpectedSizes>{*index};
}

PT2OV_KERNEL("aten.index_put.default", index_put, same_as_self);
PT2OV_KERNEL("aten._unsafe_index_put.default", index_put, same_as_self);
PT2OV_KERNEL("aten._unsafe_masked_index.default", unsafe_masked_index, masked_index_shape);
PT2OV_KERNEL("aten._unsafe_masked_index_put_accumulate.default", unsafe_masked_index_put_accumulate, same_as_self);
PT2OV_KERNEL("aten.put.default", put, same_as_self);
PT2OV_KERNEL("aten.take.default", take, take_shape);

}  // namespace
}  // namespace pt2ov::kernels
