// lower/appending_cache: a static cache written at the calls' positions (the positions input, or
// positions[0] + arange(S)) and read by an attention over its whole capacity becomes a state that
// grows by each call's positions; over calls whose positions run on from 0 the outputs agree
// with the static form within E5. A cache written elsewhere (a ring: positions % capacity) or read
// by another op than the attention is left as it is. The grouped-query form (K and V repeated
// to every query head, lower/grouped_attention first) grows the same way and leaves no Reshape
// between the attention and its reader.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "lower/appending_cache.h"
#include "lower/grouped_attention.h"
#include "openvino/op/add.hpp"
#include "openvino/op/assign.hpp"
#include "openvino/op/broadcast.hpp"
#include "openvino/op/constant.hpp"
#include "openvino/op/convert.hpp"
#include "openvino/op/floor_mod.hpp"
#include "openvino/op/gather.hpp"
#include "openvino/op/less_eq.hpp"
#include "openvino/op/parameter.hpp"
#include "openvino/op/range.hpp"
#include "openvino/op/read_value.hpp"
#include "openvino/op/reshape.hpp"
#include "openvino/op/result.hpp"
#include "openvino/op/scaled_dot_product_attention.hpp"
#include "openvino/op/scatter_elements_update.hpp"
#include "openvino/op/shape_of.hpp"
#include "openvino/op/unsqueeze.hpp"
#include "openvino/op/util/variable.hpp"
#include "openvino/runtime/core.hpp"

namespace {

using namespace ov;

constexpr int64_t kCapacity = 16, kHeads = 2, kWidth = 8;

std::shared_ptr<Node> i64(const std::vector<int64_t>& values) {
    return op::v0::Constant::create(element::i64, Shape{values.size()}, values);
}

enum class Index { Positions, FirstPlusArange, Ring };
enum class Reader { AttentionOnly, AlsoAResult };

// q [1, 2 * group, S, 8], k, v [1, 2, S, 8] and positions [S]; the caches [1, 2, 16, 8] written
// at `index`, an attention over them (repeated to every query head when group > 1, as
// transformers' repeat_kv writes it) masked to the positions up to each query's.
std::shared_ptr<Model> static_cache_attention(Index index, Reader reader = Reader::AttentionOnly, int64_t group = 1) {
    auto q = std::make_shared<op::v0::Parameter>(element::f32, PartialShape{1, kHeads * group, -1, kWidth});
    auto k = std::make_shared<op::v0::Parameter>(element::f32, PartialShape{1, kHeads, -1, kWidth});
    auto v = std::make_shared<op::v0::Parameter>(element::f32, PartialShape{1, kHeads, -1, kWidth});
    auto positions = std::make_shared<op::v0::Parameter>(element::i64, PartialShape{-1});
    positions->set_friendly_name("cache_position");
    Output<Node> at = positions;
    if (index == Index::FirstPlusArange) {
        auto count = std::make_shared<op::v8::Gather>(std::make_shared<op::v3::ShapeOf>(k), i64({2}), i64({0}));
        auto arange = std::make_shared<op::v4::Range>(
            op::v0::Constant::create(element::i64, Shape{}, {0}),
            std::make_shared<op::v1::Reshape>(count, i64({}), false), op::v0::Constant::create(element::i64, Shape{}, {1}),
            element::i64);
        auto first = std::make_shared<op::v0::Unsqueeze>(
            std::make_shared<op::v8::Gather>(positions, op::v0::Constant::create(element::i64, Shape{}, {0}),
                                             op::v0::Constant::create(element::i64, Shape{}, {0})),
            i64({0}));
        at = std::make_shared<op::v1::Add>(arange, first);
    } else if (index == Index::Ring) {
        at = std::make_shared<op::v1::FloorMod>(positions, i64({kCapacity}));
    }
    ParameterVector parameters{q, k, v, positions};
    SinkVector sinks;
    OutputVector extra;
    auto cache = [&](const Output<Node>& update, const std::string& name) -> Output<Node> {
        auto variable = std::make_shared<op::util::Variable>(
            op::util::VariableInfo{PartialShape{1, kHeads, kCapacity, kWidth}, element::f32, name});
        auto read = std::make_shared<op::v6::ReadValue>(variable);
        auto spread = std::make_shared<op::v3::Broadcast>(at, std::make_shared<op::v3::ShapeOf>(update), i64({2}),
                                                          op::BroadcastType::EXPLICIT);
        auto written = std::make_shared<op::v12::ScatterElementsUpdate>(read, spread, update,
                                                                        op::v0::Constant::create(element::i64, Shape{}, {2}));
        sinks.push_back(std::make_shared<op::v6::Assign>(written, variable));
        if (reader == Reader::AlsoAResult && name == "keys") extra.push_back(written);
        return written;
    };
    auto repeated = [&](const Output<Node>& cache) -> Output<Node> {
        if (group == 1) return cache;
        auto widened = std::make_shared<op::v3::Broadcast>(std::make_shared<op::v0::Unsqueeze>(cache, i64({2})),
                                                           i64({1, kHeads, group, kCapacity, kWidth}));
        return std::make_shared<op::v1::Reshape>(widened, i64({1, kHeads * group, kCapacity, kWidth}), false);
    };
    auto keys = repeated(cache(k, "keys"));
    auto values = repeated(cache(v, "values"));
    auto slots = std::make_shared<op::v4::Range>(op::v0::Constant::create(element::i64, Shape{}, {0}),
                                                 op::v0::Constant::create(element::i64, Shape{}, {kCapacity}),
                                                 op::v0::Constant::create(element::i64, Shape{}, {1}), element::i64);
    auto mask = std::make_shared<op::v1::LessEqual>(std::make_shared<op::v1::Reshape>(slots, i64({1, 1, 1, kCapacity}), false),
                                                    std::make_shared<op::v1::Reshape>(positions, i64({1, 1, -1, 1}), false));
    auto scale = op::v0::Constant::create(element::f32, Shape{}, {0.35f});
    auto attention = std::make_shared<op::v13::ScaledDotProductAttention>(OutputVector{q, keys, values, mask, scale}, false);
    OutputVector results{attention};
    for (const auto& e : extra) results.push_back(e);
    return std::make_shared<Model>(results, sinks, parameters);
}

Tensor random(const Shape& shape, std::mt19937& engine) {
    Tensor t(element::f32, shape);
    std::normal_distribution<float> normal;
    for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = normal(engine);
    return t;
}

// The attention's output of calls of `lengths` tokens, positions running on from 0.
std::vector<std::vector<float>> run_calls(const std::shared_ptr<Model>& model, const std::vector<size_t>& lengths,
                                          int64_t group = 1) {
    static Core core;
    // As pt2ov compiles (openvino_facts KvCacheQuantizedByDefault): the plugin's fused attention
    // would otherwise keep the cache in 8 bits.
    auto request = core.compile_model(model, "CPU", {{"INFERENCE_PRECISION_HINT", "f32"}, {"KV_CACHE_PRECISION", "f32"}})
                       .create_infer_request();
    std::mt19937 engine(5);
    std::vector<std::vector<float>> outputs;
    int64_t next = 0;
    for (size_t length : lengths) {
        Tensor positions(element::i64, Shape{length});
        for (size_t i = 0; i < length; ++i) positions.data<int64_t>()[i] = next++;
        request.set_input_tensor(0, random({1, static_cast<size_t>(kHeads * group), length, kWidth}, engine));
        request.set_input_tensor(1, random({1, kHeads, length, kWidth}, engine));
        request.set_input_tensor(2, random({1, kHeads, length, kWidth}, engine));
        request.set_input_tensor(3, positions);
        request.infer();
        const auto out = request.get_output_tensor(0);
        outputs.emplace_back(out.data<float>(), out.data<float>() + out.get_size());
    }
    return outputs;
}

void expect_same_calls(Index index, int64_t group = 1) {
    const std::vector<size_t> lengths = {5, 1, 3, 1, 1};
    const auto expected = run_calls(static_cache_attention(index, Reader::AttentionOnly, group), lengths, group);
    auto model = static_cache_attention(index, Reader::AttentionOnly, group);
    if (group > 1) ASSERT_EQ(pt2ov::lower::attend_grouped_queries_by_broadcast(*model), 1u);
    const auto appended = pt2ov::lower::append_to_static_caches(*model, "cache_position");
    ASSERT_EQ(appended.size(), 2u);
    for (const auto& cache : appended) EXPECT_EQ(cache.capacity, kCapacity) << cache.variable;
    for (const auto& node : model->get_ordered_ops()) {
        EXPECT_FALSE(ov::is_type<op::v12::ScatterElementsUpdate>(node)) << "the whole-cache write is gone";
    }
    for (const auto& variable : model->get_variables()) {
        EXPECT_TRUE(variable->get_info().data_shape[2].is_dynamic()) << variable->get_info().variable_id;
    }
    if (group > 1) {
        const auto reader = model->get_results().at(0)->input_value(0).get_node_shared_ptr();
        EXPECT_TRUE(ov::is_type<op::v13::ScaledDotProductAttention>(reader))
            << "the result reads the attention itself, not " << reader->get_type_name();
        EXPECT_EQ(reader->get_output_partial_shape(0).rank().get_length(), 4);
    }
    const auto got = run_calls(model, lengths, group);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t c = 0; c < got.size(); ++c) {
        ASSERT_EQ(got[c].size(), expected[c].size());
        for (size_t i = 0; i < got[c].size(); ++i) {
            EXPECT_NEAR(got[c][i], expected[c][i], 1e-5 + 1e-4 * std::fabs(expected[c][i])) << "call " << c << " at " << i;
        }
    }
}

TEST(AppendingCache, ACacheWrittenAtThePositionsGrowsWithTheSameResults) { expect_same_calls(Index::Positions); }

TEST(AppendingCache, ACacheWrittenAtTheFirstPositionPlusArangeGrowsWithTheSameResults) {
    expect_same_calls(Index::FirstPlusArange);
}

TEST(AppendingCache, AGroupedQueryCacheGrowsWithTheSameResultsAndNoReshapeAfterTheAttention) {
    expect_same_calls(Index::Positions, 2);
}

TEST(AppendingCache, ARingCacheStaysWhole) {
    auto model = static_cache_attention(Index::Ring);
    EXPECT_TRUE(pt2ov::lower::append_to_static_caches(*model, "cache_position").empty());
}

TEST(AppendingCache, ACacheReadByAnotherOpStaysWhole) {
    auto model = static_cache_attention(Index::Positions, Reader::AlsoAResult);
    const auto appended = pt2ov::lower::append_to_static_caches(*model, "cache_position");
    EXPECT_TRUE(appended.empty()) << "the keys are read by a Result, and an attention's K and V go together";
}

TEST(AppendingCache, OtherPositionsThanThePromisedOnesLeaveTheCacheWhole) {
    auto model = static_cache_attention(Index::Positions);
    EXPECT_TRUE(pt2ov::lower::append_to_static_caches(*model, "another_input").empty());
}

}  // namespace
