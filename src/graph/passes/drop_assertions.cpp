#include "graph/passes/passes.h"

namespace pt2ov::graph {

using Kind = Argument::Kind;

// Pass 1 (passes.h): nodes with no outputs. Their only effect is a runtime check torch.export inserted
// (_assert_scalar, sym_constrain_range_for_size, ...); the engine checks inputs itself.

void drop_assertions(Graph& graph) {
    std::erase_if(graph.nodes, [](const Node& node) {
        for (const auto& out : node.outputs) {
            if (out.kind != Kind::None) return false;
        }
        return true;
    });
    reindex_producers(graph);
}

}  // namespace pt2ov::graph
