// The public API: load, inspect, run.
#include <map>
#include <string>

#include "common/error.h"
#include "compile/compile.h"
#include "compile/planner.h"
#include "kernels/cpu_isa.h"
#include "lower/convert.h"
#include "openvino/core/graph_util.hpp"
#include "runtime/executor.h"
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
        throw Error(path + ": out of memory");
    } catch (const std::exception& e) {
        throw InternalError(path + ": " + e.what());
    }
}

}  // namespace

struct Program::Impl {
    compile::PreparedMethod prepared;
    compile::PlannedMethod planned;
    std::unique_ptr<runtime::Executor> executor;
    LoadTimings timings;
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

}  // namespace

Program Program::load(const std::string& path, const LoadOptions& options) {
    return at_api_boundary(path, [&] {
        const compile::Settings settings = compile::parse_settings(options);
        auto impl = std::make_unique<Impl>();
        impl->prepared = compile::prepare(path, settings);
        settle_into(*impl, path, settings, false);
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
int64_t Program::last_openvino_ns() const { return impl_->executor->last_openvino_ns(); }

std::vector<Tensor> Program::run(const std::vector<Tensor>& inputs) {
    std::vector<Tensor> outputs;
    run(inputs, outputs);
    return outputs;
}

void Program::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    at_api_boundary(impl_->prepared.where, [&] { impl_->executor->run(inputs, outputs); });
}

std::vector<std::string> Program::state_names() const { return impl_->executor->state_names(); }
Tensor Program::read_state(const std::string& name) const { return impl_->executor->read_state(name); }
void Program::write_state(const std::string& name, const Tensor& value) { impl_->executor->write_state(name, value); }
void Program::reset_state() { impl_->executor->reset_state(); }

std::string openvino_version() { return lower::openvino_runtime_version(); }

std::string cpu_isa() { return kernels::isa_kernels().isa; }

}  // namespace pt2ov
