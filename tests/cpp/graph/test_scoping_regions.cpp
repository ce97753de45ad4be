// Inlining of the regions that only scope (src/graph/scoping_regions.cpp): a region node becomes
// its body's nodes, named in the method's graph, with the region as their origin; results read
// after the region keep their names; nested regions, empty ones and bodies that hand back an
// operand inline too; in an enabled CPU autocast region the casts autocast makes become
// _to_copy nodes, and what cannot be made exact is refused naming the node. Numbers are checked
// end to end against PyTorch eager (tests/models/scoping_regions.py through tests/e2e/test_zoo.py).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "../fixtures/graph_builder.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"
#include "pt2ov/error.h"

namespace {

using namespace pt2ov;
using namespace pt2ov::graph;
using test::node_named;
using test::targets_of;

Argument body_arg(test::GraphBuilder body) {
    Argument arg;
    arg.kind = Argument::Kind::Unsupported;
    arg.string_value = "as_graph";
    arg.name = "submod_1";
    arg.body = std::make_shared<const Graph>(std::move(body.graph));
    return arg;
}

NamedArgument positional(Argument arg) { return {"", std::move(arg), false}; }

// wrap_with_autocast(device, dtype, enabled, cache_enabled, body, *operands) -> outputs
int autocast_region(test::GraphBuilder& b, const std::string& name, const std::string& device, DType dtype, bool enabled,
                    test::GraphBuilder body, const std::vector<std::string>& operands,
                    const std::vector<std::string>& outputs) {
    std::vector<NamedArgument> inputs = {positional(string_arg(device)), positional(dtype_arg(dtype)),
                                         positional(bool_arg(enabled)), positional(bool_arg(false)),
                                         positional(body_arg(std::move(body)))};
    for (const auto& operand : operands) inputs.push_back(positional(tensor_arg(operand)));
    std::vector<Argument> outs;
    for (const auto& output : outputs) outs.push_back(tensor_arg(output));
    return b.node(name, "higher_order.wrap_with_autocast", std::move(inputs), std::move(outs));
}

// A body computing mm(a, b) into "mm", then relu(mm) into "relu"; returns both.
test::GraphBuilder mm_relu_body(DType result_dtype) {
    test::GraphBuilder body;
    body.value("a", DType::Float32, {2, 2});
    body.value("b", DType::Float32, {2, 2});
    body.value("mm", result_dtype, {2, 2});
    body.value("relu", result_dtype, {2, 2});
    body.node("mm", "aten.mm.default", {{"self", tensor_arg("a"), false}, {"mat2", tensor_arg("b"), false}}, {tensor_arg("mm")});
    body.node("relu", "aten.relu.default", {{"self", tensor_arg("mm"), false}}, {tensor_arg("relu")});
    body.graph.inputs = {tensor_arg("a"), tensor_arg("b")};
    body.graph.outputs = {tensor_arg("mm"), tensor_arg("relu")};
    return body;
}

// The method: x, y in; region(x, y) -> (p, q); out = add(q, p).
test::GraphBuilder method_around(const std::string& device, DType dtype, bool enabled, DType result_dtype) {
    test::GraphBuilder b;
    b.value("x", DType::Float32, {2, 2});
    b.value("y", DType::Float32, {2, 2});
    b.value("p", result_dtype, {2, 2});
    b.value("q", result_dtype, {2, 2});
    b.graph.inputs = {tensor_arg("x"), tensor_arg("y")};
    autocast_region(b, "wrap_with_autocast", device, dtype, enabled, mm_relu_body(result_dtype), {"x", "y"}, {"p", "q"});
    b.value("out", result_dtype, {2, 2});
    b.node("out", "aten.add.Tensor", {{"self", tensor_arg("q"), false}, {"other", tensor_arg("p"), false}}, {tensor_arg("out")});
    b.graph.outputs = {tensor_arg("out"), tensor_arg("p")};
    return b;
}

void inline_regions(test::GraphBuilder& b) {
    check_and_resolve(b.graph, "m");
    inline_scoping_regions(b.graph, "m");
}

TEST(ScopingRegions, ADisabledRegionIsInlinedAsItIs) {
    auto b = method_around("cpu", DType::BFloat16, false, DType::Float32);
    inline_regions(b);
    EXPECT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten.mm.default", "aten.relu.default", "aten.add.Tensor"}));
    // The region's results keep their names: the add after it reads them unchanged.
    EXPECT_EQ(b.graph.nodes[0].outputs[0].name, "p");
    EXPECT_EQ(b.graph.nodes[1].outputs[0].name, "q");
    EXPECT_EQ(b.graph.nodes[0].resolved_inputs[0].name, "x");
    EXPECT_EQ(b.graph.nodes[1].resolved_inputs[0].name, "p");
    EXPECT_EQ(b.graph.value("p").producer, 0);
    EXPECT_EQ(b.graph.value("out").producer, 2);
    // The inlined nodes name the region as their origin; the archive's body values are gone.
    EXPECT_EQ(b.graph.nodes[0].origin, "wrap_with_autocast");
    EXPECT_EQ(b.graph.nodes[0].source_name(), "wrap_with_autocast");
    EXPECT_EQ(b.graph.nodes[0].source_target(), "higher_order.wrap_with_autocast");
    EXPECT_EQ(b.graph.find_value("mm"), nullptr);
    EXPECT_NE(b.graph.nodes[0].schema, nullptr);
}

TEST(ScopingRegions, AnotherDevicesAutocastChangesNothingOnCpu) {
    auto b = method_around("cuda", DType::Float16, true, DType::Float32);
    inline_regions(b);
    EXPECT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten.mm.default", "aten.relu.default", "aten.add.Tensor"}));
}

TEST(ScopingRegions, AnEnabledCpuRegionCastsTheOperandsOfLowerPrecisionOps) {
    auto b = method_around("cpu", DType::BFloat16, true, DType::BFloat16);
    inline_regions(b);
    EXPECT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten._to_copy.default", "aten._to_copy.default",
                                                             "aten.mm.default", "aten.relu.default", "aten.add.Tensor"}));
    const Node& cast = b.graph.nodes[0];
    EXPECT_EQ(cast.resolved_inputs[0].name, "x");
    EXPECT_EQ(cast.find_input("dtype")->arg.dtype, DType::BFloat16);
    EXPECT_EQ(cast.origin, "wrap_with_autocast");
    EXPECT_EQ(b.graph.value(cast.outputs[0].name).meta.dtype, DType::BFloat16);
    const Node& mm = node_named(b.graph, "p");
    EXPECT_EQ(mm.resolved_inputs[0].name, b.graph.nodes[0].outputs[0].name);
    EXPECT_EQ(mm.resolved_inputs[1].name, b.graph.nodes[1].outputs[0].name);
    // relu has no cast policy and reads bf16 already.
    EXPECT_EQ(node_named(b.graph, "q").resolved_inputs[0].name, "p");
}

TEST(ScopingRegions, PromoteCastsToTheWidestOperand) {
    test::GraphBuilder body;
    body.value("a", DType::BFloat16, {2, 2});
    body.value("b", DType::Float32, {2, 2});
    body.value("cat", DType::Float32, {4, 2});
    body.node("cat", "aten.cat.default", {{"tensors", list_arg({tensor_arg("a"), tensor_arg("b")}), false}}, {tensor_arg("cat")});
    body.graph.inputs = {tensor_arg("a"), tensor_arg("b")};
    body.graph.outputs = {tensor_arg("cat")};
    test::GraphBuilder b;
    b.value("x", DType::BFloat16, {2, 2});
    b.value("y", DType::Float32, {2, 2});
    b.value("c", DType::Float32, {4, 2});
    b.graph.inputs = {tensor_arg("x"), tensor_arg("y")};
    autocast_region(b, "region", "cpu", DType::BFloat16, true, std::move(body), {"x", "y"}, {"c"});
    b.graph.outputs = {tensor_arg("c")};
    inline_regions(b);
    ASSERT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten._to_copy.default", "aten.cat.default"}));
    EXPECT_EQ(b.graph.nodes[0].find_input("dtype")->arg.dtype, DType::Float32);
    EXPECT_EQ(b.graph.nodes[0].resolved_inputs[0].name, "x");
    const Argument& tensors = b.graph.nodes[1].resolved_inputs[0];
    EXPECT_EQ(tensors.items[0].name, b.graph.nodes[0].outputs[0].name);
    EXPECT_EQ(tensors.items[1].name, "y");
}

TEST(ScopingRegions, NestedRegionsTakeTheInnermostState) {
    // outer bf16 region: inner disabled region computing mm(a, b); the outer one then mm(a, b).
    test::GraphBuilder inner = mm_relu_body(DType::Float32);
    test::GraphBuilder outer;
    outer.value("a", DType::Float32, {2, 2});
    outer.value("b", DType::Float32, {2, 2});
    outer.value("i0", DType::Float32, {2, 2});
    outer.value("i1", DType::Float32, {2, 2});
    outer.value("mm", DType::BFloat16, {2, 2});
    outer.graph.inputs = {tensor_arg("a"), tensor_arg("b")};
    autocast_region(outer, "inner_region", "cpu", DType::BFloat16, false, std::move(inner), {"a", "b"}, {"i0", "i1"});
    outer.node("mm", "aten.mm.default", {{"self", tensor_arg("a"), false}, {"mat2", tensor_arg("i1"), false}}, {tensor_arg("mm")});
    outer.graph.outputs = {tensor_arg("i1"), tensor_arg("mm")};
    test::GraphBuilder b;
    b.value("x", DType::Float32, {2, 2});
    b.value("y", DType::Float32, {2, 2});
    b.value("r", DType::Float32, {2, 2});
    b.value("s", DType::BFloat16, {2, 2});
    b.graph.inputs = {tensor_arg("x"), tensor_arg("y")};
    autocast_region(b, "outer_region", "cpu", DType::BFloat16, true, std::move(outer), {"x", "y"}, {"r", "s"});
    b.graph.outputs = {tensor_arg("s"), tensor_arg("r")};
    inline_regions(b);
    ASSERT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten.mm.default", "aten.relu.default", "aten._to_copy.default",
                                                             "aten._to_copy.default", "aten.mm.default"}));
    // The inner mm ran uncast on x and y; its relu is the outer region's result r.
    EXPECT_EQ(b.graph.nodes[0].resolved_inputs[0].name, "x");
    EXPECT_EQ(b.graph.nodes[1].outputs[0].name, "r");
    EXPECT_EQ(b.graph.nodes[3].resolved_inputs[0].name, "r");
    EXPECT_EQ(b.graph.nodes[4].outputs[0].name, "s");
    for (const Node& node : b.graph.nodes) EXPECT_EQ(node.origin, "outer_region");
    // Node names stay unique.
    std::set<std::string> names;
    for (const Node& node : b.graph.nodes) EXPECT_TRUE(names.insert(node.name).second) << node.name;
}

TEST(ScopingRegions, ABodyHandingBackAnOperandAndAnEmptyRegion) {
    test::GraphBuilder body;
    body.value("a", DType::Float32, {2, 2});
    body.value("sin", DType::Float32, {2, 2});
    body.node("sin", "aten.sin.default", {{"self", tensor_arg("a"), false}}, {tensor_arg("sin")});
    body.graph.inputs = {tensor_arg("a")};
    body.graph.outputs = {tensor_arg("a"), tensor_arg("sin"), tensor_arg("sin")};
    test::GraphBuilder b;
    b.value("x", DType::Float32, {2, 2});
    for (const char* name : {"o0", "o1", "o2", "sum"}) b.value(name, DType::Float32, {2, 2});
    b.graph.inputs = {tensor_arg("x")};
    b.node("empty", "higher_order.wrap_with_set_grad_enabled",
           {positional(bool_arg(false)), positional(body_arg(test::GraphBuilder{}))}, {});
    b.node("grad_region", "higher_order.wrap_with_set_grad_enabled",
           {positional(bool_arg(false)), positional(body_arg(std::move(body))), positional(tensor_arg("x"))},
           {tensor_arg("o0"), tensor_arg("o1"), tensor_arg("o2")});
    b.node("sum", "aten.add.Tensor", {{"self", tensor_arg("o0"), false}, {"other", tensor_arg("o2"), false}}, {tensor_arg("sum")});
    b.graph.outputs = {tensor_arg("sum"), tensor_arg("o2")};
    b.graph.output_specs.resize(2);
    b.graph.output_specs[0].arg = tensor_arg("sum");
    b.graph.output_specs[1].arg = tensor_arg("o2");
    inline_regions(b);
    ASSERT_EQ(targets_of(b.graph), (std::vector<std::string>{"aten.sin.default", "aten.add.Tensor"}));
    EXPECT_EQ(b.graph.nodes[0].outputs[0].name, "o1");
    EXPECT_EQ(b.graph.nodes[1].resolved_inputs[0].name, "x");
    EXPECT_EQ(b.graph.nodes[1].resolved_inputs[1].name, "o1");
    EXPECT_EQ(b.graph.nodes[1].inputs[1].arg.name, "o1");
    EXPECT_EQ(b.graph.outputs[1].name, "o1");
    EXPECT_EQ(b.graph.output_specs[1].arg.name, "o1");
    EXPECT_EQ(b.graph.find_value("o0"), nullptr);
    EXPECT_EQ(b.graph.find_value("o2"), nullptr);
}

TEST(ScopingRegions, ACompositeThatAutocastMayCastInsideIsRefused) {
    test::GraphBuilder body;
    body.value("a", DType::Float32, {2, 2});
    body.value("e", DType::BFloat16, {2, 2});
    body.node("e", "aten.einsum.default",
              {{"equation", string_arg("ij,jk->ik"), false}, {"tensors", list_arg({tensor_arg("a"), tensor_arg("a")}), false}},
              {tensor_arg("e")});
    body.graph.inputs = {tensor_arg("a")};
    body.graph.outputs = {tensor_arg("e")};
    test::GraphBuilder b;
    b.value("x", DType::Float32, {2, 2});
    b.value("r", DType::BFloat16, {2, 2});
    b.graph.inputs = {tensor_arg("x")};
    autocast_region(b, "region", "cpu", DType::BFloat16, true, std::move(body), {"x"}, {"r"});
    b.graph.outputs = {tensor_arg("r")};
    try {
        inline_regions(b);
        FAIL() << "expected a refusal";
    } catch (const UnsupportedError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("node 'e' (aten.einsum.default)"), std::string::npos) << message;
        EXPECT_NE(message.find("'region'"), std::string::npos) << message;
        EXPECT_NE(message.find("run_decompositions()"), std::string::npos) << message;
    }
}

TEST(ScopingRegions, EveryCompositeLeftAloneIsAComposite) {
    for (const OpId op : composites_autocast_leaves_alone()) {
        EXPECT_TRUE(is_composite_op(op)) << op_target(op);
        EXPECT_NE(find_schema(op_target(op)), nullptr) << op_target(op);
    }
    EXPECT_TRUE(is_composite_op(op_id("aten.einsum.default")));
    EXPECT_FALSE(is_composite_op(op_id("aten.mm.default")));  // it has an autocast kernel of its own
}

}  // namespace
