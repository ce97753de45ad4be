// Neural-network layers of the training IR: pad in every mode, group_norm, _weight_norm, the 1-d
// pools (through their 2-d forms, as PyTorch computes them), max_pool3d, convolutions (plain and
// transposed, padding='same', 'valid' or numbers, batched or not) as the core aten.convolution,
// alpha dropouts in eval mode, grouped-query attention (enable_gqa) as the keys and values
// repeated, and the backward ops of softmax and dropout that programs of gradients contain.
#include <algorithm>
#include <limits>

#include "graph/decompose/common.h"

namespace pt2ov::graph::decompose {
namespace {

using Kind = Argument::Kind;
constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

std::vector<int64_t> ints_of(const Builder& b, const Argument& arg) {
    std::vector<int64_t> values;
    if (arg.kind == Kind::Int) return {arg.int_value};
    for (const auto& item : arg.items) {
        if (item.kind != Kind::Int) b.refuse("needs static integers where it has a symbolic one");
        values.push_back(item.int_value);
    }
    return values;
}

Argument slice(Builder& b, const Argument& x, int64_t dim, int64_t start, int64_t end, const Dim& length) {
    std::vector<Dim> sizes = b.meta(x).sizes;
    sizes[static_cast<size_t>(dim)] = length;
    return b.op("aten.slice.Tensor", {x, int_arg(dim), int_arg(start), int_arg(end), int_arg(1)}, contiguous_meta(b.meta(x).dtype, sizes));
}

Dim plus(const Dim& size, int64_t amount) {
    if (size.is_static()) return static_dim(*size.value + amount);
    Dim d;
    d.hint = size.hint >= 0 ? size.hint + amount : -1;
    return d;
}

// pad's last-dim-first pairs applied one dim at a time by `pad_dim(x, dim, before, after)`.
template <typename PadDim>
void pad_each_dim(Builder& b, Argument x, const std::vector<int64_t>& pad, PadDim pad_dim) {
    const int64_t rank = b.rank(x);
    const size_t pairs = pad.size() / 2;
    for (size_t k = 0; k < pairs; ++k) {
        const int64_t dim = rank - 1 - static_cast<int64_t>(k);
        const int64_t before = pad[2 * k], after = pad[2 * k + 1];
        if (before == 0 && after == 0) continue;
        x = pad_dim(x, dim, before, after);
    }
    b.output_is(0, x);
}

Argument cat_along(Builder& b, const std::vector<Argument>& parts, int64_t dim) {
    std::vector<Dim> sizes = b.meta(parts[0]).sizes;
    Dim total = static_dim(0);
    for (const auto& p : parts) {
        const Dim& s = b.meta(p).sizes[static_cast<size_t>(dim)];
        total = total.is_static() && s.is_static() ? static_dim(*total.value + *s.value) : plus(Dim{}, 0);
    }
    sizes[static_cast<size_t>(dim)] = total;
    return b.op("aten.cat.default", {list_arg(parts), int_arg(dim)}, contiguous_meta(b.meta(parts[0]).dtype, sizes));
}

// replicate: the edge slices expanded to the pad's width.
Argument replicate_dim(Builder& b, const Argument& x, int64_t dim, int64_t before, int64_t after) {
    std::vector<Argument> parts;
    auto edge = [&](int64_t start, int64_t end, int64_t width) {
        const Argument one = slice(b, x, dim, start, end, static_dim(1));
        std::vector<Dim> sizes = b.meta(x).sizes;
        sizes[static_cast<size_t>(dim)] = static_dim(width);
        return b.op("aten.expand.default", {one, sizes_arg(b, sizes, {x})}, contiguous_meta(b.meta(x).dtype, sizes));
    };
    if (before > 0) parts.push_back(edge(0, 1, before));
    parts.push_back(x);
    if (after > 0) parts.push_back(edge(-1, kToEnd, after));
    return cat_along(b, parts, dim);
}

// replicate with a negative amount on a side: output element j reads x[clamp(j - l, 0, n - 1)],
// which is a run of x[0], a slice of x, and a run of x[n - 1] (torch._refs clamps the indices).
Argument replicate_cropped_dim(Builder& b, const Argument& x, int64_t dim, int64_t before, int64_t after) {
    const Dim& size = b.meta(x).sizes[static_cast<size_t>(dim)];
    if (!size.is_static()) b.refuse("crops a dim of dynamic size");
    const int64_t n = *size.value, first = -before, end = n + after;  // source indices [first, end)
    if (n == 0 || end <= first) b.refuse("pads a dim to nothing or pads an empty dim");
    const int64_t low = std::max<int64_t>(0, std::min<int64_t>(0, end) - first);
    const int64_t middle_start = std::max<int64_t>(first, 0), middle_end = std::min(end, n);
    const int64_t high = std::max<int64_t>(0, end - std::max(n, first));
    auto run = [&](int64_t index, int64_t width) {
        const Argument one = slice(b, x, dim, index, index + 1, static_dim(1));
        std::vector<Dim> sizes = b.meta(x).sizes;
        sizes[static_cast<size_t>(dim)] = static_dim(width);
        return b.op("aten.expand.default", {one, sizes_arg(b, sizes, {x})}, contiguous_meta(b.meta(x).dtype, sizes));
    };
    std::vector<Argument> parts;
    if (low > 0) parts.push_back(run(0, low));
    if (middle_end > middle_start) parts.push_back(slice(b, x, dim, middle_start, middle_end, static_dim(middle_end - middle_start)));
    if (high > 0) parts.push_back(run(n - 1, high));
    return parts.size() == 1 ? parts[0] : cat_along(b, parts, dim);
}

// circular: the last `before` elements in front, the first `after` behind.
Argument circular_dim(Builder& b, const Argument& x, int64_t dim, int64_t before, int64_t after) {
    std::vector<Argument> parts;
    if (before > 0) parts.push_back(slice(b, x, dim, -before, kToEnd, static_dim(before)));
    parts.push_back(x);
    if (after > 0) parts.push_back(slice(b, x, dim, 0, after, static_dim(after)));
    return cat_along(b, parts, dim);
}

void pad(Builder& b) {
    const Argument self = b.arg(0, "self");
    const std::vector<int64_t> amounts = ints_of(b, b.arg(1, "pad"));
    const std::string mode = b.arg(2, "mode").string_value;
    const Argument value = b.arg(3, "value");
    const int64_t rank = b.rank(self);
    if (amounts.size() % 2 != 0 || static_cast<int64_t>(amounts.size() / 2) > rank) b.refuse("has a pad list of odd length or longer than twice the rank");
    if (mode == "constant") {
        return b.output(0, "aten.constant_pad_nd.default", {self, b.arg(1, "pad"), value.kind == Kind::None ? float_arg(0.0) : value});
    }
    if (mode == "reflect") {
        const size_t dims = amounts.size() / 2;
        if (dims < 1 || dims > 3 || rank < static_cast<int64_t>(dims) + 1) b.refuse("reflects over " + std::to_string(dims) + " dims of a rank " + std::to_string(rank) + " tensor");
        return b.output(0, "aten.reflection_pad" + std::to_string(dims) + "d.default", {self, b.arg(1, "pad")});
    }
    if (mode == "replicate") {
        return pad_each_dim(b, self, amounts, [&](const Argument& x, int64_t d, int64_t l, int64_t r) {
            return (l < 0 || r < 0) ? replicate_cropped_dim(b, x, d, l, r) : replicate_dim(b, x, d, l, r);
        });
    }
    if (mode == "circular") {
        return pad_each_dim(b, self, amounts, [&](const Argument& x, int64_t d, int64_t l, int64_t r) {
            if (l < 0 || r < 0) b.refuse("pads by a negative amount in circular mode");
            return circular_dim(b, x, d, l, r);
        });
    }
    b.refuse("pads in mode '" + mode + "'");
}

// A negative pad (a crop) keeps the node as it is: its CPU kernel (kernels/shuffle_pad.cpp)
// computes it exactly.
template <int N>
void replication_pad(Builder& b) {
    const auto amounts = ints_of(b, b.arg(1, "padding"));
    if (std::any_of(amounts.begin(), amounts.end(), [](int64_t amount) { return amount < 0; })) b.decline();
    pad_each_dim(b, b.arg(0, "self"), amounts, [&](const Argument& x, int64_t d, int64_t l, int64_t r) {
        return replicate_dim(b, x, d, l, r);
    });
}

void pad_circular(Builder& b) {
    pad_each_dim(b, b.arg(0, "self"), ints_of(b, b.arg(1, "pad")), [&](const Argument& x, int64_t d, int64_t l, int64_t r) {
        if (l < 0 || r < 0) b.refuse("pads by a negative amount in circular mode");
        return circular_dim(b, x, d, l, r);
    });
}

// group_norm is native_group_norm with N, C and H*W spelled out (run at run time when dynamic).
void group_norm(Builder& b) {
    const Argument input = b.arg(0, "input");
    const auto& m = b.meta(input);
    if (m.rank() < 2) b.refuse("needs an input of at least 2 dims");
    for (size_t d = 1; d < m.rank(); ++d) {
        if (!m.sizes[d].is_static()) b.refuse("normalizes over a dynamic dim");
    }
    int64_t spatial = 1;
    for (size_t d = 2; d < m.rank(); ++d) spatial *= *m.sizes[d].value;
    const TensorMeta stats = contiguous_meta(m.dtype, {m.sizes[0], static_dim(b.arg(1, "num_groups").int_value)});
    const auto parts = b.op_multi("aten.native_group_norm.default",
                                  {input, b.arg(2, "weight"), b.arg(3, "bias"), b.size(input, 0), int_arg(*m.sizes[1].value),
                                   int_arg(spatial), b.arg(1, "num_groups"), b.arg(4, "eps")},
                                  {contiguous_like(b.output_meta()), std::nullopt, std::nullopt});
    (void)stats;
    b.output_is(0, parts[0]);
}

// _weight_norm(v, g, dim) = v * g / |v|, the norm over every dim but `dim` (all for dim -1).
void weight_norm(Builder& b) {
    const Argument v = b.arg(0, "v"), g = b.arg(1, "g");
    const int64_t rank = b.rank(v);
    const int64_t dim = b.arg(2, "dim").int_value;
    const DType dtype = b.output_meta().dtype;
    std::vector<int64_t> over;
    for (int64_t d = 0; d < rank; ++d) {
        if (dim == -1 || d != b.dim(dim, rank)) over.push_back(d);
    }
    const Argument norm = b.op("aten.linalg_vector_norm.default", {v, int_arg(2), ints_arg(over), bool_arg(dim != -1)},
                               reduced_meta(b.meta(v), over, dim != -1, dtype));
    const Argument scale = elementwise(b, "aten.div.Tensor", {g, norm}, dtype);
    b.output(0, "aten.mul.Tensor", {v, scale});
}

// A 1-d pool is its 2-d form over a height of 1.
Argument unsqueeze_for_2d(Builder& b, const Argument& x) { return unsqueeze(b, x, b.rank(x) - 1); }

Argument pair(int64_t first, const std::vector<int64_t>& values, size_t fallback_from = 0) {
    (void)fallback_from;
    return ints_arg({first, values.at(0)});
}

void avg_pool1d(Builder& b) {
    const Argument self = b.arg(0, "self");
    const auto kernel = ints_of(b, b.arg(1, "kernel_size"));
    auto stride = ints_of(b, b.arg(2, "stride"));
    if (stride.empty()) stride = kernel;
    const auto padding = ints_of(b, b.arg(3, "padding"));
    const Argument x = unsqueeze_for_2d(b, self);
    auto out2d = unsqueezed_meta(b.output_meta(), b.rank(self) - 1);
    const Argument pooled = b.op("aten.avg_pool2d.default",
                                 {x, pair(1, kernel), pair(1, stride), pair(0, padding), b.arg(4, "ceil_mode"), b.arg(5, "count_include_pad")},
                                 out2d);
    b.output(0, "aten.squeeze.dims", {pooled, ints_arg({b.rank(self) - 1})});
}

void max_pool1d(Builder& b, bool with_indices) {
    const Argument self = b.arg(0, "self");
    const auto kernel = ints_of(b, b.arg(1, "kernel_size"));
    auto stride = ints_of(b, b.arg(2, "stride"));
    if (stride.empty()) stride = kernel;
    const auto padding = ints_of(b, b.arg(3, "padding"));
    const auto dilation = ints_of(b, b.arg(4, "dilation"));
    const int64_t h = b.rank(self) - 1;
    const Argument x = unsqueeze_for_2d(b, self);
    const auto values2d = unsqueezed_meta(b.output_meta(0), h);
    auto indices2d = values2d;
    indices2d.dtype = DType::Int64;
    const bool indices_used = with_indices && b.output_used(1);
    const auto parts = b.op_multi("aten.max_pool2d_with_indices.default",
                                  {x, pair(1, kernel), pair(1, stride), pair(0, padding), pair(1, dilation), b.arg(5, "ceil_mode")},
                                  {values2d, indices_used ? std::optional<TensorMeta>(indices2d) : std::nullopt});
    b.output(0, "aten.squeeze.dims", {parts[0], ints_arg({h})});
    if (indices_used) b.output(1, "aten.squeeze.dims", {parts[1], ints_arg({h})});
}

void adaptive_avg_pool1d(Builder& b) {
    const Argument self = b.arg(0, "self");
    const auto size = ints_of(b, b.arg(1, "output_size"));
    const int64_t h = b.rank(self) - 1;
    const Argument pooled = b.op("aten._adaptive_avg_pool2d.default", {unsqueeze_for_2d(b, self), ints_arg({1, size.at(0)})},
                                 unsqueezed_meta(b.output_meta(), h));
    b.output(0, "aten.squeeze.dims", {pooled, ints_arg({h})});
}

void max_pool3d(Builder& b) {
    auto kernel = ints_of(b, b.arg(1, "kernel_size"));
    auto stride = ints_of(b, b.arg(2, "stride"));
    if (stride.empty()) stride = kernel;
    auto triple = [](std::vector<int64_t> v) { return v.size() == 1 ? std::vector<int64_t>(3, v[0]) : v; };
    const auto parts = b.op_multi("aten.max_pool3d_with_indices.default",
                                  {b.arg(0, "self"), ints_arg(triple(kernel)), ints_arg(triple(stride)),
                                   ints_arg(triple(ints_of(b, b.arg(3, "padding")))), ints_arg(triple(ints_of(b, b.arg(4, "dilation")))),
                                   b.arg(5, "ceil_mode")},
                                  {contiguous_like(b.output_meta()), std::nullopt});
    b.output_is(0, parts[0]);
}

// conv*d(.padding) and conv_transpose*d as the core aten.convolution, every argument spelled out
// per spatial dim: an unbatched input gets a batch of one; padding='same' becomes numbers, the
// odd extra on the high side padded first, as ATen's _convolution_same does; 'valid' is zeros.
void convolution(Builder& b, bool transposed) {
    const Argument input = b.arg(0, "input"), weight = b.arg(1, "weight");
    const int64_t spatial = b.rank(weight) - 2;
    const auto per_dim = static_cast<size_t>(spatial);
    const bool unbatched = b.rank(input) == spatial + 1;
    Argument padding = b.arg(4, "padding");
    const bool same = padding.kind == Kind::String && padding.string_value == "same";
    const Argument dilation = expand_ints(b.arg(transposed ? 7 : 5, "dilation"), per_dim);
    Argument x = unbatched ? unsqueeze(b, input, 0) : input;
    if (same) {
        if (transposed) b.refuse("transposed convolution with padding='same'");
        const auto& wm = b.meta(weight);
        const auto dilations = ints_of(b, dilation);
        for (int64_t s : ints_of(b, b.arg(3, "stride"))) {
            if (s != 1) b.refuse("padding='same' with a stride other than 1");
        }
        std::vector<int64_t> low, extra_high;
        bool symmetric = true;
        for (int64_t d = 0; d < spatial; ++d) {
            const Dim& k = wm.sizes[static_cast<size_t>(d + 2)];
            if (!k.is_static()) b.refuse("a kernel of dynamic size");
            const int64_t total = dilations[static_cast<size_t>(d)] * (*k.value - 1);
            low.push_back(total / 2);
            extra_high.push_back(total - 2 * (total / 2));
            symmetric = symmetric && extra_high.back() == 0;
        }
        if (!symmetric) {
            std::vector<int64_t> pad_list;  // last dim first
            for (int64_t d = spatial - 1; d >= 0; --d) {
                pad_list.push_back(0);
                pad_list.push_back(extra_high[static_cast<size_t>(d)]);
            }
            std::vector<Dim> sizes = b.meta(x).sizes;
            for (int64_t d = 0; d < spatial; ++d) sizes[static_cast<size_t>(d + 2)] = plus(sizes[static_cast<size_t>(d + 2)], extra_high[static_cast<size_t>(d)]);
            x = b.op("aten.constant_pad_nd.default", {x, ints_arg(pad_list), float_arg(0.0)}, contiguous_meta(b.meta(x).dtype, sizes));
        }
        padding = ints_arg(low);
    } else if (padding.kind == Kind::String) {
        if (padding.string_value != "valid") b.refuse("padding='" + padding.string_value + "'");
        padding = ints_arg(std::vector<int64_t>(per_dim, 0));
    }
    const Argument zeros = ints_arg(std::vector<int64_t>(per_dim, 0));
    std::vector<Argument> args = {x,
                                  weight,
                                  b.arg(2, "bias"),
                                  expand_ints(b.arg(3, "stride"), per_dim),
                                  expand_ints(padding, per_dim),
                                  dilation,
                                  bool_arg(transposed),
                                  transposed ? expand_ints(b.arg(5, "output_padding"), per_dim) : zeros,
                                  b.arg(6, "groups")};
    if (!unbatched) return b.outputs("aten.convolution.default", std::move(args));
    const Argument y = b.op("aten.convolution.default", std::move(args), unsqueezed_meta(b.output_meta(), 0));
    b.output(0, "aten.squeeze.dims", {y, ints_arg({0})});
}

// _softmax_backward_data: (grad - sum(grad * y, dim)) * y, as torch._decomp computes it, in the
// input's dtype.
void softmax_backward(Builder& b) {
    const Argument grad = b.arg(0, "grad_output"), y = b.arg(1, "output");
    const int64_t dim = b.dim(b.arg(2, "dim").int_value, b.rank(y));
    const DType dtype = b.meta(grad).dtype;
    const Argument product = elementwise(b, "aten.mul.Tensor", {grad, y}, dtype);
    const Argument total = b.op("aten.sum.dim_IntList", {product, ints_arg({dim}), bool_arg(true)}, reduced_meta(b.meta(product), {dim}, true, dtype));
    const Argument share = elementwise(b, "aten.mul.Tensor", {y, total}, dtype);
    const Argument result = elementwise(b, "aten.sub.Tensor", {product, share}, dtype);
    if (b.output_meta().dtype == dtype) return b.output_is(0, result);
    b.output(0, "aten._to_copy.default", {result}, {{"dtype", dtype_arg(b.output_meta().dtype)}});
}

// native_dropout_backward: grad * (mask * scale).
void dropout_backward(Builder& b) {
    const Argument grad = b.arg(0, "grad_output"), mask = b.arg(1, "mask");
    const DType dtype = b.meta(grad).dtype;
    const Argument kept = to_dtype(b, mask, dtype);
    const Argument scaled = elementwise(b, "aten.mul.Tensor", {kept, scalar_tensor(b, number(b, b.arg(2, "scale")), dtype)}, dtype);
    b.output(0, "aten.mul.Tensor", {grad, scaled});
}

// scaled_dot_product_attention with enable_gqa: the keys and values repeated to every query head
// (each of the key heads, group times in a row: PyTorch's math path repeat_interleaves along dim
// -3), then the attention without the flag. OpenVINO 2026.4.1's PyTorch frontend drops the flag,
// and an attention of fewer key heads than query heads then fails to compile. Spelled as
// transformers' repeat_kv spells it (unsqueeze, expand, a copy, view), which lowering turns
// into an attention that broadcasts the key heads instead of copying them
// (lower/grouped_attention.h).
void grouped_query_attention(Builder& b) {
    const Argument flag = b.arg(7, "enable_gqa");
    if (flag.kind != Kind::Bool || !flag.bool_value) b.decline();
    const Argument query = b.arg(0, "query"), key = b.arg(1, "key"), value = b.arg(2, "value");
    const TensorMeta &q = b.meta(query), &k = b.meta(key), &v = b.meta(value);
    if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) {
        b.refuse("is an attention with enable_gqa=True over inputs not of rank 4 (batch, heads, sequence, width); "
                 "pt2ov runs grouped-query attention of rank 4");
    }
    if (!q.sizes[1].is_static() || !k.sizes[1].is_static() || !v.sizes[1].is_static() || *k.sizes[1].value <= 0 ||
        *k.sizes[1].value != *v.sizes[1].value || *q.sizes[1].value % *k.sizes[1].value != 0) {
        b.refuse("is an attention with enable_gqa=True whose head counts are not static, or whose query heads are not a "
                 "multiple of its key and value heads");
    }
    const int64_t heads = *q.sizes[1].value, kv_heads = *k.sizes[1].value, group = heads / kv_heads;
    auto repeated = [&](const Argument& x, const TensorMeta& m) -> Argument {
        if (group == 1) return x;
        std::vector<Dim> wide = {m.sizes[0], m.sizes[1], static_dim(1), m.sizes[2], m.sizes[3]};
        const Argument one = b.op("aten.unsqueeze.default", {x, int_arg(2)}, contiguous_meta(m.dtype, wide));
        wide[2] = static_dim(group);
        const Argument spread = b.op("aten.expand.default", {one, sizes_arg(b, wide, {x})}, contiguous_meta(m.dtype, wide));
        const Argument copy = b.op("aten.clone.default", {spread}, contiguous_meta(m.dtype, wide));
        const std::vector<Dim> sizes = {m.sizes[0], static_dim(heads), m.sizes[2], m.sizes[3]};
        return b.op("aten.view.default", {copy, sizes_arg(b, sizes, {x})}, contiguous_meta(m.dtype, sizes));
    };
    Keywords keywords;
    if (b.arg(6, "scale").kind != Kind::None) keywords.emplace_back("scale", b.arg(6, "scale"));
    b.output(0, "aten.scaled_dot_product_attention.default",
             {query, repeated(key, k), repeated(value, v), b.arg(3, "attn_mask"), b.arg(4, "dropout_p"), b.arg(5, "is_causal")},
             keywords);
}

void eval_dropout(Builder& b) {
    const Argument train = b.arg(2, "train");
    if (train.kind == Kind::Bool && train.bool_value) b.refuse("is a dropout in training mode; export the module in eval mode");
    b.output_is(0, b.arg(0, "input"));
}

}  // namespace

PT2OV_DECOMPOSITION("aten.pad.default", pad);
PT2OV_DECOMPOSITION("aten.scaled_dot_product_attention.default", grouped_query_attention);
PT2OV_DECOMPOSITION("aten.replication_pad1d.default", replication_pad<1>);
PT2OV_DECOMPOSITION("aten.replication_pad2d.default", replication_pad<2>);
PT2OV_DECOMPOSITION("aten.replication_pad3d.default", replication_pad<3>);
PT2OV_DECOMPOSITION("aten._pad_circular.default", pad_circular);
PT2OV_DECOMPOSITION("aten.group_norm.default", group_norm);
PT2OV_DECOMPOSITION("aten._weight_norm.default", weight_norm);
PT2OV_DECOMPOSITION("aten.avg_pool1d.default", avg_pool1d);
PT2OV_DECOMPOSITION("aten.max_pool1d.default", [](Builder& b) { max_pool1d(b, false); });
PT2OV_DECOMPOSITION("aten.max_pool1d_with_indices.default", [](Builder& b) { max_pool1d(b, true); });
PT2OV_DECOMPOSITION("aten.adaptive_avg_pool1d.default", adaptive_avg_pool1d);
PT2OV_DECOMPOSITION("aten.max_pool3d.default", max_pool3d);
PT2OV_DECOMPOSITION("aten.conv1d.default", [](Builder& b) { convolution(b, false); });
PT2OV_DECOMPOSITION("aten.conv2d.default", [](Builder& b) { convolution(b, false); });
PT2OV_DECOMPOSITION("aten.conv3d.default", [](Builder& b) { convolution(b, false); });
PT2OV_DECOMPOSITION("aten.conv1d.padding", [](Builder& b) { convolution(b, false); });
PT2OV_DECOMPOSITION("aten.conv2d.padding", [](Builder& b) { convolution(b, false); });
PT2OV_DECOMPOSITION("aten.conv3d.padding", [](Builder& b) { convolution(b, false); });
PT2OV_DECOMPOSITION("aten.conv_transpose1d.default", [](Builder& b) { convolution(b, true); });
PT2OV_DECOMPOSITION("aten.conv_transpose2d.input", [](Builder& b) { convolution(b, true); });
PT2OV_DECOMPOSITION("aten.conv_transpose3d.input", [](Builder& b) { convolution(b, true); });
PT2OV_DECOMPOSITION("aten._softmax_backward_data.default", softmax_backward);
PT2OV_DECOMPOSITION("aten.native_dropout_backward.default", dropout_backward);
PT2OV_DECOMPOSITION("aten.alpha_dropout.default", eval_dropout);
PT2OV_DECOMPOSITION("aten.feature_alpha_dropout.default", eval_dropout);

}  // namespace pt2ov::graph::decompose
