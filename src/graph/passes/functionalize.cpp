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

// Pass 2 (passes.h): in-place ops made functional.

namespace {

// "aten.add_.Tensor" → "add_"; "" when the target is not an aten op.
std::string op_name(const std::string& target) {
    if (target.rfind("aten.", 0) != 0) return "";
    const auto first = target.find('.');
    const auto second = target.find('.', first + 1);
    return target.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
}

// Python's augmented operators on tensors (`b |= x`), traced as aten.__ior__ and the like, and
// their functional core-ATen forms (what run_decompositions() gives).
const std::map<std::string, std::string>& augmented_operators() {
    static const std::map<std::string, std::string> ops = {
        {"__ior__", "bitwise_or"}, {"__iand__", "bitwise_and"}, {"__ixor__", "bitwise_xor"}};
    return ops;
}

bool is_in_place(const std::string& target) {
    const std::string name = op_name(target);
    if (augmented_operators().count(name)) return true;
    return name.size() > 1 && name.back() == '_' && name.rfind("__", 0) != 0;
}

std::string functional_target(const std::string& target) {
    const std::string name = op_name(target);
    if (auto it = augmented_operators().find(name); it != augmented_operators().end()) {
        return "aten." + it->second + target.substr(5 + name.size());
    }
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

std::string mutated_input(const Node& node);

// x.to(dtype), x.to(device, dtype) or x.type_as(y) that changes neither dtype nor layout returns
// x itself in PyTorch, not a copy (unless copy=True): an in-place op on its result writes x.
// transformers' static cache advances its length buffer this way (`cumulative_length.to(...)`,
// then `+=`). A memory format other than preserve may copy and is not taken as x.
bool is_conversion_to_self(const Graph& graph, const Node& node) {
    static const std::set<std::string> conversions = {"aten.to.dtype", "aten.to.dtype_layout", "aten.to.device",
                                                      "aten.type_as.default"};
    if (!conversions.count(node.target) || !node.schema || node.outputs.size() != 1) return false;
    const Value* input = graph.find_value(mutated_input(node));
    const Value* output = graph.find_value(node.outputs[0].name);
    if (!input || !output || input->meta.dtype != output->meta.dtype) return false;
    for (size_t a = 0; a < node.schema->arguments.size() && a < node.arity(); ++a) {
        const std::string& name = node.schema->arguments[a].name;
        const Argument& arg = node.arg(a);
        if (name == "copy" && arg.kind == Kind::Bool && arg.bool_value) return false;
        if (name == "memory_format" && arg.kind != Kind::None && arg.int_value != 4) return false;  // 4: preserve
        if (name == "layout" && arg.kind != Kind::None && arg.int_value != 7) return false;         // 7: strided
    }
    return true;
}

// The node that made `value` when its result shares memory with its input, as an in-place op
// sees it: a view op as it is, a conversion to self as the alias it is. Empty otherwise.
std::optional<Node> view_producing(const Graph& graph, const std::string& value) {
    const Value* v = graph.find_value(value);
    if (!v || v->producer < 0) return std::nullopt;
    const Node& producer = graph.nodes[static_cast<size_t>(v->producer)];
    if (is_view_op(producer.target)) return producer;
    if (!is_conversion_to_self(graph, producer)) return std::nullopt;
    Node alias = producer;
    alias.target = "aten.alias.default";
    alias.inputs = {{"self", tensor_arg(mutated_input(producer)), false}};
    alias.schema = nullptr;  // read by position only: its one input
    alias.resolved_inputs = {tensor_arg(mutated_input(producer))};
    return alias;
}

// The in-place dropouts; their functional forms name the tensor `input`, not `self`.
const std::set<std::string>& dropout_ops() {
    static const std::set<std::string> ops = {"dropout_", "alpha_dropout_", "feature_dropout_",
                                              "feature_alpha_dropout_"};
    return ops;
}

// An in-place dropout with train=False: the identity.
bool is_inference_dropout(const Node& node) {
    if (!dropout_ops().count(op_name(node.target)) || !node.schema || node.arity() < 3) return false;
    const Argument& train = node.arg(2);
    return train.kind == Argument::Kind::Bool && !train.bool_value;
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

// The node that writes a view's new value back into its base, as PyTorch's functionalization
// does: select_scatter for a select, slice_scatter for a slice or narrow, a view back to the
// base's sizes for a view, the new view itself for an alias. Null for other views.
std::optional<Node> scatter_back(const Node& view, const std::string& base, const TensorMeta& base_meta,
                                 const std::string& new_view, const std::string& name) {
    Node scatter;
    scatter.name = name;
    scatter.origin = view.source_name();
    if (view.target == "aten.select.int") {
        scatter.target = "aten.select_scatter.default";
        scatter.inputs = {{"self", tensor_arg(base), false},
                          {"src", tensor_arg(new_view), false},
                          {"dim", schema_arg(view, 1, "dim"), false},
                          {"index", schema_arg(view, 2, "index"), false}};
    } else if (view.target == "aten.slice.Tensor") {
        scatter.target = "aten.slice_scatter.default";
        scatter.inputs = {{"self", tensor_arg(base), false},
                          {"src", tensor_arg(new_view), false},
                          {"dim", schema_arg(view, 1, "dim"), false},
                          {"start", schema_arg(view, 2, "start"), false},
                          {"end", schema_arg(view, 3, "end"), false},
                          {"step", schema_arg(view, 4, "step"), false}};
    } else if (view.target == "aten.narrow.default" && schema_arg(view, 1, "dim").kind == Kind::Int &&
               schema_arg(view, 2, "start").kind == Kind::Int && schema_arg(view, 3, "length").kind == Kind::Int &&
               base_meta.all_static()) {
        // narrow(dim, start, length) is slice(dim, start, start + length)
        int64_t dim = schema_arg(view, 1, "dim").int_value;
        if (dim < 0) dim += static_cast<int64_t>(base_meta.rank());
        int64_t start = schema_arg(view, 2, "start").int_value;
        if (start < 0) start += base_meta.static_sizes().at(static_cast<size_t>(dim));
        scatter.target = "aten.slice_scatter.default";
        scatter.inputs = {{"self", tensor_arg(base), false},
                          {"src", tensor_arg(new_view), false},
                          {"dim", int_arg(dim), false},
                          {"start", int_arg(start), false},
                          {"end", int_arg(start + schema_arg(view, 3, "length").int_value), false},
                          {"step", int_arg(1), false}};
    } else if (view.target == "aten.alias.default" || view.target == "aten.detach.default") {
        // the same elements in the same layout: the new base is the new view itself
        scatter.target = "aten.alias.default";
        scatter.inputs = {{"self", tensor_arg(new_view), false}};
    } else if ((view.target == "aten.view.default" || view.target == "aten._unsafe_view.default") &&
               base_meta.all_static()) {
        // a view with the base's own elements: the new base is the new view, viewed back
        scatter.target = "aten.view.default";
        scatter.inputs = {{"self", tensor_arg(new_view), false}, {"size", ints_arg(base_meta.static_sizes()), false}};
    } else {
        return std::nullopt;
    }
    scatter.origin_target = scatter.target;
    scatter.outputs = {tensor_arg(name)};
    return scatter;
}

bool same_sizes(const TensorMeta& a, const TensorMeta& b) {
    if (a.rank() != b.rank()) return false;
    for (size_t d = 0; d < a.rank(); ++d) {
        const Dim &x = a.sizes[d], &y = b.sizes[d];
        if (x.is_static() != y.is_static()) return false;
        if (x.is_static() ? *x.value != *y.value : x.expr != y.expr) return false;
    }
    return true;
}

// A node made by the copy_ rewrite: `target(input, extra...)` giving `name` with `meta`.
Node made_node(Graph& graph, const Node& copy, const std::string& name, std::string target,
               std::vector<NamedArgument> inputs, const TensorMeta& meta) {
    Node made;
    made.name = name;
    made.target = std::move(target);
    made.origin = copy.source_name();
    made.origin_target = copy.source_target();
    made.inputs = std::move(inputs);
    made.outputs = {tensor_arg(name)};
    Value value;
    value.name = name;
    value.kind = ValueKind::Tensor;
    value.meta = meta;
    graph.values[name] = value;
    return made;
}

}  // namespace

void functionalize_in_place_ops(Graph& graph, const std::string& where) {
    std::map<std::string, size_t> input_index;  // graph input name → index in input_specs
    for (size_t i = 0; i < graph.input_specs.size(); ++i) input_index[graph.input_specs[i].arg.name] = i;

    std::map<std::string, std::string> root_of;  // a version of a tensor → the tensor first mutated
    std::map<std::string, std::string> latest;   // mutated graph input → its last version
    std::vector<std::string> mutation_order;
    std::set<std::string> written_views;         // new values of views, already scattered back
    std::set<std::string> new_values_of_views;   // a view's new value made while writing through a chain
    // A view's new value → where it was scattered back: the base it made and the view's key.
    std::map<std::string, std::pair<std::string, std::string>> scattered_to;
    // A view by what it selects: target and integer arguments ("" when not all are integers).
    auto view_key = [](const Node& v) {
        std::string key = v.target;
        for (size_t a = 1; a < v.arity(); ++a) {
            const Argument& arg = v.arg(a);
            if (arg.kind == Kind::Int) {
                key += "," + std::to_string(arg.int_value);
            } else if (arg.kind == Kind::None) {
                key += ",None";
            } else {
                return std::string();
            }
        }
        return key;
    };
    auto rename_after = [&](size_t first_node, const std::string& from, const std::string& to) {
        for (size_t j = first_node; j < graph.nodes.size(); ++j) {
            for (auto& input : graph.nodes[j].inputs) replace_references(input.arg, from, to);
            for (auto& arg : graph.nodes[j].resolved_inputs) replace_references(arg, from, to);
        }
        for (auto& out : graph.outputs) replace_references(out, from, to);
        for (auto& spec : graph.output_specs) replace_references(spec.arg, from, to);
    };
    // Removes node i, whose one result `result` is `replacement` from now on.
    auto drop_node = [&](size_t i, const std::string& result, const std::string& replacement) {
        graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(i));
        graph.values.erase(result);
        reindex_producers(graph);
        rename_after(i, result, replacement);
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
        if (is_inference_dropout(node)) {
            // dropout_(x, p, train=False) leaves x as it is: nothing is written, into a view or not
            drop_node(i, result, self);
            --i;  // the node now at i is the next one
            continue;
        }
        const std::optional<Node> view = view_producing(graph, self);
        const std::string vkey = view ? view_key(*view) : std::string();
        // The views from the written tensor out to the first tensor that is not a view, innermost
        // first (x[a][:, b].fill_(v): the slice of the slice, then the slice of x).
        // Copies: the nodes move while nodes are inserted.
        std::vector<Node> chain;
        for (std::optional<Node> v = view; v && chain.size() < 8; v = view_producing(graph, mutated_input(*v))) {
            chain.push_back(*v);
        }
        // The nodes that write a view's new value back, level by level: the last gives the new
        // value of `base`, the tensor the views are views of. Empty when one level cannot.
        auto scatters_for = [&](const std::string& new_view) {
            std::vector<Node> made;
            std::string value = new_view;
            for (size_t level = 0; level < chain.size(); ++level) {
                const std::string of = mutated_input(chain[level]);
                auto back = scatter_back(chain[level], of, graph.value(of).meta, value,
                                         node_name + "_scatter" + (level ? "_" + std::to_string(level) : ""));
                if (!back) return std::vector<Node>{};
                value = back->name;
                made.push_back(std::move(*back));
            }
            return made;
        };
        // Inserts the scatters at `at`; every later reader of a view in the chain, and of base,
        // reads its new value.
        auto insert_scatters = [&](std::vector<Node>& scatters, size_t at) {
            for (size_t level = 0; level < scatters.size(); ++level) {
                Value value = graph.value(mutated_input(chain[level]));
                value.name = scatters[level].name;
                graph.values[value.name] = value;
                resolve_node(scatters[level], where);
            }
            const std::vector<std::string> bases = [&] {
                std::vector<std::string> names;
                for (const Node& v : chain) names.push_back(mutated_input(v));
                return names;
            }();
            graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(at), scatters.begin(), scatters.end());
            reindex_producers(graph);
            for (size_t level = 0; level < scatters.size(); ++level) {
                rename_after(at + scatters.size(), bases[level], scatters[level].name);
                if (level + 1 < scatters.size()) new_values_of_views.insert(scatters[level].name);
            }
            record_version(scatters.back().name, bases.back());
        };
        std::vector<Node> scatters;
        std::string base;
        if (view) {
            base = mutated_input(chain.back());
            // a base that is the new value of a view (written through a chain before) is a view
            // still, of a tensor this chain no longer reaches
            if (!written_views.count(self) && !new_values_of_views.count(base)) scatters = scatters_for(result);
            if (scatters.empty()) {
                throw UnsupportedError(where + ": node " + node.name + " (" + node.target + ") writes in place into a view (" +
                                       self + ") that pt2ov cannot write back; save the program after "
                                              "ep.run_decompositions(), which makes such writes functional");
            }
        }
        if (node.target == "aten.copy_.default") {
            // copy_(dst, src): dst's new value is src itself when src already has dst's sizes and
            // dtype, else src converted and expanded to them, as PyTorch's functionalization and
            // run_decompositions() make it. No functional aten.copy reaches OpenVINO (a 0-d one
            // becomes a Broadcast to the empty shape, openvino_facts EmptyShapeBroadcastCrash).
            const std::string src = schema_arg(node, 1, "src").name;
            const TensorMeta dst_meta = graph.value(self).meta;
            const TensorMeta src_meta = graph.value(src).meta;
            // src is used as the new value only when nothing later could tell the two apart: it
            // is not a graph input or a version of another tensor (a version of dst's own root is
            // fine: `b += v` traces as add_ then copy_(b, add_)), and no later in-place op writes
            // it, dst or copy_'s result (which is dst), or a view of one of them; otherwise the new
            // value is a clone of src. (`length.copy_(position[0]); length += n` must advance the
            // buffer, not write the caller's position through the select.)
            const std::string self_root = root_of.count(self) ? root_of[self] : self;
            bool src_shared = input_index.count(src) > 0 || (root_of.count(src) > 0 && root_of[src] != self_root);
            auto is_src_or_dst = [&](const std::string& name) { return name == src || name == self || name == result; };
            for (size_t j = i + 1; j < graph.nodes.size() && !src_shared; ++j) {
                if (!is_in_place(graph.nodes[j].target)) continue;
                const std::string written = mutated_input(graph.nodes[j]);
                const std::optional<Node> written_view = view_producing(graph, written);
                src_shared = is_src_or_dst(written) || (written_view && is_src_or_dst(mutated_input(*written_view)));
            }
            // b[...] += v as PyTorch traces it: the in-place op on the view, then copy_ of its result
            // into the same view of the base it was just scattered into. Nothing is left to write.
            if (view) {
                auto it = scattered_to.find(src);
                if (it != scattered_to.end() && !vkey.empty() && it->second.first == mutated_input(*view) &&
                    it->second.second == vkey) {
                    drop_node(i, result, src);
                    --i;  // the node now at i is the next one
                    continue;
                }
            }
            const bool convert = dst_meta.dtype != src_meta.dtype;
            const bool expand = !same_sizes(dst_meta, src_meta);
            if (!expand || dst_meta.all_static()) {
                std::vector<Node> made;
                std::string current = src;
                TensorMeta meta = src_meta;
                if (convert) {
                    meta.dtype = dst_meta.dtype;
                    made.push_back(made_node(graph, node, node_name + "_to_copy", "aten._to_copy.default",
                                             {{"self", tensor_arg(current), false}, {"dtype", dtype_arg(dst_meta.dtype), true}}, meta));
                    current = made.back().name;
                }
                if (expand) {
                    made.push_back(made_node(graph, node, node_name + "_expand", "aten.expand.default",
                                             {{"self", tensor_arg(current), false},
                                              {"size", ints_arg(dst_meta.static_sizes()), false}},
                                             dst_meta));
                    current = made.back().name;
                }
                if (made.empty() && src_shared) {
                    made.push_back(made_node(graph, node, node_name + "_clone", "aten.clone.default",
                                             {{"self", tensor_arg(current), false}}, dst_meta));
                    current = made.back().name;
                }
                if (view) scatters = scatters_for(current);
                for (auto& m : made) resolve_node(m, where);
                const size_t k = made.size();
                graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(i));
                graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(i), made.begin(), made.end());
                graph.values.erase(result);
                reindex_producers(graph);
                rename_after(i + k, result, current);
                if (scatters.empty()) {
                    rename_after(i + k, self, current);
                    record_version(current, self);
                    i = i + k - 1;  // past the nodes made (wraps to the next node when none was)
                    continue;
                }
                written_views.insert(current);
                if (chain.size() == 1) scattered_to[current] = {scatters.back().name, vkey};
                rename_after(i + k, self, current);
                insert_scatters(scatters, i + k);
                i = i + k + scatters.size() - 1;  // the last scatter node
                continue;
            }
        }
        node.origin_target = node.source_target();
        node.target = functional_target(node.target);
        if (dropout_ops().count(op_name(node.origin_target))) {
            // dropout_(Tensor self, ...) is dropout(Tensor input, ...)
            for (auto& input : node.inputs) {
                if (input.name == "self") input.name = "input";
            }
        }
        resolve_node(node, where);
        rename_after(i + 1, self, result);
        if (scatters.empty()) {
            record_version(result, self);
            continue;
        }
        // The view's new value goes back into its base; later readers of the base read that.
        written_views.insert(result);
        if (chain.size() == 1) scattered_to[result] = {scatters.back().name, vkey};
        insert_scatters(scatters, i + 1);
        i += scatters.size();  // past the scatter nodes
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

}  // namespace pt2ov::graph
