// The executor's calls: the pool of call contexts (infer requests and memory a call owns), the
// TBB arena a context's steps run in, the run of one call step by step, and the hand-out of
// outputs in memory of their own (E1, E2).
#include "runtime/executor.h"

#include <chrono>
#include <cstring>
#include <set>
#include <string>

#include "common/error.h"
#include "runtime/executor_internal.h"
#include "runtime/inputs.h"

#ifdef PT2OV_WITH_TBB
#include <oneapi/tbb/task_arena.h>
#endif

namespace pt2ov::runtime {

using kernels::RuntimeValue;
using kernels::Scalar;
using kernels::StridedTensor;

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
    const int64_t appending = appending_positions_of(inputs);
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

    // The caller's output tensors are the caller's memory: never handed out as a buffer's next
    // state, which the caller could then write into (it reuses them call after call).
    std::set<const void*> taken;
    for (const auto& given : outputs) {
        if (!given.empty_handle() && given.owner()) taken.insert(given.owner().get());
    }
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
        if (output.mutated_input >= 0) {
            // PyTorch's semantics: the caller's input holds the value the program wrote into it.
            const StridedTensor destination = view_of(inputs[static_cast<size_t>(output.mutated_input)]);
            if (value.tensor().data != destination.data) kernels::copy_into(value.tensor(), destination);
            continue;
        }
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
    appended_ += appending;
    if (captured) *captured = std::move(values);
}

}  // namespace pt2ov::runtime
