// What the placement passes share (partition/*.cpp): the values a node reads and writes, and
// moving a node to the CPU with its reason. Internal to partition/.
#pragma once

#include <algorithm>
#include <functional>
#include <iterator>
#include <set>
#include <string>

#include "partition/passes.h"

namespace pt2ov::partition::detail {

using graph::Argument;
using ArgKind = graph::Argument::Kind;

inline void for_each_value(const Argument& arg, const std::function<void(const std::string&)>& visit) {
    if (arg.kind == ArgKind::Tensor || arg.kind == ArgKind::SymInt || arg.kind == ArgKind::SymBool ||
        arg.kind == ArgKind::SymFloat) {
        visit(arg.name);
    }
    for (const auto& item : arg.items) for_each_value(item, visit);
}

inline void for_each_read(const graph::Node& node, const std::function<void(const std::string&)>& visit) {
    for (const auto& input : node.inputs) for_each_value(input.arg, visit);
}

inline void for_each_written(const graph::Node& node, const std::function<void(const std::string&)>& visit) {
    for (const auto& out : node.outputs) for_each_value(out, visit);
}

inline void put_on_cpu(Plan& plan, size_t index, std::string reason) {
    if (plan.where[index] == Where::Cpu) return;  // the first reason stands
    plan.where[index] = Where::Cpu;
    plan.reason[index] = std::move(reason);
}

// Ops that only reshape, view, copy or cast their one tensor: each output value is a value of
// the input (pass 6 moves steps of them to the CPU; the int64 bounds follow them).
inline bool reshapes_views_or_casts(graph::OpId op) {
    using graph::op_id;
    static constexpr graph::OpId kOps[] = {
        op_id("aten.view.default"), op_id("aten._unsafe_view.default"), op_id("aten.reshape.default"),
        op_id("aten.permute.default"), op_id("aten.transpose.int"), op_id("aten.t.default"),
        op_id("aten.expand.default"), op_id("aten.unsqueeze.default"), op_id("aten.squeeze.dim"),
        op_id("aten.squeeze.dims"), op_id("aten.squeeze.default"), op_id("aten.flatten.using_ints"),
        op_id("aten.slice.Tensor"), op_id("aten.select.int"), op_id("aten.alias.default"),
        op_id("aten.contiguous.default"), op_id("aten.clone.default"), op_id("aten._to_copy.default"),
        op_id("aten.to.dtype"), op_id("aten.view_copy.default"), op_id("aten.permute_copy.default"),
        op_id("aten.expand_copy.default"), op_id("aten.unsqueeze_copy.default"), op_id("aten.slice_copy.Tensor"),
        op_id("aten.select_copy.int"), op_id("aten.squeeze_copy.dim"), op_id("aten.squeeze_copy.dims"),
        op_id("aten.transpose_copy.int"), op_id("aten.t_copy.default"), op_id("aten.alias_copy.default")};
    return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

// Whether every value `node` reads is in `known` (constants, and what nodes of constants made).
inline bool reads_only(const graph::Node& node, const std::set<std::string>& known) {
    bool only = true;
    for_each_read(node, [&](const std::string& name) { only = only && known.count(name) > 0; });
    return only;
}

}  // namespace pt2ov::partition::detail
