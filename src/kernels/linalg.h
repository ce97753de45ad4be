// Internal to the linear algebra kernels (src/kernels/linalg_*.cpp): batches of matrices read
// into Eigen in double and written back in the output's dtype, and the factorizations computed
// as LAPACK computes them (PyTorch's CPU backend), so that packed results, pivots, info codes
// and Householder signs come out as PyTorch returns them. float32 is computed in double too:
// the result is then at least as close to LAPACK's float result as LAPACK's own rounding.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "kernels/dispatch.h"

namespace pt2ov::kernels::linalg {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;

// A tensor seen as a batch of matrices over its last two dims (matrix_dims 2), of vectors over
// its last dim (1) or of scalars (0); batch elements in row-major order of the leading dims, so
// two batches of equal batch sizes line up index by index. Any strides.
class MatrixBatch {
public:
    MatrixBatch(const StridedTensor& tensor, int matrix_dims);

    int64_t count() const { return static_cast<int64_t>(offsets_.size()); }
    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    const StridedTensor& tensor() const { return tensor_; }

    Matrix matrix(int64_t index) const;  // rows x cols (a vector: rows x 1; a scalar: 1 x 1)
    Vector vector(int64_t index) const;  // a vector batch's element
    double scalar(int64_t index) const;
    // Writes the element converted to the tensor's dtype (as a cast; integers from doubles by
    // truncation, which only exact integer values reach).
    void set_matrix(int64_t index, const Matrix& value) const;
    void set_vector(int64_t index, const Vector& value) const;
    void set_scalar(int64_t index, double value) const;
    // Integer outputs (pivots, info) written exactly.
    void set_ints(int64_t index, const std::vector<int64_t>& values) const;
    std::vector<int64_t> ints(int64_t index) const;

private:
    StridedTensor tensor_;
    int matrix_dims_;
    int64_t rows_ = 1, cols_ = 1;
    int64_t row_stride_ = 0, col_stride_ = 0;  // bytes
    std::vector<int64_t> offsets_;             // bytes, one per batch element
};

// The leading (batch) dims of `t` before its last `matrix_dims` dims.
std::vector<int64_t> batch_of(const StridedTensor& t, int matrix_dims);
std::vector<int64_t> with_tail(std::vector<int64_t> batch, std::initializer_list<int64_t> tail);

// Checks float32 or float64 (what PyTorch's CPU linear algebra takes besides complex) and a
// rank of at least `min_rank`; fails naming `api` ("linalg.inv") otherwise.
void check_input(const KernelCall& call, const StridedTensor& t, const std::string& api, size_t min_rank = 2);
void check_square(const KernelCall& call, const StridedTensor& t, const std::string& api);

// A string argument (str, or str? with `fallback` for None).
std::string string_arg(const KernelCall& call, ArgName name, size_t position, const std::string& fallback);

// Output `index` allocated with `sizes` in its recorded dtype, and seen as a batch.
StridedTensor output(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes);

// ---- Factorizations, as LAPACK computes them ----------------------------------------------

// getrf: partial pivoting (the first row of largest magnitude), L unit lower below the diagonal
// and U on and above it, packed in `a` (m x n). `pivots` gets min(m, n) 1-based rows. Returns
// info: 0, or the 1-based index of the first exactly zero diagonal element of U (the
// factorization still completes).
int64_t lu_factor_in_place(Matrix& a, std::vector<int64_t>& pivots);
// Applies the row interchanges of `pivots` (1-based, in order) to `b`, or their inverse.
void apply_pivots(Matrix& b, const std::vector<int64_t>& pivots, bool inverse);
// getrs: solves A X = B (or A^T X = B with `transpose`) from A's packed LU and pivots.
Matrix lu_solve(const Matrix& lu, const std::vector<int64_t>& pivots, Matrix b, bool transpose);

// potrf on the lower triangle of `a` (the upper is not read): L in the lower triangle, zeros
// above. Returns info: 0, or the order of the first leading minor that is not positive-definite.
int64_t cholesky_lower_in_place(Matrix& a);

// Triangular solve (trsm): A X = B with A lower or upper (only that triangle read), optionally
// transposed and with a unit diagonal.
Matrix triangular_solve(const Matrix& a, Matrix b, bool upper, bool transpose, bool unit_diagonal);

// geqrf: Householder reflectors as dlarfg makes them (beta = -sign(alpha) * norm), R on and
// above the diagonal of `a`, each reflector's vector below it (its leading 1 implied), tau.
void householder_qr_in_place(Matrix& a, Vector& tau);
// orgqr: the first `columns` columns of H(1) ... H(k) (k = tau's size) from geqrf's output.
Matrix householder_product(const Matrix& reflectors, const Vector& tau, int64_t columns);
// ormqr: Q C, Q^T C, C Q or C Q^T, with Q = H(1) ... H(k) (m x m) from geqrf's output.
Matrix apply_householder(const Matrix& reflectors, const Vector& tau, Matrix c, bool left, bool transpose);

// Singular values in descending order; fails naming `api` on non-finite input, as LAPACK's
// gesdd does through PyTorch.
Vector singular_values(const KernelCall& call, const Matrix& a, const std::string& api);

bool all_finite(const Matrix& a);

// The batch element's position for error messages: "" for an unbatched input, else
// "(Batch element i): " as PyTorch's _linalg_check_errors words it.
std::string batch_prefix(const StridedTensor& t, int64_t index);

}  // namespace pt2ov::kernels::linalg
