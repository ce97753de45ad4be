// Ops on the parts of a floating number: fmax and fmin (the larger or smaller of two numbers in
// their promoted dtype, where a NaN loses to a number, unlike maximum/minimum, which propagate
// it; the result is NaN only when both are), copysign, signbit, nextafter, ldexp, frexp, hypot,
// heaviside, isnan, isinf, isfinite, isposinf, isneginf, isreal and real.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/dispatch.h"
#include "kernels/floating_map.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

template <bool larger>
std::vector<RuntimeValue> nan_ignoring_extremum(const KernelCall& call) {
    const Operand a = read_operand(call, "self", 0);
    const Operand b = read_operand(call, "other", 1);
    const DType compute = common_dtype(call, {&a, &b});
    return single(elementwise_binary(call, a, b, compute, [&]<typename C>() {
        using V = compute_t<C>;
        return [](V x, V y) -> V {
            if (is_nan(x)) return y;
            if (is_nan(y)) return x;
            return (larger ? x < y : y < x) ? y : x;
        };
    }));
}

// Every kernel here is elementwise: its outputs have the broadcast sizes of its tensor arguments.
PT2OV_FILE_SHAPE_CONTRACT(elementwise_shape);

PT2OV_KERNEL("aten.fmax.default", nan_ignoring_extremum<true>);
PT2OV_KERNEL("aten.fmin.default", nan_ignoring_extremum<false>);

// copysign.Tensor(Tensor self, Tensor other), copysign.Scalar(Tensor self, Scalar other): the
// magnitude of self with the sign bit of other (-0.0 and NaN carry theirs), in the promoted
// floating dtype.
std::vector<RuntimeValue> copysign_kernel(const KernelCall& call) {
    const Operand a = read_operand(call, "self", 0);
    const Operand b = read_operand(call, "other", 1);
    return map_pair_to_floating(call, a, b, FloatingDtypes::All, []<typename C>() {
        return [](C x, C y) { return std::copysign(x, y); };
    });
}

// hypot(Tensor self, Tensor other): floating results only, as PyTorch's CPU kernel.
std::vector<RuntimeValue> hypot_kernel(const KernelCall& call) {
    const Operand a = read_operand(call, "self", 0);
    const Operand b = read_operand(call, "other", 1);
    return map_pair_to_floating(call, a, b, FloatingDtypes::All, []<typename C>() {
        return [](C x, C y) { return std::hypot(x, y); };
    });
}

// The bits of a float16 or bfloat16 value held exactly in a float, and back.
template <typename T>
uint16_t bits_of_16(float value) {
    if constexpr (std::is_same_v<T, Half>) return float_to_half_bits(value);
    else return float_to_bfloat16_bits(value);
}
template <typename T>
float value_of_16(uint16_t bits) {
    if constexpr (std::is_same_v<T, Half>) return half_bits_to_float(bits);
    else return bfloat16_bits_to_float(bits);
}

// The next representable value of T after `from` toward `to`, stepping the 16-bit pattern
// itself: a float's nextafter would step in float's finer grid.
template <typename T>
float next_after_16(float from, float to) {
    if (std::isnan(from) || std::isnan(to)) return std::numeric_limits<float>::quiet_NaN();
    if (from == to) return to;
    if (from == 0.0f) return value_of_16<T>(to > 0.0f ? 0x0001 : 0x8001);
    const uint16_t bits = bits_of_16<T>(from);
    const bool away_from_zero = (from < to) == (from > 0.0f);
    return value_of_16<T>(static_cast<uint16_t>(away_from_zero ? bits + 1 : bits - 1));
}

// nextafter(Tensor self, Tensor other): floating results only.
std::vector<RuntimeValue> nextafter_kernel(const KernelCall& call) {
    const Operand a = read_operand(call, "self", 0);
    const Operand b = read_operand(call, "other", 1);
    const DType dtype = call.output_meta(0).dtype;
    check_floating_result(call, dtype, FloatingDtypes::All);
    return single(elementwise_binary(call, a, b, dtype, []<typename T>() {
        return [](compute_t<T> x, compute_t<T> y) {
            if constexpr (is_reduced_float_v<T>) return next_after_16<T>(x, y);
            else return std::nextafter(x, y);
        };
    }));
}

// ldexp.Tensor(Tensor self, Tensor other): self * 2**other. With an integer exponent PyTorch's
// product is exact, then rounded once to the result dtype (-0.0 * 2**140 stays -0.0, 3 * 2**-150
// is float's smallest subnormal); with a floating one, 2**other is rounded to the result dtype
// first (2**140 is inf in float32, so -0.0 gives NaN).
std::vector<RuntimeValue> ldexp_kernel(const KernelCall& call) {
    const Operand a = read_operand(call, "self", 0);
    const Operand b = read_operand(call, "other", 1);
    const DType dtype = call.output_meta(0).dtype;
    check_floating_result(call, dtype, FloatingDtypes::All);
    const bool integer_exponent = b.tensor ? !dtype_is_floating(b.tensor->dtype) : !scalar_is_floating(b.number);
    if (integer_exponent) {
        return single(elementwise_binary(call, a, b, DType::Float64, []<typename T>() {
            return [](compute_t<T> x, compute_t<T> e) {
                const double bounded = std::clamp(static_cast<double>(e), -100000.0, 100000.0);
                return static_cast<compute_t<T>>(std::ldexp(static_cast<double>(x), static_cast<int>(bounded)));
            };
        }));
    }
    return single(elementwise_binary(call, a, b, dtype, []<typename T>() {
        return [](compute_t<T> x, compute_t<T> e) {
            using C = compute_t<T>;
            return x * cast<T>(std::pow(C(2), e));
        };
    }));
}

// frexp.Tensor(Tensor self) -> (mantissa, exponent): mantissa in [0.5, 1) with self's sign and
// dtype, exponent int32; inf and NaN keep their value with exponent 0, as std::frexp gives.
std::vector<RuntimeValue> frexp_kernel(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (!dtype_is_floating(self.dtype)) call.fail("frexp() only supports floating-point dtypes");
    if (call.output_meta(1).dtype != DType::Int32) call.fail("frexp() expects an int32 exponent");
    StridedTensor mantissa = allocate_output(call, 0, self.sizes, self.dtype);
    StridedTensor exponent = allocate_output(call, 1, self.sizes, DType::Int32);
    visit_floating(self.dtype, [&]<typename T>() {
        for_each_element<3>(self.sizes, {&mantissa, &exponent, &self}, [](const std::array<std::byte*, 3>& p) {
            int e = 0;
            const auto m = std::frexp(load<T>(p[2]), &e);
            if (!std::isfinite(m)) e = 0;
            store<T>(p[0], m);
            store<int32_t>(p[1], e);
        });
    });
    return {RuntimeValue::of(std::move(mantissa)), RuntimeValue::of(std::move(exponent))};
}

// heaviside(Tensor self, Tensor values): values where self is 0, else 1 where self > 0 and 0
// below 0 or at NaN. PyTorch requires one dtype for both.
std::vector<RuntimeValue> heaviside_kernel(const KernelCall& call) {
    const Operand a = read_operand(call, "self", 0);
    const Operand b = read_operand(call, "values", 1);
    if (a.tensor && b.tensor && a.tensor->dtype != b.tensor->dtype) {
        call.fail("heaviside is not yet implemented for tensors with different dtypes");
    }
    const DType dtype = call.output_meta(0).dtype;
    return single(elementwise_binary(call, a, b, dtype, []<typename T>() {
        return [](compute_t<T> x, compute_t<T> v) {
            using C = compute_t<T>;
            return x == C(0) ? v : static_cast<C>(x > C(0));
        };
    }));
}

// A bool result of a test on each element of `self` (any dtype).
template <typename Test>
std::vector<RuntimeValue> test_elements(const KernelCall& call, Test test) {
    const StridedTensor& self = call.tensor("self", 0);
    if (call.output_meta(0).dtype != DType::Bool) call.fail("expects a bool result");
    StridedTensor out = allocate_output(call, 0, self.sizes, DType::Bool);
    visit_dtype(self.dtype, [&]<typename T>() {
        for_each_element<2>(self.sizes, {&out, &self}, [&](const std::array<std::byte*, 2>& p) {
            store<bool>(p[0], test(load<T>(p[1])));
        });
    });
    return single(out);
}

template <typename V>
bool sign_bit_set(V x) {
    if constexpr (std::is_floating_point_v<V>) return std::signbit(x);
    else if constexpr (std::is_signed_v<V>) return x < 0;
    else return false;
}

template <typename V>
bool is_infinity(V x, bool positive) {
    if constexpr (std::is_floating_point_v<V>) return std::isinf(x) && (x > 0) == positive;
    else return false;
}

PT2OV_KERNEL("aten.copysign.Tensor", copysign_kernel);
PT2OV_KERNEL("aten.copysign.Scalar", copysign_kernel);
PT2OV_KERNEL("aten.hypot.default", hypot_kernel);
PT2OV_KERNEL("aten.nextafter.default", nextafter_kernel);
PT2OV_KERNEL("aten.ldexp.Tensor", ldexp_kernel);
PT2OV_KERNEL("aten.frexp.Tensor", frexp_kernel);
PT2OV_KERNEL("aten.heaviside.default", heaviside_kernel);
PT2OV_KERNEL("aten.signbit.default", [](const KernelCall& call) {
    return test_elements(call, [](auto x) { return sign_bit_set(x); });
});
PT2OV_KERNEL("aten.isposinf.default", [](const KernelCall& call) {
    return test_elements(call, [](auto x) { return is_infinity(x, true); });
});
PT2OV_KERNEL("aten.isneginf.default", [](const KernelCall& call) {
    return test_elements(call, [](auto x) { return is_infinity(x, false); });
});
PT2OV_KERNEL("aten.isnan.default", [](const KernelCall& call) {
    return test_elements(call, [](auto x) { return x != x; });
});
PT2OV_KERNEL("aten.isinf.default", [](const KernelCall& call) {
    return test_elements(call, [](auto x) { return is_infinity(x, true) || is_infinity(x, false); });
});
PT2OV_KERNEL("aten.isfinite.default", [](const KernelCall& call) {
    return test_elements(call, [](auto x) {
        if constexpr (std::is_floating_point_v<decltype(x)>) return std::isfinite(x);
        else return true;
    });
});
// Every tensor pt2ov holds is real, so isreal is true everywhere.
PT2OV_KERNEL("aten.isreal.default", [](const KernelCall& call) {
    return test_elements(call, [](auto) { return true; });
});
// real of a real tensor is the tensor itself, as a view sharing its memory (its schema aliases).
PT2OV_KERNEL("aten.real.default", [](const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    return single(self.view(self.sizes, self.strides));
});

}  // namespace
}  // namespace pt2ov::kernels
