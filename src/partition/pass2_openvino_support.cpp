#include "lower/openvino_facts.h"
#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

// Pass 2: what OpenVINO itself could not convert, and what it converts wrongly: a node meeting
// the condition of a converter fault in the facts table (openvino_facts::converter_fault,
// docs/EXACTNESS.md O9) runs on the CPU kernels, with the fact named in its reason; under
// --strict it is refused (pass 4), and without a kernel no engine runs it: an error, never a
// wrong number.
void pass2_openvino_support(const graph::Graph& graph, const std::map<std::string, std::string>& unsupported,
                            const PlacementOptions& options, Plan& plan, const std::vector<Decompression>& decompression) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        auto it = unsupported.find(graph.nodes[i].source_name());
        if (it != unsupported.end()) {
            put_on_cpu(plan, i, "OpenVINO " + options.openvino_version + " cannot convert it: " + it->second);
        } else if (options.compressed_weights && i < decompression.size() && decompression[i] == Decompression::Half) {
            if (plan.where[i] == Where::Cpu) continue;  // the user's list stands
            // --compressed-weights: the plugin's float32 decompression is the user's choice (E9).
            plan.reason[i] = "weight decompression left to OpenVINO " + options.openvino_version +
                             " (--compressed-weights): the integers stay narrow in memory; each weight within half a "
                             "float16 step of eager's (docs/EXACTNESS.md E9)";
        } else if (const auto* fault = lower::openvino_facts::converter_fault(graph.nodes[i], graph)) {
            put_on_cpu(plan, i, "OpenVINO " + std::string(fault->measured_on) + " converts it wrongly: " +
                                    std::string(fault->what) + " (openvino_facts " + std::string(fault->name) + ")");
        }
    }
}

}  // namespace pt2ov::partition
