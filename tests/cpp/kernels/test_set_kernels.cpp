// The CPU kernel of combinations, for r >= 2: torch.export cannot trace those (their output size
// is data-independent but the fake kernel makes an unbacked size), so no end-to-end program
// reaches them. Expected rows are the index tuples worked out by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fixtures/kernel_harness.h"
#include "kernels/tensor.h"
#include "pt2ov/error.h"

namespace {

using namespace pt2ov::kernels;
using pt2ov::graph::bool_arg;
using pt2ov::graph::int_arg;
using pt2ov::graph::tensor_arg;
using pt2ov::test::KernelHarness;
using pt2ov::test::longs;
using pt2ov::test::positional;
using pt2ov::test::values_of;

// Runs aten.combinations on x. Its output is named after r and with_replacement, so calls of
// different sizes on one harness each declare their own.
std::vector<RuntimeValue> combinations(KernelHarness& h, const StridedTensor& x, int64_t r, bool with_replacement,
                                       std::vector<int64_t> out_sizes) {
    h.input("x", x);
    const std::string out = "out" + std::to_string(r) + (with_replacement ? "w" : "");
    return h.run("aten.combinations.default",
                 {positional("self", tensor_arg("x")), positional("r", int_arg(r)),
                  positional("with_replacement", bool_arg(with_replacement))},
                 {h.output(out, x.dtype, out_sizes)});
}

// x = [10, 11, 12, 13] read with stride 2 from [10, 0, 11, 0, 12, 0, 13, 0].
StridedTensor strided_input() { return longs({8}, {10, 0, 11, 0, 12, 0, 13, 0}).view({4}, {2}); }

TEST(KernelCombinations, PairsAndTriplesInLexicographicOrder) {
    KernelHarness n;
    auto pairs = combinations(n, strided_input(), 2, false, {6, 2});
    EXPECT_EQ(pairs[0].tensor().sizes, (std::vector<int64_t>{6, 2}));
    EXPECT_EQ(values_of<int64_t>(pairs[0].tensor()), (std::vector<int64_t>{10, 11, 10, 12, 10, 13, 11, 12, 11, 13, 12, 13}));
    auto triples = combinations(n, strided_input(), 3, false, {4, 3});
    EXPECT_EQ(values_of<int64_t>(triples[0].tensor()), (std::vector<int64_t>{10, 11, 12, 10, 11, 13, 10, 12, 13, 11, 12, 13}));
    auto too_many = combinations(n, strided_input(), 5, false, {0, 5});
    EXPECT_EQ(too_many[0].tensor().sizes, (std::vector<int64_t>{0, 5}));
}

TEST(KernelCombinations, WithReplacementRepeatsAnElement) {
    KernelHarness n;
    auto pairs = combinations(n, strided_input().view({3}, {2}), 2, true, {6, 2});  // [10, 11, 12]
    EXPECT_EQ(values_of<int64_t>(pairs[0].tensor()), (std::vector<int64_t>{10, 10, 10, 11, 10, 12, 11, 11, 11, 12, 12, 12}));
    auto fives = combinations(n, strided_input().view({2}, {2}), 5, true, {6, 5});  // [10, 11]: 6 multisets
    EXPECT_EQ(fives[0].tensor().sizes, (std::vector<int64_t>{6, 5}));
    EXPECT_EQ(values_of<int64_t>(fives[0].tensor()).back(), 11);
}

}  // namespace
