// fmax and fmin: the larger (smaller) of two numbers in their promoted dtype, where a NaN loses
// to a number (unlike maximum/minimum, which propagate it); the result is NaN only when both are.
#include <cmath>
#include <type_traits>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

template <typename V>
bool is_nan(V x) {
    if constexpr (std::is_floating_point_v<V>) return std::isnan(x);
    else return false;
}

Kernel nan_ignoring_extremum(bool larger) {
    return [larger](const KernelCall& call) {
        const Operand a = read_operand(call, "self", 0);
        const Operand b = read_operand(call, "other", 1);
        const DType compute = common_dtype(call, {&a, &b});
        return single(elementwise_binary(call, a, b, compute, [&]<typename C>() {
            using V = compute_t<C>;
            return [larger](V x, V y) -> V {
                if (is_nan(x)) return y;
                if (is_nan(y)) return x;
                return (larger ? x < y : y < x) ? y : x;
            };
        }));
    };
}

PT2OV_KERNEL("aten.fmax.default", nan_ignoring_extremum(true));
PT2OV_KERNEL("aten.fmin.default", nan_ignoring_extremum(false));

}  // namespace
}  // namespace pt2ov::kernels
