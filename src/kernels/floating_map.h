// Internal to the CPU kernels of special functions: one tensor mapped to floating results by a
// function of one value, in the result dtype torch.export recorded (integer and bool inputs are
// first cast to it, as PyTorch promotes them). float16 and bfloat16 compute in float and round
// once; float32 computes in float and float64 in double, as PyTorch's kernels do.
#pragma once

#include <string>
#include <string_view>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {

// Which floating dtypes an op accepts: PyTorch's newer special functions (Bessel, Airy, the
// orthogonal polynomials) have no float16 or bfloat16 CPU kernel.
enum class FloatingDtypes { All, Full };

inline void check_floating_result(const KernelCall& call, DType dtype, FloatingDtypes accepted) {
    if (!dtype_is_floating(dtype)) {
        call.fail("computes floating results, got a " + std::string(dtype_name(dtype)) + " result");
    }
    if (accepted == FloatingDtypes::Full && dtype_is_reduced_float(dtype)) {
        call.fail("is not implemented for " + std::string(dtype_name(dtype)) + " (PyTorch has no such CPU kernel)");
    }
}

// Maps input `name` (at schema `position`) through make.template operator()<C>(), a function
// from C to C where C is float or double.
template <typename MakeFn>
std::vector<RuntimeValue> map_to_floating(const KernelCall& call, ArgName name, size_t position,
                                          FloatingDtypes accepted, MakeFn&& make) {
    const StridedTensor& self = call.tensor(name, position);
    const DType dtype = call.output_meta(0).dtype;
    check_floating_result(call, dtype, accepted);
    const StridedTensor input = self.dtype == dtype ? self : contiguous_as(self, dtype);
    StridedTensor out = allocate_output(call, 0, self.sizes, dtype);
    visit_floating(dtype, [&]<typename T>() {
        using C = compute_t<T>;
        const auto fn = make.template operator()<C>();
        for_each_element<2>(out.sizes, {&out, &input}, [&](const std::array<std::byte*, 2>& p) {
            store<T>(p[0], static_cast<C>(fn(load<T>(p[1]))));
        });
    });
    return single(out);
}

// Two operands (tensors or numbers, broadcast) mapped to floating results: both are cast to the
// recorded result dtype first, as PyTorch casts to the common dtype.
template <typename MakeFn>
std::vector<RuntimeValue> map_pair_to_floating(const KernelCall& call, const Operand& a, const Operand& b,
                                               FloatingDtypes accepted, MakeFn&& make) {
    const DType dtype = call.output_meta(0).dtype;
    check_floating_result(call, dtype, accepted);
    return single(elementwise_binary(call, a, b, dtype, [&]<typename T>() {
        using C = compute_t<T>;
        if constexpr (std::is_floating_point_v<C>) {
            return make.template operator()<C>();
        } else {
            // Never run: the result dtype was checked to be floating.
            return [](C, C) -> C { throw InternalError("a floating kernel dispatched an integer dtype"); };
        }
    }));
}

}  // namespace pt2ov::kernels
