#include "graph/passes/passes.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

#include "common/error.h"
#include "graph/decompose/decompose.h"
#include "graph/passes/canonical_forms.h"
#include "graph/schema.h"

namespace pt2ov::graph {

using Kind = Argument::Kind;

// Pass 3: training-IR ops → core ATen. Each rewrite fills in the arguments the archive left at
// their defaults, since the core-ATen form spells them all out.

namespace {

// Expands a single int (or one-element list) to `n` ints, as conv and pool arguments allow.
Argument expand_ints(Argument arg, size_t n) {
    if (arg.kind == Kind::Int) return ints_arg(std::vector<int64_t>(n, arg.int_value));
    if (arg.kind == Kind::List && arg.items.size() == 1 && n > 1) return ints_arg(std::vector<int64_t>(n, arg.items[0].int_value));
    return arg;
}

void set_positional(Node& node, std::string target, std::vector<std::pair<std::string, Argument>> args) {
    node.target = std::move(target);
    node.inputs.clear();
    for (auto& [name, arg] : args) node.inputs.push_back({name, std::move(arg), false});
}

void keep_keywords(Node& node, const std::vector<NamedArgument>& old_inputs, const std::set<std::string>& names) {
    for (const auto& input : old_inputs) {
        if (input.keyword && names.count(input.name)) node.inputs.push_back(input);
    }
}

// Turns a single-output node into a multi-output one whose first output is the old result,
// for core-ATen ops that also return statistics or indices.
void add_unused_outputs(Node& node, size_t extra) {
    for (size_t i = 0; i < extra; ++i) node.outputs.push_back(none_arg());
}

const TensorMeta& meta_of(const Graph& graph, const Argument& arg) { return graph.value(arg.name).meta; }

using Rewrite = std::function<void(Graph&, size_t node_index, std::vector<Node>& inserted_before)>;

void rewrite_convolution(Graph& graph, size_t index, std::vector<Node>&, bool transposed) {
    Node& node = graph.nodes[index];
    const Argument input = schema_arg(node, 0, "input");
    const size_t spatial = meta_of(graph, input).rank() - 2;
    const auto zeros = ints_arg(std::vector<int64_t>(spatial, 0));
    Argument padding = schema_arg(node, 4, "padding");
    if (padding.kind == Kind::String) {
        if (padding.string_value != "valid") {
            throw UnsupportedError("node " + node.name + " uses padding='" + padding.string_value +
                                   "'; save the program after ep.run_decompositions()");
        }
        padding = zeros;
    }
    Argument output_padding = transposed ? expand_ints(schema_arg(node, 5, "output_padding"), spatial) : zeros;
    Argument groups = schema_arg(node, 6, "groups");
    Argument dilation = expand_ints(schema_arg(node, transposed ? 7 : 5, "dilation"), spatial);
    set_positional(node, "aten.convolution.default",
                   {{"input", input},
                    {"weight", schema_arg(node, 1, "weight")},
                    {"bias", schema_arg(node, 2, "bias")},
                    {"stride", expand_ints(schema_arg(node, 3, "stride"), spatial)},
                    {"padding", expand_ints(padding, spatial)},
                    {"dilation", dilation},
                    {"transposed", bool_arg(transposed)},
                    {"output_padding", output_padding},
                    {"groups", groups}});
}

std::map<std::string, Rewrite> training_rewrites() {
    std::map<std::string, Rewrite> rewrites;
    for (const char* conv : {"aten.conv1d.default", "aten.conv2d.default", "aten.conv3d.default", "aten.conv1d.padding",
                             "aten.conv2d.padding", "aten.conv3d.padding"}) {
        rewrites[conv] = [](Graph& g, size_t i, std::vector<Node>& extra) { rewrite_convolution(g, i, extra, false); };
    }
    for (const char* conv : {"aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input"}) {
        rewrites[conv] = [](Graph& g, size_t i, std::vector<Node>& extra) { rewrite_convolution(g, i, extra, true); };
    }
    rewrites["aten.batch_norm.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const Argument training = schema_arg(node, 5, "training");
        if (training.kind == Kind::Bool && training.bool_value) {
            throw UnsupportedError("node " + node.name + " runs batch_norm in training mode; export the module in eval mode "
                                   "(model.eval()) before torch.export");
        }
        set_positional(node, "aten._native_batch_norm_legit_no_training.default",
                       {{"input", schema_arg(node, 0, "input")},
                        {"weight", schema_arg(node, 1, "weight")},
                        {"bias", schema_arg(node, 2, "bias")},
                        {"running_mean", schema_arg(node, 3, "running_mean")},
                        {"running_var", schema_arg(node, 4, "running_var")},
                        {"momentum", schema_arg(node, 6, "momentum")},
                        {"eps", schema_arg(node, 7, "eps")}});
        add_unused_outputs(node, 2);
    };
    rewrites["aten.layer_norm.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.native_layer_norm.default",
                       {{"input", schema_arg(node, 0, "input")},
                        {"normalized_shape", schema_arg(node, 1, "normalized_shape")},
                        {"weight", schema_arg(node, 2, "weight")},
                        {"bias", schema_arg(node, 3, "bias")},
                        {"eps", schema_arg(node, 4, "eps")}});
        add_unused_outputs(node, 2);
    };
    auto identity_in_eval = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const Argument train = schema_arg(node, 2, "train");
        if (train.kind == Kind::Bool && train.bool_value) {
            throw UnsupportedError("node " + node.name + " is a dropout in training mode; export the module in eval mode");
        }
        set_positional(node, "aten.alias.default", {{"self", schema_arg(node, 0, "input")}});
    };
    rewrites["aten.dropout.default"] = identity_in_eval;
    rewrites["aten.feature_dropout.default"] = identity_in_eval;
    rewrites["aten.reshape.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.view.default",
                       {{"self", schema_arg(node, 0, "self")}, {"size", schema_arg(node, 1, "shape")}});
    };
    rewrites["aten.narrow.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        // narrow(dim, start, length) is slice(dim, start, start + length), as run_decompositions() has it
        Node& node = g.nodes[i];
        const Argument dim = schema_arg(node, 1, "dim");
        const Argument start = schema_arg(node, 2, "start");
        const Argument length = schema_arg(node, 3, "length");
        const TensorMeta& meta = meta_of(g, schema_arg(node, 0, "self"));
        if (dim.kind != Kind::Int || start.kind != Kind::Int || length.kind != Kind::Int) return;
        const int64_t d = dim.int_value < 0 ? dim.int_value + static_cast<int64_t>(meta.rank()) : dim.int_value;
        int64_t first = start.int_value;
        if (first < 0) {
            if (!meta.sizes.at(static_cast<size_t>(d)).is_static()) return;
            first += *meta.sizes[static_cast<size_t>(d)].value;
        }
        set_positional(node, "aten.slice.Tensor",
                       {{"self", schema_arg(node, 0, "self")}, {"dim", int_arg(d)}, {"start", int_arg(first)},
                        {"end", int_arg(first + length.int_value)}, {"step", int_arg(1)}});
    };
    rewrites["aten.contiguous.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const auto old = node.inputs;
        set_positional(node, "aten.clone.default", {{"self", schema_arg(node, 0, "self")}});
        keep_keywords(node, old, {"memory_format"});
    };
    auto to_copy = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const auto old = node.inputs;
        // to.device(self, device, dtype, ...) has dtype third; to.dtype and to.dtype_layout second.
        const Argument dtype = schema_arg(node, node.op == op_id("aten.to.device") ? 2 : 1, "dtype");
        set_positional(node, "aten._to_copy.default", {{"self", schema_arg(node, 0, "self")}});
        if (dtype.kind == Kind::ScalarType) node.inputs.push_back({"dtype", dtype, true});
        keep_keywords(node, old, {"memory_format"});
    };
    for (const char* to : {"aten.to.dtype", "aten.to.dtype_layout", "aten.to.device"}) rewrites[to] = to_copy;
    rewrites["aten.type_as.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        Argument dtype;
        dtype.kind = Kind::ScalarType;
        dtype.dtype = meta_of(g, schema_arg(node, 1, "other")).dtype;
        set_positional(node, "aten._to_copy.default", {{"self", schema_arg(node, 0, "self")}});
        node.inputs.push_back({"dtype", dtype, true});
    };
    auto softmax = [](const char* core) {
        return [core](Graph& g, size_t i, std::vector<Node>&) {
            Node& node = g.nodes[i];
            const Argument& dtype = schema_arg(node, 2, "dtype");
            if (dtype.kind == Kind::ScalarType && dtype.dtype != meta_of(g, schema_arg(node, 0, "self")).dtype) {
                return;  // no core form without a cast: left to OpenVINO's verdict and the CPU kernel
            }
            set_positional(node, core,
                           {{"self", schema_arg(node, 0, "self")},
                            {"dim", schema_arg(node, 1, "dim")},
                            {"half_to_float", bool_arg(false)}});
        };
    };
    rewrites["aten.softmax.int"] = softmax("aten._softmax.default");
    rewrites["aten.log_softmax.int"] = softmax("aten._log_softmax.default");
    // torch.matmul broadcasts like numpy; OpenVINO's converter for aten.mm is its MatMul, which
    // has exactly those semantics for every rank, 1-D operands included.
    rewrites["aten.matmul.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.mm.default",
                       {{"self", schema_arg(node, 0, "self")}, {"mat2", schema_arg(node, 1, "other")}});
    };
    rewrites["aten.adaptive_avg_pool2d.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten._adaptive_avg_pool2d.default",
                       {{"self", schema_arg(node, 0, "self")},
                        {"output_size", expand_ints(schema_arg(node, 1, "output_size"), 2)}});
    };
    rewrites["aten.max_pool2d.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        Argument kernel = expand_ints(schema_arg(node, 1, "kernel_size"), 2);
        Argument stride = schema_arg(node, 2, "stride");
        if (stride.kind == Kind::List && stride.items.empty()) stride = kernel;
        set_positional(node, "aten.max_pool2d_with_indices.default",
                       {{"self", schema_arg(node, 0, "self")},
                        {"kernel_size", kernel},
                        {"stride", expand_ints(stride, 2)},
                        {"padding", expand_ints(schema_arg(node, 3, "padding"), 2)},
                        {"dilation", expand_ints(schema_arg(node, 4, "dilation"), 2)},
                        {"ceil_mode", schema_arg(node, 5, "ceil_mode")}});
        add_unused_outputs(node, 1);
    };
    rewrites["aten.flatten.using_ints"] = [](Graph& g, size_t i, std::vector<Node>& inserted) {
        Node& node = g.nodes[i];
        const Argument self = schema_arg(node, 0, "self");
        const auto& meta = meta_of(g, self);
        const int64_t rank = static_cast<int64_t>(meta.rank());
        int64_t start = schema_arg(node, 1, "start_dim").int_value;
        int64_t end = schema_arg(node, 2, "end_dim").int_value;
        if (rank == 0) {
            set_positional(node, "aten.view.default", {{"self", self}, {"size", ints_arg({1})}});
            return;
        }
        start = start < 0 ? start + rank : start;
        end = end < 0 ? end + rank : end;
        Argument size;
        size.kind = Kind::List;
        size.list_kind = Kind::Int;
        for (int64_t d = 0; d < rank; ++d) {
            if (d > start && d <= end) continue;
            if (d == start) {
                size.items.push_back(int_arg(-1));
                continue;
            }
            const Dim& dim = meta.sizes[d];
            if (dim.is_static()) {
                size.items.push_back(int_arg(*dim.value));
                continue;
            }
            // A symbolic dim kept as is: read it at run time, as torch's own decomposition does.
            Node sym;
            sym.name = node.name + "_size_" + std::to_string(d);
            sym.origin = node.source_name();
            sym.origin_target = node.source_target();
            sym.target = "aten.sym_size.int";
            sym.inputs = {{"self", self, false}, {"dim", int_arg(d), false}};
            Argument out;
            out.kind = Kind::SymInt;
            out.name = sym.name;
            sym.outputs = {out};
            Value value;
            value.name = sym.name;
            value.kind = ValueKind::SymInt;
            value.sym = dim;
            g.values[sym.name] = value;
            inserted.push_back(sym);
            size.items.push_back(out);
        }
        set_positional(node, "aten.view.default", {{"self", self}, {"size", size}});
    };
    // floor_divide is not core ATen; its core form is div with rounding_mode "floor" (and
    // OpenVINO's own floor_divide converter truncates negative integer quotients instead).
    rewrites["aten.floor_divide.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.div.Tensor_mode",
                       {{"self", schema_arg(node, 0, "self")}, {"other", schema_arg(node, 1, "other")}});
        node.inputs.push_back({"rounding_mode", string_arg("floor"), true});
    };
    rewrites["aten.relu6.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.hardtanh.default",
                       {{"self", schema_arg(node, 0, "self")},
                        {"min_val", float_arg(0.0)},
                        {"max_val", float_arg(6.0)}});
    };
    // std.dim spells the correction as a bool; std.correction is the core-ATen form.
    rewrites["aten.std.dim"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const bool unbiased = schema_arg(node, 2, "unbiased").bool_value;
        const Argument keepdim = schema_arg(node, 3, "keepdim");
        set_positional(node, "aten.std.correction",
                       {{"self", schema_arg(node, 0, "self")}, {"dim", schema_arg(node, 1, "dim")}});
        node.inputs.push_back({"correction", int_arg(unbiased ? 1 : 0), true});
        node.inputs.push_back({"keepdim", keepdim, true});
    };
    // where with a scalar: OpenVINO's where.self converter takes a number as readily as a tensor.
    rewrites["aten.where.ScalarOther"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.where.self",
                       {{"condition", schema_arg(node, 0, "condition")},
                        {"self", schema_arg(node, 1, "self")},
                        {"other", schema_arg(node, 2, "other")}});
    };
    rewrites["aten.where.ScalarSelf"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.where.self",
                       {{"condition", schema_arg(node, 0, "condition")},
                        {"self", schema_arg(node, 1, "self")},
                        {"other", schema_arg(node, 2, "other")}});
    };
    return rewrites;
}

}  // namespace

void lower_training_ops(Graph& graph, const std::string& where) {
    static const auto rewrites = training_rewrites();
    // Nodes a decomposition makes are visited again (a decomposition may use an op that has a
    // rewrite or a decomposition of its own); the budget stops a decomposition that, wrongly,
    // makes its own target.
    size_t budget = 64 * graph.nodes.size() + 1024;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (const auto* decomposition = decompose::find_decomposition(graph.nodes[i].target)) {
            if (budget-- == 0) {
                throw InternalError(where + ": decompositions do not terminate at node " + graph.nodes[i].name + " (" +
                                    graph.nodes[i].target + ")");
            }
            if (decompose::decompose_node(graph, i, *decomposition, where)) {
                --i;  // the first node made (or, when none was, the next node) is visited next
                continue;
            }
        }
        auto it = rewrites.find(graph.nodes[i].target);
        if (it == rewrites.end()) continue;
        std::vector<Node> inserted;
        graph.nodes[i].origin_target = graph.nodes[i].source_target();
        with_context("rewriting node " + graph.nodes[i].name + " (" + graph.nodes[i].target + ") to core ATen",
                     [&] { it->second(graph, i, inserted); });
        // The rewritten node and the ones inserted before it are checked like the archive's.
        resolve_node(graph.nodes[i], where);
        for (auto& node : inserted) resolve_node(node, where);
        graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(i), inserted.begin(), inserted.end());
        i += inserted.size();
    }
    reindex_producers(graph);
}

}  // namespace pt2ov::graph
