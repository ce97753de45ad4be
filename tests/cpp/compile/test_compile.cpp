// The load pipeline's stages, each run alone on the fixture archives (../fixtures).
#include <gtest/gtest.h>

#include "../fixtures/fixtures.h"
#include "../fixtures/graph_builder.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"
#include "common/error.h"
#include "compile/compile.h"
#include "compile/stages.h"
#include "openvino/op/add.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/gather.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/random_uniform.hpp"
#include "openvino/op/result.hpp"
#include "openvino/op/sin.hpp"

namespace {

using namespace pt2ov;
using pt2ov::test::fixture;

bool has_target(const graph::Graph& graph, const std::string& target) {
    for (const auto& node : graph.nodes) {
        if (node.target == target) return true;
    }
    return false;
}

compile::PreparedMethod prepared(const std::string& name) { return compile::prepare(fixture(name), compile::parse_settings({})); }

TEST(CompileRead, ParsesTheMethodAndNamesIt) {
    const auto method = compile::read(fixture("tiny.pt2"), "forward");
    EXPECT_EQ(method.where, "tiny.pt2, method forward");
    EXPECT_EQ(method.model, "model");
    EXPECT_TRUE(has_target(method.graph, "aten.sin.default"));
    EXPECT_TRUE(method.user_inputs.empty());  // bound later, by bind_signature
}

TEST(CompileRead, UnknownMethodNamesTheOnesThereAre) {
    try {
        compile::read(fixture("tiny.pt2"), "backward");
        FAIL() << "no error";
    } catch (const OptionError& e) {
        EXPECT_NE(std::string(e.what()).find("no method 'backward'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("forward"), std::string::npos) << e.what();
    }
}

TEST(CompileRewrite, InPlaceBufferUpdateBecomesAMutationOutput) {
    auto method = compile::read(fixture("basic.pt2"), "forward");
    ASSERT_TRUE(has_target(method.graph, "aten.add_.Tensor"));
    compile::check(method);
    compile::rewrite(method);
    EXPECT_FALSE(has_target(method.graph, "aten.add_.Tensor"));
    size_t mutations = 0;
    for (const auto& spec : method.graph.output_specs) {
        if (spec.kind == graph::OutputSpec::Kind::BufferMutation) {
            ++mutations;
            EXPECT_EQ(spec.target, "count");
        }
    }
    EXPECT_EQ(mutations, 1u);
}

// `self.b += x` as torch 2.13 exports it: add_(b, x), then copy_(b, add_). With `src_dtype` /
// `src_sizes` other than the buffer's, copy_ converts and expands.
graph::Graph copy_into_buffer(DType src_dtype, const std::vector<int64_t>& src_sizes) {
    test::GraphBuilder g;
    g.value("b", DType::Float32, {4});
    g.value("x", src_dtype, src_sizes);
    g.value("v", src_dtype, src_sizes);
    g.value("copy_", DType::Float32, {4});
    g.node("v", "aten.mul.Tensor", {{"self", graph::tensor_arg("x"), false}, {"other", graph::tensor_arg("x"), false}},
           {graph::tensor_arg("v")});
    g.node("copy_", "aten.copy_.default", {{"self", graph::tensor_arg("b"), false}, {"src", graph::tensor_arg("v"), false}},
           {graph::tensor_arg("copy_")});
    g.graph.inputs = {graph::tensor_arg("b"), graph::tensor_arg("x")};
    g.graph.input_specs = {{graph::InputSpec::Kind::Buffer, graph::tensor_arg("b"), "b"},
                           {graph::InputSpec::Kind::UserInput, graph::tensor_arg("x"), ""}};
    g.graph.outputs = {graph::tensor_arg("copy_")};
    g.graph.output_specs = {{graph::OutputSpec::Kind::UserOutput, graph::tensor_arg("copy_"), ""}};
    graph::check_and_resolve(g.graph, "test");
    graph::functionalize_in_place_ops(g.graph, "test");
    return std::move(g.graph);
}

TEST(CompileRewrite, CopyIntoTheBufferGivesTheSourceItself) {
    // Same sizes and dtype: the new value is src, no node is made (no functional aten.copy,
    // which OpenVINO converts to a Broadcast that crashes on 0-d tensors: EXACTNESS.md O10).
    const auto same = copy_into_buffer(DType::Float32, {4});
    ASSERT_EQ(same.nodes.size(), 1u);
    EXPECT_EQ(same.nodes[0].target, "aten.mul.Tensor");
    ASSERT_EQ(same.output_specs.size(), 2u);
    EXPECT_EQ(same.output_specs[0].kind, graph::OutputSpec::Kind::BufferMutation);
    EXPECT_EQ(same.outputs[0].name, "v");
    EXPECT_EQ(same.outputs[1].name, "v");  // what read copy_'s result reads src

    // Another dtype and a 0-d source: converted, then expanded to the buffer.
    const auto other = copy_into_buffer(DType::Float64, {});
    ASSERT_EQ(other.nodes.size(), 3u);
    EXPECT_EQ(other.nodes[1].target, "aten._to_copy.default");
    EXPECT_EQ(other.nodes[2].target, "aten.expand.default");
    EXPECT_EQ(other.value(other.outputs[0].name).meta.dtype, DType::Float32);
    EXPECT_EQ(other.value(other.outputs[0].name).meta.static_sizes(), (std::vector<int64_t>{4}));
    EXPECT_EQ(other.nodes[2].origin, "copy_");
    EXPECT_EQ(other.nodes[2].origin_target, "aten.copy_.default");
}

TEST(ProgramState, ReadWriteResetThroughThePublicApi) {
    auto program = Program::load(fixture("basic.pt2"));
    ASSERT_EQ(program.state_names(), (std::vector<std::string>{"count"}));
    auto values = [](const Tensor& t) { return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel()); };
    EXPECT_EQ(values(program.read_state("count")), (std::vector<float>{0, 0}));
    std::vector<int64_t> shape = program.inputs()[0].shape;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] < 0) shape[d] = std::max<int64_t>(program.inputs()[0].dim_ranges[d].first, 2);
    }
    const Tensor x = Tensor::allocate(DType::Float32, shape);
    program.run({x});
    program.run({x});
    EXPECT_EQ(values(program.read_state("count")), (std::vector<float>{2, 2}));
    std::vector<float> ten{10, 20};
    program.write_state("count", Tensor::view(DType::Float32, {2}, ten.data()));
    program.run({x});
    EXPECT_EQ(values(program.read_state("count")), (std::vector<float>{11, 21}));
    program.reset_state();
    EXPECT_EQ(values(program.read_state("count")), (std::vector<float>{0, 0}));
    program.run({x});
    EXPECT_EQ(values(program.read_state("count")), (std::vector<float>{1, 1}));
    EXPECT_THROW(program.write_state("table", Tensor::allocate(DType::Float32, {3, 4})), InputError);  // read, not state
    EXPECT_THROW(program.write_state("count", Tensor::allocate(DType::Float32, {3})), InputError);
    EXPECT_THROW(program.read_state("scratch"), InputError);
}

TEST(CompileReport, ListsEachMutatedBuffer) {
    const auto report = Program::inspect(fixture("basic.pt2"));
    ASSERT_EQ(report.state.size(), 1u);
    EXPECT_EQ(report.state[0].name, "count");
    EXPECT_EQ(report.state[0].dtype, DType::Float32);
    EXPECT_EQ(report.state[0].shape, (std::vector<int64_t>{2}));
    EXPECT_FALSE(report.state[0].update.empty());
    EXPECT_FALSE(report.state[0].carried.empty());
    LoadOptions on_cpu;
    on_cpu.cpu_ops = {"aten.add_"};
    const auto moved = Program::inspect(fixture("basic.pt2"), on_cpu);
    ASSERT_EQ(moved.state.size(), 1u);
    EXPECT_EQ(moved.state[0].update, "cpu");
    EXPECT_NE(moved.state[0].carried.find("a new tensor per call"), std::string::npos) << moved.state[0].carried;
}

TEST(CompileCheck, ResolvesEveryNodeAgainstItsSchema) {
    auto method = compile::read(fixture("basic.pt2"), "forward");
    compile::check(method);
    for (const auto& node : method.graph.nodes) {
        if (node.target.rfind("aten.", 0) != 0) continue;
        EXPECT_TRUE(node.schema) << node.name << " " << node.target;
        EXPECT_GE(node.arity(), node.inputs.size()) << node.name;
    }
}

TEST(CompileBindSignature, InputsConstantsAndMutatedBuffers) {
    const auto method = prepared("basic.pt2");
    ASSERT_EQ(method.user_inputs.size(), 1u);
    ASSERT_EQ(method.input_infos.size(), 1u);
    EXPECT_EQ(method.input_infos[0].shape.at(0), -1);  // the dynamic batch
    ASSERT_EQ(method.mutated_buffers.size(), 1u);
    EXPECT_EQ(method.mutated_buffers.begin()->second, "count");
    // A mutated buffer is state, not a constant.
    EXPECT_EQ(method.constants.count(method.mutated_buffers.begin()->first), 0u);
    EXPECT_FALSE(method.constants.empty());
    EXPECT_EQ(method.output_infos.size(), 4u);
}

TEST(CompileBindSignature, WeightsMustMatchTheProgramsValues) {
    for (const auto& [file, stored] : {std::pair{"weight_other_dtype.pt2", "int32 [2]"}, {"weight_other_shape.pt2", "float32 [1, 2]"}}) {
        try {
            prepared(file);
            ADD_FAILURE() << file << " was accepted";
        } catch (const ArchiveError& e) {
            const std::string message = e.what();
            for (const std::string part : {std::string(file), std::string("'scale'"), std::string(stored), std::string("float32 [2]")}) {
                EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;
            }
        }
    }
}

TEST(CompileLearnSupport, WholeMethodConvertedOnce) {
    const auto method = prepared("tiny.pt2");
    const auto support = compile::learn_support(method);
    ASSERT_EQ(support.whole.steps.size(), 1u);
    EXPECT_EQ(support.whole.steps[0].nodes.size(), method.graph.nodes.size());
    EXPECT_TRUE(support.unsupported.empty());
    ASSERT_TRUE(support.whole_conversion.model);
    EXPECT_TRUE(support.sources.runtime_inputs.count(method.user_inputs[0]));
}

TEST(CompilePlaceAndConvert, EveryOpenVINOStepConvertedAndOnlyThose) {
    const auto method = prepared("basic.pt2");
    auto support = compile::learn_support(method);
    const partition::PlacementOptions options{{"aten.relu"}, {}, false, "test"};
    const auto placement = compile::place_and_convert(method, support, options);
    size_t cpu_steps = 0;
    for (size_t s = 0; s < placement.plan.steps.size(); ++s) {
        const bool on_openvino = placement.plan.steps[s].where == partition::Where::OpenVINO;
        cpu_steps += !on_openvino;
        ASSERT_EQ(placement.conversions.count(s), on_openvino ? 1u : 0u) << "step " << s;
        if (!on_openvino) continue;
        EXPECT_TRUE(placement.conversions.at(s).model);
        EXPECT_TRUE(placement.conversions.at(s).unconverted.empty());
    }
    EXPECT_GE(cpu_steps, 1u);
    EXPECT_GE(placement.conversions.size(), 1u);
}

TEST(CompilePlaceAndConvert, WholeMethodReusesTheSupportConversion) {
    const auto method = prepared("tiny.pt2");
    auto support = compile::learn_support(method);
    const partition::PlacementOptions options{{}, {}, false, "test"};
    const auto placement = compile::place_and_convert(method, support, options);
    ASSERT_EQ(placement.conversions.size(), 1u);
    EXPECT_EQ(placement.conversions.at(0).model, support.whole_conversion.model);
}

TEST(CompileTakeOutAliases, InputsConstantsAndRepeatsLeaveTheModel) {
    auto x = std::make_shared<ov::op::v0::Parameter>(ov::element::f32, ov::Shape{2});
    x->set_friendly_name("x");
    auto sine = std::make_shared<ov::op::v0::Sin>(x);
    auto constant = ov::op::v0::Constant::create(ov::element::f32, ov::Shape{2}, {1.0f, 2.0f});
    auto model = std::make_shared<ov::Model>(
        ov::OutputVector{x->output(0), sine->output(0), sine->output(0), constant->output(0)}, ov::ParameterVector{x});
    partition::Step step;
    step.inputs = {"x"};
    step.outputs = {"copy", "sine", "sine_again", "weight_copy"};

    const auto lowered = compile::take_out_aliases(model, step);
    EXPECT_EQ(lowered.results, std::vector<std::string>{"sine"});
    EXPECT_EQ(lowered.parameters, std::vector<std::string>{"x"});
    ASSERT_TRUE(lowered.model);
    EXPECT_EQ(lowered.model->get_results().size(), 1u);
    ASSERT_EQ(lowered.aliases.size(), 3u);
    EXPECT_EQ(lowered.aliases[0].kind, compile::Alias::Kind::Input);
    EXPECT_EQ(lowered.aliases[0].value, "copy");
    EXPECT_EQ(lowered.aliases[0].source, "x");
    EXPECT_EQ(lowered.aliases[1].kind, compile::Alias::Kind::SameAs);
    EXPECT_EQ(lowered.aliases[1].source, "sine");
    EXPECT_EQ(lowered.aliases[2].kind, compile::Alias::Kind::Constant);
    EXPECT_EQ(lowered.aliases[2].constant, constant);
}

// Small results computing the same value from the same inputs (transformers' StaticLayer writes
// cache_position[0] + S into a buffer per layer) become one result and copies of it; the same op
// with another constant, a large result, or a random op's result stay results of their own.
TEST(CompileTakeOutAliases, RepeatedSmallResultsBecomeOne) {
    auto positions = std::make_shared<ov::op::v0::Parameter>(ov::element::i64, ov::Shape{4});
    positions->set_friendly_name("positions");
    auto first_plus = [&](int64_t amount) {
        auto first = std::make_shared<ov::op::v8::Gather>(positions, ov::op::v0::Constant::create(ov::element::i64, {}, {0}),
                                                          ov::op::v0::Constant::create(ov::element::i64, {}, {0}));
        return std::make_shared<ov::op::v1::Add>(first, ov::op::v0::Constant::create(ov::element::i64, {}, {amount}))->output(0);
    };
    auto wide = std::make_shared<ov::op::v0::Parameter>(ov::element::f32, ov::Shape{100});
    wide->set_friendly_name("wide");
    auto sine_of_wide = [&] { return std::make_shared<ov::op::v0::Sin>(wide)->output(0); };
    auto random = [&] {
        return std::make_shared<ov::op::v8::RandomUniform>(ov::op::v0::Constant::create(ov::element::i64, {1}, {2}),
                                                           ov::op::v0::Constant::create(ov::element::f32, {}, {0.0f}),
                                                           ov::op::v0::Constant::create(ov::element::f32, {}, {1.0f}),
                                                           ov::element::f32, 7, 9)->output(0);
    };
    auto model = std::make_shared<ov::Model>(
        ov::OutputVector{first_plus(1), first_plus(1), first_plus(2), first_plus(1), sine_of_wide(), sine_of_wide(), random(), random()},
        ov::ParameterVector{positions, wide});
    partition::Step step;
    step.inputs = {"positions", "wide"};
    step.outputs = {"n0", "n1", "other", "n3", "big0", "big1", "draw0", "draw1"};
    const auto lowered = compile::take_out_aliases(model, step);
    EXPECT_EQ(lowered.results, (std::vector<std::string>{"n0", "other", "big0", "big1", "draw0", "draw1"}));
    ASSERT_EQ(lowered.aliases.size(), 2u);
    for (const auto& alias : lowered.aliases) {
        EXPECT_EQ(alias.kind, compile::Alias::Kind::SameAs);
        EXPECT_EQ(alias.source, "n0");
    }
    EXPECT_EQ(lowered.aliases[0].value, "n1");
    EXPECT_EQ(lowered.aliases[1].value, "n3");
}

TEST(CompileTakeOutAliases, AModelOfOnlyAliasesIsDropped) {
    auto x = std::make_shared<ov::op::v0::Parameter>(ov::element::f32, ov::Shape{2});
    x->set_friendly_name("x");
    auto model = std::make_shared<ov::Model>(ov::OutputVector{x->output(0)}, ov::ParameterVector{x});
    partition::Step step;
    step.inputs = {"x"};
    step.outputs = {"copy"};
    const auto lowered = compile::take_out_aliases(model, step);
    EXPECT_FALSE(lowered.model);
    EXPECT_EQ(lowered.aliases.size(), 1u);
}

TEST(CompileTakeOutAliases, ResultCountMismatchIsAnError) {
    auto x = std::make_shared<ov::op::v0::Parameter>(ov::element::f32, ov::Shape{2});
    auto model = std::make_shared<ov::Model>(ov::OutputVector{x->output(0)}, ov::ParameterVector{x});
    partition::Step step;  // no outputs for one result
    EXPECT_THROW(compile::take_out_aliases(model, step), Error);
}

TEST(CompileReport, StepsReasonsAndConstants) {
    LoadOptions options;
    options.cpu_ops = {"aten.relu"};
    const auto settings = compile::parse_settings(options);
    const auto method = compile::prepare(fixture("basic.pt2"), settings);
    const auto planned = compile::plan(method, settings);
    const auto& report = planned.report;
    EXPECT_EQ(report.method, "forward");
    EXPECT_FALSE(report.openvino_version.empty());
    bool relu_on_cpu = false;
    size_t listed = 0;
    for (const auto& step : report.steps) {
        listed += step.nodes.size();
        for (const auto& node : step.nodes) {
            if (node.target != "aten.relu.default") continue;
            relu_on_cpu = step.kind == "cpu" && node.reason.find("--cpu-op aten.relu") != std::string::npos;
        }
    }
    EXPECT_TRUE(relu_on_cpu);
    EXPECT_GE(listed, 5u);

    const auto tiny = compile::plan(prepared("tiny.pt2"), compile::parse_settings({}));
    ASSERT_EQ(tiny.report.steps.size(), 1u);
    EXPECT_EQ(tiny.report.steps[0].kind, "openvino");
    EXPECT_EQ(tiny.report.constant_count, 1u);
    EXPECT_EQ(tiny.report.constant_bytes, 2 * sizeof(float));
}

}  // namespace
