#include "graph/passes/passes.h"

#include "common/error.h"
#include "graph/decompose/decompose.h"
#include "graph/schema.h"

namespace pt2ov::graph {

// Pass 3: training-IR ops → core ATen, through the decompositions of graph/decompose/ (a
// training-IR op that is one core op spelled another way is a one-node decomposition,
// decompose/core_spellings.cpp).

void lower_training_ops(Graph& graph, const std::string& where) {
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
