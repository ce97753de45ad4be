// lower/grouped_attention: an SDPA over K and V repeated to every query head (transformers'
// repeat_kv) becomes the same attention over 5-D views with the repeat left to the SDPA's
// broadcast; the compiled results agree within E5, and an SDPA that is not such a repeat is left
// as it is.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "lower/grouped_attention.h"
#include "openvino/op/broadcast.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/reshape.hpp"
#include "openvino/op/scaled_dot_product_attention.hpp"
#include "openvino/op/unsqueeze.hpp"
#include "openvino/runtime/core.hpp"

namespace {

using namespace ov;

std::shared_ptr<Node> i64(const std::vector<int64_t>& values) {
    return op::v0::Constant::create(element::i64, Shape{values.size()}, values);
}

// q [1, 4, S, 16] over k, v [1, 2, 32, 16] repeated to 4 heads, a mask [1, 1, S, 32].
std::shared_ptr<Model> repeated_attention(bool repeat_v = true) {
    auto q = std::make_shared<op::v0::Parameter>(element::f32, PartialShape{1, 4, -1, 16});
    auto k = std::make_shared<op::v0::Parameter>(element::f32, PartialShape{1, 2, 32, 16});
    auto v = std::make_shared<op::v0::Parameter>(element::f32, PartialShape{1, repeat_v ? 2 : 4, 32, 16});
    auto mask = std::make_shared<op::v0::Parameter>(element::f32, PartialShape{1, 1, -1, 32});
    const auto repeat = [](const Output<Node>& x) -> Output<Node> {
        auto wide = std::make_shared<op::v3::Broadcast>(std::make_shared<op::v0::Unsqueeze>(x, i64({2})),
                                                         i64({1, 2, 2, 32, 16}));
        return std::make_shared<op::v1::Reshape>(wide, i64({1, 4, 32, 16}), false);
    };
    auto scale = op::v0::Constant::create(element::f32, Shape{}, {0.25f});
    auto sdpa = std::make_shared<op::v13::ScaledDotProductAttention>(
        OutputVector{q, repeat(k), repeat_v ? repeat(v) : Output<Node>(v), mask, scale}, false);
    return std::make_shared<Model>(OutputVector{sdpa}, ParameterVector{q, k, v, mask});
}

std::vector<float> run(const std::shared_ptr<Model>& model, const std::vector<Tensor>& inputs) {
    static Core core;
    auto request = core.compile_model(model, "CPU", {{"INFERENCE_PRECISION_HINT", "f32"}}).create_infer_request();
    for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
    request.infer();
    const auto out = request.get_output_tensor(0);
    return {out.data<float>(), out.data<float>() + out.get_size()};
}

Tensor random(const Shape& shape, std::mt19937& engine, float masked_from = -1) {
    Tensor t(element::f32, shape);
    std::normal_distribution<float> normal;
    for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = normal(engine);
    if (masked_from >= 0) {  // a causal-like mask: the last positions -inf
        for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = (i % shape.back()) >= masked_from ? -INFINITY : 0.0f;
    }
    return t;
}

TEST(GroupedAttention, RepeatedKeysAndValuesBecomeABroadcastWithTheSameResult) {
    std::mt19937 engine(27);
    const std::vector<Tensor> inputs = {random({1, 4, 3, 16}, engine), random({1, 2, 32, 16}, engine),
                                        random({1, 2, 32, 16}, engine), random({1, 1, 3, 32}, engine, 20)};
    const auto expected = run(repeated_attention(), inputs);
    auto model = repeated_attention();
    ASSERT_EQ(pt2ov::lower::attend_grouped_queries_by_broadcast(*model), 1u);
    size_t five_d = 0;
    for (const auto& node : model->get_ordered_ops()) {
        if (ov::is_type<op::v13::ScaledDotProductAttention>(node)) {
            five_d += node->get_input_partial_shape(1).rank().get_length() == 5;
        }
        EXPECT_FALSE(ov::is_type<op::v3::Broadcast>(node)) << "the repeat is gone";
    }
    EXPECT_EQ(five_d, 1u);
    EXPECT_EQ(model->get_output_partial_shape(0), (PartialShape{1, 4, -1, 16}));
    const auto got = run(model, inputs);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i], expected[i], 1e-5 + 1e-4 * std::fabs(expected[i])) << i;
    }
}

TEST(GroupedAttention, AnSdpaWhoseValuesAreNotRepeatedIsLeftAsItIs) {
    auto model = repeated_attention(false);
    EXPECT_EQ(pt2ov::lower::attend_grouped_queries_by_broadcast(*model), 0u);
}

}  // namespace
