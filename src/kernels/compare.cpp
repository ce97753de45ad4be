// Comparisons eq, ne, lt, le, gt, ge (Tensor and Scalar overloads): both operands are cast to
// their promoted dtype (a number rounded to an f16 tensor's precision, as PyTorch does), then
// compared; the result is bool.
#include "kernels/dispatch.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

enum class Comparison { Eq, Ne, Lt, Le, Gt, Ge };

// The comparison is a template argument, so each loop compares one way without a switch per
// element.
template <Comparison kind, typename V>
bool compare(V x, V y) {
    if constexpr (kind == Comparison::Eq) return x == y;
    else if constexpr (kind == Comparison::Ne) return x != y;
    else if constexpr (kind == Comparison::Lt) return x < y;
    else if constexpr (kind == Comparison::Le) return x <= y;
    else if constexpr (kind == Comparison::Gt) return x > y;
    else return x >= y;
}

template <Comparison kind>
std::vector<RuntimeValue> comparison(const KernelCall& call) {
    const Operand a = read_operand(call, "self", 0);
    const Operand b = read_operand(call, "other", 1);
    const DType compute = common_dtype(call, {&a, &b});
    return single(elementwise_binary(call, a, b, compute, [&]<typename C>() {
        using V = compute_t<C>;
        return [](V x, V y) -> bool { return compare<kind>(x, y); };
    }));
}

// Every kernel here is elementwise: its outputs have the broadcast sizes of its tensor arguments.
PT2OV_FILE_SHAPE_CONTRACT(elementwise_shape);

PT2OV_KERNEL("aten.eq.Tensor", comparison<Comparison::Eq>);
PT2OV_KERNEL("aten.eq.Scalar", comparison<Comparison::Eq>);
PT2OV_KERNEL("aten.ne.Tensor", comparison<Comparison::Ne>);
PT2OV_KERNEL("aten.ne.Scalar", comparison<Comparison::Ne>);
PT2OV_KERNEL("aten.lt.Tensor", comparison<Comparison::Lt>);
PT2OV_KERNEL("aten.lt.Scalar", comparison<Comparison::Lt>);
PT2OV_KERNEL("aten.le.Tensor", comparison<Comparison::Le>);
PT2OV_KERNEL("aten.le.Scalar", comparison<Comparison::Le>);
PT2OV_KERNEL("aten.gt.Tensor", comparison<Comparison::Gt>);
PT2OV_KERNEL("aten.gt.Scalar", comparison<Comparison::Gt>);
PT2OV_KERNEL("aten.ge.Tensor", comparison<Comparison::Ge>);
PT2OV_KERNEL("aten.ge.Scalar", comparison<Comparison::Ge>);

}  // namespace
}  // namespace pt2ov::kernels
