#include <algorithm>
#include <queue>

#include "common/error.h"
#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

// Pass 5: a topological order that stays on one kind of step as long as it can, cut into
// steps where the kind changes. Steps are contiguous runs of a topological order, so no
// dependency cycle can pass through the CPU; staying on one kind makes OpenVINO steps maximal
// where independent CPU nodes would otherwise cut them. A node on OpenVINO that reads constants
// only (and what other such nodes make), and whose readers all run on OpenVINO (what pass 3c
// leaves there: a weight's transpose or view before the op that reads it) joins the step
// of its first reader rather than the first OpenVINO step: there the frontend folds it into the
// reader's Constant, where a later step would read it as a Parameter at every call (and an op
// that needs Constant weights, a mixture of experts' GroupedMatMul, would not compile).
void pass5_group_into_steps(const graph::Graph& graph, const ValueSources& sources, Plan& plan) {
    const size_t count = graph.nodes.size();
    std::vector<std::vector<size_t>> users(count);
    std::vector<std::set<size_t>> producers(count);
    for (size_t i = 0; i < count; ++i) {
        for_each_read(graph.nodes[i], [&](const std::string& name) {
            const auto* value = graph.find_value(name);
            if (value && value->producer >= 0 && static_cast<size_t>(value->producer) != i) producers[i].insert(value->producer);
        });
        for (auto p : producers[i]) users[p].push_back(i);
    }
    const auto at_load = [&](size_t i) { return i < plan.at_load.size() && plan.at_load[i]; };
    std::vector<bool> follows_reader(count, false);
    std::set<std::string> constant(sources.constants.begin(), sources.constants.end());
    for (size_t i = 0; i < count; ++i) {  // producers come first in the archive's order
        const auto& node = graph.nodes[i];
        follows_reader[i] = plan.where[i] == Where::OpenVINO && !at_load(i) && !users[i].empty() && reads_only(node, constant) &&
                            std::all_of(users[i].begin(), users[i].end(), [&](size_t u) { return plan.where[u] == Where::OpenVINO; });
        if (follows_reader[i]) for_each_written(node, [&](const std::string& name) { constant.insert(name); });
    }
    std::vector<size_t> pending(count, 0);
    for (size_t i = 0; i < count; ++i) {
        for (auto p : producers[i]) pending[i] += follows_reader[p] ? 0 : 1;
    }
    using Ready = std::priority_queue<size_t, std::vector<size_t>, std::greater<>>;
    // 0: OpenVINO, 1: CPU, 2: CPU at load (pass 3c), all taken first: they read constants only,
    // and so make one CPU step that runs at load instead of cutting OpenVINO steps.
    Ready ready[3];
    auto kind_of = [&](size_t i) { return plan.where[i] == Where::OpenVINO ? 0 : at_load(i) ? 2 : 1; };
    for (size_t i = 0; i < count; ++i) {
        if (!pending[i] && !follows_reader[i]) ready[kind_of(i)].push(i);
    }
    plan.steps.clear();
    std::vector<bool> placed(count, false);
    size_t emitted = 0;
    // A reader's producers that follow it, theirs first, into the reader's (OpenVINO) step.
    std::function<void(size_t)> place_followers = [&](size_t reader) {
        for (auto p : producers[reader]) {
            if (!follows_reader[p] || placed[p]) continue;
            place_followers(p);
            placed[p] = true;
            plan.steps.back().nodes.push_back(static_cast<int>(p));
            ++emitted;
        }
    };
    int current = -1;
    while (emitted < count) {
        int kind = current;
        int queue = current;
        if (!ready[2].empty()) {
            kind = 1;
            queue = 2;
        } else if (kind < 0 || ready[kind].empty()) {
            if (ready[0].empty() && ready[1].empty()) {
                throw InternalError("placement: " + std::to_string(count - emitted) + " nodes were never ready to run");
            }
            kind = queue = ready[0].empty() ? 1 : ready[1].empty() ? 0 : (ready[0].top() < ready[1].top() ? 0 : 1);
        }
        if (kind != current) {
            plan.steps.push_back(Step{kind == 0 ? Where::OpenVINO : Where::Cpu, {}, {}, {}});
            current = kind;
        }
        const size_t node = ready[queue].top();
        ready[queue].pop();
        if (kind == 0) place_followers(node);
        placed[node] = true;
        plan.steps.back().nodes.push_back(static_cast<int>(node));
        ++emitted;
        for (auto user : users[node]) {
            if (--pending[user] == 0 && !follows_reader[user]) ready[kind_of(user)].push(user);
        }
    }
}

}  // namespace pt2ov::partition
