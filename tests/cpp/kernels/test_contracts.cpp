// Shape contracts (kernels/contracts.h): a node whose recorded sizes contradict what its
// arguments make, or whose arguments contradict each other, is refused at load as the archive's
// mistake, naming the node; symbolic sizes are left to the kernels.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../fixtures/graph_builder.h"
#include "../fixtures/shape_contract.h"
#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/registry.h"
#include "pt2ov/error.h"

namespace pt2ov {
namespace {

using graph::int_arg;
using graph::ints_arg;
using graph::tensor_arg;
using test::GraphBuilder;

using test::refusal;

int add(GraphBuilder& b, std::vector<int64_t> x, std::vector<int64_t> y, std::vector<int64_t> out) {
    b.value("x", DType::Float32, x);
    b.value("y", DType::Float32, y);
    b.value("sum", DType::Float32, out);
    return b.node("sum", "aten.add.Tensor", {{"self", tensor_arg("x"), false}, {"other", tensor_arg("y"), false}},
                  {tensor_arg("sum")});
}

TEST(ShapeContracts, ElementwiseOutputsHaveTheBroadcastSizes) {
    GraphBuilder ok;
    EXPECT_EQ(refusal(ok, add(ok, {3, 1}, {4}, {3, 4})), "");
    GraphBuilder wrong;
    const std::string message = refusal(wrong, add(wrong, {3, 1}, {4}, {4, 3}));
    EXPECT_NE(message.find("node sum (aten.add.Tensor) records 'sum' as [4, 3] where its arguments make it [3, 4]"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("re-export it"), std::string::npos) << message;
    GraphBuilder rank;
    EXPECT_NE(refusal(rank, add(rank, {3}, {3}, {1, 3})), "");
}

TEST(ShapeContracts, ArgumentsThatDoNotBroadcastAreRefused) {
    GraphBuilder b;
    const std::string message = refusal(b, add(b, {3}, {4}, {4}));
    EXPECT_NE(message.find("its arguments' sizes [3] and [4] do not broadcast"), std::string::npos) << message;
}

TEST(ShapeContracts, ASymbolicSizeIsLeftToTheKernel) {
    GraphBuilder b;
    const int index = add(b, {3}, {3}, {3});
    b.graph.values["x"].meta.sizes[0] = graph::Dim{std::nullopt, "Symbol('s0')", "s0", 3};
    b.graph.values["sum"].meta.sizes[0] = graph::Dim{std::nullopt, "Symbol('s0')", "s0", 3};
    EXPECT_EQ(refusal(b, index), "");
}

TEST(ShapeContracts, ReductionsKeepOrDropTheirDims) {
    const auto sum = [](std::vector<int64_t> out, bool keepdim, int64_t dim) {
        GraphBuilder b;
        b.value("x", DType::Float32, {2, 3, 4});
        b.value("s", DType::Float32, out);
        const int index = b.node("s", "aten.sum.dim_IntList",
                                 {{"self", tensor_arg("x"), false}, {"dim", ints_arg({dim}), false},
                                  {"keepdim", graph::bool_arg(keepdim), false}},
                                 {tensor_arg("s")});
        return refusal(b, index);
    };
    EXPECT_EQ(sum({2, 4}, false, 1), "");
    EXPECT_EQ(sum({2, 1, 4}, true, -2), "");
    EXPECT_NE(sum({2, 3}, false, 1), "");
    EXPECT_NE(sum({2, 4}, false, 3).find("dim 3 is out of range for rank 3"), std::string::npos);
    GraphBuilder all;
    all.value("x", DType::Float32, {2, 3});
    all.value("m", DType::Float32, {});
    EXPECT_EQ(refusal(all, all.node("m", "aten.amax.default", {{"self", tensor_arg("x"), false}}, {tensor_arg("m")})), "");
}

TEST(ShapeContracts, EveryOutputOfASameSizedKernelIsChecked) {
    GraphBuilder b;
    b.value("x", DType::Float32, {5, 2});
    b.value("values", DType::Float32, {5, 2});
    b.value("indices", DType::Int64, {2, 5});
    const int index = b.node("cummax", "aten.cummax.default", {{"self", tensor_arg("x"), false}, {"dim", int_arg(0), false}},
                             {tensor_arg("values"), tensor_arg("indices")});
    EXPECT_NE(refusal(b, index).find("records 'indices' as [2, 5] where its arguments make it [5, 2]"), std::string::npos);
}

// Every kernel declares a contract, and every contract belongs to an op with a kernel.
TEST(ShapeContracts, TheContractsBelongToKernels) {
    size_t with_contract = 0, kernels = 0;
    for (size_t id = 0; id < graph::op_table::kCount; ++id) {
        const auto op = static_cast<graph::OpId>(id);
        if (kernels::find_kernel(op)) {
            ++kernels;
            EXPECT_NE(kernels::find_shape_contract(op), nullptr) << graph::op_target(op) << " has a kernel and no contract";
        }
        if (kernels::find_shape_contract(op)) {
            ++with_contract;
            EXPECT_NE(kernels::find_kernel(op), nullptr) << graph::op_target(op);
        }
    }
    std::printf("%zu of %zu ops with a kernel declare a shape contract\n", with_contract, kernels);
    EXPECT_GT(kernels, 500u);
    EXPECT_NE(kernels::find_shape_contract(graph::op_id("aten.add.Tensor")), nullptr);
    EXPECT_NE(kernels::find_shape_contract(graph::op_id("aten.mm.default")), nullptr);
    EXPECT_NE(kernels::find_shape_contract(graph::op_id("aten.matmul.default")), nullptr);
}


std::string check_node(GraphBuilder& b, const std::string& target, std::vector<graph::NamedArgument> inputs,
                       std::vector<int64_t> out) {
    b.value("out", DType::Float32, out);
    return refusal(b, b.node("out", target, std::move(inputs), {tensor_arg("out")}));
}

TEST(ShapeContracts, MatrixProductsNeedAgreeingInnerSizes) {
    GraphBuilder ok;
    ok.value("a", DType::Float32, {2, 3});
    ok.value("b", DType::Float32, {3, 5});
    EXPECT_EQ(check_node(ok, "aten.mm.default", {{"self", tensor_arg("a"), false}, {"mat2", tensor_arg("b"), false}}, {2, 5}), "");
    GraphBuilder inner;
    inner.value("a", DType::Float32, {2, 3});
    inner.value("b", DType::Float32, {4, 5});
    EXPECT_NE(check_node(inner, "aten.mm.default", {{"self", tensor_arg("a"), false}, {"mat2", tensor_arg("b"), false}}, {2, 5})
                  .find("the inner sizes of the product: 3 and 4 differ"),
              std::string::npos);
    // torch.matmul spelled as mm (core_spellings.cpp) broadcasts its batch dims: no conclusion
    // here (random programs own 120674: a matmul of [6, 2, 3] and [1, 3, 4] was refused).
    GraphBuilder batched;
    batched.value("a", DType::Float32, {6, 2, 3});
    batched.value("b", DType::Float32, {1, 3, 4});
    EXPECT_EQ(check_node(batched, "aten.mm.default", {{"self", tensor_arg("a"), false}, {"mat2", tensor_arg("b"), false}}, {6, 2, 4}),
              "");
    GraphBuilder bmm;
    bmm.value("a", DType::Float32, {6, 2, 3});
    bmm.value("b", DType::Float32, {1, 3, 4});
    EXPECT_NE(check_node(bmm, "aten.bmm.default", {{"self", tensor_arg("a"), false}, {"mat2", tensor_arg("b"), false}}, {6, 2, 4})
                  .find("the batch sizes of the product: 6 and 1 differ"),
              std::string::npos);
    GraphBuilder linear;
    linear.value("x", DType::Float32, {4, 2, 8});
    linear.value("w", DType::Float32, {6, 8});
    EXPECT_EQ(check_node(linear, "aten.linear.default", {{"input", tensor_arg("x"), false}, {"weight", tensor_arg("w"), false}},
                         {4, 2, 6}),
              "");
}

TEST(ShapeContracts, ViewsAndConcatenations) {
    GraphBuilder view;
    view.value("x", DType::Float32, {2, 3, 4});
    EXPECT_EQ(check_node(view, "aten.view.default", {{"self", tensor_arg("x"), false}, {"size", ints_arg({-1, 4}), false}}, {6, 4}), "");
    GraphBuilder view_wrong;
    view_wrong.value("x", DType::Float32, {2, 3, 4});
    EXPECT_NE(check_node(view_wrong, "aten.view.default", {{"self", tensor_arg("x"), false}, {"size", ints_arg({5, 4}), false}}, {5, 4})
                  .find("it views 24 elements as 20"),
              std::string::npos);
    GraphBuilder permute;
    permute.value("x", DType::Float32, {2, 3, 4});
    EXPECT_NE(check_node(permute, "aten.permute.default", {{"self", tensor_arg("x"), false}, {"dims", ints_arg({2, 0, 1}), false}},
                         {2, 3, 4})
                  .find("where its arguments make it [4, 2, 3]"),
              std::string::npos);
    GraphBuilder cat;
    cat.value("x", DType::Float32, {2, 3});
    cat.value("y", DType::Float32, {2, 5});
    cat.value("e", DType::Float32, {0});
    const graph::Argument parts = graph::list_arg({tensor_arg("x"), tensor_arg("e"), tensor_arg("y")});
    EXPECT_EQ(check_node(cat, "aten.cat.default", {{"tensors", parts, false}, {"dim", int_arg(-1), false}}, {2, 8}), "");
    GraphBuilder cat_wrong;
    cat_wrong.value("x", DType::Float32, {2, 3});
    cat_wrong.value("y", DType::Float32, {4, 5});
    EXPECT_NE(check_node(cat_wrong, "aten.cat.default",
                         {{"tensors", graph::list_arg({tensor_arg("x"), tensor_arg("y")}), false}, {"dim", int_arg(1), false}},
                         {2, 8})
                  .find("the sizes of dim 0 it concatenates: 2 and 4 differ"),
              std::string::npos);
    GraphBuilder expand;
    expand.value("x", DType::Float32, {3, 1});
    EXPECT_EQ(check_node(expand, "aten.expand.default", {{"self", tensor_arg("x"), false}, {"size", ints_arg({2, -1, 4}), false}},
                         {2, 3, 4}),
              "");
}

}  // namespace
}  // namespace pt2ov
