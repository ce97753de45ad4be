// Operator schemas (src/graph/schema.h): the generated table, schema parsing and defaults, the
// check of nodes against their schema (each error names where, node, argument and schema), the
// resolution of arguments to schema positions, and that the rewrite passes leave every node
// they make resolved.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"
#include "kernels/dispatch.h"
#include "kernels/registry.h"
#include "pt2ov/error.h"

namespace {

using namespace pt2ov;
using namespace pt2ov::graph;
using Kind = Argument::Kind;

NamedArgument positional(const std::string& name, Argument a) { return {name, std::move(a), false}; }
NamedArgument keyword(const std::string& name, Argument a) { return {name, std::move(a), true}; }

Node make_node(const std::string& name, const std::string& target, std::vector<NamedArgument> inputs, size_t outputs = 1) {
    Node node;
    node.name = name;
    node.target = target;
    node.inputs = std::move(inputs);
    for (size_t i = 0; i < outputs; ++i) node.outputs.push_back(tensor_arg(name + (i ? "_" + std::to_string(i) : "")));
    return node;
}

// The message resolve_node throws for `node`; fails the test when it accepts the node.
std::string refusal(Node node) {
    try {
        resolve_node(node, "m.pt2, method forward");
    } catch (const ArchiveError& e) {
        return e.what();
    }
    ADD_FAILURE() << "node " << node.name << " (" << node.target << ") was accepted";
    return "";
}

void expect_contains(const std::string& text, const std::vector<std::string>& parts) {
    for (const auto& part : parts) EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

// ---------------------------------------------------------------------------------------------
// The table

TEST(SchemaTable, HoldsTheAtenAndPrimsSchemasOfThePinnedTorch) {
    EXPECT_GT(schema_targets().size(), 3000u);
    const OpSchema* add = find_schema("aten.add.Tensor");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->text, "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    ASSERT_EQ(add->arguments.size(), 3u);
    EXPECT_EQ(add->arguments[0].name, "self");
    EXPECT_EQ(add->arguments[1].name, "other");
    EXPECT_EQ(add->arguments[2].name, "alpha");
    EXPECT_EQ(add->positional_count, 2u);
    EXPECT_FALSE(add->arguments[1].kwarg_only);
    EXPECT_TRUE(add->arguments[2].kwarg_only);
    EXPECT_TRUE(add->arguments[1].required());
    ASSERT_TRUE(add->arguments[2].default_value.has_value());
    EXPECT_EQ(add->arguments[2].default_value->kind, Kind::Int);
    EXPECT_EQ(add->arguments[2].default_value->int_value, 1);
    EXPECT_EQ(add->return_count, 1u);

    // An empty overload is "default", as archives spell the target.
    ASSERT_NE(find_schema("aten.clone.default"), nullptr);
    EXPECT_NE(find_schema("prims.convert_element_type.default"), nullptr);
    EXPECT_EQ(find_schema("aten.add"), nullptr);
    EXPECT_EQ(find_schema("_operator.getitem"), nullptr);
    EXPECT_EQ(find_schema("my_ns.custom.default"), nullptr);
}

TEST(SchemaTable, EverySchemaParses) {
    // The table is parsed lazily; this parses all of it, so a torch upgrade that brings a
    // spelling the parser does not know fails here rather than on some user's node.
    for (const std::string& target : schema_targets()) {
        const OpSchema* schema = nullptr;
        ASSERT_NO_THROW(schema = find_schema(target)) << target;
        ASSERT_NE(schema, nullptr) << target;
        EXPECT_EQ(schema->target, target);
        for (const auto& arg : schema->arguments) EXPECT_FALSE(arg.name.empty()) << schema->text;
    }
}

TEST(SchemaTable, TypesAliasesAndReturns) {
    const OpSchema* add_ = find_schema("aten.add_.Tensor");
    ASSERT_NE(add_, nullptr);
    EXPECT_EQ(add_->arguments[0].alias, "a!");
    EXPECT_TRUE(add_->arguments[0].mutated());
    EXPECT_FALSE(add_->arguments[1].mutated());

    const OpSchema* index = find_schema("aten.index.Tensor");  // (Tensor self, Tensor?[] indices)
    ASSERT_NE(index, nullptr);
    EXPECT_TRUE(index->arguments[1].is_list);
    EXPECT_TRUE(index->arguments[1].optional_elements);
    EXPECT_FALSE(index->arguments[1].optional);

    const OpSchema* sum = find_schema("aten.sum.dim_IntList");  // int[1]? dim
    ASSERT_NE(sum, nullptr);
    EXPECT_EQ(sum->arguments[1].element, SchemaType::Int);
    EXPECT_TRUE(sum->arguments[1].is_list);
    EXPECT_EQ(sum->arguments[1].list_size, 1u);
    EXPECT_TRUE(sum->arguments[1].optional);
    EXPECT_TRUE(sum->arguments[1].required());  // optional, but without a default

    EXPECT_TRUE(find_schema("aten.split.Tensor")->returns_tensor_list);  // -> Tensor(a)[]
    EXPECT_EQ(find_schema("aten.split.Tensor")->arguments[0].alias, "a -> *");
    EXPECT_EQ(find_schema("aten.lstm.input")->return_count, 3u);
    EXPECT_FALSE(find_schema("aten.lstm.input")->returns_tensor_list);
    EXPECT_EQ(find_schema("aten._assert_scalar.default")->return_count, 0u);
    EXPECT_EQ(find_schema("aten.max_pool2d_with_indices.default")->return_count, 2u);
}

TEST(SchemaTable, DefaultsAreParsed) {
    const OpSchema* conv = find_schema("aten.conv2d.padding");
    ASSERT_NE(conv, nullptr);
    const Argument& stride = *conv->arguments[3].default_value;  // SymInt[2] stride=[1, 1]
    ASSERT_EQ(stride.kind, Kind::List);
    EXPECT_EQ(stride.list_kind, Kind::Int);
    ASSERT_EQ(stride.items.size(), 2u);
    EXPECT_EQ(stride.items[1].int_value, 1);
    const Argument& padding = *conv->arguments[4].default_value;  // str padding="valid"
    EXPECT_EQ(padding.kind, Kind::String);
    EXPECT_EQ(padding.string_value, "valid");
    EXPECT_EQ(conv->arguments[2].default_value->kind, Kind::None);  // Tensor? bias=None

    const Argument& pool_stride = *find_schema("aten.max_pool2d.default")->arguments[2].default_value;  // int[2] stride=[]
    EXPECT_EQ(pool_stride.kind, Kind::List);
    EXPECT_TRUE(pool_stride.items.empty());
    const Argument& pool_padding = *find_schema("aten.max_pool2d.default")->arguments[3].default_value;  // int[2] padding=0
    EXPECT_EQ(pool_padding.kind, Kind::Int);
    EXPECT_EQ(pool_padding.int_value, 0);

    const Argument& eps = *find_schema("aten.layer_norm.default")->arguments[4].default_value;  // float eps=1e-05
    EXPECT_EQ(eps.kind, Kind::Float);
    EXPECT_DOUBLE_EQ(eps.float_value, 1e-5);
    const Argument& slope = *find_schema("aten.leaky_relu.default")->arguments[1].default_value;  // Scalar negative_slope=0.01
    EXPECT_EQ(slope.kind, Kind::Float);
    EXPECT_DOUBLE_EQ(slope.float_value, 0.01);
    const Argument& keepdim = *find_schema("aten.sum.dim_IntList")->arguments[2].default_value;
    EXPECT_EQ(keepdim.kind, Kind::Bool);
    EXPECT_FALSE(keepdim.bool_value);
    const Argument& end = *find_schema("aten.flatten.using_ints")->arguments[2].default_value;
    EXPECT_EQ(end.int_value, -1);

    // Enum defaults carry the archive's numbers, not c10's.
    const Argument& format = *find_schema("aten.contiguous.default")->arguments[1].default_value;
    EXPECT_EQ(format.kind, Kind::MemoryFormat);
    EXPECT_EQ(format.int_value, 1);  // contiguous_format
    const Argument& dtype = *find_schema("aten.randint.default")->arguments[2].default_value;  // ScalarType? dtype=long
    EXPECT_EQ(dtype.kind, Kind::ScalarType);
    EXPECT_EQ(dtype.dtype, DType::Int64);
}

TEST(SchemaParser, ParsesWhatTheGeneratorWritesAndRefusesGarbage) {
    const OpSchema s = parse_schema("my_ns::op.over(Tensor(a -> *)[] xs, str s=\"a,b\\\"c\", *, float? f=-inf) -> (Tensor a, Tensor[] b)");
    EXPECT_EQ(s.target, "my_ns.op.over");
    ASSERT_EQ(s.arguments.size(), 3u);
    EXPECT_EQ(s.arguments[0].name, "xs");
    EXPECT_TRUE(s.arguments[0].is_list);
    EXPECT_EQ(s.arguments[1].default_value->string_value, "a,b\"c");
    EXPECT_TRUE(s.arguments[2].kwarg_only);
    EXPECT_TRUE(std::isinf(s.arguments[2].default_value->float_value));
    EXPECT_EQ(s.return_count, 2u);
    EXPECT_THROW(parse_schema("no parentheses"), Error);
    EXPECT_THROW(parse_schema("aten::x(Tensor) -> Tensor"), Error);
}

// ---------------------------------------------------------------------------------------------
// Check and resolution

TEST(SchemaCheck, ResolutionPutsArgumentsAtSchemaPositionsWithDefaults) {
    Node add = make_node("add", "aten.add.Tensor", {positional("self", tensor_arg("x")), keyword("other", float_arg(2.0))});
    resolve_node(add, "m");
    ASSERT_EQ(add.schema, find_schema("aten.add.Tensor"));
    ASSERT_EQ(add.arity(), 3u);
    EXPECT_EQ(add.arg(0).name, "x");
    EXPECT_EQ(add.arg(1).kind, Kind::Float);  // a number for a Tensor: the dispatcher wraps it
    EXPECT_EQ(add.arg(2).kind, Kind::Int);    // alpha=1, filled in
    EXPECT_EQ(add.arg(2).int_value, 1);
    EXPECT_EQ(add.inputs.size(), 2u);  // what the archive wrote is kept, for OpenVINO's frontend
    EXPECT_THROW(add.arg(3), Error);

    Node slice = make_node("slice", "aten.slice.Tensor", {positional("self", tensor_arg("x")), keyword("end", symint_arg("s0"))});
    resolve_node(slice, "m");
    EXPECT_EQ(slice.arg(1).int_value, 0);         // dim=0
    EXPECT_EQ(slice.arg(2).kind, Kind::None);     // start=None
    EXPECT_EQ(slice.arg(3).kind, Kind::SymInt);   // end, given by keyword
    EXPECT_EQ(slice.arg(4).int_value, 1);         // step=1
}

TEST(SchemaCheck, LenientWhereTorchExportWritesDifferently) {
    const std::vector<Node> accepted = {
        // an int for a float
        make_node("a", "aten.leaky_relu.default", {positional("self", tensor_arg("x")), positional("negative_slope", int_arg(0))}),
        // one int for int[1], a SymInt for an int, None for an optional
        make_node("b", "aten.sum.dim_IntList",
                  {positional("self", tensor_arg("x")), positional("dim", int_arg(1)), positional("keepdim", bool_arg(true)),
                   keyword("dtype", none_arg())}),
        make_node("c", "aten.select.int", {positional("self", tensor_arg("x")), positional("dim", symint_arg("s0")),
                                           positional("index", int_arg(0))}),
        // an empty list, whatever the list tag (torch writes as_ints for some)
        make_node("d", "aten.cat.default", {positional("tensors", list_arg({}, Kind::Int))}),
        // Tensor?[] holding None
        make_node("e", "aten.index.Tensor", {positional("self", tensor_arg("x")),
                                             positional("indices", list_arg({none_arg(), tensor_arg("i")}))}),
    };
    for (Node node : accepted) {
        EXPECT_NO_THROW(resolve_node(node, "m")) << node.target;
    }
    // An op returning () may have one None output.
    Node assertion = make_node("assert", "aten._assert_scalar.default",
                               {positional("self", symint_arg("s0")), positional("assert_msg", string_arg("x"))}, 0);
    assertion.outputs = {none_arg()};
    EXPECT_NO_THROW(resolve_node(assertion, "m"));
}

TEST(SchemaCheck, MissingRequiredArgumentNamesNodeArgumentAndSchema) {
    const std::string message = refusal(make_node("where", "aten.where.self",
                                                  {positional("condition", tensor_arg("c")), positional("other", tensor_arg("y"))}));
    expect_contains(message, {"m.pt2, method forward: node where (aten.where.self) lacks required argument 'self'",
                              "aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
                              "re-export"});
    expect_contains(refusal(make_node("softmax", "aten.softmax.int", {positional("self", tensor_arg("x"))})),
                    {"node softmax", "'dim'", "aten::softmax.int("});
}

TEST(SchemaCheck, UnknownRepeatedAndSurplusArgumentsAreRefused) {
    expect_contains(refusal(make_node("s", "aten.softmax.int",
                                      {positional("self", tensor_arg("x")), positional("dim", int_arg(1)),
                                       keyword("bogus", int_arg(1))})),
                    {"node s (aten.softmax.int)", "keyword argument 'bogus'", "aten::softmax.int("});
    expect_contains(refusal(make_node("r", "aten.relu.default", {positional("self", tensor_arg("x")), positional("", int_arg(1))})),
                    {"node r", "extra positional argument at position 1", "aten::relu("});
    expect_contains(refusal(make_node("a", "aten.add.Tensor",
                                      {positional("self", tensor_arg("x")), positional("other", tensor_arg("y")),
                                       keyword("other", tensor_arg("y"))})),
                    {"node a", "'other' twice"});
    // alpha is keyword-only
    expect_contains(refusal(make_node("a", "aten.add.Tensor",
                                      {positional("self", tensor_arg("x")), positional("other", tensor_arg("y")),
                                       positional("alpha", int_arg(2))})),
                    {"node a", "extra positional argument 'alpha'"});
    // a positional argument out of its place
    expect_contains(refusal(make_node("m", "aten.sub.Tensor", {positional("other", tensor_arg("y")), keyword("self", tensor_arg("x"))})),
                    {"node m", "'other' at position 0", "'self'"});
}

TEST(SchemaCheck, WrongKindsAreRefused) {
    // a tensor where an int list belongs
    expect_contains(refusal(make_node("p", "aten.permute.default", {positional("self", tensor_arg("x")), positional("dims", tensor_arg("x"))})),
                    {"node p (aten.permute.default)", "a tensor for argument 'dims'", "'int[] dims'", "aten::permute("});
    // a list where a tensor belongs
    expect_contains(refusal(make_node("n", "aten.neg.default", {positional("self", list_arg({tensor_arg("x")}))})),
                    {"node n", "a list for argument 'self'"});
    // None for a tensor that is not optional
    expect_contains(refusal(make_node("n", "aten.neg.default", {positional("self", none_arg())})), {"None for argument 'self'"});
    // a list of tensors holding an int
    expect_contains(refusal(make_node("c", "aten.cat.default", {positional("tensors", list_arg({tensor_arg("x"), int_arg(1)}))})),
                    {"node c", "a list holding an int", "'tensors'"});
    // a string for a bool
    // an unnamed keyword
    expect_contains(refusal(make_node("n", "aten.neg.default", {positional("self", tensor_arg("x")), keyword("", int_arg(1))})),
                    {"node n", "keyword argument without a name"});
    expect_contains(refusal(make_node("s", "aten.sum.dim_IntList",
                                      {positional("self", tensor_arg("x")), positional("dim", ints_arg({0})),
                                       positional("keepdim", string_arg("yes"))})),
                    {"a string for argument 'keepdim'"});
}

TEST(SchemaCheck, WrongOutputsAreRefused) {
    expect_contains(refusal(make_node("l", "aten.lstm.input",
                                      {positional("input", tensor_arg("x")), positional("hx", list_arg({tensor_arg("h"), tensor_arg("c")})),
                                       positional("params", list_arg({tensor_arg("w")})), positional("has_biases", bool_arg(false)),
                                       positional("num_layers", int_arg(1)), positional("dropout", float_arg(0)),
                                       positional("train", bool_arg(false)), positional("bidirectional", bool_arg(false)),
                                       positional("batch_first", bool_arg(true))},
                                      2)),
                    {"node l", "2 outputs for the 3 returns", "aten::lstm.input("});
    expect_contains(refusal(make_node("s", "aten.split.Tensor", {positional("self", tensor_arg("x")), positional("split_size", int_arg(2))})),
                    {"node s", "a list of tensors"});
}

TEST(SchemaCheck, TargetsWithoutSchemaPassThrough) {
    for (const char* target : {"_operator.add", "my_ns.custom.default", "torch.sym_max"}) {
        Node node = make_node("n", target, {positional("a", symint_arg("s0")), keyword("b", int_arg(3))});
        resolve_node(node, "m");
        EXPECT_EQ(node.schema, nullptr);
        ASSERT_EQ(node.arity(), 2u);
        EXPECT_EQ(node.arg(0).name, "s0");
        EXPECT_EQ(node.arg(1).int_value, 3);
    }
}

TEST(SchemaCheck, RewriteMadeNodesBlameTheRewriteNotTheArchive) {
    Node node = make_node("n", "aten.neg.default", {});
    node.origin_target = "aten.relu6.default";
    try {
        resolve_node(node, "m.pt2, method forward");
        FAIL() << "a rewrite-made node that does not fit its schema was accepted";
    } catch (const ArchiveError& e) {
        FAIL() << "blamed the archive for pt2ov's own rewrite: " << e.what();
    } catch (const InternalError& e) {
        expect_contains(e.what(), {"rewrite", "relu6"});
    }
}

// ---------------------------------------------------------------------------------------------
// Rewrites leave every node resolved

Value tensor_value(const std::string& name, std::vector<int64_t> sizes, int producer) {
    Value v;
    v.name = name;
    v.producer = producer;
    for (int64_t s : sizes) v.meta.sizes.push_back(Dim{s, "", "", s});
    for (size_t i = 0; i < sizes.size(); ++i) v.meta.dim_order.push_back(static_cast<int>(i));
    return v;
}

TEST(SchemaRewrites, EveryRewrittenAndInsertedNodeIsResolved) {
    Graph graph;
    graph.values["x"] = tensor_value("x", {2, 3, 4}, -1);
    graph.values["buf"] = tensor_value("buf", {2, 3, 4}, -1);
    InputSpec x_spec;
    x_spec.arg = tensor_arg("x");
    InputSpec buf_spec;
    buf_spec.kind = InputSpec::Kind::Buffer;
    buf_spec.arg = tensor_arg("buf");
    buf_spec.target = "buf";
    graph.input_specs = {x_spec, buf_spec};
    graph.inputs = {tensor_arg("x"), tensor_arg("buf")};
    auto add = [&](Node node) {
        for (const auto& out : node.outputs) graph.values[out.name] = tensor_value(out.name, {2, 3, 4}, static_cast<int>(graph.nodes.size()));
        graph.nodes.push_back(std::move(node));
    };
    add(make_node("softmax", "aten.softmax.int", {positional("self", tensor_arg("x")), positional("dim", int_arg(-1))}));
    add(make_node("flat", "aten.flatten.using_ints", {positional("self", tensor_arg("softmax")), positional("start_dim", int_arg(1))}));
    add(make_node("bump", "aten.add_.Tensor", {positional("self", tensor_arg("buf")), positional("other", tensor_arg("x"))}));
    add(make_node("pick", "aten.where.ScalarOther",
                  {positional("condition", tensor_arg("x")), positional("self", tensor_arg("bump")), positional("other", float_arg(0.5))}));
    add(make_node("sel", "aten.select.int", {positional("self", tensor_arg("pick")), positional("dim", int_arg(0)), positional("index", int_arg(1))}));
    add(make_node("sel_mul", "aten.mul_.Tensor", {positional("self", tensor_arg("sel")), positional("other", float_arg(2.0))}));
    graph.outputs = {tensor_arg("flat"), tensor_arg("pick")};
    OutputSpec out;
    out.arg = tensor_arg("flat");
    graph.output_specs = {out, out};
    graph.output_specs[1].arg = tensor_arg("pick");

    check_and_resolve(graph, "m");
    prepare_for_lowering(graph, "m");

    std::vector<std::string> targets;
    for (const Node& node : graph.nodes) {
        targets.push_back(node.target);
        ASSERT_NE(node.schema, nullptr) << node.name << " (" << node.target << ")";
        EXPECT_EQ(node.schema->target, node.target) << node.name;
        EXPECT_EQ(node.arity(), node.schema->arguments.size()) << node.name;
    }
    EXPECT_EQ(targets, (std::vector<std::string>{"aten._softmax.default", "aten.view.default", "aten.add.Tensor",
                                                 "aten.where.self", "aten.select.int", "aten.mul.Tensor",
                                                 "aten.select_scatter.default"}));
    EXPECT_EQ(graph.nodes[0].arg(2).kind, Kind::Bool);  // half_to_float
    EXPECT_EQ(graph.nodes[3].arg(2).kind, Kind::Float);  // where.self with a number, as OpenVINO takes it
    // Later readers of the mutated buffer read its new value, in the resolved arguments too.
    EXPECT_EQ(graph.nodes[3].arg(1).name, "bump");
    EXPECT_EQ(graph.nodes[6].arg(0).name, "pick");
    EXPECT_EQ(graph.nodes[6].arg(1).name, "sel_mul");
}

// ---------------------------------------------------------------------------------------------
// KernelCall reads resolved arguments, checking the kernel's names

TEST(SchemaKernelCall, ReadsByPositionAndCatchesAWrongPosition) {
    Graph graph;
    Node node = make_node("add", "aten.add.Tensor", {positional("self", tensor_arg("x")), positional("other", tensor_arg("y"))});
    resolve_node(node, "m");
    const auto no_values = [](const graph::Argument&) -> const kernels::RuntimeValue& {
        throw std::runtime_error("no values in this test");
    };
    kernels::KernelCall call(node, graph, no_values);
    EXPECT_EQ(call.arg("other", 1)->name, "y");
    EXPECT_EQ(call.arg("alpha", 2)->int_value, 1);                      // the default
    EXPECT_EQ(call.arg("alpha", kernels::kKeywordOnly)->int_value, 1);  // keyword-only, by name
    EXPECT_EQ(call.arg("rounding_mode", kernels::kKeywordOnly), nullptr);  // another overload's argument
    try {
        call.arg("other", 0);
        FAIL() << "a kernel reading 'other' at position 0 went unnoticed";
    } catch (const InternalError& e) {
        expect_contains(e.what(), {"node add", "'other' at position 0", "position 1"});
    }
}

// _operator.* nodes have no schema: the kernel's read matches the stored names by id, and an
// input stored under another name is read by position, as before ids.
TEST(SchemaKernelCall, ANodeWithoutSchemaIsReadByTheIdsOfItsStoredNames) {
    Graph graph;
    Node node = make_node("add", "_operator.add", {positional("b", int_arg(7)), positional("a", int_arg(5))});
    resolve_node(node, "m");
    ASSERT_EQ(node.unschematized_names.size(), 2u);
    EXPECT_EQ(node.unschematized_names[0], ArgName("b").id());
    const auto no_values = [](const graph::Argument&) -> const kernels::RuntimeValue& {
        throw std::runtime_error("no values in this test");
    };
    kernels::KernelCall call(node, graph, no_values);
    EXPECT_EQ(call.arg("a", 0)->int_value, 5);  // by name, not by position
    EXPECT_EQ(call.arg("b", 1)->int_value, 7);
    EXPECT_EQ(call.arg("self", 0)->int_value, 7);  // no input of that name: by position
}

}  // namespace
