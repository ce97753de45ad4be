// Solves, inverses and determinants: linalg_solve(_ex), _linalg_solve_ex, linalg_inv(_ex),
// linalg_lu_solve, lu_solve, triangular_solve, linalg_solve_triangular, cholesky_solve,
// cholesky_inverse, linalg_tensorinv, linalg_tensorsolve, linalg_det, _linalg_det,
// linalg_slogdet, _linalg_slogdet and logdet. Batch dims broadcast as PyTorch's do.
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/linalg.h"

namespace pt2ov::kernels {
namespace {

using linalg::Matrix;
using linalg::MatrixBatch;
using linalg::Vector;

std::vector<int64_t> broadcast_batch(const KernelCall& call, const StridedTensor& a, int a_dims, const StridedTensor& b, int b_dims) {
    return broadcast_shapes(call, linalg::batch_of(a, a_dims), linalg::batch_of(b, b_dims));
}

StridedTensor expand_batch(const KernelCall& call, const StridedTensor& t, int matrix_dims, const std::vector<int64_t>& batch) {
    std::vector<int64_t> sizes = batch;
    sizes.insert(sizes.end(), t.sizes.end() - matrix_dims, t.sizes.end());
    return broadcast_to(call, t, sizes);
}

StridedTensor info_tensor(const KernelCall& call, size_t index, const std::vector<int64_t>& batch,
                          const std::vector<int64_t>& infos) {
    StridedTensor info = linalg::output(call, index, batch);
    const MatrixBatch out(info, 0);
    for (int64_t b = 0; b < out.count(); ++b) out.set_ints(b, {infos[static_cast<size_t>(b)]});
    return info;
}

// ---- Solve and inverse ---------------------------------------------------------------------

// A X = B (left) or X A = B from A's LU (getrf of A itself, as PyTorch's solve factors it).
Matrix solve_from_lu(const Matrix& lu, const std::vector<int64_t>& pivots, const Matrix& b, bool left) {
    if (left) return linalg::lu_solve(lu, pivots, b, false);
    return linalg::lu_solve(lu, pivots, b.transpose(), true).transpose();
}

struct SolveResult {
    StridedTensor result, lu, pivots;
    std::vector<int64_t> infos;
};

// linalg.solve's rules: B is a vector (made a column) when it is 1-D or A's shape without its
// last dim; batch dims broadcast; LU and pivots are A's own (not broadcast).
SolveResult solve_batch(const KernelCall& call, const StridedTensor& a, const StridedTensor& b_in, bool left,
                        const std::string& api, bool with_factors) {
    linalg::check_square(call, a, api);
    linalg::check_input(call, b_in, api, 1);
    if (b_in.dtype != a.dtype) call.fail(api + ": Expected A and B to have the same dtype");
    const std::vector<int64_t> a_rows(a.sizes.begin(), a.sizes.end() - 1);
    const bool vector_case = b_in.rank() == 1 || (b_in.rank() + 1 == a.rank() && b_in.sizes == a_rows);
    StridedTensor b = b_in;
    if (vector_case) {
        auto sizes = b.sizes, strides = b.strides;
        sizes.push_back(1);
        strides.push_back(1);
        b = b.view(sizes, strides);
    }
    const int64_t n = a.sizes.back();
    const int64_t b_rows = b.sizes[b.rank() - 2], b_cols = b.sizes.back();
    if ((left ? b_rows : b_cols) != n) {
        call.fail(api + ": Incompatible shapes of A and B for the equation " + (left ? "AX = B" : "XA = B") + " (" +
                  std::to_string(n) + "x" + std::to_string(n) + " and " + std::to_string(b_rows) + "x" + std::to_string(b_cols) + ")");
    }
    const auto batch = broadcast_batch(call, a, 2, b, 2);
    SolveResult r;
    std::vector<int64_t> out_sizes = linalg::with_tail(batch, {b_rows, b_cols});
    if (vector_case) out_sizes.pop_back();
    r.result = linalg::output(call, 0, out_sizes);
    StridedTensor result_matrices = r.result;
    if (vector_case) result_matrices = r.result.view(linalg::with_tail(batch, {b_rows, 1}), [&] {
        auto s = r.result.strides;
        s.push_back(1);
        return s;
    }());
    if (with_factors) {
        r.lu = linalg::output(call, 1, a.sizes);
        r.pivots = linalg::output(call, 2, linalg::with_tail(linalg::batch_of(a, 2), {n}));
    }
    // Factor each distinct A once; a broadcast A is read through its expanded view.
    const MatrixBatch a_own(a, 2);
    std::vector<Matrix> lus(static_cast<size_t>(a_own.count()));
    std::vector<std::vector<int64_t>> pivots(lus.size());
    for (int64_t i = 0; i < a_own.count(); ++i) {
        lus[i] = a_own.matrix(i);
        r.infos.push_back(linalg::lu_factor_in_place(lus[i], pivots[i]));
        if (with_factors) {
            MatrixBatch(r.lu, 2).set_matrix(i, lus[i]);
            MatrixBatch(r.pivots, 1).set_ints(i, pivots[i]);
        }
    }
    // Which own matrix each broadcast batch element reads: an index tensor broadcast alike.
    StridedTensor own_index = StridedTensor::allocate(DType::Int64, linalg::batch_of(a, 2));
    for (int64_t i = 0; i < a_own.count(); ++i) reinterpret_cast<int64_t*>(own_index.data)[i] = i;
    const MatrixBatch which(broadcast_to(call, own_index, batch), 0);
    const MatrixBatch bs(expand_batch(call, b, 2, batch), 2), out(result_matrices, 2);
    for (int64_t i = 0; i < out.count(); ++i) {
        const auto k = static_cast<size_t>(which.ints(i)[0]);
        out.set_matrix(i, solve_from_lu(lus[k], pivots[k], bs.matrix(i), left));
    }
    return r;
}

void raise_if_singular(const KernelCall& call, const StridedTensor& a, const std::vector<int64_t>& infos, const std::string& api) {
    for (size_t i = 0; i < infos.size(); ++i) {
        if (infos[i] > 0) call.fail(api + ": " + linalg::batch_prefix(a, static_cast<int64_t>(i)) + "The solver failed because the input matrix is singular.");
    }
}

// _linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (result, LU, pivots, info)
std::vector<RuntimeValue> linalg_solve_ex_full(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    SolveResult r = solve_batch(call, a, call.tensor("B", 1), call.bool_arg("left", 2, true), "torch.linalg.solve_ex", true);
    if (call.bool_arg("check_errors", 3, false)) raise_if_singular(call, a, r.infos, "torch.linalg.solve_ex");
    return {RuntimeValue::of(r.result), RuntimeValue::of(r.lu), RuntimeValue::of(r.pivots),
            RuntimeValue::of(info_tensor(call, 3, linalg::batch_of(a, 2), r.infos))};
}

// linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (result, info)
std::vector<RuntimeValue> linalg_solve_ex(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    SolveResult r = solve_batch(call, a, call.tensor("B", 1), call.bool_arg("left", 2, true), "torch.linalg.solve_ex", false);
    if (call.bool_arg("check_errors", 3, false)) raise_if_singular(call, a, r.infos, "torch.linalg.solve_ex");
    return {RuntimeValue::of(r.result), RuntimeValue::of(info_tensor(call, 1, linalg::batch_of(a, 2), r.infos))};
}

// linalg_solve(Tensor A, Tensor B, *, bool left=True)
std::vector<RuntimeValue> linalg_solve(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    SolveResult r = solve_batch(call, a, call.tensor("B", 1), call.bool_arg("left", 2, true), "torch.linalg.solve", false);
    raise_if_singular(call, a, r.infos, "torch.linalg.solve");
    return single(r.result);
}

// The inverse of each matrix (as solve(A, I)) and info.
std::pair<StridedTensor, std::vector<int64_t>> inverse_batch(const KernelCall& call, const StridedTensor& a, const std::string& api,
                                                             bool check_errors) {
    linalg::check_square(call, a, api);
    StridedTensor inverse = linalg::output(call, 0, a.sizes);
    const MatrixBatch in(a, 2), out(inverse, 2);
    std::vector<int64_t> infos;
    for (int64_t i = 0; i < in.count(); ++i) {
        Matrix lu = in.matrix(i);
        std::vector<int64_t> pivots;
        const int64_t info = linalg::lu_factor_in_place(lu, pivots);
        if (info > 0 && check_errors) {
            call.fail(api + ": " + linalg::batch_prefix(a, i) + "The diagonal element " + std::to_string(info) +
                      " is zero, the inversion could not be completed because the input matrix is singular.");
        }
        infos.push_back(info);
        out.set_matrix(i, linalg::lu_solve(lu, pivots, Matrix::Identity(lu.rows(), lu.rows()), false));
    }
    return {inverse, infos};
}

// linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (inverse, info)
std::vector<RuntimeValue> linalg_inv_ex(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    auto [inverse, infos] = inverse_batch(call, a, "linalg.inv_ex", call.bool_arg("check_errors", 1, false));
    return {RuntimeValue::of(inverse), RuntimeValue::of(info_tensor(call, 1, linalg::batch_of(a, 2), infos))};
}

// linalg_inv(Tensor A)
std::vector<RuntimeValue> linalg_inv(const KernelCall& call) {
    return single(inverse_batch(call, call.tensor("A", 0), "linalg.inv", true).first);
}

// ---- LU solve ------------------------------------------------------------------------------

StridedTensor lu_solve_batch(const KernelCall& call, const StridedTensor& lu, const StridedTensor& pivots, const StridedTensor& b,
                             bool left, bool adjoint, const std::string& api) {
    linalg::check_square(call, lu, api);
    linalg::check_input(call, b, api);
    if (b.dtype != lu.dtype) call.fail(api + ": Expected LU and B to have the same dtype");
    const int64_t n = lu.sizes.back();
    if (pivots.dtype != DType::Int32) call.fail(api + ": pivots should be a Tensor of scalar type torch.int32");
    if (pivots.sizes != linalg::with_tail(linalg::batch_of(lu, 2), {n})) {
        call.fail(api + ": Incompatible shapes of LU " + shape_text(lu.sizes) + " and pivots " + shape_text(pivots.sizes));
    }
    const int64_t b_rows = b.sizes[b.rank() - 2], b_cols = b.sizes.back();
    if ((left ? b_rows : b_cols) != n) {
        call.fail(api + ": Incompatible shapes of A and B for the equation " + (left ? "AX = B" : "XA = B") + " (" +
                  std::to_string(n) + "x" + std::to_string(n) + " and " + std::to_string(b_rows) + "x" + std::to_string(b_cols) + ")");
    }
    const auto batch = broadcast_batch(call, lu, 2, b, 2);
    StridedTensor result = linalg::output(call, 0, linalg::with_tail(batch, {b_rows, b_cols}));
    const MatrixBatch lus(expand_batch(call, lu, 2, batch), 2), piv(expand_batch(call, pivots, 1, batch), 1);
    const MatrixBatch bs(expand_batch(call, b, 2, batch), 2), out(result, 2);
    for (int64_t i = 0; i < out.count(); ++i) {
        const auto rows = piv.ints(i);
        for (int64_t r : rows) {
            if (r < 1 || r > n) call.fail(api + ": a pivot is out of range: " + std::to_string(r));
        }
        const Matrix packed = lus.matrix(i);
        // X A = B is A^T X^T = B^T; with adjoint, A^T takes A's place.
        out.set_matrix(i, left ? linalg::lu_solve(packed, rows, bs.matrix(i), adjoint)
                               : Matrix(linalg::lu_solve(packed, rows, bs.matrix(i).transpose(), !adjoint).transpose()));
    }
    return result;
}

// linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False)
std::vector<RuntimeValue> linalg_lu_solve(const KernelCall& call) {
    return single(lu_solve_batch(call, call.tensor("LU", 0), call.tensor("pivots", 1), call.tensor("B", 2),
                                 call.bool_arg("left", 3, true), call.bool_arg("adjoint", 4, false), "linalg.lu_solve"));
}

// lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots)
std::vector<RuntimeValue> lu_solve(const KernelCall& call) {
    return single(lu_solve_batch(call, call.tensor("LU_data", 1), call.tensor("LU_pivots", 2), call.tensor("self", 0), true, false,
                                 "torch.lu_solve"));
}

// ---- Triangular ----------------------------------------------------------------------------

// triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False)
//   -> (solution, cloned_coefficient)
std::vector<RuntimeValue> triangular_solve(const KernelCall& call) {
    const auto& b = call.tensor("self", 0);
    const auto& a = call.tensor("A", 1);
    const bool upper = call.bool_arg("upper", 2, true), transpose = call.bool_arg("transpose", 3, false);
    const bool unit = call.bool_arg("unitriangular", 4, false);
    const std::string api = "torch.triangular_solve";
    linalg::check_square(call, a, api);
    linalg::check_input(call, b, api);
    if (b.dtype != a.dtype) call.fail(api + ": Expected b and A to have the same dtype");
    if (b.sizes[b.rank() - 2] != a.sizes.back()) {
        call.fail(api + ": Incompatible matrix sizes for triangular_solve: each A matrix is " + std::to_string(a.sizes.back()) +
                  " by " + std::to_string(a.sizes.back()) + " but each b matrix is " + std::to_string(b.sizes[b.rank() - 2]) +
                  " by " + std::to_string(b.sizes.back()));
    }
    const auto batch = broadcast_batch(call, b, 2, a, 2);
    StridedTensor solution = linalg::output(call, 0, linalg::with_tail(batch, {b.sizes[b.rank() - 2], b.sizes.back()}));
    const StridedTensor a_expanded = expand_batch(call, a, 2, batch);
    StridedTensor coefficient = linalg::output(call, 1, a_expanded.sizes);
    copy_into(a_expanded, coefficient);
    const MatrixBatch as(a_expanded, 2), bs(expand_batch(call, b, 2, batch), 2), out(solution, 2);
    for (int64_t i = 0; i < out.count(); ++i) out.set_matrix(i, linalg::triangular_solve(as.matrix(i), bs.matrix(i), upper, transpose, unit));
    return {RuntimeValue::of(solution), RuntimeValue::of(coefficient)};
}

// linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False)
std::vector<RuntimeValue> linalg_solve_triangular(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    const auto& b = call.tensor("B", 1);
    const bool upper = call.bool_arg("upper", 2, false), left = call.bool_arg("left", 3, true);
    const bool unit = call.bool_arg("unitriangular", 4, false);
    const std::string api = "linalg.solve_triangular";
    linalg::check_square(call, a, api);
    linalg::check_input(call, b, api);
    if (b.dtype != a.dtype) call.fail(api + ": Expected A and B to have the same dtype");
    const int64_t n = a.sizes.back(), b_rows = b.sizes[b.rank() - 2], b_cols = b.sizes.back();
    if ((left ? b_rows : b_cols) != n) {
        call.fail(api + ": Incompatible shapes of A and B for the equation " + (left ? "AX = B" : "XA = B") + " (" +
                  std::to_string(n) + "x" + std::to_string(n) + " and " + std::to_string(b_rows) + "x" + std::to_string(b_cols) + ")");
    }
    const auto batch = broadcast_batch(call, a, 2, b, 2);
    StridedTensor result = linalg::output(call, 0, linalg::with_tail(batch, {b_rows, b_cols}));
    const MatrixBatch as(expand_batch(call, a, 2, batch), 2), bs(expand_batch(call, b, 2, batch), 2), out(result, 2);
    for (int64_t i = 0; i < out.count(); ++i) {
        out.set_matrix(i, left ? linalg::triangular_solve(as.matrix(i), bs.matrix(i), upper, false, unit)
                               : Matrix(linalg::triangular_solve(as.matrix(i), bs.matrix(i).transpose(), upper, true, unit).transpose()));
    }
    return single(result);
}

// ---- From a Cholesky factor ----------------------------------------------------------------

// cholesky_solve(Tensor self, Tensor input2, bool upper=False): A X = B with A = L L^T (U^T U).
std::vector<RuntimeValue> cholesky_solve(const KernelCall& call) {
    const auto& b = call.tensor("self", 0);
    const auto& factor = call.tensor("input2", 1);
    const bool upper = call.bool_arg("upper", 2, false);
    const std::string api = "cholesky_solve";
    linalg::check_square(call, factor, api);
    linalg::check_input(call, b, api);
    if (b.dtype != factor.dtype) call.fail(api + ": Expected b and A to have the same dtype");
    if (b.sizes[b.rank() - 2] != factor.sizes.back()) {
        call.fail(api + ": Incompatible matrix sizes for cholesky_solve: each A matrix is " + std::to_string(factor.sizes.back()) +
                  " by " + std::to_string(factor.sizes.back()) + " but each b matrix is " + std::to_string(b.sizes[b.rank() - 2]) +
                  " by " + std::to_string(b.sizes.back()));
    }
    const auto batch = broadcast_batch(call, b, 2, factor, 2);
    StridedTensor result = linalg::output(call, 0, linalg::with_tail(batch, {b.sizes[b.rank() - 2], b.sizes.back()}));
    const MatrixBatch fs(expand_batch(call, factor, 2, batch), 2), bs(expand_batch(call, b, 2, batch), 2), out(result, 2);
    for (int64_t i = 0; i < out.count(); ++i) {
        const Matrix f = fs.matrix(i);
        // Lower: L y = B, then L^T x = y. Upper: U^T y = B, then U x = y.
        Matrix y = linalg::triangular_solve(f, bs.matrix(i), upper, upper, false);
        out.set_matrix(i, linalg::triangular_solve(f, std::move(y), upper, !upper, false));
    }
    return single(result);
}

// cholesky_inverse(Tensor self, bool upper=False): (L L^T)^-1 or (U^T U)^-1, as potri.
std::vector<RuntimeValue> cholesky_inverse(const KernelCall& call) {
    const auto& factor = call.tensor("self", 0);
    const bool upper = call.bool_arg("upper", 1, false);
    const std::string api = "cholesky_inverse";
    linalg::check_square(call, factor, api);
    StridedTensor result = linalg::output(call, 0, factor.sizes);
    const MatrixBatch in(factor, 2), out(result, 2);
    for (int64_t i = 0; i < in.count(); ++i) {
        const Matrix f = in.matrix(i);
        for (int64_t d = 0; d < f.rows(); ++d) {
            if (f(d, d) == 0) {
                call.fail(api + ": " + linalg::batch_prefix(factor, i) + "The diagonal element " + std::to_string(d + 1) +
                          " is zero, the inversion could not be completed because the input matrix is singular.");
            }
        }
        const Matrix identity = Matrix::Identity(f.rows(), f.rows());
        // inv(L L^T) = inv(L)^T inv(L); inv(U^T U) = inv(U) inv(U)^T.
        const Matrix inverse = linalg::triangular_solve(f, identity, upper, false, false);
        out.set_matrix(i, upper ? Matrix(inverse * inverse.transpose()) : Matrix(inverse.transpose() * inverse));
    }
    return single(result);
}

// ---- Tensor inverse and solve --------------------------------------------------------------

Matrix row_major_matrix(const StridedTensor& t, int64_t rows, int64_t cols) {
    const auto values = dense_values<double>(t);
    if (static_cast<int64_t>(values.size()) != rows * cols) {
        throw InternalError("a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix read from a tensor of " +
                            std::to_string(values.size()) + " elements");
    }
    Matrix m(rows, cols);
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) m(i, j) = values[static_cast<size_t>(i * cols + j)];
    }
    return m;
}

StridedTensor tensor_of_matrix(const KernelCall& call, const Matrix& m, const std::vector<int64_t>& sizes) {
    std::vector<double> values(static_cast<size_t>(m.size()));
    for (int64_t i = 0; i < m.rows(); ++i) {
        for (int64_t j = 0; j < m.cols(); ++j) values[static_cast<size_t>(i * m.cols() + j)] = m(i, j);
    }
    StridedTensor out = linalg::output(call, 0, sizes);
    copy_into(tensor_of_values<double>(values, sizes, out.dtype), out);
    return out;
}

int64_t product(const std::vector<int64_t>& sizes, size_t begin, size_t end) {
    return std::accumulate(sizes.begin() + static_cast<std::ptrdiff_t>(begin), sizes.begin() + static_cast<std::ptrdiff_t>(end),
                           int64_t{1}, std::multiplies<>());
}

// linalg_tensorinv(Tensor self, int ind=2): self as a (prod(shape[ind:]), prod(shape[:ind]))
// matrix, inverted, shaped shape[ind:] + shape[:ind].
std::vector<RuntimeValue> linalg_tensorinv(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    const int64_t ind = call.int_arg("ind", 1, 2);
    linalg::check_input(call, a, "linalg.tensorinv", 0);
    if (ind <= 0) call.fail("linalg.tensorinv: Expected a strictly positive integer for 'ind', but got " + std::to_string(ind));
    if (ind > static_cast<int64_t>(a.rank())) call.fail("linalg.tensorinv: 'ind' is larger than the input's rank");
    const auto split = static_cast<size_t>(ind);
    const int64_t rows = product(a.sizes, split, a.rank()), cols = product(a.sizes, 0, split);
    if (rows != cols) {
        call.fail("linalg.tensorinv: Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got " +
                  std::to_string(rows) + " != " + std::to_string(cols));
    }
    Matrix lu = row_major_matrix(a, rows, cols);
    std::vector<int64_t> pivots;
    const int64_t info = linalg::lu_factor_in_place(lu, pivots);
    if (info > 0) {
        call.fail("inv: The diagonal element " + std::to_string(info) +
                  " is zero, the inversion could not be completed because the input matrix is singular.");
    }
    std::vector<int64_t> sizes(a.sizes.begin() + static_cast<std::ptrdiff_t>(split), a.sizes.end());
    sizes.insert(sizes.end(), a.sizes.begin(), a.sizes.begin() + static_cast<std::ptrdiff_t>(split));
    return single(tensor_of_matrix(call, linalg::lu_solve(lu, pivots, Matrix::Identity(rows, rows), false), sizes));
}

// linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None): `dims` of self moved to the
// end, self as a (prod(result shape), other.numel()) matrix solving against other flattened.
std::vector<RuntimeValue> linalg_tensorsolve(const KernelCall& call) {
    const auto& a_in = call.tensor("self", 0);
    const auto& other = call.tensor("other", 1);
    const std::string api = "torch.linalg.solve";
    linalg::check_input(call, a_in, "linalg.tensorsolve", 0);
    if (other.dtype != a_in.dtype) call.fail("linalg.tensorsolve: Expected self and other to have the same dtype");
    StridedTensor a = a_in;
    if (call.has("dims", 2)) {
        // normalize_dims takes dim 0 or -1 of a 0-d tensor, which has no dim to move.
        if (a_in.rank() == 0) call.fail("linalg.tensorsolve: dims name dimensions of a 0-d self");
        const auto dims = normalize_dims(call, call.ints("dims", 2), static_cast<int64_t>(a_in.rank()));
        std::vector<int64_t> order;
        for (int64_t d = 0; d < static_cast<int64_t>(a_in.rank()); ++d) {
            if (std::find(dims.begin(), dims.end(), d) == dims.end()) order.push_back(d);
        }
        order.insert(order.end(), dims.begin(), dims.end());
        std::vector<int64_t> sizes, strides;
        for (int64_t d : order) {
            sizes.push_back(a_in.sizes[static_cast<size_t>(d)]);
            strides.push_back(a_in.strides[static_cast<size_t>(d)]);
        }
        a = a_in.view(sizes, strides);
    }
    if (other.rank() > a.rank()) call.fail("linalg.tensorsolve: other has more dimensions than self");
    const std::vector<int64_t> result_sizes(a.sizes.begin() + static_cast<std::ptrdiff_t>(other.rank()), a.sizes.end());
    const int64_t result_count = product(result_sizes, 0, result_sizes.size());
    const int64_t leading_count = product(a.sizes, 0, other.rank()), other_count = other.numel();
    if (result_count != leading_count) {
        call.fail("linalg.tensorsolve: Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got " +
                  std::to_string(result_count) + " != " + std::to_string(leading_count));
    }
    // self is a (leading, result) matrix solving against other flattened: other has as many
    // elements as the leading dims (a self of no elements against a one-element other was read
    // beyond its memory, found by the kernel fuzzer).
    if (other_count != leading_count) {
        call.fail(api + ": Incompatible shapes of A and B for the equation AX = B (" + std::to_string(leading_count) + "x" +
                  std::to_string(result_count) + " and " + std::to_string(other_count) + "x1)");
    }
    Matrix lu = row_major_matrix(a, result_count, other_count);
    std::vector<int64_t> pivots;
    if (linalg::lu_factor_in_place(lu, pivots) > 0) call.fail(api + ": The solver failed because the input matrix is singular.");
    const Matrix rhs = row_major_matrix(other, other_count, 1);
    return single(tensor_of_matrix(call, linalg::lu_solve(lu, pivots, rhs, false), result_sizes));
}

// ---- Determinants --------------------------------------------------------------------------

struct Determinant {
    double sign = 1, log_abs = 0, value = 1;
};

// From a packed LU: det = (-1)^(row swaps) * prod(diag U).
Determinant determinant_of(const Matrix& lu, const std::vector<int64_t>& pivots) {
    Determinant d;
    for (size_t i = 0; i < pivots.size(); ++i) {
        if (pivots[i] != static_cast<int64_t>(i) + 1) d.sign = -d.sign;
    }
    d.value = d.sign;
    for (int64_t i = 0; i < lu.rows(); ++i) {
        const double u = lu(i, i);
        d.value *= u;
        d.sign *= u > 0 ? 1.0 : (u < 0 ? -1.0 : 0.0);  // sgn, 0 for 0 and NaN, as PyTorch's
        d.log_abs += std::log(std::abs(u));
    }
    return d;
}

struct DeterminantBatch {
    std::vector<Determinant> values;
    std::vector<Matrix> lus;
    std::vector<std::vector<int64_t>> pivots;
};

// PyTorch factors A^T when A is contiguous (its memory is then A^T in column-major order);
// the determinant is the same, the LU and pivots returned are that factorization's.
DeterminantBatch determinant_batch(const KernelCall& call, const StridedTensor& a, const std::string& api) {
    linalg::check_square(call, a, api);
    const bool factor_transpose = a.is_contiguous();
    const MatrixBatch in(a, 2);
    DeterminantBatch r;
    for (int64_t i = 0; i < in.count(); ++i) {
        Matrix lu = factor_transpose ? Matrix(in.matrix(i).transpose()) : in.matrix(i);
        std::vector<int64_t> pivots;
        linalg::lu_factor_in_place(lu, pivots);
        r.values.push_back(determinant_of(lu, pivots));
        r.lus.push_back(std::move(lu));
        r.pivots.push_back(std::move(pivots));
    }
    return r;
}

void write_factors(const KernelCall& call, const StridedTensor& a, const DeterminantBatch& r, size_t lu_index,
                   std::vector<RuntimeValue>& outputs) {
    StridedTensor lu = linalg::output(call, lu_index, a.sizes);
    StridedTensor pivots = linalg::output(call, lu_index + 1, linalg::with_tail(linalg::batch_of(a, 2), {a.sizes.back()}));
    const MatrixBatch lu_out(lu, 2), pivots_out(pivots, 1);
    for (size_t i = 0; i < r.lus.size(); ++i) {
        lu_out.set_matrix(static_cast<int64_t>(i), r.lus[i]);
        pivots_out.set_ints(static_cast<int64_t>(i), r.pivots[i]);
    }
    outputs.push_back(RuntimeValue::of(lu));
    outputs.push_back(RuntimeValue::of(pivots));
}

template <typename Field>
StridedTensor scalar_output(const KernelCall& call, size_t index, const StridedTensor& a, const DeterminantBatch& r, Field field) {
    StridedTensor out = linalg::output(call, index, linalg::batch_of(a, 2));
    const MatrixBatch batch(out, 0);
    for (int64_t i = 0; i < batch.count(); ++i) batch.set_scalar(i, field(r.values[static_cast<size_t>(i)]));
    return out;
}

// linalg_det(Tensor A)
std::vector<RuntimeValue> linalg_det(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    return single(scalar_output(call, 0, a, determinant_batch(call, a, "linalg.det"), [](const Determinant& d) { return d.value; }));
}

// _linalg_det(Tensor A) -> (result, LU, pivots)
std::vector<RuntimeValue> linalg_det_full(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    const DeterminantBatch r = determinant_batch(call, a, "linalg.det");
    std::vector<RuntimeValue> outputs{RuntimeValue::of(scalar_output(call, 0, a, r, [](const Determinant& d) { return d.value; }))};
    write_factors(call, a, r, 1, outputs);
    return outputs;
}

std::vector<RuntimeValue> slogdet_outputs(const KernelCall& call, const StridedTensor& a, const DeterminantBatch& r) {
    return {RuntimeValue::of(scalar_output(call, 0, a, r, [](const Determinant& d) { return d.sign; })),
            RuntimeValue::of(scalar_output(call, 1, a, r, [](const Determinant& d) { return d.log_abs; }))};
}

// linalg_slogdet(Tensor A) -> (sign, logabsdet)
std::vector<RuntimeValue> linalg_slogdet(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    return slogdet_outputs(call, a, determinant_batch(call, a, "linalg.slogdet"));
}

// _linalg_slogdet(Tensor A) -> (sign, logabsdet, LU, pivots)
std::vector<RuntimeValue> linalg_slogdet_full(const KernelCall& call) {
    const auto& a = call.tensor("A", 0);
    const DeterminantBatch r = determinant_batch(call, a, "linalg.slogdet");
    auto outputs = slogdet_outputs(call, a, r);
    write_factors(call, a, r, 2, outputs);
    return outputs;
}

// logdet(Tensor self): logabsdet, NaN where the determinant is negative.
std::vector<RuntimeValue> logdet(const KernelCall& call) {
    const auto& a = call.tensor("self", 0);
    return single(scalar_output(call, 0, a, determinant_batch(call, a, "logdet"), [](const Determinant& d) {
        return d.sign == -1 ? std::numeric_limits<double>::quiet_NaN() : d.log_abs;
    }));
}

// ---- Shape contracts -----------------------------------------------------------------------

using Sizes = std::vector<ExpectedSizes>;

// linalg_solve and its _ex spellings: X of AX = B (XA = B with left false), B's batch broadcast
// with A's. B is a vector (or a batch of them) when it has rank 1, or A's sizes but the last
// (meta's linalg_solve_is_vector_rhs); then X is too. _linalg_solve_ex adds A's LU, pivots and
// infos; linalg_solve_ex the infos.
std::optional<Sizes> solve_shape(const ShapeQuery& query) {
    const auto a = matrix_sizes(query, "A", 0, true);
    const auto b = query.sizes("B", 1);
    const auto left = query.int_arg("left", 2);
    if (!a || !b || !left) return std::nullopt;
    bool vector = b->size() == 1;
    if (!vector && b->size() + 1 == a->size()) {
        bool same = true, known = true;
        for (size_t d = 0; d < b->size(); ++d) {
            if ((*a)[d] && (*b)[d]) same = same && *(*a)[d] == *(*b)[d];
            else known = false;
        }
        if (same && !known) return std::nullopt;  // a vector or a matrix, which only the symbols tell
        vector = same;
    }
    if (vector && !*left) query.contradiction("it solves XA = B for a vector B, which PyTorch does not broadcast");
    ExpectedSizes matrix = *b;
    if (vector) matrix.push_back(1);
    if (matrix.size() < 2) query.contradiction("its B has rank 0");
    require_same_size(query, *left ? a->end()[-2] : a->back(), *left ? matrix.end()[-2] : matrix.back(),
                      *left ? "the rows of A and B (AX = B)" : "the columns of A and B (XA = B)");
    ExpectedSizes result = with_broadcast_batch(query, matrix, *a);
    if (vector) result.pop_back();
    const ExpectedSizes infos = leading(*a, 2);
    if (query.node().op == graph::op_id("aten.linalg_solve_ex.default")) return Sizes{result, infos};
    return Sizes{result, *a, leading(*a, 1), infos};
}

// The inverse of square matrices and (linalg_inv_ex) one info per matrix.
std::optional<Sizes> inverse_shape(const ShapeQuery& query) {
    const auto a = matrix_sizes(query, "A", 0, true);
    if (!a) return std::nullopt;
    return Sizes{*a, leading(*a, 2)};
}

// cholesky_inverse: of a square factor.
std::optional<Sizes> cholesky_inverse_shape(const ShapeQuery& query) {
    const auto a = matrix_sizes(query, "self", 0, true);
    if (!a) return std::nullopt;
    return Sizes{*a};
}

// Solves with a square coefficient matrix `a` (a factorization of one, a triangle) for B, B's
// batch broadcast with a's (the right sides' other sizes B's own): the rows of B (its columns
// with left false) must be a's order. triangular_solve also returns a, its batch broadcast.
Sizes factored_solve(const ShapeQuery& query, const ExpectedSizes& a, const ExpectedSizes& b, bool left) {
    require_same_size(query, a.back(), left ? b.end()[-2] : b.back(),
                      left ? "the order of A and the rows of B (AX = B)" : "the order of A and the columns of B (XA = B)");
    return Sizes{with_broadcast_batch(query, b, a), with_broadcast_batch(query, a, b)};
}

std::optional<Sizes> lu_solve_shape(const ShapeQuery& query) {
    const bool linalg = query.node().op == graph::op_id("aten.linalg_lu_solve.default");
    const auto lu = linalg ? matrix_sizes(query, "LU", 0, true) : matrix_sizes(query, "LU_data", 1, true);
    const auto b = linalg ? matrix_sizes(query, "B", 2, false) : matrix_sizes(query, "self", 0, false);
    const auto left = linalg ? query.int_arg("left", 3) : std::optional<int64_t>(1);
    if (!lu || !b || !left) return std::nullopt;
    return factored_solve(query, *lu, *b, *left != 0);
}

// triangular_solve(B, A) and cholesky_solve(B, L): B first.
std::optional<Sizes> solve_of_self_shape(const ShapeQuery& query) {
    const auto b = matrix_sizes(query, "self", 0, false);
    const auto a = query.node().op == graph::op_id("aten.triangular_solve.default") ? matrix_sizes(query, "A", 1, true)
                                                                                     : matrix_sizes(query, "input2", 1, true);
    if (!a || !b) return std::nullopt;
    return factored_solve(query, *a, *b, true);
}

std::optional<Sizes> solve_triangular_shape(const ShapeQuery& query) {
    const auto a = matrix_sizes(query, "self", 0, true);
    const auto b = matrix_sizes(query, "B", 1, false);
    const auto left = query.int_arg("left", 3);
    if (!a || !b || !left) return std::nullopt;
    return Sizes{factored_solve(query, *a, *b, *left != 0)[0]};
}

// The product of static sizes, nullopt when any is symbolic.
std::optional<int64_t> static_count(ExpectedSizes::const_iterator begin, ExpectedSizes::const_iterator end) {
    int64_t count = 1;
    for (auto d = begin; d != end; ++d) {
        if (!*d) return std::nullopt;
        count *= **d;
    }
    return count;
}

// tensorinv(A, ind): the inverse of A seen as a square matrix of its first `ind` dims by the
// rest, shaped as the rest followed by the first.
std::optional<Sizes> tensorinv_shape(const ShapeQuery& query) {
    const auto a = query.sizes("self", 0);
    const auto ind = query.int_arg("ind", 1);
    if (!a || !ind) return std::nullopt;
    if (*ind <= 0) query.contradiction(fmt::format("its ind is {}, not strictly positive", *ind));
    if (*ind > static_cast<int64_t>(a->size())) return std::nullopt;
    const auto split = a->begin() + *ind;
    const auto rows = static_count(a->begin(), split), columns = static_count(split, a->end());
    if (rows && columns && *rows != *columns) {
        query.contradiction(fmt::format("it inverts {} x {} elements as a square matrix", *rows, *columns));
    }
    ExpectedSizes out(split, a->end());
    out.insert(out.end(), a->begin(), split);
    return Sizes{out};
}

// tensorsolve(A, B, dims): A with `dims` moved to its end, as a matrix of B's sizes by the rest;
// X has the rest's sizes.
std::optional<Sizes> tensorsolve_shape(const ShapeQuery& query) {
    const auto a = query.sizes("self", 0);
    const auto b = query.sizes("other", 1);
    if (!a || !b || b->size() > a->size()) return std::nullopt;
    ExpectedSizes moved = *a;
    const auto at = query.node().schema ? query.node().schema->position_of(ArgName("dims").id()) : std::nullopt;
    if (at && query.node().arg(*at).kind != graph::Argument::Kind::None) {
        const auto dims = query.ints("dims", 2);
        if (!dims) return std::nullopt;
        const auto rank = static_cast<int64_t>(a->size());
        std::vector<bool> taken(a->size(), false);
        ExpectedSizes rest, last;
        for (int64_t d : *dims) {
            const auto k = static_cast<size_t>(wrap_dim(query, d, rank));
            if (taken[k]) query.contradiction(fmt::format("its dims name dim {} twice", d));
            taken[k] = true;
            last.push_back((*a)[k]);
        }
        for (size_t k = 0; k < a->size(); ++k) {
            if (!taken[k]) rest.push_back((*a)[k]);
        }
        rest.insert(rest.end(), last.begin(), last.end());
        moved = rest;
    }
    const auto split = moved.begin() + static_cast<std::ptrdiff_t>(b->size());
    const auto rows = static_count(moved.begin(), split), columns = static_count(split, moved.end());
    if (rows && columns && *rows != *columns) {
        query.contradiction(fmt::format("it solves for {} unknowns with {} equations", *columns, *rows));
    }
    return Sizes{ExpectedSizes(split, moved.end())};
}

// Determinants of square matrices, one per matrix: det (and logdet) the result, slogdet the
// sign and its log; the underscored spellings add A's LU and pivots.
std::optional<Sizes> determinant_shape(const ShapeQuery& query) {
    auto a = matrix_sizes(query, "A", 0, true);
    if (!a) a = matrix_sizes(query, "self", 0, true);
    if (!a) return std::nullopt;
    const ExpectedSizes batch = leading(*a, 2);
    if (query.node().op == graph::op_id("aten._linalg_det.default")) return Sizes{batch, *a, leading(*a, 1)};
    return Sizes{batch, batch, *a, leading(*a, 1)};
}

PT2OV_KERNEL("aten._linalg_solve_ex.default", linalg_solve_ex_full, solve_shape);
PT2OV_KERNEL("aten.linalg_solve_ex.default", linalg_solve_ex, solve_shape);
PT2OV_KERNEL("aten.linalg_solve.default", linalg_solve, solve_shape);
PT2OV_KERNEL("aten.linalg_inv_ex.default", linalg_inv_ex, inverse_shape);
PT2OV_KERNEL("aten.linalg_inv.default", linalg_inv, inverse_shape);
PT2OV_KERNEL("aten.linalg_lu_solve.default", linalg_lu_solve, lu_solve_shape);
PT2OV_KERNEL("aten.lu_solve.default", lu_solve, lu_solve_shape);
PT2OV_KERNEL("aten.triangular_solve.default", triangular_solve, solve_of_self_shape);
PT2OV_KERNEL("aten.linalg_solve_triangular.default", linalg_solve_triangular, solve_triangular_shape);
PT2OV_KERNEL("aten.cholesky_solve.default", cholesky_solve, solve_of_self_shape);
PT2OV_KERNEL("aten.cholesky_inverse.default", cholesky_inverse, cholesky_inverse_shape);
PT2OV_KERNEL("aten.linalg_tensorinv.default", linalg_tensorinv, tensorinv_shape);
PT2OV_KERNEL("aten.linalg_tensorsolve.default", linalg_tensorsolve, tensorsolve_shape);
PT2OV_KERNEL("aten.linalg_det.default", linalg_det, determinant_shape);
PT2OV_KERNEL("aten._linalg_det.default", linalg_det_full, determinant_shape);
PT2OV_KERNEL("aten.linalg_slogdet.default", linalg_slogdet, determinant_shape);
PT2OV_KERNEL("aten._linalg_slogdet.default", linalg_slogdet_full, determinant_shape);
PT2OV_KERNEL("aten.logdet.default", logdet, determinant_shape);

}  // namespace
}  // namespace pt2ov::kernels
