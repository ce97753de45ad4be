// The engine's IR of one exported method: nodes with typed arguments, tensor metadata with
// symbolic dims and dim order, and the graph signature. Built from the archive's program JSON
// (see from_json.h); knows nothing about OpenVINO.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pt2ov/dtype.h"
#include "graph/arg_name.h"
#include "graph/op_id.h"

namespace pt2ov::graph {

struct Graph;

// Maps PyTorch's serialized ScalarType number (schema.py) to our DType; throws
// UnsupportedError naming `where` for complex, quantized and other types we do not carry.
DType dtype_from_scalar_type(int scalar_type, const std::string& where);

// A size or stride: a number, or a sympy expression over the program's symbols.
struct Dim {
    std::optional<int64_t> value;  // set when static
    std::string expr;              // sympy srepr, e.g. "Symbol('s17', positive=True, integer=True)"
    std::string symbol;            // set when expr is a bare symbol: "s17"
    int64_t hint = -1;             // the example's value, when the archive gives one

    bool is_static() const { return value.has_value(); }
};

// The range torch.export guarantees for a symbol. Unbounded max is int64 max.
struct SymbolRange {
    int64_t min = 0;
    int64_t max = std::numeric_limits<int64_t>::max();
};

struct TensorMeta {
    DType dtype = DType::Float32;
    std::vector<Dim> sizes;
    std::vector<Dim> strides;
    int64_t storage_offset = 0;  // in elements
    // Dims from outermost to innermost in memory (contiguous: 0, 1, ..., rank-1), derived from
    // the strides (their hints where symbolic), ties broken as PyTorch does (outer dim first).
    std::vector<int> dim_order;

    size_t rank() const { return sizes.size(); }
    bool is_contiguous_order() const;
    bool all_static() const;
    std::vector<int64_t> static_sizes() const;    // requires all_static()
    std::vector<int64_t> static_strides() const;  // requires static strides
};

// One argument of a node, as the schema's tagged union has it.
struct Argument {
    enum class Kind {
        None,
        Tensor,        // name: the tensor value's name
        SymInt,        // name: a symbolic int value's name
        SymBool,       // name
        SymFloat,      // name
        Int,           // int_value
        Float,         // float_value
        Bool,          // bool_value
        String,        // string_value
        ScalarType,    // dtype
        MemoryFormat,  // int_value: Contiguous 1, ChannelsLast 2, ChannelsLast3d 3, Preserve 4
        Layout,        // int_value (Strided 7)
        Device,        // string_value ("cpu")
        List,          // items; list_kind says what an empty list was meant to hold
        Unsupported,   // string_value: the tag we do not carry ("as_graph", custom object, ...)
    };
    Kind kind = Kind::None;
    std::string name;
    int64_t int_value = 0;
    double float_value = 0.0;
    bool bool_value = false;
    std::string string_value;
    DType dtype = DType::Float32;
    std::vector<Argument> items;
    Kind list_kind = Kind::None;  // for List: Int for as_ints, Tensor for as_tensors, ...
    // For Tensor/SymInt/SymBool/SymFloat: the value's slot (Value::slot), numbered once at
    // load so the executor finds values by index; -1 until numbered.
    int slot = -1;
    // For Unsupported "as_graph" (the body of a higher-order op): the body, read like the
    // method's graph (values, nodes, inputs, outputs; no signature); name is its submodule's.
    std::shared_ptr<const Graph> body;

    bool is_tensor() const { return kind == Kind::Tensor; }
};

struct OpSchema;  // schema.h

struct NamedArgument {
    std::string name;  // the schema's parameter name ("self", "dim", ...)
    Argument arg;
    bool keyword = false;  // kind 2 in the JSON; kind 1 is positional
};

struct Node {
    std::string name;
    std::string target;  // without "torch.ops.": "aten.clone.default", "_operator.add"
    std::vector<NamedArgument> inputs;  // arguments left at their default are absent
    std::vector<Argument> outputs;      // Tensor, SymInt, SymBool, None, or List of Tensors
    std::string stack_trace;
    // The archive's node this one came from, when a rewrite made it (empty: this is one).
    std::string origin;
    // The archive's target, when a rewrite changed it (empty: target is the archive's).
    std::string origin_target;

    const std::string& source_name() const { return origin.empty() ? name : origin; }
    const std::string& source_target() const { return origin_target.empty() ? target : origin_target; }

    const NamedArgument* find_input(const std::string& arg_name) const;

    // Set by resolve_node (schema.h), which every node passes through at load and after each
    // rewrite: the target's op id (OpId::Unknown for custom ops), its schema (null for targets
    // without one: custom ops, _operator.*, torch.sym_*), and the arguments by schema position
    // with the defaults filled in. Without a schema, the stored inputs in their order, and
    // their names' ids (Unknown for a name no schema has). `inputs` stays as the archive (or
    // rewrite) wrote it: it is what OpenVINO's frontend is shown.
    OpId op = OpId::Unknown;
    const OpSchema* schema = nullptr;
    std::vector<Argument> resolved_inputs;
    std::vector<ArgNameId> unschematized_names;

    // The argument at `position` (schema position; for a node without schema, stored order).
    // Throws Error when the node was not resolved or has no such position.
    const Argument& arg(size_t position) const;
    size_t arity() const { return resolved_inputs.size(); }
};

enum class ValueKind { Tensor, SymInt, SymBool, SymFloat };

struct Value {
    std::string name;
    ValueKind kind = ValueKind::Tensor;
    TensorMeta meta;    // for tensors
    Dim sym;            // for symbolic ints: the expression (static if known)
    int producer = -1;  // index of the producing node; -1 for graph inputs
    int slot = -1;      // dense index of this value (number_values), for the executor
};

struct InputSpec {
    enum class Kind { UserInput, Parameter, Buffer, TensorConstant, CustomObj, Token, ConstantInput };
    Kind kind = Kind::UserInput;
    Argument arg;        // the graph input (Tensor, or a constant for ConstantInput)
    std::string target;  // parameter_name / buffer_name / tensor_constant_name
    bool persistent = true;
};

struct OutputSpec {
    enum class Kind {
        UserOutput,
        BufferMutation,
        UserInputMutation,
        ParameterMutation,
        GradientToParameter,
        GradientToUserInput,
        LossOutput,
        Token,
    };
    Kind kind = Kind::UserOutput;
    Argument arg;        // usually a Tensor; a user output may also be a number or None
    std::string target;  // buffer_name / parameter_name / user input name for mutations
};

// A mutated buffer run as one buffer per index of its dim 0 (graph/split_buffers.cpp): the
// signature names the parts, and the state API the stacked buffer, as the archive does.
struct BufferSplit {
    std::string target;              // the stacked buffer's state-dict name ("k_cache")
    std::vector<std::string> parts;  // per index of dim 0, the part's target ("k_cache[0]")
};

// A quantize op followed by a dequantize op of the same parameters (quantized_decomposed's
// per-tensor .default forms: PT2E's and NNCF's activations), recorded before both are
// decomposed (graph/passes/fake_quantizations.cpp) so that lowering can hand OpenVINO the pair
// as one FakeQuantize, which its CPU plugin runs on int8 kernels (EXACTNESS.md E8). The
// decomposed nodes stay: they are the exact reference and what the CPU kernels run.
struct FakeQuantization {
    std::string input;   // the float32 value quantized
    std::string output;  // the dequantized float32 value
    std::string node;    // the dequantize node, as the archive names it
    float scale = 1.0F;  // as eager multiplies by it: the Python float rounded to float32
    int64_t zero_point = 0;
    int64_t quant_min = 0;
    int64_t quant_max = 0;
    // Per channel (quantize_per_channel/dequantize_per_channel .default of the same scales and
    // zero points, as NNCF quantizes depthwise inputs): the values holding them, and the axis;
    // `scale` and `zero_point` above are unused then.
    std::string scales;
    std::string zero_points;
    int64_t axis = -1;
};

struct Graph {
    std::vector<Node> nodes;  // topological order, as stored
    std::map<std::string, Value> values;
    std::vector<Argument> inputs;   // pairs with signature inputs
    std::vector<Argument> outputs;  // pairs with signature outputs
    std::vector<InputSpec> input_specs;
    std::vector<OutputSpec> output_specs;
    std::map<std::string, SymbolRange> ranges;  // range_constraints, by symbol
    std::vector<BufferSplit> buffer_splits;     // in signature order
    std::vector<FakeQuantization> fake_quantizations;  // in node order
    // The program's dialect as torch.export.save records it ("verifiers": ["TRAINING"] for
    // torch.export.export, ["ATEN"] after ep.run_decompositions()); empty when the archive
    // does not say. Only messages read it: advice to decompose suits a training-IR program.
    std::string dialect;

    size_t value_count = 0;  // slots numbered by number_values()

    const Value& value(const std::string& name) const;  // throws Error naming the value
    Value* find_value(const std::string& name);
    const Value* find_value(const std::string& name) const;
    // The archive is a program after ep.run_decompositions(): its dialect is "ATEN".
    bool is_decomposed() const { return dialect == "ATEN"; }
};

// "a tensor", "an int", "a list", ...: an argument's kind as error messages name it.
const char* kind_name(Argument::Kind kind);

// Builders of arguments, as rewrites (and tests) spell the nodes they make.
Argument tensor_arg(const std::string& name);
Argument symint_arg(const std::string& name);
Argument int_arg(int64_t value);
Argument float_arg(double value);
Argument bool_arg(bool value);
Argument string_arg(const std::string& value);
Argument none_arg();
Argument ints_arg(const std::vector<int64_t>& values);
Argument list_arg(std::vector<Argument> items, Argument::Kind list_kind = Argument::Kind::Tensor);
Argument memory_format_arg(int64_t value);
Argument dtype_arg(DType dtype);

// Whether `arg` names the tensor value `name`, itself or as an item of a list.
bool names_tensor(const Argument& arg, const std::string& name);

// Gives every value a dense slot (0 .. value_count-1) and every argument that names a value
// that value's slot, so the executor looks values up by index. Run after the last rewrite.
void number_values(Graph& graph);

// Parses "Symbol('s17', positive=True, integer=True)" to "s17"; empty when the expression is
// not a bare symbol.
std::string bare_symbol(const std::string& sympy_srepr);

// Dim order (outermost first) from sizes and strides, as torch's dim_order() computes it.
std::vector<int> dim_order_from_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

}  // namespace pt2ov::graph
