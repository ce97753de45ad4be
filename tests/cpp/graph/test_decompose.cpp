// Decompositions of training-IR ops (src/graph/decompose/): the Builder's nodes are resolved,
// keep the archive node's name and target as their origin, produce the original outputs under
// their names, read symbolic sizes at run time, nest (a decomposition's node decomposed again),
// and decline or refuse clearly. Numbers are checked end to end against PyTorch eager
// (tests/models/decompositions.py through tests/e2e/test_zoo.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fixtures/graph_builder.h"
#include "graph/decompose/decompose.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"
#include "pt2ov/error.h"

namespace {

using namespace pt2ov;
using namespace pt2ov::graph;
using test::targets_of;

void lower(test::GraphBuilder& b, std::vector<std::string> outputs) {
    for (const auto& name : outputs) b.graph.outputs.push_back(tensor_arg(name));
    check_and_resolve(b.graph, "m");
    lower_training_ops(b.graph, "m");
}

TEST(Decompose, NodesAreResolvedAndNamedAfterTheArchiveNode) {
    test::GraphBuilder b;
    b.value("x", DType::Float32, {2, 3});
    b.value("sp", DType::Float32, {2, 3});
    b.node("sp", "aten.softplus.default", {{"self", tensor_arg("x"), false}, {"beta", float_arg(2.0), false}}, {tensor_arg("sp")});
    lower(b, {"sp"});
    EXPECT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten.mul.Tensor", "aten.exp.default", "aten.log1p.default",
                                                             "aten.div.Tensor", "aten.gt.Scalar", "aten.where.self"}));
    for (const auto& node : b.graph.nodes) {
        ASSERT_NE(node.schema, nullptr) << node.name;
        EXPECT_EQ(node.source_name(), "sp");
        EXPECT_EQ(node.source_target(), "aten.softplus.default");
        for (const auto& out : node.outputs) EXPECT_TRUE(b.graph.find_value(out.name)) << out.name;
    }
    // the last node makes the archive's output, under its name; the others are new values
    EXPECT_EQ(b.graph.nodes.back().outputs[0].name, "sp");
    EXPECT_NE(b.graph.nodes.front().outputs[0].name, "sp");
    EXPECT_EQ(b.graph.value("sp").producer, static_cast<int>(b.graph.nodes.size()) - 1);
}

TEST(Decompose, ListOutputsKeepTheirNames) {
    test::GraphBuilder b;
    b.value("x", DType::Float32, {2, 7});
    b.value("a", DType::Float32, {2, 3});
    b.value("c", DType::Float32, {2, 1});
    Argument pieces = list_arg({tensor_arg("a"), tensor_arg("b"), tensor_arg("c")});
    b.value("b", DType::Float32, {2, 3});
    b.node("split", "aten.split.Tensor", {{"self", tensor_arg("x"), false}, {"split_size", int_arg(3), false}, {"dim", int_arg(1), false}},
           {pieces});
    lower(b, {"a", "b", "c"});
    ASSERT_EQ(b.graph.nodes.size(), 3u);
    const std::vector<std::string> names = {"a", "b", "c"};
    const std::vector<int64_t> starts = {0, 3, 6};
    for (size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(b.graph.nodes[k].target, "aten.slice.Tensor");
        EXPECT_EQ(b.graph.nodes[k].outputs[0].name, names[k]);
        EXPECT_EQ(b.graph.nodes[k].arg(2).int_value, starts[k]);
    }
}

TEST(Decompose, SymbolicSizesAreReadAtRunTime) {
    test::GraphBuilder b;
    TensorMeta dynamic = test::tensor_meta(DType::Float32, {4, 6});
    dynamic.sizes[0].value.reset();
    dynamic.sizes[0].expr = "Symbol('s0', positive=True, integer=True)";
    dynamic.sizes[0].symbol = "s0";
    dynamic.sizes[0].hint = 4;
    b.value("x", dynamic);
    b.value("v", DType::Float32, {6});
    b.value("e", dynamic);
    b.node("e", "aten.expand_as.default", {{"self", tensor_arg("v"), false}, {"other", tensor_arg("x"), false}}, {tensor_arg("e")});
    lower(b, {"e"});
    EXPECT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten.sym_size.int", "aten.expand.default"}));
    const Argument& size = b.graph.nodes[1].arg(1);
    ASSERT_EQ(size.items.size(), 2u);
    EXPECT_EQ(size.items[0].kind, Argument::Kind::SymInt);
    EXPECT_EQ(size.items[0].name, b.graph.nodes[0].outputs[0].name);
    EXPECT_EQ(size.items[1].int_value, 6);
}

TEST(Decompose, MadeNodesAreDecomposedAndRewrittenAgain) {
    // triplet_margin_loss makes pairwise_distance nodes, which decompose in turn; reshape_as
    // makes a reshape, which the one-node rewrite turns into a view
    test::GraphBuilder b;
    for (const char* name : {"a", "p", "n"}) b.value(name, DType::Float32, {4, 5});
    b.value("loss", DType::Float32, {});
    b.node("loss", "aten.triplet_margin_loss.default",
           {{"anchor", tensor_arg("a"), false}, {"positive", tensor_arg("p"), false}, {"negative", tensor_arg("n"), false}},
           {tensor_arg("loss")});
    b.value("r", DType::Float32, {5, 4});
    b.value("o", DType::Float32, {5, 4});
    b.node("r", "aten.reshape_as.default", {{"self", tensor_arg("a"), false}, {"other", tensor_arg("o"), false}}, {tensor_arg("r")});
    lower(b, {"loss", "r"});
    // (linalg_vector_norm has a decomposition that declines these inputs: it stays)
    for (const auto& node : b.graph.nodes) {
        if (node.target != "aten.linalg_vector_norm.default") {
            EXPECT_EQ(decompose::find_decomposition(node.op), nullptr) << node.target;
        }
        EXPECT_NE(node.target, "aten.pairwise_distance.default");
        EXPECT_NE(node.target, "aten.reshape.default");
    }
    EXPECT_EQ(b.graph.nodes.back().target, "aten.view.default");
    EXPECT_EQ(b.graph.nodes.back().outputs[0].name, "r");
}

TEST(Decompose, ADeclinedNodeGoesToItsRewrite) {
    // a batched conv1d with numbers for padding is the one-node rewrite's, not a decomposition's
    test::GraphBuilder b;
    b.value("x", DType::Float32, {1, 3, 8});
    b.value("w", DType::Float32, {4, 3, 3});
    b.value("y", DType::Float32, {1, 4, 6});
    b.node("y", "aten.conv1d.default", {{"input", tensor_arg("x"), false}, {"weight", tensor_arg("w"), false}}, {tensor_arg("y")});
    const size_t values = b.graph.values.size();
    lower(b, {"y"});
    EXPECT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten.convolution.default"}));
    EXPECT_EQ(b.graph.values.size(), values);  // nothing left behind by the declined attempt
}

TEST(Decompose, AnUnbatchedConvolutionGetsABatchOfOne) {
    test::GraphBuilder b;
    b.value("x", DType::Float32, {3, 8});
    b.value("w", DType::Float32, {4, 3, 3});
    b.value("y", DType::Float32, {4, 8});
    b.node("y", "aten.conv1d.padding", {{"input", tensor_arg("x"), false}, {"weight", tensor_arg("w"), false},
                                        {"padding", string_arg("same"), true}}, {tensor_arg("y")});
    lower(b, {"y"});
    EXPECT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten.unsqueeze.default", "aten.convolution.default", "aten.squeeze.dims"}));
    EXPECT_EQ(b.graph.nodes[1].arg(4).items[0].int_value, 1);  // 'same' for a kernel of 3
}

TEST(Decompose, RefusalsNameTheNodeAndWhy) {
    test::GraphBuilder b;
    b.value("x", DType::Float32, {2, 3});
    b.value("y", DType::Float32, {2, 3});
    b.node("y", "aten.pad.default", {{"self", tensor_arg("x"), false}, {"pad", ints_arg({1, 1}), false},
                                     {"mode", string_arg("mirror"), false}}, {tensor_arg("y")});
    check_and_resolve(b.graph, "m");
    try {
        lower_training_ops(b.graph, "m");
        FAIL() << "pad mode 'mirror' was decomposed";
    } catch (const UnsupportedError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("node y (aten.pad.default)"), std::string::npos) << message;
        EXPECT_NE(message.find("mirror"), std::string::npos) << message;
    }
}

TEST(Decompose, EveryDecompositionHasASchema) {
    for (const auto& target : decompose::decomposed_targets()) EXPECT_NE(find_schema(target), nullptr) << target;
}

}  // namespace
