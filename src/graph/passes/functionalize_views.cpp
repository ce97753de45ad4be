// Functionalization (functionalize.h): the view chain an in-place op writes through, and the
// scatters that write a view's new value back into its base, as PyTorch's functionalization
// does.
#include <set>

#include "common/error.h"
#include "graph/passes/functionalize.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace pt2ov::graph::functionalization {
namespace {

using Kind = Argument::Kind;

// Ops whose result shares memory with their input: an in-place op on their result writes
// into the input, which a functional rewrite would lose.
bool is_view_op(const std::string& target) {
    static const std::set<std::string> views = {
        "view", "_unsafe_view", "reshape", "slice", "select", "permute", "transpose", "t", "expand",
        "unsqueeze", "squeeze", "alias", "detach", "diagonal", "as_strided", "narrow", "unfold",
        "split", "split_with_sizes", "chunk", "unbind", "flatten", "view_as", "expand_as", "movedim",
        "swapaxes", "real", "imag", "unflatten"};
    return views.count(op_name(target)) > 0;
}

// x.to(dtype), x.to(device, dtype) or x.type_as(y) that changes neither dtype nor layout returns
// x itself in PyTorch, not a copy (unless copy=True): an in-place op on its result writes x.
// transformers' static cache advances its length buffer this way (`cumulative_length.to(...)`,
// then `+=`). A memory format other than preserve may copy and is not taken as x.
bool is_conversion_to_self(const Graph& graph, const Node& node) {
    const bool conversion = is_one_of(node.op, {op_id("aten.to.dtype"), op_id("aten.to.dtype_layout"),
                                                op_id("aten.to.device"), op_id("aten.type_as.default")});
    if (!conversion || !node.schema || node.outputs.size() != 1) return false;
    const Value* input = graph.find_value(mutated_input(node));
    const Value* output = graph.find_value(node.outputs[0].name);
    if (!input || !output || input->meta.dtype != output->meta.dtype) return false;
    for (size_t a = 0; a < node.schema->arguments.size() && a < node.arity(); ++a) {
        const std::string& name = node.schema->arguments[a].name;
        const Argument& arg = node.arg(a);
        if (name == "copy" && arg.kind == Kind::Bool && arg.bool_value) return false;
        if (name == "memory_format" && arg.kind != Kind::None && arg.int_value != 4) return false;  // 4: preserve
        if (name == "layout" && arg.kind != Kind::None && arg.int_value != 7) return false;         // 7: strided
    }
    return true;
}

// A view by what it selects: target and integer arguments ("" when not all are integers).
std::string view_key(const Node& view) {
    std::string key = view.target;
    for (size_t a = 1; a < view.arity(); ++a) {
        const Argument& arg = view.arg(a);
        if (arg.kind == Kind::Int) {
            key += "," + std::to_string(arg.int_value);
        } else if (arg.kind == Kind::None) {
            key += ",None";
        } else {
            return std::string();
        }
    }
    return key;
}

// The node that writes a view's new value back into its base, as PyTorch's functionalization
// does: select_scatter for a select, slice_scatter for a slice or narrow, a view back to the
// base's sizes for a view, the new view itself for an alias. Null for other views.
std::optional<Node> scatter_back(const Node& view, const std::string& base, const TensorMeta& base_meta,
                                 const std::string& new_view, const std::string& name) {
    Node scatter;
    scatter.name = name;
    scatter.origin = view.source_name();
    if (view.op == op_id("aten.select.int")) {
        scatter.target = "aten.select_scatter.default";
        scatter.inputs = {{"self", tensor_arg(base), false},
                          {"src", tensor_arg(new_view), false},
                          {"dim", schema_arg(view, 1, "dim"), false},
                          {"index", schema_arg(view, 2, "index"), false}};
    } else if (view.op == op_id("aten.slice.Tensor")) {
        scatter.target = "aten.slice_scatter.default";
        scatter.inputs = {{"self", tensor_arg(base), false},
                          {"src", tensor_arg(new_view), false},
                          {"dim", schema_arg(view, 1, "dim"), false},
                          {"start", schema_arg(view, 2, "start"), false},
                          {"end", schema_arg(view, 3, "end"), false},
                          {"step", schema_arg(view, 4, "step"), false}};
    } else if (view.op == op_id("aten.narrow.default") && schema_arg(view, 1, "dim").kind == Kind::Int &&
               schema_arg(view, 2, "start").kind == Kind::Int && schema_arg(view, 3, "length").kind == Kind::Int &&
               base_meta.all_static()) {
        // narrow(dim, start, length) is slice(dim, start, start + length)
        int64_t dim = schema_arg(view, 1, "dim").int_value;
        if (dim < 0) dim += static_cast<int64_t>(base_meta.rank());
        int64_t start = schema_arg(view, 2, "start").int_value;
        if (start < 0) start += base_meta.static_sizes().at(static_cast<size_t>(dim));
        scatter.target = "aten.slice_scatter.default";
        scatter.inputs = {{"self", tensor_arg(base), false},
                          {"src", tensor_arg(new_view), false},
                          {"dim", int_arg(dim), false},
                          {"start", int_arg(start), false},
                          {"end", int_arg(start + schema_arg(view, 3, "length").int_value), false},
                          {"step", int_arg(1), false}};
    } else if (is_one_of(view.op, {op_id("aten.alias.default"), op_id("aten.detach.default")})) {
        // the same elements in the same layout: the new base is the new view itself
        scatter.target = "aten.alias.default";
        scatter.inputs = {{"self", tensor_arg(new_view), false}};
    } else if (is_one_of(view.op, {op_id("aten.view.default"), op_id("aten._unsafe_view.default")}) &&
               base_meta.all_static()) {
        // a view with the base's own elements: the new base is the new view, viewed back
        scatter.target = "aten.view.default";
        scatter.inputs = {{"self", tensor_arg(new_view), false}, {"size", ints_arg(base_meta.static_sizes()), false}};
    } else {
        return std::nullopt;
    }
    scatter.origin_target = scatter.target;
    scatter.outputs = {tensor_arg(name)};
    return scatter;
}

}  // namespace

// The node that made `value` when its result shares memory with its input, as an in-place op
// sees it: a view op as it is, a conversion to self as the alias it is. Empty otherwise.
std::optional<Node> view_producing(const Graph& graph, const std::string& value) {
    const Value* v = graph.find_value(value);
    if (!v || v->producer < 0) return std::nullopt;
    const Node& producer = graph.nodes[static_cast<size_t>(v->producer)];
    if (is_view_op(producer.target)) return producer;
    if (!is_conversion_to_self(graph, producer)) return std::nullopt;
    Node alias = producer;
    alias.target = "aten.alias.default";
    alias.op = op_id("aten.alias.default");
    alias.inputs = {{"self", tensor_arg(mutated_input(producer)), false}};
    alias.schema = nullptr;  // read by position only: its one input
    alias.resolved_inputs = {tensor_arg(mutated_input(producer))};
    return alias;
}

std::vector<std::string> ViewChain::bases() const {
    std::vector<std::string> names;
    for (const Node& v : levels) names.push_back(mutated_input(v));
    return names;
}

ViewChain view_chain_of(const Graph& graph, const std::string& written) {
    ViewChain chain;
    chain.view = view_producing(graph, written);
    if (!chain.view) return chain;
    chain.key = view_key(*chain.view);
    for (std::optional<Node> v = chain.view; v && chain.levels.size() < 8; v = view_producing(graph, mutated_input(*v))) {
        chain.levels.push_back(*v);
    }
    chain.base = mutated_input(chain.levels.back());
    return chain;
}

std::vector<Node> Functionalizer::scatters_for(const ViewChain& chain, const std::string& new_view,
                                               const std::string& node_name) const {
    std::vector<Node> made;
    std::string value = new_view;
    for (size_t level = 0; level < chain.levels.size(); ++level) {
        const std::string of = mutated_input(chain.levels[level]);
        std::string name = node_name + "_scatter";
        if (level > 0) {
            name += '_';
            name += std::to_string(level);
        }
        auto back = scatter_back(chain.levels[level], of, graph_.value(of).meta, value, name);
        if (!back) return std::vector<Node>{};
        value = back->name;
        made.push_back(std::move(*back));
    }
    return made;
}

void Functionalizer::insert_scatters(const ViewChain& chain, std::vector<Node>& scatters, size_t at) {
    for (size_t level = 0; level < scatters.size(); ++level) {
        Value value = graph_.value(mutated_input(chain.levels[level]));
        value.name = scatters[level].name;
        graph_.values[value.name] = value;
        resolve_node(scatters[level], where_);
    }
    const std::vector<std::string> bases = chain.bases();
    graph_.nodes.insert(graph_.nodes.begin() + static_cast<std::ptrdiff_t>(at), scatters.begin(), scatters.end());
    reindex_producers(graph_);
    for (size_t level = 0; level < scatters.size(); ++level) {
        rename_after(at + scatters.size(), bases[level], scatters[level].name);
        if (level + 1 < scatters.size()) new_values_of_views_.insert(scatters[level].name);
    }
    record_version(scatters.back().name, bases.back());
}

}  // namespace pt2ov::graph::functionalization
