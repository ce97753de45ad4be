#include "lower/appending_cache.h"

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "openvino/core/graph_util.hpp"
#include "openvino/core/rt_info.hpp"
#include "openvino/op/add.hpp"
#include "openvino/op/assign.hpp"
#include "openvino/op/broadcast.hpp"
#include "openvino/op/concat.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/convert.hpp"
#include "openvino/op/gather.hpp"
#include "openvino/op/multiply.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/range.hpp"
#include "openvino/op/read_value.hpp"
#include "openvino/op/reshape.hpp"
#include "openvino/op/scaled_dot_product_attention.hpp"
#include "openvino/op/scatter_elements_update.hpp"
#include "openvino/op/select.hpp"
#include "openvino/op/shape_of.hpp"
#include "openvino/op/slice.hpp"
#include "openvino/op/squeeze.hpp"
#include "openvino/op/unsqueeze.hpp"
#include "openvino/op/util/variable.hpp"

namespace pt2ov::lower {

namespace {

using Out = ov::Output<ov::Node>;

Out through_converts(Out value) {
    while (ov::is_type<ov::op::v0::Convert>(value.get_node())) value = value.get_node()->input_value(0);
    return value;
}

// Through the ops that only reshape a one-element value (and converts).
Out through_reshapes(Out value) {
    for (;;) {
        value = through_converts(value);
        const auto* node = value.get_node();
        if (!ov::is_type<ov::op::v0::Unsqueeze>(node) && !ov::is_type<ov::op::v1::Reshape>(node) &&
            !ov::is_type<ov::op::v0::Squeeze>(node) && !ov::is_type<ov::op::v15::Squeeze>(node)) {
            return value;
        }
        value = node->input_value(0);
    }
}

// A Constant of one element, `expected` (a scalar or [1], maybe reshaped: the frontend spells
// an index as a Reshape of a scalar Constant).
bool constant_is(const Out& value, int64_t expected) {
    const auto constant = ov::as_type_ptr<ov::op::v0::Constant>(through_reshapes(value).get_node_shared_ptr());
    if (!constant || ov::shape_size(constant->get_shape()) != 1) return false;
    const auto values = constant->cast_vector<double>();
    return values.size() == 1 && values[0] == static_cast<double>(expected);
}

bool is_positions(const Out& value, const std::string& name) {
    const auto parameter = ov::as_type_ptr<ov::op::v0::Parameter>(through_converts(value).get_node_shared_ptr());
    if (!parameter) return false;
    return parameter->get_friendly_name() == name || parameter->output(0).get_names().count(name) > 0;
}

// positions[0], as a scalar or a one-element vector.
bool is_first_position(const Out& value, const std::string& name) {
    const auto* gather = through_reshapes(value).get_node();
    if (!ov::is_type<ov::op::util::GatherBase>(gather)) return false;
    const auto* base = ov::as_type<const ov::op::util::GatherBase>(gather);
    return base->get_batch_dims() == 0 && is_positions(gather->input_value(0), name) &&
           constant_is(gather->input_value(1), 0) && constant_is(gather->input_value(2), 0);
}

// arange(S): a Range from 0 by 1.
bool is_arange_from_zero(const Out& value) {
    const auto* range = through_converts(value).get_node();
    if (!ov::is_type<ov::op::v4::Range>(range) && !ov::is_type<ov::op::v0::Range>(range)) return false;
    return constant_is(range->input_value(0), 0) && constant_is(range->input_value(2), 1);
}

// The index vector the cache is written at is the promised positions themselves: the
// positions input, or positions[0] + arange(S) (transformers' StaticLayer).
bool written_at_positions(const Out& index, const std::string& name) {
    const Out value = through_converts(index);
    if (is_positions(value, name)) return true;
    if (!ov::is_type<ov::op::v1::Add>(value.get_node())) return false;
    const Out a = value.get_node()->input_value(0), b = value.get_node()->input_value(1);
    return (is_arange_from_zero(a) && is_first_position(b, name)) || (is_arange_from_zero(b) && is_first_position(a, name));
}

// The [S] index vector an explicit Broadcast along dim 2 spreads over the update's shape.
bool spread_along_positions(const Out& indices, Out& vector) {
    const auto node = indices.get_node_shared_ptr();
    bool explicit_mode = false;
    if (const auto v3 = ov::as_type_ptr<ov::op::v3::Broadcast>(node)) {
        explicit_mode = v3->get_broadcast_spec().m_type == ov::op::BroadcastType::EXPLICIT;
    } else if (const auto v1 = ov::as_type_ptr<ov::op::v1::Broadcast>(node)) {
        explicit_mode = v1->get_broadcast_spec().m_type == ov::op::AutoBroadcastType::EXPLICIT;
    }
    if (!explicit_mode || node->get_input_size() != 3 || !constant_is(node->input_value(2), 2)) return false;
    if (node->get_input_partial_shape(0).rank() != 1) return false;
    vector = node->input_value(0);
    return true;
}

// One cache: ReadValue(var) -> ScatterElementsUpdate(axis 2, at the positions) -> Assign(var).
struct Cache {
    std::shared_ptr<ov::op::v6::Assign> assign;
    std::shared_ptr<ov::Node> read;     // the ReadValue
    std::shared_ptr<ov::Node> scatter;  // its new value
    Out update;                         // [B, H, S, D]: this call's keys or values
    ov::Shape shape;                    // [B, H, capacity, D]
    ov::element::Type type;
};

bool match_cache(const std::shared_ptr<ov::op::v6::Assign>& assign, const std::string& positions, Cache& cache) {
    const auto scatter = assign->input_value(0).get_node_shared_ptr();
    if (const auto v12 = ov::as_type_ptr<ov::op::v12::ScatterElementsUpdate>(scatter)) {
        if (v12->get_reduction() != ov::op::v12::ScatterElementsUpdate::Reduction::NONE) return false;
    } else if (!ov::is_type<ov::op::v3::ScatterElementsUpdate>(scatter)) {
        return false;
    }
    const auto read = ov::as_type_ptr<ov::op::v6::ReadValue>(scatter->input_value(0).get_node_shared_ptr());
    if (!read || read->get_input_size() != 0 || read->get_variable_id() != assign->get_variable_id() ||
        read->output(0).get_target_inputs().size() != 1) {
        return false;
    }
    const auto& shape = read->get_output_partial_shape(0);
    if (shape.is_dynamic() || shape.rank().get_length() != 4) return false;
    if (!constant_is(scatter->input_value(3), 2) && !constant_is(scatter->input_value(3), -2)) return false;
    Out vector;
    if (!spread_along_positions(scatter->input_value(1), vector) || !written_at_positions(vector, positions)) return false;
    const Out update = scatter->input_value(2);
    const auto& update_shape = update.get_partial_shape();
    const ov::Shape static_shape = shape.to_shape();
    if (update_shape.rank().is_dynamic() || update_shape.rank().get_length() != 4) return false;
    // The frontend may have lost some of the update's sizes; the scatter needs them equal to
    // the cache's but at dim 2, as the Concat will.
    for (size_t d : {0, 1, 3}) {
        if (!update_shape[d].compatible(static_cast<int64_t>(static_shape[d]))) return false;
    }
    cache = {assign, read, scatter, update, static_shape, read->get_output_element_type(0)};
    return true;
}

// Where a cache's new value is read: as the K or V input of an attention, directly (4-D) or
// through the Unsqueeze at dim 2 of the grouped-query form (lower/grouped_attention.h, 5-D).
struct Use {
    std::shared_ptr<ov::op::v13::ScaledDotProductAttention> attention;
    size_t port = 0;
};

bool attention_use(const ov::Input<ov::Node>& input, Use& use) {
    auto* node = input.get_node();
    if (auto* attention = ov::as_type<ov::op::v13::ScaledDotProductAttention>(node)) {
        if (node->get_input_partial_shape(0).rank() != 4) return false;
        use = {std::static_pointer_cast<ov::op::v13::ScaledDotProductAttention>(attention->shared_from_this()),
               input.get_index()};
        return use.port == 1 || use.port == 2;
    }
    if (!ov::is_type<ov::op::v0::Unsqueeze>(node) || !constant_is(node->input_value(1), 2)) return false;
    const auto targets = node->output(0).get_target_inputs();
    if (targets.size() != 1) return false;
    const auto target = *targets.begin();
    auto* attention = ov::as_type<ov::op::v13::ScaledDotProductAttention>(target.get_node());
    if (!attention || attention->get_input_partial_shape(0).rank() != 5) return false;
    use = {std::static_pointer_cast<ov::op::v13::ScaledDotProductAttention>(attention->shared_from_this()),
           target.get_index()};
    return use.port == 1 || use.port == 2;
}

std::shared_ptr<ov::op::v0::Constant> i64s(const std::vector<int64_t>& values) {
    return ov::op::v0::Constant::create(ov::element::i64, ov::Shape{values.size()}, values);
}

// The only reader of a grouped (5-D) attention's output when it is the Reshape back to
// [B, heads, L, D] that lower/grouped_attention.cpp writes (the batch kept, L inferred); null
// otherwise.
std::shared_ptr<ov::Node> folds_groups_back(const ov::Node& attention, int64_t heads, int64_t value_width) {
    const auto targets = attention.output(0).get_target_inputs();
    if (targets.size() != 1) return nullptr;
    auto* reshape = ov::as_type<ov::op::v1::Reshape>(targets.begin()->get_node());
    if (!reshape || !reshape->get_special_zero()) return nullptr;
    const auto pattern = ov::as_type_ptr<ov::op::v0::Constant>(reshape->input_value(1).get_node_shared_ptr());
    if (!pattern || pattern->cast_vector<int64_t>() != std::vector<int64_t>{0, heads, -1, value_width}) return nullptr;
    return reshape->shared_from_this();
}

}  // namespace

std::vector<AppendedCache> append_to_static_caches(ov::Model& model, const std::string& positions_parameter) {
    std::shared_ptr<ov::op::v0::Parameter> positions;
    for (const auto& parameter : model.get_parameters()) {
        if (is_positions(parameter->output(0), positions_parameter)) positions = parameter;
    }
    if (!positions || positions->get_partial_shape().rank() != 1) return {};

    // Each attention's K and V caches, as found.
    struct Caches {
        std::shared_ptr<ov::op::v13::ScaledDotProductAttention> attention;
        std::optional<Cache> keys, values;
    };
    std::map<ov::Node*, Caches> attentions;
    for (const auto& sink : model.get_sinks()) {
        const auto assign = ov::as_type_ptr<ov::op::v6::Assign>(sink);
        Cache cache;
        if (!assign || !match_cache(assign, positions_parameter, cache)) continue;
        // The new value goes to the Assign and to exactly one attention.
        Use use;
        int uses = 0;
        bool only_attention = true;
        for (const auto& target : cache.scatter->output(0).get_target_inputs()) {
            if (target.get_node() == assign.get()) continue;
            ++uses;
            only_attention = only_attention && attention_use(target, use);
        }
        if (!only_attention || uses != 1) continue;
        Caches& found = attentions[use.attention.get()];
        found.attention = use.attention;
        (use.port == 1 ? found.keys : found.values) = cache;
    }

    std::vector<AppendedCache> appended;
    std::shared_ptr<ov::Node> beam;  // the batch order the plugin's fused attention takes (identity)
    std::shared_ptr<ov::Node> held;  // how many positions the caches hold after this call
    std::map<Out, Out> sliced_masks;
    for (const auto& [node, found] : attentions) {
        const auto& attention = found.attention;
        if (!found.keys || !found.values || attention->get_causal() || attention->get_input_size() < 4) continue;
        const Cache& keys = *found.keys;
        const Cache& values = *found.values;
        if (keys.shape[2] != values.shape[2] || keys.shape[0] != values.shape[0]) continue;
        const int64_t capacity = static_cast<int64_t>(keys.shape[2]);
        const bool grouped = attention->get_input_partial_shape(0).rank() == 5;

        // The query and the mask as the 4-D attention takes them.
        Out query = attention->input_value(0);
        Out mask = attention->input_value(3);
        int64_t kv_heads = static_cast<int64_t>(keys.shape[1]), group = 1;
        if (grouped) {
            const auto& q5 = query.get_partial_shape();
            if (!ov::is_type<ov::op::v1::Reshape>(query.get_node()) || q5[2].is_dynamic() || q5[1].is_dynamic() ||
                q5[1].get_length() != kv_heads || query.get_node()->get_input_partial_shape(0).rank() != 4) {
                continue;
            }
            group = q5[2].get_length();
            query = query.get_node()->input_value(0);
            if (ov::is_type<ov::op::v0::Unsqueeze>(mask.get_node()) && constant_is(mask.get_node()->input_value(1), 1) &&
                mask.get_node()->get_input_partial_shape(0).rank() == 4) {
                mask = mask.get_node()->input_value(0);
            }
        }
        const auto& mask_shape = mask.get_partial_shape();
        if (mask_shape.rank().is_dynamic() || mask_shape.rank().get_length() < 1 || mask_shape.rank().get_length() > 4 ||
            mask_shape[mask_shape.rank().get_length() - 1] != ov::Dimension(capacity)) {
            continue;
        }
        const auto& value_out = attention->get_output_partial_shape(0);
        const auto last = value_out.rank().get_length() - 1;
        if (value_out[last].is_dynamic()) continue;
        const int64_t value_width = value_out[last].get_length();

        if (!beam) {
            // 0 computed from the positions' length, so that no pass folds the Gather away:
            // the plugin fuses the cache with the attention only through one.
            auto length = std::make_shared<ov::op::v3::ShapeOf>(positions, ov::element::i64);
            auto zero = std::make_shared<ov::op::v1::Multiply>(length, i64s({0}));
            auto as_i32 = std::make_shared<ov::op::v0::Convert>(zero, ov::element::i32);
            std::vector<int32_t> order(keys.shape[0]);
            for (size_t b = 0; b < order.size(); ++b) order[b] = static_cast<int32_t>(b);
            beam = std::make_shared<ov::op::v1::Add>(
                ov::op::v0::Constant::create(ov::element::i32, ov::Shape{order.size()}, order), as_i32);
        }
        auto grow = [&](const Cache& cache) -> std::shared_ptr<ov::Node> {
            ov::op::util::VariableInfo info{ov::PartialShape{static_cast<int64_t>(cache.shape[0]),
                                                             static_cast<int64_t>(cache.shape[1]), -1,
                                                             static_cast<int64_t>(cache.shape[3])},
                                            cache.type, cache.assign->get_variable_id()};
            auto variable = std::make_shared<ov::op::util::Variable>(info);
            ov::Shape empty = cache.shape;
            empty[2] = 0;
            auto nothing = ov::op::v0::Constant::create(cache.type, empty, std::vector<float>{});
            auto read = std::make_shared<ov::op::v6::ReadValue>(nothing, variable);
            read->set_friendly_name(cache.read->get_friendly_name());
            auto ordered = std::make_shared<ov::op::v8::Gather>(read, beam, i64s({0}));
            auto appended_value = std::make_shared<ov::op::v0::Concat>(ov::OutputVector{ordered, cache.update}, 2);
            auto assign = std::make_shared<ov::op::v6::Assign>(appended_value, variable);
            assign->set_friendly_name(cache.assign->get_friendly_name());
            ov::copy_runtime_info(cache.scatter, {read, ordered, appended_value, assign});
            model.remove_sink(cache.assign);
            model.remove_variable(cache.assign->get_variable());
            model.add_variables({variable});
            model.add_sinks({assign});
            return appended_value;
        };
        const auto all_keys = grow(keys);
        const auto all_values = grow(values);
        auto repeated = [&](const std::shared_ptr<ov::Node>& cache) -> Out {
            if (!grouped) return cache;
            // [B, KV heads, L, D] -> [B, KV heads * group, L, D], the repeat the plugin's fused
            // attention recognises and reads without making it.
            auto widened = std::make_shared<ov::op::v3::Broadcast>(
                std::make_shared<ov::op::v0::Unsqueeze>(cache, i64s({2})), i64s({1, 1, group, 1, 1}),
                ov::op::BroadcastType::BIDIRECTIONAL);
            return std::make_shared<ov::op::v1::Reshape>(
                widened, i64s({0, kv_heads * group, -1, static_cast<int64_t>(keys.shape[3])}), true);
        };
        // The mask over the positions the cache now holds: as many as the last position + 1
        // (the promise), one slice for every attention that reads the same mask.
        if (!held) {
            auto last = std::make_shared<ov::op::v8::Gather>(positions, i64s({-1}), i64s({0}));
            held = std::make_shared<ov::op::v1::Add>(std::make_shared<ov::op::v0::Convert>(last, ov::element::i64), i64s({1}));
        }
        auto& sliced = sliced_masks[mask];
        if (!sliced.get_node()) {
            sliced = std::make_shared<ov::op::v8::Slice>(mask, i64s({0}), held, i64s({1}), i64s({-1}));
            if (mask.get_element_type() == ov::element::boolean) {
                // True attends: 0 added; false: -inf, as the attention reads a boolean mask.
                const auto type = attention->get_output_element_type(0);
                sliced = std::make_shared<ov::op::v1::Select>(
                    sliced, ov::op::v0::Constant::create(type, ov::Shape{}, {0.0f}),
                    ov::op::v0::Constant::create(type, ov::Shape{}, {-std::numeric_limits<float>::infinity()}));
            }
        }
        ov::OutputVector inputs{query, repeated(all_keys), repeated(all_values), sliced};
        for (size_t i = 4; i < attention->get_input_size(); ++i) inputs.push_back(attention->input_value(i));
        auto fused = std::make_shared<ov::op::v13::ScaledDotProductAttention>(inputs, false);
        ov::copy_runtime_info(attention, fused);
        // The grouped form's reader folds [B, KV heads, group, L, D] back to [B, heads, L, D]
        // (lower/grouped_attention.cpp): that reader takes the fused attention's output as it
        // is, and no Reshape pair is left after every attention.
        const auto fold = grouped ? folds_groups_back(*attention, kv_heads * group, value_width) : nullptr;
        if (fold) {
            fused->set_friendly_name(fold->get_friendly_name());
            ov::copy_runtime_info({attention, fold}, fused);
            fold->output(0).replace(fused->output(0));
        } else {
            std::shared_ptr<ov::Node> result = fused;
            if (grouped) {
                result = std::make_shared<ov::op::v1::Reshape>(fused, i64s({0, kv_heads, group, -1, value_width}), true);
                ov::copy_runtime_info(attention, result);
            }
            result->set_friendly_name(attention->get_friendly_name());
            ov::replace_node(attention, result);
        }
        appended.push_back({keys.assign->get_variable_id(), capacity});
        appended.push_back({values.assign->get_variable_id(), capacity});
    }
    if (appended.empty()) return appended;
    // The CPU plugin sizes the fused attention's buffers at compile by the upper bounds of the
    // inputs' dynamic dims (Qwen2.5-0.5B's shape, 272 positions: 250 MB more at load than the
    // whole peak of OpenVINO GenAI's); unbounded, it sizes them as calls come. The executor
    // checks every input's dims against the program's ranges before a call: the model needs no
    // bounds.
    for (const auto& parameter : model.get_parameters()) {
        ov::PartialShape shape = parameter->get_partial_shape();
        if (shape.rank().is_dynamic()) continue;
        bool bounded = false;
        for (auto& dim : shape) {
            if (dim.is_dynamic() && dim.get_interval().has_upper_bound()) {
                dim = ov::Dimension::dynamic();
                bounded = true;
            }
        }
        if (bounded) parameter->set_partial_shape(shape);
    }
    model.validate_nodes_and_infer_types();
    return appended;
}

}  // namespace pt2ov::lower
