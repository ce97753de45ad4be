// The passes, in the order they run, as one table (passes.h).
#include "graph/passes/passes.h"

#include "common/error.h"
#include "graph/passes/canonical_forms.h"
#include "graph/schema.h"

namespace pt2ov::graph {

const std::vector<Pass>& passes() {
    static const std::vector<Pass> table = {
        {"inline scoping regions", inline_scoping_regions},
        {"fold error checks", fold_error_checks},
        {"drop assertions", [](Graph& graph, const std::string&) { drop_assertions(graph); }},
        {"functionalize in-place ops", functionalize_in_place_ops},
        {"record fake quantizations", [](Graph& graph, const std::string&) { record_fake_quantizations(graph); }},
        {"lower training ops", lower_training_ops},
        {"clamp slice bounds", clamp_slice_bounds},
        {"canonical forms", canonicalize},
        {"split stacked buffers", split_stacked_buffers},
    };
    return table;
}

namespace {

// Rules and kernels go by a node's op id: a pass that changes a target resolves the node again
// (resolve_node), or every later decision would be about the op it had.
void check_op_ids(const Graph& graph, const Pass& pass) {
    for (const Node& node : graph.nodes) {
        if (node.op != find_op_id(node.target)) {
            throw InternalError("pass '" + std::string(pass.name) + "' changed node " + node.name + " to " + node.target +
                                " without resolving it again (its op id is still " +
                                std::string(node.op == OpId::Unknown ? "unknown" : op_target(node.op)) + ")");
        }
    }
}

}  // namespace

void prepare_for_lowering(Graph& graph, const std::string& where) {
    for (const Pass& pass : passes()) {
        pass.run(graph, where);
        check_op_ids(graph, pass);
    }
}

// The resolved argument at `position`, checked to be the schema's `name` there, so a rewrite
// reading the wrong position fails at once instead of rewriting wrongly. Defaults are filled
// in: no argument is ever absent.
const Argument& schema_arg(const Node& node, size_t position, std::string_view name) {
    if (!node.schema || position >= node.schema->arguments.size() || node.schema->arguments[position].name != name) {
        throw InternalError("a rewrite reads argument '" + std::string(name) + "' of node " + node.name + " (" +
                    node.target + ") at position " + std::to_string(position) + ", which " +
                    (node.schema ? "is not where the schema " + node.schema->text + " has it" : "has no schema"));
    }
    return node.arg(position);
}

void reindex_producers(Graph& graph) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        for (const auto& out : graph.nodes[i].outputs) {
            if (auto* value = graph.find_value(out.name)) value->producer = static_cast<int>(i);
            for (const auto& item : out.items) {
                if (auto* value = graph.find_value(item.name)) value->producer = static_cast<int>(i);
            }
        }
    }
}

}  // namespace pt2ov::graph
