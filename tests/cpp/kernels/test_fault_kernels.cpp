// The CPU kernels of the nodes OpenVINO converts wrongly (docs/EXACTNESS.md O9): kthvalue,
// nonzero, _cdist_forward, erfinv, _safe_softmax, instance_norm, cumsum, logsumexp, gcd. Expected values are worked out
// here by hand or from definitions, never copied from PyTorch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../fixtures/kernel_harness.h"
#include "pt2ov/error.h"

namespace {

using pt2ov::DType;
using pt2ov::graph::bool_arg;
using pt2ov::graph::float_arg;
using pt2ov::graph::int_arg;
using pt2ov::graph::none_arg;
using pt2ov::graph::tensor_arg;
using pt2ov::test::floats;
using pt2ov::test::KernelHarness;
using pt2ov::test::positional;
using pt2ov::test::tensor_of;
using pt2ov::test::transposed;
using pt2ov::test::values_of;

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

TEST(KernelKthvalue, KthSmallestAndItsIndexAlongADim) {
    KernelHarness n;
    // Rows (after the transpose) [3, NaN, 1, 2] and [5, 4, 6, 0]: NaN sorts after every number.
    n.input("x", transposed(floats({4, 2}, {3, 5, kNaN, 4, 1, 6, 2, 0}), 0, 1));
    auto out = n.run("aten.kthvalue.default",
                     {positional("self", tensor_arg("x")), positional("k", int_arg(2)), positional("dim", int_arg(1)),
                      positional("keepdim", bool_arg(true))},
                     {n.output("v", DType::Float32, {2, 1}), n.output("i", DType::Int64, {2, 1})});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].tensor().sizes, (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(values_of<float>(out[0].tensor()), (std::vector<float>{2, 4}));
    EXPECT_EQ(out[1].tensor().dtype, DType::Int64);
    EXPECT_EQ(values_of<int64_t>(out[1].tensor()), (std::vector<int64_t>{3, 1}));

    auto last = n.run("aten.kthvalue.default", {positional("self", tensor_arg("x")), positional("k", int_arg(4))},
                      {n.output("v4", DType::Float32, {2}), n.output("i4", DType::Int64, {2})});
    EXPECT_EQ(last[0].tensor().sizes, (std::vector<int64_t>{2}));  // keepdim=False, dim=-1 by default
    EXPECT_TRUE(std::isnan(values_of<float>(last[0].tensor())[0]));
    EXPECT_EQ(values_of<int64_t>(last[1].tensor()), (std::vector<int64_t>{1, 2}));

    EXPECT_THROW(n.run("aten.kthvalue.default", {positional("self", tensor_arg("x")), positional("k", int_arg(5))},
                       {n.output("v5", DType::Float32, {2}), n.output("i5", DType::Int64, {2})}),
                 pt2ov::UnsupportedError);
}

TEST(KernelNonzero, ZeroDimTensorsHaveNoColumn) {
    KernelHarness n;
    n.input("zero", floats({}, {0.0f}));
    n.input("seven", tensor_of<int32_t>(DType::Int32, {}, {7}));
    auto none = n.run("aten.nonzero.default", {positional("self", tensor_arg("zero"))}, {n.output("a", DType::Int64, {0, 0})});
    EXPECT_EQ(none[0].tensor().sizes, (std::vector<int64_t>{0, 0}));
    auto one = n.run("aten.nonzero.default", {positional("self", tensor_arg("seven"))}, {n.output("b", DType::Int64, {1, 0})});
    EXPECT_EQ(one[0].tensor().sizes, (std::vector<int64_t>{1, 0}));
}

TEST(KernelNonzero, IndicesInRowMajorOrderOfAStridedTensor) {
    KernelHarness n;
    n.input("x", transposed(floats({3, 2}, {0, 1, 2, 0, 0, -0.5f}), 0, 1));  // [[0, 2, 0], [1, 0, -0.5]]
    auto out = n.run("aten.nonzero.default", {positional("self", tensor_arg("x"))}, {n.output("i", DType::Int64, {3, 2})});
    EXPECT_EQ(out[0].tensor().sizes, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(values_of<int64_t>(out[0].tensor()), (std::vector<int64_t>{0, 1, 1, 0, 1, 2}));
}

TEST(KernelCdist, EveryPNorm) {
    KernelHarness n;
    n.input("a", floats({1, 2}, {0, 0}));
    n.input("b", floats({2, 2}, {3, -4, 0, 2}));
    auto cdist = [&](double p) {
        auto out = n.run("aten._cdist_forward.default",
                         {positional("x1", tensor_arg("a")), positional("x2", tensor_arg("b")), positional("p", float_arg(p)),
                          positional("compute_mode", none_arg())},
                         {n.output("d" + std::to_string(p), DType::Float32, {1, 2})});
        return values_of<float>(out[0].tensor());
    };
    EXPECT_EQ(cdist(0), (std::vector<float>{2, 1}));  // how many coordinates differ
    EXPECT_EQ(cdist(1), (std::vector<float>{7, 2}));
    EXPECT_EQ(cdist(2), (std::vector<float>{5, 2}));
    EXPECT_EQ(cdist(std::numeric_limits<double>::infinity()), (std::vector<float>{4, 2}));
    const auto three = cdist(3);
    EXPECT_NEAR(three[0], std::cbrt(27.0 + 64.0), 1e-5);
    EXPECT_NEAR(three[1], 2.0, 1e-6);
}

TEST(KernelErfinv, InvertsErfToFloatPrecisionAndHandlesTheEnds) {
    KernelHarness n;
    const std::vector<float> ys{-1.0f, -0.999f, -0.5f, 0.0f, 0.25f, 0.9999f, 1.0f, 1.5f, kNaN};
    n.input("y", floats({9}, ys));
    auto out = n.run("aten.erfinv.default", {positional("self", tensor_arg("y"))}, {n.output("x", DType::Float32, {9})});
    const auto x = values_of<float>(out[0].tensor());
    EXPECT_EQ(x[0], -kInf);
    EXPECT_EQ(x[6], kInf);
    EXPECT_TRUE(std::isnan(x[7]));
    EXPECT_TRUE(std::isnan(x[8]));
    EXPECT_EQ(x[3], 0.0f);
    for (size_t i : {1u, 2u, 4u, 5u}) {
        // x is erfinv(y) rounded to float: erf(x) is y to within what one float ulp of x moves it.
        const double slope = 2.0 / std::sqrt(M_PI) * std::exp(-double(x[i]) * x[i]);
        EXPECT_NEAR(std::erf(double(x[i])), double(ys[i]), slope * std::abs(x[i]) * 1.2e-7 + 1e-12) << ys[i];
    }
    // erfinv(0.999) is 2.326753765513524; float(0.999) is 0.999 + 1.29e-8, which moves it by that
    // times the slope of erfinv there (sqrt(pi) / 2 * exp(x * x), about 199).
    const double at = 2.326753765513524;
    const double expected = -(at + (double(0.999f) - 0.999) * std::sqrt(M_PI) / 2 * std::exp(at * at));
    EXPECT_NEAR(x[1], expected, 3e-7);
}

TEST(KernelSafeSoftmax, ARowOfMinusInfinityGivesZeros) {
    KernelHarness n;
    n.input("x", floats({2, 3}, {-kInf, -kInf, -kInf, 0, 0, std::log(2.0f)}));
    auto out = n.run("aten._safe_softmax.default", {positional("self", tensor_arg("x")), positional("dim", int_arg(-1))},
                     {n.output("y", DType::Float32, {2, 3})});
    const auto y = values_of<float>(out[0].tensor());
    EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 3), (std::vector<float>{0, 0, 0}));
    EXPECT_NEAR(y[3], 0.25, 1e-7);
    EXPECT_NEAR(y[5], 0.5, 1e-7);
}

TEST(KernelInstanceNorm, InputStatisticsWinOverRunningOnes) {
    KernelHarness n;
    n.input("x", floats({1, 2, 2}, {1, 3, 10, 10}));
    n.input("w", floats({2}, {2, 1}));
    n.input("b", floats({2}, {0.5f, -1}));
    n.input("rm", floats({2}, {100, 100}));
    n.input("rv", floats({2}, {9, 9}));
    auto norm = [&](bool use_input_stats, const std::string& name) {
        auto out = n.run("aten.instance_norm.default",
                         {positional("input", tensor_arg("x")), positional("weight", tensor_arg("w")),
                          positional("bias", tensor_arg("b")), positional("running_mean", tensor_arg("rm")),
                          positional("running_var", tensor_arg("rv")), positional("use_input_stats", bool_arg(use_input_stats)),
                          positional("momentum", float_arg(0.1)), positional("eps", float_arg(0.0)),
                          positional("cudnn_enabled", bool_arg(false))},
                         {n.output(name, DType::Float32, {1, 2, 2})});
        const auto& t = out[0].tensor();
        std::vector<float> v(4);
        std::memcpy(v.data(), t.data, 16);
        return v;
    };
    // Channel 0: mean 2, biased variance 1 → [-1, 1] * 2 + 0.5; channel 1: variance 0, eps 0 → NaN.
    const auto own = norm(true, "own");
    EXPECT_FLOAT_EQ(own[0], -1.5f);
    EXPECT_FLOAT_EQ(own[1], 2.5f);
    EXPECT_TRUE(std::isnan(own[2]));
    // use_input_stats=False: the running statistics (mean 100, std 3).
    const auto running = norm(false, "running");
    EXPECT_FLOAT_EQ(running[0], (1 - 100) / 3.0f * 2 + 0.5f);
    EXPECT_FLOAT_EQ(running[2], (10 - 100) / 3.0f - 1);
}

TEST(KernelCumsum, IntegersAndBoolsSumIntoInt64AlongADim) {
    KernelHarness n;
    n.input("i", transposed(tensor_of<int32_t>(DType::Int32, {3, 2}, {3, 0, -2, 4, 5, -1}), 0, 1));  // [[3, -2, 5], [0, 4, -1]]
    n.input("b", tensor_of<uint8_t>(DType::Bool, {3}, {1, 0, 1}));
    auto rows = n.run("aten.cumsum.default", {positional("self", tensor_arg("i")), positional("dim", int_arg(1))},
                      {n.output("r", DType::Int64, {2, 3})});
    EXPECT_EQ(rows[0].tensor().dtype, DType::Int64);
    EXPECT_EQ(values_of<int64_t>(rows[0].tensor()), (std::vector<int64_t>{3, 1, 6, 0, 4, 3}));
    auto truths = n.run("aten.cumsum.default", {positional("self", tensor_arg("b")), positional("dim", int_arg(0))},
                        {n.output("t", DType::Int64, {3})});
    EXPECT_EQ(values_of<int64_t>(truths[0].tensor()), (std::vector<int64_t>{1, 1, 2}));
    n.input("f", floats({3}, {0.5f, 0.25f, -1}));
    auto sums = n.run("aten.cumsum.default", {positional("self", tensor_arg("f")), positional("dim", int_arg(-1))},
                      {n.output("s", DType::Float32, {3})});
    EXPECT_EQ(values_of<float>(sums[0].tensor()), (std::vector<float>{0.5f, 0.75f, -0.25f}));
}

TEST(KernelLogsumexp, IntegerInputsGiveFloatAndLargeValuesDoNotOverflow) {
    KernelHarness n;
    n.input("i", tensor_of<int32_t>(DType::Int32, {2, 2}, {0, 0, 1000, 1000}));
    auto out = n.run("aten.logsumexp.default", {positional("self", tensor_arg("i")), positional("dim", pt2ov::graph::ints_arg({1}))},
                     {n.output("l", DType::Float32, {2})});
    const auto l = values_of<float>(out[0].tensor());
    EXPECT_NEAR(l[0], std::log(2.0), 1e-7);
    EXPECT_NEAR(l[1], 1000 + std::log(2.0), 1e-4);
    n.input("f", floats({1, 2}, {-kInf, -kInf}));
    auto masked = n.run("aten.logsumexp.default",
                        {positional("self", tensor_arg("f")), positional("dim", pt2ov::graph::ints_arg({1})),
                         positional("keepdim", bool_arg(true))},
                        {n.output("m", DType::Float32, {1, 1})});
    EXPECT_EQ(masked[0].tensor().sizes, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(values_of<float>(masked[0].tensor())[0], -kInf);
}

TEST(KernelGcd, NeverNegativeAndBroadcast) {
    KernelHarness n;
    n.input("a", tensor_of<int32_t>(DType::Int32, {4}, {0, -9, -4, 12}));
    n.input("b", tensor_of<int32_t>(DType::Int32, {4}, {-5, 0, 6, -18}));
    n.input("s", tensor_of<int32_t>(DType::Int32, {}, {-6}));
    auto out = n.run("aten.gcd.default", {positional("self", tensor_arg("a")), positional("other", tensor_arg("b"))},
                     {n.output("g", DType::Int32, {4})});
    EXPECT_EQ(values_of<int32_t>(out[0].tensor()), (std::vector<int32_t>{5, 9, 2, 6}));
    auto with_scalar = n.run("aten.gcd.default", {positional("self", tensor_arg("a")), positional("other", tensor_arg("s"))},
                             {n.output("h", DType::Int32, {4})});
    EXPECT_EQ(values_of<int32_t>(with_scalar[0].tensor()), (std::vector<int32_t>{6, 3, 2, 6}));
    n.input("f", floats({1}, {1.0f}));
    EXPECT_THROW(n.run("aten.gcd.default", {positional("self", tensor_arg("f")), positional("other", tensor_arg("f"))},
                       {n.output("x", DType::Float32, {1})}),
                 pt2ov::UnsupportedError);
}

TEST(KernelLinspace, CountsUpToHalfwayThenDownFromTheEnd) {
    KernelHarness n;
    auto linspace = [&](DType dtype, double start, double end, int64_t steps, const std::string& name) {
        return n.run("aten.linspace.default",
                     {positional("start", float_arg(start)), positional("end", float_arg(end)), positional("steps", int_arg(steps)),
                      {"dtype", pt2ov::graph::dtype_arg(dtype), true}},
                     {n.output(name, dtype, {steps})})[0].tensor();
    };
    // int32: each value computed in double, then truncated toward zero.
    EXPECT_EQ(values_of<int32_t>(linspace(DType::Int32, -3, 5, 7, "a")), (std::vector<int32_t>{-3, -1, 0, 1, 2, 3, 5}));
    // The second half counts down from the end, so the last value is exactly `end`.
    const auto f = values_of<float>(linspace(DType::Float32, 0, 1, 4, "b"));
    EXPECT_EQ(f.back(), 1.0f);
    EXPECT_EQ(f[0], 0.0f);
    EXPECT_FLOAT_EQ(f[1], 1.0f / 3.0f);
    EXPECT_EQ(linspace(DType::Float32, 2, 7, 1, "c").sizes, (std::vector<int64_t>{1}));
    EXPECT_EQ(values_of<float>(linspace(DType::Float32, 2, 7, 1, "d"))[0], 2.0f);
    EXPECT_EQ(linspace(DType::Float32, 2, 7, 0, "e").numel(), 0);
}

}  // namespace
