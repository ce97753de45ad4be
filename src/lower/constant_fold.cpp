#include "lower/constant_fold.h"

#include <vector>

#include "openvino/op/shape_of.hpp"

namespace pt2ov::lower {

std::shared_ptr<ov::op::v0::Constant> ConstantFolder::value_of(const ov::Output<ov::Node>& output) {
    bool cut = false;
    return value_of(output, 0, cut);
}

std::shared_ptr<ov::op::v0::Constant> ConstantFolder::value_of(const ov::Output<ov::Node>& output, size_t depth, bool& cut) {
    auto node = output.get_node_shared_ptr();
    if (auto constant = ov::as_type_ptr<ov::op::v0::Constant>(node)) return constant;
    auto it = folded_.find(node.get());
    if (it == folded_.end()) {
        ov::OutputVector outputs;
        if (ov::is_type<ov::op::v0::ShapeOf>(node) || ov::is_type<ov::op::v3::ShapeOf>(node)) {
            // A shape is known when it is static, whatever computes the tensor (instance_norm's
            // axes are a Range up to the rank: a ShapeOf of a ShapeOf of the activation).
            const auto& measured = node->get_input_partial_shape(0);
            if (measured.is_static()) {
                const ov::Shape shape = measured.to_shape();
                outputs.push_back(ov::op::v0::Constant::create(node->get_output_element_type(0), ov::Shape{shape.size()},
                                                               std::vector<int64_t>(shape.begin(), shape.end())));
            }
        } else if (node->get_input_size() > 0) {
            if (depth >= max_depth_) {
                cut = true;
                return nullptr;
            }
            ov::OutputVector inputs;
            for (const auto& input : node->input_values()) {
                auto value = value_of(input, depth + 1, cut);
                if (!value) break;
                inputs.push_back(value);
            }
            if (inputs.size() < node->get_input_size() && cut) return nullptr;
            if (inputs.size() == node->get_input_size()) {
                outputs.resize(node->get_output_size());
                if (!node->constant_fold(outputs, inputs)) outputs.clear();
            }
        }
        it = folded_.emplace(node.get(), std::move(outputs)).first;
    }
    if (it->second.size() <= output.get_index()) return nullptr;
    return ov::as_type_ptr<ov::op::v0::Constant>(it->second[output.get_index()].get_node_shared_ptr());
}

std::shared_ptr<ov::op::v0::Constant> constant_value(const ov::Output<ov::Node>& output, size_t max_depth) {
    ConstantFolder folder(max_depth);
    return folder.value_of(output);
}

}  // namespace pt2ov::lower
