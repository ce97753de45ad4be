#include "graph/graph.h"

#include <algorithm>
#include <numeric>
#include <string_view>

#include "common/error.h"

namespace pt2ov::graph {

DType dtype_from_scalar_type(int scalar_type, const std::string& where) {
    // The numbers are torch/_export/serde/schema.py's ScalarType enum (schema 8.x).
    switch (scalar_type) {
        case 1: return DType::UInt8;      // BYTE
        case 2: return DType::Int8;       // CHAR
        case 3: return DType::Int16;      // SHORT
        case 4: return DType::Int32;      // INT
        case 5: return DType::Int64;      // LONG
        case 6: return DType::Float16;    // HALF
        case 7: return DType::Float32;    // FLOAT
        case 8: return DType::Float64;    // DOUBLE
        case 12: return DType::Bool;      // BOOL
        case 13: return DType::BFloat16;  // BFLOAT16
        case 28: return DType::UInt16;    // UINT16
        default: break;
    }
    std::string name;
    switch (scalar_type) {
        case 9: name = "complex32"; break;
        case 10: name = "complex64"; break;
        case 11: name = "complex128"; break;
        case 29: name = "float8_e4m3fn"; break;
        case 30: name = "float8_e5m2"; break;
        case 31: name = "float8_e4m3fnuz"; break;
        case 32: name = "float8_e5m2fnuz"; break;
        case 33: name = "float8_e8m0fnu"; break;
        case 34: name = "uint32"; break;
        case 35: name = "uint64"; break;
        default: name = "unknown scalar type " + std::to_string(scalar_type); break;
    }
    throw UnsupportedError(where + ": dtype " + name +
                           " is not supported by pt2ov (supported: bool, uint8, int8, int16, uint16, "
                           "int32, int64, float16, bfloat16, float32, float64); convert the tensor "
                           "to one of these before export");
}

bool TensorMeta::is_contiguous_order() const {
    for (size_t i = 0; i < dim_order.size(); ++i) {
        if (dim_order[i] != static_cast<int>(i)) return false;
    }
    return true;
}

bool TensorMeta::all_static() const {
    // Strides follow from sizes, but both are checked so static_strides() is safe too.
    for (const Dim& d : sizes) {
        if (!d.is_static()) return false;
    }
    for (const Dim& d : strides) {
        if (!d.is_static()) return false;
    }
    return true;
}

namespace {

std::vector<int64_t> static_values(const std::vector<Dim>& dims, const char* what) {
    std::vector<int64_t> values;
    values.reserve(dims.size());
    for (const Dim& d : dims) {
        if (!d.is_static()) {
            throw InternalError(std::string(what) + " asked of a tensor with symbolic " + what + " (" + d.expr + ")");
        }
        values.push_back(*d.value);
    }
    return values;
}

}  // namespace

std::vector<int64_t> TensorMeta::static_sizes() const { return static_values(sizes, "sizes"); }

std::vector<int64_t> TensorMeta::static_strides() const { return static_values(strides, "strides"); }

const NamedArgument* Node::find_input(const std::string& arg_name) const {
    for (const NamedArgument& input : inputs) {
        if (input.name == arg_name) return &input;
    }
    return nullptr;
}

const Argument& Node::arg(size_t position) const {
    if (position >= resolved_inputs.size()) {
        throw InternalError("node " + name + " (" + target + ") has no argument at position " + std::to_string(position) +
                    (resolved_inputs.empty() && !inputs.empty() ? " (its arguments were never resolved)" : ""));
    }
    return resolved_inputs[position];
}

const Value& Graph::value(const std::string& name) const {
    if (const Value* found = find_value(name)) return *found;
    throw ArchiveError("the program refers to a value named '" + name +
                "' that it never defines; the archive is damaged: re-export and save it again");
}

Value* Graph::find_value(const std::string& name) {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
}

const Value* Graph::find_value(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
}

std::string bare_symbol(const std::string& sympy_srepr) {
    // srepr of a lone symbol: Symbol('s17') or Symbol('s17', positive=True, integer=True).
    // Anything else (Mul(...), Add(...), Integer(3)) is an expression, not a bare symbol.
    constexpr std::string_view prefix = "Symbol('";
    std::string_view text = sympy_srepr;
    if (text.substr(0, prefix.size()) != prefix || text.empty() || text.back() != ')') return {};
    const size_t name_end = text.find('\'', prefix.size());
    if (name_end == std::string_view::npos || name_end == prefix.size()) return {};
    std::string_view rest = text.substr(name_end + 1);  // ")" or ", positive=True, ...)"
    rest.remove_suffix(1);
    if (!rest.empty() && rest.substr(0, 2) != ", ") return {};
    if (rest.find_first_of("()'") != std::string_view::npos) return {};
    return std::string(text.substr(prefix.size(), name_end - prefix.size()));
}

namespace {

// Sizes come from a file: a product that overflows must not be undefined behaviour.
int64_t saturating_multiply(int64_t a, int64_t b) {
    int64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) return std::numeric_limits<int64_t>::max();
    return product;
}

// torch's is_contiguous: size-1 dims are skipped, and so is any tensor with fewer than two
// elements. expected_stride_max mirrors torch's allowance for sym_max(size, 1) strides.
bool torch_is_contiguous(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    bool has_zero = false;
    bool all_ones = true;
    for (int64_t s : sizes) {
        has_zero = has_zero || s == 0;
        all_ones = all_ones && s == 1;
    }
    if (has_zero || all_ones) return true;  // fewer than two elements
    int64_t expected = 1;
    int64_t expected_max = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        if (sizes[i] == 1) continue;
        if (strides[i] != expected && strides[i] != expected_max) return false;
        expected_max = saturating_multiply(expected_max, std::max<int64_t>(sizes[i], 1));
        expected = saturating_multiply(expected, sizes[i]);
    }
    return true;
}

// torch's is_channels_last_contiguous_2d (only 4-D tensors count as channels last here).
bool torch_is_channels_last_2d(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    if (sizes.size() != 4) return false;
    int64_t expected = 1;
    for (size_t dim : {1u, 3u, 2u, 0u}) {
        if (sizes[dim] == 1) continue;
        if (strides[dim] != expected) return false;
        expected = saturating_multiply(expected, sizes[dim]);
    }
    return true;
}

// "a >= b" as torch's should_swap compares sizes and strides (both non-negative).
bool at_least(int64_t a, int64_t b) {
    if (b == 0) return true;
    if (a == 0) return false;
    if (a < 0 || b < 0) return a >= b;  // never from torch; keeps the modulo below defined
    return a >= b || a % b == 0;
}

// torch._prims_common's should_swap: 1 if dim_a belongs inside dim_b, -1 if outside, 0 if
// the strides do not say.
int should_swap(int dim_a, int dim_b, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    const int64_t stride_a = strides[dim_a];
    const int64_t stride_b = strides[dim_b];
    if (stride_a == 0 || stride_b == 0) return 0;
    if (stride_a == stride_b) return at_least(sizes[dim_b], sizes[dim_a]) ? 0 : 1;
    if (at_least(stride_b, stride_a)) return -1;
    if (at_least(stride_a, stride_b)) return 1;
    return 0;
}

}  // namespace

std::vector<int> dim_order_from_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    // Mirrors torch.Tensor.dim_order() (compute_elementwise_output_logical_to_physical_perm in
    // torch/_prims_common): fast paths for contiguous and channels-last, then an insertion sort
    // from the innermost dim that leaves ambiguous pairs (zero or equal strides) in place.
    const int rank = static_cast<int>(sizes.size());
    std::vector<int> order(rank);
    std::iota(order.begin(), order.end(), 0);
    if (rank <= 1 || strides.size() != sizes.size()) return order;

    const bool contiguous = torch_is_contiguous(sizes, strides);
    const bool channels_last = torch_is_channels_last_2d(sizes, strides);
    if (contiguous && !channels_last) return order;
    if (channels_last && !contiguous) return {0, 2, 3, 1};

    std::vector<int> perm(order.rbegin(), order.rend());  // innermost first while sorting
    for (int i = 1; i < rank; ++i) {
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; --dim0) {
            const int comparison = should_swap(perm[dim0], perm[dim1], sizes, strides);
            if (comparison > 0) {
                std::swap(perm[dim0], perm[dim1]);
                dim1 = dim0;
            } else if (comparison < 0) {
                break;
            }
        }
    }
    return std::vector<int>(perm.rbegin(), perm.rend());
}

namespace {
Argument of_kind(Argument::Kind kind) {
    Argument a;
    a.kind = kind;
    return a;
}
}  // namespace

Argument tensor_arg(const std::string& name) {
    Argument a = of_kind(Argument::Kind::Tensor);
    a.name = name;
    return a;
}
Argument symint_arg(const std::string& name) {
    Argument a = of_kind(Argument::Kind::SymInt);
    a.name = name;
    return a;
}
Argument int_arg(int64_t value) {
    Argument a = of_kind(Argument::Kind::Int);
    a.int_value = value;
    return a;
}
Argument float_arg(double value) {
    Argument a = of_kind(Argument::Kind::Float);
    a.float_value = value;
    return a;
}
Argument bool_arg(bool value) {
    Argument a = of_kind(Argument::Kind::Bool);
    a.bool_value = value;
    return a;
}
Argument string_arg(const std::string& value) {
    Argument a = of_kind(Argument::Kind::String);
    a.string_value = value;
    return a;
}
Argument none_arg() { return Argument{}; }
bool names_tensor(const Argument& arg, const std::string& name) {
    if (arg.kind == Argument::Kind::Tensor && arg.name == name) return true;
    for (const auto& item : arg.items) {
        if (names_tensor(item, name)) return true;
    }
    return false;
}

Argument ints_arg(const std::vector<int64_t>& values) {
    std::vector<Argument> items;
    for (int64_t v : values) items.push_back(int_arg(v));
    return list_arg(std::move(items), Argument::Kind::Int);
}
Argument list_arg(std::vector<Argument> items, Argument::Kind list_kind) {
    Argument a = of_kind(Argument::Kind::List);
    a.list_kind = list_kind;
    a.items = std::move(items);
    return a;
}
Argument memory_format_arg(int64_t value) {
    Argument a = of_kind(Argument::Kind::MemoryFormat);
    a.int_value = value;
    return a;
}
Argument dtype_arg(DType dtype) {
    Argument a = of_kind(Argument::Kind::ScalarType);
    a.dtype = dtype;
    return a;
}

namespace {

void number_argument(const Graph& graph, Argument& arg) {
    using Kind = Argument::Kind;
    if (arg.kind == Kind::Tensor || arg.kind == Kind::SymInt || arg.kind == Kind::SymBool || arg.kind == Kind::SymFloat) {
        const Value* value = graph.find_value(arg.name);
        arg.slot = value ? value->slot : -1;
    }
    for (auto& item : arg.items) number_argument(graph, item);
}

}  // namespace

void number_values(Graph& graph) {
    int next = 0;
    for (auto& [name, value] : graph.values) value.slot = next++;
    graph.value_count = static_cast<size_t>(next);
    for (auto& node : graph.nodes) {
        for (auto& input : node.inputs) number_argument(graph, input.arg);
        for (auto& arg : node.resolved_inputs) number_argument(graph, arg);
        for (auto& output : node.outputs) number_argument(graph, output);
    }
    for (auto& arg : graph.inputs) number_argument(graph, arg);
    for (auto& arg : graph.outputs) number_argument(graph, arg);
    for (auto& spec : graph.input_specs) number_argument(graph, spec.arg);
    for (auto& spec : graph.output_specs) number_argument(graph, spec.arg);
}

const char* kind_name(Argument::Kind kind) {
    using Kind = Argument::Kind;
    switch (kind) {
        case Kind::None: return "None";
        case Kind::Tensor: return "a tensor";
        case Kind::SymInt: return "a symbolic int";
        case Kind::SymBool: return "a symbolic bool";
        case Kind::SymFloat: return "a symbolic float";
        case Kind::Int: return "an int";
        case Kind::Float: return "a float";
        case Kind::Bool: return "a bool";
        case Kind::String: return "a string";
        case Kind::ScalarType: return "a dtype";
        case Kind::MemoryFormat: return "a memory format";
        case Kind::Layout: return "a layout";
        case Kind::Device: return "a device";
        case Kind::List: return "a list";
        case Kind::Unsupported: return "an unsupported value";
    }
    return "an unknown value";
}

}  // namespace pt2ov::graph
