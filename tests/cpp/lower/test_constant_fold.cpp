// lower/constant_fold: the values of a converted model that constants and static shapes alone
// decide, which the low-precision lowering and the plugin workarounds both ask for; what depends
// on an input or on a dynamic shape is not folded, and a depth bound does not poison later
// questions about nearer ops.
#include <gtest/gtest.h>

#include <vector>

#include "lower/constant_fold.h"
#include "openvino/op/add.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/range.hpp"
#include "openvino/op/shape_of.hpp"
#include "openvino/op/squeeze.hpp"

namespace {

using namespace ov;
using pt2ov::lower::constant_value;
using pt2ov::lower::ConstantFolder;

std::shared_ptr<Node> i64(const std::vector<int64_t>& values) {
    return op::v0::Constant::create(element::i64, Shape{values.size()}, values);
}

std::vector<int64_t> values_of(const std::shared_ptr<op::v0::Constant>& constant) {
    EXPECT_NE(constant, nullptr);
    return constant ? constant->cast_vector<int64_t>() : std::vector<int64_t>{};
}

TEST(ConstantFold, AConstantIsItsOwnValue) {
    auto constant = op::v0::Constant::create(element::i64, Shape{2}, {3, 4});
    EXPECT_EQ(constant_value(constant), constant);
}

TEST(ConstantFold, ArithmeticOfConstantsFolds) {
    auto sum = std::make_shared<op::v1::Add>(i64({1, 2}), i64({10, 20}));
    EXPECT_EQ(values_of(constant_value(sum)), (std::vector<int64_t>{11, 22}));
}

TEST(ConstantFold, AnInputIsNotKnown) {
    auto x = std::make_shared<op::v0::Parameter>(element::i64, PartialShape{2});
    EXPECT_EQ(constant_value(std::make_shared<op::v1::Add>(x, i64({1, 2}))), nullptr);
}

// instance_norm's axes: a Range from 2 up to the rank, the rank a ShapeOf of a ShapeOf of the
// activation. Known when the activation's rank is, whatever its values and even with a
// dynamic batch (the outer ShapeOf reads the inner one's static shape [4]).
std::shared_ptr<Node> axes_up_to_rank(const PartialShape& shape) {
    auto x = std::make_shared<op::v0::Parameter>(element::f32, shape);
    auto rank = std::make_shared<op::v3::ShapeOf>(std::make_shared<op::v3::ShapeOf>(x));
    auto stop = std::make_shared<op::v0::Squeeze>(rank, i64({0}));
    auto start = op::v0::Constant::create(element::i64, Shape{}, {2});
    auto step = op::v0::Constant::create(element::i64, Shape{}, {1});
    return std::make_shared<op::v4::Range>(start, stop, step, element::i64);
}

TEST(ConstantFold, AxesUpToAStaticRankFold) {
    EXPECT_EQ(values_of(constant_value(axes_up_to_rank(PartialShape{3, 1, 5, 7}))), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(values_of(constant_value(axes_up_to_rank(PartialShape{-1, 1, 5, 7}))), (std::vector<int64_t>{2, 3}));
}

TEST(ConstantFold, TheShapeOfADynamicShapeIsNotKnown) {
    auto x = std::make_shared<op::v0::Parameter>(element::f32, PartialShape{-1, 4});
    EXPECT_EQ(constant_value(std::make_shared<op::v3::ShapeOf>(x)), nullptr);
    auto y = std::make_shared<op::v0::Parameter>(element::f32, PartialShape{2, 4});
    EXPECT_EQ(values_of(constant_value(std::make_shared<op::v3::ShapeOf>(y))), (std::vector<int64_t>{2, 4}));
}

// A chain of six Adds of constants: beyond a bound of three ops it is not folded, and the ops
// the bound cut off still fold when asked about from nearer their own constants.
TEST(ConstantFold, TheDepthBoundCutsWithoutForgetting) {
    std::vector<std::shared_ptr<Node>> chain{i64({0})};
    for (int i = 0; i < 6; ++i) chain.push_back(std::make_shared<op::v1::Add>(chain.back(), i64({1})));
    ConstantFolder bounded(3);
    EXPECT_EQ(bounded.value_of(chain[6]), nullptr);
    EXPECT_EQ(values_of(bounded.value_of(chain[3])), (std::vector<int64_t>{3}));
    EXPECT_EQ(values_of(bounded.value_of(chain[5])), (std::vector<int64_t>{5}));
    EXPECT_EQ(values_of(constant_value(chain[6])), (std::vector<int64_t>{6}));
}

}  // namespace
