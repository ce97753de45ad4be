// The vectorized float32 loops (src/kernels/isa/float_math.h), as the ISA table of every x86-64
// level built and run here holds them, against references computed here in double: dense sweeps of
// the float range with the largest error in ulp reported and bounded, the special values
// PyTorch gives, and lengths that end in a partial vector.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu_isa.h"

namespace {

using namespace pt2ov::kernels;
using Map = isa::MapF32;

// One level's copy of the loops, as the kernels reach it.
struct FloatMath {
    std::string name;
    Map exp, sigmoid, tanh, softmax_row;
    isa::SumF32 sum;
    isa::ExtremumF32 extremum;
    isa::BinaryF32 multiply, add;
};

// Every level this build has kernels for and this CPU runs (such a level whose object is
// missing fails here).
std::vector<FloatMath> implementations() {
    std::vector<FloatMath> result;
    for (CpuIsa level : kAllCpuIsas) {
        if (!built_for(level) || !cpu_has(level)) continue;
        std::string why_not;
        const isa::IsaKernels* t = isa_kernels_for(level, &why_not);
        EXPECT_NE(t, nullptr) << cpu_isa_name(level) << ": " << why_not;
        if (!t) continue;
        result.push_back({std::string(cpu_isa_name(level)), t->exp_f32, t->sigmoid_f32, t->tanh_f32, t->softmax_row_f32,
                          t->sum_f32, t->extremum_f32, t->multiply_f32, t->add_f32});
    }
    return result;
}

float float_of(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// |got - exact| in units of the last place of the float nearest `exact` (subnormals: the
// smallest subnormal). Infinite or NaN results must match exactly (else a huge number).
double ulp_error(float got, double exact) {
    if (std::isnan(exact) || std::isnan(got)) return std::isnan(exact) && std::isnan(got) ? 0 : 1e30;
    const float rounded = static_cast<float>(exact);
    if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : 1e30;
    const int exponent = rounded == 0 ? -126 : std::max(std::ilogb(rounded), -126);
    return std::fabs(static_cast<double>(got) - exact) / std::ldexp(1.0, exponent - 23);
}

// The references: exact in double, as each op is defined. sigmoid is 0 where exp(-x) overflows
// float, as PyTorch's 1 / (1 + exp(-x)) in float gives (its exp(-x) is inf there).
constexpr double kFloatOverflow = 3.40282356779733661637539395458142568448e38;  // FLT_MAX + half its ulp
double exp_reference(double x) { return std::exp(x); }
double sigmoid_reference(double x) { return std::exp(-x) >= kFloatOverflow ? 0.0 : 1.0 / (1.0 + std::exp(-x)); }
double tanh_reference(double x) { return std::tanh(x); }

// Every float in [low, high] (finite, same sign) and every `stride`-th bit pattern overall.
std::vector<float> sweep(uint32_t stride) {
    std::vector<float> xs;
    for (uint64_t b = 0; b < (uint64_t{1} << 32); b += stride) xs.push_back(float_of(static_cast<uint32_t>(b)));
    // Every float where the results change regime: exp's overflow and underflow, sigmoid's
    // overflow of exp(-x), tanh's switch of formula and saturation, the neighbourhood of 0
    // is in the bit patterns.
    for (auto [low, high] : {std::pair{88.5f, 89.0f}, {-89.0f, -88.5f}, {-104.5f, -103.0f}, {-87.5f, -86.5f},
                             {0.6f, 0.65f}, {-0.65f, -0.6f}, {8.9f, 9.2f}, {-9.2f, -8.9f}}) {
        for (float x = low; x <= high; x = std::nextafter(x, INFINITY)) xs.push_back(x);
    }
    return xs;
}

struct Worst {
    double ulp = 0;
    float at = 0;
};

Worst worst_error(Map f, double (*reference)(double), const std::vector<float>& xs) {
    std::vector<float> out(xs.size());
    f(xs.data(), out.data(), static_cast<int64_t>(xs.size()));
    Worst worst;
    for (size_t i = 0; i < xs.size(); ++i) {
        const double e = ulp_error(out[i], reference(xs[i]));
        if (e > worst.ulp) worst = {e, xs[i]};
    }
    return worst;
}

TEST(FloatMath, ExpSigmoidTanhWithinTheirUlpBoundsOverTheFloatRange) {
    const std::vector<float> xs = sweep(251);
    struct Case {
        const char* name;
        Map FloatMath::*f;
        double (*reference)(double);
        double bound;
    };
    for (const FloatMath& impl : implementations()) {
        for (const Case& c : {Case{"exp", &FloatMath::exp, exp_reference, 1.5}, Case{"sigmoid", &FloatMath::sigmoid, sigmoid_reference, 2.5},
                              Case{"tanh", &FloatMath::tanh, tanh_reference, 1.5}}) {
            const Worst w = worst_error(impl.*c.f, c.reference, xs);
            std::printf("[ %s ] %s: at most %.3f ulp (at %.9g) over %zu values\n", impl.name.c_str(), c.name, w.ulp, w.at,
                        xs.size());
            EXPECT_LE(w.ulp, c.bound) << impl.name << " " << c.name << " at " << w.at;
        }
    }
}

TEST(FloatMath, SpecialValuesArePyTorchs) {
    const float inf = INFINITY, nan = NAN;
    for (const FloatMath& impl : implementations()) {
        auto one = [](Map f, float x) {
            float y;
            f(&x, &y, 1);
            return y;
        };
        SCOPED_TRACE(impl.name);
        EXPECT_EQ(one(impl.exp, 0.0f), 1.0f);
        EXPECT_EQ(one(impl.exp, -0.0f), 1.0f);
        EXPECT_EQ(one(impl.exp, inf), inf);
        EXPECT_EQ(bits(one(impl.exp, -inf)), bits(0.0f));
        EXPECT_TRUE(std::isnan(one(impl.exp, nan)));
        EXPECT_EQ(one(impl.exp, 88.72283f), static_cast<float>(std::exp(double{88.72283f})));  // near the largest finite
        EXPECT_EQ(one(impl.exp, 88.7229f), inf);
        EXPECT_EQ(one(impl.exp, -103.5f), static_cast<float>(std::exp(double{-103.5f})));  // subnormal
        EXPECT_GT(one(impl.exp, -103.5f), 0.0f);
        EXPECT_EQ(bits(one(impl.exp, -104.0f)), bits(0.0f));
        EXPECT_EQ(bits(one(impl.exp, -1000.0f)), bits(0.0f));

        EXPECT_EQ(one(impl.sigmoid, 0.0f), 0.5f);
        EXPECT_EQ(one(impl.sigmoid, inf), 1.0f);
        EXPECT_EQ(bits(one(impl.sigmoid, -inf)), bits(0.0f));
        EXPECT_EQ(one(impl.sigmoid, 17.0f), 1.0f);
        EXPECT_EQ(bits(one(impl.sigmoid, -89.0f)), bits(0.0f));  // exp(89) overflows float
        EXPECT_GT(one(impl.sigmoid, -88.5f), 0.0f);              // a subnormal
        EXPECT_TRUE(std::isnan(one(impl.sigmoid, nan)));

        EXPECT_EQ(bits(one(impl.tanh, 0.0f)), bits(0.0f));
        EXPECT_EQ(bits(one(impl.tanh, -0.0f)), bits(-0.0f));
        EXPECT_EQ(one(impl.tanh, 9.1f), 1.0f);
        EXPECT_EQ(one(impl.tanh, -9.1f), -1.0f);
        EXPECT_EQ(one(impl.tanh, 100.0f), 1.0f);
        EXPECT_EQ(one(impl.tanh, inf), 1.0f);
        EXPECT_EQ(one(impl.tanh, -inf), -1.0f);
        EXPECT_EQ(one(impl.tanh, 1e-30f), 1e-30f);
        EXPECT_EQ(one(impl.tanh, -std::numeric_limits<float>::denorm_min()), -std::numeric_limits<float>::denorm_min());
        EXPECT_TRUE(std::isnan(one(impl.tanh, nan)));
    }
}

// Every length up to a few vectors and some long odd ones: the partial last vector gives what
// the full vectors give, element by element.
TEST(FloatMath, EveryLengthGivesTheElementwiseValues) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-20.0f, 20.0f);
    std::vector<int64_t> lengths;
    for (int64_t n = 0; n <= 70; ++n) lengths.push_back(n);
    for (int64_t n : {255, 257, 1023, 4097, 65537}) lengths.push_back(n);
    for (const FloatMath& impl : implementations()) {
        for (Map f : {impl.exp, impl.sigmoid, impl.tanh}) {
            for (int64_t n : lengths) {
                std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
                for (float& v : x) v = dist(rng);
                f(x.data(), y.data(), n);
                for (int64_t i = 0; i < n; ++i) {
                    float single;
                    f(&x[static_cast<size_t>(i)], &single, 1);
                    ASSERT_EQ(bits(y[static_cast<size_t>(i)]), bits(single)) << impl.name << " n=" << n << " i=" << i;
                }
            }
        }
        for (int64_t n : lengths) {
            std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n)), product(static_cast<size_t>(n)),
                total(static_cast<size_t>(n));
            for (float& v : a) v = dist(rng);
            for (float& v : b) v = dist(rng);
            impl.multiply(a.data(), b.data(), product.data(), n);
            impl.add(a.data(), b.data(), total.data(), n);
            for (size_t i = 0; i < a.size(); ++i) {
                ASSERT_EQ(bits(product[i]), bits(a[i] * b[i])) << impl.name << " n=" << n;
                ASSERT_EQ(bits(total[i]), bits(a[i] + b[i])) << impl.name << " n=" << n;
            }
        }
    }
}

// softmax of one row exactly, in double, from the float inputs.
std::vector<double> softmax_reference(const std::vector<float>& row) {
    double max = -INFINITY;
    for (float x : row) max = std::max(max, static_cast<double>(x));
    std::vector<double> e(row.size());
    double sum = 0;
    for (size_t i = 0; i < row.size(); ++i) sum += e[i] = std::exp(static_cast<double>(row[i]) - max);
    for (double& v : e) v /= sum;
    return e;
}

TEST(FloatMath, SoftmaxRowsWithinThreeUlp) {
    std::mt19937 rng(5);
    for (const FloatMath& impl : implementations()) {
        double worst = 0;
        for (float spread : {1.0f, 30.0f, 200.0f, 1e6f}) {
            std::uniform_real_distribution<float> dist(-spread, spread);
            for (int64_t n : {1, 2, 7, 16, 31, 33, 100, 1000, 4097}) {
                std::vector<float> row(static_cast<size_t>(n)), out(static_cast<size_t>(n));
                for (float& v : row) v = dist(rng);
                impl.softmax_row(row.data(), out.data(), n);
                const std::vector<double> expected = softmax_reference(row);
                for (size_t i = 0; i < row.size(); ++i) worst = std::max(worst, ulp_error(out[i], expected[i]));
            }
        }
        std::printf("[ %s ] softmax: at most %.3f ulp\n", impl.name.c_str(), worst);
        EXPECT_LE(worst, 3.0) << impl.name;
    }
}

TEST(FloatMath, SoftmaxSpecialRowsArePyTorchs) {
    const float inf = INFINITY, nan = NAN;
    for (const FloatMath& impl : implementations()) {
        auto softmax = [&](std::vector<float> row) {
            std::vector<float> out(row.size());
            impl.softmax_row(row.data(), out.data(), static_cast<int64_t>(row.size()));
            return out;
        };
        SCOPED_TRACE(impl.name);
        for (const auto& row : {std::vector<float>{1, nan, 2}, std::vector<float>{1, inf, 2}, std::vector<float>{-inf, -inf}}) {
            for (float v : softmax(row)) EXPECT_TRUE(std::isnan(v));  // as PyTorch: NaN everywhere
        }
        const auto masked = softmax({-inf, 0.0f, -inf, 0.0f});
        EXPECT_EQ(masked, (std::vector<float>{0.0f, 0.5f, 0.0f, 0.5f}));
        const auto huge = softmax({3e38f, 3e38f, -3e38f});  // no overflow: max-subtracted
        EXPECT_EQ(huge, (std::vector<float>{0.5f, 0.5f, 0.0f}));
        EXPECT_EQ(softmax({-5.0f}), std::vector<float>{1.0f});
    }
}

TEST(FloatMath, SumWithinItsBoundAndTheSameOnEveryImplementation) {
    std::mt19937 rng(9);
    std::normal_distribution<float> dist(0.0f, 50.0f);
    std::vector<float> x(300001);
    for (float& v : x) v = dist(rng);
    std::vector<double> first;
    for (const FloatMath& impl : implementations()) {
        std::vector<double> sums;
        for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{31}, int64_t{33}, int64_t{256}, int64_t{1000}, int64_t{300001}}) {
            double exact = 0, magnitudes = 0;
            for (int64_t i = 0; i < n; ++i) {
                exact += x[static_cast<size_t>(i)];
                magnitudes += std::fabs(x[static_cast<size_t>(i)]);
            }
            const double got = impl.sum(x.data(), n);
            EXPECT_LE(std::fabs(got - exact), 8 * std::ldexp(magnitudes, -24)) << impl.name << " n=" << n;
            sums.push_back(got);
        }
        if (first.empty()) first = sums;
        EXPECT_EQ(sums, first) << impl.name << " differs from " << implementations().front().name;
    }
}

TEST(FloatMath, ExtremumIsTheLargestOrSmallestAndFlagsNaNAndInfinity) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-1e3f, 1e3f);
    for (const FloatMath& impl : implementations()) {
        for (int64_t n : {1, 5, 32, 33, 100, 1025}) {
            std::vector<float> x(static_cast<size_t>(n));
            for (float& v : x) v = dist(rng);
            bool high_unsure = true, low_unsure = true;
            EXPECT_EQ(impl.extremum(x.data(), n, true, &high_unsure), *std::max_element(x.begin(), x.end()))
                << impl.name << " n=" << n;
            EXPECT_EQ(impl.extremum(x.data(), n, false, &low_unsure), *std::min_element(x.begin(), x.end()))
                << impl.name << " n=" << n;
            EXPECT_FALSE(high_unsure || low_unsure);
            for (float special : {NAN, INFINITY, -INFINITY}) {
                std::vector<float> y = x;
                y[static_cast<size_t>(n - 1)] = special;
                bool unsure = false;
                impl.extremum(y.data(), n, true, &unsure);
                EXPECT_TRUE(unsure) << impl.name << " n=" << n;
            }
        }
    }
}

}  // namespace
