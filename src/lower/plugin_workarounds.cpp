#include "lower/plugin_workarounds.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "common/text.h"
#include "lower/constant_fold.h"
#include "lower/decoder.h"
#include "lower/openvino_facts.h"
#include "openvino/core/graph_util.hpp"
#include "openvino/op/fake_quantize.hpp"
#include "openvino/op/abs.hpp"
#include "openvino/op/concat.hpp"
#include "openvino/op/convert_like.hpp"
#include "openvino/op/divide.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/gather.hpp"
#include "openvino/op/group_normalization.hpp"
#include "openvino/op/grouped_matmul.hpp"
#include "openvino/op/less.hpp"
#include "openvino/op/range.hpp"
#include "openvino/op/multiply.hpp"
#include "openvino/op/add.hpp"
#include "openvino/op/mvn.hpp"
#include "openvino/op/interpolate.hpp"
#include "openvino/op/matmul.hpp"
#include "openvino/op/normalize_l2.hpp"
#include "openvino/op/prelu.hpp"
#include "openvino/op/swish.hpp"
#include "openvino/op/slice.hpp"
#include "openvino/op/subtract.hpp"
#include "openvino/op/shape_of.hpp"
#include "openvino/op/abs.hpp"
#include "openvino/op/clamp.hpp"
#include "openvino/op/convert.hpp"
#include "openvino/op/elu.hpp"
#include "openvino/op/exp.hpp"
#include "openvino/op/greater.hpp"
#include "openvino/op/hsigmoid.hpp"
#include "openvino/op/max_pool.hpp"
#include "openvino/op/maximum.hpp"
#include "openvino/op/not_equal.hpp"
#include "openvino/op/reduce_max.hpp"
#include "openvino/op/reduce_mean.hpp"
#include "openvino/op/reduce_min.hpp"
#include "openvino/op/power.hpp"
#include "openvino/op/sqrt.hpp"
#include "openvino/op/relu.hpp"
#include "openvino/op/select.hpp"
#include "openvino/op/sigmoid.hpp"
#include "openvino/op/softmax.hpp"
#include "openvino/op/softplus.hpp"
#include "openvino/op/tile.hpp"
#include "openvino/op/util/max_pool_base.hpp"
#include "openvino/op/minimum.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/squeeze.hpp"
#include "openvino/op/unsqueeze.hpp"
#include "openvino/op/util/convolution_base.hpp"
#include "openvino/op/util/interpolate_base.hpp"
#include "openvino/op/util/arithmetic_reductions_keep_dims.hpp"
#include "openvino/op/util/logical_reduction_keep_dims.hpp"
#include "openvino/op/reshape.hpp"
#include "openvino/op/reduce_logical_or.hpp"
#include "openvino/op/scaled_dot_product_attention.hpp"
#include "openvino/op/select.hpp"
#include "openvino/op/transpose.hpp"
#include "openvino/op/util/binary_elementwise_arithmetic.hpp"
#include "openvino/op/util/binary_elementwise_comparison.hpp"
#include "openvino/op/util/binary_elementwise_logical.hpp"
#include "openvino/op/random_uniform.hpp"
#include "openvino/op/util/framework_node.hpp"
#include "openvino/op/util/multi_subgraph_base.hpp"
#include "openvino/op/util/read_value_base.hpp"
#include "openvino/op/util/unary_elementwise_arithmetic.hpp"

namespace pt2ov::lower {

namespace {

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

// Whether `output` is computed from Constants alone (a Constant, or a Convert, Unsqueeze, ... of
// Constants): the plugin folds such an expression into a Constant when it compiles.
bool from_constants_alone(const ov::Output<ov::Node>& output, int depth = 0) {
    const auto* node = output.get_node();
    if (ov::is_type<ov::op::v0::Constant>(node)) return true;
    if (depth > 8 || node->get_input_size() == 0 || ov::is_type<ov::op::v0::Parameter>(node) ||
        ov::is_type<ov::op::util::ReadValueBase>(node) || ov::is_type<ov::op::util::MultiSubGraphOp>(node) ||
        ov::is_type<ov::op::util::FrameworkNode>(node) || ov::is_type<ov::op::v8::RandomUniform>(node))
        return false;
    for (const auto& input : node->input_values())
        if (!from_constants_alone(input, depth + 1)) return false;
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
        // A constant operand is folded anyway; raised, a scalar would become a [1, ..., 1] constant,
        // which is what ClampOfBroadcastRankLost needs.
        if (from_constants_alone(op->input_value(i))) continue;
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

// ClampOfBroadcastRankLost: Minimum(Maximum(Broadcast(x [56], [1, 56]), c), c) with constants c of
// shape [1, 1] came back at x's rank ([56]); with scalar bounds it keeps [1, 56]. A constant
// operand of Maximum or Minimum whose dims are all 1, beside an operand of the result's rank,
// broadcasts as a scalar would, so it is given as one.
bool scalar_unit_bounds(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    if (!ov::is_type<ov::op::v1::Maximum>(op) && !ov::is_type<ov::op::v1::Minimum>(op)) return false;
    if (openvino_facts::ignored("ClampOfBroadcastRankLost")) return false;
    if (op->get_autob().m_type != ov::op::AutoBroadcastType::NUMPY) return false;
    const auto out_rank = op->get_output_partial_shape(0).rank();
    if (out_rank.is_dynamic()) return false;
    bool changed = false;
    for (size_t i = 0; i < 2; ++i) {
        const auto& shape = op->get_input_partial_shape(i);
        const auto& other = op->get_input_partial_shape(1 - i);
        if (shape.is_dynamic() || shape.rank().get_length() == 0 || other.rank() != out_rank) continue;
        const auto dims = shape.to_shape();
        if (ov::shape_size(dims) != 1 || !from_constants_alone(op->input_value(i))) continue;
        if (from_constants_alone(op->input_value(1 - i))) continue;  // the whole op is folded
        auto empty = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{0}, std::vector<int64_t>{});
        auto scalar = std::make_shared<ov::op::v1::Reshape>(op->input_value(i), empty, false);
        tag_like(empty, op);
        tag_like(scalar, op);
        op->input(i).replace_source_output(scalar);
        changed = true;
    }
    if (changed) made.push_back({"ClampOfBroadcastRankLost", op->get_friendly_name()});
    return changed;
}

// ReduceAxesNegativeAfterUnsqueeze: the plugin's PullReshapeThroughReduce and
// PullUnsqueezeThroughReduce move an Unsqueeze (or a Reshape that only adds dims of 1) from before
// a Reduce to after it, and keep the Reduce's axes Constant as it was when no axis before the
// added dims moves: negative axes then count from the end of the lower-rank input. The same
// axes counted from the start are the same Reduce and survive the move.
bool non_negative_reduce_axes(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    if (!ov::is_type<ov::op::util::ArithmeticReductionKeepDims>(op) &&
        !ov::is_type<ov::op::util::LogicalReductionKeepDims>(op))
        return false;
    if (openvino_facts::ignored("ReduceAxesNegativeAfterUnsqueeze")) return false;
    auto axes = ov::as_type_ptr<ov::op::v0::Constant>(op->get_input_node_shared_ptr(1));
    const auto rank = op->get_input_partial_shape(0).rank();
    if (!axes || rank.is_dynamic()) return false;
    auto values = axes->cast_vector<int64_t>();
    bool negative = false;
    for (auto& axis : values) {
        if (axis >= 0) continue;
        if (axis < -rank.get_length()) return false;  // invalid: leave the error to OpenVINO
        axis += rank.get_length();
        negative = true;
    }
    if (!negative) return false;
    auto written = ov::op::v0::Constant::create(axes->get_element_type(), axes->get_shape(), values);
    tag_like(written, op);
    op->input(1).replace_source_output(written);
    made.push_back({"ReduceAxesNegativeAfterUnsqueeze", op->get_friendly_name()});
    return true;
}

// TileRaisingRankUninitialised: a Tile whose repeats are longer than its input's rank, repeating
// four dims or more, left most of its result unwritten: Tile(x [5, 5, 2, 1], [1, 2, 2, 2, 2])
// gave NaN and 1e37 for every value. With the input given the repeats' rank first (its leading
// dims of 1, as Tile adds them anyway) it is right.
bool raise_tile_input(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    auto tile = ov::as_type_ptr<ov::op::v0::Tile>(op);
    if (!tile || openvino_facts::ignored("TileRaisingRankUninitialised")) return false;
    const auto rank = tile->get_input_partial_shape(0).rank();
    const auto& repeats = tile->get_input_partial_shape(1);
    if (rank.is_dynamic() || repeats.is_dynamic() || repeats.rank().get_length() != 1) return false;
    const int64_t length = repeats[0].get_length();
    if (length <= rank.get_length()) return false;
    std::vector<int64_t> leading(static_cast<size_t>(length - rank.get_length()));
    for (size_t k = 0; k < leading.size(); ++k) leading[k] = static_cast<int64_t>(k);
    auto axes = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{leading.size()}, leading);
    auto raised = std::make_shared<ov::op::v0::Unsqueeze>(tile->input_value(0), axes);
    tag_like(axes, tile);
    tag_like(raised, tile);
    tile->input(0).replace_source_output(raised);
    made.push_back({"TileRaisingRankUninitialised", tile->get_friendly_name()});
    return true;
}

// MaxOfAllInfinite: ReduceMax and MaxPool start from the lowest finite float, so a row or window
// of -inf alone gives -3.4e38, PyTorch -inf (ReduceMin of +inf alone: 3.4e38). Which rows are all
// infinite is known only at run time: the same Reduce (or pool) of an indicator, 1 where x is not
// that infinity and 0 where it is, is 0 exactly where the result must be the infinity. An input
// that cannot hold that infinity (a Relu, Sigmoid, Exp, ... before it) is left alone.
bool never_infinite(const ov::Output<ov::Node>& output, bool negative) {
    const auto* node = output.get_node();
    if (ov::is_type<ov::op::v0::Sigmoid>(node) || ov::is_type<ov::op::v5::HSigmoid>(node) ||
        ov::is_type<ov::op::v1::Softmax>(node) || ov::is_type<ov::op::v8::Softmax>(node))
        return true;
    // A FakeQuantize's output levels lie between its output bounds, which lowering makes finite
    // (lower/low_precision.cpp).
    if (ov::is_type<ov::op::v0::FakeQuantize>(node)) return true;
    if (auto clamp = ov::as_type<const ov::op::v0::Clamp>(node))
        return negative ? std::isfinite(clamp->get_min()) : std::isfinite(clamp->get_max());
    if (!negative) return false;
    return ov::is_type<ov::op::v0::Relu>(node) || ov::is_type<ov::op::v0::Exp>(node) ||
           ov::is_type<ov::op::v0::Abs>(node) || ov::is_type<ov::op::v4::SoftPlus>(node) ||
           ov::is_type<ov::op::v0::Elu>(node);
}

bool keep_infinite_extremes(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    const bool is_pool = ov::is_type<ov::op::util::MaxPoolBase>(op);
    const bool is_max = is_pool || ov::is_type<ov::op::v1::ReduceMax>(op);
    if (!is_max && !ov::is_type<ov::op::v1::ReduceMin>(op)) return false;
    if (openvino_facts::ignored("MaxOfAllInfinite")) return false;
    const auto type = op->get_input_element_type(0);
    if (type != ov::element::f32 && type != ov::element::f64) return false;
    const auto x = op->input_value(0);
    if (never_infinite(x, is_max)) return false;
    const auto y = op->output(0);
    const auto users = y.get_target_inputs();
    if (users.empty()) return false;
    const double infinity = is_max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    // Given in the constant's own type: Constant::create refuses a double infinity for f32.
    auto inf = type == ov::element::f32
                   ? ov::op::v0::Constant::create(type, ov::Shape{}, std::vector<float>{static_cast<float>(infinity)})
                   : ov::op::v0::Constant::create(type, ov::Shape{}, std::vector<double>{infinity});
    auto finite = std::make_shared<ov::op::v1::NotEqual>(x, inf);
    auto indicator = std::make_shared<ov::op::v0::Convert>(finite, type);
    std::shared_ptr<ov::Node> any;
    if (is_pool) {
        any = op->clone_with_new_inputs({indicator});
    } else {
        auto reduce = ov::as_type_ptr<ov::op::util::ArithmeticReductionKeepDims>(op);
        any = std::make_shared<ov::op::v1::ReduceMax>(indicator, op->input_value(1), reduce->get_keep_dims());
    }
    auto zero = ov::op::v0::Constant::create(type, ov::Shape{}, {0.0});
    auto some_finite = std::make_shared<ov::op::v1::Greater>(any->output(0), zero);
    auto fixed = std::make_shared<ov::op::v1::Select>(some_finite, y, inf);
    for (const auto& node : std::vector<std::shared_ptr<ov::Node>>{inf, finite, indicator, any, zero, some_finite, fixed})
        tag_like(node, op);
    any->set_friendly_name(op->get_friendly_name() + "/any_not_infinite");
    for (auto user : users) user.replace_source_output(fixed);
    made.push_back({"MaxOfAllInfinite", op->get_friendly_name()});
    return true;
}

// AttentionMaskedRowsNaN: an attention whose mask blanks every key of a query row (a padded
// sequence's first positions under a causal mask and left padding, a whole padded sequence in a
// batch) gives NaN for that row; PyTorch's attention gives 0 there (its safe softmax), with a
// boolean mask and with an additive one of -inf alike. Which rows are blank is known only at run
// time, so the attention's output is selected against 0 by "the row keeps some key": the mask
// reduced by logical or over its last dim (an additive mask: its entries other than -inf), which
// broadcasts against the output as the mask does against the scores. A causal attention reads no
// mask, and its causal rows keep their first key.
bool zero_fully_masked_attention_rows(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    auto attention = ov::as_type_ptr<ov::op::v13::ScaledDotProductAttention>(op);
    if (!attention || attention->get_causal() || attention->get_input_size() < 4) return false;
    if (openvino_facts::ignored("AttentionMaskedRowsNaN")) return false;
    const auto mask = attention->input_value(3);
    const auto type = attention->get_output_element_type(0);
    const auto& mask_shape = mask.get_partial_shape();
    if (!type.is_real() || mask_shape.rank().is_dynamic() || mask_shape.rank().get_length() < 1) return false;
    if (mask_shape.rank().get_length() > attention->get_output_partial_shape(0).rank().get_length()) return false;
    const auto users = attention->output(0).get_target_inputs();
    if (users.empty()) return false;
    std::vector<std::shared_ptr<ov::Node>> added;
    ov::Output<ov::Node> keeps = mask;
    const auto mask_type = mask.get_element_type();
    if (mask_type != ov::element::boolean) {
        if (!mask_type.is_real()) return false;
        const auto minus_inf = mask_type == ov::element::f32
                                   ? ov::op::v0::Constant::create(mask_type, ov::Shape{}, std::vector<float>{-std::numeric_limits<float>::infinity()})
                                   : ov::op::v0::Constant::create(mask_type, ov::Shape{}, std::vector<double>{-std::numeric_limits<double>::infinity()});
        auto kept = std::make_shared<ov::op::v1::NotEqual>(mask, minus_inf);
        added.insert(added.end(), {minus_inf, kept});
        keeps = kept;
    }
    auto last = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{1}, {-1});
    auto any_key = std::make_shared<ov::op::v1::ReduceLogicalOr>(keeps, last, true);
    auto zero = ov::op::v0::Constant::create(type, ov::Shape{}, {0.0});
    auto guarded = std::make_shared<ov::op::v1::Select>(any_key, attention->output(0), zero);
    added.insert(added.end(), {last, any_key, zero, guarded});
    for (const auto& node : added) tag_like(node, op);
    any_key->set_friendly_name(op->get_friendly_name() + "/row_keeps_a_key");
    guarded->set_friendly_name(op->get_friendly_name() + "/blank_rows_zero");
    for (auto user : users) user.replace_source_output(guarded);
    made.push_back({"AttentionMaskedRowsNaN", op->get_friendly_name()});
    return true;
}

// GroupedMatMulRowsPastLastOffsetRefused: GroupedMatMul finds each row's expert by a sorted
// search of its offsets, and raises for a row past the last one (the CPU plugin's GatherMatmul:
// "Invalid gather_id"), where transformers' grouped product leaves the row 0; an offset beyond the
// rows, which the product's slices clamp, is clamped here too. So every offset is clamped to the
// row count and the last is made the row count, which gives every row an expert (the last one
// for the rows past the real last offset), and those rows are then selected against 0. The
// offsets rise (openvino_facts GroupedMatMulOffsetsMustRise keeps any other on the CPU), so the
// clamped ones do too.
bool bound_grouped_offsets(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    auto grouped = ov::as_type_ptr<ov::op::v17::GroupedMatMul>(op);
    if (!grouped || grouped->get_input_size() < 3 || openvino_facts::ignored("GroupedMatMulRowsPastLastOffsetRefused")) {
        return false;
    }
    const auto& input_shape = grouped->get_input_partial_shape(0);
    const auto& weight_shape = grouped->get_input_partial_shape(1);
    if (input_shape.rank().is_dynamic() || input_shape.rank().get_length() != 2 || weight_shape.rank().is_dynamic() ||
        weight_shape.rank().get_length() != 3 || weight_shape[0].is_dynamic() || weight_shape[0].get_length() < 1) {
        return false;
    }
    const int64_t experts = weight_shape[0].get_length();
    const auto offsets = grouped->input_value(2);
    const auto offsets_type = offsets.get_element_type();
    const auto users = grouped->output(0).get_target_inputs();
    std::vector<std::shared_ptr<ov::Node>> added;
    const auto zero_axis = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{}, {0});
    auto shape = std::make_shared<ov::op::v3::ShapeOf>(grouped->input_value(0), ov::element::i64);
    auto rows = std::make_shared<ov::op::v8::Gather>(shape, zero_axis, zero_axis);  // a scalar
    auto wide = std::make_shared<ov::op::v0::Convert>(offsets, ov::element::i64);
    auto clamped = std::make_shared<ov::op::v1::Minimum>(wide, rows);
    const auto last_index = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{}, {experts - 1});
    auto last = std::make_shared<ov::op::v8::Gather>(clamped, last_index, zero_axis);
    // [0] serves as the slice's start and as its axes alike.
    const auto start = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{1}, {0});
    const auto stop = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{1}, {experts - 1});
    const auto step = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{1}, {1});
    auto head = std::make_shared<ov::op::v8::Slice>(clamped, start, stop, step, start);
    const auto one_dim = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{1}, {1});
    auto rows_once = std::make_shared<ov::op::v1::Reshape>(rows, one_dim, false);
    auto bounded = std::make_shared<ov::op::v0::Concat>(ov::OutputVector{head, rows_once}, 0);
    auto given_type = std::make_shared<ov::op::v0::Convert>(bounded, offsets_type);
    grouped->input(2).replace_source_output(given_type);
    const auto one = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{}, {1});
    auto row_numbers = std::make_shared<ov::op::v4::Range>(zero_axis, rows, one, ov::element::i64);
    auto taken = std::make_shared<ov::op::v1::Less>(row_numbers, last);
    const auto last_dim = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{1}, {-1});
    auto taken_rows = std::make_shared<ov::op::v0::Unsqueeze>(taken, last_dim);
    const auto zero = ov::op::v0::Constant::create(grouped->get_output_element_type(0), ov::Shape{}, {0.0});
    auto guarded = std::make_shared<ov::op::v1::Select>(taken_rows, grouped->output(0), zero);
    added.insert(added.end(), {zero_axis, shape, rows, wide, clamped, last_index, last, start, stop, step, head, one_dim,
                               rows_once, bounded, given_type, one, row_numbers, taken, last_dim, taken_rows, zero, guarded});
    for (const auto& node : added) tag_like(node, op);
    guarded->set_friendly_name(op->get_friendly_name() + "/rows_past_offsets_zero");
    for (auto user : users) user.replace_source_output(guarded);
    made.push_back({"GroupedMatMulRowsPastLastOffsetRefused", op->get_friendly_name()});
    return true;
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

// GroupNormWithComputedOperandCrashes: the plugin's own GroupNormalization (its snippets
// kernel) crashed whenever its result met another computed tensor in a binary elementwise op
// (GN(x) + sigmoid(y)). The same normalization written as the ops PyTorch's definition names
// (the channels split into groups, each normalized by its biased variance with eps inside the
// square root, then the per-channel scale and shift) goes through MVN, which the plugin gets
// right and fuses as fast.
bool decompose_group_norm(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    auto norm = ov::as_type_ptr<ov::op::v12::GroupNormalization>(op);
    if (!norm || openvino_facts::ignored("GroupNormWithComputedOperandCrashes")) return false;
    const auto& data = norm->get_input_partial_shape(0);
    if (data.rank().is_dynamic() || data.rank().get_length() < 2) return false;
    // An empty batch has no -1 to infer in [0, G, -1]; such a GN has nothing to compute anyway.
    if (data[0].is_static() && data[0].get_length() == 0) return false;
    const auto rank = static_cast<size_t>(data.rank().get_length());
    const auto groups = static_cast<int64_t>(norm->get_num_groups());
    auto grouped_shape = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{3}, {int64_t{0}, groups, int64_t{-1}});
    auto grouped = std::make_shared<ov::op::v1::Reshape>(norm->input_value(0), grouped_shape, true);
    auto axes = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{1}, {int64_t{2}});
    auto normalized = std::make_shared<ov::op::v6::MVN>(grouped, axes, true, static_cast<float>(norm->get_epsilon()),
                                                        ov::op::MVNEpsMode::INSIDE_SQRT);
    std::shared_ptr<ov::Node> data_shape;
    if (data.is_static()) {
        const auto shape = data.to_shape();
        data_shape = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{rank}, std::vector<int64_t>(shape.begin(), shape.end()));
    } else {
        data_shape = std::make_shared<ov::op::v3::ShapeOf>(norm->input_value(0), ov::element::i64);
    }
    auto restored = std::make_shared<ov::op::v1::Reshape>(normalized, data_shape, false);
    // Scale and shift are [C]; as [C, 1, ..., 1] they broadcast over the spatial dims.
    std::vector<int64_t> per_channel(rank - 1, 1);
    per_channel[0] = -1;
    auto channel_shape = ov::op::v0::Constant::create(ov::element::i64, ov::Shape{per_channel.size()}, per_channel);
    // The frontend gives a group_norm without weight or bias integer ones and zeros, which
    // GroupNormalization takes as they are; Multiply and Add want the data's type.
    const auto per_channel_input = [&](size_t i) -> ov::Output<ov::Node> {
        const auto value = norm->input_value(i);
        if (value.get_element_type() == norm->get_input_element_type(0)) return value;
        auto converted = std::make_shared<ov::op::v0::Convert>(value, norm->get_input_element_type(0));
        tag_like(converted, norm);
        return converted;
    };
    auto scale = std::make_shared<ov::op::v1::Reshape>(per_channel_input(1), channel_shape, false);
    auto shift = std::make_shared<ov::op::v1::Reshape>(per_channel_input(2), channel_shape, false);
    auto scaled = std::make_shared<ov::op::v1::Multiply>(restored, scale);
    auto shifted = std::make_shared<ov::op::v1::Add>(scaled, shift);
    for (const auto& node : std::vector<std::shared_ptr<ov::Node>>{grouped_shape, grouped, axes, normalized, data_shape, restored,
                                                                   channel_shape, scale, shift, scaled, shifted}) {
        tag_like(node, norm);
    }
    shifted->set_friendly_name(norm->get_friendly_name());
    ov::replace_node(norm, shifted);
    made.push_back({"GroupNormWithComputedOperandCrashes", norm->get_friendly_name()});
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
    // ConvertLike reads only the type of its second input, ShapeOf only the shape of its input
    // (ones_like(s) is Broadcast(1, ShapeOf(s)), converted like s): the plugin folds them.
    if (ov::is_type<ov::op::v1::ConvertLike>(node)) return from_constants(node->input_value(0), depth + 1);
    if (ov::is_type<ov::op::v0::ShapeOf>(node) || ov::is_type<ov::op::v3::ShapeOf>(node)) {
        return node->get_input_partial_shape(0).is_static();
    }
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
        if (ov::is_type<ov::op::util::UnaryElementwiseArithmetic>(node)) {
            if (integral) return true;
            // A floating unary op (sqrt of a variance) is fused too: follow the chain.
            if (depth < 4 && needs_unfused_reduce(node->output(0), integral, depth + 1)) return true;
            continue;
        }
        if (!ov::is_type<ov::op::util::BinaryElementwiseArithmetic>(node) || node->get_input_size() != 2) continue;
        const auto other = node->input_value(1 - user.get_index());
        if (!from_constants(other)) continue;  // a binary op of two computed tensors is not fused
        const auto& shape = other.get_partial_shape();
        if (integral || shape.is_dynamic() || ov::shape_size(shape.to_shape()) > 1) return true;
        // A constant divided by the reduction (or by arithmetic fused after it) is fused as the
        // reduction divided by the constant: 1 / (sum(|x|) * 0.1) gave sum(|x|) * 0.1 (own seed
        // 81133: 1 // x.std()). The reduction divided by a constant, kept a true division (the
        // frontend's divides are), is lost past the first row when a broadcasting op follows:
        // x + Squeeze(ReduceMean(Unsqueeze(x, 1), [2, 1]), 1) / c gave x (own seed 95145). The
        // chain of fused scalar ops is followed to find such a Divide.
        if (ov::is_type<ov::op::v1::Divide>(node)) return true;
        if (depth < 4 && needs_unfused_reduce(node->output(0), integral, depth + 1)) return true;
    }
    return false;
}

// The one reader of `value`, or null when it has none or several.
ov::Node* only_reader(const ov::Output<ov::Node>& value) {
    const auto readers = value.get_target_inputs();
    return readers.size() == 1 ? readers.begin()->get_node() : nullptr;
}

bool is_scalar_from_constants(const ov::Output<ov::Node>& value) {
    const auto& shape = value.get_partial_shape();
    return from_constants(value) && shape.is_static() && ov::shape_size(shape.to_shape()) == 1;
}

// An RMS norm as transformers writes it, x * rsqrt(mean(x^2, -1, keepdim) + eps), then
// optionally a cast and a weight: Power(x, c) -> ReduceMean(last axis, of a known size,
// keep_dims) -> Add(eps) ->
// Sqrt -> Divide(1, .) -> Multiply(x, .) [-> Convert] [-> Multiply(w, .)], each op read by the
// next alone. Returns the names of the ops after the reduction (the plugin's RMS node is named
// after the last of them), empty when `reduce` is not such a norm's.
std::vector<std::string> rms_norm_after(const std::shared_ptr<ov::Node>& reduce) {
    auto mean = ov::as_type_ptr<ov::op::v1::ReduceMean>(reduce);
    if (!mean || !mean->get_keep_dims() || !mean->get_output_element_type(0).is_real()) return {};
    const auto rank = mean->get_input_partial_shape(0).rank();
    auto axes = ov::as_type_ptr<ov::op::v0::Constant>(mean->get_input_node_shared_ptr(1));
    if (rank.is_dynamic() || !axes || ov::shape_size(axes->get_shape()) != 1) return {};
    const auto axis = axes->cast_vector<int64_t>().front();
    if (axis != rank.get_length() - 1 && axis != -1) return {};
    // The plugin fuses a norm over a dim of known size only (the weight's).
    if (mean->get_input_partial_shape(0)[rank.get_length() - 1].is_dynamic()) return {};
    auto* square = ov::as_type<ov::op::v1::Power>(mean->get_input_node_ptr(0));
    if (!square || !is_scalar_from_constants(square->input_value(1))) return {};
    const auto x = square->input_value(0);
    std::vector<std::string> names;
    auto* add = ov::as_type<ov::op::v1::Add>(only_reader(mean->output(0)));
    if (!add || !is_scalar_from_constants(add->input_value(add->input_value(0) == mean->output(0) ? 1 : 0))) return {};
    auto* root = ov::as_type<ov::op::v0::Sqrt>(only_reader(add->output(0)));
    if (!root) return {};
    auto* inverse = ov::as_type<ov::op::v1::Divide>(only_reader(root->output(0)));
    if (!inverse || inverse->input_value(1) != root->output(0) || !is_scalar_from_constants(inverse->input_value(0))) return {};
    auto* scaled = ov::as_type<ov::op::v1::Multiply>(only_reader(inverse->output(0)));
    if (!scaled || (scaled->input_value(0) != x && scaled->input_value(1) != x)) return {};
    for (const ov::Node* node : {static_cast<ov::Node*>(add), static_cast<ov::Node*>(root), static_cast<ov::Node*>(inverse),
                                 static_cast<ov::Node*>(scaled)}) {
        names.push_back(node->get_friendly_name());
    }
    ov::Node* last = scaled;
    if (auto* cast = ov::as_type<ov::op::v0::Convert>(only_reader(last->output(0)))) {
        names.push_back(cast->get_friendly_name());
        last = cast;
    }
    if (auto* weighted = ov::as_type<ov::op::v1::Multiply>(only_reader(last->output(0)))) {
        names.push_back(weighted->get_friendly_name());
    }
    return names;
}

// The rt_info key of a reduction left to the plugin's RMS fusion: the names of the ops after it.
constexpr const char* kExpectedRmsFusion = "pt2ov_expected_rms_fusion";

void put_barrier_after(const std::shared_ptr<ov::Node>& op) {
    const auto users = op->output(0).get_target_inputs();
    auto barrier = std::make_shared<ov::op::v1::Maximum>(op->output(0), op->output(0));
    tag_like(barrier, op);
    barrier->set_friendly_name(op->get_friendly_name() + "/unfused");
    for (auto user : users) user.replace_source_output(barrier->output(0));
}

bool unfuse_reduce_arithmetic(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    const bool reduce = ov::is_type<ov::op::util::ArithmeticReductionKeepDims>(op);
    if (!reduce || openvino_facts::ignored("ReduceFusedArithmeticWrong")) return false;
    const auto type = op->get_output_element_type(0);
    if (type == ov::element::boolean || type.is_dynamic()) return false;
    if (!needs_unfused_reduce(op->output(0), type.is_integral_number())) return false;
    // An RMS norm's reduction is left bare: the plugin fuses the whole norm into one RMS node,
    // no Reduce with fused arithmetic is left, and the barrier would keep it from fusing (the
    // norm then runs as 8 nodes, about 2 % of a small language model's time a token). The
    // compiled model is checked for it (expected_fusions_missed); a load recompiles with the
    // barrier where the plugin did not fuse.
    if (auto after = rms_norm_after(op); !after.empty()) {
        std::string names;
        for (const auto& name : after) names += (names.empty() ? "" : "\n") + name;
        op->get_rt_info()[kExpectedRmsFusion] = names;
        made.push_back({"ReduceFusedArithmeticWrong", op->get_friendly_name() + " (left to the RMS fusion)"});
        return false;
    }
    put_barrier_after(op);
    made.push_back({"ReduceFusedArithmeticWrong", op->get_friendly_name()});
    return true;
}

// ConstantOverFusedOpReversed: the plugin fuses a Divide after an op it gives post-ops to (MVN, a
// convolution of any kind, MatMul, Interpolate, NormalizeL2, a Reduce), or after arithmetic fused
// into such an op, as a post-op of that op, and a Divide kept a true division (the frontend's
// divides are) whose dividend is a constant of one element or one per channel is computed the
// wrong way round: c / (instance_norm(x) + 5) gave (instance_norm(x) + 5) / c. Subtract, Power,
// FloorMod and Mod of a constant by such an op's result are right, and so is a dividend of the
// divisor's full shape or computed at run time. A dividend that is a Parameter at conversion (a
// buffer, a weight) becomes a Constant when a load makes it one (runtime/executor_openvino.cpp),
// so a dividend of Constants or Parameters broadcast over the divisor has the divisor handed to the
// Divide through Maximum(y, y): the same values, NaN and -0.0 included, which the plugin fuses
// into no such op; the Divide is then computed in that elementwise node, the right way round. A
// dividend computed at run time (a softmax's exp, a decomposed layer_norm's x - mean) is left
// alone, and so are the plugin's fusions of such patterns.
bool is_barrier(const ov::Node* node) {
    return ov::is_type<ov::op::v1::Maximum>(node) && node->input_value(0) == node->input_value(1);
}

// Whether `value` is computed by an op the plugin gives post-ops to, directly or through ops it
// fuses after one (elementwise arithmetic of any operands, activations, converts, fake quantizes)
// or reshapes, which the plugin may remove; a barrier (ours, or ReduceFusedArithmeticWrong's)
// stops the search, and so does a reduction left to the plugin's RMS fusion (the compiled model is
// checked for that fusion, and a load bars the reduction where it is missing).
bool fused_into_post_op_host(const ov::Output<ov::Node>& value, int depth = 0) {
    const auto* node = value.get_node();
    if (ov::is_type<ov::op::v0::MVN>(node) || ov::is_type<ov::op::v6::MVN>(node) ||
        ov::is_type<ov::op::util::ConvolutionBase>(node) || ov::is_type<ov::op::v0::MatMul>(node) ||
        ov::is_type<ov::op::util::InterpolateBase>(node) || ov::is_type<ov::op::v0::Interpolate>(node) ||
        ov::is_type<ov::op::v0::NormalizeL2>(node)) {
        return true;
    }
    if (ov::is_type<ov::op::util::ArithmeticReductionKeepDims>(node)) return node->get_rt_info().count(kExpectedRmsFusion) == 0;
    if (depth >= 8 || is_barrier(node)) return false;
    const bool first_only = ov::is_type<ov::op::v1::Reshape>(node) || ov::is_type<ov::op::v0::Squeeze>(node) ||
                            ov::is_type<ov::op::v0::Unsqueeze>(node) || ov::is_type<ov::op::v0::FakeQuantize>(node) ||
                            ov::is_type<ov::op::v0::Convert>(node) || ov::is_type<ov::op::util::UnaryElementwiseArithmetic>(node);
    if (first_only) return fused_into_post_op_host(node->input_value(0), depth + 1);
    if (ov::is_type<ov::op::util::BinaryElementwiseArithmetic>(node) || ov::is_type<ov::op::v0::PRelu>(node) ||
        ov::is_type<ov::op::v4::Swish>(node)) {
        for (const auto& input : node->input_values()) {
            if (fused_into_post_op_host(input, depth + 1)) return true;
        }
    }
    return false;
}

// Whether `value` is computed from Constants and Parameters alone (a buffer reshaped or converted):
// what may be a Constant when the step is compiled.
bool from_constants_or_parameters(const ov::Output<ov::Node>& value, int depth = 0) {
    const auto* node = value.get_node();
    if (ov::is_type<ov::op::v0::Constant>(node) || ov::is_type<ov::op::v0::Parameter>(node)) return true;
    if (depth > 8 || node->get_input_size() == 0) return false;  // a ReadValue, a RandomUniform, ...
    for (const auto& input : node->input_values()) {
        if (!from_constants_or_parameters(input, depth + 1)) return false;
    }
    return true;
}

// Whether `dividend` is broadcast over `divisor`: of a static shape, and of a lower rank or of size 1
// in a dim where the divisor is not statically 1 (one element, one a channel, ...). The plugin fuses
// only such an operand as a post-op; one of the divisor's full shape is computed in its own node.
bool broadcast_over(const ov::Output<ov::Node>& dividend, const ov::Output<ov::Node>& divisor) {
    const auto& small = dividend.get_partial_shape();
    const auto& large = divisor.get_partial_shape();
    if (small.is_dynamic() || large.rank().is_dynamic()) return false;
    const auto shape = small.to_shape();
    const auto rank = static_cast<size_t>(large.rank().get_length());
    if (shape.size() > rank) return false;
    if (shape.size() < rank) return true;
    for (size_t i = 0; i < rank; ++i) {
        if (shape[i] == 1 && !(large[i].is_static() && large[i].get_length() == 1)) return true;
    }
    return false;
}

bool bar_divisor_from_post_op_host(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    auto divide = ov::as_type_ptr<ov::op::v1::Divide>(op);
    if (!divide || openvino_facts::ignored("ConstantOverFusedOpReversed")) return false;
    const auto dividend = divide->input_value(0);
    const auto divisor = divide->input_value(1);
    if (!from_constants_or_parameters(dividend) || !broadcast_over(dividend, divisor)) return false;
    if (is_barrier(divisor.get_node()) || from_constants(divisor) || !fused_into_post_op_host(divisor)) return false;
    auto barrier = std::make_shared<ov::op::v1::Maximum>(divisor, divisor);
    tag_like(barrier, divide);
    barrier->set_friendly_name(divide->get_friendly_name() + "/divisor");
    divide->input(1).replace_source_output(barrier->output(0));
    made.push_back({"ConstantOverFusedOpReversed", divide->get_friendly_name()});
    return true;
}

// MeanOfEqualValuesRounded: MVN's mean of a row of equal values differs from them by a
// rounding, which the division by sqrt(var + eps) magnifies (a layer_norm of six times -0.6059
// gave 1.9e-5 where PyTorch gives 0, exactly: its mean of equal values is exact). MVN does not
// change when every row is shifted by one of its own values; shifted by its first element, a
// row of equal values is zeros, whose mean is exact.
// How many ops above a value the workarounds look for constants: a normalization's axes and a
// scalar operand are a few ops of constants (layer_norm's axes a Range of constants,
// instance_norm's a Range up to the rank, a ShapeOf of a ShapeOf); every op of a model is asked
// about, so a walk to the model's inputs per question would cost the square of its size.
constexpr size_t kConstantDepth = 5;

bool shift_rows_by_first(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    auto mvn = ov::as_type_ptr<ov::op::v6::MVN>(op);
    if (!mvn || !mvn->get_normalize_variance() || openvino_facts::ignored("MeanOfEqualValuesRounded")) return false;
    if (!mvn->get_input_element_type(0).is_real()) return false;
    auto axes = constant_value(mvn->input_value(1), kConstantDepth);
    const auto& data = mvn->get_input_partial_shape(0);
    if (!axes || data.rank().is_dynamic()) return false;
    const int64_t rank = data.rank().get_length();
    std::vector<int64_t> reduced = axes->cast_vector<int64_t>();
    if (reduced.empty()) return false;
    for (auto& axis : reduced) {
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank) return false;
        if (data[axis].is_static() && data[axis].get_length() == 0) return false;  // no first element
    }
    const ov::Shape count{reduced.size()};
    auto starts = ov::op::v0::Constant::create(ov::element::i64, count, std::vector<int64_t>(reduced.size(), 0));
    auto stops = ov::op::v0::Constant::create(ov::element::i64, count, std::vector<int64_t>(reduced.size(), 1));
    auto steps = ov::op::v0::Constant::create(ov::element::i64, count, std::vector<int64_t>(reduced.size(), 1));
    auto along = ov::op::v0::Constant::create(ov::element::i64, count, reduced);
    auto first = std::make_shared<ov::op::v8::Slice>(mvn->input_value(0), starts, stops, steps, along);
    auto shifted = std::make_shared<ov::op::v1::Subtract>(mvn->input_value(0), first);
    for (const auto& node : std::vector<std::shared_ptr<ov::Node>>{starts, stops, steps, along, first, shifted}) tag_like(node, mvn);
    mvn->input(0).replace_source_output(shifted);
    made.push_back({"MeanOfEqualValuesRounded", mvn->get_friendly_name()});
    return true;
}

// Whether `value` is a scalar constant (after folding) equal to `expected`.
bool is_scalar_constant(const ov::Output<ov::Node>& value, double expected) {
    auto constant = constant_value(value, kConstantDepth);
    if (!constant || ov::shape_size(constant->get_shape()) != 1 || !constant->get_element_type().is_real()) return false;
    return constant->cast_vector<double>()[0] == expected;
}

// The decomposed form, min(max(x + 3, 0), 6) / 6, which the plugin fuses into HSigmoid: its x.
std::optional<ov::Output<ov::Node>> decomposed_hardsigmoid_input(const std::shared_ptr<ov::Node>& op) {
    auto divide = ov::as_type_ptr<ov::op::v1::Divide>(op);
    if (!divide || !is_scalar_constant(divide->input_value(1), 6.0)) return std::nullopt;
    auto minimum = ov::as_type_ptr<ov::op::v1::Minimum>(divide->get_input_node_shared_ptr(0));
    if (!minimum || !is_scalar_constant(minimum->input_value(1), 6.0)) return std::nullopt;
    auto maximum = ov::as_type_ptr<ov::op::v1::Maximum>(minimum->get_input_node_shared_ptr(0));
    if (!maximum || !is_scalar_constant(maximum->input_value(1), 0.0)) return std::nullopt;
    auto add = ov::as_type_ptr<ov::op::v1::Add>(maximum->get_input_node_shared_ptr(0));
    if (!add || !is_scalar_constant(add->input_value(1), 3.0)) return std::nullopt;
    return add->input_value(0);
}

// HardSigmoidSaturatesBelowOne: the plugin's HSigmoid of an input of 3 or more gives 0.99999994,
// where PyTorch's min(max(x + 3, 0), 6) / 6 is exactly 1 (own seed 81905: remainder(hardsigmoid(
// norm), 0.25) gave 0.25 for 0, so its bool was True). Written as Clamp((x + 3) / 6, 0, 1).
bool hardsigmoid_as_clamp(const std::shared_ptr<ov::Node>& op, std::vector<Workaround>& made) {
    if (openvino_facts::ignored("HardSigmoidSaturatesBelowOne")) return false;
    auto hsigmoid = ov::as_type_ptr<ov::op::v5::HSigmoid>(op);
    std::optional<ov::Output<ov::Node>> input;
    if (hsigmoid) input = hsigmoid->input_value(0);
    else input = decomposed_hardsigmoid_input(op);
    if (!input) return false;
    const auto type = op->get_output_element_type(0);
    if (!type.is_real()) return false;
    auto three = ov::op::v0::Constant::create(type, {}, {3.0});
    auto six = ov::op::v0::Constant::create(type, {}, {6.0});
    // Clamped after the division: the plugin fuses PyTorch's own order back into HSigmoid. The
    // same values: x + 3 in [0, 6] divides alike, and beyond it the clamp gives 0 or 1 exactly.
    auto shifted = std::make_shared<ov::op::v1::Add>(*input, three);
    auto scaled = std::make_shared<ov::op::v1::Divide>(shifted, six);
    auto clamped = std::make_shared<ov::op::v0::Clamp>(scaled, 0.0, 1.0);
    for (const auto& node : std::vector<std::shared_ptr<ov::Node>>{three, six, shifted, scaled, clamped}) tag_like(node, op);
    clamped->set_friendly_name(op->get_friendly_name());
    ov::replace_node(op, clamped);
    made.push_back({"HardSigmoidSaturatesBelowOne", clamped->get_friendly_name()});
    return true;
}

}  // namespace

std::vector<Workaround> work_around_plugin_faults(ov::Model& model) {
    std::vector<Workaround> made;
    bool replaced = false;
    for (const auto& op : model.get_ordered_ops()) {
        replaced |= non_negative_reduce_axes(op, made);
        replaced |= wrap_rank_one_abs(op, made);
        replaced |= keep_reduced_dims(op, made);
        replaced |= reshape_unit_dim_transpose(op, made);
        replaced |= raise_broadcast_rank(op, made);
        replaced |= scalar_unit_bounds(op, made);
        replaced |= raise_tile_input(op, made);
        replaced |= decompose_group_norm(op, made);
        replaced |= hardsigmoid_as_clamp(op, made);
        use_half_pixel(op, made);
        undilate_unit_kernel_dims(op, made);
    }
    // After the loop: keep_reduced_dims's Reduce is a new op, and it needs the same.
    for (const auto& op : model.get_ordered_ops()) replaced |= unfuse_reduce_arithmetic(op, made);
    if (replaced) model.validate_nodes_and_infer_types();
    // After the rewrites above, so that it wraps the Reduces they made (keep_dims ones).
    bool wrapped = false;
    for (const auto& op : model.get_ordered_ops()) wrapped |= keep_infinite_extremes(op, made);
    // After decompose_group_norm, whose MVN needs it as much.
    for (const auto& op : model.get_ordered_ops()) wrapped |= shift_rows_by_first(op, made);
    // After unfuse_reduce_arithmetic, whose barriers and RMS marks it reads.
    for (const auto& op : model.get_ordered_ops()) wrapped |= bar_divisor_from_post_op_host(op, made);
    for (const auto& op : model.get_ordered_ops()) wrapped |= zero_fully_masked_attention_rows(op, made);
    for (const auto& op : model.get_ordered_ops()) wrapped |= bound_grouped_offsets(op, made);
    if (wrapped) model.validate_nodes_and_infer_types();
    return made;
}

std::vector<std::string> expected_fusions_missed(const ov::Model& model, const ov::Model& compiled) {
    // The compiled model names each node by the ops it runs (originalLayersNames, comma-separated).
    std::set<std::string> anywhere, in_rms;
    for (const auto& node : compiled.get_ops()) {
        const auto& info = node->get_rt_info();
        const auto names = info.find("originalLayersNames");
        const auto type = info.find("layerType");
        if (names == info.end()) continue;
        const bool rms = type != info.end() && type->second.as<std::string>() == "RMS";
        for (const auto& name : split(names->second.as<std::string>(), ',')) {
            anywhere.insert(name);
            if (rms) in_rms.insert(name);
        }
    }
    std::vector<std::string> missed;
    for (const auto& op : model.get_ops()) {
        const auto& info = op->get_rt_info();
        const auto mark = info.find(kExpectedRmsFusion);
        if (mark == info.end()) continue;
        // Fused: the reduction runs in no node of its own or another's, and an RMS node runs
        // the ops after it.
        const auto after = split(mark->second.as<std::string>(), '\n');
        const bool in_an_rms_node =
            std::any_of(after.begin(), after.end(), [&](const std::string& name) { return in_rms.count(name) > 0; });
        if (anywhere.count(op->get_friendly_name()) || !in_an_rms_node) missed.push_back(op->get_friendly_name());
    }
    return missed;
}

size_t bar_expected_fusions(ov::Model& model) {
    size_t barred = 0;
    for (const auto& op : model.get_ordered_ops()) {
        if (op->get_rt_info().erase(kExpectedRmsFusion) == 0) continue;
        put_barrier_after(op);
        ++barred;
    }
    if (barred) model.validate_nodes_and_infer_types();
    return barred;
}

bool expects_fusions(const ov::Model& model) {
    for (const auto& op : model.get_ops()) {
        if (op->get_rt_info().count(kExpectedRmsFusion)) return true;
    }
    return false;
}

}  // namespace pt2ov::lower
