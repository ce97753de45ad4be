// The executor's load (runtime/executor.h): the program's constants, buffers and outputs, each
// step built once (a CPU step's nodes bound to their kernels, an OpenVINO step compiled), and
// the CPU steps' run. The OpenVINO steps are executor_openvino.cpp, the call contexts and the
// hand-out of outputs executor_call.cpp, the buffers' state executor_state.cpp.
#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <malloc.h>
#include <map>
#include <string>

#include "common/error.h"
#include "compile/stages.h"
#include "kernels/registry.h"
#include "runtime/executor_internal.h"

namespace pt2ov::runtime {

using kernels::RuntimeValue;
using kernels::Scalar;
using kernels::StridedTensor;

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
        } else if (spec.kind == graph::OutputSpec::Kind::UserInputMutation) {
            const auto& names = prepared.user_inputs;
            const auto at = std::find(names.begin(), names.end(), spec.target);
            if (at == names.end() || output.slot < 0) {
                throw InternalError("mutation of input '" + spec.target + "' has no user input");
            }
            output.mutated_input = static_cast<int>(at - names.begin());
        } else {
            ++user_output_count_;
        }
        outputs_.push_back(std::move(output));
    }

    const auto start = Clock::now();
    const LoadOptions& options = settings.given;
    const auto [config, in_callers_arena] = openvino_config(settings);
    guard_ = std::make_unique<OutputGuard>(prepared, planned);
    const auto& plan_steps = planned.plan.steps;
    steps_.resize(plan_steps.size());
    // The CPU steps first, and what they compute once at load (compile::computed_once_at_load):
    // the OpenVINO steps that read those values get them as Constants.
    for (size_t s = 0; s < plan_steps.size(); ++s) {
        steps_[s].number = s + 1;
        if (plan_steps[s].where == partition::Where::Cpu) build_cpu_step(plan_steps[s], steps_[s]);
    }
    compute_constant_nodes(planned);
    for (size_t s = 0; s < plan_steps.size(); ++s) {
        if (plan_steps[s].where != partition::Where::Cpu) {
            const OpenVINOStep& lowered = planned.openvino_steps.at(s);
            if (before_compile) before_compile(s);
            build_openvino_step(s, lowered, plan_steps[s].nodes, options, config, steps_[s]);
            for (const auto& target : lowered.states) buffers_.at(buffer_of_target.at(target)).openvino_step = static_cast<int>(s);
            for (const auto& [target, capacity] : lowered.appending_states) {
                buffers_.at(buffer_of_target.at(target)).appends = true;
                appending_capacity_ = appending_capacity_ ? std::min(appending_capacity_, capacity) : capacity;
            }
            if (auto* compiled = steps_[s].compiled.get()) {
                for (auto& result : compiled->results) result.mutated_buffer = buffer_of_slot[result.slot];
                // As wide as the plugin would have made the step's own arena. A step on its own
                // thread needs none: while it infers, the calling thread waits (in no arena, when
                // every step does, so no idle worker of the call's arena spins beside it).
                if (in_callers_arena && !compiled->on_own_thread) {
                    const int threads = compiled->compiled.get_property(ov::inference_num_threads);
                    arena_threads_ = std::max(arena_threads_, std::max(threads, 1));
                }
            }
        }
    }
    release_values_only_load_reads();
    // OpenVINO holds its own copies of the weights it compiled; what a call reads of the archive
    // again comes back from the page cache at its first read.
    if (prepared_.archive) prepared_.archive->release_resident_pages();
#ifdef __GLIBC__
    // What load computed and freed (unpacked weights, converted models) goes back to the system:
    // glibc keeps freed blocks of this size in its heap otherwise (800 MB of an int4 Llama's).
    malloc_trim(0);
#endif
    // The first call context is made at load: a failure to make infer requests shows there, and
    // a program called from one thread never makes another.
    if (buffers_.empty()) {
        free_contexts_.push_back(make_context());
    } else {
        state_context_ = make_context();
        // A variable without an initial value starts as zeros: it starts as the archive's.
        for (const auto& buffer : buffers_) {
            // An appending cache starts empty (its ReadValue's initial value).
            if (buffer.openvino_step >= 0 && !buffer.appends) set_openvino_state(buffer, buffer.initial);
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

namespace {

// Calls `visit` with the slot of `arg` and of every item it lists, nested lists included.
template <typename Visit>
void for_each_slot(const graph::Argument& arg, const Visit& visit) {
    visit(arg.slot);
    for (const auto& item : arg.items) for_each_slot(item, visit);
}

}  // namespace

void Executor::compute_constant_nodes(const PlannedMethod& planned) {
    const auto& graph = prepared_.graph;
    const std::set<int> once = compile::computed_once_at_load(prepared_, planned.plan);
    if (once.empty()) return;
    Values values(graph.value_count);
    OutputGuard::Symbols symbols = guard_->start_call();
    // A value made here that only later nodes made here read (an unpacking's intermediates) is
    // released once the last of them ran, so that load never holds every weight's at once.
    // What a call or an OpenVINO step reads stays, as do the inputs of a node left to the calls.
    std::vector<int> load_readers(graph.value_count, 0);
    std::vector<bool> kept(graph.value_count, false), made_here(graph.value_count, false);
    const auto keep = [&](int slot) {
        if (slot >= 0 && static_cast<size_t>(slot) < kept.size()) kept[static_cast<size_t>(slot)] = true;
    };
    for (size_t s = 0; s < steps_.size(); ++s) {
        for (const auto& cpu : steps_[s].cpu_nodes) {
            const bool at_load = once.count(static_cast<int>(cpu.node - graph.nodes.data())) > 0;
            for (const auto& arg : cpu.node->resolved_inputs) {
                for_each_slot(arg, [&](int slot) {
                    if (!at_load) {
                        keep(slot);
                    } else if (slot >= 0) {
                        ++load_readers[static_cast<size_t>(slot)];
                    }
                });
            }
        }
        if (auto it = planned.openvino_steps.find(s); it != planned.openvino_steps.end()) {
            for (const auto& name : it->second.parameters) keep(slot_of(graph, name));
            for (const auto& alias : it->second.aliases) {
                if (!alias.source.empty()) keep(slot_of(graph, alias.source));  // a Constant alias has none
            }
        }
    }
    for (const auto& output : outputs_) keep(output.slot);
    for (size_t s = 0; s < steps_.size(); ++s) {
        for (size_t position = 0; position < steps_[s].cpu_nodes.size(); ++position) {
            auto& cpu = steps_[s].cpu_nodes[position];
            if (!once.count(static_cast<int>(cpu.node - graph.nodes.data()))) continue;
            const auto resolve = [&](const graph::Argument& arg) -> const RuntimeValue& { return lookup(values, arg.slot); };
            std::vector<RuntimeValue> results;
            bool computed = true;
            try {
                results = cpu.kernel(kernels::KernelCall(*cpu.node, graph, resolve));
            } catch (const Error&) {
                computed = false;  // left to every call, which reports it as it always has
            }
            if (!computed || results.size() < cpu.output_slots.size()) {
                for (const auto& arg : cpu.node->resolved_inputs) for_each_slot(arg, keep);
                continue;
            }
            for (size_t k = 0; k < cpu.output_slots.size(); ++k) {
                if (cpu.output_slots[k] >= 0) values[static_cast<size_t>(cpu.output_slots[k])] = results[k];
            }
            // The archive's metadata hold for it as they would at a call (a refusal names the node).
            guard_->check_node(s, position, values, symbols);
            for (size_t k = 0; k < cpu.output_slots.size(); ++k) {
                const int slot = cpu.output_slots[k];
                if (slot < 0) continue;
                constants_[static_cast<size_t>(slot)] = std::move(values[static_cast<size_t>(slot)]);
                values[static_cast<size_t>(slot)] = RuntimeValue{};
                made_here[static_cast<size_t>(slot)] = true;
                // Read in place by every call, never handed out as is: an output gets a copy.
                if (!constants_[static_cast<size_t>(slot)].is_scalar()) {
                    reused_owners_.insert(constants_[static_cast<size_t>(slot)].tensor().owner.get());
                }
            }
            cpu.computed_at_load = true;
            for (const auto& arg : cpu.node->resolved_inputs) {
                for_each_slot(arg, [&](int slot) {
                    if (slot < 0 || --load_readers[static_cast<size_t>(slot)] > 0 || kept[static_cast<size_t>(slot)] ||
                        !made_here[static_cast<size_t>(slot)]) {
                        return;
                    }
                    constants_[static_cast<size_t>(slot)] = RuntimeValue{};
                });
            }
        }
    }
}

// A value computed at load that no call reads (an unpacking's intermediates; a weight an
// OpenVINO step took as a Constant, which keeps the memory for as long as the plugin holds it)
// is released once every step is built.
void Executor::release_values_only_load_reads() {
    std::vector<bool> made_at_load(constants_.size(), false), read_by_calls(constants_.size(), false);
    const auto mark = [&](int slot) {
        if (slot >= 0 && static_cast<size_t>(slot) < read_by_calls.size()) read_by_calls[static_cast<size_t>(slot)] = true;
    };
    for (const auto& step : steps_) {
        for (const auto& cpu : step.cpu_nodes) {
            if (cpu.computed_at_load) {
                for (int slot : cpu.output_slots) {
                    if (slot >= 0) made_at_load[static_cast<size_t>(slot)] = true;
                }
            } else {
                for (const auto& arg : cpu.node->resolved_inputs) for_each_slot(arg, mark);
            }
        }
        if (step.compiled) {
            for (int slot : step.compiled->parameter_slots) mark(slot);
        }
        for (const auto& made : step.made) mark(made.source_slot);
    }
    for (const auto& output : outputs_) mark(output.slot);
    for (size_t slot = 0; slot < constants_.size(); ++slot) {
        // (Its owner stays listed in reused_owners_: another value may view the same memory.)
        if (made_at_load[slot] && !read_by_calls[slot]) constants_[slot] = RuntimeValue{};
    }
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
        if (cpu.computed_at_load) continue;
        const auto& node = *cpu.node;
        const auto resolve = [&](const graph::Argument& arg) -> const RuntimeValue& { return lookup(values, arg.slot); };
        const kernels::KernelCall call(node, graph, resolve);
        // Kernels name the node in their own errors (KernelCall::fail); others get it here.
        auto results = with_context(prepared_.where, [&] {
            try {
                return cpu.kernel(call);
            } catch (const Error& e) {
                if (!e.node().empty()) throw;  // named by the kernel (KernelCall::fail)
                // Kept in its class (a bug of ours stays one, memory running out stays that).
                rethrow_in_context("node " + node.name + " (" + node.target + ")", node.source_name());
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

// The values OpenVINO would have aliased: the same value as their source (a copy is made only
// where they leave the program, in hand_out), or a view of the constant.
void Executor::make_values(const Step& step, Values& values) const {
    for (const auto& made : step.made) {
        values[made.slot] = made.source_slot >= 0 ? lookup(values, made.source_slot) : made.constant;
    }
}

}  // namespace pt2ov::runtime
