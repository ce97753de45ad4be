// The convolution kernel (src/kernels/convolution.cpp): values worked out by hand, strided
// inputs against contiguous ones, 16-bit rounding where PyTorch adds in 16 bits, the split over
// threads, and the errors. The grid against eager is tests/e2e/test_kernels_conv.py.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#ifdef PT2OV_WITH_TBB
#include <oneapi/tbb/task_arena.h>
#endif

#include "../fixtures/kernel_harness.h"
#include "common/bfloat16.h"
#include "kernels/tensor.h"
#include "pt2ov/error.h"

namespace {

using pt2ov::DType;
using pt2ov::graph::Argument;
using pt2ov::graph::NamedArgument;
using namespace pt2ov::kernels;
using pt2ov::graph::bool_arg;
using pt2ov::graph::int_arg;
using pt2ov::graph::ints_arg;
using pt2ov::graph::none_arg;
using pt2ov::graph::string_arg;
using pt2ov::graph::tensor_arg;
using pt2ov::test::floats;
using pt2ov::test::KernelHarness;
using pt2ov::test::positional;
using pt2ov::test::tensor_of;
using pt2ov::test::values_of;

// aten.convolution.default's arguments.
std::vector<NamedArgument> convolution_args(Argument input, Argument weight, Argument bias, std::vector<int64_t> stride,
                                            std::vector<int64_t> padding, std::vector<int64_t> dilation, bool transposed,
                                            std::vector<int64_t> output_padding, int64_t groups) {
    return {positional("input", std::move(input)),         positional("weight", std::move(weight)),
            positional("bias", std::move(bias)),           positional("stride", ints_arg(stride)),
            positional("padding", ints_arg(padding)),      positional("dilation", ints_arg(dilation)),
            positional("transposed", bool_arg(transposed)), positional("output_padding", ints_arg(output_padding)),
            positional("groups", int_arg(groups))};
}

// Deterministic values with few distinct ones, so sums are exact in float.
StridedTensor pattern(std::vector<int64_t> sizes, uint32_t seed) {
    StridedTensor t = StridedTensor::allocate(DType::Float32, sizes);
    auto* p = reinterpret_cast<float*>(t.data);
    uint32_t state = seed;
    for (int64_t i = 0; i < t.numel(); ++i) {
        state = state * 1664525u + 1013904223u;
        p[i] = static_cast<float>(static_cast<int32_t>(state >> 28) - 8) / 4.0f;
    }
    return t;
}

TEST(ConvolutionKernel, OneDimensionalByHand) {
    // Padding 1 on each side: out[i] = x[i-1] - x[i+1] + 10.
    KernelHarness n;
    auto x = tensor_arg(n.input("x", floats({1, 1, 5}, {1, 2, 3, 4, 5})));
    auto w = tensor_arg(n.input("w", floats({1, 1, 3}, {1, 0, -1})));
    auto b = tensor_arg(n.input("b", floats({1}, {10})));
    const auto out = n.run1("aten.convolution.default", convolution_args(x, w, b, {1}, {1}, {1}, false, {0}, 1),
                            DType::Float32, {1, 1, 5});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{8, 8, 8, 8, 14}));
}

TEST(ConvolutionKernel, StridedDilatedGroupedByHand) {
    // Two groups of one channel; stride 2, dilation 2: out[g][j] = w[g][0] * x[g][2j] + w[g][1] * x[g][2j + 2].
    KernelHarness n;
    auto x = tensor_arg(n.input("x", floats({1, 2, 6}, {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60})));
    auto w = tensor_arg(n.input("w", floats({2, 1, 2}, {1, 1, 1, -1})));
    const auto out = n.run1("aten.convolution.default", convolution_args(x, w, none_arg(), {2}, {0}, {2}, false, {0}, 2),
                            DType::Float32, {1, 2, 2});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1 + 3, 3 + 5, 10 - 30, 30 - 50}));
}

TEST(ConvolutionKernel, TransposedByHand) {
    // Each input scatters x[i] * w into out[2i .. 2i + 2]; overlaps add.
    KernelHarness n;
    auto x = tensor_arg(n.input("x", floats({1, 1, 2}, {1, 10})));
    auto w = tensor_arg(n.input("w", floats({1, 1, 3}, {1, 2, 3})));
    const auto out = n.run1("aten.conv_transpose1d.default",
                            {positional("input", x), positional("weight", w), positional("bias", none_arg()),
                             positional("stride", ints_arg({2}))},
                            DType::Float32, {1, 1, 5});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1, 2, 3 + 10, 20, 30}));
}

TEST(ConvolutionKernel, SamePaddingOfAnEvenKernelPadsMoreAfter) {
    // Kernel 2, 'same': one zero after the input, none before: out[i] = x[i] + x[i + 1].
    KernelHarness n;
    auto x = tensor_arg(n.input("x", floats({1, 1, 4}, {1, 2, 3, 4})));
    auto w = tensor_arg(n.input("w", floats({1, 1, 2}, {1, 1})));
    const auto out = n.run1("aten.conv1d.padding",
                            {positional("input", x), positional("weight", w), positional("bias", none_arg()),
                             positional("stride", ints_arg({1})), positional("padding", string_arg("same"))},
                            DType::Float32, {1, 1, 4});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{3, 5, 7, 4}));
}

// Every path (im2col, the 1x1 one that reads the input in place, transposed) on a strided
// input gives what it gives on the same values stored contiguously.
TEST(ConvolutionKernel, StridedInputsGiveTheContiguousResult) {
    const StridedTensor x = pattern({2, 6, 5, 7}, 3);
    // The same values stored channels-last.
    StridedTensor storage = StridedTensor::allocate(DType::Float32, {2, 5, 7, 6});
    const StridedTensor channels_last = storage.view({2, 6, 5, 7}, {5 * 7 * 6, 1, 7 * 6, 6});
    copy_into(x, channels_last);
    struct Case {
        std::vector<int64_t> weight;
        std::vector<int64_t> stride, padding, dilation;
        bool transposed;
        int64_t groups;
        std::vector<int64_t> out;
    };
    const std::vector<Case> cases = {
        {{4, 6, 3, 3}, {1, 1}, {1, 1}, {1, 1}, false, 1, {2, 4, 5, 7}},
        {{4, 3, 1, 1}, {1, 1}, {0, 0}, {1, 1}, false, 2, {2, 4, 5, 7}},
        {{6, 1, 3, 2}, {2, 1}, {1, 0}, {1, 2}, false, 6, {2, 6, 3, 5}},
        {{6, 2, 3, 3}, {2, 2}, {1, 1}, {1, 1}, true, 2, {2, 4, 9, 13}},
    };
    for (const auto& c : cases) {
        std::vector<std::vector<float>> results;
        for (const StridedTensor& input : {x, channels_last}) {
            KernelHarness n;
            auto in = tensor_arg(n.input("x", input));
            auto w = tensor_arg(n.input("w", pattern(c.weight, 5)));
            results.push_back(values_of<float>(n.run1("aten.convolution.default",
                                                       convolution_args(in, w, none_arg(), c.stride, c.padding, c.dilation,
                                                                        c.transposed, {0, 0}, c.groups),
                                                       DType::Float32, c.out)));
        }
        EXPECT_EQ(results[0], results[1]) << "weight " << c.weight[0] << "x" << c.weight[1];
    }
}

float half_value(const StridedTensor& t, int64_t i) {
    uint16_t bits;
    std::memcpy(&bits, t.data + i * 2, 2);
    // float16 bits to float for normal numbers (enough for the values here)
    const uint32_t sign = (bits & 0x8000u) << 16, exponent = (bits >> 10) & 0x1Fu, mantissa = bits & 0x3FFu;
    const uint32_t f = sign | ((exponent + 112) << 23) | (mantissa << 13);
    return std::bit_cast<float>(f);
}

// Output 2 of this transposed convolution gathers 1024 (kernel offset 0), then 0.5 and 0.5.
// PyTorch's col2im adds them in float16 in that order: 1024 + 0.5 rounds to 1024 (ties to
// even), twice; summed in float it would be 1025, a float16.
TEST(ConvolutionKernel, HalfTransposedAddsInSixteenBitsInKernelOrder) {
    if (__builtin_cpu_supports("avx512fp16")) GTEST_SKIP() << "PyTorch hands float16 to oneDNN on this CPU";
    KernelHarness n;
    const uint16_t one = 0x3C00, half = 0x3800, big = 0x6400;  // 1, 0.5, 1024
    auto x = tensor_arg(n.input("x", tensor_of<uint16_t>(DType::Float16, {1, 1, 3}, {one, one, one})));
    auto w = tensor_arg(n.input("w", tensor_of<uint16_t>(DType::Float16, {1, 1, 3}, {big, half, half})));
    const auto out = n.run1("aten.convolution.default", convolution_args(x, w, none_arg(), {1}, {0}, {1}, true, {0}, 1),
                            DType::Float16, {1, 1, 5});
    EXPECT_EQ(half_value(out, 2), 1024.0f);
    EXPECT_EQ(half_value(out, 0), 1024.0f);
    EXPECT_EQ(half_value(out, 4), 0.5f);
}

// A forward float16 convolution accumulates in float and rounds once: 1024 + 0.5 + 0.5 = 1025.
TEST(ConvolutionKernel, HalfForwardRoundsOnce) {
    KernelHarness n;
    const uint16_t one = 0x3C00, half = 0x3800, big = 0x6400;
    auto x = tensor_arg(n.input("x", tensor_of<uint16_t>(DType::Float16, {1, 1, 3}, {big, one, one})));
    auto w = tensor_arg(n.input("w", tensor_of<uint16_t>(DType::Float16, {1, 1, 3}, {one, half, half})));
    const auto out = n.run1("aten.convolution.default", convolution_args(x, w, none_arg(), {1}, {0}, {1}, false, {0}, 1),
                            DType::Float16, {1, 1, 1});
    EXPECT_EQ(half_value(out, 0), 1025.0f);
}

// bfloat16 goes to oneDNN in PyTorch (one rounding) unless an output_padding reaches the
// stride; then its col2im adds in bfloat16: 256 + 1 rounds to 256 (ties to even), twice.
TEST(ConvolutionKernel, BfloatTransposedWithABigOutputPaddingAddsInSixteenBits) {
    auto bf = [](float v) { return pt2ov::float_to_bfloat16_bits(v); };
    for (const int64_t output_padding : {0, 1}) {
        KernelHarness n;
        auto x = tensor_arg(n.input("x", tensor_of<uint16_t>(DType::BFloat16, {1, 1, 5}, {bf(1), bf(1), bf(1), bf(1), bf(1)})));
        auto w = tensor_arg(n.input("w", tensor_of<uint16_t>(DType::BFloat16, {1, 1, 3}, {bf(256), bf(1), bf(1)})));
        // stride 1, dilation 2: output 4 gathers kernel offsets 0, 1, 2 from inputs 4, 2, 0.
        const auto out = n.run1("aten.convolution.default",
                                convolution_args(x, w, none_arg(), {1}, {0}, {2}, true, {output_padding}, 1),
                                DType::BFloat16, {1, 1, 9 + output_padding});
        uint16_t bits;
        std::memcpy(&bits, out.data + 4 * 2, 2);
        const float got = pt2ov::bfloat16_bits_to_float(bits);
        if (output_padding == 1) {
            EXPECT_EQ(got, 256.0f);
        } else if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                   __builtin_cpu_supports("avx512dq")) {
            EXPECT_EQ(got, 258.0f);
        }
    }
}

#ifdef PT2OV_WITH_TBB
// Work is split in blocks fixed by the shapes: one thread and all threads give the same bits.
TEST(ConvolutionKernel, ResultDoesNotDependOnTheThreads) {
    const StridedTensor x = pattern({3, 32, 30, 30}, 11);
    for (const bool transposed : {false, true}) {
        const StridedTensor w = transposed ? pattern({32, 16, 3, 3}, 13) : pattern({48, 32, 3, 3}, 12);
        auto call = [&] {
            KernelHarness n;
            auto in = tensor_arg(n.input("x", x));
            auto weight = tensor_arg(n.input("w", w));
            const std::vector<int64_t> output_padding = transposed ? std::vector<int64_t>{1, 1} : std::vector<int64_t>{0, 0};
            const std::vector<int64_t> out = transposed ? std::vector<int64_t>{3, 16, 60, 60} : std::vector<int64_t>{3, 48, 15, 15};
            return values_of<float>(n.run1("aten.convolution.default",
                                            convolution_args(in, weight, none_arg(), {2, 2}, {1, 1}, {1, 1}, transposed, output_padding, 1),
                                            DType::Float32, out));
        };
        std::vector<float> alone;
        oneapi::tbb::task_arena one_thread(1);
        one_thread.execute([&] { alone = call(); });
        const std::vector<float> shared = call();
        ASSERT_EQ(alone.size(), shared.size());
        EXPECT_EQ(std::memcmp(alone.data(), shared.data(), alone.size() * sizeof(float)), 0) << "transposed " << transposed;
    }
}
#endif

TEST(ConvolutionKernel, RefusesWhatPyTorchRefuses) {
    auto fails_with = [](DType dtype, std::vector<int64_t> in, std::vector<int64_t> weight, bool transposed, int64_t groups,
                         std::vector<int64_t> output_padding, const std::string& message) {
        KernelHarness n;
        auto x = tensor_arg(n.input("x", StridedTensor::allocate(dtype, in)));
        auto w = tensor_arg(n.input("w", StridedTensor::allocate(dtype, weight)));
        const std::vector<int64_t> ones(in.size() - 2, 1), zeros(in.size() - 2, 0);
        try {
            n.run1("aten.convolution.default", convolution_args(x, w, none_arg(), ones, zeros, ones, transposed, output_padding, groups),
                   dtype, {1, 1, 1});
            ADD_FAILURE() << "no error; expected: " << message;
        } catch (const pt2ov::Error& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("node_under_test"), std::string::npos) << e.what();
        }
    };
    fails_with(DType::Float32, {1, 3, 5}, {4, 2, 3}, false, 1, {0}, "expected input[1, 3, 5] to have 2 channels");
    fails_with(DType::Float32, {1, 2, 2}, {4, 2, 3}, false, 1, {0}, "Kernel size can't be greater than actual input size");
    fails_with(DType::Float32, {1, 4, 5}, {4, 2, 3}, true, 3, {0}, "not divisible by groups");
    fails_with(DType::Float32, {1, 4, 5}, {4, 2, 3}, true, 1, {1}, "output padding must be smaller than either stride or dilation");
    fails_with(DType::Bool, {1, 2, 5}, {4, 2, 3}, false, 1, {0}, "convolution of bool tensors is not implemented");
    fails_with(DType::Int32, {1, 4, 5}, {4, 2, 3}, true, 1, {0}, "transposed convolution of int32 tensors is not implemented");
}

}  // namespace
