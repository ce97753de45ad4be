// The executor on plans built by hand: CPU steps, OpenVINO steps from hand-made models, values
// made where OpenVINO would alias, mutated buffers across calls, caller outputs, int64 checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "../fixtures/graph_builder.h"
#include "common/error.h"
#include "compile/method.h"
#include "graph/schema.h"
#include "openvino/op/add.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/result.hpp"
#include "openvino/op/sin.hpp"
#include "runtime/executor.h"

namespace {

using namespace pt2ov;
using graph::Argument;

constexpr int64_t kSize = 4;

// A method over [kSize] tensors, its plan and its OpenVINO models, written out by hand.
struct HandPlan {
    test::GraphBuilder builder;  // the method's graph, moved into `prepared` by build()
    compile::PreparedMethod prepared;
    compile::PlannedMethod planned;
    std::vector<float> buffer_bytes;  // the "archive" memory of a mutated buffer

    HandPlan() {
        prepared.where = "hand.pt2, method forward";
        builder.sizes = {kSize};
    }

    graph::Graph& graph() { return builder.graph; }
    void input(const std::string& name, DType dtype = DType::Float32) {
        builder.value(name, dtype);
        prepared.user_inputs.push_back(name);
        prepared.input_infos.push_back(IOInfo{name, dtype, {kSize}, {{kSize, kSize}}});
        graph().inputs.push_back(graph::tensor_arg(name));
    }
    int node(const std::string& out, const std::string& target, std::vector<std::string> ins) {
        return builder.node(out, target, ins);
    }
    void output(const std::string& name) {
        graph().outputs.push_back(graph::tensor_arg(name));
        graph().output_specs.push_back({graph::OutputSpec::Kind::UserOutput, graph::tensor_arg(name), ""});
    }
    void mutated_buffer(const std::string& input, const std::string& new_value, std::vector<float> initial) {
        builder.value(input);
        buffer_bytes = std::move(initial);
        archive::StoredTensor stored;
        stored.name = "state";
        stored.meta = graph().values[input].meta;
        stored.storage = reinterpret_cast<const std::byte*>(buffer_bytes.data());
        stored.storage_bytes = buffer_bytes.size() * sizeof(float);
        prepared.stored.emplace("state", stored);
        prepared.mutated_buffers[input] = "state";
        // Mutations come first among the outputs, as torch.export writes them.
        graph().outputs.insert(graph().outputs.begin(), graph::tensor_arg(new_value));
        graph().output_specs.insert(graph().output_specs.begin(),
                                           {graph::OutputSpec::Kind::BufferMutation, graph::tensor_arg(new_value), "state"});
    }
    void cpu_step(std::vector<int> nodes, std::vector<std::string> inputs, std::vector<std::string> outputs) {
        planned.plan.steps.push_back({partition::Where::Cpu, std::move(nodes), std::move(inputs), std::move(outputs)});
    }
    void openvino_step(std::vector<int> nodes, std::vector<std::string> inputs, std::vector<std::string> outputs,
                       compile::OpenVINOStep lowered) {
        planned.openvino_steps[planned.plan.steps.size()] = std::move(lowered);
        planned.plan.steps.push_back({partition::Where::OpenVINO, std::move(nodes), std::move(inputs), std::move(outputs)});
    }
    std::unique_ptr<runtime::Executor> build() {
        prepared.graph = std::move(builder.graph);
        graph::check_and_resolve(prepared.graph, prepared.where);
        graph::number_values(prepared.graph);
        return std::make_unique<runtime::Executor>(prepared, planned, compile::parse_settings({}));
    }
};

std::shared_ptr<ov::op::v0::Parameter> parameter(const std::string& name, ov::element::Type type = ov::element::f32) {
    auto p = std::make_shared<ov::op::v0::Parameter>(type, ov::Shape{kSize});
    p->set_friendly_name(name);
    return p;
}

// An OpenVINO step computing `result` = sin(`input`), as conversion would hand it over.
compile::OpenVINOStep sine_step(const std::string& input, const std::string& result) {
    auto x = parameter(input);
    auto sine = std::make_shared<ov::op::v0::Sin>(x);
    compile::OpenVINOStep lowered;
    lowered.model = std::make_shared<ov::Model>(ov::OutputVector{sine->output(0)}, ov::ParameterVector{x});
    lowered.parameters = {input};
    lowered.results = {result};
    return lowered;
}

std::vector<float> floats(const Tensor& tensor) {
    std::vector<float> out(tensor.numel());
    std::memcpy(out.data(), tensor.data(), tensor.byte_size());
    return out;
}

std::vector<Tensor> run(runtime::Executor& executor, std::vector<float>& x) {
    std::vector<Tensor> outputs;
    executor.run({Tensor::view(DType::Float32, {kSize}, x.data())}, outputs);
    return outputs;
}

TEST(Executor, CpuStepsRunTheirKernelsInOrder) {
    HandPlan p;
    p.input("x");
    const int s = p.node("s", "aten.sin.default", {"x"});
    const int c = p.node("c", "aten.cos.default", {"s"});
    p.output("c");
    p.cpu_step({s, c}, {"x"}, {"c"});
    auto executor = p.build();
    std::vector<float> x{0.0f, 0.5f, 1.0f, -2.0f};
    const auto outputs = run(*executor, x);
    ASSERT_EQ(outputs.size(), 1u);
    const auto got = floats(outputs[0]);
    for (int64_t i = 0; i < kSize; ++i) EXPECT_FLOAT_EQ(got[i], std::cos(std::sin(x[i])));
}

TEST(Executor, OpenVINOStepThenCpuStep) {
    HandPlan p;
    p.input("x");
    const int s = p.node("s", "aten.sin.default", {"x"});
    const int c = p.node("c", "aten.cos.default", {"s"});
    p.output("c");
    auto lowered = sine_step("x", "s");
    p.openvino_step({s}, {"x"}, {"s"}, lowered);
    p.cpu_step({c}, {"s"}, {"c"});
    auto executor = p.build();
    std::vector<float> input{0.0f, 0.5f, 1.0f, -2.0f};
    for (int call = 0; call < 2; ++call) {
        const auto got = floats(run(*executor, input)[0]);
        for (int64_t i = 0; i < kSize; ++i) EXPECT_NEAR(got[i], std::cos(std::sin(input[i])), 1e-6);
        input[0] += 1.0f;
    }
    EXPECT_GT(executor->last_openvino_ns(), 0);
}

TEST(Executor, MadeValuesAreCopiesOwningTheirMemory) {
    HandPlan p;
    p.input("x");
    const int copy = p.node("copy", "aten.clone.default", {"x"});
    const int s = p.node("s", "aten.sin.default", {"x"});
    p.output("copy");
    p.output("s");
    p.output("s");  // one tensor returned twice: two tensors
    auto lowered = sine_step("x", "s");
    lowered.aliases = {compile::Alias{compile::Alias::Kind::Input, "copy", "x", nullptr}};
    p.openvino_step({copy, s}, {"x"}, {"copy", "s"}, lowered);
    auto executor = p.build();
    std::vector<float> input{1.0f, -0.0f, 1e-40f, 3.0f};
    const auto outputs = run(*executor, input);
    ASSERT_EQ(outputs.size(), 3u);
    EXPECT_NE(outputs[0].data(), input.data());
    EXPECT_EQ(std::memcmp(outputs[0].data(), input.data(), sizeof(float) * kSize), 0);  // bit for bit
    EXPECT_NE(outputs[1].data(), outputs[2].data());
    EXPECT_EQ(floats(outputs[1]), floats(outputs[2]));
    EXPECT_EQ(input, (std::vector<float>{1.0f, -0.0f, 1e-40f, 3.0f}));  // inputs never written
}

TEST(Executor, MutatedBufferCarriesOverOnOpenVINO) {
    HandPlan p;
    p.input("x");
    p.mutated_buffer("state_in", "state_out", {1, 2, 3, 4});
    const int add = p.node("state_out", "aten.add.Tensor", {"state_in", "x"});
    p.output("state_out");
    auto state = parameter("state_in");
    auto x = parameter("x");
    auto sum = std::make_shared<ov::op::v1::Add>(state, x);
    compile::OpenVINOStep lowered;
    lowered.model = std::make_shared<ov::Model>(ov::OutputVector{sum->output(0)}, ov::ParameterVector{state, x});
    lowered.parameters = {"state_in", "x"};
    lowered.results = {"state_out"};
    p.openvino_step({add}, {"state_in", "x"}, {"state_out"}, lowered);
    auto executor = p.build();
    std::vector<float> input{10, 20, 30, 40};
    EXPECT_EQ(floats(run(*executor, input)[0]), (std::vector<float>{11, 22, 33, 44}));
    EXPECT_EQ(floats(run(*executor, input)[0]), (std::vector<float>{21, 42, 63, 84}));
    const auto third = run(*executor, input);
    EXPECT_EQ(floats(third[0]), (std::vector<float>{31, 62, 93, 124}));
    EXPECT_EQ(p.buffer_bytes, (std::vector<float>{1, 2, 3, 4}));  // the archive's bytes are never written
    // What a call returned is the caller's: the next call does not change it.
    run(*executor, input);
    EXPECT_EQ(floats(third[0]), (std::vector<float>{31, 62, 93, 124}));
}

TEST(Executor, MutatedBufferCarriesOverOnTheCpu) {
    HandPlan p;
    p.input("x");
    p.mutated_buffer("state_in", "state_out", {1, 2, 3, 4});
    const int add = p.node("state_out", "aten.add.Tensor", {"state_in", "x"});
    p.output("state_out");
    p.cpu_step({add}, {"state_in", "x"}, {"state_out"});
    auto executor = p.build();
    std::vector<float> input{10, 20, 30, 40};
    run(*executor, input);
    EXPECT_EQ(floats(run(*executor, input)[0]), (std::vector<float>{21, 42, 63, 84}));
    EXPECT_EQ(p.buffer_bytes, (std::vector<float>{1, 2, 3, 4}));
}

// The state API: read, write (checked), reset, on a buffer OpenVINO updates and on one a CPU
// kernel updates.
void check_state_api(bool on_openvino) {
    HandPlan p;
    p.input("x");
    p.mutated_buffer("state_in", "state_out", {1, 2, 3, 4});
    const int add = p.node("state_out", "aten.add.Tensor", {"state_in", "x"});
    p.output("state_out");
    if (on_openvino) {
        auto state = parameter("state_in");
        auto x = parameter("x");
        auto sum = std::make_shared<ov::op::v1::Add>(state, x);
        compile::OpenVINOStep lowered;
        lowered.model = std::make_shared<ov::Model>(ov::OutputVector{sum->output(0)}, ov::ParameterVector{state, x});
        lowered.parameters = {"state_in", "x"};
        lowered.results = {"state_out"};
        p.openvino_step({add}, {"state_in", "x"}, {"state_out"}, lowered);
    } else {
        p.cpu_step({add}, {"state_in", "x"}, {"state_out"});
    }
    auto executor = p.build();
    EXPECT_EQ(executor->state_names(), (std::vector<std::string>{"state"}));
    EXPECT_EQ(floats(executor->read_state("state")), (std::vector<float>{1, 2, 3, 4}));

    std::vector<float> input{10, 20, 30, 40};
    run(*executor, input);
    const Tensor after_one = executor->read_state("state");
    EXPECT_EQ(floats(after_one), (std::vector<float>{11, 22, 33, 44}));
    run(*executor, input);
    // A state read is a copy: later calls do not change it.
    EXPECT_EQ(floats(after_one), (std::vector<float>{11, 22, 33, 44}));
    EXPECT_EQ(floats(executor->read_state("state")), (std::vector<float>{21, 42, 63, 84}));

    std::vector<float> written{100, 200, 300, 400};
    executor->write_state("state", Tensor::view(DType::Float32, {kSize}, written.data()));
    written[0] = -1;  // the value was copied
    EXPECT_EQ(floats(executor->read_state("state")), (std::vector<float>{100, 200, 300, 400}));
    EXPECT_EQ(floats(run(*executor, input)[0]), (std::vector<float>{110, 220, 330, 440}));
    EXPECT_EQ(floats(run(*executor, input)[0]), (std::vector<float>{120, 240, 360, 480}));

    executor->reset_state();
    EXPECT_EQ(floats(executor->read_state("state")), (std::vector<float>{1, 2, 3, 4}));
    EXPECT_EQ(floats(run(*executor, input)[0]), (std::vector<float>{11, 22, 33, 44}));
    EXPECT_EQ(p.buffer_bytes, (std::vector<float>{1, 2, 3, 4}));  // the archive's bytes are never written

    auto message = [&](auto&& f) {
        try {
            f();
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no InputError");
    };
    std::vector<double> doubles(kSize);
    std::vector<float> short_value(2);
    EXPECT_NE(message([&] { executor->read_state("nope"); }).find("'nope'"), std::string::npos);
    EXPECT_NE(message([&] { executor->write_state("nope", Tensor::view(DType::Float32, {kSize}, written.data())); })
                  .find("only the buffers 'state'"),
              std::string::npos);
    EXPECT_NE(message([&] { executor->write_state("state", Tensor::view(DType::Float64, {kSize}, doubles.data())); })
                  .find("state 'state' is float32 of shape (4,); the value given is float64 of shape (4,)"),
              std::string::npos);
    EXPECT_NE(message([&] { executor->write_state("state", Tensor::view(DType::Float32, {2}, short_value.data())); })
                  .find("the value given is float32 of shape (2,)"),
              std::string::npos);
    // A refused write leaves the state as it was.
    EXPECT_EQ(floats(executor->read_state("state")), (std::vector<float>{11, 22, 33, 44}));
}

TEST(Executor, StateReadWriteResetOnOpenVINO) { check_state_api(true); }
TEST(Executor, StateReadWriteResetOnTheCpu) { check_state_api(false); }

TEST(Executor, StaticOutputsGoStraightIntoCallerMemory) {
    HandPlan p;
    p.input("x");
    const int s = p.node("s", "aten.sin.default", {"x"});
    p.output("s");
    auto lowered = sine_step("x", "s");
    p.openvino_step({s}, {"x"}, {"s"}, lowered);
    auto executor = p.build();
    std::vector<float> input{0.0f, 0.5f, 1.0f, -2.0f}, destination(kSize, -7.0f);
    std::vector<Tensor> outputs{Tensor::view(DType::Float32, {kSize}, destination.data())};
    executor->run({Tensor::view(DType::Float32, {kSize}, input.data())}, outputs);
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].data(), destination.data());
    for (int64_t i = 0; i < kSize; ++i) EXPECT_NEAR(destination[i], std::sin(input[i]), 1e-6);
}

TEST(Executor, Int64BeyondThirtyTwoBitsStopsTheCallNamingTheTensor) {
    HandPlan p;
    p.input("ids", DType::Int64);
    const int add = p.node("shifted", "aten.add.Tensor", {"ids", "ids"});
    p.graph().values["shifted"].meta.dtype = DType::Int64;
    p.output("shifted");
    auto ids = parameter("ids", ov::element::i64);
    auto sum = std::make_shared<ov::op::v1::Add>(ids, ids);
    compile::OpenVINOStep lowered;
    lowered.model = std::make_shared<ov::Model>(ov::OutputVector{sum->output(0)}, ov::ParameterVector{ids});
    lowered.parameters = {"ids"};
    lowered.results = {"shifted"};
    p.openvino_step({add}, {"ids"}, {"shifted"}, lowered);
    auto executor = p.build();
    std::vector<int64_t> small{1, 2, 3, 4}, wide{1, int64_t{1} << 40, 3, 4};
    std::vector<Tensor> outputs;
    executor->run({Tensor::view(DType::Int64, {kSize}, small.data())}, outputs);
    EXPECT_EQ(outputs[0].data_as<int64_t>()[3], 8);
    outputs.clear();
    try {
        executor->run({Tensor::view(DType::Int64, {kSize}, wide.data())}, outputs);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'ids'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("beyond 32 bits"), std::string::npos) << e.what();
    }
}

TEST(Executor, WrongInputsAreInputErrors) {
    HandPlan p;
    p.input("x");
    const int s = p.node("s", "aten.sin.default", {"x"});
    p.output("s");
    p.cpu_step({s}, {"x"}, {"s"});
    auto executor = p.build();
    std::vector<Tensor> outputs;
    EXPECT_THROW(executor->run({}, outputs), InputError);
    std::vector<float> three(3);
    EXPECT_THROW(executor->run({Tensor::view(DType::Float32, {3}, three.data())}, outputs), InputError);
}

}  // namespace
