// Kernels that index by tensor values or trust argument shapes, fed bad indices and shapes
// (issue 24): each must fail with an error naming the node, never read or write outside its
// tensors; and take_along_dim must not write into its index argument. Expected values are
// worked out by hand here.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../fixtures/kernel_harness.h"
#include "kernels/tensor.h"
#include "pt2ov/error.h"

namespace {

using pt2ov::DType;
using pt2ov::graph::Argument;
using pt2ov::graph::NamedArgument;
using namespace pt2ov::kernels;
using pt2ov::graph::bool_arg;
using pt2ov::graph::float_arg;
using pt2ov::graph::int_arg;
using pt2ov::graph::ints_arg;
using pt2ov::graph::list_arg;
using pt2ov::graph::none_arg;
using pt2ov::graph::string_arg;
using pt2ov::graph::tensor_arg;
using pt2ov::test::floats;
using pt2ov::test::KernelHarness;
using pt2ov::test::longs;
using pt2ov::test::positional;
using pt2ov::test::tensor_of;
using pt2ov::test::values_of;

// A row-major int64 tensor in memory mapped read-only, as a module's buffer is in the archive's
// mapping: a kernel that writes into it dies of SIGSEGV.
StridedTensor read_only_longs(std::vector<int64_t> sizes, const std::vector<int64_t>& values) {
    const size_t bytes = std::max<size_t>(values.size() * sizeof(int64_t), 1);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    std::memcpy(p, values.data(), values.size() * sizeof(int64_t));
    ::mprotect(p, bytes, PROT_READ);
    StridedTensor t;
    t.dtype = DType::Int64;
    t.sizes = std::move(sizes);
    t.strides = contiguous_strides(t.sizes);
    t.data = static_cast<std::byte*>(p);
    t.owner = std::shared_ptr<void>(p, [bytes](void* q) { ::munmap(q, bytes); });
    return t;
}

// The call fails with UnsupportedError naming the node and saying `what`.
template <typename F>
void expect_failure(F&& f, const std::string& what) {
    try {
        f();
        ADD_FAILURE() << "expected an error containing '" << what << "'";
    } catch (const pt2ov::UnsupportedError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("node_under_test"), std::string::npos) << message;
        EXPECT_NE(message.find(what), std::string::npos) << message;
    }
}

// x = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]: x[i][j] = 4i + j.
StridedTensor x34() { return floats({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}); }

std::vector<NamedArgument> take_along(const std::string& self, const std::string& indices, std::optional<int64_t> dim) {
    return {positional("self", tensor_arg(self)), positional("indices", tensor_arg(indices)),
            positional("dim", dim ? int_arg(*dim) : none_arg())};
}

// ---- take_along_dim ------------------------------------------------------------------------

TEST(KernelBounds, TakeAlongDimReadsAReadOnlyIndexWithoutWritingIt) {
    // The index of the issue: a module's int64 buffer, read-only in the archive's mapping. The
    // kernel wrapped negative indices in place and died of SIGSEGV writing there.
    KernelHarness h;
    h.input("x", x34());
    h.input("idx", read_only_longs({3, 2}, {0, 3, 1, 2, 2, 0}));
    auto out = h.run1("aten.take_along_dim.default", take_along("x", "idx", 1), DType::Float32, {3, 2});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{0, 3, 5, 6, 10, 8}));

    h.input("negative", read_only_longs({3, 2}, {-4, -1, 1, -3, -2, 0}));  // -4 is 0, -1 is 3, ...
    out = h.run1("aten.take_along_dim.default", take_along("x", "negative", 1), DType::Float32, {3, 2});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{0, 3, 5, 5, 10, 8}));
}

TEST(KernelBounds, TakeAlongDimLeavesItsIndexArgumentUnchanged) {
    // A writable index (an input, another node's value) was changed under its other readers.
    KernelHarness h;
    h.input("x", x34());
    const StridedTensor idx = longs({3, 2}, {-1, 5, 0, -4, 2, -2});
    h.input("idx", idx);
    // PyTorch 2.13 takes the indices modulo the dim's size when a dim is given: 5 is 1.
    auto out = h.run1("aten.take_along_dim.default", take_along("x", "idx", 1), DType::Float32, {3, 2});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{3, 1, 4, 4, 10, 10}));
    EXPECT_EQ(values_of<int64_t>(idx), (std::vector<int64_t>{-1, 5, 0, -4, 2, -2}));
}

TEST(KernelBounds, TakeAlongDimBroadcastsTheIndexAndSelf) {
    KernelHarness h;
    h.input("x", x34());
    h.input("row", read_only_longs({1, 2}, {1, -1}));  // every row takes columns 1 and 3
    auto out = h.run1("aten.take_along_dim.default", take_along("x", "row", 1), DType::Float32, {3, 2});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1, 3, 5, 7, 9, 11}));

    h.input("column", read_only_longs({3, 1}, {0, 3, -4}));  // one column per row
    out = h.run1("aten.take_along_dim.default", take_along("x", "column", 1), DType::Float32, {3, 1});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{0, 7, 8}));

    // Along dim 0 self has one row: every index, -1 too, wraps to it.
    h.input("first_row", floats({1, 4}, {0, 1, 2, 3}));
    h.input("down", longs({2, 4}, {0, 0, 0, 0, -1, 0, 0, 0}));
    out = h.run1("aten.take_along_dim.default", take_along("first_row", "down", 0), DType::Float32, {2, 4});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3}));
}

TEST(KernelBounds, TakeAlongDimFailsClearly) {
    KernelHarness h;
    h.input("x", x34());
    h.input("far", read_only_longs({2}, {3, 12}));  // without a dim: the flattened self, no wrapping
    expect_failure([&] { h.run1("aten.take_along_dim.default", take_along("x", "far", std::nullopt), DType::Float32, {2}); },
                   "index 12 is out of bounds for dimension 0 with size 12");
    h.input("before", longs({1}, {-13}));
    expect_failure([&] { h.run1("aten.take_along_dim.default", take_along("x", "before", std::nullopt), DType::Float32, {1}); },
                   "index -13 is out of bounds");
    h.input("rank1", longs({2}, {0, 1}));
    expect_failure([&] { h.run1("aten.take_along_dim.default", take_along("x", "rank1", 1), DType::Float32, {2}); },
                   "with as many dims as self");
    h.input("wide", longs({2, 2}, {0, 1, 2, 3}));  // 2 rows do not broadcast with 3
    expect_failure([&] { h.run1("aten.take_along_dim.default", take_along("x", "wide", 1), DType::Float32, {3, 2}); },
                   "broadcast");
    h.input("empty", floats({3, 0}, {}));
    expect_failure([&] { h.run1("aten.take_along_dim.default", take_along("empty", "wide", 1), DType::Float32, {3, 2}); },
                   "broadcast");
    h.input("zero_columns", floats({2, 0}, {}));
    expect_failure([&] { h.run1("aten.take_along_dim.default", take_along("zero_columns", "wide", 1), DType::Float32, {2, 2}); },
                   "dim of size 0");
}

// ---- the other gathers and scatters: bad index values fail before any access -----------------

TEST(KernelBounds, GathersAndScattersRefuseIndicesOutOfRange) {
    KernelHarness h;
    h.input("x", x34());
    h.input("over", longs({3, 2}, {0, 1, 2, 4, 0, 0}));  // 4 in a dim of 4; rows match: the dense path
    h.input("under", longs({3, 2}, {0, 1, -1, 0, 0, 0}));
    h.input("src", floats({3, 2}, {1, 1, 1, 1, 1, 1}));
    for (const char* index : {"over", "under"}) {
        expect_failure([&] {
            h.run1("aten.gather.default", {positional("self", tensor_arg("x")), positional("dim", int_arg(1)), positional("index", tensor_arg(index))},
                   DType::Float32, {3, 2});
        }, "is out of bounds for dimension 1 with size 4");
        expect_failure([&] {
            h.run1("aten.scatter_add.default", {positional("self", tensor_arg("x")), positional("dim", int_arg(1)),
                                                positional("index", tensor_arg(index)), positional("src", tensor_arg("src"))},
                   DType::Float32, {3, 4});
        }, "is out of bounds for dimension 1 with size 4");
    }
    h.input("rows", longs({1}, {3}));
    expect_failure([&] {
        h.run1("aten.index_select.default", {positional("self", tensor_arg("x")), positional("dim", int_arg(0)), positional("index", tensor_arg("rows"))},
               DType::Float32, {1, 4});
    }, "index 3 is out of range");
    h.input("flat", longs({2}, {0, -13}));
    expect_failure([&] { h.run1("aten.take.default", {positional("self", tensor_arg("x")), positional("index", tensor_arg("flat"))}, DType::Float32, {2}); },
                   "index -13 is out of range for a tensor of 12 elements");
    h.input("value", floats({1}, {5}));
    h.input("row_index", longs({1}, {-4}));
    expect_failure([&] {
        h.run1("aten.index_put.default", {positional("self", tensor_arg("x")), positional("indices", list_arg({tensor_arg("row_index")})),
                                          positional("values", tensor_arg("value"))},
               DType::Float32, {3, 4});
    }, "index -4 is out of bounds for dimension 0 with size 3");
}

// ---- upsample_nearest_exact: a tiny scale ----------------------------------------------------

TEST(KernelBounds, NearestExactUpsampleWithATinyScaleTakesTheLastIndex) {
    // 1 / 1e-300 is infinite as a float: the index was the conversion of infinity to int64
    // (undefined; INT64_MIN on x86), a read before the input.
    KernelHarness h;
    h.input("x", floats({1, 1, 2}, {10, 20}));
    auto out = h.run1("aten._upsample_nearest_exact1d.default",
                      {positional("self", tensor_arg("x")), positional("output_size", ints_arg({3})), positional("scales", float_arg(1e-300))},
                      DType::Float32, {1, 1, 3});
    EXPECT_EQ(values_of<float>(out.view({3}, {1})), (std::vector<float>{20, 20, 20}));
    // A plain scale still picks floor((i + 0.5) / scale): scale 1.5 gives 0, 1, 1.
    out = h.run1("aten._upsample_nearest_exact1d.default",
                 {positional("self", tensor_arg("x")), positional("output_size", ints_arg({3})), positional("scales", float_arg(1.5))},
                 DType::Float32, {1, 1, 3});
    EXPECT_EQ(values_of<float>(out.view({3}, {1})), (std::vector<float>{10, 20, 20}));
}

// ---- histograms ------------------------------------------------------------------------------

TEST(KernelBounds, HistogramOfOneEdgeFailsAsPyTorchDoes) {
    // One edge is no bin: the last-bin rule moved a point on it to bin -1 of an empty histogram.
    KernelHarness h;
    h.input("x", floats({3}, {0, 1, 2}));
    h.input("edge", floats({1}, {1}));
    expect_failure([&] {
        h.run("aten.histogram.bins_tensor", {positional("self", tensor_arg("x")), positional("bins", tensor_arg("edge"))},
              {h.output("hist", DType::Float32, {0}), h.output("edges", DType::Float32, {1})});
    }, "bins must be > 0, but got 0 for dimension 0");
}

TEST(KernelBounds, HistcOverARangeWiderThanItsDtypeCountsNothing) {
    // 3e38 - (-3e38) overflows float, as 6e4 - (-6e4) overflows float16: the edges PyTorch's
    // linspace makes are NaN, so every point is skipped and the histogram is zeros (PyTorch 2.13:
    // torch.histc(torch.tensor([-3e38, 3e38, 1.]), bins=4) is [0, 0, 0, 0], float16 the same).
    // A point is never placed by a NaN quotient converted to int64, an index outside the bins.
    KernelHarness h;
    h.input("x", floats({3}, {-3e38f, 3e38f, 1}));
    auto out = h.run1("aten.histc.default", {positional("self", tensor_arg("x")), positional("bins", int_arg(4))}, DType::Float32, {4});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{0, 0, 0, 0}));
    // float16 bits of -65504 (the lowest), 60000 and 1.
    h.input("half", tensor_of<uint16_t>(DType::Float16, {3}, {0xFBFF, 0x7B53, 0x3C00}));
    out = h.run1("aten.histc.default", {positional("self", tensor_arg("half")), positional("bins", int_arg(4))}, DType::Float16, {4});
    EXPECT_EQ(values_of<uint16_t>(out), (std::vector<uint16_t>{0, 0, 0, 0}));
    // A range that fits still counts: [0, 4] in 4 bins, the last including its right edge.
    h.input("y", floats({5}, {0, 1, 2, 4, 4}));
    out = h.run1("aten.histc.default", {positional("self", tensor_arg("y")), positional("bins", int_arg(4))}, DType::Float32, {4});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1, 1, 1, 2}));
}

// ---- searchsorted: the recorded output dtype --------------------------------------------------

TEST(KernelBounds, SearchsortedRefusesAnOutputDtypeItDoesNotWrite) {
    // Positions are stored as int32 or int64: into a bool output they ran past its elements.
    KernelHarness h;
    h.input("sorted", floats({3}, {1, 2, 3}));
    h.input("v", floats({2}, {0, 5}));
    expect_failure([&] {
        h.run1("aten.searchsorted.Tensor", {positional("sorted_sequence", tensor_arg("sorted")), positional("self", tensor_arg("v"))},
               DType::Bool, {2});
    }, "expects an int32 or int64 output");
    auto out = h.run1("aten.searchsorted.Tensor", {positional("sorted_sequence", tensor_arg("sorted")), positional("self", tensor_arg("v"))},
                      DType::Int64, {2});
    EXPECT_EQ(values_of<int64_t>(out), (std::vector<int64_t>{0, 3}));
}

// ---- slices and strided views: arithmetic that overflowed ----------------------------------

TEST(KernelBounds, SliceWithAHugeStepTakesOneElement) {
    // (end - start + step - 1) / step overflowed to a negative size.
    constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();
    KernelHarness h;
    h.input("x", floats({5}, {0, 1, 2, 3, 4}));
    auto out = h.run1("aten.slice_copy.Tensor",
                      {positional("self", tensor_arg("x")), positional("dim", int_arg(0)), positional("start", int_arg(1)),
                       positional("end", int_arg(5)), positional("step", int_arg(kHuge))},
                      DType::Float32, {1});
    EXPECT_EQ(out.sizes, (std::vector<int64_t>{1}));
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1}));
    h.input("src", floats({1}, {9}));
    out = h.run1("aten.slice_scatter.default",
                 {positional("self", tensor_arg("x")), positional("src", tensor_arg("src")), positional("dim", int_arg(0)),
                  positional("start", int_arg(1)), positional("end", int_arg(5)), positional("step", int_arg(kHuge))},
                 DType::Float32, {5});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{0, 9, 2, 3, 4}));
}

TEST(KernelBounds, AsStridedScatterRefusesAViewWhoseReachOverflows) {
    // (3 - 1) * 2^62 wraps to INT64_MIN, which passed "last < numel" and wrote far away.
    KernelHarness h;
    h.input("x", floats({4}, {0, 1, 2, 3}));
    h.input("src", floats({3}, {7, 8, 9}));
    expect_failure([&] {
        h.run1("aten.as_strided_scatter.default",
               {positional("self", tensor_arg("x")), positional("src", tensor_arg("src")), positional("size", ints_arg({3})),
                positional("stride", ints_arg({int64_t{1} << 62}))},
               DType::Float32, {4});
    }, "reaches beyond self's 4 elements");
    auto out = h.run1("aten.as_strided_scatter.default",
                      {positional("self", tensor_arg("x")), positional("src", tensor_arg("src")), positional("size", ints_arg({3})),
                       positional("stride", ints_arg({1})), positional("storage_offset", int_arg(1))},
                      DType::Float32, {4});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{0, 7, 8, 9}));
}

// ---- recurrent layers: every argument's shape -------------------------------------------------

// aten.lstm.input with one layer of hidden size 1 over 2 features, all weights and biases zero:
// each gate is sigmoid(0) = 0.5 and the candidate tanh(0) = 0, so c = 0.5 c0 and h = 0.5 tanh(c).
struct LstmCase {
    KernelHarness h;
    LstmCase() {
        h.input("input", floats({1, 1, 2}, {3, -2}));  // [T, B, F]
        h.input("h0", floats({1, 1, 1}, {0.25f}));
        h.input("c0", floats({1, 1, 1}, {1}));
        h.input("w_ih", floats({4, 2}, std::vector<float>(8, 0.0f)));
        h.input("w_hh", floats({4, 1}, std::vector<float>(4, 0.0f)));
        h.input("b_ih", floats({4}, std::vector<float>(4, 0.0f)));
        h.input("b_hh", floats({4}, std::vector<float>(4, 0.0f)));
        h.input("short_bias", floats({3}, {0, 0, 0}));
        h.input("flat_state", floats({1}, {0}));  // what aten.zeros(size=True) makes: [1]
        h.input("wide_state", floats({1, 1, 3}, {0, 0, 0}));
    }
    std::vector<RuntimeValue> run(const std::vector<std::string>& hx, const std::vector<std::string>& params) {
        std::vector<Argument> hx_args, param_args;
        for (const auto& n : hx) hx_args.push_back(tensor_arg(n));
        for (const auto& n : params) param_args.push_back(tensor_arg(n));
        return h.run("aten.lstm.input",
                     {positional("input", tensor_arg("input")), positional("hx", list_arg(hx_args)),
                      positional("params", list_arg(param_args)), positional("has_biases", bool_arg(true)),
                      positional("num_layers", int_arg(1)), positional("dropout", float_arg(0.0)),
                      positional("train", bool_arg(false)), positional("bidirectional", bool_arg(false)),
                      positional("batch_first", bool_arg(false))},
                     {h.output("y", DType::Float32, {1, 1, 1}), h.output("hn", DType::Float32, {1, 1, 1}),
                      h.output("cn", DType::Float32, {1, 1, 1})});
    }
};

TEST(KernelBounds, LstmComputesWithStatesOfTheirShape) {
    LstmCase k;
    const auto out = k.run({"h0", "c0"}, {"w_ih", "w_hh", "b_ih", "b_hh"});
    ASSERT_EQ(out.size(), 3u);
    const float h = 0.5f * std::tanh(0.5f);
    EXPECT_FLOAT_EQ(values_of<float>(out[0].tensor())[0], h);
    EXPECT_FLOAT_EQ(values_of<float>(out[1].tensor())[0], h);
    EXPECT_FLOAT_EQ(values_of<float>(out[2].tensor())[0], 0.5f);
}

TEST(KernelBounds, LstmChecksEveryArgumentsShape) {
    LstmCase k;
    // The damaged archive: a [1] state read as [layers, batch, hidden].
    expect_failure([&] { k.run({"flat_state", "c0"}, {"w_ih", "w_hh", "b_ih", "b_hh"}); }, "expects hx[0] of shape [1, 1, 1], got [1]");
    expect_failure([&] { k.run({"h0", "wide_state"}, {"w_ih", "w_hh", "b_ih", "b_hh"}); }, "expects hx[1] of shape [1, 1, 1], got [1, 1, 3]");
    expect_failure([&] { k.run({"h0"}, {"w_ih", "w_hh", "b_ih", "b_hh"}); }, "expects hx of two tensors");
    expect_failure([&] { k.run({"h0", "c0"}, {"w_ih", "w_hh", "short_bias", "b_hh"}); }, "expects bias_ih_l0 of shape [4], got [3]");
    // weight_ih over 1 feature while the input has 2.
    expect_failure([&] { k.run({"h0", "c0"}, {"w_hh", "w_hh", "b_ih", "b_hh"}); }, "expects weight_ih_l0 of shape [4, 2], got [4, 1]");
    expect_failure([&] { k.run({"h0", "c0"}, {"w_ih", "b_ih", "b_ih", "b_hh"}); }, "expects a 2-D weight_hh_l0");
}

TEST(KernelBounds, GruChecksItsStateShape) {
    KernelHarness h;
    h.input("input", floats({2, 1}, {1, 2}));  // unbatched [T, F]
    h.input("h0", floats({1, 1}, {0}));
    h.input("flat", floats({1}, {0}));
    h.input("w_ih", floats({3, 1}, {0, 0, 0}));
    h.input("w_hh", floats({3, 1}, {0, 0, 0}));
    auto run = [&](const std::string& hx) {
        return h.run("aten.gru.input",
                     {positional("input", tensor_arg("input")), positional("hx", tensor_arg(hx)),
                      positional("params", list_arg({tensor_arg("w_ih"), tensor_arg("w_hh")})), positional("has_biases", bool_arg(false)),
                      positional("num_layers", int_arg(1)), positional("dropout", float_arg(0.0)), positional("train", bool_arg(false)),
                      positional("bidirectional", bool_arg(false)), positional("batch_first", bool_arg(false))},
                     {h.output("y", DType::Float32, {2, 1}), h.output("hn", DType::Float32, {1, 1})});
    };
    expect_failure([&] { run("flat"); }, "expects hx[0] of shape [1, 1], got [1]");
    // Zero weights: r = z = 0.5, n = tanh(0) = 0, so h = 0.5 h each step; from 0 it stays 0.
    const auto out = run("h0");
    EXPECT_EQ(values_of<float>(out[0].tensor()), (std::vector<float>{0, 0}));
}

}  // namespace

// ---- upsample: nearest, linear, cubic (hand-worked values) ----------------------------------

namespace {

std::vector<NamedArgument> upsample_args(const std::string& input, std::vector<int64_t> size, std::optional<bool> align) {
    std::vector<NamedArgument> a{positional("self", tensor_arg(input)), positional("output_size", ints_arg(std::move(size)))};
    if (align) a.push_back(positional("align_corners", bool_arg(*align)));
    return a;
}

}  // namespace

TEST(KernelUpsample, LinearSamplesTheMiddleForOneOutputAndClampsBelowZero) {
    KernelHarness h;
    h.input("x", floats({1, 1, 2}, {1, 2}));
    // Size 1 with align_corners=False: source 2 * 0.5 - 0.5 = 0.5, halfway between 1 and 2.
    auto out = h.run1("aten.upsample_linear1d.default", upsample_args("x", {1}, false), DType::Float32, {1, 1, 1});
    EXPECT_EQ(values_of<float>(out.view({1}, {1})), (std::vector<float>{1.5f}));
    h.input("y", floats({1, 1, 2}, {0, 10}));
    // Scale 0.5: sources -0.25 (clamped to 0), 0.25, 0.75, 1.25 (the last index twice).
    out = h.run1("aten.upsample_linear1d.default", upsample_args("y", {4}, false), DType::Float32, {1, 1, 4});
    EXPECT_EQ(values_of<float>(out.view({4}, {1})), (std::vector<float>{0, 2.5f, 7.5f, 10}));
    // align_corners: scale (2 - 1) / (3 - 1), sources 0, 0.5, 1.
    out = h.run1("aten.upsample_linear1d.default", upsample_args("y", {3}, true), DType::Float32, {1, 1, 3});
    EXPECT_EQ(values_of<float>(out.view({3}, {1})), (std::vector<float>{0, 5, 10}));
}

TEST(KernelUpsample, BicubicClampsTapsToTheEdges) {
    KernelHarness h;
    h.input("x", floats({1, 1, 1, 4}, {0, 1, 2, 3}));
    // Width 4 -> 2: sources 0.5 and 2.5, t = 0.5, coefficients -0.09375, 0.59375, 0.59375, -0.09375
    // (A = -0.75); taps -1..2 read 0, 0, 1, 2 and taps 1..4 read 1, 2, 3, 3. The height keeps
    // its size (coefficients 0, 1, 0, 0).
    auto out = h.run1("aten.upsample_bicubic2d.default", upsample_args("x", {1, 2}, false), DType::Float32, {1, 1, 1, 2});
    EXPECT_EQ(values_of<float>(out.view({2}, {1})), (std::vector<float>{0.40625f, 2.59375f}));
}

TEST(KernelUpsample, NearestFloorsAndBilinearReadsStridedInput) {
    KernelHarness h;
    h.input("x", floats({1, 1, 2, 2}, {1, 2, 3, 4}));
    // Scale 2/3: sources floor(0), floor(0.67), floor(1.33).
    auto out = h.run1("aten.upsample_nearest2d.default", upsample_args("x", {3, 3}, std::nullopt), DType::Float32, {1, 1, 3, 3});
    EXPECT_EQ(values_of<float>(out.view({9}, {1})), (std::vector<float>{1, 1, 2, 1, 1, 2, 3, 3, 4}));
    // A transposed view [[1, 3], [2, 4]] to 1 x 2: the rows averaged (source 0.5), the columns kept.
    h.input("t", floats({1, 1, 2, 2}, {1, 2, 3, 4}).view({1, 1, 2, 2}, {4, 4, 1, 2}));
    out = h.run1("aten.upsample_bilinear2d.default", upsample_args("t", {1, 2}, false), DType::Float32, {1, 1, 1, 2});
    EXPECT_EQ(values_of<float>(out.view({2}, {1})), (std::vector<float>{1.5f, 3.5f}));
}

TEST(KernelUpsample, RefusesIntegersZeroSizesAndNegativeFactors) {
    KernelHarness h;
    h.input("i", longs({1, 1, 2}, {1, 2}));
    expect_failure([&] { h.run1("aten.upsample_linear1d.default", upsample_args("i", {3}, false), DType::Int64, {1, 1, 3}); },
                   "expects a floating input, got int64");
    h.input("x", floats({1, 1, 2}, {1, 2}));
    expect_failure([&] { h.run1("aten.upsample_linear1d.default", upsample_args("x", {0}, false), DType::Float32, {1, 1, 0}); },
                   "expects non-empty input and output spatial sizes");
    expect_failure([&] {
        h.run1("aten.upsample_nearest1d.vec",
               {positional("input", tensor_arg("x")), positional("output_size", none_arg()),
                positional("scale_factors", list_arg({float_arg(-2.0)}))},
               DType::Float32, {1, 1, 4});
    }, "expects positive finite scale factors");
}

// The kernel fuzzer's linalg_tensorsolve of a self with no elements against a one-element other:
// the (1 x 1) matrix was read from an empty tensor. Refused by PyTorch's own two checks.
TEST(KernelLinalg, TensorsolveChecksSelfAgainstOther) {
    KernelHarness h;
    h.input("empty", floats({0}, {}));
    h.input("one", floats({1}, {2}));
    expect_failure([&] {
        h.run1("aten.linalg_tensorsolve.default", {positional("self", tensor_arg("empty")), positional("other", tensor_arg("one"))},
               DType::Float32, {});
    }, "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got 1 != 0");
    // self [2, 2] against other [2]: x with self @ x = other.
    h.input("a", floats({2, 2}, {2, 0, 0, 4}));
    h.input("b", floats({2}, {2, 8}));
    const auto x = h.run1("aten.linalg_tensorsolve.default", {positional("self", tensor_arg("a")), positional("other", tensor_arg("b"))},
                          DType::Float32, {2});
    EXPECT_EQ(values_of<float>(x), (std::vector<float>{1, 2}));
    h.input("c", floats({3}, {1, 2, 3}));
    expect_failure([&] {
        h.run1("aten.linalg_tensorsolve.default", {positional("self", tensor_arg("a")), positional("other", tensor_arg("c"))},
               DType::Float32, {2});
    }, "Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)");
}
