#include "tools/report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace pt2ov::tools {

std::string report_text(const std::vector<PlacementReport>& reports) {
    std::string text;
    for (const auto& report : reports) {
        size_t node_count = 0;
        for (const auto& step : report.steps) node_count += step.nodes.size();
        text += fmt::format("method {}: {} node(s) in {} step(s), support decided by OpenVINO {}\n", report.method,
                            node_count, report.steps.size(), report.openvino_version);
        for (size_t i = 0; i < report.steps.size(); ++i) {
            const auto& step = report.steps[i];
            text += fmt::format("  step {}: {} ({} node(s))\n", i + 1, step.kind, step.nodes.size());
            for (const auto& node : step.nodes) {
                text += fmt::format("    {:<28} {:<44} {}\n", node.name, node.target, node.reason);
            }
        }
        text += fmt::format("  constants: {} tensor(s), {} bytes, {} bytes resident\n", report.constant_count,
                            report.constant_bytes, report.resident_bytes);
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
            steps.push_back({{"kind", step.kind}, {"nodes", nodes}});
        }
        methods[report.method] = {
            {"steps", steps},
            {"constants",
             {{"count", report.constant_count}, {"bytes", report.constant_bytes}, {"resident_bytes", report.resident_bytes}}},
            {"openvino_version", report.openvino_version}};
    }
    return nlohmann::json{{"methods", methods}}.dump(2);
}

}  // namespace pt2ov::tools
