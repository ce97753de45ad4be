// Functionalization (functionalize.h): copy_(dst, src). dst's new value is src itself when src
// already has dst's sizes and dtype, else src converted and expanded to them, as PyTorch's
// functionalization and run_decompositions() make it. No functional aten.copy reaches OpenVINO
// (a 0-d one becomes a Broadcast to the empty shape, openvino_facts EmptyShapeBroadcastCrash).
#include "graph/passes/functionalize.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace pt2ov::graph::functionalization {
namespace {

bool same_sizes(const TensorMeta& a, const TensorMeta& b) {
    if (a.rank() != b.rank()) return false;
    for (size_t d = 0; d < a.rank(); ++d) {
        const Dim &x = a.sizes[d], &y = b.sizes[d];
        if (x.is_static() != y.is_static()) return false;
        if (x.is_static() ? *x.value != *y.value : x.expr != y.expr) return false;
    }
    return true;
}

// A node made by the copy_ rewrite: `target(input, extra...)` giving `name` with `meta`.
Node made_node(Graph& graph, const Node& copy, const std::string& name, std::string target,
               std::vector<NamedArgument> inputs, const TensorMeta& meta) {
    Node made;
    made.name = name;
    made.target = std::move(target);
    made.origin = copy.source_name();
    made.origin_target = copy.source_target();
    made.inputs = std::move(inputs);
    made.outputs = {tensor_arg(name)};
    Value value;
    value.name = name;
    value.kind = ValueKind::Tensor;
    value.meta = meta;
    graph.values[name] = value;
    return made;
}

}  // namespace

std::optional<size_t> Functionalizer::rewrite_copy(size_t i, const std::string& self, const std::string& result,
                                                   const ViewChain& chain, std::vector<Node>& scatters) {
    const Node& node = graph_.nodes[i];
    const std::string node_name = node.name;
    const std::string src = schema_arg(node, 1, "src").name;
    const TensorMeta dst_meta = graph_.value(self).meta;
    const TensorMeta src_meta = graph_.value(src).meta;
    // src is used as the new value only when nothing later could tell the two apart: it is not
    // a graph input or a version of another tensor (a version of dst's own root is fine: `b += v`
    // traces as add_ then copy_(b, add_)), and no later in-place op writes it, dst or copy_'s
    // result (which is dst), or a view of one of them; otherwise the new value is a clone of src.
    // (`length.copy_(position[0]); length += n` must advance the buffer, not write the caller's
    // position through the select.)
    const std::string self_root = root_of_.count(self) ? root_of_[self] : self;
    bool src_shared = input_index_.count(src) > 0 || (root_of_.count(src) > 0 && root_of_[src] != self_root);
    auto is_src_or_dst = [&](const std::string& name) { return name == src || name == self || name == result; };
    for (size_t j = i + 1; j < graph_.nodes.size() && !src_shared; ++j) {
        if (!is_in_place(graph_.nodes[j].target)) continue;
        const std::string written = mutated_input(graph_.nodes[j]);
        const std::optional<Node> written_view = view_producing(graph_, written);
        src_shared = is_src_or_dst(written) || (written_view && is_src_or_dst(mutated_input(*written_view)));
    }
    // b[...] += v as PyTorch traces it: the in-place op on the view, then copy_ of its result
    // into the same view of the base it was just scattered into. Nothing is left to write.
    if (chain.view) {
        auto it = scattered_to_.find(src);
        if (it != scattered_to_.end() && !chain.key.empty() && it->second.first == mutated_input(*chain.view) &&
            it->second.second == chain.key) {
            drop_node(i, result, src);
            return i - 1;  // the node now at i is the next one (wraps at 0, as the loop's ++ expects)
        }
    }
    const bool convert = dst_meta.dtype != src_meta.dtype;
    const bool expand = !same_sizes(dst_meta, src_meta);
    if (expand && !dst_meta.all_static()) return std::nullopt;  // aten.copy, as any in-place op
    std::vector<Node> made;
    std::string current = src;
    TensorMeta meta = src_meta;
    if (convert) {
        meta.dtype = dst_meta.dtype;
        made.push_back(made_node(graph_, node, node_name + "_to_copy", "aten._to_copy.default",
                                 {{"self", tensor_arg(current), false}, {"dtype", dtype_arg(dst_meta.dtype), true}}, meta));
        current = made.back().name;
    }
    if (expand) {
        made.push_back(made_node(graph_, node, node_name + "_expand", "aten.expand.default",
                                 {{"self", tensor_arg(current), false}, {"size", ints_arg(dst_meta.static_sizes()), false}},
                                 dst_meta));
        current = made.back().name;
    }
    if (made.empty() && src_shared) {
        made.push_back(made_node(graph_, node, node_name + "_clone", "aten.clone.default", {{"self", tensor_arg(current), false}},
                                 dst_meta));
        current = made.back().name;
    }
    if (chain.view) scatters = scatters_for(chain, current, node_name);
    for (auto& m : made) resolve_node(m, where_);
    const size_t k = made.size();
    graph_.nodes.erase(graph_.nodes.begin() + static_cast<std::ptrdiff_t>(i));
    graph_.nodes.insert(graph_.nodes.begin() + static_cast<std::ptrdiff_t>(i), made.begin(), made.end());
    graph_.values.erase(result);
    reindex_producers(graph_);
    rename_after(i + k, result, current);
    if (scatters.empty()) {
        rename_after(i + k, self, current);
        record_version(current, self);
        return i + k - 1;  // past the nodes made (none made: the node now at i is the next one)
    }
    written_views_.insert(current);
    if (chain.levels.size() == 1) scattered_to_[current] = {scatters.back().name, chain.key};
    rename_after(i + k, self, current);
    insert_scatters(chain, scatters, i + k);
    return i + k + scatters.size() - 1;  // the last scatter node
}

}  // namespace pt2ov::graph::functionalization
