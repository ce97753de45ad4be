#include "lower/constant_precompute.h"

#include <map>
#include <set>

#include "lower/decoder.h"
#include "lower/openvino_facts.h"
#include "lower/plugin_workarounds.h"
#include "openvino/core/graph_util.hpp"
#include "openvino/core/model.hpp"
#include "openvino/op/assign.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/convert.hpp"
#include "openvino/op/multinomial.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/random_uniform.hpp"
#include "openvino/op/result.hpp"
#include "openvino/op/shape_of.hpp"
#include "openvino/op/util/framework_node.hpp"
#include "openvino/op/util/multi_subgraph_base.hpp"
#include "openvino/op/util/read_value_base.hpp"
#include "openvino/runtime/core.hpp"
#include "openvino/runtime/properties.hpp"

namespace pt2ov::lower {

namespace {

// Whether `op`'s value depends on nothing but the model's constants: not an input, a state, a
// draw, an op OpenVINO did not convert or a body of its own.
bool may_be_constant(const ov::Node& op) {
    return !ov::is_type<ov::op::v0::Parameter>(&op) && !ov::is_type<ov::op::v0::Result>(&op) &&
           !ov::is_type<ov::op::util::ReadValueBase>(&op) && !ov::is_type<ov::op::util::AssignBase>(&op) &&
           !ov::is_type<ov::op::util::FrameworkNode>(&op) && !ov::is_type<ov::op::util::MultiSubGraphOp>(&op) &&
           !ov::is_type<ov::op::v8::RandomUniform>(&op) && !ov::is_type<ov::op::v13::Multinomial>(&op) &&
           op.get_input_size() > 0;
}

ov::Core& precompute_core() {
    static ov::Core core;
    return core;
}

}  // namespace

std::vector<Workaround> precompute_constant_ops(ov::Model& model) {
    std::vector<Workaround> made;
    if (openvino_facts::ignored("ConstantOpWithoutEvaluateDrifts")) return made;
    std::set<const ov::Node*> constant;
    std::vector<std::shared_ptr<ov::Node>> unfoldable;
    // The shape of a static value is a constant too (the plugin folds it so): zeros_like(x) is
    // Broadcast(0, ShapeOf(x)), and a convolution of it is computed once all the same.
    std::vector<std::shared_ptr<ov::Node>> static_shapes;
    for (const auto& op : model.get_ordered_ops()) {
        if (ov::is_type<ov::op::v0::Constant>(op)) {
            constant.insert(op.get());
            continue;
        }
        if ((ov::is_type<ov::op::v0::ShapeOf>(op) || ov::is_type<ov::op::v3::ShapeOf>(op)) &&
            op->get_input_partial_shape(0).is_static()) {
            constant.insert(op.get());
            static_shapes.push_back(op);
            continue;
        }
        if (!may_be_constant(*op)) continue;
        bool from_constants = true;
        for (const auto& input : op->input_values()) from_constants &= constant.count(input.get_node()) > 0;
        if (!from_constants) continue;
        constant.insert(op.get());
        if (op->has_evaluate()) continue;  // OpenVINO's constant folding computes it before the plugin sees it
        bool used = false, is_static = true;
        for (const auto& output : op->outputs()) {
            used |= !output.get_target_inputs().empty();
            is_static &= output.get_partial_shape().is_static();
        }
        if (used && is_static) unfoldable.push_back(op);
    }
    if (unfoldable.empty()) return made;
    for (const auto& shape_of : static_shapes) {
        const auto dims = shape_of->get_input_shape(0);
        auto folded = ov::op::v0::Constant::create(shape_of->get_output_element_type(0), ov::Shape{dims.size()},
                                                   std::vector<int64_t>(dims.begin(), dims.end()));
        tag_like(folded, shape_of);
        folded->set_friendly_name(shape_of->get_friendly_name());
        ov::replace_node(shape_of, folded);
    }

    // One model computes them all: a Result on each output, on a copy (the original ops are not
    // given users of their own).
    ov::ResultVector results;
    for (const auto& op : unfoldable) {
        for (const auto& output : op->outputs()) results.push_back(std::make_shared<ov::op::v0::Result>(output));
    }
    std::shared_ptr<ov::Model> copy;
    {
        ov::Model probe(results, ov::ParameterVector{});
        copy = probe.clone();
    }
    results.clear();  // the probe's Results go, and with them their hold on the original outputs
    // Nothing checks this compile's fusions: the reductions left to one are barred.
    bar_expected_fusions(*copy);

    ov::AnyMap config{ov::hint::inference_precision(ov::element::f32),
                      {openvino_facts::kNoDynamicQuantization, uint64_t{0}}};
    auto request = precompute_core().compile_model(copy, "CPU", config).create_infer_request();
    request.infer();
    size_t index = 0;
    for (const auto& op : unfoldable) {
        for (const auto& output : op->outputs()) {
            const ov::Tensor value = request.get_output_tensor(index++);
            auto folded = std::make_shared<ov::op::v0::Constant>(value.get_element_type(), value.get_shape(), value.data());
            tag_like(folded, op);
            folded->set_friendly_name(op->get_friendly_name() + (op->get_output_size() > 1 ? "/" + std::to_string(output.get_index()) : ""));
            for (auto user : output.get_target_inputs()) user.replace_source_output(folded);
        }
        made.push_back({"ConstantOpWithoutEvaluateDrifts", op->get_friendly_name()});
    }
    model.validate_nodes_and_infer_types();
    return made;
}

namespace {

// Whether `op` reads a Convert of an integer Constant of 8 bits or fewer, through ops of constants.
bool decompresses_narrow_integers(const ov::Node* op, std::map<const ov::Node*, bool>& memo) {
    if (auto it = memo.find(op); it != memo.end()) return it->second;
    memo[op] = false;
    bool found = false;
    if (ov::is_type<ov::op::v0::Convert>(op)) {
        const auto* source = op->get_input_node_ptr(0);
        const auto& type = op->get_input_element_type(0);
        found = ov::is_type<ov::op::v0::Constant>(source) && type.is_integral_number() && type != ov::element::boolean &&
                type.bitwidth() <= 8;
    }
    for (size_t i = 0; !found && i < op->get_input_size(); ++i) {
        found = decompresses_narrow_integers(op->get_input_node_ptr(i), memo);
    }
    memo[op] = found;
    return found;
}

}  // namespace

std::vector<Workaround> fold_half_constant_arithmetic(ov::Model& model, bool keep_weight_decompression) {
    std::vector<Workaround> made;
    std::map<const ov::Node*, bool> decompression;
    if (openvino_facts::ignored("HalfConstantArithmeticInFloat")) return made;
    const auto sixteen_bit = [](const ov::element::Type& type) {
        return type == ov::element::f16 || type == ov::element::bf16;
    };
    const auto ops = model.get_ordered_ops();
    std::set<const ov::Node*> constant;
    std::vector<std::shared_ptr<ov::Node>> targets;
    for (const auto& op : ops) {
        if (ov::is_type<ov::op::v0::Constant>(op)) {
            constant.insert(op.get());
            continue;
        }
        if (!may_be_constant(*op) || !op->has_evaluate()) continue;
        bool from_constants = true;
        for (const auto& input : op->input_values()) from_constants &= constant.count(input.get_node()) > 0;
        if (!from_constants) continue;
        constant.insert(op.get());
        if (!ov::is_type<ov::op::v0::Convert>(op) && op->get_output_size() == 1 && sixteen_bit(op->get_output_element_type(0)) &&
            !(keep_weight_decompression && decompresses_narrow_integers(op.get(), decompression))) {
            targets.push_back(op);
        }
    }
    if (targets.empty()) return made;
    // The targets and every non-Constant op they read, folded in order.
    std::set<const ov::Node*> needed;
    std::vector<ov::Node*> stack;
    for (const auto& op : targets) stack.push_back(op.get());
    while (!stack.empty()) {
        ov::Node* op = stack.back();
        stack.pop_back();
        if (ov::is_type<ov::op::v0::Constant>(op) || !needed.insert(op).second) continue;
        for (const auto& input : op->input_values()) stack.push_back(input.get_node());
    }
    const std::set<const ov::Node*> target_set = [&] {
        std::set<const ov::Node*> set;
        for (const auto& op : targets) set.insert(op.get());
        return set;
    }();
    for (const auto& op : ops) {
        if (!needed.count(op.get())) continue;
        ov::OutputVector inputs = op->input_values();
        ov::OutputVector outputs(op->get_output_size());
        if (!op->constant_fold(outputs, inputs)) continue;  // left to the plugin as it was
        for (size_t i = 0; i < outputs.size(); ++i) {
            auto folded = outputs[i].get_node_shared_ptr();
            tag_like(folded, op);
            folded->set_friendly_name(op->get_friendly_name() + (outputs.size() > 1 ? "/" + std::to_string(i) : ""));
            op->output(i).replace(outputs[i]);
        }
        if (target_set.count(op.get())) made.push_back({"HalfConstantArithmeticInFloat", op->get_friendly_name()});
    }
    model.validate_nodes_and_infer_types();
    return made;
}

}  // namespace pt2ov::lower
