#include "partition/int64_ranges.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <vector>

#include "lower/openvino_facts.h"

namespace pt2ov::partition {
namespace {

using graph::Argument;
using ArgKind = graph::Argument::Kind;
using Wide = __int128;

constexpr Wide kInt64Min = std::numeric_limits<int64_t>::min();
constexpr Wide kInt64Max = std::numeric_limits<int64_t>::max();

struct WideRange {
    Wide min = 0;
    Wide max = 0;
};

std::optional<Int64Range> narrow(WideRange r) {
    if (r.min < kInt64Min || r.max > kInt64Max || r.min > r.max) return std::nullopt;
    return Int64Range{static_cast<int64_t>(r.min), static_cast<int64_t>(r.max)};
}

WideRange widen(Int64Range r) { return {r.min, r.max}; }

WideRange hull(std::initializer_list<Wide> values) {
    return {std::min(values), std::max(values)};
}

// Ops whose int64 result holds only values of their first tensor argument (or of every tensor in
// its first list argument): views, copies, picks and joins.
const std::set<std::string>& moving_ops() {
    static const std::set<std::string> ops = {
        "aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.permute.default",
        "aten.transpose.int", "aten.t.default", "aten.expand.default", "aten.unsqueeze.default",
        "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default", "aten.flatten.using_ints",
        "aten.slice.Tensor", "aten.select.int", "aten.index_select.default", "aten.gather.default",
        "aten.index.Tensor", "aten.clone.default", "aten.alias.default", "aten.contiguous.default",
        "aten.cat.default", "aten.stack.default", "aten.repeat.default", "aten.flip.default",
        "aten.roll.default", "aten.unbind.int", "aten.split.Tensor", "aten.split_with_sizes.default",
        "aten.chunk.default", "aten.narrow.default", "aten.diagonal.default", "aten.tile.default",
        "aten._to_copy.default", "aten.to.dtype", "aten.view_copy.default", "aten.permute_copy.default",
        "aten.expand_copy.default", "aten.unsqueeze_copy.default", "aten.slice_copy.Tensor",
        "aten.select_copy.int", "aten.squeeze_copy.dim", "aten.squeeze_copy.dims", "aten.transpose_copy.int",
        "aten.t_copy.default", "aten.alias_copy.default", "aten.unfold.default", "aten.movedim.int",
        "aten.flatten.default"};
    return ops;
}

std::optional<Wide> int_of(const Argument& arg) {
    if (arg.kind == ArgKind::Int) return arg.int_value;
    if (arg.kind == ArgKind::Bool) return arg.bool_value ? 1 : 0;
    return std::nullopt;
}

}  // namespace

Int64Ranges::Int64Ranges(const graph::Graph& graph, std::map<std::string, Int64Range> constants)
    : graph_(graph), ranges_(std::move(constants)) {
    for (const auto& node : graph.nodes) follow(node);
}

std::optional<Int64Range> Int64Ranges::of(const std::string& value) const {
    auto it = ranges_.find(value);
    if (it == ranges_.end()) return std::nullopt;
    return it->second;
}

// An integer argument's bound: a number, or a symbolic int that is a bare symbol (a dynamic size)
// or static, within the range torch.export guarantees.
std::optional<Int64Range> Int64Ranges::integer_bound(const Argument& arg) const {
    if (auto n = int_of(arg)) return narrow(WideRange{*n, *n});
    if (arg.kind != ArgKind::SymInt) return std::nullopt;
    const auto* value = graph_.find_value(arg.name);
    if (!value || value->kind != graph::ValueKind::SymInt) return std::nullopt;
    if (value->sym.is_static()) return Int64Range{*value->sym.value, *value->sym.value};
    auto it = graph_.ranges.find(value->sym.symbol);
    if (value->sym.symbol.empty() || it == graph_.ranges.end()) return std::nullopt;
    return Int64Range{it->second.min, it->second.max};
}

std::optional<Int64Range> Int64Ranges::bound(const Argument& arg) const {
    if (auto r = integer_bound(arg)) return r;
    if (arg.kind != ArgKind::Tensor) return std::nullopt;
    const auto* value = graph_.find_value(arg.name);
    if (!value) return std::nullopt;
    if (value->meta.dtype == DType::Bool) return Int64Range{0, 1};
    if (value->meta.dtype != DType::Int64 && value->meta.dtype != DType::Int32) return std::nullopt;
    return of(arg.name);
}

void Int64Ranges::follow(const graph::Node& node) {
    if (node.arity() == 0 || node.outputs.empty()) return;  // unresolved nodes: no bound
    auto is_int64_tensor = [&](const Argument& arg) {
        if (arg.kind != ArgKind::Tensor) return false;
        const auto* value = graph_.find_value(arg.name);
        return value && value->meta.dtype == DType::Int64;
    };
    auto integer_range = [&](const Argument& arg) -> std::optional<WideRange> {
        auto r = integer_bound(arg);
        if (!r) return std::nullopt;
        return widen(*r);
    };
    auto bound = [&](const Argument& arg) -> std::optional<WideRange> {
        auto r = this->bound(arg);
        if (!r) return std::nullopt;
        return widen(*r);
    };
    auto set_outputs = [&](std::optional<WideRange> r) {
        if (!r) return;
        auto narrowed = narrow(*r);
        if (!narrowed) return;
        std::function<void(const Argument&)> set = [&](const Argument& out) {
            if (is_int64_tensor(out)) ranges_[out.name] = *narrowed;
            for (const auto& item : out.items) set(item);
        };
        for (const auto& out : node.outputs) set(out);
    };
    const std::string& op = node.target;
    const Argument& first = node.arg(0);

    if (moving_ops().count(op)) {
        // The values moved are those of the first tensor (or of each tensor of the first list).
        if (first.kind == ArgKind::Tensor) return set_outputs(bound(first));
        if (first.items.empty()) return;
        std::optional<WideRange> all;
        for (const auto& item : first.items) {
            auto r = bound(item);
            if (!r) return;
            all = all ? WideRange{std::min(all->min, r->min), std::max(all->max, r->max)} : *r;
        }
        return set_outputs(all);
    }
    if (op == "aten.arange.default" || op == "aten.arange.start" || op == "aten.arange.start_step") {
        // arange(end) / arange(start, end) / arange(start, end, step): integer arguments, or
        // symbolic ones within the range torch.export guarantees (arange(x.size(1))).
        std::optional<WideRange> start = WideRange{0, 0}, end;
        std::optional<Wide> step = Wide{1};
        if (op == "aten.arange.default") {
            end = integer_range(node.arg(0));
        } else {
            start = integer_range(node.arg(0));
            end = integer_range(node.arg(1));
            if (op == "aten.arange.start_step") step = int_of(node.arg(2));
        }
        if (!start || !end || !step || *step == 0) return;
        // every value lies between start and end
        return set_outputs(hull({start->min, start->max, end->min, end->max}));
    }
    if (op == "aten.full.default" || op == "aten.scalar_tensor.default" || op == "aten.full_like.default") {
        const Argument& fill = op == "aten.scalar_tensor.default" ? node.arg(0) : node.arg(1);
        if (auto v = int_of(fill)) return set_outputs(WideRange{*v, *v});
        return;
    }
    if (op == "aten.zeros.default" || op == "aten.zeros_like.default") return set_outputs(WideRange{0, 0});
    if (op == "aten.ones.default" || op == "aten.ones_like.default") return set_outputs(WideRange{1, 1});
    // copy(self, src) has self's shape and dtype and src's values (a KV cache's length counter
    // set from cache_position each call).
    if (op == "aten.copy.default") {
        if (node.arity() >= 2) set_outputs(bound(node.arg(1)));
        return;
    }
    if (node.arity() < 1) return;
    auto a = bound(first);
    if (!a) return;
    if (op == "aten.neg.default") return set_outputs(WideRange{-a->max, -a->min});
    if (op == "aten.abs.default") {
        const Wide high = std::max(-a->min, a->max);
        return set_outputs(WideRange{a->min >= 0 ? a->min : (a->max <= 0 ? -a->max : 0), high});
    }
    if (op == "aten.sum.default" || op == "aten.sum.dim_IntList" || op == "aten.cumsum.default") {
        // At most every element of the input is added: count * the largest magnitude.
        const auto* value = graph_.find_value(first.name);
        if (!value || !value->meta.all_static()) return;
        Wide count = 1;
        for (auto s : value->meta.static_sizes()) count *= s;
        if (count > (Wide{1} << 40)) return;
        return set_outputs(WideRange{count * std::min<Wide>(a->min, 0), count * std::max<Wide>(a->max, 0)});
    }
    if (node.arity() < 2) return;
    auto b = bound(node.arg(1));
    if (!b) return;
    if (op == "aten.add.Tensor" || op == "aten.add.Scalar" || op == "aten.sub.Tensor" || op == "aten.sub.Scalar" ||
        op == "aten.rsub.Scalar" || op == "aten.rsub.Tensor") {
        Wide alpha = 1;
        if (const auto* given = node.find_input("alpha")) {
            auto v = int_of(given->arg);
            if (given->arg.kind != ArgKind::None && !v) return;
            if (v) alpha = *v;
        }
        if (alpha < -(Wide{1} << 32) || alpha > (Wide{1} << 32)) return;
        // self + alpha * other, self - alpha * other, other - alpha * self (rsub): the product is
        // an intermediate OpenVINO computes too, so it must fit in 32 bits by itself.
        const bool reversed = op.rfind("aten.rsub.", 0) == 0;
        const WideRange& scaled_operand = reversed ? *a : *b;
        const WideRange& other = reversed ? *b : *a;
        const WideRange scaled = hull({alpha * scaled_operand.min, alpha * scaled_operand.max});
        if (!narrow(scaled) || !lower::openvino_facts::int64_passes_exactly(static_cast<int64_t>(scaled.min)) ||
            !lower::openvino_facts::int64_passes_exactly(static_cast<int64_t>(scaled.max))) {
            return;
        }
        if (reversed || op.rfind("aten.sub.", 0) == 0) {
            return set_outputs(WideRange{other.min - scaled.max, other.max - scaled.min});
        }
        return set_outputs(WideRange{other.min + scaled.min, other.max + scaled.max});
    }
    if (op == "aten.mul.Tensor" || op == "aten.mul.Scalar") {
        return set_outputs(hull({a->min * b->min, a->min * b->max, a->max * b->min, a->max * b->max}));
    }
    if (lower::openvino_facts::rounds_integer_division_wrong(op, DType::Int64)) {
        // Only a non-negative dividend over a positive divisor, where floor and truncation agree:
        // a quotient within [a.min / b.max, a.max / b.min], a remainder within [0, b.max - 1] and
        // never above the dividend. (div with rounding_mode None gives floats: no int64 output.)
        if (a->min < 0 || b->min < 1) return;
        if (op.find("remainder") != std::string::npos || op.find("fmod") != std::string::npos) {
            return set_outputs(WideRange{0, std::min(a->max, b->max - 1)});
        }
        return set_outputs(WideRange{a->min / b->max, a->max / b->min});
    }
    if (op == "aten.maximum.default") return set_outputs(WideRange{std::max(a->min, b->min), std::max(a->max, b->max)});
    if (op == "aten.minimum.default") return set_outputs(WideRange{std::min(a->min, b->min), std::min(a->max, b->max)});
    if (op == "aten.where.self" && node.arity() >= 3) {
        auto c = bound(node.arg(2));
        if (!c) return;
        // arg 0 is the condition; the values come from args 1 and 2.
        return set_outputs(WideRange{std::min(b->min, c->min), std::max(b->max, c->max)});
    }
    if (op == "aten.clamp.default" && node.arity() >= 3) {
        auto lo = int_of(node.arg(1));
        auto hi = int_of(node.arg(2));
        if (!lo || !hi || *lo > *hi) return;
        return set_outputs(WideRange{std::clamp(a->min, *lo, *hi), std::clamp(a->max, *lo, *hi)});
    }
}

bool Int64Ranges::fits_in_32_bits(const graph::Node& node) const {
    bool fits = true;
    std::function<void(const Argument&)> check = [&](const Argument& arg) {
        if (arg.kind == ArgKind::Tensor) {
            const auto* value = graph_.find_value(arg.name);
            if (!value) {
                fits = false;
            } else if (value->meta.dtype == DType::Float64) {
                fits = false;
            } else if (value->meta.dtype == DType::Int64) {
                auto r = of(arg.name);
                fits &= r && lower::openvino_facts::int64_passes_exactly(r->min) &&
                        lower::openvino_facts::int64_passes_exactly(r->max);
            }
        }
        for (const auto& item : arg.items) check(item);
    };
    // copy's self gives only a shape: its values are never read.
    const size_t first_read = node.target == "aten.copy.default" ? 1 : 0;
    for (size_t i = first_read; i < node.inputs.size(); ++i) check(node.inputs[i].arg);
    for (const auto& out : node.outputs) check(out);
    return fits;
}

}  // namespace pt2ov::partition
