// Spectral decompositions and what is built on them: svd, linalg_svd, _linalg_svd,
// linalg_svdvals, linalg_eigh, _linalg_eigh, linalg_eigvalsh, linalg_pinv, pinverse,
// linalg_matrix_rank, linalg_cond and linalg_matrix_norm.
//
// Singular values and eigenvalues are unique, and so are the pseudo-inverse, rank, condition
// number and norms built from them. Singular vectors and eigenvectors are not: each may be
// negated (or rotated within a repeated value), and LAPACK's choice comes out of its own
// iterations (gesdd, syevd in PyTorch's MKL) with no rule another implementation can follow.
// So a node whose vectors are read is refused; the values alone are computed.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/linalg.h"

namespace pt2ov::kernels {
namespace {

using linalg::Matrix;
using linalg::MatrixBatch;
using linalg::Vector;

// Whether any node or the program's outputs read output `index` of the node.
bool output_is_read(const KernelCall& call, size_t index) {
    const auto& outputs = call.node().outputs;
    if (index >= outputs.size() || outputs[index].kind != graph::Argument::Kind::Tensor) return false;
    const std::string& name = outputs[index].name;
    auto names = [&](const graph::Argument& a, auto&& self) -> bool {
        if (a.kind == graph::Argument::Kind::Tensor) return a.name == name;
        if (a.kind == graph::Argument::Kind::List) {
            for (const auto& item : a.items) {
                if (self(item, self)) return true;
            }
        }
        return false;
    };
    for (const auto& node : call.graph().nodes) {
        for (const auto& input : node.inputs) {
            if (names(input.arg, names)) return true;
        }
    }
    for (const auto& output : call.graph().outputs) {
        if (names(output, names)) return true;
    }
    return false;
}

void refuse_vectors(const KernelCall& call, const std::string& api, const std::string& what) {
    call.fail(api + ": the " + what +
              " are read, and their signs (and bases of repeated values) are not unique: LAPACK's choice cannot be "
              "reproduced, so pt2ov computes only the values. Use values-only forms (svdvals, eigvalsh) or results "
              "that do not depend on the choice (pinv, matrix_rank, norms).");
}

double epsilon_of(DType dtype) {
    return dtype == DType::Float64 ? std::numeric_limits<double>::epsilon() : static_cast<double>(std::numeric_limits<float>::epsilon());
}

// ---- SVD -----------------------------------------------------------------------------------

// Singular values into output `s_index`; U and Vh (or V) outputs made zero-filled of the sizes
// given, after checking nobody reads them.
std::vector<RuntimeValue> svd_values_only(const KernelCall& call, const StridedTensor& a, const std::string& api,
                                          const std::vector<int64_t>& u_sizes, const std::vector<int64_t>& v_sizes,
                                          bool vectors_computed) {
    linalg::check_input(call, a, api);
    if (vectors_computed && (output_is_read(call, 0) || output_is_read(call, 2))) refuse_vectors(call, api, "singular vectors");
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes.back();
    const auto batch = linalg::batch_of(a, 2);
    StridedTensor u = linalg::output(call, 0, u_sizes);
    StridedTensor s = linalg::output(call, 1, linalg::with_tail(batch, {std::min(m, n)}));
    StridedTensor v = linalg::output(call, 2, v_sizes);
    const MatrixBatch in(a, 2), s_out(s, 1);
    for (int64_t i = 0; i < in.count(); ++i) s_out.set_vector(i, linalg::singular_values(call, in.matrix(i), api));
    return {RuntimeValue::of(u), RuntimeValue::of(s), RuntimeValue::of(v)};
}

// _linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None)
std::vector<RuntimeValue> linalg_svd_full(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    const bool full = call.bool_arg("full_matrices", 1, false), compute_uv = call.bool_arg("compute_uv", 2, true);
    linalg::check_input(call, a, "linalg.svd");
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes.back(), k = std::min(m, n);
    const auto batch = linalg::batch_of(a, 2);
    if (!compute_uv) return svd_values_only(call, a, "linalg.svd", {0}, {0}, false);
    return svd_values_only(call, a, "linalg.svd", linalg::with_tail(batch, {m, full ? m : k}),
                           linalg::with_tail(batch, {full ? n : k, n}), true);
}

// linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None)
std::vector<RuntimeValue> linalg_svd(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    const bool full = call.bool_arg("full_matrices", 1, true);
    linalg::check_input(call, a, "linalg.svd");
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes.back(), k = std::min(m, n);
    const auto batch = linalg::batch_of(a, 2);
    return svd_values_only(call, a, "linalg.svd", linalg::with_tail(batch, {m, full ? m : k}),
                           linalg::with_tail(batch, {full ? n : k, n}), true);
}

// svd(Tensor self, bool some=True, bool compute_uv=True) -> (U, S, V); without compute_uv, U and
// V are zero-filled (m x m) and (n x n) matrices.
std::vector<RuntimeValue> svd(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    const bool some = call.bool_arg("some", 1, true), compute_uv = call.bool_arg("compute_uv", 2, true);
    linalg::check_input(call, a, "svd");
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes.back(), k = std::min(m, n);
    const auto batch = linalg::batch_of(a, 2);
    if (!compute_uv) return svd_values_only(call, a, "svd", linalg::with_tail(batch, {m, m}), linalg::with_tail(batch, {n, n}), false);
    return svd_values_only(call, a, "svd", linalg::with_tail(batch, {m, some ? k : m}), linalg::with_tail(batch, {n, some ? k : n}), true);
}

// linalg_svdvals(Tensor A, *, str? driver=None)
std::vector<RuntimeValue> linalg_svdvals(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    linalg::check_input(call, a, "linalg.svdvals");
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes.back();
    StridedTensor s = linalg::output(call, 0, linalg::with_tail(linalg::batch_of(a, 2), {std::min(m, n)}));
    const MatrixBatch in(a, 2), s_out(s, 1);
    for (int64_t i = 0; i < in.count(); ++i) s_out.set_vector(i, linalg::singular_values(call, in.matrix(i), "linalg.svd"));
    return single(s);
}

// ---- Symmetric eigenvalues -----------------------------------------------------------------

// The triangle UPLO names, as a symmetric matrix's lower triangle (what Eigen's solver reads).
Matrix hermitian_lower(const Matrix& a, bool upper) { return upper ? Matrix(a.transpose()) : a; }

bool read_upper(const KernelCall& call, size_t position, const std::string& api) {
    const std::string uplo = linalg::string_arg(call, "UPLO", position, "L");
    if (uplo != "L" && uplo != "U" && uplo != "l" && uplo != "u") call.fail(api + ": Expected UPLO argument to be 'L' or 'U', but got " + uplo);
    return uplo == "U" || uplo == "u";
}

Vector eigenvalues_of(const KernelCall& call, const Matrix& lower, const std::string& api) {
    const Matrix tri = lower.triangularView<Eigen::Lower>();
    if (!linalg::all_finite(tri)) {
        call.fail(api + ": the input has non-finite values in the triangle read; pt2ov does not reproduce what LAPACK "
                        "returns for them");
    }
    if (lower.rows() == 0) return Vector(0);
    Eigen::SelfAdjointEigenSolver<Matrix> solver(lower, Eigen::EigenvaluesOnly);
    return solver.eigenvalues();  // ascending, as syevd's
}

std::vector<RuntimeValue> eigh_batch(const KernelCall& call, const StridedTensor& a, bool upper, bool vectors_computed,
                                     const std::string& api) {
    linalg::check_square(call, a, api);
    if (vectors_computed && output_is_read(call, 1)) refuse_vectors(call, api, "eigenvectors");
    const auto batch = linalg::batch_of(a, 2);
    StridedTensor values = linalg::output(call, 0, linalg::with_tail(batch, {a.sizes.back()}));
    const MatrixBatch in(a, 2), out(values, 1);
    for (int64_t i = 0; i < in.count(); ++i) out.set_vector(i, eigenvalues_of(call, hermitian_lower(in.matrix(i), upper), api));
    std::vector<RuntimeValue> outputs{RuntimeValue::of(values)};
    if (call.node().outputs.size() > 1) outputs.push_back(RuntimeValue::of(linalg::output(call, 1, vectors_computed ? a.sizes : std::vector<int64_t>{0})));
    return outputs;
}

// _linalg_eigh(Tensor A, str UPLO="L", bool compute_v=True)
std::vector<RuntimeValue> linalg_eigh_full(const KernelCall& call) {
    return eigh_batch(call, call.tensor("A", 0), read_upper(call, 1, "linalg.eigh"), call.bool_arg("compute_v", 2, true), "linalg.eigh");
}

// linalg_eigh(Tensor self, str UPLO="L")
std::vector<RuntimeValue> linalg_eigh(const KernelCall& call) {
    return eigh_batch(call, call.tensor("self", 0), read_upper(call, 1, "linalg.eigh"), true, "linalg.eigh");
}

// linalg_eigvalsh(Tensor self, str UPLO="L")
std::vector<RuntimeValue> linalg_eigvalsh(const KernelCall& call) {
    return eigh_batch(call, call.tensor("self", 0), read_upper(call, 1, "linalg.eigvalsh"), false, "linalg.eigvalsh");
}

// ---- Tolerances: pinv and matrix_rank ------------------------------------------------------

// atol and rtol per batch element, as PyTorch's get_atol_rtol: atol defaults to 0; rtol to
// eps * max(m, n) when neither is given, to 0 where a given atol is > 0.
struct Tolerances {
    std::vector<int64_t> batch;  // the input's batch broadcast with atol's and rtol's shapes
    std::vector<double> atol, rtol;
};

Tolerances tolerances(const KernelCall& call, const StridedTensor& a, const std::optional<StridedTensor>& atol,
                      const std::optional<StridedTensor>& rtol) {
    Tolerances t;
    t.batch = linalg::batch_of(a, 2);
    if (a.numel() == 0) {
        // PyTorch returns early for an input without elements: the input's batch, its
        // tolerances neither broadcast nor read (they need not even broadcast).
        int64_t count = 1;
        for (int64_t s : t.batch) count *= s;
        t.atol.assign(static_cast<size_t>(count), 0.0);
        t.rtol.assign(static_cast<size_t>(count), 0.0);
        return t;
    }
    if (atol) t.batch = broadcast_shapes(call, t.batch, atol->sizes);
    if (rtol) t.batch = broadcast_shapes(call, t.batch, rtol->sizes);
    const double default_rtol = epsilon_of(a.dtype) * static_cast<double>(std::max(a.sizes[a.rank() - 2], a.sizes.back()));
    int64_t count = 1;
    for (int64_t s : t.batch) count *= s;
    t.atol.assign(static_cast<size_t>(count), 0.0);
    t.rtol.assign(static_cast<size_t>(count), default_rtol);
    if (atol) {
        const auto values = dense_values<double>(broadcast_to(call, *atol, t.batch));
        for (size_t i = 0; i < values.size(); ++i) {
            t.atol[i] = values[i];
            if (!rtol) t.rtol[i] = values[i] > 0 ? 0.0 : default_rtol;
        }
    }
    if (rtol) t.rtol = dense_values<double>(broadcast_to(call, *rtol, t.batch));
    return t;
}

std::optional<StridedTensor> scalar_tolerance(std::optional<double> value) {
    if (!value) return std::nullopt;
    return scalar_tensor_as(Scalar{*value}, DType::Float64);
}

std::optional<double> optional_float(const KernelCall& call, ArgName name, size_t position) {
    if (!call.has(name, position)) return std::nullopt;
    return call.float_arg(name, position, 0.0);
}

// The input broadcast over the tolerances' batch (they may add batch dims).
StridedTensor over_batch(const KernelCall& call, const StridedTensor& a, const std::vector<int64_t>& batch) {
    return broadcast_to(call, a, linalg::with_tail(batch, {a.sizes[a.rank() - 2], a.sizes.back()}));
}

void check_finite_for_svd(const KernelCall& call, const Matrix& m, const std::string& api, bool hermitian) {
    if (!linalg::all_finite(hermitian ? Matrix(m.triangularView<Eigen::Lower>()) : m)) {
        call.fail(api + ": The algorithm failed to converge because the input matrix contained non-finite values.");
    }
}

Matrix pseudo_inverse(const KernelCall& call, const Matrix& a, double atol, double rtol, bool hermitian, const std::string& api) {
    check_finite_for_svd(call, a, api, hermitian);
    if (a.size() == 0) return Matrix::Zero(a.cols(), a.rows());
    if (hermitian) {
        Eigen::SelfAdjointEigenSolver<Matrix> solver(a);
        const Vector s = solver.eigenvalues();
        const double tol = std::max(atol, rtol * s.cwiseAbs().maxCoeff());
        Vector inverse(s.size());
        for (int64_t i = 0; i < s.size(); ++i) inverse(i) = std::abs(s(i)) > tol ? 1.0 / s(i) : 0.0;
        const Matrix& u = solver.eigenvectors();
        return u * inverse.asDiagonal() * u.transpose();
    }
    Eigen::BDCSVD<Matrix> svd(a, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Vector s = svd.singularValues();
    const double tol = std::max(atol, rtol * (s.size() ? s(0) : 0.0));
    Vector inverse(s.size());
    for (int64_t i = 0; i < s.size(); ++i) inverse(i) = s(i) > tol ? 1.0 / s(i) : 0.0;
    return svd.matrixV() * inverse.asDiagonal() * svd.matrixU().transpose();
}

StridedTensor pinv_batch(const KernelCall& call, const StridedTensor& a, const std::optional<StridedTensor>& atol,
                         const std::optional<StridedTensor>& rtol, bool hermitian) {
    const std::string api = "linalg.pinv";
    linalg::check_input(call, a, api);
    if (hermitian) linalg::check_square(call, a, api);
    const Tolerances t = tolerances(call, a, atol, rtol);
    const int64_t m = a.sizes[a.rank() - 2], n = a.sizes.back();
    StridedTensor result = linalg::output(call, 0, linalg::with_tail(t.batch, {n, m}));
    const MatrixBatch in(over_batch(call, a, t.batch), 2), out(result, 2);
    for (int64_t i = 0; i < out.count(); ++i) {
        out.set_matrix(i, pseudo_inverse(call, in.matrix(i), t.atol[i], t.rtol[i], hermitian, api));
    }
    return result;
}

// linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False)
std::vector<RuntimeValue> pinv_atol_rtol_tensor(const KernelCall& call) {
    return single(pinv_batch(call, call.tensor("self", 0), call.optional_tensor("atol", 1), call.optional_tensor("rtol", 2),
                             call.bool_arg("hermitian", 3, false)));
}

// linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False)
std::vector<RuntimeValue> pinv_atol_rtol_float(const KernelCall& call) {
    return single(pinv_batch(call, call.tensor("self", 0), scalar_tolerance(optional_float(call, "atol", 1)),
                             scalar_tolerance(optional_float(call, "rtol", 2)), call.bool_arg("hermitian", 3, false)));
}

// linalg_pinv(Tensor self, float rcond, bool hermitian=False): atol 0, rtol rcond.
std::vector<RuntimeValue> pinv_rcond(const KernelCall& call) {
    return single(pinv_batch(call, call.tensor("self", 0), scalar_tolerance(0.0), scalar_tolerance(call.float_arg("rcond", 1, 1e-15)),
                             call.bool_arg("hermitian", 2, false)));
}

// linalg_pinv.rcond_tensor(Tensor self, Tensor rcond, bool hermitian=False)
std::vector<RuntimeValue> pinv_rcond_tensor(const KernelCall& call) {
    return single(pinv_batch(call, call.tensor("self", 0), scalar_tolerance(0.0), call.tensor("rcond", 1),
                             call.bool_arg("hermitian", 2, false)));
}

// pinverse(Tensor self, float rcond=1e-15)
std::vector<RuntimeValue> pinverse(const KernelCall& call) {
    return single(pinv_batch(call, call.tensor("self", 0), scalar_tolerance(0.0), scalar_tolerance(call.float_arg("rcond", 1, 1e-15)), false));
}

StridedTensor rank_batch(const KernelCall& call, const StridedTensor& a, const std::optional<StridedTensor>& atol,
                         const std::optional<StridedTensor>& rtol, bool hermitian) {
    const std::string api = "linalg.matrix_rank";
    linalg::check_input(call, a, api);
    if (hermitian) linalg::check_square(call, a, api);
    const Tolerances t = tolerances(call, a, atol, rtol);
    StridedTensor result = linalg::output(call, 0, t.batch);
    const MatrixBatch in(over_batch(call, a, t.batch), 2), out(result, 0);
    for (int64_t i = 0; i < out.count(); ++i) {
        const Matrix m = in.matrix(i);
        if (m.size() == 0) {
            out.set_ints(i, {0});
            continue;
        }
        const Vector s = hermitian ? Vector(eigenvalues_of(call, m, api).cwiseAbs()) : linalg::singular_values(call, m, api);
        const double tol = std::max(t.atol[i], t.rtol[i] * s.maxCoeff());
        out.set_ints(i, {static_cast<int64_t>((s.array() > tol).count())});
    }
    return result;
}

// linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False)
std::vector<RuntimeValue> rank_atol_rtol_tensor(const KernelCall& call) {
    return single(rank_batch(call, call.tensor("input", 0), call.optional_tensor("atol", 1), call.optional_tensor("rtol", 2),
                             call.bool_arg("hermitian", 3, false)));
}

// linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False)
std::vector<RuntimeValue> rank_atol_rtol_float(const KernelCall& call) {
    return single(rank_batch(call, call.tensor("self", 0), scalar_tolerance(optional_float(call, "atol", 1)),
                             scalar_tolerance(optional_float(call, "rtol", 2)), call.bool_arg("hermitian", 3, false)));
}

// linalg_matrix_rank(Tensor self, float tol, bool hermitian=False): atol tol, rtol 0.
std::vector<RuntimeValue> rank_tol(const KernelCall& call) {
    return single(rank_batch(call, call.tensor("self", 0), scalar_tolerance(call.float_arg("tol", 1, 0.0)), scalar_tolerance(0.0),
                             call.bool_arg("hermitian", 2, false)));
}

// linalg_matrix_rank.tol_tensor(Tensor input, Tensor tol, bool hermitian=False)
std::vector<RuntimeValue> rank_tol_tensor(const KernelCall& call) {
    return single(rank_batch(call, call.tensor("input", 0), call.tensor("tol", 1), scalar_tolerance(0.0), call.bool_arg("hermitian", 2, false)));
}

// ---- Norms and condition numbers -----------------------------------------------------------

// ord as a number (1, -1, 2, -2, inf, -inf) or 'fro' / 'nuc'.
struct NormOrder {
    std::string name;  // "fro", "nuc", or empty for a number
    double number = 0;
};

double matrix_norm_of(const KernelCall& call, const Matrix& a, const NormOrder& ord, const std::string& api) {
    if (a.size() == 0) return 0.0;
    if (ord.name == "fro") return a.norm();
    if (ord.name == "nuc") return linalg::singular_values(call, a, api).sum();
    const double p = ord.number;
    if (std::abs(p) == 2) {
        const Vector s = linalg::singular_values(call, a, api);
        return p > 0 ? s.maxCoeff() : s.minCoeff();
    }
    // NaN propagates through the sums and through the max/min, as amax/amin do.
    const Eigen::ArrayXd sums = std::abs(p) == 1 ? Eigen::ArrayXd(a.cwiseAbs().colwise().sum().transpose())
                                                 : Eigen::ArrayXd(a.cwiseAbs().rowwise().sum());
    if (sums.isNaN().any()) return std::numeric_limits<double>::quiet_NaN();
    return p > 0 ? sums.maxCoeff() : sums.minCoeff();
}

NormOrder norm_order(const KernelCall& call, const std::string& api) {
    NormOrder ord;
    const graph::Argument* a = call.arg("ord", 1);
    if (a && a->kind == graph::Argument::Kind::String) {
        ord.name = a->string_value;
        if (ord.name != "fro" && ord.name != "nuc") call.fail(api + ": Order " + ord.name + " not supported.");
        return ord;
    }
    ord.number = scalar_to_double(call.scalar("ord", 1));
    if (!(std::abs(ord.number) == 1 || std::abs(ord.number) == 2 || std::isinf(ord.number))) {
        call.fail(api + ": Order " + std::to_string(ord.number) + " not supported.");
    }
    return ord;
}

// linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None)
// and .str_ord (str ord="fro").
std::vector<RuntimeValue> linalg_matrix_norm(const KernelCall& call) {
    const std::string api = "linalg.matrix_norm";
    const auto& a_in = call.tensor("self", 0);
    const NormOrder ord = norm_order(call, api);
    const bool keepdim = call.bool_arg("keepdim", 3, false);
    linalg::check_input(call, a_in, api);
    if (const auto dtype = call.dtype_arg("dtype", kKeywordOnly); dtype && *dtype != DType::Float32 && *dtype != DType::Float64) {
        call.fail(api + ": dtype " + std::string(dtype_name(*dtype)) + " is not supported");
    }
    const auto rank = static_cast<int64_t>(a_in.rank());
    const auto dims = normalize_dims(call, call.ints("dim", 2, {-2, -1}), rank);
    if (dims.size() != 2) call.fail(api + ": dim must be a 2-tuple. Got " + std::to_string(dims.size()) + " dims");
    // The two dims moved last: the batch is the other dims in order.
    std::vector<int64_t> sizes, strides, out_sizes, out_strides;
    StridedTensor a = a_in;
    if (call.has("dtype", kKeywordOnly)) a = contiguous_as(a_in, *call.dtype_arg("dtype", kKeywordOnly));
    for (int64_t d = 0; d < rank; ++d) {
        if (d == dims[0] || d == dims[1]) continue;
        sizes.push_back(a.sizes[static_cast<size_t>(d)]);
        strides.push_back(a.strides[static_cast<size_t>(d)]);
    }
    const std::vector<int64_t> batch = sizes;
    for (int64_t d : dims) {
        sizes.push_back(a.sizes[static_cast<size_t>(d)]);
        strides.push_back(a.strides[static_cast<size_t>(d)]);
    }
    std::vector<int64_t> result_sizes;
    for (int64_t d = 0; d < rank; ++d) {
        if (d == dims[0] || d == dims[1]) {
            if (keepdim) result_sizes.push_back(1);
        } else {
            result_sizes.push_back(a.sizes[static_cast<size_t>(d)]);
        }
    }
    StridedTensor result = linalg::output(call, 0, result_sizes);
    for (int64_t d = 0, r = 0; d < rank; ++d) {
        const bool reduced = d == dims[0] || d == dims[1];
        if (!reduced) out_strides.push_back(result.strides[static_cast<size_t>(r)]);
        if (!reduced || keepdim) ++r;
    }
    const MatrixBatch in(a.view(sizes, strides), 2), out(result.view(batch, out_strides), 0);
    for (int64_t i = 0; i < out.count(); ++i) out.set_scalar(i, matrix_norm_of(call, in.matrix(i), ord, api));
    return single(result);
}

// norm(A) * norm(inv(A)) for orders other than +-2; an A found singular has an inverse of
// infinities, as PyTorch fills it.
double condition_number(const KernelCall& call, const Matrix& a, const NormOrder& ord, const std::string& api) {
    if (a.size() == 0) return 0.0;
    if (ord.name.empty() && std::abs(ord.number) == 2) {
        const Vector s = linalg::singular_values(call, a, api);
        return ord.number > 0 ? s(0) / s(s.size() - 1) : s(s.size() - 1) / s(0);
    }
    Matrix lu = a;
    std::vector<int64_t> pivots;
    Matrix inverse = linalg::lu_factor_in_place(lu, pivots) > 0
                         ? Matrix::Constant(a.rows(), a.cols(), std::numeric_limits<double>::infinity())
                         : linalg::lu_solve(lu, pivots, Matrix::Identity(a.rows(), a.rows()), false);
    return matrix_norm_of(call, a, ord, api) * matrix_norm_of(call, inverse, ord, api);
}

std::vector<RuntimeValue> cond_batch(const KernelCall& call, const NormOrder& ord) {
    const std::string api = "linalg.cond";
    const auto& a = call.tensor("self", 0);
    linalg::check_input(call, a, api);
    if (!(ord.name.empty() && std::abs(ord.number) == 2)) linalg::check_square(call, a, api);
    StridedTensor result = linalg::output(call, 0, linalg::batch_of(a, 2));
    const MatrixBatch in(a, 2), out(result, 0);
    for (int64_t i = 0; i < in.count(); ++i) out.set_scalar(i, condition_number(call, in.matrix(i), ord, api));
    return single(result);
}

// linalg_cond(Tensor self, Scalar? p=None)
std::vector<RuntimeValue> linalg_cond(const KernelCall& call) {
    NormOrder ord{"", 2.0};
    if (call.has("p", 1)) ord.number = scalar_to_double(call.scalar("p", 1));
    if (!(std::abs(ord.number) == 1 || std::abs(ord.number) == 2 || std::isinf(ord.number))) {
        call.fail("linalg.cond got an invalid norm type: " + std::to_string(ord.number));
    }
    return cond_batch(call, ord);
}

// linalg_cond.p_str(Tensor self, str p)
std::vector<RuntimeValue> linalg_cond_str(const KernelCall& call) {
    NormOrder ord{linalg::string_arg(call, "p", 1, "fro"), 0};
    if (ord.name != "fro" && ord.name != "nuc") call.fail("linalg.cond got an invalid norm type: " + ord.name);
    return cond_batch(call, ord);
}

// ---- Shape contracts -----------------------------------------------------------------------

using Sizes = std::vector<ExpectedSizes>;

ExpectedSizes with_tail(ExpectedSizes batch, std::initializer_list<std::optional<int64_t>> tail) {
    batch.insert(batch.end(), tail);
    return batch;
}

// The decomposed matrix: `A` in the linalg spellings, `self` (or `input`) in the others.
std::optional<ExpectedSizes> decomposed(const ShapeQuery& query, bool square) {
    auto a = matrix_sizes(query, "A", 0, square);
    if (!a) a = matrix_sizes(query, "self", 0, square);
    if (!a) a = matrix_sizes(query, "input", 0, square);
    return a;
}

// SVD of [..., m, n], k = min(m, n): U, S [..., k] and Vh. _linalg_svd and linalg_svd: U [..., m, m]
// and Vh [..., n, n] with full_matrices, [..., m, k] and [..., k, n] without, both empty [0]
// without compute_uv. svd returns V (not Vh): [..., n, k] with `some`, and [..., m, m] and
// [..., n, n] without it or without compute_uv (zero-filled then, as eager's svd).
std::optional<Sizes> svd_shape(const ShapeQuery& query) {
    const auto a = decomposed(query, false);
    if (!a) return std::nullopt;
    const ExpectedSizes batch = leading(*a, 2);
    const auto m = a->end()[-2], n = a->back(), k = smaller(m, n);
    const ExpectedSizes s = with_tail(batch, {k});
    if (query.node().op == graph::op_id("aten.svd.default")) {
        const auto some = query.int_arg("some", 1), compute_uv = query.int_arg("compute_uv", 2);
        if (!some || !compute_uv) return std::nullopt;
        if (*some && *compute_uv) return Sizes{with_tail(batch, {m, k}), s, with_tail(batch, {n, k})};
        return Sizes{with_tail(batch, {m, m}), s, with_tail(batch, {n, n})};
    }
    const auto full_matrices = query.int_arg("full_matrices", 1);
    const auto compute_uv = query.node().op == graph::op_id("aten._linalg_svd.default") ? query.int_arg("compute_uv", 2)
                                                                                         : std::optional<int64_t>(1);
    if (!full_matrices || !compute_uv) return std::nullopt;
    if (!*compute_uv) return Sizes{ExpectedSizes{0}, s, ExpectedSizes{0}};
    if (*full_matrices) return Sizes{with_tail(batch, {m, m}), s, with_tail(batch, {n, n})};
    return Sizes{with_tail(batch, {m, k}), s, with_tail(batch, {k, n})};
}

// svdvals: the min(m, n) singular values.
std::optional<Sizes> svdvals_shape(const ShapeQuery& query) {
    const auto a = decomposed(query, false);
    if (!a) return std::nullopt;
    return Sizes{with_tail(leading(*a, 2), {smaller(a->end()[-2], a->back())})};
}

// eigh of square [..., n, n]: the n eigenvalues and the eigenvectors in A's sizes (empty [0] when
// _linalg_eigh is not to compute them).
std::optional<Sizes> eigh_shape(const ShapeQuery& query) {
    const auto a = decomposed(query, true);
    if (!a) return std::nullopt;
    const auto compute_v = query.node().op == graph::op_id("aten._linalg_eigh.default") ? query.int_arg("compute_v", 2)
                                                                                        : std::optional<int64_t>(1);
    if (!compute_v) return std::nullopt;
    return Sizes{leading(*a, 1), *compute_v ? *a : ExpectedSizes{0}};
}

// The batch of pinv's and matrix_rank's results: the input's, broadcast with the tolerance
// tensors' sizes. An input without elements takes PyTorch's early return, which ignores the
// tolerances: its batch is the input's.
std::optional<ExpectedSizes> tolerance_batch(const ShapeQuery& query, const ExpectedSizes& a) {
    const ExpectedSizes batch = leading(a, 2);
    std::vector<ExpectedSizes> tolerances;
    for (const auto& name : {ArgName("atol"), ArgName("rtol"), ArgName("tol"), ArgName("rcond")}) {
        if (auto sizes = query.sizes(name, 1)) tolerances.push_back(*sizes);
    }
    if (tolerances.empty()) return batch;
    bool empty = false, known = true;
    for (const auto& d : a) {
        empty = empty || (d && *d == 0);
        known = known && d.has_value();
    }
    if (empty) return batch;
    if (!known) return std::nullopt;  // empty or not (and so the result's rank), only the symbols tell
    ExpectedSizes out = batch;
    for (const auto& tolerance : tolerances) out = broadcast(query, out, tolerance);
    return out;
}

// pinv and pinverse of [..., m, n]: [..., n, m].
std::optional<Sizes> pinv_shape(const ShapeQuery& query) {
    const auto a = decomposed(query, false);
    if (!a) return std::nullopt;
    const auto batch = tolerance_batch(query, *a);
    if (!batch) return std::nullopt;
    return Sizes{with_tail(*batch, {a->back(), a->end()[-2]})};
}

// matrix_rank: one rank per matrix.
std::optional<Sizes> matrix_rank_shape(const ShapeQuery& query) {
    const auto a = decomposed(query, false);
    if (!a) return std::nullopt;
    const auto batch = tolerance_batch(query, *a);
    if (!batch) return std::nullopt;
    return Sizes{*batch};
}

// cond: one condition number per matrix.
std::optional<Sizes> cond_shape(const ShapeQuery& query) {
    const auto a = decomposed(query, false);
    if (!a) return std::nullopt;
    return Sizes{leading(*a, 2)};
}

// matrix_norm over the two distinct dims `dim`, kept as size 1 with keepdim.
std::optional<Sizes> matrix_norm_shape(const ShapeQuery& query) {
    const auto a = decomposed(query, false);
    const auto dims = query.ints("dim", 2);
    const auto keepdim = query.int_arg("keepdim", 3);
    if (!a || !dims || !keepdim) return std::nullopt;
    if (dims->size() != 2) query.contradiction(fmt::format("it takes a matrix norm over {} dims, not 2", dims->size()));
    const auto rank = static_cast<int64_t>(a->size());
    const int64_t first = wrap_dim(query, (*dims)[0], rank), second = wrap_dim(query, (*dims)[1], rank);
    if (first == second) query.contradiction(fmt::format("it takes a matrix norm over dims {} and {}, which are one", (*dims)[0], (*dims)[1]));
    ExpectedSizes out;
    for (int64_t d = 0; d < rank; ++d) {
        if (d != first && d != second) out.push_back((*a)[static_cast<size_t>(d)]);
        else if (*keepdim) out.push_back(1);
    }
    return Sizes{out};
}

PT2OV_KERNEL("aten._linalg_svd.default", linalg_svd_full, svd_shape);
PT2OV_KERNEL("aten.linalg_svd.default", linalg_svd, svd_shape);
PT2OV_KERNEL("aten.svd.default", svd, svd_shape);
PT2OV_KERNEL("aten.linalg_svdvals.default", linalg_svdvals, svdvals_shape);
PT2OV_KERNEL("aten._linalg_eigh.default", linalg_eigh_full, eigh_shape);
PT2OV_KERNEL("aten.linalg_eigh.default", linalg_eigh, eigh_shape);
PT2OV_KERNEL("aten.linalg_eigvalsh.default", linalg_eigvalsh, eigh_shape);
PT2OV_KERNEL("aten.linalg_pinv.atol_rtol_tensor", pinv_atol_rtol_tensor, pinv_shape);
PT2OV_KERNEL("aten.linalg_pinv.atol_rtol_float", pinv_atol_rtol_float, pinv_shape);
PT2OV_KERNEL("aten.linalg_pinv.default", pinv_rcond, pinv_shape);
PT2OV_KERNEL("aten.linalg_pinv.rcond_tensor", pinv_rcond_tensor, pinv_shape);
PT2OV_KERNEL("aten.pinverse.default", pinverse, pinv_shape);
PT2OV_KERNEL("aten.linalg_matrix_rank.atol_rtol_tensor", rank_atol_rtol_tensor, matrix_rank_shape);
PT2OV_KERNEL("aten.linalg_matrix_rank.atol_rtol_float", rank_atol_rtol_float, matrix_rank_shape);
PT2OV_KERNEL("aten.linalg_matrix_rank.default", rank_tol, matrix_rank_shape);
PT2OV_KERNEL("aten.linalg_matrix_rank.tol_tensor", rank_tol_tensor, matrix_rank_shape);
PT2OV_KERNEL("aten.linalg_cond.default", linalg_cond, cond_shape);
PT2OV_KERNEL("aten.linalg_cond.p_str", linalg_cond_str, cond_shape);
PT2OV_KERNEL("aten.linalg_matrix_norm.default", linalg_matrix_norm, matrix_norm_shape);
PT2OV_KERNEL("aten.linalg_matrix_norm.str_ord", linalg_matrix_norm, matrix_norm_shape);

}  // namespace
}  // namespace pt2ov::kernels
