// embedding_bag (sum, mean, max; per_sample_weights; include_last_offset; padding_idx), which
// OpenVINO cannot convert in its training-IR spelling and fails on for max. Returns PyTorch's four
// outputs as its CPU kernel (EmbeddingBag.cpp) fills them: the bags; offset2bag (each index's
// bag, or empty where PyTorch's fast sum path skips it: the recorded size says which); each bag's
// size less its padding indices; and for max the index of each maximum (0 for an empty bag).
// Sums are accumulated in float (double for float64) in index order and rounded once; a mean
// divides the rounded sum, in the weight's dtype, as PyTorch does.
#include "kernels/contracts.h"
#include "kernels/layer_common.h"

namespace pt2ov::kernels {
namespace {

enum class BagMode { Sum = 0, Mean = 1, Max = 2 };

struct Bags {
    std::vector<int64_t> indices, offsets;  // offsets: one start per bag
    std::vector<int64_t> bag_of;            // each index's bag
    int64_t count = 0;
};

Bags bags_of(const KernelCall& call, const StridedTensor& indices, const StridedTensor& offsets, bool include_last_offset,
             int64_t rows) {
    if (indices.rank() != 1) call.fail("expects 1-d indices, got shape " + shape_text(indices.sizes));
    if (offsets.rank() != 1) call.fail("expects 1-d offsets, got shape " + shape_text(offsets.sizes));
    for (const auto* t : {&indices, &offsets}) {
        if (t->dtype != DType::Int64 && t->dtype != DType::Int32) {
            call.fail("expects int32 or int64 indices and offsets, got " + std::string(dtype_name(t->dtype)));
        }
    }
    Bags b{dense_int64(indices), dense_int64(offsets), {}, 0};
    const auto n = static_cast<int64_t>(b.indices.size());
    b.count = static_cast<int64_t>(b.offsets.size()) - (include_last_offset ? 1 : 0);
    if (b.count < 0) call.fail("include_last_offset needs at least one offset");
    b.offsets.resize(static_cast<size_t>(b.count));
    if (b.count > 0 && b.offsets[0] != 0) call.fail("offsets[0] has to be 0, got " + std::to_string(b.offsets[0]));
    for (int64_t k = 0; k < b.count; ++k) {
        const int64_t start = b.offsets[static_cast<size_t>(k)];
        if (start < 0 || start > n || (k > 0 && start < b.offsets[static_cast<size_t>(k - 1)])) {
            call.fail("offsets must be non-decreasing and within the " + std::to_string(n) + " indices");
        }
    }
    for (int64_t idx : b.indices) {
        if (idx < 0 || idx >= rows) {
            call.fail("index " + std::to_string(idx) + " is out of range for " + std::to_string(rows) + " embeddings");
        }
    }
    b.bag_of.assign(static_cast<size_t>(n), 0);
    for (int64_t k = 0; k < b.count; ++k) {
        const int64_t end = k + 1 < b.count ? b.offsets[static_cast<size_t>(k + 1)] : n;
        for (int64_t i = b.offsets[static_cast<size_t>(k)]; i < end; ++i) b.bag_of[static_cast<size_t>(i)] = k;
    }
    return b;
}

// A tensor of `dtype` holding `values`, cut or padded with zeros to the recorded length of output
// `index` where that is static (PyTorch sizes some of these outputs by mode and path).
StridedTensor index_output(const KernelCall& call, size_t index, std::vector<int64_t> values, std::vector<int64_t> sizes) {
    const auto& meta = call.output_meta(index);
    if (meta.all_static()) {
        const auto recorded = meta.static_sizes();
        values.resize(static_cast<size_t>(product(recorded)), 0);
        sizes = recorded;
    }
    return output_of_values<int64_t>(call, index, values, sizes, meta.dtype);
}

template <typename T>
std::vector<compute_t<T>> bag_values(const Bags& b, const std::vector<compute_t<T>>& weight, int64_t dim, BagMode mode,
                                     const std::vector<compute_t<T>>* scales, int64_t padding_idx,
                                     std::vector<int64_t>& bag_size, std::vector<int64_t>& max_index) {
    using V = compute_t<T>;
    const auto n = static_cast<int64_t>(b.indices.size());
    std::vector<V> out(static_cast<size_t>(b.count * dim), V(0));
    std::vector<bool> empty(static_cast<size_t>(b.count), true);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t bag = b.bag_of[static_cast<size_t>(i)], idx = b.indices[static_cast<size_t>(i)];
        if (idx == padding_idx) {
            --bag_size[static_cast<size_t>(bag)];
            continue;
        }
        V* row = out.data() + bag * dim;
        const V* w = weight.data() + idx * dim;
        for (int64_t d = 0; d < dim; ++d) {
            if (mode == BagMode::Max) {
                // As PyTorch compares: a NaN never replaces, a first NaN stays.
                if (empty[static_cast<size_t>(bag)] || w[d] > row[d]) {
                    row[d] = w[d];
                    max_index[static_cast<size_t>(bag * dim + d)] = idx;
                }
            } else {
                row[d] += scales ? (*scales)[static_cast<size_t>(i)] * w[d] : w[d];
            }
        }
        empty[static_cast<size_t>(bag)] = false;
    }
    if (mode == BagMode::Mean) {
        for (int64_t bag = 0; bag < b.count; ++bag) {
            const V count = static_cast<V>(std::max<int64_t>(bag_size[static_cast<size_t>(bag)], 1));
            for (int64_t d = 0; d < dim; ++d) {
                V& v = out[static_cast<size_t>(bag * dim + d)];
                v = cast<T>(cast<T>(v) / count);
            }
        }
    }
    return out;
}

std::vector<RuntimeValue> embedding_bag(const KernelCall& call) {
    const StridedTensor& weight = call.tensor("weight", 0);
    const StridedTensor& indices = call.tensor("indices", 1);
    const StridedTensor& offsets = call.tensor("offsets", 2);
    const auto mode = static_cast<BagMode>(call.int_arg("mode", 4, 0));
    const auto per_sample_weights = call.optional_tensor("per_sample_weights", 6);
    const bool include_last_offset = call.bool_arg("include_last_offset", 7, false);
    int64_t padding_idx = call.int_arg("padding_idx", 8, -1);
    if (weight.rank() != 2) call.fail("expects a 2-d weight, got shape " + shape_text(weight.sizes));
    if (!dtype_is_floating(weight.dtype)) call.fail("expects a floating weight, got " + std::string(dtype_name(weight.dtype)));
    if (mode != BagMode::Sum && mode != BagMode::Mean && mode != BagMode::Max) call.fail("unknown mode " + std::to_string(static_cast<int>(mode)));
    const int64_t rows = weight.sizes[0], dim = weight.sizes[1];
    if (padding_idx >= rows || padding_idx < -rows) call.fail("padding_idx must be within the number of embeddings");
    // _embedding_bag's int padding_idx has -1 for none; embedding_bag.padding_idx's int? has None for
    // none and wraps every negative index, -1 too (the functional form records it unwrapped).
    const bool wraps_minus_one = call.node().op == graph::op_id("aten.embedding_bag.padding_idx") && call.has("padding_idx", 8);
    if (padding_idx < -1 || (wraps_minus_one && padding_idx == -1)) padding_idx += rows;
    const Bags b = bags_of(call, indices, offsets, include_last_offset, rows);
    if (per_sample_weights) {
        if (mode != BagMode::Sum) call.fail("per_sample_weights are only supported for mode='sum'");
        if (per_sample_weights->dtype != weight.dtype || per_sample_weights->sizes != indices.sizes) {
            call.fail("expects per_sample_weights of the weight's dtype and the indices' shape");
        }
    }
    std::vector<int64_t> bag_size(static_cast<size_t>(b.count), 0);
    for (int64_t k = 0; k < b.count; ++k) {
        const int64_t end = k + 1 < b.count ? b.offsets[static_cast<size_t>(k + 1)] : static_cast<int64_t>(b.indices.size());
        bag_size[static_cast<size_t>(k)] = end - b.offsets[static_cast<size_t>(k)];
    }
    std::vector<int64_t> max_index(static_cast<size_t>(mode == BagMode::Max ? b.count * dim : 0), 0);
    StridedTensor result = visit_floating(weight.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        const auto w = dense_values<V>(weight);
        std::vector<V> scales;
        if (per_sample_weights) scales = dense_values<V>(*per_sample_weights);
        const auto out = bag_values<T>(b, w, dim, mode, per_sample_weights ? &scales : nullptr, padding_idx, bag_size, max_index);
        return output_of_values<V>(call, 0, out, {b.count, dim}, call.output_meta(0).dtype);
    });
    std::vector<RuntimeValue> outs{RuntimeValue::of(std::move(result))};
    const size_t outputs = call.node().outputs.size();
    if (outputs > 1) outs.push_back(RuntimeValue::of(index_output(call, 1, b.bag_of, {static_cast<int64_t>(b.bag_of.size())})));
    if (outputs > 2) outs.push_back(RuntimeValue::of(index_output(call, 2, bag_size, {b.count})));
    if (outputs > 3) {
        outs.push_back(RuntimeValue::of(mode == BagMode::Max ? index_output(call, 3, max_index, {b.count, dim})
                                                             : index_output(call, 3, bag_size, {b.count})));
    }
    return outs;
}

// The bags [num_bags, embedding dim], num_bags the offsets' count (one less with
// include_last_offset), and for max the index of each maximum in the same shape. offset2bag's
// length is the indices' or 0 by PyTorch's fast path (strides and dtype), and bag_size (and
// max_indices of sum and mean) the bags' or the offsets' count by device and overload
// (meta_embedding_bag): one unknown size each.
std::optional<std::vector<ExpectedSizes>> embedding_bag_shape(const ShapeQuery& query) {
    const auto weight = query.sizes("weight", 0), offsets = query.sizes("offsets", 2);
    const auto mode = query.int_arg("mode", 4);
    if (!weight || !offsets || !mode || weight->size() != 2 || offsets->size() != 1) return std::nullopt;
    auto bags = (*offsets)[0];
    if (bags && query.int_arg("include_last_offset", 7).value_or(0) != 0) {
        if (*bags < 1) query.contradiction("it includes the last offset of no offsets");
        --*bags;
    }
    const ExpectedSizes output{bags, (*weight)[1]};
    const ExpectedSizes unknown_length{std::nullopt};
    constexpr int64_t kMax = 2;
    return std::vector<ExpectedSizes>{output, unknown_length, unknown_length, *mode == kMax ? output : unknown_length};
}

PT2OV_KERNEL("aten.embedding_bag.default", embedding_bag, embedding_bag_shape);
PT2OV_KERNEL("aten.embedding_bag.padding_idx", embedding_bag, embedding_bag_shape);
PT2OV_KERNEL("aten._embedding_bag_forward_only.default", embedding_bag, embedding_bag_shape);
PT2OV_KERNEL("aten._embedding_bag.default", embedding_bag, embedding_bag_shape);

}  // namespace
}  // namespace pt2ov::kernels
