// Elementwise arithmetic of two operands (tensors or numbers) with broadcasting, and of three
// (addcmul), and glu (the two halves of one tensor). They compute
// in the result dtype torch.export recorded (PyTorch's type promotion). Integers are exact in
// their own width and wrap as PyTorch's do (int64 included: no 32-bit shortcut); integer
// division by zero is an error, as PyTorch's ZeroDivisionError.
#include <cmath>
#include <type_traits>

#include "kernels/dense_paths.h"
#include "kernels/cpu_isa.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

// ---- Integer helpers: wrap instead of overflowing (undefined in C++ for signed types).

template <typename V>
V wrap_add(V a, V b) {
    if constexpr (is_integer_v<V>) return static_cast<V>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    else return a + b;
}
template <typename V>
V wrap_sub(V a, V b) {
    if constexpr (is_integer_v<V>) return static_cast<V>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    else return a - b;
}
template <typename V>
V wrap_mul(V a, V b) {
    if constexpr (is_integer_v<V>) return static_cast<V>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else return a * b;
}

[[noreturn]] void divide_by_zero(const KernelCall& call) {
    call.fail("ZeroDivisionError: integer division or remainder by zero (PyTorch raises the same)");
}

// Truncating integer division; the one overflowing case (min / -1) wraps to min.
template <typename V>
V truncating_divide(V a, V b) {
    if constexpr (std::is_signed_v<V>) {
        if (b == -1) return static_cast<V>(0 - static_cast<uint64_t>(a));
    }
    return static_cast<V>(a / b);
}

template <typename V>
V floor_divide_int(V a, V b) {
    const V quotient = truncating_divide(a, b);
    if constexpr (std::is_signed_v<V>) {
        if (b != -1 && a % b != 0 && ((a < 0) != (b < 0))) return static_cast<V>(quotient - 1);
    }
    return quotient;
}

// PyTorch's div_floor_floating: floor of the true quotient, computed so it agrees with
// remainder (a - b * floor_divide(a, b)).
template <typename V>
V floor_divide_float(V a, V b) {
    if (b == 0) return a / b;
    const V mod = std::fmod(a, b);
    V div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= V(1);
    if (div == 0) return std::copysign(V(0), a / b);
    V floored = std::floor(div);
    if (div - floored > V(0.5)) floored += V(1);
    return floored;
}

template <typename V>
V remainder_int(V a, V b) {
    if constexpr (std::is_signed_v<V>) {
        if (b == -1) return 0;
        const V r = static_cast<V>(a % b);
        return r != 0 && ((r < 0) != (b < 0)) ? static_cast<V>(r + b) : r;
    } else {
        return static_cast<V>(a % b);
    }
}

// Integer power by squaring, wrapping; negative exponents follow PyTorch (1, ±1 or 0).
template <typename V>
V integer_power(V base, V exponent) {
    if constexpr (std::is_signed_v<V>) {
        if (exponent < 0) {
            if (base == 1) return 1;
            if (base == -1) return exponent % 2 == 0 ? 1 : -1;
            return 0;
        }
    }
    uint64_t result = 1;
    auto b = static_cast<uint64_t>(base);
    for (auto e = static_cast<uint64_t>(exponent); e; e >>= 1) {
        if (e & 1) result *= b;
        b *= b;
    }
    return static_cast<V>(result);
}

// ---- Validation.

enum class Accepts { Numeric, Integral, Any };

DType checked_result_dtype(const KernelCall& call, Accepts accepts, const char* what) {
    const DType dtype = call.output_meta(0).dtype;
    const bool ok = accepts == Accepts::Any || (accepts == Accepts::Numeric && dtype != DType::Bool) ||
                    (accepts == Accepts::Integral && !dtype_is_floating(dtype));
    if (!ok) call.fail(std::string(what) + " does not support " + std::string(dtype_name(dtype)) + " results");
    return dtype;
}

// The two operands, as the schema names them: (self, other) for most ops.
struct Operands {
    Operand a, b;
};
Operands read_operands(const KernelCall& call, ArgName first = "self", ArgName second = "other") {
    return {read_operand(call, first, 0), read_operand(call, second, 1)};
}

// ---- add, sub, rsub, mul, div.


// f (a float32 loop of the ISA table, kernels/isa/float_math.h) over two float32 tensors of the
// same sizes, both row-major, into a row-major float32 result, split over threads as
// map_elements splits; nullopt for any other operands (map_elements computes them, the same
// values: one IEEE operation per element either way).
std::optional<StridedTensor> dense_float_binary(const KernelCall& call, const Operand& a, const Operand& b, DType dtype,
                                                isa::BinaryF32 f) {
    if (dtype != DType::Float32 || call.output_meta(0).dtype != DType::Float32 || !a.tensor || !b.tensor) return std::nullopt;
    const StridedTensor& x = *a.tensor;
    const StridedTensor& y = *b.tensor;
    if (x.dtype != DType::Float32 || y.dtype != DType::Float32 || x.sizes != y.sizes || !x.is_contiguous() ||
        !y.is_contiguous()) {
        return std::nullopt;
    }
    StridedTensor out = allocate_output_for_overwrite(call, 0, x.sizes, DType::Float32);  // written whole
    if (!out.is_contiguous()) return std::nullopt;
    const auto* x_data = reinterpret_cast<const float*>(x.data);
    const auto* y_data = reinterpret_cast<const float*>(y.data);
    auto* out_data = reinterpret_cast<float*>(out.data);
    for_dense_ranges(out.numel(), [&](int64_t begin, int64_t end) {
        f(x_data + begin, y_data + begin, out_data + begin, end - begin);
    });
    return out;
}

// add/sub: a + alpha * b (sign -1 for sub). Floats use one fused multiply-add when alpha is
// not 1, as PyTorch's vectorized add does.
std::vector<RuntimeValue> add_like(const KernelCall& call, const Operand& a, const Operand& b, int sign) {
    const Scalar alpha = call.has("alpha", 2) ? call.scalar("alpha", 2) : Scalar{int64_t{1}};
    const DType dtype = checked_result_dtype(call, sign > 0 ? Accepts::Any : Accepts::Numeric, sign > 0 ? "add" : "sub");
    if (!dtype_is_floating(dtype) && scalar_is_floating(alpha)) call.fail("alpha must be an integer for integer inputs");
    if (sign > 0 && scalar_to_double(alpha) == 1.0) {
        if (auto dense = dense_float_binary(call, a, b, dtype, isa_kernels().add_f32)) return single(std::move(*dense));
    }
    if (dtype_is_floating(dtype) && scalar_to_double(alpha) == 1.0) {
        // The common alpha=1 as its own loop, without a test of alpha per element, so it
        // vectorizes; the same x + y or x - y as below.
        auto unit = [&]<bool adding>() {
            return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
                using V = compute_t<C>;
                if constexpr (std::is_floating_point_v<V>) {
                    return [](V x, V y) -> V { return adding ? x + y : x - y; };
                } else {
                    return [](V, V) -> V { throw InternalError("add/sub dispatched a non-floating dtype as floating"); };
                }
            }, /*scalar_in_opmath=*/true));
        };
        return sign > 0 ? unit.template operator()<true>() : unit.template operator()<false>();
    }
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        if constexpr (std::is_same_v<C, bool>) {
            const bool scale = scalar_to_bool(alpha);
            return [scale](V x, V y) -> V { return x || (scale && y); };
        } else if constexpr (is_integer_v<C>) {
            const V scale = wrap_mul(static_cast<V>(sign), static_cast<V>(scalar_to_int(alpha)));
            return [scale](V x, V y) -> V { return wrap_add(x, wrap_mul(scale, y)); };
        } else {
            const V scale = static_cast<V>(sign * scalar_to_double(alpha));
            return [scale](V x, V y) -> V { return scale == V(1) ? x + y : scale == V(-1) ? x - y : std::fma(y, scale, x); };
        }
    }, /*scalar_in_opmath=*/true));
}

std::vector<RuntimeValue> add(const KernelCall& call) {
    const auto [a, b] = read_operands(call);
    return add_like(call, a, b, +1);
}
std::vector<RuntimeValue> sub(const KernelCall& call) {
    const auto [a, b] = read_operands(call);
    return add_like(call, a, b, -1);
}
// rsub(self, other, alpha) = other - alpha * self.
std::vector<RuntimeValue> rsub(const KernelCall& call) {
    const auto [a, b] = read_operands(call);
    return add_like(call, b, a, -1);
}

std::vector<RuntimeValue> mul(const KernelCall& call) {
    const auto [a, b] = read_operands(call);
    const DType dtype = checked_result_dtype(call, Accepts::Any, "mul");
    if (auto dense = dense_float_binary(call, a, b, dtype, isa_kernels().multiply_f32)) return single(std::move(*dense));
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [](V x, V y) -> V {
            if constexpr (std::is_same_v<V, bool>) return x && y;
            else return wrap_mul(x, y);
        };
    }, true));
}

// div with rounding_mode None (true division; integers give floats), "trunc" or "floor".
std::vector<RuntimeValue> div(const KernelCall& call) {
    const auto [a, b] = read_operands(call);
    std::string mode = "none";
    if (const auto* m = call.arg("rounding_mode", kKeywordOnly); m && m->kind == graph::Argument::Kind::String) {
        mode = m->string_value;
    }
    if (mode != "none" && mode != "trunc" && mode != "floor") {
        call.fail("div() rounding_mode must be None, 'trunc' or 'floor', got '" + mode + "'");
    }
    if (graph::op_family("aten.floor_divide").contains(call.node().op)) mode = "floor";
    const DType dtype = checked_result_dtype(call, Accepts::Numeric, "div");
    if (mode == "none" && !dtype_is_floating(dtype)) call.fail("true division must give a floating result");
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [&call, floor_mode = mode == "floor", trunc_mode = mode == "trunc"](V x, V y) -> V {
            if constexpr (std::is_floating_point_v<V>) {
                if (floor_mode) return floor_divide_float(x, y);
                return trunc_mode ? std::trunc(x / y) : x / y;
            } else if constexpr (is_integer_v<V>) {
                if (y == 0) divide_by_zero(call);
                return floor_mode ? floor_divide_int(x, y) : truncating_divide(x, y);
            } else {
                return x;
            }
        };
    }, /*scalar_in_opmath=*/mode == "none"));
}

// remainder: the sign of the divisor (Python's %); fmod: the sign of the dividend (C's).
std::vector<RuntimeValue> remainder_like(const KernelCall& call, bool python_sign) {
    const auto [a, b] = read_operands(call, "self", "other");
    const DType dtype = checked_result_dtype(call, Accepts::Numeric, python_sign ? "remainder" : "fmod");
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [&call, python_sign](V x, V y) -> V {
            if constexpr (std::is_floating_point_v<V>) {
                V mod = std::fmod(x, y);
                if (python_sign && mod != 0 && ((y < 0) != (mod < 0))) mod += y;
                return mod;
            } else if constexpr (is_integer_v<V>) {
                if (y == 0) divide_by_zero(call);
                if (python_sign) return remainder_int(x, y);
                if constexpr (std::is_signed_v<V>) {
                    if (y == -1) return 0;
                }
                return static_cast<V>(x % y);
            } else {
                return x;
            }
        };
    }));
}

// ---- pow.

// pow.Tensor_Tensor and pow.Scalar (a number raised to a tensor).
std::vector<RuntimeValue> pow_tensor(const KernelCall& call) {
    const Operand base = read_operand(call, "self", 0);
    const Operand exponent = read_operand(call, "exponent", 1);
    const DType dtype = checked_result_dtype(call, Accepts::Numeric, "pow");
    return single(elementwise_binary(call, base, exponent, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [](V x, V y) -> V {
            if constexpr (std::is_floating_point_v<V>) return std::pow(x, y);
            else if constexpr (is_integer_v<V>) return integer_power(x, y);
            else return x;
        };
    }));
}

// pow.Tensor_Scalar: the exponents PyTorch special-cases are computed its way (x*x, sqrt, ...).
template <typename V>
V float_power(V x, double e) {
    if (e == 0) return V(1);
    if (e == 1) return x;
    if (e == 2) return x * x;
    if (e == 3) return x * x * x;
    if (e == 0.5) return std::sqrt(x);
    if (e == -0.5) return V(1) / std::sqrt(x);
    if (e == -1) return V(1) / x;
    if (e == -2) return V(1) / (x * x);
    return std::pow(x, static_cast<V>(e));
}

std::vector<RuntimeValue> pow_scalar_exponent(const KernelCall& call) {
    const Operand base = read_operand(call, "self", 0);
    const Scalar exponent = call.scalar("exponent", 1);
    const DType dtype = checked_result_dtype(call, Accepts::Numeric, "pow");
    if (!dtype_is_floating(dtype) && scalar_to_int(exponent) < 0) {
        call.fail("Integers to negative integer powers are not allowed (PyTorch raises the same)");
    }
    const Operand unused{std::nullopt, exponent};
    return single(elementwise_binary(call, base, unused, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        const double e = scalar_to_double(exponent);
        const int64_t integer_e = scalar_to_int(exponent);
        return [e, integer_e](V x, V) -> V {
            if constexpr (std::is_floating_point_v<V>) return float_power(x, e);
            else if constexpr (is_integer_v<V>) return integer_power(x, static_cast<V>(integer_e));
            else return x;
        };
    }));
}

// ---- maximum, minimum, atan2, bitwise and logical ops.

std::vector<RuntimeValue> extremum(const KernelCall& call, bool maximum) {
    const auto [a, b] = read_operands(call);
    const DType dtype = checked_result_dtype(call, Accepts::Any, maximum ? "maximum" : "minimum");
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [maximum](V x, V y) -> V {
            if constexpr (std::is_floating_point_v<V>) {  // NaN wins, as in PyTorch
                if (std::isnan(x)) return x;
                if (std::isnan(y)) return y;
            }
            return maximum ? (x < y ? y : x) : (y < x ? y : x);
        };
    }));
}

// clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None): maximum with min, then
// minimum with max, broadcasting all three; NaN anywhere gives NaN.
std::vector<RuntimeValue> clamp_tensor(const KernelCall& call) {
    const Operand self = read_operand(call, "self", 0);
    const bool has_min = call.has("min", 1), has_max = call.has("max", 2);
    if (!has_min && !has_max) call.fail("clamp() needs at least one of min and max");
    const DType dtype = checked_result_dtype(call, Accepts::Numeric, "clamp");
    auto bound = [&](const Operand& x, const Operand& limit, bool lower) {
        return elementwise_binary(call, x, limit, dtype, [&]<typename C>() {
            using V = compute_t<C>;
            return [lower](V v, V b) -> V {
                if constexpr (std::is_floating_point_v<V>) {
                    if (std::isnan(v)) return v;
                    if (std::isnan(b)) return b;
                }
                return lower ? (v < b ? b : v) : (b < v ? b : v);
            };
        });
    };
    Operand result = self;
    if (has_min) result = Operand{bound(result, read_operand(call, "min", 1), true), int64_t{0}};
    if (has_max) result = Operand{bound(result, read_operand(call, "max", 2), false), int64_t{0}};
    return single(*result.tensor);
}

std::vector<RuntimeValue> atan2(const KernelCall& call) {
    const auto [a, b] = read_operands(call);
    const DType dtype = checked_result_dtype(call, Accepts::Numeric, "atan2");
    if (!dtype_is_floating(dtype)) call.fail("atan2 needs a floating result");
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [](V x, V y) -> V {
            if constexpr (std::is_floating_point_v<V>) return std::atan2(x, y);
            else return x;
        };
    }));
}

enum class Bitwise { And, Or, Xor };

std::vector<RuntimeValue> bitwise(const KernelCall& call, Bitwise kind) {
    const auto [a, b] = read_operands(call);
    const DType dtype = checked_result_dtype(call, Accepts::Integral, "bitwise ops");
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [kind](V x, V y) -> V {
            if constexpr (std::is_integral_v<V>) {
                switch (kind) {
                    case Bitwise::And: return static_cast<V>(x & y);
                    case Bitwise::Or: return static_cast<V>(x | y);
                    case Bitwise::Xor: return static_cast<V>(x ^ y);
                }
            }
            return x;
        };
    }));
}

// bitwise_left_shift / bitwise_right_shift (and Python's << and >>), as PyTorch's CPU kernels
// (ATen BinaryOpsKernel.cpp, lshift_kernel and rshift_kernel) define them: a shift count that is
// negative or at least the type's width gives 0 to the left and the sign (all bits of a
// negative number, else 0) to the right, where C++ would be undefined; the left shift is done on
// the unsigned type so it wraps. Integer results only, as PyTorch's dispatch (no bool, no float).
std::vector<RuntimeValue> shift(const KernelCall& call, bool left) {
    const auto [a, b] = read_operands(call);
    const DType dtype = checked_result_dtype(call, Accepts::Integral, left ? "bitwise_left_shift" : "bitwise_right_shift");
    if (dtype == DType::Bool) call.fail("bit shifts do not support bool results (PyTorch has no bool shift)");
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [left](V x, V y) -> V {
            if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>) {
                using U = std::make_unsigned_t<V>;
                using S = std::make_signed_t<V>;
                constexpr int bits = static_cast<int>(sizeof(V) * 8);
                const bool out_of_range = static_cast<S>(y) < 0;
                if (left) {
                    if (out_of_range || static_cast<uint64_t>(y) >= static_cast<uint64_t>(bits)) return V(0);
                    return static_cast<V>(static_cast<U>(static_cast<U>(x) << static_cast<int>(y)));
                }
                constexpr int max_shift = bits - (std::is_signed_v<V> ? 1 : 0);
                if (out_of_range || static_cast<uint64_t>(y) >= static_cast<uint64_t>(max_shift)) {
                    return static_cast<V>(x >> max_shift);
                }
                return static_cast<V>(x >> static_cast<int>(y));
            }
            return x;
        };
    }));
}

// logical_and/or/xor: any dtypes, truth is "not zero"; the result is bool.
std::vector<RuntimeValue> logical(const KernelCall& call, Bitwise kind) {
    const auto [a, b] = read_operands(call);
    return single(elementwise_binary(call, a, b, DType::Bool, [&]<typename C>() {
        using V = compute_t<C>;
        return [kind](V x, V y) -> bool {
            const bool p = x != V(0), q = y != V(0);
            return kind == Bitwise::And ? (p && q) : kind == Bitwise::Or ? (p || q) : (p != q);
        };
    }));
}

// ---- logaddexp, addcmul, glu.

// logaddexp(self, other) = log(exp(a) + exp(b)) as PyTorch's CPU kernel computes it: equal
// infinities give that infinity, anything else max(a, b) + log1p(exp(-|a - b|)) (NaN stays NaN).
// f16/bf16 compute in float.
std::vector<RuntimeValue> logaddexp(const KernelCall& call) {
    const auto [a, b] = read_operands(call);
    const DType dtype = checked_result_dtype(call, Accepts::Numeric, "logaddexp");
    if (!dtype_is_floating(dtype)) call.fail("logaddexp needs a floating result (PyTorch has no integer logaddexp)");
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [](V x, V y) -> V {
            if constexpr (std::is_floating_point_v<V>) {
                if (std::isinf(x) && x == y) return x;
                const V m = std::isnan(x) || std::isnan(y) ? x + y : std::max(x, y);
                return m + std::log1p(std::exp(-std::abs(x - y)));
            } else {
                return x;
            }
        };
    }));
}

// addcmul(self, tensor1, tensor2, *, value=1) = self + value * tensor1 * tensor2, multiplied in
// that order and without a fused multiply-add, as PyTorch's CPU kernel; f16/bf16 in float with
// value not rounded to the type; integers wrap.
std::vector<RuntimeValue> addcmul(const KernelCall& call) {
    const Operand self = read_operand(call, "self", 0);
    const Operand first = read_operand(call, "tensor1", 1);
    const Operand second = read_operand(call, "tensor2", 2);
    const Scalar value = call.has("value", kKeywordOnly) ? call.scalar("value", kKeywordOnly) : Scalar{int64_t{1}};
    const DType dtype = checked_result_dtype(call, Accepts::Numeric, "addcmul");
    if (!dtype_is_floating(dtype) && scalar_is_floating(value)) {
        call.fail("for integral input tensors, argument value must not be a floating point number (PyTorch raises the same)");
    }
    const auto sizes = broadcast_shapes(call, broadcast_shapes(call, self.sizes(), first.sizes()), second.sizes());
    StridedTensor out = allocate_output_for_overwrite(call, 0, sizes, dtype);  // written whole below
    const StridedTensor x = broadcast_to(call, self.as_dtype(dtype), sizes);
    const StridedTensor y = broadcast_to(call, first.as_dtype(dtype), sizes);
    const StridedTensor z = broadcast_to(call, second.as_dtype(dtype), sizes);
    visit_dtype(dtype, [&]<typename C>() {
        using V = compute_t<C>;
        if constexpr (is_integer_v<C>) {
            const auto v = static_cast<V>(scalar_to_int(value));
            map_elements<C, C, C, C>(out, {&x, &y, &z}, [v](V s, V t1, V t2) -> V { return wrap_add(s, wrap_mul(wrap_mul(v, t1), t2)); });
        } else if constexpr (std::is_floating_point_v<V>) {
            const auto v = static_cast<V>(scalar_to_double(value));
            map_elements<C, C, C, C>(out, {&x, &y, &z}, [v](V s, V t1, V t2) -> V { return s + v * t1 * t2; });
        }
    });
    return single(std::move(out));
}

// glu(self, dim=-1) = a * sigmoid(b) of self's two halves along dim, as PyTorch's CPU kernel:
// a * (1 / (1 + exp(-b))), f16/bf16 in float.
std::vector<RuntimeValue> glu(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("glu does not support scalars because halving size must be even");
    if (!dtype_is_floating(self.dtype)) call.fail("glu needs a floating input, got " + std::string(dtype_name(self.dtype)));
    const auto dim = static_cast<size_t>(normalize_dim(call, call.int_arg("dim", 1, -1), static_cast<int64_t>(self.rank())));
    if (self.sizes[dim] % 2 != 0) {
        call.fail("Halving dimension must be even, but dimension " + std::to_string(dim) + " is size " + std::to_string(self.sizes[dim]));
    }
    std::vector<int64_t> sizes = self.sizes;
    sizes[dim] /= 2;
    const StridedTensor a = self.view(sizes, self.strides);
    const StridedTensor b = self.view(sizes, self.strides, sizes[dim] * self.strides[dim]);
    StridedTensor out = allocate_output_for_overwrite(call, 0, sizes, self.dtype);  // written whole below
    visit_floating(self.dtype, [&]<typename C>() {
        using V = compute_t<C>;
        map_elements<C, C, C>(out, {&a, &b}, [](V x, V y) -> V { return x * (V(1) / (V(1) + std::exp(-y))); });
    });
    return single(std::move(out));
}

// self's sizes with dim halved.
std::optional<std::vector<ExpectedSizes>> glu_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    if (self->empty()) query.contradiction("glu halves a dim of a 0-dim tensor");
    const auto dim = query.int_arg("dim", 1);
    ExpectedSizes out = *self;
    auto& size = out[static_cast<size_t>(wrap_dim(query, dim.value_or(-1), static_cast<int64_t>(out.size())))];
    if (size && *size % 2 != 0) query.contradiction("glu halves a dim of odd size " + std::to_string(*size));
    if (size) size = *size / 2;
    return std::vector<ExpectedSizes>{out};
}

// Every kernel here is elementwise: its outputs have the broadcast sizes of its tensor arguments.
PT2OV_FILE_SHAPE_CONTRACT(elementwise_shape);

PT2OV_KERNEL("aten.add.Tensor", add);
PT2OV_KERNEL("aten.add.Scalar", add);
PT2OV_KERNEL("aten.sub.Tensor", sub);
PT2OV_KERNEL("aten.sub.Scalar", sub);
PT2OV_KERNEL("aten.rsub.Tensor", rsub);
PT2OV_KERNEL("aten.rsub.Scalar", rsub);
PT2OV_KERNEL("aten.mul.Tensor", mul);
PT2OV_KERNEL("aten.mul.Scalar", mul);
PT2OV_KERNEL("aten.div.Tensor", div);
PT2OV_KERNEL("aten.div.Scalar", div);
PT2OV_KERNEL("aten.div.Tensor_mode", div);
PT2OV_KERNEL("aten.div.Scalar_mode", div);
PT2OV_KERNEL("aten.floor_divide.default", div);
PT2OV_KERNEL("aten.floor_divide.Scalar", div);
PT2OV_KERNEL("aten.remainder.Tensor", [](const KernelCall& c) { return remainder_like(c, true); });
PT2OV_KERNEL("aten.remainder.Scalar", [](const KernelCall& c) { return remainder_like(c, true); });
PT2OV_KERNEL("aten.remainder.Scalar_Tensor", [](const KernelCall& c) { return remainder_like(c, true); });
PT2OV_KERNEL("aten.fmod.Tensor", [](const KernelCall& c) { return remainder_like(c, false); });
PT2OV_KERNEL("aten.fmod.Scalar", [](const KernelCall& c) { return remainder_like(c, false); });
PT2OV_KERNEL("aten.pow.Tensor_Tensor", pow_tensor);
PT2OV_KERNEL("aten.pow.Scalar", pow_tensor);
PT2OV_KERNEL("aten.pow.Tensor_Scalar", pow_scalar_exponent);
PT2OV_KERNEL("aten.maximum.default", [](const KernelCall& c) { return extremum(c, true); });
PT2OV_KERNEL("aten.minimum.default", [](const KernelCall& c) { return extremum(c, false); });
PT2OV_KERNEL("aten.atan2.default", atan2);
PT2OV_KERNEL("aten.clamp.Tensor", clamp_tensor);
PT2OV_KERNEL("aten.bitwise_and.Tensor", [](const KernelCall& c) { return bitwise(c, Bitwise::And); });
PT2OV_KERNEL("aten.bitwise_and.Scalar", [](const KernelCall& c) { return bitwise(c, Bitwise::And); });
PT2OV_KERNEL("aten.bitwise_or.Tensor", [](const KernelCall& c) { return bitwise(c, Bitwise::Or); });
PT2OV_KERNEL("aten.bitwise_or.Scalar", [](const KernelCall& c) { return bitwise(c, Bitwise::Or); });
PT2OV_KERNEL("aten.bitwise_xor.Tensor", [](const KernelCall& c) { return bitwise(c, Bitwise::Xor); });
PT2OV_KERNEL("aten.bitwise_xor.Scalar", [](const KernelCall& c) { return bitwise(c, Bitwise::Xor); });
// Python's &, |, ^ on tensors, as training-IR archives keep them.
PT2OV_KERNEL("aten.__and__.Tensor", [](const KernelCall& c) { return bitwise(c, Bitwise::And); });
PT2OV_KERNEL("aten.__and__.Scalar", [](const KernelCall& c) { return bitwise(c, Bitwise::And); });
PT2OV_KERNEL("aten.__or__.Tensor", [](const KernelCall& c) { return bitwise(c, Bitwise::Or); });
PT2OV_KERNEL("aten.__or__.Scalar", [](const KernelCall& c) { return bitwise(c, Bitwise::Or); });
PT2OV_KERNEL("aten.__xor__.Tensor", [](const KernelCall& c) { return bitwise(c, Bitwise::Xor); });
PT2OV_KERNEL("aten.__xor__.Scalar", [](const KernelCall& c) { return bitwise(c, Bitwise::Xor); });
// Bit shifts: OpenVINO's FX op table converts none of them.
PT2OV_KERNEL("aten.bitwise_left_shift.Tensor", [](const KernelCall& c) { return shift(c, true); });
PT2OV_KERNEL("aten.bitwise_left_shift.Tensor_Scalar", [](const KernelCall& c) { return shift(c, true); });
PT2OV_KERNEL("aten.bitwise_left_shift.Scalar_Tensor", [](const KernelCall& c) { return shift(c, true); });
PT2OV_KERNEL("aten.bitwise_right_shift.Tensor", [](const KernelCall& c) { return shift(c, false); });
PT2OV_KERNEL("aten.bitwise_right_shift.Tensor_Scalar", [](const KernelCall& c) { return shift(c, false); });
PT2OV_KERNEL("aten.bitwise_right_shift.Scalar_Tensor", [](const KernelCall& c) { return shift(c, false); });
PT2OV_KERNEL("aten.__lshift__.Tensor", [](const KernelCall& c) { return shift(c, true); });
PT2OV_KERNEL("aten.__lshift__.Scalar", [](const KernelCall& c) { return shift(c, true); });
PT2OV_KERNEL("aten.__rshift__.Tensor", [](const KernelCall& c) { return shift(c, false); });
PT2OV_KERNEL("aten.__rshift__.Scalar", [](const KernelCall& c) { return shift(c, false); });
PT2OV_KERNEL("aten.logaddexp.default", logaddexp);
PT2OV_KERNEL("aten.addcmul.default", addcmul);
PT2OV_KERNEL("aten.glu.default", glu, glu_shape);
PT2OV_KERNEL("aten.logical_and.default", [](const KernelCall& c) { return logical(c, Bitwise::And); });
PT2OV_KERNEL("aten.logical_or.default", [](const KernelCall& c) { return logical(c, Bitwise::Or); });
PT2OV_KERNEL("aten.logical_xor.default", [](const KernelCall& c) { return logical(c, Bitwise::Xor); });

}  // namespace
}  // namespace pt2ov::kernels
