// Op ids (graph/op_id.h): one per target of the schema table and the few without schema, stable
// for a target, found alike at compile time and at run time; families are the runs of overloads.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "graph/op_id.h"
#include "graph/schema.h"
#include "kernels/registry.h"

namespace pt2ov {
namespace {

using graph::find_op_family;
using graph::find_op_id;
using graph::op_family;
using graph::op_id;
using graph::op_target;
using graph::OpId;

TEST(OpId, TheTableIsSortedAndHoldsEveryTargetOnce) {
    const auto& targets = graph::op_table::kTargets;
    for (size_t i = 1; i < graph::op_table::kCount; ++i) {
        EXPECT_LT(targets[i - 1], targets[i]) << "op_targets.inc out of order or repeated at " << i;
    }
    for (const auto& target : graph::schema_targets()) {
        const OpId id = find_op_id(target);
        ASSERT_NE(id, OpId::Unknown) << target << " has a schema but no op id: re-run scripts/gen_op_schemas.py";
        EXPECT_EQ(op_target(id), target);
    }
}

TEST(OpId, CompileTimeAndRunTimeAgree) {
    constexpr OpId add = op_id("aten.add.Tensor");
    EXPECT_EQ(find_op_id(std::string("aten.add.Tensor")), add);
    EXPECT_EQ(op_target(add), "aten.add.Tensor");
    EXPECT_NE(op_id("aten.add.Scalar"), add);
    EXPECT_EQ(find_op_id("_operator.add"), op_id("_operator.add"));  // a target without schema
    EXPECT_EQ(find_op_id("mylib.custom.default"), OpId::Unknown);
    EXPECT_EQ(find_op_id("aten.add"), OpId::Unknown);  // an op, not a target
    EXPECT_EQ(op_target(OpId::Unknown), "");
}

TEST(OpId, AFamilyIsEveryOverloadOfOneOpAndNothingElse) {
    constexpr auto add = op_family("aten.add");
    std::set<std::string> members;
    for (size_t i = 0; i < graph::op_table::kCount; ++i) {
        if (add.contains(static_cast<OpId>(i))) members.insert(std::string(graph::op_table::kTargets[i]));
    }
    EXPECT_TRUE(members.count("aten.add.Tensor") && members.count("aten.add.Scalar") && members.count("aten.add.out"));
    for (const auto& m : members) EXPECT_EQ(m.rfind("aten.add.", 0), 0u) << m;
    EXPECT_FALSE(add.contains(op_id("aten.add_.Tensor")));
    EXPECT_FALSE(add.contains(op_id("aten.addmm.default")));
    EXPECT_FALSE(add.contains(OpId::Unknown));
    const auto none = find_op_family("aten.no_such_op");
    EXPECT_EQ(none.first, none.last);
}

TEST(OpId, ResolvingANodeSetsItsId) {
    graph::Node node;
    node.name = "n";
    node.target = "aten.relu.default";
    node.inputs.push_back({"self", graph::tensor_arg("x"), false});
    node.outputs.push_back(graph::tensor_arg("y"));
    graph::resolve_node(node, "m");
    EXPECT_EQ(node.op, op_id("aten.relu.default"));
    node.target = "mylib.custom.default";
    graph::resolve_node(node, "m");
    EXPECT_EQ(node.op, OpId::Unknown);
}

TEST(OpId, EveryKernelIsRegisteredForAKnownOpAndFoundById) {
    // registered_ops() reports a kernel registered under a name outside the table.
    const auto names = kernels::registered_ops();
    ASSERT_GT(names.size(), 400u);
    EXPECT_NE(kernels::find_kernel(op_id("aten.relu.default")), nullptr);
    EXPECT_EQ(kernels::find_kernel(op_id("aten.relu.default")), kernels::find_kernel("aten.relu.default"));
    // A kernel registered for an op without overload serves each overload without its own.
    EXPECT_NE(kernels::find_kernel(op_id("aten.conv2d.padding")), nullptr);
    EXPECT_EQ(kernels::find_kernel(OpId::Unknown), nullptr);
}

}  // namespace
}  // namespace pt2ov
