// The matrix product every CPU kernel that needs one calls (matmul.cpp's mm, addmm, bmm, matmul
// and linear; a convolution's im2col product): the GEMM of the ISA table (kernels/cpu_isa.h),
// split over threads in fixed blocks.
#pragma once

#include <cstdint>

#include "kernels/cpu_isa.h"

namespace pt2ov::kernels {

// c = alpha * (a @ b) + beta * c, for a [m, k], b [k, n] and c [m, n], element (i, j) of each at
// data[i * row_stride + j * column_stride] (strides in elements, any: zero, padded, transposed;
// an operand with no unit stride is copied first). beta == 0 writes c without reading it (NaN
// and inf in it included), as BLAS does; k == 0 gives beta * c. Sums over k in T (float or
// double), in blocks of k as the ISA level's kernel does, like PyTorch's CPU GEMMs.
//
// The product is cut into blocks of rows and columns chosen from m, n and k alone, each computed
// by one call of the table's kernel, and the blocks are split over threads when the product is
// big: the result does not depend on the number of threads. It depends on the ISA level (the
// kernel's vector width and FMA change the rounding, within EXACTNESS.md's E5), so `table` is
// the chosen level's unless a test passes another.
// Whether gemm_f32/gemm_f64 use a [rows, cols] operand with these strides (elements) in place:
// a unit stride along one dim (or that dim of size 1) and, along the other, a stride that steps
// over a whole row or column. Any other operand is copied first (a result: computed in a copy).
bool gemm_uses_in_place(int64_t rows, int64_t cols, int64_t row_stride, int64_t column_stride);

void gemm_f32(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_row_stride,
              int64_t a_column_stride, const float* b, int64_t b_row_stride, int64_t b_column_stride, float beta,
              float* c, int64_t c_row_stride, int64_t c_column_stride, const isa::IsaKernels& table = isa_kernels());
void gemm_f64(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t a_row_stride,
              int64_t a_column_stride, const double* b, int64_t b_row_stride, int64_t b_column_stride, double beta,
              double* c, int64_t c_row_stride, int64_t c_column_stride, const isa::IsaKernels& table = isa_kernels());

}  // namespace pt2ov::kernels
