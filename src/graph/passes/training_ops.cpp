#include "graph/passes/passes.h"

#include <algorithm>

#include "common/error.h"
#include "graph/decompose/decompose.h"
#include "graph/schema.h"

namespace pt2ov::graph {

// Pass 3: training-IR ops → core ATen, through the decompositions of graph/decompose/ (a
// training-IR op that is one core op spelled another way is a one-node decomposition,
// decompose/core_spellings.cpp).

namespace {

// How many times a value is read: by node arguments (list items too) and as a graph output.
size_t reads_of(const Graph& graph, const std::string& value) {
    size_t reads = 0;
    const auto count = [&](const Argument& arg, const auto& self) -> void {
        if (arg.kind == Argument::Kind::Tensor && arg.name == value) ++reads;
        for (const auto& item : arg.items) self(item, self);
    };
    for (const auto& node : graph.nodes) {
        for (const auto& input : node.inputs) count(input.arg, count);
    }
    for (const auto& output : graph.outputs) count(output, count);
    return reads;
}

// run_decompositions() spells std(x) as sqrt(var(x)); rounded to float32 in between, var of
// values near 1e19 overflows and of values near 1e-30 underflows where std itself is in range,
// so the decomposed program gives inf or 0 for the exported one's value. A sqrt that alone
// reads a var.correction becomes the std.correction the program was exported from (the
// decomposition of graph/decompose/reductions.cpp then takes the root before scaling back).
void fuse_root_of_variance(Graph& graph, const std::string& where) {
    for (auto& node : graph.nodes) {
        if (node.op != op_id("aten.sqrt.default") || node.arity() == 0 || node.arg(0).kind != Argument::Kind::Tensor) continue;
        const std::string& read = node.arg(0).name;
        const auto variance = std::find_if(graph.nodes.begin(), graph.nodes.end(), [&](const Node& candidate) {
            return candidate.outputs.size() == 1 && candidate.outputs[0].kind == Argument::Kind::Tensor &&
                   candidate.outputs[0].name == read;
        });
        if (variance == graph.nodes.end() || variance->op != op_id("aten.var.correction") || reads_of(graph, read) != 1) continue;
        node.origin_target = node.source_target();
        node.target = "aten.std.correction";
        node.inputs = variance->inputs;
        resolve_node(node, where);
    }
}

}  // namespace

void lower_training_ops(Graph& graph, const std::string& where) {
    fuse_root_of_variance(graph, where);
    // Nodes a decomposition makes are visited again (a decomposition may use an op that has a
    // rewrite or a decomposition of its own); the budget stops a decomposition that, wrongly,
    // makes its own target.
    size_t budget = 64 * graph.nodes.size() + 1024;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const auto* decomposition = decompose::find_decomposition(graph.nodes[i].op);
        if (!decomposition) continue;
        if (budget-- == 0) {
            throw InternalError(where + ": decompositions do not terminate at node " + graph.nodes[i].name + " (" +
                                graph.nodes[i].target + ")");
        }
        if (decompose::decompose_node(graph, i, *decomposition, where)) {
            --i;  // the first node made (or, when none was, the next node) is visited next
        }
    }
    reindex_producers(graph);
}

}  // namespace pt2ov::graph
