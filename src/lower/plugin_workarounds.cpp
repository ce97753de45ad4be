#include "lower/plugin_workarounds.h"

#include "lower/decoder.h"
#include "lower/openvino_facts.h"
#include "openvino/core/graph_util.hpp"
#include "openvino/op/abs.hpp"
#include "openvino/op/concat.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/squeeze.hpp"
#include "openvino/op/unsqueeze.hpp"
#include "openvino/op/util/convolution_base.hpp"
#include "openvino/op/util/interpolate_base.hpp"

namespace pt2ov::lower {

namespace {

// New ops keep the source tag of the op they replace: every op names the archive node it
// came from (decoder.h), so reports and failures still point at the user's node.
void tag_like(const std::shared_ptr<ov::Node>& made, const std::shared_ptr<ov::Node>& original) {
    const auto& rt = original->get_rt_info();
    if (auto tag = rt.find(kSourceNodeKey); tag != rt.end()) made->get_rt_info()[kSourceNodeKey] = tag->second;
}

// AbsOfFoldedConstantRankOne / AbsOfConcatRankOne: the plugin's rank-1 Abs gives its input
// back unchanged when that input is a folded constant expression, and writes |x| into a
// Concat's memory that the Concat's other users read. At rank 2 it does neither.
bool wrap_rank_one_abs(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    auto abs = ov::as_type_ptr<ov::op::v0::Abs>(op);
    if (!abs) return false;
    const bool of_concat = ov::is_type<ov::op::v0::Concat>(abs->get_input_node_shared_ptr(0));
    if (openvino_facts::ignored(of_concat ? "AbsOfConcatRankOne" : "AbsOfFoldedConstantRankOne")) return false;
    const auto rank = abs->get_input_partial_shape(0).rank();
    if (rank.is_static() && rank.get_length() != 1) return false;
    auto axis = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{1}, {0});
    auto raised = std::make_shared<ov::op::v0::Unsqueeze>(abs->input_value(0), axis);
    auto computed = std::make_shared<ov::op::v0::Abs>(raised);
    auto lowered = std::make_shared<ov::op::v0::Squeeze>(computed, axis);
    for (const auto& node : std::vector<std::shared_ptr<ov::Node>>{axis, raised, computed, lowered}) tag_like(node, abs);
    lowered->set_friendly_name(abs->get_friendly_name());
    ov::replace_node(abs, lowered);
    made.push_back({of_concat ? "AbsOfConcatRankOne" : "AbsOfFoldedConstantRankOne", abs->get_friendly_name()});
    return true;
}

// InterpolateToSizeOneAtOrigin: ONNX's pytorch_half_pixel maps every output of an axis of
// length 1 to source coordinate 0; PyTorch (and half_pixel) map it to (0.5 / scale - 0.5), the
// middle of the input. For any other length the two formulas are the same.
bool use_half_pixel(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    using Base = ov::op::util::InterpolateBase;
    auto interpolate = ov::as_type_ptr<Base>(op);
    if (!interpolate || openvino_facts::ignored("InterpolateToSizeOneAtOrigin")) return false;
    auto attrs = interpolate->get_attrs();
    const bool sampling = attrs.mode == Base::InterpolateMode::LINEAR || attrs.mode == Base::InterpolateMode::LINEAR_ONNX ||
                          attrs.mode == Base::InterpolateMode::CUBIC;
    if (!sampling || attrs.coordinate_transformation_mode != Base::CoordinateTransformMode::PYTORCH_HALF_PIXEL) return false;
    attrs.coordinate_transformation_mode = Base::CoordinateTransformMode::HALF_PIXEL;
    interpolate->set_attrs(attrs);
    interpolate->validate_and_infer_types();
    made.push_back({"InterpolateToSizeOneAtOrigin", interpolate->get_friendly_name()});
    return true;
}

// DilatedUnitKernelCrash: dilation along a kernel dim of size 1 moves no tap, so 1 there is
// the same convolution; the plugin crashed on some such convolutions (stride 2, bias fused).
bool undilate_unit_kernel_dims(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    auto conv = ov::as_type_ptr<ov::op::util::ConvolutionBase>(op);
    if (!conv || op->get_input_size() < 2 || openvino_facts::ignored("DilatedUnitKernelCrash")) return false;
    const auto& weights = op->get_input_partial_shape(1);
    auto dilations = conv->get_dilations();
    if (weights.rank().is_dynamic() || dilations.empty()) return false;
    const auto rank = static_cast<size_t>(weights.rank().get_length());
    if (rank < dilations.size()) return false;
    bool changed = false;
    for (size_t i = 0; i < dilations.size(); ++i) {
        const auto& kernel = weights[rank - dilations.size() + i];
        if (dilations[i] > 1 && kernel.is_static() && kernel.get_length() == 1) {
            dilations[i] = 1;
            changed = true;
        }
    }
    if (!changed) return false;
    conv->set_dilations(dilations);
    op->validate_and_infer_types();
    made.push_back({"DilatedUnitKernelCrash", op->get_friendly_name()});
    return true;
}

}  // namespace

std::vector<Workaround> work_around_plugin_faults(ov::Model& model) {
    std::vector<Workaround> made;
    bool replaced = false;
    for (const auto& op : model.get_ordered_ops()) {
        replaced |= wrap_rank_one_abs(op, made);
        use_half_pixel(op, made);
        undilate_unit_kernel_dims(op, made);
    }
    if (replaced) model.validate_nodes_and_infer_types();
    return made;
}

}  // namespace pt2ov::lower
