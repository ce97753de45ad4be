#include "lower/low_precision.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "lower/constant_fold.h"

#include "openvino/op/constant.hpp"
#include "openvino/op/convert.hpp"
#include "openvino/op/fake_quantize.hpp"
#include "openvino/op/multiply.hpp"
#include "openvino/op/subtract.hpp"

namespace pt2ov::lower {

namespace {

bool is_integer_weight_type(const ov::element::Type& type) {
    return type == ov::element::i8 || type == ov::element::u8 || type == ov::element::i4 || type == ov::element::u4;
}

// Every value of the model our decoder named, by the value's name in the graph: the frontend
// names each output it converts after the decoder's id of that value, and a parameter after
// the value itself.
std::map<std::string, ov::Output<ov::Node>> named_outputs(const ov::Model& model, const graph::Graph& graph, const ValueIds& ids,
                                                         const Subgraph& step) {
    std::map<std::string, ov::Output<ov::Node>> found;
    // The values the step returns, by Result, in the step's order (the frontend leaves their
    // names off).
    const auto results = model.get_results();
    if (results.size() == step.outputs.size()) {
        for (size_t i = 0; i < results.size(); ++i) found.emplace(step.outputs[i], results[i]->input_value(0));
    }
    for (const auto& op : model.get_ordered_ops()) {
        for (const auto& output : op->outputs()) {
            for (const auto& tensor_name : output.get_names()) {
                if (tensor_name.empty()) continue;
                if (tensor_name.find_first_not_of("0123456789") != std::string::npos) {
                    if (graph.find_value(tensor_name)) found.emplace(tensor_name, output);
                    continue;
                }
                const std::string& value = ids.name_of(std::stoull(tensor_name));
                if (!value.empty()) found.emplace(value, output);
            }
        }
    }
    return found;
}

std::shared_ptr<ov::op::v0::Constant> scalar(float value) {
    return ov::op::v0::Constant::create(ov::element::f32, ov::Shape{}, std::vector<float>{value});
}

// The values of a stored 1-d tensor (a per-channel pair's scales or zero points) as doubles;
// empty where it is not one.
std::vector<double> stored_values(const ConstantMap& constants, const std::string& name) {
    const auto it = constants.find(name);
    if (it == constants.end() || !it->second || it->second->meta.rank() != 1 || !it->second->meta.all_static()) return {};
    const auto& stored = *it->second;
    const int64_t count = stored.meta.static_sizes()[0];
    const int64_t stride = stored.meta.static_strides()[0];
    std::vector<double> values;
    for (int64_t i = 0; i < count; ++i) {
        const std::byte* at = stored.data();
        switch (stored.meta.dtype) {
        case DType::Float32: values.push_back(reinterpret_cast<const float*>(at)[i * stride]); break;
        case DType::Float64: values.push_back(reinterpret_cast<const double*>(at)[i * stride]); break;
        case DType::Int64: values.push_back(static_cast<double>(reinterpret_cast<const int64_t*>(at)[i * stride])); break;
        case DType::Int32: values.push_back(reinterpret_cast<const int32_t*>(at)[i * stride]); break;
        case DType::Int8: values.push_back(reinterpret_cast<const int8_t*>(at)[i * stride]); break;
        case DType::UInt8: values.push_back(reinterpret_cast<const uint8_t*>(at)[i * stride]); break;
        default: return {};
        }
    }
    return values;
}

// The bounds of a per-channel pair, one per channel along its axis: eager's dequantize of the
// extreme integers, ((q - zero_points) * scales) rounded to float32 (the product of a small
// integer and a float32 or float64 scale is exact in double, so it is rounded once, as eager's).
// False where the scales or zero points are not stored constants, or a bound is not finite.
bool per_channel_bounds(const graph::FakeQuantization& pair, const ConstantMap& constants, const ov::Dimension& rank,
                        std::shared_ptr<ov::op::v0::Constant>& lo, std::shared_ptr<ov::op::v0::Constant>& hi) {
    const auto s = stored_values(constants, pair.scales);
    const auto z = stored_values(constants, pair.zero_points);
    const auto found = constants.find(pair.scales);
    if (found == constants.end() || !dtype_is_floating(found->second->meta.dtype)) return false;
    if (s.empty() || s.size() != z.size() || !rank.is_static() || pair.axis >= rank.get_length()) return false;
    std::vector<float> low(s.size()), high(s.size());
    for (size_t c = 0; c < s.size(); ++c) {
        low[c] = static_cast<float>((static_cast<double>(pair.quant_min) - z[c]) * s[c]);
        high[c] = static_cast<float>((static_cast<double>(pair.quant_max) - z[c]) * s[c]);
        if (!std::isfinite(low[c]) || !std::isfinite(high[c]) || !(high[c] > low[c])) return false;
    }
    ov::Shape shape(static_cast<size_t>(rank.get_length()), 1);
    shape[static_cast<size_t>(pair.axis)] = s.size();
    lo = ov::op::v0::Constant::create(ov::element::f32, shape, low);
    hi = ov::op::v0::Constant::create(ov::element::f32, shape, high);
    return true;
}

size_t fake_quantize_pairs(ov::Model& model, const graph::Graph& graph, const ValueIds& ids, const Subgraph& step,
                           const ConstantMap& constants, std::vector<std::string>& made) {
    if (graph.fake_quantizations.empty()) return 0;
    const auto outputs = named_outputs(model, graph, ids, step);
    size_t count = 0;
    // A value an alias node makes (a decomposition's output that is another value) is that
    // value in the converted model, which OpenVINO names after the aliased one.
    const auto find = [&](std::string name) {
        for (int hops = 0; hops < 8; ++hops) {
            if (auto it = outputs.find(name); it != outputs.end()) return it;
            const graph::Value* value = graph.find_value(name);
            if (!value || value->producer < 0) break;
            const graph::Node& producer = graph.nodes[static_cast<size_t>(value->producer)];
            if (producer.op != graph::op_id("aten.alias.default") || producer.resolved_inputs.empty() ||
                !producer.resolved_inputs[0].is_tensor()) {
                break;
            }
            name = producer.resolved_inputs[0].name;
        }
        return outputs.end();
    };
    for (const auto& pair : graph.fake_quantizations) {
        const auto input = find(pair.input);
        const auto output = find(pair.output);
        if (input == outputs.end() || output == outputs.end()) continue;
        if (input->second.get_element_type() != ov::element::f32 || output->second.get_element_type() != ov::element::f32) continue;
        if (ov::is_type<ov::op::v0::FakeQuantize>(output->second.get_node())) continue;
        std::shared_ptr<ov::op::v0::Constant> lo, hi;
        if (pair.scales.empty()) {
            // Eager's dequantize of the extreme integers: (q - zero_point) * scale, in float32.
            const float low = static_cast<float>(static_cast<float>(pair.quant_min - pair.zero_point) * pair.scale);
            const float high = static_cast<float>(static_cast<float>(pair.quant_max - pair.zero_point) * pair.scale);
            if (!std::isfinite(low) || !std::isfinite(high) || !(high > low)) continue;
            lo = scalar(low);
            hi = scalar(high);
        } else if (!per_channel_bounds(pair, constants, input->second.get_partial_shape().rank(), lo, hi)) {
            continue;
        }
        const auto levels = static_cast<size_t>(pair.quant_max - pair.quant_min + 1);
        auto fake_quantize = std::make_shared<ov::op::v0::FakeQuantize>(input->second, lo, hi, lo, hi, levels);
        const auto& original = output->second.get_node_shared_ptr();
        for (const auto& node : std::vector<std::shared_ptr<ov::Node>>{lo, hi, fake_quantize}) tag_like(node, original);
        fake_quantize->set_friendly_name(pair.node + "/FakeQuantize");
        ov::Output<ov::Node> dequantized = output->second;
        dequantized.replace(fake_quantize->output(0));
        fake_quantize->output(0).set_names(dequantized.get_names());
        dequantized.set_names({});
        made.push_back(pair.node);
        ++count;
    }
    return count;
}

// Whether `output` depends on constants alone and can be computed by evaluate().
bool computable_from_constants(const ov::Output<ov::Node>& output, std::map<const ov::Node*, bool>& memo) {
    const ov::Node* node = output.get_node();
    if (auto it = memo.find(node); it != memo.end()) return it->second;
    bool constant = ov::is_type<ov::op::v0::Constant>(node);
    if (!constant && node->get_input_size() > 0 && node->has_evaluate() && !ov::is_type<ov::op::v0::FakeQuantize>(node)) {
        constant = true;
        for (const auto& input : node->input_values()) constant = constant && computable_from_constants(input, memo);
    }
    memo[node] = constant;
    return constant;
}

bool all_positive_zeros(const ov::Output<ov::Node>& output);

// The narrow integer Constant a weight's integers are: the Constant itself where they are
// `q - zero_points` (in a wider integer type, as per-channel dequantize subtracts) with every
// zero point 0, else their values computed here into the narrowest of int8 and uint8 that
// holds them all; null when neither does.
std::shared_ptr<ov::op::v0::Constant> narrow_integer_weight(const ov::Output<ov::Node>& integers) {
    ov::Output<ov::Node> source = integers;
    if (auto subtract = ov::as_type<ov::op::v1::Subtract>(source.get_node()); subtract && all_positive_zeros(subtract->input_value(1)) &&
                                                                               subtract->get_input_partial_shape(0) == subtract->get_output_partial_shape(0)) {
        source = subtract->input_value(0);
    }
    while (auto convert = ov::as_type<ov::op::v0::Convert>(source.get_node())) {
        const auto& from = convert->get_input_element_type(0);
        if (!from.is_integral_number() || from.bitwidth() > convert->get_output_element_type(0).bitwidth()) break;
        source = convert->input_value(0);  // an integer widened: the same values
    }
    if (auto constant = ov::as_type_ptr<ov::op::v0::Constant>(source.get_node_shared_ptr());
        constant && is_integer_weight_type(constant->get_element_type())) {
        return constant;
    }
    auto value = constant_value(integers);
    if (!value || !value->get_element_type().is_integral_number()) return nullptr;
    const auto values = value->cast_vector<int64_t>();
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    if (values.empty()) return nullptr;
    if (*low >= -128 && *high <= 127) return ov::op::v0::Constant::create(ov::element::i8, value->get_shape(), values);
    if (*low >= 0 && *high <= 255) return ov::op::v0::Constant::create(ov::element::u8, value->get_shape(), values);
    return nullptr;
}

// Whether `output` is computed from a narrow integer Constant (a quantized weight) or a float
// Constant quantized in the program (a quantize chain ending in a Convert to a narrow integer
// type): only such integers are worth computing at load; an arange's positions are not.
bool from_quantized_weight(const ov::Output<ov::Node>& output, std::set<const ov::Node*>& seen) {
    const ov::Node* node = output.get_node();
    if (!seen.insert(node).second) return false;
    if (is_integer_weight_type(output.get_element_type())) return true;
    for (const auto& input : node->input_values()) {
        if (from_quantized_weight(input, seen)) return true;
    }
    return false;
}

// Every Convert of integers computed from constants alone to a float type reads them as a
// narrow integer Constant, which the plugin keeps compressed; the values are the same, so the
// Convert gives the same floats.
size_t fold_integer_weights(ov::Model& model) {
    size_t count = 0;
    std::map<const ov::Node*, bool> memo;
    for (const auto& op : model.get_ordered_ops()) {
        auto convert = ov::as_type_ptr<ov::op::v0::Convert>(op);
        if (!convert || !convert->get_output_element_type(0).is_real()) continue;
        const auto source = convert->input_value(0);
        if (!source.get_element_type().is_integral_number() || source.get_element_type() == ov::element::boolean) continue;
        if (ov::is_type<ov::op::v0::Constant>(source.get_node()) && is_integer_weight_type(source.get_element_type())) continue;
        if (!computable_from_constants(source, memo)) continue;
        std::set<const ov::Node*> seen;
        if (!from_quantized_weight(source, seen)) continue;
        auto value = narrow_integer_weight(source);
        if (!value) continue;
        if (!value->get_rt_info().count(kSourceNodeKey)) {
            tag_like(value, source.get_node_shared_ptr());
        }
        convert->input(0).replace_source_output(value);
        ++count;
    }
    return count;
}

bool all_positive_zeros(const ov::Output<ov::Node>& output) {
    auto value = constant_value(output);
    if (!value || !value->get_element_type().is_real()) return false;
    for (const double v : value->cast_vector<double>()) {
        if (v != 0.0 || std::signbit(v)) return false;
    }
    return true;
}

// Convert(integer Constant) -> Multiply(scale constant) -> Subtract(zero constant), as NNCF writes
// a symmetric weight (`w * scale - zero_point` with every zero point 0): the Subtract goes.
size_t drop_zero_subtractions(ov::Model& model) {
    size_t count = 0;
    for (const auto& op : model.get_ordered_ops()) {
        auto subtract = ov::as_type_ptr<ov::op::v1::Subtract>(op);
        if (!subtract || !subtract->get_output_element_type(0).is_real()) continue;
        const auto minuend = subtract->input_value(0);
        auto multiply = ov::as_type<ov::op::v1::Multiply>(minuend.get_node());
        if (!multiply || minuend.get_element_type() != subtract->get_output_element_type(0)) continue;
        if (minuend.get_partial_shape() != subtract->get_output_partial_shape(0)) continue;
        bool from_integer_weight = false;
        for (const auto& factor : multiply->input_values()) {
            auto convert = ov::as_type<ov::op::v0::Convert>(factor.get_node());
            from_integer_weight |= convert && ov::is_type<ov::op::v0::Constant>(convert->get_input_node_ptr(0)) &&
                                   is_integer_weight_type(convert->get_input_element_type(0));
        }
        if (!from_integer_weight || !all_positive_zeros(subtract->input_value(1))) continue;
        subtract->output(0).replace(minuend);
        ++count;
    }
    return count;
}

}  // namespace

LowPrecisionChanges lower_to_low_precision(ov::Model& model, const graph::Graph& graph, const ValueIds& ids, const Subgraph& step,
                                           const ConstantMap& constants) {
    LowPrecisionChanges changes;
    fake_quantize_pairs(model, graph, ids, step, constants, changes.fake_quantized);
    changes.integer_weights_folded = fold_integer_weights(model);
    changes.zero_subtractions_dropped = drop_zero_subtractions(model);
    if (!changes.fake_quantized.empty() || changes.integer_weights_folded || changes.zero_subtractions_dropped) {
        model.validate_nodes_and_infer_types();
    }
    return changes;
}

}  // namespace pt2ov::lower
