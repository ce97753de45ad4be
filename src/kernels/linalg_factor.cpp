// Factorizations: Cholesky (cholesky, linalg_cholesky, linalg_cholesky_ex), LU with partial
// pivoting (linalg_lu_factor(_ex), _lu_with_info, linalg_lu, lu_unpack) and Householder QR
// (linalg_qr, qr, geqrf, linalg_householder_product, ormqr), packed as LAPACK packs them.
#include <fmt/format.h>

#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/linalg.h"

namespace pt2ov::kernels {
namespace {

using linalg::Matrix;
using linalg::MatrixBatch;
using linalg::Vector;

// ---- Cholesky ------------------------------------------------------------------------------

std::string not_positive_definite(const StridedTensor& a, int64_t index, int64_t info) {
    return linalg::batch_prefix(a, index) +
           "The factorization could not be completed because the input is not positive-definite (the leading minor "
           "of order " + std::to_string(info) + " is not positive-definite).";
}

// L (or U with `upper`, from the upper triangle) for each matrix, and info. `api` names the
// op in the error raised when `check_errors`.
std::pair<StridedTensor, std::vector<int64_t>> cholesky_batch(const KernelCall& call, const StridedTensor& a, bool upper,
                                                              bool check_errors, const std::string& api) {
    linalg::check_square(call, a, api);
    StridedTensor factor = linalg::output(call, 0, a.sizes);
    const MatrixBatch in(a, 2), out(factor, 2);
    std::vector<int64_t> infos(static_cast<size_t>(in.count()));
    for (int64_t b = 0; b < in.count(); ++b) {
        // potrf('U') reads the upper triangle: the lower one of A^T, and U = L^T.
        Matrix m = upper ? Matrix(in.matrix(b).transpose()) : in.matrix(b);
        const int64_t info = linalg::cholesky_lower_in_place(m);
        if (info != 0 && check_errors) call.fail(api + ": " + not_positive_definite(a, b, info));
        infos[static_cast<size_t>(b)] = info;
        out.set_matrix(b, upper ? Matrix(m.transpose()) : m);
    }
    return {factor, infos};
}

StridedTensor info_tensor(const KernelCall& call, size_t index, const std::vector<int64_t>& batch,
                          const std::vector<int64_t>& infos) {
    StridedTensor info = linalg::output(call, index, batch);
    const MatrixBatch out(info, 0);
    for (int64_t b = 0; b < out.count(); ++b) out.set_ints(b, {infos[static_cast<size_t>(b)]});
    return info;
}

// cholesky(Tensor self, bool upper=False)
std::vector<RuntimeValue> cholesky(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    return single(cholesky_batch(call, a, call.bool_arg("upper", 1, false), true, "cholesky").first);
}

// linalg_cholesky(Tensor self, *, bool upper=False)
std::vector<RuntimeValue> linalg_cholesky(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    return single(cholesky_batch(call, a, call.bool_arg("upper", kKeywordOnly, false), true, "linalg.cholesky").first);
}

// linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (L, info)
std::vector<RuntimeValue> linalg_cholesky_ex(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    auto [factor, infos] = cholesky_batch(call, a, call.bool_arg("upper", kKeywordOnly, false),
                                          call.bool_arg("check_errors", kKeywordOnly, false), "linalg.cholesky_ex");
    return {RuntimeValue::of(factor), RuntimeValue::of(info_tensor(call, 1, linalg::batch_of(a, 2), infos))};
}

// ---- LU ------------------------------------------------------------------------------------

struct LuBatch {
    StridedTensor lu, pivots;
    std::vector<int64_t> infos;
};

LuBatch lu_factor_batch(const KernelCall& call, const StridedTensor& a, const std::string& api) {
    linalg::check_input(call, a, api);
    if (!call.bool_arg("pivot", 1, true)) {
        call.fail(api + ": LU without pivoting is not implemented on the CPU");
    }
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes[a.rank() - 1];
    const auto batch = linalg::batch_of(a, 2);
    LuBatch result{linalg::output(call, 0, a.sizes), linalg::output(call, 1, linalg::with_tail(batch, {std::min(m, n)})), {}};
    const MatrixBatch in(a, 2), lu(result.lu, 2), pivots(result.pivots, 1);
    for (int64_t b = 0; b < in.count(); ++b) {
        Matrix packed = in.matrix(b);
        std::vector<int64_t> rows;
        result.infos.push_back(linalg::lu_factor_in_place(packed, rows));
        lu.set_matrix(b, packed);
        pivots.set_ints(b, rows);
    }
    return result;
}

// linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> (LU, pivots, info)
std::vector<RuntimeValue> linalg_lu_factor_ex(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    LuBatch r = lu_factor_batch(call, a, "torch.linalg.lu_factor_ex");
    if (call.bool_arg("check_errors", kKeywordOnly, false)) {
        for (size_t b = 0; b < r.infos.size(); ++b) {
            if (r.infos[b] > 0) {
                call.fail("torch.linalg.lu_factor_ex: " + linalg::batch_prefix(a, static_cast<int64_t>(b)) + "U[" +
                          std::to_string(r.infos[b]) + "," + std::to_string(r.infos[b]) + "] is zero");
            }
        }
    }
    return {RuntimeValue::of(r.lu), RuntimeValue::of(r.pivots),
            RuntimeValue::of(info_tensor(call, 2, linalg::batch_of(a, 2), r.infos))};
}

// linalg_lu_factor(Tensor A, *, bool pivot=True) -> (LU, pivots)
std::vector<RuntimeValue> linalg_lu_factor(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    LuBatch r = lu_factor_batch(call, a, "torch.linalg.lu_factor");
    for (size_t b = 0; b < r.infos.size(); ++b) {
        if (r.infos[b] > 0) {
            const std::string i = std::to_string(r.infos[b]);
            call.fail("torch.linalg.lu_factor: " + linalg::batch_prefix(a, static_cast<int64_t>(b)) + "U[" + i + "," + i +
                      "] is zero and using it on lu_solve would result in a division by zero. If you still want to "
                      "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
        }
    }
    return {RuntimeValue::of(r.lu), RuntimeValue::of(r.pivots)};
}

// _lu_with_info(Tensor self, bool pivot=True, bool check_errors=True): torch.lu; PyTorch
// factors without checking, whatever check_errors says.
std::vector<RuntimeValue> lu_with_info(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    LuBatch r = lu_factor_batch(call, a, "torch.lu");
    return {RuntimeValue::of(r.lu), RuntimeValue::of(r.pivots),
            RuntimeValue::of(info_tensor(call, 2, linalg::batch_of(a, 2), r.infos))};
}

// The permutation matrix P with A = P L U, from LAPACK's sequential row interchanges.
Matrix permutation_of(const std::vector<int64_t>& pivots, int64_t m) {
    Matrix p = Matrix::Identity(m, m);
    linalg::apply_pivots(p, pivots, true);
    return p;
}

// P (m x m), L (m x k) and U (k x n) from a packed LU (m x n).
void unpack_lu(const Matrix& packed, Matrix& lower, Matrix& upper) {
    const int64_t m = packed.rows(), n = packed.cols(), k = std::min(m, n);
    lower = Matrix::Zero(m, k);
    upper = Matrix::Zero(k, n);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            if (i > j && j < k) lower(i, j) = packed(i, j);
            if (i <= j && i < k) upper(i, j) = packed(i, j);
        }
    }
    for (int64_t i = 0; i < k; ++i) lower(i, i) = 1;
}

// linalg_lu(Tensor A, *, bool pivot=True) -> (P, L, U)
std::vector<RuntimeValue> linalg_lu(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    linalg::check_input(call, a, "linalg.lu");
    if (!call.bool_arg("pivot", kKeywordOnly, true)) call.fail("linalg.lu: LU without pivoting is not implemented on the CPU");
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes[a.rank() - 1], k = std::min(m, n);
    const auto batch = linalg::batch_of(a, 2);
    StridedTensor p = linalg::output(call, 0, linalg::with_tail(batch, {m, m}));
    StridedTensor l = linalg::output(call, 1, linalg::with_tail(batch, {m, k}));
    StridedTensor u = linalg::output(call, 2, linalg::with_tail(batch, {k, n}));
    const MatrixBatch in(a, 2), p_out(p, 2), l_out(l, 2), u_out(u, 2);
    for (int64_t b = 0; b < in.count(); ++b) {
        Matrix packed = in.matrix(b), lower, upper;
        std::vector<int64_t> pivots;
        linalg::lu_factor_in_place(packed, pivots);
        unpack_lu(packed, lower, upper);
        p_out.set_matrix(b, permutation_of(pivots, m));
        l_out.set_matrix(b, lower);
        u_out.set_matrix(b, upper);
    }
    return {RuntimeValue::of(p), RuntimeValue::of(l), RuntimeValue::of(u)};
}

// lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True)
std::vector<RuntimeValue> lu_unpack(const KernelCall& call) {
    const auto& packed_in = call.tensor("LU_data", 0);
    const auto& pivots_in = call.tensor("LU_pivots", 1);
    const bool unpack_data = call.bool_arg("unpack_data", 2, true);
    const bool unpack_pivots = call.bool_arg("unpack_pivots", 3, true);
    linalg::check_input(call, packed_in, "torch.lu_unpack");
    const int64_t m = packed_in.sizes[packed_in.rank() - 2], n = packed_in.sizes[packed_in.rank() - 1], k = std::min(m, n);
    const auto batch = linalg::batch_of(packed_in, 2);
    if (pivots_in.dtype != DType::Int32) call.fail("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype");
    if (pivots_in.sizes != linalg::with_tail(batch, {k})) {
        call.fail("torch.lu_unpack: LU_pivots of shape " + shape_text(pivots_in.sizes) + " does not match LU_data of shape " +
                  shape_text(packed_in.sizes));
    }
    StridedTensor p = linalg::output(call, 0, unpack_pivots ? linalg::with_tail(batch, {m, m}) : std::vector<int64_t>{0});
    StridedTensor l = linalg::output(call, 1, unpack_data ? linalg::with_tail(batch, {m, k}) : std::vector<int64_t>{0});
    StridedTensor u = linalg::output(call, 2, unpack_data ? linalg::with_tail(batch, {k, n}) : std::vector<int64_t>{0});
    const MatrixBatch in(packed_in, 2), piv(pivots_in, 1);
    for (int64_t b = 0; b < in.count(); ++b) {
        if (unpack_data) {
            Matrix lower, upper;
            unpack_lu(in.matrix(b), lower, upper);
            MatrixBatch(l, 2).set_matrix(b, lower);
            MatrixBatch(u, 2).set_matrix(b, upper);
        }
        if (unpack_pivots) {
            const auto rows = piv.ints(b);
            for (int64_t r : rows) {
                if (r < 1 || r > m) call.fail("torch.lu_unpack: a pivot is out of range: " + std::to_string(r));
            }
            MatrixBatch(p, 2).set_matrix(b, permutation_of(rows, m));
        }
    }
    return {RuntimeValue::of(p), RuntimeValue::of(l), RuntimeValue::of(u)};
}

// ---- QR ------------------------------------------------------------------------------------

std::vector<RuntimeValue> qr_batch(const KernelCall& call, const StridedTensor& a, const std::string& mode,
                                   const std::string& api) {
    linalg::check_input(call, a, api);
    if (mode != "reduced" && mode != "complete" && mode != "r") {
        call.fail(api + ": qr received unrecognized mode '" + mode + "' but expected one of 'reduced' (default), 'r', or 'complete'");
    }
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes[a.rank() - 1], k = std::min(m, n);
    const int64_t q_columns = mode == "complete" ? m : k;
    const int64_t r_rows = mode == "complete" ? m : k;
    const auto batch = linalg::batch_of(a, 2);
    StridedTensor q = linalg::output(call, 0, mode == "r" ? std::vector<int64_t>{0} : linalg::with_tail(batch, {m, q_columns}));
    StridedTensor r = linalg::output(call, 1, linalg::with_tail(batch, {r_rows, n}));
    const MatrixBatch in(a, 2), r_out(r, 2);
    for (int64_t b = 0; b < in.count(); ++b) {
        Matrix packed = in.matrix(b);
        Vector tau;
        linalg::householder_qr_in_place(packed, tau);
        Matrix upper = Matrix::Zero(r_rows, n);
        for (int64_t i = 0; i < std::min(r_rows, m); ++i) {
            for (int64_t j = i; j < n; ++j) upper(i, j) = packed(i, j);
        }
        r_out.set_matrix(b, upper);
        if (mode != "r") MatrixBatch(q, 2).set_matrix(b, linalg::householder_product(packed, tau, q_columns));
    }
    return {RuntimeValue::of(q), RuntimeValue::of(r)};
}

// linalg_qr(Tensor A, str mode="reduced") -> (Q, R)
std::vector<RuntimeValue> linalg_qr(const KernelCall& call) {
    return qr_batch(call, call.tensor("A", 0), linalg::string_arg(call, "mode", 1, "reduced"), "linalg.qr");
}

// qr(Tensor self, bool some=True) -> (Q, R)
std::vector<RuntimeValue> qr(const KernelCall& call) {
    return qr_batch(call, call.tensor("self", 0), call.bool_arg("some", 1, true) ? "reduced" : "complete", "qr");
}

// geqrf(Tensor self) -> (a, tau)
std::vector<RuntimeValue> geqrf(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    linalg::check_input(call, a, "geqrf");
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes[a.rank() - 1];
    StridedTensor packed = linalg::output(call, 0, a.sizes);
    StridedTensor tau = linalg::output(call, 1, linalg::with_tail(linalg::batch_of(a, 2), {std::min(m, n)}));
    const MatrixBatch in(a, 2), packed_out(packed, 2), tau_out(tau, 1);
    for (int64_t b = 0; b < in.count(); ++b) {
        Matrix reflectors = in.matrix(b);
        Vector scales;
        linalg::householder_qr_in_place(reflectors, scales);
        packed_out.set_matrix(b, reflectors);
        tau_out.set_vector(b, scales);
    }
    return {RuntimeValue::of(packed), RuntimeValue::of(tau)};
}

void check_tau(const KernelCall& call, const StridedTensor& a, const StridedTensor& tau, int64_t max_k, const std::string& api) {
    if (tau.dtype != a.dtype) call.fail(api + ": tau must have the dtype of the input");
    if (tau.rank() != a.rank() - 1 || linalg::batch_of(tau, 1) != linalg::batch_of(a, 2)) {
        call.fail(api + ": tau of shape " + shape_text(tau.sizes) + " does not match the batch of the input " +
                  shape_text(a.sizes));
    }
    if (tau.sizes.back() > max_k) call.fail(api + ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
}

// linalg_householder_product(Tensor input, Tensor tau): the first n columns of H(1)...H(k).
std::vector<RuntimeValue> householder_product(const KernelCall& call) {
    const auto& a = call.tensor("input", 0);
    const auto& tau = call.tensor("tau", 1);
    const std::string api = "torch.linalg.householder_product";
    linalg::check_input(call, a, api);
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes[a.rank() - 1];
    if (m < n) call.fail(api + ": input.shape[-2] must be greater than or equal to input.shape[-1]");
    check_tau(call, a, tau, n, api);
    StridedTensor q = linalg::output(call, 0, a.sizes);
    const MatrixBatch in(a, 2), scales(tau, 1), out(q, 2);
    for (int64_t b = 0; b < in.count(); ++b) out.set_matrix(b, linalg::householder_product(in.matrix(b), scales.vector(b), n));
    return single(q);
}

// ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False)
std::vector<RuntimeValue> ormqr(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    const auto& tau = call.tensor("input2", 1);
    const auto& c = call.tensor("input3", 2);
    const bool left = call.bool_arg("left", 3, true), transpose = call.bool_arg("transpose", 4, false);
    const std::string api = "torch.ormqr";
    linalg::check_input(call, a, api);
    linalg::check_input(call, c, api);
    if (c.dtype != a.dtype || c.rank() != a.rank() || linalg::batch_of(c, 2) != linalg::batch_of(a, 2)) {
        call.fail(api + ": input3 of shape " + shape_text(c.sizes) + " does not match input of shape " + shape_text(a.sizes));
    }
    const int64_t reflector_rows = a.sizes[a.rank() - 2];
    const int64_t acted_on = left ? c.sizes[c.rank() - 2] : c.sizes[c.rank() - 1];
    if (acted_on != reflector_rows) {
        call.fail(api + ": input3." + (left ? "shape[-2]" : "shape[-1]") + " must be equal to input.shape[-2]");
    }
    check_tau(call, a, tau, std::min(reflector_rows, a.sizes[a.rank() - 1]), api);
    StridedTensor out = linalg::output(call, 0, c.sizes);
    const MatrixBatch in(a, 2), scales(tau, 1), target(c, 2), result(out, 2);
    for (int64_t b = 0; b < in.count(); ++b) {
        result.set_matrix(b, linalg::apply_householder(in.matrix(b), scales.vector(b), target.matrix(b), left, transpose));
    }
    return single(out);
}

// ---- Shape contracts -----------------------------------------------------------------------

using Sizes = std::vector<ExpectedSizes>;

// The factored matrix: linalg's `A`, the older spellings' `self`.
std::optional<ExpectedSizes> factored(const ShapeQuery& query, bool square) {
    auto a = matrix_sizes(query, "A", 0, square);
    return a ? a : matrix_sizes(query, "self", 0, square);
}

// `batch` followed by `rows` x `columns`.
ExpectedSizes batch_matrix(ExpectedSizes batch, std::optional<int64_t> rows, std::optional<int64_t> columns) {
    batch.push_back(rows);
    batch.push_back(columns);
    return batch;
}

ExpectedSizes batch_vector(ExpectedSizes batch, std::optional<int64_t> length) {
    batch.push_back(length);
    return batch;
}

// Cholesky: the factor of square matrices, and (the _ex spelling) one info per matrix.
std::optional<Sizes> cholesky_shape(const ShapeQuery& query) {
    const auto a = factored(query, true);
    if (!a) return std::nullopt;
    return Sizes{*a, leading(*a, 2)};
}

// LU factorizations of [..., m, n]: the packed LU, min(m, n) pivots and one info per matrix.
std::optional<Sizes> lu_factor_shape(const ShapeQuery& query) {
    const auto a = factored(query, false);
    if (!a) return std::nullopt;
    const ExpectedSizes batch = leading(*a, 2);
    return Sizes{*a, batch_vector(batch, smaller(a->end()[-2], a->back())), batch};
}

// P [..., m, m] (empty [0] without pivoting), L [..., m, k] and U [..., k, n], k = min(m, n).
std::optional<Sizes> linalg_lu_shape(const ShapeQuery& query) {
    const auto a = factored(query, false);
    const auto pivot = query.int_arg("pivot", 1);
    if (!a || !pivot) return std::nullopt;
    const ExpectedSizes batch = leading(*a, 2);
    const auto m = a->end()[-2], n = a->back(), k = smaller(m, n);
    return Sizes{*pivot ? batch_matrix(batch, m, m) : ExpectedSizes{0}, batch_matrix(batch, m, k), batch_matrix(batch, k, n)};
}

// As linalg_lu from a packed LU, each part empty ([0]) when not asked to be unpacked.
std::optional<Sizes> lu_unpack_shape(const ShapeQuery& query) {
    const auto lu = matrix_sizes(query, "LU_data", 0, false);
    const auto unpack_data = query.int_arg("unpack_data", 2), unpack_pivots = query.int_arg("unpack_pivots", 3);
    if (!lu || !unpack_data || !unpack_pivots) return std::nullopt;
    const ExpectedSizes batch = leading(*lu, 2);
    const auto m = lu->end()[-2], n = lu->back(), k = smaller(m, n);
    const ExpectedSizes empty{0};
    return Sizes{*unpack_pivots ? batch_matrix(batch, m, m) : empty, *unpack_data ? batch_matrix(batch, m, k) : empty,
                 *unpack_data ? batch_matrix(batch, k, n) : empty};
}

// QR of [..., m, n], k = min(m, n): "reduced" Q [..., m, k] and R [..., k, n]; "complete" Q
// [..., m, m] and R [..., m, n]; "r" only R [..., k, n] (Q empty [0]). qr's `some` is reduced.
std::optional<Sizes> qr_shape(const ShapeQuery& query) {
    const auto a = factored(query, false);
    if (!a) return std::nullopt;
    std::string mode = "reduced";
    if (const auto some = query.int_arg("some", 1)) {
        mode = *some ? "reduced" : "complete";
    } else {
        const auto at = query.node().schema ? query.node().schema->position_of(ArgName("mode").id()) : std::nullopt;
        if (!at || query.node().arg(*at).kind != graph::Argument::Kind::String) return std::nullopt;
        mode = query.node().arg(*at).string_value;
    }
    const ExpectedSizes batch = leading(*a, 2);
    const auto m = a->end()[-2], n = a->back(), k = smaller(m, n);
    if (mode == "reduced") return Sizes{batch_matrix(batch, m, k), batch_matrix(batch, k, n)};
    if (mode == "complete") return Sizes{batch_matrix(batch, m, m), *a};
    if (mode == "r") return Sizes{ExpectedSizes{0}, batch_matrix(batch, k, n)};
    query.contradiction("its mode '" + mode + "' is none of 'reduced', 'complete' and 'r'");
}

// geqrf: the packed reflectors in A's place and min(m, n) scales.
std::optional<Sizes> geqrf_shape(const ShapeQuery& query) {
    const auto a = factored(query, false);
    if (!a) return std::nullopt;
    return Sizes{*a, batch_vector(leading(*a, 2), smaller(a->end()[-2], a->back()))};
}

// The reflectors' scales `tau` [..., k] go with reflectors [..., m, n]: the same batch, and k at
// most `most` (householder_product: n; ormqr, whose reflectors may be m: left to the kernel).
void check_tau_sizes(const ShapeQuery& query, const ExpectedSizes& reflectors, const ExpectedSizes& tau,
                     std::optional<int64_t> most) {
    if (tau.size() + 1 != reflectors.size()) {
        query.contradiction(fmt::format("its tau has rank {} for reflectors of rank {}", tau.size(), reflectors.size()));
    }
    for (size_t d = 0; d + 1 < tau.size(); ++d) require_same_size(query, tau[d], reflectors[d], "the batch sizes of tau and the reflectors");
    if (!tau.empty() && tau.back() && most && *tau.back() > *most) {
        query.contradiction(fmt::format("it has {} scales in tau for {} reflectors", *tau.back(), *most));
    }
}

// householder_product(input [..., m, n], tau [..., k]): Q [..., m, n], m >= n >= k.
std::optional<Sizes> householder_product_shape(const ShapeQuery& query) {
    const auto input = matrix_sizes(query, "input", 0, false);
    const auto tau = query.sizes("tau", 1);
    if (!input || !tau) return std::nullopt;
    const auto m = input->end()[-2], n = input->back();
    if (m && n && *m < *n) query.contradiction(fmt::format("its input has fewer rows ({}) than columns ({})", *m, *n));
    check_tau_sizes(query, *input, *tau, n);
    return Sizes{*input};
}

// ormqr(input [..., m, n], tau, input3): Q (of the m x m reflectors) times input3 on the left, or
// input3 times Q on the right: input3's sizes, its rows (left) or columns (right) being m.
std::optional<Sizes> ormqr_shape(const ShapeQuery& query) {
    const auto reflectors = matrix_sizes(query, "self", 0, false);
    const auto tau = query.sizes("input2", 1);
    const auto target = matrix_sizes(query, "input3", 2, false);
    const auto left = query.int_arg("left", 3);
    if (!reflectors || !tau || !target || !left) return std::nullopt;
    if (target->size() != reflectors->size()) {
        query.contradiction(fmt::format("its input3 has rank {} where its input has rank {}", target->size(), reflectors->size()));
    }
    for (size_t d = 0; d + 2 < target->size(); ++d) {
        require_same_size(query, (*target)[d], (*reflectors)[d], "the batch sizes of input3 and the input");
    }
    require_same_size(query, *left ? target->end()[-2] : target->back(), reflectors->end()[-2],
                      *left ? "input3's rows and the input's rows" : "input3's columns and the input's rows");
    check_tau_sizes(query, *reflectors, *tau, std::nullopt);
    return Sizes{*target};
}

PT2OV_KERNEL("aten.cholesky.default", cholesky, cholesky_shape);
PT2OV_KERNEL("aten.linalg_cholesky.default", linalg_cholesky, cholesky_shape);
PT2OV_KERNEL("aten.linalg_cholesky_ex.default", linalg_cholesky_ex, cholesky_shape);
PT2OV_KERNEL("aten.linalg_lu_factor_ex.default", linalg_lu_factor_ex, lu_factor_shape);
PT2OV_KERNEL("aten.linalg_lu_factor.default", linalg_lu_factor, lu_factor_shape);
PT2OV_KERNEL("aten._lu_with_info.default", lu_with_info, lu_factor_shape);
PT2OV_KERNEL("aten.linalg_lu.default", linalg_lu, linalg_lu_shape);
PT2OV_KERNEL("aten.lu_unpack.default", lu_unpack, lu_unpack_shape);
PT2OV_KERNEL("aten.linalg_qr.default", linalg_qr, qr_shape);
PT2OV_KERNEL("aten.qr.default", qr, qr_shape);
PT2OV_KERNEL("aten.geqrf.default", geqrf, geqrf_shape);
PT2OV_KERNEL("aten.linalg_householder_product.default", householder_product, householder_product_shape);
PT2OV_KERNEL("aten.ormqr.default", ormqr, ormqr_shape);

}  // namespace
}  // namespace pt2ov::kernels
