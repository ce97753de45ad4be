#include "kernels/registry.h"
#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

// Pass 3b: the whole method on the CPU kernels, when asked (Program::load times a small
// program both ways and keeps the faster: compile/planner.h). A node without a kernel
// stays where it was.
void pass3b_all_on_cpu(const graph::Graph& graph, const PlacementOptions& options, Plan& plan) {
    if (options.all_on_cpu_reason.empty()) return;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (plan.where[i] == Where::OpenVINO && kernels::find_kernel(graph.nodes[i].op)) {
            put_on_cpu(plan, i, options.all_on_cpu_reason);
        }
    }
}

}  // namespace pt2ov::partition
