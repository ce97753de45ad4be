// Ops by id. Every target pt2ov knows (each aten::/prims:: schema of the pinned torch, and the
// few without one it runs: op_targets.inc, generated with the schema table) has a small integer
// id, its position in the sorted table. A node carries its op's id (Node::op, set by
// resolve_node), so rules and kernels compare integers, not strings.
//
// Code names an op as PyTorch spells it, through op_id("aten.add.Tensor"), which is consteval:
// a misspelled or unknown target does not compile, and what runs is an integer compare. All
// overloads of one op are one contiguous run of ids (op_family("aten.add")), so "any overload
// of" is a range test.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "graph/sorted_names.h"

namespace pt2ov::graph {

enum class OpId : uint16_t { Unknown = 0xFFFF };

namespace op_table {

inline constexpr std::string_view kTargets[] = {
#include "graph/op_targets.inc"
};
inline constexpr size_t kCount = sizeof(kTargets) / sizeof(kTargets[0]);
static_assert(kCount < static_cast<size_t>(OpId::Unknown), "op ids are 16 bits");

// The first position whose target is not less than `target`.
constexpr size_t lower_bound(std::string_view target) { return sorted_lower_bound(kTargets, kCount, target); }

}  // namespace op_table

// The id of a target the table holds; unknown targets are a compile error.
consteval OpId op_id(std::string_view target) {
    const size_t at = op_table::lower_bound(target);
    if (at == op_table::kCount || op_table::kTargets[at] != target) {
        throw "op_id: not a target of graph/op_targets.inc (misspelled, or an op without schema: add it to "
              "EXTRA_TARGETS in scripts/gen_op_schemas.py)";
    }
    return static_cast<OpId>(at);
}

// The same at run time (a node's target from an archive): OpId::Unknown for custom ops.
constexpr OpId find_op_id(std::string_view target) {
    const size_t at = op_table::lower_bound(target);
    return at < op_table::kCount && op_table::kTargets[at] == target ? static_cast<OpId>(at) : OpId::Unknown;
}

// "aten.add.Tensor"; empty for OpId::Unknown.
constexpr std::string_view op_target(OpId id) {
    const auto at = static_cast<size_t>(id);
    return at < op_table::kCount ? op_table::kTargets[at] : std::string_view{};
}

// Every overload of one op: ids in [first, last).
struct OpFamily {
    uint16_t first = 0;
    uint16_t last = 0;
    constexpr bool contains(OpId id) const {
        const auto at = static_cast<uint16_t>(id);
        return id != OpId::Unknown && first <= at && at < last;
    }
};

// The overloads of `op` ("aten.add": aten.add.Tensor, aten.add.Scalar, ..., not aten.add_.*);
// empty (contains nothing) when the table has none.
constexpr OpFamily find_op_family(std::string_view op) {
    // Targets are "<namespace>.<name>.<overload>": the family is the run that starts "op.".
    const auto starts_family = [op](std::string_view target) {
        return target.size() > op.size() && target.substr(0, op.size()) == op && target[op.size()] == '.';
    };
    size_t first = op_table::lower_bound(op);
    // A target that is `op` itself, or `op` followed by a character sorting below '.', comes
    // before the family: skip it.
    while (first < op_table::kCount && op_table::kTargets[first].substr(0, op.size()) == op &&
           !starts_family(op_table::kTargets[first])) {
        ++first;
    }
    size_t last = first;
    while (last < op_table::kCount && starts_family(op_table::kTargets[last])) ++last;
    return OpFamily{static_cast<uint16_t>(first), static_cast<uint16_t>(last)};
}

// The same where code names the op: an op without any overload is a compile error.
consteval OpFamily op_family(std::string_view op) {
    const OpFamily family = find_op_family(op);
    if (family.first == family.last) throw "op_family: no overload of this op in graph/op_targets.inc";
    return family;
}

// `op` is one of `ops`.
constexpr bool is_one_of(OpId op, std::initializer_list<OpId> ops) {
    for (OpId candidate : ops) {
        if (candidate == op) return true;
    }
    return false;
}

// `op` is an overload of one of `families`.
constexpr bool in_any_family(OpId op, std::initializer_list<OpFamily> families) {
    for (const OpFamily& family : families) {
        if (family.contains(op)) return true;
    }
    return false;
}

}  // namespace pt2ov::graph
