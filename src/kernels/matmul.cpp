// Matrix products: mm, bmm, addmm, matmul (numpy broadcasting and 1-D operands) and linear.
// f32 and f64 matrices with a unit stride along one of their dims go through Eigen's blocked
// GEMM, which accumulates in the type (float, double) as PyTorch's CPU GEMMs do, in blocks of
// k rather than strictly in order, by fixed blocks of rows of the result (split over threads
// for big products, the result the same on any number of threads);
// the others (f16 and bf16 in float, any strides) sum over k in order. Integers are exact and
// wrap (int64 included).
#include <Eigen/Core>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// One matrix of a batch: its first element and byte strides between rows and columns.
struct MatrixView {
    std::byte* data;
    int64_t row_stride;
    int64_t column_stride;

    std::byte* at(int64_t row, int64_t column) const { return data + row * row_stride + column * column_stride; }
};

template <typename T>
using accumulator_t = std::conditional_t<std::is_same_v<T, double>, double,
                                         std::conditional_t<is_floating_v<T>, float, uint64_t>>;

// The terms of out = beta * addend + alpha * (a @ b); `addend` is optional.
struct Scaling {
    double beta = 1, alpha = 1;
    int64_t integer_beta = 1, integer_alpha = 1;
};

// ---- Eigen's GEMM for f32 and f64 ----------------------------------------------------------

// A [rows, cols] matrix of T as Eigen reads it: row-major (unit column stride) or column-major
// (unit row stride), with the outer stride in elements. Null when neither stride is one.
struct EigenLayout {
    bool row_major;
    int64_t outer;
};
template <typename T>
std::optional<EigenLayout> eigen_layout(const MatrixView& v, int64_t rows, int64_t cols) {
    constexpr auto e = static_cast<int64_t>(sizeof(T));
    if ((v.column_stride == e || cols == 1) && v.row_stride % e == 0 && (rows == 1 || v.row_stride / e >= cols)) {
        return EigenLayout{true, rows == 1 ? cols : v.row_stride / e};
    }
    if ((v.row_stride == e || rows == 1) && v.column_stride % e == 0 && (cols == 1 || v.column_stride / e >= rows)) {
        return EigenLayout{false, cols == 1 ? rows : v.column_stride / e};
    }
    return std::nullopt;
}

template <typename T, int Order>
using ConstMatrixMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>, Eigen::Unaligned, Eigen::OuterStride<>>;

// f(map) with `v` mapped as its layout says.
template <typename T, typename F>
void with_matrix_map(const MatrixView& v, const EigenLayout& layout, int64_t rows, int64_t cols, F&& f) {
    const T* p = reinterpret_cast<const T*>(v.data);
    if (layout.row_major) {
        f(ConstMatrixMap<T, Eigen::RowMajor>(p, rows, cols, Eigen::OuterStride<>(layout.outer)));
    } else {
        f(ConstMatrixMap<T, Eigen::ColMajor>(p, rows, cols, Eigen::OuterStride<>(layout.outer)));
    }
}

// The result is computed in blocks of this many rows, one Eigen product each, whatever the
// threads: which kernel Eigen picks (GEMM, or GEMV for one row) and so the rounding depend on
// the block, so fixed blocks give the same result on any number of threads. Each block packs b
// again, a few percent of the work at this size.
constexpr int64_t kRowBlock = 32;
// Products of at least this many multiply-adds split their blocks over threads.
constexpr int64_t kParallelMinMultiplyAdds = int64_t{1} << 20;

// out = beta * addend + alpha * (a @ b) through Eigen; false (nothing written) when a or b has
// no unit stride.
template <typename T>
bool multiply_eigen(const MatrixView& a, const MatrixView& b, const MatrixView& out, const MatrixView* addend,
                    const Scaling& scaling, int64_t m, int64_t k, int64_t n) {
    const auto a_layout = eigen_layout<T>(a, m, k);
    const auto b_layout = eigen_layout<T>(b, k, n);
    if (!a_layout || !b_layout) return false;
    const T alpha = static_cast<T>(scaling.alpha), beta = static_cast<T>(scaling.beta);
    auto block = [&](int64_t begin, int64_t end) {
        Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> product(end - begin, n);
        with_matrix_map<T>(a, *a_layout, m, k, [&](const auto& a_map) {
            with_matrix_map<T>(b, *b_layout, k, n, [&](const auto& b_map) {
                product.noalias() = a_map.middleRows(begin, end - begin) * b_map;
            });
        });
        for (int64_t i = begin; i < end; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                T value = alpha == T(1) ? product(i - begin, j) : alpha * product(i - begin, j);
                // beta == 0 ignores the addend entirely (NaN and inf in it included), as BLAS does.
                if (addend && beta != T(0)) value += beta * load<T>(addend->at(i, j));
                store<T>(out.at(i, j), value);
            }
        }
    };
    auto blocks = [&](int64_t first, int64_t last) {
        for (int64_t b = first; b < last; ++b) block(b * kRowBlock, std::min(m, (b + 1) * kRowBlock));
    };
    const int64_t count = (m + kRowBlock - 1) / kRowBlock;
    if (count < 2 || m * n * k < kParallelMinMultiplyAdds) {
        blocks(0, count);
    } else {
        parallel_ranges(count, 1, blocks);
    }
    return true;
}

template <typename T>
void multiply(const MatrixView& a, const MatrixView& b, const MatrixView& out, const MatrixView* addend,
              const Scaling& scaling, int64_t m, int64_t k, int64_t n) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        if (multiply_eigen<T>(a, b, out, addend, scaling, m, k, n)) return;
    }
    using Acc = accumulator_t<T>;
    const Acc alpha = std::is_floating_point_v<Acc> ? static_cast<Acc>(scaling.alpha) : static_cast<Acc>(scaling.integer_alpha);
    const Acc beta = std::is_floating_point_v<Acc> ? static_cast<Acc>(scaling.beta) : static_cast<Acc>(scaling.integer_beta);
    std::vector<Acc> row(static_cast<size_t>(n));
    for (int64_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), Acc(0));
        for (int64_t p = 0; p < k; ++p) {
            const auto x = static_cast<Acc>(load<T>(a.at(i, p)));
            for (int64_t j = 0; j < n; ++j) row[j] += x * static_cast<Acc>(load<T>(b.at(p, j)));
        }
        for (int64_t j = 0; j < n; ++j) {
            Acc value = alpha == Acc(1) ? row[j] : alpha * row[j];
            // beta == 0 ignores the addend entirely (NaN and inf in it included), as BLAS does.
            if (addend && beta != Acc(0)) value += beta * static_cast<Acc>(load<T>(addend->at(i, j)));
            store<T>(out.at(i, j), static_cast<compute_t<T>>(value));
        }
    }
}

// a: [batch..., m, k], b: [batch..., k, n], out and addend: [batch..., m, n], batch dims
// equal (broadcast views); all of one dtype.
void check_operands(const KernelCall& call, const StridedTensor& a, const StridedTensor& b, const StridedTensor& out,
                    const StridedTensor* addend) {
    if (a.dtype != b.dtype || a.dtype != out.dtype || (addend && addend->dtype != out.dtype)) {
        call.fail("expects operands of one dtype, got " + std::string(dtype_name(a.dtype)) + " and " +
                  std::string(dtype_name(b.dtype)) + " giving " + std::string(dtype_name(out.dtype)));
    }
    if (out.dtype == DType::Bool) call.fail("matrix products of bool tensors are not supported");
}

void batched_multiply(const KernelCall& call, const StridedTensor& a, const StridedTensor& b, const StridedTensor& out,
                      const StridedTensor* addend, const Scaling& scaling) {
    check_operands(call, a, b, out, addend);
    const size_t batch_rank = out.rank() - 2;
    const std::vector<int64_t> batch(out.sizes.begin(), out.sizes.begin() + batch_rank);
    auto batch_view = [&](const StridedTensor& t) {
        return t.view(batch, std::vector<int64_t>(t.strides.begin(), t.strides.begin() + batch_rank));
    };
    auto matrix = [&](const StridedTensor& t, std::byte* base) {
        const auto element = static_cast<int64_t>(t.element_size());
        return MatrixView{base, t.strides[batch_rank] * element, t.strides[batch_rank + 1] * element};
    };
    const StridedTensor a_batch = batch_view(a), b_batch = batch_view(b), out_batch = batch_view(out);
    const StridedTensor addend_batch = addend ? batch_view(*addend) : out_batch;
    const int64_t m = a.sizes[batch_rank], k = a.sizes[batch_rank + 1], n = b.sizes[batch_rank + 1];
    visit_dtype(out.dtype, [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool>) {
            for_each_element<4>(batch, {&out_batch, &a_batch, &b_batch, &addend_batch}, [&](const std::array<std::byte*, 4>& p) {
                const MatrixView addend_matrix = addend ? matrix(*addend, p[3]) : MatrixView{};
                multiply<T>(matrix(a, p[1]), matrix(b, p[2]), matrix(out, p[0]), addend ? &addend_matrix : nullptr, scaling, m, k, n);
            });
        }
    });
}

// [m, k] @ [k, n] (+ an addend of rank 0 to 2 that broadcasts to [m, n]) straight into the
// result: the same product as the batched path, without its broadcast views, which cost more
// than the arithmetic of the small matrices of a controller or an MLP head.
StridedTensor multiply_matrices(const KernelCall& call, const StridedTensor& a, const StridedTensor& b,
                                const StridedTensor* addend, const Scaling& scaling) {
    const int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1];
    StridedTensor out = allocate_output(call, 0, {m, n});
    std::optional<StridedTensor> converted;
    if (addend && addend->dtype != out.dtype) converted = contiguous_as(*addend, out.dtype);
    const StridedTensor* add = converted ? &*converted : addend;
    check_operands(call, a, b, out, add);
    auto matrix = [](const StridedTensor& t) {
        const auto element = static_cast<int64_t>(t.element_size());
        return MatrixView{t.data, t.strides[0] * element, t.strides[1] * element};
    };
    MatrixView addend_matrix{};
    if (add) {
        // Broadcast as numpy does: missing leading dims and dims of size 1 repeat (stride 0).
        const auto element = static_cast<int64_t>(add->element_size());
        const int64_t rows = add->rank() == 2 ? add->sizes[0] : 1;
        const int64_t cols = add->rank() >= 1 ? add->sizes[add->rank() - 1] : 1;
        if ((rows != 1 && rows != m) || (cols != 1 && cols != n)) {
            call.fail("the addend of shape " + shape_string(add->sizes) + " does not broadcast to the product's shape " +
                      shape_string({m, n}));
        }
        addend_matrix = MatrixView{add->data, rows == 1 ? 0 : add->strides[0] * element,
                                   cols == 1 ? 0 : add->strides[add->rank() - 1] * element};
    }
    visit_dtype(out.dtype, [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool>) {
            multiply<T>(matrix(a), matrix(b), matrix(out), add ? &addend_matrix : nullptr, scaling, m, k, n);
        }
    });
    return out;
}

// numpy's matmul: a 1-D left operand is a row (the dim is dropped from the result), a 1-D
// right operand a column (likewise); batch dims broadcast.
StridedTensor matmul(const KernelCall& call, const StridedTensor& a, const StridedTensor& b, const StridedTensor* addend,
                     const Scaling& scaling) {
    if (a.rank() == 0 || b.rank() == 0) call.fail("matmul needs operands of rank 1 or more");
    const StridedTensor a2 = a.rank() == 1 ? a.view({1, a.sizes[0]}, {0, a.strides[0]}) : a;
    const StridedTensor b2 = b.rank() == 1 ? b.view({b.sizes[0], 1}, {b.strides[0], 0}) : b;
    const int64_t m = a2.sizes[a2.rank() - 2], k = a2.sizes[a2.rank() - 1];
    const int64_t k2 = b2.sizes[b2.rank() - 2], n = b2.sizes[b2.rank() - 1];
    if (k != k2) {
        call.fail("shapes " + shape_string(a.sizes) + " and " + shape_string(b.sizes) + " cannot be multiplied (" +
                  std::to_string(k) + " != " + std::to_string(k2) + ")");
    }
    if (a.rank() == 2 && b.rank() == 2 && (!addend || addend->rank() <= 2)) return multiply_matrices(call, a, b, addend, scaling);
    auto batch = broadcast_shapes(call, std::vector<int64_t>(a2.sizes.begin(), a2.sizes.end() - 2),
                                  std::vector<int64_t>(b2.sizes.begin(), b2.sizes.end() - 2));
    std::vector<int64_t> result_sizes = batch;
    if (a.rank() > 1) result_sizes.push_back(m);
    if (b.rank() > 1) result_sizes.push_back(n);
    StridedTensor out = allocate_output(call, 0, result_sizes);
    // The result seen as [batch..., m, n]: a dropped dim comes back with size 1.
    std::vector<int64_t> out_strides(out.strides.begin(), out.strides.begin() + batch.size());
    out_strides.push_back(a.rank() > 1 ? out.strides[batch.size()] : 0);
    out_strides.push_back(b.rank() > 1 ? out.strides.back() : 0);
    auto full = [&](std::vector<int64_t> tail) {
        std::vector<int64_t> sizes = batch;
        sizes.insert(sizes.end(), tail.begin(), tail.end());
        return sizes;
    };
    const StridedTensor out3 = out.view(full({m, n}), out_strides);
    std::optional<StridedTensor> addend3;
    if (addend) addend3 = broadcast_to(call, addend->dtype == out.dtype ? *addend : contiguous_as(*addend, out.dtype), full({m, n}));
    batched_multiply(call, broadcast_to(call, a2, full({m, k})), broadcast_to(call, b2, full({k, n})), out3,
                     addend3 ? &*addend3 : nullptr, scaling);
    return out;
}

// mm(Tensor self, Tensor mat2). The engine also lowers aten.matmul to aten.mm (OpenVINO's
// MatMul has matmul's semantics), so a node that was a matmul keeps matmul's rules here.
std::vector<RuntimeValue> mm(const KernelCall& call) {
    const StridedTensor& a = call.tensor("self", 0);
    const StridedTensor& b = call.tensor("mat2", 1);
    const bool was_matmul = call.node().source_target().rfind("aten.matmul", 0) == 0;
    if (!was_matmul && (a.rank() != 2 || b.rank() != 2)) {
        call.fail("mm() expects two matrices, got shapes " + shape_string(a.sizes) + " and " + shape_string(b.sizes));
    }
    return single(matmul(call, a, b, nullptr, {}));
}

// bmm(Tensor self, Tensor mat2): [b, m, k] @ [b, k, n], no broadcasting.
std::vector<RuntimeValue> bmm(const KernelCall& call) {
    const StridedTensor& a = call.tensor("self", 0);
    const StridedTensor& b = call.tensor("mat2", 1);
    if (a.rank() != 3 || b.rank() != 3 || a.sizes[0] != b.sizes[0]) {
        call.fail("bmm() expects two 3-D tensors with one batch size, got shapes " + shape_string(a.sizes) + " and " +
                  shape_string(b.sizes));
    }
    return single(matmul(call, a, b, nullptr, {}));
}

Scaling scaling_of(const KernelCall& call) {
    Scaling s;
    if (call.has("beta", kKeywordOnly)) {
        const Scalar beta = call.scalar("beta", kKeywordOnly);
        s.beta = scalar_to_double(beta);
        s.integer_beta = scalar_to_int(beta);
    }
    if (call.has("alpha", kKeywordOnly)) {
        const Scalar alpha = call.scalar("alpha", kKeywordOnly);
        s.alpha = scalar_to_double(alpha);
        s.integer_alpha = scalar_to_int(alpha);
    }
    return s;
}

// addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)
std::vector<RuntimeValue> addmm(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& a = call.tensor("mat1", 1);
    const StridedTensor& b = call.tensor("mat2", 2);
    if (a.rank() != 2 || b.rank() != 2) {
        call.fail("addmm() expects two matrices, got shapes " + shape_string(a.sizes) + " and " + shape_string(b.sizes));
    }
    return single(matmul(call, a, b, &self, scaling_of(call)));
}

// matmul(Tensor self, Tensor other)
std::vector<RuntimeValue> matmul_kernel(const KernelCall& call) {
    return single(matmul(call, call.tensor("self", 0), call.tensor("other", 1), nullptr, {}));
}

// linear(Tensor input, Tensor weight, Tensor? bias=None) = input @ weight.T + bias
std::vector<RuntimeValue> linear(const KernelCall& call) {
    const StridedTensor& input = call.tensor("input", 0);
    const StridedTensor& weight = call.tensor("weight", 1);
    const auto bias = call.optional_tensor("bias", 2);
    if (weight.rank() != 2) call.fail("linear() expects a 2-D weight, got shape " + shape_string(weight.sizes));
    const StridedTensor weight_t = weight.view({weight.sizes[1], weight.sizes[0]}, {weight.strides[1], weight.strides[0]});
    return single(matmul(call, input, weight_t, bias ? &*bias : nullptr, {}));
}

PT2OV_KERNEL("aten.mm.default", mm);
PT2OV_KERNEL("aten.bmm.default", bmm);
PT2OV_KERNEL("aten.addmm.default", addmm);
PT2OV_KERNEL("aten.matmul.default", matmul_kernel);
PT2OV_KERNEL("aten.linear.default", linear);

}  // namespace
}  // namespace pt2ov::kernels
