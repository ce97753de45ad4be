#include "compile/compile.h"

#include <chrono>

#include "compile/stages.h"
#include "graph/graph.h"

namespace pt2ov::compile {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
}  // namespace

PreparedMethod prepare(const std::string& path, const LoadOptions& options) {
    const auto start = Clock::now();
    PreparedMethod method = read(path, options.method);
    check(method);
    rewrite(method);
    bind_signature(method);
    graph::number_values(method.graph);  // last: the rewrites made their values
    method.archive_ms = ms_since(start);
    return method;
}

PlannedMethod plan(const PreparedMethod& method, const LoadOptions& options) {
    const auto start = Clock::now();
    PlannedMethod planned;
    const partition::PlacementOptions placement_options{options.cpu_ops, options.cpu_nodes, options.strict,
                                                        lower::openvino_runtime_version()};
    Support support = learn_support(method);
    Placement placement = place_and_convert(method, support, placement_options);
    planned.plan = std::move(placement.plan);
    for (auto& [s, conversion] : placement.conversions) {
        planned.openvino_steps[s] = take_out_aliases(conversion.model, planned.plan.steps[s]);
    }
    planned.convert_ms = ms_since(start);
    planned.report = report(method, planned.plan, planned.openvino_steps);
    return planned;
}

}  // namespace pt2ov::compile
