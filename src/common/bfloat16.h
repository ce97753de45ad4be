// bfloat16 to and from float: the one conversion pt2ov has. The CPU kernels store bf16 results
// through it, and the .npz tools carry bf16 tensors as float32 through it. Header-only, so the
// tools (which link no engine internals) use the same code.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>

namespace pt2ov {

// Round to nearest, ties to the even bf16; past the largest finite bf16 by half an ulp or more,
// infinity; subnormals and -0.0 kept. NaN becomes 0x7FC0, the quiet NaN c10::BFloat16 gives.
constexpr uint16_t float_to_bfloat16_bits(float value) noexcept {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    const uint32_t rounding_bias = 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>((bits + rounding_bias) >> 16);
}

// Exact for every bf16, NaN payloads included: its bits become the float's top 16.
constexpr float bfloat16_bits_to_float(uint16_t bits) noexcept {
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

// The bf16 whose float is `value` bit for bit (the float's low 16 bits are zero; sign and any
// NaN payload kept), or nothing when bf16 cannot hold it without rounding.
constexpr std::optional<uint16_t> bfloat16_bits_if_exact(float value) noexcept {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if ((bits & 0xffffu) != 0) return std::nullopt;
    return static_cast<uint16_t>(bits >> 16);
}

}  // namespace pt2ov
