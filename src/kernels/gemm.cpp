// kernels/gemm.h: operands brought to a layout the ISA kernel reads (one unit stride), the
// product cut into fixed blocks, the blocks split over threads.
#include "kernels/gemm.h"

#include <algorithm>
#include <vector>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// A matrix operand as the ISA kernel takes it.
template <typename T>
struct Operand {
    T* data;
    int64_t row_stride, column_stride;
};

bool row_major_in_place(int64_t rows, int64_t cols, int64_t row_stride, int64_t column_stride) {
    return (column_stride == 1 || cols == 1) && (rows == 1 || row_stride >= cols);
}
bool column_major_in_place(int64_t rows, int64_t cols, int64_t row_stride, int64_t column_stride) {
    return (row_stride == 1 || rows == 1) && (cols == 1 || column_stride >= rows);
}

// Strides the ISA kernel reads for a [rows, cols] matrix (one of them 1, the other at least the
// extent of the unit-stride dim), or false. A single row or column takes any stride along it.
bool kernel_strides(int64_t rows, int64_t cols, int64_t& row_stride, int64_t& column_stride) {
    if (row_major_in_place(rows, cols, row_stride, column_stride)) {
        column_stride = 1;
        if (rows == 1) row_stride = cols;
        return true;
    }
    if (column_major_in_place(rows, cols, row_stride, column_stride)) {
        row_stride = 1;
        if (cols == 1) column_stride = rows;
        return true;
    }
    return false;
}

// `op` readable by the ISA kernel: as it is, or copied row-major into `copy`.
template <typename T>
Operand<const T> readable(Operand<const T> op, int64_t rows, int64_t cols, std::vector<T>& copy) {
    if (kernel_strides(rows, cols, op.row_stride, op.column_stride)) return op;
    copy.resize(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) copy[static_cast<size_t>(i * cols + j)] = op.data[i * op.row_stride + j * op.column_stride];
    }
    return {copy.data(), cols, 1};
}

// The blocks of c, from the shape alone: up to kRowBlock rows (a multiple of every level's
// register block of rows, so only the last block has a remainder) by up to kColumnBlock columns
// (b's block, k by kColumnBlock, then stays in a core's L2 cache for the usual k of a few
// hundred). A product of fewer than
// kMinBlocks such blocks has its columns cut further (multiples of kColumnAlign), so a product of
// few rows still spreads over threads.
constexpr int64_t kRowBlock = 192;
constexpr int64_t kColumnBlock = 256;
constexpr int64_t kMinBlocks = 4;
constexpr int64_t kColumnAlign = 16;
// Products of at least this many multiply-adds split their blocks over threads.
constexpr int64_t kParallelMinMultiplyAdds = int64_t{1} << 18;

struct Blocking {
    int64_t row_block, column_block, row_blocks, column_blocks;
};
Blocking blocking(int64_t m, int64_t n) {
    Blocking b{};
    b.row_block = std::min(m, kRowBlock);
    b.row_blocks = (m + b.row_block - 1) / b.row_block;
    const int64_t for_threads = (kMinBlocks + b.row_blocks - 1) / b.row_blocks;
    const int64_t pieces = std::min(std::max(for_threads, (n + kColumnBlock - 1) / kColumnBlock),
                                    (n + kColumnAlign - 1) / kColumnAlign);
    b.column_block = n;
    if (pieces > 1) b.column_block = ((n + pieces - 1) / pieces + kColumnAlign - 1) / kColumnAlign * kColumnAlign;
    b.column_blocks = (n + b.column_block - 1) / b.column_block;
    return b;
}

template <typename T, typename Kernel>
void gemm(Kernel kernel, int64_t m, int64_t n, int64_t k, T alpha, Operand<const T> a, Operand<const T> b, T beta,
          Operand<T> c) {
    if (m <= 0 || n <= 0) return;
    if (k == 0) {  // alpha * (an empty sum) + beta * c
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                T& out = c.data[i * c.row_stride + j * c.column_stride];
                out = beta == T(0) ? T(0) : beta * out;
            }
        }
        return;
    }
    std::vector<T> a_copy, b_copy, c_copy;
    a = readable(a, m, k, a_copy);
    b = readable(b, k, n, b_copy);
    // c without a unit stride: computed in a row-major copy (holding c when beta reads it).
    Operand<T> target = c;
    const bool c_copied = !kernel_strides(m, n, target.row_stride, target.column_stride);
    if (c_copied) {
        c_copy.assign(static_cast<size_t>(m * n), T(0));
        if (beta != T(0)) {
            for (int64_t i = 0; i < m; ++i) {
                for (int64_t j = 0; j < n; ++j) c_copy[static_cast<size_t>(i * n + j)] = c.data[i * c.row_stride + j * c.column_stride];
            }
        }
        target = {c_copy.data(), n, 1};
    }
    const Blocking blocks = blocking(m, n);
    auto run = [&](int64_t first, int64_t last) {
        for (int64_t block = first; block < last; ++block) {
            const int64_t i0 = block / blocks.column_blocks * blocks.row_block;
            const int64_t j0 = block % blocks.column_blocks * blocks.column_block;
            const int64_t rows = std::min(blocks.row_block, m - i0), cols = std::min(blocks.column_block, n - j0);
            kernel(rows, cols, k, alpha, a.data + i0 * a.row_stride, a.row_stride, a.column_stride,
                   b.data + j0 * b.column_stride, b.row_stride, b.column_stride, beta,
                   target.data + i0 * target.row_stride + j0 * target.column_stride, target.row_stride,
                   target.column_stride);
        }
    };
    const int64_t count = blocks.row_blocks * blocks.column_blocks;
    if (count < 2 || m * n * k < kParallelMinMultiplyAdds) {
        run(0, count);
    } else {
        parallel_ranges(count, 1, run);
    }
    if (c_copied) {
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) c.data[i * c.row_stride + j * c.column_stride] = c_copy[static_cast<size_t>(i * n + j)];
        }
    }
}

}  // namespace

bool gemm_uses_in_place(int64_t rows, int64_t cols, int64_t row_stride, int64_t column_stride) {
    return row_major_in_place(rows, cols, row_stride, column_stride) ||
           column_major_in_place(rows, cols, row_stride, column_stride);
}

void gemm_f32(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_row_stride,
              int64_t a_column_stride, const float* b, int64_t b_row_stride, int64_t b_column_stride, float beta,
              float* c, int64_t c_row_stride, int64_t c_column_stride, const isa::IsaKernels& table) {
    gemm<float>(table.gemm_f32, m, n, k, alpha, {a, a_row_stride, a_column_stride}, {b, b_row_stride, b_column_stride},
                beta, {c, c_row_stride, c_column_stride});
}

void gemm_f64(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t a_row_stride,
              int64_t a_column_stride, const double* b, int64_t b_row_stride, int64_t b_column_stride, double beta,
              double* c, int64_t c_row_stride, int64_t c_column_stride, const isa::IsaKernels& table) {
    gemm<double>(table.gemm_f64, m, n, k, alpha, {a, a_row_stride, a_column_stride}, {b, b_row_stride, b_column_stride},
                 beta, {c, c_row_stride, c_column_stride});
}

}  // namespace pt2ov::kernels
