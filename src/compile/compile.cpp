#include "compile/compile.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "common/error.h"
#include "compile/stages.h"
#include "graph/from_json.h"
#include "graph/graph.h"
#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/registry.h"
#include "lower/openvino_facts.h"
#include "partition/plan.h"

namespace pt2ov::compile {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A --cpu-op that names nothing pt2ov knows is a typo, which would otherwise be ignored in
// silence. Known: an op of the schema table or with a CPU kernel (an overload, or its name
// without one), or the target of a node of this program (custom ops have no schema). A known
// op the program simply does not call is fine.
void check_cpu_ops(const PreparedMethod& method, const std::vector<std::string>& cpu_ops) {
    for (const std::string& op : cpu_ops) {
        bool known = graph::find_schema(op) || kernels::find_kernel(op);
        for (const std::string& target : graph::schema_targets()) known = known || partition::op_matches(op, target);
        for (const std::string& target : kernels::registered_ops()) known = known || partition::op_matches(op, target);
        for (const graph::Node& node : method.graph.nodes) {
            known = known || partition::op_matches(op, node.target) || partition::op_matches(op, node.source_target());
        }
        if (!known) {
            throw OptionError("--cpu-op " + op + ": no such operator (not in PyTorch's op table, no CPU kernel, no node of " +
                        method.where + " calls it); name it as inspect prints targets, e.g. aten.atan.default or aten.atan");
        }
    }
}

// The archive's nodes against their kernels' shape contracts (kernels/contracts.h): metadata
// that contradict the program are the archive's, refused before anything runs.
void check_shape_contracts(const PreparedMethod& method) {
    for (const graph::Node& node : method.graph.nodes) kernels::check_shape_contract(node, method.graph, method.where);
}

// The tensor values a node reads and writes, by name (list items included).
std::vector<std::string> tensor_values_of(const graph::Node& node) {
    std::vector<std::string> names;
    const auto add = [&](const graph::Argument& arg) {
        if (arg.kind == graph::Argument::Kind::Tensor) names.push_back(arg.name);
        for (const auto& item : arg.items) {
            if (item.kind == graph::Argument::Kind::Tensor) names.push_back(item.name);
        }
    };
    for (const auto& input : node.inputs) add(input.arg);
    for (const auto& out : node.outputs) add(out);
    return names;
}

// The read checked that the stored nodes run in order; the rewrites must keep that true, as
// placement and the executor walk the nodes in this order; and the nodes they made must meet
// their contracts as the archive's do. A failure here is our bug, but for a node that reads and
// writes only values the archive recorded (a rewrite that respells an archive node whose own
// op has no contract, such as max_pool2d as max_pool2d_with_indices): its values' metadata are
// the archive's, which then contradict each other, and the error is the archive's.
void check_rewrites(const PreparedMethod& method, const std::set<std::string>& archive_values) {
    try {
        graph::check_values_defined_before_use(method.graph);
    } catch (const ArchiveError& e) {
        throw InternalError(method.where + ": after pt2ov's rewrites: " + e.what());
    }
    for (const graph::Node& node : method.graph.nodes) {
        if (node.origin.empty() && node.origin_target.empty()) continue;
        try {
            kernels::check_shape_contract(node, method.graph, method.where);
        } catch (const ArchiveError& e) {
            const auto values = tensor_values_of(node);
            const bool archives_own = std::all_of(values.begin(), values.end(),
                                                  [&](const std::string& name) { return archive_values.count(name) > 0; });
            if (!archives_own) throw InternalError(method.where + ": after pt2ov's rewrites: " + e.what());
            throw;
        }
    }
}

}  // namespace

PreparedMethod prepare(const std::string& path, const Settings& settings) {
    const auto start = Clock::now();
    const LoadOptions& options = settings.given;
    PreparedMethod method = read(path, options.method);
    check(method);
    check_shape_contracts(method);
    std::set<std::string> archive_values;
    for (const auto& [name, value] : method.graph.values) archive_values.insert(name);
    rewrite(method);
    check_rewrites(method, archive_values);
    // On a CPU whose int8 products saturate (openvino_facts Int8ProductsSaturateWithoutVnni), no
    // FakeQuantize may select the plugin's int8 kernels: the reference arithmetic instead.
    if (options.quantized_reference || (settings.cpu_device && lower::openvino_facts::int8_products_saturate())) {
        method.graph.fake_quantizations.clear();
    }
    bind_signature(method);
    check_cpu_ops(method, options.cpu_ops);
    method.int64_input_limit = options.int64_input_limit;
    if (!options.appending_positions.empty()) method.appending_positions_input = appending_positions_input(method, options.appending_positions);
    method.compressed_weights = options.compressed_weights;
    graph::number_values(method.graph);  // last: the rewrites made their values
    method.archive_ms = ms_since(start);
    return method;
}

PlannedMethod plan(const PreparedMethod& method, const Settings& settings,
                   const std::map<std::string, std::string>& compile_failures, const std::string& all_on_cpu_reason,
                   const std::map<std::string, std::string>& verify_failures) {
    const auto start = Clock::now();
    const LoadOptions& options = settings.given;
    PlannedMethod planned;
    partition::PlacementOptions placement_options{options.cpu_ops, options.cpu_nodes, options.strict,
                                                  lower::openvino_runtime_version(), compile_failures,
                                                  verify_failures, all_on_cpu_reason, options.compressed_weights};
    Support support = learn_support(method);
    Placement placement = place_and_convert(method, support, placement_options);
    planned.plan = std::move(placement.plan);
    for (auto& [s, conversion] : placement.conversions) {
        planned.openvino_steps[s] = take_out_aliases(conversion.model, planned.plan.steps[s]);
    }
    if (options.openvino_state) {
        keep_state_in_openvino(method, planned.plan, planned.openvino_steps);
        if (method.appending_positions_input >= 0) append_to_caches(method, planned.openvino_steps);
    }
    planned.convert_ms = ms_since(start);
    planned.report = report(method, planned.plan, planned.openvino_steps);
    return planned;
}

}  // namespace pt2ov::compile
