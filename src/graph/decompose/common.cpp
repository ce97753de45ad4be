#include "graph/decompose/common.h"

#include <algorithm>

namespace pt2ov::graph::decompose {

TensorMeta permuted_meta(const TensorMeta& meta, const std::vector<int64_t>& perm) {
    std::vector<Dim> sizes;
    for (int64_t p : perm) sizes.push_back(meta.sizes.at(static_cast<size_t>(p)));
    return contiguous_meta(meta.dtype, std::move(sizes));
}

TensorMeta unsqueezed_meta(const TensorMeta& meta, int64_t d) {
    std::vector<Dim> sizes = meta.sizes;
    sizes.insert(sizes.begin() + d, static_dim(1));
    return contiguous_meta(meta.dtype, std::move(sizes));
}

TensorMeta squeezed_meta(const TensorMeta& meta, int64_t d) {
    std::vector<Dim> sizes = meta.sizes;
    sizes.erase(sizes.begin() + d);
    return contiguous_meta(meta.dtype, std::move(sizes));
}

Dim shrunk(const Dim& size, int64_t amount) {
    if (size.is_static()) return static_dim(std::max<int64_t>(0, *size.value - amount));
    Dim d;
    d.hint = size.hint > amount ? size.hint - amount : 0;
    return d;
}

double number(const Builder& b, const Argument& arg) {
    switch (arg.kind) {
        case Argument::Kind::Int: return static_cast<double>(arg.int_value);
        case Argument::Kind::Float: return arg.float_value;
        case Argument::Kind::Bool: return arg.bool_value ? 1.0 : 0.0;
        default: b.refuse("needs a number where it has " + std::string(kind_name(arg.kind)));
    }
}

Argument scalar_tensor(Builder& b, double value, DType dtype) {
    return b.op("aten.full.default", {ints_arg({}), float_arg(value)}, contiguous_meta(dtype, {}), {{"dtype", dtype_arg(dtype)}});
}

Argument permute(Builder& b, const Argument& x, const std::vector<int64_t>& perm) {
    return b.op("aten.permute.default", {x, ints_arg(perm)}, permuted_meta(b.meta(x), perm));
}

Argument unsqueeze(Builder& b, const Argument& x, int64_t d) {
    return b.op("aten.unsqueeze.default", {x, int_arg(d)}, unsqueezed_meta(b.meta(x), d));
}

Argument squeeze_dim(Builder& b, const Argument& x, int64_t d) {
    return b.op("aten.squeeze.dims", {x, ints_arg({d})}, squeezed_meta(b.meta(x), d));
}

Argument to_dtype(Builder& b, const Argument& x, DType dtype) {
    if (b.meta(x).dtype == dtype) return x;
    return b.op("aten._to_copy.default", {x}, with_dtype(b.meta(x), dtype), {{"dtype", dtype_arg(dtype)}});
}

std::vector<Dim> broadcast_sizes(const Builder& b, const std::vector<Argument>& operands) {
    size_t rank = 0;
    for (const auto& x : operands) {
        if (x.kind == Argument::Kind::Tensor) rank = std::max(rank, b.meta(x).rank());
    }
    std::vector<Dim> sizes(rank, static_dim(1));
    for (const auto& x : operands) {
        if (x.kind != Argument::Kind::Tensor) continue;
        const auto& m = b.meta(x);
        for (size_t k = 0; k < m.rank(); ++k) {
            Dim& out = sizes[rank - m.rank() + k];
            const Dim& in = m.sizes[k];
            if (in.is_static() && *in.value == 1) continue;
            if (out.is_static() && *out.value == 1) out = in;
        }
    }
    return sizes;
}

Argument elementwise(Builder& b, const std::string& target, std::vector<Argument> operands, DType dtype) {
    std::vector<Dim> sizes = broadcast_sizes(b, operands);
    return b.op(target, std::move(operands), contiguous_meta(dtype, std::move(sizes)));
}

Argument sizes_arg(Builder& b, const std::vector<Dim>& sizes, const std::vector<Argument>& sources) {
    std::vector<Argument> items;
    for (const Dim& want : sizes) {
        if (want.is_static()) {
            items.push_back(int_arg(*want.value));
            continue;
        }
        std::optional<Argument> found;
        for (const auto& source : sources) {
            if (found || source.kind != Argument::Kind::Tensor) continue;
            const auto& m = b.meta(source);
            for (size_t k = 0; k < m.rank() && !found; ++k) {
                if (!m.sizes[k].is_static() && !want.expr.empty() && m.sizes[k].expr == want.expr) {
                    found = b.size(source, static_cast<int64_t>(k));
                }
            }
        }
        if (!found) b.refuse("a symbolic size (" + want.expr + ") it needs is no input's size");
        items.push_back(*found);
    }
    return list_arg(std::move(items), Argument::Kind::Int);
}

Argument expand_ints(Argument arg, size_t n) {
    using Kind = Argument::Kind;
    if (arg.kind == Kind::Int) return ints_arg(std::vector<int64_t>(n, arg.int_value));
    if (arg.kind == Kind::List && arg.items.size() == 1 && n > 1) return ints_arg(std::vector<int64_t>(n, arg.items[0].int_value));
    return arg;
}

}  // namespace pt2ov::graph::decompose
