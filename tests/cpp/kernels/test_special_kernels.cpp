// The CPU kernels of special functions, orthogonal polynomials and the ops on a float's parts,
// run through find_kernel on hand-built nodes. Expected values come from identities and closed
// forms (Gamma(5) = 24, psi(1) = -Euler's gamma, zeta(2) = pi^2/6, T_n(cos t) = cos(n t), ...),
// never from PyTorch; its own numbers are compared end to end in tests/e2e/test_kernels_special.py.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include "../fixtures/kernel_harness.h"
#include "kernels/tensor.h"
#include "pt2ov/error.h"

namespace {

using pt2ov::DType;
using pt2ov::graph::int_arg;
using pt2ov::graph::tensor_arg;
using namespace pt2ov::kernels;
using pt2ov::test::KernelHarness;
using pt2ov::test::positional;
using pt2ov::test::tensor_of;
using pt2ov::test::values_of;

std::vector<double> unary(const std::string& target, const std::string& name, const std::vector<double>& x) {
    KernelHarness h;
    const int64_t n = static_cast<int64_t>(x.size());
    const auto in = h.input("x", tensor_of(DType::Float64, {n}, x));
    return values_of<double>(h.run1(target, {positional(name, tensor_arg(in))}, DType::Float64, {n}));
}

constexpr double kPi = std::numbers::pi;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(SpecialKernels, GammaFamilyAtKnownPoints) {
    const auto lg = unary("aten.lgamma.default", "self", {5.0, 0.5, 1.0});
    EXPECT_NEAR(lg[0], std::log(24.0), 1e-12);
    EXPECT_NEAR(lg[1], 0.5 * std::log(kPi), 1e-12);
    EXPECT_EQ(lg[2], 0.0);
    const auto psi = unary("aten.digamma.default", "self", {1.0, 0.0, -0.0, -2.0, 0.5, 10.0});
    EXPECT_NEAR(psi[0], -0.57721566490153286, 1e-13);
    EXPECT_EQ(psi[1], -kInf);
    EXPECT_EQ(psi[2], kInf);
    EXPECT_TRUE(std::isnan(psi[3]));
    EXPECT_NEAR(psi[4], -0.57721566490153286 - 2 * std::log(2.0), 1e-13);
    EXPECT_NEAR(psi[5], -0.57721566490153286 + 7129.0 / 2520.0, 1e-13);  // H_9 - gamma

    KernelHarness h;
    const auto x = h.input("x", tensor_of(DType::Float64, {2}, std::vector<double>{1.0, 0.5}));
    const auto trigamma = values_of<double>(
        h.run1("aten.polygamma.default", {positional("n", int_arg(1)), positional("self", tensor_arg(x))}, DType::Float64, {2}));
    // PyTorch's trigamma (six recurrence steps, a short asymptotic tail) is good to about 1e-9.
    EXPECT_NEAR(trigamma[0], kPi * kPi / 6, 1e-8);
    EXPECT_NEAR(trigamma[1], kPi * kPi / 2, 1e-8);
    // polygamma(2, 1) = -2 zeta(3).
    const auto tetragamma = values_of<double>(
        h.run1("aten.polygamma.default", {positional("n", int_arg(2)), positional("self", tensor_arg(x))}, DType::Float64, {2}));
    EXPECT_NEAR(tetragamma[0], -2 * 1.2020569031595943, 1e-12);
    EXPECT_THROW(h.run1("aten.polygamma.default", {positional("n", int_arg(-1)), positional("self", tensor_arg(x))},
                        DType::Float64, {2}),
                 pt2ov::Error);

    // mvlgamma(x, 2) = lgamma(x - 1/2) + lgamma(x) + log(pi) / 2; a p of a damaged archive (the
    // kernel fuzzer's 2**40 hung the call) is refused.
    const auto y = h.input("y", tensor_of(DType::Float64, {2}, std::vector<double>{1.5, 3.0}));
    const auto mv = values_of<double>(
        h.run1("aten.mvlgamma.default", {positional("self", tensor_arg(y)), positional("p", int_arg(2))}, DType::Float64, {2}));
    EXPECT_NEAR(mv[0], std::lgamma(1.0) + std::lgamma(1.5) + 0.5 * std::log(kPi), 1e-12);
    EXPECT_NEAR(mv[1], std::lgamma(2.5) + std::lgamma(3.0) + 0.5 * std::log(kPi), 1e-12);
    try {
        h.run1("aten.mvlgamma.default", {positional("self", tensor_arg(y)), positional("p", int_arg(int64_t{1} << 40))},
               DType::Float64, {2});
        ADD_FAILURE() << "mvlgamma of p = 2**40 was not refused";
    } catch (const pt2ov::Error& e) {
        EXPECT_NE(std::string(e.what()).find("beyond the 2**16 terms"), std::string::npos) << e.what();
    }
}

TEST(SpecialKernels, ZetaAndIncompleteGamma) {
    KernelHarness h;
    const auto s = h.input("s", tensor_of(DType::Float64, {3}, std::vector<double>{2.0, 4.0, 1.0}));
    const auto q = h.input("q", tensor_of(DType::Float64, {3}, std::vector<double>{1.0, 1.0, 1.0}));
    const auto z = values_of<double>(
        h.run1("aten.special_zeta.default", {positional("self", tensor_arg(s)), positional("other", tensor_arg(q))}, DType::Float64, {3}));
    EXPECT_NEAR(z[0], kPi * kPi / 6, 1e-12);
    EXPECT_NEAR(z[1], std::pow(kPi, 4) / 90, 1e-12);
    EXPECT_EQ(z[2], kInf);

    // P(1, x) = 1 - exp(-x); P(a, x) + Q(a, x) = 1, also where a is large and near x.
    const auto a = h.input("a", tensor_of(DType::Float64, {4}, std::vector<double>{1.0, 1.0, 50.0, 300.0}));
    const auto x = h.input("x", tensor_of(DType::Float64, {4}, std::vector<double>{0.3, 4.0, 48.0, 305.0}));
    const auto p = values_of<double>(
        h.run1("aten.igamma.default", {positional("self", tensor_arg(a)), positional("other", tensor_arg(x))}, DType::Float64, {4}));
    const auto c = values_of<double>(
        h.run1("aten.igammac.default", {positional("self", tensor_arg(a)), positional("other", tensor_arg(x))}, DType::Float64, {4}));
    EXPECT_NEAR(p[0], 1 - std::exp(-0.3), 1e-14);
    EXPECT_NEAR(p[1], 1 - std::exp(-4.0), 1e-14);
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(p[i] + c[i], 1.0, 1e-12) << i;
}

TEST(SpecialKernels, BesselAndErrorFunctionsAtKnownPoints) {
    EXPECT_EQ(unary("aten.i0.default", "self", {0.0})[0], 1.0);
    EXPECT_NEAR(unary("aten.special_i0e.default", "self", {1.0})[0], 1.2660658777520082 * std::exp(-1.0), 1e-14);
    EXPECT_NEAR(unary("aten.special_i1.default", "self", {-1.0})[0], -0.5651591039924851, 1e-14);
    EXPECT_EQ(unary("aten.special_erfcx.default", "self", {0.0})[0], 1.0);
    EXPECT_NEAR(unary("aten.special_erfcx.default", "self", {30.0})[0], std::exp(900.0 - 900.0) / (30.0 * std::sqrt(kPi)) *
                                                                          (1 - 1 / (2 * 900.0) + 3 / (4 * 810000.0)), 1e-9);
    const auto ndtri = unary("aten.special_ndtri.default", "self", {0.5, 0.0, 1.0, 1.5, 0.975});
    EXPECT_EQ(ndtri[0], 0.0);
    EXPECT_EQ(ndtri[1], -kInf);
    EXPECT_EQ(ndtri[2], kInf);
    EXPECT_TRUE(std::isnan(ndtri[3]));
    EXPECT_NEAR(ndtri[4], 1.959963984540054, 1e-12);
    const auto entr = unary("aten.special_entr.default", "self", {0.5, 0.0, -1.0, kNaN});
    EXPECT_NEAR(entr[0], 0.5 * std::log(2.0), 1e-15);
    EXPECT_EQ(entr[1], 0.0);
    EXPECT_EQ(entr[2], -kInf);
    EXPECT_TRUE(std::isnan(entr[3]));
    // J0, J1, Y0 against their first zeros; K0 and Y0 at 0; j0(x) = sin x / x.
    EXPECT_NEAR(unary("aten.special_bessel_j0.default", "self", {2.404825557695773})[0], 0.0, 1e-14);
    // PyTorch's large-argument J1 is good to a few 1e-8 absolute (2.6e-8 at this zero).
    EXPECT_NEAR(unary("aten.special_bessel_j1.default", "self", {7.015586669815619})[0], 0.0, 1e-7);
    EXPECT_NEAR(unary("aten.special_bessel_y0.default", "self", {0.8935769662791675})[0], 0.0, 1e-14);
    EXPECT_EQ(unary("aten.special_bessel_y0.default", "self", {0.0})[0], -kInf);
    EXPECT_EQ(unary("aten.special_modified_bessel_k0.default", "self", {0.0})[0], kInf);
    EXPECT_TRUE(std::isnan(unary("aten.special_modified_bessel_k1.default", "self", {-1.0})[0]));
    EXPECT_NEAR(unary("aten.special_spherical_bessel_j0.default", "x", {2.0})[0], std::sin(2.0) / 2.0, 1e-15);
    EXPECT_NEAR(unary("aten.special_airy_ai.default", "x", {0.0})[0], 0.3550280538878172, 1e-15);
    EXPECT_TRUE(std::isnan(unary("aten.special_airy_ai.default", "x", {kInf})[0]));
}

TEST(SpecialKernels, ChebyshevOnATransposedTensorAndNegativeDegrees) {
    KernelHarness h;
    // x laid out as a transposed (3, 2) tensor; n = -1 gives 0, NaN n gives 0.
    const std::vector<double> theta = {0.3, 1.1, 2.0, 0.7, 2.9, 1.6};
    std::vector<double> stored(6);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 2; ++j) stored[j * 3 + i] = std::cos(theta[i * 2 + j]);
    }
    StridedTensor x = tensor_of(DType::Float64, {2, 3}, stored);
    const auto xin = h.input("x", x.view({3, 2}, {1, 3}));
    const auto n = h.input("n", tensor_of(DType::Float64, {3, 2}, std::vector<double>{3, 9, 12, 0, -1, kNaN}));
    const auto t = values_of<double>(h.run1("aten.special_chebyshev_polynomial_t.default",
                                            {positional("x", tensor_arg(xin)), positional("n", tensor_arg(n))},
                                            DType::Float64, {3, 2}));
    const double degree[] = {3, 9, 12, 0};
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(t[k], std::cos(degree[k] * theta[k]), 1e-12) << k;
    EXPECT_EQ(t[4], 0.0);
    EXPECT_EQ(t[5], 0.0);
}

// The recurrences outside (-1, 1) take n steps: one element's degree beyond 2**24, or a call whose
// elements take more than 2**26 steps together, is refused with one line (the kernel fuzzer's 125
// degrees near 2**24 each ran for minutes). Inside (-1, 1) the closed form serves any degree.
TEST(SpecialKernels, PolynomialRecurrencesAreBoundedPerElementAndPerCall) {
    const auto message_of = [](const std::function<void()>& run) {
        try {
            run();
        } catch (const pt2ov::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    KernelHarness h;
    const double outside = -1.0000000000000002;  // the fuzzer's value: grows by 1e41 in 2.7e9 steps
    const auto one = h.input("one", tensor_of(DType::Float64, {1}, std::vector<double>{outside}));
    const auto huge = h.input("huge", tensor_of(DType::Float64, {1}, std::vector<double>{9.0e11}));
    const auto run = [&](const std::string& x, const std::string& n, std::vector<int64_t> sizes) {
        return h.run1("aten.special_chebyshev_polynomial_u.default",
                      {positional("x", tensor_arg(x)), positional("n", tensor_arg(n))}, DType::Float64,
                      std::move(sizes));
    };
    EXPECT_NE(message_of([&] { run("one", "huge", {1}); }).find("beyond the 2**24 steps"), std::string::npos);
    // 8 elements of 2**24 steps each: each within the element bound, together beyond the call's.
    const auto many_x = h.input("many_x", tensor_of(DType::Float64, {8}, std::vector<double>(8, outside)));
    const auto many_n = h.input("many_n", tensor_of(DType::Float64, {8}, std::vector<double>(8, 16777216.0)));
    EXPECT_NE(message_of([&] { run("many_x", "many_n", {8}); }).find("2**26 steps pt2ov takes in one call"),
              std::string::npos);
    // Inside (-1, 1) a large degree takes the closed form: sin((n + 1) theta) / sin(theta).
    const auto inside = h.input("inside", tensor_of(DType::Float64, {8}, std::vector<double>(8, 0.5)));
    const auto u = values_of<double>(run("inside", "many_n", {8}));
    const double theta = std::acos(0.5);
    for (double v : u) EXPECT_NEAR(v, std::sin(16777217.0 * theta) / std::sin(theta), 1e-6);
}

TEST(SpecialKernels, RefusesDtypesPyTorchHasNoKernelFor) {
    KernelHarness h;
    const auto x = h.input("x", StridedTensor::allocate(DType::BFloat16, {2}));
    EXPECT_THROW(h.run1("aten.special_bessel_j0.default", {positional("self", tensor_arg(x))}, DType::BFloat16, {2}),
                 pt2ov::Error);
    const auto i = h.input("i", StridedTensor::allocate(DType::Int64, {2}));
    EXPECT_THROW(h.run1("aten.frexp.Tensor", {positional("self", tensor_arg(i))}, DType::Int64, {2}), pt2ov::Error);
}

TEST(SpecialKernels, FloatPartsFromTheirDefinitions) {
    KernelHarness h;
    const auto x = h.input("x", tensor_of(DType::Float32, {4}, std::vector<float>{-0.0f, 3.0f, 6.0f, -1.5f}));
    const auto e = h.input("e", tensor_of(DType::Int64, {4}, std::vector<int64_t>{140, -150, 2, 0}));
    const auto ldexp = values_of<float>(
        h.run1("aten.ldexp.Tensor", {positional("self", tensor_arg(x)), positional("other", tensor_arg(e))}, DType::Float32, {4}));
    EXPECT_TRUE(ldexp[0] == 0.0f && std::signbit(ldexp[0]));  // exact: no inf * 0
    EXPECT_EQ(ldexp[1], std::ldexp(1.0f, -148));              // 1.5 * 2^-149 rounds to even
    EXPECT_EQ(ldexp[2], 24.0f);
    const auto frexp = h.run("aten.frexp.Tensor", {positional("self", tensor_arg(x))},
                             {h.output("mantissa", DType::Float32, {4}), h.output("exponent", DType::Int32, {4})});
    EXPECT_EQ(values_of<float>(frexp.at(0).tensor()), (std::vector<float>{-0.0f, 0.75f, 0.75f, -0.75f}));
    EXPECT_EQ(values_of<int32_t>(frexp.at(1).tensor()), (std::vector<int32_t>{0, 2, 3, 1}));

    // nextafter on float16 steps the 16-bit pattern: 1 -> 1 + 2^-10, 0 -> the smallest subnormal.
    const auto hx = h.input("hx", tensor_of(DType::Float16, {2}, std::vector<uint16_t>{0x3C00, 0x0000}));
    const auto hy = h.input("hy", tensor_of(DType::Float16, {2}, std::vector<uint16_t>{0x4000, 0xBC00}));
    const auto next = values_of<uint16_t>(h.run1("aten.nextafter.default",
                                                 {positional("self", tensor_arg(hx)), positional("other", tensor_arg(hy))},
                                                 DType::Float16, {2}));
    EXPECT_EQ(next, (std::vector<uint16_t>{0x3C01, 0x8001}));
}

}  // namespace
