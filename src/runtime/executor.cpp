#include "runtime/executor.h"

#include <chrono>
#include <cstring>
#include <set>

#include "common/error.h"
#include "kernels/registry.h"
#include "lower/element_type.h"
#include "lower/openvino_facts.h"
#include "openvino/runtime/core.hpp"
#include "openvino/runtime/properties.hpp"
#include "runtime/inputs.h"

namespace pt2ov::runtime {

using kernels::RuntimeValue;
using kernels::Scalar;
using kernels::StridedTensor;
using Clock = std::chrono::steady_clock;

namespace {

ov::Core& shared_core() {
    static ov::Core core;
    return core;
}

ov::element::Type precision_hint(const std::string& precision) {
    if (precision == "f32") return ov::element::f32;
    if (precision == "f16") return ov::element::f16;
    if (precision == "bf16") return ov::element::bf16;
    throw InputError("unknown precision '" + precision + "'; use f32, f16 or bf16");
}

StridedTensor view_of(const Tensor& tensor) {
    StridedTensor view;
    view.dtype = tensor.dtype();
    view.sizes = tensor.shape();
    view.strides = kernels::contiguous_strides(view.sizes);
    view.data = static_cast<std::byte*>(tensor.data());
    view.owner = tensor.owner();
    return view;
}

StridedTensor contiguous_copy(const StridedTensor& source) {
    StridedTensor copy = StridedTensor::allocate_for_overwrite(source.dtype, source.sizes);
    kernels::copy_into(source, copy);
    return copy;
}

ov::Tensor wrap(const StridedTensor& tensor) {
    return ov::Tensor(lower::element_type(tensor.dtype), ov::Shape(tensor.sizes.begin(), tensor.sizes.end()), tensor.data);
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
                throw Error("internal: a number cannot enter OpenVINO as " + type.get_type_name());
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
    throw Error("internal: OpenVINO returned a number as " + type.get_type_name());
}

// E4 (docs/EXACTNESS.md): OpenVINO's CPU plugin computes int64 in 32 bits (openvino_facts
// Int64BeyondThirtyTwoBits), so an int64 value beyond 32 bits that enters an OpenVINO step
// would be cut. Such a call stops, naming the tensor.
void check_fits_32_bits(const StridedTensor& tensor, const std::string& value, const std::string& where) {
    const auto* data = reinterpret_cast<const int64_t*>(tensor.data);
    const int64_t count = tensor.numel();
    for (int64_t i = 0; i < count; ++i) {
        const int64_t v = data[i];
        if (!lower::openvino_facts::int64_passes_exactly(v)) {
            throw Error(where + ": int64 tensor '" + value + "' holds " + std::to_string(v) +
                        ", beyond 32 bits, and would enter OpenVINO, whose CPU plugin computes int64 in 32 bits; "
                        "keep its readers on the CPU with --cpu-node (pt2ov inspect names them)");
        }
    }
}

// The structure handed to OpenVINO has no result that is an input (compile's take_out_aliases
// stage removed those), but compiling may still fold a result into its input (a no-op Convert
// or Reshape removed: openvino_facts CompiledResultFoldedIntoInput). The compiled runtime model shows that; such a result is then made by the runtime
// from the input, as any other alias.
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

// Memory for intermediate values, planned once: a static result that no program output reads
// gets one buffer for the life of the loaded method, written by OpenVINO on every call.
void Executor::plan_reused_memory(CompiledStep& step, const graph::Graph& graph) {
    std::set<std::string> program_outputs;
    for (const auto& out : graph.outputs) program_outputs.insert(out.name);
    const auto& results = step.lowered->results;
    step.reused.resize(results.size());
    for (size_t r = 0; r < results.size(); ++r) {
        if (!step.static_result[r] || program_outputs.count(results[r]) || is_symbolic(graph, results[r]) ||
            !step.result_is_input[r].empty()) {
            continue;
        }
        const auto& output = step.compiled.output(r);
        const auto& shape = output.get_shape();
        step.reused[r] = StridedTensor::allocate_for_overwrite(lower::dtype_from_element(output.get_element_type()),
                                                 std::vector<int64_t>(shape.begin(), shape.end()));
        reused_owners_.insert(step.reused[r].owner.get());
    }
}

Executor::Executor(const PreparedMethod& prepared, const PlannedMethod& planned, const LoadOptions& options)
    : prepared_(prepared), planned_(planned) {
    auto archive_owner = std::const_pointer_cast<void>(std::static_pointer_cast<const void>(prepared.archive));
    auto stored_view = [&](const archive::StoredTensor& stored) {
        StridedTensor view;
        view.dtype = stored.meta.dtype;
        view.sizes = stored.meta.static_sizes();
        view.strides = stored.meta.static_strides();
        view.data = const_cast<std::byte*>(stored.data());
        view.owner = archive_owner;
        return view;
    };
    for (const auto& [name, stored] : prepared.constants) constants_[name] = RuntimeValue::of(stored_view(*stored));
    // A mutated buffer's first call reads the archive's bytes in place; later calls read what
    // the previous call left.
    for (const auto& [name, target] : prepared.mutated_buffers) buffer_state_[name] = stored_view(prepared.stored.at(target));
    // Constants OpenVINO hands back are read in place by later steps, never handed out as is.
    for (const auto& [index, lowered] : planned.openvino_steps) {
        for (const auto& alias : lowered.aliases) {
            if (alias.constant) reused_owners_.insert(alias.constant.get());
        }
    }

    for (size_t i = 0; i < prepared.graph.output_specs.size(); ++i) {
        const auto& spec = prepared.graph.output_specs[i];
        if (spec.kind != graph::OutputSpec::Kind::BufferMutation) continue;
        for (const auto& [name, target] : prepared.mutated_buffers) {
            if (target == spec.target) buffer_of_mutation_value_[prepared.graph.outputs[i].name] = name;
        }
    }

    const auto start = Clock::now();
    ov::AnyMap config{ov::hint::inference_precision(precision_hint(options.precision))};
    if (!options.cache_dir.empty()) config.emplace(ov::cache_dir(options.cache_dir));
    if (options.num_threads < 0) throw InputError("the number of threads must be 0 (OpenVINO's default) or more");
    if (options.num_threads > 0) config.emplace(ov::inference_num_threads(options.num_threads));
    for (const auto& [index, lowered] : planned.openvino_steps) {
        if (!lowered.model) continue;
        CompiledStep step;
        step.lowered = &lowered;
        step.compiled = with_context(prepared.where + ": OpenVINO could not compile step " + std::to_string(index + 1) +
                                         " for device '" + options.device + "'",
                                     [&] { return shared_core().compile_model(lowered.model, options.device, config); });
        step.request = step.compiled.create_infer_request();
        for (const auto& output : step.compiled.outputs()) step.static_result.push_back(output.get_partial_shape().is_static());
        step.result_is_input = find_results_compiled_into_inputs(step.compiled, lowered.parameters);
        for (const auto& input : step.compiled.inputs()) step.parameter_types.push_back(input.get_element_type());
        for (const auto& output : step.compiled.outputs()) {
            step.result_dtypes.push_back(lower::dtype_from_element(output.get_element_type()));
            std::vector<int64_t> sizes;
            if (output.get_partial_shape().is_static()) {
                for (auto d : output.get_shape()) sizes.push_back(static_cast<int64_t>(d));
            }
            step.result_sizes.push_back(sizes);
        }
        step.bound_input_data.assign(step.parameter_types.size(), nullptr);
        step.bound_input_sizes.assign(step.parameter_types.size(), {});
        step.bound_output_data.assign(step.result_dtypes.size(), nullptr);
        plan_reused_memory(step, prepared.graph);
        steps_.emplace(index, std::move(step));
    }
    compile_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

const RuntimeValue& Executor::lookup(const Values& values, const std::string& name) const {
    if (auto it = values.find(name); it != values.end()) return it->second;
    if (auto it = constants_.find(name); it != constants_.end()) return it->second;
    throw Error("internal: value '" + name + "' is read before it is made");
}

void Executor::run_cpu_step(const partition::Step& step, Values& values) {
    const auto& graph = prepared_.graph;
    for (int index : step.nodes) {
        const auto& node = graph.nodes[index];
        const auto* kernel = kernels::find_kernel(node.target);
        if (!kernel) throw Error("internal: no kernel for " + node.target);
        kernels::KernelCall call(node, graph, [&](const std::string& name) -> const RuntimeValue& { return lookup(values, name); });
        // Kernels name the node in their own errors (KernelCall::fail); others get it here.
        auto results = with_context(prepared_.where, [&] {
            try {
                return (*kernel)(call);
            } catch (const Error& e) {
                const std::string node_context = "node " + node.name + " (" + node.target + ")";
                if (std::string_view(e.what()).starts_with(node_context)) throw;
                throw UnsupportedError(node_context + ": " + e.what());
            }
        });
        size_t next = 0;
        auto take = [&](const graph::Argument& out) {
            if (next >= results.size()) throw Error("internal: kernel for " + node.target + " returned too few outputs");
            auto& result = results[next++];
            if (out.kind != graph::Argument::Kind::None) values[out.name] = std::move(result);
        };
        for (const auto& out : node.outputs) {
            if (out.kind == graph::Argument::Kind::List) {
                for (const auto& item : out.items) take(item);
            } else {
                take(out);
            }
        }
    }
}

void Executor::run_openvino_step(size_t step_index, const OpenVINOStep& lowered, Values& values,
                                 const std::map<std::string, Tensor*>& caller_outputs) {
    auto it = steps_.find(step_index);
    if (it != steps_.end()) {
        auto& step = it->second;
        auto& request = step.request;
        for (size_t p = 0; p < lowered.parameters.size(); ++p) {
            const std::string& name = lowered.parameters[p];
            const auto& value = lookup(values, name);
            const auto& type = step.parameter_types[p];
            if (value.is_scalar()) {
                request.set_input_tensor(p, scalar_tensor(value.scalar(), type));
                step.bound_input_data[p] = nullptr;
                continue;
            }
            // E3: OpenVINO reads every tensor as contiguous; anything else is copied into that order.
            StridedTensor tensor = value.tensor().is_contiguous() ? value.tensor() : contiguous_copy(value.tensor());
            if (tensor.dtype == DType::Int64) check_fits_32_bits(tensor, name, prepared_.where);
            if (!tensor.is_contiguous() || tensor.dtype != lower::dtype_from_element(type)) {
                throw Error("internal: " + name + " enters OpenVINO as " + type.get_type_name());
            }
            if (tensor.data != value.tensor().data) values[name] = RuntimeValue::of(tensor);  // keeps the copy alive
            // The same memory as last call (a caller reusing its buffers, reused intermediates):
            // OpenVINO still holds it, no need to bind again.
            if (tensor.data == step.bound_input_data[p] && tensor.sizes == step.bound_input_sizes[p]) continue;
            request.set_input_tensor(p, wrap(tensor));
            step.bound_input_data[p] = tensor.data;
            step.bound_input_sizes[p] = tensor.sizes;
        }
        std::vector<StridedTensor> bound(lowered.results.size());
        std::vector<bool> is_bound(lowered.results.size(), false);
        for (size_t r = 0; r < lowered.results.size(); ++r) {
            if (!step.static_result[r] || is_symbolic(prepared_.graph, lowered.results[r]) ||
                !step.result_is_input[r].empty()) {
                continue;
            }
            const auto& sizes = step.result_sizes[r];
            const DType dtype = step.result_dtypes[r];
            auto caller = caller_outputs.find(lowered.results[r]);
            if (caller != caller_outputs.end() && caller->second->shape() == sizes && caller->second->dtype() == dtype) {
                bound[r] = view_of(*caller->second);  // written straight into the caller's memory
            } else if (step.reused[r].data) {
                bound[r] = step.reused[r];
            } else if (auto buffer = buffer_of_mutation_value_.find(lowered.results[r]); buffer != buffer_of_mutation_value_.end()) {
                bound[r] = next_state_buffer(buffer->second, dtype, sizes);
            } else {
                bound[r] = StridedTensor::allocate_for_overwrite(dtype, sizes);
            }
            if (bound[r].data != step.bound_output_data[r]) {
                request.set_output_tensor(r, wrap(bound[r]));
                step.bound_output_data[r] = bound[r].data;
            }
            is_bound[r] = true;
        }
        const auto start = Clock::now();
        with_lazy_context([&] { return prepared_.where + ": OpenVINO failed in step " + std::to_string(step_index + 1); },
                          [&] { request.infer(); });
        last_openvino_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
        for (size_t r = 0; r < lowered.results.size(); ++r) {
            const std::string& name = lowered.results[r];
            if (!step.result_is_input[r].empty()) {
                values[name] = lookup(values, step.result_is_input[r]);
            } else if (is_symbolic(prepared_.graph, name)) {
                values[name] = RuntimeValue::of(scalar_from(request.get_output_tensor(r)));
            } else if (is_bound[r]) {
                values[name] = RuntimeValue::of(bound[r]);
            } else {
                // Dynamic shape: the request's memory is reused by the next call, so copy out.
                const ov::Tensor result = request.get_output_tensor(r);
                const auto& shape = result.get_shape();
                StridedTensor copy = StridedTensor::allocate_for_overwrite(lower::dtype_from_element(result.get_element_type()),
                                                                           std::vector<int64_t>(shape.begin(), shape.end()));
                if (copy.numel()) std::memcpy(copy.data, result.data(), result.get_byte_size());
                values[name] = RuntimeValue::of(copy);
            }
        }
    }
    for (const auto& alias : lowered.aliases) {
        switch (alias.kind) {
        case Alias::Kind::Input:
        case Alias::Kind::SameAs: values[alias.value] = lookup(values, alias.source); break;
        case Alias::Kind::Constant: {
            StridedTensor view;
            view.dtype = lower::dtype_from_element(alias.constant->get_element_type());
            const auto& shape = alias.constant->get_shape();
            view.sizes.assign(shape.begin(), shape.end());
            view.strides = kernels::contiguous_strides(view.sizes);
            view.data = static_cast<std::byte*>(const_cast<void*>(alias.constant->get_data_ptr()));
            view.owner = alias.constant;
            values[alias.value] = RuntimeValue::of(view);
            break;
        }
        }
    }
}

kernels::StridedTensor Executor::next_state_buffer(const std::string& buffer, DType dtype, const std::vector<int64_t>& sizes) {
    auto [it, created] = state_buffers_.try_emplace(buffer);
    auto& pair = it->second;
    if (created || pair[0].sizes != sizes || pair[0].dtype != dtype) {
        for (auto& half : pair) {
            reused_owners_.erase(half.owner.get());
            half = StridedTensor::allocate_for_overwrite(dtype, sizes);
            reused_owners_.insert(half.owner.get());
        }
    }
    // The half the current state is not in.
    return pair[0].data == buffer_state_.at(buffer).data ? pair[1] : pair[0];
}

// A program output as the caller receives it: its own contiguous memory, never shared with an
// input, a constant, a buffer's state or another output (SPEC E1, E2); a copy where needed.
Tensor Executor::hand_out(const RuntimeValue& value, std::set<const void*>& taken) const {
    if (value.is_scalar()) {
        const Scalar& scalar = value.scalar();
        if (std::holds_alternative<double>(scalar)) {
            Tensor t = Tensor::allocate(DType::Float64, {});
            *t.data_as<double>() = std::get<double>(scalar);
            return t;
        }
        if (std::holds_alternative<bool>(scalar)) {
            Tensor t = Tensor::allocate(DType::Bool, {});
            *t.data_as<bool>() = std::get<bool>(scalar);
            return t;
        }
        Tensor t = Tensor::allocate(DType::Int64, {});
        *t.data_as<int64_t>() = std::get<int64_t>(scalar);
        return t;
    }
    const StridedTensor& tensor = value.tensor();
    const void* owner = tensor.owner.get();
    const bool engine_owned = owner && owner != prepared_.archive.get() && !taken.count(owner);
    bool foreign = !engine_owned || reused_owners_.count(owner) > 0;
    for (const auto& [name, state] : buffer_state_) foreign |= state.owner.get() == owner;
    StridedTensor result = !foreign && tensor.is_contiguous() ? tensor : contiguous_copy(tensor);
    taken.insert(result.owner.get());
    return Tensor::adopt(result.dtype, result.sizes, result.data, result.owner);
}

void Executor::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    check_inputs(prepared_, inputs);
    const auto& graph = prepared_.graph;
    const size_t mutation_count = prepared_.mutated_buffers.empty() ? 0 : [&] {
        size_t n = 0;
        for (const auto& spec : graph.output_specs) n += spec.kind == graph::OutputSpec::Kind::BufferMutation;
        return n;
    }();
    const size_t user_count = graph.outputs.size() - mutation_count;
    if (!outputs.empty() && outputs.size() != user_count) {
        throw InputError(prepared_.where + ": " + std::to_string(outputs.size()) + " output tensors given, the program has " +
                         std::to_string(user_count) + " outputs");
    }

    Values values;
    for (size_t i = 0; i < inputs.size(); ++i) values[prepared_.user_inputs[i]] = RuntimeValue::of(view_of(inputs[i]));
    for (const auto& [name, state] : buffer_state_) values[name] = RuntimeValue::of(state);
    std::map<std::string, Tensor*> caller_outputs;
    for (size_t k = 0; k < outputs.size(); ++k) {
        const auto& out = graph.outputs[mutation_count + k];
        if (out.kind == graph::Argument::Kind::Tensor && !outputs[k].empty_handle()) caller_outputs.emplace(out.name, &outputs[k]);
    }

    last_openvino_ns_ = 0;
    const auto& steps = planned_.plan.steps;
    for (size_t s = 0; s < steps.size(); ++s) {
        if (steps[s].where == partition::Where::Cpu) {
            run_cpu_step(steps[s], values);
        } else {
            run_openvino_step(s, planned_.openvino_steps.at(s), values, caller_outputs);
        }
    }

    std::set<const void*> taken;
    std::map<std::string, StridedTensor> next_state;
    std::vector<Tensor> results(user_count);
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
        const auto& out = graph.outputs[i];
        const auto& spec = graph.output_specs[i];
        RuntimeValue value;
        if (out.kind == graph::Argument::Kind::Tensor || out.kind == graph::Argument::Kind::SymInt) {
            value = lookup(values, out.name);
        } else if (out.kind == graph::Argument::Kind::Int) {
            value = RuntimeValue::of(Scalar{out.int_value});
        } else if (out.kind == graph::Argument::Kind::Float) {
            value = RuntimeValue::of(Scalar{out.float_value});
        } else if (out.kind == graph::Argument::Kind::Bool) {
            value = RuntimeValue::of(Scalar{out.bool_value});
        } else {
            throw UnsupportedError(prepared_.where + ": output " + std::to_string(i) + " is None; return tensors only");
        }
        if (spec.kind == graph::OutputSpec::Kind::BufferMutation) {
            const std::string& buffer = buffer_of_mutation_value_.at(out.name);
            auto halves = state_buffers_.find(buffer);
            const bool in_own_half = halves != state_buffers_.end() && value.is_tensor() &&
                                     (value.tensor().data == halves->second[0].data ||
                                      value.tensor().data == halves->second[1].data);
            next_state[buffer] = in_own_half ? value.tensor() : view_of(hand_out(value, taken));
            continue;
        }
        const size_t k = i - mutation_count;
        if (k < outputs.size() && !outputs[k].empty_handle()) {
            const StridedTensor destination = view_of(outputs[k]);
            if (!value.is_tensor() || value.tensor().data != destination.data) {
                Tensor made = hand_out(value, taken);
                if (made.shape() != outputs[k].shape() || made.dtype() != outputs[k].dtype()) {
                    throw InputError(prepared_.where + ": output " + std::to_string(k) + " is given with the wrong shape or dtype");
                }
                std::memcpy(outputs[k].data(), made.data(), made.byte_size());
            }
            results[k] = outputs[k];
            continue;
        }
        results[k] = hand_out(value, taken);
    }
    for (auto& [name, state] : next_state) buffer_state_[name] = state;
    outputs = std::move(results);
}

}  // namespace pt2ov::runtime
