// The executor's OpenVINO steps: each compiled once at load with the program's configuration,
// its results checked against the recorded metadata; at each call its inputs bound (copied to
// contiguous memory where OpenVINO needs it, E3), its outputs bound where the caller's memory
// can take them, the request run, and the results collected.
#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>

#include "common/error.h"
#include "lower/element_type.h"
#include "lower/openvino_facts.h"
#include "lower/plugin_workarounds.h"
#include "lower/values_at_load.h"
#include "openvino/core/graph_util.hpp"
#include "openvino/core/model.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/relu.hpp"
#include "openvino/pass/serialize.hpp"
#include "openvino/runtime/core.hpp"
#include "openvino/runtime/properties.hpp"
#include "runtime/executor_internal.h"
#include "runtime/inputs.h"

namespace pt2ov::runtime {

using kernels::RuntimeValue;
using kernels::Scalar;
using kernels::StridedTensor;

namespace {

ov::Core& shared_core() {
    static ov::Core core;
    return core;
}

// PT2OV_DUMP_OPENVINO=FOLDER (a developer's switch, docs/DEVELOPING.md): each OpenVINO step's
// model as handed to the plugin, `step<N>.xml`, and as the plugin compiled it (its runtime graph:
// layer types and runtime precisions), `step<N>.compiled.xml`. A failure to write is ignored:
// the dump must never change what a load does.
void dump_step(const char* suffix, size_t index, const std::shared_ptr<const ov::Model>& model) {
    const char* folder = std::getenv("PT2OV_DUMP_OPENVINO");
    if (!folder || !*folder || !model) return;
    const std::string base = std::string(folder) + "/step" + std::to_string(index + 1) + suffix;
    try {
        ov::pass::Serialize(base + ".xml", base + ".bin").run_on_model(std::const_pointer_cast<ov::Model>(model));
    } catch (const std::exception&) {
    }
}

// Whether `device` compiles the smallest model at all: tells a device that cannot be used
// (absent, misnamed) from a program its plugin cannot compile.
bool device_compiles_anything(const std::string& device) {
    try {
        auto x = std::make_shared<ov::op::v0::Parameter>(ov::element::f32, ov::Shape{1});
        auto relu = std::make_shared<ov::op::v0::Relu>(x);
        shared_core().compile_model(std::make_shared<ov::Model>(ov::OutputVector{relu}, ov::ParameterVector{x}), device);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

ov::element::Type precision_hint(compile::PrecisionHint precision) {
    switch (precision) {
        case compile::PrecisionHint::F16: return ov::element::f16;
        case compile::PrecisionHint::BF16: return ov::element::bf16;
        case compile::PrecisionHint::F32: break;
    }
    return ov::element::f32;
}

ov::Tensor scalar_tensor(const Scalar& scalar, const ov::element::Type& type) {
    ov::Tensor tensor(type, ov::Shape{});
    std::visit(
        [&](auto v) {
            if (type == ov::element::i64) {
                *tensor.data<int64_t>() = static_cast<int64_t>(v);
            } else if (type == ov::element::i32) {
                *tensor.data<int32_t>() = static_cast<int32_t>(v);
            } else if (type == ov::element::f64) {
                *tensor.data<double>() = static_cast<double>(v);
            } else if (type == ov::element::f32) {
                *tensor.data<float>() = static_cast<float>(v);
            } else if (type == ov::element::boolean) {
                *tensor.data<char>() = static_cast<bool>(v);
            } else {
                throw InternalError("a number cannot enter OpenVINO as " + type.get_type_name());
            }
        },
        scalar);
    return tensor;
}

Scalar scalar_from(const ov::Tensor& tensor) {
    const auto type = tensor.get_element_type();
    if (type == ov::element::i64) return *tensor.data<const int64_t>();
    if (type == ov::element::i32) return static_cast<int64_t>(*tensor.data<const int32_t>());
    if (type == ov::element::f64) return *tensor.data<const double>();
    if (type == ov::element::f32) return static_cast<double>(*tensor.data<const float>());
    if (type == ov::element::boolean) return *tensor.data<const char>() != 0;
    throw InternalError("OpenVINO returned a number as " + type.get_type_name());
}

// E4 (docs/EXACTNESS.md): OpenVINO's CPU plugin computes int64 in 32 bits (openvino_facts
// Int64BeyondThirtyTwoBits), so an int64 value beyond 32 bits that enters an OpenVINO step
// would be cut. Such a call stops, naming the tensor.
// The first value of a contiguous int64 tensor that OpenVINO would cut, if any.
std::optional<int64_t> first_beyond_32_bits(const StridedTensor& tensor) {
    const auto* data = reinterpret_cast<const int64_t*>(tensor.data);
    const int64_t count = tensor.numel();
    for (int64_t i = 0; i < count; ++i) {
        if (!lower::openvino_facts::int64_passes_exactly(data[i])) return data[i];
    }
    return std::nullopt;
}

bool fits_32_bits(const StridedTensor& tensor) {
    return !first_beyond_32_bits(tensor.is_contiguous() ? tensor : contiguous_copy(tensor));
}

void check_fits_32_bits(const StridedTensor& tensor, const std::string& value, const std::string& where) {
    if (const auto v = first_beyond_32_bits(tensor)) {
        throw InputError(where + ": int64 tensor '" + value + "' holds " + std::to_string(*v) +
                    ", beyond 32 bits, and would enter OpenVINO, whose CPU plugin computes int64 in 32 bits; "
                    "keep its readers on the CPU with --cpu-node (pt2ov inspect names them)");
    }
}

// The structure handed to OpenVINO has no result that is an input (compile's take_out_aliases
// stage removed those), but compiling may still fold a result into its input (a no-op Convert
// or Reshape removed: openvino_facts CompiledResultFoldedIntoInput). The compiled runtime model
// shows that; such a result is then taken out and the step compiled again (the plugin keeps the
// memory of the input it was first given as that output's, and writes the next call's input
// into it), and the runtime makes it from the input, as any other alias.
std::vector<std::string> find_results_compiled_into_inputs(const ov::CompiledModel& compiled,
                                                           const std::vector<std::string>& parameters) {
    std::vector<std::string> found(compiled.outputs().size());
    std::shared_ptr<const ov::Model> runtime;
    try {
        runtime = compiled.get_runtime_model();
    } catch (const std::exception&) {
        return found;  // a device that does not expose its compiled model: nothing to check
    }
    const auto results = runtime->get_results();
    const auto runtime_parameters = runtime->get_parameters();
    for (size_t r = 0; r < results.size() && r < found.size(); ++r) {
        const auto producer = results[r]->input_value(0).get_node_shared_ptr();
        for (size_t p = 0; p < runtime_parameters.size() && p < parameters.size(); ++p) {
            if (producer == runtime_parameters[p]) found[r] = parameters[p];
        }
    }
    return found;
}

bool is_symbolic(const graph::Graph& graph, const std::string& name) {
    const auto* value = graph.find_value(name);
    return value && value->kind != graph::ValueKind::Tensor;
}

}  // namespace

namespace {

// A step that reads at least this many bytes of weights a call infers on the plugin's own
// thread (build_openvino_step says why): 64 MiB take milliseconds to read at memory speed.
constexpr size_t kOwnThreadWeightBytes = size_t{64} << 20;

// The bytes of weights (Constants of more than one element) a model reads.
size_t weight_bytes(const ov::Model& model) {
    size_t bytes = 0;
    for (const auto& op : model.get_ops()) {
        if (const auto* constant = ov::as_type<ov::op::v0::Constant>(op.get()); constant && ov::shape_size(constant->get_shape()) > 1) {
            bytes += constant->get_byte_size();
        }
    }
    return bytes;
}

}  // namespace

// The compile configuration every OpenVINO step of one program shares.
OpenVINOConfig openvino_config(const compile::Settings& settings) {
    OpenVINOConfig made;
    const LoadOptions& options = settings.given;
    ov::AnyMap& config = made.properties;
    config.emplace(ov::hint::inference_precision(precision_hint(settings.precision)));
    if (!options.cache_dir.empty()) config.emplace(ov::cache_dir(options.cache_dir));
    // openvino_facts DynamicQuantizationOfActivations: the CPU plugin would quantize the
    // activations of a matmul with compressed (integer) weights to int8 on the fly, under the
    // f32 hint too; off, the product is computed in the hint's precision.
    if (settings.cpu_device) config.emplace(lower::openvino_facts::kNoDynamicQuantization, uint64_t{0});
    // openvino_facts KvCacheQuantizedByDefault: a cache kept as state and read by a fused
    // attention would be stored in u8; it keeps the precision the program runs in.
    if (settings.cpu_device) {
        config.emplace(lower::openvino_facts::kKvCachePrecision, precision_hint(settings.precision));
    }
    if (options.num_threads > 0) config.emplace(ov::inference_num_threads(options.num_threads));
    const bool latency = settings.performance_hint == compile::PerformanceHint::Latency;
    config.emplace(ov::hint::performance_mode(latency ? ov::hint::PerformanceMode::LATENCY
                                                      : ov::hint::PerformanceMode::THROUGHPUT));
    // openvino_facts ArenaPerCompiledModel: each compiled model would infer in an arena of its
    // own, and a call that goes through several of them, call after call, grows RSS. Under the
    // latency hint (one stream a model) every step infers in the calling thread's arena instead,
    // which run() makes one per call context. The throughput hint keeps OpenVINO's streams.
#ifdef PT2OV_WITH_TBB
    made.in_callers_arena = latency && settings.cpu_device;
    if (made.in_callers_arena) config.emplace(lower::openvino_facts::kInferInCallersArena, true);
#endif
    return made;
}

// A value computed once at load (compile::computed_once_at_load) enters the OpenVINO steps that
// read it as a Constant over its memory (lower/values_at_load.h). An int64 value beyond 32 bits
// stays a Parameter, refused at the call as any such input is.
std::shared_ptr<ov::Model> Executor::with_values_made_at_load(const OpenVINOStep& lowered,
                                                              std::vector<std::string>& parameters,
                                                              bool compressed_weights) const {
    const auto& graph = prepared_.graph;
    std::vector<std::optional<lower::DenseValue>> values;
    for (const auto& name : parameters) {
        values.emplace_back();
        const int slot = slot_of(graph, name);
        if (slot < 0 || static_cast<size_t>(slot) >= constants_.size()) continue;
        const auto& value = constants_[static_cast<size_t>(slot)];
        if (!std::holds_alternative<StridedTensor>(value.value) || !reused_owners_.count(value.tensor().owner.get())) {
            continue;
        }
        const auto& tensor = value.tensor();
        if (tensor.dtype == DType::Int64 && !fits_32_bits(tensor)) continue;
        auto dense = std::make_shared<StridedTensor>(tensor.is_contiguous() ? tensor : contiguous_copy(tensor));
        values.back() = lower::DenseValue{dense->dtype, dense->sizes, dense->data, std::shared_ptr<const void>(dense, dense->data)};
    }
    return lower::with_values_as_constants(lowered.model, parameters, values, graph, prepared_.constants, prepared_.archive,
                                           compressed_weights);
}

void Executor::build_openvino_step(size_t index, const OpenVINOStep& lowered, const std::vector<int>& nodes, const LoadOptions& options,
                                   const ov::AnyMap& config, Step& built) {
    const auto& graph = prepared_.graph;
    built.on_openvino = true;
    for (const auto& alias : lowered.aliases) {
        MadeValue made;
        made.slot = slot_of(graph, alias.value);
        if (alias.kind == Alias::Kind::Constant) {
            StridedTensor view;
            view.dtype = lower::dtype_from_element(alias.constant->get_element_type());
            const auto& shape = alias.constant->get_shape();
            view.sizes.assign(shape.begin(), shape.end());
            view.strides = kernels::contiguous_strides(view.sizes);
            view.data = static_cast<std::byte*>(const_cast<void*>(alias.constant->get_data_ptr()));
            view.owner = alias.constant;
            made.constant = RuntimeValue::of(view);
            // Read in place by later steps, never handed out as is.
            reused_owners_.insert(alias.constant.get());
        } else {
            made.source_slot = slot_of(graph, alias.source);
        }
        built.made.push_back(std::move(made));
    }
    if (!lowered.model) return;

    auto step = std::make_unique<CompiledStep>();
    std::vector<std::string> parameters = lowered.parameters;
    const std::shared_ptr<ov::Model> model = with_values_made_at_load(lowered, parameters, options.compressed_weights);
    dump_step("", index, model);
    // A step that reads this many bytes of weights a call (a language model's decode step: tens
    // of milliseconds) infers on the plugin's own stream thread in the plugin's own arena: 3 %
    // less time a token than the calling thread in the call's arena (Qwen2.5-0.5B's shape, int4,
    // 2-core Xeon, five runs of each in turn), as OpenVINO GenAI infers. Handing the inference
    // over and back costs about 75 us a call there, which would be 10x a small program's call:
    // lighter steps stay in the caller's arena. Only one thread ever enters each arena this way
    // (openvino_facts ArenaPerCompiledModel is about a thread entering several).
    ov::AnyMap step_config = config;
    if (step_config.count(lower::openvino_facts::kInferInCallersArena) && weight_bytes(*model) >= kOwnThreadWeightBytes) {
        step_config.erase(lower::openvino_facts::kInferInCallersArena);
        step->on_own_thread = true;
    }
    std::vector<std::string> folded;
    try {
        const auto compile = [&](const std::shared_ptr<ov::Model>& structure) {
            ov::CompiledModel compiled = shared_core().compile_model(structure, options.device, step_config);
            // The reductions left to the plugin's RMS fusion (ReduceFusedArithmeticWrong) must be
            // fused; where one was not, the step is compiled again with every one of them barred.
            if (lower::expects_fusions(*structure) &&
                !lower::expected_fusions_missed(*structure, *compiled.get_runtime_model()).empty()) {
                auto barred = structure->clone();
                lower::bar_expected_fusions(*barred);
                compiled = shared_core().compile_model(barred, options.device, step_config);
            }
            return compiled;
        };
        step->compiled = compile(model);
        folded = find_results_compiled_into_inputs(step->compiled, parameters);
        if (std::any_of(folded.begin(), folded.end(), [](const std::string& input) { return !input.empty(); })) {
            // Left in, such a result makes the plugin write each call's input into the memory
            // of the input it had last call (memory pt2ov may have freed since): out it goes.
            auto pruned = model->clone();
            const auto results = pruned->get_results();
            for (size_t r = 0; r < results.size() && r < folded.size(); ++r) {
                if (!folded[r].empty()) pruned->remove_result(results[r]);
            }
            if (pruned->get_results().empty()) {
                step->infers_nothing = true;
            } else {
                step->compiled = compile(pruned);
            }
        }
        dump_step(".compiled", index, step->compiled.get_runtime_model());
    } catch (const std::exception& e) {
        const std::string message = prepared_.where + ": OpenVINO could not compile step " + std::to_string(index + 1) +
                                    " for device '" + options.device + "': " + e.what();
        if (!device_compiles_anything(options.device)) throw UnsupportedError(message);
        throw StepCompileFailure(message, index, e.what());
    }
    for (const auto& name : parameters) {
        step->parameter_slots.push_back(slot_of(graph, name));
        step->parameter_names.push_back(name);
    }
    for (const auto& input : step->compiled.inputs()) step->parameter_types.push_back(input.get_element_type());
    std::set<std::string> program_outputs;
    for (const auto& out : graph.outputs) program_outputs.insert(out.name);
    // What the compiled model declares for each result it still has (the check below is of
    // those); a folded result keeps what the structure handed over declared.
    const auto model_outputs = model->outputs();
    const auto compiled_outputs = step->compiled.outputs();
    int compiled_output = 0;
    for (size_t r = 0; r < lowered.results.size(); ++r) {
        const std::string& name = lowered.results[r];
        CompiledStep::Result result;
        result.slot = slot_of(graph, name);
        result.symbolic = is_symbolic(graph, name);
        result.folded_into = folded[r].empty() ? -1 : slot_of(graph, folded[r]);
        if (result.folded_into < 0 && !step->infers_nothing) result.output = compiled_output++;
        const auto& output = result.output >= 0 ? compiled_outputs.at(static_cast<size_t>(result.output)) : model_outputs.at(r);
        result.dtype = lower::dtype_from_element(output.get_element_type());
        result.is_static = output.get_partial_shape().is_static() && !result.symbolic && result.folded_into < 0;
        if (result.is_static) {
            for (auto d : output.get_shape()) result.sizes.push_back(static_cast<int64_t>(d));
        }
        if (!result.symbolic) {
            check_result_against_metadata(graph.value(name), output.get_partial_shape(), result.dtype, index, nodes);
        }
        size_t user_index = 0;
        for (size_t i = 0; i < outputs_.size() && result.caller_output < 0; ++i) {
            if (outputs_[i].mutated_buffer >= 0 || outputs_[i].mutated_input >= 0) continue;
            if (outputs_[i].slot == result.slot) result.caller_output = static_cast<int>(user_index);
            ++user_index;
        }
        // A static intermediate no program output reads gets one buffer per call context,
        // written by OpenVINO on every call.
        result.reused = result.is_static && !program_outputs.count(name);
        step->results.push_back(std::move(result));
    }
    built.compiled = std::move(step);
}

// What the compiled model declares for a step's result must be what the program records: the
// plugin has been seen to compile a model that contradicts its own converted shapes (a 1x1
// strided, padded convolution: openvino_facts UnitConvolutionStridedPaddedShape). The node that
// makes such a result goes to the CPU kernels (StepCompileFailure naming it), where a
// contradiction that is the archive's own (damaged metadata) is refused node by node.
void Executor::check_result_against_metadata(const graph::Value& value, const ov::PartialShape& shape, DType dtype,
                                             size_t step, const std::vector<int>& step_nodes) const {
    if (value.kind != graph::ValueKind::Tensor) return;
    const auto& meta = value.meta;
    std::string what;
    if (dtype != meta.dtype) {
        what = std::string(dtype_name(dtype)) + " where PyTorch records " + std::string(dtype_name(meta.dtype));
    } else if (shape.rank().is_static() && static_cast<size_t>(shape.rank().get_length()) != meta.sizes.size()) {
        what = std::to_string(shape.rank().get_length()) + " dims where PyTorch records " + std::to_string(meta.sizes.size());
    } else if (shape.rank().is_static()) {
        for (size_t d = 0; d < meta.sizes.size(); ++d) {
            if (shape[d].is_static() && meta.sizes[d].is_static() && shape[d].get_length() != *meta.sizes[d].value) {
                what = "size " + std::to_string(shape[d].get_length()) + " in dim " + std::to_string(d) +
                       " where PyTorch records " + std::to_string(*meta.sizes[d].value);
                break;
            }
        }
    }
    if (what.empty()) return;
    std::vector<int> at_fault;
    if (std::find(step_nodes.begin(), step_nodes.end(), value.producer) != step_nodes.end()) at_fault.push_back(value.producer);
    const std::string fault = "its compiled model gives '" + value.name + "' " + what;
    throw StepCompileFailure(prepared_.where + ": OpenVINO step " + std::to_string(step + 1) + ": " + fault, step, fault,
                             std::move(at_fault));
}

// E3: OpenVINO reads every tensor as contiguous; anything else is copied into that order.
void Executor::bind_inputs(const CompiledStep& step, StepContext& context, Values& values) const {
    auto& request = context.request;
    for (size_t p = 0; p < step.parameter_slots.size(); ++p) {
        const int slot = step.parameter_slots[p];
        const auto& value = lookup(values, slot);
        const auto& type = step.parameter_types[p];
        if (value.is_scalar()) {
            request.set_input_tensor(p, scalar_tensor(value.scalar(), type));
            context.bound_input_data[p] = nullptr;
            continue;
        }
        StridedTensor tensor = value.tensor().is_contiguous() ? value.tensor() : contiguous_copy(value.tensor());
        if (tensor.dtype == DType::Int64) check_fits_32_bits(tensor, step.parameter_names[p], prepared_.where);
        if (tensor.dtype != lower::dtype_from_element(type)) {
            throw InternalError(step.parameter_names[p] + " enters OpenVINO as " + type.get_type_name());
        }
        if (tensor.data != value.tensor().data) values[slot] = RuntimeValue::of(tensor);  // keeps the copy alive
        // The same memory as last call (a caller reusing its buffers, reused intermediates):
        // OpenVINO still holds it, no need to bind again.
        if (tensor.data == context.bound_input_data[p] && tensor.sizes == context.bound_input_sizes[p]) continue;
        request.set_input_tensor(p, wrap(tensor));
        context.bound_input_data[p] = tensor.data;
        context.bound_input_sizes[p] = tensor.sizes;
    }
}

// Static results get their memory before infer(): the caller's output, a reused buffer, the
// free half of a mutated buffer, or new memory. Dynamic ones are read back after.
std::vector<StridedTensor> Executor::bind_outputs(const CompiledStep& step, StepContext& context,
                                                 std::vector<Tensor>& caller_outputs) {
    std::vector<StridedTensor> bound(step.results.size());
    for (size_t r = 0; r < step.results.size(); ++r) {
        const auto& result = step.results[r];
        if (!result.is_static) continue;
        const Tensor* caller = result.caller_output >= 0 && static_cast<size_t>(result.caller_output) < caller_outputs.size() &&
                                       !caller_outputs[result.caller_output].empty_handle()
                                   ? &caller_outputs[result.caller_output]
                                   : nullptr;
        if (caller && caller->shape() == result.sizes && caller->dtype() == result.dtype) {
            bound[r] = view_of(*caller);  // written straight into the caller's memory
        } else if (result.reused) {
            bound[r] = context.reused[r];
        } else if (result.mutated_buffer >= 0) {
            bound[r] = next_state_buffer(buffers_[result.mutated_buffer], result.dtype, result.sizes);
        } else {
            bound[r] = StridedTensor::allocate_for_overwrite(result.dtype, result.sizes);
        }
        if (bound[r].data != context.bound_output_data[r]) {
            context.request.set_output_tensor(static_cast<size_t>(result.output), wrap(bound[r]));
            context.bound_output_data[r] = bound[r].data;
        }
    }
    return bound;
}

void Executor::infer(const CompiledStep& step, StepContext& context, size_t number, int64_t& openvino_ns) const {
    const auto start = Clock::now();
    with_lazy_context([&] { return prepared_.where + ": OpenVINO failed in step " + std::to_string(number); },
                      [&] {
                          if (step.on_own_thread) {
                              context.request.start_async();
                              context.request.wait();  // rethrows what the inference threw
                          } else {
                              context.request.infer();
                          }
                      });
    openvino_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

void Executor::collect(const CompiledStep& step, StepContext& context, Values& values, std::vector<StridedTensor>& bound,
                       std::vector<Tensor>& caller_outputs) const {
    for (size_t r = 0; r < step.results.size(); ++r) {
        const auto& result = step.results[r];
        if (result.folded_into >= 0) {
            values[result.slot] = lookup(values, result.folded_into);
        } else if (result.symbolic) {
            values[result.slot] = RuntimeValue::of(scalar_from(context.request.get_output_tensor(static_cast<size_t>(result.output))));
        } else if (result.is_static) {
            values[result.slot] = RuntimeValue::of(std::move(bound[r]));
        } else {
            // Dynamic shape: the request's memory is reused by the next call, so copy out: into
            // the caller's output when it has this call's shape (a generator's logits, given
            // back call after call: no allocation, no second copy), new memory otherwise. Not for
            // a buffer's next state, which must never be the caller's memory (E2).
            const ov::Tensor tensor = context.request.get_output_tensor(static_cast<size_t>(result.output));
            const auto& shape = tensor.get_shape();
            const std::vector<int64_t> sizes(shape.begin(), shape.end());
            const DType dtype = lower::dtype_from_element(tensor.get_element_type());
            const Tensor* caller = result.caller_output >= 0 && result.mutated_buffer < 0 &&
                                           static_cast<size_t>(result.caller_output) < caller_outputs.size() &&
                                           !caller_outputs[result.caller_output].empty_handle()
                                       ? &caller_outputs[result.caller_output]
                                       : nullptr;
            StridedTensor copy = caller && caller->shape() == sizes && caller->dtype() == dtype
                                     ? view_of(*caller)
                                     : StridedTensor::allocate_for_overwrite(dtype, sizes);
            if (copy.numel()) std::memcpy(copy.data, tensor.data(), tensor.get_byte_size());
            values[result.slot] = RuntimeValue::of(copy);
        }
    }
}

void Executor::run_openvino_step(const Step& step, StepContext& context, CallContext& call, Values& values,
                                 std::vector<Tensor>& caller_outputs) {
    if (const auto* compiled = step.compiled.get()) {
        // OpenVINO's set_tensor checks shapes and types itself; its refusal names the step.
        auto bound = with_lazy_context(
            [&] { return prepared_.where + ": OpenVINO refused the tensors bound to step " + std::to_string(step.number); },
            [&] {
                if (compiled->infers_nothing) return std::vector<StridedTensor>(compiled->results.size());
                bind_inputs(*compiled, context, values);
                return bind_outputs(*compiled, context, caller_outputs);
            });
        if (!compiled->infers_nothing) infer(*compiled, context, step.number, call.openvino_ns);
        collect(*compiled, context, values, bound, caller_outputs);
    }
    make_values(step, values);
}

}  // namespace pt2ov::runtime
