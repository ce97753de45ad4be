// CPU kernels (src/kernels/): StridedTensor, copy_into over every dtype pair, the registry and
// KernelCall, and kernels run through find_kernel on hand-built nodes with non-contiguous
// inputs. Expected values are computed here from first principles (definitions of the
// conversions, plain loops), never copied from PyTorch.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../fixtures/kernel_harness.h"
#include "graph/graph.h"
#include "kernels/dispatch.h"
#include "kernels/registry.h"
#include "kernels/tensor.h"
#include "pt2ov/error.h"

namespace {

using pt2ov::DType;
using pt2ov::graph::Argument;
using pt2ov::graph::NamedArgument;
using namespace pt2ov::kernels;
using Kind = Argument::Kind;

using pt2ov::test::all_indices;
using pt2ov::test::element_at;
using pt2ov::test::floats;
using pt2ov::test::get;
using pt2ov::test::keyword;
using pt2ov::test::KernelHarness;
using pt2ov::test::positional;
using pt2ov::test::set;
using pt2ov::test::tensor_of;
using pt2ov::test::transposed;
using pt2ov::test::values_of;

using pt2ov::graph::bool_arg;
using pt2ov::graph::dtype_arg;
using pt2ov::graph::float_arg;
using pt2ov::graph::int_arg;
using pt2ov::graph::ints_arg;
using pt2ov::graph::list_arg;
using pt2ov::graph::memory_format_arg;
using pt2ov::graph::none_arg;
using pt2ov::graph::string_arg;
using pt2ov::graph::symint_arg;
using pt2ov::graph::tensor_arg;

const DType kAllDTypes[] = {DType::Bool,  DType::UInt8,    DType::Int8,    DType::Int16,
                            DType::UInt16, DType::Int32,   DType::Int64,   DType::Float16,
                            DType::BFloat16, DType::Float32, DType::Float64};

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

// ---------------------------------------------------------------------------------------------
// 16-bit floats against their definition: the representable value nearest to x, ties to the
// even significand; past the largest finite value by half an ulp or more, infinity.

// Every finite non-negative value of a 16-bit format, ascending with its bits.
std::vector<std::pair<double, uint16_t>> positive_values(bool half) {
    std::vector<std::pair<double, uint16_t>> result;
    const int mantissa_bits = half ? 10 : 7;
    const int exponent_bits = half ? 5 : 8;
    const int bias = (1 << (exponent_bits - 1)) - 1;
    for (uint32_t b = 0; b < (1u << 15); ++b) {
        const uint32_t exponent = b >> mantissa_bits;
        const uint32_t mantissa = b & ((1u << mantissa_bits) - 1);
        if (exponent == (1u << exponent_bits) - 1) continue;  // inf and NaN
        const double significand = exponent == 0 ? mantissa : mantissa + std::ldexp(1.0, mantissa_bits);
        const int scale = (exponent == 0 ? 1 : static_cast<int>(exponent)) - bias - mantissa_bits;
        result.push_back({std::ldexp(significand, scale), static_cast<uint16_t>(b)});
    }
    return result;
}

uint16_t nearest_by_definition(double x, bool half) {
    static const auto half_values = positive_values(true);
    static const auto bf16_values = positive_values(false);
    const auto& values = half ? half_values : bf16_values;
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const uint16_t inf = half ? 0x7c00 : 0x7f80;
    const double magnitude = std::fabs(x);
    const double largest = values.back().first;
    const double ulp_at_top = largest - values[values.size() - 2].first;
    if (magnitude >= largest + ulp_at_top / 2) return sign | inf;  // the tie at the top goes to inf (even)
    auto above = std::lower_bound(values.begin(), values.end(), magnitude,
                                  [](const auto& v, double m) { return v.first < m; });
    if (above == values.end()) return sign | values.back().second;
    if (above->first == magnitude || above == values.begin()) return sign | above->second;
    const auto below = above - 1;
    const double down = magnitude - below->first, up = above->first - magnitude;
    if (down < up) return sign | below->second;
    if (up < down) return sign | above->second;
    return sign | ((below->second & 1) ? above->second : below->second);
}

TEST(KernelHalf, EveryHalfRoundTripsThroughFloat) {
    for (uint32_t b = 0; b < 0x10000; ++b) {
        const auto h = static_cast<uint16_t>(b);
        const float f = half_bits_to_float(h);
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
            EXPECT_TRUE(std::isnan(f)) << std::hex << h;
            EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(f)))) << std::hex << h;
            continue;
        }
        EXPECT_EQ(float_to_half_bits(f), h) << std::hex << h;
        if ((h & 0x7fff) == 0x7c00) EXPECT_TRUE(std::isinf(f));
    }
    EXPECT_EQ(half_bits_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
    EXPECT_EQ(half_bits_to_float(0x03ff), std::ldexp(1023.0f, -24));
    EXPECT_EQ(half_bits_to_float(0x7bff), 65504.0f);
    EXPECT_EQ(bits(half_bits_to_float(0x8000)), bits(-0.0f));
}

TEST(KernelHalf, FloatToHalfRoundsToNearestEven) {
    // Every half value, the midpoints to its neighbours, and a float either side of them.
    const auto values = positive_values(true);
    std::vector<float> probes;
    for (size_t i = 0; i + 1 < values.size(); ++i) {
        const auto mid = static_cast<float>((values[i].first + values[i + 1].first) / 2);  // exact in float
        probes.insert(probes.end(), {static_cast<float>(values[i].first), mid, std::nextafter(mid, 0.0f),
                                     std::nextafter(mid, INFINITY)});
    }
    probes.insert(probes.end(), {65504.0f, 65519.996f, 65520.0f, 65536.0f, 1e10f, INFINITY, std::ldexp(1.0f, -25),
                                 std::nextafter(std::ldexp(1.0f, -25), INFINITY), 1e-30f, 1e-45f, 0.0f});
    std::mt19937 rng(7);
    std::uniform_int_distribution<uint32_t> any_bits;
    for (int i = 0; i < 20000; ++i) {
        const float f = std::bit_cast<float>(any_bits(rng) & 0x7fffffffu);
        if (!std::isnan(f)) probes.push_back(f);
    }
    for (float f : probes) {
        for (float signed_f : {f, -f}) {
            ASSERT_EQ(float_to_half_bits(signed_f), nearest_by_definition(signed_f, true))
                << "float " << signed_f << " (bits " << std::hex << bits(signed_f) << ")";
        }
    }
}

TEST(KernelHalf, NaNStaysNaNAndQuiet) {
    for (uint32_t payload : {0x7fc00000u, 0x7f800001u, 0xffc00001u, 0x7fffffffu}) {
        const uint16_t h = float_to_half_bits(std::bit_cast<float>(payload));
        EXPECT_EQ(h & 0x7e00, 0x7e00) << std::hex << payload;                   // a quiet NaN
        EXPECT_EQ(h & 0x8000, (payload >> 16) & 0x8000) << std::hex << payload;  // sign kept
        const uint16_t b = float_to_bfloat16_bits(std::bit_cast<float>(payload));
        EXPECT_TRUE(std::isnan(bfloat16_bits_to_float(b)));
    }
}

TEST(KernelBFloat16, FloatToBFloat16RoundsToNearestEven) {
    const auto values = positive_values(false);
    std::vector<float> probes;
    for (size_t i = 0; i + 1 < values.size(); i += 7) {
        const auto mid = static_cast<float>((values[i].first + values[i + 1].first) / 2);
        probes.insert(probes.end(), {static_cast<float>(values[i].first), mid, std::nextafter(mid, 0.0f),
                                     std::nextafter(mid, INFINITY)});
    }
    std::mt19937 rng(11);
    std::uniform_int_distribution<uint32_t> any_bits;
    for (int i = 0; i < 20000; ++i) {
        const float f = std::bit_cast<float>(any_bits(rng) & 0x7fffffffu);
        if (!std::isnan(f) && !std::isinf(f)) probes.push_back(f);
    }
    probes.push_back(std::numeric_limits<float>::max());  // rounds up past the largest bf16
    for (float f : probes) {
        for (float signed_f : {f, -f}) {
            ASSERT_EQ(float_to_bfloat16_bits(signed_f), nearest_by_definition(signed_f, false))
                << "float " << signed_f << " (bits " << std::hex << bits(signed_f) << ")";
        }
    }
    for (uint32_t b = 0; b < 0x10000; ++b) {  // every bf16 is a float with 16 zero bits below
        const float f = bfloat16_bits_to_float(static_cast<uint16_t>(b));
        EXPECT_EQ(bits(f), b << 16);
    }
}

// ---------------------------------------------------------------------------------------------
// StridedTensor

TEST(KernelStridedTensor, AllocateIsAlignedZeroedAndRowMajor) {
    const StridedTensor t = StridedTensor::allocate(DType::Int32, {2, 3, 4});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data) % 64, 0u);
    EXPECT_EQ(t.strides, (std::vector<int64_t>{12, 4, 1}));
    EXPECT_EQ(t.numel(), 24);
    EXPECT_TRUE(t.is_contiguous());
    for (int32_t v : values_of<int32_t>(t)) EXPECT_EQ(v, 0);
    EXPECT_EQ(contiguous_strides({2, 0, 3}), (std::vector<int64_t>{3, 3, 1}));
    const StridedTensor empty = StridedTensor::allocate(DType::Float32, {0, 5});
    EXPECT_EQ(empty.numel(), 0);
    EXPECT_NE(empty.data, nullptr);
}

TEST(KernelStridedTensor, AllocateInOrderGivesChannelsLastStrides) {
    const StridedTensor t = StridedTensor::allocate_in_order(DType::Float32, {2, 3, 4, 5}, {0, 2, 3, 1});
    EXPECT_EQ(t.strides, (std::vector<int64_t>{60, 1, 15, 3}));
    EXPECT_FALSE(t.is_contiguous());
    const StridedTensor t5 = StridedTensor::allocate_in_order(DType::Float32, {2, 3, 4, 5, 6}, {0, 2, 3, 4, 1});
    EXPECT_EQ(t5.strides, (std::vector<int64_t>{360, 1, 90, 18, 3}));
    EXPECT_THROW(StridedTensor::allocate_in_order(DType::Float32, {2, 3}, {0, 0}), pt2ov::Error);
}

TEST(KernelStridedTensor, ViewSharesMemoryAndOwner) {
    const StridedTensor t = floats({2, 3}, {0, 1, 2, 3, 4, 5});
    const StridedTensor v = t.view({3}, {1}, 3);
    EXPECT_EQ(v.owner, t.owner);
    EXPECT_EQ(values_of<float>(v), (std::vector<float>{3, 4, 5}));
    set<float>(v, {0}, 42.0f);
    EXPECT_EQ(get<float>(t, {1, 0}), 42.0f);
    EXPECT_FALSE(transposed(t, 0, 1).is_contiguous());
    EXPECT_TRUE(t.view({2, 1, 3}, {3, 99, 1}).is_contiguous());  // size-1 dims do not count
}

TEST(KernelRuntimeValue, AccessorsThrowOnTheWrongKind) {
    const RuntimeValue number = RuntimeValue::of(Scalar{int64_t{3}});
    const RuntimeValue tensor = RuntimeValue::of(floats({1}, {1}));
    const RuntimeValue nothing;
    EXPECT_THROW(number.tensor(), pt2ov::Error);
    EXPECT_THROW(tensor.scalar(), pt2ov::Error);
    EXPECT_THROW(nothing.tensor(), pt2ov::Error);
    EXPECT_THROW(nothing.scalar(), pt2ov::Error);
    EXPECT_EQ(std::get<int64_t>(number.scalar()), 3);
    EXPECT_EQ(tensor.tensor().numel(), 1);
}

// ---------------------------------------------------------------------------------------------
// copy_into: every dtype pair.

// Values in double that every dtype's test below draws from.
const std::vector<double> kSamples = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.9, -1.9, 2.5, 100.0, 127.0, 128.0, 255.0,
                                      256.0, -129.0, 300.7, -300.7, 32767.0, 32768.0, 65504.0, 65535.0, 70000.2,
                                      2147483647.0, 2147483649.0, 3e9, -3e9, 1e20, -1e20};

// What PyTorch's cast gives, by its definition (dispatch.h): through float for f16/bf16,
// truncation toward zero for float→int (64-bit for int64 and uint8, 32-bit for the others,
// out of range giving that width's minimum), modular wrap between integers, != 0 for bool.
int64_t float_to_int64_rule(double v) {
    if (std::isnan(v) || v >= 9223372036854775808.0 || v < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(std::trunc(v));
}
int32_t float_to_int32_rule(double v) {
    if (std::isnan(v) || v >= 2147483648.0 || v <= -2147483649.0) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(std::trunc(v));
}

TEST(KernelCopyInto, EqualDTypesCopyBitsExactly) {
    std::mt19937 rng(3);
    for (DType dtype : kAllDTypes) {
        const size_t element = pt2ov::dtype_size(dtype);
        StridedTensor source = StridedTensor::allocate(dtype, {3, 5});
        for (int64_t i = 0; i < 15 * static_cast<int64_t>(element); ++i) {
            source.data[i] = static_cast<std::byte>(dtype == DType::Bool ? (rng() & 1) : rng());
        }
        if (dtype == DType::Float32) {  // NaN payloads, -0.0 and subnormals must survive
            set<uint32_t>(source, {0, 0}, 0x7fa00001u);
            set<uint32_t>(source, {0, 1}, 0x80000000u);
            set<uint32_t>(source, {0, 2}, 0x00000001u);
        }
        // Into a transposed destination, and back out of it.
        StridedTensor destination = transposed(StridedTensor::allocate(dtype, {5, 3}), 0, 1);
        copy_into(source, destination);
        for (const auto& index : all_indices(source.sizes)) {
            EXPECT_EQ(std::memcmp(element_at(source, index), element_at(destination, index), element), 0)
                << pt2ov::dtype_name(dtype);
        }
        StridedTensor back = StridedTensor::allocate(dtype, {3, 5});
        copy_into(destination, back);
        EXPECT_EQ(std::memcmp(back.data, source.data, 15 * element), 0) << pt2ov::dtype_name(dtype);
    }
}

TEST(KernelCopyInto, IntegersWrapAndExtend) {
    const std::vector<int64_t> values = {0, 1, -1, 127, 128, 255, 256, -129, 32767, 32768, 65535, 65536,
                                         2147483647, 2147483648LL, (1LL << 40) + 5, -(1LL << 40) - 5,
                                         std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    const StridedTensor source = tensor_of(DType::Int64, {static_cast<int64_t>(values.size())}, values);
    auto check = [&]<typename T>(DType dtype) {
        StridedTensor out = StridedTensor::allocate(dtype, source.sizes);
        copy_into(source, out);
        const auto got = values_of<T>(out);
        for (size_t i = 0; i < values.size(); ++i) {
            // Two's complement wrap: the value modulo 2^bits, read back as T.
            const uint64_t modulus_mask = sizeof(T) == 8 ? ~uint64_t{0} : ((uint64_t{1} << (8 * sizeof(T))) - 1);
            uint64_t low = static_cast<uint64_t>(values[i]) & modulus_mask;
            int64_t expected = static_cast<int64_t>(low);
            if (std::is_signed_v<T> && sizeof(T) < 8 && (low >> (8 * sizeof(T) - 1))) {
                expected = static_cast<int64_t>(low) - (int64_t{1} << (8 * sizeof(T)));
            }
            EXPECT_EQ(static_cast<int64_t>(got[i]), expected) << pt2ov::dtype_name(dtype) << " from " << values[i];
        }
        // And back to int64: sign extension for signed types, zero extension for unsigned.
        StridedTensor wide = StridedTensor::allocate(DType::Int64, source.sizes);
        copy_into(out, wide);
        const auto widened = values_of<int64_t>(wide);
        for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(widened[i], static_cast<int64_t>(got[i]));
    };
    check.template operator()<uint8_t>(DType::UInt8);
    check.template operator()<int8_t>(DType::Int8);
    check.template operator()<int16_t>(DType::Int16);
    check.template operator()<uint16_t>(DType::UInt16);
    check.template operator()<int32_t>(DType::Int32);
    check.template operator()<int64_t>(DType::Int64);
}

TEST(KernelCopyInto, FloatsToIntegersTruncateLikePyTorch) {
    std::vector<double> values = kSamples;
    values.insert(values.end(), {NAN, INFINITY, -INFINITY, 2147483647.9, -2147483648.5, 9.3e18, 1e19});
    const StridedTensor source = tensor_of(DType::Float64, {static_cast<int64_t>(values.size())}, values);
    auto check = [&]<typename T>(DType dtype) {
        StridedTensor out = StridedTensor::allocate(dtype, source.sizes);
        copy_into(source, out);
        const auto got = values_of<T>(out);
        for (size_t i = 0; i < values.size(); ++i) {
            const bool via_64 = sizeof(T) == 8 || std::is_same_v<T, uint8_t>;
            const int64_t wide = via_64 ? float_to_int64_rule(values[i]) : float_to_int32_rule(values[i]);
            EXPECT_EQ(got[i], static_cast<T>(wide)) << pt2ov::dtype_name(dtype) << " from " << values[i];
        }
    };
    check.template operator()<uint8_t>(DType::UInt8);
    check.template operator()<int8_t>(DType::Int8);
    check.template operator()<int16_t>(DType::Int16);
    check.template operator()<uint16_t>(DType::UInt16);
    check.template operator()<int32_t>(DType::Int32);
    check.template operator()<int64_t>(DType::Int64);
    // The same from float32, whose values are the samples rounded to float.
    StridedTensor narrow = StridedTensor::allocate(DType::Float32, source.sizes);
    copy_into(source, narrow);
    StridedTensor out = StridedTensor::allocate(DType::Int64, source.sizes);
    copy_into(narrow, out);
    const auto narrowed = values_of<float>(narrow);
    const auto got = values_of<int64_t>(out);
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(got[i], float_to_int64_rule(narrowed[i]));
}

TEST(KernelCopyInto, BoolIsNonZero) {
    for (DType from : kAllDTypes) {
        // 0, -0.0, NaN, 2 (or 1 where 2 does not exist) in the source dtype.
        StridedTensor f64 = tensor_of(DType::Float64, {4}, std::vector<double>{0.0, -0.0, NAN, 2.0});
        StridedTensor source = StridedTensor::allocate(from, {4});
        copy_into(f64, source);
        StridedTensor out = StridedTensor::allocate(DType::Bool, {4});
        copy_into(source, out);
        const auto got = values_of<uint8_t>(out);
        const bool floating = pt2ov::dtype_is_floating(from);
        // NaN → int is the minimum of the width (non-zero) except where that wraps to 0.
        EXPECT_EQ(got[0], 0) << pt2ov::dtype_name(from);
        EXPECT_EQ(got[1], 0) << pt2ov::dtype_name(from);
        if (floating) EXPECT_EQ(got[2], 1) << pt2ov::dtype_name(from);
        EXPECT_EQ(got[3], 1) << pt2ov::dtype_name(from);
    }
    // bool → every dtype is 0 or 1.
    const StridedTensor truth = tensor_of(DType::Bool, {2}, std::vector<uint8_t>{0, 1});
    for (DType to : kAllDTypes) {
        StridedTensor out = StridedTensor::allocate(to, {2});
        copy_into(truth, out);
        StridedTensor back = StridedTensor::allocate(DType::Float64, {2});
        copy_into(out, back);
        EXPECT_EQ(values_of<double>(back), (std::vector<double>{0.0, 1.0})) << pt2ov::dtype_name(to);
    }
}

TEST(KernelCopyInto, FloatConversionsRoundToNearestEven) {
    // f64 → f32: correctly rounded by the hardware; overflow to inf; subnormals kept.
    const std::vector<double> wide = {1.0 + std::ldexp(1.0, -24), 1.0 + std::ldexp(3.0, -24), 1e39, -1e39, 1e-40, -0.0};
    StridedTensor source = tensor_of(DType::Float64, {6}, wide);
    StridedTensor f32 = StridedTensor::allocate(DType::Float32, {6});
    copy_into(source, f32);
    const auto got = values_of<float>(f32);
    EXPECT_EQ(got[0], 1.0f);                               // a tie, to even
    EXPECT_EQ(got[1], 1.0f + std::ldexp(1.0f, -22));       // a tie, to even (up)
    EXPECT_EQ(got[2], INFINITY);
    EXPECT_EQ(got[3], -INFINITY);
    EXPECT_EQ(got[4], static_cast<float>(1e-40));          // a float subnormal
    EXPECT_GT(got[4], 0.0f);
    EXPECT_EQ(bits(got[5]), bits(-0.0f));

    // f64 → f16 goes through float, so it can round twice, as PyTorch does:
    // 1 + 2^-11 + 2^-40 → float 1 + 2^-11 (a half tie) → 1.0.
    StridedTensor twice = tensor_of(DType::Float64, {1}, std::vector<double>{1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)});
    StridedTensor f16 = StridedTensor::allocate(DType::Float16, {1});
    copy_into(twice, f16);
    EXPECT_EQ(get<uint16_t>(f16, {0}), 0x3c00);

    // int64 → f16/bf16 through float: 2049 is a half tie → 2048; 257 a bf16 tie → 256.
    StridedTensor ints = tensor_of(DType::Int64, {3}, std::vector<int64_t>{2049, 257, (1LL << 53) + 1});
    StridedTensor as_half = StridedTensor::allocate(DType::Float16, {3});
    StridedTensor as_bf16 = StridedTensor::allocate(DType::BFloat16, {3});
    StridedTensor as_f64 = StridedTensor::allocate(DType::Float64, {3});
    copy_into(ints, as_half);
    copy_into(ints, as_bf16);
    copy_into(ints, as_f64);
    EXPECT_EQ(half_bits_to_float(get<uint16_t>(as_half, {0})), 2048.0f);
    EXPECT_EQ(bfloat16_bits_to_float(get<uint16_t>(as_bf16, {1})), 256.0f);
    EXPECT_EQ(half_bits_to_float(get<uint16_t>(as_half, {2})), INFINITY);
    EXPECT_EQ(get<double>(as_f64, {2}), std::ldexp(1.0, 53));

    // Subnormal f32 → f16 is zero with its sign; f16 subnormal → f32 is exact.
    StridedTensor tiny = floats({2}, {-1e-39f, std::ldexp(3.0f, -24)});
    StridedTensor tiny_half = StridedTensor::allocate(DType::Float16, {2});
    copy_into(tiny, tiny_half);
    EXPECT_EQ(get<uint16_t>(tiny_half, {0}), 0x8000);
    EXPECT_EQ(get<uint16_t>(tiny_half, {1}), 0x0003);
    StridedTensor back = StridedTensor::allocate(DType::Float32, {2});
    copy_into(tiny_half, back);
    EXPECT_EQ(get<float>(back, {1}), std::ldexp(3.0f, -24));
}

TEST(KernelCopyInto, EveryPairAgreesWithTheCastDefinition) {
    // For each pair, copy_into must equal: source value → double (exact) → the target by the
    // rules above. Samples are first made representable in the source dtype.
    for (DType from : kAllDTypes) {
        for (DType to : kAllDTypes) {
            StridedTensor samples = tensor_of(DType::Float64, {static_cast<int64_t>(kSamples.size())}, kSamples);
            StridedTensor source = StridedTensor::allocate(from, samples.sizes);
            copy_into(samples, source);
            StridedTensor exact = StridedTensor::allocate(DType::Float64, samples.sizes);
            copy_into(source, exact);  // every dtype's values are exact in double
            StridedTensor out = StridedTensor::allocate(to, samples.sizes);
            copy_into(source, out);
            StridedTensor got = StridedTensor::allocate(DType::Float64, samples.sizes);
            copy_into(out, got);
            const auto in_values = values_of<double>(exact);
            const auto out_values = values_of<double>(got);
            for (size_t i = 0; i < in_values.size(); ++i) {
                const double v = in_values[i];
                double expected;
                if (to == DType::Bool) {
                    expected = v != 0 ? 1 : 0;
                } else if (to == DType::Float64) {
                    expected = v;
                } else if (to == DType::Float32) {
                    expected = static_cast<float>(v);
                } else if (to == DType::Float16 || to == DType::BFloat16) {
                    // through float, then to the nearest 16-bit value by definition
                    const uint16_t b = nearest_by_definition(static_cast<float>(v), to == DType::Float16);
                    expected = to == DType::Float16 ? half_bits_to_float(b) : bfloat16_bits_to_float(b);
                } else if (pt2ov::dtype_is_floating(from)) {
                    const bool via_64 = to == DType::Int64 || to == DType::UInt8;
                    const int64_t wide = via_64 ? float_to_int64_rule(v) : float_to_int32_rule(v);
                    StridedTensor w = tensor_of(DType::Int64, {1}, std::vector<int64_t>{wide});
                    StridedTensor n = StridedTensor::allocate(to, {1});
                    copy_into(w, n);  // int → int wrap, tested on its own above
                    StridedTensor d = StridedTensor::allocate(DType::Float64, {1});
                    copy_into(n, d);
                    expected = get<double>(d, {0});
                } else {
                    // int → int: modulo 2^bits, read in the target's signedness
                    const int bits_count = static_cast<int>(8 * pt2ov::dtype_size(to));
                    const auto low = static_cast<uint64_t>(static_cast<int64_t>(v)) &
                                     (bits_count == 64 ? ~uint64_t{0} : ((uint64_t{1} << bits_count) - 1));
                    const bool is_signed = to != DType::UInt8 && to != DType::UInt16;
                    int64_t value = static_cast<int64_t>(low);
                    if (is_signed && bits_count < 64 && (low >> (bits_count - 1))) value -= int64_t{1} << bits_count;
                    expected = static_cast<double>(value);
                }
                EXPECT_EQ(bits(out_values[i]), bits(expected))
                    << pt2ov::dtype_name(from) << " → " << pt2ov::dtype_name(to) << " of " << v << ": got "
                    << out_values[i] << ", expected " << expected;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Registry and KernelCall

TEST(KernelRegistry, FindsExactOverloadsAndOpFallbacks) {
    EXPECT_NE(find_kernel("aten.add.Tensor"), nullptr);
    EXPECT_NE(find_kernel("aten.clone.default"), nullptr);
    EXPECT_NE(find_kernel("_operator.add"), nullptr);
    EXPECT_EQ(find_kernel("aten.no_such_op.default"), nullptr);
    EXPECT_EQ(find_kernel("aten.add.no_such_overload"), nullptr);
    // Registered for an op without overload ("aten.conv2d"): every overload without its own.
    EXPECT_NE(find_kernel("aten.conv2d.padding"), nullptr);
    EXPECT_EQ(find_kernel("aten.conv2d.padding"), find_kernel("aten.conv2d.default"));
    EXPECT_EQ(find_kernel(pt2ov::graph::op_id("aten.add.Tensor")), find_kernel("aten.add.Tensor"));
    const auto ops = registered_ops();
    for (const char* op : {"aten.clone.default", "aten._to_copy.default", "aten.index.Tensor", "aten.mm.default",
                           "aten._softmax.default", "aten.sym_size.int", "aten.where.self", "aten.max.dim",
                           "dim_order_ops._clone_dim_order.default", "dim_order_ops._to_dim_order_copy.default"}) {
        EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
    }
}

TEST(KernelCallArguments, ByNameThenPositionAndDefaults) {
    KernelHarness h;
    h.input("x", floats({2, 3}, {0, 1, 2, 3, 4, 5}));
    h.number("s0", Scalar{int64_t{2}});
    // slice(x, dim=1 (by position), start=s0 (by name, keyword), end absent, step absent)
    const StridedTensor v = h.run1("aten.slice.Tensor",
                                   {positional("self", tensor_arg("x")), positional("dim", int_arg(1)),
                                    keyword("start", symint_arg("s0"))},
                                   DType::Float32, {2, 1});
    EXPECT_EQ(v.sizes, (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(values_of<float>(v), (std::vector<float>{2, 5}));
}

TEST(KernelCallArguments, ErrorsNameTheNodeAndOp) {
    KernelHarness h;
    h.input("x", floats({2}, {1, 2}));
    try {
        h.run1("aten.transpose.int", {positional("self", tensor_arg("x")), positional("dim0", int_arg(0)), positional("dim1", int_arg(5))},
               DType::Float32, {2});
        FAIL() << "expected an error";
    } catch (const pt2ov::UnsupportedError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("node node_under_test (aten.transpose.int)"), std::string::npos) << message;
        EXPECT_NE(message.find("out of range"), std::string::npos) << message;
    }
    // A missing argument or one of the wrong kind is refused when the node is resolved against
    // its schema, before any kernel runs (graph/schema.h).
    EXPECT_THROW(h.run1("aten.clone.default", {}, DType::Float32, {2}), pt2ov::ArchiveError);
    EXPECT_THROW(h.run1("aten.add.Tensor", {positional("self", tensor_arg("x")), positional("other", string_arg("no"))},
                        DType::Float32, {2}),
                 pt2ov::ArchiveError);
}

// ---------------------------------------------------------------------------------------------
// Copies and views

// A 4-D float tensor with values 0..n-1 in logical order, stored channels-last.
StridedTensor channels_last_iota(std::vector<int64_t> sizes) {
    StridedTensor t = StridedTensor::allocate_in_order(DType::Float32, sizes, {0, 2, 3, 1});
    float next = 0;
    for (const auto& index : all_indices(t.sizes)) set<float>(t, index, next++);
    return t;
}

TEST(KernelClone, PreserveFormatKeepsChannelsLastAndCopies) {
    KernelHarness h;
    const StridedTensor x = channels_last_iota({2, 3, 4, 5});
    h.input("x", x);
    const StridedTensor kept = h.run1("aten.clone.default", {positional("self", tensor_arg("x"))}, DType::Float32, x.sizes);
    EXPECT_EQ(kept.strides, x.strides);
    EXPECT_NE(kept.data, x.data);
    EXPECT_EQ(values_of<float>(kept), values_of<float>(x));
    const StridedTensor rows = h.run1("aten.clone.default",
                                      {positional("self", tensor_arg("x")), keyword("memory_format", memory_format_arg(1))},
                                      DType::Float32, x.sizes);
    EXPECT_TRUE(rows.is_contiguous());
    EXPECT_EQ(values_of<float>(rows), values_of<float>(x));
    // A sliced (non-dense) channels-last input keeps its dim order.
    h.input("sliced", x.view({2, 3, 4, 3}, {x.strides[0], x.strides[1], x.strides[2], x.strides[3] * 2}));
    const StridedTensor dense = h.run1("aten.clone.default", {positional("self", tensor_arg("sliced"))}, DType::Float32, {2, 3, 4, 3});
    EXPECT_EQ(dense.strides, (std::vector<int64_t>{36, 1, 9, 3}));
}

TEST(KernelClone, ToCopyConvertsAndDimOrderCopyLaysOut) {
    KernelHarness h;
    h.input("x", transposed(tensor_of(DType::Int64, {2, 3}, std::vector<int64_t>{1LL << 40, -1, 3, 4, 5, 6}), 0, 1));
    const StridedTensor f = h.run1("aten._to_copy.default", {positional("self", tensor_arg("x")), keyword("dtype", dtype_arg(DType::Float64))},
                                   DType::Float64, {3, 2});
    EXPECT_EQ(values_of<double>(f), (std::vector<double>{std::ldexp(1.0, 40), 4, -1, 5, 3, 6}));
    EXPECT_EQ(f.strides, (std::vector<int64_t>{1, 3}));  // preserve_format keeps the transposed order
    const StridedTensor same = h.run1("dim_order_ops._to_dim_order_copy.default",
                                      {positional("self", tensor_arg("x")), keyword("dim_order", ints_arg({0, 1}))},
                                      DType::Int64, {3, 2});
    EXPECT_TRUE(same.is_contiguous());
    EXPECT_EQ(values_of<int64_t>(same), (std::vector<int64_t>{1LL << 40, 4, -1, 5, 3, 6}));
    EXPECT_THROW(h.run1("dim_order_ops._clone_dim_order.default",
                        {positional("self", tensor_arg("x")), keyword("dim_order", ints_arg({0, 0}))}, DType::Int64, {3, 2}),
                 pt2ov::UnsupportedError);
}

// Bit shifts as PyTorch's CPU kernels define them: a count that is negative or at least the
// width gives 0 to the left and the sign to the right; the left shift wraps.
TEST(KernelShifts, CountsOutOfRangeAndEveryOverload) {
    KernelHarness h;
    h.input("x", transposed(tensor_of(DType::Int32, {2, 3}, std::vector<int32_t>{5, -5, 1 << 30, -1, 7, INT32_MIN}), 0, 1));
    h.input("n", transposed(tensor_of(DType::Int32, {2, 3}, std::vector<int32_t>{2, 2, 1, 40, -1, 31}), 0, 1));
    const StridedTensor left = h.run1("aten.bitwise_left_shift.Tensor", {positional("self", tensor_arg("x")), positional("other", tensor_arg("n"))},
                                      DType::Int32, {3, 2});
    // (x, n) pairs in row-major order of the transposed views: (5,2) (-1,40) (-5,2) (7,-1) (2**30,1) (min,31)
    EXPECT_EQ(values_of<int32_t>(left), (std::vector<int32_t>{20, 0, -20, 0, INT32_MIN, 0}));
    const StridedTensor right = h.run1("aten.bitwise_right_shift.Tensor", {positional("self", tensor_arg("x")), positional("other", tensor_arg("n"))},
                                       DType::Int32, {3, 2});
    EXPECT_EQ(values_of<int32_t>(right), (std::vector<int32_t>{1, -1, -2, 0, 1 << 29, -1}));
    const StridedTensor by_scalar = h.run1("aten.__lshift__.Scalar", {positional("self", tensor_arg("x")), positional("other", int_arg(33))},
                                           DType::Int32, {3, 2});
    EXPECT_EQ(values_of<int32_t>(by_scalar), std::vector<int32_t>(6, 0));
    const StridedTensor of_scalar = h.run1("aten.bitwise_right_shift.Scalar_Tensor", {positional("self", int_arg(-64)), positional("other", tensor_arg("n"))},
                                           DType::Int32, {3, 2});
    EXPECT_EQ(values_of<int32_t>(of_scalar), (std::vector<int32_t>{-16, -1, -16, -1, -32, -1}));
    h.input("b", tensor_of(DType::UInt8, {3}, std::vector<uint8_t>{0x81, 0xff, 3}));
    const StridedTensor bytes = h.run1("aten.bitwise_right_shift.Tensor_Scalar", {positional("self", tensor_arg("b")), positional("other", int_arg(7))},
                                       DType::UInt8, {3});
    EXPECT_EQ(values_of<uint8_t>(bytes), (std::vector<uint8_t>{1, 1, 0}));  // unsigned: no sign to keep
    h.input("f", floats({3}, {1, 2, 3}));
    EXPECT_THROW(h.run1("aten.bitwise_left_shift.Tensor_Scalar", {positional("self", tensor_arg("f")), positional("other", int_arg(1))},
                        DType::Float32, {3}),
                 pt2ov::UnsupportedError);
}

// repeat_interleave(repeats): each index repeated, in the repeats' dtype; negative repeats refused.
TEST(KernelRepeatInterleave, IndicesOfRepeats) {
    KernelHarness h;
    const StridedTensor wide = tensor_of(DType::Int64, {6}, std::vector<int64_t>{1, 9, 0, 9, 2, 9});
    h.input("r", wide.view({3}, {2}));  // every other element: 1, 0, 2
    const StridedTensor indices = h.run1("aten.repeat_interleave.Tensor", {positional("repeats", tensor_arg("r"))}, DType::Int64, {3});
    EXPECT_EQ(values_of<int64_t>(indices), (std::vector<int64_t>{0, 2, 2}));
    h.input("r32", tensor_of(DType::Int32, {2}, std::vector<int32_t>{0, 0}));
    EXPECT_EQ(h.run1("aten.repeat_interleave.Tensor", {positional("repeats", tensor_arg("r32"))}, DType::Int32, {0}).numel(), 0);
    h.input("negative", tensor_of(DType::Int64, {2}, std::vector<int64_t>{1, -1}));
    EXPECT_THROW(h.run1("aten.repeat_interleave.Tensor", {positional("repeats", tensor_arg("negative"))}, DType::Int64, {0}),
                 pt2ov::UnsupportedError);
    EXPECT_THROW(h.run1("aten.repeat_interleave.Tensor", {positional("repeats", tensor_arg("r")), keyword("output_size", int_arg(4))},
                        DType::Int64, {4}),
                 pt2ov::UnsupportedError);
}

// A view of an empty tensor may ask for any sizes of no elements, and gets the strides PyTorch
// gives them (wrapped around 2**64 where they do not fit; they address nothing), computed without
// signed overflow (the kernel fuzzer: _unsafe_view of int64[0, 0, 0] to [5, 0, 2**63 - 1]
// multiplied past the outermost dim, UBSan).
TEST(KernelViews, AnEmptyTensorViewedToHugeSizes) {
    KernelHarness h;
    h.input("x", StridedTensor::allocate(DType::Int64, {0, 0, 0}));
    const int64_t huge = std::numeric_limits<int64_t>::max();
    const StridedTensor v = h.run1("aten._unsafe_view.default", {positional("self", tensor_arg("x")), positional("size", ints_arg({5, 0, huge}))},
                                   DType::Int64, {5, 0, huge});
    EXPECT_EQ(v.strides, (std::vector<int64_t>{huge, huge, 1}));
    const int64_t quarter = int64_t{1} << 62;
    const StridedTensor w = h.run1("aten._unsafe_view.default", {positional("self", tensor_arg("x")), positional("size", ints_arg({3, 0, quarter, 4}))},
                                   DType::Int64, {3, 0, quarter, 4});
    EXPECT_EQ(w.strides, (std::vector<int64_t>{0, 0, 4, 1}));  // torch.ops.aten._unsafe_view's strides
}

TEST(KernelViews, ShareMemoryWithTheirInput) {
    KernelHarness h;
    const StridedTensor x = floats({2, 3, 4}, std::vector<float>(24, 0.0f));
    h.input("x", x);
    auto shares = [&](const StridedTensor& v) { return v.owner == x.owner && v.data >= x.data && v.data < x.data + 96; };
    const StridedTensor t = h.run1("aten.transpose.int", {positional("self", tensor_arg("x")), positional("dim0", int_arg(0)), positional("dim1", int_arg(2))},
                                   DType::Float32, {4, 3, 2});
    EXPECT_TRUE(shares(t));
    EXPECT_EQ(t.strides, (std::vector<int64_t>{1, 4, 12}));
    const StridedTensor s = h.run1("aten.slice.Tensor",
                                   {positional("self", tensor_arg("x")), positional("dim", int_arg(2)), positional("start", int_arg(-3)),
                                    positional("end", int_arg(100)), positional("step", int_arg(2))},
                                   DType::Float32, {2, 3, 2});
    EXPECT_TRUE(shares(s));
    EXPECT_EQ(s.sizes, (std::vector<int64_t>{2, 3, 2}));
    EXPECT_EQ(s.data, x.data + 4);  // start -3 of 4 is index 1
    const StridedTensor e = h.run1("aten.expand.default", {positional("self", tensor_arg("x")), positional("size", ints_arg({5, -1, -1, -1}))},
                                   DType::Float32, {5, 2, 3, 4});
    EXPECT_TRUE(shares(e));
    EXPECT_EQ(e.strides[0], 0);
    const StridedTensor sel = h.run1("aten.select.int", {positional("self", tensor_arg("x")), positional("dim", int_arg(1)), positional("index", int_arg(-1))},
                                     DType::Float32, {2, 4});
    EXPECT_EQ(sel.data, x.data + 8 * 4);
    const StridedTensor alias = h.run1("aten.alias.default", {positional("self", tensor_arg("x"))}, DType::Float32, x.sizes);
    EXPECT_EQ(alias.data, x.data);
    const StridedTensor view = h.run1("aten.view.default", {positional("self", tensor_arg("x")), positional("size", ints_arg({6, -1}))},
                                      DType::Float32, {6, 4});
    EXPECT_TRUE(shares(view));
    // The *_copy forms and view on strides that cannot be viewed make new memory.
    const StridedTensor copied = h.run1("aten.alias_copy.default", {positional("self", tensor_arg("x"))}, DType::Float32, x.sizes);
    EXPECT_NE(copied.owner, x.owner);
    h.input("xt", t);
    const StridedTensor flat = h.run1("aten.view.default", {positional("self", tensor_arg("xt")), positional("size", ints_arg({24}))},
                                      DType::Float32, {24});
    EXPECT_NE(flat.owner, x.owner);
    for (int i = 0; i < 24; ++i) set<float>(x, all_indices(x.sizes)[i], static_cast<float>(i));
    const StridedTensor flat_again = h.run1("aten.view.default", {positional("self", tensor_arg("xt")), positional("size", ints_arg({24}))},
                                            DType::Float32, {24});
    std::vector<float> expected;
    for (const auto& index : all_indices(t.sizes)) expected.push_back(get<float>(t, index));
    EXPECT_EQ(values_of<float>(flat_again), expected);
}

TEST(KernelViews, SqueezeUnsqueezePermute) {
    KernelHarness h;
    const StridedTensor x = floats({1, 3, 1}, {1, 2, 3});
    h.input("x", x);
    EXPECT_EQ(h.run1("aten.squeeze.default", {positional("self", tensor_arg("x"))}, DType::Float32, {3}).sizes, (std::vector<int64_t>{3}));
    EXPECT_EQ(h.run1("aten.squeeze.dims", {positional("self", tensor_arg("x")), positional("dim", ints_arg({1, -1}))}, DType::Float32, {1, 3}).sizes,
              (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(h.run1("aten.unsqueeze.default", {positional("self", tensor_arg("x")), positional("dim", int_arg(-1))}, DType::Float32, {1, 3, 1, 1}).sizes,
              (std::vector<int64_t>{1, 3, 1, 1}));
    const StridedTensor p = h.run1("aten.permute.default", {positional("self", tensor_arg("x")), positional("dims", ints_arg({2, 0, 1}))},
                                   DType::Float32, {1, 1, 3});
    EXPECT_EQ(p.sizes, (std::vector<int64_t>{1, 1, 3}));
    EXPECT_EQ(values_of<float>(p), (std::vector<float>{1, 2, 3}));
    EXPECT_THROW(h.run1("aten.permute.default", {positional("self", tensor_arg("x")), positional("dims", ints_arg({0, 0, 1}))}, DType::Float32, {1, 1, 3}),
                 pt2ov::UnsupportedError);
}

// ---------------------------------------------------------------------------------------------
// Computing kernels on non-contiguous inputs

TEST(KernelBinary, AddBroadcastsOverTransposedAndExpandedInputs) {
    KernelHarness h;
    const StridedTensor base = floats({3, 2}, {1, 2, 3, 4, 5, 6});
    const StridedTensor a = transposed(base, 0, 1);                       // [2, 3], strides (1, 2)
    const StridedTensor row = floats({3}, {10, 20, 30}).view({2, 3}, {0, 1});  // zero-stride rows
    h.input("a", a);
    h.input("b", row);
    const StridedTensor out = h.run1("aten.add.Tensor", {positional("self", tensor_arg("a")), positional("other", tensor_arg("b")),
                                                         keyword("alpha", int_arg(2))},
                                     DType::Float32, {2, 3});
    std::vector<float> expected;
    for (const auto& index : all_indices({2, 3})) expected.push_back(get<float>(a, index) + 2 * get<float>(row, index));
    EXPECT_EQ(values_of<float>(out), expected);
}

TEST(KernelBinary, Int64ArithmeticIsExactAndWraps) {
    KernelHarness h;
    const int64_t big = (int64_t{1} << 40) + 1;
    h.input("x", tensor_of(DType::Int64, {3}, std::vector<int64_t>{big, -big, std::numeric_limits<int64_t>::max()}));
    const StridedTensor product = h.run1("aten.mul.Tensor", {positional("self", tensor_arg("x")), positional("other", int_arg(3))},
                                         DType::Int64, {3});
    const auto got = values_of<int64_t>(product);
    EXPECT_EQ(got[0], 3 * big);
    EXPECT_EQ(got[1], -3 * big);
    EXPECT_EQ(got[2], static_cast<int64_t>(static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) * 3u));
    const StridedTensor floor = h.run1("aten.div.Tensor_mode", {positional("self", tensor_arg("x")), positional("other", int_arg(-7)),
                                                                keyword("rounding_mode", string_arg("floor"))},
                                       DType::Int64, {3});
    const auto q = values_of<int64_t>(floor);
    const int64_t inputs[] = {big, -big, std::numeric_limits<int64_t>::max()};
    for (int i = 0; i < 3; ++i) {
        // Floor division by definition: truncate, then step down when the signs differ and
        // the division is inexact.
        const int64_t v = inputs[i];
        int64_t expected = v / -7;
        if (v % -7 != 0 && ((v < 0) != true)) expected -= 1;
        EXPECT_EQ(q[i], expected) << v;
    }
    try {
        h.run1("aten.remainder.Scalar", {positional("self", tensor_arg("x")), positional("other", int_arg(0))}, DType::Int64, {3});
        FAIL() << "expected ZeroDivisionError";
    } catch (const pt2ov::UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find("ZeroDivisionError"), std::string::npos);
    }
}

TEST(KernelBinary, ComparisonPromotesAndGivesBool) {
    KernelHarness h;
    h.input("x", tensor_of(DType::Int32, {3}, std::vector<int32_t>{1, 2, 3}));
    const StridedTensor lt = h.run1("aten.lt.Scalar", {positional("self", tensor_arg("x")), positional("other", float_arg(2.5))},
                                    DType::Bool, {3});
    EXPECT_EQ(values_of<uint8_t>(lt), (std::vector<uint8_t>{1, 1, 0}));
}

TEST(KernelReduce, SumOverChannelsLastAndArgmaxWithNaN) {
    KernelHarness h;
    const StridedTensor x = channels_last_iota({2, 3, 2, 2});
    h.input("x", x);
    const StridedTensor sum = h.run1("aten.sum.dim_IntList", {positional("self", tensor_arg("x")), positional("dim", ints_arg({2, 3})),
                                                              positional("keepdim", bool_arg(true))},
                                     DType::Float32, {2, 3, 1, 1});
    std::vector<float> expected;
    for (int64_t n = 0; n < 2; ++n) {
        for (int64_t c = 0; c < 3; ++c) {
            float s = 0;
            for (int64_t i = 0; i < 2; ++i) {
                for (int64_t j = 0; j < 2; ++j) s += get<float>(x, {n, c, i, j});
            }
            expected.push_back(s);
        }
    }
    EXPECT_EQ(values_of<float>(sum), expected);
    h.input("y", transposed(floats({3, 2}, {1, 7, NAN, 2, 7, NAN}), 0, 1));  // rows [1, NaN, 7], [7, 2, NaN]
    const StridedTensor arg = h.run1("aten.argmax.default", {positional("self", tensor_arg("y")), positional("dim", int_arg(1))},
                                     DType::Int64, {2});
    EXPECT_EQ(values_of<int64_t>(arg), (std::vector<int64_t>{1, 2}));  // the first NaN wins
    const StridedTensor amax = h.run1("aten.amax.default", {positional("self", tensor_arg("x")), positional("dim", ints_arg({0}))},
                                      DType::Float32, {3, 2, 2});
    for (const auto& index : all_indices({3, 2, 2})) {
        const float expected_max = std::max(get<float>(x, {0, index[0], index[1], index[2]}), get<float>(x, {1, index[0], index[1], index[2]}));
        EXPECT_EQ(get<float>(amax, index), expected_max);
    }
    h.input("empty", floats({0, 3}, {}));
    EXPECT_THROW(h.run1("aten.amax.default", {positional("self", tensor_arg("empty")), positional("dim", ints_arg({0}))},
                        DType::Float32, {3}),
                 pt2ov::UnsupportedError);
    const StridedTensor empty_sum = h.run1("aten.sum.dim_IntList", {positional("self", tensor_arg("empty")), positional("dim", ints_arg({0}))},
                                           DType::Float32, {3});
    EXPECT_EQ(values_of<float>(empty_sum), (std::vector<float>{0, 0, 0}));
}

TEST(KernelMatmul, TransposedOperandsMatchANaiveLoop) {
    KernelHarness h;
    const StridedTensor a = transposed(floats({3, 2}, {1, 2, 3, 4, 5, 6}), 0, 1);  // [2, 3]
    const StridedTensor b = transposed(floats({4, 3}, {1, 0, 2, -1, 3, 1, 0, 0, 1, 2, 2, 2}), 0, 1);  // [3, 4]
    h.input("a", a);
    h.input("b", b);
    const StridedTensor out = h.run1("aten.mm.default", {positional("self", tensor_arg("a")), positional("mat2", tensor_arg("b"))},
                                     DType::Float32, {2, 4});
    std::vector<float> expected;
    for (int64_t i = 0; i < 2; ++i) {
        for (int64_t j = 0; j < 4; ++j) {
            float s = 0;
            for (int64_t k = 0; k < 3; ++k) s += get<float>(a, {i, k}) * get<float>(b, {k, j});
            expected.push_back(s);
        }
    }
    EXPECT_EQ(values_of<float>(out), expected);
}

TEST(KernelIndex, NegativeIndicesMasksAndSeparatedIndexDims) {
    KernelHarness h;
    std::vector<float> v(24);
    std::iota(v.begin(), v.end(), 0.0f);
    const StridedTensor x = floats({2, 3, 4}, v);
    h.input("x", x);
    h.input("i", tensor_of(DType::Int64, {2}, std::vector<int64_t>{-1, 0}));
    h.input("j", tensor_of(DType::Int64, {2}, std::vector<int64_t>{3, -4}));
    // x[i, :, j]: index dims 0 and 2 are separated, so the index dim comes first: [2, 3].
    Argument none;
    const StridedTensor out = h.run1("aten.index.Tensor", {positional("self", tensor_arg("x")),
                                                           positional("indices", list_arg({tensor_arg("i"), none, tensor_arg("j")}))},
                                     DType::Float32, {2, 3});
    EXPECT_EQ(out.sizes, (std::vector<int64_t>{2, 3}));
    std::vector<float> expected;
    for (int64_t p = 0; p < 2; ++p) {
        const int64_t a = p == 0 ? 1 : 0, c = p == 0 ? 3 : 0;
        for (int64_t b = 0; b < 3; ++b) expected.push_back(get<float>(x, {a, b, c}));
    }
    EXPECT_EQ(values_of<float>(out), expected);
    h.input("mask", tensor_of(DType::Bool, {3}, std::vector<uint8_t>{1, 0, 1}));
    const StridedTensor masked = h.run1("aten.index.Tensor", {positional("self", tensor_arg("x")),
                                                              positional("indices", list_arg({none, tensor_arg("mask")}))},
                                        DType::Float32, {2, 2, 4});
    EXPECT_EQ(masked.sizes, (std::vector<int64_t>{2, 2, 4}));
    EXPECT_EQ(get<float>(masked, {1, 1, 3}), get<float>(x, {1, 2, 3}));
    h.input("bad", tensor_of(DType::Int64, {1}, std::vector<int64_t>{2}));
    EXPECT_THROW(h.run1("aten.index.Tensor", {positional("self", tensor_arg("x")), positional("indices", list_arg({tensor_arg("bad")}))},
                        DType::Float32, {1, 3, 4}),
                 pt2ov::UnsupportedError);
}

TEST(KernelCat, JoinsTransposedInputsAndPromotes) {
    KernelHarness h;
    h.input("a", transposed(floats({2, 2}, {1, 2, 3, 4}), 0, 1));
    h.input("b", tensor_of(DType::Int64, {1, 2}, std::vector<int64_t>{7, 8}));
    const StridedTensor out = h.run1("aten.cat.default", {positional("tensors", list_arg({tensor_arg("a"), tensor_arg("b")}))},
                                     DType::Float32, {3, 2});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1, 3, 2, 4, 7, 8}));
}

TEST(KernelSoftmax, RowsSumToOneAndLargeValuesDoNotOverflow) {
    KernelHarness h;
    h.input("x", transposed(floats({3, 2}, {1000, 1, 1001, 2, 1002, 3}), 0, 1));  // rows [1000,1001,1002], [1,2,3]
    const StridedTensor out = h.run1("aten._softmax.default", {positional("self", tensor_arg("x")), positional("dim", int_arg(1)),
                                                               positional("half_to_float", bool_arg(false))},
                                     DType::Float32, {2, 3});
    const auto got = values_of<float>(out);
    const double denominator = 1 + std::exp(1.0) + std::exp(2.0);
    for (int r = 0; r < 2; ++r) {
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[r * 3 + c], std::exp(static_cast<double>(c)) / denominator, 1e-7);
    }
}

TEST(KernelScalars, SymSizeAndPythonOperators) {
    KernelHarness h;
    h.input("x", floats({2, 5}, std::vector<float>(10, 0.0f)));
    auto results = h.run("aten.sym_size.int", {positional("self", tensor_arg("x")), positional("dim", int_arg(-1))}, {h.number_output("n")});
    EXPECT_EQ(std::get<int64_t>(results.at(0).scalar()), 5);
    h.number("a", Scalar{int64_t{-7}});
    h.number("b", Scalar{int64_t{2}});
    auto floordiv = h.run("_operator.floordiv", {positional("a", symint_arg("a")), positional("b", symint_arg("b"))}, {h.number_output("q")});
    auto mod = h.run("_operator.mod", {positional("a", symint_arg("a")), positional("b", symint_arg("b"))}, {h.number_output("r")});
    // Python: -7 // 2 == -4 and -7 % 2 == 1, so that q * b + r == a.
    EXPECT_EQ(std::get<int64_t>(floordiv.at(0).scalar()), -4);
    EXPECT_EQ(std::get<int64_t>(mod.at(0).scalar()), 1);
    auto lt = h.run("_operator.lt", {positional("a", symint_arg("a")), positional("b", int_arg(0))}, {h.number_output("c")});
    EXPECT_EQ(std::get<bool>(lt.at(0).scalar()), true);
    // The rest of Python's operators on sizes, with Python's results for a = -7, b = 2.
    auto run = [&](const char* op) {
        return h.run(op, {positional("a", symint_arg("a")), positional("b", symint_arg("b"))}, {h.number_output("o")}).at(0).scalar();
    };
    EXPECT_EQ(std::get<bool>(run("_operator.eq")), false);
    EXPECT_EQ(std::get<bool>(run("_operator.ne")), true);
    EXPECT_EQ(std::get<bool>(run("_operator.gt")), false);
    EXPECT_EQ(std::get<int64_t>(run("_operator.pow")), 49);
    EXPECT_EQ(std::get<int64_t>(run("_operator.and_")), -7 & 2);
    EXPECT_EQ(std::get<int64_t>(run("_operator.or_")), -7 | 2);
}


// ---------------------------------------------------------------------------------------------
// The dense fast paths (kernels/dense_paths.h and the kernels' own): big enough to be split over
// threads, and checked against the general path on the same values (a transposed copy, which is
// not row-major) or against themselves on a part.

// A [rows, cols] float tensor with few distinct values (ties), and its copy stored transposed.
std::pair<StridedTensor, StridedTensor> dense_and_strided(int64_t rows, int64_t cols, uint32_t seed) {
    StridedTensor dense = StridedTensor::allocate(DType::Float32, {rows, cols});
    StridedTensor storage = StridedTensor::allocate(DType::Float32, {cols, rows});
    const StridedTensor strided = transposed(storage, 0, 1);
    uint32_t state = seed;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
            state = state * 1664525u + 1013904223u;
            const float v = static_cast<float>(static_cast<int32_t>(state >> 20) - 2048) / 64.0f + 0.001f * static_cast<float>(c % 7);
            set<float>(dense, {r, c}, v);
            set<float>(strided, {r, c}, v);
        }
    }
    return {dense, strided};
}

TEST(KernelDensePaths, SumMeanAmaxOfBigRowsAgreeWithTheGeneralPath) {
    auto [dense, strided] = dense_and_strided(4, 70000, 7);
    set<float>(dense, {1, 12345}, NAN);  // a NaN row: amax takes it in order
    set<float>(strided, {1, 12345}, NAN);
    for (const char* target : {"aten.sum.dim_IntList", "aten.mean.dim", "aten.amax.default", "aten.amin.default"}) {
        std::vector<std::vector<float>> results;
        for (const StridedTensor& x : {dense, strided}) {
            KernelHarness h;
            h.input("x", x);
            results.push_back(values_of<float>(h.run1(target, {positional("self", tensor_arg("x")), positional("dim", ints_arg({-1}))},
                                                      DType::Float32, {4})));
        }
        const bool summing = std::string(target) != "aten.amax.default" && std::string(target) != "aten.amin.default";
        for (size_t r = 0; r < 4; ++r) {
            if (std::isnan(results[1][r])) {
                EXPECT_EQ(bits(results[0][r]), bits(results[1][r])) << target << " row " << r;
            } else if (summing) {
                // The dense path sums float32 in float lanes of at most 8 elements, within
                // 8 * 2^-24 of the magnitudes' sum; the general path in double (and both round).
                double magnitudes = 0;
                for (int64_t c = 0; c < 70000; ++c) magnitudes += std::fabs(get<float>(dense, {static_cast<int64_t>(r), c}));
                if (std::string(target) == "aten.mean.dim") magnitudes /= 70000;
                const double bound = 8 * std::ldexp(magnitudes, -24) + 2 * std::ldexp(std::fabs(results[1][r]), -24);
                EXPECT_LE(std::fabs(double(results[0][r]) - double(results[1][r])), bound) << target << " row " << r;
            } else {
                EXPECT_EQ(bits(results[0][r]), bits(results[1][r])) << target << " row " << r;
            }
        }
    }
    for (const char* target : {"aten.sum.default", "aten.amax.default"}) {  // everything: one long row in chunks
        std::vector<float> results;
        for (const StridedTensor& x : {dense, strided}) {
            KernelHarness h;
            h.input("x", x);
            std::vector<NamedArgument> args{positional("self", tensor_arg("x"))};
            if (std::string(target) == "aten.amax.default") args.push_back(positional("dim", ints_arg({})));
            results.push_back(values_of<float>(h.run1(target, args, DType::Float32, {})).at(0));
        }
        if (std::string(target) == "aten.amax.default") {
            EXPECT_EQ(bits(results[0]), bits(results[1]));  // the NaN
        } else {
            EXPECT_TRUE(std::isnan(results[0]) && std::isnan(results[1]));
        }
    }
}

// float32 exp, sigmoid and tanh run their vectorized loops over row-major copies of other
// layouts: a dense input and its transposed twin give the same bits, split over threads and
// with a partial last vector, each within its ulp bound of the value computed in double.
TEST(KernelDensePaths, FloatExpSigmoidTanhOfEveryLayoutAgreeAndAreClose) {
    auto [dense, strided] = dense_and_strided(3, 70001, 13);
    const std::pair<const char*, double (*)(double)> ops[] = {
        {"aten.exp.default", [](double x) { return std::exp(x); }},
        {"aten.sigmoid.default", [](double x) { return 1 / (1 + std::exp(-x)); }},
        {"aten.tanh.default", [](double x) { return std::tanh(x); }}};
    for (const auto& [target, exact] : ops) {
        std::vector<std::vector<float>> results;
        for (const StridedTensor& x : {dense, strided}) {
            KernelHarness h;
            h.input("x", x);
            results.push_back(values_of<float>(h.run1(target, {positional("self", tensor_arg("x"))}, DType::Float32, {3, 70001})));
        }
        const std::vector<float> inputs = values_of<float>(dense);
        for (size_t i = 0; i < inputs.size(); ++i) {
            ASSERT_EQ(bits(results[0][i]), bits(results[1][i])) << target << " element " << i;
            const double expected = exact(inputs[i]);
            ASSERT_LE(std::fabs(results[0][i] - expected), 3 * std::ldexp(std::fabs(expected), -24) + 1e-45)
                << target << " of " << inputs[i];
        }
    }
}

// float32 softmax computes in float: rows contiguous in place, others (softmax over dim 0)
// through a row buffer, the same bits either way, within 3 ulp of softmax in double;
// _safe_softmax's row of -inf gives zeros.
TEST(KernelDensePaths, FloatSoftmaxOfEveryLayoutAgreesAndIsClose) {
    auto [dense, strided] = dense_and_strided(70, 1001, 17);
    set<float>(dense, {5, 3}, -INFINITY);
    set<float>(strided, {5, 3}, -INFINITY);
    for (int64_t c = 0; c < 1001; ++c) {
        set<float>(dense, {9, c}, -INFINITY);
        set<float>(strided, {9, c}, -INFINITY);
    }
    for (const char* target : {"aten._softmax.default", "aten._safe_softmax.default"}) {
        std::vector<std::vector<float>> results;
        for (const StridedTensor& x : {dense, strided}) {
            KernelHarness h;
            h.input("x", x);
            std::vector<NamedArgument> args{positional("self", tensor_arg("x")), positional("dim", int_arg(1))};
            if (std::string(target) == "aten._softmax.default") args.push_back(positional("half_to_float", bool_arg(false)));
            results.push_back(values_of<float>(h.run1(target, args, DType::Float32, {70, 1001})));
        }
        EXPECT_EQ(results[0].size(), results[1].size());
        for (size_t i = 0; i < results[0].size(); ++i) ASSERT_EQ(bits(results[0][i]), bits(results[1][i])) << target << " " << i;
        for (int64_t r = 0; r < 70; ++r) {
            const float* got = results[0].data() + r * 1001;
            if (r == 9) {  // every element -inf
                for (int64_t c = 0; c < 1001; ++c) {
                    if (std::string(target) == "aten._safe_softmax.default") ASSERT_EQ(bits(got[c]), bits(0.0f));
                    else ASSERT_TRUE(std::isnan(got[c]));
                }
                continue;
            }
            double max = -INFINITY, sum = 0;
            for (int64_t c = 0; c < 1001; ++c) max = std::max(max, double(get<float>(dense, {r, c})));
            for (int64_t c = 0; c < 1001; ++c) sum += std::exp(double(get<float>(dense, {r, c})) - max);
            for (int64_t c = 0; c < 1001; ++c) {
                const double expected = std::exp(double(get<float>(dense, {r, c})) - max) / sum;
                ASSERT_LE(std::fabs(got[c] - expected), 3 * std::ldexp(std::fabs(expected), -24) + 1e-45) << r << ", " << c;
            }
        }
    }
}

// mul and add of two dense float32 tensors take a loop of their own: the same bits as the
// general loop gives a transposed layout.
TEST(KernelDensePaths, FloatMulAndAddOfDenseTensorsAgreeWithTheGeneralPath) {
    auto [dense_a, strided_a] = dense_and_strided(3, 70001, 19);
    auto [dense_b, strided_b] = dense_and_strided(3, 70001, 23);
    for (const char* target : {"aten.mul.Tensor", "aten.add.Tensor"}) {
        std::vector<std::vector<float>> results;
        for (const auto& [a, b] : {std::pair{dense_a, dense_b}, std::pair{strided_a, strided_b}}) {
            KernelHarness h;
            h.input("a", a);
            h.input("b", b);
            results.push_back(values_of<float>(
                h.run1(target, {positional("self", tensor_arg("a")), positional("other", tensor_arg("b"))}, DType::Float32, {3, 70001})));
        }
        const std::vector<float> a = values_of<float>(dense_a), b = values_of<float>(dense_b);
        for (size_t i = 0; i < a.size(); ++i) {
            ASSERT_EQ(bits(results[0][i]), bits(results[1][i])) << target << " " << i;
            const float expected = std::string(target) == "aten.mul.Tensor" ? a[i] * b[i] : a[i] + b[i];
            ASSERT_EQ(bits(results[0][i]), bits(expected)) << target << " " << i;
        }
    }
}

TEST(KernelDensePaths, AmaxOfZerosKeepsTheFirstZero) {
    std::vector<float> values(100000, 0.0f);
    values[0] = -0.0f;  // the general path keeps the first of equal elements
    KernelHarness h;
    h.input("x", floats({100000}, values));
    const float got = values_of<float>(h.run1("aten.amax.default", {positional("self", tensor_arg("x")), positional("dim", ints_arg({-1}))},
                                              DType::Float32, {}))[0];
    EXPECT_EQ(bits(got), bits(-0.0f));
}

// gather(x, 1, i) or scatter_add(x, 1, i, src), by target: the harness's inputs x, i and src.
std::vector<NamedArgument> gather_or_scatter_add_args(const std::string& target) {
    std::vector<NamedArgument> args{positional("self", tensor_arg("x")), positional("dim", int_arg(1)),
                                    positional("index", tensor_arg("i"))};
    if (target == "aten.scatter_add.default") args.push_back(positional("src", tensor_arg("src")));
    return args;
}

TEST(KernelDensePaths, GatherAndScatterAddOfBigRowsAgreeWithTheGeneralPath) {
    auto [dense, strided] = dense_and_strided(96, 1024, 11);
    std::vector<int64_t> index(96 * 1024);
    uint32_t state = 5;
    for (auto& i : index) {
        state = state * 1664525u + 1013904223u;
        i = (state >> 8) % 1024;
    }
    for (const char* target : {"aten.gather.default", "aten.scatter_add.default"}) {
        std::vector<std::vector<float>> results;
        for (const StridedTensor& x : {dense, strided}) {
            KernelHarness h;
            h.input("x", x);
            h.input("i", tensor_of(DType::Int64, {96, 1024}, index));
            h.input("src", dense);
            results.push_back(values_of<float>(h.run1(target, gather_or_scatter_add_args(target), DType::Float32, {96, 1024})));
        }
        ASSERT_EQ(results[0].size(), results[1].size());
        for (size_t e = 0; e < results[0].size(); ++e) ASSERT_EQ(bits(results[0][e]), bits(results[1][e])) << target << " at " << e;
    }
    index[50 * 1024 + 7] = 1024;  // out of range in a row of the dense path: the general path's error
    for (const char* target : {"aten.gather.default", "aten.scatter_add.default"}) {
        KernelHarness h;
        h.input("x", dense);
        h.input("i", tensor_of(DType::Int64, {96, 1024}, index));
        h.input("src", dense);
        try {
            h.run1(target, gather_or_scatter_add_args(target), DType::Float32, {96, 1024});
            ADD_FAILURE() << target << " took an index out of range";
        } catch (const std::exception& e) {
            EXPECT_NE(std::string(e.what()).find("index 1024 is out of bounds for dimension 1 with size 1024"), std::string::npos) << e.what();
        }
    }
}

TEST(KernelDensePaths, BigSortsAndTopkAgreeRowByRow) {
    auto [dense, strided] = dense_and_strided(64, 2048, 3);
    set<float>(dense, {5, 100}, NAN);
    KernelHarness h;
    h.input("x", dense);
    auto sorted = h.run("aten.sort.default", {positional("self", tensor_arg("x")), positional("dim", int_arg(-1))},
                        {h.output("v", DType::Float32, {64, 2048}), h.output("i", DType::Int64, {64, 2048})});
    auto top = h.run("aten.topk.default", {positional("self", tensor_arg("x")), positional("k", int_arg(16))},
                     {h.output("tv", DType::Float32, {64, 16}), h.output("ti", DType::Int64, {64, 16})});
    const auto indices = values_of<int64_t>(sorted.at(1).tensor());
    const auto top_indices = values_of<int64_t>(top.at(1).tensor());
    for (int64_t r : {0, 5, 33, 63}) {  // each row alone, on one thread
        KernelHarness one;
        one.input("row", dense.view({1, 2048}, {2048, 1}, r * 2048));
        auto alone = one.run("aten.sort.default", {positional("self", tensor_arg("row")), positional("dim", int_arg(-1))},
                             {one.output("v", DType::Float32, {1, 2048}), one.output("i", DType::Int64, {1, 2048})});
        const auto expected = values_of<int64_t>(alone.at(1).tensor());
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), indices.begin() + r * 2048)) << "row " << r;
        auto alone_top = one.run("aten.topk.default", {positional("self", tensor_arg("row")), positional("k", int_arg(16))},
                                 {one.output("tv", DType::Float32, {1, 16}), one.output("ti", DType::Int64, {1, 16})});
        const auto expected_top = values_of<int64_t>(alone_top.at(1).tensor());
        EXPECT_TRUE(std::equal(expected_top.begin(), expected_top.end(), top_indices.begin() + r * 16)) << "row " << r;
    }
}

// topk with k at most 1/64 of the row is std::partial_sort of (value, index) pairs by value
// (NaN the largest), as PyTorch's topk_impl_loop: the kernel's heap walk must pick the same one
// of equal elements. Rows of few distinct values and NaN, largest and smallest, dense and strided.
TEST(KernelDensePaths, TopkOfManyTiesIsPartialSortsChoice) {
    auto [dense, strided] = dense_and_strided(8, 1024, 29);
    const float choices[] = {-1.0f, 0.0f, 1.0f, 2.0f, NAN};
    uint32_t state = 31;
    for (int64_t r = 0; r < 8; ++r) {
        for (int64_t c = 0; c < 1024; ++c) {
            state = state * 1664525u + 1013904223u;
            const float v = choices[(state >> 16) % (r < 4 ? 4 : 5)];  // rows 4-7 hold NaN too
            set<float>(dense, {r, c}, v);
            set<float>(strided, {r, c}, v);
        }
    }
    using Pair = std::pair<float, int64_t>;
    for (bool largest : {true, false}) {
        for (const StridedTensor& x : {dense, strided}) {
            KernelHarness h;
            h.input("x", x);
            auto top = h.run("aten.topk.default",
                             {positional("self", tensor_arg("x")), positional("k", int_arg(16)), positional("dim", int_arg(-1)),
                              positional("largest", bool_arg(largest))},
                             {h.output("tv", DType::Float32, {8, 16}), h.output("ti", DType::Int64, {8, 16})});
            const auto got = values_of<int64_t>(top.at(1).tensor());
            for (int64_t r = 0; r < 8; ++r) {
                std::vector<Pair> row;
                for (int64_t c = 0; c < 1024; ++c) row.push_back({get<float>(dense, {r, c}), c});
                std::partial_sort(row.begin(), row.begin() + 16, row.end(), [largest](const Pair& a, const Pair& b) {
                    return largest ? (std::isnan(a.first) && !std::isnan(b.first)) || a.first > b.first
                                   : (!std::isnan(a.first) && std::isnan(b.first)) || a.first < b.first;
                });
                for (int64_t j = 0; j < 16; ++j) {
                    ASSERT_EQ(got[static_cast<size_t>(r * 16 + j)], row[static_cast<size_t>(j)].second)
                        << (largest ? "largest" : "smallest") << " row " << r << " position " << j;
                }
            }
        }
    }
}

TEST(KernelDensePaths, BigMatrixProductIsCloseAndItsRowBlocksDoNotDependOnTheSplit) {
    auto [a, a_strided] = dense_and_strided(96, 200, 5);
    auto [b, b_strided] = dense_and_strided(200, 300, 9);
    KernelHarness h;
    h.input("a", a);
    h.input("b", b);
    h.input("a32", a.view({32, 200}, {200, 1}, 32 * 200));  // rows 32..63 alone: one block
    const auto product = values_of<float>(h.run1("aten.mm.default", {positional("self", tensor_arg("a")), positional("mat2", tensor_arg("b"))},
                                                 DType::Float32, {96, 300}));
    const auto part = values_of<float>(h.run1("aten.mm.default", {positional("self", tensor_arg("a32")), positional("mat2", tensor_arg("b"))},
                                              DType::Float32, {32, 300}));
    for (size_t e = 0; e < part.size(); ++e) ASSERT_EQ(bits(part[e]), bits(product[32 * 300 + e])) << e;
    for (int64_t i : {0, 47, 95}) {
        for (int64_t j : {0, 150, 299}) {
            double exact = 0, magnitude = 0;
            for (int64_t p = 0; p < 200; ++p) {
                exact += static_cast<double>(get<float>(a, {i, p})) * get<float>(b, {p, j});
                magnitude += std::fabs(static_cast<double>(get<float>(a, {i, p})) * get<float>(b, {p, j}));
            }
            EXPECT_NEAR(product[static_cast<size_t>(i * 300 + j)], exact, 1e-6 * magnitude + 1e-6) << i << "," << j;
        }
    }
}
}  // namespace

// _trilinear multiplies its inputs, each unsqueezed at its expand dims, and sums over sumdim.
// Inputs that expand to no dim at all are refused as PyTorch refuses them ("unroll_dim must be
// in [0, -1]"): the kernel fuzzer's three 0-d inputs with sumdim 0 wrote past a vector of no dims.
TEST(KernelTrilinear, ProductsSummedAndZeroDimInputsRefused) {
    KernelHarness h;
    h.input("a", floats({2}, {1.0f, 2.0f}));
    h.input("b", floats({2}, {3.0f, 4.0f}));
    h.input("c", floats({2}, {5.0f, 6.0f}));
    const auto args = [](std::vector<int64_t> sumdim) {
        return std::vector<pt2ov::graph::NamedArgument>{positional("i1", tensor_arg("a")),     positional("i2", tensor_arg("b")),
                                                 positional("i3", tensor_arg("c")),     positional("expand1", ints_arg({})),
                                                 positional("expand2", ints_arg({})),   positional("expand3", ints_arg({})),
                                                 positional("sumdim", ints_arg(sumdim)), positional("unroll_dim", int_arg(0))};
    };
    EXPECT_EQ(values_of<float>(h.run1("aten._trilinear.default", args({0}), DType::Float32, {})), (std::vector<float>{1 * 3 * 5 + 2 * 4 * 6}));
    EXPECT_EQ(values_of<float>(h.run1("aten._trilinear.default", args({}), DType::Float32, {2})), (std::vector<float>{15, 48}));
    KernelHarness scalars;
    for (const char* name : {"a", "b", "c"}) scalars.input(name, floats({}, {2.0f}));
    try {
        scalars.run1("aten._trilinear.default", args({0}), DType::Float32, {});
        FAIL() << "no error";
    } catch (const pt2ov::Error& e) {
        EXPECT_NE(std::string(e.what()).find("unroll_dim must be in [0, -1]"), std::string::npos) << e.what();
    }
}

// unfold's stride along the unfolded dim is step times the dim's stride: where that product does
// not fit in 64 bits (PyTorch's wraps to a negative stride its view refuses) it is refused; a
// huge step over a dim of stride 1 is the view PyTorch makes (the kernel fuzzer: unfold_copy of
// int8[2, 0, 4] with step 2**63 - 1 overflowed, UBSan).
TEST(KernelUnfold, AStepWhoseStrideOverflowsIsRefused) {
    KernelHarness h;
    const int64_t huge = std::numeric_limits<int64_t>::max();
    h.input("e", StridedTensor::allocate(DType::Int8, {2, 0, 4}));
    try {
        h.run1("aten.unfold.default",
               {positional("self", tensor_arg("e")), positional("dimension", int_arg(0)), positional("size", int_arg(0)),
                positional("step", int_arg(huge))},
               DType::Int8, {1, 0, 4, 0});
        FAIL() << "no error";
    } catch (const pt2ov::Error& e) {
        EXPECT_NE(std::string(e.what()).find("is beyond 64 bits"), std::string::npos) << e.what();
    }
    h.input("y", floats({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}));
    const StridedTensor v = h.run1("aten.unfold.default",
                                   {positional("self", tensor_arg("y")), positional("dimension", int_arg(1)), positional("size", int_arg(1)),
                                    positional("step", int_arg(huge))},
                                   DType::Float32, {2, 1, 1});
    EXPECT_EQ(v.strides, (std::vector<int64_t>{4, huge, 1}));  // torch.ops.aten.unfold's
}
