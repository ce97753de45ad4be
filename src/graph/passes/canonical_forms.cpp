#include "graph/passes/canonical_forms.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "graph/schema.h"

namespace pt2ov::graph {

namespace {

using Kind = Argument::Kind;

bool same_dim(const Dim& a, const Dim& b) {
    if (a.is_static() || b.is_static()) return a.value == b.value;
    return !a.expr.empty() && a.expr == b.expr;
}

// The node's first input and only output are tensors of the same dtype and sizes.
bool keeps_sizes(const Graph& graph, const Node& node) {
    if (node.arity() == 0 || node.outputs.size() != 1) return false;
    const Argument& self = node.arg(0);
    const Argument& out = node.outputs[0];
    if (self.kind != Kind::Tensor || out.kind != Kind::Tensor) return false;
    const TensorMeta& in = graph.value(self.name).meta;
    const TensorMeta& result = graph.value(out.name).meta;
    if (in.dtype != result.dtype || in.rank() != result.rank()) return false;
    for (size_t d = 0; d < in.rank(); ++d) {
        if (!same_dim(in.sizes[d], result.sizes[d])) return false;
    }
    return true;
}

// Every int of an int-list argument (or a single int) equals `value`; an empty list counts
// when `empty_means_value` (avg_pool's stride=[] means the kernel size).
bool all_ints_are(const Argument& arg, int64_t value, bool empty_means_value) {
    if (arg.kind == Kind::Int) return arg.int_value == value;
    if (arg.kind != Kind::List) return false;
    if (arg.items.empty()) return empty_means_value;
    return std::all_of(arg.items.begin(), arg.items.end(), [&](const Argument& item) { return item.kind == Kind::Int && item.int_value == value; });
}

// avg_pool1d/2d/3d with a kernel of one element, stride 1 and no padding is its input: each
// output is one element divided by 1. OpenVINO 2026.4.1's CPU plugin computed such an AvgPool
// wrongly when its output had two readers, one an expand into a pad (own NNSmith seed 146168:
// the pad's values 0.42 off on random normal inputs; through OpenVINO alone too), so it is
// made a clone before conversion.
bool unit_average_pool(const Node& node) {
    if (!is_one_of(node.op, {op_id("aten.avg_pool1d.default"), op_id("aten.avg_pool2d.default"), op_id("aten.avg_pool3d.default")})) {
        return false;
    }
    const NamedArgument* kernel = node.find_input("kernel_size");
    const NamedArgument* stride = node.find_input("stride");
    const NamedArgument* padding = node.find_input("padding");
    const NamedArgument* divisor = node.find_input("divisor_override");
    if (!kernel || !all_ints_are(kernel->arg, 1, false)) return false;
    if (stride && !all_ints_are(stride->arg, 1, true)) return false;
    if (padding && !all_ints_are(padding->arg, 0, true)) return false;
    return !divisor || divisor->arg.kind == Kind::None || (divisor->arg.kind == Kind::Int && divisor->arg.int_value == 1);
}

// The copy an identity node becomes: alias for a view op, clone for an op making a new tensor.
const char* identity_copy(const Graph& graph, const Node& node) {
    if (unit_average_pool(node) && keeps_sizes(graph, node)) return "aten.clone.default";
    const bool view = is_one_of(node.op, {op_id("aten.expand.default"), op_id("aten.squeeze.dims")});
    const bool copy = is_one_of(node.op, {op_id("aten.expand_copy.default"), op_id("aten.repeat.default"),
                                          op_id("aten.tile.default"), op_id("aten.squeeze_copy.dims")});
    if (!view && !copy) return nullptr;
    if (!keeps_sizes(graph, node)) return nullptr;
    if (node.op == op_id("aten.repeat.default")) {
        // Same sizes and rank: every repeat is 1 and none adds a dim.
        const Argument& repeats = node.arg(1);
        if (repeats.kind != Kind::List || repeats.items.size() != graph.value(node.arg(0).name).meta.rank()) return nullptr;
    }
    return view ? "aten.alias.default" : "aten.clone.default";
}

bool spells_default_correction(const Node& node) {
    if (!is_one_of(node.op, {op_id("aten.var.correction"), op_id("aten.var_mean.correction"), op_id("aten.std.correction"),
                             op_id("aten.std_mean.correction")})) {
        return false;
    }
    const NamedArgument* correction = node.find_input("correction");
    return !correction || correction->arg.kind == Kind::None;
}

// linalg_vector_norm over dim=None (every dim): OpenVINO's converter fails on it, so the dims
// are spelled out, which is the same norm.
bool norm_over_every_dim(const Graph& graph, const Node& node) {
    return node.op == op_id("aten.linalg_vector_norm.default") && node.arity() >= 3 && node.arg(0).kind == Kind::Tensor &&
           node.arg(2).kind == Kind::None && graph.value(node.arg(0).name).meta.rank() > 0;
}

// squeeze.dims listing dims whose size is not 1 (a no-op for those dims): OpenVINO's frontend
// died (SIGSEGV in FrontEnd::normalize) on squeeze.dims(x, [0, 1, 2, 3]) of a [1, 1, 4, 6] x
// before an index_put (random programs, own seed 53255). Listing only the dims of size 1 is the
// same squeeze. Returns the dims to keep, or nothing when the node is not such a squeeze.
std::optional<std::vector<int64_t>> squeezable_dims(const Graph& graph, const Node& node) {
    if (node.op != op_id("aten.squeeze.dims") || node.arity() < 2 || node.arg(0).kind != Kind::Tensor) return std::nullopt;
    const NamedArgument* dims = node.find_input("dim");
    if (!dims || dims->arg.kind != Kind::List) return std::nullopt;
    const TensorMeta& meta = graph.value(node.arg(0).name).meta;
    const auto rank = static_cast<int64_t>(meta.rank());
    std::vector<int64_t> kept;
    bool dropped = false;
    for (const auto& item : dims->arg.items) {
        if (item.kind != Kind::Int) return std::nullopt;
        const int64_t d = item.int_value < 0 ? item.int_value + rank : item.int_value;
        if (d < 0 || d >= rank) return std::nullopt;
        const Dim& size = meta.sizes[static_cast<size_t>(d)];
        if (size.is_static() && *size.value != 1) {
            dropped = true;
            continue;
        }
        kept.push_back(item.int_value);
    }
    // With none left the node keeps its sizes, and identity_copy makes it an alias.
    if (!dropped || kept.empty()) return std::nullopt;
    return kept;
}

}  // namespace

bool is_identity_node(const Graph& graph, const Node& node) { return identity_copy(graph, node) != nullptr; }

void canonicalize(Graph& graph, const std::string& where) {
    for (auto& node : graph.nodes) {
        if (const char* copy = identity_copy(graph, node)) {
            const Argument self = node.arg(0);
            node.origin_target = node.source_target();
            node.target = copy;
            node.inputs = {{"self", self, false}};
            resolve_node(node, where);
        } else if (auto kept = squeezable_dims(graph, node)) {
            for (auto& input : node.inputs) {
                if (input.name == "dim") input.arg = ints_arg(*kept);
            }
            resolve_node(node, where);
        } else if (node.op == op_id("aten.item.default")) {
            // item is the training IR's spelling of _local_scalar_dense: the value of a
            // one-element tensor as a number read at run time (a data-dependent step).
            node.origin_target = node.source_target();
            node.target = "aten._local_scalar_dense.default";
            resolve_node(node, where);
        } else if (spells_default_correction(node)) {
            std::erase_if(node.inputs, [](const NamedArgument& input) { return input.name == "correction"; });
            node.inputs.push_back({"correction", int_arg(1), true});
            resolve_node(node, where);
        } else if (norm_over_every_dim(graph, node)) {
            std::vector<int64_t> dims(graph.value(node.arg(0).name).meta.rank());
            for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int64_t>(d);
            std::vector<NamedArgument> inputs = {{"self", node.arg(0), false}, {"ord", node.arg(1), false},
                                                 {"dim", ints_arg(dims), false}, {"keepdim", node.arg(3), false}};
            for (const auto& input : node.inputs) {
                if (input.keyword && input.name == "dtype") inputs.push_back(input);
            }
            node.origin_target = node.source_target();
            node.inputs = std::move(inputs);
            resolve_node(node, where);
        }
    }
}

}  // namespace pt2ov::graph
