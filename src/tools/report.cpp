#include "tools/report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace pt2ov::tools {

namespace {

// A CPU step whose every node is computed once at load (what reads constants only): no call runs it.
bool runs_at_load_only(const PlacementReport::Step& step) {
    if (step.kind != "cpu" || step.nodes.empty()) return false;
    for (const auto& node : step.nodes) {
        if (node.reason.find("computed once at load") == std::string::npos) return false;
    }
    return true;
}

}  // namespace

std::string report_text(const std::vector<PlacementReport>& reports) {
    std::string text;
    for (const auto& report : reports) {
        size_t node_count = 0;
        for (const auto& step : report.steps) node_count += step.nodes.size();
        text += fmt::format("method {}: {} node(s) in {} step(s), support decided by OpenVINO {}\n", report.method,
                            node_count, report.steps.size(), report.openvino_version);
        for (size_t i = 0; i < report.steps.size(); ++i) {
            const auto& step = report.steps[i];
            text += fmt::format("  step {}: {}{}{} ({} node(s))\n", i + 1, step.kind,
                                runs_at_load_only(step) ? ", computed once at load" : "",
                                step.own_thread ? ", inferred by OpenVINO's own thread" : "", step.nodes.size());
            for (const auto& node : step.nodes) {
                text += fmt::format("    {:<28} {:<44} {}\n", node.name, node.target, node.reason);
            }
        }
        for (const auto& state : report.state) {
            std::string shape = "(";
            for (size_t d = 0; d < state.shape.size(); ++d) shape += (d ? ", " : "") + std::to_string(state.shape[d]);
            shape += state.shape.size() == 1 ? ",)" : ")";
            text += fmt::format("  state {}: {} {}, updated on {}{}{}; {}\n", state.name, dtype_name(state.dtype), shape,
                                state.update, state.step ? fmt::format(" (step {})", state.step) : "",
                                state.node.empty() ? "" : " by " + state.node, state.carried);
        }
        text += fmt::format("  constants: {} tensor(s), {} bytes, {} bytes resident\n", report.constant_count,
                            report.constant_bytes, report.resident_bytes);
        text += fmt::format("  CPU kernels: {}\n", report.cpu_isa);
        if (const auto& m = report.measurement; m.measured) {
            text += fmt::format("  placement timed at load{}: the placement rules' plan {:.1f} us per call, all on the CPU "
                                "kernels {:.1f} us ({} calls each); kept: {}\n",
                                m.from_cache ? " (read from the cache)" : "", m.openvino_us, m.cpu_us, m.calls,
                                m.chosen == "cpu" ? "the CPU kernels" : "the placement rules' plan");
        }
        if (const auto& v = report.verification; v.verified) {
            text += fmt::format("  verified at load{}: {} OpenVINO step(s) run beside the CPU kernels, {} moved to them "
                                "({:.0f} ms)\n",
                                v.from_cache ? " (read from the cache)" : "", v.steps_checked, v.steps_moved, v.ms);
            for (const auto& finding : v.findings) text += "    " + finding + "\n";
        }
    }
    return text;
}

std::string report_json(const std::vector<PlacementReport>& reports) {
    nlohmann::json methods = nlohmann::json::object();
    for (const auto& report : reports) {
        nlohmann::json steps = nlohmann::json::array();
        for (const auto& step : report.steps) {
            nlohmann::json nodes = nlohmann::json::array();
            for (const auto& node : step.nodes) {
                nodes.push_back({{"name", node.name}, {"target", node.target}, {"reason", node.reason}});
            }
            steps.push_back({{"kind", step.kind}, {"at_load", runs_at_load_only(step)}, {"own_thread", step.own_thread}, {"nodes", nodes}});
        }
        nlohmann::json state = nlohmann::json::array();
        for (const auto& buffer : report.state) {
            state.push_back({{"name", buffer.name},
                             {"dtype", std::string(dtype_name(buffer.dtype))},
                             {"shape", buffer.shape},
                             {"update", buffer.update},
                             {"step", buffer.step},
                             {"node", buffer.node},
                             {"carried", buffer.carried},
                             {"split_into", buffer.split_into}});
        }
        methods[report.method] = {
            {"steps", steps},
            {"state", state},
            {"constants",
             {{"count", report.constant_count}, {"bytes", report.constant_bytes}, {"resident_bytes", report.resident_bytes}}},
            {"openvino_version", report.openvino_version},
            {"cpu_isa", report.cpu_isa}};
        if (const auto& m = report.measurement; m.measured) {
            methods[report.method]["measurement"] = {{"chosen", m.chosen},
                                                     {"openvino_us", m.openvino_us},
                                                     {"cpu_us", m.cpu_us},
                                                     {"calls", m.calls},
                                                     {"from_cache", m.from_cache}};
        }
        if (const auto& v = report.verification; v.verified) {
            methods[report.method]["verification"] = {{"steps_checked", v.steps_checked},
                                                      {"steps_moved", v.steps_moved},
                                                      {"ms", v.ms},
                                                      {"from_cache", v.from_cache},
                                                      {"findings", v.findings}};
        }
    }
    return nlohmann::json{{"methods", methods}}.dump(2);
}

}  // namespace pt2ov::tools
