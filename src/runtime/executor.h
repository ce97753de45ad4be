// Runs a planned method, call after call: binds inputs without copies, runs the steps in order
// (OpenVINO models and CPU kernels), makes the outputs OpenVINO would alias, and carries the
// state of mutated buffers from call to call.
//
// Everything a call needs is resolved when the executor is built: each CPU node's kernel (a
// pointer), each value's slot (an index into the call's value table), each OpenVINO port's
// value, what every output is made from. A call does no lookup by name.
//
// Thread safety: run() may be called from many threads at once. What a call writes lives in a
// CallContext (an infer request per OpenVINO step, the memory bound to it, the intermediates
// reused from call to call) taken from a pool for the call and given back after, a new one
// made when none is free; the compiled models, the kernels, the plan and the constants are
// shared and only read. A method that mutates buffers serializes its calls and the state API
// on one mutex, since each call reads the state the previous one left, and runs every call
// on its one call context (state_context_), not the pool: a buffer kept as OpenVINO state
// (compile's keep_state_in_openvino) lives in that context's infer request of its step, so one
// request holds it from call to call and nothing is copied between requests.
#pragma once

#include <array>
#include <functional>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "compile/method.h"
#include "compile/settings.h"
#include "kernels/registry.h"
#include "kernels/tensor.h"
#include "openvino/runtime/compiled_model.hpp"
#include "openvino/runtime/infer_request.hpp"
#include "runtime/output_guard.h"

namespace pt2ov::runtime {

using compile::Alias;
using compile::OpenVINOStep;
using compile::PlannedMethod;
using compile::PreparedMethod;

// OpenVINO could not compile one OpenVINO step (a plugin failure on a program it converted),
// or compiled it into a model whose result contradicts the program's metadata. Program::load
// catches it and places that step's nodes (or only `nodes`, when known) on pt2ov's CPU kernels.
class StepCompileFailure : public UnsupportedError {
public:
    StepCompileFailure(const std::string& message, size_t step_index, std::string plugin_message, std::vector<int> nodes = {})
        : UnsupportedError(message), step_index(step_index), plugin_message(std::move(plugin_message)), nodes(std::move(nodes)) {}
    size_t step_index;           // into the plan's steps
    std::string plugin_message;  // OpenVINO's own words, or what contradicts the metadata
    std::vector<int> nodes;      // graph node indexes at fault; empty: every node of the step
};

class Executor {
public:
    // Compiles every OpenVINO step of `planned` for the device in `settings`. `before_compile`,
    // when set, is told each OpenVINO step's index before OpenVINO compiles it (the verifying
    // process records it, so a crash while compiling names its step).
    Executor(const PreparedMethod& prepared, const PlannedMethod& planned, const compile::Settings& settings,
             const std::function<void(size_t)>& before_compile = {});

    // For --verify (runtime/verify.h): a call's whole table of values, by slot (constants are
    // not in it), and one step run alone on such a table, reading its inputs from it and
    // writing its results into it.
    using ValueTable = std::vector<kernels::RuntimeValue>;
    ValueTable run_capturing(const std::vector<Tensor>& inputs);
    void run_step_alone(size_t step, ValueTable& values);
    size_t step_count() const { return steps_.size(); }
    // Whether OpenVINO's own stream thread infers step `index` (CompiledStep::on_own_thread).
    bool infers_on_own_thread(size_t index) const {
        return index < steps_.size() && steps_[index].compiled && steps_[index].compiled->on_own_thread;
    }
    bool step_on_openvino(size_t step) const { return steps_.at(step).on_openvino; }

    // One call. `outputs` may hold caller tensors to write static outputs into (empty: allocate).
    void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);

    // The mutated buffers, by their state-dict names, in the order of the program's signature.
    // Fixed at load: needs no lock.
    std::vector<std::string> state_names() const;
    // A buffer's current state: a contiguous copy owning its memory.
    Tensor read_state(const std::string& name) const;
    // Sets a buffer's state for the next call: `value` is copied; its dtype and shape must be
    // the buffer's (InputError naming the buffer otherwise).
    void write_state(const std::string& name, const Tensor& value);
    // Every buffer back to the archive's values.
    void reset_state();

    double compile_ms() const { return compile_ms_; }
    // Time inside OpenVINO's infer() of the call that completed last, whichever thread ran it.
    int64_t last_openvino_ns() const { return last_openvino_ns_.load(std::memory_order_relaxed); }
    // How many call contexts the pool has made so far: the most calls that ran at once.
    size_t context_count() const;

private:
    // The values of one call, by slot (graph::Value::slot); constants are read in place.
    using Values = std::vector<kernels::RuntimeValue>;

    struct CpuNode {
        const graph::Node* node = nullptr;
        kernels::Kernel kernel = nullptr;
        std::vector<int> output_slots;  // the node's outputs flattened (list items in order); -1 for None
        // It reads constants only (compile::computed_once_at_load): run once at load, its
        // values kept with the constants, skipped by every call.
        bool computed_at_load = false;
    };

    // A value the runtime makes where OpenVINO would alias (compile::Alias, resolved).
    struct MadeValue {
        int slot = -1;
        int source_slot = -1;           // Input / SameAs: the value it repeats
        kernels::RuntimeValue constant;  // Constant: a view of the OpenVINO constant's memory
    };

    // An OpenVINO step as loaded: shared by every call, only read by them.
    struct CompiledStep {
        // Mutable because OpenVINO's create_infer_request is not const; it is thread-safe.
        mutable ov::CompiledModel compiled;
        std::vector<int> parameter_slots;
        std::vector<ov::element::Type> parameter_types;
        std::vector<std::string> parameter_names;  // for error messages only
        struct Result {
            int slot = -1;
            bool symbolic = false;    // a number (symbolic int), read back as a scalar
            bool is_static = false;   // shape known at compile time: memory bound before infer()
            int folded_into = -1;     // the parameter slot OpenVINO compiled it into, or -1
            int output = -1;          // its output in the compiled model (-1 when folded_into)
            int caller_output = -1;   // the user output index it is, or -1
            int mutated_buffer = -1;  // the mutated buffer whose next state it is, or -1
            DType dtype = DType::Float32;
            std::vector<int64_t> sizes;  // for static results
            // A static result no program output reads: each call context keeps memory for it
            // across calls.
            bool reused = false;
        };
        std::vector<Result> results;
        // Inferred by the plugin's own stream thread, in the plugin's arena (start_async, then
        // wait), rather than by the calling thread in the call's arena: a step heavy enough that
        // the hand-over does not count (kOwnThreadWeightBytes).
        bool on_own_thread = false;
        // Every result was folded into an input: nothing is left to infer.
        bool infers_nothing = false;
    };

    // What one call context holds for one OpenVINO step.
    struct StepContext {
        ov::InferRequest request;
        // What each port was bound to last call: binding the same memory again is skipped.
        std::vector<const void*> bound_input_data, bound_output_data;
        std::vector<std::vector<int64_t>> bound_input_sizes;
        // By result: the memory kept across calls for a reused result (empty elsewhere).
        std::vector<kernels::StridedTensor> reused;
    };

    // The TBB arena a call context's calls run in (defined in executor.cpp, where TBB is known).
    struct CallArena;

    // Everything a call writes, owned by one call at a time (taken from the pool).
    struct CallContext {
        std::vector<StepContext> steps;  // by step; empty for a step without a compiled model
        // Where the whole call runs, OpenVINO's inference and the CPU kernels' split loops alike,
        // when the steps are compiled to infer in the caller's arena (arena_threads_ > 0): one
        // arena for every step of every call on this context. Null otherwise.
        std::shared_ptr<CallArena> arena;
        // The reused memory above: never handed out as is.
        std::set<const void*> reused_owners;
        int64_t openvino_ns = 0;
    };

    struct Step {
        bool on_openvino = false;
        std::vector<CpuNode> cpu_nodes;
        std::unique_ptr<CompiledStep> compiled;  // null for a CPU step or one whose outputs are all made
        std::vector<MadeValue> made;
        size_t number = 0;  // 1-based, for messages
    };

    // A mutated buffer: the state a call reads, and two buffers OpenVINO writes the next state
    // into in turn (no allocation per call).
    // A buffer kept as OpenVINO state has neither: its state is the variable of the same
    // name in the state context's infer request of `openvino_step`.
    struct MutatedBuffer {
        std::string name;               // the state-dict name (the buffer's target)
        kernels::StridedTensor initial;  // the archive's bytes, read in place, never written
        int input_slot = -1;
        kernels::StridedTensor state;
        std::array<kernels::StridedTensor, 2> halves;
        int openvino_step = -1;  // the step holding it as OpenVINO state, or -1: pt2ov carries it
        int split = -1;          // the split buffer (splits_) it is one index of dim 0 of, or -1
        // Held as a state that grows by each call's positions (LoadOptions::appending_positions,
        // lower/appending_cache.h): OpenVINO holds dim 2's first appended_ positions only.
        bool appends = false;
    };
    // A buffer run as one MutatedBuffer per index of its dim 0 (graph::BufferSplit): the state
    // API reads and writes it whole, under its own name.
    struct Split {
        std::string name;
        std::vector<int64_t> sizes;  // the whole buffer's
        std::vector<int> parts;      // per index of dim 0: the part in buffers_
    };

    // One program output (graph::Graph::outputs), resolved.
    struct Output {
        int slot = -1;                   // -1 for a number the program returns as a constant
        kernels::RuntimeValue constant;  // that number
        int mutated_buffer = -1;         // a buffer mutation: the buffer it updates
        int mutated_input = -1;          // a user input's mutation: the input it writes back into
        bool is_none = false;
    };

    // Runs the CPU nodes that read constants only, once, and keeps their values as constants.
    void compute_constant_nodes(const PlannedMethod& planned);
    void release_values_only_load_reads();
    std::shared_ptr<ov::Model> with_values_made_at_load(const OpenVINOStep& lowered, std::vector<std::string>& parameters,
                                                        bool compressed_weights) const;
    void build_cpu_step(const partition::Step& step, Step& built);
    void build_openvino_step(size_t index, const OpenVINOStep& lowered, const std::vector<int>& nodes, const LoadOptions& options,
                             const ov::AnyMap& config, Step& built);

    std::unique_ptr<CallContext> make_context() const;
    std::unique_ptr<CallContext> take_context();
    void give_back(std::unique_ptr<CallContext> context);
    void run_with(CallContext& context, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                  Values* captured = nullptr);
    // run_with inside the context's arena, if it has one.
    void run_in_arena(CallContext& context, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);

    // Runs a CPU step's kernels in order; with `symbols`, each node's values are checked by the
    // output guard before the next kernel reads them.
    void run_cpu_step(size_t step, Values& values, OutputGuard::Symbols* symbols) const;
    void check_result_against_metadata(const graph::Value& value, const ov::PartialShape& shape, DType dtype,
                                       size_t step, const std::vector<int>& step_nodes) const;
    void run_openvino_step(const Step& step, StepContext& context, CallContext& call, Values& values,
                           std::vector<Tensor>& caller_outputs);
    // The phases of an OpenVINO step.
    void bind_inputs(const CompiledStep& step, StepContext& context, Values& values) const;
    std::vector<kernels::StridedTensor> bind_outputs(const CompiledStep& step, StepContext& context,
                                                     std::vector<Tensor>& caller_outputs);
    void infer(const CompiledStep& step, StepContext& context, size_t number, int64_t& openvino_ns) const;
    void collect(const CompiledStep& step, StepContext& context, Values& values, std::vector<kernels::StridedTensor>& bound,
                 std::vector<Tensor>& caller_outputs) const;
    void make_values(const Step& step, Values& values) const;

    // The buffers behind a state name: one, or a split buffer's parts in index order.
    std::vector<MutatedBuffer*> buffers_named(const std::string& name, const char* what);
    // A buffer's state copied into `destination` (contiguous), or set from `value`.
    void read_buffer(const MutatedBuffer& buffer, std::byte* destination) const;
    // LoadOptions::appending_positions, kept: the call's positions run on from appended_ and fit
    // the appending caches; returns how many the call gives (0 without the promise).
    int64_t appending_positions_of(const std::vector<Tensor>& inputs) const;
    void write_buffer(MutatedBuffer& buffer, const kernels::StridedTensor& value);
    // The OpenVINO variable holding a buffer kept as OpenVINO state.
    ov::VariableState openvino_variable(const MutatedBuffer& buffer) const;
    void set_openvino_state(const MutatedBuffer& buffer, const kernels::StridedTensor& value) const;
    kernels::StridedTensor next_state_buffer(MutatedBuffer& buffer, DType dtype, const std::vector<int64_t>& sizes);
    const kernels::RuntimeValue& lookup(const Values& values, int slot) const;
    Tensor hand_out(const kernels::RuntimeValue& value, const CallContext& context,
                    std::set<const void*>& handed_out) const;

    const PreparedMethod& prepared_;
    std::vector<Step> steps_;
    // Checks every value a step hands on and every output against the program's shapes and
    // dtypes (runtime/output_guard.h).
    std::unique_ptr<OutputGuard> guard_;
    Values constants_;  // by slot: views of the archive's memory (empty elsewhere)
    std::vector<int> user_input_slots_;
    std::vector<Output> outputs_;
    size_t user_output_count_ = 0;
    std::vector<MutatedBuffer> buffers_;  // written under state_mutex_ only
    // LoadOptions::appending_positions: the positions given since load or reset_state (under
    // state_mutex_), and how many the appending caches hold (0: no cache appends).
    int64_t appended_ = 0;
    int64_t appending_capacity_ = 0;
    std::vector<Split> splits_;
    // Memory kept across calls that no call context owns (state halves, constants OpenVINO
    // hands back): never handed out as is. Fixed at load but for the state halves, which
    // change under state_mutex_ only.
    std::set<const void*> reused_owners_;
    // Held for a whole call of a method that mutates buffers, and by the state API.
    mutable std::mutex state_mutex_;
    // The call contexts not in use.
    mutable std::mutex pool_mutex_;
    std::vector<std::unique_ptr<CallContext>> free_contexts_;
    // A method that mutates buffers: the one context every call runs on (under state_mutex_).
    std::unique_ptr<CallContext> state_context_;
    size_t contexts_made_ = 0;
    // The concurrency of each call context's arena: the CPU plugin's inference threads, when
    // every step is compiled to infer in the caller's arena (openvino_facts
    // ArenaPerCompiledModel: the latency hint on the CPU device); 0: no arena of ours.
    int arena_threads_ = 0;
    double compile_ms_ = 0;
    std::atomic<int64_t> last_openvino_ns_{0};
};

}  // namespace pt2ov::runtime
