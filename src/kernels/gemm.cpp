// The dense matrix product behind kernels/gemm.h, through Eigen's blocked GEMM.
#include "kernels/gemm.h"

#include <Eigen/Core>
#include <type_traits>

#include "pt2ov/error.h"

namespace pt2ov::kernels {
namespace {

// A map of a matrix of T (const T: read-only) in `Order`.
template <typename T, int Order>
using StridedMap = Eigen::Map<std::conditional_t<std::is_const_v<T>,
                                                 const Eigen::Matrix<std::remove_const_t<T>, Eigen::Dynamic, Eigen::Dynamic, Order>,
                                                 Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>>,
                              Eigen::Unaligned, Eigen::OuterStride<>>;

// f(map) with `m` mapped row-major or column-major, whichever its unit stride allows.
template <typename T, typename F>
void with_map(const MatrixRef<T>& m, F&& f) {
    using RowMajor = StridedMap<T, Eigen::RowMajor>;
    using ColMajor = StridedMap<T, Eigen::ColMajor>;
    // Eigen asserts an outer stride no smaller than the inner size, which a dim of size 1
    // does not need: give it that size.
    if (m.column_stride == 1 || m.cols == 1) {
        const int64_t outer = m.rows == 1 ? m.cols : m.row_stride;
        if (m.rows == 1 || outer >= m.cols) {
            f(RowMajor(m.data, m.rows, m.cols, Eigen::OuterStride<>(outer)));
            return;
        }
    }
    if (m.row_stride == 1 || m.rows == 1) {
        const int64_t outer = m.cols == 1 ? m.rows : m.column_stride;
        if (m.cols == 1 || outer >= m.rows) {
            f(ColMajor(m.data, m.rows, m.cols, Eigen::OuterStride<>(outer)));
            return;
        }
    }
    throw InternalError("gemm: a matrix without a unit stride");
}

template <typename T>
void eigen_gemm(MatrixRef<const T> a, MatrixRef<const T> b, MatrixRef<T> c) {
    if (a.cols != b.rows || c.rows != a.rows || c.cols != b.cols) throw InternalError("gemm: shapes do not match");
    if (c.rows == 0 || c.cols == 0) return;
    with_map(a, [&](const auto& a_map) {
        with_map(b, [&](const auto& b_map) {
            with_map(c, [&](auto c_map) {
                if (a.cols == 0) {
                    c_map.setZero();
                } else {
                    c_map.noalias() = a_map * b_map;
                }
            });
        });
    });
}

}  // namespace

void gemm(MatrixRef<const float> a, MatrixRef<const float> b, MatrixRef<float> c) { eigen_gemm(a, b, c); }
void gemm(MatrixRef<const double> a, MatrixRef<const double> b, MatrixRef<double> c) { eigen_gemm(a, b, c); }

}  // namespace pt2ov::kernels
