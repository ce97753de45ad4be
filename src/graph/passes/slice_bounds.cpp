// Pass 4 of the rewrites (passes.h): slice bounds beyond the sliced dim, as torch.export writes
// `x[1:]` (end = 2**63 - 1), clamped to what PyTorch clamps them to. The slice is the same
// slice, but its bounds then fit in 32 bits: no 64-bit constant for OpenVINO to cut, so the
// node stays on OpenVINO instead of splitting its step for a sentinel. slice_scatter's bounds
// select a slice of its first argument the same way (`x[:, 1:] = v` after decomposition), so
// they are clamped alike.
#include <limits>

#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace pt2ov::graph {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();

// The largest size the dim can take: its value, or its symbol's exported maximum; -1 unknown.
int64_t largest_size(const Graph& graph, const Dim& dim) {
    if (dim.is_static()) return *dim.value;
    if (dim.symbol.empty()) return -1;
    auto it = graph.ranges.find(dim.symbol);
    return it == graph.ranges.end() ? -1 : it->second.max;
}

// PyTorch takes a bound b of a dim of size n as b + n when negative, then clamps it to
// [0, n]. A bound beyond +-(2**31 - 1) of a dim no larger than that clamps to 0 or n whatever
// its exact value, so it may become the 32-bit bound of the same sign: n when n is static,
// else +-(2**31 - 1), which every size of the dim clamps the same way (OpenVINO's Slice
// clamps as PyTorch does).
bool clamp_bound(Argument& bound, int64_t largest, bool size_is_static) {
    if (bound.kind != Argument::Kind::Int || largest < 0 || largest > kInt32Max) return false;
    if (bound.int_value > kInt32Max) {
        bound.int_value = size_is_static ? largest : kInt32Max;
        return true;
    }
    if (bound.int_value < kInt32Min) {
        bound.int_value = size_is_static ? 0 : kInt32Min;
        return true;
    }
    return false;
}

}  // namespace

void clamp_slice_bounds(Graph& graph, const std::string& where) {
    for (auto& node : graph.nodes) {
        if (!is_one_of(node.op, {op_id("aten.slice.Tensor"), op_id("aten.slice_scatter.default")})) continue;
        const Argument& self = node.arg(0);
        const Argument& dim_arg = node.arg(node.op == op_id("aten.slice.Tensor") ? 1 : 2);
        if (self.kind != Argument::Kind::Tensor || dim_arg.kind != Argument::Kind::Int) continue;
        const auto& meta = graph.value(self.name).meta;
        const int64_t rank = static_cast<int64_t>(meta.rank());
        int64_t dim = dim_arg.int_value < 0 ? dim_arg.int_value + rank : dim_arg.int_value;
        if (dim < 0 || dim >= rank) continue;  // left for the converter or kernel to refuse
        const Dim& size = meta.sizes[dim];
        const int64_t largest = largest_size(graph, size);
        bool changed = false;
        // The bounds as the archive gave them (what OpenVINO's frontend is shown); a bound left
        // at its default (None) needs nothing.
        for (auto& input : node.inputs) {
            if (input.name == "start" || input.name == "end") changed |= clamp_bound(input.arg, largest, size.is_static());
        }
        if (changed) resolve_node(node, where);
    }
}

}  // namespace pt2ov::graph
