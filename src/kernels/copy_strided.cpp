// prims.copy_strided(Tensor a, SymInt[] stride): a copy of `a` laid out with the given strides,
// as PyTorch's decompositions emit it to restore a layout (index_fill of a transposed tensor).
// The layout is the one recorded for the output; the values are a's.
#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

std::vector<RuntimeValue> copy_strided(const KernelCall& call) {
    const StridedTensor& a = call.tensor("a", 0);
    const auto strides = call.ints("stride", 1);
    if (strides.size() != a.rank()) {
        call.fail("copy_strided(): " + std::to_string(strides.size()) + " strides for a tensor of rank " + std::to_string(a.rank()));
    }
    StridedTensor out = allocate_output(call, 0, a.sizes, a.dtype);
    copy_into(a, out);
    return single(out);
}

// Its argument is named `a`, not self: same_as_self would not find it.
std::optional<std::vector<ExpectedSizes>> copy_strided_shape(const ShapeQuery& query) {
    const auto a = query.sizes("a", 0);
    if (!a) return std::nullopt;
    return std::vector<ExpectedSizes>{*a};
}

PT2OV_KERNEL("prims.copy_strided.default", copy_strided, copy_strided_shape);

}  // namespace
}  // namespace pt2ov::kernels
