// The planner: the one place a plan is revised after the placement rules made it.
//
//   --verify: each OpenVINO step of the rules' plan verified against the CPU kernels; a failing
//     step's nodes go to the CPU kernels and the plan is made and verified again (at most
//     kMaxVerifyRounds rounds)
//   rules' plan (compile::plan, itself revised while steps fail to convert)
//   → compiled by the runtime; a step it cannot compile sends its nodes at fault to the CPU
//     kernels, and the plan is made again (each round moves at least one node, so this ends)
//   → for a small program, timed against every node on the CPU kernels; the faster is kept
//
// What only the runtime can do (verify a plan, compile it into something that runs, time two) is
// injected as PlanTrials, so compile/ holds no executor and the loop can be tested with
// trials of a test's own.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compile/method.h"
#include "compile/settings.h"
#include "pt2ov/pt2ov.h"

namespace pt2ov::compile {

// The runtime's answer to "compile this plan" when it could not.
struct CompileRefusal {
    size_t step_index = 0;   // into the plan's steps
    std::vector<int> nodes;  // graph node indexes at fault; empty: every node of the step
    std::string reason;      // OpenVINO's words (or what contradicts the metadata), for each node's reason
    std::string error;       // the whole message, thrown as it is under --strict
};

constexpr int kMaxVerifyRounds = 6;

// The runtime's verification of plans (--verify).
struct VerifyTrial {
    // Failures (node name → why) a verification of the same archive and options found before,
    // kept by the runtime: no round is run.
    std::optional<std::map<std::string, std::string>> known_failures;
    // Verifies `planned`, made with `failures` (node name → why, found so far): each OpenVINO
    // step run against the CPU kernels. Returns the steps that failed, index → how.
    std::function<std::map<size_t, std::string>(const PlannedMethod& planned,
                                                 const std::map<std::string, std::string>& failures)>
        round;
};

struct PlanTrials {
    // --verify, when asked.
    std::optional<VerifyTrial> verify;
    // Compiles `planned` into the runtime's candidate (replacing any earlier one); nullopt when
    // it compiled. Errors other than a step's refusal are thrown.
    std::function<std::optional<CompileRefusal>(const PlannedMethod& planned)> compile;
    // Times the candidate against every node on the CPU kernels, compiling `cpu_plan()` (made
    // only when asked: a cached choice of the rules' plan needs none; null when some node must
    // stay on OpenVINO, so there is nothing to time), and keeps that side's compiled plan for
    // when it wins. nullopt: not timed (the candidate stands); an Error thrown (a side that
    // cannot run zero inputs, say) is the same. The choice in the measurement is faster_side's.
    using CpuPlan = std::function<const PlannedMethod*()>;
    std::function<std::optional<PlacementReport::Measurement>(const CpuPlan& cpu_plan)> time;
    // Compile only a plan that will be timed (inspect: a report, not a program).
    bool compile_only_to_time = false;
};

struct SettledPlan {
    PlannedMethod planned;
    bool cpu_plan_chosen = false;  // timing chose the all-CPU plan: the runtime keeps what `time` compiled
    // --verify: node name → how its step failed (those nodes run on the CPU kernels), and one
    // line per step moved ("step 3 moved to the CPU kernels: ...").
    std::map<std::string, std::string> verify_failures;
    std::vector<std::string> verify_moves;
};

// Every revision, in the order of the header.
SettledPlan settle(const PreparedMethod& method, const Settings& settings, const PlanTrials& trials);

// Elements read and written over all nodes beyond which a program is not timed: there
// OpenVINO's per-call cost no longer dominates (at 64K floats a CPU elementwise kernel takes
// about as long as OpenVINO's fixed cost).
constexpr int64_t kMaxTimedElements = 65536;

// Whether `planned` is timed against the CPU kernels: only where it can matter and cannot
// change a result: the CPU device (on another device the CPU kernels would not be what the
// user asked for), static shapes, no mutated buffers (timing calls would advance the state),
// not --strict, an OpenVINO step in the plan, every node with a CPU kernel, and at most
// kMaxTimedElements elements read and written over all nodes.
bool worth_timing(const PreparedMethod& method, const PlannedMethod& planned, const Settings& settings);

// The plan of a call whose inputs hold NaN or an infinity (LoadOptions::nonfinite_inputs):
// every node on the CPU kernels, which follow PyTorch on non-finite values where OpenVINO's CPU
// plugin loses NaN (docs/EXACTNESS.md O8). nullopt when there is none, `why_not` then saying
// why in words: the first node without a CPU kernel (its name and op).
std::optional<PlannedMethod> plan_for_nonfinite(const PreparedMethod& method, const Settings& settings, std::string& why_not);

// "cpu" when the CPU kernels' median beats OpenVINO's by kCpuMustWinBy, else "openvino": a
// near tie would flip from load to load with the machine's noise, and the rules' plan is the
// one documented.
constexpr double kCpuMustWinBy = 0.9;
std::string faster_side(double openvino_us, double cpu_us);

}  // namespace pt2ov::compile
