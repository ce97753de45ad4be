// What the linear algebra kernels share (linalg.h): batches of matrices in double, and the
// LAPACK factorizations (getrf, getrs, potrf, trsm, geqrf, orgqr, ormqr) written out so their
// packed outputs, pivots, info codes and reflector signs are LAPACK's.
#include "kernels/linalg.h"

#include <algorithm>
#include <cmath>

namespace pt2ov::kernels::linalg {

std::vector<int64_t> batch_of(const StridedTensor& t, int matrix_dims) {
    return std::vector<int64_t>(t.sizes.begin(), t.sizes.end() - matrix_dims);
}

std::vector<int64_t> with_tail(std::vector<int64_t> batch, std::initializer_list<int64_t> tail) {
    batch.insert(batch.end(), tail.begin(), tail.end());
    return batch;
}

MatrixBatch::MatrixBatch(const StridedTensor& tensor, int matrix_dims) : tensor_(tensor), matrix_dims_(matrix_dims) {
    const size_t rank = tensor.rank();
    if (rank < static_cast<size_t>(matrix_dims)) throw InternalError("a matrix batch of a tensor of too small a rank");
    const auto element = static_cast<int64_t>(tensor.element_size());
    if (matrix_dims == 2) {
        rows_ = tensor.sizes[rank - 2];
        cols_ = tensor.sizes[rank - 1];
        row_stride_ = tensor.strides[rank - 2] * element;
        col_stride_ = tensor.strides[rank - 1] * element;
    } else if (matrix_dims == 1) {
        rows_ = tensor.sizes[rank - 1];
        row_stride_ = tensor.strides[rank - 1] * element;
    }
    const size_t batch_rank = rank - static_cast<size_t>(matrix_dims);
    const std::vector<int64_t> batch(tensor.sizes.begin(), tensor.sizes.begin() + batch_rank);
    const std::vector<int64_t> strides(tensor.strides.begin(), tensor.strides.begin() + batch_rank);
    offsets_ = byte_offsets(batch, strides, tensor.element_size());
}

Matrix MatrixBatch::matrix(int64_t index) const {
    Matrix m(rows_, cols_);
    const std::byte* base = tensor_.data + offsets_[index];
    visit_dtype(tensor_.dtype, [&]<typename T>() {
        for (int64_t i = 0; i < rows_; ++i) {
            for (int64_t j = 0; j < cols_; ++j) m(i, j) = static_cast<double>(load<T>(base + i * row_stride_ + j * col_stride_));
        }
    });
    return m;
}

Vector MatrixBatch::vector(int64_t index) const { return matrix(index).col(0); }

double MatrixBatch::scalar(int64_t index) const { return matrix(index)(0, 0); }

void MatrixBatch::set_matrix(int64_t index, const Matrix& value) const {
    if (value.rows() != rows_ || value.cols() != cols_) throw InternalError("a matrix of the wrong shape for its output");
    std::byte* base = tensor_.data + offsets_[index];
    visit_dtype(tensor_.dtype, [&]<typename T>() {
        for (int64_t i = 0; i < rows_; ++i) {
            for (int64_t j = 0; j < cols_; ++j) store<T>(base + i * row_stride_ + j * col_stride_, cast<T>(value(i, j)));
        }
    });
}

void MatrixBatch::set_vector(int64_t index, const Vector& value) const { set_matrix(index, Matrix(value)); }

void MatrixBatch::set_scalar(int64_t index, double value) const { set_matrix(index, Matrix::Constant(1, 1, value)); }

void MatrixBatch::set_ints(int64_t index, const std::vector<int64_t>& values) const {
    std::byte* base = tensor_.data + offsets_[index];
    visit_dtype(tensor_.dtype, [&]<typename T>() {
        for (int64_t i = 0; i < rows_ && i < static_cast<int64_t>(values.size()); ++i) {
            store<T>(base + i * row_stride_, cast<T>(values[static_cast<size_t>(i)]));
        }
    });
}

std::vector<int64_t> MatrixBatch::ints(int64_t index) const {
    std::vector<int64_t> values(static_cast<size_t>(rows_));
    const std::byte* base = tensor_.data + offsets_[index];
    visit_dtype(tensor_.dtype, [&]<typename T>() {
        for (int64_t i = 0; i < rows_; ++i) values[static_cast<size_t>(i)] = static_cast<int64_t>(load<T>(base + i * row_stride_));
    });
    return values;
}

void check_input(const KernelCall& call, const StridedTensor& t, const std::string& api, size_t min_rank) {
    if (t.dtype != DType::Float32 && t.dtype != DType::Float64) {
        call.fail(api + ": expected a float32 or float64 input, got " + std::string(dtype_name(t.dtype)) +
                  " (PyTorch's CPU linear algebra takes only float, double and complex)");
    }
    if (t.rank() < min_rank) {
        call.fail(api + ": the input must have at least " + std::to_string(min_rank) + " dimensions, got shape " +
                  shape_text(t.sizes));
    }
}

void check_square(const KernelCall& call, const StridedTensor& t, const std::string& api) {
    check_input(call, t, api);
    if (t.sizes[t.rank() - 1] != t.sizes[t.rank() - 2]) {
        call.fail(api + ": A must be batches of square matrices, but they are " + std::to_string(t.sizes[t.rank() - 2]) +
                  " by " + std::to_string(t.sizes[t.rank() - 1]) + " matrices");
    }
}

std::string string_arg(const KernelCall& call, ArgName name, size_t position, const std::string& fallback) {
    const graph::Argument* a = call.arg(name, position);
    if (!a || a->kind == graph::Argument::Kind::None) return fallback;
    if (a->kind != graph::Argument::Kind::String) {
        call.fail("argument '" + std::string(name.text()) + "' is " + graph::kind_name(a->kind) + ", expected a string");
    }
    return a->string_value;
}

StridedTensor output(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes) {
    return allocate_output(call, index, sizes);
}

std::string batch_prefix(const StridedTensor& t, int64_t index) {
    return t.rank() > 2 ? "(Batch element " + std::to_string(index) + "): " : "";
}

bool all_finite(const Matrix& a) { return a.array().isFinite().all(); }

// ---- LU ------------------------------------------------------------------------------------

int64_t lu_factor_in_place(Matrix& a, std::vector<int64_t>& pivots) {
    const int64_t m = a.rows(), n = a.cols(), k = std::min(m, n);
    pivots.assign(static_cast<size_t>(k), 0);
    int64_t info = 0;
    for (int64_t j = 0; j < k; ++j) {
        // idamax: the first row of largest magnitude.
        int64_t pivot = j;
        double largest = std::abs(a(j, j));
        for (int64_t i = j + 1; i < m; ++i) {
            if (std::abs(a(i, j)) > largest) {
                largest = std::abs(a(i, j));
                pivot = i;
            }
        }
        pivots[static_cast<size_t>(j)] = pivot + 1;
        if (a(pivot, j) != 0) {
            if (pivot != j) a.row(pivot).swap(a.row(j));
            for (int64_t i = j + 1; i < m; ++i) a(i, j) /= a(j, j);
        } else if (info == 0) {
            info = j + 1;
        }
        for (int64_t c = j + 1; c < n; ++c) {
            const double u = a(j, c);
            for (int64_t i = j + 1; i < m; ++i) a(i, c) -= a(i, j) * u;
        }
    }
    return info;
}

void apply_pivots(Matrix& b, const std::vector<int64_t>& pivots, bool inverse) {
    // A block of an empty matrix has no storage: swapping rows of one is undefined in Eigen.
    if (b.cols() == 0 || b.rows() == 0) return;
    const auto k = static_cast<int64_t>(pivots.size());
    for (int64_t step = 0; step < k; ++step) {
        const int64_t i = inverse ? k - 1 - step : step;
        const int64_t p = pivots[static_cast<size_t>(i)] - 1;
        if (p != i) b.row(i).swap(b.row(p));
    }
}

Matrix lu_solve(const Matrix& lu, const std::vector<int64_t>& pivots, Matrix b, bool transpose) {
    if (!transpose) {
        apply_pivots(b, pivots, false);
        b = triangular_solve(lu, std::move(b), false, false, true);
        return triangular_solve(lu, std::move(b), true, false, false);
    }
    b = triangular_solve(lu, std::move(b), true, true, false);
    b = triangular_solve(lu, std::move(b), false, true, true);
    apply_pivots(b, pivots, true);
    return b;
}

// ---- Cholesky ------------------------------------------------------------------------------

int64_t cholesky_lower_in_place(Matrix& a) {
    const int64_t n = a.rows();
    for (int64_t j = 0; j < n; ++j) {
        double diagonal = a(j, j);
        for (int64_t p = 0; p < j; ++p) diagonal -= a(j, p) * a(j, p);
        if (!(diagonal > 0)) {  // NaN too, as dpotf2's DISNAN check
            a(j, j) = diagonal;
            for (int64_t r = 0; r < n; ++r) {
                for (int64_t c = r + 1; c < n; ++c) a(r, c) = 0;
            }
            return j + 1;
        }
        diagonal = std::sqrt(diagonal);
        a(j, j) = diagonal;
        for (int64_t i = j + 1; i < n; ++i) {
            double value = a(i, j);
            for (int64_t p = 0; p < j; ++p) value -= a(i, p) * a(j, p);
            a(i, j) = value / diagonal;
        }
    }
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = r + 1; c < n; ++c) a(r, c) = 0;
    }
    return 0;
}

// ---- Triangular solves ---------------------------------------------------------------------

Matrix triangular_solve(const Matrix& a, Matrix b, bool upper, bool transpose, bool unit_diagonal) {
    const int64_t n = a.rows();
    auto coefficient = [&](int64_t i, int64_t j) { return transpose ? a(j, i) : a(i, j); };
    const bool forward = upper == transpose;  // the effective matrix is lower triangular
    for (int64_t column = 0; column < b.cols(); ++column) {
        for (int64_t step = 0; step < n; ++step) {
            const int64_t i = forward ? step : n - 1 - step;
            double value = b(i, column);
            if (forward) {
                for (int64_t j = 0; j < i; ++j) value -= coefficient(i, j) * b(j, column);
            } else {
                for (int64_t j = i + 1; j < n; ++j) value -= coefficient(i, j) * b(j, column);
            }
            b(i, column) = unit_diagonal ? value : value / coefficient(i, i);
        }
    }
    return b;
}

// ---- Householder QR ------------------------------------------------------------------------

namespace {

// H = I - tau v v^T with v = [1; a(j+1:, j)], applied to `target` from the left over its rows
// j.. (`target` has the reflectors' row count).
void reflect_rows(const Matrix& reflectors, int64_t j, double tau, Matrix& target) {
    if (tau == 0) return;
    const int64_t m = reflectors.rows();
    for (int64_t c = 0; c < target.cols(); ++c) {
        double w = target(j, c);
        for (int64_t i = j + 1; i < m; ++i) w += reflectors(i, j) * target(i, c);
        w *= tau;
        target(j, c) -= w;
        for (int64_t i = j + 1; i < m; ++i) target(i, c) -= reflectors(i, j) * w;
    }
}

// The same reflector applied from the right over the columns j.. of `target`.
void reflect_columns(const Matrix& reflectors, int64_t j, double tau, Matrix& target) {
    if (tau == 0) return;
    const int64_t m = reflectors.rows();
    for (int64_t r = 0; r < target.rows(); ++r) {
        double w = target(r, j);
        for (int64_t i = j + 1; i < m; ++i) w += target(r, i) * reflectors(i, j);
        w *= tau;
        target(r, j) -= w;
        for (int64_t i = j + 1; i < m; ++i) target(r, i) -= w * reflectors(i, j);
    }
}

}  // namespace

void householder_qr_in_place(Matrix& a, Vector& tau) {
    const int64_t m = a.rows(), n = a.cols(), k = std::min(m, n);
    tau = Vector::Zero(k);
    for (int64_t j = 0; j < k; ++j) {
        const double alpha = a(j, j);
        double xnorm = 0;
        if (j + 1 < m) xnorm = a.col(j).segment(j + 1, m - j - 1).stableNorm();
        if (xnorm == 0) continue;  // dlarfg: H = I, tau = 0
        const double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
        tau(j) = (beta - alpha) / beta;
        const double scale = 1.0 / (alpha - beta);
        for (int64_t i = j + 1; i < m; ++i) a(i, j) *= scale;
        a(j, j) = beta;
        if (j + 1 < n) {
            Matrix trailing = a.block(0, j + 1, m, n - j - 1);
            reflect_rows(a, j, tau(j), trailing);
            a.block(0, j + 1, m, n - j - 1) = trailing;
        }
    }
}

Matrix householder_product(const Matrix& reflectors, const Vector& tau, int64_t columns) {
    const int64_t m = reflectors.rows();
    Matrix q = Matrix::Identity(m, columns);
    for (int64_t j = tau.size() - 1; j >= 0; --j) reflect_rows(reflectors, j, tau(j), q);
    return q;
}

Matrix apply_householder(const Matrix& reflectors, const Vector& tau, Matrix c, bool left, bool transpose) {
    const int64_t k = tau.size();
    // Q = H(1) ... H(k): Q C applies H(k) first, Q^T C applies H(1) first; from the right,
    // C Q applies H(1) first and C Q^T H(k) first.
    const bool last_first = left != transpose;
    for (int64_t step = 0; step < k; ++step) {
        const int64_t j = last_first ? k - 1 - step : step;
        if (left) {
            reflect_rows(reflectors, j, tau(j), c);
        } else {
            reflect_columns(reflectors, j, tau(j), c);
        }
    }
    return c;
}

// ---- Singular values -----------------------------------------------------------------------

Vector singular_values(const KernelCall& call, const Matrix& a, const std::string& api) {
    if (!all_finite(a)) {
        call.fail(api + ": The algorithm failed to converge because the input matrix contained non-finite values.");
    }
    if (a.size() == 0) return Vector(0);
    Eigen::BDCSVD<Matrix> svd(a);
    return svd.singularValues();
}

}  // namespace pt2ov::kernels::linalg
