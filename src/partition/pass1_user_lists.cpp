#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

// Pass 1: the user's lists always win over "OpenVINO supports it".
void pass1_user_lists(const graph::Graph& graph, const PlacementOptions& options, Plan& plan) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const auto& node = graph.nodes[i];
        for (const auto& op : options.cpu_ops) {
            if (op_matches(op, node.source_target()) || op_matches(op, node.target)) {
                put_on_cpu(plan, i, "kept off OpenVINO by --cpu-op " + op);
            }
        }
        for (const auto& name : options.cpu_nodes) {
            if (name == node.source_name()) put_on_cpu(plan, i, "kept off OpenVINO by --cpu-node " + name);
        }
        if (auto failed = options.verify_failures.find(node.source_name()); failed != options.verify_failures.end()) {
            put_on_cpu(plan, i, "verified at load: " + failed->second);
        }
        if (auto failed = options.compile_failures.find(node.source_name()); failed != options.compile_failures.end()) {
            put_on_cpu(plan, i, "OpenVINO " + options.openvino_version + " could not compile the step that held it (" +
                                    failed->second + ")");
        }
    }
}

}  // namespace pt2ov::partition
