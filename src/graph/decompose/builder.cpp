#include <map>

#include "common/error.h"
#include "graph/decompose/decompose.h"
#include "graph/schema.h"

namespace pt2ov::graph::decompose {

using Kind = Argument::Kind;

namespace {

// Function-local so registrations from any file's static initializers find it constructed.
std::map<std::string, Decomposition>& registry() {
    static std::map<std::string, Decomposition> table;
    return table;
}

// The decompositions by op id, made once at the first lookup, after every static registration.
const std::vector<const Decomposition*>& decompositions_by_id() {
    static const std::vector<const Decomposition*> by_id = [] {
        std::vector<const Decomposition*> table(op_table::kCount, nullptr);
        std::string unknown;
        for (const auto& [target, fn] : registry()) {
            const OpId id = find_op_id(target);
            if (id == OpId::Unknown) unknown += (unknown.empty() ? "" : ", ") + target;
            else table[static_cast<size_t>(id)] = &fn;
        }
        if (!unknown.empty()) throw InternalError("decompositions of targets outside graph/op_targets.inc: " + unknown);
        return table;
    }();
    return by_id;
}

}  // namespace

void register_decomposition(const std::string& target, Decomposition fn) { registry()[target] = std::move(fn); }

const Decomposition* find_decomposition(OpId op) {
    const auto& table = decompositions_by_id();
    const auto at = static_cast<size_t>(op);
    return at < table.size() ? table[at] : nullptr;
}

std::vector<std::string> decomposed_targets() {
    std::vector<std::string> targets;
    for (const auto& [target, fn] : registry()) targets.push_back(target);
    return targets;
}

Dim static_dim(int64_t value) {
    Dim d;
    d.value = value;
    d.hint = value;
    return d;
}

TensorMeta contiguous_meta(DType dtype, std::vector<Dim> sizes) {
    TensorMeta meta;
    meta.dtype = dtype;
    const size_t rank = sizes.size();
    meta.strides.resize(rank);
    bool known = true;
    int64_t product = 1, hint = 1;
    for (size_t k = rank; k-- > 0;) {
        if (known) {
            meta.strides[k] = static_dim(product);
        } else {
            meta.strides[k].hint = hint;  // a symbolic stride: the decoder reads its hint
        }
        const Dim& size = sizes[k];
        if (size.is_static()) {
            product *= *size.value;
            hint *= *size.value;
        } else {
            known = false;
            hint *= size.hint > 0 ? size.hint : 1;
        }
    }
    meta.sizes = std::move(sizes);
    for (size_t k = 0; k < rank; ++k) meta.dim_order.push_back(static_cast<int>(k));
    return meta;
}

TensorMeta with_dtype(const TensorMeta& meta, DType dtype) { return contiguous_meta(dtype, meta.sizes); }

TensorMeta contiguous_like(const TensorMeta& meta) { return contiguous_meta(meta.dtype, meta.sizes); }

TensorMeta reduced_meta(const TensorMeta& meta, const std::vector<int64_t>& dims, bool keepdim, DType dtype) {
    std::vector<Dim> sizes;
    for (size_t d = 0; d < meta.rank(); ++d) {
        bool reduced = false;
        for (int64_t r : dims) reduced = reduced || r == static_cast<int64_t>(d);
        if (!reduced) {
            sizes.push_back(meta.sizes[d]);
        } else if (keepdim) {
            sizes.push_back(static_dim(1));
        }
    }
    return contiguous_meta(dtype, std::move(sizes));
}

bool is_floating(DType dtype) {
    return dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Float32 || dtype == DType::Float64;
}

Builder::Builder(Graph& graph, const Node& node, std::string where) : graph_(graph), node_(node), where_(std::move(where)) {
    for (const auto& out : node.outputs) {
        if (out.kind == Kind::List) {
            for (const auto& item : out.items) output_names_.push_back(item.kind == Kind::Tensor ? item.name : "");
        } else {
            output_names_.push_back(out.kind == Kind::Tensor ? out.name : "");
        }
    }
    produced_.assign(output_names_.size(), false);
}

const Argument& Builder::arg(size_t position, ArgName name) const {
    if (!node_.schema || position >= node_.schema->arguments.size() || node_.schema->arguments[position].name_id != name.id()) {
        throw InternalError("a decomposition reads argument '" + std::string(name.text()) + "' of node " + node_.name + " (" +
                            node_.target + ") at position " + std::to_string(position) + ", which " +
                            (node_.schema ? "is not where the schema " + node_.schema->text + " has it" : "has no schema"));
    }
    return node_.arg(position);
}

const TensorMeta& Builder::meta(const Argument& tensor) const {
    if (tensor.kind != Kind::Tensor) {
        refuse("an argument the decomposition needs as a tensor is " + std::string(kind_name(tensor.kind)));
    }
    return graph_.value(tensor.name).meta;
}

const TensorMeta& Builder::output_meta(size_t index) const {
    const std::string& name = output_names_.at(index);
    if (name.empty()) throw InternalError("a decomposition reads the metadata of unused output " + std::to_string(index) + " of node " + node_.name);
    return graph_.value(name).meta;
}

int64_t Builder::dim(int64_t d, int64_t rank) const {
    const int64_t bound = rank == 0 ? 1 : rank;
    if (d < -bound || d >= bound) refuse("dim " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
    return d < 0 ? d + bound : d;
}

std::string Builder::fresh_name(const std::string& stem) {
    std::string name;
    do {
        name = stem + "_d" + std::to_string(counter_++);
    } while (graph_.values.count(name));
    return name;
}

Argument Builder::size(const Argument& tensor, int64_t d) {
    const TensorMeta& m = meta(tensor);
    d = dim(d, static_cast<int64_t>(m.rank()));
    const Dim& size = m.sizes.at(static_cast<size_t>(d));
    if (size.is_static()) return int_arg(*size.value);
    const std::string key = tensor.name + "#" + std::to_string(d);
    for (const auto& [k, read] : sizes_read_) {
        if (k == key) return read;
    }
    Node sym = make("aten.sym_size.int", {tensor, int_arg(d)}, {});
    sym.name = fresh_name(node_.name + "_size");
    Argument out;
    out.kind = Kind::SymInt;
    out.name = sym.name;
    sym.outputs = {out};
    Value value;
    value.name = sym.name;
    value.kind = ValueKind::SymInt;
    value.sym = size;
    graph_.values[sym.name] = value;
    values_made_.push_back(sym.name);
    made_.push_back(std::move(sym));
    sizes_read_.push_back({key, out});
    return out;
}

Argument Builder::sizes(const Argument& tensor) {
    std::vector<Argument> items;
    for (int64_t d = 0; d < rank(tensor); ++d) items.push_back(size(tensor, d));
    return list_arg(std::move(items), Kind::Int);
}

Node Builder::make(const std::string& target, std::vector<Argument> positional, Keywords keywords) const {
    Node made;
    made.target = target;
    made.origin = node_.source_name();
    made.origin_target = node_.source_target();
    made.stack_trace = node_.stack_trace;
    const OpSchema* schema = find_schema(target);
    if (!schema) throw InternalError("a decomposition of node " + node_.name + " makes a node of " + target + ", which has no schema");
    if (positional.size() > schema->positional_count) {
        throw InternalError("a decomposition of node " + node_.name + " gives " + target + " " + std::to_string(positional.size()) +
                            " positional arguments; its schema " + schema->text + " has " + std::to_string(schema->positional_count));
    }
    for (size_t i = 0; i < positional.size(); ++i) made.inputs.push_back({schema->arguments[i].name, std::move(positional[i]), false});
    for (auto& [name, value] : keywords) made.inputs.push_back({name, std::move(value), true});
    return made;
}

Argument Builder::op(const std::string& target, std::vector<Argument> positional, const TensorMeta& meta, Keywords keywords) {
    return op_multi(target, std::move(positional), {meta}, std::move(keywords)).at(0);
}

std::vector<Argument> Builder::op_multi(const std::string& target, std::vector<Argument> positional,
                                        const std::vector<std::optional<TensorMeta>>& metas, Keywords keywords) {
    Node made = make(target, std::move(positional), std::move(keywords));
    made.name = fresh_name(node_.name);
    std::vector<Argument> results;
    for (size_t k = 0; k < metas.size(); ++k) {
        if (!metas[k]) {
            made.outputs.push_back(none_arg());
            results.push_back(none_arg());
            continue;
        }
        const std::string name = k == 0 ? made.name : fresh_name(node_.name);
        Value value;
        value.name = name;
        value.kind = ValueKind::Tensor;
        value.meta = *metas[k];
        graph_.values[name] = value;
        values_made_.push_back(name);
        made.outputs.push_back(tensor_arg(name));
        results.push_back(tensor_arg(name));
    }
    made_.push_back(std::move(made));
    return results;
}

void Builder::output(size_t index, const std::string& target, std::vector<Argument> positional, Keywords keywords) {
    if (index >= output_names_.size()) throw InternalError("a decomposition of node " + node_.name + " makes output " + std::to_string(index) + ", which it does not have");
    if (output_names_[index].empty()) return;  // nobody reads it
    if (produced_[index]) throw InternalError("a decomposition of node " + node_.name + " makes output " + std::to_string(index) + " twice");
    Node made = make(target, std::move(positional), std::move(keywords));
    made.name = output_names_[index];
    made.outputs = {tensor_arg(output_names_[index])};
    produced_[index] = true;
    made_.push_back(std::move(made));
}

void Builder::outputs(const std::string& target, std::vector<Argument> positional, Keywords keywords, size_t unused) {
    Node made = make(target, std::move(positional), std::move(keywords));
    made.name = node_.name;  // the original node's place, taken by this one node
    for (size_t k = 0; k < output_names_.size(); ++k) {
        if (produced_[k]) throw InternalError("a decomposition of node " + node_.name + " makes output " + std::to_string(k) + " twice");
        made.outputs.push_back(output_names_[k].empty() ? none_arg() : tensor_arg(output_names_[k]));
        produced_[k] = true;
    }
    for (size_t k = 0; k < unused; ++k) made.outputs.push_back(none_arg());
    made_.push_back(std::move(made));
}

void Builder::output_is(size_t index, const Argument& value) { output(index, "aten.alias.default", {value}); }

std::vector<Node> Builder::take() {
    for (size_t k = 0; k < output_names_.size(); ++k) {
        if (!output_names_[k].empty() && !produced_[k]) {
            throw InternalError("the decomposition of node " + node_.name + " (" + node_.target + ") does not make its output " + output_names_[k]);
        }
    }
    return std::move(made_);
}

namespace {
struct Declined {};
}  // namespace

void Builder::forget_values() {
    for (const auto& name : values_made_) graph_.values.erase(name);
    values_made_.clear();
}

void Builder::decline() const { throw Declined{}; }

void Builder::refuse(const std::string& why) const {
    throw UnsupportedError("node " + node_.name + " (" + node_.source_target() + "): " + why);
}

std::optional<size_t> decompose_node(Graph& graph, size_t index, const Decomposition& decomposition, const std::string& where) {
    const Node original = graph.nodes[index];
    std::vector<Node> made;
    Builder builder(graph, original, where);
    try {
        with_context("decomposing node " + original.name + " (" + original.target + ") into core ATen", [&] {
            decomposition(builder);
            made = builder.take();
            for (auto& node : made) resolve_node(node, where);
        });
    } catch (const Declined&) {
        builder.forget_values();  // the values a declined decomposition made
        return std::nullopt;
    }
    graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(index));
    graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(index), made.begin(), made.end());
    return made.size();
}

}  // namespace pt2ov::graph::decompose
