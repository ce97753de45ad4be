// stack: tensors of one shape joined along a new dim, in the promoted dtype torch.export
// recorded.
#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// stack(Tensor[] tensors, int dim=0)
std::vector<RuntimeValue> stack(const KernelCall& call) {
    const auto inputs = call.tensors("tensors", 0);
    if (inputs.empty()) call.fail("stack() expects a non-empty list of tensors");
    const auto& shape = inputs[0].sizes;
    for (size_t i = 1; i < inputs.size(); ++i) {
        if (inputs[i].sizes != shape) {
            call.fail("stack() expects tensors of one shape, but tensor 0 has shape " + shape_text(shape) +
                      " and tensor " + std::to_string(i) + " has shape " + shape_text(inputs[i].sizes));
        }
    }
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1, 0), static_cast<int64_t>(shape.size()) + 1);
    std::vector<int64_t> sizes = shape;
    sizes.insert(sizes.begin() + dim, static_cast<int64_t>(inputs.size()));
    StridedTensor out = allocate_output(call, 0, sizes);
    std::vector<int64_t> part_strides = out.strides;
    part_strides.erase(part_strides.begin() + dim);
    for (size_t i = 0; i < inputs.size(); ++i) {
        copy_into(inputs[i], out.view(shape, part_strides, static_cast<int64_t>(i) * out.strides[dim]));
    }
    return single(out);
}

PT2OV_KERNEL("aten.stack.default", stack, stacked_shape);

}  // namespace
}  // namespace pt2ov::kernels
