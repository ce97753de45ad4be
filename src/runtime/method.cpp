#include "runtime/method.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "common/error.h"
#include "graph/from_json.h"
#include "graph/rewrite.h"
#include "graph/schema.h"
#include "lower/convert.h"
#include "lower/element_type.h"
#include "openvino/op/constant.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/result.hpp"
#include "partition/plan.h"

namespace pt2ov::runtime {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// torch.export.save stores its one program as "model"; users call it "forward".
std::string model_for_method(const archive::Archive& archive, const std::string& method) {
    const auto models = archive.models();
    for (const auto& model : models) {
        if (model == method) return model;
    }
    if (method == "forward" && models.size() == 1) return models.front();
    std::string known;
    for (const auto& model : models) known += (known.empty() ? "" : ", ") + (models.size() == 1 ? std::string("forward") : model);
    throw InputError(archive.path() + ": no method '" + method + "' in the archive; it holds: " + known);
}

IOInfo io_info(const graph::Graph& graph, const std::string& name) {
    IOInfo info;
    info.name = name;
    const auto& value = graph.value(name);
    if (value.kind != graph::ValueKind::Tensor) {
        info.dtype = value.kind == graph::ValueKind::SymFloat ? DType::Float64
                     : value.kind == graph::ValueKind::SymBool ? DType::Bool
                                                               : DType::Int64;
        return info;
    }
    info.dtype = value.meta.dtype;
    for (const auto& dim : value.meta.sizes) {
        if (dim.is_static()) {
            info.shape.push_back(*dim.value);
            info.dim_ranges.emplace_back(*dim.value, *dim.value);
            continue;
        }
        info.shape.push_back(-1);
        auto it = dim.symbol.empty() ? graph.ranges.end() : graph.ranges.find(dim.symbol);
        if (it == graph.ranges.end()) {
            info.dim_ranges.emplace_back(0, std::numeric_limits<int64_t>::max());
        } else {
            info.dim_ranges.emplace_back(it->second.min, it->second.max);
        }
    }
    return info;
}

std::string base_name(const std::string& path) {
    auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

PreparedMethod prepare_method(const std::string& path, const LoadOptions& options) {
    const auto start = Clock::now();
    PreparedMethod prepared;
    prepared.archive = archive::Archive::open(path);
    prepared.method = options.method;
    const std::string model = model_for_method(*prepared.archive, options.method);
    prepared.where = base_name(path) + ", method " + options.method;
    prepared.graph = graph::graph_from_json(prepared.archive->program_json(model), path + ": models/" + model + ".json");
    graph::check_and_resolve(prepared.graph, prepared.where);
    graph::prepare_for_lowering(prepared.graph, prepared.where);
    auto& graph = prepared.graph;

    prepared.stored = prepared.archive->weights(model);
    for (auto& [name, tensor] : prepared.archive->constants(model)) prepared.stored.emplace(name, tensor);
    const auto custom_objects = prepared.archive->custom_objects(model);

    for (const auto& spec : graph.output_specs) {
        if (spec.kind == graph::OutputSpec::Kind::BufferMutation) continue;
        if (spec.kind == graph::OutputSpec::Kind::UserOutput) continue;
        throw UnsupportedError(prepared.where + ": the program " +
                               (spec.kind == graph::OutputSpec::Kind::UserInputMutation
                                    ? "writes into its input '" + spec.target + "'; pt2ov never writes a caller's tensors"
                                    : "has an output of a kind pt2ov does not run (training outputs, tokens)") +
                               "; export an inference program that returns its results");
    }
    std::set<std::string> mutated_targets;
    for (const auto& spec : graph.output_specs) {
        if (spec.kind == graph::OutputSpec::Kind::BufferMutation) mutated_targets.insert(spec.target);
    }

    for (const auto& spec : graph.input_specs) {
        using Kind = graph::InputSpec::Kind;
        const std::string& name = spec.arg.name;
        switch (spec.kind) {
        case Kind::UserInput:
            if (spec.arg.kind != graph::Argument::Kind::Tensor) {
                throw UnsupportedError(prepared.where + ": user input '" + name +
                                       "' is not a tensor; pass numbers as tensors when exporting");
            }
            prepared.user_inputs.push_back(name);
            prepared.input_infos.push_back(io_info(graph, name));
            for (size_t d = 0; d < graph.value(name).meta.sizes.size(); ++d) {
                const auto& symbol = graph.value(name).meta.sizes[d].symbol;
                if (!symbol.empty()) prepared.symbol_uses[symbol].emplace_back(prepared.user_inputs.size() - 1, d);
            }
            break;
        case Kind::Parameter:
        case Kind::Buffer:
        case Kind::TensorConstant: {
            auto it = prepared.stored.find(spec.target);
            if (it == prepared.stored.end()) {
                throw ArchiveError(path + ": '" + spec.target + "' is an input of " + prepared.where +
                                   " but the archive holds no such weight or constant; re-save the program");
            }
            if (mutated_targets.count(spec.target)) {
                prepared.mutated_buffers[name] = spec.target;
            } else {
                prepared.constants[name] = &it->second;
            }
            break;
        }
        case Kind::ConstantInput:
            throw UnsupportedError(prepared.where + ": constant input '" + name + "' is not supported");
        case Kind::CustomObj:
            throw UnsupportedError(prepared.where + ": input '" + name + "' is a custom object (" +
                                   std::to_string(custom_objects.size()) + " in the archive); pt2ov runs tensor programs only");
        case Kind::Token:
            throw UnsupportedError(prepared.where + ": the program uses effect tokens, which pt2ov does not run");
        }
    }
    for (const auto& spec : graph.output_specs) {
        if (spec.kind == graph::OutputSpec::Kind::UserOutput) {
            if (spec.arg.kind == graph::Argument::Kind::Tensor || spec.arg.kind == graph::Argument::Kind::SymInt) {
                prepared.output_infos.push_back(io_info(graph, spec.arg.name));
            } else {
                IOInfo info;
                info.name = "constant";
                info.dtype = spec.arg.kind == graph::Argument::Kind::Float ? DType::Float64 : DType::Int64;
                prepared.output_infos.push_back(info);
            }
        }
    }
    prepared.archive_ms = ms_since(start);
    return prepared;
}

namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The values an int64 constant holds beyond 32 bits would be cut by OpenVINO's CPU plugin.
bool has_wide_int64(const archive::StoredTensor& stored) {
    if (stored.meta.dtype != DType::Int64) return false;
    const auto sizes = stored.meta.static_sizes();
    const auto strides = stored.meta.static_strides();
    int64_t count = 1;
    for (auto s : sizes) count *= s;
    std::vector<int64_t> index(sizes.size(), 0);
    const auto* data = reinterpret_cast<const int64_t*>(stored.data());
    for (int64_t n = 0; n < count; ++n) {
        int64_t offset = 0;
        for (size_t d = 0; d < sizes.size(); ++d) offset += index[d] * strides[d];
        const int64_t v = data[offset];
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) return true;
        for (size_t d = sizes.size(); d-- > 0;) {
            if (++index[d] < sizes[d]) break;
            index[d] = 0;
        }
    }
    return false;
}

partition::ValueSources value_sources(const PreparedMethod& prepared) {
    partition::ValueSources sources;
    sources.runtime_inputs.insert(prepared.user_inputs.begin(), prepared.user_inputs.end());
    for (const auto& [name, target] : prepared.mutated_buffers) sources.runtime_inputs.insert(name);
    for (const auto& [name, stored] : prepared.constants) {
        sources.constants.insert(name);
        if (has_wide_int64(*stored)) sources.wide_int64_constants.insert(name);
    }
    return sources;
}

// OpenVINO ops that only move, pick or reshape values: a result holds nothing its inputs did not.
bool moves_values_only(const std::set<std::string>& op_types) {
    static const std::set<std::string> moving = {
        "Reshape", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Gather", "GatherElements", "GatherND",
        "Slice", "StridedSlice", "Broadcast", "Tile", "Split", "VariadicSplit", "ShapeOf", "Constant",
        "Select", "Reverse", "Roll", "Pad"};
    return std::all_of(op_types.begin(), op_types.end(), [](const std::string& type) { return moving.count(type) > 0; });
}

lower::Subgraph subgraph_of(const partition::Step& step) { return {step.inputs, step.nodes, step.outputs}; }

// The results OpenVINO would hand back as its own Parameters or Constants (it turns copies
// into nothing), or that repeat another result's tensor, are taken out of the model; the
// runtime makes them (a copy from the source, where a copy is what the program returns).
OpenVINOStep take_out_aliases(std::shared_ptr<ov::Model> model, const partition::Step& step) {
    OpenVINOStep lowered;
    std::map<ov::Output<ov::Node>, std::string> first_reader;
    const auto results = model->get_results();
    for (size_t i = 0; i < results.size(); ++i) {
        const std::string& value = step.outputs.at(i);
        const auto source = results[i]->input_value(0);
        const auto node = source.get_node_shared_ptr();
        Alias alias;
        alias.value = value;
        if (auto parameter = ov::as_type_ptr<ov::op::v0::Parameter>(node)) {
            alias.kind = Alias::Kind::Input;
            alias.source = parameter->get_friendly_name();
        } else if (auto constant = ov::as_type_ptr<ov::op::v0::Constant>(node)) {
            alias.kind = Alias::Kind::Constant;
            alias.constant = constant;
        } else if (auto earlier = first_reader.find(source); earlier != first_reader.end()) {
            alias.kind = Alias::Kind::SameAs;
            alias.source = earlier->second;
        } else {
            first_reader.emplace(source, value);
            lowered.results.push_back(value);
            continue;
        }
        lowered.aliases.push_back(alias);
        model->remove_result(results[i]);
    }
    for (const auto& parameter : model->get_parameters()) lowered.parameters.push_back(parameter->get_friendly_name());
    if (!model->get_results().empty()) lowered.model = model;
    return lowered;
}

std::string alias_reason(const Alias& alias) {
    switch (alias.kind) {
    case Alias::Kind::Constant: return "copy made by pt2ov from the constant's memory (OpenVINO would hand back the constant itself)";
    case Alias::Kind::SameAs: return "made by pt2ov from another output (OpenVINO would hand back one tensor twice)";
    case Alias::Kind::Input: break;
    }
    return "made by pt2ov from its input (OpenVINO would hand back the input itself)";
}

void build_report(const PreparedMethod& prepared, PlannedMethod& planned) {
    const auto& graph = prepared.graph;
    auto& report = planned.report;
    report.steps.clear();
    for (size_t s = 0; s < planned.plan.steps.size(); ++s) {
        const auto& step = planned.plan.steps[s];
        std::map<std::string, std::string> made;  // archive node → reason, for aliased values
        if (auto it = planned.openvino_steps.find(s); it != planned.openvino_steps.end()) {
            for (const auto& alias : it->second.aliases) {
                const auto* value = graph.find_value(alias.value);
                if (value && value->producer >= 0) made[graph.nodes[value->producer].source_name()] = alias_reason(alias);
            }
        }
        PlacementReport::Step main{step.where == partition::Where::OpenVINO ? "openvino" : "cpu", {}};
        PlacementReport::Step copies{"cpu", {}};
        std::set<std::string> listed;
        for (int index : step.nodes) {
            const auto& node = graph.nodes[index];
            if (!listed.insert(node.source_name()).second) continue;
            auto it = made.find(node.source_name());
            if (it != made.end()) {
                copies.nodes.push_back({node.source_name(), node.source_target(), it->second});
            } else {
                main.nodes.push_back({node.source_name(), node.source_target(), planned.plan.reason[index]});
            }
        }
        for (auto* part : {&main, &copies}) {
            if (part->nodes.empty()) continue;
            // Copies made after an OpenVINO step and a CPU step after them run as one CPU stretch.
            if (!report.steps.empty() && report.steps.back().kind == part->kind) {
                auto& nodes = report.steps.back().nodes;
                nodes.insert(nodes.end(), part->nodes.begin(), part->nodes.end());
            } else {
                report.steps.push_back(std::move(*part));
            }
        }
    }
    report.constant_count = 0;
    report.constant_bytes = 0;
    report.resident_bytes = 0;
    std::set<const std::byte*> storages;
    for (const auto& [name, stored] : prepared.stored) {
        report.constant_count++;
        int64_t numel = 1;
        for (auto s : stored.meta.static_sizes()) numel *= s;
        report.constant_bytes += static_cast<size_t>(numel) * dtype_size(stored.meta.dtype);
        // Tensors of one storage share its bytes, mapped once.
        if (storages.insert(stored.storage).second) report.resident_bytes += stored.storage_bytes;
    }
}

}  // namespace

PlannedMethod plan_method(const PreparedMethod& prepared, const LoadOptions& options) {
    const auto start = Clock::now();
    const auto& graph = prepared.graph;
    PlannedMethod planned;
    planned.report.method = prepared.method;
    planned.report.openvino_version = lower::openvino_runtime_version();

    partition::PlacementOptions placement{options.cpu_ops, options.cpu_nodes, options.strict,
                                          planned.report.openvino_version};
    auto sources = value_sources(prepared);

    // Support, learned from OpenVINO: the whole method converted partially. The same
    // conversion serves as the model when everything lands in one OpenVINO step.
    partition::Plan whole;
    whole.where.assign(graph.nodes.size(), partition::Where::OpenVINO);
    whole.reason.assign(graph.nodes.size(), "");
    partition::pass5_group_into_steps(graph, whole);
    partition::pass7_step_edges(graph, sources, whole);
    std::map<std::string, std::string> unsupported;
    std::map<size_t, lower::Conversion> conversions;
    lower::Conversion whole_conversion;
    if (!whole.steps.empty()) {
        whole_conversion = with_context(prepared.where, [&] {
            return lower::convert_subgraph(graph, subgraph_of(whole.steps[0]), prepared.constants, prepared.archive);
        });
        for (const auto& node : whole_conversion.unconverted) unsupported[node.node] = first_line(node.reason);
        for (const auto& node : graph.nodes) {
            const auto& name = node.source_name();
            if (!unsupported.count(name) && !whole_conversion.nodes_with_ops.count(name)) sources.passthrough_nodes.insert(name);
        }
        for (const auto& [name, types] : whole_conversion.op_types_by_node) {
            if (!unsupported.count(name) && moves_values_only(types)) sources.moving_nodes.insert(name);
        }
    }

    // Placement and conversion of each OpenVINO step, until no step finds a node its context
    // makes unconvertible (a converter may fail on inputs typed differently at a step edge).
    for (int round = 0;; ++round) {
        planned.plan = with_context(prepared.where, [&] { return partition::place(graph, unsupported, sources, placement); });
        conversions.clear();
        bool changed = false;
        for (size_t s = 0; s < planned.plan.steps.size(); ++s) {
            const auto& step = planned.plan.steps[s];
            if (step.where != partition::Where::OpenVINO) continue;
            const auto subgraph = subgraph_of(step);
            const auto& first = whole.steps.empty() ? step : whole.steps[0];
            const bool same_as_whole = whole_conversion.model && whole_conversion.unconverted.empty() &&
                                       subgraph.nodes == first.nodes && subgraph.inputs == first.inputs &&
                                       subgraph.outputs == first.outputs;
            auto conversion = same_as_whole ? whole_conversion : with_context(prepared.where, [&] {
                return lower::convert_subgraph(graph, subgraph, prepared.constants, prepared.archive);
            });
            for (const auto& node : conversion.unconverted) {
                changed |= unsupported.emplace(node.node, first_line(node.reason)).second;
            }
            conversions[s] = std::move(conversion);
        }
        if (!changed) break;
        if (round == 8) throw Error(prepared.where + ": placement did not settle; please report this program");
    }
    for (auto& [s, conversion] : conversions) {
        planned.openvino_steps[s] = take_out_aliases(conversion.model, planned.plan.steps[s]);
    }
    planned.convert_ms = ms_since(start);
    build_report(prepared, planned);
    return planned;
}

}  // namespace pt2ov::runtime
