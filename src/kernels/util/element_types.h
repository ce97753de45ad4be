// Element types as C++ types (16-bit floats stored as bits, computed as float) and
// PyTorch's conversions between them.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/bfloat16.h"
#include "kernels/tensor.h"
#include "pt2ov/error.h"

namespace pt2ov::kernels {

// ---- 16-bit floats -------------------------------------------------------------------------
// Stored as their bits; computed on as float (PyTorch's "opmath" for f16 and bf16).

struct Half {
    uint16_t bits;
};
struct BFloat16 {
    uint16_t bits;
};

// Round to nearest even, subnormals kept, overflow to inf; NaN stays NaN (quiet, sign and
// the top payload bits kept, as x86's F16C conversion does).
uint16_t float_to_half_bits(float value);
float half_bits_to_float(uint16_t bits);
// Round to nearest even; NaN becomes 0x7FC0, as c10::BFloat16 does (common/bfloat16.h).
using pt2ov::bfloat16_bits_to_float;
using pt2ov::float_to_bfloat16_bits;

// ---- Element types -------------------------------------------------------------------------

template <typename T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_reduced_float_v<T>;
template <typename T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type a kernel computes in for elements stored as T.
template <typename T>
struct ComputeTypeOf {
    using type = T;
};
template <>
struct ComputeTypeOf<Half> {
    using type = float;
};
template <>
struct ComputeTypeOf<BFloat16> {
    using type = float;
};
template <typename T>
using compute_t = typename ComputeTypeOf<T>::type;

template <typename T>
inline compute_t<T> load(const std::byte* p) {
    if constexpr (std::is_same_v<T, bool>) {
        return *reinterpret_cast<const uint8_t*>(p) != 0;  // any non-zero byte is true
    } else if constexpr (std::is_same_v<T, Half>) {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        return half_bits_to_float(bits);
    } else if constexpr (std::is_same_v<T, BFloat16>) {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        return bfloat16_bits_to_float(bits);
    } else {
        T value;
        std::memcpy(&value, p, sizeof(T));
        return value;
    }
}

template <typename T>
inline void store(std::byte* p, compute_t<T> value) {
    if constexpr (std::is_same_v<T, bool>) {
        *reinterpret_cast<uint8_t*>(p) = value ? 1 : 0;
    } else if constexpr (std::is_same_v<T, Half>) {
        const uint16_t bits = float_to_half_bits(value);
        std::memcpy(p, &bits, 2);
    } else if constexpr (std::is_same_v<T, BFloat16>) {
        const uint16_t bits = float_to_bfloat16_bits(value);
        std::memcpy(p, &bits, 2);
    } else {
        std::memcpy(p, &value, sizeof(T));
    }
}

// Float to integer as PyTorch's CPU casts do on x86: int64 and uint8 go through a 64-bit
// truncation, the other integers through a 32-bit one; NaN and out-of-range values give
// the "integer indefinite" (the minimum) of that width, then wrap to the target.
template <typename To>
To float_to_integer(double value) {
    auto truncate64 = [](double v) -> int64_t {
        if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return std::numeric_limits<int64_t>::min();
        return static_cast<int64_t>(v);
    };
    auto truncate32 = [](double v) -> int32_t {
        if (!(v > -2147483649.0 && v < 2147483648.0)) return std::numeric_limits<int32_t>::min();
        return static_cast<int32_t>(v);
    };
    if constexpr (std::is_same_v<To, int64_t> || std::is_same_v<To, uint8_t>) {
        return static_cast<To>(truncate64(value));
    } else {
        return static_cast<To>(truncate32(value));
    }
}

// Converts a computed value (bool, an integer, float or double) to element type `To` as
// PyTorch's cast does, returning it in To's compute type. For f16/bf16 the value is rounded
// to that type (so the result is exactly what storing and loading it again gives).
template <typename To, typename From>
inline compute_t<To> cast(From value) {
    static_assert(!is_reduced_float_v<From>, "cast from the compute type (float), not from Half/BFloat16");
    if constexpr (std::is_same_v<To, bool>) {
        return value != From(0);
    } else if constexpr (is_integer_v<To>) {
        if constexpr (std::is_floating_point_v<From>) {
            return float_to_integer<To>(static_cast<double>(value));
        } else {
            return static_cast<To>(value);  // integers wrap (C++20 defines it)
        }
    } else if constexpr (std::is_same_v<To, Half>) {
        // PyTorch goes through float: double and int64 values are rounded twice, as here.
        return half_bits_to_float(float_to_half_bits(static_cast<float>(value)));
    } else if constexpr (std::is_same_v<To, BFloat16>) {
        return bfloat16_bits_to_float(float_to_bfloat16_bits(static_cast<float>(value)));
    } else {
        return static_cast<To>(value);
    }
}

}  // namespace pt2ov::kernels
