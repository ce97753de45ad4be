#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

std::vector<Decompression> weight_decompression(const graph::Graph& graph, const ValueSources& sources) {
    using graph::op_id;
    const size_t count = graph.nodes.size();
    std::vector<Decompression> found(count, Decompression::None);
    std::set<std::string> known(sources.constants.begin(), sources.constants.end());
    std::set<std::string> decompressed;
    const auto is_half = [](DType d) { return d == DType::Float16 || d == DType::BFloat16; };
    // A weight's integers: 8-bit or narrower values of constants only, and what subtracting
    // integer zero points, converting between integer types and reshaping make of them.
    std::set<std::string> weight_integers;
    const auto integer_tensor = [&](const std::string& name) {
        const auto* value = graph.find_value(name);
        return value && value->kind == graph::ValueKind::Tensor && !dtype_is_floating(value->meta.dtype) &&
               value->meta.dtype != DType::Bool;
    };
    for (const auto& name : sources.constants) {
        const auto* value = graph.find_value(name);
        if (value && value->kind == graph::ValueKind::Tensor &&
            (value->meta.dtype == DType::UInt8 || value->meta.dtype == DType::Int8)) {
            weight_integers.insert(name);
        }
    }
    for (size_t i = 0; i < count; ++i) {
        const auto& node = graph.nodes[i];
        if (node.outputs.empty() || !reads_only(node, known)) continue;
        for_each_written(node, [&](const std::string& name) { known.insert(name); });
        if (node.outputs.size() != 1 || node.outputs[0].kind != ArgKind::Tensor) continue;
        const auto& made = graph.value(node.outputs[0].name).meta;
        const bool arithmetic = graph::is_one_of(node.op, {op_id("aten.sub.Tensor"), op_id("aten.mul.Tensor")});
        const bool conversion = graph::is_one_of(node.op, {op_id("aten._to_copy.default"), op_id("aten.to.dtype"),
                                                           op_id("prims.convert_element_type.default")});
        const bool view = graph::is_one_of(node.op, {op_id("aten.view.default"), op_id("aten.reshape.default"),
                                                     op_id("aten._unsafe_view.default"), op_id("aten.unsqueeze.default"),
                                                     op_id("aten.permute.default"), op_id("aten.t.default"),
                                                     op_id("aten.transpose.int")});
        if (integer_tensor(node.outputs[0].name)) {
            if (made.dtype == DType::UInt8 || made.dtype == DType::Int8) {
                weight_integers.insert(node.outputs[0].name);
                continue;
            }
            // A wider integer only as a weight's integers minus integer zero points, or converted.
            bool from_weight = false, integers_only = true;
            for_each_read(node, [&](const std::string& name) {
                from_weight = from_weight || weight_integers.count(name) > 0;
                integers_only = integers_only && integer_tensor(name);
            });
            if ((node.op == op_id("aten.sub.Tensor") || conversion || view) && from_weight && integers_only) {
                weight_integers.insert(node.outputs[0].name);
            }
            continue;
        }
        if (!dtype_is_floating(made.dtype) || (!arithmetic && !conversion && !view)) continue;
        bool from_integers = false, only_weight_parts = true, in_half = is_half(made.dtype);
        for_each_read(node, [&](const std::string& name) {
            const auto* value = graph.find_value(name);
            if (!value || value->kind != graph::ValueKind::Tensor) return;
            in_half = in_half || is_half(value->meta.dtype);
            if (decompressed.count(name) || (!view && weight_integers.count(name))) {
                from_integers = true;  // PT2E's dequantize multiplies the integers by the scales directly
            } else if (!(arithmetic && dtype_is_floating(value->meta.dtype))) {
                only_weight_parts = false;  // a scale (or a view of it) is a float of constants; nothing else is a part
            }
        });
        if (from_integers && only_weight_parts) {
            found[i] = in_half ? Decompression::Half : Decompression::Float32;
            decompressed.insert(node.outputs[0].name);
        }
    }
    return found;
}

}  // namespace pt2ov::partition
