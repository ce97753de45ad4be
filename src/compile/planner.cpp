#include "compile/planner.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "common/text.h"
#include "compile/compile.h"
#include "kernels/registry.h"
#include "partition/plan.h"

namespace pt2ov::compile {

namespace {

// Written into the all-CPU plan's reasons before the figures are known, then replaced.
constexpr const char* kPendingReason = "(timed at load)";

bool is_cpu_only(const PlannedMethod& planned) {
    return std::none_of(planned.plan.steps.begin(), planned.plan.steps.end(),
                        [](const partition::Step& step) { return step.where == partition::Where::OpenVINO; });
}

// `planned` (the rules' plan), revised until the runtime compiles it: the nodes at fault of a
// step it cannot compile go to the CPU kernels (refused there, naming the failure, where a
// kernel is missing, or by the runtime under --strict).
PlannedMethod compiled_rules_plan(const PreparedMethod& method, const Settings& settings,
                                  const std::map<std::string, std::string>& verify_failures, const PlanTrials& trials,
                                  PlannedMethod planned) {
    std::map<std::string, std::string> compile_failures;
    while (true) {
        const auto refusal = trials.compile(planned);
        if (!refusal) return planned;
        if (settings.given.strict || refusal->step_index >= planned.plan.steps.size()) throw UnsupportedError(refusal->error);
        const size_t before = compile_failures.size();
        const auto& at_fault = refusal->nodes.empty() ? planned.plan.steps[refusal->step_index].nodes : refusal->nodes;
        for (int node : at_fault) {
            compile_failures.emplace(method.graph.nodes[static_cast<size_t>(node)].source_name(), one_line(refusal->reason));
        }
        if (compile_failures.size() == before) throw UnsupportedError(refusal->error);
        planned = plan(method, settings, compile_failures, {}, verify_failures);
    }
}

// Every node with a CPU kernel on the CPU kernels, its reason pending until timing decides.
PlannedMethod all_on_cpu(const PreparedMethod& method, const Settings& settings) {
    return plan(method, settings, {}, kPendingReason);
}

void give_timed_reason(PlannedMethod& planned, const PlacementReport::Measurement& measurement) {
    const std::string reason = fmt::format(
        "a small program, faster on the CPU kernels: {:.1f} us per call against {:.1f} us through OpenVINO "
        "(timed at load{}; --no-measure-placement keeps the placement rules' plan)",
        measurement.cpu_us, measurement.openvino_us, measurement.from_cache ? ", read from the cache" : "");
    for (auto& text : planned.plan.reason) {
        if (text == kPendingReason) text = reason;
    }
    for (auto& step : planned.report.steps) {
        for (auto& node : step.nodes) {
            if (node.reason == kPendingReason) node.reason = reason;
        }
    }
}

// --verify's rounds: the rules' plan verified, each failing step's nodes sent to the CPU kernels
// (refused under --strict), the plan made and verified again until a round finds nothing.
std::map<std::string, std::string> verified_failures(const PreparedMethod& method, const Settings& settings,
                                                     const VerifyTrial& verify, std::vector<std::string>& moves) {
    if (verify.known_failures) return *verify.known_failures;
    std::map<std::string, std::string> failures;
    for (int round = 1; round <= kMaxVerifyRounds; ++round) {
        // The plan the runtime verifies is the one these failures give.
        const PlannedMethod planned = plan(method, settings, {}, {}, failures);
        const auto failing = verify.round(planned, failures);
        if (failing.empty()) break;
        for (const auto& [step, why] : failing) {
            if (step >= planned.plan.steps.size()) continue;
            const std::string reason = "OpenVINO's step " + std::to_string(step + 1) + " " + why;
            for (int n : planned.plan.steps[step].nodes) {
                failures.emplace(method.graph.nodes[static_cast<size_t>(n)].source_name(), reason);
            }
            moves.push_back("step " + std::to_string(step + 1) + " moved to the CPU kernels: " + reason);
        }
        if (settings.given.strict && !moves.empty()) {
            throw UnsupportedError(method.where + ": --strict: verified at load, " + moves.back() +
                                   "; load without --strict to run it on the CPU kernels");
        }
    }
    return failures;
}

}  // namespace

std::optional<PlannedMethod> plan_for_nonfinite(const PreparedMethod& method, const Settings& settings, std::string& why_not) {
    for (const auto& node : method.graph.nodes) {
        if (!kernels::find_kernel(node.op)) {
            why_not = "node " + node.source_name() + " (" + node.source_target() + ") has no CPU kernel";
            return std::nullopt;
        }
    }
    PlannedMethod planned =
        plan(method, settings, {}, "a call with NaN or inf among its inputs: the CPU kernels follow PyTorch on non-finite values");
    if (!is_cpu_only(planned)) {
        why_not = "some node must stay on OpenVINO";
        return std::nullopt;
    }
    return planned;
}

std::string faster_side(double openvino_us, double cpu_us) {
    return cpu_us < kCpuMustWinBy * openvino_us ? "cpu" : "openvino";
}

bool worth_timing(const PreparedMethod& method, const PlannedMethod& planned, const Settings& settings) {
    if (!settings.given.measure_placement || settings.given.strict || !settings.cpu_device) return false;
    if (!method.mutated_buffers.empty() || is_cpu_only(planned)) return false;
    for (const auto& info : method.input_infos) {
        if (std::find(info.shape.begin(), info.shape.end(), -1) != info.shape.end()) return false;
    }
    int64_t elements = 0;
    for (const auto& node : method.graph.nodes) {
        if (!kernels::find_kernel(node.op)) return false;
        const int64_t touched = partition::touched_elements(method.graph, node);
        if (touched < 0) return false;
        elements += touched;
        if (elements > kMaxTimedElements) return false;
    }
    return true;
}

SettledPlan settle(const PreparedMethod& method, const Settings& settings, const PlanTrials& trials) {
    SettledPlan settled;
    if (trials.verify) settled.verify_failures = verified_failures(method, settings, *trials.verify, settled.verify_moves);
    const auto& verify_failures = settled.verify_failures;
    settled.planned = plan(method, settings, {}, {}, verify_failures);
    if (trials.compile_only_to_time && !worth_timing(method, settled.planned, settings)) return settled;
    settled.planned = compiled_rules_plan(method, settings, verify_failures, trials, std::move(settled.planned));
    if (!worth_timing(method, settled.planned, settings)) return settled;

    std::optional<PlannedMethod> cpu_planned;
    const PlanTrials::CpuPlan make_cpu_plan = [&]() -> const PlannedMethod* {
        if (!cpu_planned) cpu_planned = all_on_cpu(method, settings);
        return is_cpu_only(*cpu_planned) ? &*cpu_planned : nullptr;
    };
    std::optional<PlacementReport::Measurement> measurement;
    try {
        measurement = trials.time(make_cpu_plan);
    } catch (const Error&) {
        // A side that cannot run zero inputs (an index kernel refusing them, say) is not timed;
        // the rules' plan stands. Errors of real inputs are the calls' to report.
        measurement.reset();
    }
    if (!measurement) return settled;
    if (measurement->chosen == "cpu") {
        if (!cpu_planned || !is_cpu_only(*cpu_planned)) return settled;  // a side never compiled: the rules' stands
        settled.planned = std::move(*cpu_planned);
        give_timed_reason(settled.planned, *measurement);
        settled.cpu_plan_chosen = true;
    }
    settled.planned.report.measurement = *measurement;
    return settled;
}

}  // namespace pt2ov::compile
