// Shape contracts of the indexing, factory, view and scalar kernels (kernels/contracts.h): each
// accepts the sizes PyTorch's meta function gives, refuses other recorded sizes naming them, and
// refuses the argument contradictions PyTorch raises on; what the data decide is left open.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
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
using graph::NamedArgument;
using graph::string_arg;
using graph::tensor_arg;
using test::GraphBuilder;

using test::refusal;

struct Tensor {
    std::string name;
    std::vector<int64_t> sizes;
    DType dtype = DType::Float32;
};

// The refusal of a node of `target` over `tensors` whose one output records `out`.
std::string check(const std::string& target, const std::vector<Tensor>& tensors, std::vector<NamedArgument> inputs,
                  const std::vector<int64_t>& out) {
    GraphBuilder b;
    for (const auto& t : tensors) b.value(t.name, t.dtype, t.sizes);
    b.value("out", DType::Float32, out);
    return refusal(b, b.node("out", target, std::move(inputs), {tensor_arg("out")}));
}

NamedArgument arg(const std::string& name, graph::Argument value) { return {name, std::move(value), false}; }
NamedArgument keyword(const std::string& name, graph::Argument value) { return {name, std::move(value), true}; }
NamedArgument self(const std::string& name = "x") { return arg("self", tensor_arg(name)); }

#define EXPECT_ACCEPTED(message) EXPECT_EQ(message, "")
#define EXPECT_REFUSED(message, text)                                             \
    do {                                                                          \
        const std::string got_ = (message);                                        \
        EXPECT_NE(got_.find(text), std::string::npos) << "got: " << got_;         \
    } while (false)

const Tensor x34{"x", {3, 4}};
const Tensor x345{"x", {3, 4, 5}};

TEST(ShapeContractsIndexing, CopyStridedKeepsItsInputsSizes) {
    const auto copy = [](std::vector<int64_t> out) {
        return check("prims.copy_strided.default", {x34}, {arg("a", tensor_arg("x")), arg("stride", ints_arg({1, 3}))}, out);
    };
    EXPECT_ACCEPTED(copy({3, 4}));
    EXPECT_REFUSED(copy({4, 3}), "records 'out' as [4, 3] where its arguments make it [3, 4]");
}

TEST(ShapeContractsIndexing, Diagonals) {
    const auto diagonal = [](const std::string& target, int64_t offset, int64_t dim1, int64_t dim2, std::vector<int64_t> out) {
        return check(target, {x345}, {self(), arg("offset", int_arg(offset)), arg("dim1", int_arg(dim1)), arg("dim2", int_arg(dim2))}, out);
    };
    EXPECT_ACCEPTED(diagonal("aten.diagonal.default", 0, 0, 2, {4, 3}));
    EXPECT_ACCEPTED(diagonal("aten.diagonal.default", 2, 0, -1, {4, 3}));
    EXPECT_ACCEPTED(diagonal("aten.diagonal_copy.default", -2, 0, 2, {4, 1}));
    EXPECT_ACCEPTED(diagonal("aten.diagonal.default", 9, 0, 2, {4, 0}));
    EXPECT_REFUSED(diagonal("aten.diagonal.default", 1, 1, 2, {3, 3}), "where its arguments make it [3, 4]");
    EXPECT_REFUSED(diagonal("aten.diagonal.default", 0, 1, -2, {3, 4}), "its diagonal dims 1 and -2 are the same");
    EXPECT_REFUSED(diagonal("aten.diagonal_copy.default", 0, 0, 3, {3, 4}), "dim 3 is out of range for rank 3");
    EXPECT_ACCEPTED(check("aten.linalg_diagonal.default", {x345}, {arg("A", tensor_arg("x")), keyword("offset", int_arg(-1))}, {3, 3}));
    EXPECT_REFUSED(check("aten.linalg_diagonal.default", {x345}, {arg("A", tensor_arg("x"))}, {3, 5}), "where its arguments make it [3, 4]");
    EXPECT_REFUSED(check("aten.diagonal.default", {{"x", {4}}}, {self()}, {4}), "it takes a diagonal of a tensor of rank 1");

    const auto diag = [](std::vector<int64_t> in, int64_t offset, std::vector<int64_t> out) {
        return check("aten.diag.default", {{"x", in}}, {self(), arg("diagonal", int_arg(offset))}, out);
    };
    EXPECT_ACCEPTED(diag({4}, -2, {6, 6}));
    EXPECT_ACCEPTED(diag({3, 5}, 1, {3}));
    EXPECT_ACCEPTED(diag({3, 5}, -9, {0}));
    EXPECT_REFUSED(diag({4}, 1, {4, 4}), "where its arguments make it [5, 5]");
    EXPECT_REFUSED(diag({3, 5}, 3, {3}), "where its arguments make it [2]");
    EXPECT_REFUSED(diag({2, 3, 4}, 0, {2}), "diag() of a tensor of rank 3");

    const auto embed = [](int64_t offset, int64_t dim1, int64_t dim2, std::vector<int64_t> out) {
        return check("aten.diag_embed.default", {{"x", {2, 3}}},
                     {self(), arg("offset", int_arg(offset)), arg("dim1", int_arg(dim1)), arg("dim2", int_arg(dim2))}, out);
    };
    EXPECT_ACCEPTED(embed(0, -2, -1, {2, 3, 3}));
    EXPECT_ACCEPTED(embed(1, 0, 2, {4, 2, 4}));
    EXPECT_ACCEPTED(embed(-2, 2, 0, {5, 2, 5}));
    EXPECT_REFUSED(embed(0, 0, 1, {2, 3, 3}), "where its arguments make it [3, 3, 2]");
    EXPECT_REFUSED(embed(0, 1, -2, {2, 3, 3}), "its diagonal dims 1 and -2 are the same");

    EXPECT_ACCEPTED(check("aten.diagflat.default", {x34}, {self(), arg("offset", int_arg(-1))}, {13, 13}));
    EXPECT_REFUSED(check("aten.diagflat.default", {x34}, {self()}, {3, 4}), "where its arguments make it [12, 12]");

    const Tensor src{"s", {3}};
    EXPECT_ACCEPTED(check("aten.diagonal_scatter.default", {x34, src}, {self(), arg("src", tensor_arg("s"))}, {3, 4}));
    EXPECT_REFUSED(check("aten.diagonal_scatter.default", {x34, src}, {self(), arg("src", tensor_arg("s"))}, {3}),
                   "where its arguments make it [3, 4]");
    EXPECT_REFUSED(check("aten.diagonal_scatter.default", {x34, src}, {self(), arg("src", tensor_arg("s")), keyword("dim1", int_arg(1))}, {3, 4}),
                   "its diagonal dims 1 and 1 are the same");

    EXPECT_ACCEPTED(check("aten.trace.default", {x34}, {self()}, {}));
    EXPECT_REFUSED(check("aten.trace.default", {x34}, {self()}, {1}), "where its arguments make it []");
    EXPECT_REFUSED(check("aten.trace.default", {x345}, {self()}, {}), "trace() of a tensor of rank 3");
}

TEST(ShapeContractsIndexing, Factories) {
    for (const std::string target : {"aten.full.default", "aten.zeros.default", "aten.ones.default", "aten.empty.memory_format"}) {
        std::vector<NamedArgument> ok{arg("size", ints_arg({2, 0, 3}))};
        if (target == "aten.full.default") ok.push_back(arg("fill_value", float_arg(1.5)));
        std::vector<NamedArgument> wrong = ok, negative = ok;
        negative[0] = arg("size", ints_arg({2, -1}));
        EXPECT_ACCEPTED(check(target, {}, ok, {2, 0, 3})) << target;
        EXPECT_REFUSED(check(target, {}, wrong, {2, 3}), "where its arguments make it [2, 0, 3]");
        EXPECT_REFUSED(check(target, {}, negative, {2, 0}), "its size has the negative dim -1");
    }
    for (const std::string target : {"aten.new_full.default", "aten.new_zeros.default", "aten.new_ones.default", "aten.new_empty.default"}) {
        std::vector<NamedArgument> inputs{self(), arg("size", ints_arg({5}))};
        if (target == "aten.new_full.default") inputs.push_back(arg("fill_value", int_arg(2)));
        EXPECT_ACCEPTED(check(target, {x34}, inputs, {5})) << target;
        EXPECT_REFUSED(check(target, {x34}, inputs, {3, 4}), "where its arguments make it [5]");
    }
    for (const std::string target : {"aten.full_like.default", "aten.zeros_like.default", "aten.ones_like.default", "aten.empty_like.default"}) {
        std::vector<NamedArgument> inputs{self()};
        if (target == "aten.full_like.default") inputs.push_back(arg("fill_value", int_arg(2)));
        EXPECT_ACCEPTED(check(target, {x34}, inputs, {3, 4})) << target;
        EXPECT_REFUSED(check(target, {x34}, inputs, {4, 3}), "where its arguments make it [3, 4]");
    }
    EXPECT_ACCEPTED(check("aten.scalar_tensor.default", {}, {arg("s", float_arg(3))}, {}));
    EXPECT_REFUSED(check("aten.scalar_tensor.default", {}, {arg("s", float_arg(3))}, {1}), "where its arguments make it []");

    const auto linspace = [](int64_t steps, std::vector<int64_t> out) {
        return check("aten.linspace.default", {}, {arg("start", int_arg(0)), arg("end", float_arg(1)), arg("steps", int_arg(steps))}, out);
    };
    EXPECT_ACCEPTED(linspace(5, {5}));
    EXPECT_REFUSED(linspace(5, {4}), "where its arguments make it [5]");
    EXPECT_REFUSED(linspace(-1, {0}), "its number of steps -1 is negative");

    const auto arange = [](int64_t start, int64_t end, int64_t step, std::vector<int64_t> out) {
        return check("aten.arange.start_step", {}, {arg("start", int_arg(start)), arg("end", int_arg(end)), arg("step", int_arg(step))}, out);
    };
    EXPECT_ACCEPTED(arange(0, 10, 3, {4}));
    EXPECT_ACCEPTED(arange(10, -3, -4, {4}));
    EXPECT_ACCEPTED(arange(5, 5, 2, {0}));
    EXPECT_REFUSED(arange(0, 10, 3, {3}), "where its arguments make it [4]");
    EXPECT_REFUSED(arange(0, -10, 3, {0}), "its bounds and step sign are inconsistent");
    EXPECT_REFUSED(arange(0, 10, 0, {0}), "its step is zero");
    EXPECT_ACCEPTED(check("aten.arange.default", {}, {arg("end", int_arg(7))}, {7}));
    EXPECT_REFUSED(check("aten.arange.default", {}, {arg("end", int_arg(7))}, {6}), "where its arguments make it [7]");
    EXPECT_ACCEPTED(check("aten.arange.start", {}, {arg("start", int_arg(2)), arg("end", int_arg(9))}, {7}));
    // Float bounds are counted in the result's accumulate type: only the rank is checked.
    EXPECT_ACCEPTED(check("aten.arange.start_step", {}, {arg("start", float_arg(0)), arg("end", float_arg(1)), arg("step", float_arg(0.1))}, {10}));
    EXPECT_REFUSED(check("aten.arange.start_step", {}, {arg("start", float_arg(0)), arg("end", float_arg(1)), arg("step", float_arg(0.1))}, {10, 1}),
                   "where its arguments make it [?]");
}

TEST(ShapeContractsIndexing, SymbolicSizesAreLeftOpen) {
    GraphBuilder b;
    b.symint("s0");
    b.value("out", DType::Float32, {7, 3});
    const int full = b.node("out", "aten.full.default",
                            {arg("size", list_arg({graph::symint_arg("s0"), int_arg(3)}, graph::Argument::Kind::Int)), arg("fill_value", int_arg(1))},
                            {tensor_arg("out")});
    EXPECT_ACCEPTED(refusal(b, full));
    GraphBuilder wrong;
    wrong.symint("s0");
    wrong.value("out", DType::Float32, {7, 4});
    const int refused = wrong.node("out", "aten.full.default",
                                   {arg("size", list_arg({graph::symint_arg("s0"), int_arg(3)}, graph::Argument::Kind::Int)),
                                    arg("fill_value", int_arg(1))},
                                   {tensor_arg("out")});
    EXPECT_REFUSED(refusal(wrong, refused), "where its arguments make it [?, 3]");
    GraphBuilder slice;
    slice.symint("s0");
    slice.value("x", DType::Float32, {6, 4});
    slice.value("out", DType::Float32, {2, 4});
    const int sliced = slice.node("out", "aten.slice.Tensor", {self(), arg("dim", int_arg(0)), arg("start", graph::symint_arg("s0"))},
                                  {tensor_arg("out")});
    EXPECT_ACCEPTED(refusal(slice, sliced));
}

TEST(ShapeContractsIndexing, AdvancedIndexing) {
    const Tensor i71{"i", {7, 1}, DType::Int64}, j2{"j", {2}, DType::Int64};
    const Tensor x3456{"x", {3, 4, 5, 6}};
    const auto index = [&](std::vector<graph::Argument> items, std::vector<Tensor> tensors, std::vector<int64_t> out) {
        tensors.push_back(x3456);
        return check("aten.index.Tensor", tensors, {self(), arg("indices", list_arg(std::move(items)))}, out);
    };
    // Adjacent indices stay in place; separated ones go first.
    EXPECT_ACCEPTED(index({none_arg(), tensor_arg("i"), tensor_arg("j")}, {i71, j2}, {3, 7, 2, 6}));
    EXPECT_ACCEPTED(index({tensor_arg("i"), none_arg(), tensor_arg("j")}, {i71, j2}, {7, 2, 4, 6}));
    EXPECT_REFUSED(index({tensor_arg("i"), none_arg(), tensor_arg("j")}, {i71, j2}, {7, 2, 3, 6}), "where its arguments make it [7, 2, 4, 6]");
    EXPECT_REFUSED(index({tensor_arg("j"), tensor_arg("k")}, {j2, {"k", {3}, DType::Int64}}, {2, 5, 6}), "do not broadcast");
    // A bool mask indexes as many dims as it has, by a count the data decide.
    EXPECT_ACCEPTED(index({none_arg(), tensor_arg("m")}, {{"m", {4, 5}, DType::Bool}}, {3, 9, 6}));
    EXPECT_REFUSED(index({none_arg(), tensor_arg("m")}, {{"m", {4, 5}, DType::Bool}}, {3, 9, 5, 6}), "where its arguments make it [3, ?, 6]");
    EXPECT_REFUSED(index({tensor_arg("j"), tensor_arg("j"), tensor_arg("j"), tensor_arg("j"), tensor_arg("j")}, {j2}, {2}),
                   "it indexes more dims than its tensor's 4");

    const Tensor idx{"i", {3}, DType::Int64};
    EXPECT_ACCEPTED(check("aten.index_select.default", {x34, idx}, {self(), arg("dim", int_arg(-1)), arg("index", tensor_arg("i"))}, {3, 3}));
    EXPECT_REFUSED(check("aten.index_select.default", {x34, idx}, {self(), arg("dim", int_arg(0)), arg("index", tensor_arg("i"))}, {3, 4, 3}),
                   "where its arguments make it [3, 4]");
    EXPECT_REFUSED(check("aten.index_select.default", {x34, idx}, {self(), arg("dim", int_arg(2)), arg("index", tensor_arg("i"))}, {3, 4}),
                   "dim 2 is out of range for rank 2");

    EXPECT_ACCEPTED(check("aten.take.default", {x34, {"i", {2, 5}, DType::Int64}}, {self(), arg("index", tensor_arg("i"))}, {2, 5}));
    EXPECT_REFUSED(check("aten.take.default", {x34, {"i", {2, 5}, DType::Int64}}, {self(), arg("index", tensor_arg("i"))}, {3, 4}),
                   "where its arguments make it [2, 5]");

    const Tensor mask{"m", {2, 1, 1}, DType::Bool};
    const auto masked_index = [&](std::vector<int64_t> out) {
        return check("aten._unsafe_masked_index.default", {{"x", {4, 5}}, mask, idx},
                     {self(), arg("mask", tensor_arg("m")), arg("indices", list_arg({tensor_arg("i"), none_arg()})), arg("fill", float_arg(0))}, out);
    };
    EXPECT_ACCEPTED(masked_index({2, 3, 5}));
    EXPECT_REFUSED(masked_index({3, 5}), "where its arguments make it [2, 3, 5]");
}

TEST(ShapeContractsIndexing, PutsKeepSelfsSizes) {
    const Tensor idx{"i", {2}, DType::Int64}, values{"v", {2, 4}};
    const std::vector<NamedArgument> put_inputs{self(), arg("indices", list_arg({tensor_arg("i")})), arg("values", tensor_arg("v"))};
    for (const std::string target : {"aten.index_put.default", "aten._unsafe_index_put.default"}) {
        EXPECT_ACCEPTED(check(target, {x34, idx, values}, put_inputs, {3, 4})) << target;
        EXPECT_REFUSED(check(target, {x34, idx, values}, put_inputs, {2, 4}), "where its arguments make it [3, 4]");
    }
    const std::vector<NamedArgument> masked{self(), arg("mask", tensor_arg("m")), arg("indices", list_arg({tensor_arg("i")})),
                                            arg("values", tensor_arg("v"))};
    const Tensor mask{"m", {2, 4}, DType::Bool};
    EXPECT_ACCEPTED(check("aten._unsafe_masked_index_put_accumulate.default", {x34, mask, idx, values}, masked, {3, 4}));
    EXPECT_REFUSED(check("aten._unsafe_masked_index_put_accumulate.default", {x34, mask, idx, values}, masked, {2, 4}),
                   "where its arguments make it [3, 4]");
    const std::vector<NamedArgument> put{self(), arg("index", tensor_arg("i")), arg("source", tensor_arg("v"))};
    EXPECT_ACCEPTED(check("aten.put.default", {x34, idx, {"v", {2}}}, put, {3, 4}));
    EXPECT_REFUSED(check("aten.put.default", {x34, idx, {"v", {2}}}, put, {12}), "where its arguments make it [3, 4]");
}

TEST(ShapeContractsIndexing, SelectionsTheDataSizeAreLeftOpen) {
    const Tensor mask{"m", {4}, DType::Bool};
    EXPECT_ACCEPTED(check("aten.masked_select.default", {x34, mask}, {self(), arg("mask", tensor_arg("m"))}, {7}));
    EXPECT_REFUSED(check("aten.masked_select.default", {x34, mask}, {self(), arg("mask", tensor_arg("m"))}, {3, 4}),
                   "where its arguments make it [?]");
    EXPECT_REFUSED(check("aten.masked_select.default", {x34, {"m", {5}, DType::Bool}}, {self(), arg("mask", tensor_arg("m"))}, {7}),
                   "do not broadcast");
    EXPECT_ACCEPTED(check("aten.argwhere.default", {x345}, {self()}, {17, 3}));
    EXPECT_REFUSED(check("aten.argwhere.default", {x345}, {self()}, {17, 2}), "where its arguments make it [?, 3]");
    const auto nonzero_static = [](int64_t size, std::vector<int64_t> out) {
        return check("aten.nonzero_static.default", {x34}, {self(), keyword("size", int_arg(size))}, out);
    };
    EXPECT_ACCEPTED(nonzero_static(5, {5, 2}));
    EXPECT_REFUSED(nonzero_static(5, {4, 2}), "where its arguments make it [5, 2]");
    EXPECT_REFUSED(nonzero_static(-1, {0, 2}), "its size -1 is negative");
    const Tensor repeats{"r", {3}, DType::Int64};
    EXPECT_ACCEPTED(check("aten.repeat_interleave.Tensor", {repeats}, {arg("repeats", tensor_arg("r"))}, {9}));
    EXPECT_ACCEPTED(check("aten.repeat_interleave.Tensor", {repeats}, {arg("repeats", tensor_arg("r")), keyword("output_size", int_arg(4))}, {4}));
    EXPECT_REFUSED(check("aten.repeat_interleave.Tensor", {repeats}, {arg("repeats", tensor_arg("r")), keyword("output_size", int_arg(4))}, {5}),
                   "where its arguments make it [4]");

    // nonzero_numpy: a list of one vector per dim, each of a count the data decide.
    GraphBuilder b;
    b.value("x", DType::Float32, {3, 4});
    b.value("a", DType::Int64, {5});
    b.value("c", DType::Int64, {5, 1});
    const int index = b.node("nz", "aten.nonzero_numpy.default", {self()}, {list_arg({tensor_arg("a"), tensor_arg("c")})});
    EXPECT_REFUSED(refusal(b, index), "records 'c' as [5, 1] where its arguments make it [?]");
}

TEST(ShapeContractsIndexing, MatmulFollowsNumpy) {
    const auto matmul = [](std::vector<int64_t> a, std::vector<int64_t> b, std::vector<int64_t> out) {
        return check("aten.matmul.default", {{"a", a}, {"b", b}}, {arg("self", tensor_arg("a")), arg("other", tensor_arg("b"))}, out);
    };
    EXPECT_ACCEPTED(matmul({3}, {3}, {}));
    EXPECT_ACCEPTED(matmul({2, 3}, {3}, {2}));
    EXPECT_ACCEPTED(matmul({3}, {5, 3, 4}, {5, 4}));
    EXPECT_ACCEPTED(matmul({2, 1, 5, 3}, {4, 3, 6}, {2, 4, 5, 6}));
    EXPECT_REFUSED(matmul({2, 1, 5, 3}, {4, 3, 6}, {2, 5, 6}), "where its arguments make it [2, 4, 5, 6]");
    EXPECT_REFUSED(matmul({5, 3}, {4, 6}, {5, 6}), "the inner sizes of the product: 3 and 4 differ");
    EXPECT_REFUSED(matmul({2, 5, 3}, {3, 3, 6}, {2, 5, 6}), "do not broadcast");
    EXPECT_REFUSED(matmul({}, {3}, {3}), "it multiplies a 0-dim tensor");
}

TEST(ShapeContractsIndexing, NumbersHaveNoSizesButSymSizeNeedsADim) {
    GraphBuilder b;
    b.value("x", DType::Float32, {3, 4});
    b.symint("n");
    const int ok = b.node("n", "aten.sym_size.int", {self(), arg("dim", int_arg(-1))}, {graph::symint_arg("n")});
    EXPECT_ACCEPTED(refusal(b, ok));
    const int wrong = b.node("n", "aten.sym_size.int", {self(), arg("dim", int_arg(2))}, {graph::symint_arg("n")});
    EXPECT_REFUSED(refusal(b, wrong), "dim 2 is out of range for rank 2");
    const int numel = b.node("n", "aten.sym_numel.default", {self()}, {graph::symint_arg("n")});
    EXPECT_ACCEPTED(refusal(b, numel));
    b.symint("m");
    const int sum = b.node("m", "_operator.add", {arg("", graph::symint_arg("n")), arg("", int_arg(1))}, {graph::symint_arg("m")});
    EXPECT_ACCEPTED(refusal(b, sum));
    for (const char* op : {"_operator.add", "_operator.and_", "_operator.eq", "_operator.floordiv", "_operator.ge", "_operator.gt",
                           "_operator.le", "_operator.lt", "_operator.mod", "_operator.mul", "_operator.ne", "_operator.neg",
                           "_operator.or_", "_operator.pow", "_operator.sub", "_operator.truediv"}) {
        EXPECT_NE(kernels::find_shape_contract(graph::find_op_id(op)), nullptr) << op;
    }
}

TEST(ShapeContractsIndexing, ScattersAndGathers) {
    const Tensor index{"i", {3, 2}, DType::Int64}, src{"s", {3, 3}};
    const std::vector<NamedArgument> with_src{self(), arg("dim", int_arg(1)), arg("index", tensor_arg("i")), arg("src", tensor_arg("s"))};
    for (const std::string target : {"aten.scatter.src", "aten.scatter_add.default"}) {
        EXPECT_ACCEPTED(check(target, {x34, index, src}, with_src, {3, 4})) << target;
        EXPECT_REFUSED(check(target, {x34, index, src}, with_src, {3, 2}), "where its arguments make it [3, 4]");
    }
    std::vector<NamedArgument> reduce = with_src;
    reduce.push_back(arg("reduce", string_arg("sum")));
    EXPECT_ACCEPTED(check("aten.scatter_reduce.two", {x34, index, src}, reduce, {3, 4}));
    std::vector<NamedArgument> keyword_reduce = with_src;
    keyword_reduce.push_back(keyword("reduce", string_arg("add")));
    EXPECT_ACCEPTED(check("aten.scatter.reduce", {x34, index, src}, keyword_reduce, {3, 4}));
    const std::vector<NamedArgument> with_value{self(), arg("dim", int_arg(0)), arg("index", tensor_arg("i")), arg("value", float_arg(2))};
    EXPECT_ACCEPTED(check("aten.scatter.value", {x34, index}, with_value, {3, 4}));
    std::vector<NamedArgument> value_reduce = with_value;
    value_reduce.push_back(keyword("reduce", string_arg("multiply")));
    EXPECT_REFUSED(check("aten.scatter.value_reduce", {x34, index}, value_reduce, {3}), "where its arguments make it [3, 4]");
    EXPECT_REFUSED(check("aten.scatter.src", {x34, {"i", {2}, DType::Int64}, src}, with_src, {3, 4}),
                   "its index has rank 1 where its tensor has rank 2");
    EXPECT_REFUSED(check("aten.scatter.src", {x34, {"i", {5, 2}, DType::Int64}, src}, with_src, {3, 4}),
                   "its index has size 5 in dim 0, where its tensor has 3");
    // An index without elements is not checked (PyTorch returns self).
    EXPECT_ACCEPTED(check("aten.scatter.src", {x34, {"i", {0}, DType::Int64}, src}, with_src, {3, 4}));

    const std::vector<NamedArgument> gather{self(), arg("dim", int_arg(-1)), arg("index", tensor_arg("i"))};
    EXPECT_ACCEPTED(check("aten.gather.default", {x34, index}, gather, {3, 2}));
    EXPECT_REFUSED(check("aten.gather.default", {x34, index}, gather, {3, 4}), "where its arguments make it [3, 2]");
    EXPECT_REFUSED(check("aten.gather.default", {x34, {"i", {3, 2, 1}, DType::Int64}}, gather, {3, 2, 1}), "its index has rank 3");

    const Tensor indices{"i", {1, 3, 2}, DType::Int64};
    const auto take_along = [&](std::vector<int64_t> in, std::optional<int64_t> dim, std::vector<int64_t> out) {
        return check("aten.take_along_dim.default", {{"x", in}, indices},
                     {self(), arg("indices", tensor_arg("i")), arg("dim", dim ? int_arg(*dim) : none_arg())}, out);
    };
    EXPECT_ACCEPTED(take_along({4, 1, 5}, 2, {4, 3, 2}));
    EXPECT_ACCEPTED(take_along({4, 5}, std::nullopt, {6}));
    EXPECT_REFUSED(take_along({4, 1, 5}, -1, {1, 3, 2}), "where its arguments make it [4, 3, 2]");
    EXPECT_REFUSED(take_along({4, 5}, 1, {4, 2}), "its indices have rank 3 where its tensor has rank 2");

    const Tensor idx{"i", {2}, DType::Int64}, source{"s", {3, 2}};
    const std::vector<NamedArgument> index_src{self(), arg("dim", int_arg(1)), arg("index", tensor_arg("i")), arg("source", tensor_arg("s"))};
    for (const std::string target : {"aten.index_add.default", "aten.index_copy.default"}) {
        EXPECT_ACCEPTED(check(target, {x34, idx, source}, index_src, {3, 4})) << target;
        EXPECT_REFUSED(check(target, {x34, idx, source}, index_src, {3, 2}), "where its arguments make it [3, 4]");
    }
    std::vector<NamedArgument> index_reduce = index_src;
    index_reduce.push_back(arg("reduce", string_arg("prod")));
    EXPECT_ACCEPTED(check("aten.index_reduce.default", {x34, idx, source}, index_reduce, {3, 4}));
    const std::vector<NamedArgument> fill{self(), arg("dim", int_arg(-3)), arg("index", tensor_arg("i")), arg("value", float_arg(1))};
    EXPECT_REFUSED(check("aten.index_fill.int_Scalar", {x34, idx}, fill, {3, 4}), "dim -3 is out of range for rank 2");
    const std::vector<NamedArgument> fill_tensor{self(), arg("dim", int_arg(0)), arg("index", tensor_arg("i")), arg("value", tensor_arg("v"))};
    EXPECT_ACCEPTED(check("aten.index_fill.int_Tensor", {x34, idx, {"v", {}}}, fill_tensor, {3, 4}));
    EXPECT_REFUSED(check("aten.index_fill.int_Tensor", {x34, idx, {"v", {}}}, fill_tensor, {4, 3}), "where its arguments make it [3, 4]");
}

TEST(ShapeContractsIndexing, SlicesAndSelects) {
    const auto slice = [](const std::string& target, graph::Argument start, graph::Argument end, int64_t step, std::vector<int64_t> out) {
        return check(target, {{"x", {3, 6}}}, {self(), arg("dim", int_arg(1)), arg("start", start), arg("end", end), arg("step", int_arg(step))},
                     out);
    };
    EXPECT_ACCEPTED(slice("aten.slice.Tensor", none_arg(), none_arg(), 1, {3, 6}));
    EXPECT_ACCEPTED(slice("aten.slice.Tensor", int_arg(-3), int_arg(-1), 1, {3, 2}));
    EXPECT_ACCEPTED(slice("aten.slice_copy.Tensor", int_arg(2), int_arg(100), 2, {3, 2}));
    EXPECT_ACCEPTED(slice("aten.slice.Tensor", int_arg(4), int_arg(2), 1, {3, 0}));
    EXPECT_ACCEPTED(slice("aten.slice.Tensor", int_arg(0), int_arg(std::numeric_limits<int64_t>::max()), std::numeric_limits<int64_t>::max(), {3, 1}));
    EXPECT_REFUSED(slice("aten.slice.Tensor", int_arg(1), none_arg(), 2, {3, 2}), "where its arguments make it [3, 3]");
    EXPECT_REFUSED(slice("aten.slice_copy.Tensor", int_arg(0), none_arg(), 0, {3, 6}), "its step 0 is not positive");
    EXPECT_REFUSED(check("aten.slice.Tensor", {{"x", {}}}, {self()}, {}), "it slices a 0-dim tensor");

    const auto select = [](const std::string& target, int64_t dim, int64_t index, std::vector<int64_t> out) {
        return check(target, {x34}, {self(), arg("dim", int_arg(dim)), arg("index", int_arg(index))}, out);
    };
    EXPECT_ACCEPTED(select("aten.select.int", 1, -1, {3}));
    EXPECT_ACCEPTED(select("aten.select_copy.int", 0, 2, {4}));
    EXPECT_REFUSED(select("aten.select.int", 0, 1, {3}), "where its arguments make it [4]");
    EXPECT_REFUSED(select("aten.select_copy.int", 0, 3, {4}), "its index 3 is out of range for dim 0 of size 3");

    const std::vector<NamedArgument> slice_scatter{self(), arg("src", tensor_arg("s")), arg("dim", int_arg(1)), arg("start", int_arg(1))};
    EXPECT_ACCEPTED(check("aten.slice_scatter.default", {x34, {"s", {3, 3}}}, slice_scatter, {3, 4}));
    EXPECT_REFUSED(check("aten.slice_scatter.default", {x34, {"s", {3, 3}}}, slice_scatter, {3, 3}), "where its arguments make it [3, 4]");
    const std::vector<NamedArgument> select_scatter{self(), arg("src", tensor_arg("s")), arg("dim", int_arg(0)), arg("index", int_arg(1))};
    EXPECT_ACCEPTED(check("aten.select_scatter.default", {x34, {"s", {4}}}, select_scatter, {3, 4}));
    EXPECT_REFUSED(check("aten.select_scatter.default", {x34, {"s", {4}}}, select_scatter, {4}), "where its arguments make it [3, 4]");
    const auto as_strided_scatter = [](std::vector<int64_t> src, std::vector<int64_t> out) {
        return check("aten.as_strided_scatter.default", {x34, {"s", src}},
                     {self(), arg("src", tensor_arg("s")), arg("size", ints_arg({2, 2})), arg("stride", ints_arg({1, 2}))}, out);
    };
    EXPECT_ACCEPTED(as_strided_scatter({2, 2}, {3, 4}));
    EXPECT_REFUSED(as_strided_scatter({2, 2}, {2, 2}), "where its arguments make it [3, 4]");
    EXPECT_REFUSED(as_strided_scatter({3}, {3, 4}), "its src has other sizes than the view it writes over");
}

TEST(ShapeContractsIndexing, WindowsNarrowsAndReorders) {
    const auto unfold = [](const std::string& target, int64_t dim, int64_t size, int64_t step, std::vector<int64_t> out) {
        return check(target, {x34}, {self(), arg("dimension", int_arg(dim)), arg("size", int_arg(size)), arg("step", int_arg(step))}, out);
    };
    EXPECT_ACCEPTED(unfold("aten.unfold.default", 1, 4, 3, {3, 1, 4}));
    EXPECT_ACCEPTED(unfold("aten.unfold_copy.default", 0, 2, 1, {2, 4, 2}));
    EXPECT_ACCEPTED(unfold("aten.unfold.default", -1, 0, 2, {3, 3, 0}));
    EXPECT_REFUSED(unfold("aten.unfold.default", 0, 2, 1, {2, 4}), "where its arguments make it [2, 4, 2]");
    EXPECT_REFUSED(unfold("aten.unfold_copy.default", 0, 4, 1, {0, 4, 4}), "its window size 4 does not fit dim 0 of size 3");
    EXPECT_REFUSED(unfold("aten.unfold.default", 0, 2, 0, {2, 4, 2}), "its step 0 is not positive");
    EXPECT_ACCEPTED(check("aten.unfold.default", {{"x", {}}}, {self(), arg("dimension", int_arg(0)), arg("size", int_arg(1)), arg("step", int_arg(1))},
                          {1}));

    const auto narrow = [](int64_t start, int64_t length, std::vector<int64_t> out) {
        return check("aten.narrow_copy.default", {x34}, {self(), arg("dim", int_arg(1)), arg("start", int_arg(start)), arg("length", int_arg(length))},
                     out);
    };
    EXPECT_ACCEPTED(narrow(-3, 2, {3, 2}));
    EXPECT_ACCEPTED(narrow(4, 0, {3, 0}));
    EXPECT_REFUSED(narrow(0, 2, {3, 4}), "where its arguments make it [3, 2]");
    EXPECT_REFUSED(narrow(3, 2, {3, 2}), "its start 3 and length 2 reach beyond dim 1 of size 4");
    EXPECT_REFUSED(narrow(-5, 1, {3, 1}), "its start -5 is out of range for dim 1 of size 4");

    GraphBuilder unbind;
    unbind.value("x", DType::Float32, {3, 4});
    unbind.value("a", DType::Float32, {3});
    unbind.value("b", DType::Float32, {4});
    const int parts = unbind.node("parts", "aten.unbind_copy.int", {self(), arg("dim", int_arg(1))},
                                  {list_arg({tensor_arg("a"), tensor_arg("a"), tensor_arg("a"), tensor_arg("b")})});
    EXPECT_REFUSED(refusal(unbind, parts), "records 'b' as [4] where its arguments make it [3]");
    GraphBuilder unbind_ok;
    unbind_ok.value("x", DType::Float32, {3, 4});
    unbind_ok.value("a", DType::Float32, {4});
    EXPECT_ACCEPTED(refusal(unbind_ok, unbind_ok.node("parts", "aten.unbind_copy.int", {self()},
                                                       {list_arg({tensor_arg("a"), tensor_arg("a"), tensor_arg("a")})})));

    EXPECT_ACCEPTED(check("aten.roll.default", {x34}, {self(), arg("shifts", ints_arg({1})), arg("dims", ints_arg({0}))}, {3, 4}));
    EXPECT_REFUSED(check("aten.roll.default", {x34}, {self(), arg("shifts", ints_arg({1}))}, {12}), "where its arguments make it [3, 4]");
    EXPECT_ACCEPTED(check("aten.flip.default", {x34}, {self(), arg("dims", ints_arg({0, -1}))}, {3, 4}));
    EXPECT_REFUSED(check("aten.flip.default", {x34}, {self(), arg("dims", ints_arg({0}))}, {4, 3}), "where its arguments make it [3, 4]");
    EXPECT_REFUSED(check("aten.flip.default", {x34}, {self(), arg("dims", ints_arg({1, -1}))}, {3, 4}), "it flips dim -1 twice");

    EXPECT_ACCEPTED(check("aten.fill.Scalar", {x34}, {self(), arg("value", float_arg(2))}, {3, 4}));
    EXPECT_REFUSED(check("aten.fill.Scalar", {x34}, {self(), arg("value", float_arg(2))}, {}), "where its arguments make it [3, 4]");
    EXPECT_ACCEPTED(check("aten.fill.Tensor", {x34, {"v", {}}}, {self(), arg("value", tensor_arg("v"))}, {3, 4}));
    EXPECT_REFUSED(check("aten.fill.Tensor", {x34, {"v", {1}}}, {self(), arg("value", tensor_arg("v"))}, {3, 4}),
                   "it fills with a value of rank 1 (0-dim expected)");
    EXPECT_ACCEPTED(check("aten.zero.default", {x34}, {self()}, {3, 4}));
    EXPECT_REFUSED(check("aten.zero.default", {x34}, {self()}, {3}), "where its arguments make it [3, 4]");
}

TEST(ShapeContractsIndexing, FlattenAndSqueeze) {
    const auto flatten = [](std::vector<int64_t> in, int64_t start, int64_t end, std::vector<int64_t> out) {
        return check("aten.flatten.using_ints", {{"x", in}}, {self(), arg("start_dim", int_arg(start)), arg("end_dim", int_arg(end))}, out);
    };
    EXPECT_ACCEPTED(flatten({2, 3, 4}, 0, -1, {24}));
    EXPECT_ACCEPTED(flatten({2, 3, 4}, 1, 2, {2, 12}));
    EXPECT_ACCEPTED(flatten({2, 3, 4}, 1, 1, {2, 3, 4}));
    EXPECT_ACCEPTED(flatten({}, 0, -1, {1}));
    EXPECT_REFUSED(flatten({2, 3, 4}, 0, 1, {2, 12}), "where its arguments make it [6, 4]");
    EXPECT_REFUSED(flatten({2, 3, 4}, 2, 1, {24}), "its start_dim 2 comes after its end_dim 1");

    const Tensor x{"x", {1, 3, 1, 4}};
    EXPECT_ACCEPTED(check("aten.squeeze.default", {x}, {self()}, {3, 4}));
    EXPECT_REFUSED(check("aten.squeeze_copy.default", {x}, {self()}, {1, 3, 4}), "where its arguments make it [3, 4]");
    EXPECT_ACCEPTED(check("aten.squeeze.dim", {x}, {self(), arg("dim", int_arg(-2))}, {1, 3, 4}));
    EXPECT_ACCEPTED(check("aten.squeeze_copy.dim", {x}, {self(), arg("dim", int_arg(1))}, {1, 3, 1, 4}));
    EXPECT_REFUSED(check("aten.squeeze.dim", {x}, {self(), arg("dim", int_arg(4))}, {1, 3, 1, 4}), "dim 4 is out of range for rank 4");
    EXPECT_ACCEPTED(check("aten.squeeze.dims", {x}, {self(), arg("dim", ints_arg({0, 1, 2}))}, {3, 4}));
    EXPECT_REFUSED(check("aten.squeeze_copy.dims", {x}, {self(), arg("dim", ints_arg({0, 2}))}, {1, 3, 4}), "where its arguments make it [3, 4]");
    // A listed dim of symbolic size may or may not be 1: the rank is left open.
    GraphBuilder b;
    b.value("x", DType::Float32, {1, 3});
    b.graph.values["x"].meta.sizes[1] = graph::Dim{std::nullopt, "Symbol('s0')", "s0", 3};
    b.value("out", DType::Float32, {1, 3});
    EXPECT_ACCEPTED(refusal(b, b.node("out", "aten.squeeze.dims", {self(), arg("dim", ints_arg({1}))}, {tensor_arg("out")})));
}

// Every op of these kernels declares a contract.
TEST(ShapeContractsIndexing, EveryIndexingKernelHasAContract) {
    for (const char* op :
         {"prims.copy_strided.default", "aten.diag.default", "aten.diag_embed.default", "aten.diagflat.default", "aten.diagonal.default",
          "aten.diagonal_copy.default", "aten.diagonal_scatter.default", "aten.linalg_diagonal.default", "aten.trace.default",
          "aten.arange.default", "aten.arange.start", "aten.arange.start_step", "aten.empty.memory_format", "aten.empty_like.default",
          "aten.full.default", "aten.full_like.default", "aten.linspace.default", "aten.new_empty.default", "aten.new_full.default",
          "aten.new_ones.default", "aten.new_zeros.default", "aten.ones.default", "aten.ones_like.default", "aten.scalar_tensor.default",
          "aten.zeros.default", "aten.zeros_like.default", "aten._unsafe_index_put.default", "aten._unsafe_masked_index.default",
          "aten._unsafe_masked_index_put_accumulate.default", "aten.index_put.default", "aten.put.default", "aten.take.default",
          "aten.index.Tensor", "aten.index_select.default", "aten.argwhere.default", "aten.masked_select.default",
          "aten.nonzero_numpy.default", "aten.nonzero_static.default", "aten.repeat_interleave.Tensor", "aten.matmul.default",
          "aten.sym_numel.default", "aten.sym_size.int", "aten.gather.default", "aten.index_add.default", "aten.index_copy.default",
          "aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor", "aten.index_reduce.default", "aten.scatter.reduce",
          "aten.scatter.src", "aten.scatter.value", "aten.scatter.value_reduce", "aten.scatter_add.default", "aten.scatter_reduce.two",
          "aten.take_along_dim.default", "aten.select.int", "aten.select_copy.int", "aten.slice.Tensor", "aten.slice_copy.Tensor",
          "aten.fill.Scalar", "aten.fill.Tensor", "aten.flip.default", "aten.narrow_copy.default", "aten.roll.default",
          "aten.unbind_copy.int", "aten.unfold.default", "aten.unfold_copy.default", "aten.zero.default",
          "aten.as_strided_scatter.default", "aten.select_scatter.default", "aten.slice_scatter.default", "aten.flatten.using_ints",
          "aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze_copy.default", "aten.squeeze_copy.dim",
          "aten.squeeze_copy.dims"}) {
        EXPECT_NE(kernels::find_shape_contract(graph::find_op_id(op)), nullptr) << op;
    }
}

}  // namespace
}  // namespace pt2ov
