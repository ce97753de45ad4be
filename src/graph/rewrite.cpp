#include "graph/rewrite.h"

#include <functional>
#include <optional>
#include <set>

#include "common/error.h"

namespace pt2ov::graph {

using Kind = Argument::Kind;

namespace {

// Value::producer after nodes were inserted or removed.
void reindex_producers(Graph& graph) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        for (const auto& out : graph.nodes[i].outputs) {
            if (auto* value = graph.find_value(out.name)) value->producer = static_cast<int>(i);
            for (const auto& item : out.items) {
                if (auto* value = graph.find_value(item.name)) value->producer = static_cast<int>(i);
            }
        }
    }
}

}  // namespace

void prepare_for_lowering(Graph& graph, const std::string& where) {
    drop_assertions(graph);
    functionalize_in_place_ops(graph, where);
    lower_training_ops(graph);
}

// ---------------------------------------------------------------------------------------------
// Pass 1: nodes with no outputs. Their only effect is a runtime check torch.export inserted
// (_assert_scalar, sym_constrain_range_for_size, ...); the engine checks inputs itself.

void drop_assertions(Graph& graph) {
    std::erase_if(graph.nodes, [](const Node& node) {
        for (const auto& out : node.outputs) {
            if (out.kind != Kind::None) return false;
        }
        return true;
    });
    reindex_producers(graph);
}

// ---------------------------------------------------------------------------------------------
// Pass 2: in-place ops.

namespace {

// "aten.add_.Tensor" → "add_"; "" when the target is not an aten op.
std::string op_name(const std::string& target) {
    if (target.rfind("aten.", 0) != 0) return "";
    const auto first = target.find('.');
    const auto second = target.find('.', first + 1);
    return target.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
}

bool is_in_place(const std::string& target) {
    const std::string name = op_name(target);
    return name.size() > 1 && name.back() == '_' && name.rfind("__", 0) != 0;
}

std::string functional_target(const std::string& target) {
    const std::string name = op_name(target);
    const std::string functional = name.substr(0, name.size() - 1);
    return "aten." + functional + target.substr(5 + name.size());
}

// Ops whose result shares memory with their input: an in-place op on their result writes
// into the input, which a functional rewrite would lose.
bool is_view_op(const std::string& target) {
    static const std::set<std::string> views = {
        "view", "_unsafe_view", "reshape", "slice", "select", "permute", "transpose", "t", "expand",
        "unsqueeze", "squeeze", "alias", "detach", "diagonal", "as_strided", "narrow", "unfold",
        "split", "split_with_sizes", "chunk", "unbind", "flatten", "view_as", "expand_as", "movedim",
        "swapaxes", "real", "imag", "unflatten"};
    return views.count(op_name(target)) > 0;
}

void replace_references(Argument& arg, const std::string& from, const std::string& to) {
    if (arg.kind == Kind::Tensor && arg.name == from) arg.name = to;
    for (auto& item : arg.items) replace_references(item, from, to);
}

std::string mutated_input(const Node& node) {
    for (const auto& input : node.inputs) {
        if (!input.keyword && input.arg.kind == Kind::Tensor) return input.arg.name;
    }
    return "";
}

// Looks an argument up by schema name, or by position among the positional ones.
const Argument* find_argument(const Node& node, const std::string& name, size_t position) {
    if (const auto* named = node.find_input(name)) return &named->arg;
    size_t index = 0;
    for (const auto& input : node.inputs) {
        if (input.keyword) continue;
        if (index++ == position) return &input.arg;
    }
    return nullptr;
}

Argument argument_or(const Node& node, const std::string& name, size_t position, Argument fallback) {
    const Argument* found = find_argument(node, name, position);
    return found ? *found : fallback;
}

// The node that writes a view's new value back into its base, as PyTorch's functionalization
// does: select_scatter for a select, slice_scatter for a slice. Null for other views.
std::optional<Node> scatter_back(const Node& view, const std::string& base, const std::string& new_view,
                                 const std::string& name) {
    Node scatter;
    scatter.name = name;
    scatter.origin = view.source_name();
    auto arg_or = [&](const std::string& arg_name, size_t position, Argument fallback) {
        return argument_or(view, arg_name, position, std::move(fallback));
    };
    if (view.target == "aten.select.int") {
        scatter.target = "aten.select_scatter.default";
        scatter.inputs = {{"self", tensor_arg(base), false},
                          {"src", tensor_arg(new_view), false},
                          {"dim", arg_or("dim", 1, int_arg(0)), false},
                          {"index", arg_or("index", 2, int_arg(0)), false}};
    } else if (view.target == "aten.slice.Tensor") {
        scatter.target = "aten.slice_scatter.default";
        scatter.inputs = {{"self", tensor_arg(base), false},
                          {"src", tensor_arg(new_view), false},
                          {"dim", arg_or("dim", 1, int_arg(0)), false},
                          {"start", arg_or("start", 2, none_arg()), false},
                          {"end", arg_or("end", 3, none_arg()), false},
                          {"step", arg_or("step", 4, int_arg(1)), false}};
    } else {
        return std::nullopt;
    }
    scatter.origin_target = scatter.target;
    scatter.outputs = {tensor_arg(name)};
    return scatter;
}

}  // namespace

void functionalize_in_place_ops(Graph& graph, const std::string& where) {
    std::map<std::string, size_t> input_index;  // graph input name → index in input_specs
    for (size_t i = 0; i < graph.input_specs.size(); ++i) input_index[graph.input_specs[i].arg.name] = i;

    std::map<std::string, std::string> root_of;  // a version of a tensor → the tensor first mutated
    std::map<std::string, std::string> latest;   // mutated graph input → its last version
    std::vector<std::string> mutation_order;
    std::set<std::string> written_views;         // new values of views, already scattered back
    auto rename_after = [&](size_t first_node, const std::string& from, const std::string& to) {
        for (size_t j = first_node; j < graph.nodes.size(); ++j) {
            for (auto& input : graph.nodes[j].inputs) replace_references(input.arg, from, to);
        }
        for (auto& out : graph.outputs) replace_references(out, from, to);
        for (auto& spec : graph.output_specs) replace_references(spec.arg, from, to);
    };
    auto record_version = [&](const std::string& version, const std::string& previous) {
        const std::string root = root_of.count(previous) ? root_of[previous] : previous;
        root_of[version] = root;
        if (input_index.count(root)) {
            if (!latest.count(root)) mutation_order.push_back(root);
            latest[root] = version;
        }
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        Node& node = graph.nodes[i];
        if (!is_in_place(node.target)) continue;
        const std::string self = mutated_input(node);
        if (self.empty() || node.outputs.empty() || node.outputs[0].kind != Kind::Tensor) continue;
        const std::string result = node.outputs[0].name;
        const std::string node_name = node.name;
        const Value* self_value = graph.find_value(self);
        const Node* view = self_value && self_value->producer >= 0 && is_view_op(graph.nodes[self_value->producer].target)
                               ? &graph.nodes[self_value->producer]
                               : nullptr;
        std::optional<Node> scatter;
        std::string base;
        if (view) {
            base = mutated_input(*view);
            const Value* base_value = graph.find_value(base);
            const bool base_is_view = base_value && base_value->producer >= 0 &&
                                      is_view_op(graph.nodes[base_value->producer].target);
            if (!base_is_view && !written_views.count(self)) scatter = scatter_back(*view, base, result, node_name + "_scatter");
            if (!scatter) {
                throw UnsupportedError(where + ": node " + node.name + " (" + node.target + ") writes in place into a view (" +
                                       self + ") that pt2ov cannot write back; save the program after "
                                              "ep.run_decompositions(), which makes such writes functional");
            }
        }
        node.origin_target = node.source_target();
        node.target = functional_target(node.target);
        rename_after(i + 1, self, result);
        if (!scatter) {
            record_version(result, self);
            continue;
        }
        // The view's new value goes back into its base; later readers of the base read that.
        const std::string scattered = scatter->name;
        Value value = graph.value(base);
        value.name = scattered;
        graph.values[scattered] = value;
        written_views.insert(result);
        graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(i) + 1, *scatter);
        reindex_producers(graph);
        rename_after(i + 2, base, scattered);
        record_version(scattered, base);
        ++i;  // past the scatter node
    }

    for (const auto& root : mutation_order) {
        const InputSpec& spec = graph.input_specs[input_index[root]];
        if (spec.kind != InputSpec::Kind::Buffer) {
            throw UnsupportedError(where + ": the program writes in place into " +
                                   (spec.kind == InputSpec::Kind::UserInput ? "its input '" : "'") + root +
                                   "'; pt2ov never writes a caller's tensors or parameters; return the new value "
                                   "instead of writing it in place");
        }
        OutputSpec mutation;
        mutation.kind = OutputSpec::Kind::BufferMutation;
        mutation.arg = tensor_arg(latest[root]);
        mutation.target = spec.target;
        // Buffer mutations come first among outputs, as run_decompositions() orders them.
        graph.output_specs.insert(graph.output_specs.begin(), mutation);
        graph.outputs.insert(graph.outputs.begin(), mutation.arg);
    }
}

// ---------------------------------------------------------------------------------------------
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
    const Argument input = *find_argument(node, "input", 0);
    const size_t spatial = meta_of(graph, input).rank() - 2;
    const auto zeros = ints_arg(std::vector<int64_t>(spatial, 0));
    const auto ones = ints_arg(std::vector<int64_t>(spatial, 1));
    Argument padding = argument_or(node, "padding", 4, zeros);
    if (padding.kind == Kind::String) {
        if (padding.string_value != "valid") {
            throw UnsupportedError("node " + node.name + " uses padding='" + padding.string_value +
                                   "'; save the program after ep.run_decompositions()");
        }
        padding = zeros;
    }
    const auto old = node.inputs;
    Argument output_padding = transposed ? expand_ints(argument_or(node, "output_padding", 5, zeros), spatial) : zeros;
    Argument groups = argument_or(node, "groups", transposed ? 6 : 6, int_arg(1));
    Argument dilation = expand_ints(argument_or(node, "dilation", transposed ? 7 : 5, ones), spatial);
    set_positional(node, "aten.convolution.default",
                   {{"input", input},
                    {"weight", *find_argument(node, "weight", 1)},
                    {"bias", argument_or(node, "bias", 2, none_arg())},
                    {"stride", expand_ints(argument_or(node, "stride", 3, ones), spatial)},
                    {"padding", expand_ints(padding, spatial)},
                    {"dilation", dilation},
                    {"transposed", bool_arg(transposed)},
                    {"output_padding", output_padding},
                    {"groups", groups}});
    (void)old;
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
        const Argument training = argument_or(node, "training", 5, bool_arg(false));
        if (training.kind == Kind::Bool && training.bool_value) {
            throw UnsupportedError("node " + node.name + " runs batch_norm in training mode; export the module in eval mode "
                                   "(model.eval()) before torch.export");
        }
        set_positional(node, "aten._native_batch_norm_legit_no_training.default",
                       {{"input", *find_argument(node, "input", 0)},
                        {"weight", argument_or(node, "weight", 1, none_arg())},
                        {"bias", argument_or(node, "bias", 2, none_arg())},
                        {"running_mean", *find_argument(node, "running_mean", 3)},
                        {"running_var", *find_argument(node, "running_var", 4)},
                        {"momentum", argument_or(node, "momentum", 6, float_arg(0.1))},
                        {"eps", argument_or(node, "eps", 7, float_arg(1e-5))}});
        add_unused_outputs(node, 2);
    };
    rewrites["aten.layer_norm.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.native_layer_norm.default",
                       {{"input", *find_argument(node, "input", 0)},
                        {"normalized_shape", *find_argument(node, "normalized_shape", 1)},
                        {"weight", argument_or(node, "weight", 2, none_arg())},
                        {"bias", argument_or(node, "bias", 3, none_arg())},
                        {"eps", argument_or(node, "eps", 4, float_arg(1e-5))}});
        add_unused_outputs(node, 2);
    };
    auto identity_in_eval = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const Argument train = argument_or(node, "train", 2, bool_arg(false));
        if (train.kind == Kind::Bool && train.bool_value) {
            throw UnsupportedError("node " + node.name + " is a dropout in training mode; export the module in eval mode");
        }
        set_positional(node, "aten.alias.default", {{"self", *find_argument(node, "input", 0)}});
    };
    rewrites["aten.dropout.default"] = identity_in_eval;
    rewrites["aten.feature_dropout.default"] = identity_in_eval;
    rewrites["aten.reshape.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.view.default",
                       {{"self", *find_argument(node, "self", 0)}, {"size", *find_argument(node, "shape", 1)}});
    };
    rewrites["aten.contiguous.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const auto old = node.inputs;
        set_positional(node, "aten.clone.default", {{"self", *find_argument(node, "self", 0)}});
        keep_keywords(node, old, {"memory_format"});
    };
    auto to_copy = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const auto old = node.inputs;
        const Argument* dtype = find_argument(node, "dtype", node.target == "aten.to.dtype" ? 1 : 99);
        if (node.target == "aten.to.device") dtype = find_argument(node, "dtype", 2);
        set_positional(node, "aten._to_copy.default", {{"self", *find_argument(node, "self", 0)}});
        if (dtype && dtype->kind == Kind::ScalarType) node.inputs.push_back({"dtype", *dtype, true});
        keep_keywords(node, old, {"memory_format"});
    };
    for (const char* to : {"aten.to.dtype", "aten.to.dtype_layout", "aten.to.device"}) rewrites[to] = to_copy;
    rewrites["aten.type_as.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        Argument dtype;
        dtype.kind = Kind::ScalarType;
        dtype.dtype = meta_of(g, *find_argument(node, "other", 1)).dtype;
        set_positional(node, "aten._to_copy.default", {{"self", *find_argument(node, "self", 0)}});
        node.inputs.push_back({"dtype", dtype, true});
    };
    auto softmax = [](const char* core) {
        return [core](Graph& g, size_t i, std::vector<Node>&) {
            Node& node = g.nodes[i];
            const Argument* dtype = find_argument(node, "dtype", 2);
            if (dtype && dtype->kind == Kind::ScalarType && dtype->dtype != meta_of(g, *find_argument(node, "self", 0)).dtype) {
                return;  // no core form without a cast: left to OpenVINO's verdict and the CPU kernel
            }
            set_positional(node, core,
                           {{"self", *find_argument(node, "self", 0)},
                            {"dim", *find_argument(node, "dim", 1)},
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
                       {{"self", *find_argument(node, "self", 0)}, {"mat2", *find_argument(node, "other", 1)}});
    };
    rewrites["aten.adaptive_avg_pool2d.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten._adaptive_avg_pool2d.default",
                       {{"self", *find_argument(node, "self", 0)},
                        {"output_size", expand_ints(*find_argument(node, "output_size", 1), 2)}});
    };
    rewrites["aten.max_pool2d.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        Argument kernel = expand_ints(*find_argument(node, "kernel_size", 1), 2);
        Argument stride = argument_or(node, "stride", 2, ints_arg({}));
        if (stride.kind == Kind::List && stride.items.empty()) stride = kernel;
        set_positional(node, "aten.max_pool2d_with_indices.default",
                       {{"self", *find_argument(node, "self", 0)},
                        {"kernel_size", kernel},
                        {"stride", expand_ints(stride, 2)},
                        {"padding", expand_ints(argument_or(node, "padding", 3, int_arg(0)), 2)},
                        {"dilation", expand_ints(argument_or(node, "dilation", 4, int_arg(1)), 2)},
                        {"ceil_mode", argument_or(node, "ceil_mode", 5, bool_arg(false))}});
        add_unused_outputs(node, 1);
    };
    rewrites["aten.flatten.using_ints"] = [](Graph& g, size_t i, std::vector<Node>& inserted) {
        Node& node = g.nodes[i];
        const Argument self = *find_argument(node, "self", 0);
        const auto& meta = meta_of(g, self);
        const int64_t rank = static_cast<int64_t>(meta.rank());
        int64_t start = argument_or(node, "start_dim", 1, int_arg(0)).int_value;
        int64_t end = argument_or(node, "end_dim", 2, int_arg(-1)).int_value;
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
                       {{"self", *find_argument(node, "self", 0)}, {"other", *find_argument(node, "other", 1)}});
        node.inputs.push_back({"rounding_mode", string_arg("floor"), true});
    };
    rewrites["aten.relu6.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.hardtanh.default",
                       {{"self", *find_argument(node, "self", 0)},
                        {"min_val", float_arg(0.0)},
                        {"max_val", float_arg(6.0)}});
    };
    // std.dim spells the correction as a bool; std.correction is the core-ATen form.
    rewrites["aten.std.dim"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const bool unbiased = argument_or(node, "unbiased", 2, bool_arg(true)).bool_value;
        const Argument keepdim = argument_or(node, "keepdim", 3, bool_arg(false));
        set_positional(node, "aten.std.correction",
                       {{"self", *find_argument(node, "self", 0)}, {"dim", argument_or(node, "dim", 1, none_arg())}});
        node.inputs.push_back({"correction", int_arg(unbiased ? 1 : 0), true});
        node.inputs.push_back({"keepdim", keepdim, true});
    };
    // where with a scalar: OpenVINO's where.self converter takes a number as readily as a tensor.
    rewrites["aten.where.ScalarOther"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.where.self",
                       {{"condition", *find_argument(node, "condition", 0)},
                        {"self", *find_argument(node, "self", 1)},
                        {"other", *find_argument(node, "other", 2)}});
    };
    rewrites["aten.where.ScalarSelf"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        set_positional(node, "aten.where.self",
                       {{"condition", *find_argument(node, "condition", 0)},
                        {"self", *find_argument(node, "self", 1)},
                        {"other", *find_argument(node, "other", 2)}});
    };
    // chunk(n) is split(ceil(size / n)) along a static dim.
    rewrites["aten.chunk.default"] = [](Graph& g, size_t i, std::vector<Node>&) {
        Node& node = g.nodes[i];
        const Argument self = *find_argument(node, "self", 0);
        const auto& meta = meta_of(g, self);
        const int64_t chunks = find_argument(node, "chunks", 1)->int_value;
        int64_t dim = argument_or(node, "dim", 2, int_arg(0)).int_value;
        if (dim < 0) dim += static_cast<int64_t>(meta.rank());
        const Dim& size = meta.sizes.at(dim);
        if (!size.is_static() || chunks <= 0) {
            throw UnsupportedError("node " + node.name + " chunks a dynamic dim; save the program after ep.run_decompositions()");
        }
        set_positional(node, "aten.split.Tensor",
                       {{"self", self}, {"split_size", int_arg((*size.value + chunks - 1) / chunks)}, {"dim", int_arg(dim)}});
    };
    return rewrites;
}

}  // namespace

void lower_training_ops(Graph& graph) {
    static const auto rewrites = training_rewrites();
    std::vector<Node> rewritten;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        auto it = rewrites.find(graph.nodes[i].target);
        if (it == rewrites.end()) {
            rewritten.push_back(graph.nodes[i]);
            continue;
        }
        std::vector<Node> inserted;
        graph.nodes[i].origin_target = graph.nodes[i].source_target();
        with_context("rewriting node " + graph.nodes[i].name + " (" + graph.nodes[i].target + ") to core ATen",
                     [&] { it->second(graph, i, inserted); });
        for (auto& node : inserted) rewritten.push_back(std::move(node));
        rewritten.push_back(graph.nodes[i]);
    }
    graph.nodes = std::move(rewritten);
    reindex_producers(graph);
}

}  // namespace pt2ov::graph
