// Elementwise ops of one tensor. The input is first cast to the result dtype torch.export
// recorded (int inputs of float ops become float32, as PyTorch promotes them); f16 and bf16
// compute in float and round once, as PyTorch's "opmath" does. float32 exp, sigmoid and tanh
// run vectorized loops of their own (kernels/isa/float_math.h, the CPU's level of the ISA table)
// over row-major copies of any other layout, so every layout gets the same values.
#include <cmath>
#include <limits>

#include "kernels/dense_paths.h"
#include "kernels/cpu_isa.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

enum class Accepts { Floating, Numeric, Integral, Any };

std::string accepted_types(Accepts accepts) {
    switch (accepts) {
        case Accepts::Floating: return "floating types";
        case Accepts::Numeric: return "integer and floating types";
        case Accepts::Integral: return "bool and integer types";
        case Accepts::Any: return "any type";
    }
    return "";
}

bool accepts_dtype(Accepts accepts, DType dtype) {
    switch (accepts) {
        case Accepts::Floating: return dtype_is_floating(dtype);
        case Accepts::Numeric: return dtype != DType::Bool;
        case Accepts::Integral: return !dtype_is_floating(dtype);
        case Accepts::Any: return true;
    }
    return false;
}


// A float32 loop over dense memory, out[i] = f(in[i]), as the ISA table's entry.
using DenseFloatMap = isa::MapF32 isa::IsaKernels::*;

// `f` over every element of the float32 `input` into the float32 `out` of the same sizes, each
// with any strides: through row-major copies where either is not row-major.
void map_dense_floats(const StridedTensor& input, const StridedTensor& out, isa::MapF32 f) {
    const StridedTensor dense_input = contiguous_as(input, DType::Float32);
    const StridedTensor dense_out = out.is_contiguous() ? out : StridedTensor::allocate_for_overwrite(DType::Float32, out.sizes);
    const auto* in_data = reinterpret_cast<const float*>(dense_input.data);
    auto* out_data = reinterpret_cast<float*>(dense_out.data);
    for_dense_ranges(out.numel(), [&](int64_t begin, int64_t end) { f(in_data + begin, out_data + begin, end - begin); });
    if (dense_out.data != out.data) copy_into(dense_out, out);
}

// The shared body of every unary kernel: validate the result dtype, cast the input to it,
// then map. `op` is a generic lambda; `make_op` builds it per call (for ops with arguments).
// `dense_float`, when given, computes a float32 result instead of `op`.
template <typename MakeOp>
std::vector<RuntimeValue> run_unary(const KernelCall& call, Accepts accepts, MakeOp make_op,
                                    DenseFloatMap dense_float = nullptr) {
    const StridedTensor& self = call.tensor("self", 0);
    const DType dtype = call.output_meta(0).dtype;
    // Float ops take any input: PyTorch promotes integers and bools to float first.
    const bool input_ok = accepts == Accepts::Floating || accepts_dtype(accepts, self.dtype);
    if (!accepts_dtype(accepts, dtype) || !input_ok) {
        call.fail("expects " + accepted_types(accepts) + ", got " + std::string(dtype_name(self.dtype)) + " input and " +
                  std::string(dtype_name(dtype)) + " result");
    }
    const StridedTensor input = self.dtype == dtype ? self : contiguous_as(self, dtype);
    StridedTensor out = allocate_output_for_overwrite(call, 0, self.sizes, dtype);  // map_elements writes all
    if (dense_float && dtype == DType::Float32) {
        map_dense_floats(input, out, isa_kernels().*dense_float);
        return single(out);
    }
    const auto op = make_op(call);
    visit_dtype(dtype, [&]<typename T>() { map_elements<T, T>(out, {&input}, op); });
    return single(out);
}

// The kernel of an op without arguments: `op` (a captureless generic lambda) per element;
// `dense_float`, when given, is its float32 loop.
template <Accepts accepts, auto op, DenseFloatMap dense_float = nullptr>
std::vector<RuntimeValue> unary(const KernelCall& call) {
    return run_unary(call, accepts, [](const KernelCall&) { return op; }, dense_float);
}

// Math on floating values; an integer passes unchanged (right for floor, ceil, round and
// trunc; float-only ops never see one, validation refuses integer results for them).
#define PT2OV_FLOAT_OP(expression)                                      \
    [](auto x) {                                                        \
        using C = decltype(x);                                          \
        if constexpr (std::is_floating_point_v<C>) {                    \
            return static_cast<C>(expression);                          \
        } else {                                                        \
            return x;                                                   \
        }                                                               \
    }

template <typename C>
C wrapping_negate(C x) {
    if constexpr (is_integer_v<C>) return static_cast<C>(0 - static_cast<uint64_t>(x));
    else if constexpr (std::is_same_v<C, bool>) return x;
    else return -x;
}

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;

// erfinv in double: an initial guess (Giles' single-precision approximation), then two Newton
// steps on erf(x) = y, which reach double precision; +-1 give +-inf, |y| > 1 and NaN give NaN.
// Computed in double whatever the dtype, then rounded once (OpenVINO's float32 erfinv was off
// by 5e-3 near +-1: openvino_facts ErfinvImprecise).
inline double erfinv_double(double y) {
    if (std::isnan(y) || y < -1.0 || y > 1.0) return std::numeric_limits<double>::quiet_NaN();
    if (y == 1.0) return std::numeric_limits<double>::infinity();
    if (y == -1.0) return -std::numeric_limits<double>::infinity();
    double w = -std::log((1.0 - y) * (1.0 + y)), p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                         -0.00417768164, 0.246640727, 1.50140941}) {
            p = c + p * w;
        }
    } else {
        w = std::sqrt(w) - 3.0;
        p = -0.000200214257;
        for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                         1.00167406, 2.83297682}) {
            p = c + p * w;
        }
    }
    double x = p * y;
    for (int step = 0; step < 2; ++step) {
        const double slope = kTwoOverSqrtPi * std::exp(-x * x);
        if (slope == 0.0) break;
        x -= (std::erf(x) - y) / slope;
    }
    return x;
}

// `vectorized`: PyTorch's CPU gelu computes float32 (and float16/bfloat16, in float) with its
// SIMD kernel for a row-major tensor of more than one element, and that kernel, where ATen runs
// its AVX-512 copy, gives NaN for +inf and rounds x * (1 + erf) before halving it (so x beyond
// 1.7e38 overflows to inf); its AVX2 copy (a CPU without AVX-512: measured on an AMD EPYC) and
// its scalar loop (one element, a transposed or strided view, float64) give +inf and x itself.
// pt2ov follows whichever eager takes.
template <typename C>
C gelu(C x, bool tanh_approximation, bool vectorized) {
    if (tanh_approximation) {
        const C beta = static_cast<C>(kSqrt2 * kTwoOverSqrtPi * 0.5);
        const C kappa = static_cast<C>(0.044715);
        const C inner = beta * (x + kappa * x * x * x);
        return static_cast<C>(0.5) * x * (static_cast<C>(1) + std::tanh(inner));
    }
    const C phi_twice = static_cast<C>(1) + std::erf(x * static_cast<C>(kSqrtHalf));
    if (vectorized && std::is_same_v<C, float>) {
        if (x == std::numeric_limits<C>::infinity()) return std::numeric_limits<C>::quiet_NaN();
        return x * phi_twice * static_cast<C>(0.5);
    }
    return x * static_cast<C>(0.5) * phi_twice;
}

// clamp's bounds: NaN in the input or a bound gives NaN; -0.0 stays -0.0 against a 0 bound.
template <typename C>
C clamp_value(C x, std::optional<C> low, std::optional<C> high) {
    if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(x)) return x;
        if (low && std::isnan(*low)) return *low;
        if (high && std::isnan(*high)) return *high;
    }
    if (low && x < *low) x = *low;
    if (high && x > *high) x = *high;
    return x;
}

// A clamp bound cast to the result's element type once per call (rounded for f16/bf16, as
// PyTorch casts bounds), held both ways so any compute type reads it exactly.
struct Bound {
    double floating = 0;
    int64_t integer = 0;

    template <typename C>
    C as() const {
        if constexpr (std::is_floating_point_v<C>) return static_cast<C>(floating);
        else return static_cast<C>(integer);
    }
};

std::optional<Bound> cast_bound(const std::optional<Scalar>& bound, DType dtype) {
    if (!bound) return std::nullopt;
    return visit_dtype(dtype, [&]<typename T>() {
        const auto value = std::visit([](auto v) { return cast<T>(v); }, *bound);
        // Only an integer dtype reads `integer`; a float bound (1e30) may not fit an int64.
        if constexpr (is_floating_v<T>) return Bound{static_cast<double>(value), 0};
        else return Bound{static_cast<double>(value), static_cast<int64_t>(value)};
    });
}

// clamp(Tensor self, Scalar? min=None, Scalar? max=None), clamp_min, clamp_max,
// hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) and relu6 share this: each reads
// the bounds its schema has, by name and position.
enum class ClampForm { Clamp, ClampMin, ClampMax, Hardtanh, Relu6 };

template <ClampForm form>
std::vector<RuntimeValue> clamp_kernel(const KernelCall& call) {
    auto read = [&](ArgName name, size_t position) -> std::optional<Scalar> {
        return call.has(name, position) ? std::optional<Scalar>(call.scalar(name, position)) : std::nullopt;
    };
    std::optional<Scalar> low, high;
    switch (form) {
        case ClampForm::Clamp: low = read("min", 1), high = read("max", 2); break;
        case ClampForm::ClampMin: low = read("min", 1); break;
        case ClampForm::ClampMax: high = read("max", 1); break;
        case ClampForm::Hardtanh:
            low = read("min_val", 1).value_or(Scalar{int64_t{-1}});
            high = read("max_val", 2).value_or(Scalar{int64_t{1}});
            break;
        case ClampForm::Relu6: low = Scalar{int64_t{0}}, high = Scalar{int64_t{6}}; break;
    }
    if (!low && !high) call.fail("clamp() needs at least one of min and max");
    const DType dtype = call.output_meta(0).dtype;
    const auto low_bound = cast_bound(low, dtype);
    const auto high_bound = cast_bound(high, dtype);
    return run_unary(call, Accepts::Numeric, [&](const KernelCall&) {
        return [low_bound, high_bound](auto x) {
            using C = decltype(x);
            auto as_c = [](const std::optional<Bound>& b) { return b ? std::optional<C>(b->as<C>()) : std::nullopt; };
            return clamp_value<C>(x, as_c(low_bound), as_c(high_bound));
        };
    });
}

// Every kernel here is elementwise: its outputs have the broadcast sizes of its tensor arguments.
PT2OV_FILE_SHAPE_CONTRACT(elementwise_shape);

PT2OV_KERNEL("aten.exp.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::exp(x)), &isa::IsaKernels::exp_f32>));
PT2OV_KERNEL("aten.exp2.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::exp2(x))>));
PT2OV_KERNEL("aten.expm1.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::expm1(x))>));
PT2OV_KERNEL("aten.log.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::log(x))>));
PT2OV_KERNEL("aten.log2.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::log2(x))>));
PT2OV_KERNEL("aten.log10.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::log10(x))>));
PT2OV_KERNEL("aten.log1p.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::log1p(x))>));
PT2OV_KERNEL("aten.sqrt.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::sqrt(x))>));
PT2OV_KERNEL("aten.rsqrt.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(C(1) / std::sqrt(x))>));
PT2OV_KERNEL("aten.reciprocal.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(C(1) / x)>));
PT2OV_KERNEL("aten.sin.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::sin(x))>));
PT2OV_KERNEL("aten.cos.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::cos(x))>));
PT2OV_KERNEL("aten.tan.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::tan(x))>));
PT2OV_KERNEL("aten.asin.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::asin(x))>));
PT2OV_KERNEL("aten.acos.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::acos(x))>));
PT2OV_KERNEL("aten.atan.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::atan(x))>));
PT2OV_KERNEL("aten.sinh.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::sinh(x))>));
PT2OV_KERNEL("aten.cosh.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::cosh(x))>));
PT2OV_KERNEL("aten.tanh.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::tanh(x)), &isa::IsaKernels::tanh_f32>));
PT2OV_KERNEL("aten.asinh.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::asinh(x))>));
PT2OV_KERNEL("aten.acosh.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::acosh(x))>));
PT2OV_KERNEL("aten.atanh.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::atanh(x))>));
PT2OV_KERNEL("aten.erf.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::erf(x))>));
PT2OV_KERNEL("aten.erfc.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::erfc(x))>));
PT2OV_KERNEL("aten.erfinv.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(erfinv_double(static_cast<double>(x)))>));
PT2OV_KERNEL("aten.sigmoid.default",
             (unary<Accepts::Floating, PT2OV_FLOAT_OP(C(1) / (C(1) + std::exp(-x))), &isa::IsaKernels::sigmoid_f32>));
PT2OV_KERNEL("aten.silu.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(x / (C(1) + std::exp(-x)))>));
PT2OV_KERNEL("aten.hardswish.default",
             (unary<Accepts::Floating, PT2OV_FLOAT_OP(x * std::min(std::max(x + C(3), C(0)), C(6)) / C(6))>));
PT2OV_KERNEL("aten.hardsigmoid.default",
             (unary<Accepts::Floating, PT2OV_FLOAT_OP(std::min(std::max(x + C(3), C(0)), C(6)) / C(6))>));
PT2OV_KERNEL("aten.mish.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(x * std::tanh(std::log1p(std::exp(x))))>));

// Rounding keeps integers as they are. round() rounds half to even, as PyTorch's nearbyint.
PT2OV_KERNEL("aten.floor.default", (unary<Accepts::Numeric, PT2OV_FLOAT_OP(std::floor(x))>));
PT2OV_KERNEL("aten.ceil.default", (unary<Accepts::Numeric, PT2OV_FLOAT_OP(std::ceil(x))>));
PT2OV_KERNEL("aten.round.default", (unary<Accepts::Numeric, PT2OV_FLOAT_OP(std::nearbyint(x))>));
PT2OV_KERNEL("aten.trunc.default", (unary<Accepts::Numeric, PT2OV_FLOAT_OP(std::trunc(x))>));
// round.decimals(Tensor self, *, int decimals): scaled by 10^|decimals| the way PyTorch does.
PT2OV_KERNEL("aten.round.decimals", [](const KernelCall& call) {
    const int64_t decimals = call.int_arg("decimals", kKeywordOnly, 0);
    const double scale = std::pow(10.0, std::fabs(static_cast<double>(decimals)));
    const bool negative = decimals < 0;
    return run_unary(call, Accepts::Numeric, [=](const KernelCall&) {
        return [=](auto x) {
            using C = decltype(x);
            if constexpr (std::is_floating_point_v<C>) {
                const C s = static_cast<C>(scale);
                return negative ? std::nearbyint(x / s) * s : std::nearbyint(x * s) / s;
            } else {
                return x;
            }
        };
    });
});
PT2OV_KERNEL("aten.frac.default", (unary<Accepts::Floating, PT2OV_FLOAT_OP(x - std::trunc(x))>));

PT2OV_KERNEL("aten.neg.default", (unary<Accepts::Numeric, [](auto x) { return wrapping_negate(x); }>));
PT2OV_KERNEL("aten.abs.default", (unary<Accepts::Any, [](auto x) {
                 using C = decltype(x);
                 if constexpr (std::is_floating_point_v<C>) return std::fabs(x);
                 else if constexpr (std::is_signed_v<C>) return x < 0 ? wrapping_negate(x) : x;  // abs(INT_MIN) wraps
                 else return x;
             }>));
// sign(NaN) and sign(-0.0) are 0 in PyTorch.
PT2OV_KERNEL("aten.sign.default", (unary<Accepts::Any, [](auto x) {
                 using C = decltype(x);
                 if constexpr (std::is_same_v<C, bool>) return x;
                 else return static_cast<C>(static_cast<int>(C(0) < x) - static_cast<int>(x < C(0)));
             }>));
// relu keeps -0.0 and NaN, as PyTorch's clamp_min(0) does.
PT2OV_KERNEL("aten.relu.default", (unary<Accepts::Numeric, [](auto x) {
                 using C = decltype(x);
                 return x < C(0) ? C(0) : x;
             }>));
PT2OV_KERNEL("aten.logical_not.default", [](const KernelCall& call) {
    // The result is bool (or another dtype for the .out form): compute as bool, then cast.
    const StridedTensor& self = call.tensor("self", 0);
    StridedTensor truth = StridedTensor::allocate(DType::Bool, self.sizes);
    copy_into(self, truth);
    StridedTensor out = allocate_output(call, 0, self.sizes);
    for_each_element<1>(truth.sizes, {&truth}, [](const std::array<std::byte*, 1>& p) {
        *reinterpret_cast<uint8_t*>(p[0]) ^= 1;
    });
    copy_into(truth, out);
    return single(out);
});
PT2OV_KERNEL("aten.bitwise_not.default", (unary<Accepts::Integral, [](auto x) {
                 using C = decltype(x);
                 if constexpr (std::is_same_v<C, bool>) return !x;
                 else if constexpr (std::is_integral_v<C>) return static_cast<C>(~x);
                 else return x;
             }>));

PT2OV_KERNEL("aten.gelu.default", [](const KernelCall& call) {
    const std::string approximate = [&] {
        const auto* a = call.arg("approximate", kKeywordOnly);
        return a && a->kind == graph::Argument::Kind::String ? a->string_value : std::string("none");
    }();
    if (approximate != "none" && approximate != "tanh") call.fail("gelu() approximate must be 'none' or 'tanh', got '" + approximate + "'");
    const bool use_tanh = approximate == "tanh";
    const auto& self = call.tensor("self", 0);
    // ATen chooses its AVX-512 copy where the CPU has AVX-512 (its own detection, whatever
    // level pt2ov's kernels run at), as x86-64-v4 asks.
    static const bool eager_avx512 = cpu_has(CpuIsa::X86_64_V4);
    const bool vectorized = eager_avx512 && self.numel() > 1 && self.is_contiguous();
    return run_unary(call, Accepts::Floating, [use_tanh, vectorized](const KernelCall&) {
        return [use_tanh, vectorized](auto x) {
            if constexpr (std::is_floating_point_v<decltype(x)>) return gelu(x, use_tanh, vectorized);
            else return x;
        };
    });
});

// leaky_relu(Tensor self, Scalar negative_slope=0.01)
PT2OV_KERNEL("aten.leaky_relu.default", [](const KernelCall& call) {
    const double slope = call.has("negative_slope", 1) ? scalar_to_double(call.scalar("negative_slope", 1)) : 0.01;
    return run_unary(call, Accepts::Floating, [slope](const KernelCall&) {
        return [slope](auto x) {
            using C = decltype(x);
            if constexpr (std::is_floating_point_v<C>) return x > C(0) ? x : x * static_cast<C>(slope);
            else return x;
        };
    });
});

// elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1)
PT2OV_KERNEL("aten.elu.default", [](const KernelCall& call) {
    const double alpha = call.has("alpha", 1) ? scalar_to_double(call.scalar("alpha", 1)) : 1.0;
    const double scale = call.has("scale", 2) ? scalar_to_double(call.scalar("scale", 2)) : 1.0;
    const double input_scale = call.has("input_scale", 3) ? scalar_to_double(call.scalar("input_scale", 3)) : 1.0;
    return run_unary(call, Accepts::Floating, [=](const KernelCall&) {
        return [=](auto x) {
            using C = decltype(x);
            if constexpr (std::is_floating_point_v<C>) {
                return x > C(0) ? x * C(scale) : C(alpha) * C(scale) * std::expm1(x * C(input_scale));
            } else {
                return x;
            }
        };
    });
});

PT2OV_KERNEL("aten.clamp.default", clamp_kernel<ClampForm::Clamp>);
PT2OV_KERNEL("aten.clamp_min.default", clamp_kernel<ClampForm::ClampMin>);
PT2OV_KERNEL("aten.clamp_max.default", clamp_kernel<ClampForm::ClampMax>);
PT2OV_KERNEL("aten.hardtanh.default", clamp_kernel<ClampForm::Hardtanh>);
PT2OV_KERNEL("aten.relu6.default", clamp_kernel<ClampForm::Relu6>);

}  // namespace
}  // namespace pt2ov::kernels
