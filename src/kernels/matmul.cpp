// Matrix products: mm, bmm, addmm, baddbmm, dot, matmul (numpy broadcasting and 1-D operands) and
// linear.
// f32 and f64 go through kernels/gemm.h (the ISA level's GEMM, compiled per x86-64 level), which
// accumulates in the type (float, double) as PyTorch's CPU GEMMs do, in blocks of k rather than
// strictly in order, in fixed blocks of the result (split over threads for big products, the
// result the same on any number of threads); f16 and bf16 sum over k in order in float.
// Integers are exact and wrap (int64 included).
#include <fmt/format.h>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"
#include "kernels/gemm.h"

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

// ---- f32 and f64: the GEMM of the ISA table (kernels/gemm.h) ----------------------------------

// out = beta * addend + alpha * (a @ b) as gemm's c = alpha * (a @ b) + beta * c, c holding the
// addend first. beta == 0 ignores the addend entirely (NaN and inf in it included), as BLAS does.
template <typename T>
void multiply_gemm(const MatrixView& a, const MatrixView& b, const MatrixView& out, const MatrixView* addend,
                   const Scaling& scaling, int64_t m, int64_t k, int64_t n) {
    constexpr auto e = static_cast<int64_t>(sizeof(T));
    const T alpha = static_cast<T>(scaling.alpha);
    const T beta = addend ? static_cast<T>(scaling.beta) : T(0);
    if (beta != T(0)) {
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) store<T>(out.at(i, j), load<T>(addend->at(i, j)));
        }
    }
    const auto gemm = [] {
        if constexpr (std::is_same_v<T, float>) return &gemm_f32; else return &gemm_f64;
    }();
    gemm(m, n, k, alpha, reinterpret_cast<const T*>(a.data), a.row_stride / e, a.column_stride / e,
         reinterpret_cast<const T*>(b.data), b.row_stride / e, b.column_stride / e, beta,
         reinterpret_cast<T*>(out.data), out.row_stride / e, out.column_stride / e, isa_kernels());
}

template <typename T>
void multiply(const MatrixView& a, const MatrixView& b, const MatrixView& out, const MatrixView* addend,
              const Scaling& scaling, int64_t m, int64_t k, int64_t n) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        multiply_gemm<T>(a, b, out, addend, scaling, m, k, n);
        return;
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
    StridedTensor out = allocate_output_for_overwrite(call, 0, {m, n}, call.output_meta(0).dtype);  // every element is written
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
            call.fail("the addend of shape " + shape_text(add->sizes) + " does not broadcast to the product's shape " +
                      shape_text({m, n}));
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
        call.fail("shapes " + shape_text(a.sizes) + " and " + shape_text(b.sizes) + " cannot be multiplied (" +
                  std::to_string(k) + " != " + std::to_string(k2) + ")");
    }
    if (a.rank() == 2 && b.rank() == 2 && (!addend || addend->rank() <= 2)) return multiply_matrices(call, a, b, addend, scaling);
    auto batch = broadcast_shapes(call, std::vector<int64_t>(a2.sizes.begin(), a2.sizes.end() - 2),
                                  std::vector<int64_t>(b2.sizes.begin(), b2.sizes.end() - 2));
    std::vector<int64_t> result_sizes = batch;
    if (a.rank() > 1) result_sizes.push_back(m);
    if (b.rank() > 1) result_sizes.push_back(n);
    // Every element is written below (each matrix of the batch, every row and column).
    StridedTensor out = allocate_output_for_overwrite(call, 0, result_sizes, call.output_meta(0).dtype);
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

// mm(Tensor self, Tensor mat2): two matrices. torch.matmul of other ranks stays aten.matmul
// (graph/decompose/core_spellings.cpp), whatever op it was decomposed from.
std::vector<RuntimeValue> mm(const KernelCall& call) {
    const StridedTensor& a = call.tensor("self", 0);
    const StridedTensor& b = call.tensor("mat2", 1);
    if (a.rank() != 2 || b.rank() != 2) {
        call.fail("mm() expects two matrices, got shapes " + shape_text(a.sizes) + " and " + shape_text(b.sizes));
    }
    return single(matmul(call, a, b, nullptr, {}));
}

// bmm(Tensor self, Tensor mat2): [b, m, k] @ [b, k, n], no broadcasting.
std::vector<RuntimeValue> bmm(const KernelCall& call) {
    const StridedTensor& a = call.tensor("self", 0);
    const StridedTensor& b = call.tensor("mat2", 1);
    if (a.rank() != 3 || b.rank() != 3 || a.sizes[0] != b.sizes[0]) {
        call.fail("bmm() expects two 3-D tensors with one batch size, got shapes " + shape_text(a.sizes) + " and " +
                  shape_text(b.sizes));
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
        call.fail("addmm() expects two matrices, got shapes " + shape_text(a.sizes) + " and " + shape_text(b.sizes));
    }
    return single(matmul(call, a, b, &self, scaling_of(call)));
}

// baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1):
// beta * self + alpha * (batch1 @ batch2), self broadcast to [b, n, p]; beta == 0 ignores self
// (NaN and inf in it included), as PyTorch does.
std::vector<RuntimeValue> baddbmm(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& a = call.tensor("batch1", 1);
    const StridedTensor& b = call.tensor("batch2", 2);
    if (a.rank() != 3 || b.rank() != 3 || a.sizes[0] != b.sizes[0] || a.sizes[2] != b.sizes[1]) {
        call.fail("baddbmm() expects two 3-D tensors [b, n, m] and [b, m, p], got shapes " + shape_text(a.sizes) + " and " +
                  shape_text(b.sizes));
    }
    broadcast_shapes(call, self.sizes, {a.sizes[0], a.sizes[1], b.sizes[2]});
    if (self.rank() > 3) call.fail("baddbmm() expects self to broadcast to the product's shape, got " + shape_text(self.sizes));
    return single(matmul(call, a, b, &self, scaling_of(call)));
}

// dot(Tensor self, Tensor tensor): the inner product of two 1-D tensors of one dtype and size.
std::vector<RuntimeValue> dot(const KernelCall& call) {
    const StridedTensor& a = call.tensor("self", 0);
    const StridedTensor& b = call.tensor("tensor", 1);
    if (a.rank() != 1 || b.rank() != 1) {
        call.fail("dot: 1D tensors expected, but got " + std::to_string(a.rank()) + "D and " + std::to_string(b.rank()) + "D tensors");
    }
    if (a.dtype != b.dtype) {
        call.fail("dot: expected both vectors to have same dtype, but found " + std::string(dtype_name(a.dtype)) + " and " +
                  std::string(dtype_name(b.dtype)));
    }
    if (a.sizes[0] != b.sizes[0]) {
        call.fail("dot: inconsistent tensor size, expected tensors of the same number of elements, but got " +
                  std::to_string(a.sizes[0]) + " and " + std::to_string(b.sizes[0]));
    }
    return single(matmul(call, a, b, nullptr, {}));
}

// The [b, n, p] of the product (self only has to broadcast to it); dot: a 0-dim result.
std::optional<std::vector<ExpectedSizes>> baddbmm_shape(const ShapeQuery& query) {
    const auto a = query.sizes("batch1", 1), b = query.sizes("batch2", 2);
    if (!a || !b) return std::nullopt;
    if (a->size() != 3 || b->size() != 3) query.contradiction("baddbmm multiplies tensors that are not 3-D");
    require_same_size(query, (*a)[0], (*b)[0], "the batch sizes of batch1 and batch2");
    require_same_size(query, (*a)[2], (*b)[1], "the inner sizes of the product");
    const ExpectedSizes out{(*a)[0], (*a)[1], (*b)[2]};
    if (const auto self = query.sizes("self", 0)) {
        if (broadcast(query, *self, out).size() != out.size()) query.contradiction("its self has more dims than the product");
    }
    return std::vector<ExpectedSizes>{out};
}

std::optional<std::vector<ExpectedSizes>> dot_shape(const ShapeQuery& query) {
    const auto a = query.sizes("self", 0), b = query.sizes("tensor", 1);
    if (!a || !b) return std::nullopt;
    if (a->size() != 1 || b->size() != 1) query.contradiction("dot multiplies tensors that are not 1-D");
    require_same_size(query, (*a)[0], (*b)[0], "the sizes of the two vectors");
    return std::vector<ExpectedSizes>{ExpectedSizes{}};
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
    if (weight.rank() != 2) call.fail("linear() expects a 2-D weight, got shape " + shape_text(weight.sizes));
    const StridedTensor weight_t = weight.view({weight.sizes[1], weight.sizes[0]}, {weight.strides[1], weight.strides[0]});
    return single(matmul(call, input, weight_t, bias ? &*bias : nullptr, {}));
}

// torch.matmul's shape (numpy's): a 1-d operand is a row (self) or a column (other) whose dim is
// dropped from the result, and the batch dims of both broadcast.
std::optional<std::vector<ExpectedSizes>> matmul_shape(const ShapeQuery& query) {
    const auto a = query.sizes("self", 0), b = query.sizes("other", 1);
    if (!a || !b) return std::nullopt;
    if (a->empty() || b->empty()) query.contradiction("it multiplies a 0-dim tensor");
    const std::optional<int64_t> rows = a->size() > 1 ? (*a)[a->size() - 2] : std::optional<int64_t>(1);
    const std::optional<int64_t> columns = b->size() > 1 ? b->back() : std::optional<int64_t>(1);
    const std::optional<int64_t> inner_b = b->size() > 1 ? (*b)[b->size() - 2] : (*b)[0];
    const auto inner_a = a->back();
    if (inner_a && inner_b && *inner_a != *inner_b) {
        query.contradiction(fmt::format("the inner sizes of the product: {} and {} differ", *inner_a, *inner_b));
    }
    const ExpectedSizes batch_a(a->begin(), a->end() - std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(a->size())));
    const ExpectedSizes batch_b(b->begin(), b->end() - std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(b->size())));
    ExpectedSizes out = broadcast(query, batch_a, batch_b);
    if (a->size() > 1) out.push_back(rows);
    if (b->size() > 1) out.push_back(columns);
    return std::vector<ExpectedSizes>{out};
}

// transformers' grouped matrix product of mixture-of-experts layers (transformers.integrations.moe:
// an opaque torch.library op, transformers::grouped_mm_fallback(input, weight, offs)): `input`
// [S, K] holds the tokens sorted by expert, `offs` [E] the running count of tokens per expert,
// and rows offs[e-1] .. offs[e] are multiplied by weight[e] ([K, N]); rows past offs[E-1] stay 0.
// Each expert's rows are one matrix product, as transformers' loop of torch.mm makes them.
std::vector<RuntimeValue> grouped_mm(const KernelCall& call) {
    const StridedTensor& input = call.tensor("input", 0);
    const StridedTensor& weight = call.tensor("weight", 1);
    const StridedTensor& offs = call.tensor("offs", 2);
    if (input.rank() != 2 || weight.rank() != 3 || offs.rank() != 1 || offs.sizes[0] != weight.sizes[0] ||
        input.sizes[1] != weight.sizes[1]) {
        call.fail("grouped_mm_fallback expects input [S, K], weight [E, K, N] and offs [E], got " +
                  shape_text(input.sizes) + ", " + shape_text(weight.sizes) + " and " + shape_text(offs.sizes));
    }
    if (weight.dtype != input.dtype) call.fail("grouped_mm_fallback expects the input and the weight of one dtype");
    const int64_t rows = input.sizes[0], k = input.sizes[1], n = weight.sizes[2], experts = weight.sizes[0];
    StridedTensor out = allocate_output(call, 0, {rows, n}, input.dtype);  // zero-filled: rows no expert takes
    const StridedTensor ends = contiguous_as(offs, DType::Int64);
    const auto element = [](const StridedTensor& t) { return static_cast<int64_t>(t.element_size()); };
    int64_t start = 0;
    for (int64_t e = 0; e < experts; ++e) {
        const int64_t end = reinterpret_cast<const int64_t*>(ends.data)[e];
        if (end < start || end > rows) {
            call.fail("grouped_mm_fallback: offs must count up to at most the " + std::to_string(rows) +
                      " input rows, but offs[" + std::to_string(e) + "] is " + std::to_string(end) + " after " +
                      std::to_string(start));
        }
        if (end == start) continue;
        const MatrixView a{input.data + start * input.strides[0] * element(input), input.strides[0] * element(input),
                           input.strides[1] * element(input)};
        const MatrixView b{weight.data + e * weight.strides[0] * element(weight), weight.strides[1] * element(weight),
                           weight.strides[2] * element(weight)};
        const MatrixView c{out.data + start * out.strides[0] * element(out), out.strides[0] * element(out),
                           out.strides[1] * element(out)};
        visit_dtype(out.dtype, [&]<typename T>() {
            if constexpr (!std::is_same_v<T, bool>) multiply<T>(a, b, c, nullptr, {}, end - start, k, n);
        });
        start = end;
    }
    return single(std::move(out));
}

std::optional<std::vector<ExpectedSizes>> grouped_mm_shape(const ShapeQuery& query) {
    const auto input = query.sizes("input", 0), weight = query.sizes("weight", 1);
    if (!input || !weight || input->size() != 2 || weight->size() != 3) return std::nullopt;
    if ((*input)[1] && (*weight)[1] && *(*input)[1] != *(*weight)[1]) {
        query.contradiction(fmt::format("the input's columns and the weight's rows: {} and {} differ", *(*input)[1],
                                        *(*weight)[1]));
    }
    return std::vector<ExpectedSizes>{ExpectedSizes{(*input)[0], (*weight)[2]}};
}

PT2OV_KERNEL("aten.mm.default", mm, matrix_product_shape);
PT2OV_KERNEL("transformers.grouped_mm_fallback.default", grouped_mm, grouped_mm_shape);
PT2OV_KERNEL("aten.bmm.default", bmm, matrix_product_shape);
PT2OV_KERNEL("aten.addmm.default", addmm, matrix_product_shape);
PT2OV_KERNEL("aten.matmul.default", matmul_kernel, matmul_shape);
PT2OV_KERNEL("aten.baddbmm.default", baddbmm, baddbmm_shape);
PT2OV_KERNEL("aten.dot.default", dot, dot_shape);
PT2OV_KERNEL("aten.linear.default", linear, matrix_product_shape);

}  // namespace
}  // namespace pt2ov::kernels
