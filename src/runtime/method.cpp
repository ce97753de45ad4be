#include "runtime/method.h"

#include <chrono>
#include <set>

#include "common/error.h"
#include "graph/from_json.h"
#include "graph/rewrite.h"
#include "lower/convert.h"
#include "lower/element_type.h"
#include "openvino/op/constant.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/result.hpp"

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

// The IR node that produces `value`, by its archive name, for reports.
std::string producer_name(const graph::Graph& graph, const std::string& value) {
    const auto* found = graph.find_value(value);
    if (!found || found->producer < 0) return value;
    return graph.nodes[found->producer].source_name();
}

Tensor number_tensor(const graph::Argument& arg) {
    if (arg.kind == graph::Argument::Kind::Float) {
        Tensor t = Tensor::allocate(DType::Float64, {});
        *t.data_as<double>() = arg.float_value;
        return t;
    }
    if (arg.kind == graph::Argument::Kind::Int || arg.kind == graph::Argument::Kind::Bool) {
        Tensor t = Tensor::allocate(arg.kind == graph::Argument::Kind::Bool ? DType::Bool : DType::Int64, {});
        if (arg.kind == graph::Argument::Kind::Bool) {
            *t.data_as<bool>() = arg.bool_value;
        } else {
            *t.data_as<int64_t>() = arg.int_value;
        }
        return t;
    }
    throw UnsupportedError("the program returns a " + std::string(arg.kind == graph::Argument::Kind::None ? "None" : "non-tensor") +
                           " value; return tensors only");
}

// The outputs a model hands back that are its own Parameters or Constants (OpenVINO turns
// copies into nothing), or that repeat another Result's tensor: the runtime makes these
// itself, so nothing OpenVINO returns aliases an input or another output.
void take_out_aliased_results(LoweredMethod& lowered, const std::vector<std::string>& subgraph_outputs,
                              std::map<std::string, size_t>& result_of_value,
                              const std::map<std::string, size_t>& user_input_index,
                              const std::map<std::string, std::string>& mutated_buffers) {
    auto& model = lowered.model;
    std::map<ov::Output<ov::Node>, std::string> first_reader;
    std::vector<std::shared_ptr<ov::op::v0::Result>> to_remove;
    std::map<std::string, OutputSource> made_by_runtime;
    const auto results = model->get_results();
    for (size_t i = 0; i < results.size(); ++i) {
        const std::string& value = subgraph_outputs[i];
        const auto source = results[i]->input_value(0);
        const auto node = source.get_node_shared_ptr();
        OutputSource made;
        if (auto parameter = ov::as_type_ptr<ov::op::v0::Parameter>(node)) {
            const std::string input = parameter->get_friendly_name();
            if (user_input_index.count(input)) {
                made.kind = OutputSource::Kind::CopyOfInput;
                made.index = user_input_index.at(input);
            } else if (mutated_buffers.count(input)) {
                made.kind = OutputSource::Kind::CopyOfBuffer;
                made.name = input;
            } else {
                throw Error("internal: result " + value + " reads unknown parameter " + input);
            }
        } else if (auto constant = ov::as_type_ptr<ov::op::v0::Constant>(node)) {
            made.kind = OutputSource::Kind::CopyOfConstant;
            made.constant = constant;
        } else if (auto earlier = first_reader.find(source); earlier != first_reader.end()) {
            made.kind = OutputSource::Kind::CopyOfOutput;
            made.name = earlier->second;
        } else {
            first_reader.emplace(source, value);
            continue;
        }
        made_by_runtime[value] = made;
        to_remove.push_back(results[i]);
    }
    for (auto& result : to_remove) model->remove_result(result);
    result_of_value.clear();
    std::map<std::shared_ptr<ov::Node>, size_t> position;
    const auto kept = model->get_results();
    for (size_t i = 0; i < kept.size(); ++i) position[kept[i]] = i;
    for (size_t i = 0; i < results.size(); ++i) {
        if (position.count(results[i])) result_of_value[subgraph_outputs[i]] = position[results[i]];
    }
    for (auto& source : lowered.sources) {
        if (source.kind != OutputSource::Kind::OpenVINO) continue;
        auto it = made_by_runtime.find(source.name);
        if (it != made_by_runtime.end()) {
            const std::string value = source.name;
            std::string node = source.node;
            source = it->second;
            source.node = node;
            if (source.kind == OutputSource::Kind::CopyOfOutput) source.name = it->second.name;
            continue;
        }
        source.index = result_of_value.at(source.name);
    }
}

}  // namespace

LoweredMethod lower_method(const PreparedMethod& prepared, const LoadOptions& options, bool for_inspect) {
    const auto start = Clock::now();
    const auto& graph = prepared.graph;
    LoweredMethod lowered;
    lowered.report.method = prepared.method;
    lowered.report.openvino_version = lower::openvino_runtime_version();

    std::map<std::string, size_t> user_input_index;
    for (size_t i = 0; i < prepared.user_inputs.size(); ++i) user_input_index[prepared.user_inputs[i]] = i;

    lower::Subgraph subgraph;
    subgraph.inputs = prepared.user_inputs;
    for (const auto& [name, target] : prepared.mutated_buffers) subgraph.inputs.push_back(name);
    for (size_t i = 0; i < graph.nodes.size(); ++i) subgraph.nodes.push_back(static_cast<int>(i));

    // Every program output, and where it comes from before OpenVINO has its say.
    std::set<std::string> in_subgraph;
    for (const auto& out : graph.outputs) {
        OutputSource source;
        using ArgKind = graph::Argument::Kind;
        if (out.kind != ArgKind::Tensor && out.kind != ArgKind::SymInt) {
            source.kind = OutputSource::Kind::Number;
            source.number = number_tensor(out);
        } else if (user_input_index.count(out.name)) {
            source.kind = OutputSource::Kind::CopyOfInput;
            source.index = user_input_index[out.name];
        } else if (prepared.mutated_buffers.count(out.name)) {
            source.kind = OutputSource::Kind::CopyOfBuffer;
            source.name = out.name;
        } else if (prepared.constants.count(out.name)) {
            source.kind = OutputSource::Kind::CopyOfConstant;
            source.constant = lower::make_shared_constant(*prepared.constants.at(out.name), prepared.archive);
        } else {
            source.kind = OutputSource::Kind::OpenVINO;
            source.name = out.name;
            if (in_subgraph.insert(out.name).second) subgraph.outputs.push_back(out.name);
        }
        source.node = out.kind == graph::Argument::Kind::Tensor ? producer_name(graph, out.name) : "";
        lowered.sources.push_back(source);
    }

    auto conversion = lower::convert_subgraph(graph, subgraph, prepared.constants, prepared.archive);
    lowered.convert_ms = ms_since(start);

    auto& steps = lowered.report.steps;
    std::set<std::string> unconverted;
    for (const auto& node : conversion.unconverted) unconverted.insert(node.node);
    if (!unconverted.empty() && !for_inspect) {
        std::string list;
        for (const auto& node : conversion.unconverted) {
            list += "\n  " + node.node + " (" + node.target + "): " + node.reason.substr(0, node.reason.find('\n'));
        }
        throw UnsupportedError(prepared.where + ": OpenVINO " + lowered.report.openvino_version + " cannot convert " +
                               std::to_string(conversion.unconverted.size()) + " node(s):" + list +
                               "\nRunning them on the CPU is not available yet; saving the program after "
                               "ep.run_decompositions() may help.");
    }

    std::map<std::string, size_t> result_of_value;
    lowered.model = conversion.model;
    if (unconverted.empty()) {
        take_out_aliased_results(lowered, subgraph.outputs, result_of_value, user_input_index, prepared.mutated_buffers);
    }
    for (const auto& parameter : lowered.model->get_parameters()) lowered.model_inputs.push_back(parameter->get_friendly_name());

    // The report: what OpenVINO runs, then what the runtime makes itself, by archive node.
    PlacementReport::Step openvino_step{"openvino", {}};
    PlacementReport::Step cpu_step{"cpu", {}};
    std::set<std::string> listed;
    std::map<std::string, std::string> made_reason;
    for (const auto& source : lowered.sources) {
        if (source.kind == OutputSource::Kind::OpenVINO || source.node.empty()) continue;
        made_reason[source.node] = source.kind == OutputSource::Kind::CopyOfConstant
                                       ? "copy made by pt2ov from the constant's memory (OpenVINO would return the constant itself)"
                                   : source.kind == OutputSource::Kind::CopyOfOutput
                                       ? "copy made by pt2ov of another output (OpenVINO would return one tensor twice)"
                                       : "copy made by pt2ov from its input (OpenVINO would return the input itself)";
    }
    for (const auto& node : graph.nodes) {
        const std::string& name = node.source_name();
        if (!listed.insert(name).second) continue;
        if (unconverted.count(name)) {
            for (const auto& u : conversion.unconverted) {
                if (u.node == name) cpu_step.nodes.push_back({name, node.source_target(), "OpenVINO cannot convert it: " + u.reason.substr(0, u.reason.find('\n'))});
            }
        } else if (made_reason.count(name)) {
            cpu_step.nodes.push_back({name, node.source_target(), made_reason[name]});
        } else {
            openvino_step.nodes.push_back({name, node.source_target(), "converted by OpenVINO " + lowered.report.openvino_version});
        }
    }
    if (!openvino_step.nodes.empty() && lowered.model && !lowered.model->get_results().empty()) steps.push_back(openvino_step);
    if (!cpu_step.nodes.empty()) steps.push_back(cpu_step);
    if (lowered.model && lowered.model->get_results().empty()) lowered.model = nullptr;

    std::set<const std::byte*> storages;
    for (const auto& [name, stored] : prepared.stored) {
        lowered.report.constant_count++;
        int64_t numel = 1;
        for (auto s : stored.meta.static_sizes()) numel *= s;
        lowered.report.constant_bytes += static_cast<size_t>(numel) * dtype_size(stored.meta.dtype);
        if (storages.insert(stored.storage).second) lowered.report.resident_bytes += stored.storage_bytes;
    }
    return lowered;
}

}  // namespace pt2ov::runtime
