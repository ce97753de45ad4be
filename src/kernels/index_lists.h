// The `indices` argument of advanced indexing (index.Tensor, index_put and the unsafe masked
// ops), read once for every kernel that takes one.
#pragma once

#include <optional>
#include <vector>

#include "kernels/registry.h"

namespace pt2ov::kernels {

// One entry per dim of self: that dim's int64 indices, or nothing (the dim is kept whole).
using DimIndices = std::vector<std::optional<StridedTensor>>;

// The list at schema `position`: None keeps a dim, an int32/int64 tensor indexes one, and (when
// `masks_allowed`) a bool or uint8 mask over k dims stands for the coordinates of its true
// elements in row-major order, as nonzero() gives them, one int64 tensor per dim. Padded with
// nothing to self's rank; errors name the node.
DimIndices dim_indices(const KernelCall& call, const StridedTensor& self, size_t position, bool masks_allowed);

}  // namespace pt2ov::kernels
