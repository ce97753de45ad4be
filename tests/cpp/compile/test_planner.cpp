// The planner (compile/planner.h) with trials of the test's own: every revision of the plan,
// without an executor. tiny.pt2 is x.sin() * scale, static [2]: small enough to be timed.
#include <gtest/gtest.h>

#include <algorithm>

#include "../fixtures/fixtures.h"
#include "common/error.h"
#include "compile/compile.h"
#include "compile/planner.h"

namespace {

using namespace pt2ov;
using pt2ov::test::fixture;

bool has_openvino_step(const compile::PlannedMethod& planned) {
    return std::any_of(planned.plan.steps.begin(), planned.plan.steps.end(),
                       [](const partition::Step& step) { return step.where == partition::Where::OpenVINO; });
}

int node_index(const compile::PreparedMethod& method, const std::string& target) {
    for (size_t i = 0; i < method.graph.nodes.size(); ++i) {
        if (method.graph.nodes[i].target == target) return static_cast<int>(i);
    }
    ADD_FAILURE() << "no node " << target;
    return -1;
}

// The reason the plan gives node `index`.
std::string reason_of(const compile::PlannedMethod& planned, int index) {
    return planned.plan.reason.at(static_cast<size_t>(index));
}

LoadOptions untimed() {
    LoadOptions options;
    options.measure_placement = false;
    return options;
}

TEST(Planner, ARefusedNodeMovesToTheCpuAndThePlanIsMadeAgain) {
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(LoadOptions{}));
    const int sin = node_index(method, "aten.sin.default");
    std::vector<bool> compiled_with_openvino;
    compile::PlanTrials trials;
    trials.compile = [&](const compile::PlannedMethod& planned) -> std::optional<compile::CompileRefusal> {
        compiled_with_openvino.push_back(planned.plan.where.at(static_cast<size_t>(sin)) == partition::Where::OpenVINO);
        if (!compiled_with_openvino.back()) return std::nullopt;
        return compile::CompileRefusal{0, {sin}, "the plugin\n  refused   it", "step 1: the plugin refused it"};
    };
    const auto settled = compile::settle(method, compile::parse_settings(untimed()), trials);
    EXPECT_EQ(compiled_with_openvino, (std::vector<bool>{true, false}));
    EXPECT_EQ(settled.planned.plan.where.at(static_cast<size_t>(sin)), partition::Where::Cpu);
    EXPECT_NE(reason_of(settled.planned, sin).find("the plugin refused it"), std::string::npos) << reason_of(settled.planned, sin);
    EXPECT_FALSE(settled.cpu_plan_chosen);
}

TEST(Planner, StrictRefusesWhatTheRuntimeCannotCompile) {
    LoadOptions options = untimed();
    options.strict = true;
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(options));
    compile::PlanTrials trials;
    trials.compile = [&](const compile::PlannedMethod&) -> std::optional<compile::CompileRefusal> {
        return compile::CompileRefusal{0, {}, "refused", "step 1 of tiny.pt2: OpenVINO cannot compile it"};
    };
    try {
        compile::settle(method, compile::parse_settings(options), trials);
        FAIL() << "no error";
    } catch (const UnsupportedError& e) {
        EXPECT_STREQ(e.what(), "step 1 of tiny.pt2: OpenVINO cannot compile it");
    }
}

TEST(Planner, ARefusalThatMovesNothingIsAnError) {
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(untimed()));
    int calls = 0;
    compile::PlanTrials trials;
    trials.compile = [&](const compile::PlannedMethod&) -> std::optional<compile::CompileRefusal> {
        ++calls;
        return compile::CompileRefusal{0, {0}, "refused", "cannot compile"};  // the same node again and again
    };
    EXPECT_THROW(compile::settle(method, compile::parse_settings(untimed()), trials), UnsupportedError);
    EXPECT_EQ(calls, 2);  // moved once, then nothing more to move
}

compile::PlanTrials accepting(std::string chosen, bool* cpu_plan_asked) {
    compile::PlanTrials trials;
    trials.compile = [](const compile::PlannedMethod&) -> std::optional<compile::CompileRefusal> { return std::nullopt; };
    trials.time = [chosen, cpu_plan_asked](const compile::PlanTrials::CpuPlan& cpu_plan) {
        const compile::PlannedMethod* cpu = cpu_plan();
        *cpu_plan_asked = true;
        EXPECT_NE(cpu, nullptr);
        if (cpu) EXPECT_FALSE(has_openvino_step(*cpu));
        PlacementReport::Measurement measurement;
        measurement.measured = true;
        measurement.openvino_us = 8;
        measurement.cpu_us = chosen == "cpu" ? 2 : 9;
        measurement.chosen = compile::faster_side(measurement.openvino_us, measurement.cpu_us);
        measurement.calls = 30;
        return std::optional<PlacementReport::Measurement>(measurement);
    };
    return trials;
}

TEST(Planner, TimingKeepsTheFasterSide) {
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(LoadOptions{}));
    bool asked = false;
    const auto cpu = compile::settle(method, compile::parse_settings(LoadOptions{}), accepting("cpu", &asked));
    EXPECT_TRUE(asked);
    EXPECT_TRUE(cpu.cpu_plan_chosen);
    EXPECT_FALSE(has_openvino_step(cpu.planned));
    EXPECT_EQ(cpu.planned.report.measurement.chosen, "cpu");
    EXPECT_NE(reason_of(cpu.planned, 0).find("faster on the CPU kernels: 2.0 us per call against 8.0 us"), std::string::npos)
        << reason_of(cpu.planned, 0);

    const auto rules = compile::settle(method, compile::parse_settings(LoadOptions{}), accepting("openvino", &asked));
    EXPECT_FALSE(rules.cpu_plan_chosen);
    EXPECT_TRUE(has_openvino_step(rules.planned));
    EXPECT_EQ(rules.planned.report.measurement.chosen, "openvino");
    EXPECT_TRUE(rules.planned.report.measurement.measured);
}

TEST(Planner, ASideThatCannotBeTimedLeavesTheRulesPlan) {
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(LoadOptions{}));
    compile::PlanTrials trials;
    trials.compile = [](const compile::PlannedMethod&) -> std::optional<compile::CompileRefusal> { return std::nullopt; };
    trials.time = [](const compile::PlanTrials::CpuPlan&) -> std::optional<PlacementReport::Measurement> {
        throw UnsupportedError("an index kernel refuses zero inputs");
    };
    const auto settled = compile::settle(method, compile::parse_settings(LoadOptions{}), trials);
    EXPECT_FALSE(settled.cpu_plan_chosen);
    EXPECT_TRUE(has_openvino_step(settled.planned));
    EXPECT_FALSE(settled.planned.report.measurement.measured);
}

TEST(Planner, InspectCompilesOnlyWhatItTimes) {
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(untimed()));
    int compiles = 0;
    compile::PlanTrials trials;
    trials.compile_only_to_time = true;
    trials.compile = [&](const compile::PlannedMethod&) -> std::optional<compile::CompileRefusal> {
        ++compiles;
        return std::nullopt;
    };
    const auto settled = compile::settle(method, compile::parse_settings(untimed()), trials);
    EXPECT_EQ(compiles, 0);
    EXPECT_TRUE(has_openvino_step(settled.planned));

    bool asked = false;
    auto timed = accepting("cpu", &asked);
    timed.compile_only_to_time = true;
    EXPECT_TRUE(compile::settle(method, compile::parse_settings(LoadOptions{}), timed).cpu_plan_chosen);
    EXPECT_TRUE(asked);
}

TEST(Planner, WorthTimingOnlySmallStaticProgramsOnTheCpuDevice) {
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(LoadOptions{}));
    const auto planned = compile::plan(method, compile::parse_settings(LoadOptions{}));
    EXPECT_TRUE(compile::worth_timing(method, planned, compile::parse_settings(LoadOptions{})));
    EXPECT_FALSE(compile::worth_timing(method, planned, compile::parse_settings(untimed())));
    LoadOptions strict;
    strict.strict = true;
    EXPECT_FALSE(compile::worth_timing(method, planned, compile::parse_settings(strict)));
    LoadOptions gpu;
    gpu.device = "GPU";
    EXPECT_FALSE(compile::worth_timing(method, planned, compile::parse_settings(gpu)));
    // basic.pt2 mutates a buffer and has a dynamic batch.
    const auto basic = compile::prepare(fixture("basic.pt2"), compile::parse_settings(LoadOptions{}));
    EXPECT_FALSE(compile::worth_timing(basic, compile::plan(basic, compile::parse_settings(LoadOptions{})), compile::parse_settings(LoadOptions{})));
    EXPECT_EQ(compile::faster_side(10, 8.9), "cpu");
    EXPECT_EQ(compile::faster_side(10, 9.1), "openvino");  // a near tie keeps the rules' plan
}

}  // namespace

namespace {

compile::PlanTrials compiling_anything() {
    compile::PlanTrials trials;
    trials.compile = [](const compile::PlannedMethod&) -> std::optional<compile::CompileRefusal> { return std::nullopt; };
    return trials;
}

// --verify's rounds: a step that fails verification sends its nodes to the CPU kernels, and the
// plan those failures give is verified again, until a round finds nothing.
TEST(Planner, AStepThatFailsVerificationMovesAndThePlanIsVerifiedAgain) {
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(untimed()));
    const int sin = node_index(method, "aten.sin.default");
    std::vector<size_t> failures_seen;
    compile::PlanTrials trials = compiling_anything();
    trials.verify = compile::VerifyTrial{};
    trials.verify->round = [&](const compile::PlannedMethod& planned, const std::map<std::string, std::string>& failures) {
        failures_seen.push_back(failures.size());
        std::map<size_t, std::string> failing;
        for (size_t s = 0; s < planned.plan.steps.size(); ++s) {
            if (planned.plan.steps[s].where == partition::Where::OpenVINO) failing[s] = "disagrees on value sin";
        }
        return failing;
    };
    const auto settled = compile::settle(method, compile::parse_settings(untimed()), trials);
    EXPECT_EQ(failures_seen.front(), 0u);
    EXPECT_GT(failures_seen.back(), 0u);  // the second round verified the plan the first one's failures give
    EXPECT_EQ(settled.planned.plan.where.at(static_cast<size_t>(sin)), partition::Where::Cpu);
    EXPECT_FALSE(has_openvino_step(settled.planned));
    ASSERT_FALSE(settled.verify_moves.empty());
    EXPECT_NE(settled.verify_moves[0].find("moved to the CPU kernels: OpenVINO's step 1 disagrees on value sin"), std::string::npos)
        << settled.verify_moves[0];
    EXPECT_NE(reason_of(settled.planned, sin).find("disagrees on value sin"), std::string::npos) << reason_of(settled.planned, sin);
}

TEST(Planner, VerificationUnderStrictRefusesAFailingStep) {
    LoadOptions options = untimed();
    options.strict = true;
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(options));
    compile::PlanTrials trials = compiling_anything();
    trials.verify = compile::VerifyTrial{};
    trials.verify->round = [](const compile::PlannedMethod&, const std::map<std::string, std::string>&) {
        return std::map<size_t, std::string>{{0, "killed the verifying process"}};
    };
    try {
        compile::settle(method, compile::parse_settings(options), trials);
        FAIL() << "no error";
    } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find("--strict: verified at load, step 1 moved"), std::string::npos) << e.what();
    }
}

TEST(Planner, KnownVerificationFailuresRunNoRoundAndPlaceTheirNodes) {
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(untimed()));
    const int sin = node_index(method, "aten.sin.default");
    compile::PlanTrials trials = compiling_anything();
    trials.verify = compile::VerifyTrial{};
    trials.verify->known_failures = std::map<std::string, std::string>{
        {method.graph.nodes[static_cast<size_t>(sin)].source_name(), "OpenVINO's step 1 disagreed (cached)"}};
    trials.verify->round = [](const compile::PlannedMethod&, const std::map<std::string, std::string>&) -> std::map<size_t, std::string> {
        ADD_FAILURE() << "a round ran although the failures were known";
        return {};
    };
    const auto settled = compile::settle(method, compile::parse_settings(untimed()), trials);
    EXPECT_EQ(settled.planned.plan.where.at(static_cast<size_t>(sin)), partition::Where::Cpu);
    EXPECT_TRUE(settled.verify_moves.empty());
}

TEST(Planner, VerificationEndsAfterItsLastRound) {
    const auto method = compile::prepare(fixture("tiny.pt2"), compile::parse_settings(untimed()));
    int rounds = 0;
    compile::PlanTrials trials = compiling_anything();
    trials.verify = compile::VerifyTrial{};
    trials.verify->round = [&](const compile::PlannedMethod&, const std::map<std::string, std::string>&) {
        ++rounds;
        return std::map<size_t, std::string>{{99, "a step the plan does not have"}};  // never settles
    };
    compile::settle(method, compile::parse_settings(untimed()), trials);
    EXPECT_EQ(rounds, compile::kMaxVerifyRounds);
}

}  // namespace
