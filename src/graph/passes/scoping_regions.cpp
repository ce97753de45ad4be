// Inlining of the higher-order ops that only scope a region of the graph: torch.export's training
// IR keeps `with torch.autocast(...)` and `with torch.no_grad()` / `set_grad_enabled` blocks of
// forward as `wrap_with_autocast` and `wrap_with_set_grad_enabled` nodes whose body is a graph
// of its own. Grad mode changes no value an inference computes, and autocast changes values only
// through the casts its dispatcher key inserts before the ops it lists; once those casts are
// spelled out as nodes (as ep.run_decompositions() spells them), the body computes in the
// enclosing graph what eager computes in the region.
#include <map>
#include <optional>
#include <algorithm>
#include <set>
#include <vector>
#include <string_view>

#include "common/error.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace pt2ov::graph {

namespace {

using Kind = Argument::Kind;

constexpr OpId kAutocastRegion = op_id("higher_order.wrap_with_autocast");
constexpr OpId kGradModeRegion = op_id("higher_order.wrap_with_set_grad_enabled");

// A region's body is a raw subgraph whose nodes are resolved only once inlined: their op id is
// found here, from the target the archive spells.
OpId op_of(const Node& node) { return node.op != OpId::Unknown ? node.op : find_op_id(node.target); }

// What CPU autocast does before an op it lists (aten/src/ATen/autocast_mode.h): cast its floating
// tensor arguments (float64 ones excepted) to the region's dtype, to float32, or to the widest
// floating dtype among them.
enum class CastPolicy { LowerPrecision, Float32, Promote };

struct AutocastCpuOp {
    std::string_view target;
    CastPolicy policy;
};

#include "graph/passes/autocast_cpu_ops.inc"

// The table by op id, made once (the generated table names each op as PyTorch spells it).
std::optional<CastPolicy> cpu_cast_policy(OpId op) {
    static const auto table = [] {
        std::vector<std::optional<CastPolicy>> policies(op_table::kCount);
        for (const auto& entry : kAutocastCpuOps) {
            if (const OpId id = find_op_id(entry.target); id != OpId::Unknown) policies[static_cast<size_t>(id)] = entry.policy;
        }
        return policies;
    }();
    const auto at = static_cast<size_t>(op);
    return at < table.size() ? table[at] : std::nullopt;
}

}  // namespace

// Composite ops (no kernel of their own) whose parts autocast leaves alone: none of the ops they
// run has a cast policy, so they compute in a region what they compute outside it.
const std::vector<OpId>& composites_autocast_leaves_alone() {
    static const std::vector<OpId> ops = {
        op_id("aten.adaptive_avg_pool1d.default"), op_id("aten.adaptive_avg_pool2d.default"), op_id("aten.alpha_dropout.default"),
        op_id("aten.batch_norm.default"),          op_id("aten.chunk.default"),               op_id("aten.contiguous.default"),
        op_id("aten.dropout.default"),             op_id("aten.expand_as.default"),           op_id("aten.feature_dropout.default"),
        op_id("aten.flatten.using_ints"),          op_id("aten.group_norm.default"),          op_id("aten.instance_norm.default"),
        op_id("aten.layer_norm.default"),          op_id("aten.log_softmax.int"),             op_id("aten.max_pool1d.default"),
        op_id("aten.max_pool2d.default"),          op_id("aten.reshape.default"),             op_id("aten.reshape_as.default"),
        op_id("aten.softmax.int"),                 op_id("aten.sym_numel.default"),           op_id("aten.sym_size.int"),
        op_id("aten.sym_stride.int"),              op_id("aten.to.device"),                   op_id("aten.to.dtype"),
        op_id("aten.to.dtype_layout"),             op_id("aten.to.other"),                    op_id("aten.type_as.default"),
        op_id("aten.unflatten.int"),               op_id("aten.view_as.default"),
    };
    return ops;
}

bool is_composite_op(OpId op) {
    static const std::vector<bool> composite = [] {
        std::vector<bool> table(op_table::kCount, false);
        for (std::string_view target : kCompositeImplicitOps) {
            if (const OpId id = find_op_id(target); id != OpId::Unknown) table[static_cast<size_t>(id)] = true;
        }
        return table;
    }();
    const auto at = static_cast<size_t>(op);
    return at < composite.size() && composite[at];
}

namespace {

// The autocast state a node runs under. Only CPU autocast concerns a CPU program: a 'cuda'
// region changes nothing for CPU tensors, exactly as in eager.
struct CpuAutocast {
    bool enabled = false;
    DType dtype = DType::BFloat16;
    std::string region;  // the region node, for messages
};

// Names already given to a value or a node of the method, so inlined ones get new ones.
class Names {
public:
    explicit Names(const Graph& graph) {
        for (const auto& [name, value] : graph.values) taken_.insert(name);
        for (const Node& node : graph.nodes) taken_.insert(node.name);
    }
    std::string fresh(const std::string& base) {
        std::string name = base;
        for (int i = 1; taken_.count(name); ++i) name = base + "_" + std::to_string(i);
        taken_.insert(name);
        return name;
    }

private:
    std::set<std::string> taken_;
};

bool names_a_value(const Argument& arg) {
    return (arg.kind == Kind::Tensor || arg.kind == Kind::SymInt || arg.kind == Kind::SymBool ||
            arg.kind == Kind::SymFloat) &&
           !arg.name.empty();
}

// Replaces every reference `map` has an entry for (lists included).
void substitute(Argument& arg, const std::map<std::string, Argument>& map) {
    if (arg.kind == Kind::List) {
        for (Argument& item : arg.items) substitute(item, map);
        return;
    }
    if (!names_a_value(arg)) return;
    const auto it = map.find(arg.name);
    if (it != map.end()) arg = it->second;
}

void mark_producer(Graph& graph, const Argument& output, int node_index) {
    for (const Argument& item : output.items) mark_producer(graph, item, node_index);
    if (!names_a_value(output)) return;
    if (Value* value = graph.find_value(output.name)) value->producer = node_index;
}

std::string describe(const Node& node) { return "node '" + node.name + "' (" + node.target + ")"; }

// The method's region node every node inlined from it (and from regions inside it) names.
struct Origin {
    std::string name;
    std::string target;
};

class Inliner {
public:
    Inliner(Graph& graph, const std::string& where) : graph_(graph), where_(where), names_(graph) {}

    // Replaces the region node `region` (its arguments named in the method's graph) by its body's
    // nodes, appended to `out`. Returns, for each of its outputs the body hands back as another
    // value (an operand, or an output it already returned), the value to read instead.
    std::map<std::string, Argument> expand(const Node& region, const CpuAutocast& outer, const Origin& origin,
                                           std::vector<Node>& out) {
        size_t body_at = 0;
        while (body_at < region.inputs.size() && !region.inputs[body_at].arg.body) ++body_at;
        if (body_at == region.inputs.size()) throw ArchiveError(where_ + ": " + describe(region) + " has no body graph");
        const Graph& body = *region.inputs[body_at].arg.body;
        const CpuAutocast autocast = region_autocast(region, body_at, outer);

        std::vector<Argument> operands;
        for (size_t i = body_at + 1; i < region.inputs.size(); ++i) operands.push_back(region.inputs[i].arg);
        if (operands.size() != body.inputs.size() || region.outputs.size() != body.outputs.size()) {
            throw ArchiveError(where_ + ": " + describe(region) + " passes " + std::to_string(operands.size()) +
                               " operands and takes " + std::to_string(region.outputs.size()) +
                               " results, but its body has " + std::to_string(body.inputs.size()) + " inputs and " +
                               std::to_string(body.outputs.size()) + " outputs (the archive is damaged)");
        }
        // Body value name → what the method's graph reads for it.
        std::map<std::string, Argument> renamed;
        for (size_t i = 0; i < operands.size(); ++i) {
            if (names_a_value(body.inputs[i])) renamed[body.inputs[i].name] = operands[i];
        }
        // A value the body makes and returns takes the region's output name, so the nodes after
        // the region read it unchanged.
        for (size_t j = 0; j < body.outputs.size(); ++j) {
            const Argument& made = body.outputs[j];
            if (!names_a_value(made) || renamed.count(made.name) || !names_a_value(region.outputs[j])) continue;
            renamed[made.name] = region.outputs[j];
        }
        for (const Node& body_node : body.nodes) {
            Node node = body_node;
            for (NamedArgument& input : node.inputs) substitute(input.arg, renamed);
            for (Argument& output : node.outputs) name_output(output, body, region, renamed);
            if (is_scoping_region(node)) {  // keeps its body name, which messages about it quote
                const auto replaced = expand(node, autocast, origin, out);
                for (auto& [name, arg] : renamed) substitute(arg, replaced);
                for (const auto& [name, arg] : replaced) unused_values_.insert(name);
                continue;
            }
            node.name = node_name(node, region);
            resolve_node(node, where_);  // an archive node: a mismatch is the archive's
            node.origin = origin.name;
            node.origin_target = origin.target;
            if (autocast.enabled) apply_autocast(node, body_node.name, autocast, out);
            out.push_back(std::move(node));
        }
        std::map<std::string, Argument> replaced;
        for (size_t j = 0; j < body.outputs.size(); ++j) {
            Argument result = body.outputs[j];
            substitute(result, renamed);
            const Argument& wanted = region.outputs[j];
            if (names_a_value(wanted) && !(names_a_value(result) && result.name == wanted.name)) replaced[wanted.name] = result;
        }
        return replaced;
    }

    static bool is_scoping_region(const Node& node) { return is_one_of(op_of(node), {kAutocastRegion, kGradModeRegion}); }

    // Outputs of nested regions that no node makes any more (the body handed back another value).
    const std::set<std::string>& unused_values() const { return unused_values_; }

private:
    // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, body, *operands);
    // wrap_with_set_grad_enabled(enabled, body, *operands).
    CpuAutocast region_autocast(const Node& region, size_t body_at, const CpuAutocast& outer) const {
        if (op_of(region) == kGradModeRegion) return outer;
        auto fail = [&](const std::string& why) -> CpuAutocast {
            throw UnsupportedError(where_ + ": " + describe(region) + ": " + why);
        };
        if (body_at != 4) return fail("expected the device type, dtype, enabled and cache_enabled before its body");
        const Argument& device = region.inputs[0].arg;
        const Argument& dtype = region.inputs[1].arg;
        const Argument& enabled = region.inputs[2].arg;
        if (device.kind != Kind::String || enabled.kind != Kind::Bool) {
            return fail("expected a device type string and an enabled bool as its first and third arguments");
        }
        if (device.string_value != "cpu") return outer;  // another device's autocast: CPU tensors are untouched
        if (!enabled.bool_value) return CpuAutocast{false, outer.dtype, region.name};
        if (dtype.kind != Kind::ScalarType || (dtype.dtype != DType::BFloat16 && dtype.dtype != DType::Float16)) {
            return fail("CPU autocast to a dtype other than bfloat16 or float16 (PyTorch itself disables it); "
                        "export with ep.run_decompositions() or without torch.autocast");
        }
        return CpuAutocast{true, dtype.dtype, region.name};
    }

    void name_output(Argument& output, const Graph& body, const Node& region, std::map<std::string, Argument>& renamed) {
        if (output.kind == Kind::List) {
            for (Argument& item : output.items) name_output(item, body, region, renamed);
            return;
        }
        if (!names_a_value(output)) return;
        const std::string body_name = output.name;
        auto it = renamed.find(body_name);
        if (it == renamed.end()) {
            Argument named = output;
            named.name = names_.fresh(region.name + "_" + body_name);
            it = renamed.emplace(body_name, named).first;
        }
        output.name = it->second.name;
        if (!graph_.find_value(output.name)) {
            Value value = body.value(body_name);
            value.name = output.name;
            value.producer = -1;
            graph_.values[value.name] = std::move(value);
        }
    }

    std::string node_name(const Node& node, const Node& region) {
        for (const Argument& output : node.outputs) {
            if (names_a_value(output) && !node_names_.count(output.name)) {
                node_names_.insert(output.name);
                return output.name;
            }
        }
        const std::string name = names_.fresh(region.name + "_" + node.name);
        node_names_.insert(name);
        return name;
    }

    // The casts CPU autocast makes before `node`, made as nodes ahead of it; `node` then reads
    // the cast values. An op without a cast policy runs as it is, unless it runs as other ops
    // (a composite) that might have one.
    // `body_name`: the node's name in its region's body, as the archive and PyTorch print it.
    void apply_autocast(Node& node, const std::string& body_name, const CpuAutocast& autocast, std::vector<Node>& out) {
        const OpId op = op_of(node);
        const auto policy = cpu_cast_policy(op);
        if (!policy) {
            const auto& left_alone = composites_autocast_leaves_alone();
            if (is_composite_op(op) && std::find(left_alone.begin(), left_alone.end(), op) == left_alone.end()) {
                throw UnsupportedError(
                    where_ + ": node '" + body_name + "' (" + node.target + ") in the CPU autocast region '" +
                    autocast.region + "' (" +
                    std::string(dtype_name(autocast.dtype)) +
                    ") runs as the ops it is made of, which autocast may cast one by one; pt2ov does not know "
                    "those casts. Export with ep.run_decompositions(), which spells them out, or without "
                    "torch.autocast around this op");
            }
            return;
        }
        const DType to = cast_dtype(node, body_name, *policy, autocast);
        bool cast_any = false;
        for (NamedArgument& input : node.inputs) cast_any = cast_tensors(input.arg, to, node, out) || cast_any;
        if (cast_any) resolve_node(node, where_);
    }

    static bool eligible(DType dtype) { return dtype_is_floating(dtype) && dtype != DType::Float64; }

    template <typename Visit>
    static void for_each_tensor(const Argument& arg, Visit&& visit) {
        if (arg.kind == Kind::List) {
            for (const Argument& item : arg.items) for_each_tensor(item, visit);
        } else if (arg.kind == Kind::Tensor && !arg.name.empty()) {
            visit(arg);
        }
    }

    // The dtype `policy` casts to; for Promote, autocast's prioritize(): float32 when any
    // eligible operand is float32, else the region's dtype.
    DType cast_dtype(const Node& node, const std::string& body_name, CastPolicy policy, const CpuAutocast& autocast) const {
        if (policy == CastPolicy::LowerPrecision) return autocast.dtype;
        if (policy == CastPolicy::Float32) return DType::Float32;
        DType widest = autocast.dtype;
        for (const NamedArgument& input : node.inputs) {
            for_each_tensor(input.arg, [&](const Argument& tensor) {
                const DType dtype = graph_.value(tensor.name).meta.dtype;
                if (!eligible(dtype) || widest == DType::Float32) return;
                if (dtype == DType::Float32) {
                    widest = DType::Float32;
                } else if (dtype != autocast.dtype) {
                    throw UnsupportedError(where_ + ": node '" + body_name + "' (" + node.target +
                                           ") in the CPU autocast region '" +
                                           autocast.region + "' mixes " + std::string(dtype_name(dtype)) + " and " +
                                           std::string(dtype_name(autocast.dtype)) +
                                           " operands, which PyTorch's autocast refuses");
                }
            });
        }
        return widest;
    }

    bool cast_tensors(Argument& arg, DType to, const Node& node, std::vector<Node>& out) {
        if (arg.kind == Kind::List) {
            bool cast_any = false;
            for (Argument& item : arg.items) cast_any = cast_tensors(item, to, node, out) || cast_any;
            return cast_any;
        }
        if (arg.kind != Kind::Tensor || arg.name.empty()) return false;
        const TensorMeta& meta = graph_.value(arg.name).meta;
        if (!eligible(meta.dtype) || meta.dtype == to) return false;
        Node cast;
        cast.name = names_.fresh(arg.name + "_autocast_" + std::string(dtype_name(to)));
        node_names_.insert(cast.name);
        cast.target = "aten._to_copy.default";
        cast.origin = node.origin;
        cast.origin_target = node.origin_target;
        cast.inputs = {{"self", arg, false}, {"dtype", dtype_arg(to), true}};
        cast.outputs = {tensor_arg(cast.name)};
        Value value;
        value.name = cast.name;
        value.meta = meta;  // _to_copy keeps the strides of a dense tensor
        value.meta.dtype = to;
        graph_.values[value.name] = std::move(value);
        resolve_node(cast, where_);
        out.push_back(std::move(cast));
        arg = tensor_arg(out.back().name);
        return true;
    }

    Graph& graph_;
    const std::string& where_;
    Names names_;
    std::set<std::string> node_names_;
    std::set<std::string> unused_values_;
};

}  // namespace

void inline_scoping_regions(Graph& graph, const std::string& where) {
    bool any = false;
    for (const Node& node : graph.nodes) any = any || Inliner::is_scoping_region(node);
    if (!any) return;
    Inliner inliner(graph, where);
    std::vector<Node> nodes;
    std::map<std::string, Argument> replaced;  // region outputs read as another value from now on
    for (Node& node : graph.nodes) {
        if (!replaced.empty()) {
            for (NamedArgument& input : node.inputs) substitute(input.arg, replaced);
            for (Argument& input : node.resolved_inputs) substitute(input, replaced);
        }
        if (!Inliner::is_scoping_region(node)) {
            nodes.push_back(std::move(node));
            continue;
        }
        for (auto& [name, arg] : inliner.expand(node, CpuAutocast{}, Origin{node.source_name(), node.source_target()}, nodes)) {
            replaced[name] = arg;
        }
    }
    graph.nodes = std::move(nodes);
    for (Argument& output : graph.outputs) substitute(output, replaced);
    for (OutputSpec& spec : graph.output_specs) substitute(spec.arg, replaced);
    for (const auto& [name, arg] : replaced) graph.values.erase(name);
    for (const std::string& name : inliner.unused_values()) graph.values.erase(name);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        for (const Argument& output : graph.nodes[i].outputs) mark_producer(graph, output, static_cast<int>(i));
    }
}

}  // namespace pt2ov::graph
