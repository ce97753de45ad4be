// PyTorch's operator schemas (the pinned torch's aten:: and prims:: ones, generated into
// op_schemas.inc by scripts/gen_op_schemas.py), the check of every node against its schema at
// load, and the resolution of a node's arguments to schema positions with defaults filled in,
// so that no later stage looks an argument up by name or guesses at a missing one.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace pt2ov::graph {

// What an argument's schema type holds, as far as the Argument kinds torch.export writes go.
enum class SchemaType {
    Tensor,
    Int,      // int, SymInt
    Float,    // float
    Bool,     // bool
    String,   // str, Dimname
    Scalar,   // Scalar (number)
    ScalarType,
    MemoryFormat,
    Layout,
    Device,
    Any,      // Generator, Storage, type variables, ...: not checked
};

struct SchemaArgument {
    std::string name;
    ArgNameId name_id = ArgNameId::Unknown;  // its id (graph/arg_name.h), set when parsed
    std::string type;  // as the schema spells it: "Tensor(a!)", "SymInt[2]", "ScalarType?"
    SchemaType element = SchemaType::Any;
    bool optional = false;           // T? or T[]?: None is accepted
    bool is_list = false;            // T[] or T[N]
    size_t list_size = 0;            // N of T[N]; 0 when unsized
    bool optional_elements = false;  // T?[]: items may be None
    std::string alias;               // "a!", "a", "a -> *"; empty without annotation
    bool kwarg_only = false;
    std::optional<Argument> default_value;

    bool required() const { return !default_value.has_value(); }
    bool mutated() const { return alias.find('!') != std::string::npos; }
};

struct OpSchema {
    std::string target;  // as the archive spells it: "aten.add.Tensor", "aten.clone.default"
    std::string text;    // "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    std::vector<SchemaArgument> arguments;
    size_t positional_count = 0;  // arguments before '*'
    size_t return_count = 0;
    bool returns_tensor_list = false;  // the one return is Tensor[]: the node has one list output
    bool varargs = false;              // "...": TorchScript-only, nodes with it are left unchecked

    std::optional<size_t> position_of(std::string_view name) const;
    std::optional<size_t> position_of(ArgNameId name) const;
};

// Parses one schema string as torch prints it. Throws Error naming the text when malformed.
OpSchema parse_schema(std::string_view text);

// The schema of a target ("aten.add.Tensor"); null for targets outside the table. The schema
// lives as long as the process.
const OpSchema* find_schema(std::string_view target);
// Every target in the table, in its order (for reports and tests).
const std::vector<std::string>& schema_targets();

// Checks `node` against its target's schema and fills node.schema and node.resolved_inputs.
// Throws ArchiveError naming `where`, the node, the argument and the schema for an unknown or
// repeated argument, too many positional ones, a missing required one, an argument of the
// wrong kind (a list for a Tensor, a tensor for an int list, ...; a number for a Tensor is
// fine, the dispatcher wraps it), or the wrong number of outputs. A target without schema is left unchecked; its
// stored arguments are its resolved ones.
void resolve_node(Node& node, const std::string& where);

// resolve_node over every node of the graph.
void check_and_resolve(Graph& graph, const std::string& where);

}  // namespace pt2ov::graph
