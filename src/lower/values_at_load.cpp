#include "lower/values_at_load.h"

#include <algorithm>
#include <cstring>

#include "lower/constant_precompute.h"
#include "lower/element_type.h"
#include "openvino/core/graph_util.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/convert.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/reshape.hpp"
#include "openvino/op/squeeze.hpp"
#include "openvino/op/subtract.hpp"
#include "openvino/op/unsqueeze.hpp"

namespace pt2ov::lower {

namespace {

// Whether every reader of `producer`'s value converts it to another element type, through reshapes: the
// integers of a weight the plugin decompresses, which it may hold in any integer type.
bool only_converted(const ov::Node* producer, int depth = 0) {
    const auto readers = producer->output(0).get_target_inputs();
    if (readers.empty() || depth > 4) return false;
    for (const auto& reader : readers) {
        const auto* node = reader.get_node();
        if (ov::is_type<ov::op::v0::Convert>(node)) continue;
        const bool reshapes = ov::is_type<ov::op::v1::Reshape>(node) || ov::is_type<ov::op::v0::Unsqueeze>(node) ||
                              ov::is_type<ov::op::v0::Squeeze>(node);
        if (!reshapes || reader.get_index() != 0 || !only_converted(node, depth + 1)) return false;
    }
    return true;
}

// `tensor`'s integers as OpenVINO's 4-bit type, two to a byte, the first in the low nibble (as
// NNCF packs them), when every one fits in 4 bits (u4: 0..15 from uint8, i4: -8..7 from int8).
std::shared_ptr<ov::op::v0::Constant> as_four_bits(const DenseValue& tensor) {
    if (tensor.dtype != DType::UInt8 && tensor.dtype != DType::Int8) return nullptr;
    const int64_t count = tensor.numel();
    const auto* bytes = static_cast<const uint8_t*>(tensor.data);
    const bool is_signed = tensor.dtype == DType::Int8;
    for (int64_t i = 0; i < count; ++i) {
        const int v = is_signed ? static_cast<int>(static_cast<int8_t>(bytes[i])) : static_cast<int>(bytes[i]);
        if (is_signed ? (v < -8 || v > 7) : v > 15) return nullptr;
    }
    const ov::Shape shape(tensor.sizes.begin(), tensor.sizes.end());
    auto constant = std::make_shared<ov::op::v0::Constant>(is_signed ? ov::element::i4 : ov::element::u4, shape);
    auto* packed = static_cast<uint8_t*>(const_cast<void*>(constant->get_data_ptr()));
    std::memset(packed, 0, constant->get_byte_size());
    for (int64_t i = 0; i < count; ++i) packed[i / 2] |= static_cast<uint8_t>((bytes[i] & 0x0F) << (4 * (i % 2)));
    return constant;
}

// The packed bytes behind `value` when it is NNCF's unpacking of a uint8 constant into its low
// and high nibbles, `stack([c & 15, c >> 4], -1)` (after run_decompositions(): a cat of the two
// unsqueezed): OpenVINO's u4 holds two values to a byte, the first in the low nibble, so `c`'s
// own bytes are the u4 tensor and no copy is needed. Null for anything else.
const archive::StoredTensor* packed_nibbles_behind(const graph::Graph& graph, const ConstantMap& constants,
                                                   const std::string& value) {
    using graph::op_id;
    const auto* made = graph.find_value(value);
    if (!made || made->producer < 0) return nullptr;
    const auto& join = graph.nodes[static_cast<size_t>(made->producer)];
    const bool stack = join.op == op_id("aten.stack.default");
    if ((!stack && join.op != op_id("aten.cat.default")) || join.arity() < 1 || join.arg(0).items.size() != 2) return nullptr;
    // Along the last dim only, as -1 or spelt out (the default 0 would be another layout).
    if (join.arity() < 2 || join.arg(1).kind != graph::Argument::Kind::Int) return nullptr;
    const int64_t dim = join.arg(1).int_value;
    if (dim != -1 && dim != static_cast<int64_t>(made->meta.rank()) - 1) return nullptr;
    const auto part = [&](size_t k, std::initializer_list<graph::OpId> ops, int64_t literal) -> std::string {
        const auto& item = join.arg(0).items[k];
        const auto* v = graph.find_value(item.name);
        if (!v || v->producer < 0) return {};
        const graph::Node* node = &graph.nodes[static_cast<size_t>(v->producer)];
        if (!stack) {  // cat: each half unsqueezed at the end first
            if (node->op != op_id("aten.unsqueeze.default") || node->arity() < 1) return {};
            const auto* inner = graph.find_value(node->arg(0).name);
            if (!inner || inner->producer < 0) return {};
            node = &graph.nodes[static_cast<size_t>(inner->producer)];
        }
        if (!graph::is_one_of(node->op, ops) || node->arity() < 2) return {};
        const auto& amount = node->arg(1);
        if (amount.kind != graph::Argument::Kind::Int || amount.int_value != literal) return {};
        return node->arg(0).name;
    };
    const std::string low = part(0, {op_id("aten.bitwise_and.Scalar"), op_id("aten.__and__.Scalar")}, 15);
    const std::string high = part(1, {op_id("aten.bitwise_right_shift.Tensor_Scalar"), op_id("aten.__rshift__.Scalar")}, 4);
    if (low.empty() || low != high) return nullptr;
    const auto it = constants.find(low);
    if (it == constants.end() || !it->second || it->second->meta.dtype != DType::UInt8) return nullptr;
    const auto sizes = it->second->meta.static_sizes();
    if (!is_contiguous(sizes, it->second->meta.static_strides())) return nullptr;
    return it->second;
}

// The packed bytes behind NNCF's symmetric int4 weight, `to(stack([c & 15, c >> 4], -1), int8) - 8`:
// the nibbles less 8. Null for anything else.
const archive::StoredTensor* offset_nibbles_behind(const graph::Graph& graph, const ConstantMap& constants,
                                                   const std::string& value) {
    using graph::op_id;
    const auto* made = graph.find_value(value);
    if (!made || made->producer < 0 || made->meta.dtype != DType::Int8) return nullptr;
    const auto& sub = graph.nodes[static_cast<size_t>(made->producer)];
    if (!graph::is_one_of(sub.op, {op_id("aten.sub.Tensor"), op_id("aten.sub.Scalar")}) || sub.arity() < 2 ||
        sub.arg(1).kind != graph::Argument::Kind::Int || sub.arg(1).int_value != 8) {
        return nullptr;
    }
    if (sub.arity() > 2 && !(sub.arg(2).kind == graph::Argument::Kind::Int && sub.arg(2).int_value == 1)) return nullptr;
    const auto* converted = graph.find_value(sub.arg(0).name);
    if (!converted || converted->producer < 0) return nullptr;
    const auto& to = graph.nodes[static_cast<size_t>(converted->producer)];
    if (!graph::is_one_of(to.op, {op_id("aten.to.dtype"), op_id("aten._to_copy.default"),
                                  op_id("prims.convert_element_type.default")}) || to.arity() < 1) {
        return nullptr;
    }
    return packed_nibbles_behind(graph, constants, to.arg(0).name);
}

// Whether `packed` (null: no) holds two nibbles to a byte for each of `count` values.
bool holds_nibbles_of(const archive::StoredTensor* packed, int64_t count) {
    if (!packed) return false;
    int64_t bytes = 1;
    for (int64_t size : packed->meta.static_sizes()) bytes *= size;
    return bytes * 2 == count;
}

// The Converts that read `producer`'s value, through reshapes (only_converted holds).
void converts_reading(const ov::Node* producer, std::vector<ov::Node*>& found) {
    for (const auto& reader : producer->output(0).get_target_inputs()) {
        auto* node = reader.get_node();
        if (ov::is_type<ov::op::v0::Convert>(node)) {
            found.push_back(node);
        } else {
            converts_reading(node, found);
        }
    }
}

// NNCF's symmetric int4 weight as OpenVINO's own asymmetric form: the archive's packed nibbles
// as a u4 Constant (no copy), and 8 taken off after each Convert to a float type, where it is
// exact (the nibbles less 8 lie in -8..7). The plugin then reads it as a weight with a zero point
// of 8, 4 bits in memory, as it reads NNCF's asymmetric weights. False (the model unchanged) when
// a Convert is not to a float type.
bool replace_with_offset_nibbles(const std::shared_ptr<ov::op::v0::Parameter>& parameter, const archive::StoredTensor& packed,
                                 const std::shared_ptr<const void>& owner, const std::string& name) {
    std::vector<ov::Node*> converts;
    converts_reading(parameter.get(), converts);
    for (const auto* convert : converts) {
        if (!convert->get_output_element_type(0).is_real()) return false;
    }
    const ov::Shape shape = parameter->get_shape();
    auto constant = std::make_shared<ov::op::v0::Constant>(ov::element::u4, shape, packed.data(),
                                                           std::const_pointer_cast<void>(owner));
    constant->set_friendly_name(name);
    constant->get_output_tensor(0).set_names({name});
    ov::replace_node(parameter, constant);
    for (auto* convert : converts) {
        const auto type = convert->get_output_element_type(0);
        auto eight = std::make_shared<ov::op::v0::Constant>(type, ov::Shape{}, std::vector<float>{8.0f});
        const auto readers = convert->output(0).get_target_inputs();
        auto less = std::make_shared<ov::op::v1::Subtract>(convert->output(0), eight);
        less->set_friendly_name(convert->get_friendly_name() + "/less_8");
        for (auto reader : readers) reader.replace_source_output(less);
    }
    return true;
}

}  // namespace

std::shared_ptr<ov::Model> with_values_as_constants(const std::shared_ptr<ov::Model>& original,
                                                    std::vector<std::string>& parameters,
                                                    const std::vector<std::optional<DenseValue>>& values,
                                                    const graph::Graph& graph, const ConstantMap& constants,
                                                    const std::shared_ptr<const archive::Archive>& archive,
                                                    bool compressed_weights) {
    if (std::none_of(values.begin(), values.end(), [](const auto& v) { return v.has_value(); })) return original;
    // A copy: the planned model is shared with the report and any later plan.
    auto model = original->clone();
    const auto model_parameters = model->get_parameters();
    std::vector<std::string> kept;
    for (size_t p = 0; p < parameters.size() && p < model_parameters.size(); ++p) {
        if (p >= values.size() || !values[p] || element_type(values[p]->dtype) != model_parameters[p]->get_element_type()) {
            kept.push_back(parameters[p]);
            continue;
        }
        const DenseValue& dense = *values[p];
        // --compressed-weights and NNCF's symmetric int4: the archive's bytes, 8 off in OpenVINO.
        if (compressed_weights && dense.dtype == DType::Int8 && only_converted(model_parameters[p].get())) {
            const auto* packed = offset_nibbles_behind(graph, constants, parameters[p]);
            if (holds_nibbles_of(packed, dense.numel()) &&
                replace_with_offset_nibbles(model_parameters[p], *packed, archive, parameters[p])) {
                model->remove_parameter(model_parameters[p]);
                continue;
            }
        }
        std::shared_ptr<ov::op::v0::Constant> constant;
        // --compressed-weights: a weight's integers the plugin decompresses stay 4-bit where they
        // fit, over the archive's own bytes where NNCF packed them (whose pages the archive drops
        // from the resident set after load: the plugin keeps its own packed copy).
        if (compressed_weights && only_converted(model_parameters[p].get())) {
            const auto* packed = dense.dtype == DType::UInt8 ? packed_nibbles_behind(graph, constants, parameters[p]) : nullptr;
            if (holds_nibbles_of(packed, dense.numel())) {
                constant = std::make_shared<ov::op::v0::Constant>(
                    ov::element::u4, ov::Shape(dense.sizes.begin(), dense.sizes.end()), packed->data(),
                    std::const_pointer_cast<void>(std::static_pointer_cast<const void>(archive)));
            } else {
                constant = as_four_bits(dense);
            }
        }
        if (!constant) {
            const ov::Shape shape(dense.sizes.begin(), dense.sizes.end());
            constant = std::make_shared<ov::op::v0::Constant>(element_type(dense.dtype), shape, dense.data,
                                                              std::const_pointer_cast<void>(dense.owner));
        }
        constant->set_friendly_name(parameters[p]);
        constant->get_output_tensor(0).set_names({parameters[p]});
        ov::replace_node(model_parameters[p], constant);
        model->remove_parameter(model_parameters[p]);
    }
    parameters = std::move(kept);
    model->validate_nodes_and_infer_types();
    precompute_constant_ops(*model);
    return model;
}

}  // namespace pt2ov::lower
