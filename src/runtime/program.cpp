// The public API: load, inspect, run.
#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "common/error.h"
#include "compile/compile.h"
#include "compile/planner.h"
#include "kernels/cpu_isa.h"
#include "lower/convert.h"
#include "openvino/core/graph_util.hpp"
#include "runtime/executor.h"
#include "runtime/nonfinite.h"
#include "runtime/placement_timing.h"
#include "runtime/verify.h"

namespace pt2ov {

namespace {

// What crosses the public API is a pt2ov::Error. OpenVINO's and the standard library's
// exceptions are caught where they arise and given context (with_context); one that still
// gets here escaped that handling, which is a bug of ours, so it becomes an InternalError.
template <typename Body>
decltype(auto) at_api_boundary(const std::string& path, Body&& body) {
    try {
        return body();
    } catch (const Error&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw ResourceError(path + ": out of memory");
    } catch (const std::exception& e) {
        throw InternalError(path + ": " + e.what());
    }
}

}  // namespace

// Calls whose inputs hold NaN or an infinity (LoadOptions::nonfinite_inputs "exact"): run on
// a second executor of the same program, every node on the CPU kernels, made at the first such
// call (most programs never see one; it compiles nothing). A program with state runs its calls
// one at a time (the executor's lock); the state moves to the CPU executor for the call and back
// after it, under `lock`, which every call of a program with state takes, so that no call sees
// the state half moved.
struct NonfiniteRoute {
    bool checked = false;  // the program has an OpenVINO step and floating inputs or state
    // A stateless program with a floating output: a call whose finite inputs give NaN or inf out
    // of OpenVINO runs again on the CPU kernels (where the outputs are cheap to read).
    bool outputs_checked = false;
    compile::Settings settings;
    std::once_flag made;
    std::unique_ptr<runtime::Executor> executor;  // null after `made`: `why_not` says why
    std::string why_not;
    std::mutex lock;
    // A routed call, or write_state, left NaN or an infinity in the state: later calls read it,
    // so they are routed too, until reset_state.
    bool state_nonfinite = false;
    // The call completed last ran here: it spent no time in OpenVINO (last_openvino_ns).
    std::atomic<bool> last_call_routed{false};
};

struct Program::Impl {
    compile::PreparedMethod prepared;
    compile::PlannedMethod planned;
    std::unique_ptr<runtime::Executor> executor;
    LoadTimings timings;
    NonfiniteRoute nonfinite;
};

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

namespace {

// The planner's trials (compile/planner.h) made of the runtime: --verify's rounds in a worker
// process (when asked); a plan compiled into impl's executor (a step OpenVINO converted but its
// plugin cannot compile, or whose compiled result contradicts the program's metadata, is the
// planner's to move); timing compiles the all-CPU plan beside it. `compile_only_to_time`:
// inspect, which compiles only what it times.
void settle_into(Program::Impl& impl, const std::string& path, const compile::Settings& settings, bool compile_only_to_time) {
    std::unique_ptr<runtime::Verifier> verifier;
    std::unique_ptr<runtime::Executor> cpu_executor;
    compile::PlanTrials trials;
    if (settings.given.verify) {
        verifier = std::make_unique<runtime::Verifier>(path, impl.prepared, settings);
        trials.verify = verifier->trial();
    }
    trials.compile_only_to_time = compile_only_to_time;
    trials.compile = [&](const compile::PlannedMethod& planned) -> std::optional<compile::CompileRefusal> {
        try {
            impl.executor = std::make_unique<runtime::Executor>(impl.prepared, planned, settings);
            return std::nullopt;
        } catch (const runtime::StepCompileFailure& failure) {
            return compile::CompileRefusal{failure.step_index, failure.nodes, failure.plugin_message, failure.what()};
        }
    };
    trials.time = [&](const compile::PlanTrials::CpuPlan& cpu_plan) {
        return runtime::time_placements(path, impl.prepared, *impl.executor, cpu_plan, settings, cpu_executor);
    };
    auto settled = compile::settle(impl.prepared, settings, trials);
    if (verifier) settled.planned.report.verification = verifier->finish(settled);
    impl.planned = std::move(settled.planned);
    if (settled.cpu_plan_chosen) impl.executor = std::move(cpu_executor);
    if (impl.executor) {
        impl.timings = {impl.prepared.archive_ms, impl.planned.convert_ms, impl.executor->compile_ms()};
        auto& steps = impl.planned.report.steps;
        for (size_t s = 0; s < steps.size(); ++s) steps[s].own_thread = impl.executor->infers_on_own_thread(s);
    }
}

// Whether calls are checked for NaN and infinities: asked ("exact"), not --strict (which asks
// for OpenVINO alone), some node on OpenVINO (on the CPU kernels every node already follows
// PyTorch), and something floating to check.
void route_nonfinite_calls(Program::Impl& impl, const compile::Settings& settings) {
    auto& route = impl.nonfinite;
    route.settings = settings;
    if (settings.given.nonfinite_inputs != "exact" || settings.given.strict || !impl.executor) return;
    bool on_openvino = false;
    for (size_t s = 0; s < impl.executor->step_count(); ++s) on_openvino |= impl.executor->step_on_openvino(s);
    bool floating = false;
    for (const auto& input : impl.prepared.input_infos) floating |= dtype_is_floating(input.dtype);
    for (const auto& state : impl.planned.report.state) floating |= dtype_is_floating(state.dtype);
    route.checked = on_openvino && floating;
    bool floating_output = false;
    for (const auto& output : impl.prepared.output_infos) floating_output |= dtype_is_floating(output.dtype);
    route.outputs_checked = on_openvino && floating_output && impl.prepared.mutated_buffers.empty();
}

// The CPU kernels' executor, made at the first call that needs it; false where it cannot be
// made (route.why_not says why).
bool make_cpu_route(Program::Impl& impl) {
    auto& route = impl.nonfinite;
    std::call_once(route.made, [&] {
        if (impl.prepared.appending_positions_input >= 0) {
            route.why_not = "the cache kept by --appending-positions stays in OpenVINO";
            return;
        }
        auto planned = compile::plan_for_nonfinite(impl.prepared, route.settings, route.why_not);
        if (planned) route.executor = std::make_unique<runtime::Executor>(impl.prepared, *planned, route.settings);
    });
    return route.executor != nullptr;
}

// One call on the CPU kernels' executor (made at the first), the state moved there and back.
void run_nonfinite(Program::Impl& impl, int input, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    auto& route = impl.nonfinite;
    make_cpu_route(impl);
    const std::string what = input >= 0 ? "input '" + impl.prepared.input_infos.at(static_cast<size_t>(input)).name + "' holds NaN or inf"
                                        : "a buffer's state holds NaN or inf (left by an earlier call)";
    if (!route.executor) {
        throw InputError(impl.prepared.where + ": " + what + ", and this program cannot follow PyTorch on it: OpenVINO loses NaN " +
                         "through relu, exp, max and clamp, and pt2ov's CPU kernels cannot run the whole program (" +
                         route.why_not + "). Pass finite values, or load with --nonfinite-inputs openvino to run it on " +
                         "OpenVINO as it is (docs/EXACTNESS.md O8)");
    }
    const auto names = impl.executor->state_names();
    for (const auto& name : names) route.executor->write_state(name, impl.executor->read_state(name));
    route.executor->run(inputs, outputs);
    route.last_call_routed.store(true, std::memory_order_relaxed);
    // Each state read once: handed back, and looked at for what it leaves to the next call.
    bool nonfinite = false;
    for (const auto& name : names) {
        const Tensor state = route.executor->read_state(name);
        nonfinite = nonfinite || runtime::holds_nonfinite(state);
        impl.executor->write_state(name, state);
    }
    route.state_nonfinite = nonfinite;
}

}  // namespace

Program Program::load(const std::string& path, const LoadOptions& options) {
    return at_api_boundary(path, [&] {
        const compile::Settings settings = compile::parse_settings(options);
        auto impl = std::make_unique<Impl>();
        impl->prepared = compile::prepare(path, settings);
        settle_into(*impl, path, settings, false);
        route_nonfinite_calls(*impl, settings);
        return Program(std::move(impl));
    });
}

PlacementReport Program::inspect(const std::string& path, const LoadOptions& options) {
    return at_api_boundary(path, [&] {
        const compile::Settings settings = compile::parse_settings(options);
        Impl impl;
        impl.prepared = compile::prepare(path, settings);
        // What load() would time is compiled and timed, so the report shows load()'s choice.
        settle_into(impl, path, settings, true);
        return std::move(impl.planned.report);
    });
}

std::vector<std::string> Program::methods(const std::string& path) {
    return at_api_boundary(path, [&] {
        auto models = archive::Archive::open(path)->models();
        return models.size() == 1 ? std::vector<std::string>{"forward"} : models;
    });
}

std::vector<std::string> Program::write_openvino_models(const std::string& path, const std::string& directory,
                                                        const LoadOptions& options) {
    return at_api_boundary(path, [&] {
        const compile::Settings settings = compile::parse_settings(options);
        const auto prepared = compile::prepare(path, settings);
        const auto planned = compile::plan(prepared, settings);
        std::vector<std::string> written;
        for (const auto& [index, step] : planned.openvino_steps) {
            if (!step.model) continue;
            const std::string xml = directory + "/step" + std::to_string(index + 1) + ".xml";
            with_context("writing " + xml, [&] { ov::serialize(step.model, xml); });
            written.push_back(xml);
        }
        return written;
    });
}

const std::vector<IOInfo>& Program::inputs() const { return impl_->prepared.input_infos; }
const std::vector<IOInfo>& Program::outputs() const { return impl_->prepared.output_infos; }
const PlacementReport& Program::report() const { return impl_->planned.report; }
const LoadTimings& Program::timings() const { return impl_->timings; }
int64_t Program::last_openvino_ns() const {
    return impl_->nonfinite.last_call_routed.load(std::memory_order_relaxed) ? 0 : impl_->executor->last_openvino_ns();
}

std::vector<Tensor> Program::run(const std::vector<Tensor>& inputs) {
    std::vector<Tensor> outputs;
    run(inputs, outputs);
    return outputs;
}

void Program::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    at_api_boundary(impl_->prepared.where, [&] {
        auto& route = impl_->nonfinite;
        if (!route.checked) return impl_->executor->run(inputs, outputs);
        const bool stateful = !impl_->prepared.mutated_buffers.empty();
        std::unique_lock<std::mutex> lock(route.lock, std::defer_lock);
        if (stateful) lock.lock();
        const int input = runtime::first_nonfinite(inputs);
        if (input >= 0 || route.state_nonfinite) return run_nonfinite(*impl_, input, inputs, outputs);
        impl_->executor->run(inputs, outputs);
        // Finite inputs, NaN or inf out: OpenVINO made it, rightly (log of a negative) or not (a
        // fault such as AttentionMaskedRowsNaN before it was known). The CPU kernels decide; a
        // program they cannot run whole keeps OpenVINO's outputs (docs/EXACTNESS.md O8).
        if (route.outputs_checked && runtime::cheap_to_scan(outputs, inputs) && runtime::first_nonfinite(outputs) >= 0 &&
            make_cpu_route(*impl_)) {
            route.executor->run(inputs, outputs);
            route.last_call_routed.store(true, std::memory_order_relaxed);
            return;
        }
        // Read first: calls from many threads then share the line instead of writing it.
        if (route.last_call_routed.load(std::memory_order_relaxed)) route.last_call_routed.store(false, std::memory_order_relaxed);
    });
}

std::vector<std::string> Program::state_names() const { return impl_->executor->state_names(); }
Tensor Program::read_state(const std::string& name) const { return impl_->executor->read_state(name); }
void Program::write_state(const std::string& name, const Tensor& value) {
    auto& route = impl_->nonfinite;
    std::lock_guard lock(route.lock);
    impl_->executor->write_state(name, value);
    // Writing finite values over a non-finite state keeps the calls routed (the other buffers
    // are not read again here): slower, never wrong.
    if (route.checked) route.state_nonfinite = route.state_nonfinite || runtime::holds_nonfinite(value);
}
void Program::reset_state() {
    auto& route = impl_->nonfinite;
    std::lock_guard lock(route.lock);
    impl_->executor->reset_state();
    // The archive's own values, like its weights, are the program's: not checked (O8).
    route.state_nonfinite = false;
}

std::string openvino_version() { return lower::openvino_runtime_version(); }

std::string cpu_isa() { return kernels::isa_kernels().isa; }

}  // namespace pt2ov
