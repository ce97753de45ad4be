// scaled_dot_product_attention as PyTorch's math reference computes it: the query's scores
// against every key, scaled (1 / sqrt(E) unless `scale` is given), masked (a boolean mask: -inf
// added where it is false; an additive one added; `is_causal`: keys after the query's position,
// as tril(ones(L, S))), a safe softmax over the keys (a row that keeps no key gives 0, as
// PyTorch's does), and the values weighted by it. On NaN and inf this is the reference's
// answer, which eager's other paths give too; eager's fused float32 kernel gives 0 for a query
// row of NaN (docs/EXACTNESS.md O8). `enable_gqa`: the key/value heads are shared
// by query heads in groups (repeat_interleave). Computed in double and rounded once to the
// recorded dtype: the path a call with NaN or inf takes (LoadOptions::nonfinite_inputs) and
// every --cpu-op of it, not OpenVINO's fused attention.
#include <cmath>
#include <limits>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

std::vector<RuntimeValue> scaled_dot_product_attention(const KernelCall& call) {
    const StridedTensor& query = call.tensor("query", 0);
    const StridedTensor& key = call.tensor("key", 1);
    const StridedTensor& value = call.tensor("value", 2);
    const auto mask = call.optional_tensor("attn_mask", 3);
    if (call.float_arg("dropout_p", 4, 0.0) != 0.0) call.fail("dropout_p must be 0 in an exported program (eval mode)");
    const bool causal = call.bool_arg("is_causal", 5, false);
    const bool grouped = call.bool_arg("enable_gqa", kKeywordOnly, false);
    const size_t rank = query.rank();
    if (rank < 2 || key.rank() != rank || value.rank() != rank) {
        call.fail("query, key and value must have one rank of 2 or more, got " + shape_text(query.sizes) + ", " +
                  shape_text(key.sizes) + ", " + shape_text(value.sizes));
    }
    const int64_t L = query.sizes[rank - 2], E = query.sizes[rank - 1];
    const int64_t S = key.sizes[rank - 2], Ev = value.sizes[rank - 1];
    if (key.sizes[rank - 1] != E || value.sizes[rank - 2] != S) {
        call.fail("key " + shape_text(key.sizes) + " and value " + shape_text(value.sizes) + " do not fit query " +
                  shape_text(query.sizes));
    }
    double scale = 1.0 / std::sqrt(static_cast<double>(E));
    if (const auto* given = call.arg("scale", kKeywordOnly); given && given->kind != graph::Argument::Kind::None) {
        scale = call.float_arg("scale", kKeywordOnly, scale);
    }
    // The batch dims are the query's; each of the key's and value's is the query's or 1, but the
    // heads (rank - 3) under enable_gqa, which divide the query's.
    const std::vector<int64_t> batch(query.sizes.begin(), query.sizes.end() - 2);
    int64_t group = 1;
    for (const StridedTensor* kv : {&key, &value}) {
        for (size_t d = 0; d + 2 < rank; ++d) {
            const int64_t size = kv->sizes[d];
            if (size == batch[d] || size == 1) continue;
            if (grouped && d + 3 == rank && size > 0 && batch[d] % size == 0) {
                group = batch[d] / size;
                continue;
            }
            call.fail("key and value batch sizes " + shape_text(kv->sizes) + " do not match the query's " +
                      shape_text(query.sizes));
        }
    }
    std::vector<int64_t> scores_shape = batch;
    scores_shape.push_back(L);
    scores_shape.push_back(S);
    const StridedTensor q = contiguous_as(query, DType::Float64);
    const StridedTensor k = contiguous_as(key, DType::Float64);
    const StridedTensor v = contiguous_as(value, DType::Float64);
    std::optional<StridedTensor> mask_values;
    const bool boolean_mask = mask && mask->dtype == DType::Bool;
    if (mask) mask_values = contiguous_as(broadcast_to(call, *mask, scores_shape), boolean_mask ? DType::Bool : DType::Float64);

    std::vector<int64_t> out_shape = batch;
    out_shape.push_back(L);
    out_shape.push_back(Ev);
    StridedTensor result = StridedTensor::allocate_for_overwrite(DType::Float64, out_shape);
    int64_t batches = 1;
    for (int64_t size : batch) batches *= size;
    // The offset (elements) of batch `b` of the query in a key or value of these sizes.
    auto kv_batch_offset = [&](const StridedTensor& kv, int64_t b) {
        int64_t offset = 0, stride = kv.sizes[rank - 2] * kv.sizes[rank - 1];
        for (size_t d = rank - 2; d-- > 0;) {
            const int64_t index = b % batch[d];
            b /= batch[d];
            int64_t at = kv.sizes[d] == 1 ? 0 : index;
            if (d + 3 == rank && kv.sizes[d] != batch[d] && kv.sizes[d] != 1) at = index / group;
            offset += at * stride;
            stride *= kv.sizes[d];
        }
        return offset;
    };
    const auto* qd = reinterpret_cast<const double*>(q.data);
    const auto* kd = reinterpret_cast<const double*>(k.data);
    const auto* vd = reinterpret_cast<const double*>(v.data);
    auto* out = reinterpret_cast<double*>(result.data);
    const double minus_inf = -std::numeric_limits<double>::infinity();
    parallel_ranges(batches, std::max<int64_t>(1, kParallelMinElements / std::max<int64_t>(1, L * S * (E + Ev))), [&](int64_t first, int64_t last) {
        std::vector<double> row(static_cast<size_t>(S));
        for (int64_t b = first; b < last; ++b) {
            const double* kb = kd + kv_batch_offset(k, b);
            const double* vb = vd + kv_batch_offset(v, b);
            for (int64_t i = 0; i < L; ++i) {
                const double* qi = qd + (b * L + i) * E;
                const int64_t mask_row = (b * L + i) * S;
                bool all_masked = true, any_nan = false;
                double top = minus_inf;
                for (int64_t j = 0; j < S; ++j) {
                    double score = 0;
                    for (int64_t e = 0; e < E; ++e) score += qi[e] * kb[j * E + e];
                    score *= scale;
                    // A masked key's -inf is added, as the reference adds a boolean mask made
                    // additive: a score of +inf there gives NaN, as PyTorch's does.
                    if (causal && j > i) score += minus_inf;
                    if (mask_values) {
                        if (boolean_mask) {
                            if (!reinterpret_cast<const bool*>(mask_values->data)[mask_row + j]) score += minus_inf;
                        } else {
                            score += reinterpret_cast<const double*>(mask_values->data)[mask_row + j];
                        }
                    }
                    row[static_cast<size_t>(j)] = score;
                    all_masked = all_masked && score == minus_inf;
                    any_nan = any_nan || std::isnan(score);
                    if (score > top) top = score;
                }
                double* oi = out + (b * L + i) * Ev;
                std::fill(oi, oi + Ev, 0.0);
                if (all_masked && S > 0) continue;  // PyTorch's safe softmax: the row gives 0
                if (any_nan) top = std::numeric_limits<double>::quiet_NaN();
                double sum = 0;
                for (double& p : row) {
                    p = std::exp(p - top);
                    sum += p;
                }
                for (int64_t j = 0; j < S; ++j) {
                    const double weight = row[static_cast<size_t>(j)] / sum;
                    for (int64_t e = 0; e < Ev; ++e) oi[e] += weight * vb[j * Ev + e];
                }
            }
        }
    });
    return single(contiguous_as(result, call.output_meta(0).dtype));
}

// The query's batch dims and L, with the value's last size.
std::optional<std::vector<ExpectedSizes>> attention_shape(const ShapeQuery& query) {
    const auto q = query.sizes("query", 0), v = query.sizes("value", 2);
    if (!q || !v) return std::nullopt;
    if (q->size() < 2 || v->size() != q->size()) query.contradiction("query and value must have one rank of 2 or more");
    ExpectedSizes out(q->begin(), q->end() - 1);
    out.push_back(v->back());
    return std::vector<ExpectedSizes>{out};
}

PT2OV_KERNEL("aten.scaled_dot_product_attention.default", scaled_dot_product_attention, attention_shape);

}  // namespace
}  // namespace pt2ov::kernels
