#include "graph/schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "pt2ov/error.h"

namespace pt2ov::graph {

using Kind = Argument::Kind;

namespace {

// The generated table: torch's schema strings, one per operator overload (see
// scripts/gen_op_schemas.py for why strings rather than pre-split fields).
constexpr std::string_view kSchemaTexts[] = {
#include "graph/op_schemas.inc"
};

[[noreturn]] void malformed_schema(std::string_view text, const std::string& why) {
    throw InternalError(fmt::format("cannot parse the operator schema '{}': {}", text, why));
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

// Splits `s` at the commas outside brackets and string literals.
std::vector<std::string_view> split_top_level(std::string_view s) {
    std::vector<std::string_view> parts;
    int depth = 0;
    char quote = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote) quote = 0;
            continue;
        }
        if (c == '"' || c == '\'') quote = c;
        else if (c == '(' || c == '[') ++depth;
        else if (c == ')' || c == ']') --depth;
        else if (c == ',' && depth == 0) {
            parts.push_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    if (!trim(s.substr(start)).empty()) parts.push_back(trim(s.substr(start)));
    return parts;
}

// The index of the bracket closing the one at `open`, or npos.
size_t closing_bracket(std::string_view s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        if (s[i] == '(' || s[i] == '[') ++depth;
        if ((s[i] == ')' || s[i] == ']') && --depth == 0) return i;
    }
    return std::string_view::npos;
}

SchemaType schema_type_of(std::string_view base) {
    static const std::unordered_map<std::string_view, SchemaType> types = {
        {"Tensor", SchemaType::Tensor},           {"int", SchemaType::Int},
        {"SymInt", SchemaType::Int},              {"float", SchemaType::Float},
        {"SymFloat", SchemaType::Float},          {"bool", SchemaType::Bool},
        {"SymBool", SchemaType::Bool},            {"str", SchemaType::String},
        {"Dimname", SchemaType::String},          {"Scalar", SchemaType::Scalar},
        {"ScalarType", SchemaType::ScalarType},   {"MemoryFormat", SchemaType::MemoryFormat},
        {"Layout", SchemaType::Layout},           {"Device", SchemaType::Device},
    };
    auto it = types.find(base);
    return it == types.end() ? SchemaType::Any : it->second;
}

// "Tensor(a!)?", "SymInt[2]", "Tensor?[]", "int[1]?" into `arg`.
void parse_type(std::string_view type, SchemaArgument& arg, std::string_view text) {
    arg.type = std::string(type);
    size_t i = 0;
    while (i < type.size() && (std::isalnum(static_cast<unsigned char>(type[i])) || type[i] == '_' || type[i] == '.')) ++i;
    arg.element = schema_type_of(type.substr(0, i));
    if (i < type.size() && type[i] == '(') {  // alias annotation, or Dict(...) and friends
        const size_t close = closing_bracket(type, i);
        if (close == std::string_view::npos) malformed_schema(text, "unbalanced type " + std::string(type));
        if (arg.element != SchemaType::Any) arg.alias = std::string(trim(type.substr(i + 1, close - i - 1)));
        i = close + 1;
    }
    for (; i < type.size(); ++i) {
        if (type[i] == '?') {
            (arg.is_list ? arg.optional : arg.optional_elements) = true;
        } else if (type[i] == '[') {
            const size_t close = type.find(']', i);
            if (close == std::string_view::npos) malformed_schema(text, "unbalanced type " + std::string(type));
            const auto size = type.substr(i + 1, close - i - 1);
            if (!size.empty()) std::from_chars(size.data(), size.data() + size.size(), arg.list_size);
            arg.is_list = true;
            i = close;
        } else if (type[i] == '(') {  // Tensor(a)[] has its annotation before the brackets only
            i = closing_bracket(type, i);
            if (i == std::string_view::npos) malformed_schema(text, "unbalanced type " + std::string(type));
        }
    }
    // "T?" without a list is an optional T; "T?[]" a list whose items may be None.
    if (!arg.is_list && arg.optional_elements) {
        arg.optional = true;
        arg.optional_elements = false;
    }
    if (arg.element == SchemaType::Any) arg.optional = true;
}

std::optional<DType> dtype_named(std::string_view name) {
    static const std::unordered_map<std::string_view, DType> dtypes = {
        {"uint8", DType::UInt8},     {"int8", DType::Int8},     {"int16", DType::Int16},
        {"int32", DType::Int32},     {"long", DType::Int64},    {"half", DType::Float16},
        {"float", DType::Float32},   {"double", DType::Float64}, {"bool", DType::Bool},
        {"bfloat16", DType::BFloat16},
    };
    auto it = dtypes.find(name);
    if (it == dtypes.end()) return std::nullopt;
    return it->second;
}

std::optional<double> parse_number(std::string_view s) {
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    double value = 0;
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (error != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return value;
}

// A default value as the schema spells it, as an Argument of the kind torch.export would write
// for it. `element` decides between readings of a bare number (1 is a float for a float).
Argument parse_default(std::string_view s, SchemaType element, std::string_view text) {
    if (s == "None") return none_arg();
    if (s == "True" || s == "False") return bool_arg(s == "True");
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'')) {
        std::string value;
        for (size_t i = 1; i + 1 < s.size(); ++i) {
            if (s[i] == '\\' && i + 2 < s.size()) {
                const char escaped = s[++i];
                value += escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped == 'f' ? '\f' : escaped == 'v' ? '\v' : escaped;
            } else {
                value += s[i];
            }
        }
        return string_arg(value);
    }
    if (s.front() == '[') {
        const Kind item_kind = element == SchemaType::Float ? Kind::Float
                               : element == SchemaType::Bool ? Kind::Bool
                               : element == SchemaType::Tensor ? Kind::Tensor
                                                               : Kind::Int;
        std::vector<Argument> items;
        for (auto item : split_top_level(s.substr(1, s.size() - 2))) items.push_back(parse_default(item, element, text));
        return list_arg(std::move(items), item_kind);
    }
    if (s == "contiguous_format") return memory_format_arg(1);
    if (s == "channels_last") return memory_format_arg(2);
    if (s == "channels_last_3d") return memory_format_arg(3);
    if (s == "preserve_format") return memory_format_arg(4);
    if (element == SchemaType::ScalarType) {
        if (auto dtype = dtype_named(s)) return dtype_arg(*dtype);
        Argument unsupported;  // refused with its name if a node ever has to use it
        unsupported.kind = Kind::Unsupported;
        unsupported.string_value = "dtype " + std::string(s);
        return unsupported;
    }
    if (element == SchemaType::Layout && s == "strided") {
        Argument layout;
        layout.kind = Kind::Layout;
        layout.int_value = 7;  // the archive's number for torch.strided
        return layout;
    }
    const auto number = parse_number(s);
    if (!number) malformed_schema(text, "unknown default value " + std::string(s));
    const bool looks_integral = s.find_first_of(".eE") == std::string_view::npos && std::isfinite(*number);
    if (element == SchemaType::Float || !looks_integral) return float_arg(*number);
    int64_t value = 0;
    std::from_chars(s.data(), s.data() + s.size(), value);
    return int_arg(value);
}

// The index of the last space outside brackets: it separates a declaration's type from its
// name ("Tensor(a -> *) self"); npos when there is none (an unnamed return).
size_t name_separator(std::string_view declaration) {
    int depth = 0;
    size_t separator = std::string_view::npos;
    for (size_t i = 0; i < declaration.size(); ++i) {
        const char c = declaration[i];
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (c == ' ' && depth == 0) separator = i;
    }
    return separator;
}

SchemaArgument parse_argument(std::string_view declaration, bool kwarg_only, std::string_view text) {
    SchemaArgument arg;
    arg.kwarg_only = kwarg_only;
    // "Type name=default": neither type nor name holds '='. The default is parsed once the type
    // is known.
    std::string_view left = declaration;
    std::optional<std::string_view> spelled_default;
    if (const size_t equals = declaration.find('='); equals != std::string_view::npos) {
        left = trim(declaration.substr(0, equals));
        spelled_default = trim(declaration.substr(equals + 1));
    }
    const size_t separator = name_separator(left);
    if (separator == std::string_view::npos) malformed_schema(text, "argument without a name: " + std::string(declaration));
    arg.name = std::string(left.substr(separator + 1));
    arg.name_id = find_arg_name(arg.name);
    parse_type(trim(left.substr(0, separator)), arg, text);
    if (spelled_default) arg.default_value = parse_default(*spelled_default, arg.element, text);
    return arg;
}

// aten::add.Tensor(...) → aten.add.Tensor; aten::clone(...) → aten.clone.default.
std::string target_of(std::string_view text) {
    const std::string_view name = text.substr(0, text.find('('));
    const size_t colons = name.find("::");
    if (colons == std::string_view::npos) malformed_schema(text, "the name has no namespace");
    const std::string_view op = name.substr(colons + 2);
    return fmt::format("{}.{}{}", name.substr(0, colons), op, op.find('.') == std::string_view::npos ? ".default" : "");
}

}  // namespace

std::optional<size_t> OpSchema::position_of(std::string_view name) const {
    for (size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i].name == name) return i;
    }
    return std::nullopt;
}

std::optional<size_t> OpSchema::position_of(ArgNameId name) const {
    for (size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i].name_id == name) return i;
    }
    return std::nullopt;
}

OpSchema parse_schema(std::string_view text) {
    OpSchema schema;
    schema.text = std::string(text);
    const size_t open = text.find('(');
    const size_t close = open == std::string_view::npos ? open : closing_bracket(text, open);
    const size_t arrow = close == std::string_view::npos ? close : text.find(" -> ", close);
    if (arrow == std::string_view::npos) malformed_schema(text, "expected 'name(arguments) -> returns'");

    schema.target = target_of(text);

    bool kwarg_only = false;
    for (auto declaration : split_top_level(text.substr(open + 1, close - open - 1))) {
        if (declaration == "*") {
            kwarg_only = true;
            continue;
        }
        if (declaration == "...") {  // TorchScript varargs: nothing to check beyond this point
            schema.varargs = true;
            continue;
        }
        schema.arguments.push_back(parse_argument(declaration, kwarg_only, text));
        if (!kwarg_only) ++schema.positional_count;
    }

    std::string_view returns = trim(text.substr(arrow + 4));
    std::vector<std::string_view> items;
    if (!returns.empty() && returns.front() == '(' && closing_bracket(returns, 0) == returns.size() - 1) {
        items = split_top_level(returns.substr(1, returns.size() - 2));
    } else {
        items = {returns};
    }
    schema.return_count = items.size();
    if (items.size() == 1) {
        SchemaArgument only;
        const size_t separator = name_separator(items[0]);
        parse_type(separator == std::string_view::npos ? items[0] : items[0].substr(0, separator), only, text);
        schema.returns_tensor_list = only.element == SchemaType::Tensor && only.is_list && !only.optional_elements;
    }
    return schema;
}

namespace {

// Each schema is parsed when a node first asks for it: a program uses a few dozen of the
// table's thousands, and parsing them all would cost every process several milliseconds.
class SchemaTable {
public:
    SchemaTable() {
        for (size_t i = 0; i < std::size(kSchemaTexts); ++i) {
            targets_.push_back(target_of(kSchemaTexts[i]));
            index_.emplace(targets_.back(), i);
        }
        parsed_.resize(targets_.size());
    }

    const OpSchema* find(std::string_view target) {
        auto it = index_.find(std::string(target));
        if (it == index_.end()) return nullptr;
        // Methods may be loaded from several threads; the schemas are shared.
        std::lock_guard lock(mutex_);
        auto& schema = parsed_[it->second];
        if (!schema) schema = std::make_unique<OpSchema>(parse_schema(kSchemaTexts[it->second]));
        return schema.get();
    }

    const std::vector<std::string>& targets() const { return targets_; }

private:
    std::vector<std::string> targets_;
    std::unordered_map<std::string, size_t> index_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<OpSchema>> parsed_;  // unique_ptr: the schemas never move
};

SchemaTable& schema_table() {
    static SchemaTable table;
    return table;
}

bool is_number(Kind kind) {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool || kind == Kind::SymInt ||
           kind == Kind::SymFloat || kind == Kind::SymBool;
}

// Whether one (non-list) value fits the schema's element type. Lenient where torch.export
// writes legitimately differently from the schema's letter: a Python number for a Tensor (the
// dispatcher wraps it), an int for a float, a bool for an int.
bool fits_element(SchemaType element, Kind kind) {
    switch (element) {
        case SchemaType::Tensor: return kind == Kind::Tensor || is_number(kind);
        case SchemaType::Int: return kind == Kind::Int || kind == Kind::SymInt || kind == Kind::Bool || kind == Kind::SymBool;
        case SchemaType::Float:
            return kind == Kind::Float || kind == Kind::SymFloat || kind == Kind::Int || kind == Kind::SymInt;
        case SchemaType::Bool: return kind == Kind::Bool || kind == Kind::SymBool;
        case SchemaType::String: return kind == Kind::String;
        case SchemaType::Scalar: return is_number(kind);
        case SchemaType::ScalarType: return kind == Kind::ScalarType;
        case SchemaType::MemoryFormat: return kind == Kind::MemoryFormat || kind == Kind::Int;
        case SchemaType::Layout: return kind == Kind::Layout || kind == Kind::Int;
        case SchemaType::Device: return kind == Kind::Device || kind == Kind::String;
        case SchemaType::Any: return true;
    }
    return true;
}

// Why `value` does not fit `arg`; empty when it does.
std::string misfit(const SchemaArgument& arg, const Argument& value) {
    // Values we do not carry (graphs, custom objects, complex numbers) are refused with their
    // tag where they would have to run, not here.
    if (value.kind == Kind::Unsupported || arg.element == SchemaType::Any) return "";
    if (value.kind == Kind::None) return arg.optional ? "" : "None";
    if (!arg.is_list) {
        if (value.kind == Kind::List) return "a list";
        return fits_element(arg.element, value.kind) ? "" : kind_name(value.kind);
    }
    if (value.kind != Kind::List) {
        // int[1] and int[N] take one int for the whole list, as torch's argument parser does.
        const bool broadcast = arg.element != SchemaType::Tensor && fits_element(arg.element, value.kind);
        return broadcast ? "" : kind_name(value.kind);
    }
    for (const Argument& item : value.items) {
        if (item.kind == Kind::Unsupported) continue;
        // Numbers stand for tensors only as single arguments: Tensor[] items are tensors.
        const bool fits = item.kind == Kind::None ? arg.optional_elements
                          : arg.element == SchemaType::Tensor ? item.kind == Kind::Tensor
                                                              : fits_element(arg.element, item.kind);
        if (!fits) {
            return std::string("a list holding ") + kind_name(item.kind);
        }
    }
    return "";
}

}  // namespace

const OpSchema* find_schema(std::string_view target) { return schema_table().find(target); }

const std::vector<std::string>& schema_targets() { return schema_table().targets(); }

void resolve_node(Node& node, const std::string& where) {
    node.op = find_op_id(node.target);
    node.schema = find_schema(node.target);
    if (node.schema && node.schema->varargs) node.schema = nullptr;
    node.resolved_inputs.clear();
    node.unschematized_names.clear();
    if (!node.schema) {
        // Custom ops, _operator.*, torch.sym_*: nothing to check against.
        for (const auto& input : node.inputs) {
            node.resolved_inputs.push_back(input.arg);
            node.unschematized_names.push_back(find_arg_name(input.name));
        }
        return;
    }
    const OpSchema& schema = *node.schema;
    const bool made_by_rewrite = !node.origin.empty() || !node.origin_target.empty();
    auto fail = [&](const std::string& problem) {
        const std::string advice =
            made_by_rewrite
                ? fmt::format("pt2ov's rewrite of node {} ({}) made it wrongly",
                              node.source_name(), node.source_target())
                : "the archive is damaged or was written by another PyTorch: re-export it";
        const std::string message = fmt::format("{}: node {} ({}) {} of {}; {}", where, node.name, node.target, problem, schema.text, advice);
        if (made_by_rewrite) throw InternalError(message);  // our bug, not the archive's
        throw ArchiveError(message);
    };

    std::vector<const Argument*> given(schema.arguments.size(), nullptr);
    size_t positional_seen = 0;
    std::string misplaced;  // reported after missing arguments, which explain it better
    for (const auto& input : node.inputs) {
        std::optional<size_t> position;
        if (input.keyword && input.name.empty()) fail("has a keyword argument without a name");
        if (!input.name.empty()) {
            position = schema.position_of(input.name);
            if (!position) fail(fmt::format("has {} argument '{}', which is not an argument", input.keyword ? "a keyword" : "an", input.name));
        }
        if (!input.keyword) {
            if (positional_seen >= schema.positional_count) {
                fail(fmt::format("has an extra positional argument{} at position {}, beyond the {} positional ones",
                                 input.name.empty() ? "" : " '" + input.name + "'", positional_seen, schema.positional_count));
            }
            if (!position) position = positional_seen;
            if (*position != positional_seen && misplaced.empty()) {
                misplaced = fmt::format("passes argument '{}' at position {}, where the schema has '{}'", input.name,
                                        positional_seen, schema.arguments[positional_seen].name);
            }
            ++positional_seen;
        }
        if (given[*position]) fail(fmt::format("has argument '{}' twice", schema.arguments[*position].name));
        given[*position] = &input.arg;
    }
    for (size_t i = 0; i < schema.arguments.size(); ++i) {
        const SchemaArgument& arg = schema.arguments[i];
        if (!given[i]) {
            if (arg.required()) fail(fmt::format("lacks required argument '{}'", arg.name));
            continue;
        }
        if (const std::string what = misfit(arg, *given[i]); !what.empty()) {
            fail(fmt::format("has {} for argument '{}', which is '{} {}'", what, arg.name, arg.type, arg.name));
        }
    }
    if (!misplaced.empty()) fail(misplaced);

    // Outputs: one per return, as torch.export writes them; an op returning () may also have
    // a single None output.
    const auto& outputs = node.outputs;
    const bool no_result = std::all_of(outputs.begin(), outputs.end(), [](const Argument& o) { return o.kind == Kind::None; });
    if (schema.return_count == 0 ? !no_result : outputs.size() != schema.return_count) {
        fail(fmt::format("has {} outputs for the {} returns", outputs.size(), schema.return_count));
    }
    if (schema.returns_tensor_list && outputs[0].kind != Kind::List && outputs[0].kind != Kind::None) {
        fail("has a single output where the return is a list of tensors");
    }

    node.resolved_inputs.reserve(schema.arguments.size());
    for (size_t i = 0; i < schema.arguments.size(); ++i) {
        node.resolved_inputs.push_back(given[i] ? *given[i] : *schema.arguments[i].default_value);
    }
}

void check_and_resolve(Graph& graph, const std::string& where) {
    for (Node& node : graph.nodes) resolve_node(node, where);
}

}  // namespace pt2ov::graph
