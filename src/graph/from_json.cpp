// Reads the ExportedProgram JSON that torch/_export/serde/serialize.py writes. The shapes
// read here follow torch/_export/serde/schema.py (schema 8.x): unions are one-key objects,
// enums are integers, absent optionals are null, and ±inf/NaN floats are strings.
#include "graph/from_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "graph/json_meta.h"

namespace pt2ov::graph {

namespace {

using json = nlohmann::json;

constexpr int kSchemaMajor = 8;

// ---- Small typed readers. Each throws ArchiveError with a short detail; the section that
// ---- calls them prepends where it was (file, node, tensor).

const char* const kDamaged = " (the archive is damaged or was not written by torch.export.save)";

[[noreturn]] void malformed(const std::string& detail) { throw ArchiveError("malformed JSON: " + detail + kDamaged); }

constexpr size_t kPreviewChars = 80;

// A value as errors quote it: short, whatever the archive holds. Only its top level is
// written (nested lists and objects as [...] and {...}): dump() recurses, and a fuzzed
// archive nested 100,000 deep overflowed the stack here.
std::string preview(const json& value) {
    auto shallow = [](const json& item) -> std::string {
        if (item.is_array()) return item.empty() ? "[]" : "[...]";
        if (item.is_object()) return item.empty() ? "{}" : "{...}";
        return item.dump(-1, ' ', false, json::error_handler_t::replace);
    };
    std::string text;
    if (value.is_array() || value.is_object()) {
        text = value.is_array() ? "[" : "{";
        for (auto it = value.begin(); it != value.end() && text.size() <= kPreviewChars; ++it) {
            if (it != value.begin()) text += ", ";
            if (value.is_object()) text += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ": ";
            text += shallow(it.value());
        }
        text += value.is_array() ? "]" : "}";
    } else {
        text = shallow(value);
    }
    return text.size() <= kPreviewChars ? text : text.substr(0, kPreviewChars - 3) + "...";
}

const json& field(const json& object, const char* key) {
    if (!object.is_object()) malformed(std::string("expected an object holding '") + key + "'");
    auto it = object.find(key);
    if (it == object.end()) malformed(std::string("missing field '") + key + "'");
    return *it;
}

// A field that may be absent or null (the schema's optionals and later additions).
const json* optional_field(const json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

int64_t int_of(const json& value) {
    if (value.is_number_unsigned()) {
        const auto u = value.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            malformed("integer " + preview(value) + " does not fit in 64 bits");
        }
        return static_cast<int64_t>(u);
    }
    if (!value.is_number_integer()) malformed("expected an integer, found " + preview(value));
    return value.get<int64_t>();
}

double float_of(const json& value) {
    if (value.is_number()) return value.get<double>();
    if (value.is_string()) {
        const auto& text = value.get_ref<const std::string&>();
        if (text == "Infinity") return std::numeric_limits<double>::infinity();
        if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
        if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    }
    malformed("expected a float, found " + preview(value));
}

bool bool_of(const json& value) {
    if (!value.is_boolean()) malformed("expected true or false, found " + preview(value));
    return value.get<bool>();
}

const std::string& string_of(const json& value) {
    if (!value.is_string()) malformed("expected a string, found " + preview(value));
    return value.get_ref<const std::string&>();
}

const json& array_of(const json& value) {
    if (!value.is_array()) malformed("expected a list, found " + preview(value));
    return value;
}

const json& object_of(const json& value) {
    if (!value.is_object()) malformed("expected an object, found " + preview(value));
    return value;
}

// The schema's tagged unions are objects with exactly one key: {"as_tensor": {...}}.
std::pair<const std::string&, const json&> union_of(const json& value) {
    if (!value.is_object() || value.size() != 1) {
        malformed("expected a one-key union object, found " + preview(value));
    }
    auto it = value.begin();
    return {it.key(), it.value()};
}

// Runs one section of the parse and names it in any error: JSON type errors and our own
// short details become ArchiveError "<context>: <detail>"; UnsupportedError keeps its class.
template <typename Body>
decltype(auto) in_section(const std::string& context, Body&& body) {
    try {
        return body();
    } catch (const UnsupportedError& e) {
        throw UnsupportedError(context + ": " + e.what());
    } catch (const InternalError& e) {
        throw InternalError(context + ": " + e.what());
    } catch (const Error& e) {
        throw ArchiveError(context + ": " + e.what());
    } catch (const std::exception& e) {
        throw ArchiveError(context + ": malformed JSON: " + e.what() + kDamaged);
    }
}

// ---- Dims, symbols and tensor metadata.

// A SymInt / SymBool / SymFloat of the schema: {"as_int": n} or {"as_expr": {expr_str, hint}}.
Dim dim_from_json(const json& value) {
    const auto [tag, body] = union_of(value);
    Dim dim;
    if (tag == "as_int") {
        dim.value = int_of(body);
        dim.hint = *dim.value;
    } else if (tag == "as_bool") {
        dim.value = bool_of(body) ? 1 : 0;
        dim.hint = *dim.value;
    } else if (tag == "as_float") {
        dim.expr = std::to_string(float_of(body));
    } else if (tag == "as_expr") {
        dim.expr = string_of(field(body, "expr_str"));
        dim.symbol = bare_symbol(dim.expr);
        if (const json* hint = optional_field(body, "hint")) {
            const auto [hint_tag, hint_value] = union_of(*hint);
            if (hint_tag == "as_int") dim.hint = int_of(hint_value);
            if (hint_tag == "as_bool") dim.hint = bool_of(hint_value) ? 1 : 0;
        }
    } else {
        malformed("unknown symbolic value tag '" + tag + "'");
    }
    return dim;
}

// Dim order needs numbers: static values, else the example's hints, else contiguous.
std::vector<int> dim_order_of(const TensorMeta& meta) {
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;
    auto number = [](const Dim& d) { return d.is_static() ? *d.value : d.hint; };
    for (size_t i = 0; i < meta.rank(); ++i) {
        const int64_t size = number(meta.sizes[i]);
        const int64_t stride = number(meta.strides[i]);
        if (size < 0 || stride < 0) {
            std::vector<int> contiguous(meta.rank());
            std::iota(contiguous.begin(), contiguous.end(), 0);
            return contiguous;
        }
        sizes.push_back(size);
        strides.push_back(stride);
    }
    return dim_order_from_strides(sizes, strides);
}

// Static sizes and strides are never negative, and the element count, the extent the strides
// reach and the byte count all fit in 64 bits: every later stage multiplies them without
// checking again (a fuzzed size near 2**63 overflowed the element count).
void check_meta_sizes(const TensorMeta& meta) {
    int64_t elements = 1;
    int64_t last_element = 0;  // offset of the last element the strides reach
    int64_t bytes = 0;
    bool overflow = false;
    bool empty = false;
    for (size_t i = 0; i < meta.rank(); ++i) {
        const Dim& size = meta.sizes[i];
        const Dim& stride = meta.strides[i];
        if (size.is_static() && *size.value < 0) malformed("size " + std::to_string(*size.value) + " is negative");
        if (stride.is_static() && *stride.value < 0) malformed("stride " + std::to_string(*stride.value) + " is negative");
        if (!size.is_static()) continue;
        empty = empty || *size.value == 0;
        overflow = overflow || __builtin_mul_overflow(elements, *size.value, &elements);
        if (stride.is_static() && *size.value > 0) {
            int64_t reach = 0;
            overflow = overflow || __builtin_mul_overflow(*size.value - 1, *stride.value, &reach) ||
                       __builtin_add_overflow(last_element, reach, &last_element);
        }
    }
    if (meta.storage_offset < 0) malformed("storage offset " + std::to_string(meta.storage_offset) + " is negative");
    overflow = overflow || __builtin_add_overflow(last_element, meta.storage_offset, &last_element) ||
               __builtin_mul_overflow(elements, static_cast<int64_t>(dtype_size(meta.dtype)), &bytes) ||
               __builtin_add_overflow(last_element, int64_t{1}, &last_element) ||
               __builtin_mul_overflow(last_element, static_cast<int64_t>(dtype_size(meta.dtype)), &bytes);
    if (overflow && !empty) malformed("sizes, strides or storage offset too large: the element or byte count overflows 64 bits");
}

}  // namespace

TensorMeta tensor_meta_from_json(const nlohmann::json& meta_json, const std::string& where) {
    const int64_t scalar_type = in_section(where, [&] { return int_of(field(meta_json, "dtype")); });
    TensorMeta meta;
    const bool representable = scalar_type >= 0 && scalar_type <= std::numeric_limits<int>::max();
    meta.dtype = dtype_from_scalar_type(representable ? static_cast<int>(scalar_type) : -1, where);
    in_section(where, [&] {
        for (const json& size : array_of(field(meta_json, "sizes"))) meta.sizes.push_back(dim_from_json(size));
        for (const json& stride : array_of(field(meta_json, "strides"))) meta.strides.push_back(dim_from_json(stride));
        if (meta.sizes.size() != meta.strides.size()) {
            malformed(std::to_string(meta.sizes.size()) + " sizes but " + std::to_string(meta.strides.size()) +
                      " strides");
        }
        if (const json* offset = optional_field(meta_json, "storage_offset")) {
            const Dim dim = dim_from_json(*offset);
            meta.storage_offset = dim.is_static() ? *dim.value : std::max<int64_t>(dim.hint, 0);
        }
    });
    in_section(where, [&] { check_meta_sizes(meta); });
    meta.dim_order = dim_order_of(meta);
    return meta;
}

namespace {

// ---- Arguments.

Argument make_kind(Argument::Kind kind) {
    Argument arg;
    arg.kind = kind;
    return arg;
}

Argument tensor_argument(const json& tensor) {
    Argument arg = make_kind(Argument::Kind::Tensor);
    arg.name = string_of(field(tensor, "name"));
    return arg;
}

Argument unsupported_argument(const std::string& tag, const json& body) {
    Argument arg = make_kind(Argument::Kind::Unsupported);
    arg.string_value = tag;
    if (body.is_string()) {
        arg.name = body.get<std::string>();  // as_operator: the operator's qualified name
    } else if (const json* name = optional_field(body, "name"); name && name->is_string()) {
        arg.name = name->get<std::string>();
    }
    return arg;
}

// SymIntArgument / SymBoolArgument / SymFloatArgument: {"as_name": "s0"} names a symbolic
// value; {"as_int": 3} (or as_bool / as_float) is a plain number in a mixed list.
Argument symbolic_argument(const json& value, Argument::Kind symbolic_kind) {
    const auto [tag, body] = union_of(value);
    if (tag == "as_name") {
        Argument arg = make_kind(symbolic_kind);
        arg.name = string_of(body);
        return arg;
    }
    if (tag == "as_int") {
        Argument arg = make_kind(Argument::Kind::Int);
        arg.int_value = int_of(body);
        return arg;
    }
    if (tag == "as_bool") {
        Argument arg = make_kind(Argument::Kind::Bool);
        arg.bool_value = bool_of(body);
        return arg;
    }
    if (tag == "as_float") {
        Argument arg = make_kind(Argument::Kind::Float);
        arg.float_value = float_of(body);
        return arg;
    }
    malformed("unknown symbolic argument tag '" + tag + "'");
}

// OptionalTensorArgument: {"as_tensor": {"name": ...}} or {"as_none": true}.
Argument optional_tensor_argument(const json& value) {
    const auto [tag, body] = union_of(value);
    if (tag == "as_tensor") return tensor_argument(body);
    if (tag == "as_none") return make_kind(Argument::Kind::None);
    malformed("unknown optional tensor tag '" + tag + "'");
}

template <typename ItemReader>
Argument list_argument(const json& items, Argument::Kind list_kind, ItemReader&& read_item) {
    Argument arg = make_kind(Argument::Kind::List);
    arg.list_kind = list_kind;
    for (const json& item : array_of(items)) arg.items.push_back(read_item(item));
    return arg;
}

Argument scalar_type_argument(const json& body) {
    const int64_t number = int_of(body);
    Argument arg = make_kind(Argument::Kind::ScalarType);
    try {
        if (number < 0 || number > std::numeric_limits<int>::max()) throw UnsupportedError("");
        arg.dtype = dtype_from_scalar_type(static_cast<int>(number), "argument");
    } catch (const UnsupportedError&) {
        // A dtype we do not carry is refused later, only if the node must run.
        arg = make_kind(Argument::Kind::Unsupported);
        arg.string_value = "as_scalar_type " + std::to_string(number);
    }
    return arg;
}

std::string device_string(const json& device) {
    std::string text = string_of(field(device, "type"));
    if (const json* index = optional_field(device, "index")) text += ":" + std::to_string(int_of(*index));
    return text;
}

std::shared_ptr<const Graph> body_from_json(const json& graph_argument);

Argument argument_from_json(const json& value) {
    using Kind = Argument::Kind;
    const auto [tag, body] = union_of(value);
    auto number_argument = [](Kind kind, const json& v) {
        Argument arg = make_kind(kind);
        if (kind == Kind::Int || kind == Kind::MemoryFormat || kind == Kind::Layout) arg.int_value = int_of(v);
        if (kind == Kind::Float) arg.float_value = float_of(v);
        if (kind == Kind::Bool) arg.bool_value = bool_of(v);
        if (kind == Kind::String) arg.string_value = string_of(v);
        return arg;
    };
    if (tag == "as_none") return make_kind(Kind::None);
    if (tag == "as_tensor") return tensor_argument(body);
    if (tag == "as_tensors") return list_argument(body, Kind::Tensor, tensor_argument);
    if (tag == "as_int") return number_argument(Kind::Int, body);
    if (tag == "as_ints") return list_argument(body, Kind::Int, [&](const json& v) { return number_argument(Kind::Int, v); });
    if (tag == "as_float") return number_argument(Kind::Float, body);
    if (tag == "as_floats") return list_argument(body, Kind::Float, [&](const json& v) { return number_argument(Kind::Float, v); });
    if (tag == "as_bool") return number_argument(Kind::Bool, body);
    if (tag == "as_bools") return list_argument(body, Kind::Bool, [&](const json& v) { return number_argument(Kind::Bool, v); });
    if (tag == "as_string") return number_argument(Kind::String, body);
    if (tag == "as_strings") return list_argument(body, Kind::String, [&](const json& v) { return number_argument(Kind::String, v); });
    if (tag == "as_sym_int") return symbolic_argument(body, Kind::SymInt);
    if (tag == "as_sym_ints") return list_argument(body, Kind::SymInt, [](const json& v) { return symbolic_argument(v, Kind::SymInt); });
    if (tag == "as_sym_bool") return symbolic_argument(body, Kind::SymBool);
    if (tag == "as_sym_bools") return list_argument(body, Kind::SymBool, [](const json& v) { return symbolic_argument(v, Kind::SymBool); });
    if (tag == "as_sym_float") return symbolic_argument(body, Kind::SymFloat);
    if (tag == "as_sym_floats") return list_argument(body, Kind::SymFloat, [](const json& v) { return symbolic_argument(v, Kind::SymFloat); });
    if (tag == "as_optional_tensor") return optional_tensor_argument(body);
    if (tag == "as_optional_tensors") return list_argument(body, Kind::Tensor, optional_tensor_argument);
    if (tag == "as_scalar_type") return scalar_type_argument(body);
    if (tag == "as_memory_format") return number_argument(Kind::MemoryFormat, body);
    if (tag == "as_layout") return number_argument(Kind::Layout, body);
    if (tag == "as_device") {
        Argument arg = make_kind(Kind::Device);
        arg.string_value = device_string(body);
        return arg;
    }
    // as_graph, as_custom_obj, as_operator, as_complex, nested lists, dicts and any tag a later
    // schema adds: kept so the node can be named when (and only if) it has to run. A graph
    // keeps its body, which the rewrites inline where the higher-order op only scopes it.
    Argument arg = unsupported_argument(tag, body);
    if (tag == "as_graph") arg.body = body_from_json(body);
    return arg;
}

// ---- Nodes.

std::string strip_torch_ops(const std::string& target) {
    constexpr std::string_view prefix = "torch.ops.";
    return target.rfind(prefix, 0) == 0 ? target.substr(prefix.size()) : target;
}

Node node_from_json(const json& node_json) {
    Node node;
    node.target = strip_torch_ops(string_of(field(node_json, "target")));
    for (const json& input : array_of(field(node_json, "inputs"))) {
        NamedArgument named;
        named.name = string_of(field(input, "name"));
        named.arg = argument_from_json(field(input, "arg"));
        if (const json* kind = optional_field(input, "kind")) named.keyword = int_of(*kind) == 2;
        node.inputs.push_back(std::move(named));
    }
    for (const json& output : array_of(field(node_json, "outputs"))) node.outputs.push_back(argument_from_json(output));
    if (const json* metadata = optional_field(node_json, "metadata")) {
        if (const json* trace = optional_field(*metadata, "stack_trace"); trace && trace->is_string()) {
            node.stack_trace = trace->get<std::string>();
        }
    }
    return node;
}

// The name errors use for node i before (or without) a successful parse.
std::string node_label(const json& node_json, size_t index) {
    std::string label = "node " + std::to_string(index);
    if (const json* name = optional_field(node_json, "name"); name && name->is_string()) {
        label = "node '" + name->get<std::string>() + "'";
    }
    if (const json* target = optional_field(node_json, "target"); target && target->is_string()) {
        label += " (" + strip_torch_ops(target->get<std::string>()) + ")";
    }
    return label;
}

// Older archives may lack node names: fall back to the first named output, as FX does.
std::string node_name(const json& node_json, const Node& node, size_t index) {
    if (const json* name = optional_field(node_json, "name"); name && name->is_string()) return name->get<std::string>();
    for (const Argument& out : node.outputs) {
        if (!out.name.empty()) return out.name;
        if (out.kind == Argument::Kind::List && !out.items.empty() && !out.items[0].name.empty()) return out.items[0].name;
    }
    return "node_" + std::to_string(index);
}

// ---- Values.

void read_values(const json& graph_json, Graph& graph) {
    for (const auto& [name, meta] : object_of(field(graph_json, "tensor_values")).items()) {
        Value value;
        value.name = name;
        value.kind = ValueKind::Tensor;
        value.meta = tensor_meta_from_json(meta, "tensor '" + name + "'");
        graph.values.emplace(name, std::move(value));
    }
    auto read_symbols = [&](const char* key, ValueKind kind) {
        const json* symbols = optional_field(graph_json, key);
        if (!symbols) return;
        for (const auto& [name, sym] : object_of(*symbols).items()) {
            Value value;
            value.name = name;
            value.kind = kind;
            value.sym = in_section("symbolic value '" + name + "'", [&] { return dim_from_json(sym); });
            graph.values.emplace(name, std::move(value));
        }
    };
    read_symbols("sym_int_values", ValueKind::SymInt);
    read_symbols("sym_bool_values", ValueKind::SymBool);
    read_symbols("sym_float_values", ValueKind::SymFloat);
}

void mark_producer(Graph& graph, const Argument& output, int node_index) {
    if (output.kind == Argument::Kind::List) {
        for (const Argument& item : output.items) mark_producer(graph, item, node_index);
        return;
    }
    const bool named_value = output.kind == Argument::Kind::Tensor || output.kind == Argument::Kind::SymInt ||
                             output.kind == Argument::Kind::SymBool || output.kind == Argument::Kind::SymFloat;
    if (!named_value) return;
    Value* value = graph.find_value(output.name);
    if (!value) malformed("output '" + output.name + "' has no entry in the graph's value tables");
    value->producer = node_index;
}

void read_nodes(const json& graph_json, Graph& graph) {
    const json& nodes = array_of(field(graph_json, "nodes"));
    for (size_t i = 0; i < nodes.size(); ++i) {
        in_section(node_label(nodes[i], i), [&] {
            Node node = node_from_json(nodes[i]);
            node.name = node_name(nodes[i], node, i);
            for (const Argument& output : node.outputs) mark_producer(graph, output, static_cast<int>(graph.nodes.size()));
            graph.nodes.push_back(std::move(node));
        });
    }
}

// A higher-order op's body: {"name": "submod_1", "graph": {...}}, a graph like the method's,
// with values of its own. Bodies nest (a region inside a region); a crafted archive could nest
// them deep enough to overflow the stack, so the depth is bounded far beyond what export makes.
constexpr int kMaxBodyDepth = 64;
thread_local int body_depth = 0;

std::shared_ptr<const Graph> body_from_json(const json& graph_argument) {
    if (body_depth >= kMaxBodyDepth) {
        malformed("higher-order op bodies nested more than " + std::to_string(kMaxBodyDepth) + " deep");
    }
    struct Nesting {
        Nesting() { ++body_depth; }
        ~Nesting() { --body_depth; }
    } nesting;
    const std::string name = string_of(field(graph_argument, "name"));
    return in_section("body '" + name + "'", [&] {
        const json& graph_json = field(graph_argument, "graph");
        auto body = std::make_shared<Graph>();
        in_section("graph values", [&] { read_values(graph_json, *body); });
        read_nodes(graph_json, *body);
        in_section("graph inputs and outputs", [&] {
            for (const json& input : array_of(field(graph_json, "inputs"))) body->inputs.push_back(argument_from_json(input));
            for (const json& output : array_of(field(graph_json, "outputs"))) body->outputs.push_back(argument_from_json(output));
        });
        check_values_defined_before_use(*body);
        return std::shared_ptr<const Graph>(std::move(body));
    });
}

// ---- Signature.

Argument constant_value_argument(const json& value) {
    const auto [tag, body] = union_of(value);
    if (tag == "as_none" || tag == "as_int" || tag == "as_float" || tag == "as_string" || tag == "as_bool") {
        return argument_from_json(value);
    }
    malformed("unknown constant input tag '" + tag + "'");
}

InputSpec input_spec_from_json(const json& spec_json) {
    using Kind = InputSpec::Kind;
    const auto [tag, body] = union_of(spec_json);
    InputSpec spec;
    if (tag == "user_input") {
        spec.kind = Kind::UserInput;
        spec.arg = argument_from_json(field(body, "arg"));
    } else if (tag == "parameter") {
        spec.kind = Kind::Parameter;
        spec.arg = tensor_argument(field(body, "arg"));
        spec.target = string_of(field(body, "parameter_name"));
    } else if (tag == "buffer") {
        spec.kind = Kind::Buffer;
        spec.arg = tensor_argument(field(body, "arg"));
        spec.target = string_of(field(body, "buffer_name"));
        if (const json* persistent = optional_field(body, "persistent")) spec.persistent = bool_of(*persistent);
    } else if (tag == "tensor_constant") {
        spec.kind = Kind::TensorConstant;
        spec.arg = tensor_argument(field(body, "arg"));
        spec.target = string_of(field(body, "tensor_constant_name"));
    } else if (tag == "custom_obj") {
        spec.kind = Kind::CustomObj;
        spec.arg = unsupported_argument("as_custom_obj", field(body, "arg"));
        spec.target = string_of(field(body, "custom_obj_name"));
    } else if (tag == "token") {
        spec.kind = Kind::Token;
        spec.arg = unsupported_argument("token", field(body, "arg"));
    } else if (tag == "constant_input") {
        spec.kind = Kind::ConstantInput;
        spec.arg = constant_value_argument(field(body, "value"));
        spec.arg.name = string_of(field(body, "name"));
        spec.target = spec.arg.name;
    } else {
        malformed("unknown input spec '" + tag + "'");
    }
    return spec;
}

OutputSpec output_spec_from_json(const json& spec_json) {
    using Kind = OutputSpec::Kind;
    const auto [tag, body] = union_of(spec_json);
    OutputSpec spec;
    auto tensor_with_target = [&](Kind kind, const char* target_key) {
        spec.kind = kind;
        spec.arg = tensor_argument(field(body, "arg"));
        if (target_key) spec.target = string_of(field(body, target_key));
    };
    if (tag == "user_output") {
        spec.kind = Kind::UserOutput;
        spec.arg = argument_from_json(field(body, "arg"));
    } else if (tag == "loss_output") {
        tensor_with_target(Kind::LossOutput, nullptr);
    } else if (tag == "buffer_mutation") {
        tensor_with_target(Kind::BufferMutation, "buffer_name");
    } else if (tag == "gradient_to_parameter") {
        tensor_with_target(Kind::GradientToParameter, "parameter_name");
    } else if (tag == "gradient_to_user_input") {
        tensor_with_target(Kind::GradientToUserInput, "user_input_name");
    } else if (tag == "user_input_mutation") {
        tensor_with_target(Kind::UserInputMutation, "user_input_name");
    } else if (tag == "parameter_mutation") {
        tensor_with_target(Kind::ParameterMutation, "parameter_name");
    } else if (tag == "token") {
        spec.kind = Kind::Token;
        spec.arg = unsupported_argument("token", field(body, "arg"));
    } else {
        malformed("unknown output spec '" + tag + "'");
    }
    return spec;
}

void read_signature(const json& signature, Graph& graph) {
    const json& inputs = array_of(field(signature, "input_specs"));
    for (size_t i = 0; i < inputs.size(); ++i) {
        graph.input_specs.push_back(
            in_section("input spec " + std::to_string(i), [&] { return input_spec_from_json(inputs[i]); }));
    }
    const json& outputs = array_of(field(signature, "output_specs"));
    for (size_t i = 0; i < outputs.size(); ++i) {
        graph.output_specs.push_back(
            in_section("output spec " + std::to_string(i), [&] { return output_spec_from_json(outputs[i]); }));
    }
}

// ---- Ranges. Bounds may be null (unbounded) or beyond int64 (torch's int_oo printed as a
// ---- huge int): both clamp to the int64 limit on their side.

int64_t range_bound(const json* bound, int64_t unbounded) {
    if (!bound) return unbounded;
    if (bound->is_number_unsigned() &&
        bound->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return std::numeric_limits<int64_t>::max();
    }
    if (bound->is_number_integer()) return bound->get<int64_t>();
    if (bound->is_number_float()) {
        const double value = bound->get<double>();
        if (std::isnan(value)) return unbounded;
        if (value >= 9.2e18) return std::numeric_limits<int64_t>::max();
        if (value <= -9.2e18) return std::numeric_limits<int64_t>::min();
        return static_cast<int64_t>(value);
    }
    malformed("range bound is not a number: " + preview(*bound));
}

void read_ranges(const json& program, Graph& graph) {
    const json* ranges = optional_field(program, "range_constraints");
    if (!ranges) return;
    for (const auto& [symbol, range] : object_of(*ranges).items()) {
        in_section("range of symbol '" + symbol + "'", [&] {
            SymbolRange bounds;
            bounds.min = range_bound(optional_field(range, "min_val"), std::numeric_limits<int64_t>::min());
            bounds.max = range_bound(optional_field(range, "max_val"), std::numeric_limits<int64_t>::max());
            graph.ranges[symbol] = bounds;
        });
    }
}

void check_schema_version(const json& program) {
    const json* version = optional_field(program, "schema_version");
    if (!version) malformed("no schema_version; this is not a program written by torch.export.save");
    const int64_t major = int_of(field(*version, "major"));
    const json* minor_json = optional_field(*version, "minor");
    const std::string minor = minor_json ? preview(*minor_json) : "?";
    if (major != kSchemaMajor) {
        throw ArchiveError("program schema version " + std::to_string(major) + "." + minor +
                           " is not supported: pt2ov reads schema major version " + std::to_string(kSchemaMajor) +
                           " (any minor), which PyTorch 2.x writes; re-export and save the model with such a "
                           "PyTorch (torch/_export/serde/schema.py SCHEMA_VERSION (8, x))");
    }
}

// The dialect the program was verified in. torch.export.save writes the ExportedProgram's
// verifiers' dialects ("verifiers": ["TRAINING"] from torch.export.export, ["ATEN"] once
// ep.run_decompositions() has run, whatever the decomposition table); older schemas wrote one
// "dialect" string. This, and not a scan of the nodes' ops, tells a decomposed program: a
// decomposed program keeps ops that have no decomposition (and custom ops), and a training-IR
// program may hold only core-ATen ops, so no list of ops can tell the two apart. Anything
// unexpected reads as unknown (empty): the field only chooses advice in messages.
std::string read_dialect(const json& program) {
    if (const json* verifiers = optional_field(program, "verifiers"); verifiers && verifiers->is_array()) {
        for (const json& verifier : *verifiers) {
            if (verifier.is_string()) return verifier.get<std::string>();
        }
        return "";
    }
    if (const json* dialect = optional_field(program, "dialect"); dialect && dialect->is_string()) return dialect->get<std::string>();
    return "";
}

// Calls `visit` with every value name an argument holds, lists included.
template <typename Visit>
void for_each_value_name(const Argument& arg, Visit&& visit) {
    using Kind = Argument::Kind;
    if (arg.kind == Kind::List) {
        for (const Argument& item : arg.items) for_each_value_name(item, visit);
        return;
    }
    const bool names_a_value =
        arg.kind == Kind::Tensor || arg.kind == Kind::SymInt || arg.kind == Kind::SymBool || arg.kind == Kind::SymFloat;
    if (names_a_value && !arg.name.empty()) visit(arg.name);
}

std::string node_description(const Node& node) { return "node '" + node.name + "' (" + node.target + ")"; }

}  // namespace

void check_values_defined_before_use(const Graph& graph) {
    std::set<std::string> defined;
    std::map<std::string, const Node*> made_by;  // every value some node makes, to explain
    for (const Node& node : graph.nodes) {
        for (const Argument& output : node.outputs) {
            for_each_value_name(output, [&](const std::string& name) { made_by.emplace(name, &node); });
        }
    }
    auto define = [&](const std::string& name, const std::string& by) {
        if (!graph.find_value(name)) malformed(by + " makes '" + name + "', which the graph's value tables lack");
        if (!defined.insert(name).second) malformed(by + " makes '" + name + "', which is already defined");
    };
    for (const Argument& input : graph.inputs) for_each_value_name(input, [&](const std::string& name) { define(name, "a graph input"); });
    auto require = [&](const std::string& name, const std::string& reader) {
        if (defined.count(name)) return;
        const auto maker = made_by.find(name);
        if (maker == made_by.end()) {
            malformed(reader + " reads '" + name + "', which no node makes and which is no graph input");
        }
        malformed(reader + " reads '" + name + "' before " + node_description(*maker->second) +
                  " makes it: the nodes are out of order or form a cycle");
    };
    for (const Node& node : graph.nodes) {
        for (const NamedArgument& input : node.inputs) {
            for_each_value_name(input.arg, [&](const std::string& name) { require(name, node_description(node)); });
        }
        for (const Argument& output : node.outputs) {
            for_each_value_name(output, [&](const std::string& name) { define(name, node_description(node)); });
        }
    }
    for (const Argument& output : graph.outputs) {
        for_each_value_name(output, [&](const std::string& name) { require(name, "the graph's output"); });
    }
}

Graph graph_from_json(const std::string& json_text, const std::string& where) {
    json program;
    try {
        program = json::parse(json_text);
    } catch (const json::exception& e) {
        throw ArchiveError(where + ": not valid JSON (" + e.what() +
                           "); the archive is damaged: save the program again with torch.export.save");
    }
    return in_section(where, [&] {
        check_schema_version(object_of(program));
        const json& graph_module = field(program, "graph_module");
        const json& graph_json = field(graph_module, "graph");
        Graph graph;
        in_section("graph values", [&] { read_values(graph_json, graph); });
        read_nodes(graph_json, graph);
        in_section("graph inputs and outputs", [&] {
            for (const json& input : array_of(field(graph_json, "inputs"))) graph.inputs.push_back(argument_from_json(input));
            for (const json& output : array_of(field(graph_json, "outputs"))) graph.outputs.push_back(argument_from_json(output));
        });
        in_section("signature", [&] { read_signature(field(graph_module, "signature"), graph); });
        read_ranges(program, graph);
        graph.dialect = read_dialect(program);
        if (graph.inputs.size() != graph.input_specs.size() || graph.outputs.size() != graph.output_specs.size()) {
            malformed("the graph has " + std::to_string(graph.inputs.size()) + " inputs and " +
                      std::to_string(graph.outputs.size()) + " outputs but its signature lists " +
                      std::to_string(graph.input_specs.size()) + " and " + std::to_string(graph.output_specs.size()));
        }
        // The signature names the graph's own inputs and outputs, in order: the executor binds
        // a caller's tensors to the values the signature names and the nodes read the graph's,
        // so a signature naming another value would leave an input unbound until run time.
        auto same_value = [](const Argument& a, const Argument& b) {
            return a.kind != Argument::Kind::Tensor || (b.kind == Argument::Kind::Tensor && a.name == b.name);
        };
        for (size_t i = 0; i < graph.inputs.size(); ++i) {
            if (same_value(graph.input_specs[i].arg, graph.inputs[i])) continue;
            malformed("the signature's input " + std::to_string(i) + " is '" + graph.input_specs[i].arg.name +
                      "' but the graph's input " + std::to_string(i) + " is '" + graph.inputs[i].name + "'");
        }
        for (size_t i = 0; i < graph.outputs.size(); ++i) {
            if (same_value(graph.output_specs[i].arg, graph.outputs[i])) continue;
            malformed("the signature's output " + std::to_string(i) + " is '" + graph.output_specs[i].arg.name +
                      "' but the graph's output " + std::to_string(i) + " is '" + graph.outputs[i].name + "'");
        }
        // Placement and the executor walk the nodes in stored order: check it is one.
        check_values_defined_before_use(graph);
        return graph;
    });
}

}  // namespace pt2ov::graph
