// Our TorchDecoder's answers, checked against how OpenVINO's Python FX decoder presents nodes,
// and a conversion through OpenVINO's frontend of a graph built by hand.
#include <gtest/gtest.h>

#include <cstring>

#include "../fixtures/graph_builder.h"
#include "lower/convert.h"
#include "lower/decoder.h"
#include "openvino/op/constant.hpp"
#include "openvino/op/parameter.hpp"

namespace pt2ov::lower {
namespace {

using graph::Argument;
using Kind = graph::Argument::Kind;

Argument tensor(const std::string& name) { return graph::tensor_arg(name); }
Argument integer(int64_t v) { return graph::int_arg(v); }
Argument ints(std::vector<int64_t> values) { return graph::ints_arg(values); }

// x (user input, f32 [2,3]) + w (a constant), then sum over dim 1 with a dtype keyword, then
// a two-output node (aten.max.dim) whose outputs are taken by getitem.
struct Fixture {
    graph::Graph graph;
    archive::StoredTensor weight;
    std::vector<float> weight_data{1, 2, 3, 4, 5, 6};
    ConstantMap constants;

    Fixture() {
        test::GraphBuilder b;
        b.value("x", DType::Float32, {2, 3});
        b.value("w", DType::Float32, {2, 3});
        b.value("add", DType::Float32, {2, 3});
        b.value("sum", DType::Float64, {2});
        b.value("max_values", DType::Float32, {2});
        b.value("max_indices", DType::Int64, {2});

        b.node("add", "aten.add.Tensor", {{"self", tensor("x"), false}, {"other", tensor("w"), false}}, {tensor("add")});
        Argument dtype;
        dtype.kind = Kind::ScalarType;
        dtype.dtype = DType::Float64;
        b.node("sum", "aten.sum.dim_IntList", {{"self", tensor("add"), false}, {"dim", ints({1}), false}, {"dtype", dtype, true}},
               {tensor("sum")});
        b.node("max", "aten.max.dim", {{"self", tensor("add"), false}, {"dim", integer(1), false}},
               {tensor("max_values"), tensor("max_indices")});
        graph = std::move(b.graph);

        weight.name = "w";
        weight.meta = graph.values["w"].meta;
        weight.storage = reinterpret_cast<const std::byte*>(weight_data.data());
        weight.storage_bytes = weight_data.size() * sizeof(float);
        weight.storage_path = "weight_0";
        constants["w"] = &weight;
    }
};

std::vector<std::shared_ptr<ov::frontend::pytorch::TorchDecoder>> visit_all(
    const std::shared_ptr<ov::frontend::pytorch::TorchDecoder>& model) {
    std::vector<std::shared_ptr<ov::frontend::pytorch::TorchDecoder>> nodes;
    model->visit_subgraph([&](std::shared_ptr<ov::frontend::pytorch::TorchDecoder> node) { nodes.push_back(node); });
    return nodes;
}

TEST(Decoder, PresentsNodesAsTheFxDecoderDoes) {
    Fixture f;
    auto context = std::make_shared<DecoderContext>();
    context->graph = &f.graph;
    context->constants = &f.constants;
    auto model = make_subgraph_decoder(context, Subgraph{{"x"}, {0, 1, 2}, {"sum", "max_values", "max_indices"}});

    EXPECT_EQ(model->decoder_type_name(), "fx");
    ASSERT_EQ(model->inputs().size(), 1u);
    EXPECT_EQ(model->get_input_signature_name(0), "x");
    EXPECT_EQ(model->get_input_shape(0), ov::PartialShape({2, 3}));
    EXPECT_EQ(model->get_input_type(0).as<ov::element::Type>(), ov::element::f32);

    auto nodes = visit_all(model);
    // get_attr for w, then add, sum, max and one getitem per output of max.
    ASSERT_EQ(nodes.size(), 6u);
    EXPECT_EQ(nodes[0]->get_op_type(), "get_attr");
    EXPECT_EQ(nodes[1]->get_op_type(), "aten.add.Tensor");
    EXPECT_EQ(nodes[4]->get_op_type(), "<built-in function getitem>");
    EXPECT_EQ(nodes[5]->get_op_type(), "<built-in function getitem>");

    // The constant wraps our memory: no copy.
    auto constant = ov::as_type_ptr<ov::op::v0::Constant>(nodes[0]->as_constant().at(0).get_node_shared_ptr());
    ASSERT_TRUE(constant);
    EXPECT_EQ(constant->get_data_ptr(), f.weight_data.data());
    EXPECT_EQ(nodes[0]->outputs(), nodes[1]->inputs().size() == 2 ? std::vector<size_t>{nodes[1]->inputs()[1]}
                                                                      : std::vector<size_t>{});

    // sum: the dim list is inlined as a 1-D i64 constant; dtype is an attribute, not an input.
    const auto& sum = nodes[2];
    ASSERT_EQ(sum->inputs().size(), 2u);
    EXPECT_FALSE(sum->is_input_inlined(0));
    EXPECT_TRUE(sum->is_input_inlined(1));
    EXPECT_EQ(sum->inputs()[1], 0u);
    auto dims = sum->get_inlined_input_decoder(1);
    EXPECT_EQ(dims->get_op_type(), "inlined.constant.default");
    auto dims_constant = ov::as_type_ptr<ov::op::v0::Constant>(dims->as_constant().at(0).get_node_shared_ptr());
    ASSERT_TRUE(dims_constant);
    EXPECT_EQ(dims_constant->get_element_type(), ov::element::i64);
    EXPECT_EQ(dims_constant->cast_vector<int64_t>(), std::vector<int64_t>{1});
    EXPECT_EQ(sum->get_attribute("dtype").as<ov::element::Type>(), ov::element::f64);
    EXPECT_TRUE(sum->get_attribute("keepdim").empty());
    EXPECT_TRUE(sum->get_input_type(1).is<ov::frontend::type::List>());

    // max: one tuple output, taken apart by the two getitems that follow it.
    const auto& max = nodes[3];
    ASSERT_EQ(max->outputs().size(), 1u);
    EXPECT_EQ(max->output_list_size(), 2u);
    EXPECT_EQ(nodes[4]->inputs().at(0), max->outputs()[0]);
    EXPECT_TRUE(nodes[5]->is_input_inlined(1));
    auto index = ov::as_type_ptr<ov::op::v0::Constant>(
        nodes[5]->get_inlined_input_decoder(1)->as_constant().at(0).get_node_shared_ptr());
    EXPECT_EQ(index->cast_vector<int64_t>(), std::vector<int64_t>{1});
}

TEST(Decoder, PythonOperatorsAreSpelledAsTorchFxPrintsThem) {
    EXPECT_EQ(fx_op_type("_operator.add"), "<built-in function add>");
    EXPECT_EQ(fx_op_type("aten.clone.default"), "aten.clone.default");
}

TEST(Decoder, OpenVINOConvertsTheGraphFully) {
    Fixture f;
    auto conversion = convert_subgraph(f.graph, Subgraph{{"x"}, {0, 1, 2}, {"sum", "max_values", "max_indices"}},
                                       f.constants, nullptr);
    EXPECT_TRUE(conversion.unconverted.empty());
    ASSERT_TRUE(conversion.model);
    ASSERT_EQ(conversion.model->get_parameters().size(), 1u);
    EXPECT_EQ(conversion.model->get_parameters()[0]->get_friendly_name(), "x");
    ASSERT_EQ(conversion.model->get_results().size(), 3u);
    EXPECT_EQ(conversion.model->output(0).get_element_type(), ov::element::f64);
    EXPECT_EQ(conversion.model->output(2).get_element_type(), ov::element::i64);
}

TEST(Decoder, UnknownOpsAreReportedByNodeName) {
    Fixture f;
    f.graph.nodes[1].target = "aten.no_such_op.default";
    auto conversion = convert_subgraph(f.graph, Subgraph{{"x"}, {0, 1}, {"sum"}}, f.constants, nullptr);
    ASSERT_EQ(conversion.unconverted.size(), 1u);
    EXPECT_EQ(conversion.unconverted[0].node, "sum");
    EXPECT_EQ(conversion.unconverted[0].target, "aten.no_such_op.default");
}

}  // namespace
}  // namespace pt2ov::lower
