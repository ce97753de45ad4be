// The public API: load, inspect, run.
#include <map>
#include <string>

#include "common/error.h"
#include "compile/compile.h"
#include "kernels/cpu_isa.h"
#include "lower/convert.h"
#include "openvino/core/graph_util.hpp"
#include "runtime/executor.h"
#include "runtime/placement_timing.h"
#include "runtime/verify.h"

namespace pt2ov {

namespace {

// OpenVINO's message on one line (its exceptions span several), to stand in a node's reason.
std::string one_line_of(const std::string& message) {
    std::string line;
    for (char c : message) {
        const bool blank = c == '\n' || c == '\r' || c == '\t' || c == ' ';
        if (blank && (line.empty() || line.back() == ' ')) continue;
        line += blank ? ' ' : c;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
}

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

// Compiles the rules' plan `planned` of impl.prepared (load and inspect have both made them)
// into impl's executor. A step OpenVINO converted but its plugin cannot compile goes back to
// placement, its nodes to the CPU kernels (or only the node whose compiled result contradicts
// the program's metadata) (refused there, naming the failure, where a kernel
// is missing or under --strict); each retry moves at least one node, so this ends. Then a
// small program may run faster on the CPU kernels than through an OpenVINO call: timed both
// ways, the faster kept (runtime/placement_timing.h).
void compile_planned(Program::Impl& impl, const std::string& path, const LoadOptions& options,
                     compile::PlannedMethod planned, const runtime::VerifyOutcome& verified) {
    std::map<std::string, std::string> compile_failures;
    impl.planned = std::move(planned);
    while (true) {
        try {
            impl.executor = std::make_unique<runtime::Executor>(impl.prepared, impl.planned, options);
            break;
        } catch (const runtime::StepCompileFailure& failure) {
            if (options.strict || failure.step_index >= impl.planned.plan.steps.size()) throw;
            const size_t before = compile_failures.size();
            const auto& at_fault = failure.nodes.empty() ? impl.planned.plan.steps[failure.step_index].nodes : failure.nodes;
            for (int node : at_fault) {
                compile_failures.emplace(impl.prepared.graph.nodes[static_cast<size_t>(node)].source_name(),
                                         one_line_of(failure.plugin_message));
            }
            if (compile_failures.size() == before) throw;
        }
        impl.planned = compile::plan(impl.prepared, options, compile_failures, {}, verified.failures);
    }
    impl.planned.report.verification = verified.report;
    impl.timings = {impl.prepared.archive_ms, impl.planned.convert_ms, impl.executor->compile_ms()};
    if (runtime::worth_timing(impl.prepared, impl.planned, options)) {
        if (auto timed = runtime::time_placements(path, impl.prepared, *impl.executor, options)) {
            if (timed->cpu_executor) {
                impl.planned = std::move(*timed->cpu_planned);
                impl.executor = std::move(timed->cpu_executor);
            }
            impl.planned.report.measurement = timed->measurement;
            impl.planned.report.verification = verified.report;
        }
    }
}

// LoadOptions::verify: each OpenVINO step checked against the CPU kernels in a child process
// before anything is compiled here (runtime/verify.h).
runtime::VerifyOutcome verify_if_asked(const std::string& path, const compile::PreparedMethod& prepared,
                                       const LoadOptions& options) {
    if (!options.verify) return {};
    return runtime::verify_plan(path, prepared, options);
}

}  // namespace

Program Program::load(const std::string& path, const LoadOptions& options) {
    return at_api_boundary(path, [&] {
        auto impl = std::make_unique<Impl>();
        impl->prepared = compile::prepare(path, options);
        const auto verified = verify_if_asked(path, impl->prepared, options);
        compile_planned(*impl, path, options, compile::plan(impl->prepared, options, {}, {}, verified.failures), verified);
        return Program(std::move(impl));
    });
}

PlacementReport Program::inspect(const std::string& path, const LoadOptions& options) {
    return at_api_boundary(path, [&] {
        Impl impl;
        impl.prepared = compile::prepare(path, options);
        const auto verified = verify_if_asked(path, impl.prepared, options);
        auto planned = compile::plan(impl.prepared, options, {}, {}, verified.failures);
        planned.report.verification = verified.report;
        if (!runtime::worth_timing(impl.prepared, planned, options)) return std::move(planned.report);
        // What load() would time is compiled and timed, so the report shows load()'s choice.
        compile_planned(impl, path, options, std::move(planned), verified);
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
        const auto prepared = compile::prepare(path, options);
        const auto planned = compile::plan(prepared, options);
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
