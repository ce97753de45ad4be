// Pass 6 of prepare_for_lowering (passes.h): a mutated buffer used only one index of its dim 0
// at a time becomes one buffer per index.
//
// A stacked cache (`k_cache[i].index_copy_(...)` for every layer i of one registered buffer) is,
// once functional, a chain of versions of the whole buffer: each write a select_scatter of one
// index into the version before, each read a select of one index out of some version. Run as
// written, every write materializes the whole buffer again (OpenVINO's ScatterUpdate-like ops
// copy their input), so a step writes the cache once per layer. When every use of every
// version is a select or a select_scatter at a constant index of dim 0, the indices never
// meet: index c's value at any version is the last value written into c before it (or the
// buffer's own bytes at c). Each index then becomes a buffer of its own, a "part", whose reads
// are that value and whose new value is the last one written, and the program runs as one
// with a buffer per index. The runtime keeps the stacked name for the state API
// (Graph::buffer_splits).
#include <set>

#include "common/error.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace pt2ov::graph {

namespace {

using Kind = Argument::Kind;

void rename(Argument& arg, const std::string& from, const std::string& to) {
    if (arg.kind == Kind::Tensor && arg.name == from) arg.name = to;
    for (auto& item : arg.items) rename(item, from, to);
}

// Whether `node` reads `name` in an argument other than the one at schema position `position`.
bool node_reads_other_than(const Node& node, size_t position, const std::string& name) {
    for (size_t a = 0; a < node.resolved_inputs.size(); ++a) {
        if (a != position && names_tensor(node.resolved_inputs[a], name)) return true;
    }
    return false;
}

bool node_reads(const Node& node, const std::string& name) {
    for (const auto& input : node.inputs) {
        if (names_tensor(input.arg, name)) return true;
    }
    for (const auto& arg : node.resolved_inputs) {
        if (names_tensor(arg, name)) return true;
    }
    return false;
}

// `index` of a select or select_scatter at dim 0 of a tensor of `count` rows, made
// non-negative; nullopt when the node picks along another dim or at an index known only at
// run time.
std::optional<int64_t> constant_row(const Node& node, size_t dim_position, size_t index_position, size_t rank,
                                    int64_t count) {
    if (node.arity() <= index_position) return std::nullopt;
    const Argument& dim = node.arg(dim_position);
    const Argument& index = node.arg(index_position);
    if (dim.kind != Kind::Int || index.kind != Kind::Int) return std::nullopt;
    const int64_t d = dim.int_value < 0 ? dim.int_value + static_cast<int64_t>(rank) : dim.int_value;
    if (d != 0) return std::nullopt;
    const int64_t row = index.int_value < 0 ? index.int_value + count : index.int_value;
    if (row < 0 || row >= count) return std::nullopt;
    return row;
}

const Node* producer_of(const Graph& graph, const Argument& arg) {
    if (arg.kind != Kind::Tensor) return nullptr;
    const Value* value = graph.find_value(arg.name);
    if (!value || value->producer < 0) return nullptr;
    return &graph.nodes[static_cast<size_t>(value->producer)];
}

// run_decompositions() spells select_scatter(base, src, 0, c) as
//   where(arange(0, rows).view(-1, 1, ...) == c, src.unsqueeze(0).expand(base's sizes), base)
// The row c and src of such a where node; nullopt for any other where.
std::optional<std::pair<int64_t, std::string>> decomposed_row_write(const Graph& graph, const Node& where,
                                                                    const TensorMeta& meta) {
    const int64_t rows = *meta.sizes[0].value;
    const Node* eq = producer_of(graph, where.arg(0));
    const Node* expand = producer_of(graph, where.arg(1));
    if (!eq || !expand || eq->op != op_id("aten.eq.Scalar") || eq->arity() < 2 || eq->arg(1).kind != Kind::Int ||
        expand->op != op_id("aten.expand.default") || expand->arity() < 2) {
        return std::nullopt;
    }
    const Node* view = producer_of(graph, eq->arg(0));
    if (!view || !is_one_of(view->op, {op_id("aten.view.default"), op_id("aten.reshape.default")})) return std::nullopt;
    const Value& positions = graph.value(view->outputs[0].name);
    if (!positions.meta.all_static() || positions.meta.static_sizes()[0] != rows) return std::nullopt;
    for (size_t d = 1; d < positions.meta.rank(); ++d) {
        if (positions.meta.static_sizes()[d] != 1) return std::nullopt;
    }
    const Node* arange = producer_of(graph, view->arg(0));
    if (!arange || arange->op != op_id("aten.arange.start_step") || arange->arity() < 3) return std::nullopt;
    const Argument &start = arange->arg(0), &end = arange->arg(1), &step = arange->arg(2);
    if (start.kind != Kind::Int || end.kind != Kind::Int || step.kind != Kind::Int || start.int_value != 0 ||
        end.int_value != rows || step.int_value != 1) {
        return std::nullopt;
    }
    const Node* unsqueeze = producer_of(graph, expand->arg(0));
    if (!unsqueeze || unsqueeze->op != op_id("aten.unsqueeze.default") || unsqueeze->arg(1).kind != Kind::Int ||
        unsqueeze->arg(1).int_value != 0 || unsqueeze->arg(0).kind != Kind::Tensor) {
        return std::nullopt;
    }
    const Value& expanded = graph.value(expand->outputs[0].name);
    if (!expanded.meta.all_static() || expanded.meta.static_sizes() != meta.static_sizes()) return std::nullopt;
    const int64_t row = eq->arg(1).int_value;
    if (row < 0 || row >= rows) return std::nullopt;
    return std::make_pair(row, unsqueeze->arg(0).name);
}

// What a split of one buffer does to the graph, found before anything is changed.
struct SplitPlan {
    std::vector<size_t> dropped;                       // the selects and select_scatters
    std::vector<std::pair<std::string, std::pair<size_t, int64_t>>> reads;  // select result → (version, row)
    std::vector<std::vector<std::string>> row_values;  // per version: each row's value
    std::set<std::string> made_masks;  // the values a decomposed write made its row mask and row of
};

// The plan for buffer input `input` whose mutation output gives `final_value`; nullopt when
// some use is not a select or select_scatter at a constant row of dim 0, or when the rows'
// new values would not be rows' own (a graph input, or one value given to two rows).
std::optional<SplitPlan> plan_split(const Graph& graph, const std::string& input, const std::string& final_value,
                                    const std::vector<std::string>& part_inputs) {
    const TensorMeta& meta = graph.value(input).meta;
    const int64_t rows = *meta.sizes[0].value;
    std::vector<int64_t> row_sizes = meta.static_sizes();
    row_sizes.erase(row_sizes.begin());
    std::set<std::string> graph_inputs;
    for (const auto& arg : graph.inputs) graph_inputs.insert(arg.name);

    SplitPlan plan;
    plan.row_values.push_back(part_inputs);
    std::string version = input;
    size_t first = 0;  // the nodes before a version's producer cannot read it
    while (true) {
        std::optional<size_t> write;
        int64_t write_row = 0;
        std::string write_src;
        for (size_t j = first; j < graph.nodes.size(); ++j) {
            const Node& node = graph.nodes[j];
            if (!node_reads(node, version)) continue;
            if (node.op == op_id("aten.select.int") && node.arity() == 3 && node.arg(0).kind == Kind::Tensor &&
                node.arg(0).name == version && node.outputs.size() == 1 && node.outputs[0].kind == Kind::Tensor) {
                const auto row = constant_row(node, 1, 2, meta.rank(), rows);
                if (!row) return std::nullopt;
                plan.reads.push_back({node.outputs[0].name, {plan.row_values.size() - 1, *row}});
                plan.dropped.push_back(j);
                continue;
            }
            if (node.op == op_id("aten.select_scatter.default") && node.arity() == 4 && node.arg(0).kind == Kind::Tensor &&
                node.arg(0).name == version && node.arg(1).kind == Kind::Tensor && node.arg(1).name != version &&
                !write && node.outputs.size() == 1 && node.outputs[0].kind == Kind::Tensor) {
                const auto row = constant_row(node, 2, 3, meta.rank(), rows);
                const Value* src = graph.find_value(node.arg(1).name);
                if (!row || !src || src->meta.dtype != meta.dtype || !src->meta.all_static() ||
                    src->meta.static_sizes() != row_sizes) {
                    return std::nullopt;
                }
                write = j;
                write_row = *row;
                write_src = node.arg(1).name;
                continue;
            }
            if (node.op == op_id("aten.where.self") && node.arity() == 3 && node.arg(2).kind == Kind::Tensor &&
                node.arg(2).name == version && !node_reads_other_than(node, 2, version) && !write &&
                node.outputs.size() == 1 && node.outputs[0].kind == Kind::Tensor) {
                const auto decomposed = decomposed_row_write(graph, node, meta);
                const Value* src = decomposed ? graph.find_value(decomposed->second) : nullptr;
                if (!src || src->meta.dtype != meta.dtype || !src->meta.all_static() ||
                    src->meta.static_sizes() != row_sizes) {
                    return std::nullopt;
                }
                write = j;
                write_row = decomposed->first;
                write_src = decomposed->second;
                // where(eq(view(arange)), expand(unsqueeze(src))): each may go once unread
                const Node* eq = producer_of(graph, node.arg(0));
                const Node* expand = producer_of(graph, node.arg(1));
                const Node* view = producer_of(graph, eq->arg(0));
                for (const Node* made : {eq, expand, view, producer_of(graph, view->arg(0)),
                                         producer_of(graph, expand->arg(0))}) {
                    plan.made_masks.insert(made->outputs[0].name);
                }
                continue;
            }
            return std::nullopt;  // the whole buffer read, another dim, a row known at run time, ...
        }
        // Read only by the buffer mutation, or not a version this program's outputs name.
        size_t output_uses = 0;
        for (const auto& out : graph.outputs) output_uses += names_tensor(out, version) ? 1 : 0;
        if (!write) {
            if (version != final_value || output_uses != 1) return std::nullopt;
            break;
        }
        if (output_uses != 0) return std::nullopt;
        const Node& scatter = graph.nodes[*write];
        std::vector<std::string> next = plan.row_values.back();
        next[static_cast<size_t>(write_row)] = write_src;
        plan.row_values.push_back(std::move(next));
        plan.dropped.push_back(*write);
        version = scatter.outputs[0].name;
        first = *write + 1;
    }
    // Each row's new value must be its own, made by the program: a row never written (its new
    // value its own input), another graph input, or one value given to two rows would make a
    // buffer's new state a tensor the program does not compute.
    std::set<std::string> finals;
    const auto& last = plan.row_values.back();
    for (size_t r = 0; r < last.size(); ++r) {
        if (last[r] == part_inputs[r]) return std::nullopt;
        if (graph_inputs.count(last[r]) || !finals.insert(last[r]).second) return std::nullopt;
    }
    return plan;
}

std::string unused_value_name(const Graph& graph, const std::string& wanted) {
    std::string name = wanted;
    for (int n = 1; graph.find_value(name); ++n) name = wanted + "_" + std::to_string(n);
    return name;
}

}  // namespace

void split_stacked_buffers(Graph& graph, const std::string& where) {
    (void)where;
    for (size_t o = 0; o < graph.output_specs.size(); ++o) {
        const OutputSpec spec = graph.output_specs[o];
        if (spec.kind != OutputSpec::Kind::BufferMutation || spec.arg.kind != Kind::Tensor) continue;
        size_t in = 0;
        while (in < graph.input_specs.size() &&
               !(graph.input_specs[in].kind == InputSpec::Kind::Buffer && graph.input_specs[in].target == spec.target)) {
            ++in;
        }
        if (in == graph.input_specs.size()) continue;
        const std::string input = graph.input_specs[in].arg.name;
        const Value* value = graph.find_value(input);
        if (!value || !value->meta.all_static() || value->meta.rank() < 1) continue;
        const int64_t rows = *value->meta.sizes[0].value;
        // One part per row: a split into thousands of buffers would cost more than it saves.
        if (rows < 1 || rows > 1024) continue;

        const TensorMeta stacked = value->meta;
        std::vector<std::string> part_inputs;
        for (int64_t r = 0; r < rows; ++r) part_inputs.push_back(unused_value_name(graph, input + "_" + std::to_string(r)));
        const auto plan = plan_split(graph, input, graph.outputs[o].name, part_inputs);
        if (!plan) continue;

        // The parts: buffers of a row's sizes, each a view of its row of the stacked bytes.
        TensorMeta row_meta;
        row_meta.dtype = stacked.dtype;
        row_meta.sizes.assign(stacked.sizes.begin() + 1, stacked.sizes.end());
        row_meta.strides.assign(stacked.strides.begin() + 1, stacked.strides.end());
        row_meta.dim_order = dim_order_from_strides(row_meta.static_sizes(), row_meta.static_strides());
        BufferSplit split;
        split.target = spec.target;
        std::vector<InputSpec> part_specs;
        std::vector<OutputSpec> part_mutations;
        for (int64_t r = 0; r < rows; ++r) {
            const std::string& name = part_inputs[static_cast<size_t>(r)];
            Value part;
            part.name = name;
            part.kind = ValueKind::Tensor;
            part.meta = row_meta;
            part.meta.storage_offset = stacked.storage_offset + r * *stacked.strides[0].value;
            graph.values[name] = part;
            InputSpec part_spec = graph.input_specs[in];
            part_spec.arg = tensor_arg(name);
            part_spec.target = spec.target + "[" + std::to_string(r) + "]";  // no state-dict name has brackets
            part_specs.push_back(part_spec);
            OutputSpec mutation = spec;
            mutation.arg = tensor_arg(plan->row_values.back()[static_cast<size_t>(r)]);
            mutation.target = part_spec.target;
            part_mutations.push_back(mutation);
            split.parts.push_back(part_spec.target);
        }

        // Every read of a row reads that row's value at its version; the selects and scatters go.
        for (const auto& [result, at] : plan->reads) {
            const std::string& row_value = plan->row_values[at.first][static_cast<size_t>(at.second)];
            for (auto& node : graph.nodes) {
                for (auto& input_arg : node.inputs) rename(input_arg.arg, result, row_value);
                for (auto& arg : node.resolved_inputs) rename(arg, result, row_value);
            }
            for (auto& out : graph.outputs) rename(out, result, row_value);
            for (auto& out_spec : graph.output_specs) rename(out_spec.arg, result, row_value);
        }
        std::set<size_t> dropped(plan->dropped.begin(), plan->dropped.end());
        std::vector<Node> kept;
        for (size_t j = 0; j < graph.nodes.size(); ++j) {
            if (!dropped.count(j)) {
                kept.push_back(std::move(graph.nodes[j]));
                continue;
            }
            for (const auto& out : graph.nodes[j].outputs) graph.values.erase(out.name);
        }
        graph.nodes = std::move(kept);
        // What only the decomposed writes read (their row masks and expanded rows) goes too.
        for (bool removed = true; removed;) {
            removed = false;
            for (size_t j = graph.nodes.size(); j-- > 0;) {
                const Node& node = graph.nodes[j];
                const bool mask_op = is_one_of(node.op, {op_id("aten.arange.start_step"), op_id("aten.view.default"),
                                                         op_id("aten.reshape.default"), op_id("aten.eq.Scalar"),
                                                         op_id("aten.unsqueeze.default"), op_id("aten.expand.default")});
                if (!mask_op || node.outputs.size() != 1 || node.outputs[0].kind != Kind::Tensor ||
                    !plan->made_masks.count(node.outputs[0].name)) {
                    continue;
                }
                const std::string& result = node.outputs[0].name;
                bool used = false;
                for (const auto& other : graph.nodes) used = used || node_reads(other, result);
                for (const auto& out : graph.outputs) used = used || names_tensor(out, result);
                if (used) continue;
                graph.values.erase(result);
                graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(j));
                removed = true;
            }
        }
        for (auto& [name, v] : graph.values) v.producer = -1;
        for (size_t j = 0; j < graph.nodes.size(); ++j) {
            for (const auto& out : graph.nodes[j].outputs) {
                if (auto* v = graph.find_value(out.name)) v->producer = static_cast<int>(j);
                for (const auto& item : out.items) {
                    if (auto* v = graph.find_value(item.name)) v->producer = static_cast<int>(j);
                }
            }
        }
        graph.values.erase(input);

        // The signature: the stacked buffer's input and mutation become the parts', in its place.
        graph.input_specs.erase(graph.input_specs.begin() + static_cast<std::ptrdiff_t>(in));
        graph.inputs.erase(graph.inputs.begin() + static_cast<std::ptrdiff_t>(in));
        for (size_t r = 0; r < part_specs.size(); ++r) {
            graph.input_specs.insert(graph.input_specs.begin() + static_cast<std::ptrdiff_t>(in + r), part_specs[r]);
            graph.inputs.insert(graph.inputs.begin() + static_cast<std::ptrdiff_t>(in + r), part_specs[r].arg);
        }
        graph.output_specs.erase(graph.output_specs.begin() + static_cast<std::ptrdiff_t>(o));
        graph.outputs.erase(graph.outputs.begin() + static_cast<std::ptrdiff_t>(o));
        for (size_t r = 0; r < part_mutations.size(); ++r) {
            graph.output_specs.insert(graph.output_specs.begin() + static_cast<std::ptrdiff_t>(o + r), part_mutations[r]);
            graph.outputs.insert(graph.outputs.begin() + static_cast<std::ptrdiff_t>(o + r), part_mutations[r].arg);
        }
        graph.buffer_splits.push_back(std::move(split));
        o += part_mutations.size() - 1;  // past the parts' mutations
    }
}

}  // namespace pt2ov::graph
