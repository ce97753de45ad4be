// What the placement passes share (partition/*.cpp): the values a node reads and writes, and
// moving a node to the CPU with its reason. Internal to partition/.
#pragma once

#include <functional>
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

// Whether every value `node` reads is in `known` (constants, and what nodes of constants made).
inline bool reads_only(const graph::Node& node, const std::set<std::string>& known) {
    bool only = true;
    for_each_read(node, [&](const std::string& name) { only = only && known.count(name) > 0; });
    return only;
}

}  // namespace pt2ov::partition::detail
