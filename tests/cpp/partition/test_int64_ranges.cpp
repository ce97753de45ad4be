// Bounds of int64 values at load (partition/int64_ranges.h) and the placement they allow: index
// arithmetic bounded within 32 bits stays on OpenVINO, anything that may leave 32 bits does not.
#include <gtest/gtest.h>

#include <limits>
#include <optional>

#include "../fixtures/graph_builder.h"
#include "graph/schema.h"
#include "partition/int64_ranges.h"
#include "partition/passes.h"
#include "partition/plan.h"

namespace pt2ov::partition {
namespace {

using graph::int_arg;
using graph::tensor_arg;
using test::GraphBuilder;

// The 64-bit rule alone (pass 3): these graphs compute from an arange of constant size, which
// place() would compute once at load on the CPU kernels (pass 3c) whatever pass 3 decides.
Plan place_by_int64_rule(const graph::Graph& graph, const ValueSources& sources) {
    Plan plan;
    plan.where.assign(graph.nodes.size(), Where::OpenVINO);
    plan.reason.assign(graph.nodes.size(), "converted");
    pass3_exact_wide_integers(graph, sources, {}, plan);
    return plan;
}

constexpr int64_t kLarge = 1 << 20;  // elements: too big for the small-step rule

// arange(end) into `out`.
void arange(GraphBuilder& b, const std::string& out, int64_t end) {
    b.value(out, DType::Int64, {end});
    b.node(out, "aten.arange.default", {{"end", int_arg(end), false}}, {tensor_arg(out)});
}

void binary(GraphBuilder& b, const std::string& out, const std::string& target, const std::string& self,
            graph::Argument other, std::vector<int64_t> sizes) {
    b.value(out, DType::Int64, sizes);
    b.node(out, target, {{"self", tensor_arg(self), false}, {"other", std::move(other), false}}, {tensor_arg(out)});
}

void resolve(GraphBuilder& b) {
    for (auto& node : b.graph.nodes) graph::resolve_node(node, "an int64 range test");
}

TEST(Int64Ranges, FollowsArangeThroughArithmetic) {
    GraphBuilder b;
    arange(b, "i", kLarge);
    binary(b, "m", "aten.mul.Tensor", "i", int_arg(7), {kLarge});
    binary(b, "s", "aten.sub.Tensor", "m", tensor_arg("i"), {kLarge});
    binary(b, "r", "aten.rsub.Scalar", "s", int_arg(3), {kLarge});  // 3 - s
    resolve(b);
    const Int64Ranges ranges(b.graph, {});
    ASSERT_TRUE(ranges.of("i"));
    EXPECT_EQ(ranges.of("i")->min, 0);
    EXPECT_EQ(ranges.of("i")->max, kLarge);
    EXPECT_EQ(ranges.of("m")->max, 7 * kLarge);
    // m - i over independent bounds: [0 - kLarge, 7 kLarge - 0].
    EXPECT_EQ(ranges.of("s")->min, -kLarge);
    EXPECT_EQ(ranges.of("s")->max, 7 * kLarge);
    EXPECT_EQ(ranges.of("r")->min, 3 - 7 * kLarge);
    EXPECT_EQ(ranges.of("r")->max, 3 + kLarge);
    EXPECT_TRUE(ranges.fits_in_32_bits(b.graph.nodes[3]));
}

TEST(Int64Ranges, UnknownAndWideValuesHaveNoFit) {
    GraphBuilder b;
    b.value("user", DType::Int64, {kLarge});
    arange(b, "i", kLarge);
    binary(b, "u", "aten.add.Tensor", "user", tensor_arg("i"), {kLarge});          // a user input: unbounded
    binary(b, "w", "aten.mul.Tensor", "i", int_arg(int64_t{1} << 20), {kLarge});  // up to 2**40
    b.value("c", DType::Int64, {kLarge});
    binary(b, "k", "aten.add.Tensor", "i", tensor_arg("c"), {kLarge});  // a constant of known bounds
    resolve(b);
    const Int64Ranges ranges(b.graph, {{"c", Int64Range{-5, 5}}});
    EXPECT_FALSE(ranges.of("u"));
    EXPECT_FALSE(ranges.fits_in_32_bits(b.graph.nodes[1]));
    ASSERT_TRUE(ranges.of("w"));
    EXPECT_EQ(ranges.of("w")->max, int64_t{1} << 40);
    EXPECT_FALSE(ranges.fits_in_32_bits(b.graph.nodes[2]));
    EXPECT_EQ(ranges.of("k")->min, -5);
    EXPECT_EQ(ranges.of("k")->max, kLarge + 5);
    EXPECT_TRUE(ranges.fits_in_32_bits(b.graph.nodes[3]));
}

TEST(Int64Ranges, AScaledOperandBeyond32BitsHasNoBound) {
    // i + 2**32 * i: the product alpha * other is an intermediate OpenVINO computes in 32 bits too.
    GraphBuilder b;
    arange(b, "i", kLarge);
    b.value("a", DType::Int64, {kLarge});
    b.node("a", "aten.add.Tensor",
           {{"self", tensor_arg("i"), false}, {"other", tensor_arg("i"), false}, {"alpha", int_arg(int64_t{1} << 32), true}},
           {tensor_arg("a")});
    resolve(b);
    const Int64Ranges ranges(b.graph, {});
    EXPECT_FALSE(ranges.of("a"));
}

TEST(Int64Ranges, PlacementKeepsBoundedArithmeticOnOpenVINO) {
    GraphBuilder b;
    arange(b, "i", kLarge);
    binary(b, "m", "aten.mul.Tensor", "i", int_arg(3), {kLarge});
    binary(b, "a", "aten.add.Tensor", "m", tensor_arg("i"), {kLarge});
    b.value("user", DType::Int64, {kLarge});
    binary(b, "u", "aten.add.Tensor", "a", tensor_arg("user"), {kLarge});
    b.graph.outputs = {tensor_arg("u")};
    resolve(b);
    ValueSources sources;
    sources.runtime_inputs = {"user"};
    const Plan plan = place_by_int64_rule(b.graph, sources);
    EXPECT_EQ(plan.where[0], Where::OpenVINO);
    EXPECT_EQ(plan.where[1], Where::OpenVINO) << plan.reason[1];
    EXPECT_EQ(plan.where[2], Where::OpenVINO) << plan.reason[2];
    EXPECT_EQ(plan.where[3], Where::Cpu);  // reads a user input: its sum may leave 32 bits
}

TEST(Int64Ranges, DivisionOfANonNegativeDividendByAPositiveDivisor) {
    // roll's index after decomposition, (arange(n) + shift) % n, and its quotient.
    GraphBuilder b;
    arange(b, "i", kLarge);
    binary(b, "s", "aten.add.Tensor", "i", int_arg(3), {kLarge});
    binary(b, "r", "aten.fmod.Scalar", "s", int_arg(21), {kLarge});
    binary(b, "q", "aten.floor_divide.default", "s", int_arg(21), {kLarge});
    binary(b, "m", "aten.remainder.Scalar", "s", int_arg(kLarge + 100), {kLarge});
    binary(b, "n", "aten.sub.Tensor", "i", int_arg(5), {kLarge});  // may be negative
    binary(b, "f", "aten.fmod.Scalar", "n", int_arg(21), {kLarge});
    binary(b, "z", "aten.fmod.Scalar", "s", int_arg(0), {kLarge});
    resolve(b);
    const Int64Ranges ranges(b.graph, {});
    ASSERT_TRUE(ranges.of("r"));
    EXPECT_EQ(ranges.of("r")->min, 0);
    EXPECT_EQ(ranges.of("r")->max, 20);
    ASSERT_TRUE(ranges.of("q"));
    EXPECT_EQ(ranges.of("q")->min, 0);
    EXPECT_EQ(ranges.of("q")->max, (kLarge + 3) / 21);
    ASSERT_TRUE(ranges.of("m"));
    EXPECT_EQ(ranges.of("m")->max, kLarge + 3);  // never above the dividend
    EXPECT_FALSE(ranges.of("f"));  // a negative dividend: floor and truncation differ
    EXPECT_FALSE(ranges.of("z"));  // by zero: PyTorch raises
}

TEST(Int64Ranges, PlacementKeepsBoundedNonNegativeDivisionOnOpenVINO) {
    GraphBuilder b;
    arange(b, "i", kLarge);
    binary(b, "s", "aten.add.Tensor", "i", int_arg(3), {kLarge});
    binary(b, "r", "aten.fmod.Scalar", "s", int_arg(21), {kLarge});                 // stays
    binary(b, "n", "aten.sub.Tensor", "i", int_arg(5), {kLarge});
    binary(b, "f", "aten.remainder.Scalar", "n", int_arg(21), {kLarge});            // negative dividends: CPU
    binary(b, "w", "aten.mul.Tensor", "i", int_arg(64), {kLarge});
    binary(b, "g", "aten.floor_divide.default", "w", int_arg(3), {kLarge});         // dividend beyond 2**24: CPU
    b.value("user", DType::Int64, {kLarge});
    binary(b, "u", "aten.fmod.Tensor", "r", tensor_arg("user"), {kLarge});         // unbounded divisor: CPU
    b.graph.outputs = {tensor_arg("r"), tensor_arg("f"), tensor_arg("g"), tensor_arg("u")};
    resolve(b);
    ValueSources sources;
    sources.runtime_inputs = {"user"};
    const Plan plan = place_by_int64_rule(b.graph, sources);
    EXPECT_EQ(plan.where[2], Where::OpenVINO) << plan.reason[2];
    EXPECT_EQ(plan.where[4], Where::Cpu);
    EXPECT_NE(plan.reason[4].find("rounding toward -inf"), std::string::npos) << plan.reason[4];
    EXPECT_EQ(plan.where[6], Where::Cpu);
    EXPECT_EQ(plan.where[7], Where::Cpu);
}

}  // namespace
}  // namespace pt2ov::partition

namespace pt2ov::partition {
namespace {

// The indices a sort or topk returns lie within the dim it looked along, whether that dim is
// static, a symbol within its range or an expression of symbols (a mixture of experts sorts
// tokens x experts chosen, 8*s); a dim of a symbol with no upper bound gives none.
TEST(Int64Ranges, IndicesOfAnOrderingLieWithinItsDim) {
    const auto symbolic = [](const std::string& expr, const std::string& symbol) {
        return graph::Dim{std::nullopt, expr, symbol, 16};
    };
    const std::string s0 = "Symbol('s0', positive=True, integer=True)";
    for (const auto& [dim, largest] : std::vector<std::pair<graph::Dim, std::optional<int64_t>>>{
             {test::static_dim(10), 9},
             {symbolic(s0, "s0"), 63},
             {symbolic("Mul(Integer(8), " + s0 + ")", ""), 8 * 64 - 1},
             {symbolic("Add(" + s0 + ", Integer(3))", ""), 64 + 3 - 1},
             {symbolic("Symbol('s1', positive=True, integer=True)", "s1"), std::nullopt},
             {symbolic("FloorDiv(" + s0 + ", Integer(2))", ""), std::nullopt}}) {
        GraphBuilder b;
        b.graph.ranges["s0"] = graph::SymbolRange{1, 64};
        b.graph.ranges["s1"] = graph::SymbolRange{1, std::numeric_limits<int64_t>::max()};
        b.value("x", DType::Float32, {1});
        b.graph.values["x"].meta.sizes = {dim};
        b.value("values", DType::Float32, {1});
        b.value("indices", DType::Int64, {1});
        b.node("sorted", "aten.sort.default", {{"self", tensor_arg("x"), false}}, {tensor_arg("values"), tensor_arg("indices")});
        b.value("top", DType::Float32, {1});
        b.value("at", DType::Int64, {1});
        b.node("top", "aten.topk.default", {{"self", tensor_arg("x"), false}, {"k", int_arg(1), false}, {"dim", int_arg(0), false}},
               {tensor_arg("top"), tensor_arg("at")});
        resolve(b);
        const Int64Ranges ranges(b.graph, {});
        for (const std::string name : {"indices", "at"}) {
            const auto got = ranges.of(name);
            if (!largest) {
                EXPECT_FALSE(got) << dim.expr;
                continue;
            }
            ASSERT_TRUE(got) << dim.expr;
            EXPECT_EQ(got->min, 0) << dim.expr;
            EXPECT_EQ(got->max, *largest) << dim.expr;
        }
    }
}

// transformers' mixture-of-experts routing inverts the sort of its expert ids: arange(2 * s0)
// put at the sorted positions of empty_like(indices). empty_like is zeros on both engines, the
// arange lies within the symbolic product's largest value, and so does what index_put makes;
// an accumulating index_put adds, and gets no bound.
TEST(Int64Ranges, AnInversePermutationIsBounded) {
    const std::string s0 = "Symbol('s0', positive=True, integer=True)";
    const graph::Dim twice_s0{std::nullopt, "Mul(Integer(2), " + s0 + ")", "", 8};
    for (const bool accumulate : {false, true}) {
        GraphBuilder b;
        b.graph.ranges["s0"] = graph::SymbolRange{1, 64};
        b.value("ids", DType::Int64, {1});
        b.graph.values["ids"].meta.sizes = {twice_s0};
        b.value("sorted", DType::Int64, {1});
        b.value("order", DType::Int64, {1});
        b.node("sort", "aten.sort.default", {{"self", tensor_arg("ids"), false}}, {tensor_arg("sorted"), tensor_arg("order")});
        b.value("blank", DType::Int64, {1});
        b.node("blank", "aten.empty_like.default", {{"self", tensor_arg("order"), false}}, {tensor_arg("blank")});
        b.symint("count");
        b.graph.values["count"].sym = twice_s0;
        b.value("positions", DType::Int64, {1});
        b.node("positions", "aten.arange.default", {{"end", graph::symint_arg("count"), false}}, {tensor_arg("positions")});
        b.value("inverse", DType::Int64, {1});
        b.node("inverse", "aten.index_put_.default",
               {{"self", tensor_arg("blank"), false},
                {"indices", graph::list_arg({tensor_arg("order")}), false},
                {"values", tensor_arg("positions"), false},
                {"accumulate", graph::bool_arg(accumulate), true}},
               {tensor_arg("inverse")});
        resolve(b);
        const Int64Ranges ranges(b.graph, {});
        ASSERT_TRUE(ranges.of("order"));
        EXPECT_EQ(ranges.of("order")->max, 2 * 64 - 1);
        ASSERT_TRUE(ranges.of("blank"));
        EXPECT_EQ(ranges.of("blank")->min, 0);
        EXPECT_EQ(ranges.of("blank")->max, 0);
        ASSERT_TRUE(ranges.of("positions"));
        EXPECT_EQ(ranges.of("positions")->max, 2 * 64);
        if (accumulate) {
            EXPECT_FALSE(ranges.of("inverse"));
            continue;
        }
        ASSERT_TRUE(ranges.of("inverse"));
        EXPECT_EQ(ranges.of("inverse")->min, 0);
        EXPECT_EQ(ranges.of("inverse")->max, 2 * 64);
        EXPECT_TRUE(ranges.fits_in_32_bits(b.graph.nodes[3]));
    }
}

}  // namespace
}  // namespace pt2ov::partition
