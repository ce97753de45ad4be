// LDL^T of symmetric matrices: linalg_ldl_factor(_ex) and linalg_ldl_solve, as LAPACK's sytrf
// and sytrs compute them on the lower triangle (Bunch-Kaufman pivoting: 1x1 and 2x2 blocks of
// D, LAPACK's pivot format: k for a 1x1 block that swapped rows k, -k for each row of a 2x2
// block that swapped with row k). For real inputs hermitian changes nothing.
#include <cmath>
#include <tuple>

#include "kernels/contracts.h"
#include "kernels/linalg.h"

namespace pt2ov::kernels {
namespace {

using linalg::Matrix;
using linalg::MatrixBatch;

// The first index of largest magnitude among a(first..last, column), and that magnitude.
std::pair<int64_t, double> largest_in_column(const Matrix& a, int64_t column, int64_t first, int64_t last) {
    int64_t at = first;
    double largest = std::abs(a(first, column));
    for (int64_t i = first + 1; i <= last; ++i) {
        if (std::abs(a(i, column)) > largest) {
            largest = std::abs(a(i, column));
            at = i;
        }
    }
    return {at, largest};
}

// dsytf2 with UPLO = 'L'. Returns info (the first exactly zero block of D, 1-based, or 0).
int64_t ldl_factor_in_place(Matrix& a, std::vector<int64_t>& pivots) {
    const int64_t n = a.rows();
    const double alpha = (1.0 + std::sqrt(17.0)) / 8.0;
    pivots.assign(static_cast<size_t>(n), 0);
    int64_t info = 0;
    for (int64_t k = 0; k < n;) {
        int64_t step = 1, kp = k;
        const double absakk = std::abs(a(k, k));
        int64_t imax = k;
        double colmax = 0;
        if (k < n - 1) std::tie(imax, colmax) = largest_in_column(a, k, k + 1, n - 1);
        if (std::max(absakk, colmax) == 0 || std::isnan(absakk)) {
            if (info == 0) info = k + 1;
            kp = k;
        } else {
            if (absakk < alpha * colmax) {
                // The largest off-diagonal magnitude in row imax of the trailing matrix.
                double rowmax = 0;
                for (int64_t j = k; j < imax; ++j) rowmax = std::max(rowmax, std::abs(a(imax, j)));
                if (imax < n - 1) rowmax = std::max(rowmax, largest_in_column(a, imax, imax + 1, n - 1).second);
                if (absakk >= alpha * colmax * (colmax / rowmax)) {
                    kp = k;
                } else if (std::abs(a(imax, imax)) >= alpha * rowmax) {
                    kp = imax;
                } else {
                    kp = imax;
                    step = 2;
                }
            }
            const int64_t kk = k + step - 1;
            if (kp != kk) {
                for (int64_t i = kp + 1; i < n; ++i) std::swap(a(i, kk), a(i, kp));
                for (int64_t j = kk + 1; j < kp; ++j) std::swap(a(j, kk), a(kp, j));
                std::swap(a(kk, kk), a(kp, kp));
                if (step == 2) std::swap(a(k + 1, k), a(kp, k));
            }
            if (step == 1) {
                if (k < n - 1) {
                    const double d11 = 1.0 / a(k, k);
                    for (int64_t j = k + 1; j < n; ++j) {
                        for (int64_t i = j; i < n; ++i) a(i, j) -= d11 * a(i, k) * a(j, k);
                    }
                    for (int64_t i = k + 1; i < n; ++i) a(i, k) *= d11;
                }
            } else if (k < n - 2) {
                double d21 = a(k + 1, k);
                const double d11 = a(k + 1, k + 1) / d21, d22 = a(k, k) / d21;
                const double t = 1.0 / (d11 * d22 - 1.0);
                d21 = t / d21;
                for (int64_t j = k + 2; j < n; ++j) {
                    const double wk = d21 * (d11 * a(j, k) - a(j, k + 1));
                    const double wkp1 = d21 * (d22 * a(j, k + 1) - a(j, k));
                    for (int64_t i = j; i < n; ++i) a(i, j) -= a(i, k) * wk + a(i, k + 1) * wkp1;
                    a(j, k) = wk;
                    a(j, k + 1) = wkp1;
                }
            }
        }
        if (step == 1) {
            pivots[static_cast<size_t>(k)] = kp + 1;
        } else {
            pivots[static_cast<size_t>(k)] = pivots[static_cast<size_t>(k + 1)] = -(kp + 1);
        }
        k += step;
    }
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = r + 1; c < n; ++c) a(r, c) = 0;  // PyTorch returns the lower triangle only
    }
    return info;
}

// dsytrs with UPLO = 'L': A X = B from the factorization.
Matrix ldl_solve(const Matrix& a, const std::vector<int64_t>& pivots, Matrix b) {
    const int64_t n = a.rows();
    for (int64_t k = 0; k < n;) {
        const int64_t p = pivots[static_cast<size_t>(k)];
        if (p > 0) {
            if (p - 1 != k) b.row(k).swap(b.row(p - 1));
            for (int64_t i = k + 1; i < n; ++i) b.row(i) -= a(i, k) * b.row(k);
            b.row(k) /= a(k, k);
            k += 1;
        } else {
            if (-p - 1 != k + 1) b.row(k + 1).swap(b.row(-p - 1));
            for (int64_t i = k + 2; i < n; ++i) b.row(i) -= a(i, k) * b.row(k) + a(i, k + 1) * b.row(k + 1);
            const double akm1k = a(k + 1, k), akm1 = a(k, k) / akm1k, ak = a(k + 1, k + 1) / akm1k;
            const double denom = akm1 * ak - 1.0;
            for (int64_t j = 0; j < b.cols(); ++j) {
                const double bkm1 = b(k, j) / akm1k, bk = b(k + 1, j) / akm1k;
                b(k, j) = (ak * bkm1 - bk) / denom;
                b(k + 1, j) = (akm1 * bk - bkm1) / denom;
            }
            k += 2;
        }
    }
    for (int64_t k = n - 1; k >= 0;) {
        const int64_t p = pivots[static_cast<size_t>(k)];
        for (int64_t i = k + 1; i < n; ++i) b.row(k) -= a(i, k) * b.row(i);
        if (p > 0) {
            if (p - 1 != k) b.row(k).swap(b.row(p - 1));
            k -= 1;
        } else {
            for (int64_t i = k + 1; i < n; ++i) b.row(k - 1) -= a(i, k - 1) * b.row(i);
            if (-p - 1 != k) b.row(k).swap(b.row(-p - 1));
            k -= 2;
        }
    }
    return b;
}

struct LdlBatch {
    StridedTensor ld, pivots;
    std::vector<int64_t> infos;
};

LdlBatch ldl_factor_batch(const KernelCall& call, const std::string& api) {
    const auto& a = call.tensor("self", 0);
    linalg::check_square(call, a, api);
    const auto batch = linalg::batch_of(a, 2);
    LdlBatch r{linalg::output(call, 0, a.sizes), linalg::output(call, 1, linalg::with_tail(batch, {a.sizes.back()})), {}};
    const MatrixBatch in(a, 2), ld(r.ld, 2), pivots(r.pivots, 1);
    for (int64_t i = 0; i < in.count(); ++i) {
        Matrix m = in.matrix(i);
        std::vector<int64_t> rows;
        r.infos.push_back(ldl_factor_in_place(m, rows));
        ld.set_matrix(i, m);
        pivots.set_ints(i, rows);
    }
    return r;
}

void raise_if_singular(const KernelCall& call, const StridedTensor& a, const std::vector<int64_t>& infos, const std::string& api) {
    for (size_t i = 0; i < infos.size(); ++i) {
        if (infos[i] > 0) {
            call.fail(api + ": " + linalg::batch_prefix(a, static_cast<int64_t>(i)) + "The factorization could not be completed: D(" +
                      std::to_string(infos[i]) + "," + std::to_string(infos[i]) + ") is exactly zero, so D is singular.");
        }
    }
}

// linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> (LD, pivots, info)
std::vector<RuntimeValue> linalg_ldl_factor_ex(const KernelCall& call) {
    LdlBatch r = ldl_factor_batch(call, "torch.linalg.ldl_factor_ex");
    const auto& a = call.tensor("self", 0);
    if (call.bool_arg("check_errors", 2, false)) raise_if_singular(call, a, r.infos, "torch.linalg.ldl_factor_ex");
    StridedTensor info = linalg::output(call, 2, linalg::batch_of(a, 2));
    const MatrixBatch info_out(info, 0);
    for (int64_t i = 0; i < info_out.count(); ++i) info_out.set_ints(i, {r.infos[static_cast<size_t>(i)]});
    return {RuntimeValue::of(r.ld), RuntimeValue::of(r.pivots), RuntimeValue::of(info)};
}

// linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (LD, pivots)
std::vector<RuntimeValue> linalg_ldl_factor(const KernelCall& call) {
    LdlBatch r = ldl_factor_batch(call, "torch.linalg.ldl_factor");
    raise_if_singular(call, call.tensor("self", 0), r.infos, "torch.linalg.ldl_factor");
    return {RuntimeValue::of(r.ld), RuntimeValue::of(r.pivots)};
}

// linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False)
std::vector<RuntimeValue> linalg_ldl_solve(const KernelCall& call) {
    const std::string api = "torch.linalg.ldl_solve";
    const auto& ld = call.tensor("LD", 0);
    const auto& pivots = call.tensor("pivots", 1);
    const auto& b = call.tensor("B", 2);
    linalg::check_square(call, ld, api);
    linalg::check_input(call, b, api);
    if (b.dtype != ld.dtype) call.fail(api + ": Expected LD and B to have the same dtype");
    const int64_t n = ld.sizes.back();
    if (pivots.dtype != DType::Int32 || pivots.sizes != linalg::with_tail(linalg::batch_of(ld, 2), {n})) {
        call.fail(api + ": pivots must be int32 of shape LD.shape[:-1], got " + shape_text(pivots.sizes));
    }
    if (b.sizes[b.rank() - 2] != n) call.fail(api + ": B.shape[-2] must equal LD.shape[-1]");
    const auto batch = broadcast_shapes(call, linalg::batch_of(ld, 2), linalg::batch_of(b, 2));
    auto expand = [&](const StridedTensor& t, int dims) {
        std::vector<int64_t> sizes = batch;
        sizes.insert(sizes.end(), t.sizes.end() - dims, t.sizes.end());
        return broadcast_to(call, t, sizes);
    };
    StridedTensor result = linalg::output(call, 0, linalg::with_tail(batch, {n, b.sizes.back()}));
    const MatrixBatch lds(expand(ld, 2), 2), piv(expand(pivots, 1), 1), bs(expand(b, 2), 2), out(result, 2);
    for (int64_t i = 0; i < out.count(); ++i) {
        const auto rows = piv.ints(i);
        // 1x1 blocks (k > 0) and pairs of equal negative entries (2x2 blocks), each row in range.
        for (size_t k = 0; k < rows.size();) {
            const int64_t p = rows[k] > 0 ? rows[k] : -rows[k];
            const bool pair = rows[k] < 0;
            if (p < 1 || p > n || (pair && (k + 1 >= rows.size() || rows[k + 1] != rows[k]))) {
                call.fail(api + ": pivots are not LAPACK's sytrf pivots");
            }
            k += pair ? 2 : 1;
        }
        out.set_matrix(i, ldl_solve(lds.matrix(i), rows, bs.matrix(i)));
    }
    return single(result);
}

// ---- Shape contracts -----------------------------------------------------------------------

// LD in the place of the square input, n pivots and (the _ex spelling) one info per matrix.
std::optional<std::vector<ExpectedSizes>> ldl_factor_shape(const ShapeQuery& query) {
    const auto a = matrix_sizes(query, "self", 0, true);
    if (!a) return std::nullopt;
    return std::vector<ExpectedSizes>{*a, leading(*a, 1), leading(*a, 2)};
}

// B's sizes, its batch broadcast with LD's; B's rows must be LD's order.
std::optional<std::vector<ExpectedSizes>> ldl_solve_shape(const ShapeQuery& query) {
    const auto ld = matrix_sizes(query, "LD", 0, true);
    const auto b = matrix_sizes(query, "B", 2, false);
    if (!ld || !b) return std::nullopt;
    require_same_size(query, ld->back(), b->end()[-2], "the order of LD and the rows of B");
    return std::vector<ExpectedSizes>{with_broadcast_batch(query, *b, *ld)};
}

PT2OV_KERNEL("aten.linalg_ldl_factor_ex.default", linalg_ldl_factor_ex, ldl_factor_shape);
PT2OV_KERNEL("aten.linalg_ldl_factor.default", linalg_ldl_factor, ldl_factor_shape);
PT2OV_KERNEL("aten.linalg_ldl_solve.default", linalg_ldl_solve, ldl_solve_shape);

}  // namespace
}  // namespace pt2ov::kernels
