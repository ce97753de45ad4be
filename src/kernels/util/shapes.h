// Dims, broadcasting, views, output allocation in the recorded dim order, and reductions'
// layouts.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/text.h"  // shape_text, which every kernel message uses
#include "kernels/registry.h"
#include "kernels/tensor.h"

namespace pt2ov::kernels {

// ---- Shapes, dims and layouts --------------------------------------------------------------

// `dim` wrapped into [0, rank) (a 0-dim tensor accepts -1 and 0 as dim 0); fails naming the node.
int64_t normalize_dim(const KernelCall& call, int64_t dim, int64_t rank);
// Several dims, each wrapped; fails on a repeated dim.
std::vector<int64_t> normalize_dims(const KernelCall& call, const std::vector<int64_t>& dims, int64_t rank);

// numpy broadcasting of two shapes; fails naming the node when they do not broadcast.
std::vector<int64_t> broadcast_shapes(const KernelCall& call, const std::vector<int64_t>& a,
                                      const std::vector<int64_t>& b);
// A view of `t` expanded to `sizes` (size-1 and missing leading dims get stride 0).
StridedTensor broadcast_to(const KernelCall& call, const StridedTensor& t, const std::vector<int64_t>& sizes);

bool is_non_overlapping_and_dense(const StridedTensor& t);
// Dims from outermost to innermost in memory, as torch's dim_order() orders them.
std::vector<int> dim_order_of(const StridedTensor& t);
std::vector<int> contiguous_order(size_t rank);

// New memory for an output of `sizes`: the dim order torch.export recorded for output
// `index` when its rank matches (so a CPU step lays out values as PyTorch did), else
// row-major. The dtype is the recorded one.
StridedTensor allocate_output(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes);
StridedTensor allocate_output(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes, DType dtype);
// The same memory unfilled, for a kernel that writes every element of it (zero-filling a
// megabyte output costs about as much as an elementwise op on it).
StridedTensor allocate_output_for_overwrite(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes,
                                            DType dtype);

// New memory shaped like `like` for a copy with `memory_format` (Contiguous 1, ChannelsLast 2,
// ChannelsLast3d 3, Preserve 4), as torch.empty_like lays it out.
StridedTensor allocate_like(const KernelCall& call, const StridedTensor& like, DType dtype, int64_t memory_format);

// A dim_order argument checked to be a permutation of `rank` dims.
std::vector<int> checked_dim_order(const KernelCall& call, const std::vector<int64_t>& dim_order, size_t rank);

// A row-major copy of `t` in `dtype` (t itself when it already is that).
StridedTensor contiguous_as(const StridedTensor& t, DType dtype);

// The strides of a view of `t` with `sizes`, when it can share t's memory (torch's
// computeStride); null when it cannot (the caller copies).
std::optional<std::vector<int64_t>> view_strides(const StridedTensor& t, const std::vector<int64_t>& sizes);
// Resolves one -1 in a view's sizes against `numel`; fails naming the node when the sizes do
// not fit.
std::vector<int64_t> infer_view_sizes(const KernelCall& call, std::vector<int64_t> sizes, int64_t numel);

// Byte offsets of every index of `sizes` under `strides` (elements of `element_size` bytes),
// in row-major order.
std::vector<int64_t> byte_offsets(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                  size_t element_size);

// A reduction of a tensor over some dims, laid out for a loop over the kept dims with an
// inner loop over the reduced elements.
struct Reduction {
    std::vector<int64_t> out_sizes;      // what the op returns (keepdim applied)
    std::vector<int64_t> kept_sizes;     // the kept dims only
    StridedTensor kept_input;            // the input viewed over the kept dims
    std::vector<int64_t> reduced_bytes;  // byte offsets of the reduced elements from a kept element
    std::vector<int64_t> dims;           // the reduced dims, sorted
    bool keepdim = false;

    int64_t reduced_count() const { return static_cast<int64_t>(reduced_bytes.size()); }
    // `out` (of out_sizes) viewed over the kept dims, to walk alongside kept_input.
    StridedTensor kept_output(const StridedTensor& out) const;
};
// `dims` are normalized; an empty list reduces every dim.
Reduction plan_reduction(const StridedTensor& input, std::vector<int64_t> dims, bool keepdim);

}  // namespace pt2ov::kernels
