// PyTorch's orthogonal polynomials p_n(x): Chebyshev T, U, V, W and their shifted forms on
// [0, 1], the physicists' and probabilists' Hermite H and He, Laguerre L and Legendre P. Each
// op takes (x, n) as two tensors or with one of them a number (the x_scalar and n_scalar
// overloads); n is truncated to an integer, a negative n (or a NaN or infinite one) gives 0.
//
// The values follow PyTorch's CPU kernels (ATen/native/Math.h): the closed forms at the ends
// of the interval, the trigonometric form for large n inside it, the three-term recurrence
// elsewhere (stopped once it turns NaN). float32 and float64 only, as PyTorch's CPU kernels.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/dispatch.h"
#include "kernels/floating_map.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

// The recurrences take n steps, as PyTorch's do (the Chebyshev ones outside (-1, 1), where no
// closed form serves; Laguerre and Legendre everywhere): a degree from a damaged archive or
// wild data (2**40) would never end. pt2ov bounds the steps of one element at 2**24 and those of
// one call at 2**26, and refuses beyond (a tensor of 125 degrees near 2**24 each took minutes).
constexpr int64_t kLargestRecurrenceDegree = int64_t{1} << 24;
constexpr int64_t kRecurrenceStepsPerCall = int64_t{1} << 26;

// The steps one call may still take, shared by the elements (computed on several threads).
class StepBudget {
public:
    // Charges the n steps of one element's recurrence; throws once they are beyond a bound.
    void take(int64_t n) {
        if (n <= kShortRecurrence) return;  // the common case charges nothing
        if (n > kLargestRecurrenceDegree) {
            throw UnsupportedError("polynomial degree " + std::to_string(n) + " is beyond the 2**24 steps pt2ov takes");
        }
        if (left_.fetch_sub(n, std::memory_order_relaxed) < n) {
            throw UnsupportedError("polynomial recurrences of this call take more than the 2**26 steps pt2ov takes in one call "
                        "(large degrees outside the interval where a closed form serves)");
        }
    }

private:
    static constexpr int64_t kShortRecurrence = 64;
    std::atomic<int64_t> left_{kRecurrenceStepsPerCall};
};

// The three-term recurrence r = (2 y) q - p shared by the Chebyshev families, from p_0 = 1 and
// p_1 = first, up to p_n.
template <typename T>
T chebyshev_recurrence(T y, T first, int64_t n, StepBudget& budget) {
    if (n == 0) return T(1);
    if (n == 1) return first;
    budget.take(n);
    T p = T(1), q = first, r = first;
    for (int64_t k = 2; k <= n && !std::isnan(q); ++k) {
        r = (y + y) * q - p;
        p = q;
        q = r;
    }
    return r;
}

// Chebyshev T_n(y); `large_n` is where the trigonometric form takes over inside (-1, 1).
template <typename T>
T chebyshev_t(T y, int64_t n, int64_t large_n, StepBudget& budget) {
    if (n < 0) return T(0);
    if (std::fabs(y) == T(1)) return y > T(0) || n % 2 == 0 ? T(1) : T(-1);
    if (n > large_n && std::fabs(y) < T(1)) return std::cos(static_cast<T>(n) * std::acos(y));
    return chebyshev_recurrence(y, y, n, budget);
}

template <typename T>
T chebyshev_u(T y, int64_t n, int64_t large_n, StepBudget& budget) {
    if (n < 0) return T(0);
    const T n1 = static_cast<T>(static_cast<double>(n) + 1.0);
    if (std::fabs(y) == T(1)) return y > T(0) || n % 2 == 0 ? n1 : -n1;
    if (n > large_n && std::fabs(y) < T(1)) {
        const T theta = std::acos(y);
        if (std::sin(theta) != T(0)) return std::sin(n1 * theta) / std::sin(theta);
        return n1 * std::cos(n1 * theta) / y;
    }
    return chebyshev_recurrence(y, y + y, n, budget);
}

template <typename T>
T chebyshev_v(T y, int64_t n, int64_t large_n, StepBudget& budget) {
    if (n < 0) return T(0);
    const T odd = static_cast<T>(2.0 * static_cast<double>(n) + 1.0);
    if (std::fabs(y) == T(1)) {
        if (y > T(0)) return T(1);
        return n % 2 == 0 ? odd : -odd;
    }
    if (n > large_n && std::fabs(y) < T(1)) {
        const T theta = std::acos(y);
        if (std::sin(theta / T(2)) != T(1)) return std::cos((static_cast<T>(n) + T(0.5)) * theta) / std::cos(theta / T(2));
        return n % 2 == 0 ? odd : -odd;
    }
    return chebyshev_recurrence(y, y + y - T(1), n, budget);
}

template <typename T>
T chebyshev_w(T y, int64_t n, int64_t large_n, StepBudget& budget) {
    if (n < 0) return T(0);
    const T odd = static_cast<T>(2.0 * static_cast<double>(n) + 1.0);
    if (std::fabs(y) == T(1)) {
        if (y > T(0)) return odd;
        return n % 2 == 0 ? T(1) : T(-1);
    }
    if (n > large_n && std::fabs(y) < T(1)) {
        const T theta = std::acos(y);
        if (std::cos(theta / T(2)) != T(1)) return std::sin((static_cast<T>(n) + T(0.5)) * theta) / std::sin(theta / T(2));
        if (y > T(0)) return odd;
        return n % 2 == 0 ? T(1) : T(-1);
    }
    return chebyshev_recurrence(y, y + y + T(1), n, budget);
}

// The shifted forms are the plain ones at y = 2x - 1, with their end values tested on x
// itself (x == 1 and x == 0) and their own thresholds for the trigonometric form.
template <typename T>
T shifted_chebyshev_t(T x, int64_t n, StepBudget& budget) {
    if (n < 0) return T(0);
    if (x == T(1)) return T(1);
    if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
    return chebyshev_t(x + x - T(1), n, 6, budget);
}

template <typename T>
T shifted_chebyshev_u(T x, int64_t n, StepBudget& budget) {
    if (n < 0) return T(0);
    const T n1 = static_cast<T>(static_cast<double>(n) + 1.0);
    if (x == T(1)) return n1;
    if (x == T(0)) return n % 2 == 0 ? n1 : -n1;
    return chebyshev_u(x + x - T(1), n, 6, budget);
}

template <typename T>
T shifted_chebyshev_v(T x, int64_t n, StepBudget& budget) {
    if (n < 0) return T(0);
    const T odd = static_cast<T>(2.0 * static_cast<double>(n) + 1.0);
    if (x == T(1)) return T(1);
    if (x == T(0)) return n % 2 == 0 ? odd : -odd;
    return chebyshev_v(x + x - T(1), n, 6, budget);
}

template <typename T>
T shifted_chebyshev_w(T x, int64_t n, StepBudget& budget) {
    if (n < 0) return T(0);
    if (x == T(1)) return static_cast<T>(2.0 * static_cast<double>(n) + 1.0);
    if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
    return chebyshev_w(x + x - T(1), n, 4, budget);
}

// Beyond this degree PyTorch gives NaN for the Hermite polynomials.
template <typename T>
constexpr int64_t kHermiteLimit = std::is_same_v<T, float> ? 128 : 512;

template <typename T>
T hermite_h(T x, int64_t n) {
    if (n < 0) return T(0);
    if (n == 0) return T(1);
    if (n == 1) return x + x;
    if (n > kHermiteLimit<T>) return std::numeric_limits<T>::quiet_NaN();
    T p = T(1), q = x + x, r = T(0);
    for (int64_t k = 2; k < n + n; k += 2) {
        r = (x + x) * q - static_cast<T>(k) * p;
        p = q;
        q = r;
    }
    return r;
}

template <typename T>
T hermite_he(T x, int64_t n) {
    if (n < 0) return T(0);
    if (n == 0) return T(1);
    if (n == 1) return x;
    if (n > kHermiteLimit<T>) return std::numeric_limits<T>::quiet_NaN();
    T p = T(1), q = x, r = x;
    for (int64_t k = 1; k < n; ++k) {
        r = x * q - static_cast<T>(k) * p;
        p = q;
        q = r;
    }
    return r;
}

template <typename T>
T laguerre_l(T x, int64_t n, StepBudget& budget) {
    if (n < 0) return T(0);
    if (std::fabs(x) == T(0)) return T(1);
    if (n == 0) return T(1);
    if (n == 1) return T(1) - x;
    budget.take(n);
    T p = T(1), q = T(1) - x, r = q;
    for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
        r = ((static_cast<T>(k + k) + (T(1) - x)) * q - static_cast<T>(k) * p) / static_cast<T>(k + 1);
        p = q;
        q = r;
    }
    return r;
}

template <typename T>
T legendre_p(T x, int64_t n, StepBudget& budget) {
    if (n < 0) return T(0);
    if (std::fabs(x) == T(1)) return x > T(0) || n % 2 == 0 ? T(1) : T(-1);
    if (n == 0) return T(1);
    if (n == 1) return x;
    budget.take(n);
    T p = T(1), q = x, r = x;
    for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
        r = (static_cast<T>(k + k + 1) * x * q - static_cast<T>(k) * p) / static_cast<T>(k + 1);
        p = q;
        q = r;
    }
    return r;
}

// n as the integer PyTorch truncates it to (NaN and out-of-range values become the minimum,
// so negative, as x86's conversion gives; the Hermite kernels make that explicit).
template <typename T>
int64_t degree_of(T n) {
    return float_to_integer<int64_t>(static_cast<double>(n));
}

// `polynomial` (a captureless lambda of the value and the degree) per element.
template <auto polynomial>
std::vector<RuntimeValue> polynomial_kernel(const KernelCall& call) {
    const Operand x = read_operand(call, "x", 0);
    const Operand n = read_operand(call, "n", 1);
    StepBudget budget;
    return map_pair_to_floating(call, x, n, FloatingDtypes::Full, [&]<typename C>() {
        return [&budget](C value, C degree) -> C { return polynomial(value, degree_of(degree), budget); };
    });
}

#define PT2OV_POLYNOMIAL(op, expression)                                                              \
    PT2OV_KERNEL("aten." op, (polynomial_kernel<[](auto x, int64_t n, [[maybe_unused]] StepBudget& budget) { return expression; }>))

// Every kernel here is elementwise: its outputs have the broadcast sizes of its tensor arguments.
PT2OV_FILE_SHAPE_CONTRACT(elementwise_shape);

PT2OV_POLYNOMIAL("special_chebyshev_polynomial_t", chebyshev_t(x, n, 6, budget));
PT2OV_POLYNOMIAL("special_chebyshev_polynomial_u", chebyshev_u(x, n, 8, budget));
PT2OV_POLYNOMIAL("special_chebyshev_polynomial_v", chebyshev_v(x, n, 8, budget));
PT2OV_POLYNOMIAL("special_chebyshev_polynomial_w", chebyshev_w(x, n, 8, budget));
PT2OV_POLYNOMIAL("special_shifted_chebyshev_polynomial_t", shifted_chebyshev_t(x, n, budget));
PT2OV_POLYNOMIAL("special_shifted_chebyshev_polynomial_u", shifted_chebyshev_u(x, n, budget));
PT2OV_POLYNOMIAL("special_shifted_chebyshev_polynomial_v", shifted_chebyshev_v(x, n, budget));
PT2OV_POLYNOMIAL("special_shifted_chebyshev_polynomial_w", shifted_chebyshev_w(x, n, budget));
PT2OV_POLYNOMIAL("special_hermite_polynomial_h", hermite_h(x, n));
PT2OV_POLYNOMIAL("special_hermite_polynomial_he", hermite_he(x, n));
PT2OV_POLYNOMIAL("special_laguerre_polynomial_l", laguerre_l(x, n, budget));
PT2OV_POLYNOMIAL("special_legendre_polynomial_p", legendre_p(x, n, budget));

}  // namespace
}  // namespace pt2ov::kernels
