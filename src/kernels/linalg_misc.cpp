// Matrix functions and products: linalg_matrix_exp, matrix_exp, linalg_matrix_power and
// linalg_multi_dot. Floating types are computed in double; integer types exactly, wrapping as
// PyTorch's integer matmul does (the ring's arithmetic, so the order of products is moot).
#include <unsupported/Eigen/MatrixFunctions>

#include <fmt/format.h>

#include "kernels/contracts.h"
#include "kernels/linalg.h"

namespace pt2ov::kernels {
namespace {

using linalg::Matrix;
using linalg::MatrixBatch;

// An integer matrix, row-major, held as 64-bit words whose arithmetic wraps.
struct WordMatrix {
    int64_t rows = 0, cols = 0;
    std::vector<uint64_t> words;

    uint64_t& at(int64_t i, int64_t j) { return words[static_cast<size_t>(i * cols + j)]; }
    uint64_t at(int64_t i, int64_t j) const { return words[static_cast<size_t>(i * cols + j)]; }
};

WordMatrix identity_words(int64_t n) {
    WordMatrix m{n, n, std::vector<uint64_t>(static_cast<size_t>(n * n), 0)};
    for (int64_t i = 0; i < n; ++i) m.at(i, i) = 1;
    return m;
}

WordMatrix multiply(const WordMatrix& a, const WordMatrix& b) {
    WordMatrix c{a.rows, b.cols, std::vector<uint64_t>(static_cast<size_t>(a.rows * b.cols), 0)};
    for (int64_t i = 0; i < a.rows; ++i) {
        for (int64_t p = 0; p < a.cols; ++p) {
            const uint64_t x = a.at(i, p);
            for (int64_t j = 0; j < b.cols; ++j) c.at(i, j) += x * b.at(p, j);
        }
    }
    return c;
}

// Matrix `index` of a batch (or a 2-D tensor for index 0) of an integer dtype.
WordMatrix words_of(const StridedTensor& t, const std::vector<int64_t>& offsets, int64_t index) {
    const size_t r = t.rank();
    WordMatrix m{t.sizes[r - 2], t.sizes[r - 1], {}};
    m.words.resize(static_cast<size_t>(m.rows * m.cols));
    const auto element = static_cast<int64_t>(t.element_size());
    const std::byte* base = t.data + offsets[static_cast<size_t>(index)];
    visit_dtype(t.dtype, [&]<typename T>() {
        if constexpr (is_integer_v<T>) {
            for (int64_t i = 0; i < m.rows; ++i) {
                for (int64_t j = 0; j < m.cols; ++j) {
                    m.at(i, j) = static_cast<uint64_t>(static_cast<int64_t>(
                        load<T>(base + (i * t.strides[r - 2] + j * t.strides[r - 1]) * element)));
                }
            }
        }
    });
    return m;
}

void store_words(const StridedTensor& t, const std::vector<int64_t>& offsets, int64_t index, const WordMatrix& m) {
    const size_t r = t.rank();
    const auto element = static_cast<int64_t>(t.element_size());
    std::byte* base = t.data + offsets[static_cast<size_t>(index)];
    visit_dtype(t.dtype, [&]<typename T>() {
        if constexpr (is_integer_v<T>) {
            for (int64_t i = 0; i < m.rows; ++i) {
                for (int64_t j = 0; j < m.cols; ++j) {
                    store<T>(base + (i * t.strides[r - 2] + j * t.strides[r - 1]) * element, static_cast<T>(m.at(i, j)));
                }
            }
        }
    });
}

std::vector<int64_t> matrix_offsets(const StridedTensor& t) {
    const size_t batch_rank = t.rank() - 2;
    return byte_offsets(std::vector<int64_t>(t.sizes.begin(), t.sizes.begin() + batch_rank),
                        std::vector<int64_t>(t.strides.begin(), t.strides.begin() + batch_rank), t.element_size());
}

// ---- matrix_exp ----------------------------------------------------------------------------

std::vector<RuntimeValue> matrix_exp(const KernelCall& call) {
    const std::string api = "linalg.matrix_exp";
    const auto& a = call.tensor("self", 0);
    linalg::check_square(call, a, api);
    StridedTensor result = linalg::output(call, 0, a.sizes);
    const MatrixBatch in(a, 2), out(result, 2);
    const bool reduced = a.dtype != DType::Float64;
    for (int64_t i = 0; i < in.count(); ++i) {
        const Matrix m = in.matrix(i);
        if (!linalg::all_finite(m)) call.fail(api + ": the input has non-finite values, whose exponential pt2ov does not reproduce");
        const Matrix e = m.size() == 0 ? m : Matrix(m.exp());
        if (reduced && e.size() > 0) {
            // PyTorch computes in the input's precision: an element 1e3 times below the largest
            // carries a rounding error of a few eps * max|e|, above 1e-4 of its own size, and
            // PyTorch's own rounding decides it (measured: 2.4e-3 on an OpInfo sample); pt2ov,
            // computing in double, cannot return the same number there, so it refuses rather
            // than differ. Exact zeros (triangular structure) stay zeros in both.
            const double largest = e.cwiseAbs().maxCoeff();
            const auto magnitude = e.cwiseAbs().array();
            if (((magnitude > 0) && (magnitude * 1e3 < largest)).any()) {
                call.fail(api + ": in " + std::string(dtype_name(a.dtype)) + " this exponential has elements far below its largest (" +
                          std::to_string(largest) + "), where PyTorch's own rounding decides the result; compute it in float64");
            }
        }
        out.set_matrix(i, e);
    }
    return single(result);
}

// ---- matrix_power --------------------------------------------------------------------------

// PyTorch's order of products: a^n by binary decomposition, z squared each bit.
template <typename M, typename Multiply>
M power_of(const M& a, int64_t n, Multiply&& product) {
    std::optional<M> z, result;
    while (n > 0) {
        const bool bit = n % 2 == 1;
        n /= 2;
        z = z ? product(*z, *z) : a;
        if (bit) result = result ? product(*result, *z) : *z;
    }
    return *result;
}

std::vector<RuntimeValue> linalg_matrix_power(const KernelCall& call) {
    const std::string api = "linalg.matrix_power";
    const auto& a = call.tensor("self", 0);
    const int64_t n = call.int_arg("n", 1);
    if (a.rank() < 2) call.fail(api + ": The input tensor A must have at least 2 dimensions.");
    if (a.sizes[a.rank() - 1] != a.sizes[a.rank() - 2]) call.fail(api + ": A must be batches of square matrices");
    const bool integer = dtype_is_integer(a.dtype);
    if (!integer && a.dtype != DType::Float32 && a.dtype != DType::Float64) {
        call.fail(api + ": dtype " + std::string(dtype_name(a.dtype)) + " is not supported (float32, float64 and integers are)");
    }
    if (integer && n < 0) call.fail(api + ": inverse of an integer matrix is not supported; negative powers need a floating input");
    StridedTensor result = linalg::output(call, 0, a.sizes);
    const int64_t size = a.sizes.back();
    if (integer) {
        const auto in_offsets = matrix_offsets(a), out_offsets = matrix_offsets(result);
        for (int64_t i = 0; i < static_cast<int64_t>(in_offsets.size()); ++i) {
            const WordMatrix m = words_of(a, in_offsets, i);
            store_words(result, out_offsets, i, n == 0 ? identity_words(size) : power_of(m, n, multiply));
        }
        return single(result);
    }
    const MatrixBatch in(a, 2), out(result, 2);
    for (int64_t i = 0; i < in.count(); ++i) {
        Matrix m = in.matrix(i);
        if (n < 0) {
            std::vector<int64_t> pivots;
            Matrix lu = m;
            const int64_t info = linalg::lu_factor_in_place(lu, pivots);
            if (info > 0) {
                call.fail("linalg.inv: " + linalg::batch_prefix(a, i) + "The diagonal element " + std::to_string(info) +
                          " is zero, the inversion could not be completed because the input matrix is singular.");
            }
            m = linalg::lu_solve(lu, pivots, Matrix::Identity(size, size), false);
        }
        out.set_matrix(i, n == 0 ? Matrix(Matrix::Identity(size, size))
                                 : power_of(m, n == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : std::abs(n),
                                            [](const Matrix& x, const Matrix& y) { return Matrix(x * y); }));
    }
    return single(result);
}

// ---- multi_dot -----------------------------------------------------------------------------

// multi_dot(Tensor[] tensors): the first may be a 1-D row and the last a 1-D column (their
// dims dropped from the result); the others are matrices.
std::vector<RuntimeValue> linalg_multi_dot(const KernelCall& call) {
    const std::string api = "multi_dot";
    const auto tensors = call.tensors("tensors", 0);
    if (tensors.size() < 2) call.fail(api + "(): expected at least 2 tensors but got " + std::to_string(tensors.size()));
    const DType dtype = tensors[0].dtype;
    const bool integer = dtype_is_integer(dtype);
    if (!integer && dtype != DType::Float32 && dtype != DType::Float64) {
        call.fail(api + "(): dtype " + std::string(dtype_name(dtype)) + " is not supported (float32, float64 and integers are)");
    }
    std::vector<StridedTensor> matrices;
    for (size_t i = 0; i < tensors.size(); ++i) {
        const StridedTensor& t = tensors[i];
        if (t.dtype != dtype) call.fail(api + "(): all tensors must have the same dtype");
        const bool end = i == 0 || i + 1 == tensors.size();
        if (!(t.rank() == 2 || (end && t.rank() == 1))) {
            call.fail(api + "(): tensor " + std::to_string(i) + " must be 2D" + (end ? " or 1D" : "") + " but got " +
                      std::to_string(t.rank()) + "D");
        }
        if (t.rank() == 2) {
            matrices.push_back(t);
        } else if (i == 0) {
            matrices.push_back(t.view({1, t.sizes[0]}, {0, t.strides[0]}));
        } else {
            matrices.push_back(t.view({t.sizes[0], 1}, {t.strides[0], 0}));
        }
        if (i > 0 && matrices[i - 1].sizes[1] != matrices[i].sizes[0]) {
            call.fail(api + "(): tensors " + std::to_string(i - 1) + " and " + std::to_string(i) + " with shapes " +
                      shape_text(tensors[i - 1].sizes) + " and " + shape_text(t.sizes) + " cannot be multiplied");
        }
    }
    std::vector<int64_t> sizes;
    if (tensors.front().rank() == 2) sizes.push_back(matrices.front().sizes[0]);
    if (tensors.back().rank() == 2) sizes.push_back(matrices.back().sizes[1]);
    StridedTensor result = linalg::output(call, 0, sizes);
    const StridedTensor result_matrix =
        result.view({matrices.front().sizes[0], matrices.back().sizes[1]},
                    {tensors.front().rank() == 2 ? result.strides[0] : 0, tensors.back().rank() == 2 ? result.strides.back() : 0});
    if (integer) {
        WordMatrix product = words_of(matrices[0], {0}, 0);
        for (size_t i = 1; i < matrices.size(); ++i) product = multiply(product, words_of(matrices[i], {0}, 0));
        store_words(result_matrix, {0}, 0, product);
        return single(result);
    }
    Matrix product = MatrixBatch(matrices[0], 2).matrix(0);
    for (size_t i = 1; i < matrices.size(); ++i) product = product * MatrixBatch(matrices[i], 2).matrix(0);
    MatrixBatch(result_matrix, 2).set_matrix(0, product);
    return single(result);
}

// ---- Shape contracts -----------------------------------------------------------------------

// matrix_exp and matrix_power: a function of square matrices, their sizes.
std::optional<std::vector<ExpectedSizes>> square_function_shape(const ShapeQuery& query) {
    const auto a = matrix_sizes(query, "self", 0, true);
    if (!a) return std::nullopt;
    return std::vector<ExpectedSizes>{*a};
}

// multi_dot: a chain of matrices, the first and the last of which may be vectors (a row and a
// column), their dims dropped from the product's [rows of the first, columns of the last].
std::optional<std::vector<ExpectedSizes>> multi_dot_shape(const ShapeQuery& query) {
    const auto tensors = query.tensor_list_sizes("tensors", 0);
    if (!tensors) return std::nullopt;
    if (tensors->size() < 2) query.contradiction(fmt::format("it multiplies {} tensors, not at least 2", tensors->size()));
    std::optional<int64_t> columns;  // of the product so far
    for (size_t i = 0; i < tensors->size(); ++i) {
        const ExpectedSizes& t = (*tensors)[i];
        const bool end = i == 0 || i + 1 == tensors->size();
        if (!(t.size() == 2 || (end && t.size() == 1))) {
            query.contradiction(fmt::format("its tensor {} has rank {} where it must be 2{}", i, t.size(), end ? " or 1" : ""));
        }
        if (i > 0) require_same_size(query, columns, t.front(), fmt::format("the inner sizes of tensors {} and {}", i - 1, i));
        columns = t.back();
    }
    ExpectedSizes out;
    if (tensors->front().size() == 2) out.push_back(tensors->front().front());
    if (tensors->back().size() == 2) out.push_back(tensors->back().back());
    return std::vector<ExpectedSizes>{out};
}

PT2OV_KERNEL("aten.linalg_matrix_exp.default", matrix_exp, square_function_shape);
PT2OV_KERNEL("aten.matrix_exp.default", matrix_exp, square_function_shape);
PT2OV_KERNEL("aten.linalg_matrix_power.default", linalg_matrix_power, square_function_shape);
PT2OV_KERNEL("aten.linalg_multi_dot.default", linalg_multi_dot, multi_dot_shape);

}  // namespace
}  // namespace pt2ov::kernels
