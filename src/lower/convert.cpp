#include "lower/convert.h"
#include "lower/constant_precompute.h"
#include "lower/low_precision.h"
#include "lower/grouped_attention.h"
#include "lower/plugin_workarounds.h"

#include <mutex>
#include <set>

#include "common/error.h"
#include "lower/decoder.h"
#include "openvino/core/version.hpp"
#include "openvino/frontend/manager.hpp"
#include "openvino/op/util/framework_node.hpp"

namespace pt2ov::lower {

namespace {

ov::frontend::FrontEnd::Ptr pytorch_frontend() {
    static std::mutex mutex;
    static ov::frontend::FrontEnd::Ptr frontend;
    std::lock_guard lock(mutex);
    if (!frontend) {
        frontend = with_context("loading OpenVINO's PyTorch frontend (is libopenvino_pytorch_frontend installed "
                                "beside libopenvino?)",
                                [] { return ov::frontend::FrontEndManager().load_by_framework("pytorch"); });
    }
    return frontend;
}

std::string attribute_or(const ov::op::util::FrameworkNodeAttrs& attrs, const std::string& key,
                         const std::string& fallback) {
    auto it = attrs.find(key);
    return it == attrs.end() || it->second.empty() ? fallback : it->second;
}

// Framework nodes left in the model, traced back to IR nodes through the tag our decoder sets.
std::vector<UnconvertedNode> find_unconverted(const ov::Model& model, const graph::Graph& graph) {
    std::vector<UnconvertedNode> found;
    std::set<std::string> seen;
    for (const auto& op : model.get_ordered_ops()) {
        auto framework_node = ov::as_type_ptr<ov::op::util::FrameworkNode>(op);
        if (!framework_node) continue;
        const auto& rt_info = op->get_rt_info();
        auto tag = rt_info.find(kSourceNodeKey);
        std::string node_name = tag == rt_info.end() ? op->get_friendly_name() : tag->second.as<std::string>();
        if (!seen.insert(node_name).second) continue;
        const auto& attrs = framework_node->get_attrs();
        std::string target = attribute_or(attrs, "PtTypeName", op->get_friendly_name());
        for (const auto& node : graph.nodes) {
            if (node.name == node_name) target = node.source_target();
        }
        found.push_back({node_name, target, attribute_or(attrs, "PtException", "OpenVINO has no converter for it")});
    }
    return found;
}

}  // namespace

Conversion convert_subgraph(const graph::Graph& graph, const Subgraph& subgraph, const ConstantMap& constants,
                            std::shared_ptr<const void> memory_owner) {
    auto context = std::make_shared<DecoderContext>();
    context->graph = &graph;
    context->constants = &constants;
    context->memory_owner = std::move(memory_owner);
    std::shared_ptr<ov::frontend::IDecoder> decoder = make_subgraph_decoder(context, subgraph);

    auto frontend = pytorch_frontend();
    Conversion conversion;
    conversion.model = with_context("OpenVINO's PyTorch frontend failed", [&] {
        auto input_model = frontend->load(ov::Any(decoder));
        auto model = frontend->convert_partially(input_model);
        frontend->normalize(model);
        lower_to_low_precision(*model, graph, context->ids, subgraph, constants);
        work_around_plugin_faults(*model);
        attend_grouped_queries_by_broadcast(*model);
        precompute_constant_ops(*model);
        fold_half_constant_arithmetic(*model, subgraph.keep_weight_decompression);
        return model;
    });
    conversion.unconverted = find_unconverted(*conversion.model, graph);
    for (const auto& op : conversion.model->get_ordered_ops()) {
        const auto& rt_info = op->get_rt_info();
        if (auto tag = rt_info.find(kSourceNodeKey); tag != rt_info.end()) {
            const auto node = tag->second.as<std::string>();
            conversion.nodes_with_ops.insert(node);
            conversion.op_types_by_node[node].insert(op->get_type_name());
        }
    }
    return conversion;
}

std::string openvino_runtime_version() {
    // The build number reads "2026.4.1-22982-e213a147257-releases/2026/4": the release is its
    // first part.
    const auto& version = ov::get_openvino_version();
    const std::string build = version.buildNumber ? version.buildNumber : "unknown";
    return build.substr(0, build.find('-'));
}

}  // namespace pt2ov::lower
