#include "pt2ov/tensor.h"

namespace pt2ov {

Tensor Tensor::adopt(DType dtype, std::vector<int64_t> shape, void* data, std::shared_ptr<void> owner) {
    Tensor tensor = view(dtype, std::move(shape), data);
    tensor.owner_ = std::move(owner);
    return tensor;
}

}  // namespace pt2ov
