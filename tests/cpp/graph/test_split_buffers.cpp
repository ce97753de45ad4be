// graph/split_buffers.cpp: a mutated buffer whose every use picks one constant index of dim 0
// becomes one buffer per index; any other use leaves it whole.
#include <gtest/gtest.h>

#include "../fixtures/graph_builder.h"
#include "graph/from_json.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace pt2ov::graph {
namespace {

enum class Extra { None, WholeRead, OtherDim, RowNeverWritten, RowGivenAnInput };

// A two-row buffer `b` as functionalization leaves a stacked cache: row 0 gets b[0] + x, row 1
// gets b[1] * x, and the program returns row 0 read after both writes.
Graph stacked(Extra extra = Extra::None) {
    test::GraphBuilder g;
    g.value("b", DType::Float32, {2, 3});
    g.value("x", DType::Float32, {3});
    auto select = [&](const std::string& out, const std::string& of, int64_t dim, int64_t index) {
        g.value(out, DType::Float32, {3});
        g.node(out, "aten.select.int",
               {{"self", tensor_arg(of), false}, {"dim", int_arg(dim), false}, {"index", int_arg(index), false}},
               {tensor_arg(out)});
    };
    auto scatter = [&](const std::string& out, const std::string& base, const std::string& src, int64_t index) {
        g.value(out, DType::Float32, {2, 3});
        g.node(out, "aten.select_scatter.default",
               {{"self", tensor_arg(base), false}, {"src", tensor_arg(src), false}, {"dim", int_arg(0), false},
                {"index", int_arg(index), false}},
               {tensor_arg(out)});
    };
    g.sizes = {3};
    select("s0", "b", 0, 0);
    g.node("a0", "aten.add.Tensor", {"s0", "x"});
    scatter("v1", "b", "a0", 0);
    select("s1", "v1", 0, -1);
    g.node("m1", "aten.mul.Tensor", {"s1", "x"});
    std::string last = "v1";
    if (extra != Extra::RowNeverWritten) {
        scatter("v2", "v1", extra == Extra::RowGivenAnInput ? "x" : "m1", 1);
        last = "v2";
    }
    select("r", last, 0, 0);
    std::string out = "r";
    if (extra == Extra::WholeRead) {
        g.sizes = {2, 3};
        g.node("whole", "aten.mul.Tensor", {last, last});
        out = "whole";
    } else if (extra == Extra::OtherDim) {
        g.value("col", DType::Float32, {2});
        g.node("col", "aten.select.int",
               {{"self", tensor_arg(last), false}, {"dim", int_arg(1), false}, {"index", int_arg(0), false}},
               {tensor_arg("col")});
        out = "col";
    }
    g.graph.inputs = {tensor_arg("b"), tensor_arg("x")};
    g.graph.input_specs = {{InputSpec::Kind::Buffer, tensor_arg("b"), "cache", true},
                           {InputSpec::Kind::UserInput, tensor_arg("x"), "", true}};
    g.graph.outputs = {tensor_arg(last), tensor_arg(out)};
    OutputSpec mutation;
    mutation.kind = OutputSpec::Kind::BufferMutation;
    mutation.arg = tensor_arg(last);
    mutation.target = "cache";
    OutputSpec user;
    user.arg = tensor_arg(out);
    g.graph.output_specs = {mutation, user};
    check_and_resolve(g.graph, "test");
    return std::move(g.graph);
}

TEST(SplitStackedBuffers, EachRowBecomesABufferOfItsOwn) {
    Graph graph = stacked();
    split_stacked_buffers(graph, "test");
    ASSERT_EQ(graph.buffer_splits.size(), 1u);
    EXPECT_EQ(graph.buffer_splits[0].target, "cache");
    EXPECT_EQ(graph.buffer_splits[0].parts, (std::vector<std::string>{"cache[0]", "cache[1]"}));
    EXPECT_EQ(test::targets_of(graph), (std::vector<std::string>{"aten.add.Tensor", "aten.mul.Tensor"}));
    // The reads are the rows' values: the part's own bytes before a write, the written value after.
    EXPECT_EQ(test::node_named(graph, "a0").inputs[0].arg.name, "b_0");
    EXPECT_EQ(test::node_named(graph, "m1").inputs[0].arg.name, "b_1");
    ASSERT_EQ(graph.input_specs.size(), 3u);
    EXPECT_EQ(graph.input_specs[0].target, "cache[0]");
    EXPECT_EQ(graph.input_specs[1].target, "cache[1]");
    EXPECT_EQ(graph.inputs[1].name, "b_1");
    EXPECT_EQ(graph.value("b_1").meta.static_sizes(), (std::vector<int64_t>{3}));
    EXPECT_EQ(graph.value("b_1").meta.storage_offset, 3);
    EXPECT_FALSE(graph.find_value("b"));
    ASSERT_EQ(graph.outputs.size(), 3u);
    EXPECT_EQ(graph.output_specs[0].target, "cache[0]");
    EXPECT_EQ(graph.outputs[0].name, "a0");
    EXPECT_EQ(graph.output_specs[1].target, "cache[1]");
    EXPECT_EQ(graph.outputs[1].name, "m1");
    EXPECT_EQ(graph.outputs[2].name, "a0");  // r: row 0 read after both writes
    EXPECT_NO_THROW(check_values_defined_before_use(graph));
}

TEST(SplitStackedBuffers, AnyOtherUseKeepsTheBufferWhole) {
    for (Extra extra : {Extra::WholeRead, Extra::OtherDim, Extra::RowNeverWritten, Extra::RowGivenAnInput}) {
        Graph graph = stacked(extra);
        const size_t nodes = graph.nodes.size();
        split_stacked_buffers(graph, "test");
        EXPECT_TRUE(graph.buffer_splits.empty()) << static_cast<int>(extra);
        EXPECT_EQ(graph.nodes.size(), nodes) << static_cast<int>(extra);
        EXPECT_EQ(graph.input_specs[0].target, "cache") << static_cast<int>(extra);
    }
}

}  // namespace
}  // namespace pt2ov::graph
