#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

// Pass 7: what each step reads from outside and hands on.
void pass7_step_edges(const graph::Graph& graph, const ValueSources& sources, Plan& plan) {
    std::map<std::string, size_t> step_of_value;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        for (int index : plan.steps[s].nodes) {
            for_each_written(graph.nodes[index], [&](const std::string& name) { step_of_value[name] = s; });
        }
    }
    std::vector<std::set<std::string>> handed_on(plan.steps.size());
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        auto& step = plan.steps[s];
        std::set<std::string> seen;
        for (int index : step.nodes) {
            for_each_read(graph.nodes[index], [&](const std::string& name) {
                auto producer = step_of_value.find(name);
                const bool outside = producer == step_of_value.end() ? !sources.constants.count(name) : producer->second != s;
                if (!outside || !seen.insert(name).second) return;
                step.inputs.push_back(name);
                if (producer != step_of_value.end()) handed_on[producer->second].insert(name);
            });
        }
    }
    for (const auto& out : graph.outputs) {
        for_each_value(out, [&](const std::string& name) {
            auto producer = step_of_value.find(name);
            if (producer != step_of_value.end()) handed_on[producer->second].insert(name);
        });
    }
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        // In the order the step produces them, for stable model outputs.
        for (int index : plan.steps[s].nodes) {
            for_each_written(graph.nodes[index], [&](const std::string& name) {
                if (handed_on[s].count(name)) plan.steps[s].outputs.push_back(name);
            });
        }
    }
}

}  // namespace pt2ov::partition
