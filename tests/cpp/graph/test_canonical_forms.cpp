// graph/canonical_forms.h: identities become copies, the default variance correction is written out.
#include <gtest/gtest.h>

#include "../fixtures/graph_builder.h"
#include "graph/passes/canonical_forms.h"
#include "graph/schema.h"

namespace pt2ov::graph {
namespace {

Graph one_node(const std::string& target, std::vector<int64_t> in, std::vector<int64_t> out,
               std::vector<NamedArgument> extra) {
    test::GraphBuilder b;
    b.value("x", DType::Float32, in);
    b.value("y", DType::Float32, out);
    std::vector<NamedArgument> args{{"self", tensor_arg("x"), false}};
    for (auto& a : extra) args.push_back(std::move(a));
    b.node("n", target, std::move(args), {tensor_arg("y")});
    resolve_node(b.graph.nodes[0], "test");
    return std::move(b.graph);
}

TEST(CanonicalForms, IdentitiesBecomeCopies) {
    auto expand = one_node("aten.expand.default", {}, {}, {{"size", ints_arg({}), false}});
    canonicalize(expand, "test");
    EXPECT_EQ(expand.nodes[0].target, "aten.alias.default");
    EXPECT_EQ(expand.nodes[0].source_target(), "aten.expand.default");
    ASSERT_EQ(expand.nodes[0].inputs.size(), 1u);
    EXPECT_EQ(expand.nodes[0].inputs[0].arg.name, "x");

    auto repeat = one_node("aten.repeat.default", {2, 3}, {2, 3}, {{"repeats", ints_arg({1, 1}), false}});
    canonicalize(repeat, "test");
    EXPECT_EQ(repeat.nodes[0].target, "aten.clone.default");

    auto squeeze = one_node("aten.squeeze.dims", {1, 3, 1}, {1, 3, 1}, {{"dim", ints_arg({}), false}});
    canonicalize(squeeze, "test");
    EXPECT_EQ(squeeze.nodes[0].target, "aten.alias.default");
}

TEST(CanonicalForms, OtherShapesStay) {
    auto expand = one_node("aten.expand.default", {}, {3}, {{"size", ints_arg({3}), false}});
    canonicalize(expand, "test");
    EXPECT_EQ(expand.nodes[0].target, "aten.expand.default");
    auto repeat = one_node("aten.repeat.default", {3}, {1, 3}, {{"repeats", ints_arg({1, 1}), false}});
    canonicalize(repeat, "test");
    EXPECT_EQ(repeat.nodes[0].target, "aten.repeat.default");
    auto squeeze = one_node("aten.squeeze.dims", {1, 3, 1}, {3, 1}, {{"dim", ints_arg({0}), false}});
    canonicalize(squeeze, "test");
    EXPECT_EQ(squeeze.nodes[0].target, "aten.squeeze.dims");
}

TEST(CanonicalForms, DefaultCorrectionWrittenOut) {
    auto var = one_node("aten.var.correction", {4}, {}, {});
    canonicalize(var, "test");
    const auto* correction = var.nodes[0].find_input("correction");
    ASSERT_NE(correction, nullptr);
    EXPECT_TRUE(correction->keyword);
    EXPECT_EQ(correction->arg.kind, Argument::Kind::Int);
    EXPECT_EQ(correction->arg.int_value, 1);

    auto biased = one_node("aten.var.correction", {4}, {}, {{"correction", int_arg(0), true}});
    canonicalize(biased, "test");
    EXPECT_EQ(biased.nodes[0].find_input("correction")->arg.int_value, 0);  // written out: kept
}

}  // namespace
}  // namespace pt2ov::graph
