// The placement passes, each on a graph built by hand.
#include <gtest/gtest.h>

#include "../fixtures/graph_builder.h"
#include "graph/schema.h"
#include "partition/plan.h"
#include "pt2ov/error.h"

namespace pt2ov::partition {
namespace {

using graph::Argument;
using Kind = graph::Argument::Kind;

Argument tensor(const std::string& name) { return graph::tensor_arg(name); }

// Chains and diamonds of float ops over [n] tensors (b.sizes, 16 unless set): each node named
// after its output.
using test::GraphBuilder;

ValueSources inputs(std::set<std::string> names) {
    ValueSources sources;
    sources.runtime_inputs = std::move(names);
    return sources;
}

TEST(Placement, OpNamesMatchWithOrWithoutOverload) {
    EXPECT_TRUE(op_matches("aten.atan", "aten.atan.default"));
    EXPECT_TRUE(op_matches("aten.atan.default", "aten.atan.default"));
    EXPECT_FALSE(op_matches("aten.atan", "aten.atan2.default"));
    EXPECT_FALSE(op_matches("aten.atan.out", "aten.atan.default"));
}

TEST(Placement, UserListsWinOverSupport) {
    GraphBuilder b;
    b.sizes = {1 << 20};  // too big for the small-step rule
    b.value("x");
    b.node("s", "aten.sin.default", {"x"});
    b.node("c", "aten.cos.default", {"s"});
    b.graph.outputs = {tensor("c")};
    PlacementOptions options;
    options.cpu_nodes = {"c"};
    const Plan plan = place(b.graph, {}, inputs({"x"}), options);
    EXPECT_EQ(plan.where[0], Where::OpenVINO);
    EXPECT_EQ(plan.where[1], Where::Cpu);
    EXPECT_NE(plan.reason[1].find("--cpu-node c"), std::string::npos);
}

// Program::load gives the nodes of a step OpenVINO could not compile back to placement: they
// run on the CPU kernels with the plugin's words in their reason, the rest stay.
TEST(Placement, NodesOfAStepThatFailedToCompileRunOnTheCpu) {
    GraphBuilder b;
    b.sizes = {1 << 20};
    b.value("x");
    b.node("s", "aten.sin.default", {"x"});
    b.node("c", "aten.cos.default", {"s"});
    b.graph.outputs = {tensor("c")};
    PlacementOptions options;
    options.openvino_version = "2026.4.1";
    options.compile_failures = {{"s", "object is not initialized"}};
    const Plan plan = place(b.graph, {}, inputs({"x"}), options);
    EXPECT_EQ(plan.where[0], Where::Cpu);
    EXPECT_EQ(plan.where[1], Where::OpenVINO);
    EXPECT_NE(plan.reason[0].find("could not compile the step that held it (object is not initialized)"), std::string::npos)
        << plan.reason[0];
}

// The all-CPU plan Program::load times against the rules' plan: every node with a kernel on
// the CPU with the reason given, in one step; a node the rules already put there keeps its own.
TEST(Placement, AllOnCpuPutsEveryNodeWithAKernelInOneCpuStep) {
    GraphBuilder b;
    b.value("x");
    b.node("s", "aten.sin.default", {"x"});
    b.node("c", "aten.cos.default", {"s"});
    b.graph.outputs = {tensor("c")};
    PlacementOptions options;
    options.cpu_nodes = {"s"};
    options.all_on_cpu_reason = "timed";
    const Plan plan = place(b.graph, {}, inputs({"x"}), options);
    EXPECT_EQ(plan.where, (std::vector<Where>{Where::Cpu, Where::Cpu}));
    EXPECT_NE(plan.reason[0].find("--cpu-node s"), std::string::npos) << plan.reason[0];
    EXPECT_EQ(plan.reason[1], "timed");
    ASSERT_EQ(plan.steps.size(), 1u);
    EXPECT_EQ(plan.steps[0].where, Where::Cpu);
}

TEST(Placement, StrictRefusesAnyCpuNodeNamingIt) {
    GraphBuilder b;
    b.value("x");
    b.node("s", "aten.sin.default", {"x"});
    b.graph.outputs = {tensor("s")};
    PlacementOptions options;
    options.strict = true;
    try {
        place(b.graph, {{"s", "no converter"}}, inputs({"x"}), options);
        FAIL() << "strict placement accepted a node OpenVINO cannot take";
    } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find("s (aten.sin.default)"), std::string::npos) << e.what();
    }
}

TEST(Placement, NoKernelAndNoOpenVINOIsAClearError) {
    GraphBuilder b;
    b.value("x");
    b.node("m", "aten.no_such_op.default", {"x"});
    b.graph.outputs = {tensor("m")};
    try {
        place(b.graph, {{"m", "no converter"}}, inputs({"x"}), {});
        FAIL();
    } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find("no CPU kernel for aten.no_such_op.default"), std::string::npos) << e.what();
    }
}

// Pass 2: a node meeting a converter fault's condition (openvino_facts::converter_fault) runs
// on the CPU naming the fact; the same op outside the condition stays on OpenVINO; --strict
// refuses it naming the fact.
TEST(Placement, ConverterFaultsRunOnTheCpuNamingTheFact) {
    GraphBuilder b;
    b.sizes = {1 << 20};  // too big for the small-step rule
    b.value("x");
    b.value("scalar", DType::Float32, {});
    b.node("e", "aten.erfinv.default", {"x"});
    b.node("s", "aten.sin.default", {"e"});
    b.value("nz0", DType::Int64, {1, 0});
    b.value("nz1", DType::Int64, {16, 1});
    b.node("nz0", "aten.nonzero.default", {{"self", tensor("scalar"), false}}, {tensor("nz0")});
    b.node("nz1", "aten.nonzero.default", {{"self", tensor("x"), false}}, {tensor("nz1")});
    for (auto& node : b.graph.nodes) graph::resolve_node(node, "test");
    b.graph.outputs = {tensor("s"), tensor("nz0"), tensor("nz1")};
    const Plan plan = place(b.graph, {}, inputs({"x", "scalar"}), {});
    EXPECT_EQ(plan.where[0], Where::Cpu);
    EXPECT_NE(plan.reason[0].find("converts it wrongly"), std::string::npos) << plan.reason[0];
    EXPECT_NE(plan.reason[0].find("(openvino_facts ErfinvImprecise)"), std::string::npos) << plan.reason[0];
    EXPECT_EQ(plan.where[1], Where::OpenVINO);
    EXPECT_EQ(plan.where[2], Where::Cpu);  // nonzero of a 0-d tensor
    EXPECT_NE(plan.reason[2].find("NonzeroOfZeroDimHasAColumn"), std::string::npos) << plan.reason[2];
    EXPECT_EQ(plan.where[3], Where::OpenVINO);  // nonzero of a 1-d tensor is right on OpenVINO

    PlacementOptions strict;
    strict.strict = true;
    try {
        place(b.graph, {}, inputs({"x", "scalar"}), strict);
        FAIL() << "strict placement accepted a node OpenVINO converts wrongly";
    } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find("e (aten.erfinv.default): OpenVINO 2026.4.1 converts it wrongly"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("openvino_facts NonzeroOfZeroDimHasAColumn"), std::string::npos) << e.what();
    }
}

// x → a(ov) → b(cpu) → d(ov);  x → c(ov) → d: staying on one kind keeps a and c together,
// where the stored order (a, b, c, d) would cut three OpenVINO steps.
TEST(Placement, StepsAreMaximalAndFollowDependencies) {
    GraphBuilder b;
    b.sizes = {1 << 20};  // too big for the small-step rule
    b.value("x");
    b.node("a", "aten.sin.default", {"x"});
    b.node("b", "aten.cos.default", {"a"});
    b.node("c", "aten.exp.default", {"x"});
    b.node("d", "aten.add.Tensor", {"b", "c"});
    b.graph.outputs = {tensor("d")};
    PlacementOptions options;
    options.cpu_nodes = {"b"};
    const Plan plan = place(b.graph, {}, inputs({"x"}), options);
    ASSERT_EQ(plan.steps.size(), 3u);
    EXPECT_EQ(plan.steps[0].where, Where::OpenVINO);
    EXPECT_EQ(plan.steps[0].nodes, (std::vector<int>{0, 2}));
    EXPECT_EQ(plan.steps[1].nodes, (std::vector<int>{1}));
    EXPECT_EQ(plan.steps[2].nodes, (std::vector<int>{3}));
    // Edges: step 1 hands a on to the CPU and c past it to step 3.
    EXPECT_EQ(plan.steps[0].inputs, (std::vector<std::string>{"x"}));
    EXPECT_EQ(plan.steps[0].outputs, (std::vector<std::string>{"a", "c"}));
    EXPECT_EQ(plan.steps[2].inputs, (std::vector<std::string>{"b", "c"}));
    EXPECT_EQ(plan.steps[2].outputs, (std::vector<std::string>{"d"}));
}

// Pass 3c: what reads constants only is computed once at load on the CPU kernels, in one step
// taken first, except the moves at the end of such a chain (a weight's transpose), which stay in
// the OpenVINO step that reads them; that CPU step cuts no OpenVINO step and makes no small
// OpenVINO step go to the CPU; --strict keeps everything on OpenVINO.
TEST(Placement, WhatReadsConstantsOnlyIsComputedOnceAtLoad) {
    GraphBuilder b;
    b.sizes = {1 << 20};
    b.value("x");
    b.value("w");
    b.node("a", "aten.sin.default", {"x"});
    b.node("s", "aten.mul.Tensor", {"w", "w"});         // 1: constants only
    b.node("t", "aten.neg.default", {"s"});             // 2: reads what 1 made
    b.node("v", "aten.alias.default", {"t"});           // 3: a move at the end of the chain
    b.node("d", "aten.add.Tensor", {"a", "v"});
    b.graph.outputs = {tensor("d")};
    ValueSources sources = inputs({"x"});
    sources.constants = {"w"};
    sources.moving_nodes = {"v"};
    const Plan plan = place(b.graph, {}, sources, {});
    EXPECT_EQ(plan.where[0], Where::OpenVINO);
    for (int i : {1, 2}) {
        EXPECT_EQ(plan.where[i], Where::Cpu);
        EXPECT_TRUE(plan.at_load[i]);
        EXPECT_EQ(plan.reason[i].rfind("computed once at load", 0), 0u) << plan.reason[i];
    }
    EXPECT_EQ(plan.where[3], Where::OpenVINO) << plan.reason[3];
    EXPECT_FALSE(plan.at_load[3]);
    ASSERT_EQ(plan.steps.size(), 2u);
    EXPECT_EQ(plan.steps[0].where, Where::Cpu);
    EXPECT_EQ(plan.steps[0].nodes, (std::vector<int>{1, 2}));
    EXPECT_EQ(plan.steps[1].nodes, (std::vector<int>{0, 3, 4}));
    EXPECT_EQ(plan.steps[1].inputs, (std::vector<std::string>{"x", "t"}));

    PlacementOptions strict;
    strict.strict = true;
    const Plan kept = place(b.graph, {}, sources, strict);
    ASSERT_EQ(kept.steps.size(), 1u);
    EXPECT_EQ(kept.steps[0].where, Where::OpenVINO);
}

// A node of such a chain that an earlier pass put on the CPU kernels is computed at load too,
// even where OpenVINO's conversion folded it away (a passthrough, as a move is): NNCF's int4
// `q - 8` in int8, which the plugin would saturate, ran at every call before (with the chain's
// unpacked integers handed to OpenVINO as a Parameter, not a 4-bit Constant).
TEST(Placement, AConstantChainNodeOnTheCpuIsComputedAtLoadEvenWhereItLooksLikeAMove) {
    GraphBuilder b;
    b.sizes = {1 << 20};
    b.value("x");
    b.value("w");
    b.node("s", "aten.neg.default", {"w"});       // 0: constants only
    b.node("t", "aten.alias.default", {"s"});     // 1: a move (NNCF's conversion to int8)
    b.node("u", "aten.exp.default", {"t"});       // 2: on the CPU kernels (NNCF's q - 8), folded by OpenVINO
    b.node("v", "aten.alias.default", {"u"});     // 3: a move at the end of the chain (the reshape)
    b.node("d", "aten.add.Tensor", {"x", "v"});   // 4
    b.graph.outputs = {tensor("d")};
    ValueSources sources = inputs({"x"});
    sources.constants = {"w"};
    sources.passthrough_nodes = {"u"};
    sources.moving_nodes = {"t", "v"};
    PlacementOptions options;
    options.cpu_nodes = {"u"};
    const Plan plan = place(b.graph, {}, sources, options);
    for (int i : {0, 1, 2}) {
        EXPECT_EQ(plan.where[i], Where::Cpu) << i << ": " << plan.reason[i];
        EXPECT_TRUE(plan.at_load[i]) << i << ": " << plan.reason[i];
    }
    EXPECT_EQ(plan.where[3], Where::OpenVINO) << plan.reason[3];
    ASSERT_EQ(plan.steps.size(), 2u);
    EXPECT_EQ(plan.steps[0].nodes, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(plan.steps[1].where, Where::OpenVINO);
}

// A small program whose only CPU work is done at load stays whole on OpenVINO at every call.
TEST(Placement, WorkAtLoadMakesNoSmallStepGoToTheCpu) {
    GraphBuilder b;  // 16 elements per tensor
    b.value("x");
    b.value("w");
    b.node("s", "aten.mul.Tensor", {"w", "w"});
    b.node("a", "aten.add.Tensor", {"x", "s"});
    b.graph.outputs = {tensor("a")};
    ValueSources sources = inputs({"x"});
    sources.constants = {"w"};
    const Plan plan = place(b.graph, {}, sources, {});
    ASSERT_EQ(plan.steps.size(), 2u);
    EXPECT_TRUE(plan.at_load[0]);
    EXPECT_EQ(plan.where[1], Where::OpenVINO) << plan.reason[1];
}

TEST(Placement, SmallStepsBetweenCpuStepsRunOnTheCpu) {
    GraphBuilder b;  // 16 elements per tensor
    b.value("x");
    b.node("a", "aten.sin.default", {"x"});
    b.node("b", "aten.cos.default", {"a"});
    b.node("c", "aten.exp.default", {"b"});
    b.graph.outputs = {tensor("c")};
    PlacementOptions options;
    options.cpu_nodes = {"b"};
    const Plan plan = place(b.graph, {}, inputs({"x"}), options);
    ASSERT_EQ(plan.steps.size(), 1u);
    EXPECT_EQ(plan.steps[0].where, Where::Cpu);
    EXPECT_NE(plan.reason[0].find("small step"), std::string::npos) << plan.reason[0];
}

// A step that only reshapes, views or casts runs on the CPU between CPU steps whatever its size
// (a mixture of experts' top-k outputs reshaped between its top-k and its sort); a step that
// computes, as large, stays on OpenVINO.
TEST(Placement, LargeStepsThatOnlyMoveDataBetweenCpuStepsRunOnTheCpu) {
    for (const std::string middle : {"aten.clone.default", "aten.sin.default"}) {
        GraphBuilder b;
        b.sizes = {1 << 20};
        b.value("x");
        b.node("a", "aten.cos.default", {"x"});
        b.node("m", middle, {"a"});
        b.node("n", "aten.alias.default", {"m"});
        b.node("c", "aten.exp.default", {"n"});
        b.graph.outputs = {tensor("c")};
        PlacementOptions options;
        options.cpu_nodes = {"a", "c"};
        const Plan plan = place(b.graph, {}, inputs({"x"}), options);
        if (middle == "aten.clone.default") {
            ASSERT_EQ(plan.steps.size(), 1u) << middle;
            EXPECT_EQ(plan.steps[0].where, Where::Cpu);
            EXPECT_NE(plan.reason[1].find("reshapes, views or casts only"), std::string::npos) << plan.reason[1];
        } else {
            ASSERT_EQ(plan.steps.size(), 3u) << middle;
            EXPECT_EQ(plan.where[1], Where::OpenVINO) << plan.reason[1];
        }
    }
}

TEST(Placement, AWholeProgramOnOpenVINOStaysThereHoweverSmall) {
    GraphBuilder b;
    b.value("x");
    b.node("a", "aten.sin.default", {"x"});
    b.graph.outputs = {tensor("a")};
    const Plan plan = place(b.graph, {}, inputs({"x"}), {});
    ASSERT_EQ(plan.steps.size(), 1u);
    EXPECT_EQ(plan.steps[0].where, Where::OpenVINO);
}

TEST(Placement, Int64ArithmeticRunsOnTheCpuAndTaintsItsReaders) {
    GraphBuilder b;
    b.sizes = {1 << 20};
    b.value("i", DType::Int64);
    b.node("m", "aten.mul.Tensor", {"i", "i"}, DType::Int64);
    b.node("g", "aten.gt.Tensor", {"m", "i"}, DType::Bool);
    b.node("f", "aten.sin.default", {"g"});
    b.graph.outputs = {tensor("f")};
    const Plan plan = place(b.graph, {}, inputs({"i"}), {});
    EXPECT_EQ(plan.where[0], Where::Cpu);  // int64 from int64
    EXPECT_EQ(plan.where[1], Where::Cpu);  // reads a value that may exceed 32 bits
    EXPECT_EQ(plan.where[2], Where::OpenVINO);
}

}  // namespace
}  // namespace pt2ov::partition
