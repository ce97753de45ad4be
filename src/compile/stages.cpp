#include "compile/stages.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <typeinfo>

#include "common/error.h"
#include "common/text.h"
#include "graph/from_json.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"
#include "kernels/cpu_isa.h"
#include "kernels/registry.h"
#include "lower/appending_cache.h"
#include "lower/convert.h"
#include "lower/decoder.h"
#include "lower/element_type.h"
#include "lower/openvino_facts.h"
#include "openvino/core/attribute_visitor.hpp"
#include "openvino/op/assign.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/fake_quantize.hpp"
#include "openvino/op/multinomial.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/random_uniform.hpp"
#include "openvino/op/read_value.hpp"
#include "openvino/op/result.hpp"
#include "openvino/op/util/assign_base.hpp"
#include "openvino/op/util/framework_node.hpp"
#include "openvino/op/util/multi_subgraph_base.hpp"
#include "openvino/op/util/read_value_base.hpp"
#include "openvino/op/util/variable.hpp"
#include "partition/plan.h"

namespace pt2ov::compile {

namespace {

// torch.export.save stores its one program as "model"; users call it "forward".
std::string model_for_method(const archive::Archive& archive, const std::string& method) {
    const auto models = archive.models();
    for (const auto& model : models) {
        if (model == method) return model;
    }
    if (method == "forward" && models.size() == 1) return models.front();
    std::string known;
    for (const auto& model : models) known += (known.empty() ? "" : ", ") + (models.size() == 1 ? std::string("forward") : model);
    throw OptionError(archive.path() + ": no method '" + method + "' in the archive; it holds: " + known);
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

PreparedMethod read(const std::string& path, const std::string& method) {
    PreparedMethod prepared;
    prepared.archive = archive::Archive::open(path);
    prepared.method = method;
    prepared.model = model_for_method(*prepared.archive, method);
    prepared.where = base_name(path) + ", method " + method;
    prepared.graph = graph::graph_from_json(prepared.archive->program_json(prepared.model),
                                            path + ": models/" + prepared.model + ".json");
    return prepared;
}

void check(PreparedMethod& method) { graph::check_and_resolve(method.graph, method.where); }

void rewrite(PreparedMethod& method) { graph::prepare_for_lowering(method.graph, method.where); }

namespace {

// A weight or constant is read with the archive's config meta, the program computes with its
// value's meta: they must describe the same tensor, or a damaged archive runs with other
// shapes than the program was exported with. Strides of dims of size 1 place nothing.
void check_stored_matches_value(const archive::StoredTensor& stored, const graph::Value& value, const std::string& path,
                                const std::string& target) {
    const graph::TensorMeta& expected = value.meta;
    bool same = stored.meta.dtype == expected.dtype && stored.meta.rank() == expected.rank();
    const std::vector<int64_t> sizes = stored.meta.static_sizes();
    const std::vector<int64_t> strides = stored.meta.static_strides();
    for (size_t d = 0; same && d < expected.rank(); ++d) {
        const graph::Dim& size = expected.sizes[d];
        const graph::Dim& stride = expected.strides[d];
        same = !size.is_static() || *size.value == sizes[d];
        if (same && sizes[d] > 1 && stride.is_static()) same = *stride.value == strides[d];
    }
    if (same) return;
    std::vector<int64_t> expected_sizes;
    for (const graph::Dim& size : expected.sizes) expected_sizes.push_back(size.is_static() ? *size.value : -1);
    throw ArchiveError(path + ": weight or constant '" + target + "' is stored as " + std::string(dtype_name(stored.meta.dtype)) + " " +
                       shape_text(sizes) + " strides " + shape_text(strides) + ", but the program reads it as value '" +
                       value.name + "', " + std::string(dtype_name(expected.dtype)) + " " + shape_text(expected_sizes) +
                       "; the archive is damaged: save the program again with torch.export.save");
}

}  // namespace

void bind_signature(PreparedMethod& prepared) {
    const std::string& path = prepared.archive->path();
    const std::string& model = prepared.model;
    auto& graph = prepared.graph;
    prepared.stored = prepared.archive->weights(model);
    for (auto& [name, tensor] : prepared.archive->constants(model)) prepared.stored.emplace(name, tensor);
    const auto custom_objects = prepared.archive->custom_objects(model);
    // A buffer split by the rewrite (graph/split_buffers.cpp): each part is a view of its row of
    // the stacked buffer's bytes in the mapping, so nothing is copied or held twice (E7).
    for (const auto& split : graph.buffer_splits) {
        auto it = prepared.stored.find(split.target);
        if (it == prepared.stored.end()) {
            throw ArchiveError(path + ": '" + split.target + "' is an input of " + prepared.where +
                               " but the archive holds no such weight or constant; re-save the program");
        }
        const archive::StoredTensor stacked = it->second;
        const std::vector<int64_t> sizes = stacked.meta.static_sizes();
        const std::vector<int64_t> strides = stacked.meta.static_strides();
        if (sizes.empty() || sizes[0] != static_cast<int64_t>(split.parts.size())) {
            throw ArchiveError(path + ": buffer '" + split.target + "' is stored with another shape than the program "
                               "reads; the archive is damaged: save the program again with torch.export.save");
        }
        for (size_t r = 0; r < split.parts.size(); ++r) {
            archive::StoredTensor part = stacked;
            part.name = split.parts[r];
            part.meta.sizes.erase(part.meta.sizes.begin());
            part.meta.strides.erase(part.meta.strides.begin());
            part.meta.storage_offset = stacked.meta.storage_offset + static_cast<int64_t>(r) * strides[0];
            part.meta.dim_order = graph::dim_order_from_strides(part.meta.static_sizes(), part.meta.static_strides());
            prepared.stored[part.name] = part;
        }
    }

    std::set<std::string> written_inputs;
    for (const auto& spec : graph.output_specs) {
        if (spec.kind == graph::OutputSpec::Kind::BufferMutation) continue;
        if (spec.kind == graph::OutputSpec::Kind::UserOutput) continue;
        if (spec.kind == graph::OutputSpec::Kind::UserInputMutation) {
            written_inputs.insert(spec.target);
            continue;
        }
        throw UnsupportedError(prepared.where +
                               ": the program has an output of a kind pt2ov does not run (training outputs, tokens); "
                               "export an inference program that returns its results");
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
            prepared.input_infos.back().written = written_inputs.count(name) > 0;
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
            check_stored_matches_value(it->second, graph.value(name), path, spec.target);
            if (mutated_targets.count(spec.target)) {
                // The new value must be a value of the buffer itself: torch's run_decompositions()
                // can drop the expand of fill_ or the conversion of copy_ into a buffer, and such a
                // program's state would change shape or dtype from call to call.
                for (size_t o = 0; o < graph.output_specs.size(); ++o) {
                    const auto& out = graph.output_specs[o];
                    if (out.kind != graph::OutputSpec::Kind::BufferMutation || out.target != spec.target) continue;
                    const auto& meta = graph.value(graph.outputs[o].name).meta;
                    const auto& stored_meta = it->second.meta;
                    const bool same_shape = meta.all_static() && meta.static_sizes() == stored_meta.static_sizes();
                    if (meta.dtype != stored_meta.dtype || !same_shape) {
                        auto describe = [](const graph::TensorMeta& m) {
                            std::string text = std::string(dtype_name(m.dtype)) + " of shape (";
                            for (size_t d = 0; d < m.sizes.size(); ++d) {
                                text += (d ? ", " : "") + (m.sizes[d].is_static() ? std::to_string(*m.sizes[d].value) : std::string("?"));
                            }
                            return text + (m.sizes.size() == 1 ? ",)" : ")");
                        };
                        throw UnsupportedError(prepared.where + ": the program gives buffer '" + spec.target + "' (" +
                                               describe(stored_meta) + ") a new value '" + graph.outputs[o].name + "', " +
                                               describe(meta) + "; torch's run_decompositions() makes such programs from "
                                               "fill_ or copy_ into a buffer: save the program as exported instead");
                    }
                }
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
}


namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The smallest and largest value of an int64 constant; none for another dtype or no elements.
// A value outside 32 bits is one OpenVINO's CPU plugin would cut (openvino_facts
// Int64BeyondThirtyTwoBits).
std::optional<partition::Int64Range> int64_range(const archive::StoredTensor& stored) {
    if (stored.meta.dtype != DType::Int64) return std::nullopt;
    const auto sizes = stored.meta.static_sizes();
    const auto strides = stored.meta.static_strides();
    int64_t count = 1;
    for (auto s : sizes) count *= s;
    if (count == 0) return std::nullopt;
    std::vector<int64_t> index(sizes.size(), 0);
    const auto* data = reinterpret_cast<const int64_t*>(stored.data());
    partition::Int64Range range{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
    for (int64_t n = 0; n < count; ++n) {
        int64_t offset = 0;
        for (size_t d = 0; d < sizes.size(); ++d) offset += index[d] * strides[d];
        range.min = std::min(range.min, data[offset]);
        range.max = std::max(range.max, data[offset]);
        for (size_t d = sizes.size(); d-- > 0;) {
            if (++index[d] < sizes[d]) break;
            index[d] = 0;
        }
    }
    return range;
}

partition::ValueSources value_sources(const PreparedMethod& prepared) {
    partition::ValueSources sources;
    sources.runtime_inputs.insert(prepared.user_inputs.begin(), prepared.user_inputs.end());
    for (const auto& [name, target] : prepared.mutated_buffers) sources.runtime_inputs.insert(name);
    // Promised, and checked on every call (runtime/inputs.cpp): the int64 user inputs' bound.
    if (prepared.int64_input_limit > 0) {
        for (const auto& name : prepared.user_inputs) {
            const auto* value = prepared.graph.find_value(name);
            if (value && value->meta.dtype == DType::Int64) {
                sources.int64_constant_ranges[name] = {-prepared.int64_input_limit, prepared.int64_input_limit};
            }
        }
    }
    for (const auto& [name, stored] : prepared.constants) {
        sources.constants.insert(name);
        if (const auto range = int64_range(*stored)) {
            sources.int64_constant_ranges[name] = *range;
            if (!lower::openvino_facts::int64_passes_exactly(range->min) ||
                !lower::openvino_facts::int64_passes_exactly(range->max)) {
                sources.wide_int64_constants.insert(name);
            }
        }
    }
    return sources;
}

lower::Subgraph subgraph_of(const partition::Step& step) { return {step.inputs, step.nodes, step.outputs}; }

lower::Conversion convert_step(const PreparedMethod& method, const partition::Step& step) {
    lower::Subgraph subgraph = subgraph_of(step);
    subgraph.keep_weight_decompression = method.compressed_weights;
    return with_context(method.where, [&] {
        return lower::convert_subgraph(method.graph, subgraph, method.constants, method.archive);
    });
}

}  // namespace

// The archive name of the node a failed conversion names: a pass of OpenVINO's frontend that
// throws names the node it was rewriting by the friendly name the decoder gave it,
// "<node>/<target>/..." ("PtFrameworkNode index_put/aten.index_put.default/...", or
// "internal::GatherAssign select_5/aten.select_scatter.default/GatherAssign"); the node named
// first is the one the pass threw on (others the message quotes are its inputs).
std::optional<std::string> node_named_by_failure(const std::string& message, const graph::Graph& graph) {
    std::optional<std::string> named;
    size_t first = std::string::npos;
    for (const auto& node : graph.nodes) {
        // The target in the tag may be the functional one of an in-place node
        // (index_put_/aten.index_put.default): the name and its slash are what identify it.
        const std::string tag = node.source_name() + "/";
        for (size_t at = message.find(tag); at != std::string::npos; at = message.find(tag, at + 1)) {
            // Whole names only: "x_1/..." must not be read as "1/...".
            const bool starts_a_name = at == 0 || std::isspace(static_cast<unsigned char>(message[at - 1])) ||
                                       message[at - 1] == '(' || message[at - 1] == '\'' || message[at - 1] == '"';
            if (!starts_a_name) continue;
            if (at < first) first = at, named = node.source_name();
            break;
        }
    }
    return named;
}

// " (AtenIndexPutReplacer)" for a message naming the frontend pass that threw, else "".
std::string failing_pass(const std::string& message) {
    static constexpr std::string_view marker = "::pass::";
    const size_t at = message.find(marker);
    if (at == std::string::npos) return "";
    const size_t start = at + marker.size(), end = message.find(']', start);
    if (end == std::string::npos || end - start > 80) return "";
    return " (" + message.substr(start, end - start) + ")";
}

bool every_node_has_a_kernel(const graph::Graph& graph) {
    return std::all_of(graph.nodes.begin(), graph.nodes.end(),
                       [](const graph::Node& node) { return kernels::find_kernel(node.op) != nullptr; });
}

Support learn_support(const PreparedMethod& method) {
    const auto& graph = method.graph;
    Support support;
    support.sources = value_sources(method);
    support.whole = partition::whole_method(graph, support.sources);
    if (support.whole.steps.empty()) return support;
    // A frontend pass that throws on one node would fail the whole method: that node is left
    // out (it goes to placement as unsupported) and the OpenVINO steps around it are converted.
    std::set<std::string> left_out;
    int failures = 0;
    for (;;) {
        try {
            if (left_out.empty()) {
                support.whole_conversion = convert_step(method, support.whole.steps[0]);
            } else {
                lower::Conversion combined;  // no model: placement converts its own steps
                for (const auto& step : support.whole.steps) {
                    if (step.where != partition::Where::OpenVINO) continue;
                    auto part = convert_step(method, step);
                    combined.unconverted.insert(combined.unconverted.end(), part.unconverted.begin(), part.unconverted.end());
                    combined.nodes_with_ops.insert(part.nodes_with_ops.begin(), part.nodes_with_ops.end());
                    for (auto& [name, types] : part.op_types_by_node) combined.op_types_by_node[name].insert(types.begin(), types.end());
                }
                support.whole_conversion = std::move(combined);
            }
            break;
        } catch (const Error& error) {
            const auto name = node_named_by_failure(error.what(), graph);
            // Only OpenVINO's own failure (a plain Error): pt2ov's typed errors (an input, an
            // unsupported program, an unknown fact name) are the user's to see.
            if (!name && typeid(error) == typeid(Error) && left_out.empty() && every_node_has_a_kernel(graph)) {
                // The frontend failed and names no node: the whole method on the CPU kernels
                // (slower, as PyTorch computes it) rather than a refusal.
                const std::string reason = "OpenVINO's PyTorch frontend failed on the whole program, naming no node" +
                                           failing_pass(error.what()) + ": " + first_line(error.what());
                for (const auto& node : graph.nodes) {
                    left_out.insert(node.source_name());
                    support.unsupported[node.source_name()] = reason;
                }
                support.whole = partition::whole_method(graph, support.sources, left_out);
                support.whole_conversion = {};
                break;
            }
            if (!name || left_out.count(*name) || ++failures > 16) throw;
            // Every node of the same op is left out with it: a pass that throws on one index_put
            // throws on its siblings, and each retry converts the method again.
            std::string target;
            graph::OpId op = graph::OpId::Unknown;
            for (const auto& node : graph.nodes) {
                if (node.source_name() == *name) target = node.target, op = node.op;
            }
            const std::string reason = "a pass of OpenVINO's PyTorch frontend" + failing_pass(error.what()) + " throws on " +
                                       *name + " (" + target + ")";
            for (const auto& node : graph.nodes) {
                // (a custom op has no id: its siblings are the nodes of its target)
                if (node.source_name() == *name || (node.op == op && (op != graph::OpId::Unknown || node.target == target))) {
                    left_out.insert(node.source_name());
                    support.unsupported[node.source_name()] = reason;
                }
            }
            support.whole = partition::whole_method(graph, support.sources, left_out);
        }
    }
    for (const auto& node : support.whole_conversion.unconverted) support.unsupported[node.node] = first_line(node.reason);
    for (const auto& node : graph.nodes) {
        const auto& name = node.source_name();
        if (!support.unsupported.count(name) && !left_out.count(name) && !support.whole_conversion.nodes_with_ops.count(name)) {
            support.sources.passthrough_nodes.insert(name);
        }
    }
    for (const auto& [name, types] : support.whole_conversion.op_types_by_node) {
        if (!support.unsupported.count(name) && lower::openvino_facts::only_moves_values(types)) {
            support.sources.moving_nodes.insert(name);
        }
    }
    return support;
}

namespace {

// The step outputs whose converted Result has a shape PyTorch did not record for the value: a
// rank, or a static size, other than torch.export's. OpenVINO's frontend has given a Result
// the shape of a value before a view of it (its normalisation rewired the Result of a Reshape
// whose other reader was a Softmax between two MatMuls to the MatMul itself: an attention's
// scores, returned and fed on, came back (6, 4, 4) for (2, 3, 4, 4), exit 0). Whatever the
// pass, such a result is wrong, so the node that makes it is sent to the CPU kernels
// (tests/models/regressions.py, einsum_scores_reused).
std::vector<std::pair<std::string, std::string>> results_of_wrong_shape(const graph::Graph& graph, const partition::Step& step,
                                                                        const ov::Model& model) {
    std::vector<std::pair<std::string, std::string>> wrong;  // (value, why)
    const auto results = model.get_results();
    for (size_t i = 0; i < results.size() && i < step.outputs.size(); ++i) {
        const auto* value = graph.find_value(step.outputs[i]);
        if (!value || value->kind != graph::ValueKind::Tensor) continue;
        const auto shape = results[i]->get_output_partial_shape(0);
        if (shape.rank().is_dynamic()) continue;
        const auto& sizes = value->meta.sizes;
        bool differs = static_cast<size_t>(shape.rank().get_length()) != sizes.size();
        for (size_t d = 0; !differs && d < sizes.size(); ++d) {
            differs = sizes[d].is_static() && shape[d].is_static() && shape[d].get_length() != *sizes[d].value;
        }
        if (!differs) continue;
        std::string recorded = "[";
        for (size_t d = 0; d < sizes.size(); ++d) {
            recorded += (d ? "," : "") + (sizes[d].is_static() ? std::to_string(*sizes[d].value) : std::string("?"));
        }
        wrong.push_back({step.outputs[i], "its conversion gives " + step.outputs[i] + " the shape " + shape.to_string() +
                                              " where PyTorch records " + recorded + "] (a converter fault)"});
    }
    return wrong;
}

}  // namespace

Placement place_and_convert(const PreparedMethod& method, Support& support, const partition::PlacementOptions& options) {
    const auto& graph = method.graph;
    Placement placement;
    for (int round = 0;; ++round) {
        placement.plan = with_context(method.where, [&] {
            return partition::place(graph, support.unsupported, support.sources, options);
        });
        placement.conversions.clear();
        bool changed = false;
        for (size_t s = 0; s < placement.plan.steps.size(); ++s) {
            const auto& step = placement.plan.steps[s];
            if (step.where != partition::Where::OpenVINO) continue;
            const bool same_as_whole = !support.whole.steps.empty() && support.whole_conversion.model &&
                                       support.whole_conversion.unconverted.empty() &&
                                       step.nodes == support.whole.steps[0].nodes &&
                                       step.inputs == support.whole.steps[0].inputs &&
                                       step.outputs == support.whole.steps[0].outputs;
            lower::Conversion conversion;
            try {
                conversion = same_as_whole ? support.whole_conversion : convert_step(method, step);
            } catch (const Error& error) {
                // A frontend pass that throws on this step's spelling of a node: that node goes to
                // the CPU kernels and the plan is made again (as learn_support does for the whole).
                const auto name = node_named_by_failure(error.what(), graph);
                if (!name || support.unsupported.count(*name)) throw;
                support.unsupported[*name] = "a pass of OpenVINO's PyTorch frontend" + failing_pass(error.what()) + " throws on it";
                changed = true;
                continue;
            }
            for (const auto& node : conversion.unconverted) {
                changed |= support.unsupported.emplace(node.node, first_line(node.reason)).second;
            }
            if (conversion.model) {
                for (const auto& [name, why] : results_of_wrong_shape(graph, step, *conversion.model)) {
                    const auto& producer = graph.value(name).producer;
                    if (producer >= 0) changed |= support.unsupported.emplace(graph.nodes[static_cast<size_t>(producer)].source_name(), why).second;
                }
            }
            placement.conversions[s] = std::move(conversion);
        }
        if (!changed) return placement;
        if (round == 8) throw InternalError(method.where + ": placement did not settle; please report this program");
    }
}

namespace {

// An op's attributes as text; not `readable` when one is of a kind this does not read (then the
// op is compared with no other).
class AttributeText : public ov::AttributeVisitor {
public:
    std::string text;
    bool readable = true;
    void on_adapter(const std::string&, ov::ValueAccessor<void>&) override { readable = false; }
    void on_adapter(const std::string& name, ov::ValueAccessor<std::string>& adapter) override { add(name, adapter.get()); }
    void on_adapter(const std::string& name, ov::ValueAccessor<bool>& adapter) override { add(name, adapter.get() ? "1" : "0"); }
    void on_adapter(const std::string& name, ov::ValueAccessor<int64_t>& adapter) override { add(name, std::to_string(adapter.get())); }
    void on_adapter(const std::string& name, ov::ValueAccessor<double>& adapter) override { add(name, std::to_string(adapter.get())); }
    void on_adapter(const std::string& name, ov::ValueAccessor<std::vector<int64_t>>& adapter) override {
        std::string list;
        for (int64_t v : adapter.get()) list += std::to_string(v) + ",";
        add(name, list);
    }

private:
    void add(const std::string& name, const std::string& value) { text += name + "=" + value + ";"; }
};

// Whether two outputs compute the same values: the same output, equal small Constants, or the
// same pure op (no state, no randomness, no subgraph) with equal attributes on equal inputs.
bool same_value(const ov::Output<ov::Node>& a, const ov::Output<ov::Node>& b, int depth = 0) {
    if (a == b) return true;
    if (depth > 8 || a.get_index() != b.get_index()) return false;
    const auto* x = a.get_node();
    const auto* y = b.get_node();
    if (x->get_type_info() != y->get_type_info() || x->get_input_size() != y->get_input_size() ||
        x->get_output_size() != y->get_output_size()) {
        return false;
    }
    if (const auto* cx = ov::as_type<const ov::op::v0::Constant>(x)) {
        const auto* cy = ov::as_type<const ov::op::v0::Constant>(y);
        return cx->get_element_type() == cy->get_element_type() && cx->get_shape() == cy->get_shape() &&
               cx->get_byte_size() <= 1024 && std::memcmp(cx->get_data_ptr(), cy->get_data_ptr(), cx->get_byte_size()) == 0;
    }
    if (x->get_input_size() == 0 || ov::is_type<ov::op::util::ReadValueBase>(x) || ov::is_type<ov::op::util::AssignBase>(x) ||
        ov::is_type<ov::op::util::MultiSubGraphOp>(x) || ov::is_type<ov::op::v8::RandomUniform>(x) ||
        ov::is_type<ov::op::v13::Multinomial>(x) || ov::is_type<ov::op::util::FrameworkNode>(x)) {
        return false;
    }
    AttributeText ax, ay;
    const_cast<ov::Node*>(x)->visit_attributes(ax);
    const_cast<ov::Node*>(y)->visit_attributes(ay);
    if (!ax.readable || !ay.readable || ax.text != ay.text) return false;
    for (size_t i = 0; i < x->get_input_size(); ++i) {
        if (!same_value(x->input_value(i), y->input_value(i), depth + 1)) return false;
    }
    return true;
}

// Results of a few elements that compute the same value from the same inputs read one output,
// so that take_out_aliases makes all but the first a copy of it (SameAs). A decoder exported
// with transformers' StaticLayer writes cache_position[0] + S into a buffer per layer: 24
// int64 results, each also an add and a convert in the plugin, 0.15-0.5 ms a token of the
// Qwen2.5-0.5B shape's 28.
void merge_repeated_small_results(ov::Model& model) {
    constexpr size_t kSmall = 64;
    std::vector<ov::Output<ov::Node>> kept;
    for (const auto& result : model.get_results()) {
        const auto source = result->input_value(0);
        const auto& shape = source.get_partial_shape();
        if (shape.is_dynamic() || ov::shape_size(shape.to_shape()) > kSmall) continue;
        const auto same = std::find_if(kept.begin(), kept.end(), [&](const ov::Output<ov::Node>& other) {
            return other.get_element_type() == source.get_element_type() && same_value(other, source);
        });
        if (same == kept.end()) {
            kept.push_back(source);
        } else if (*same != source) {
            result->input(0).replace_source_output(*same);
        }
    }
}

}  // namespace

// The results OpenVINO would hand back as its own Parameters or Constants (it turns copies
// into nothing), or that repeat another result's tensor, are taken out of the model; the
// runtime makes them (a copy from the source, where a copy is what the program returns).
// Small results computing the same value are made one first (merge_repeated_small_results).
OpenVINOStep take_out_aliases(std::shared_ptr<ov::Model> model, const partition::Step& step) {
    merge_repeated_small_results(*model);
    OpenVINOStep lowered;
    std::map<ov::Output<ov::Node>, std::string> first_reader;
    const auto results = model->get_results();
    if (results.size() != step.outputs.size()) {
        throw InternalError("a converted step has " + std::to_string(results.size()) + " results for " +
                    std::to_string(step.outputs.size()) + " outputs");
    }
    for (size_t i = 0; i < results.size(); ++i) {
        const std::string& value = step.outputs[i];
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

namespace {

// The dtypes OpenVINO's CPU plugin keeps as state unchanged. It refuses int64 and float64
// state (set_state: "CPU plugin does not support i64 for use with oneDNN"), which it would
// compute in 32 bits anyway.
bool held_as_openvino_state(DType dtype) {
    switch (dtype) {
    case DType::Float32:
    case DType::Float16:
    case DType::BFloat16:
    case DType::Int32:
    case DType::Int8:
    case DType::UInt8:
    case DType::Bool: return true;
    default: return false;
    }
}

bool has_static_shape(const ov::PartialShape& shape, const std::vector<int64_t>& sizes) {
    if (!shape.is_static() || shape.size() != sizes.size()) return false;
    const auto dims = shape.to_shape();
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (static_cast<int64_t>(dims[d]) != sizes[d]) return false;
    }
    return true;
}

// The step of `openvino_steps` whose model reads `input` as a Parameter and gives `output` as a
// Result, and where each sits in its lists; nullopt when no one step does both.
struct StatePlace {
    size_t step = 0;
    size_t parameter = 0;
    size_t result = 0;
};
std::optional<StatePlace> find_state_place(const std::map<size_t, OpenVINOStep>& openvino_steps, const std::string& input,
                                           const std::string& output) {
    for (const auto& [s, lowered] : openvino_steps) {
        if (!lowered.model) continue;
        const auto p = std::find(lowered.parameters.begin(), lowered.parameters.end(), input);
        const auto r = std::find(lowered.results.begin(), lowered.results.end(), output);
        if (p == lowered.parameters.end() || r == lowered.results.end()) continue;
        return StatePlace{s, static_cast<size_t>(p - lowered.parameters.begin()), static_cast<size_t>(r - lowered.results.begin())};
    }
    return std::nullopt;
}

}  // namespace

void keep_state_in_openvino(const PreparedMethod& method, const partition::Plan& plan,
                            std::map<size_t, OpenVINOStep>& openvino_steps) {
    const auto& graph = method.graph;
    std::map<std::string, std::string> input_of_target;
    for (const auto& [name, target] : method.mutated_buffers) input_of_target[target] = name;
    std::set<std::string> user_outputs;
    std::map<std::string, int> mutations_of_value;
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
        if (graph.output_specs[i].kind == graph::OutputSpec::Kind::BufferMutation) {
            ++mutations_of_value[graph.outputs[i].name];
        } else {
            user_outputs.insert(graph.outputs[i].name);
        }
    }
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
        const auto& spec = graph.output_specs[i];
        if (spec.kind != graph::OutputSpec::Kind::BufferMutation) continue;
        const std::string& output = graph.outputs[i].name;
        const auto input_it = input_of_target.find(spec.target);
        const auto stored_it = method.stored.find(spec.target);
        if (input_it == input_of_target.end() || stored_it == method.stored.end()) continue;
        const std::string& input = input_it->second;
        const DType dtype = stored_it->second.meta.dtype;
        const std::vector<int64_t> sizes = stored_it->second.meta.static_sizes();
        if (!held_as_openvino_state(dtype) || user_outputs.count(input) || user_outputs.count(output) ||
            mutations_of_value[output] != 1) {
            continue;
        }
        const auto place = find_state_place(openvino_steps, input, output);
        if (!place) continue;
        bool read_elsewhere = false;
        for (size_t t = 0; t < plan.steps.size(); ++t) {
            if (t == place->step) continue;
            const auto& inputs = plan.steps[t].inputs;
            read_elsewhere |= std::find(inputs.begin(), inputs.end(), input) != inputs.end() ||
                              std::find(inputs.begin(), inputs.end(), output) != inputs.end();
        }
        OpenVINOStep& lowered = openvino_steps.at(place->step);
        for (const auto& alias : lowered.aliases) {
            read_elsewhere |= alias.source == input || alias.source == output || alias.value == output;
        }
        if (read_elsewhere) continue;
        auto& model = lowered.model;
        const auto parameter = model->get_parameters().at(place->parameter);
        const auto result = model->get_results().at(place->result);
        const ov::element::Type type = lower::element_type(dtype);
        if (parameter->get_element_type() != type || result->get_element_type() != type ||
            !has_static_shape(parameter->get_partial_shape(), sizes) ||
            !has_static_shape(result->get_input_partial_shape(0), sizes)) {
            continue;
        }
        auto variable = std::make_shared<ov::op::util::Variable>(
            ov::op::util::VariableInfo{ov::PartialShape(ov::Shape(sizes.begin(), sizes.end())), type, spec.target});
        auto read = std::make_shared<ov::op::v6::ReadValue>(variable);
        read->set_friendly_name(parameter->get_friendly_name());
        parameter->output(0).replace(read->output(0));
        auto assign = std::make_shared<ov::op::v6::Assign>(result->input_value(0), variable);
        assign->set_friendly_name(spec.target + "/assign");
        model->remove_parameter(parameter);
        model->remove_result(result);
        model->add_variables({variable});
        model->add_sinks({assign});
        model->validate_nodes_and_infer_types();
        lowered.parameters.erase(lowered.parameters.begin() + static_cast<std::ptrdiff_t>(place->parameter));
        lowered.results.erase(lowered.results.begin() + static_cast<std::ptrdiff_t>(place->result));
        lowered.states.push_back(spec.target);
    }
}

int appending_positions_input(const PreparedMethod& method, const std::string& name) {
    std::string inputs;
    for (size_t i = 0; i < method.input_infos.size(); ++i) {
        const IOInfo& info = method.input_infos[i];
        inputs += (inputs.empty() ? "'" : ", '") + info.name + "'";
        if (info.name != name) continue;
        if (method.mutated_buffers.empty()) {
            throw InputError(method.where + ": appending_positions ('" + name +
                             "') promises something about a KV cache, and the program mutates no buffer; load it without");
        }
        if (info.dtype != DType::Int64 || info.shape.size() != 1) {
            throw InputError(method.where + ": appending_positions names '" + name + "', which must be a rank-1 int64 input; it is " +
                             std::string(dtype_name(info.dtype)) + " of rank " + std::to_string(info.shape.size()));
        }
        return static_cast<int>(i);
    }
    throw InputError(method.where + ": appending_positions names '" + name + "', which is no input of the program (its inputs: " +
                     inputs + ")");
}

void append_to_caches(const PreparedMethod& method, std::map<size_t, OpenVINOStep>& openvino_steps) {
    const std::string& positions = method.user_inputs.at(static_cast<size_t>(method.appending_positions_input));
    for (auto& [index, step] : openvino_steps) {
        if (step.states.empty() || !step.model) continue;
        // The step reads the positions as the Parameter of the user input's value.
        const auto it = std::find(step.parameters.begin(), step.parameters.end(), positions);
        if (it == step.parameters.end()) continue;
        const auto parameter = step.model->get_parameters().at(static_cast<size_t>(it - step.parameters.begin()));
        for (const auto& cache : lower::append_to_static_caches(*step.model, parameter->get_friendly_name())) {
            step.appending_states[cache.variable] = cache.capacity;
        }
    }
}

namespace {

// Whether every value `arg` reads is in `known` (a constant or made by a node computed once);
// numbers and other literals read nothing.
bool reads_only(const graph::Argument& arg, const std::set<std::string>& known) {
    using Kind = graph::Argument::Kind;
    switch (arg.kind) {
    case Kind::Tensor:
    case Kind::SymInt:
    case Kind::SymBool:
    case Kind::SymFloat:
        return known.count(arg.name) > 0;
    case Kind::List:
        for (const auto& item : arg.items) {
            if (!reads_only(item, known)) return false;
        }
        return true;
    default:
        return true;
    }
}

}  // namespace

std::set<int> computed_once_at_load(const PreparedMethod& method, const partition::Plan& plan) {
    const auto& graph = method.graph;
    std::set<std::string> known;
    for (const auto& [name, stored] : method.constants) {
        if (!method.mutated_buffers.count(name)) known.insert(name);
    }
    std::set<int> once;
    for (const auto& step : plan.steps) {
        if (step.where != partition::Where::Cpu) continue;
        for (int index : step.nodes) {
            const auto& node = graph.nodes[static_cast<size_t>(index)];
            bool constant = !node.outputs.empty();
            for (const auto& arg : node.resolved_inputs) constant = constant && reads_only(arg, known);
            if (!constant) continue;
            once.insert(index);
            for (const auto& out : node.outputs) {
                if (!out.name.empty()) known.insert(out.name);
                for (const auto& item : out.items) {
                    if (!item.name.empty()) known.insert(item.name);
                }
            }
        }
    }
    return once;
}

namespace {

std::string alias_reason(const Alias& alias) {
    switch (alias.kind) {
    case Alias::Kind::Constant: return "copy made by pt2ov from the constant's memory (OpenVINO would hand back the constant itself)";
    case Alias::Kind::SameAs: return "made by pt2ov from another output (OpenVINO would hand back one tensor twice)";
    case Alias::Kind::Input: break;
    }
    return "made by pt2ov from its input (OpenVINO would hand back the input itself)";
}

}  // namespace

PlacementReport report(const PreparedMethod& prepared, const partition::Plan& plan,
                       const std::map<size_t, OpenVINOStep>& openvino_steps) {
    const auto& graph = prepared.graph;
    PlacementReport report;
    report.method = prepared.method;
    const std::set<int> once = computed_once_at_load(prepared, plan);
    report.openvino_version = lower::openvino_runtime_version();
    report.cpu_isa = kernels::isa_kernels().isa;  // chosen here at the latest: a bad PT2OV_CPU_ISA fails the load
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        const auto& step = plan.steps[s];
        std::map<std::string, std::string> made;  // archive node → reason, for aliased values
        if (auto it = openvino_steps.find(s); it != openvino_steps.end()) {
            for (const auto& alias : it->second.aliases) {
                const auto* value = graph.find_value(alias.value);
                if (value && value->producer >= 0) made[graph.nodes[value->producer].source_name()] = alias_reason(alias);
            }
        }
        // The archive nodes a FakeQuantize stands for (lower/low_precision.cpp).
        std::set<std::string> fake_quantized;
        if (auto it = openvino_steps.find(s); it != openvino_steps.end() && it->second.model) {
            std::set<std::string> tags;
            for (const auto& op : it->second.model->get_ordered_ops()) {
                if (!ov::is_type<ov::op::v0::FakeQuantize>(op)) continue;
                const auto& rt = op->get_rt_info();
                if (auto tag = rt.find(lower::kSourceNodeKey); tag != rt.end()) tags.insert(tag->second.as<std::string>());
            }
            for (int index : step.nodes) {
                if (tags.count(graph.nodes[index].name)) fake_quantized.insert(graph.nodes[index].source_name());
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
                std::string reason = plan.reason[index];
                if (once.count(index) && reason.rfind("computed once at load", 0) != 0) {
                    reason += "; computed once at load (it reads constants only)";
                }
                if (fake_quantized.count(node.source_name())) {
                    reason += "; with its quantize, one FakeQuantize on OpenVINO's int8 kernels (--quantized-reference: eager's arithmetic)";
                }
                main.nodes.push_back({node.source_name(), node.source_target(), std::move(reason)});
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
    // Each mutated buffer: what computes its new value and how the executor carries it. A split
    // buffer is reported once, under its own name, from its parts.
    std::map<std::string, const graph::BufferSplit*> split_of_part;
    for (const auto& split : graph.buffer_splits) {
        for (const auto& part : split.parts) split_of_part[part] = &split;
    }
    std::map<const graph::BufferSplit*, std::vector<PlacementReport::State>> parts_of_split;
    for (size_t i = 0; i < graph.output_specs.size(); ++i) {
        const auto& spec = graph.output_specs[i];
        if (spec.kind != graph::OutputSpec::Kind::BufferMutation) continue;
        PlacementReport::State state;
        state.name = spec.target;
        if (auto it = prepared.stored.find(spec.target); it != prepared.stored.end()) {
            state.dtype = it->second.meta.dtype;
            state.shape = it->second.meta.static_sizes();
        }
        const std::string& value_name = graph.outputs[i].name;
        const auto* value = graph.find_value(value_name);
        state.update = "cpu";
        state.carried = "a new tensor per call, pt2ov's copy of an input or constant";
        if (value && value->producer >= 0) {
            const auto& node = graph.nodes[value->producer];
            state.node = node.source_name();
            for (size_t s = 0; s < plan.steps.size(); ++s) {
                const auto& nodes = plan.steps[s].nodes;
                if (std::find(nodes.begin(), nodes.end(), value->producer) == nodes.end()) continue;
                bool aliased = false;
                if (auto it = openvino_steps.find(s); it != openvino_steps.end()) {
                    for (const auto& alias : it->second.aliases) aliased |= alias.value == value_name;
                }
                bool in_openvino_state = false, appending = false;
                if (auto it = openvino_steps.find(s); it != openvino_steps.end()) {
                    const auto& states = it->second.states;
                    in_openvino_state = std::find(states.begin(), states.end(), spec.target) != states.end();
                    appending = it->second.appending_states.count(spec.target) > 0;
                }
                if (appending) {
                    state.update = "openvino";
                    state.carried = "OpenVINO state in the step's infer request, grown by each call's positions (the "
                                    "appending positions promise: only the positions written are held, and the attention "
                                    "reads them in place); pt2ov copies it out only when read_state asks";
                } else if (in_openvino_state) {
                    state.update = "openvino";
                    state.carried = "OpenVINO state (ReadValue/Assign) in the step's infer request; pt2ov copies it out "
                                    "only when read_state asks";
                } else if (plan.steps[s].where == partition::Where::OpenVINO && !aliased) {
                    state.update = "openvino";
                    state.carried = value->meta.all_static()
                                        ? "two buffers held by pt2ov, used in turn (OpenVINO writes the next state into the one the call does not read)"
                                        : "a new tensor per call, copied out of OpenVINO's memory";
                } else {
                    state.carried = aliased ? "a new tensor per call, made by pt2ov (OpenVINO would hand back its own input)"
                                            : "a new tensor per call, written by pt2ov's CPU kernel";
                }
            }
            for (size_t r = 0; r < report.steps.size(); ++r) {
                for (const auto& info : report.steps[r].nodes) {
                    if (info.name == state.node) state.step = r + 1;
                }
            }
            if (state.step > 0 && report.steps[state.step - 1].kind == "cpu") state.update = "cpu";
        }
        const auto split = split_of_part.find(spec.target);
        if (split == split_of_part.end()) {
            report.state.push_back(std::move(state));
            continue;
        }
        auto& parts = parts_of_split[split->second];
        parts.push_back(std::move(state));
        if (parts.size() < split->second->parts.size()) continue;
        PlacementReport::State whole = parts.front();
        whole.name = split->second->target;
        whole.split_into = parts.size();
        if (auto it = prepared.stored.find(whole.name); it != prepared.stored.end()) whole.shape = it->second.meta.static_sizes();
        std::set<std::string> carried;
        for (const auto& part : parts) {
            if (part.update == "cpu") whole.update = "cpu";
            if (&part != &parts.front() && !part.node.empty()) whole.node += (whole.node.empty() ? "" : ", ") + part.node;
            if (carried.insert(part.carried).second && &part != &parts.front()) whole.carried += "; " + part.carried;
        }
        whole.carried = "split into " + std::to_string(parts.size()) + " buffers, one per index of dim 0 (every use " +
                        "reads or writes one constant index), each: " + whole.carried;
        report.state.push_back(std::move(whole));
    }

    std::set<const std::byte*> storages;
    for (const auto& [name, stored] : prepared.stored) {
        if (split_of_part.count(name)) continue;  // a view of a row of a buffer counted itself
        report.constant_count++;
        int64_t numel = 1;
        for (auto s : stored.meta.static_sizes()) numel *= s;
        report.constant_bytes += static_cast<size_t>(numel) * dtype_size(stored.meta.dtype);
        // Tensors of one storage share its bytes, mapped once.
        if (storages.insert(stored.storage).second) report.resident_bytes += stored.storage_bytes;
    }
    return report;
}

}  // namespace pt2ov::compile
