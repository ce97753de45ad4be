#include "kernels/registry.h"
#include "lower/openvino_facts.h"
#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

// Pass 3c: a node that reads constants only (parameters, buffers the program never mutates,
// lifted constants, and what other such nodes make) and has a CPU kernel is computed once, at
// load, by the CPU kernels, exactly as eager computes it; the OpenVINO steps that read what it
// made get it as a Constant (runtime/executor_openvino.cpp). On OpenVINO it would be computed
// again at every call, by the plugin's arithmetic (NNCF's weight decompression, a weight's
// unpacking, a table of positions). Except the nodes at the end of such a chain that OpenVINO
// converts to moves alone (a weight's transpose before its matmul, a reshape): they stay in the
// OpenVINO step that reads them, which folds them into its Constant without a copy of ours.
void pass3c_computed_once_at_load(const graph::Graph& graph, const ValueSources& sources, const PlacementOptions& options,
                                  const std::vector<Decompression>& decompression, Plan& plan) {
    if (options.strict) return;
    const size_t count = graph.nodes.size();
    std::set<std::string> known(sources.constants.begin(), sources.constants.end());
    std::vector<bool> constant(count, false);
    // A weight's decompression stays on OpenVINO in float32, and in float16 under --compressed-weights.
    const auto stays = [&](size_t i) {
        return decompression[i] == Decompression::Float32 ||
               (decompression[i] == Decompression::Half && options.compressed_weights);
    };
    std::vector<std::vector<size_t>> users(count);
    for (size_t i = 0; i < count; ++i) {
        for_each_read(graph.nodes[i], [&](const std::string& name) {
            const auto* value = graph.find_value(name);
            if (value && value->producer >= 0 && static_cast<size_t>(value->producer) != i) users[value->producer].push_back(i);
        });
    }
    // What only a decompression that stays reads stays with it: the integers of a float32 one (a
    // weight minus its zero points), which the lowering hands to the plugin as a narrow integer
    // Constant (lower/low_precision.h), and the scales' views. A float16 one's integers are
    // computed at load: unpacked, they enter OpenVINO as 4-bit Constants where they fit.
    std::vector<bool> feeds_decompression(count, false);
    for (size_t i = count; i-- > 0;) {
        const auto& node = graph.nodes[i];
        bool floats = !node.outputs.empty();
        for_each_written(node, [&](const std::string& name) {
            const auto* value = graph.find_value(name);
            floats = floats && value && value->kind == graph::ValueKind::Tensor && dtype_is_floating(value->meta.dtype);
        });
        feeds_decompression[i] = decompression[i] == Decompression::None && !users[i].empty() &&
                                 std::all_of(users[i].begin(), users[i].end(), [&](size_t u) {
                                     return decompression[u] == Decompression::Float32 || feeds_decompression[u] ||
                                            (floats && stays(u));
                                 });
    }
    for (size_t i = 0; i < count; ++i) {  // nodes are in an order that runs
        const auto& node = graph.nodes[i];
        if (node.outputs.empty() || !kernels::find_kernel(node.op) || stays(i) || feeds_decompression[i]) continue;
        if (!reads_only(node, known)) continue;
        constant[i] = true;
        for_each_written(node, [&](const std::string& name) { known.insert(name); });
    }
    // A view of one value (a concatenation makes a new tensor, which is better made once). Only
    // where OpenVINO runs it: a node an earlier pass put on the CPU kernels (a converter fault:
    // NNCF's int8 `q - 8` saturates on the plugin) would run there at every call instead.
    std::vector<bool> moves_at_end(count, false);
    for (size_t i = count; i-- > 0;) {
        const auto& name = graph.nodes[i].source_name();
        if (!constant[i] || plan.where[i] != Where::OpenVINO ||
            !(sources.moving_nodes.count(name) || sources.passthrough_nodes.count(name))) {
            continue;
        }
        std::set<std::string> read;
        for_each_read(graph.nodes[i], [&](const std::string& value) { read.insert(value); });
        if (read.size() != 1) continue;
        moves_at_end[i] = std::all_of(users[i].begin(), users[i].end(), [&](size_t u) { return !constant[u] || moves_at_end[u]; });
    }
    plan.at_load.assign(count, false);
    for (size_t i = 0; i < count; ++i) {
        if (constant[i] && !moves_at_end[i] && plan.where[i] == Where::OpenVINO) {
            put_on_cpu(plan, i, "computed once at load by pt2ov's CPU kernels (it reads constants only); OpenVINO steps read "
                                "the value as a Constant");
        }
        plan.at_load[i] = constant[i] && plan.where[i] == Where::Cpu;
    }
}

}  // namespace pt2ov::partition
