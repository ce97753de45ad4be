#include "common/error.h"
#include "kernels/registry.h"
#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

// Pass 4: every node kept off OpenVINO needs a kernel; strict mode allows none.
void pass4_kernels_exist(const graph::Graph& graph, const PlacementOptions& options, Plan& plan) {
    std::string missing, refused;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (plan.where[i] != Where::Cpu) continue;
        const auto& node = graph.nodes[i];
        const std::string line = std::string(refused.empty() && missing.empty() ? " " : "; ") + node.source_name() + " (" + node.source_target() + "): " + plan.reason[i];
        if (options.strict) {
            refused += line;
        } else if (!kernels::find_kernel(node.op)) {
            missing += line + ", and pt2ov has no CPU kernel for " + node.target;
        }
    }
    if (!refused.empty()) {
        throw UnsupportedError("--strict: these nodes cannot run on OpenVINO, or not exactly:" + refused +
                               ". Drop --strict to run them on pt2ov's CPU kernels.");
    }
    if (!missing.empty()) {
        // Decomposing again cannot help a program that already is decomposed (graph::Graph::dialect).
        const std::string advice = graph.is_decomposed()
                                       ? ". The program is already decomposed (ep.run_decompositions()), so decomposing "
                                         "again cannot help: write the model without these ops."
                                       : ". Saving the program after ep.run_decompositions() may turn them into ops that run.";
        throw UnsupportedError("no engine can run these nodes:" + missing + advice);
    }
}

}  // namespace pt2ov::partition
