#include "lower/plugin_workarounds.h"

#include "lower/decoder.h"
#include "lower/openvino_facts.h"
#include "openvino/core/graph_util.hpp"
#include "openvino/op/abs.hpp"
#include "openvino/op/concat.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/maximum.hpp"
#include "openvino/op/squeeze.hpp"
#include "openvino/op/unsqueeze.hpp"
#include "openvino/op/util/convolution_base.hpp"
#include "openvino/op/util/interpolate_base.hpp"
#include "openvino/op/util/arithmetic_reductions_keep_dims.hpp"
#include "openvino/op/util/logical_reduction_keep_dims.hpp"
#include "openvino/op/reshape.hpp"
#include "openvino/op/transpose.hpp"
#include "openvino/op/util/binary_elementwise_arithmetic.hpp"
#include "openvino/op/util/binary_elementwise_comparison.hpp"
#include "openvino/op/util/binary_elementwise_logical.hpp"
#include "openvino/op/util/unary_elementwise_arithmetic.hpp"

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

// TransposeOfUnitDimsAfterReduce: a Transpose that moves only dims of size 1 leaves the data
// in the same order, so it is a Reshape to its output shape; written so, the plugin cannot fuse
// it into the Reduce before it (and keep the Reduce's shape).
bool reshape_unit_dim_transpose(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    auto transpose = ov::as_type_ptr<ov::op::v1::Transpose>(op);
    if (!transpose || openvino_facts::ignored("TransposeOfUnitDimsAfterReduce")) return false;
    const auto& input = transpose->get_input_partial_shape(0);
    const auto& output = transpose->get_output_partial_shape(0);
    auto order = ov::as_type_ptr<ov::op::v0::Constant>(transpose->get_input_node_shared_ptr(1));
    if (!order || input.is_dynamic() || output.is_dynamic()) return false;
    const auto shape = input.to_shape();
    const auto permutation = order->cast_vector<int64_t>();
    if (permutation.size() != shape.size()) return false;
    int64_t last = -1;
    bool identity = true;
    for (size_t i = 0; i < permutation.size(); ++i) {
        const int64_t from = permutation[i];
        if (from < 0 || from >= static_cast<int64_t>(shape.size())) return false;
        identity &= from == static_cast<int64_t>(i);
        if (shape[static_cast<size_t>(from)] == 1) continue;
        if (from < last) return false;  // two dims larger than 1 swap: data moves
        last = from;
    }
    if (identity) return false;
    const auto target = output.to_shape();
    auto sizes = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{target.size()},
                                              std::vector<int64_t>(target.begin(), target.end()));
    auto reshape = std::make_shared<ov::op::v1::Reshape>(transpose->input_value(0), sizes, false);
    tag_like(sizes, transpose);
    tag_like(reshape, transpose);
    reshape->set_friendly_name(transpose->get_friendly_name());
    ov::replace_node(transpose, reshape);
    made.push_back({"TransposeOfUnitDimsAfterReduce", transpose->get_friendly_name()});
    return true;
}

// ReshapeBroadcastRankLost: an elementwise op that broadcasts a reshaped tensor to a higher rank
// against a constant of dims 1 came back at the reshaped tensor's rank. With the lower-rank
// operand given its leading dims of 1 explicitly (NumPy broadcasting adds them anyway), both
// operands have the output's rank and the plugin keeps it.
bool raise_broadcast_rank(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    const bool elementwise = ov::is_type<ov::op::util::BinaryElementwiseArithmetic>(op) ||
                             ov::is_type<ov::op::util::BinaryElementwiseComparison>(op) ||
                             ov::is_type<ov::op::util::BinaryElementwiseLogical>(op);
    if (!elementwise || op->get_input_size() != 2 || openvino_facts::ignored("ReshapeBroadcastRankLost")) return false;
    if (op->get_autob().m_type != ov::op::AutoBroadcastType::NUMPY) return false;
    const auto out_rank = op->get_output_partial_shape(0).rank();
    if (out_rank.is_dynamic()) return false;
    bool changed = false;
    for (size_t i = 0; i < 2; ++i) {
        const auto rank = op->get_input_partial_shape(i).rank();
        if (rank.is_dynamic() || rank.get_length() >= out_rank.get_length()) continue;
        if (ov::is_type<ov::op::v0::Constant>(op->get_input_node_shared_ptr(i))) continue;  // folded anyway
        std::vector<int64_t> leading(static_cast<size_t>(out_rank.get_length() - rank.get_length()));
        for (size_t k = 0; k < leading.size(); ++k) leading[k] = static_cast<int64_t>(k);
        auto axes = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{leading.size()}, leading);
        auto raised = std::make_shared<ov::op::v0::Unsqueeze>(op->input_value(i), axes);
        tag_like(axes, op);
        tag_like(raised, op);
        op->input(i).replace_source_output(raised);
        changed = true;
    }
    if (changed) made.push_back({"ReshapeBroadcastRankLost", op->get_friendly_name()});
    return changed;
}

// ReshapeAfterReduceLost: a Reshape (or Transpose, Squeeze, Unsqueeze) that moves dims of size 1
// right after a Reduce without keep_dims came back with the Reduce's shape. The same Reduce with
// keep_dims gives the same values in the same order with the reduced dims as 1s; a Reshape to the
// shape it had without them makes it the same tensor, and that chain the plugin gets right.
bool keep_reduced_dims(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    std::shared_ptr<ov::Node> keeping;
    if (auto arithmetic = ov::as_type_ptr<ov::op::util::ArithmeticReductionKeepDims>(op)) {
        if (arithmetic->get_keep_dims()) return false;
        keeping = arithmetic->clone_with_new_inputs(arithmetic->input_values());
        ov::as_type_ptr<ov::op::util::ArithmeticReductionKeepDims>(keeping)->set_keep_dims(true);
    } else if (auto logical = ov::as_type_ptr<ov::op::util::LogicalReductionKeepDims>(op)) {
        if (logical->get_keep_dims()) return false;
        keeping = logical->clone_with_new_inputs(logical->input_values());
        ov::as_type_ptr<ov::op::util::LogicalReductionKeepDims>(keeping)->set_keep_dims(true);
    } else {
        return false;
    }
    if (openvino_facts::ignored("ReshapeAfterReduceLost")) return false;
    const auto& output = op->get_output_partial_shape(0);
    if (output.is_dynamic() || op->get_input_partial_shape(0).is_dynamic()) return false;
    bool reshaped_after = false;
    for (const auto& user : op->output(0).get_target_inputs()) {
        const auto* node = user.get_node();
        reshaped_after |= ov::is_type<ov::op::v1::Reshape>(node) || ov::is_type<ov::op::v1::Transpose>(node) ||
                          ov::is_type<ov::op::v0::Squeeze>(node) || ov::is_type<ov::op::v0::Unsqueeze>(node);
    }
    if (!reshaped_after) return false;
    keeping->validate_and_infer_types();
    const auto target = output.to_shape();
    auto sizes = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{target.size()},
                                              std::vector<int64_t>(target.begin(), target.end()));
    auto reshape = std::make_shared<ov::op::v1::Reshape>(keeping, sizes, false);
    for (const auto& node : std::vector<std::shared_ptr<ov::Node>>{keeping, sizes, reshape}) tag_like(node, op);
    keeping->set_friendly_name(op->get_friendly_name() + "/kept_dims");
    reshape->set_friendly_name(op->get_friendly_name());
    ov::replace_node(op, reshape);
    made.push_back({"ReshapeAfterReduceLost", op->get_friendly_name()});
    return true;
}

// ReduceFusedArithmeticWrong: the plugin fuses an elementwise op after a Reduce into the Reduce
// (as a post-op), and the fused result is wrong: an integer Reduce followed by Negative, or by
// Add/Subtract/Multiply with a constant, came back right only in its first elements; a floating
// Reduce of rank 3 to rank 2 followed by arithmetic with a constant of more than one element
// applied it along the wrong dim. Maximum(r, r) is r for every value (NaN and -0.0 included),
// and the plugin does not fuse a Maximum into a Reduce, nor what follows it. Reshapes between the
// Reduce and the op do not stop the fusion, so users are looked for through them.
// Whether `value` is computed from constants alone (a Constant, or a Convert, ConvertLike,
// Reshape, ... of constants, as the frontend leaves `neg`'s -1 or a mask's cast before folding):
// the plugin folds it to a constant before it fuses.
bool from_constants(const ov::Output<ov::Node>& value, int depth = 0) {
    const auto* node = value.get_node();
    if (ov::is_type<ov::op::v0::Constant>(node)) return true;
    if (depth > 8 || node->get_input_size() == 0) return false;  // a Parameter, a ReadValue, ...
    for (const auto& input : node->input_values()) {
        if (!from_constants(input, depth + 1)) return false;
    }
    return true;
}

bool needs_unfused_reduce(const ov::Output<ov::Node>& out, bool integral, int depth = 0) {
    for (const auto& user : out.get_target_inputs()) {
        auto* node = user.get_node();
        if (ov::is_type<ov::op::v1::Reshape>(node) || ov::is_type<ov::op::v0::Squeeze>(node) ||
            ov::is_type<ov::op::v0::Unsqueeze>(node)) {
            if (user.get_index() == 0 && depth < 4 && needs_unfused_reduce(node->output(0), integral, depth + 1)) return true;
            continue;
        }
        if (integral && ov::is_type<ov::op::util::UnaryElementwiseArithmetic>(node)) return true;
        if (!ov::is_type<ov::op::util::BinaryElementwiseArithmetic>(node) || node->get_input_size() != 2) continue;
        const auto other = node->input_value(1 - user.get_index());
        if (!from_constants(other)) continue;  // a binary op of two computed tensors is not fused
        const auto& shape = other.get_partial_shape();
        if (integral || shape.is_dynamic() || ov::shape_size(shape.to_shape()) > 1) return true;
    }
    return false;
}

bool unfuse_reduce_arithmetic(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    const bool reduce = ov::is_type<ov::op::util::ArithmeticReductionKeepDims>(op);
    if (!reduce || openvino_facts::ignored("ReduceFusedArithmeticWrong")) return false;
    const auto type = op->get_output_element_type(0);
    if (type == ov::element::boolean || type.is_dynamic()) return false;
    if (!needs_unfused_reduce(op->output(0), type.is_integral_number())) return false;
    const auto users = op->output(0).get_target_inputs();
    auto barrier = std::make_shared<ov::op::v1::Maximum>(op->output(0), op->output(0));
    tag_like(barrier, op);
    barrier->set_friendly_name(op->get_friendly_name() + "/unfused");
    for (auto user : users) user.replace_source_output(barrier->output(0));
    made.push_back({"ReduceFusedArithmeticWrong", op->get_friendly_name()});
    return true;
}

}  // namespace

std::vector<Workaround> work_around_plugin_faults(ov::Model& model) {
    std::vector<Workaround> made;
    bool replaced = false;
    for (const auto& op : model.get_ordered_ops()) {
        replaced |= wrap_rank_one_abs(op, made);
        replaced |= keep_reduced_dims(op, made);
        replaced |= reshape_unit_dim_transpose(op, made);
        replaced |= raise_broadcast_rank(op, made);
        use_half_pixel(op, made);
        undilate_unit_kernel_dims(op, made);
    }
    // After the loop: keep_reduced_dims's Reduce is a new op, and it needs the same.
    for (const auto& op : model.get_ordered_ops()) replaced |= unfuse_reduce_arithmetic(op, made);
    if (replaced) model.validate_nodes_and_infer_types();
    return made;
}

}  // namespace pt2ov::lower
