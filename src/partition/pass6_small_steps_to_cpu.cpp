#include <algorithm>

#include "kernels/registry.h"
#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

// Elements a node reads and writes, or -1 when a shape is not static.
int64_t touched_elements(const graph::Graph& graph, const graph::Node& node) {
    int64_t total = 0;
    auto add = [&](const std::string& name) {
        const auto* value = graph.find_value(name);
        if (!value || value->kind != graph::ValueKind::Tensor || total < 0) return;
        if (!value->meta.all_static()) {
            total = -1;
            return;
        }
        int64_t count = 1;
        for (auto s : value->meta.static_sizes()) count *= s;
        total += count;
    };
    for_each_read(node, add);
    for_each_written(node, add);
    return total;
}

// Pass 6: an OpenVINO call costs about 10 us even for a few elements (measured on 2026.4.1,
// 2 cores: sin-relu-mul-cos on 16 floats takes 10 us on OpenVINO, 4 us on the CPU kernels; a
// relu forced to the CPU between them doubles the OpenVINO cost to 21 us). So, where the
// method already has CPU steps, an OpenVINO step that does little runs on the CPU too:
//  - a step that only computes shapes (symbolic ints);
//  - a step of at most kSmallStepNodes nodes touching at most kSmallStepElements elements in
//    all (inputs and outputs of every node, static shapes only; at 4096 floats per tensor the
//    two sides cost about the same: 33 us on OpenVINO, 26 us on the CPU);
//  - a step whose nodes only reshape, view or cast (any size, dynamic shapes included): on the
//    CPU such a node costs at most a copy, and the step between two CPU steps costs two
//    crossings (a mixture of experts' routing: its top-k's outputs reshaped and cast on
//    OpenVINO between the top-k and the sort, both on the CPU).
// A method OpenVINO takes whole stays on OpenVINO here; Program::load may time a small one
// both ways and keep the faster (compile/planner.h).
namespace {
constexpr size_t kSmallStepNodes = 8;
constexpr int64_t kSmallStepElements = 16384;

}  // namespace

void pass6_small_steps_to_cpu(const graph::Graph& graph, const PlacementOptions& options, Plan& plan) {
    if (options.strict) return;
    // Nodes computed once at load (pass 3c) cost no call anything.
    const auto at_call = [&](int i) { return static_cast<size_t>(i) >= plan.at_load.size() || !plan.at_load[i]; };
    const bool has_cpu_steps = std::any_of(plan.steps.begin(), plan.steps.end(), [&](const Step& s) {
        return s.where == Where::Cpu && std::any_of(s.nodes.begin(), s.nodes.end(), at_call);
    });
    if (!has_cpu_steps) return;
    for (auto& step : plan.steps) {
        if (step.where != Where::OpenVINO) continue;
        bool shapes_only = true, all_have_kernels = true, moves_only = true;
        int64_t elements = 0;
        for (int index : step.nodes) {
            const auto& node = graph.nodes[index];
            for_each_written(node, [&](const std::string& name) {
                const auto* value = graph.find_value(name);
                shapes_only &= value && value->kind != graph::ValueKind::Tensor;
            });
            all_have_kernels &= kernels::find_kernel(node.op) != nullptr;
            moves_only &= reshapes_views_or_casts(node.op);
            const int64_t touched = touched_elements(graph, node);
            elements = touched < 0 || elements < 0 ? -1 : elements + touched;
        }
        if (!all_have_kernels) continue;
        std::string reason;
        if (shapes_only) {
            reason = "shape arithmetic only: cheaper on the CPU than an OpenVINO call";
        } else if (moves_only) {
            reason = "reshapes, views or casts only, between CPU steps: cheaper on the CPU than an OpenVINO call";
        } else if (step.nodes.size() <= kSmallStepNodes && elements >= 0 && elements <= kSmallStepElements) {
            reason = "a small step (" + std::to_string(step.nodes.size()) + " nodes, " + std::to_string(elements) +
                     " elements) between CPU steps: cheaper on the CPU than an OpenVINO call";
        } else {
            continue;
        }
        step.where = Where::Cpu;
        for (int index : step.nodes) {
            plan.where[index] = Where::Cpu;
            plan.reason[index] = reason;
        }
    }
    // Neighbouring CPU steps become one.
    std::vector<Step> merged;
    for (auto& step : plan.steps) {
        if (!merged.empty() && merged.back().where == step.where) {
            merged.back().nodes.insert(merged.back().nodes.end(), step.nodes.begin(), step.nodes.end());
        } else {
            merged.push_back(std::move(step));
        }
    }
    plan.steps = std::move(merged);
}

}  // namespace pt2ov::partition
