#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>

#include "common/error.h"
#include "kernels/registry.h"
#include "lower/element_type.h"
#include "lower/openvino_facts.h"
#include "openvino/core/model.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/relu.hpp"
#include "openvino/runtime/core.hpp"
#include "openvino/runtime/properties.hpp"
#include "runtime/inputs.h"

#ifdef PT2OV_WITH_TBB
#include <oneapi/tbb/task_arena.h>
#endif

namespace pt2ov::runtime {

using kernels::RuntimeValue;
using kernels::Scalar;
using kernels::StridedTensor;
using Clock = std::chrono::steady_clock;

#ifdef PT2OV_WITH_TBB
// A call context's arena is made anew after this many calls. oneTBB mails each piece of a
// parallel loop meant for another thread's slot as a task proxy; when the calling thread runs
// that piece itself (the worker thread was away, as on a busy machine), the proxy stays in the
// slot's mailbox until a worker next visits the slot, or until the arena is freed, and the
// calling thread's task pool keeps its memory meanwhile. A worker kept away for thousands of
// calls would leave thousands of proxies; a new arena frees them every kCallsPerArena calls.
constexpr int64_t kCallsPerArena = 256;

struct Executor::CallArena {
    explicit CallArena(int threads) : threads(threads), arena(std::make_unique<oneapi::tbb::task_arena>(threads)) {}
    int threads;
    int64_t calls = 0;  // calls run in `arena`
    std::unique_ptr<oneapi::tbb::task_arena> arena;
};
#else
struct Executor::CallArena {};
#endif

namespace {

ov::Core& shared_core() {
    static ov::Core core;
    return core;
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

int slot_of(const graph::Graph& graph, const std::string& name) {
    const auto* value = graph.find_value(name);
    if (!value) throw InternalError("no value '" + name + "' in the graph");
    return value->slot;
}

}  // namespace

Executor::Executor(const PreparedMethod& prepared, const PlannedMethod& planned, const compile::Settings& settings,
                   const std::function<void(size_t)>& before_compile)
    : prepared_(prepared) {
    const auto& graph = prepared.graph;
    if (graph.value_count == 0 && !graph.values.empty()) throw InternalError("the graph's values are not numbered");
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
    constants_.resize(graph.value_count);
    for (const auto& [name, stored] : prepared.constants) constants_[slot_of(graph, name)] = RuntimeValue::of(stored_view(*stored));
    for (const auto& name : prepared.user_inputs) user_input_slots_.push_back(slot_of(graph, name));

    // A mutated buffer's first call reads the archive's bytes in place; later calls read what
    // the previous call left.
    std::map<std::string, int> buffer_of_target;
    for (const auto& [name, target] : prepared.mutated_buffers) {
        MutatedBuffer buffer;
        buffer.name = target;
        buffer.input_slot = slot_of(graph, name);
        buffer.initial = stored_view(prepared.stored.at(target));
        buffer.state = buffer.initial;
        buffer_of_target[target] = static_cast<int>(buffers_.size());
        buffers_.push_back(std::move(buffer));
    }
    // A buffer the rewrite split into one buffer per index of dim 0 (graph/split_buffers.cpp):
    // the state API takes it whole, by its own name.
    for (const auto& split : graph.buffer_splits) {
        Split whole;
        whole.name = split.target;
        whole.sizes = prepared.stored.at(split.target).meta.static_sizes();
        for (const auto& part : split.parts) {
            const auto it = buffer_of_target.find(part);
            if (it == buffer_of_target.end()) throw InternalError("part '" + part + "' of a split buffer is not mutated");
            buffers_[static_cast<size_t>(it->second)].split = static_cast<int>(splits_.size());
            whole.parts.push_back(it->second);
        }
        splits_.push_back(std::move(whole));
    }
    std::vector<int> buffer_of_slot(graph.value_count, -1);  // a mutation's new value → its buffer
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
        const auto& out = graph.outputs[i];
        const auto& spec = graph.output_specs[i];
        Output output;
        using Kind = graph::Argument::Kind;
        if (out.kind == Kind::Tensor || out.kind == Kind::SymInt) {
            output.slot = out.slot;
        } else if (out.kind == Kind::Int) {
            output.constant = RuntimeValue::of(Scalar{out.int_value});
        } else if (out.kind == Kind::Float) {
            output.constant = RuntimeValue::of(Scalar{out.float_value});
        } else if (out.kind == Kind::Bool) {
            output.constant = RuntimeValue::of(Scalar{out.bool_value});
        } else {
            output.is_none = true;
        }
        if (spec.kind == graph::OutputSpec::Kind::BufferMutation) {
            auto it = buffer_of_target.find(spec.target);
            if (it == buffer_of_target.end() || output.slot < 0) {
                throw InternalError("mutation of buffer '" + spec.target + "' has no buffer input");
            }
            output.mutated_buffer = it->second;
            buffer_of_slot[output.slot] = it->second;
        } else {
            ++user_output_count_;
        }
        outputs_.push_back(std::move(output));
    }

    const auto start = Clock::now();
    const LoadOptions& options = settings.given;
    ov::AnyMap config{ov::hint::inference_precision(precision_hint(settings.precision))};
    if (!options.cache_dir.empty()) config.emplace(ov::cache_dir(options.cache_dir));
    // openvino_facts DynamicQuantizationOfActivations: the CPU plugin would quantize the
    // activations of a matmul with compressed (integer) weights to int8 on the fly, under the
    // f32 hint too; off, the product is computed in the hint's precision.
    if (settings.cpu_device) config.emplace(lower::openvino_facts::kNoDynamicQuantization, uint64_t{0});
    if (options.num_threads > 0) config.emplace(ov::inference_num_threads(options.num_threads));
    const bool latency = settings.performance == compile::PerformanceHint::Latency;
    config.emplace(ov::hint::performance_mode(latency ? ov::hint::PerformanceMode::LATENCY
                                                      : ov::hint::PerformanceMode::THROUGHPUT));
    // openvino_facts ArenaPerCompiledModel: each compiled model would infer in an arena of its
    // own, and a call that goes through several of them, call after call, grows RSS. Under the
    // latency hint (one stream a model) every step infers in the calling thread's arena instead,
    // which run() makes one per call context. The throughput hint keeps OpenVINO's streams.
#ifdef PT2OV_WITH_TBB
    const bool in_callers_arena = latency && settings.cpu_device;
    if (in_callers_arena) config.emplace(lower::openvino_facts::kInferInCallersArena, true);
#else
    const bool in_callers_arena = false;
#endif
    guard_ = std::make_unique<OutputGuard>(prepared, planned);
    const auto& plan_steps = planned.plan.steps;
    steps_.resize(plan_steps.size());
    for (size_t s = 0; s < plan_steps.size(); ++s) {
        steps_[s].number = s + 1;
        if (plan_steps[s].where == partition::Where::Cpu) {
            build_cpu_step(plan_steps[s], steps_[s]);
        } else {
            const OpenVINOStep& lowered = planned.openvino_steps.at(s);
            if (before_compile) before_compile(s);
            build_openvino_step(s, lowered, plan_steps[s].nodes, options, config, steps_[s]);
            for (const auto& target : lowered.states) buffers_.at(buffer_of_target.at(target)).openvino_step = static_cast<int>(s);
            if (auto* compiled = steps_[s].compiled.get()) {
                for (auto& result : compiled->results) result.mutated_buffer = buffer_of_slot[result.slot];
                // As wide as the plugin would have made the step's own arena.
                if (in_callers_arena) {
                    const int threads = compiled->compiled.get_property(ov::inference_num_threads);
                    arena_threads_ = std::max(arena_threads_, std::max(threads, 1));
                }
            }
        }
    }
    // The first call context is made at load: a failure to make infer requests shows there, and
    // a program called from one thread never makes another.
    if (buffers_.empty()) {
        free_contexts_.push_back(make_context());
    } else {
        state_context_ = make_context();
        // A variable without an initial value starts as zeros: it starts as the archive's.
        for (const auto& buffer : buffers_) {
            if (buffer.openvino_step >= 0) set_openvino_state(buffer, buffer.initial);
        }
    }
    contexts_made_ = 1;
    compile_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void Executor::build_cpu_step(const partition::Step& step, Step& built) {
    const auto& graph = prepared_.graph;
    for (int index : step.nodes) {
        const auto& node = graph.nodes[index];
        CpuNode cpu{&node, kernels::find_kernel(node.op), {}};
        if (!cpu.kernel) throw InternalError("no kernel for " + node.target);
        for (const auto& out : node.outputs) {
            if (out.kind == graph::Argument::Kind::List) {
                for (const auto& item : out.items) cpu.output_slots.push_back(item.kind == graph::Argument::Kind::None ? -1 : item.slot);
            } else {
                cpu.output_slots.push_back(out.kind == graph::Argument::Kind::None ? -1 : out.slot);
            }
        }
        built.cpu_nodes.push_back(std::move(cpu));
    }
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
    try {
        step->compiled = shared_core().compile_model(lowered.model, options.device, config);
    } catch (const std::exception& e) {
        const std::string message = prepared_.where + ": OpenVINO could not compile step " + std::to_string(index + 1) +
                                    " for device '" + options.device + "': " + e.what();
        if (!device_compiles_anything(options.device)) throw UnsupportedError(message);
        throw StepCompileFailure(message, index, e.what());
    }
    for (const auto& name : lowered.parameters) {
        step->parameter_slots.push_back(slot_of(graph, name));
        step->parameter_names.push_back(name);
    }
    for (const auto& input : step->compiled.inputs()) step->parameter_types.push_back(input.get_element_type());
    const auto folded = find_results_compiled_into_inputs(step->compiled, lowered.parameters);
    std::set<std::string> program_outputs;
    for (const auto& out : graph.outputs) program_outputs.insert(out.name);
    const auto compiled_outputs = step->compiled.outputs();
    for (size_t r = 0; r < lowered.results.size(); ++r) {
        const std::string& name = lowered.results[r];
        CompiledStep::Result result;
        result.slot = slot_of(graph, name);
        result.symbolic = is_symbolic(graph, name);
        result.folded_into = folded[r].empty() ? -1 : slot_of(graph, folded[r]);
        const auto& output = compiled_outputs.at(r);
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
            if (outputs_[i].mutated_buffer >= 0) continue;
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

// A compiled model makes infer requests from any thread (OpenVINO documents CompiledModel as
// thread-safe); each request and the memory bound to it then belongs to this context only.
std::unique_ptr<Executor::CallContext> Executor::make_context() const {
    auto context = std::make_unique<CallContext>();
#ifdef PT2OV_WITH_TBB
    if (arena_threads_ > 0) context->arena = std::make_shared<CallArena>(arena_threads_);
#endif
    context->steps.resize(steps_.size());
    for (size_t s = 0; s < steps_.size(); ++s) {
        const CompiledStep* step = steps_[s].compiled.get();
        if (!step) continue;
        StepContext& made = context->steps[s];
        made.request = with_context(prepared_.where + ": OpenVINO could not make an infer request for step " +
                                        std::to_string(steps_[s].number),
                                    [&] { return step->compiled.create_infer_request(); });
        made.bound_input_data.assign(step->parameter_slots.size(), nullptr);
        made.bound_input_sizes.assign(step->parameter_slots.size(), {});
        made.bound_output_data.assign(step->results.size(), nullptr);
        made.reused.resize(step->results.size());
        for (size_t r = 0; r < step->results.size(); ++r) {
            const auto& result = step->results[r];
            if (!result.reused) continue;
            made.reused[r] = StridedTensor::allocate_for_overwrite(result.dtype, result.sizes);
            context->reused_owners.insert(made.reused[r].owner.get());
        }
    }
    return context;
}

std::unique_ptr<Executor::CallContext> Executor::take_context() {
    {
        std::lock_guard lock(pool_mutex_);
        if (!free_contexts_.empty()) {
            auto context = std::move(free_contexts_.back());
            free_contexts_.pop_back();
            return context;
        }
        ++contexts_made_;
    }
    // Made outside the lock: calls that finish meanwhile give their contexts back unhindered.
    return make_context();
}

void Executor::give_back(std::unique_ptr<CallContext> context) {
    std::lock_guard lock(pool_mutex_);
    free_contexts_.push_back(std::move(context));
}

size_t Executor::context_count() const {
    std::lock_guard lock(pool_mutex_);
    return contexts_made_;
}

const RuntimeValue& Executor::lookup(const Values& values, int slot) const {
    if (slot >= 0 && static_cast<size_t>(slot) < values.size()) {
        if (!std::holds_alternative<std::monostate>(values[slot].value)) return values[slot];
        if (!std::holds_alternative<std::monostate>(constants_[slot].value)) return constants_[slot];
    }
    throw InternalError("value slot " + std::to_string(slot) + " is read before it is made");
}

void Executor::run_cpu_step(size_t step_index, Values& values, OutputGuard::Symbols* symbols) const {
    const auto& graph = prepared_.graph;
    const Step& step = steps_[step_index];
    for (size_t position = 0; position < step.cpu_nodes.size(); ++position) {
        const auto& cpu = step.cpu_nodes[position];
        const auto& node = *cpu.node;
        const auto resolve = [&](const graph::Argument& arg) -> const RuntimeValue& { return lookup(values, arg.slot); };
        const kernels::KernelCall call(node, graph, resolve);
        // Kernels name the node in their own errors (KernelCall::fail); others get it here.
        auto results = with_context(prepared_.where, [&] {
            try {
                return cpu.kernel(call);
            } catch (const InternalError&) {
                throw;  // a bug of ours stays one, whatever node it met
            } catch (const Error& e) {
                if (!e.node().empty()) throw;  // named by the kernel (KernelCall::fail)
                throw UnsupportedError("node " + node.name + " (" + node.target + "): " + e.what(), node.source_name());
            }
        });
        if (results.size() < cpu.output_slots.size()) {
            throw InternalError("kernel for " + node.target + " returned too few outputs");
        }
        for (size_t k = 0; k < cpu.output_slots.size(); ++k) {
            if (cpu.output_slots[k] >= 0) values[cpu.output_slots[k]] = std::move(results[k]);
        }
        if (symbols) guard_->check_node(step_index, position, values, *symbols);
    }
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
            context.request.set_output_tensor(r, wrap(bound[r]));
            context.bound_output_data[r] = bound[r].data;
        }
    }
    return bound;
}

void Executor::infer(StepContext& context, size_t number, int64_t& openvino_ns) const {
    const auto start = Clock::now();
    with_lazy_context([&] { return prepared_.where + ": OpenVINO failed in step " + std::to_string(number); },
                      [&] { context.request.infer(); });
    openvino_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

void Executor::collect(const CompiledStep& step, StepContext& context, Values& values,
                       std::vector<StridedTensor>& bound) const {
    for (size_t r = 0; r < step.results.size(); ++r) {
        const auto& result = step.results[r];
        if (result.folded_into >= 0) {
            values[result.slot] = lookup(values, result.folded_into);
        } else if (result.symbolic) {
            values[result.slot] = RuntimeValue::of(scalar_from(context.request.get_output_tensor(r)));
        } else if (result.is_static) {
            values[result.slot] = RuntimeValue::of(std::move(bound[r]));
        } else {
            // Dynamic shape: the request's memory is reused by the next call, so copy out.
            const ov::Tensor tensor = context.request.get_output_tensor(r);
            const auto& shape = tensor.get_shape();
            StridedTensor copy = StridedTensor::allocate_for_overwrite(lower::dtype_from_element(tensor.get_element_type()),
                                                                       std::vector<int64_t>(shape.begin(), shape.end()));
            if (copy.numel()) std::memcpy(copy.data, tensor.data(), tensor.get_byte_size());
            values[result.slot] = RuntimeValue::of(copy);
        }
    }
}

// The values OpenVINO would have aliased: the same value as their source (a copy is made only
// where they leave the program, in hand_out), or a view of the constant.
void Executor::make_values(const Step& step, Values& values) const {
    for (const auto& made : step.made) {
        values[made.slot] = made.source_slot >= 0 ? lookup(values, made.source_slot) : made.constant;
    }
}

void Executor::run_openvino_step(const Step& step, StepContext& context, CallContext& call, Values& values,
                                 std::vector<Tensor>& caller_outputs) {
    if (const auto* compiled = step.compiled.get()) {
        // OpenVINO's set_tensor checks shapes and types itself; its refusal names the step.
        auto bound = with_lazy_context(
            [&] { return prepared_.where + ": OpenVINO refused the tensors bound to step " + std::to_string(step.number); },
            [&] {
                bind_inputs(*compiled, context, values);
                return bind_outputs(*compiled, context, caller_outputs);
            });
        infer(context, step.number, call.openvino_ns);
        collect(*compiled, context, values, bound);
    }
    make_values(step, values);
}

std::vector<std::string> Executor::state_names() const {
    std::vector<std::string> names;
    for (const auto& buffer : buffers_) {
        const std::string& name = buffer.split < 0 ? buffer.name : splits_[static_cast<size_t>(buffer.split)].name;
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    return names;
}

std::vector<Executor::MutatedBuffer*> Executor::buffers_named(const std::string& name, const char* what) {
    std::vector<MutatedBuffer*> found;
    for (const auto& split : splits_) {
        if (split.name != name) continue;
        for (int part : split.parts) found.push_back(&buffers_[static_cast<size_t>(part)]);
        return found;
    }
    for (auto& buffer : buffers_) {
        if (buffer.split < 0 && buffer.name == name) return {&buffer};
    }
    std::string known;
    for (const auto& state : state_names()) known += (known.empty() ? "'" : ", '") + state + "'";
    throw InputError(prepared_.where + ": cannot " + what + " state '" + name + "': the program mutates " +
                     (known.empty() ? std::string("no buffer") : "only the buffers " + known));
}

ov::VariableState Executor::openvino_variable(const MutatedBuffer& buffer) const {
    for (auto& variable : state_context_->steps.at(buffer.openvino_step).request.query_state()) {
        if (variable.get_name() == buffer.name) return variable;
    }
    throw InternalError(prepared_.where + ": step " + std::to_string(buffer.openvino_step + 1) +
                        " has no OpenVINO state '" + buffer.name + "'");
}

// OpenVINO copies the value into the request's own memory (the archive's bytes are read only).
void Executor::set_openvino_state(const MutatedBuffer& buffer, const StridedTensor& value) const {
    const StridedTensor contiguous = value.is_contiguous() ? value : contiguous_copy(value);
    with_context(prepared_.where + ": OpenVINO could not set state '" + buffer.name + "'",
                 [&] { openvino_variable(buffer).set_state(wrap(contiguous)); });
}

void Executor::read_buffer(const MutatedBuffer& buffer, std::byte* destination) const {
    const size_t bytes = static_cast<size_t>(buffer.initial.numel()) * buffer.initial.element_size();
    if (buffer.openvino_step < 0) {
        if (!bytes) return;
        StridedTensor into = buffer.initial;
        into.strides = kernels::contiguous_strides(into.sizes);
        into.data = destination;
        into.owner = nullptr;
        kernels::copy_into(buffer.state, into);
        return;
    }
    const ov::Tensor held = with_context(prepared_.where + ": OpenVINO could not read state '" + buffer.name + "'",
                                         [&] { return openvino_variable(buffer).get_state(); });
    // OpenVINO's CPU plugin holds a 0-d state as shape [1]: the elements are what must match.
    if (held.get_element_type() != lower::element_type(buffer.initial.dtype) ||
        static_cast<int64_t>(held.get_size()) != buffer.initial.numel()) {
        throw InternalError(prepared_.where + ": OpenVINO holds state '" + buffer.name + "' as " +
                            held.get_element_type().get_type_name() + " " + held.get_shape().to_string());
    }
    if (bytes) std::memcpy(destination, held.data(), bytes);
}

void Executor::write_buffer(MutatedBuffer& buffer, const StridedTensor& value) {
    if (buffer.openvino_step >= 0) {
        set_openvino_state(buffer, value);
    } else {
        buffer.state = contiguous_copy(value);
    }
}

Tensor Executor::read_state(const std::string& name) const {
    std::lock_guard lock(state_mutex_);
    const auto buffers = const_cast<Executor*>(this)->buffers_named(name, "read");
    // A split buffer is its parts stacked along dim 0, each part one row of contiguous bytes.
    std::vector<int64_t> sizes = buffers.front()->initial.sizes;
    if (buffers.front()->split >= 0) sizes = splits_[static_cast<size_t>(buffers.front()->split)].sizes;
    Tensor copy = Tensor::allocate(buffers.front()->initial.dtype, sizes);
    size_t offset = 0;
    for (const MutatedBuffer* buffer : buffers) {
        read_buffer(*buffer, static_cast<std::byte*>(copy.data()) + offset);
        offset += static_cast<size_t>(buffer->initial.numel()) * buffer->initial.element_size();
    }
    return copy;
}

void Executor::write_state(const std::string& name, const Tensor& value) {
    std::lock_guard lock(state_mutex_);
    const auto buffers = buffers_named(name, "write");
    const DType dtype = buffers.front()->initial.dtype;
    std::vector<int64_t> sizes = buffers.front()->initial.sizes;
    if (buffers.front()->split >= 0) sizes = splits_[static_cast<size_t>(buffers.front()->split)].sizes;
    auto shape_text = [](const std::vector<int64_t>& dims) {
        std::string text = "(";
        for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
        return text + (dims.size() == 1 ? ",)" : ")");
    };
    if (value.dtype() != dtype || value.shape() != sizes) {
        throw InputError(prepared_.where + ": state '" + name + "' is " + std::string(dtype_name(dtype)) +
                         " of shape " + shape_text(sizes) + "; the value given is " +
                         std::string(dtype_name(value.dtype())) + " of shape " + shape_text(value.shape()));
    }
    if (value.numel() > 0 && !value.data()) throw InputError(prepared_.where + ": state '" + name + "': the value has no data");
    const StridedTensor whole = view_of(value);
    if (buffers.front()->split < 0) {
        write_buffer(*buffers.front(), whole);
        return;
    }
    for (size_t r = 0; r < buffers.size(); ++r) {
        const std::vector<int64_t> row_sizes(whole.sizes.begin() + 1, whole.sizes.end());
        const std::vector<int64_t> row_strides(whole.strides.begin() + 1, whole.strides.end());
        write_buffer(*buffers[r], whole.view(row_sizes, row_strides, static_cast<int64_t>(r) * whole.strides[0]));
    }
}

void Executor::reset_state() {
    std::lock_guard lock(state_mutex_);
    for (auto& buffer : buffers_) {
        if (buffer.openvino_step >= 0) {
            set_openvino_state(buffer, buffer.initial);
        } else {
            buffer.state = buffer.initial;
        }
    }
}

kernels::StridedTensor Executor::next_state_buffer(MutatedBuffer& buffer, DType dtype, const std::vector<int64_t>& sizes) {
    auto& pair = buffer.halves;
    if (!pair[0].data || pair[0].sizes != sizes || pair[0].dtype != dtype) {
        for (auto& half : pair) {
            reused_owners_.erase(half.owner.get());
            half = StridedTensor::allocate_for_overwrite(dtype, sizes);
            reused_owners_.insert(half.owner.get());
        }
    }
    // The half the current state is not in.
    return pair[0].data == buffer.state.data ? pair[1] : pair[0];
}

// A program output as the caller receives it: its own contiguous memory, never shared with an
// input, a constant, a buffer's state or another output (E1, E2 in docs/EXACTNESS.md); a copy
// where needed.
Tensor Executor::hand_out(const RuntimeValue& value, const CallContext& context, std::set<const void*>& taken) const {
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
    bool foreign = !engine_owned || reused_owners_.count(owner) > 0 || context.reused_owners.count(owner) > 0;
    for (const auto& buffer : buffers_) foreign |= buffer.state.owner.get() == owner;
    StridedTensor result = !foreign && tensor.is_contiguous() ? tensor : contiguous_copy(tensor);
    taken.insert(result.owner.get());
    return Tensor::adopt(result.dtype, result.sizes, result.data, result.owner);
}

void Executor::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    // A stateful method runs one call at a time, on its one context: each reads the state the
    // previous one left, some of it in that context's infer requests.
    if (!buffers_.empty()) {
        std::lock_guard state_lock(state_mutex_);
        run_in_arena(*state_context_, inputs, outputs);
        last_openvino_ns_.store(state_context_->openvino_ns, std::memory_order_relaxed);
        return;
    }
    std::unique_ptr<CallContext> context = take_context();
    struct GiveBack {
        Executor& executor;
        std::unique_ptr<CallContext>& context;
        ~GiveBack() { executor.give_back(std::move(context)); }
    } give_back_at_exit{*this, context};
    run_in_arena(*context, inputs, outputs);
    last_openvino_ns_.store(context->openvino_ns, std::memory_order_relaxed);
}

void Executor::run_in_arena(CallContext& context, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
#ifdef PT2OV_WITH_TBB
    // task_arena::execute runs the call on this thread, in the arena, and rethrows what it throws.
    if (context.arena) {
        CallArena& call_arena = *context.arena;
        if (call_arena.calls == kCallsPerArena) {
            // The old arena is freed once no thread is in it (its mailboxes emptied).
            call_arena.arena = std::make_unique<oneapi::tbb::task_arena>(call_arena.threads);
            call_arena.calls = 0;
        }
        ++call_arena.calls;
        call_arena.arena->execute([&] { run_with(context, inputs, outputs); });
        return;
    }
#endif
    run_with(context, inputs, outputs);
}

Executor::ValueTable Executor::run_capturing(const std::vector<Tensor>& inputs) {
    std::vector<Tensor> outputs;
    Values captured;
    if (!buffers_.empty()) {
        std::lock_guard state_lock(state_mutex_);
        run_with(*state_context_, inputs, outputs, &captured);
        return captured;
    }
    auto context = take_context();
    run_with(*context, inputs, outputs, &captured);
    give_back(std::move(context));
    return captured;
}

void Executor::run_step_alone(size_t step, ValueTable& values) {
    std::vector<Tensor> no_caller_outputs;
    auto run = [&](CallContext& context) {
        if (steps_.at(step).on_openvino) {
            run_openvino_step(steps_[step], context.steps[step], context, values, no_caller_outputs);
        } else {
            run_cpu_step(step, values, nullptr);
        }
    };
    if (!buffers_.empty()) {
        std::lock_guard state_lock(state_mutex_);
        run(*state_context_);
        return;
    }
    auto context = take_context();
    run(*context);
    give_back(std::move(context));
}

void Executor::run_with(CallContext& context, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                        Values* captured) {
    check_inputs(prepared_, inputs);
    if (!outputs.empty() && outputs.size() != user_output_count_) {
        throw InputError(prepared_.where + ": " + std::to_string(outputs.size()) + " output tensors given, the program has " +
                         std::to_string(user_output_count_) + " outputs");
    }

    Values values(constants_.size());
    for (size_t i = 0; i < inputs.size(); ++i) values[user_input_slots_[i]] = RuntimeValue::of(view_of(inputs[i]));
    for (const auto& buffer : buffers_) {
        if (buffer.openvino_step < 0) values[buffer.input_slot] = RuntimeValue::of(buffer.state);
    }

    context.openvino_ns = 0;
    auto symbols = guard_->start_call();
    guard_->bind_inputs(inputs, symbols);
    for (size_t s = 0; s < steps_.size(); ++s) {
        if (steps_[s].on_openvino) {
            run_openvino_step(steps_[s], context.steps[s], context, values, outputs);
        } else {
            run_cpu_step(s, values, &symbols);
        }
        guard_->check_step(s, values, symbols);
    }

    std::set<const void*> taken;
    std::vector<std::optional<StridedTensor>> next_state(buffers_.size());
    std::vector<Tensor> results(user_output_count_);
    size_t k = 0;
    for (size_t i = 0; i < outputs_.size(); ++i) {
        const auto& output = outputs_[i];
        // Its new value stayed in OpenVINO (its Assign), not among the call's values.
        if (output.mutated_buffer >= 0 && buffers_[output.mutated_buffer].openvino_step >= 0) continue;
        if (output.is_none) throw UnsupportedError(prepared_.where + ": output " + std::to_string(i) + " is None; return tensors only");
        const RuntimeValue& value = output.slot >= 0 ? lookup(values, output.slot) : output.constant;
        guard_->check_output(i, value, symbols);
        if (output.mutated_buffer >= 0) {
            const auto& halves = buffers_[output.mutated_buffer].halves;
            const bool in_own_half = value.is_tensor() && halves[0].data &&
                                     (value.tensor().data == halves[0].data || value.tensor().data == halves[1].data);
            next_state[output.mutated_buffer] = in_own_half ? value.tensor() : view_of(hand_out(value, context, taken));
            continue;
        }
        if (k < outputs.size() && !outputs[k].empty_handle()) {
            const StridedTensor destination = view_of(outputs[k]);
            if (value.is_tensor() && value.tensor().data != destination.data) {
                // Written into the caller's memory, which no other output shares: no owner to
                // track, and a strided result is copied in one pass, not made contiguous first.
                const StridedTensor& result = value.tensor();
                if (result.sizes != outputs[k].shape() || result.dtype != outputs[k].dtype()) {
                    throw InputError(prepared_.where + ": output " + std::to_string(k) + " is given with the wrong shape or dtype");
                }
                kernels::copy_into(result, destination);
            } else if (!value.is_tensor()) {
                Tensor made = hand_out(value, context, taken);
                if (made.shape() != outputs[k].shape() || made.dtype() != outputs[k].dtype()) {
                    throw InputError(prepared_.where + ": output " + std::to_string(k) + " is given with the wrong shape or dtype");
                }
                std::memcpy(outputs[k].data(), made.data(), made.byte_size());
            }
            results[k] = outputs[k];
        } else {
            results[k] = hand_out(value, context, taken);
        }
        ++k;
    }
    for (size_t b = 0; b < buffers_.size(); ++b) {
        if (next_state[b]) buffers_[b].state = std::move(*next_state[b]);
    }
    outputs = std::move(results);
    if (captured) *captured = std::move(values);
}

}  // namespace pt2ov::runtime
