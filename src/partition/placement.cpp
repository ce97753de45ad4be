// partition::place: the placement passes in the order they run, each in a file of its own
// (partition/passN_*.cpp, declared in passes.h), and whole_method, the plan of a method
// OpenVINO takes whole.
#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

bool op_matches(const std::string& op, const std::string& target) {
    if (op == target) return true;
    // "aten.atan" names every overload: "aten.atan.default", "aten.atan.out", ...
    return target.size() > op.size() && target.compare(0, op.size(), op) == 0 && target[op.size()] == '.' &&
           target.find('.', op.size() + 1) == std::string::npos;
}

Plan whole_method(const graph::Graph& graph, const ValueSources& sources, const std::set<std::string>& left_out) {
    Plan plan;
    plan.where.assign(graph.nodes.size(), Where::OpenVINO);
    plan.reason.assign(graph.nodes.size(), "");
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (left_out.count(graph.nodes[i].source_name())) plan.where[i] = Where::Cpu;
    }
    pass5_group_into_steps(graph, sources, plan);
    pass7_step_edges(graph, sources, plan);
    return plan;
}

Plan place(const graph::Graph& graph, const std::map<std::string, std::string>& unsupported, const ValueSources& sources,
           const PlacementOptions& options) {
    Plan plan;
    plan.where.assign(graph.nodes.size(), Where::OpenVINO);
    plan.reason.assign(graph.nodes.size(), "converted by OpenVINO " + options.openvino_version);
    pass1_user_lists(graph, options, plan);
    const std::vector<Decompression> decompression = weight_decompression(graph, sources);
    pass2_openvino_support(graph, unsupported, options, plan, decompression);
    pass3_exact_wide_integers(graph, sources, options, plan);
    pass3b_all_on_cpu(graph, options, plan);
    pass3c_computed_once_at_load(graph, sources, options, decompression, plan);
    pass4_kernels_exist(graph, options, plan);
    pass5_group_into_steps(graph, sources, plan);
    pass6_small_steps_to_cpu(graph, options, plan);
    pass7_step_edges(graph, sources, plan);
    return plan;
}

}  // namespace pt2ov::partition
