// The kernels of the ISA table (isa_kernels.h), compiled once per x86-64 level: into libpt2ov
// for baseline x86-64 (PT2OV_ISA_LEVEL "baseline"), and into libpt2ov_isa_<level>.so with
// -march=<level> (PT2OV_ISA_SHARED_OBJECT defined, see isa.cmake). Nothing here may include
// the engine's other headers: what they define inline would be compiled for the wider level.
#include "kernels/isa/isa_kernels.h"

#include "kernels/isa/float_math.h"

#define EIGEN_DONT_PARALLELIZE  // the caller splits a product over threads, in fixed row blocks
#include <Eigen/Core>

#ifndef PT2OV_ISA_LEVEL
#error "PT2OV_ISA_LEVEL names the ISA level this copy is compiled for"
#endif

namespace pt2ov::kernels::isa {
namespace {

template <typename T, int Order>
using ConstMatrixMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>, Eigen::Unaligned,
                                  Eigen::OuterStride<>>;
template <typename T, int Order>
using MatrixMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>, Eigen::Unaligned, Eigen::OuterStride<>>;

// f(map) with the [rows, cols] matrix at `data` mapped row-major (unit column stride) or
// column-major (unit row stride).
template <typename T, typename Map, typename F>
void with_map(T* data, int64_t rows, int64_t cols, int64_t row_stride, int64_t column_stride, F&& f) {
    if (column_stride == 1) {
        f(Map::template with<Eigen::RowMajor>(data, rows, cols, row_stride));
    } else {
        f(Map::template with<Eigen::ColMajor>(data, rows, cols, column_stride));
    }
}
template <typename T>
struct ConstMaps {
    template <int Order>
    static ConstMatrixMap<T, Order> with(const T* data, int64_t rows, int64_t cols, int64_t outer) {
        return ConstMatrixMap<T, Order>(data, rows, cols, Eigen::OuterStride<>(outer));
    }
};
template <typename T>
struct Maps {
    template <int Order>
    static MatrixMap<T, Order> with(T* data, int64_t rows, int64_t cols, int64_t outer) {
        return MatrixMap<T, Order>(data, rows, cols, Eigen::OuterStride<>(outer));
    }
};

template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_row_stride, int64_t a_column_stride,
          const T* b, int64_t b_row_stride, int64_t b_column_stride, T beta, T* c, int64_t c_row_stride,
          int64_t c_column_stride) {
    if (m == 0 || n == 0) return;
    with_map<const T, ConstMaps<T>>(a, m, k, a_row_stride, a_column_stride, [&](const auto& a_map) {
        with_map<const T, ConstMaps<T>>(b, k, n, b_row_stride, b_column_stride, [&](const auto& b_map) {
            with_map<T, Maps<T>>(c, m, n, c_row_stride, c_column_stride, [&](auto c_map) {
                if (beta == T(0)) {
                    c_map.noalias() = alpha * (a_map * b_map);
                } else {
                    if (beta != T(1)) c_map *= beta;
                    c_map.noalias() += alpha * (a_map * b_map);
                }
            });
        });
    });
}

void gemm_f32(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_row_stride,
              int64_t a_column_stride, const float* b, int64_t b_row_stride, int64_t b_column_stride, float beta,
              float* c, int64_t c_row_stride, int64_t c_column_stride) {
    gemm<float>(m, n, k, alpha, a, a_row_stride, a_column_stride, b, b_row_stride, b_column_stride, beta, c,
                c_row_stride, c_column_stride);
}

void gemm_f64(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t a_row_stride,
              int64_t a_column_stride, const double* b, int64_t b_row_stride, int64_t b_column_stride, double beta,
              double* c, int64_t c_row_stride, int64_t c_column_stride) {
    gemm<double>(m, n, k, alpha, a, a_row_stride, a_column_stride, b, b_row_stride, b_column_stride, beta, c,
                 c_row_stride, c_column_stride);
}

IsaKernels make_table() {
    IsaKernels table{};
    table.size = sizeof(IsaKernels);
    table.layout_version = kIsaKernelsLayoutVersion;
    table.isa = PT2OV_ISA_LEVEL;
    table.gemm_f32 = gemm_f32;
    table.gemm_f64 = gemm_f64;
    table.exp_f32 = float_math::exp;
    table.sigmoid_f32 = float_math::sigmoid;
    table.tanh_f32 = float_math::tanh;
    table.softmax_row_f32 = float_math::softmax_row;
    table.multiply_f32 = float_math::multiply;
    table.add_f32 = float_math::add;
    table.sum_f32 = float_math::sum;
    table.extremum_f32 = float_math::extremum;
    return table;
}

}  // namespace

#ifndef PT2OV_ISA_SHARED_OBJECT
// The baseline table, linked into libpt2ov (cpu_isa.cpp).
const IsaKernels& baseline_isa_kernels() {
    static const IsaKernels table = make_table();
    return table;
}
#endif

}  // namespace pt2ov::kernels::isa

#ifdef PT2OV_ISA_SHARED_OBJECT
extern "C" __attribute__((visibility("default"))) const pt2ov::kernels::isa::IsaKernels* PT2OV_ISA_KERNELS_ENTRY() {
    static const pt2ov::kernels::isa::IsaKernels table = pt2ov::kernels::isa::make_table();
    return &table;
}
#endif
