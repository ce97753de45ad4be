// Shape contracts of the nn kernels (convolution, distance, embedding_bag, histogram, nn_misc,
// normalization, pooling, rnn, sampling, shuffle_pad; glu, baddbmm and dot): each accepts the sizes PyTorch's meta function makes,
// refuses recorded sizes that contradict them, and refuses arguments PyTorch itself would reject;
// where PyTorch's sizes depend on the data, the device or a decomposition, nothing is concluded.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "../fixtures/graph_builder.h"
#include "../fixtures/shape_contract.h"
#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/registry.h"
#include "pt2ov/error.h"

namespace pt2ov {
namespace {

using graph::bool_arg;
using graph::float_arg;
using graph::int_arg;
using graph::ints_arg;
using graph::list_arg;
using graph::none_arg;
using graph::string_arg;
using graph::tensor_arg;
using test::GraphBuilder;
using Sizes = std::vector<int64_t>;
using Tensors = std::vector<std::pair<std::string, Sizes>>;

using test::refusal;

// The check of one node of `target` reading `inputs`, over the tensors `values`, with the tensor
// outputs `outputs` in order, the op's later returns unused (None), or as its one list output
// ("" when it accepts them).
std::string check(const std::string& target, const Tensors& values, std::vector<graph::NamedArgument> inputs, const Tensors& outputs) {
    GraphBuilder b;
    for (const auto& [name, sizes] : values) b.value(name, DType::Float32, sizes);
    std::vector<graph::Argument> outs;
    for (const auto& [name, sizes] : outputs) {
        b.value(name, DType::Float32, sizes);
        outs.push_back(tensor_arg(name));
    }
    const graph::OpSchema& schema = *graph::find_schema(target);
    if (schema.returns_tensor_list) outs = {list_arg(std::move(outs))};
    while (outs.size() < schema.return_count) outs.push_back(none_arg());
    return refusal(b, b.node("n", target, std::move(inputs), std::move(outs)));
}

// Arguments are passed by name.
graph::NamedArgument arg(const std::string& name, graph::Argument value) { return {name, std::move(value), true}; }
graph::NamedArgument tensor(const std::string& name) { return arg(name, tensor_arg(name)); }

::testing::AssertionResult says(const std::string& message, const std::string& part) {
    if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "'" << message << "' does not say '" << part << "'";
}

// A contradiction of the recorded output `name` with the sizes its arguments make.
std::string records(const std::string& name, const std::string& got, const std::string& want) {
    return "records '" + name + "' as " + got + " where its arguments make it " + want;
}

TEST(ShapeContractsNn, ConvolutionsMeasureTheirWindows) {
    const auto conv = [](Sizes out, Sizes input, std::vector<graph::NamedArgument> rest = {}) {
        std::vector<graph::NamedArgument> inputs{tensor("input"), tensor("weight")};
        inputs.insert(inputs.end(), rest.begin(), rest.end());
        return check("aten.conv2d.default", {{"input", input}, {"weight", {6, 2, 3, 2}}}, inputs, {{"out", out}});
    };
    const std::vector<graph::NamedArgument> strided{arg("stride", ints_arg({2, 1})), arg("padding", ints_arg({1})),
                                                    arg("dilation", ints_arg({1, 2})), arg("groups", int_arg(2))};
    EXPECT_EQ(conv({2, 6, 5, 8}, {2, 4, 9, 8}, strided), "");
    EXPECT_EQ(conv({6, 5, 8}, {4, 9, 8}, strided), "");  // unbatched
    EXPECT_TRUE(says(conv({2, 6, 5, 7}, {2, 4, 9, 8}, strided), records("out", "[2, 6, 5, 7]", "[2, 6, 5, 8]")));
    EXPECT_TRUE(says(conv({2, 6, 7, 7}, {2, 4, 9, 8}), "its input has 4 channels where its weight takes 2"));
    EXPECT_TRUE(says(conv({6, 7}, {9, 8}), "its input of rank 2 is not a batch or an unbatched sample for a weight of rank 4"));
    EXPECT_TRUE(says(conv({2, 6, 5, 6}, {2, 4, 9, 8}, {arg("stride", ints_arg({0, 1})), arg("groups", int_arg(2))}),
                     "its kernel size 3, stride 0 and dilation 1 must all be positive"));
    const auto same = [](Sizes out) {
        return check("aten.conv1d.padding", {{"input", {2, 4, 9}}, {"weight", {6, 4, 4}}},
                     {tensor("input"), tensor("weight"), arg("padding", string_arg("same")), arg("dilation", ints_arg({2}))},
                     {{"out", out}});
    };
    EXPECT_EQ(same({2, 6, 9}), "");
    EXPECT_NE(same({2, 6, 3}), "");
    const auto transposed = [](Sizes out) {
        return check("aten.conv_transpose2d.input", {{"input", {2, 4, 5, 6}}, {"weight", {4, 3, 3, 2}}},
                     {tensor("input"), tensor("weight"), arg("stride", ints_arg({2, 3})), arg("padding", ints_arg({1, 0})),
                      arg("output_padding", ints_arg({1, 2})), arg("groups", int_arg(2)), arg("dilation", ints_arg({1, 2}))},
                     {{"out", out}});
    };
    EXPECT_EQ(transposed({2, 6, 10, 20}), "");
    EXPECT_TRUE(says(transposed({2, 3, 10, 20}), records("out", "[2, 3, 10, 20]", "[2, 6, 10, 20]")));
    const auto core = [](Sizes input, Sizes out) {
        return check("aten.convolution.default", {{"input", input}, {"weight", {4, 3, 3}}},
                     {tensor("input"), tensor("weight"), arg("bias", none_arg()), arg("stride", ints_arg({2})), arg("padding", ints_arg({1})),
                      arg("dilation", ints_arg({1})), arg("transposed", bool_arg(true)), arg("output_padding", ints_arg({1})),
                      arg("groups", int_arg(1))},
                     {{"out", out}});
    };
    EXPECT_EQ(core({1, 4, 7}, {1, 3, 14}), "");
    EXPECT_NE(core({1, 4, 7}, {1, 3, 15}), "");
    EXPECT_TRUE(says(core({4, 7}, {3, 14}), "its input of rank 2 is not a batch for a weight of rank 3"));
    // No input channels: no output channels (meta_conv), whatever the weight's.
    const auto empty = [](Sizes out) {
        return check("aten.conv2d.default", {{"input", {2, 0, 5, 5}}, {"weight", {4, 0, 3, 3}}}, {tensor("input"), tensor("weight")},
                     {{"out", out}});
    };
    EXPECT_EQ(empty({2, 0, 3, 3}), "");
    EXPECT_TRUE(says(empty({2, 4, 3, 3}), records("out", "[2, 4, 3, 3]", "[2, 0, 3, 3]")));
}

TEST(ShapeContractsNn, DistancesPairRows) {
    const auto cdist = [](Sizes x2, Sizes out) {
        return check("aten._cdist_forward.default", {{"x1", {2, 1, 5, 3}}, {"x2", x2}},
                     {tensor("x1"), tensor("x2"), arg("p", float_arg(2.0)), arg("compute_mode", none_arg())}, {{"out", out}});
    };
    EXPECT_EQ(cdist({4, 6, 3}, {2, 4, 5, 6}), "");
    EXPECT_TRUE(says(cdist({4, 6, 3}, {2, 4, 6, 5}), records("out", "[2, 4, 6, 5]", "[2, 4, 5, 6]")));
    EXPECT_TRUE(says(cdist({4, 6, 2}, {2, 4, 5, 6}), "its inputs' rows have 3 and 2 columns"));
    EXPECT_TRUE(says(cdist({3, 3, 6, 3}, {2, 3, 5, 6}), "do not broadcast"));
    EXPECT_TRUE(says(cdist({3}, {2, 1, 5}), "its inputs must have at least 2 dims"));
    const auto pdist = [](Sizes self, Sizes out) {
        return check("aten.pdist.default", {{"self", self}}, {tensor("self")}, {{"out", out}});
    };
    EXPECT_EQ(pdist({6, 3}, {15}), "");
    EXPECT_EQ(pdist({1, 3}, {0}), "");
    EXPECT_NE(pdist({6, 3}, {30}), "");
    EXPECT_TRUE(says(pdist({2, 6, 3}, {15}), "its input has 3 dims where pdist takes a matrix"));
}

TEST(ShapeContractsNn, EmbeddingBagsCountTheirOffsets) {
    const auto bag = [](int64_t mode, bool include_last_offset, Tensors outs) {
        return check("aten._embedding_bag.default", {{"weight", {10, 3}}, {"indices", {7}}, {"offsets", {4}}},
                     {tensor("weight"), tensor("indices"), tensor("offsets"), arg("mode", int_arg(mode)),
                      arg("include_last_offset", bool_arg(include_last_offset))},
                     outs);
    };
    // offset2bag and bag_size (and max_indices but for max) depend on PyTorch's path: any length.
    EXPECT_EQ(bag(0, false, {{"out", {4, 3}}, {"offset2bag", {0}}, {"bag_size", {4}}, {"max_indices", {4}}}), "");
    EXPECT_EQ(bag(1, false, {{"out", {4, 3}}, {"offset2bag", {7}}, {"bag_size", {4}}, {"max_indices", {0}}}), "");
    EXPECT_EQ(bag(2, true, {{"out", {3, 3}}, {"offset2bag", {7}}, {"bag_size", {4}}, {"max_indices", {3, 3}}}), "");
    EXPECT_TRUE(says(bag(2, true, {{"out", {3, 3}}, {"offset2bag", {7}}, {"bag_size", {3}}, {"max_indices", {4, 3}}}),
                     records("max_indices", "[4, 3]", "[3, 3]")));
    EXPECT_TRUE(says(bag(0, true, {{"out", {4, 3}}}), records("out", "[4, 3]", "[3, 3]")));
    EXPECT_TRUE(says(check("aten.embedding_bag.default", {{"weight", {10, 3}}, {"indices", {0}}, {"offsets", {0}}},
                           {tensor("weight"), tensor("indices"), tensor("offsets"), arg("include_last_offset", bool_arg(true))},
                           {{"out", {0, 3}}}),
                     "it includes the last offset of no offsets"));
}

TEST(ShapeContractsNn, HistogramsMeasureTheirBins) {
    EXPECT_EQ(check("aten.histc.default", {{"self", {4, 5}}}, {tensor("self"), arg("bins", int_arg(7))}, {{"hist", {7}}}), "");
    EXPECT_EQ(check("aten.histc.default", {{"self", {4, 5}}}, {tensor("self")}, {{"hist", {100}}}), "");  // the default
    EXPECT_TRUE(says(check("aten.histc.default", {{"self", {4, 5}}}, {tensor("self"), arg("bins", int_arg(7))}, {{"hist", {20}}}),
                     records("hist", "[20]", "[7]")));
    EXPECT_TRUE(says(check("aten.histc.default", {{"self", {4}}}, {tensor("self"), arg("bins", int_arg(0))}, {{"hist", {0}}}),
                     "its bin count 0 is not positive"));
    EXPECT_EQ(check("aten.histogram.bin_ct", {{"self", {20}}}, {tensor("self"), arg("bins", int_arg(5))},
                    {{"hist", {5}}, {"edges", {6}}}),
              "");
    EXPECT_TRUE(says(check("aten.histogram.bins_tensor", {{"self", {20}}, {"bins", {6}}}, {tensor("self"), tensor("bins")},
                           {{"hist", {5}}, {"edges", {5}}}),
                     records("edges", "[5]", "[6]")));
    EXPECT_TRUE(says(check("aten.histogram.bins_tensor", {{"self", {20}}, {"bins", {1, 6}}}, {tensor("self"), tensor("bins")},
                           {{"hist", {5}}, {"edges", {6}}}),
                     "its bin tensor must be 1-d, not of 2 dims"));
    // histogramdd's edges are a list output: each checked in turn after the hist.
    const auto dd = [](graph::Argument bins, Sizes hist, std::vector<Sizes> edges, Sizes self = {10, 2}) {
        GraphBuilder b;
        b.value("self", DType::Float32, self);
        b.value("b0", DType::Float32, {4});
        b.value("b1", DType::Float32, {6});
        b.value("hist", DType::Float32, hist);
        std::vector<graph::Argument> items;
        for (size_t d = 0; d < edges.size(); ++d) {
            b.value("e" + std::to_string(d), DType::Float32, edges[d]);
            items.push_back(tensor_arg("e" + std::to_string(d)));
        }
        return refusal(b, b.node("n", "aten.histogramdd.default", {tensor("self"), arg("bins", std::move(bins))},
                                 {tensor_arg("hist"), list_arg(std::move(items))}));
    };
    EXPECT_EQ(dd(ints_arg({3, 4}), {3, 4}, {{4}, {5}}), "");
    EXPECT_TRUE(says(dd(ints_arg({3, 4}), {3, 4}, {{4}, {4}}), records("e1", "[4]", "[5]")));
    EXPECT_TRUE(says(dd(ints_arg({3, 4, 5}), {3, 4, 5}, {{4}, {5}, {6}}), "it gives 3 bin counts for 2 dims"));
    EXPECT_TRUE(says(dd(ints_arg({3}), {3}, {{4}}, {10}), "its input has 1 dims where histogramdd takes at least 2"));
    GraphBuilder by_tensors;
    by_tensors.value("self", DType::Float32, {10, 2});
    by_tensors.value("b0", DType::Float32, {4});
    by_tensors.value("b1", DType::Float32, {6});
    by_tensors.value("hist", DType::Float32, {3, 5});
    EXPECT_EQ(refusal(by_tensors, by_tensors.node("n", "aten._histogramdd_from_bin_tensors.default",
                                                  {tensor("self"), arg("bins", list_arg({tensor_arg("b0"), tensor_arg("b1")}))},
                                                  {tensor_arg("hist")})),
              "");
    EXPECT_EQ(check("aten.histogramdd.int_bins", {{"self", {3, 10, 2}}}, {tensor("self"), arg("bins", int_arg(4))}, {{"hist", {4, 4}}}), "");
    EXPECT_NE(check("aten._histogramdd_from_bin_cts.default", {{"self", {10, 2}}}, {tensor("self"), arg("bins", ints_arg({3, 4}))},
                    {{"hist", {4, 3}}}),
              "");
    EXPECT_TRUE(says(check("aten._histogramdd_bin_edges.default", {{"self", {10, 2}}}, {tensor("self"), arg("bins", ints_arg({3, 4}))},
                           {{"e0", {4}}, {"e1", {4}}}),
                     records("e1", "[4]", "[5]")));
}

TEST(ShapeContractsNn, BilinearAndTrilinearProducts) {
    const auto bilinear = [](Sizes x2, Sizes weight, Sizes out) {
        return check("aten.bilinear.default", {{"input1", {2, 6, 3}}, {"input2", x2}, {"weight", weight}},
                     {tensor("input1"), tensor("input2"), tensor("weight")}, {{"out", out}});
    };
    EXPECT_EQ(bilinear({2, 6, 4}, {5, 3, 4}, {2, 6, 5}), "");
    EXPECT_TRUE(says(bilinear({2, 6, 4}, {5, 3, 4}, {2, 6, 4}), records("out", "[2, 6, 4]", "[2, 6, 5]")));
    EXPECT_TRUE(says(bilinear({2, 6, 4}, {5, 4, 4}, {2, 6, 5}), "input1's features and the weight's second size: 3 and 4 differ"));
    EXPECT_TRUE(says(bilinear({1, 6, 4}, {5, 3, 4}, {2, 6, 5}), "its inputs' batch sizes: 2 and 1 differ"));
    const auto trilinear = [](Sizes expand3, Sizes sumdim, int64_t unroll_dim, Sizes out) {
        return check("aten._trilinear.default", {{"i1", {2, 3}}, {"i2", {2, 4}}, {"i3", {2, 3}}},
                     {tensor("i1"), tensor("i2"), tensor("i3"), arg("expand1", ints_arg({1, 3})), arg("expand2", ints_arg({1, 2})),
                      arg("expand3", ints_arg(expand3)), arg("sumdim", ints_arg(sumdim)), arg("unroll_dim", int_arg(unroll_dim))},
                     {{"out", out}});
    };
    EXPECT_EQ(trilinear({2, 3}, {}, 1, {2, 3, 3, 4}), "");
    EXPECT_EQ(trilinear({2, 3}, {0, -1}, 1, {3, 3}), "");
    EXPECT_TRUE(says(trilinear({2, 3}, {0}, 1, {3, 4, 3}), records("out", "[3, 4, 3]", "[3, 3, 4]")));
    EXPECT_TRUE(says(trilinear({2, 3}, {}, 4, {2, 3, 3, 4}), "its unroll_dim 4 is not a dim of the 4 its inputs expand to"));
    EXPECT_TRUE(says(trilinear({2}, {}, 1, {2, 3, 3, 4}), "its inputs do not expand to one rank"));
}

TEST(ShapeContractsNn, MarginLossesReduceTheirSamples) {
    const auto multi = [](Sizes self, int64_t reduction, Sizes out) {
        return check("aten.multi_margin_loss.default", {{"self", self}, {"target", {self.empty() ? 1 : self[0]}}},
                     {tensor("self"), tensor("target"), arg("reduction", int_arg(reduction))}, {{"out", out}});
    };
    EXPECT_EQ(multi({4, 5}, 0, {4}), "");
    EXPECT_EQ(multi({4, 5}, 1, {}), "");
    EXPECT_TRUE(says(multi({4, 5}, 2, {4}), records("out", "[4]", "[]")));
    // One sample without reduction: [1] by the decomposition export runs, [] by PyTorch's kernel.
    EXPECT_EQ(multi({5}, 0, {1}), "");
    EXPECT_EQ(multi({5}, 0, {}), "");
    EXPECT_TRUE(says(multi({2, 4, 5}, 1, {}), "its input has 3 dims where the loss takes a vector or a matrix"));
    const auto multilabel = [](Sizes target, int64_t reduction, Tensors outs) {
        return check("aten.multilabel_margin_loss_forward.default", {{"self", {4, 5}}, {"target", target}},
                     {tensor("self"), tensor("target"), arg("reduction", int_arg(reduction))}, outs);
    };
    EXPECT_EQ(multilabel({4, 5}, 0, {{"out", {4}}, {"is_target", {4, 5}}}), "");
    EXPECT_TRUE(says(multilabel({4, 5}, 1, {{"out", {}}, {"is_target", {4}}}), records("is_target", "[4]", "[4, 5]")));
    EXPECT_TRUE(says(multilabel({4}, 1, {{"out", {}}, {"is_target", {4}}}), "its target's sizes are not its input's"));
}

TEST(ShapeContractsNn, NormalizationsKeepTheirInputsSizes) {
    const auto layer_norm = [](Sizes normalized, Tensors outs, Sizes weight = {}) {
        Tensors values{{"input", {2, 3, 4}}};
        std::vector<graph::NamedArgument> inputs{tensor("input"), arg("normalized_shape", ints_arg(normalized)), arg("bias", none_arg()),
                                                 arg("eps", float_arg(1e-5))};
        if (weight.empty()) {
            inputs.push_back(arg("weight", none_arg()));
        } else {
            values.push_back({"weight", weight});
            inputs.push_back(tensor("weight"));
        }
        return check("aten.native_layer_norm.default", values, inputs, outs);
    };
    EXPECT_EQ(layer_norm({3, 4}, {{"out", {2, 3, 4}}, {"mean", {2, 1, 1}}, {"rstd", {2, 1, 1}}}, {3, 4}), "");
    EXPECT_TRUE(says(layer_norm({4}, {{"out", {2, 3, 4}}, {"mean", {2, 3}}, {"rstd", {2, 3, 1}}}), records("mean", "[2, 3]", "[2, 3, 1]")));
    EXPECT_TRUE(says(layer_norm({3}, {{"out", {2, 3, 4}}}), "its input of rank 3 does not end in normalized_shape of 1 dims"));
    EXPECT_TRUE(says(layer_norm({4}, {{"out", {2, 3, 4}}}, {3}), "its weight does not have normalized_shape's sizes"));
    // A symbolic normalized_shape: the statistics keep the input's rank, their sizes unknown.
    const auto symbolic = [](Tensors outs) {
        return check("aten.native_layer_norm.default", {{"input", {2, 3, 4}}},
                     {tensor("input"), arg("normalized_shape", list_arg({graph::symint_arg("s0")}, graph::Argument::Kind::Int)),
                      arg("weight", none_arg()), arg("bias", none_arg()), arg("eps", float_arg(1e-5))},
                     outs);
    };
    EXPECT_EQ(symbolic({{"out", {2, 3, 4}}, {"mean", {2, 3, 1}}, {"rstd", {2, 3, 1}}}), "");
    EXPECT_TRUE(says(symbolic({{"out", {2, 3, 4}}, {"mean", {2, 3}}}), records("mean", "[2, 3]", "[?, ?, ?]")));
    const auto batch_norm = [](Sizes running, Tensors outs) {
        return check("aten._native_batch_norm_legit_no_training.default",
                     {{"input", {2, 3, 5}}, {"running_mean", running}, {"running_var", running}},
                     {tensor("input"), arg("weight", none_arg()), arg("bias", none_arg()), tensor("running_mean"), tensor("running_var"),
                      arg("momentum", float_arg(0.1)), arg("eps", float_arg(1e-5))},
                     outs);
    };
    // The saved statistics: one per channel by meta_batch_norm, none by PyTorch's CPU kernel.
    EXPECT_EQ(batch_norm({3}, {{"out", {2, 3, 5}}, {"save_mean", {3}}, {"save_invstd", {0}}}), "");
    EXPECT_TRUE(says(batch_norm({3}, {{"out", {2, 5, 3}}}), records("out", "[2, 5, 3]", "[2, 3, 5]")));
    EXPECT_TRUE(says(batch_norm({5}, {{"out", {2, 3, 5}}}), "its running_mean must hold one value for each of the input's 3 channels"));
    const auto group_norm = [](Tensors outs) {
        return check("aten.native_group_norm.default", {{"input", {2, 6, 4}}},
                     {tensor("input"), arg("weight", none_arg()), arg("bias", none_arg()), arg("N", int_arg(2)), arg("C", int_arg(6)),
                      arg("HxW", int_arg(4)), arg("group", int_arg(3)), arg("eps", float_arg(1e-5))},
                     outs);
    };
    EXPECT_EQ(group_norm({{"out", {2, 6, 4}}, {"mean", {2, 3}}, {"rstd", {2, 3}}}), "");
    EXPECT_TRUE(says(group_norm({{"out", {2, 6, 4}}, {"mean", {2, 3}}, {"rstd", {2, 6}}}), records("rstd", "[2, 6]", "[2, 3]")));
    const auto instance_norm = [](Sizes out) {
        return check("aten.instance_norm.default", {{"input", {2, 3, 5}}},
                     {tensor("input"), arg("weight", none_arg()), arg("bias", none_arg()), arg("running_mean", none_arg()),
                      arg("running_var", none_arg()), arg("use_input_stats", bool_arg(true)), arg("momentum", float_arg(0.1)),
                      arg("eps", float_arg(1e-5)), arg("cudnn_enabled", bool_arg(false))},
                     {{"out", out}});
    };
    EXPECT_EQ(instance_norm({2, 3, 5}), "");
    EXPECT_NE(instance_norm({2, 3}), "");
}

TEST(ShapeContractsNn, SegmentReduceMakesOneValuePerSegment) {
    const auto segments = [](std::string by, Sizes given, int64_t axis, Sizes out) {
        return check("aten.segment_reduce.default", {{"data", {2, 6, 3}}, {by, given}},
                     {tensor("data"), arg("reduce", string_arg("sum")), arg(by, tensor_arg(by)), arg("axis", int_arg(axis))},
                     {{"out", out}});
    };
    EXPECT_EQ(segments("lengths", {2, 4}, 1, {2, 4, 3}), "");
    EXPECT_EQ(segments("offsets", {2, 5}, 1, {2, 4, 3}), "");
    EXPECT_TRUE(says(segments("lengths", {2, 4}, 1, {2, 6, 3}), records("out", "[2, 6, 3]", "[2, 4, 3]")));
    EXPECT_TRUE(says(segments("lengths", {2, 4}, 3, {2, 4}), "its axis 3 is out of range for rank 3"));
    EXPECT_EQ(segments("lengths", {2, 4}, -2, {2, 2, 3}), "");  // meta_segment_reduce does not wrap it: unchecked
}

TEST(ShapeContractsNn, PoolsMeasureTheirWindows) {
    const auto avg_pool = [](Sizes input, Sizes out, std::vector<graph::NamedArgument> rest) {
        std::vector<graph::NamedArgument> inputs{tensor("self")};
        inputs.insert(inputs.end(), rest.begin(), rest.end());
        return check("aten.avg_pool2d.default", {{"self", input}}, inputs, {{"out", out}});
    };
    const std::vector<graph::NamedArgument> ceil{arg("kernel_size", ints_arg({3})), arg("stride", ints_arg({2})),
                                                 arg("padding", ints_arg({1})), arg("ceil_mode", bool_arg(true))};
    EXPECT_EQ(avg_pool({1, 3, 7, 7}, {1, 3, 4, 4}, ceil), "");
    EXPECT_EQ(avg_pool({3, 7, 8}, {3, 3, 4}, {arg("kernel_size", ints_arg({2}))}), "");  // stride: the kernel's
    EXPECT_TRUE(says(avg_pool({1, 3, 7, 7}, {1, 3, 3, 3}, ceil), records("out", "[1, 3, 3, 3]", "[1, 3, 4, 4]")));
    EXPECT_TRUE(says(avg_pool({1, 3, 7, 7}, {1, 3, 4, 4}, {arg("kernel_size", ints_arg({3})), arg("padding", ints_arg({2}))}),
                     "its padding 2 is not in [0, half its kernel size 3]"));
    EXPECT_TRUE(says(avg_pool({7, 7}, {3, 3}, {arg("kernel_size", ints_arg({2}))}), "its input has 2 dims where it takes 3 or 4"));
    EXPECT_EQ(check("aten.avg_pool3d.default", {{"self", {2, 3, 6, 9, 8}}},
                    {tensor("self"), arg("kernel_size", ints_arg({3, 2, 2})), arg("stride", ints_arg({2, 1, 2})), arg("ceil_mode", bool_arg(true))},
                    {{"out", {2, 3, 3, 8, 4}}}),
              "");
    EXPECT_TRUE(says(check("aten.adaptive_avg_pool3d.default", {{"self", {3, 7, 6, 5}}},
                           {tensor("self"), arg("output_size", ints_arg({2, 3, 1}))}, {{"out", {3, 2, 3, 2}}}),
                     records("out", "[3, 2, 3, 2]", "[3, 2, 3, 1]")));
    const auto unpool = [](Sizes indices, Sizes out) {
        return check("aten.max_unpool2d.default", {{"self", {2, 3, 4, 3}}, {"indices", indices}},
                     {tensor("self"), tensor("indices"), arg("output_size", ints_arg({9, 7}))}, {{"out", out}});
    };
    EXPECT_EQ(unpool({2, 3, 4, 3}, {2, 3, 9, 7}), "");
    EXPECT_NE(unpool({2, 3, 4, 3}, {2, 3, 8, 6}), "");
    EXPECT_TRUE(says(unpool({2, 3, 4, 4}, {2, 3, 9, 7}), "its indices' sizes are not its input's"));
    EXPECT_EQ(check("aten.max_unpool3d.default", {{"self", {3, 2, 2, 2}}, {"indices", {3, 2, 2, 2}}},
                    {tensor("self"), tensor("indices"), arg("output_size", ints_arg({4, 5, 4})), arg("stride", ints_arg({2, 2, 2})),
                     arg("padding", ints_arg({0, 0, 0}))},
                    {{"out", {3, 4, 5, 4}}}),
              "");
}

TEST(ShapeContractsNn, MaxPoolsMeasureTheirDilatedWindows) {
    const auto max_pool = [](Sizes input, Sizes out, std::vector<graph::NamedArgument> rest) {
        std::vector<graph::NamedArgument> inputs{tensor("self")};
        inputs.insert(inputs.end(), rest.begin(), rest.end());
        return check("aten.max_pool2d_with_indices.default", {{"self", input}}, inputs, {{"out", out}, {"indices", out}});
    };
    const std::vector<graph::NamedArgument> dilated{arg("kernel_size", ints_arg({3})), arg("stride", ints_arg({2})),
                                                    arg("padding", ints_arg({1})), arg("dilation", ints_arg({2})),
                                                    arg("ceil_mode", bool_arg(true))};
    EXPECT_EQ(max_pool({1, 3, 7, 6}, {1, 3, 3, 3}, dilated), "");  // (7 + 2 - 5 + 1) // 2 + 1 = 3 both ways
    EXPECT_EQ(max_pool({3, 7, 8}, {3, 3, 4}, {arg("kernel_size", ints_arg({2})), arg("stride", ints_arg({}))}), "");
    // ceil_mode's last window must start inside the input or its left padding: 5 // 3 + 1 = 2, not 3
    EXPECT_EQ(max_pool({1, 1, 6, 6}, {1, 1, 2, 2}, {arg("kernel_size", ints_arg({2})), arg("stride", ints_arg({3})),
                                                    arg("ceil_mode", bool_arg(true))}),
              "");
    EXPECT_TRUE(says(max_pool({1, 3, 7, 6}, {1, 3, 4, 3}, dilated), records("out", "[1, 3, 4, 3]", "[1, 3, 3, 3]")));
    EXPECT_TRUE(says(max_pool({1, 3, 7, 6}, {1, 3, 3, 3}, {arg("kernel_size", ints_arg({2})), arg("padding", ints_arg({2}))}),
                     "its padding 2 is not in [0, half its kernel size 2]"));
    EXPECT_TRUE(says(max_pool({1, 3, 7, 6}, {1, 3, 3, 3}, {arg("kernel_size", ints_arg({2})), arg("dilation", ints_arg({0}))}),
                     "must be positive"));
    EXPECT_TRUE(says(max_pool({1, 3, 2, 2}, {1, 3, 0, 0}, {arg("kernel_size", ints_arg({3}))}), "its output would have 0 positions"));
    EXPECT_EQ(check("aten.max_pool3d_with_indices.default", {{"self", {2, 3, 5, 6, 7}}},
                    {tensor("self"), arg("kernel_size", ints_arg({3, 2, 3})), arg("stride", ints_arg({2, 1, 2})),
                     arg("padding", ints_arg({1, 0, 1})), arg("dilation", ints_arg({1, 2, 1})), arg("ceil_mode", bool_arg(true))},
                    {{"out", {2, 3, 3, 4, 4}}, {"indices", {2, 3, 3, 4, 4}}}),
              "");
}

TEST(ShapeContractsNn, AdaptivePoolsTakeOutputSize) {
    EXPECT_EQ(check("aten._adaptive_avg_pool2d.default", {{"self", {2, 3, 7, 6}}}, {tensor("self"), arg("output_size", ints_arg({3, 9}))},
                    {{"out", {2, 3, 3, 9}}}),
              "");
    EXPECT_TRUE(says(check("aten.adaptive_avg_pool2d.default", {{"self", {3, 7, 6}}}, {tensor("self"), arg("output_size", ints_arg({2}))},
                           {{"out", {3, 2, 3}}}),
                     records("out", "[3, 2, 3]", "[3, 2, 2]")));
    EXPECT_TRUE(says(check("aten.adaptive_max_pool2d.default", {{"self", {3, 7, 6}}}, {tensor("self"), arg("output_size", ints_arg({2, 2}))},
                           {{"out", {3, 2, 2}}, {"indices", {3, 2, 3}}}),
                     records("indices", "[3, 2, 3]", "[3, 2, 2]")));
    EXPECT_EQ(check("aten.adaptive_max_pool1d.default", {{"self", {2, 3, 9}}}, {tensor("self"), arg("output_size", ints_arg({4}))},
                    {{"out", {2, 3, 4}}, {"indices", {2, 3, 4}}}),
              "");
    EXPECT_TRUE(says(check("aten.adaptive_max_pool3d.default", {{"self", {7, 6}}}, {tensor("self"), arg("output_size", ints_arg({2}))},
                           {{"out", {2, 2, 2}}}),
                     "its input has 2 dims where it takes 4 or 5"));
}

TEST(ShapeContractsNn, EmbeddingAppendsTheWeightsWidth) {
    const auto embedding = [](Sizes weight, Sizes indices, Sizes out) {
        return check("aten.embedding.default", {{"weight", weight}, {"indices", indices}}, {tensor("weight"), tensor("indices")},
                     {{"out", out}});
    };
    EXPECT_EQ(embedding({10, 4}, {2, 3}, {2, 3, 4}), "");
    EXPECT_EQ(embedding({10, 4}, {}, {4}), "");
    EXPECT_TRUE(says(embedding({10, 4}, {2, 3}, {2, 3, 10}), records("out", "[2, 3, 10]", "[2, 3, 4]")));
    EXPECT_TRUE(says(embedding({10}, {2}, {2, 10}), "its weight has 1 dims where it takes 2"));
}

TEST(ShapeContractsNn, Im2colAndCol2imCountBlocks) {
    const std::vector<graph::NamedArgument> window{arg("kernel_size", ints_arg({2, 3})), arg("dilation", ints_arg({1, 2})),
                                                   arg("padding", ints_arg({1, 1})), arg("stride", ints_arg({2, 1}))};
    const auto im2col = [&](Sizes input, Sizes out) {
        std::vector<graph::NamedArgument> inputs{tensor("self")};
        inputs.insert(inputs.end(), window.begin(), window.end());
        return check("aten.im2col.default", {{"self", input}}, inputs, {{"out", out}});
    };
    EXPECT_EQ(im2col({2, 3, 8, 9}, {2, 18, 35}), "");
    EXPECT_EQ(im2col({3, 8, 9}, {18, 35}), "");
    EXPECT_TRUE(says(im2col({2, 3, 8, 9}, {2, 18, 36}), records("out", "[2, 18, 36]", "[2, 18, 35]")));
    EXPECT_TRUE(says(im2col({2, 3, 8, 1}, {2, 18, 0}), "its kernel fits its image of dim 1 no time"));
    const auto col2im = [&](Sizes input, Sizes out) {
        std::vector<graph::NamedArgument> inputs{tensor("self"), arg("output_size", ints_arg({8, 9}))};
        inputs.insert(inputs.end(), window.begin(), window.end());
        return check("aten.col2im.default", {{"self", input}}, inputs, {{"out", out}});
    };
    EXPECT_EQ(col2im({2, 18, 35}, {2, 3, 8, 9}), "");
    EXPECT_EQ(col2im({18, 35}, {3, 8, 9}), "");
    EXPECT_TRUE(says(col2im({2, 18, 35}, {2, 3, 9, 8}), records("out", "[2, 3, 9, 8]", "[2, 3, 8, 9]")));
    EXPECT_TRUE(says(col2im({2, 17, 35}, {2, 3, 8, 9}), "its input's 17 rows are not a whole number of 6-element patches"));
    EXPECT_TRUE(says(col2im({2, 18, 30}, {2, 3, 8, 9}), "its input has 30 blocks where output_size makes 35"));
}

TEST(ShapeContractsNn, RecurrentLayersKeepTheirStates) {
    const auto lstm = [](bool bidirectional, Tensors outs) {
        return check("aten.lstm.input", {{"input", {5, 2, 3}}, {"h0", {2, 2, 4}}, {"c0", {2, 2, 6}}, {"w", {24, 3}}},
                     {tensor("input"), arg("hx", list_arg({tensor_arg("h0"), tensor_arg("c0")})), arg("params", list_arg({tensor_arg("w")})),
                      arg("has_biases", bool_arg(false)), arg("num_layers", int_arg(1)), arg("dropout", float_arg(0.0)),
                      arg("train", bool_arg(false)), arg("bidirectional", bool_arg(bidirectional)), arg("batch_first", bool_arg(false))},
                     outs);
    };
    EXPECT_EQ(lstm(true, {{"out", {5, 2, 8}}, {"hy", {2, 2, 4}}, {"cy", {2, 2, 6}}}), "");
    EXPECT_TRUE(says(lstm(false, {{"out", {5, 2, 8}}}), records("out", "[5, 2, 8]", "[5, 2, 4]")));
    EXPECT_TRUE(says(lstm(true, {{"out", {5, 2, 8}}, {"hy", {2, 2, 4}}, {"cy", {2, 2, 4}}}), records("cy", "[2, 2, 4]", "[2, 2, 6]")));
    const auto projected = [](Sizes h0) {
        // proj_size 4 of a hidden size 6: weight_hh [4 gates * 6, 4], h_0 [1, B, 4], c_0 [1, B, 6].
        return check("aten.lstm.input", {{"input", {5, 2, 3}}, {"h0", h0}, {"c0", {1, 2, 6}}, {"w_ih", {24, 3}}, {"w_hh", {24, 4}}, {"w_hr", {4, 6}}},
                     {tensor("input"), arg("hx", list_arg({tensor_arg("h0"), tensor_arg("c0")})),
                      arg("params", list_arg({tensor_arg("w_ih"), tensor_arg("w_hh"), tensor_arg("w_hr")})), arg("has_biases", bool_arg(false)),
                      arg("num_layers", int_arg(1)), arg("dropout", float_arg(0.0)), arg("train", bool_arg(false)),
                      arg("bidirectional", bool_arg(false)), arg("batch_first", bool_arg(false))},
                     {{"out", {5, 2, 4}}, {"hy", h0}, {"cy", {1, 2, 6}}});
    };
    EXPECT_EQ(projected({1, 2, 4}), "");
    EXPECT_TRUE(says(projected({1}), "its hx[0] is [1] where its input and weights make it [1, 2, 4]"));
    EXPECT_TRUE(says(projected({1, 5, 4}), "its hx[0] is [1, 5, 4] where its input and weights make it [1, 2, 4]"));
    const auto gru = [](Tensors outs) {
        return check("aten.gru.input", {{"input", {2, 5, 3}}, {"hx", {1, 2, 4}}, {"w", {12, 3}}},
                     {tensor("input"), tensor("hx"), arg("params", list_arg({tensor_arg("w")})), arg("has_biases", bool_arg(false)),
                      arg("num_layers", int_arg(1)), arg("dropout", float_arg(0.0)), arg("train", bool_arg(false)),
                      arg("bidirectional", bool_arg(false)), arg("batch_first", bool_arg(true))},
                     outs);
    };
    EXPECT_EQ(gru({{"out", {2, 5, 4}}, {"hy", {1, 2, 4}}}), "");
    EXPECT_TRUE(says(gru({{"out", {2, 5, 4}}, {"hy", {1, 5, 4}}}), records("hy", "[1, 5, 4]", "[1, 2, 4]")));
}

TEST(ShapeContractsNn, GridSamplersTakeTheGridsSizes) {
    const auto sample = [](Sizes grid, Sizes out) {
        return check("aten.grid_sampler_2d.default", {{"input", {2, 3, 5, 6}}, {"grid", grid}},
                     {tensor("input"), tensor("grid"), arg("interpolation_mode", int_arg(0)), arg("padding_mode", int_arg(0)),
                      arg("align_corners", bool_arg(false))},
                     {{"out", out}});
    };
    EXPECT_EQ(sample({2, 4, 7, 2}, {2, 3, 4, 7}), "");
    EXPECT_TRUE(says(sample({2, 4, 7, 2}, {2, 3, 5, 6}), records("out", "[2, 3, 5, 6]", "[2, 3, 4, 7]")));
    EXPECT_TRUE(says(sample({1, 4, 7, 2}, {2, 3, 4, 7}), "its input's batch of 2 and grid's of 1 differ"));
    EXPECT_TRUE(says(sample({2, 4, 7, 3}, {2, 3, 4, 7}), "its grid's last size is 3 where a 2-d sampling takes 2"));
    EXPECT_TRUE(says(sample({2, 4, 2}, {2, 3, 4}), "its input of rank 4 and grid of rank 3 are not both 4-d or both 5-d"));
}

TEST(ShapeContractsNn, UpsamplingTakesASizeOrScalesIt) {
    EXPECT_EQ(check("aten.upsample_nearest1d.default", {{"self", {2, 3, 5}}}, {tensor("self"), arg("output_size", ints_arg({7}))},
                    {{"out", {2, 3, 7}}}),
              "");
    EXPECT_TRUE(says(check("aten.upsample_bicubic2d.default", {{"self", {2, 3, 5, 6}}},
                           {tensor("self"), arg("output_size", ints_arg({7, 3})), arg("align_corners", bool_arg(false))},
                           {{"out", {2, 3, 3, 7}}}),
                     records("out", "[2, 3, 3, 7]", "[2, 3, 7, 3]")));
    const auto scaled = [](graph::Argument output_size, graph::Argument scales, Sizes out) {
        return check("aten.upsample_bilinear2d.vec", {{"input", {2, 3, 5, 6}}},
                     {tensor("input"), arg("output_size", std::move(output_size)), arg("align_corners", bool_arg(false)),
                      arg("scale_factors", std::move(scales))},
                     {{"out", out}});
    };
    const auto factors = [](double h, double w) { return list_arg({float_arg(h), float_arg(w)}, graph::Argument::Kind::Float); };
    EXPECT_EQ(scaled(none_arg(), factors(1.7, 2.3), {2, 3, 8, 13}), "");  // truncated: 8.5 and 13.8
    EXPECT_EQ(scaled(none_arg(), factors(2.0, 0.5), {2, 3, 10, 3}), "");
    EXPECT_TRUE(says(scaled(none_arg(), factors(1.7, 2.3), {2, 3, 9, 14}), records("out", "[2, 3, 9, 14]", "[2, 3, 8, 13]")));
    EXPECT_EQ(scaled(ints_arg({4, 4}), none_arg(), {2, 3, 4, 4}), "");
    EXPECT_TRUE(says(scaled(ints_arg({4, 4}), factors(1.0, 1.0), {2, 3, 4, 4}), "it gives both output_size and scale_factors"));
    EXPECT_TRUE(says(scaled(none_arg(), none_arg(), {2, 3, 4, 4}), "it gives neither output_size nor scale_factors"));
    EXPECT_TRUE(says(check("aten._upsample_nearest_exact3d.vec", {{"input", {1, 2, 3, 4, 5}}},
                           {tensor("input"), arg("output_size", none_arg()),
                            arg("scale_factors", list_arg({float_arg(2.0), float_arg(2.0)}, graph::Argument::Kind::Float))},
                           {{"out", {1, 2, 6, 8, 10}}}),
                     "its scale_factors has 2 factors for 3 spatial dims"));
    EXPECT_EQ(check("aten._upsample_bilinear2d_aa.default", {{"self", {2, 3, 5, 6}}},
                    {tensor("self"), arg("output_size", ints_arg({3, 9})), arg("align_corners", bool_arg(false))}, {{"out", {2, 3, 3, 9}}}),
              "");
}

// Padding, shuffles, repeat_interleave, glu, rms_norm, batch norm without statistics, baddbmm, dot.
TEST(ShapeContractsNn, CompositeKernels) {
    EXPECT_EQ(check("aten.reflection_pad2d.default", {{"self", {2, 3, 5, 6}}}, {tensor("self"), arg("padding", ints_arg({2, 1, -1, 3}))},
                    {{"out", {2, 3, 7, 9}}}),
              "");
    EXPECT_TRUE(says(check("aten.replication_pad1d.default", {{"self", {2, 3, 5}}}, {tensor("self"), arg("padding", ints_arg({2, 1}))},
                           {{"out", {2, 3, 7}}}),
                     "out"));
    EXPECT_EQ(check("aten.pixel_shuffle.default", {{"self", {1, 8, 2, 3}}}, {tensor("self"), arg("upscale_factor", int_arg(2))},
                    {{"out", {1, 2, 4, 6}}}),
              "");
    EXPECT_NE(check("aten.pixel_unshuffle.default", {{"self", {1, 2, 4, 6}}}, {tensor("self"), arg("downscale_factor", int_arg(2))},
                    {{"out", {1, 2, 2, 3}}}),
              "");
    EXPECT_EQ(check("aten.channel_shuffle.default", {{"self", {2, 6, 3}}}, {tensor("self"), arg("groups", int_arg(3))}, {{"out", {2, 6, 3}}}),
              "");
    EXPECT_EQ(check("aten.repeat_interleave.self_int", {{"self", {2, 3}}}, {tensor("self"), arg("repeats", int_arg(3)), arg("dim", int_arg(-1))},
                    {{"out", {2, 9}}}),
              "");
    EXPECT_EQ(check("aten.repeat_interleave.self_int", {{"self", {2, 3}}}, {tensor("self"), arg("repeats", int_arg(2))}, {{"out", {12}}}), "");
    EXPECT_EQ(check("aten.glu.default", {{"self", {3, 4, 6}}}, {tensor("self"), arg("dim", int_arg(1))}, {{"out", {3, 2, 6}}}), "");
    EXPECT_TRUE(says(check("aten.glu.default", {{"self", {3, 5}}}, {tensor("self")}, {{"out", {3, 2}}}), "odd size 5"));
    EXPECT_EQ(check("aten.rms_norm.default", {{"input", {3, 4, 6}}, {"weight", {4, 6}}},
                    {tensor("input"), arg("normalized_shape", ints_arg({4, 6})), tensor("weight")}, {{"out", {3, 4, 6}}}),
              "");
    EXPECT_TRUE(says(check("aten.rms_norm.default", {{"input", {3, 4, 6}}}, {tensor("input"), arg("normalized_shape", ints_arg({5}))},
                           {{"out", {3, 4, 6}}}),
                     "normalized_shape"));
    EXPECT_EQ(check("aten._native_batch_norm_legit.no_stats", {{"input", {2, 3, 4}}},
                    {tensor("input"), arg("weight", none_arg()), arg("bias", none_arg()), arg("training", bool_arg(true)),
                     arg("momentum", float_arg(0.1)), arg("eps", float_arg(1e-5))},
                    {{"out", {2, 3, 4}}, {"mean", {3}}, {"rstd", {3}}}),
              "");
    EXPECT_NE(check("aten._native_batch_norm_legit.no_stats", {{"input", {2, 3, 4}}},
                    {tensor("input"), arg("weight", none_arg()), arg("bias", none_arg()), arg("training", bool_arg(true)),
                     arg("momentum", float_arg(0.1)), arg("eps", float_arg(1e-5))},
                    {{"out", {2, 3, 4}}, {"mean", {2}}, {"rstd", {3}}}),
              "");
    EXPECT_EQ(check("aten.baddbmm.default", {{"self", {4}}, {"batch1", {2, 3, 5}}, {"batch2", {2, 5, 4}}},
                    {tensor("self"), tensor("batch1"), tensor("batch2")}, {{"out", {2, 3, 4}}}),
              "");
    EXPECT_TRUE(says(check("aten.baddbmm.default", {{"self", {4}}, {"batch1", {2, 3, 5}}, {"batch2", {2, 6, 4}}},
                           {tensor("self"), tensor("batch1"), tensor("batch2")}, {{"out", {2, 3, 4}}}),
                     "inner sizes"));
    EXPECT_EQ(check("aten.dot.default", {{"self", {7}}, {"tensor", {7}}}, {tensor("self"), tensor("tensor")}, {{"out", {}}}), "");
    EXPECT_NE(check("aten.dot.default", {{"self", {7}}, {"tensor", {7}}}, {tensor("self"), tensor("tensor")}, {{"out", {1}}}), "");
}

// Every op of these kernel files declares a contract.
TEST(ShapeContractsNn, EveryNnKernelDeclaresAContract) {
    for (const char* op :
         {"aten.conv1d.default", "aten.conv1d.padding", "aten.conv2d.default", "aten.conv2d.padding", "aten.conv3d.default",
          "aten.conv3d.padding", "aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input",
          "aten.convolution.default", "aten._cdist_forward.default", "aten._pdist_forward.default", "aten.cdist.default",
          "aten.pdist.default", "aten._embedding_bag.default", "aten._embedding_bag_forward_only.default", "aten.embedding_bag.default",
          "aten.embedding_bag.padding_idx", "aten._histogramdd_bin_edges.default", "aten._histogramdd_from_bin_cts.default",
          "aten._histogramdd_from_bin_tensors.default", "aten.histc.default", "aten.histogram.bin_ct", "aten.histogram.bins_tensor",
          "aten.histogramdd.TensorList_bins", "aten.histogramdd.default", "aten.histogramdd.int_bins", "aten._trilinear.default",
          "aten.bilinear.default", "aten.multi_margin_loss.default", "aten.multilabel_margin_loss.default",
          "aten.multilabel_margin_loss_forward.default", "aten.native_group_norm.default", "aten.segment_reduce.default",
          "aten._native_batch_norm_legit_no_training.default", "aten.instance_norm.default", "aten.native_layer_norm.default",
          "aten._adaptive_avg_pool3d.default", "aten.adaptive_avg_pool3d.default", "aten.avg_pool2d.default", "aten.avg_pool3d.default",
          "aten.col2im.default", "aten.im2col.default", "aten.max_unpool2d.default", "aten.max_unpool3d.default", "aten.gru.input",
          "aten.max_pool2d_with_indices.default", "aten.max_pool3d_with_indices.default", "aten._adaptive_avg_pool2d.default",
          "aten.adaptive_avg_pool2d.default", "aten.adaptive_max_pool1d.default", "aten.adaptive_max_pool2d.default",
          "aten.adaptive_max_pool3d.default", "aten.embedding.default",
          "aten.lstm.input", "aten._upsample_bilinear2d_aa.default", "aten._upsample_bilinear2d_aa.out", "aten._upsample_bilinear2d_aa.vec",
          "aten._upsample_nearest_exact1d.vec", "aten._upsample_nearest_exact2d.out", "aten._upsample_nearest_exact3d.default",
          "aten.grid_sampler.default", "aten.grid_sampler_2d.default", "aten.grid_sampler_3d.default", "aten.upsample_bicubic2d.vec",
          "aten.upsample_bilinear2d.vec_out", "aten.upsample_linear1d.out", "aten.upsample_nearest1d.vec",
          "aten.upsample_nearest2d.vec_out", "aten.upsample_nearest3d.default", "aten.upsample_trilinear3d.vec",
          "aten.reflection_pad1d.default", "aten.reflection_pad2d.default", "aten.reflection_pad3d.default",
          "aten.replication_pad1d.default", "aten.replication_pad2d.default", "aten.replication_pad3d.default",
          "aten.pixel_shuffle.default", "aten.pixel_unshuffle.default", "aten.channel_shuffle.default",
          "aten.repeat_interleave.self_int", "aten.glu.default", "aten.logaddexp.default", "aten.addcmul.default",
          "aten.rms_norm.default", "aten._native_batch_norm_legit.no_stats", "aten.baddbmm.default", "aten.dot.default"}) {
        EXPECT_NE(kernels::find_shape_contract(graph::find_op_id(op)), nullptr) << op;
    }
}

}  // namespace
}  // namespace pt2ov
