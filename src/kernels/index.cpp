// Gathers: index.Tensor (advanced indexing with int and bool index tensors) and index_select.
#include <algorithm>
#include <cstring>

#include "kernels/contracts.h"
#include "kernels/dense_paths.h"
#include "kernels/index_lists.h"

namespace pt2ov::kernels {
namespace {

// Element offsets into self for every position of the broadcast index shape, bounds-checked.
std::vector<int64_t> gather_offsets(const KernelCall& call, const StridedTensor& self, const DimIndices& indices,
                                    const std::vector<int64_t>& index_shape) {
    int64_t count = 1;
    for (int64_t s : index_shape) count *= s;
    std::vector<int64_t> offsets(static_cast<size_t>(count), 0);
    for (size_t d = 0; d < indices.size(); ++d) {
        if (!indices[d]) continue;
        const StridedTensor b = broadcast_to(call, *indices[d], index_shape);
        const auto positions = byte_offsets(b.sizes, b.strides, sizeof(int64_t));
        for (size_t i = 0; i < positions.size(); ++i) {
            int64_t index = load<int64_t>(b.data + positions[i]);
            if (index < -self.sizes[d] || index >= self.sizes[d]) {
                call.fail("index " + std::to_string(index) + " is out of bounds for dimension " + std::to_string(d) +
                          " with size " + std::to_string(self.sizes[d]));
            }
            if (index < 0) index += self.sizes[d];
            offsets[i] += index * self.strides[d];
        }
    }
    return offsets;
}

// index.Tensor(Tensor self, Tensor?[] indices): numpy's advanced indexing. The broadcast index
// shape replaces the indexed dims where they are adjacent, else it comes first.
std::vector<RuntimeValue> index(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const DimIndices indices = dim_indices(call, self, 1, true);
    std::vector<size_t> indexed, kept;
    for (size_t d = 0; d < indices.size(); ++d) (indices[d] ? indexed : kept).push_back(d);
    if (indexed.empty()) {
        StridedTensor out = allocate_output(call, 0, self.sizes);
        copy_into(self, out);
        return single(out);
    }
    std::vector<int64_t> index_shape = indices[indexed[0]]->sizes;
    for (size_t d : indexed) index_shape = broadcast_shapes(call, index_shape, indices[d]->sizes);
    const bool adjacent = indexed.back() - indexed.front() + 1 == indexed.size();
    // The result's dims: the kept dims before the index dims, the index dims, the other kept
    // dims. Every dim before the first indexed one is kept, so their count is its position.
    const size_t kept_before = adjacent ? indexed.front() : 0;
    const size_t index_position = kept_before;
    std::vector<int64_t> out_sizes;
    for (size_t k = 0; k < kept_before; ++k) out_sizes.push_back(self.sizes[kept[k]]);
    out_sizes.insert(out_sizes.end(), index_shape.begin(), index_shape.end());
    for (size_t k = kept_before; k < kept.size(); ++k) out_sizes.push_back(self.sizes[kept[k]]);
    StridedTensor out = allocate_output(call, 0, out_sizes);

    std::vector<int64_t> kept_sizes, kept_self_strides, kept_out_strides, index_out_strides;
    for (size_t k = 0; k < kept.size(); ++k) {
        kept_sizes.push_back(self.sizes[kept[k]]);
        kept_self_strides.push_back(self.strides[kept[k]]);
        const size_t out_dim = k < kept_before ? k : k + index_shape.size();
        kept_out_strides.push_back(out.strides[out_dim]);
    }
    for (size_t j = 0; j < index_shape.size(); ++j) index_out_strides.push_back(out.strides[index_position + j]);
    const auto sources = gather_offsets(call, self, indices, index_shape);
    const auto destinations = byte_offsets(index_shape, index_out_strides, 1);  // in elements
    for (size_t i = 0; i < sources.size(); ++i) {
        copy_into(self.view(kept_sizes, kept_self_strides, sources[i]),
                  out.view(kept_sizes, kept_out_strides, destinations[i]));
    }
    return single(out);
}

// index_select(Tensor self, int dim, Tensor index): index is 1-D (or one number), and, unlike
// index.Tensor, must not be negative.
std::vector<RuntimeValue> index_select(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& index = call.tensor("index", 2);
    if (index.rank() > 1) call.fail("index_select() expects a 1-D index, got shape " + shape_text(index.sizes));
    if (index.dtype != DType::Int64 && index.dtype != DType::Int32) {
        call.fail("index_select() expects an int64 or int32 index, got " + std::string(dtype_name(index.dtype)));
    }
    const StridedTensor positions = contiguous_as(index, DType::Int64);
    const auto* values = reinterpret_cast<const int64_t*>(positions.data);
    const int64_t count = positions.numel();
    // A 0-dim self is indexed as if it were [1]-shaped, and stays 0-dim.
    const StridedTensor source = self.rank() == 0 ? self.view({1}, {1}) : self;
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()));
    const int64_t size = source.sizes[dim];
    if (self.rank() == 0 && count != 1) call.fail("index_select() on a 0-dim tensor takes exactly one index");
    std::vector<int64_t> sizes = source.sizes;
    sizes[dim] = count;
    for (int64_t i = 0; i < count; ++i) {
        if (values[i] < 0 || values[i] >= size) {
            call.fail("index_select(): index " + std::to_string(values[i]) + " is out of range for dimension " +
                      std::to_string(dim) + " of size " + std::to_string(size));
        }
    }
    // Every slice of the output is copied in below.
    StridedTensor out = allocate_output_for_overwrite(call, 0, self.rank() == 0 ? std::vector<int64_t>{} : sizes,
                                                      call.output_meta(0).dtype);
    const StridedTensor target = self.rank() == 0 ? out.view({1}, {1}) : out;
    std::vector<int64_t> part_sizes = source.sizes;
    part_sizes.erase(part_sizes.begin() + dim);
    std::vector<int64_t> source_strides = source.strides, target_strides = target.strides;
    source_strides.erase(source_strides.begin() + dim);
    target_strides.erase(target_strides.begin() + dim);
    // Slices are disjoint in the output: big selections copy them on several threads. Rows of
    // a row-major self into a row-major output of its dtype are one memcpy each (copy_into
    // plans every call, a microsecond's work per row).
    const bool rows_of_bytes = dim == 0 && source.is_contiguous() && target.is_contiguous() && source.dtype == target.dtype;
    int64_t part = 1;
    for (int64_t s : part_sizes) part *= s;
    const int64_t row_bytes = part * static_cast<int64_t>(source.element_size());
    auto copy_slices = [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            if (rows_of_bytes) {
                std::memcpy(target.data + i * row_bytes, source.data + values[i] * row_bytes, static_cast<size_t>(row_bytes));
                continue;
            }
            copy_into(source.view(part_sizes, source_strides, values[i] * source.strides[dim]),
                      target.view(part_sizes, target_strides, i * target.strides[dim]));
        }
    };
    if (count < 2 || count * part < kParallelMinElements) {
        copy_slices(0, count);
    } else {
        parallel_ranges(count, std::max<int64_t>(1, kParallelMinElements / 2 / std::max<int64_t>(part, 1)), copy_slices);
    }
    return single(out);
}

// Shape contracts.
std::optional<std::vector<ExpectedSizes>> index_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    const auto out = indexed_sizes(query, *self, "indices");
    if (!out) return std::nullopt;
    return std::vector<ExpectedSizes>{*out};
}

// index_select: dim `dim` holds as many slices as the index has elements.
std::optional<std::vector<ExpectedSizes>> index_select_shape(const ShapeQuery& query) {
    auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 1);
    const auto index = query.sizes("index", 2);
    if (!self || !dim || !index) return std::nullopt;
    const int64_t d = wrap_dim(query, *dim, static_cast<int64_t>(self->size()));
    if (!self->empty()) (*self)[static_cast<size_t>(d)] = element_count(*index);
    return std::vector<ExpectedSizes>{*self};
}

PT2OV_KERNEL("aten.index.Tensor", index, index_shape);
PT2OV_KERNEL("aten.index_select.default", index_select, index_select_shape);

}  // namespace
}  // namespace pt2ov::kernels
