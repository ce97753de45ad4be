// The IR built from program JSON: helpers checked against torch's own answers, real programs
// from torch.export (../fixtures/make_fixtures.py), and hand-written JSON for the schema's
// corners (every argument tag and spec kind, special floats, huge ranges, bad input).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../fixtures/fixtures.h"
#include "../fixtures/graph_builder.h"
#include "archive/archive.h"
#include "graph/from_json.h"
#include "graph/graph.h"
#include "pt2ov/error.h"

namespace {

using json = nlohmann::json;
using pt2ov::ArchiveError;
using pt2ov::DType;
using pt2ov::UnsupportedError;
using namespace pt2ov::graph;
using Kind = Argument::Kind;
using pt2ov::test::expected_facts;
using pt2ov::test::fixture;
using pt2ov::test::node_named;

Graph load_graph(const std::string& file) {
    const auto archive = pt2ov::archive::Archive::open(fixture(file));
    return graph_from_json(archive->program_json("model"), fixture(file) + ": models/model.json");
}

const Node& first_node_with_target(const Graph& graph, const std::string& target) {
    for (const Node& node : graph.nodes) {
        if (node.target == target) return node;
    }
    throw std::runtime_error("no node with target " + target);
}

int node_index(const Graph& graph, const Node& node) { return static_cast<int>(&node - graph.nodes.data()); }

const Argument& input_of(const Node& node, const std::string& name) {
    const NamedArgument* input = node.find_input(name);
    if (!input) throw std::runtime_error(node.name + " has no input " + name);
    return input->arg;
}

// ---- Helpers ----------------------------------------------------------------------------

TEST(GraphHelpers, ScalarTypeNumbersFollowTheSchema) {
    const std::vector<std::pair<int, DType>> table = {
        {1, DType::UInt8},    {2, DType::Int8},     {3, DType::Int16},  {4, DType::Int32},
        {5, DType::Int64},    {6, DType::Float16},  {7, DType::Float32}, {8, DType::Float64},
        {12, DType::Bool},    {13, DType::BFloat16}, {28, DType::UInt16},
    };
    for (const auto& [number, dtype] : table) EXPECT_EQ(dtype_from_scalar_type(number, "t"), dtype) << number;
    for (int unsupported : {0, 9, 10, 11, 29, 34, 35, 99, -1}) {
        EXPECT_THROW(dtype_from_scalar_type(unsupported, "t"), UnsupportedError) << unsupported;
    }
    try {
        dtype_from_scalar_type(10, "m.pt2: tensor 'z'");
        FAIL();
    } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find("m.pt2: tensor 'z'"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("complex64"), std::string::npos);
    }
}

TEST(GraphHelpers, BareSymbolOnlyForALoneSymbol) {
    EXPECT_EQ(bare_symbol("Symbol('s17', positive=True, integer=True)"), "s17");
    EXPECT_EQ(bare_symbol("Symbol('s0')"), "s0");
    EXPECT_EQ(bare_symbol("Symbol('u3', integer=True)"), "u3");
    EXPECT_EQ(bare_symbol("Mul(Integer(2), Symbol('s77', positive=True, integer=True))"), "");
    EXPECT_EQ(bare_symbol("Integer(3)"), "");
    EXPECT_EQ(bare_symbol("Symbol('s0') + 1"), "");
    EXPECT_EQ(bare_symbol("Symbol(''"), "");
    EXPECT_EQ(bare_symbol(""), "");
}

TEST(GraphHelpers, DimOrderMatchesTorchOnEveryCase) {
    const json& cases = expected_facts()["dim_orders"];
    ASSERT_GT(cases.size(), 100u);
    for (const json& c : cases) {
        const auto sizes = c["sizes"].get<std::vector<int64_t>>();
        const auto strides = c["strides"].get<std::vector<int64_t>>();
        EXPECT_EQ(dim_order_from_strides(sizes, strides), c["dim_order"].get<std::vector<int>>())
            << "sizes " << c["sizes"].dump() << " strides " << c["strides"].dump();
    }
}

TEST(GraphHelpers, DimOrderOfCommonLayouts) {
    EXPECT_EQ(dim_order_from_strides({2, 3, 4, 5}, {60, 1, 15, 3}), (std::vector<int>{0, 2, 3, 1}));
    EXPECT_EQ(dim_order_from_strides({2, 3, 4, 5}, {60, 20, 5, 1}), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(dim_order_from_strides({2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}), (std::vector<int>{0, 2, 3, 4, 1}));
    EXPECT_EQ(dim_order_from_strides({}, {}), std::vector<int>{});
    EXPECT_EQ(dim_order_from_strides({7}, {3}), std::vector<int>{0});
}

TEST(GraphHelpers, TensorMetaNodeAndGraphLookups) {
    TensorMeta meta;
    meta.sizes = {Dim{std::nullopt, "Symbol('s0')", "s0", 4}, Dim{3, "", "", 3}};
    meta.strides = {Dim{3, "", "", 3}, Dim{1, "", "", 1}};
    meta.dim_order = {0, 1};
    EXPECT_TRUE(meta.is_contiguous_order());
    EXPECT_FALSE(meta.all_static());
    EXPECT_EQ(meta.static_strides(), (std::vector<int64_t>{3, 1}));
    EXPECT_THROW(meta.static_sizes(), pt2ov::Error);
    meta.dim_order = {1, 0};
    EXPECT_FALSE(meta.is_contiguous_order());

    Node node;
    node.inputs.push_back({"self", Argument{}, false});
    EXPECT_NE(node.find_input("self"), nullptr);
    EXPECT_EQ(node.find_input("other"), nullptr);

    pt2ov::test::GraphBuilder builder;
    builder.value("x", meta);
    Graph& graph = builder.graph;
    EXPECT_EQ(graph.value("x").name, "x");
    EXPECT_EQ(graph.find_value("y"), nullptr);
    try {
        graph.value("missing_value");
        FAIL();
    } catch (const pt2ov::Error& e) {
        EXPECT_NE(std::string(e.what()).find("missing_value"), std::string::npos);
    }
}

// ---- Programs torch.export wrote --------------------------------------------------------

TEST(GraphFromArchive, TargetsMetaAndSymbolicBatch) {
    const Graph graph = load_graph("basic.pt2");
    for (const Node& node : graph.nodes) EXPECT_NE(node.target.rfind("torch.ops.", 0), 0u) << node.target;
    first_node_with_target(graph, "aten.conv2d.default");  // training IR, as exported
    first_node_with_target(graph, "aten.add_.Tensor");

    // The batch dim is symbolic, with torch's symbol and range.
    const json& ranges = expected_facts()["basic_ranges"];
    ASSERT_EQ(ranges.size(), 1u);
    const std::string symbol = ranges.begin().key();
    const Value& x = graph.value("x");
    EXPECT_EQ(x.producer, -1);
    EXPECT_EQ(x.meta.dtype, DType::Float32);
    ASSERT_EQ(x.meta.rank(), 4u);
    EXPECT_FALSE(x.meta.sizes[0].is_static());
    EXPECT_EQ(x.meta.sizes[0].symbol, symbol);
    EXPECT_EQ(x.meta.sizes[0].hint, 2);
    EXPECT_EQ(*x.meta.sizes[1].value, 3);
    EXPECT_EQ(graph.ranges.at(symbol).min, ranges[symbol][0].get<int64_t>());
    EXPECT_EQ(graph.ranges.at(symbol).max, ranges[symbol][1].get<int64_t>());

    // x.clone(memory_format=torch.channels_last): a keyword memory format, a channels-last result.
    const Node& clone = first_node_with_target(graph, "aten.clone.default");
    const NamedArgument* format = clone.find_input("memory_format");
    ASSERT_NE(format, nullptr);
    EXPECT_TRUE(format->keyword);
    EXPECT_EQ(format->arg.kind, Kind::MemoryFormat);
    EXPECT_EQ(format->arg.int_value, 2);
    ASSERT_EQ(clone.outputs.size(), 1u);
    const Value& cloned = graph.value(clone.outputs[0].name);
    EXPECT_EQ(cloned.meta.dim_order, (std::vector<int>{0, 2, 3, 1}));
    EXPECT_EQ(cloned.producer, node_index(graph, clone));
    EXPECT_EQ(graph.value(first_node_with_target(graph, "aten.conv2d.default").outputs[0].name).meta.dim_order,
              (std::vector<int>{0, 1, 2, 3}));
}

TEST(GraphFromArchive, SignatureKindsAndTargets) {
    const Graph graph = load_graph("basic.pt2");
    ASSERT_EQ(graph.inputs.size(), graph.input_specs.size());
    ASSERT_EQ(graph.outputs.size(), graph.output_specs.size());
    std::map<std::string, const InputSpec*> by_target;
    for (size_t i = 0; i < graph.input_specs.size(); ++i) {
        const InputSpec& spec = graph.input_specs[i];
        EXPECT_EQ(spec.arg.name, graph.inputs[i].name);
        EXPECT_EQ(spec.arg.kind, Kind::Tensor);
        by_target[spec.kind == InputSpec::Kind::UserInput ? spec.arg.name : spec.target] = &spec;
    }
    EXPECT_EQ(by_target.at("conv.weight")->kind, InputSpec::Kind::Parameter);
    EXPECT_EQ(by_target.at("lin2.weight")->kind, InputSpec::Kind::Parameter);
    EXPECT_EQ(by_target.at("table_row")->kind, InputSpec::Kind::Buffer);
    EXPECT_TRUE(by_target.at("count")->persistent);
    EXPECT_FALSE(by_target.at("scratch")->persistent);
    EXPECT_EQ(by_target.at("const")->kind, InputSpec::Kind::TensorConstant);
    EXPECT_EQ(by_target.at("x")->kind, InputSpec::Kind::UserInput);
    EXPECT_EQ(graph.input_specs.back().kind, InputSpec::Kind::UserInput);
    // Exported as is, the buffer update is an in-place node, not a mutation output.
    for (const OutputSpec& spec : graph.output_specs) EXPECT_EQ(spec.kind, OutputSpec::Kind::UserOutput);
    EXPECT_EQ(graph.output_specs.size(), 4u);
}

TEST(GraphFromArchive, BufferMutationAfterRunDecompositions) {
    const Graph graph = load_graph("basic_decomposed.pt2");
    ASSERT_FALSE(graph.output_specs.empty());
    const OutputSpec& mutation = graph.output_specs[0];
    EXPECT_EQ(mutation.kind, OutputSpec::Kind::BufferMutation);
    EXPECT_EQ(mutation.target, "count");
    ASSERT_EQ(mutation.arg.kind, Kind::Tensor);
    const Value& updated = graph.value(mutation.arg.name);
    ASSERT_GE(updated.producer, 0);
    EXPECT_EQ(graph.nodes[updated.producer].target, "aten.add.Tensor");
    EXPECT_EQ(graph.outputs[0].name, mutation.arg.name);

    const Node& conv = first_node_with_target(graph, "aten.convolution.default");
    EXPECT_EQ(input_of(conv, "transposed").kind, Kind::Bool);
    const Argument& stride = input_of(conv, "stride");
    ASSERT_EQ(stride.kind, Kind::List);
    EXPECT_EQ(stride.list_kind, Kind::Int);
    ASSERT_EQ(stride.items.size(), 2u);
    EXPECT_EQ(stride.items[1].int_value, 1);
    EXPECT_FALSE(conv.find_input("self"));
}

TEST(GraphFromArchive, ArgumentKindsTorchWrites) {
    const Graph graph = load_graph("arguments.pt2");

    // x.view(x.shape[0], -1): a sym int from sym_size, then a mixed list.
    const Node& size_node = first_node_with_target(graph, "aten.sym_size.int");
    ASSERT_EQ(size_node.outputs.size(), 1u);
    EXPECT_EQ(size_node.outputs[0].kind, Kind::SymInt);
    const Value& batch = graph.value(size_node.outputs[0].name);
    EXPECT_EQ(batch.kind, ValueKind::SymInt);
    EXPECT_EQ(batch.producer, node_index(graph, size_node));
    EXPECT_FALSE(batch.sym.symbol.empty());
    EXPECT_EQ(batch.sym.hint, 3);
    const Argument& view_size = input_of(first_node_with_target(graph, "aten.view.default"), "size");
    ASSERT_EQ(view_size.kind, Kind::List);
    EXPECT_EQ(view_size.list_kind, Kind::SymInt);
    ASSERT_EQ(view_size.items.size(), 2u);
    EXPECT_EQ(view_size.items[0].kind, Kind::SymInt);
    EXPECT_EQ(view_size.items[0].name, size_node.outputs[0].name);
    EXPECT_EQ(view_size.items[1].kind, Kind::Int);
    EXPECT_EQ(view_size.items[1].int_value, -1);

    const Node& clamp = first_node_with_target(graph, "aten.clamp.default");
    EXPECT_EQ(input_of(clamp, "min").kind, Kind::Float);
    EXPECT_TRUE(std::isinf(input_of(clamp, "min").float_value) && input_of(clamp, "min").float_value < 0);
    EXPECT_EQ(input_of(clamp, "max").float_value, 3.5);

    const Argument& dtype = input_of(first_node_with_target(graph, "aten.to.dtype"), "dtype");
    EXPECT_EQ(dtype.kind, Kind::ScalarType);
    EXPECT_EQ(dtype.dtype, DType::Float16);

    const NamedArgument* rounding = first_node_with_target(graph, "aten.div.Tensor_mode").find_input("rounding_mode");
    ASSERT_NE(rounding, nullptr);
    EXPECT_TRUE(rounding->keyword);
    EXPECT_EQ(rounding->arg.kind, Kind::String);
    EXPECT_EQ(rounding->arg.string_value, "floor");

    const Argument& indices = input_of(first_node_with_target(graph, "aten.index.Tensor"), "indices");
    ASSERT_EQ(indices.kind, Kind::List);
    ASSERT_EQ(indices.items.size(), 2u);
    EXPECT_EQ(indices.items[0].kind, Kind::None);
    EXPECT_EQ(indices.items[1].kind, Kind::Tensor);
    EXPECT_EQ(indices.items[1].name, "idx");

    const Node& max = first_node_with_target(graph, "aten.max.dim");
    ASSERT_EQ(max.outputs.size(), 2u);
    EXPECT_EQ(graph.value(max.outputs[1].name).meta.dtype, DType::Int64);
    EXPECT_EQ(graph.value(max.outputs[1].name).producer, node_index(graph, max));

    const Node& split = first_node_with_target(graph, "aten.split.Tensor");
    ASSERT_EQ(split.outputs.size(), 1u);
    ASSERT_EQ(split.outputs[0].kind, Kind::List);
    ASSERT_EQ(split.outputs[0].items.size(), 3u);
    for (const Argument& part : split.outputs[0].items) EXPECT_EQ(graph.value(part.name).producer, node_index(graph, split));

    const Node& zeros = first_node_with_target(graph, "aten.zeros.default");
    EXPECT_EQ(input_of(zeros, "dtype").dtype, DType::Int64);
    EXPECT_EQ(input_of(zeros, "layout").kind, Kind::Layout);
    EXPECT_EQ(input_of(zeros, "layout").int_value, 7);
    EXPECT_EQ(input_of(zeros, "device").kind, Kind::Device);
    EXPECT_EQ(input_of(zeros, "device").string_value, "cpu");
    EXPECT_EQ(input_of(zeros, "pin_memory").kind, Kind::Bool);

    const Node& mul = first_node_with_target(graph, "_operator.mul");
    EXPECT_EQ(input_of(mul, "a").kind, Kind::SymInt);
    EXPECT_EQ(input_of(mul, "b").int_value, 2);
    const Value& doubled = graph.value(mul.outputs[0].name);
    EXPECT_NE(doubled.sym.expr.find("Mul("), std::string::npos);
    EXPECT_TRUE(doubled.sym.symbol.empty());
    EXPECT_EQ(doubled.sym.hint, 6);

    const Node& sum = first_node_with_target(graph, "aten.sum.dim_IntList");
    EXPECT_EQ(input_of(sum, "dim").list_kind, Kind::Int);
    EXPECT_TRUE(input_of(sum, "keepdim").bool_value);
    EXPECT_TRUE(first_node_with_target(graph, "aten._assert_tensor_metadata.default").outputs.empty());

    const OutputSpec& last = graph.output_specs.back();
    EXPECT_EQ(last.kind, OutputSpec::Kind::UserOutput);
    EXPECT_EQ(last.arg.kind, Kind::SymInt);
    EXPECT_EQ(last.arg.name, size_node.outputs[0].name);
}

TEST(GraphFromArchive, UnusedOutputsAreNamedValues) {
    const Graph graph = load_graph("arguments_decomposed.pt2");
    const Node& topk = first_node_with_target(graph, "aten.topk.default");
    ASSERT_EQ(topk.outputs.size(), 2u);
    EXPECT_EQ(topk.outputs[1].name, topk.name + "_unused_1");
    EXPECT_EQ(graph.value(topk.outputs[1].name).producer, node_index(graph, topk));
    const Node& split = first_node_with_target(graph, "aten.split_with_sizes.default");
    EXPECT_EQ(split.outputs[0].items[1].name, split.name + "_unused_1");
}

// ---- Hand-written programs for the schema's corners -------------------------------------

// One node, y = sin(x), as torch 2.13 writes it.
json minimal_program() {
    return json::parse(R"({
      "graph_module": {
        "graph": {
          "inputs": [{"as_tensor": {"name": "x"}}],
          "outputs": [{"as_tensor": {"name": "y"}}],
          "nodes": [{"target": "torch.ops.aten.sin.default",
                     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}],
                     "outputs": [{"as_tensor": {"name": "y"}}],
                     "metadata": {"stack_trace": "File model.py, line 3"},
                     "is_hop_single_tensor_return": null, "name": "sin"}],
          "tensor_values": {
            "x": {"dtype": 7, "sizes": [{"as_int": 2}], "requires_grad": false,
                  "device": {"type": "cpu", "index": null}, "strides": [{"as_int": 1}],
                  "storage_offset": {"as_int": 0}, "layout": 7},
            "y": {"dtype": 7, "sizes": [{"as_int": 2}], "requires_grad": false,
                  "device": {"type": "cpu", "index": null}, "strides": [{"as_int": 1}],
                  "storage_offset": {"as_int": 0}, "layout": 7}},
          "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": false,
          "custom_obj_values": {}, "sym_float_values": {}},
        "signature": {
          "input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
          "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "y"}}}}]},
        "module_call_graph": []},
      "opset_version": {"aten": 10},
      "range_constraints": {},
      "schema_version": {"major": 8, "minor": 20},
      "verifiers": [], "torch_version": "2.13.0+cpu", "guards_code": []
    })");
}

const std::string kWhere = "m.pt2: models/model.json";

Graph parse(const json& program) { return graph_from_json(program.dump(), kWhere); }

// Checks the parse throws `Exception` whose message holds kWhere and each phrase.
template <typename Exception>
void expect_parse_error(const std::string& text, std::vector<std::string> phrases) {
    try {
        graph_from_json(text, kWhere);
        ADD_FAILURE() << "no error for " << text.substr(0, 200);
    } catch (const Exception& e) {
        const std::string message = e.what();
        EXPECT_EQ(message.rfind(kWhere, 0), 0u) << message;
        for (const std::string& phrase : phrases) EXPECT_NE(message.find(phrase), std::string::npos) << message;
    }
}

TEST(GraphJson, MinimalProgram) {
    const Graph graph = parse(minimal_program());
    ASSERT_EQ(graph.nodes.size(), 1u);
    EXPECT_EQ(graph.nodes[0].name, "sin");
    EXPECT_EQ(graph.nodes[0].target, "aten.sin.default");
    EXPECT_EQ(graph.nodes[0].stack_trace, "File model.py, line 3");
    EXPECT_FALSE(graph.nodes[0].inputs[0].keyword);
    EXPECT_EQ(graph.value("y").producer, 0);
    EXPECT_EQ(graph.value("y").meta.static_sizes(), std::vector<int64_t>{2});
}

// The dialect that tells a decomposed archive (refusal messages advise decomposing only a
// training-IR one): torch.export.save writes its verifiers' dialects.
TEST(GraphJson, DialectFromVerifiers) {
    json program = minimal_program();
    EXPECT_EQ(parse(program).dialect, "");  // "verifiers": [] says nothing
    EXPECT_FALSE(parse(program).is_decomposed());
    program["verifiers"] = {"TRAINING"};
    EXPECT_FALSE(parse(program).is_decomposed());
    program["verifiers"] = {"ATEN"};
    EXPECT_TRUE(parse(program).is_decomposed());
    program["verifiers"] = {7};  // not a dialect: unknown, never an error
    EXPECT_EQ(parse(program).dialect, "");
    program.erase("verifiers");
    program["dialect"] = "ATEN";  // the older schema's single field
    EXPECT_TRUE(parse(program).is_decomposed());
}

TEST(GraphFromArchive, DialectOfBothForms) {
    EXPECT_EQ(load_graph("basic.pt2").dialect, "TRAINING");
    EXPECT_FALSE(load_graph("basic.pt2").is_decomposed());
    EXPECT_EQ(load_graph("basic_decomposed.pt2").dialect, "ATEN");
    EXPECT_TRUE(load_graph("basic_decomposed.pt2").is_decomposed());
}

// ---- Fuzzed archives: each found a crash; each stays here as its smallest program.

// A second sin node reading `input` and making `output`, after the first one.
json with_second_node(json program, const std::string& input, const std::string& output) {
    json& graph_json = program["graph_module"]["graph"];
    json node = graph_json["nodes"][0];
    node["name"] = "sin_1";
    node["inputs"][0]["arg"]["as_tensor"]["name"] = input;
    node["outputs"][0]["as_tensor"]["name"] = output;
    graph_json["nodes"].push_back(node);
    if (!graph_json["tensor_values"].contains(output)) graph_json["tensor_values"][output] = graph_json["tensor_values"]["x"];
    return program;
}

TEST(GraphOrder, NodesOutOfOrderAreRefused) {
    json program = with_second_node(minimal_program(), "x", "t");
    program["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_tensor"]["name"] = "t";  // sin reads sin_1's t
    expect_parse_error<ArchiveError>(program.dump(), {"node 'sin'", "reads 't' before node 'sin_1'", "out of order"});
    EXPECT_NO_THROW(parse(with_second_node(minimal_program(), "y", "t")));  // the control, in order
}

TEST(GraphOrder, CyclesAreRefused) {
    json program = with_second_node(minimal_program(), "y", "t");
    program["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_tensor"]["name"] = "t";  // sin ↔ sin_1
    expect_parse_error<ArchiveError>(program.dump(), {"node 'sin'", "'t'", "cycle"});
    json self_loop = minimal_program();
    self_loop["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_tensor"]["name"] = "y";
    expect_parse_error<ArchiveError>(self_loop.dump(), {"node 'sin'", "reads 'y' before node 'sin'"});
}

TEST(GraphOrder, UndefinedAndTwiceDefinedValuesAreRefused) {
    json undefined = minimal_program();
    undefined["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_tensor"]["name"] = "nowhere";
    expect_parse_error<ArchiveError>(undefined.dump(), {"node 'sin'", "'nowhere'", "no node makes"});
    expect_parse_error<ArchiveError>(with_second_node(minimal_program(), "x", "y").dump(),
                                     {"node 'sin_1'", "'y'", "already defined"});
    json bad_output = minimal_program();
    bad_output["graph_module"]["graph"]["outputs"][0]["as_tensor"]["name"] = "x2";
    bad_output["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"]["as_tensor"]["name"] = "x2";
    bad_output["graph_module"]["graph"]["tensor_values"]["x2"] = bad_output["graph_module"]["graph"]["tensor_values"]["x"];
    expect_parse_error<ArchiveError>(bad_output.dump(), {"output", "'x2'"});
}

TEST(GraphFuzzed, DeepNestingIsRefusedWithoutRecursing) {
    constexpr size_t kDepth = 200000;  // far beyond what a recursive dump survives on 8 MiB
    const std::string nested = std::string(kDepth, '[') + "1" + std::string(kDepth, ']');
    for (const char* where : {"as_int", "as_ints"}) {
        json program = minimal_program();
        program["graph_module"]["graph"]["nodes"][0]["inputs"].push_back(
            {{"name", "dim"}, {"arg", {{where, 0}}}, {"kind", 2}});
        std::string text = program.dump();
        const std::string placeholder = std::string("{\"") + where + "\":0}";
        const size_t at = text.find(placeholder);
        ASSERT_NE(at, std::string::npos);
        text.replace(at, placeholder.size(), std::string("{\"") + where + "\":" + nested + "}");
        expect_parse_error<ArchiveError>(text, {"node 'sin'", "expected an integer", "[[...]"});
    }
}

TEST(GraphFuzzed, SizesNear2To63AreRefused) {
    auto with_x_meta = [](const char* sizes, const char* strides, int64_t offset = 0) {
        json program = minimal_program();
        json& x = program["graph_module"]["graph"]["tensor_values"]["x"];
        x["sizes"] = json::parse(sizes);
        x["strides"] = json::parse(strides);
        x["storage_offset"] = {{"as_int", offset}};
        return program.dump();
    };
    // 2**62 * 4 elements overflows int64; so do 2**61 float32 elements' bytes and a huge stride.
    expect_parse_error<ArchiveError>(with_x_meta(R"([{"as_int": 4611686018427387904}, {"as_int": 4}])",
                                                 R"([{"as_int": 4}, {"as_int": 1}])"),
                                     {"tensor 'x'", "overflows"});
    expect_parse_error<ArchiveError>(with_x_meta(R"([{"as_int": 2305843009213693952}])", R"([{"as_int": 1}])"),
                                     {"tensor 'x'", "overflows"});
    expect_parse_error<ArchiveError>(with_x_meta(R"([{"as_int": 3}])", R"([{"as_int": 9223372036854775807}])"),
                                     {"tensor 'x'", "overflows"});
    expect_parse_error<ArchiveError>(with_x_meta(R"([{"as_int": 2}])", R"([{"as_int": 1}])", 9223372036854775807),
                                     {"tensor 'x'", "overflows"});
    expect_parse_error<ArchiveError>(with_x_meta(R"([{"as_int": -2}])", R"([{"as_int": 1}])"), {"tensor 'x'", "negative"});
    expect_parse_error<ArchiveError>(with_x_meta(R"([{"as_int": 2}])", R"([{"as_int": -1}])"), {"tensor 'x'", "negative"});
    // An empty tensor reads no element, however large its other dims: fine.
    EXPECT_NO_THROW(graph_from_json(with_x_meta(R"([{"as_int": 0}, {"as_int": 4611686018427387904}])",
                                                R"([{"as_int": 4611686018427387904}, {"as_int": 1}])"),
                                    kWhere));
}

TEST(GraphJson, SchemaMajorMustBeEightAnyMinor) {
    json program = minimal_program();
    program["schema_version"]["minor"] = 99;
    EXPECT_NO_THROW(parse(program));
    program["schema_version"]["minor"] = 0;
    EXPECT_NO_THROW(parse(program));
    program["schema_version"] = {{"major", 9}, {"minor", 20}};
    expect_parse_error<ArchiveError>(program.dump(), {"schema version 9.20", "major version 8"});
    program["schema_version"] = {{"major", 7}, {"minor", 3}};
    expect_parse_error<ArchiveError>(program.dump(), {"schema version 7.3"});
    program.erase("schema_version");
    expect_parse_error<ArchiveError>(program.dump(), {"schema_version"});
}

TEST(GraphJson, MalformedTextAndShapes) {
    expect_parse_error<ArchiveError>("{\"graph_module\": ", {"not valid JSON"});
    expect_parse_error<ArchiveError>("[1, 2]", {"malformed"});
    json program = minimal_program();
    program["graph_module"]["graph"].erase("tensor_values");
    expect_parse_error<ArchiveError>(program.dump(), {"tensor_values"});

    // A JSON type error names the node it happened in.
    program = minimal_program();
    program["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"] = {{"as_tensor", {{"name", 5}}}};
    expect_parse_error<ArchiveError>(program.dump(), {"node 'sin'", "aten.sin.default", "expected a string"});
    program = minimal_program();
    program["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"] = {{"as_int", "3"}, {"as_bool", true}};
    expect_parse_error<ArchiveError>(program.dump(), {"node 'sin'", "one-key union"});

    // A node output the value tables do not know.
    program = minimal_program();
    program["graph_module"]["graph"]["nodes"][0]["outputs"][0] = {{"as_tensor", {{"name", "ghost"}}}};
    expect_parse_error<ArchiveError>(program.dump(), {"node 'sin'", "ghost"});

    // Graph inputs and signature out of step.
    program = minimal_program();
    program["graph_module"]["signature"]["input_specs"] = json::array();
    expect_parse_error<ArchiveError>(program.dump(), {"signature"});

    // Integers beyond 64 bits are not sizes.
    program = minimal_program();
    program["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0] = json::parse(R"({"as_int": 18446744073709551615})");
    expect_parse_error<ArchiveError>(program.dump(), {"tensor 'x'", "64 bits"});
}

TEST(GraphJson, UnsupportedDtypeNamesTheTensor) {
    json program = minimal_program();
    program["graph_module"]["graph"]["tensor_values"]["y"]["dtype"] = 10;
    expect_parse_error<UnsupportedError>(program.dump(), {"tensor 'y'", "complex64"});
}

TEST(GraphJson, NodeWithoutNameTakesItsOutputName) {
    json program = minimal_program();
    program["graph_module"]["graph"]["nodes"][0]["name"] = nullptr;
    EXPECT_EQ(parse(program).nodes[0].name, "y");
}

// Every argument tag of schema 8.20, one input each.
TEST(GraphJson, EveryArgumentTag) {
    json program = minimal_program();
    const json args = json::parse(R"([
      ["none", {"as_none": true}],
      ["tensors", {"as_tensors": [{"name": "x"}, {"name": "z"}]}],
      ["empty_tensors", {"as_tensors": []}],
      ["int", {"as_int": -9223372036854775808}],
      ["ints", {"as_ints": [1, -2]}],
      ["inf", {"as_float": "Infinity"}],
      ["ninf", {"as_float": "-Infinity"}],
      ["nan", {"as_float": "NaN"}],
      ["float_int", {"as_float": 2}],
      ["floats", {"as_floats": [0.5, "Infinity"]}],
      ["string", {"as_string": "tanh"}],
      ["strings", {"as_strings": ["a", "b"]}],
      ["bool", {"as_bool": true}],
      ["bools", {"as_bools": [true, false]}],
      ["sym_int", {"as_sym_int": {"as_name": "s0"}}],
      ["sym_int_number", {"as_sym_int": {"as_int": 3}}],
      ["sym_ints", {"as_sym_ints": [{"as_name": "s0"}, {"as_int": 4}]}],
      ["sym_bool", {"as_sym_bool": {"as_name": "b0"}}],
      ["sym_bools", {"as_sym_bools": [{"as_name": "b0"}, {"as_bool": false}]}],
      ["sym_float", {"as_sym_float": {"as_name": "f0"}}],
      ["sym_floats", {"as_sym_floats": [{"as_name": "f0"}, {"as_float": 0.25}]}],
      ["scalar_type", {"as_scalar_type": 13}],
      ["complex_type", {"as_scalar_type": 10}],
      ["memory_format", {"as_memory_format": 4}],
      ["layout", {"as_layout": 7}],
      ["device", {"as_device": {"type": "cuda", "index": 1}}],
      ["optional", {"as_optional_tensor": {"as_tensor": {"name": "x"}}}],
      ["optional_none", {"as_optional_tensor": {"as_none": true}}],
      ["optionals", {"as_optional_tensors": [{"as_tensor": {"name": "x"}}, {"as_none": true}]}],
      ["graph", {"as_graph": {"name": "true_graph_0",
                              "graph": {"inputs": [], "outputs": [], "nodes": [], "tensor_values": {}}}}],
      ["custom_obj", {"as_custom_obj": {"name": "obj0", "class_fqn": "__torch__.Foo"}}],
      ["operator", {"as_operator": "aten.add.Tensor"}],
      ["complex", {"as_complex": {"real": 1.0, "imag": 2.0}}],
      ["int_lists", {"as_int_lists": [[1, 2]]}],
      ["nested", {"as_nested_tensors": [[{"name": "x"}]]}],
      ["dict", {"as_string_to_argument": {"k": {"as_int": 1}}}],
      ["float_lists", {"as_float_lists": [[1.0]]}],
      ["future_tag", {"as_something_new": 1}]
    ])");
    // Every value an argument names is defined before the node: z, s0, b0 and f0 are inputs.
    json& graph_json = program["graph_module"]["graph"];
    const json more_inputs = json::parse(R"([{"as_tensor": {"name": "z"}}, {"as_sym_int": {"as_name": "s0"}},
                                            {"as_sym_bool": {"as_name": "b0"}}, {"as_sym_float": {"as_name": "f0"}}])");
    for (const json& input : more_inputs) {
        graph_json["inputs"].push_back(input);
        program["graph_module"]["signature"]["input_specs"].push_back({{"user_input", {{"arg", input}}}});
    }
    graph_json["tensor_values"]["z"] = graph_json["tensor_values"]["x"];
    graph_json["sym_int_values"]["s0"] = json::parse(R"({"as_expr": {"expr_str": "s0"}})");
    graph_json["sym_bool_values"]["b0"] = json::parse(R"({"as_expr": {"expr_str": "b0"}})");
    graph_json["sym_float_values"]["f0"] = json::parse(R"({"as_expr": {"expr_str": "f0"}})");
    json& inputs = graph_json["nodes"][0]["inputs"];
    for (const json& pair : args) inputs.push_back({{"name", pair[0]}, {"arg", pair[1]}, {"kind", 2}});
    const Node node = parse(program).nodes[0];
    auto arg = [&](const char* name) { return input_of(node, name); };

    EXPECT_TRUE(node.find_input("none")->keyword);
    EXPECT_EQ(arg("none").kind, Kind::None);
    EXPECT_EQ(arg("tensors").items.size(), 2u);
    EXPECT_EQ(arg("tensors").items[1].name, "z");
    EXPECT_EQ(arg("empty_tensors").list_kind, Kind::Tensor);
    EXPECT_EQ(arg("int").int_value, std::numeric_limits<int64_t>::min());
    EXPECT_EQ(arg("ints").items[1].int_value, -2);
    EXPECT_EQ(arg("inf").float_value, std::numeric_limits<double>::infinity());
    EXPECT_EQ(arg("ninf").float_value, -std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isnan(arg("nan").float_value));
    EXPECT_EQ(arg("float_int").float_value, 2.0);
    EXPECT_TRUE(std::isinf(arg("floats").items[1].float_value));
    EXPECT_EQ(arg("string").string_value, "tanh");
    EXPECT_EQ(arg("strings").items[1].string_value, "b");
    EXPECT_TRUE(arg("bool").bool_value);
    EXPECT_FALSE(arg("bools").items[1].bool_value);
    EXPECT_EQ(arg("sym_int").kind, Kind::SymInt);
    EXPECT_EQ(arg("sym_int").name, "s0");
    EXPECT_EQ(arg("sym_int_number").kind, Kind::Int);
    EXPECT_EQ(arg("sym_int_number").int_value, 3);
    EXPECT_EQ(arg("sym_ints").list_kind, Kind::SymInt);
    EXPECT_EQ(arg("sym_ints").items[1].int_value, 4);
    EXPECT_EQ(arg("sym_bool").kind, Kind::SymBool);
    EXPECT_EQ(arg("sym_bools").items[1].kind, Kind::Bool);
    EXPECT_EQ(arg("sym_float").kind, Kind::SymFloat);
    EXPECT_EQ(arg("sym_floats").items[1].float_value, 0.25);
    EXPECT_EQ(arg("scalar_type").dtype, DType::BFloat16);
    EXPECT_EQ(arg("complex_type").kind, Kind::Unsupported);  // refused later, only if it must run
    EXPECT_EQ(arg("memory_format").int_value, 4);
    EXPECT_EQ(arg("layout").kind, Kind::Layout);
    EXPECT_EQ(arg("device").string_value, "cuda:1");
    EXPECT_EQ(arg("optional").kind, Kind::Tensor);
    EXPECT_EQ(arg("optional_none").kind, Kind::None);
    EXPECT_EQ(arg("optionals").items[0].kind, Kind::Tensor);
    EXPECT_EQ(arg("optionals").items[1].kind, Kind::None);
    for (const char* tag : {"graph", "custom_obj", "operator", "complex", "int_lists", "nested", "dict", "float_lists"}) {
        EXPECT_EQ(arg(tag).kind, Kind::Unsupported) << tag;
        EXPECT_EQ(arg(tag).string_value.rfind("as_", 0), 0u) << tag;
    }
    EXPECT_EQ(arg("graph").string_value, "as_graph");
    EXPECT_EQ(arg("graph").name, "true_graph_0");
    ASSERT_NE(arg("graph").body, nullptr);  // the body is read, for the regions inlined later
    EXPECT_TRUE(arg("graph").body->nodes.empty());
    EXPECT_EQ(arg("custom_obj").name, "obj0");
    EXPECT_EQ(arg("future_tag").string_value, "as_something_new");
}

TEST(GraphJson, RangesMayBeUnboundedOrHuge) {
    json program = minimal_program();
    program["range_constraints"] = json::parse(R"({
      "s0": {"min_val": null, "max_val": null},
      "s1": {"min_val": 2, "max_val": 9223372036854775807},
      "s2": {"min_val": 0, "max_val": 18446744073709551615},
      "s3": {"min_val": -1e30, "max_val": 1e30},
      "s4": {"min_val": 4, "max_val": 4}
    })");
    const Graph graph = parse(program);
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    EXPECT_EQ(graph.ranges.at("s0").min, kMin);
    EXPECT_EQ(graph.ranges.at("s0").max, kMax);
    EXPECT_EQ(graph.ranges.at("s1").min, 2);
    EXPECT_EQ(graph.ranges.at("s1").max, kMax);
    EXPECT_EQ(graph.ranges.at("s2").max, kMax);
    EXPECT_EQ(graph.ranges.at("s3").min, kMin);
    EXPECT_EQ(graph.ranges.at("s3").max, kMax);
    EXPECT_EQ(graph.ranges.at("s4").max, 4);
}

TEST(GraphJson, SymbolicMetaUsesHintsForDimOrder) {
    json program = minimal_program();
    const json symbol = json::parse(R"json({"as_expr": {"expr_str": "Symbol('s0', positive=True, integer=True)", "hint": {"as_int": 5}}})json");
    const json no_hint = json::parse(R"json({"as_expr": {"expr_str": "Mul(Integer(12), Symbol('s0'))", "hint": null}})json");
    json& x = program["graph_module"]["graph"]["tensor_values"]["x"];
    // Channels last [s0, 3, 2, 2] with static strides: the order comes from the strides.
    x["sizes"] = {symbol, {{"as_int", 3}}, {{"as_int", 2}}, {{"as_int", 2}}};
    x["strides"] = {{{"as_int", 12}}, {{"as_int", 1}}, {{"as_int", 6}}, {{"as_int", 3}}};
    Graph graph = parse(program);
    const Dim& batch = graph.value("x").meta.sizes[0];
    EXPECT_EQ(batch.symbol, "s0");
    EXPECT_EQ(batch.hint, 5);
    EXPECT_EQ(graph.value("x").meta.dim_order, (std::vector<int>{0, 2, 3, 1}));
    // A stride with no hint: no numbers to sort by, so contiguous.
    x["strides"][0] = no_hint;
    x["strides"][1] = no_hint;
    graph = parse(program);
    EXPECT_EQ(graph.value("x").meta.dim_order, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_TRUE(graph.value("x").meta.sizes[1].is_static());
    EXPECT_FALSE(graph.value("x").meta.all_static());
}

TEST(GraphJson, EverySignatureKind) {
    json program = minimal_program();
    json& graph_json = program["graph_module"]["graph"];
    graph_json["inputs"] = json::parse(R"([
      {"as_tensor": {"name": "x"}}, {"as_tensor": {"name": "w"}}, {"as_tensor": {"name": "b"}},
      {"as_tensor": {"name": "c"}}, {"as_custom_obj": {"name": "obj", "class_fqn": "Foo"}},
      {"as_none": true}, {"as_int": 3}
    ])");
    for (const char* name : {"w", "b", "c"}) graph_json["tensor_values"][name] = graph_json["tensor_values"]["x"];
    graph_json["outputs"] = json::parse(R"([
      {"as_tensor": {"name": "y"}}, {"as_tensor": {"name": "y"}}, {"as_tensor": {"name": "y"}},
      {"as_tensor": {"name": "y"}}, {"as_tensor": {"name": "y"}}, {"as_tensor": {"name": "y"}},
      {"as_tensor": {"name": "y"}}, {"as_none": true}, {"as_int": 7}
    ])");
    program["graph_module"]["signature"] = json::parse(R"({
      "input_specs": [
        {"user_input": {"arg": {"as_tensor": {"name": "x"}}}},
        {"parameter": {"arg": {"name": "w"}, "parameter_name": "lin.weight"}},
        {"buffer": {"arg": {"name": "b"}, "buffer_name": "running_mean", "persistent": false}},
        {"tensor_constant": {"arg": {"name": "c"}, "tensor_constant_name": "lifted_tensor_0"}},
        {"custom_obj": {"arg": {"name": "obj", "class_fqn": "Foo"}, "custom_obj_name": "my_obj"}},
        {"token": {"arg": {"name": "token_0"}}},
        {"constant_input": {"name": "n", "value": {"as_int": 3}}}],
      "output_specs": [
        {"user_output": {"arg": {"as_tensor": {"name": "y"}}}},
        {"loss_output": {"arg": {"name": "y"}}},
        {"buffer_mutation": {"arg": {"name": "y"}, "buffer_name": "running_mean"}},
        {"gradient_to_parameter": {"arg": {"name": "y"}, "parameter_name": "lin.weight"}},
        {"gradient_to_user_input": {"arg": {"name": "y"}, "user_input_name": "x"}},
        {"user_input_mutation": {"arg": {"name": "y"}, "user_input_name": "x"}},
        {"parameter_mutation": {"arg": {"name": "y"}, "parameter_name": "lin.weight"}},
        {"token": {"arg": {"name": "token_1"}}},
        {"user_output": {"arg": {"as_int": 7}}}]
    })");
    const Graph graph = parse(program);
    using In = InputSpec::Kind;
    using Out = OutputSpec::Kind;
    ASSERT_EQ(graph.input_specs.size(), 7u);
    EXPECT_EQ(graph.input_specs[0].kind, In::UserInput);
    EXPECT_EQ(graph.input_specs[1].kind, In::Parameter);
    EXPECT_EQ(graph.input_specs[1].target, "lin.weight");
    EXPECT_EQ(graph.input_specs[1].arg.name, "w");
    EXPECT_EQ(graph.input_specs[2].kind, In::Buffer);
    EXPECT_FALSE(graph.input_specs[2].persistent);
    EXPECT_EQ(graph.input_specs[3].target, "lifted_tensor_0");
    EXPECT_EQ(graph.input_specs[4].kind, In::CustomObj);
    EXPECT_EQ(graph.input_specs[4].target, "my_obj");
    EXPECT_EQ(graph.input_specs[5].kind, In::Token);
    EXPECT_EQ(graph.input_specs[6].kind, In::ConstantInput);
    EXPECT_EQ(graph.input_specs[6].arg.kind, Kind::Int);
    EXPECT_EQ(graph.input_specs[6].arg.int_value, 3);
    EXPECT_EQ(graph.input_specs[6].arg.name, "n");
    const std::vector<std::pair<Out, std::string>> outputs = {
        {Out::UserOutput, ""},        {Out::LossOutput, ""},        {Out::BufferMutation, "running_mean"},
        {Out::GradientToParameter, "lin.weight"}, {Out::GradientToUserInput, "x"}, {Out::UserInputMutation, "x"},
        {Out::ParameterMutation, "lin.weight"}, {Out::Token, ""},   {Out::UserOutput, ""}};
    ASSERT_EQ(graph.output_specs.size(), outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
        EXPECT_EQ(graph.output_specs[i].kind, outputs[i].first) << i;
        EXPECT_EQ(graph.output_specs[i].target, outputs[i].second) << i;
    }
    EXPECT_EQ(graph.output_specs[2].arg.kind, Kind::Tensor);
    EXPECT_EQ(graph.output_specs[8].arg.int_value, 7);

    program["graph_module"]["signature"]["output_specs"][1] = {{"mystery_output", {{"arg", {{"name", "y"}}}}}};
    expect_parse_error<ArchiveError>(program.dump(), {"output spec 1", "mystery_output"});
}

// Any change to a real program's text: parsed, or refused with a pt2ov error naming it.
TEST(GraphJson, ChangedCharactersNeverCrash) {
    const auto archive = pt2ov::archive::Archive::open(fixture("tiny.pt2"));
    const std::string text = archive->program_json("model");
    size_t refused = 0;
    for (size_t at = 0; at < text.size(); ++at) {
        for (char replacement : {'0', '"', '}', 'x', ']'}) {
            std::string changed = text;
            changed[at] = replacement;
            try {
                graph_from_json(changed, kWhere);
            } catch (const pt2ov::Error& e) {
                ++refused;
                EXPECT_EQ(std::string(e.what()).rfind(kWhere, 0), 0u) << e.what();
            }
        }
    }
    EXPECT_GT(refused, text.size());
}

}  // namespace
