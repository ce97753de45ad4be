// CPU kernels, registered by op name. A kernel validates its arguments first (clear errors that
// name the node), then computes over strided tensors in any dim order. It knows nothing about
// partitions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "kernels/tensor.h"

namespace pt2ov::kernels {

using graph::ArgName;

// One call of a kernel: the node, and its arguments resolved to runtime values.
class KernelCall {
public:
    // `lookup(argument)` resolves an argument naming a value (tensor or symbolic number) to its
    // runtime value. The call keeps a reference to it (no copy, no allocation per call), so it
    // must outlive the call: a temporary is refused at compile time.
    template <typename Lookup>
    KernelCall(const graph::Node& node, const graph::Graph& graph, const Lookup& lookup)
        : node_(node), graph_(graph), lookup_(&lookup), resolve_([](const void* f, const graph::Argument& arg) -> const RuntimeValue& {
              return (*static_cast<const Lookup*>(f))(arg);
          }) {}
    template <typename Lookup>
    KernelCall(const graph::Node&, const graph::Graph&, const Lookup&&) = delete;

    const graph::Node& node() const { return node_; }
    const graph::Graph& graph() const { return graph_; }

    // The argument at schema `position` of the resolved node (graph::resolve_node), which must
    // be the schema's argument `name` there (else an internal error: the kernel reads the wrong
    // position). A keyword-only argument may be read by name with kKeywordOnly as position.
    // Null when this overload has no argument `name` (a kernel serving several overloads).
    // For a target without schema: the stored argument `name`, else the `position`-th one.
    const graph::Argument* arg(ArgName name, size_t position) const;
    bool has(ArgName name, size_t position) const;

    // Typed access. Each throws UnsupportedError naming the node and argument when the argument
    // is missing (and no default is given) or of another kind.
    const StridedTensor& tensor(ArgName name, size_t position) const;
    std::optional<StridedTensor> optional_tensor(ArgName name, size_t position) const;
    std::vector<StridedTensor> tensors(ArgName name, size_t position) const;  // a list of tensors
    int64_t int_arg(ArgName name, size_t position) const;  // Int, Bool or SymInt
    int64_t int_arg(ArgName name, size_t position, int64_t fallback) const;
    std::vector<int64_t> ints(ArgName name, size_t position) const;  // list of Int/SymInt, or one Int
    std::vector<int64_t> ints(ArgName name, size_t position, std::vector<int64_t> fallback) const;
    double float_arg(ArgName name, size_t position, double fallback) const;
    bool bool_arg(ArgName name, size_t position, bool fallback) const;
    Scalar scalar(ArgName name, size_t position) const;  // Int/Float/Bool/SymInt/SymFloat/SymBool
    std::optional<DType> dtype_arg(ArgName name, size_t position) const;
    // MemoryFormat: Contiguous 1, ChannelsLast 2, ChannelsLast3d 3, Preserve 4 (schema.py).
    int64_t memory_format(ArgName name, size_t position, int64_t fallback) const;

    // What torch.export recorded for output `index` (dtype, sizes, dim order): kernels take the
    // result dtype from here, so PyTorch's type promotion is the exporter's, not re-derived.
    const graph::TensorMeta& output_meta(size_t index) const;

    // An error naming the node and op, for a kernel to throw on bad arguments.
    [[noreturn]] void fail(const std::string& message) const;

    // The runtime value of an argument that names a value (tensor or symbolic int).
    const RuntimeValue& value(const graph::Argument& arg) const { return resolve_(lookup_, arg); }

private:
    const graph::Node& node_;
    const graph::Graph& graph_;
    const void* lookup_;
    const RuntimeValue& (*resolve_)(const void* lookup, const graph::Argument& arg);
};

// A kernel: a plain function, found once per node at load. Returns the node's outputs,
// flattened in the order of node.outputs (a list output's items in order; a None output as an
// empty RuntimeValue). Kernels that differ only in a constant (a unary op's formula, a clamp's
// bounds) are instances of one function template, never closures.
using Kernel = std::vector<RuntimeValue> (*)(const KernelCall&);

class ShapeQuery;  // kernels/contracts.h

// The sizes an output must have, dim by dim: a size, or nullopt where it is symbolic.
using ExpectedSizes = std::vector<std::optional<int64_t>>;

// A kernel's shape contract: its outputs' sizes from its arguments' recorded metadata, as
// PyTorch's meta function for the op computes them (one entry per tensor output, in order; an
// entry for the first output only serves them all), or nullopt where the metadata cannot tell.
// Checked at load against what the archive records (kernels/contracts.h).
using ShapeContract = std::optional<std::vector<ExpectedSizes>> (*)(const ShapeQuery&);

// Registers `kernel` for `op`: a full target ("aten.add.Tensor") or an op without overload
// ("aten.add"), which serves every overload without a kernel of its own; with its shape
// contract, or null to take the contract its file declares (PT2OV_FILE_SHAPE_CONTRACT), if any.
// `file` is the registering source file.
void register_kernel(const std::string& op, Kernel kernel, ShapeContract contract, const char* file);
// Declares the shape contract every kernel registered in `file` has unless it gives its own.
void register_file_shape_contract(const char* file, ShapeContract contract);

// The kernel for an op, found once per node at load: the exact overload's, else one registered
// for every overload of its op; null when there is none.
Kernel find_kernel(graph::OpId op);
Kernel find_kernel(std::string_view target);
// The shape contract of the kernel for an op; null when it declares none.
ShapeContract find_shape_contract(graph::OpId op);

// Every registered op name (for reports and tests).
std::vector<std::string> registered_ops();

// Registers at static-initialization time: `PT2OV_KERNEL("aten.clone", clone_kernel);`, or with
// a shape contract of its own: `PT2OV_KERNEL("aten.mm", mm, matmul_shape);`. A template
// instance goes in parentheses: `PT2OV_KERNEL("aten.fmax.default", (extremum<true>));`
struct KernelRegistrar {
    KernelRegistrar(const char* file, const std::string& op, Kernel kernel, ShapeContract contract = nullptr) {
        register_kernel(op, kernel, contract, file);
    }
};
struct FileShapeContractRegistrar {
    FileShapeContractRegistrar(const char* file, ShapeContract contract) { register_file_shape_contract(file, contract); }
};
#define PT2OV_KERNEL_CONCAT_INNER(a, b) a##b
#define PT2OV_KERNEL_CONCAT(a, b) PT2OV_KERNEL_CONCAT_INNER(a, b)
#define PT2OV_KERNEL(op, ...) \
    static const ::pt2ov::kernels::KernelRegistrar PT2OV_KERNEL_CONCAT(kernel_registrar_, __LINE__)(__FILE__, op, __VA_ARGS__)
// Once per kernel file whose kernels share one shape contract: `PT2OV_FILE_SHAPE_CONTRACT(elementwise_shape);`
#define PT2OV_FILE_SHAPE_CONTRACT(contract)                                                                      \
    static const ::pt2ov::kernels::FileShapeContractRegistrar PT2OV_KERNEL_CONCAT(file_contract_, __LINE__)( \
        __FILE__, contract)

}  // namespace pt2ov::kernels
