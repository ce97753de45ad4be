#include "partition/int64_ranges.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <string_view>
#include <vector>

#include "lower/openvino_facts.h"
#include "partition/placement_detail.h"

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
// its first list argument): reshapes, views, copies and casts, picks and joins.
bool moves_values(graph::OpId op) {
    using graph::op_id;
    static constexpr graph::OpId kPicksAndJoins[] = {
        op_id("aten.index_select.default"), op_id("aten.gather.default"), op_id("aten.index.Tensor"),
        op_id("aten.cat.default"), op_id("aten.stack.default"), op_id("aten.repeat.default"),
        op_id("aten.flip.default"), op_id("aten.roll.default"), op_id("aten.unbind.int"),
        op_id("aten.split.Tensor"), op_id("aten.split_with_sizes.default"), op_id("aten.chunk.default"),
        op_id("aten.narrow.default"), op_id("aten.diagonal.default"), op_id("aten.tile.default"),
        op_id("aten.unfold.default"), op_id("aten.movedim.int")};
    return detail::reshapes_views_or_casts(op) ||
           std::find(std::begin(kPicksAndJoins), std::end(kPicksAndJoins), op) != std::end(kPicksAndJoins);
}

std::optional<Wide> int_of(const Argument& arg) {
    if (arg.kind == ArgKind::Int) return arg.int_value;
    if (arg.kind == ArgKind::Bool) return arg.bool_value ? 1 : 0;
    return std::nullopt;
}

// The largest value of a size torch.export recorded as a sympy expression (srepr): an Integer, a
// Symbol within its range, or a Mul or Add of such terms (all of them sizes, never negative).
// Null for anything else, or beyond 2^62.
std::optional<Wide> largest_size(std::string_view expr, const std::map<std::string, graph::SymbolRange>& ranges) {
    constexpr Wide kCap = Wide{1} << 62;
    const auto inside = [&](std::string_view head) -> std::optional<std::string_view> {
        if (expr.substr(0, head.size()) != head || expr.back() != ')') return std::nullopt;
        return expr.substr(head.size(), expr.size() - head.size() - 1);
    };
    if (auto body = inside("Integer(")) {
        Wide n = 0;
        if (body->empty()) return std::nullopt;
        for (char c : *body) {
            if (c < '0' || c > '9') return std::nullopt;
            n = n * 10 + (c - '0');
            if (n > kCap) return std::nullopt;
        }
        return n;
    }
    if (auto body = inside("Symbol('")) {
        const size_t quote = body->find('\'');
        if (quote == std::string_view::npos) return std::nullopt;
        const auto it = ranges.find(std::string(body->substr(0, quote)));
        if (it == ranges.end() || it->second.min < 0 || it->second.max > kCap) return std::nullopt;
        return it->second.max;
    }
    const bool product = expr.substr(0, 4) == "Mul(";
    const bool sum = expr.substr(0, 4) == "Add(";
    if (!product && !sum) return std::nullopt;
    const auto body = inside(product ? "Mul(" : "Add(");
    if (!body) return std::nullopt;
    Wide total = product ? 1 : 0;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= body->size(); ++i) {
        const char c = i < body->size() ? (*body)[i] : ',';
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c != ',' || depth != 0) continue;
        std::string_view term = body->substr(start, i - start);
        while (!term.empty() && term.front() == ' ') term.remove_prefix(1);
        start = i + 1;
        if (term.find('(') == std::string_view::npos) continue;  // a keyword of a Symbol, not a term
        const auto part = largest_size(term, ranges);
        if (!part) return std::nullopt;
        total = product ? total * *part : total + *part;
        if (total > kCap) return std::nullopt;
    }
    return total;
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

// An integer argument's bound: a number, or a symbolic int that is static, a bare symbol (a
// dynamic size) within the range torch.export guarantees, or a product or sum of sizes (2 * s11,
// a mixture of experts' count of routed tokens: between 0 and its largest value).
std::optional<Int64Range> Int64Ranges::integer_bound(const Argument& arg) const {
    if (auto n = int_of(arg)) return narrow(WideRange{*n, *n});
    if (arg.kind != ArgKind::SymInt) return std::nullopt;
    const auto* value = graph_.find_value(arg.name);
    if (!value || value->kind != graph::ValueKind::SymInt) return std::nullopt;
    if (value->sym.is_static()) return Int64Range{*value->sym.value, *value->sym.value};
    if (value->sym.symbol.empty()) {
        const auto largest = largest_size(value->sym.expr, graph_.ranges);
        if (!largest) return std::nullopt;
        return narrow(WideRange{0, *largest});
    }
    auto it = graph_.ranges.find(value->sym.symbol);
    if (it == graph_.ranges.end()) return std::nullopt;
    return Int64Range{it->second.min, it->second.max};
}

std::optional<Int64Range> Int64Ranges::bound(const Argument& arg) const {
    if (auto r = integer_bound(arg)) return r;
    if (arg.kind != ArgKind::Tensor) return std::nullopt;
    const auto* value = graph_.find_value(arg.name);
    if (!value) return std::nullopt;
    // A narrow integer holds no value beyond its dtype's (a quantized int8 weight minus an int64
    // zero point stays exact in 32 bits).
    switch (value->meta.dtype) {
        case DType::Bool: return Int64Range{0, 1};
        case DType::Int8: return Int64Range{-128, 127};
        case DType::UInt8: return Int64Range{0, 255};
        case DType::Int16: return Int64Range{-32768, 32767};
        case DType::UInt16: return Int64Range{0, 65535};
        default: break;
    }
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
    using graph::is_one_of;
    using graph::op_family;
    using graph::op_id;
    const graph::OpId op = node.op;
    const Argument& first = node.arg(0);

    if (moves_values(op)) {
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
    // Ops that make values from their arguments.
    switch (op) {
        case op_id("aten.arange.default"):
        case op_id("aten.arange.start"):
        case op_id("aten.arange.start_step"): {
            // arange(end) / arange(start, end) / arange(start, end, step): integer arguments, or
            // symbolic ones within the range torch.export guarantees (arange(x.size(1))).
            std::optional<WideRange> start = WideRange{0, 0}, end;
            std::optional<Wide> step = Wide{1};
            if (op == op_id("aten.arange.default")) {
                end = integer_range(node.arg(0));
            } else {
                start = integer_range(node.arg(0));
                end = integer_range(node.arg(1));
                if (op == op_id("aten.arange.start_step")) step = int_of(node.arg(2));
            }
            if (!start || !end || !step || *step == 0) return;
            // every value lies between start and end
            return set_outputs(hull({start->min, start->max, end->min, end->max}));
        }
        case op_id("aten.full.default"):
        case op_id("aten.full_like.default"):
            if (auto v = int_of(node.arg(1))) set_outputs(WideRange{*v, *v});
            return;
        case op_id("aten.scalar_tensor.default"):
            if (auto v = int_of(node.arg(0))) set_outputs(WideRange{*v, *v});
            return;
        case op_id("aten.zeros.default"):
        case op_id("aten.zeros_like.default"):
        // empty's values are unspecified; pt2ov makes them zeros on both engines (the CPU kernel
        // fills zeros, the OpenVINO decoder spells empty_like as zeros_like: lower/decoder.cpp).
        case op_id("aten.empty.memory_format"):
        case op_id("aten.empty_like.default"): return set_outputs(WideRange{0, 0});
        case op_id("aten.ones.default"):
        case op_id("aten.ones_like.default"): return set_outputs(WideRange{1, 1});
        case op_id("aten.copy.default"):
            // copy(self, src) has self's shape and dtype and src's values (a KV cache's length
            // counter set from cache_position each call).
            if (node.arity() >= 2) set_outputs(bound(node.arg(1)));
            return;
        default: break;
    }
    // The indices an ordering or a selection returns lie within the dim it looked along: [0, its
    // size - 1] (a mixture of experts' routing sorts its expert ids and gathers tokens by them).
    const auto index_output = [&]() -> int {
        if (is_one_of(op, {op_id("aten.topk.default"), op_id("aten.sort.default"), op_id("aten.sort.stable"),
                           op_id("aten.max.dim"), op_id("aten.min.dim"), op_id("aten.kthvalue.default"),
                           op_id("aten.mode.default")})) {
            return 1;
        }
        if (is_one_of(op, {op_id("aten.argsort.default"), op_id("aten.argsort.stable")})) return 0;
        return -1;
    }();
    if (index_output >= 0 && first.kind == ArgKind::Tensor && static_cast<size_t>(index_output) < node.outputs.size()) {
        const auto* input = graph_.find_value(first.name);
        const Argument& indices = node.outputs[static_cast<size_t>(index_output)];
        if (!input || !is_int64_tensor(indices)) return;
        const auto* given = node.find_input("dim");
        int64_t dim = op == op_id("aten.max.dim") || op == op_id("aten.min.dim") ? 0 : -1;
        if (given) {
            auto v = int_of(given->arg);
            if (!v) return;
            dim = static_cast<int64_t>(*v);
        }
        const auto rank = static_cast<int64_t>(input->meta.rank());
        if (rank == 0) {
            ranges_[indices.name] = Int64Range{0, 0};
            return;
        }
        if (dim < 0) dim += rank;
        if (dim < 0 || dim >= rank) return;
        const auto& size = input->meta.sizes[static_cast<size_t>(dim)];
        const std::optional<Wide> largest =
            size.is_static() ? std::optional<Wide>(*size.value) : largest_size(size.expr, graph_.ranges);
        if (!largest || *largest < 1) return;
        if (auto narrowed = narrow(WideRange{0, *largest - 1})) ranges_[indices.name] = *narrowed;
        return;
    }
    auto a = bound(first);
    if (!a) return;
    // Ops of one operand.
    switch (op) {
        case op_id("aten.neg.default"): return set_outputs(WideRange{-a->max, -a->min});
        case op_id("aten.abs.default"): {
            const Wide high = std::max(-a->min, a->max);
            return set_outputs(WideRange{a->min >= 0 ? a->min : (a->max <= 0 ? -a->max : 0), high});
        }
        case op_id("aten.sum.default"):
        case op_id("aten.sum.dim_IntList"):
        case op_id("aten.cumsum.default"): {
            // At most every element of the input is added: count * the largest magnitude.
            const auto* value = graph_.find_value(first.name);
            if (!value || !value->meta.all_static()) return;
            Wide count = 1;
            for (auto s : value->meta.static_sizes()) count *= s;
            if (count > (Wide{1} << 40)) return;
            return set_outputs(WideRange{count * std::min<Wide>(a->min, 0), count * std::max<Wide>(a->max, 0)});
        }
        default: break;
    }
    if (op == op_id("aten.index_put.default") || op == op_id("aten.index_put_.default")) {
        // index_put(self, indices, values): self's values where nothing is put, values' where
        // something is (a mixture of experts' inverse permutation: arange put into
        // empty_like at the sorted positions). Accumulated, they add: not followed.
        if (node.arity() < 3) return;
        if (const auto* accumulate = node.find_input("accumulate");
            accumulate && accumulate->arg.kind != ArgKind::None) {
            const auto flag = int_of(accumulate->arg);
            if (!flag || *flag != 0) return;
        }
        auto c = bound(node.arg(2));
        if (!c) return;
        return set_outputs(WideRange{std::min(a->min, c->min), std::max(a->max, c->max)});
    }
    if (node.arity() < 2) return;
    auto b = bound(node.arg(1));
    if (!b) return;
    // Ops of two operands (and where's three).
    switch (op) {
        case op_id("aten.add.Tensor"):
        case op_id("aten.add.Scalar"):
        case op_id("aten.sub.Tensor"):
        case op_id("aten.sub.Scalar"):
        case op_id("aten.rsub.Scalar"):
        case op_id("aten.rsub.Tensor"): {
            Wide alpha = 1;
            if (const auto* given = node.find_input("alpha")) {
                auto v = int_of(given->arg);
                if (given->arg.kind != ArgKind::None && !v) return;
                if (v) alpha = *v;
            }
            if (alpha < -(Wide{1} << 32) || alpha > (Wide{1} << 32)) return;
            // self + alpha * other, self - alpha * other, other - alpha * self (rsub): the product
            // is an intermediate OpenVINO computes too, so it must fit in 32 bits by itself.
            const bool reversed = op_family("aten.rsub").contains(op);
            const WideRange& scaled_operand = reversed ? *a : *b;
            const WideRange& other = reversed ? *b : *a;
            const WideRange scaled = hull({alpha * scaled_operand.min, alpha * scaled_operand.max});
            if (!narrow(scaled) || !lower::openvino_facts::int64_passes_exactly(static_cast<int64_t>(scaled.min)) ||
                !lower::openvino_facts::int64_passes_exactly(static_cast<int64_t>(scaled.max))) {
                return;
            }
            if (reversed || op_family("aten.sub").contains(op)) {
                return set_outputs(WideRange{other.min - scaled.max, other.max - scaled.min});
            }
            return set_outputs(WideRange{other.min + scaled.min, other.max + scaled.max});
        }
        case op_id("aten.mul.Tensor"):
        case op_id("aten.mul.Scalar"):
            return set_outputs(hull({a->min * b->min, a->min * b->max, a->max * b->min, a->max * b->max}));
        case op_id("aten.maximum.default"):
            return set_outputs(WideRange{std::max(a->min, b->min), std::max(a->max, b->max)});
        case op_id("aten.minimum.default"):
            return set_outputs(WideRange{std::min(a->min, b->min), std::min(a->max, b->max)});
        case op_id("aten.where.self"): {
            if (node.arity() < 3) return;
            auto c = bound(node.arg(2));
            if (!c) return;
            // arg 0 is the condition; the values come from args 1 and 2.
            return set_outputs(WideRange{std::min(b->min, c->min), std::max(b->max, c->max)});
        }
        case op_id("aten.clamp.default"): {
            if (node.arity() < 3) return;
            auto lo = int_of(node.arg(1));
            auto hi = int_of(node.arg(2));
            if (!lo || !hi || *lo > *hi) return;
            return set_outputs(WideRange{std::clamp(a->min, *lo, *hi), std::clamp(a->max, *lo, *hi)});
        }
        default: break;
    }
    if (lower::openvino_facts::rounds_integer_division_wrong(op, DType::Int64)) {
        // Only a non-negative dividend over a positive divisor, where floor and truncation agree:
        // a quotient within [a.min / b.max, a.max / b.min], a remainder within [0, b.max - 1] and
        // never above the dividend. (div with rounding_mode None gives floats: no int64 output.)
        if (a->min < 0 || b->min < 1) return;
        if (op_family("aten.remainder").contains(op) || op_family("aten.fmod").contains(op)) {
            return set_outputs(WideRange{0, std::min(a->max, b->max - 1)});
        }
        return set_outputs(WideRange{a->min / b->max, a->max / b->min});
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
    const size_t first_read = node.op == graph::op_id("aten.copy.default") ? 1 : 0;
    for (size_t i = first_read; i < node.inputs.size(); ++i) check(node.inputs[i].arg);
    for (const auto& out : node.outputs) check(out);
    return fits;
}

}  // namespace pt2ov::partition
