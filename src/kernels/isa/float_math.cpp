// The float32 loops of float_math.h. Every helper has internal linkage and every loop is plain
// arithmetic, selects and bit casts that the compiler turns into vector instructions of the
// instruction set this file is compiled for (checked with -fopt-info-vec): no library calls, no
// branches per element, no std templates.
//
// exp follows the classic scheme (Cody and Waite's range reduction, as Cephes' expf and Eigen's
// pexp do): n = round(x / ln 2), r = x - n ln 2 in two parts (the high part has 9 significant
// bits, so n * high is exact for any n that matters), exp(r) on |r| <= ln(2)/2 by Cephes'
// degree-7 polynomial, then 2^n built from exponent bits, applied in two halves so that results
// between the smallest subnormal and the largest float come out rounded once.
#include "kernels/isa/float_math.h"

#include <cstring>

namespace pt2ov::kernels::float_math {
namespace {

// Vectors as wide as the instruction set's registers; the reductions keep 32 float lanes
// however wide a vector is, so their results are the same on every instruction set.
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif
typedef float FloatVector __attribute__((vector_size(kVectorBytes)));
typedef double DoubleVector __attribute__((vector_size(kVectorBytes)));
constexpr int kFloatWidth = kVectorBytes / 4;
constexpr int kDoubleWidth = kVectorBytes / 8;
constexpr int kLanes = 32;
constexpr int kVectorsPerLanes = kLanes / kFloatWidth;

inline FloatVector load_vector(const float* p) {
    FloatVector v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

typedef int32_t IntVector __attribute__((vector_size(kVectorBytes)));

inline IntVector bits_of(FloatVector x) { return __builtin_bit_cast(IntVector, x); }
inline FloatVector float_of(IntVector bits) { return __builtin_bit_cast(FloatVector, bits); }
inline FloatVector splat(float x) { return FloatVector{} + x; }

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2High = 0.693359375f;     // 355/512: n * kLn2High is exact for |n| < 2^15
constexpr float kLn2Low = -2.12194440e-4f;   // ln 2 - kLn2High
constexpr float kRoundingShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
// Below this exp's result rounds to 0 (exp(-103.97) is half the smallest subnormal); above the
// upper bound it overflows. Clamping there keeps n within the exponent's reach.
constexpr float kExpLowest = -104.0f;
constexpr float kExpHighest = 89.0f;

// exp(x + tail), where tail is a correction far below x's ulp (0 for a plain exp).
inline FloatVector exp_with_tail(FloatVector x, FloatVector tail) {
    x = x < kExpLowest ? splat(kExpLowest) : x;  // comparisons are false for NaN, which passes on
    x = x > kExpHighest ? splat(kExpHighest) : x;
    const FloatVector shifted = x * kLog2e + kRoundingShift;
    const FloatVector n = shifted - kRoundingShift;
    // n as an integer: the low bits of the shifted value's significand (|n| < 2^22).
    const IntVector exponent = bits_of(shifted) - bits_of(splat(kRoundingShift));
    FloatVector r = x - n * kLn2High;
    r = r - n * kLn2Low;
    r = r + tail;
    FloatVector p = splat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = (p * (r * r) + r) + 1.0f;
    // 2^n in two factors, each a normal float for n in [-150, 129]: p * 2^half is exact and the
    // second product rounds once (to a subnormal, or overflows to inf, where exp does).
    const IntVector half = exponent >> 1;
    const FloatVector first = float_of((half + 127) << 23);
    const FloatVector second = float_of((exponent - half + 127) << 23);
    return p * first * second;
}

inline FloatVector exp_of(FloatVector x) { return exp_with_tail(x, FloatVector{}); }

inline FloatVector sigmoid_of(FloatVector x) { return 1.0f / (1.0f + exp_of(-x)); }

// tanh on |x|: Cephes' odd polynomial below 0.625, where 1 - 2 / (exp(2|x|) + 1) would lose
// digits to cancellation; that form above (it reaches 1 at 9.01 and stays there, exp's
// overflow to inf giving 1 too). The sign is x's, so tanh(-0) is -0.
inline FloatVector tanh_of(FloatVector x) {
    const IntVector sign = bits_of(x) & static_cast<int32_t>(0x80000000u);
    const FloatVector a = float_of(bits_of(x) & 0x7fffffff);
    const FloatVector z = a * a;
    FloatVector p = splat(-5.70498872745e-3f);
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    const FloatVector small = a + a * (z * p);
    const FloatVector large = 1.0f - 2.0f / (exp_of(a + a) + 1.0f);
    const FloatVector magnitude = a < 0.625f ? small : large;
    return float_of(bits_of(magnitude) | sign);
}

// out[i] = f(in[i]) a vector at a time; the last partial vector through a zero-padded copy.
template <typename F>
inline void map_vectors(const float* in, float* out, int64_t n, F f) {
    int64_t i = 0;
    for (; i + kFloatWidth <= n; i += kFloatWidth) {
        const FloatVector y = f(load_vector(in + i));
        std::memcpy(out + i, &y, sizeof y);
    }
    if (i < n) {
        float padded[kFloatWidth] = {};
        std::memcpy(padded, in + i, static_cast<size_t>(n - i) * sizeof(float));
        const FloatVector y = f(load_vector(padded));
        std::memcpy(out + i, &y, static_cast<size_t>(n - i) * sizeof(float));
    }
}

// The sum of 32 doubles in a fixed order, whatever the vector width: lane k + 16 added to lane
// k, then k + 8, k + 4, k + 2, k + 1 (each step a vector addition of halves).
inline double add_lanes(const double* lanes) {
    double level[kLanes];
    for (int k = 0; k < kLanes; ++k) level[k] = lanes[k];
    for (int half = kLanes / 2; half >= 1; half /= 2) {
        for (int k = 0; k < half; ++k) level[k] += level[k + half];
    }
    return level[0];
}

constexpr int64_t kSumBlock = 256;

// Adds p[0..n) (n <= kSumBlock) to the 32 double lanes: element j to lane j % 32, in float
// lanes over the block (at most 8 elements each), then into double.
inline void add_block(const float* p, int64_t n, double* lanes) {
    FloatVector partial[kVectorsPerLanes] = {};
    int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        for (int v = 0; v < kVectorsPerLanes; ++v) partial[v] += load_vector(p + j + v * kFloatWidth);
    }
    float lane_sums[kLanes];
    std::memcpy(lane_sums, partial, sizeof lane_sums);
    for (int k = 0; j < n; ++j, ++k) lane_sums[k] += p[j];
    for (int k = 0; k < kLanes; ++k) lanes[k] += static_cast<double>(lane_sums[k]);
}

}  // namespace

void exp(const float* in, float* out, int64_t n) { map_vectors(in, out, n, exp_of); }
void sigmoid(const float* in, float* out, int64_t n) { map_vectors(in, out, n, sigmoid_of); }
void tanh(const float* in, float* out, int64_t n) { map_vectors(in, out, n, tanh_of); }

void multiply(const float* a, const float* b, float* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
}

void add(const float* a, const float* b, float* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

double sum(const float* p, int64_t n) {
    double lanes[kLanes] = {};
    for (int64_t start = 0; start < n; start += kSumBlock) {
        add_block(p + start, n - start < kSumBlock ? n - start : kSumBlock, lanes);
    }
    return add_lanes(lanes);
}

float extremum(const float* p, int64_t n, bool maximum, bool* unsure) {
    FloatVector best[kVectorsPerLanes], probe[kVectorsPerLanes] = {};
    for (int v = 0; v < kVectorsPerLanes; ++v) best[v] = FloatVector{} + p[0];
    int64_t j = 0;
    // Any NaN or infinity makes its lane of `probe` NaN (x * 0).
    if (maximum) {
        for (; j + kLanes <= n; j += kLanes) {
            for (int v = 0; v < kVectorsPerLanes; ++v) {
                const FloatVector x = load_vector(p + j + v * kFloatWidth);
                best[v] = best[v] < x ? x : best[v];
                probe[v] += x * 0.0f;
            }
        }
    } else {
        for (; j + kLanes <= n; j += kLanes) {
            for (int v = 0; v < kVectorsPerLanes; ++v) {
                const FloatVector x = load_vector(p + j + v * kFloatWidth);
                best[v] = x < best[v] ? x : best[v];
                probe[v] += x * 0.0f;
            }
        }
    }
    float lanes[kLanes], probes[kLanes];
    std::memcpy(lanes, best, sizeof lanes);
    std::memcpy(probes, probe, sizeof probes);
    float result = lanes[0], probe_sum = 0.0f;
    for (int k = 0; k < kLanes; ++k) {
        result = maximum ? (result < lanes[k] ? lanes[k] : result) : (lanes[k] < result ? lanes[k] : result);
        probe_sum += probes[k];
    }
    for (; j < n; ++j) {
        result = maximum ? (result < p[j] ? p[j] : result) : (p[j] < result ? p[j] : result);
        probe_sum += p[j] * 0.0f;
    }
    *unsure = probe_sum != probe_sum;
    return result;
}

void softmax_row(const float* in, float* out, int64_t n) {
    // The maximum by <, NaN skipped (a NaN element makes its own exponential, so the sum and
    // every result, NaN below).
    bool unsure;
    const float max = extremum(in, n, true, &unsure);
    // exp(x - max) with x - max split exactly into d + tail (Knuth's two-sum), so that the
    // rounding of the difference does not reach the result. A d that is -inf (x = -inf) or NaN
    // takes no tail (the two-sum's would be NaN); exp gives 0 or NaN for it.
    const FloatVector minus_max = splat(-max);
    map_vectors(in, out, n, [minus_max](FloatVector x) {
        const FloatVector d = x + minus_max;
        const FloatVector x_part = d - minus_max;
        const FloatVector max_part = d - x_part;
        const FloatVector tail = (x - x_part) + (minus_max - max_part);
        return exp_with_tail(d, d >= kExpLowest ? tail : FloatVector{});
    });
    DoubleVector partial[kVectorsPerLanes * 2] = {};
    int64_t j = 0;
    typedef float HalfFloatVector __attribute__((vector_size(kVectorBytes / 2)));
    for (; j + kLanes <= n; j += kLanes) {
        for (int v = 0; v < 2 * kVectorsPerLanes; ++v) {
            HalfFloatVector h;
            std::memcpy(&h, out + j + v * kDoubleWidth, sizeof h);
            partial[v] += __builtin_convertvector(h, DoubleVector);
        }
    }
    double lanes[kLanes];
    std::memcpy(lanes, partial, sizeof lanes);
    for (int k = 0; j < n; ++j, ++k) lanes[k] += static_cast<double>(out[j]);
    const float total = static_cast<float>(add_lanes(lanes));
    for (int64_t i = 0; i < n; ++i) out[i] = out[i] / total;
}

}  // namespace pt2ov::kernels::float_math
