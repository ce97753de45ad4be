// Dims, broadcasting, layouts, views and reductions' layouts, each following the PyTorch
// function it names.
#include "kernels/util/shapes.h"
#include "kernels/dispatch.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <numeric>

#include "graph/graph.h"

namespace pt2ov::kernels {

// ---- Dims and shapes -----------------------------------------------------------------------

int64_t normalize_dim(const KernelCall& call, int64_t dim, int64_t rank) {
    const int64_t extent = std::max<int64_t>(rank, 1);  // a 0-dim tensor takes dim -1 or 0
    if (dim < -extent || dim >= extent) {
        call.fail("dimension " + std::to_string(dim) + " is out of range for a tensor of rank " + std::to_string(rank) +
                  " (expected one in [" + std::to_string(-extent) + ", " + std::to_string(extent - 1) + "])");
    }
    return dim < 0 ? dim + extent : dim;
}

std::vector<int64_t> normalize_dims(const KernelCall& call, const std::vector<int64_t>& dims, int64_t rank) {
    std::vector<int64_t> result;
    for (int64_t dim : dims) {
        const int64_t d = normalize_dim(call, dim, rank);
        if (std::find(result.begin(), result.end(), d) != result.end()) {
            call.fail("dimension " + std::to_string(d) + " appears more than once in " + shape_text(dims));
        }
        result.push_back(d);
    }
    return result;
}

std::vector<int64_t> broadcast_shapes(const KernelCall& call, const std::vector<int64_t>& a,
                                      const std::vector<int64_t>& b) {
    const size_t rank = std::max(a.size(), b.size());
    std::vector<int64_t> result(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1) {
            call.fail("shapes " + shape_text(a) + " and " + shape_text(b) + " do not broadcast");
        }
        result[i] = da == 1 ? db : da;
    }
    return result;
}

StridedTensor broadcast_to(const KernelCall& call, const StridedTensor& t, const std::vector<int64_t>& sizes) {
    if (t.rank() > sizes.size()) {
        call.fail("cannot broadcast a tensor of shape " + shape_text(t.sizes) + " to " + shape_text(sizes));
    }
    const size_t lead = sizes.size() - t.rank();
    std::vector<int64_t> strides(sizes.size(), 0);
    for (size_t d = 0; d < t.rank(); ++d) {
        if (t.sizes[d] == sizes[lead + d]) {
            strides[lead + d] = t.strides[d];
        } else if (t.sizes[d] != 1) {
            call.fail("cannot broadcast a tensor of shape " + shape_text(t.sizes) + " to " + shape_text(sizes));
        }
    }
    return t.view(sizes, strides);
}

// ---- Layouts -------------------------------------------------------------------------------

bool is_non_overlapping_and_dense(const StridedTensor& t) {
    // torch's is_non_overlapping_and_dense: sorted by stride (size-1 dims last), each stride is
    // the product of the sizes inside it.
    const size_t rank = t.rank();
    if (rank == 1) return t.sizes[0] < 2 || t.strides[0] == 1;
    std::vector<size_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
        if (t.sizes[a] < 2) return false;
        if (t.sizes[b] < 2) return true;
        return t.strides[a] < t.strides[b];
    });
    int64_t required = 1;
    for (size_t d : perm) {
        if (t.sizes[d] < 2) return true;
        if (t.strides[d] != required) return false;
        required *= t.sizes[d];
    }
    return true;
}

std::vector<int> dim_order_of(const StridedTensor& t) { return graph::dim_order_from_strides(t.sizes, t.strides); }

std::vector<int> contiguous_order(size_t rank) {
    std::vector<int> order(rank);
    std::iota(order.begin(), order.end(), 0);
    return order;
}

StridedTensor allocate_output(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes) {
    return allocate_output(call, index, sizes, call.output_meta(index).dtype);
}

StridedTensor allocate_output(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes, DType dtype) {
    const auto& meta = call.output_meta(index);
    if (meta.dim_order.size() == sizes.size()) return StridedTensor::allocate_in_order(dtype, sizes, meta.dim_order);
    return StridedTensor::allocate(dtype, sizes);
}

StridedTensor allocate_output_for_overwrite(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes,
                                            DType dtype) {
    const auto& meta = call.output_meta(index);
    const std::vector<int> order = meta.dim_order.size() == sizes.size() ? meta.dim_order : contiguous_order(sizes.size());
    int64_t numel = 1;
    for (int64_t s : sizes) {
        if (s < 0 || __builtin_mul_overflow(numel, std::max<int64_t>(s, 1), &numel)) {
            call.fail("an output of sizes " + shape_text(sizes) + " is larger than pt2ov allocates");
        }
    }
    std::vector<int64_t> strides(sizes.size(), 1);
    int64_t stride = 1;
    for (size_t i = order.size(); i-- > 0;) {
        strides[static_cast<size_t>(order[i])] = stride;
        stride *= std::max<int64_t>(sizes[static_cast<size_t>(order[i])], 1);
    }
    return StridedTensor::allocate_for_overwrite(dtype, {numel}).view(sizes, strides);
}

StridedTensor allocate_like(const KernelCall& call, const StridedTensor& like, DType dtype, int64_t memory_format) {
    switch (memory_format) {
        case 1: return StridedTensor::allocate(dtype, like.sizes);
        case 2:
            if (like.rank() != 4) call.fail("channels_last needs a tensor of rank 4, got rank " + std::to_string(like.rank()));
            return StridedTensor::allocate_in_order(dtype, like.sizes, {0, 2, 3, 1});
        case 3:
            if (like.rank() != 5) {
                call.fail("channels_last_3d needs a tensor of rank 5, got rank " + std::to_string(like.rank()));
            }
            return StridedTensor::allocate_in_order(dtype, like.sizes, {0, 2, 3, 4, 1});
        case 4:
            // torch.empty_like with preserve_format keeps the input's strides when it is dense,
            // and its dim order (dense strides inferred) when it is not.
            return StridedTensor::allocate_in_order(dtype, like.sizes, dim_order_of(like));
        default: break;
    }
    call.fail("memory format " + std::to_string(memory_format) +
              " is not one of contiguous (1), channels_last (2), channels_last_3d (3), preserve (4)");
}

std::vector<int> checked_dim_order(const KernelCall& call, const std::vector<int64_t>& dim_order, size_t rank) {
    std::vector<bool> seen(rank, false);
    std::vector<int> order;
    for (int64_t d : dim_order) {
        if (d < 0 || static_cast<size_t>(d) >= rank || seen[d]) {
            call.fail("dim_order " + shape_text(dim_order) + " is not a permutation of the " + std::to_string(rank) +
                      " dims of the input");
        }
        seen[d] = true;
        order.push_back(static_cast<int>(d));
    }
    if (order.size() != rank) {
        call.fail("dim_order " + shape_text(dim_order) + " does not fit a tensor of rank " + std::to_string(rank));
    }
    return order;
}

// The result may be `t` itself (a constant in the archive's read-only mapping, an input, another
// node's value): callers read it, never write through it (take_along_dim once wrapped its
// indices in place, and crashed on a buffer index).
StridedTensor contiguous_as(const StridedTensor& t, DType dtype) {
    if (t.dtype == dtype && t.is_contiguous()) return t;
    StridedTensor result = StridedTensor::allocate(dtype, t.sizes);
    copy_into(t, result);
    return result;
}

std::optional<std::vector<int64_t>> view_strides(const StridedTensor& t, const std::vector<int64_t>& sizes) {
    // torch's computeStride (aten/src/ATen/TensorUtils.cpp), which view() uses.
    const auto& old_sizes = t.sizes;
    const auto& old_strides = t.strides;
    if (old_sizes.empty()) return std::vector<int64_t>(sizes.size(), 1);
    const int64_t numel = t.numel();
    if (numel == 0 && old_sizes == sizes) return old_strides;
    if (numel == 0) return contiguous_strides(sizes);
    std::vector<int64_t> strides(sizes.size());
    int64_t view_d = static_cast<int64_t>(sizes.size()) - 1;
    int64_t chunk_base_stride = old_strides.back();
    int64_t tensor_numel = 1;
    int64_t view_numel = 1;
    for (int64_t tensor_d = static_cast<int64_t>(old_sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
        tensor_numel *= old_sizes[tensor_d];
        const bool chunk_ends = tensor_d == 0 || (old_sizes[tensor_d - 1] != 1 &&
                                                  old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
        if (!chunk_ends) continue;
        while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
            strides[view_d] = view_numel * chunk_base_stride;
            view_numel *= sizes[view_d];
            --view_d;
        }
        if (view_numel != tensor_numel) return std::nullopt;
        if (tensor_d > 0) {
            chunk_base_stride = old_strides[tensor_d - 1];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    if (view_d != -1) return std::nullopt;
    return strides;
}

std::vector<int64_t> infer_view_sizes(const KernelCall& call, std::vector<int64_t> sizes, int64_t numel) {
    int64_t known = 1;
    std::optional<size_t> inferred;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == -1) {
            if (inferred) call.fail("only one dimension can be inferred (-1) in " + shape_text(sizes));
            inferred = i;
        } else if (sizes[i] < 0) {
            call.fail("invalid size " + std::to_string(sizes[i]) + " in " + shape_text(sizes));
        } else if (__builtin_mul_overflow(known, sizes[i], &known)) {
            call.fail("shape " + shape_text(sizes) + " is too large to address");
        }
    }
    if (inferred) {
        if (known == 0 || numel % known != 0) {
            call.fail("shape " + shape_text(sizes) + " is invalid for a tensor of " + std::to_string(numel) + " elements");
        }
        sizes[*inferred] = numel / known;
    } else if (known != numel) {
        call.fail("shape " + shape_text(sizes) + " is invalid for a tensor of " + std::to_string(numel) + " elements");
    }
    return sizes;
}

std::vector<int64_t> byte_offsets(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                  size_t element_size) {
    int64_t count = 1;
    for (int64_t s : sizes) count *= s;
    std::vector<int64_t> offsets;
    if (count == 0) return offsets;
    offsets.reserve(static_cast<size_t>(count));
    std::vector<int64_t> index(sizes.size(), 0);
    int64_t offset = 0;
    for (int64_t n = 0; n < count; ++n) {
        offsets.push_back(offset * static_cast<int64_t>(element_size));
        for (size_t d = sizes.size(); d-- > 0;) {  // odometer: bump the innermost dim, carry outward
            ++index[d];
            offset += strides[d];
            if (index[d] < sizes[d]) break;
            offset -= strides[d] * sizes[d];
            index[d] = 0;
        }
    }
    return offsets;
}

Reduction plan_reduction(const StridedTensor& input, std::vector<int64_t> dims, bool keepdim) {
    Reduction r;
    r.keepdim = keepdim;
    if (dims.empty()) dims = [&] { std::vector<int64_t> all(input.rank()); std::iota(all.begin(), all.end(), 0); return all; }();
    std::sort(dims.begin(), dims.end());
    r.dims = dims;
    std::vector<int64_t> kept_strides, reduced_sizes, reduced_strides;
    for (size_t d = 0; d < input.rank(); ++d) {
        const bool reduced = std::binary_search(dims.begin(), dims.end(), static_cast<int64_t>(d));
        if (reduced) {
            reduced_sizes.push_back(input.sizes[d]);
            reduced_strides.push_back(input.strides[d]);
            if (keepdim) r.out_sizes.push_back(1);
        } else {
            r.kept_sizes.push_back(input.sizes[d]);
            kept_strides.push_back(input.strides[d]);
            r.out_sizes.push_back(input.sizes[d]);
        }
    }
    r.kept_input = input.view(r.kept_sizes, kept_strides);
    r.reduced_bytes = byte_offsets(reduced_sizes, reduced_strides, input.element_size());
    return r;
}

StridedTensor Reduction::kept_output(const StridedTensor& out) const {
    if (!keepdim) return out;
    std::vector<int64_t> sizes, strides;
    for (size_t d = 0; d < out.rank(); ++d) {
        if (std::binary_search(dims.begin(), dims.end(), static_cast<int64_t>(d))) continue;
        sizes.push_back(out.sizes[d]);
        strides.push_back(out.strides[d]);
    }
    return out.view(sizes, strides);
}

}  // namespace pt2ov::kernels
