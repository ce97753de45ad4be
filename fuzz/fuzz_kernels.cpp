// libFuzzer target that executes: one node of an op with a CPU kernel, its arguments made from
// the fuzz input (tensors of any dtype, rank and size, in any dim order; ints, lists, floats,
// flags, dtypes, strings), checked against the op's schema and run by its kernel, as the
// executor runs it. What the executor guarantees holds here too: every tensor a kernel reads
// has the sizes and dtype its value's metadata record. What a damaged archive decides does not:
// the arguments, the outputs' recorded dtypes and sizes. The kernel must compute, or refuse with
// a pt2ov::Error; reading or writing outside a tensor (ASan), undefined behaviour (UBSan), an
// InternalError or any other exception is a finding.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "graph/graph.h"
#include "graph/schema.h"
#include "kernels/registry.h"
#include "kernels/tensor.h"

namespace {

using namespace pt2ov;
using graph::Argument;

constexpr DType kDTypes[] = {DType::Float32, DType::Int64, DType::Bool,    DType::Int32,   DType::Float64, DType::Float16,
                             DType::BFloat16, DType::UInt8, DType::Int8,   DType::Int16,   DType::UInt16};

// Every schema target whose kernel the registry resolves (an op without overload serves all).
const std::vector<std::string>& targets_with_kernels() {
    static const std::vector<std::string> targets = [] {
        std::vector<std::string> found;
        for (const auto& target : graph::schema_targets()) {
            if (kernels::find_kernel(target)) found.push_back(target);
        }
        return found;
    }();
    return targets;
}

graph::Dim static_dim(int64_t size) { return graph::Dim{size, "", "", size}; }

class NodeMaker {
public:
    explicit NodeMaker(FuzzedDataProvider& in) : in_(in) {}

    DType dtype() { return kDTypes[in_.ConsumeIntegralInRange<size_t>(0, std::size(kDTypes) - 1)]; }

    std::vector<int64_t> sizes(size_t max_rank = 4) {
        std::vector<int64_t> result(in_.ConsumeIntegralInRange<size_t>(0, max_rank));
        for (auto& size : result) size = in_.ConsumeIntegralInRange<int64_t>(0, 5);
        return result;
    }

    // A tensor value read by the node: its data from the input, its metadata true to it.
    Argument tensor() {
        const std::string name = "t" + std::to_string(values_.size());
        const DType type = dtype();
        auto tensor_sizes = sizes();
        // Laid out in some dim order: a permutation of the dims, outermost first.
        std::vector<int> order(tensor_sizes.size());
        for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<int>(d);
        if (order.size() > 1 && in_.ConsumeBool()) std::swap(order[0], order[order.size() - 1]);
        auto tensor = kernels::StridedTensor::allocate_in_order(type, tensor_sizes, order);
        const size_t bytes = static_cast<size_t>(tensor.numel()) * tensor.element_size();
        for (size_t b = 0; b < bytes; ++b) tensor.data[b] = static_cast<std::byte>(in_.ConsumeIntegral<uint8_t>());
        graph::Value value;
        value.name = name;
        value.meta.dtype = type;
        for (size_t d = 0; d < tensor_sizes.size(); ++d) {
            value.meta.sizes.push_back(static_dim(tensor.sizes[d]));
            value.meta.strides.push_back(static_dim(tensor.strides[d]));
        }
        value.meta.dim_order = order;
        graph_.values[name] = value;
        values_[name] = kernels::RuntimeValue::of(std::move(tensor));
        return graph::tensor_arg(name);
    }

    // An output: what the archive records for it is the fuzzer's to choose.
    Argument output() {
        const std::string name = "out" + std::to_string(outputs_++);
        graph::Value value;
        value.name = name;
        value.meta.dtype = dtype();
        const auto recorded = sizes();
        int64_t stride = 1;
        value.meta.strides.resize(recorded.size());
        for (size_t d = recorded.size(); d-- > 0;) {
            value.meta.strides[d] = static_dim(stride);
            stride *= std::max<int64_t>(recorded[d], 1);
        }
        for (size_t d = 0; d < recorded.size(); ++d) {
            value.meta.sizes.push_back(static_dim(recorded[d]));
            value.meta.dim_order.push_back(static_cast<int>(d));
        }
        value.producer = 0;
        graph_.values[name] = value;
        return graph::tensor_arg(name);
    }

    int64_t integer() {
        switch (in_.ConsumeIntegralInRange<int>(0, 9)) {
            case 0: return std::numeric_limits<int64_t>::min();
            case 1: return std::numeric_limits<int64_t>::max();
            case 2: return in_.ConsumeIntegralInRange<int64_t>(-100, 100);
            default: return in_.ConsumeIntegralInRange<int64_t>(-4, 6);
        }
    }

    double floating() {
        static const double picks[] = {0.0, 1.0, -1.0, 0.5, 2.0, 1e-5, -3.5, 1e30, std::nan(""),
                                       std::numeric_limits<double>::infinity()};
        return picks[in_.ConsumeIntegralInRange<size_t>(0, std::size(picks) - 1)];
    }

    Argument argument(const graph::SchemaArgument& schema) {
        if (schema.optional && in_.ConsumeIntegralInRange<int>(0, 3) == 0) return graph::none_arg();
        if (schema.is_list) {
            const size_t count = schema.list_size ? schema.list_size : in_.ConsumeIntegralInRange<size_t>(0, 4);
            std::vector<Argument> items;
            for (size_t i = 0; i < count; ++i) {
                items.push_back(schema.optional_elements && in_.ConsumeIntegralInRange<int>(0, 3) == 0 ? graph::none_arg()
                                                                                                        : one(schema.element));
            }
            if (schema.element == graph::SchemaType::Int && in_.ConsumeIntegralInRange<int>(0, 7) == 0) {
                return graph::int_arg(integer());  // an int where a list is asked (PyTorch broadcasts it)
            }
            const auto kind = schema.element == graph::SchemaType::Tensor ? Argument::Kind::Tensor
                              : schema.element == graph::SchemaType::Int  ? Argument::Kind::Int
                              : schema.element == graph::SchemaType::Float ? Argument::Kind::Float
                              : schema.element == graph::SchemaType::Bool ? Argument::Kind::Bool
                                                                          : Argument::Kind::None;
            return graph::list_arg(std::move(items), kind);
        }
        return one(schema.element);
    }

    Argument one(graph::SchemaType type) {
        switch (type) {
            case graph::SchemaType::Tensor: return tensor();
            case graph::SchemaType::Int: return graph::int_arg(integer());
            case graph::SchemaType::Float: return graph::float_arg(floating());
            case graph::SchemaType::Bool: return graph::bool_arg(in_.ConsumeBool());
            case graph::SchemaType::String: {
                static const char* picks[] = {"none",    "mean",  "sum",   "max",   "min",    "prod",    "amax",  "amin",
                                              "floor",   "trunc", "tanh",  "left",  "right",  "reflect", "constant",
                                              "replicate", "circular", "linear", "nearest", "bilinear", "reduce", "ij", "xy", ""};
                return graph::string_arg(picks[in_.ConsumeIntegralInRange<size_t>(0, std::size(picks) - 1)]);
            }
            case graph::SchemaType::Scalar:
                return in_.ConsumeBool() ? graph::int_arg(integer()) : graph::float_arg(floating());
            case graph::SchemaType::ScalarType: return graph::dtype_arg(dtype());
            case graph::SchemaType::MemoryFormat: return graph::memory_format_arg(in_.ConsumeIntegralInRange<int64_t>(0, 4));
            default: return graph::none_arg();
        }
    }

    graph::Graph& graph() { return graph_; }
    const kernels::RuntimeValue& value(const Argument& arg) const { return values_.at(arg.name); }

private:
    FuzzedDataProvider& in_;
    graph::Graph graph_;
    std::map<std::string, kernels::RuntimeValue> values_;
    size_t outputs_ = 0;
};

std::string argument_text(const Argument& arg, const graph::Graph& graph) {
    switch (arg.kind) {
        case Argument::Kind::Tensor: {
            const auto& meta = graph.values.at(arg.name).meta;
            std::string text = arg.name + ":" + std::string(dtype_name(meta.dtype)) + "[";
            for (size_t d = 0; d < meta.sizes.size(); ++d) text += (d ? "," : "") + std::to_string(*meta.sizes[d].value);
            return text + "]";
        }
        case Argument::Kind::Int: return std::to_string(arg.int_value);
        case Argument::Kind::Float: return std::to_string(arg.float_value);
        case Argument::Kind::Bool: return arg.bool_value ? "True" : "False";
        case Argument::Kind::String: return "'" + arg.string_value + "'";
        case Argument::Kind::ScalarType: return std::string(dtype_name(arg.dtype));
        case Argument::Kind::None: return "None";
        case Argument::Kind::List: {
            std::string text = "[";
            for (size_t i = 0; i < arg.items.size(); ++i) text += (i ? ", " : "") + argument_text(arg.items[i], graph);
            return text + "]";
        }
        default: return "?";
    }
}

void describe(const graph::Node& node, const graph::Graph& graph) {
    std::string text = node.target + "(";
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        text += (i ? ", " : "") + node.inputs[i].name + "=" + argument_text(node.inputs[i].arg, graph);
    }
    text += ") -> ";
    for (const auto& out : node.outputs) text += argument_text(out, graph) + " ";
    std::fprintf(stderr, "%s\n", text.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider in(data, size);
    const auto& targets = targets_with_kernels();
    const std::string& target = targets[in.ConsumeIntegralInRange<size_t>(0, targets.size() - 1)];
    const graph::OpSchema* schema = graph::find_schema(target);
    NodeMaker maker(in);
    graph::Node node;
    node.name = "fuzzed";
    node.target = target;
    for (const auto& argument : schema->arguments) {
        // An argument with a default is left out now and then, as the archive leaves it.
        if (!argument.required() && in.ConsumeIntegralInRange<int>(0, 2) == 0) continue;
        node.inputs.push_back({argument.name, maker.argument(argument), argument.kwarg_only});
    }
    if (schema->returns_tensor_list) {
        std::vector<Argument> items;
        for (size_t i = in.ConsumeIntegralInRange<size_t>(0, 3); i > 0; --i) items.push_back(maker.output());
        node.outputs.push_back(graph::list_arg(std::move(items)));
    } else {
        for (size_t i = 0; i < schema->return_count; ++i) node.outputs.push_back(maker.output());
    }
    // PT2OV_FUZZ_SHOW=1 (replaying a finding): the node, before it runs.
    static const bool show = std::getenv("PT2OV_FUZZ_SHOW") != nullptr;
    if (show) describe(node, maker.graph());
    pt2ov::fuzz::expect_clean_refusal([&] {
        graph::resolve_node(node, "fuzz.pt2");
        const kernels::Kernel kernel = kernels::find_kernel(target);
        const auto lookup = [&](const Argument& arg) -> const kernels::RuntimeValue& { return maker.value(arg); };
        kernels::KernelCall call(node, maker.graph(), lookup);
        std::vector<kernels::RuntimeValue> results;
        try {
            results = kernel(call);
        } catch (const std::bad_alloc&) {
            return;  // beyond this machine's memory: PyTorch runs out alike
        }
        // Read every element a kernel returns: a tensor that claims memory it lacks shows here.
        for (const auto& result : results) {
            if (!result.is_tensor()) continue;
            const auto& tensor = result.tensor();
            bool empty = false;
            for (size_t d = 0; d < tensor.sizes.size(); ++d) {
                if (tensor.sizes[d] < 0) {
                    std::fprintf(stderr, "%s returned a tensor with size %lld in dim %zu\n", target.c_str(),
                                 static_cast<long long>(tensor.sizes[d]), d);
                    std::abort();
                }
                empty |= tensor.sizes[d] == 0;
            }
            // An empty tensor addresses nothing (its strides may be anything PyTorch gives).
            if (empty || !tensor.data) continue;
            int64_t last = 0;
            for (size_t d = 0; d < tensor.sizes.size(); ++d) last += (tensor.sizes[d] - 1) * tensor.strides[d];
            volatile std::byte sink = tensor.data[last * static_cast<int64_t>(tensor.element_size())];
            (void)sink;
        }
    });
    return 0;
}
