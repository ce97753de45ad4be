#include "pt2ov/tensor.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "common/text.h"
#include "pt2ov/error.h"

namespace pt2ov {

namespace {

constexpr size_t kAlignment = 64;  // a cache line; also what OpenVINO and SIMD loads like best

// Element count with every dim checked, so a bad shape fails here and not as a wild allocation.
size_t checked_numel(const std::vector<int64_t>& shape, size_t element_size) {
    size_t count = 1;
    for (int64_t dim : shape) {
        if (dim < 0) throw InputError("tensor shape " + shape_text(shape) + " has a negative dim");
        const auto udim = static_cast<size_t>(dim);
        if (udim != 0 && count > std::numeric_limits<size_t>::max() / element_size / udim) {
            throw InputError("tensor shape " + shape_text(shape) + " is too large to address");
        }
        count *= udim;
    }
    return count;
}

}  // namespace

Tensor Tensor::view(DType dtype, std::vector<int64_t> shape, void* data) {
    checked_numel(shape, dtype_size(dtype));
    Tensor tensor;
    tensor.dtype_ = dtype;
    tensor.shape_ = std::move(shape);
    tensor.data_ = data;
    return tensor;
}

Tensor Tensor::allocate(DType dtype, std::vector<int64_t> shape) {
    const size_t bytes = checked_numel(shape, dtype_size(dtype)) * dtype_size(dtype);
    // aligned_alloc wants a multiple of the alignment; at least one line so that even an empty
    // tensor has a real pointer (a null data() would look like an empty handle).
    if (bytes > std::numeric_limits<size_t>::max() - kAlignment) {
        throw InputError("tensor shape " + shape_text(shape) + " is too large to allocate");
    }
    const size_t rounded =
        bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void* memory = std::aligned_alloc(kAlignment, rounded);
    if (memory == nullptr) {
        throw ResourceError("cannot allocate " + std::to_string(bytes) + " bytes for a tensor of shape " +
                    shape_text(shape));
    }
    std::memset(memory, 0, rounded);

    Tensor tensor;
    tensor.dtype_ = dtype;
    tensor.shape_ = std::move(shape);
    tensor.owner_ = std::shared_ptr<void>(memory, std::free);
    tensor.data_ = memory;
    return tensor;
}

int64_t Tensor::numel() const {
    int64_t count = 1;
    for (int64_t dim : shape_) count *= dim;
    return count;
}

}  // namespace pt2ov
