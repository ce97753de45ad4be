// Internal to the CPU kernels: the one dense matrix product that kernels built on GEMM
// (convolution) call for float and double blocks. It runs on the calling thread: the caller
// splits its work into blocks of fixed shape and spreads them over threads, so that every
// element of a result is computed by the same call, with the same rounding, however many
// threads there are.
#pragma once

#include <cstdint>

namespace pt2ov::kernels {

// A [rows, cols] matrix of T: element (i, j) at data[i * row_stride + j * column_stride]
// (strides in elements). One of the strides must be 1 (a row-major or column-major matrix
// with any leading dimension); a dim of size 1 counts as having stride 1.
template <typename T>
struct MatrixRef {
    T* data;
    int64_t rows;
    int64_t cols;
    int64_t row_stride;
    int64_t column_stride;
};

// Whether `m` has the layout gemm takes: a unit stride along one dim (or that dim of size 1)
// and, along the other, a stride that steps over a whole row or column.
template <typename T>
bool gemm_accepts(const MatrixRef<T>& m) {
    if ((m.column_stride == 1 || m.cols == 1) && (m.rows == 1 || m.row_stride >= m.cols)) return true;
    return (m.row_stride == 1 || m.rows == 1) && (m.cols == 1 || m.column_stride >= m.rows);
}

// c = a @ b, accumulated in the type (as PyTorch's CPU GEMMs do for float and double);
// a [m, k], b [k, n], c [m, n], c not overlapping a or b.
void gemm(MatrixRef<const float> a, MatrixRef<const float> b, MatrixRef<float> c);
void gemm(MatrixRef<const double> a, MatrixRef<const double> b, MatrixRef<double> c);

}  // namespace pt2ov::kernels
