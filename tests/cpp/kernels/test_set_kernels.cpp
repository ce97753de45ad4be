// The CPU kernel of combinations, for r >= 2: torch.export cannot trace those (their output size
// is data-independent but the fake kernel makes an unbacked size), so no end-to-end program
// reaches them. Expected rows are the index tuples worked out by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "../fixtures/graph_builder.h"
#include "graph/schema.h"
#include "kernels/registry.h"
#include "kernels/tensor.h"
#include "pt2ov/error.h"

namespace {

using pt2ov::DType;
using pt2ov::graph::Argument;
using pt2ov::graph::NamedArgument;
using namespace pt2ov::kernels;
using pt2ov::graph::bool_arg;
using pt2ov::graph::int_arg;
using pt2ov::graph::tensor_arg;

struct Node {
    pt2ov::test::GraphBuilder builder;
    std::map<std::string, RuntimeValue> values;
    pt2ov::graph::Node node;

    std::vector<RuntimeValue> combinations(const StridedTensor& x, int64_t r, bool with_replacement,
                                           std::vector<int64_t> out_sizes) {
        builder.value("x", x.dtype, x.sizes);
        values["x"] = RuntimeValue::of(x);
        const std::string out = "out" + std::to_string(r) + (with_replacement ? "w" : "");
        builder.value(out, x.dtype, out_sizes);
        node = pt2ov::graph::Node{};
        node.name = "node_under_test";
        node.target = "aten.combinations.default";
        node.inputs = {{"self", tensor_arg("x"), false}, {"r", int_arg(r), false},
                       {"with_replacement", bool_arg(with_replacement), false}};
        node.outputs = {tensor_arg(out)};
        pt2ov::graph::resolve_node(node, "test");
        KernelCall call(node, builder.graph, [this](const Argument& arg) -> const RuntimeValue& { return values.at(arg.name); });
        return (*find_kernel(node.target))(call);
    }
};

// x = [10, 11, 12, 13] read with stride 2 from [10, 0, 11, 0, 12, 0, 13, 0].
StridedTensor strided_input() {
    StridedTensor t = StridedTensor::allocate(DType::Int64, {8});
    const std::vector<int64_t> values{10, 0, 11, 0, 12, 0, 13, 0};
    std::memcpy(t.data, values.data(), values.size() * sizeof(int64_t));
    return t.view({4}, {2});
}

std::vector<int64_t> rows_of(const StridedTensor& t) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < t.sizes[0]; ++i) {
        for (int64_t j = 0; j < t.sizes[1]; ++j) {
            int64_t v;
            std::memcpy(&v, t.data + (i * t.strides[0] + j * t.strides[1]) * 8, 8);
            out.push_back(v);
        }
    }
    return out;
}

TEST(KernelCombinations, PairsAndTriplesInLexicographicOrder) {
    Node n;
    auto pairs = n.combinations(strided_input(), 2, false, {6, 2});
    EXPECT_EQ(pairs[0].tensor().sizes, (std::vector<int64_t>{6, 2}));
    EXPECT_EQ(rows_of(pairs[0].tensor()), (std::vector<int64_t>{10, 11, 10, 12, 10, 13, 11, 12, 11, 13, 12, 13}));
    auto triples = n.combinations(strided_input(), 3, false, {4, 3});
    EXPECT_EQ(rows_of(triples[0].tensor()), (std::vector<int64_t>{10, 11, 12, 10, 11, 13, 10, 12, 13, 11, 12, 13}));
    auto too_many = n.combinations(strided_input(), 5, false, {0, 5});
    EXPECT_EQ(too_many[0].tensor().sizes, (std::vector<int64_t>{0, 5}));
}

TEST(KernelCombinations, WithReplacementRepeatsAnElement) {
    Node n;
    auto pairs = n.combinations(strided_input().view({3}, {2}), 2, true, {6, 2});  // [10, 11, 12]
    EXPECT_EQ(rows_of(pairs[0].tensor()), (std::vector<int64_t>{10, 10, 10, 11, 10, 12, 11, 11, 11, 12, 12, 12}));
    auto fives = n.combinations(strided_input().view({2}, {2}), 5, true, {6, 5});  // [10, 11]: 6 multisets
    EXPECT_EQ(fives[0].tensor().sizes, (std::vector<int64_t>{6, 5}));
    EXPECT_EQ(rows_of(fives[0].tensor()).back(), 11);
}

}  // namespace
