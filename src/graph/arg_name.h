// Argument names by id. Every argument name of the schema table (and the few of targets without
// schema that kernels read) has a small integer id, its position in the sorted arg_names.inc,
// generated with the schema table. A resolved node's schema carries each argument's id, so a
// kernel reading `call.tensor("self", 0)` checks that it reads the argument it means with an
// integer compare: the literal becomes an ArgName at compile time (a name no schema has does not
// compile), and no argument is looked up by its text at run time.
#pragma once

#include <cstdint>
#include <string_view>

#include "graph/sorted_names.h"

namespace pt2ov::graph {

enum class ArgNameId : uint16_t { Unknown = 0xFFFF };

namespace arg_name_table {

inline constexpr std::string_view kNames[] = {
#include "graph/arg_names.inc"
};
inline constexpr size_t kCount = sizeof(kNames) / sizeof(kNames[0]);
static_assert(kCount < static_cast<size_t>(ArgNameId::Unknown), "argument name ids are 16 bits");

constexpr size_t lower_bound(std::string_view name) { return sorted_lower_bound(kNames, kCount, name); }

}  // namespace arg_name_table

// The id of a name at run time (a schema's argument, an archive's input): Unknown when no schema
// of the table has it.
constexpr ArgNameId find_arg_name(std::string_view name) {
    const size_t at = arg_name_table::lower_bound(name);
    return at < arg_name_table::kCount && arg_name_table::kNames[at] == name ? static_cast<ArgNameId>(at)
                                                                              : ArgNameId::Unknown;
}

// An argument name as code writes it: implicitly made from a string literal at compile time.
class ArgName {
public:
    // Not explicit: `call.tensor("self", 0)` reads as PyTorch names the argument.
    consteval ArgName(const char* text) : id_(find_arg_name(text)) {
        if (id_ == ArgNameId::Unknown) {
            throw "ArgName: no schema of graph/arg_names.inc has an argument of this name (misspelled, or a "
                  "target without schema: add it to EXTRA_ARG_NAMES in scripts/gen_op_schemas.py)";
        }
    }

    constexpr ArgNameId id() const { return id_; }
    constexpr std::string_view text() const { return arg_name_table::kNames[static_cast<size_t>(id_)]; }
    constexpr bool operator==(const ArgName&) const = default;

private:
    ArgNameId id_;
};

}  // namespace pt2ov::graph
