// The per-call check that routes a call with NaN or inf among its inputs to the CPU kernels
// (runtime/nonfinite.h). The routing itself is exercised end to end (tests/e2e/test_nonfinite.py
// and the zoo's nonfinite cases).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/nonfinite.h"

namespace {

using pt2ov::DType;
using pt2ov::Tensor;
using pt2ov::runtime::cheap_to_scan;
using pt2ov::runtime::first_nonfinite;
using pt2ov::runtime::holds_nonfinite;

template <typename T>
Tensor tensor_of(DType dtype, std::vector<T>& values) {
    return Tensor::view(dtype, {static_cast<int64_t>(values.size())}, values.data());
}

// Every floating dtype: one NaN, +inf or -inf anywhere in a long tensor (both sides of the scan's
// block edges) is found; the largest finite value, subnormals and -0.0 are not non-finite.
TEST(Nonfinite, FindsEveryNonfiniteInEveryFloatingDtype) {
    const float inf = std::numeric_limits<float>::infinity();
    for (size_t at : {size_t{0}, size_t{4095}, size_t{4096}, size_t{9999}}) {
        std::vector<float> f32(10000, 1.5f);
        f32[3] = std::numeric_limits<float>::max();
        f32[4] = std::numeric_limits<float>::denorm_min();
        f32[5] = -0.0f;
        EXPECT_FALSE(holds_nonfinite(tensor_of(DType::Float32, f32)));
        for (float bad : {std::numeric_limits<float>::quiet_NaN(), inf, -inf}) {
            auto copy = f32;
            copy[at] = bad;
            EXPECT_TRUE(holds_nonfinite(tensor_of(DType::Float32, copy))) << "float32 " << bad << " at " << at;
        }
        std::vector<double> f64(10000, -2.0);
        f64[1] = std::numeric_limits<double>::max();
        EXPECT_FALSE(holds_nonfinite(tensor_of(DType::Float64, f64)));
        f64[at] = -std::numeric_limits<double>::infinity();
        EXPECT_TRUE(holds_nonfinite(tensor_of(DType::Float64, f64))) << "float64 at " << at;
        // float16: 65504 is the largest finite (0x7bff); 0x7c00 is +inf, 0xfe00 a NaN.
        std::vector<uint16_t> f16(10000, 0x7bffu);
        EXPECT_FALSE(holds_nonfinite(tensor_of(DType::Float16, f16)));
        f16[at] = 0xfe00u;
        EXPECT_TRUE(holds_nonfinite(tensor_of(DType::Float16, f16))) << "float16 at " << at;
        // bfloat16: 0x7f7f is the largest finite; 0xff80 is -inf.
        std::vector<uint16_t> bf16(10000, 0x7f7fu);
        EXPECT_FALSE(holds_nonfinite(tensor_of(DType::BFloat16, bf16)));
        bf16[at] = 0xff80u;
        EXPECT_TRUE(holds_nonfinite(tensor_of(DType::BFloat16, bf16))) << "bfloat16 at " << at;
    }
}

// Integers and bools hold no NaN, whatever their bits: an int32 of 0x7f800000 is a number.
TEST(Nonfinite, IntegersAreNeverNonfinite) {
    std::vector<int32_t> i32(64, 0x7f800000);
    EXPECT_FALSE(holds_nonfinite(tensor_of(DType::Int32, i32)));
    std::vector<int64_t> i64(64, 0x7ff8000000000000ll);
    EXPECT_FALSE(holds_nonfinite(tensor_of(DType::Int64, i64)));
    std::vector<uint16_t> u16(64, 0x7c00u);
    EXPECT_FALSE(holds_nonfinite(tensor_of(DType::UInt16, u16)));
}

TEST(Nonfinite, FirstNonfiniteNamesTheInput) {
    std::vector<float> finite(8, 0.25f), bad(8, 0.25f);
    bad[7] = std::numeric_limits<float>::quiet_NaN();
    std::vector<int64_t> ids(8, 3);
    EXPECT_EQ(first_nonfinite({tensor_of(DType::Float32, finite), tensor_of(DType::Int64, ids)}), -1);
    EXPECT_EQ(first_nonfinite({tensor_of(DType::Int64, ids), tensor_of(DType::Float32, finite), tensor_of(DType::Float32, bad)}), 2);
    EXPECT_EQ(first_nonfinite({}), -1);
    // An empty tensor holds nothing.
    EXPECT_FALSE(holds_nonfinite(Tensor::view(DType::Float32, {0}, nullptr)));
}

// The outputs are read only where that costs about what reading the inputs did: floating
// output elements at most twice every input element plus 65,536; integer outputs are not read.
TEST(Nonfinite, OutputsAreScannedOnlyWhereCheap) {
    std::vector<float> input(1000, 1.0f), small(2000 + 65536, 1.0f), large(2000 + 65537, 1.0f);
    std::vector<int64_t> ids(10, 1), many_ids(200000, 1);
    const auto in = tensor_of(DType::Float32, input);
    EXPECT_TRUE(cheap_to_scan({tensor_of(DType::Float32, small)}, {in}));
    EXPECT_FALSE(cheap_to_scan({tensor_of(DType::Float32, large)}, {in}));
    EXPECT_TRUE(cheap_to_scan({tensor_of(DType::Int64, many_ids), tensor_of(DType::Float32, small)}, {in}));
    // A language model's prompt: 10 token ids in, 10 x 100,000 logits out.
    std::vector<float> logits(10 * 100000, 0.0f);
    EXPECT_FALSE(cheap_to_scan({tensor_of(DType::Float32, logits)}, {tensor_of(DType::Int64, ids)}));
}

}  // namespace
