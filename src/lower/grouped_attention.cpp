#include "lower/grouped_attention.h"

#include <memory>
#include <vector>

#include "openvino/core/graph_util.hpp"
#include "openvino/core/rt_info.hpp"
#include "openvino/op/broadcast.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/reshape.hpp"
#include "openvino/op/scaled_dot_product_attention.hpp"
#include "openvino/op/unsqueeze.hpp"

namespace pt2ov::lower {

namespace {

// The [B, KV heads, 1, L, D] value a [B, KV heads * group, L, D] input repeats (a Reshape of a
// Broadcast along dim 2 of it), with its head count and group; null when it is no such repeat.
struct Repeat {
    ov::Output<ov::Node> source;
    int64_t kv_heads = 0;
    int64_t group = 0;
};

bool repeat_behind(const ov::Output<ov::Node>& input, Repeat& found) {
    const auto reshape = ov::as_type_ptr<ov::op::v1::Reshape>(input.get_node_shared_ptr());
    if (!reshape) return false;
    const auto broadcast = reshape->input_value(0).get_node_shared_ptr();
    if (!ov::is_type<ov::op::v3::Broadcast>(broadcast) && !ov::is_type<ov::op::v1::Broadcast>(broadcast)) return false;
    const auto& out = reshape->get_output_partial_shape(0);
    const auto& wide = broadcast->get_output_partial_shape(0);
    const auto& narrow = broadcast->get_input_partial_shape(0);
    if (out.rank().is_dynamic() || wide.rank().is_dynamic() || narrow.rank().is_dynamic() || out.rank().get_length() != 4 ||
        wide.rank().get_length() != 5 || narrow.rank().get_length() != 5) {
        return false;
    }
    // [B, Hkv, 1, L, D] -> [B, Hkv, G, L, D] -> [B, Hkv * G, L, D], every size but the batch static.
    for (size_t d = 1; d < 5; ++d) {
        if (wide[d].is_dynamic() || narrow[d].is_dynamic()) return false;
    }
    if (narrow[2].get_length() != 1 || narrow[1] != wide[1] || narrow[3] != wide[3] || narrow[4] != wide[4]) return false;
    if (out[1].is_dynamic() || out[1].get_length() != wide[1].get_length() * wide[2].get_length() || out[2] != wide[3] ||
        out[3] != wide[4]) {
        return false;
    }
    found.source = broadcast->input_value(0);
    found.kv_heads = wide[1].get_length();
    found.group = wide[2].get_length();
    return true;
}

std::shared_ptr<ov::Node> shape_constant(const std::vector<int64_t>& values) {
    return ov::op::v0::Constant::create(ov::element::i64, ov::Shape{values.size()}, values);
}

}  // namespace

size_t attend_grouped_queries_by_broadcast(ov::Model& model) {
    size_t rewritten = 0;
    for (const auto& node : model.get_ordered_ops()) {
        const auto sdpa = ov::as_type_ptr<ov::op::v13::ScaledDotProductAttention>(node);
        if (!sdpa || sdpa->get_input_size() < 3) continue;
        Repeat keys, values;
        if (!repeat_behind(sdpa->input_value(1), keys) || !repeat_behind(sdpa->input_value(2), values) ||
            keys.kv_heads != values.kv_heads || keys.group != values.group || keys.group < 2) {
            continue;
        }
        // The query's heads may be unknown to shape inference (a view of a dynamic sequence); the
        // SDPA itself requires them to be the repeated K's, which are known.
        const auto& query = sdpa->get_input_partial_shape(0);
        if (query.rank().is_dynamic() || query.rank().get_length() != 4 || query[3].is_dynamic() ||
            (query[1].is_static() && query[1].get_length() != keys.kv_heads * keys.group)) {
            continue;
        }
        const int64_t heads = keys.kv_heads * keys.group, width = query[3].get_length();
        const int64_t value_width = sdpa->get_output_partial_shape(0)[3].is_static() ? sdpa->get_output_partial_shape(0)[3].get_length() : -1;
        if (value_width < 0) continue;
        ov::OutputVector inputs;
        std::vector<std::shared_ptr<ov::Node>> made;
        // Q [B, H, S, D] as [B, Hkv, G, S, D] (0: the batch as it is; -1: S).
        auto grouped = std::make_shared<ov::op::v1::Reshape>(
            sdpa->input_value(0), shape_constant({0, keys.kv_heads, keys.group, -1, width}), true);
        made.push_back(grouped);
        inputs.push_back(grouped);
        inputs.push_back(keys.source);
        inputs.push_back(values.source);
        if (sdpa->get_input_size() > 3) {
            // A mask [B, 1, S, L] gains the group dim; one of rank 3 or less broadcasts as it is.
            const auto mask = sdpa->input_value(3);
            const auto& shape = mask.get_partial_shape();
            if (shape.rank().is_dynamic() || shape.rank().get_length() > 4) continue;
            if (shape.rank().get_length() == 4) {
                if (shape[1].is_dynamic() || shape[1].get_length() != 1) continue;
                auto unsqueezed = std::make_shared<ov::op::v0::Unsqueeze>(mask, shape_constant({1}));
                made.push_back(unsqueezed);
                inputs.push_back(unsqueezed);
            } else {
                inputs.push_back(mask);
            }
        }
        for (size_t i = 4; i < sdpa->get_input_size(); ++i) inputs.push_back(sdpa->input_value(i));
        auto attention = std::make_shared<ov::op::v13::ScaledDotProductAttention>(inputs, sdpa->get_causal());
        made.push_back(attention);
        auto back = std::make_shared<ov::op::v1::Reshape>(attention, shape_constant({0, heads, -1, value_width}), true);
        made.push_back(back);
        ov::copy_runtime_info(sdpa, made);
        back->set_friendly_name(sdpa->get_friendly_name());
        ov::replace_node(sdpa, back);
        ++rewritten;
    }
    if (rewritten) model.validate_nodes_and_infer_types();
    return rewritten;
}

}  // namespace pt2ov::lower
