// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): the weight's rows picked by
// int32 or int64 indices of any shape, [*indices.shape, embedding dim], in the weight's dtype
// (any), copied bit for bit as PyTorch's index_select does. padding_idx, scale_grad_by_freq and
// sparse only change the gradient. An index outside [0, rows) is an error naming the node, as
// PyTorch's "index out of range in self".
#include <fmt/format.h>

#include <cstring>

#include "kernels/contracts.h"
#include "kernels/layer_common.h"

namespace pt2ov::kernels {
namespace {

std::vector<RuntimeValue> embedding(const KernelCall& call) {
    const StridedTensor& weight = call.tensor("weight", 0);
    const StridedTensor& indices = call.tensor("indices", 1);
    if (weight.rank() != 2) call.fail("'weight' must be 2-D, got shape " + shape_text(weight.sizes));
    if (indices.dtype != DType::Int64 && indices.dtype != DType::Int32) {
        call.fail("expects int32 or int64 indices, got " + std::string(dtype_name(indices.dtype)));
    }
    if (call.output_meta(0).dtype != weight.dtype) {
        call.fail("records a " + std::string(dtype_name(call.output_meta(0).dtype)) + " result for a " +
                  std::string(dtype_name(weight.dtype)) + " weight");
    }
    const int64_t rows = weight.sizes[0], dim = weight.sizes[1];
    const auto picked = dense_int64(indices);
    for (int64_t row : picked) {
        if (row < 0 || row >= rows) {
            call.fail("index " + std::to_string(row) + " is out of range for " + std::to_string(rows) +
                      " embeddings (index out of range in self)");
        }
    }
    auto out_sizes = indices.sizes;
    out_sizes.push_back(dim);
    StridedTensor out = allocate_output_for_overwrite(call, 0, out_sizes, weight.dtype);
    if (out.numel() == 0) return single(std::move(out));
    const auto element = static_cast<int64_t>(weight.element_size());
    const std::vector<int64_t> index_strides(out.strides.begin(), out.strides.end() - 1);
    const auto targets = byte_offsets(indices.sizes, index_strides, weight.element_size());
    const int64_t from_step = weight.strides[1] * element, to_step = out.strides.back() * element;
    const bool rows_dense = from_step == element && to_step == element;
    parallel_ranges(static_cast<int64_t>(picked.size()), std::max<int64_t>(1, kParallelMinElements / std::max<int64_t>(dim, 1)),
                    [&](int64_t first, int64_t last) {
                        for (int64_t k = first; k < last; ++k) {
                            const std::byte* from = weight.data + picked[static_cast<size_t>(k)] * weight.strides[0] * element;
                            std::byte* to = out.data + targets[static_cast<size_t>(k)];
                            if (rows_dense) {
                                std::memcpy(to, from, static_cast<size_t>(dim * element));
                                continue;
                            }
                            for (int64_t j = 0; j < dim; ++j) {
                                std::memcpy(to + j * to_step, from + j * from_step, static_cast<size_t>(element));
                            }
                        }
                    });
    return single(std::move(out));
}

// The indices' sizes, then the weight's second.
std::optional<std::vector<ExpectedSizes>> embedding_shape(const ShapeQuery& query) {
    const auto weight = query.sizes("weight", 0), indices = query.sizes("indices", 1);
    if (!weight || !indices) return std::nullopt;
    if (weight->size() != 2) query.contradiction(fmt::format("its weight has {} dims where it takes 2", weight->size()));
    ExpectedSizes out = *indices;
    out.push_back((*weight)[1]);
    return std::vector<ExpectedSizes>{out};
}

PT2OV_KERNEL("aten.embedding.default", embedding, embedding_shape);

}  // namespace
}  // namespace pt2ov::kernels
