// Reading advanced indexing's `indices` list (index_lists.h).
#include "kernels/index_lists.h"

#include <cstring>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

bool is_mask(DType dtype) { return dtype == DType::Bool || dtype == DType::UInt8; }

// A mask over dims [first, first + mask.rank()) of self becomes one int64 index tensor per
// dim: the coordinates of its true elements in row-major order, as nonzero() gives them.
void expand_mask(const KernelCall& call, const StridedTensor& self, const StridedTensor& mask, DimIndices& out) {
    const size_t first = out.size();
    if (first + mask.rank() > self.rank()) call.fail("too many indices for a tensor of rank " + std::to_string(self.rank()));
    for (size_t k = 0; k < mask.rank(); ++k) {
        if (mask.sizes[k] != self.sizes[first + k]) {
            call.fail("the shape of mask " + shape_text(mask.sizes) + " does not match the shape " +
                      shape_text(self.sizes) + " of the indexed tensor at dim " + std::to_string(first + k));
        }
    }
    std::vector<std::vector<int64_t>> coordinates(mask.rank());
    std::vector<int64_t> index(mask.rank(), 0);
    for_each_element<1>(mask.sizes, {&mask}, [&](const std::array<std::byte*, 1>& p) {
        if (*reinterpret_cast<const uint8_t*>(p[0]) != 0) {
            for (size_t k = 0; k < index.size(); ++k) coordinates[k].push_back(index[k]);
        }
        for (size_t k = index.size(); k-- > 0;) {  // row-major odometer, in step with the walk
            if (++index[k] < mask.sizes[k]) break;
            index[k] = 0;
        }
    });
    for (auto& dim_coordinates : coordinates) {
        const auto count = static_cast<int64_t>(dim_coordinates.size());
        StridedTensor t = StridedTensor::allocate(DType::Int64, {count});
        if (count) std::memcpy(t.data, dim_coordinates.data(), dim_coordinates.size() * sizeof(int64_t));
        out.push_back(std::move(t));
    }
}

}  // namespace

DimIndices dim_indices(const KernelCall& call, const StridedTensor& self, size_t position, bool masks_allowed) {
    const graph::Argument* list = call.arg("indices", position);
    if (!list || list->kind != graph::Argument::Kind::List) call.fail("argument 'indices' is missing or not a list");
    DimIndices result;
    for (const graph::Argument& item : list->items) {
        if (item.kind == graph::Argument::Kind::None) {
            result.emplace_back();
            continue;
        }
        if (item.kind != graph::Argument::Kind::Tensor) call.fail("argument 'indices' holds something other than tensors and None");
        const StridedTensor& t = call.value(item).tensor();
        if (masks_allowed && is_mask(t.dtype)) {
            expand_mask(call, self, t, result);
        } else if (t.dtype == DType::Int64 || t.dtype == DType::Int32) {
            result.push_back(contiguous_as(t, DType::Int64));
        } else {
            call.fail(std::string("index tensors must be int64, int32") + (masks_allowed ? ", bool or uint8" : "") + ", got " +
                      std::string(dtype_name(t.dtype)));
        }
    }
    if (result.size() > self.rank()) call.fail("too many indices for a tensor of rank " + std::to_string(self.rank()));
    result.resize(self.rank());
    return result;
}

}  // namespace pt2ov::kernels
