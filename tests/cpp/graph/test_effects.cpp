// graph/effects.cpp: error checks ordered by effect tokens fold into the *_ex op that made info.
#include <gtest/gtest.h>

#include "../fixtures/graph_builder.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace pt2ov::graph {
namespace {

Argument unsupported(const std::string& tag, const std::string& name) {
    Argument a;
    a.kind = Argument::Kind::Unsupported;
    a.string_value = tag;
    a.name = name;
    return a;
}

Argument boolean(bool value) {
    Argument a;
    a.kind = Argument::Kind::Bool;
    a.bool_value = value;
    return a;
}

// What run_decompositions() makes of linalg.inv: inv_ex, then the check through a token.
Graph checked_inverse(const std::string& effect_op) {
    test::GraphBuilder b;
    b.value("token", DType::Float32, {0});
    b.value("a", DType::Float32, {3, 3});
    b.value("inverse", DType::Float32, {3, 3});
    b.value("info", DType::Int32, {});
    b.value("token_out", DType::Float32, {0});
    b.node("inv_ex", "aten.linalg_inv_ex.default", {{"A", tensor_arg("a"), false}}, {tensor_arg("inverse"), tensor_arg("info")});
    resolve_node(b.graph.nodes[0], "test");
    b.node("with_effects", "higher_order.with_effects",
           {{"", tensor_arg("token"), false}, {"", unsupported("as_operator", effect_op), false}, {"", tensor_arg("info"), false},
            {"", string_arg("linalg.inv"), false}, {"is_matrix", boolean(true), true}},
           {tensor_arg("token_out"), Argument{}});
    resolve_node(b.graph.nodes[1], "test");
    b.graph.inputs = {tensor_arg("token"), tensor_arg("a")};
    b.graph.input_specs = {InputSpec{InputSpec::Kind::Token, b.graph.inputs[0], "", true},
                           InputSpec{InputSpec::Kind::UserInput, tensor_arg("a"), "", true}};
    b.graph.outputs = {tensor_arg("token_out"), tensor_arg("inverse")};
    b.graph.output_specs = {OutputSpec{OutputSpec::Kind::Token, tensor_arg("token_out"), ""},
                            OutputSpec{OutputSpec::Kind::UserOutput, tensor_arg("inverse"), ""}};
    return std::move(b.graph);
}

TEST(EffectTokens, ErrorCheckFoldsIntoTheExOp) {
    Graph graph = checked_inverse("torch.ops.aten._linalg_check_errors.default");
    fold_error_checks(graph, "test");
    ASSERT_EQ(graph.nodes.size(), 1u);
    const Node& inv = graph.nodes[0];
    EXPECT_EQ(inv.target, "aten.linalg_inv_ex.default");
    const auto position = inv.schema->position_of("check_errors");
    ASSERT_TRUE(position.has_value());
    EXPECT_EQ(inv.arg(*position).kind, Argument::Kind::Bool);
    EXPECT_TRUE(inv.arg(*position).bool_value);
    ASSERT_EQ(graph.input_specs.size(), 1u);
    EXPECT_EQ(graph.input_specs[0].kind, InputSpec::Kind::UserInput);
    ASSERT_EQ(graph.inputs.size(), 1u);
    EXPECT_EQ(graph.inputs[0].name, "a");
    ASSERT_EQ(graph.output_specs.size(), 1u);
    EXPECT_EQ(graph.output_specs[0].kind, OutputSpec::Kind::UserOutput);
    ASSERT_EQ(graph.outputs.size(), 1u);
    EXPECT_EQ(graph.outputs[0].name, "inverse");
    EXPECT_EQ(graph.find_value("token"), nullptr);
    EXPECT_EQ(graph.value("inverse").producer, 0);
}

TEST(EffectTokens, OtherEffectsKeepTheirTokens) {
    Graph graph = checked_inverse("torch.ops.mylib.log_it.default");
    fold_error_checks(graph, "test");
    EXPECT_EQ(graph.nodes.size(), 2u);
    EXPECT_EQ(graph.input_specs.size(), 2u);
    EXPECT_EQ(graph.output_specs.size(), 2u);
    EXPECT_EQ(graph.output_specs[0].kind, OutputSpec::Kind::Token);
}

}  // namespace
}  // namespace pt2ov::graph
