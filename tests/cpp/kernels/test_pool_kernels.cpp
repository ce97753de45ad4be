// The max pooling, adaptive pooling and embedding kernels (src/kernels/pooling.cpp,
// embedding.cpp) on values worked out by hand: NaN wins a window with its last index, a window of
// -inf gives its first position, ceil_mode's last window starts inside the input, strided inputs,
// an unused indices output, and the errors that name the node.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../fixtures/kernel_harness.h"
#include "pt2ov/error.h"

namespace pt2ov {
namespace {

using graph::bool_arg;
using graph::int_arg;
using graph::ints_arg;
using graph::none_arg;
using graph::tensor_arg;
using kernels::StridedTensor;
using test::KernelHarness;
using test::positional;
using test::tensor_of;
using test::values_of;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(KernelMaxPool, NaNWinsWithItsLastIndexAndMinusInfGivesTheFirstPosition) {
    KernelHarness h;
    // [1, 1, 4, 4]: window (0, 0) holds two NaN (positions 1 and 4), window (0, 1) none, window
    // (1, 0) only -inf, window (1, 1) a tie of 7 (the first kept).
    const auto x = h.input("x", tensor_of<float>(DType::Float32, {1, 1, 4, 4},
                                                 {1, kNaN, 3, 2, kNaN, 0, 5, 4, -kInf, -kInf, 7, 7, -kInf, -kInf, 1, 2}));
    const auto out = h.run("aten.max_pool2d_with_indices.default",
                           {positional("self", tensor_arg(x)), positional("kernel_size", ints_arg({2}))},
                           {h.output("v", DType::Float32, {1, 1, 2, 2}), h.output("i", DType::Int64, {1, 1, 2, 2})});
    const auto values = values_of<float>(out.at(0).tensor());
    EXPECT_TRUE(std::isnan(values[0]));
    EXPECT_EQ(values[1], 5.0f);
    EXPECT_EQ(values[2], -kInf);
    EXPECT_EQ(values[3], 7.0f);
    EXPECT_EQ(values_of<int64_t>(out.at(1).tensor()), (std::vector<int64_t>{4, 6, 8, 10}));
}

TEST(KernelMaxPool, CeilModeDilationAndStridesAsPyTorch) {
    KernelHarness h;
    // 5x5 of 0..24 viewed transposed; kernel 2, stride 2, padding 1, ceil_mode: 3x3 windows, the
    // last starting inside the input.
    StridedTensor grid = tensor_of<float>(DType::Float32, {1, 1, 5, 5}, [] {
        std::vector<float> v;
        for (int k = 0; k < 25; ++k) v.push_back(static_cast<float>(k));
        return v;
    }());
    const auto x = h.input("x", grid.view({1, 1, 5, 5}, {25, 25, 1, 5}));  // x[i][j] = 5 j + i
    const auto out = h.run("aten.max_pool2d_with_indices.default",
                           {positional("self", tensor_arg(x)), positional("kernel_size", ints_arg({2})), positional("stride", ints_arg({2})),
                            positional("padding", ints_arg({1})), positional("dilation", ints_arg({1})),
                            positional("ceil_mode", bool_arg(true))},
                           {h.output("v", DType::Float32, {1, 1, 3, 3}), h.output("i", DType::Int64, {1, 1, 3, 3})});
    EXPECT_EQ(values_of<float>(out.at(0).tensor()), (std::vector<float>{0, 10, 20, 2, 12, 22, 4, 14, 24}));
    EXPECT_EQ(values_of<int64_t>(out.at(1).tensor()), (std::vector<int64_t>{0, 2, 4, 10, 12, 14, 20, 22, 24}));
    // Dilation 2 with padding 1 over 3x3 of 0..8: taps skip the padding by whole dilations.
    const auto y = h.input("y", tensor_of<int32_t>(DType::Int32, {1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8}));
    const auto dilated = h.run("aten.max_pool2d_with_indices.default",
                               {positional("self", tensor_arg(y)), positional("kernel_size", ints_arg({2})),
                                positional("stride", ints_arg({1})), positional("padding", ints_arg({1})),
                                positional("dilation", ints_arg({2}))},
                               {h.output("dv", DType::Int32, {1, 3, 3}), none_arg()});
    EXPECT_EQ(values_of<int32_t>(dilated.at(0).tensor()), (std::vector<int32_t>{4, 5, 4, 7, 8, 7, 4, 5, 4}));
    EXPECT_FALSE(dilated.at(1).is_tensor());  // the unused indices output stays None
}

TEST(KernelMaxPool, RefusesWhatPyTorchRefusesNamingTheNode) {
    KernelHarness h;
    const auto x = h.input("x", tensor_of<float>(DType::Float32, {1, 1, 2, 2}, {1, 2, 3, 4}));
    try {
        h.run("aten.max_pool2d_with_indices.default",
              {positional("self", tensor_arg(x)), positional("kernel_size", ints_arg({2})), positional("stride", ints_arg({})),
               positional("padding", ints_arg({2}))},
              {h.output("v", DType::Float32, {1, 1, 3, 3}), h.output("i", DType::Int64, {1, 1, 3, 3})});
        FAIL() << "padding 2 of a kernel of 2 was accepted";
    } catch (const pt2ov::Error& e) {
        EXPECT_NE(std::string(e.what()).find("node_under_test"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("at most half of the kernel size"), std::string::npos) << e.what();
    }
}

TEST(KernelAdaptivePool, WindowsOverlapAsPyTorchCutsThem) {
    KernelHarness h;
    // One row of 5 into 3: windows [0, 2), [1, 4), [3, 5).
    const auto x = h.input("x", tensor_of<float>(DType::Float32, {1, 1, 5}, {1, 2, 4, 8, 16}));
    const auto mean = h.run1("aten._adaptive_avg_pool2d.default", {positional("self", tensor_arg(x)), positional("output_size", ints_arg({1, 3}))},
                             DType::Float32, {1, 1, 3});
    EXPECT_EQ(values_of<float>(mean), (std::vector<float>{1.5f, 14.0f / 3.0f, 12.0f}));
    const auto y = h.input("y", tensor_of<float>(DType::Float32, {1, 5}, {kNaN, 2, kNaN, -kInf, -kInf}));
    const auto out = h.run("aten.adaptive_max_pool1d.default", {positional("self", tensor_arg(y)), positional("output_size", ints_arg({3}))},
                           {h.output("v", DType::Float32, {1, 3}), h.output("i", DType::Int64, {1, 3})});
    const auto values = values_of<float>(out.at(0).tensor());
    EXPECT_TRUE(std::isnan(values[0]) && std::isnan(values[1]));
    EXPECT_EQ(values[2], -kInf);
    EXPECT_EQ(values_of<int64_t>(out.at(1).tensor()), (std::vector<int64_t>{0, 2, 3}));
}

TEST(KernelEmbedding, PicksRowsOfAStridedWeightAndRefusesAnIndexOutOfRange) {
    KernelHarness h;
    // weight [3, 2] as the transpose of [[0, 1, 2], [10, 11, 12]]: row r is (r, 10 + r).
    StridedTensor stored = tensor_of<int64_t>(DType::Int64, {2, 3}, {0, 1, 2, 10, 11, 12});
    const auto w = h.input("w", stored.view({3, 2}, {1, 3}));
    const auto i = h.input("i", tensor_of<int32_t>(DType::Int32, {2, 2}, {2, 0, 1, 2}));
    const auto out = h.run1("aten.embedding.default", {positional("weight", tensor_arg(w)), positional("indices", tensor_arg(i)),
                                                       positional("padding_idx", int_arg(0))},
                            DType::Int64, {2, 2, 2});
    EXPECT_EQ(values_of<int64_t>(out), (std::vector<int64_t>{2, 12, 0, 10, 1, 11, 2, 12}));
    const auto bad = h.input("bad", tensor_of<int64_t>(DType::Int64, {2}, {1, 3}));
    try {
        h.run1("aten.embedding.default", {positional("weight", tensor_arg(w)), positional("indices", tensor_arg(bad))}, DType::Int64, {2, 2});
        FAIL() << "index 3 of 3 rows was accepted";
    } catch (const pt2ov::Error& e) {
        EXPECT_NE(std::string(e.what()).find("node_under_test"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("index 3 is out of range for 3 embeddings"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace pt2ov
