// Shape contracts of the linear-algebra, sorting, selection and set kernels (linalg_*.cpp,
// order_statistics.cpp, selection.cpp, sets.cpp): the sizes PyTorch's meta functions give each
// output, refusals of archives that record others, and of arguments that contradict each other.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fixtures/graph_builder.h"
#include "../fixtures/shape_contract.h"
#include "graph/schema.h"
#include "kernels/contracts.h"
#include "pt2ov/error.h"

namespace pt2ov {
namespace {

using graph::bool_arg;
using graph::int_arg;
using graph::ints_arg;
using graph::tensor_arg;
using test::GraphBuilder;
using Sizes = std::vector<int64_t>;

using test::refusal;

// A node of `target` built argument by argument, its outputs r0, r1, ... of the given sizes.
struct Node {
    GraphBuilder b;
    std::vector<graph::NamedArgument> inputs;

    Node& tensor(const std::string& name, const Sizes& sizes) {
        b.value(name, DType::Float32, sizes);
        inputs.push_back({name, tensor_arg(name), true});
        return *this;
    }
    Node& arg(const std::string& name, graph::Argument value) {
        inputs.push_back({name, std::move(value), true});
        return *this;
    }
    std::string check(const std::string& target, const std::vector<Sizes>& outputs) {
        std::vector<graph::Argument> results;
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string name = "r" + std::to_string(i);
            b.value(name, DType::Float32, outputs[i]);
            results.push_back(tensor_arg(name));
        }
        return refusal(b, b.node("op", target, inputs, results));
    }
};

Node with(const std::string& name, const Sizes& sizes) {
    Node node;
    node.tensor(name, sizes);
    return node;
}

// Expects `message` to hold `part`.
#define EXPECT_SAYS(message, part)                                             \
    do {                                                                       \
        const std::string said = (message);                                    \
        EXPECT_NE(said.find(part), std::string::npos) << "said: " << said;     \
    } while (0)

TEST(ShapeContractsLinalg, FactorizationsOfSquareMatrices) {
    EXPECT_EQ(with("self", {2, 4, 4}).check("aten.cholesky.default", {{2, 4, 4}}), "");
    EXPECT_SAYS(with("self", {2, 4, 4}).check("aten.linalg_cholesky_ex.default", {{2, 4, 4}, {4}}),
                "records 'r1' as [4] where its arguments make it [2]");
    EXPECT_SAYS(with("self", {3, 4}).check("aten.linalg_cholesky.default", {{3, 4}}),
                "its 'self' must be square, but its rows and columns: 3 and 4 differ");
    EXPECT_SAYS(with("self", {4}).check("aten.cholesky.default", {{4}}), "its 'self' of sizes [4] is not a matrix or a batch of matrices");
    EXPECT_EQ(with("self", {3, 4, 4}).check("aten.linalg_ldl_factor_ex.default", {{3, 4, 4}, {3, 4}, {3}}), "");
    EXPECT_SAYS(with("self", {3, 4, 4}).check("aten.linalg_ldl_factor.default", {{3, 4, 4}, {3}}),
                "records 'r1' as [3] where its arguments make it [3, 4]");
    EXPECT_EQ(with("self", {2, 3, 3}).check("aten.linalg_matrix_exp.default", {{2, 3, 3}}), "");
    EXPECT_SAYS(with("self", {2, 3, 4}).check("aten.matrix_exp.default", {{2, 3, 4}}), "must be square");
    EXPECT_EQ(with("self", {3, 3}).arg("n", int_arg(-2)).check("aten.linalg_matrix_power.default", {{3, 3}}), "");
    EXPECT_SAYS(with("self", {3, 3}).arg("n", int_arg(2)).check("aten.linalg_matrix_power.default", {{3, 1}}),
                "records 'r0' as [3, 1] where its arguments make it [3, 3]");
}

TEST(ShapeContractsLinalg, LuFactorizations) {
    EXPECT_EQ(with("A", {2, 5, 3}).check("aten.linalg_lu_factor_ex.default", {{2, 5, 3}, {2, 3}, {2}}), "");
    EXPECT_SAYS(with("A", {2, 5, 3}).check("aten.linalg_lu_factor.default", {{2, 5, 3}, {2, 5}}),
                "records 'r1' as [2, 5] where its arguments make it [2, 3]");
    EXPECT_EQ(with("self", {3, 6}).check("aten._lu_with_info.default", {{3, 6}, {3}, {}}), "");
    EXPECT_EQ(with("A", {2, 5, 3}).check("aten.linalg_lu.default", {{2, 5, 5}, {2, 5, 3}, {2, 3, 3}}), "");
    EXPECT_EQ(with("A", {2, 3, 5}).arg("pivot", bool_arg(false)).check("aten.linalg_lu.default", {{0}, {2, 3, 3}, {2, 3, 5}}), "");
    EXPECT_SAYS(with("A", {2, 3, 5}).arg("pivot", bool_arg(false)).check("aten.linalg_lu.default", {{2, 3, 3}, {2, 3, 3}, {2, 3, 5}}),
                "records 'r0' as [2, 3, 3] where its arguments make it [0]");
    Node unpack = with("LU_data", {2, 5, 3});
    unpack.tensor("LU_pivots", {2, 3});
    EXPECT_EQ(unpack.arg("unpack_pivots", bool_arg(false)).check("aten.lu_unpack.default", {{0}, {2, 5, 3}, {2, 3, 3}}), "");
    Node unpack_wrong = with("LU_data", {3, 5});
    unpack_wrong.tensor("LU_pivots", {3});
    EXPECT_SAYS(unpack_wrong.check("aten.lu_unpack.default", {{3, 3}, {3, 3}, {3, 3}}),
                "records 'r2' as [3, 3] where its arguments make it [3, 5]");
}

TEST(ShapeContractsLinalg, QrFollowsItsMode) {
    EXPECT_EQ(with("A", {5, 3}).check("aten.linalg_qr.default", {{5, 3}, {3, 3}}), "");
    EXPECT_EQ(with("A", {5, 3}).arg("mode", graph::string_arg("complete")).check("aten.linalg_qr.default", {{5, 5}, {5, 3}}), "");
    EXPECT_EQ(with("A", {2, 5, 3}).arg("mode", graph::string_arg("r")).check("aten.linalg_qr.default", {{0}, {2, 3, 3}}), "");
    EXPECT_SAYS(with("A", {5, 3}).arg("mode", graph::string_arg("full")).check("aten.linalg_qr.default", {{5, 3}, {3, 3}}),
                "its mode 'full' is none of 'reduced', 'complete' and 'r'");
    EXPECT_SAYS(with("self", {3, 5}).arg("some", bool_arg(false)).check("aten.qr.default", {{3, 5}, {3, 5}}),
                "records 'r0' as [3, 5] where its arguments make it [3, 3]");
    EXPECT_EQ(with("self", {2, 3, 5}).check("aten.geqrf.default", {{2, 3, 5}, {2, 3}}), "");
    EXPECT_SAYS(with("self", {2, 3, 5}).check("aten.geqrf.default", {{2, 3, 5}, {2, 5}}),
                "records 'r1' as [2, 5] where its arguments make it [2, 3]");
}

TEST(ShapeContractsLinalg, HouseholderReflectors) {
    EXPECT_EQ(with("input", {2, 5, 3}).tensor("tau", {2, 2}).check("aten.linalg_householder_product.default", {{2, 5, 3}}), "");
    EXPECT_SAYS(with("input", {5, 3}).tensor("tau", {2}).check("aten.linalg_householder_product.default", {{5, 5}}),
                "where its arguments make it [5, 3]");
    EXPECT_SAYS(with("input", {3, 5}).tensor("tau", {2}).check("aten.linalg_householder_product.default", {{3, 5}}),
                "its input has fewer rows (3) than columns (5)");
    EXPECT_SAYS(with("input", {5, 3}).tensor("tau", {4}).check("aten.linalg_householder_product.default", {{5, 3}}),
                "it has 4 scales in tau for 3 reflectors");
    EXPECT_SAYS(with("input", {2, 5, 3}).tensor("tau", {1, 2}).check("aten.linalg_householder_product.default", {{2, 5, 3}}),
                "the batch sizes of tau and the reflectors: 1 and 2 differ");
    EXPECT_EQ(with("self", {5, 3}).tensor("input2", {3}).tensor("input3", {5, 4}).check("aten.ormqr.default", {{5, 4}}), "");
    EXPECT_EQ(with("self", {5, 3}).tensor("input2", {3}).tensor("input3", {4, 5}).arg("left", bool_arg(false)).check(
                  "aten.ormqr.default", {{4, 5}}),
              "");
    EXPECT_SAYS(with("self", {5, 3}).tensor("input2", {3}).tensor("input3", {4, 5}).check("aten.ormqr.default", {{4, 5}}),
                "input3's rows and the input's rows: 4 and 5 differ");
}

TEST(ShapeContractsLinalg, SolvesBroadcastTheirBatches) {
    EXPECT_EQ(with("A", {3, 1, 4, 4}).tensor("B", {2, 4, 5}).check("aten.linalg_solve.default", {{3, 2, 4, 5}}), "");
    EXPECT_EQ(with("A", {2, 4, 4}).tensor("B", {2, 4}).check("aten.linalg_solve_ex.default", {{2, 4}, {2}}), "");
    EXPECT_EQ(with("A", {2, 4, 4}).tensor("B", {4}).check("aten._linalg_solve_ex.default", {{2, 4}, {2, 4, 4}, {2, 4}, {2}}), "");
    EXPECT_EQ(with("A", {2, 4, 4}).tensor("B", {3, 1, 5, 4}).arg("left", bool_arg(false)).check("aten.linalg_solve.default",
                                                                                             {{3, 2, 5, 4}}),
              "");
    EXPECT_SAYS(with("A", {3, 1, 4, 4}).tensor("B", {2, 4, 5}).check("aten._linalg_solve_ex.default",
                                                                      {{3, 2, 4, 5}, {3, 2, 4, 4}, {3, 1, 4}, {3, 1}}),
                "records 'r1' as [3, 2, 4, 4] where its arguments make it [3, 1, 4, 4]");
    EXPECT_SAYS(with("A", {4, 4}).tensor("B", {2, 4}).check("aten.linalg_solve.default", {{2, 4}}),
                "the rows of A and B (AX = B): 4 and 2 differ");
    EXPECT_SAYS(with("A", {4, 4}).tensor("B", {4}).arg("left", bool_arg(false)).check("aten.linalg_solve.default", {{4}}),
                "it solves XA = B for a vector B");
    EXPECT_SAYS(with("A", {2, 4, 4}).tensor("B", {3, 4, 5}).check("aten.linalg_solve.default", {{3, 4, 5}}),
                "its arguments' sizes [3] and [2] do not broadcast");
}

TEST(ShapeContractsLinalg, ASolveWhoseRightSideOnlySymbolsTellIsLeftToTheKernel) {
    Node node = with("A", {2, 4, 4});
    node.tensor("B", {2, 4});
    node.b.graph.values["A"].meta.sizes[0] = graph::Dim{std::nullopt, "Symbol('s0')", "s0", 2};
    node.b.graph.values["B"].meta.sizes[0] = graph::Dim{std::nullopt, "Symbol('s1')", "s1", 2};
    EXPECT_EQ(node.check("aten.linalg_solve.default", {{2, 4, 9}}), "");
}

TEST(ShapeContractsLinalg, FactoredAndTriangularSolves) {
    EXPECT_EQ(with("LU", {2, 4, 4}).tensor("pivots", {2, 4}).tensor("B", {3, 1, 4, 5}).check("aten.linalg_lu_solve.default",
                                                                                            {{3, 2, 4, 5}}),
              "");
    EXPECT_SAYS(with("LU", {4, 4}).tensor("pivots", {4}).tensor("B", {4, 5}).arg("left", bool_arg(false)).check(
                    "aten.linalg_lu_solve.default", {{4, 5}}),
                "the order of A and the columns of B (XA = B): 4 and 5 differ");
    EXPECT_SAYS(with("self", {4, 5}).tensor("LU_data", {2, 4, 4}).tensor("LU_pivots", {2, 4}).check("aten.lu_solve.default", {{4, 5}}),
                "records 'r0' as [4, 5] where its arguments make it [2, 4, 5]");
    EXPECT_EQ(with("self", {3, 1, 4, 5}).tensor("A", {2, 4, 4}).check("aten.triangular_solve.default", {{3, 2, 4, 5}, {3, 2, 4, 4}}),
              "");
    EXPECT_SAYS(with("self", {3, 1, 4, 5}).tensor("A", {2, 4, 4}).check("aten.triangular_solve.default", {{3, 2, 4, 5}, {2, 4, 4}}),
                "records 'r1' as [2, 4, 4] where its arguments make it [3, 2, 4, 4]");
    EXPECT_EQ(with("self", {2, 4, 4}).tensor("B", {3, 1, 5, 4}).arg("upper", bool_arg(true)).arg("left", bool_arg(false)).check(
                  "aten.linalg_solve_triangular.default", {{3, 2, 5, 4}}),
              "");
    EXPECT_SAYS(with("self", {3, 3}).tensor("B", {4, 5}).arg("upper", bool_arg(true)).check("aten.linalg_solve_triangular.default",
                                                                                         {{4, 5}}),
                "the order of A and the rows of B (AX = B): 3 and 4 differ");
    EXPECT_EQ(with("self", {4, 2}).tensor("input2", {3, 4, 4}).check("aten.cholesky_solve.default", {{3, 4, 2}}), "");
    EXPECT_SAYS(with("self", {4, 2}).tensor("input2", {3, 4}).check("aten.cholesky_solve.default", {{4, 2}}), "must be square");
    EXPECT_EQ(with("self", {2, 4, 4}).check("aten.cholesky_inverse.default", {{2, 4, 4}}), "");
    EXPECT_SAYS(with("self", {2, 4, 4}).check("aten.cholesky_inverse.default", {{4, 4}}), "where its arguments make it [2, 4, 4]");
    EXPECT_EQ(with("LD", {2, 4, 4}).tensor("pivots", {2, 4}).tensor("B", {3, 1, 4, 2}).check("aten.linalg_ldl_solve.default",
                                                                                           {{3, 2, 4, 2}}),
              "");
    EXPECT_SAYS(with("LD", {4, 4}).tensor("pivots", {4}).tensor("B", {3, 2}).check("aten.linalg_ldl_solve.default", {{3, 2}}),
                "the order of LD and the rows of B: 4 and 3 differ");
}

TEST(ShapeContractsLinalg, InversesAndDeterminants) {
    EXPECT_EQ(with("A", {2, 3, 3}).check("aten.linalg_inv_ex.default", {{2, 3, 3}, {2}}), "");
    EXPECT_SAYS(with("A", {2, 3, 3}).check("aten.linalg_inv.default", {{2, 3}}), "where its arguments make it [2, 3, 3]");
    EXPECT_EQ(with("A", {2, 3, 3}).check("aten._linalg_det.default", {{2}, {2, 3, 3}, {2, 3}}), "");
    EXPECT_EQ(with("A", {2, 3, 3}).check("aten._linalg_slogdet.default", {{2}, {2}, {2, 3, 3}, {2, 3}}), "");
    EXPECT_EQ(with("A", {3, 3}).check("aten.linalg_slogdet.default", {{}, {}}), "");
    EXPECT_SAYS(with("A", {2, 3, 3}).check("aten.linalg_det.default", {{2, 1}}), "where its arguments make it [2]");
    EXPECT_SAYS(with("self", {2, 3, 4}).check("aten.logdet.default", {{2}}), "must be square");
}

TEST(ShapeContractsLinalg, TensorInverseAndSolve) {
    EXPECT_EQ(with("self", {4, 6, 8, 3}).arg("ind", int_arg(2)).check("aten.linalg_tensorinv.default", {{8, 3, 4, 6}}), "");
    EXPECT_SAYS(with("self", {4, 6, 8, 3}).arg("ind", int_arg(2)).check("aten.linalg_tensorinv.default", {{4, 6, 8, 3}}),
                "where its arguments make it [8, 3, 4, 6]");
    EXPECT_SAYS(with("self", {4, 6}).arg("ind", int_arg(0)).check("aten.linalg_tensorinv.default", {{4, 6}}),
                "its ind is 0, not strictly positive");
    EXPECT_SAYS(with("self", {4, 6}).arg("ind", int_arg(1)).check("aten.linalg_tensorinv.default", {{6, 4}}),
                "it inverts 4 x 6 elements as a square matrix");
    EXPECT_EQ(with("self", {2, 3, 6}).tensor("other", {2, 3}).check("aten.linalg_tensorsolve.default", {{6}}), "");
    EXPECT_EQ(with("self", {2, 6, 3}).tensor("other", {6}).arg("dims", ints_arg({0, 2})).check("aten.linalg_tensorsolve.default",
                                                                                            {{2, 3}}),
              "");
    EXPECT_SAYS(with("self", {6, 2, 3}).tensor("other", {2, 3}).arg("dims", ints_arg({0})).check("aten.linalg_tensorsolve.default",
                                                                                               {{6, 2}}),
                "where its arguments make it [6]");
    EXPECT_SAYS(with("self", {2, 3, 5}).tensor("other", {2, 3}).check("aten.linalg_tensorsolve.default", {{5}}),
                "it solves for 5 unknowns with 6 equations");
}

TEST(ShapeContractsLinalg, MultiDotChainsMatricesAndEndVectors) {
    const auto chain = [](std::vector<Sizes> sizes, Sizes out) {
        Node node;
        std::vector<graph::Argument> items;
        for (size_t i = 0; i < sizes.size(); ++i) {
            node.b.value("t" + std::to_string(i), DType::Float32, sizes[i]);
            items.push_back(tensor_arg("t" + std::to_string(i)));
        }
        return node.arg("tensors", graph::list_arg(items)).check("aten.linalg_multi_dot.default", {out});
    };
    EXPECT_EQ(chain({{2, 3}, {3, 4}, {4, 6}}, {2, 6}), "");
    EXPECT_EQ(chain({{3}, {3, 4}, {4}}, {}), "");
    EXPECT_EQ(chain({{2, 3}, {3, 4}, {4}}, {2}), "");
    EXPECT_SAYS(chain({{3}, {3, 4}, {4, 5}}, {1, 5}), "where its arguments make it [5]");
    EXPECT_SAYS(chain({{2, 3}, {4, 5}}, {2, 5}), "the inner sizes of tensors 0 and 1: 3 and 4 differ");
    EXPECT_SAYS(chain({{2, 3}, {3}, {3, 4}}, {2, 4}), "its tensor 1 has rank 1 where it must be 2");
    EXPECT_SAYS(chain({{2, 3}}, {2, 3}), "it multiplies 1 tensors, not at least 2");
}

TEST(ShapeContractsLinalg, SingularValueDecompositions) {
    EXPECT_EQ(with("A", {2, 5, 3}).check("aten.linalg_svd.default", {{2, 5, 5}, {2, 3}, {2, 3, 3}}), "");
    EXPECT_EQ(with("A", {2, 3, 5}).arg("full_matrices", bool_arg(false)).check("aten.linalg_svd.default", {{2, 3, 3}, {2, 3}, {2, 3, 5}}),
              "");
    EXPECT_EQ(with("A", {2, 5, 3}).arg("compute_uv", bool_arg(false)).check("aten._linalg_svd.default", {{0}, {2, 3}, {0}}), "");
    EXPECT_SAYS(with("A", {2, 5, 3}).check("aten._linalg_svd.default", {{2, 5, 5}, {2, 3}, {2, 3, 3}}),
                "records 'r0' as [2, 5, 5] where its arguments make it [2, 5, 3]");
    EXPECT_EQ(with("self", {2, 5, 3}).check("aten.svd.default", {{2, 5, 3}, {2, 3}, {2, 3, 3}}), "");
    EXPECT_EQ(with("self", {2, 3, 5}).check("aten.svd.default", {{2, 3, 3}, {2, 3}, {2, 5, 3}}), "");
    EXPECT_EQ(with("self", {2, 5, 3}).arg("compute_uv", bool_arg(false)).check("aten.svd.default", {{2, 5, 5}, {2, 3}, {2, 3, 3}}), "");
    EXPECT_SAYS(with("self", {3, 5}).check("aten.svd.default", {{3, 3}, {3}, {3, 5}}), "records 'r2' as [3, 5] where its arguments make it [5, 3]");
    EXPECT_EQ(with("A", {2, 5, 3}).check("aten.linalg_svdvals.default", {{2, 3}}), "");
    EXPECT_SAYS(with("A", {2, 5, 3}).check("aten.linalg_svdvals.default", {{2, 5}}), "where its arguments make it [2, 3]");
}

TEST(ShapeContractsLinalg, SymmetricEigendecompositions) {
    EXPECT_EQ(with("A", {2, 4, 4}).check("aten._linalg_eigh.default", {{2, 4}, {2, 4, 4}}), "");
    EXPECT_EQ(with("A", {2, 4, 4}).arg("compute_v", bool_arg(false)).check("aten._linalg_eigh.default", {{2, 4}, {0}}), "");
    EXPECT_SAYS(with("self", {2, 4, 4}).check("aten.linalg_eigh.default", {{2, 4}, {2, 4}}),
                "records 'r1' as [2, 4] where its arguments make it [2, 4, 4]");
    EXPECT_SAYS(with("self", {2, 4, 5}).check("aten.linalg_eigvalsh.default", {{2, 4}}), "must be square");
}

TEST(ShapeContractsLinalg, PseudoInversesAndRanksBroadcastTheirTolerances) {
    EXPECT_EQ(with("self", {2, 5, 3}).arg("rcond", graph::float_arg(0.1)).check("aten.linalg_pinv.default", {{2, 3, 5}}), "");
    EXPECT_EQ(with("self", {2, 5, 3}).check("aten.pinverse.default", {{2, 3, 5}}), "");
    EXPECT_SAYS(with("self", {2, 5, 3}).check("aten.linalg_pinv.atol_rtol_float", {{2, 5, 3}}), "where its arguments make it [2, 3, 5]");
    EXPECT_EQ(with("self", {2, 5, 3}).tensor("atol", {3, 1}).check("aten.linalg_pinv.atol_rtol_tensor", {{3, 2, 3, 5}}), "");
    EXPECT_EQ(with("self", {2, 5, 3}).tensor("rcond", {3, 1}).check("aten.linalg_pinv.rcond_tensor", {{3, 2, 3, 5}}), "");
    EXPECT_SAYS(with("self", {2, 5, 3}).tensor("atol", {3, 1}).check("aten.linalg_pinv.atol_rtol_tensor", {{2, 3, 5}}),
                "where its arguments make it [3, 2, 3, 5]");
    // PyTorch returns early for an input without elements, its tolerances unused
    EXPECT_EQ(with("self", {2, 0, 3}).tensor("atol", {3, 1}).check("aten.linalg_pinv.atol_rtol_tensor", {{2, 3, 0}}), "");
    EXPECT_EQ(with("input", {2, 5, 3}).tensor("tol", {3, 1}).check("aten.linalg_matrix_rank.tol_tensor", {{3, 2}}), "");
    EXPECT_EQ(with("input", {2, 0, 3}).tensor("atol", {3, 1}).check("aten.linalg_matrix_rank.atol_rtol_tensor", {{2}}), "");
    EXPECT_SAYS(with("input", {2, 5, 3}).tensor("atol", {4}).check("aten.linalg_matrix_rank.atol_rtol_tensor", {{2}}),
                "its arguments' sizes [2] and [4] do not broadcast");
    EXPECT_EQ(with("self", {2, 5, 3}).arg("tol", graph::float_arg(0.1)).check("aten.linalg_matrix_rank.default", {{2}}), "");
    EXPECT_SAYS(with("self", {2, 5, 3}).check("aten.linalg_matrix_rank.atol_rtol_float", {{}}), "where its arguments make it [2]");
    Node symbolic = with("self", {2, 5, 3});
    symbolic.tensor("atol", {3, 1});
    symbolic.b.graph.values["self"].meta.sizes[1] = graph::Dim{std::nullopt, "Symbol('s0')", "s0", 5};
    EXPECT_EQ(symbolic.check("aten.linalg_pinv.atol_rtol_tensor", {{2, 3, 5}}), "");  // empty or not: the symbols tell
}

TEST(ShapeContractsLinalg, ConditionNumbersAndMatrixNorms) {
    EXPECT_EQ(with("self", {2, 5, 3}).check("aten.linalg_cond.default", {{2}}), "");
    EXPECT_SAYS(with("self", {2, 4, 4}).arg("p", graph::string_arg("fro")).check("aten.linalg_cond.p_str", {{2, 4}}),
                "where its arguments make it [2]");
    EXPECT_SAYS(with("self", {4}).check("aten.linalg_cond.default", {{}}), "is not a matrix or a batch of matrices");
    EXPECT_EQ(with("self", {2, 5, 3}).arg("ord", graph::float_arg(2)).check("aten.linalg_matrix_norm.default", {{2}}), "");
    EXPECT_EQ(with("self", {2, 5, 3})
                  .arg("ord", graph::float_arg(1))
                  .arg("dim", ints_arg({0, 2}))
                  .arg("keepdim", bool_arg(true))
                  .check("aten.linalg_matrix_norm.default", {{1, 5, 1}}),
              "");
    EXPECT_SAYS(with("self", {2, 5, 3}).arg("dim", ints_arg({2, 0})).check("aten.linalg_matrix_norm.str_ord", {{2}}),
                "where its arguments make it [5]");
    EXPECT_SAYS(with("self", {2, 5, 3}).arg("dim", ints_arg({1, -2})).check("aten.linalg_matrix_norm.str_ord", {{2}}),
                "it takes a matrix norm over dims 1 and -2, which are one");
    EXPECT_SAYS(with("self", {2, 5, 3}).arg("dim", ints_arg({1, 3})).check("aten.linalg_matrix_norm.str_ord", {{2}}),
                "dim 3 is out of range for rank 3");
}

TEST(ShapeContractsLinalg, SortsKeepTheirSizes) {
    EXPECT_EQ(with("self", {3, 4}).arg("dim", int_arg(0)).check("aten.sort.default", {{3, 4}, {3, 4}}), "");
    EXPECT_EQ(with("self", {}).arg("stable", bool_arg(true)).check("aten.sort.stable", {{}, {}}), "");
    EXPECT_SAYS(with("self", {3, 4}).check("aten.sort.default", {{3, 4}, {4, 3}}), "records 'r1' as [4, 3] where its arguments make it [3, 4]");
    EXPECT_SAYS(with("self", {3, 4}).arg("dim", int_arg(2)).check("aten.argsort.default", {{3, 4}}), "dim 2 is out of range for rank 2");
    EXPECT_EQ(with("self", {5}).arg("stable", bool_arg(true)).check("aten.argsort.stable", {{5}}), "");
}

TEST(ShapeContractsLinalg, MediansModesAndQuantilesReduce) {
    EXPECT_EQ(with("self", {3, 4}).check("aten.median.default", {{}}), "");
    EXPECT_SAYS(with("self", {3, 4}).check("aten.nanmedian.default", {{1}}), "where its arguments make it []");
    EXPECT_EQ(with("self", {3, 4}).arg("dim", int_arg(-1)).arg("keepdim", bool_arg(true)).check("aten.median.dim", {{3, 1}, {3, 1}}), "");
    EXPECT_SAYS(with("self", {3, 4}).arg("dim", int_arg(0)).check("aten.nanmedian.dim", {{4}, {3}}),
                "records 'r1' as [3] where its arguments make it [4]");
    EXPECT_EQ(with("self", {3, 4}).check("aten.mode.default", {{3}, {3}}), "");
    EXPECT_EQ(with("self", {2, 3}).tensor("q", {4}).check("aten.quantile.default", {{4}}), "");
    EXPECT_EQ(with("self", {2, 3}).tensor("q", {4}).arg("keepdim", bool_arg(true)).check("aten.nanquantile.default", {{4, 1, 1}}), "");
    EXPECT_EQ(with("self", {2, 3}).tensor("q", {}).arg("dim", int_arg(1)).arg("keepdim", bool_arg(true)).check("aten.quantile.default",
                                                                                                            {{2, 1}}),
              "");
    EXPECT_EQ(with("self", {2, 3}).arg("q", graph::float_arg(0.5)).arg("dim", int_arg(0)).check("aten.quantile.scalar", {{3}}), "");
    EXPECT_SAYS(with("self", {2, 3}).arg("q", graph::float_arg(0.5)).check("aten.nanquantile.scalar", {{2}}), "where its arguments make it []");
    EXPECT_SAYS(with("self", {2, 3}).tensor("q", {2, 2}).check("aten.quantile.default", {{2, 2}}), "its q has rank 2, not 0 or 1");
}

TEST(ShapeContractsLinalg, KthvalueTopkAndNonzero) {
    EXPECT_EQ(with("self", {2, 3}).arg("k", int_arg(3)).arg("dim", int_arg(1)).check("aten.kthvalue.default", {{2}, {2}}), "");
    EXPECT_EQ(with("self", {}).arg("k", int_arg(1)).check("aten.kthvalue.default", {{}, {}}), "");
    EXPECT_SAYS(with("self", {2, 3}).arg("k", int_arg(4)).check("aten.kthvalue.default", {{2}, {2}}), "its k 4 is out of range for a dim of size 3");
    EXPECT_SAYS(with("self", {2, 3}).arg("k", int_arg(1)).arg("keepdim", bool_arg(true)).check("aten.kthvalue.default", {{2}, {2}}),
                "where its arguments make it [2, 1]");
    EXPECT_EQ(with("self", {2, 3}).arg("k", int_arg(2)).arg("dim", int_arg(0)).check("aten.topk.default", {{2, 3}, {2, 3}}), "");
    EXPECT_EQ(with("self", {}).arg("k", int_arg(0)).check("aten.topk.default", {{}, {}}), "");
    EXPECT_SAYS(with("self", {2, 3}).arg("k", int_arg(2)).check("aten.topk.default", {{2, 3}, {2, 2}}),
                "records 'r0' as [2, 3] where its arguments make it [2, 2]");
    EXPECT_SAYS(with("self", {2, 3}).arg("k", int_arg(4)).check("aten.topk.default", {{2, 4}, {2, 4}}), "its k 4 is out of range for a dim of size 3");
    EXPECT_EQ(with("self", {2, 3}).check("aten.nonzero.default", {{5, 2}}), "");
    EXPECT_SAYS(with("self", {2, 3}).check("aten.nonzero.default", {{5, 3}}), "where its arguments make it [?, 2]");
}

TEST(ShapeContractsLinalg, UniquesLeaveTheirCountsToTheData) {
    EXPECT_EQ(with("self", {2, 3}).check("aten._unique2.default", {{4}, {0}, {0}}), "");
    EXPECT_EQ(with("self", {2, 3}).arg("return_inverse", bool_arg(true)).arg("return_counts", bool_arg(true)).check(
                  "aten._unique2.default", {{4}, {2, 3}, {4}}),
              "");
    EXPECT_SAYS(with("self", {2, 3}).arg("return_inverse", bool_arg(true)).check("aten._unique2.default", {{4}, {6}, {0}}),
                "records 'r1' as [6] where its arguments make it [2, 3]");
    EXPECT_SAYS(with("self", {2, 3}).check("aten.unique_consecutive.default", {{4}, {0}, {4}}), "records 'r2' as [4] where its arguments make it [0]");
    EXPECT_EQ(with("self", {2, 3}).arg("dim", int_arg(-1)).check("aten.unique_dim.default", {{2, 2}, {3}, {2}}), "");
    EXPECT_EQ(with("self", {2, 3}).arg("dim", int_arg(1)).check("aten.unique_consecutive.default", {{2, 2}, {0}, {0}}), "");
    EXPECT_SAYS(with("self", {2, 3}).arg("dim", int_arg(1)).arg("return_inverse", bool_arg(true)).check("aten.unique_dim.default",
                                                                                                      {{2, 2}, {2}, {2}}),
                "records 'r1' as [2] where its arguments make it [3]");
    EXPECT_SAYS(with("self", {2, 3}).arg("dim", int_arg(1)).check("aten.unique_dim.default", {{3, 2}, {3}, {2}}),
                "records 'r0' as [3, 2] where its arguments make it [2, ?]");
    EXPECT_SAYS(with("self", {2, 3}).arg("dim", int_arg(2)).check("aten.unique_dim.default", {{2, 2}, {3}, {2}}), "dim 2 is out of range for rank 2");
    // torch.export records unique_consecutive by a negative dim as its fake kernel sizes it,
    // the dim unwrapped: [5] by -1 as [?, 5]
    EXPECT_EQ(with("self", {5}).arg("dim", int_arg(-1)).check("aten.unique_consecutive.default", {{3, 5}, {5}, {5}}), "");
}

TEST(ShapeContractsLinalg, MembershipAndBinarySearches) {
    EXPECT_EQ(with("elements", {2, 3}).tensor("test_elements", {5}).check("aten.isin.Tensor_Tensor", {{2, 3}}), "");
    EXPECT_SAYS(with("elements", {2, 3}).arg("test_element", graph::float_arg(1)).check("aten.isin.Tensor_Scalar", {{5}}),
                "where its arguments make it [2, 3]");
    EXPECT_EQ(with("test_elements", {5}).arg("element", graph::float_arg(1)).check("aten.isin.Scalar_Tensor", {{}}), "");
    EXPECT_EQ(with("sorted_sequence", {2, 5}).tensor("self", {2, 3}).check("aten.searchsorted.Tensor", {{2, 3}}), "");
    EXPECT_EQ(with("sorted_sequence", {5}).tensor("self", {2, 3}).check("aten.searchsorted.Tensor", {{2, 3}}), "");
    EXPECT_SAYS(with("sorted_sequence", {3, 5}).tensor("self", {2, 3}).check("aten.searchsorted.Tensor", {{2, 3}}),
                "the sizes of dim 0 of the boundaries and the values: 3 and 2 differ");
    EXPECT_SAYS(with("sorted_sequence", {5}).tensor("self", {2, 3}).tensor("sorter", {4}).check("aten.searchsorted.Tensor", {{2, 3}}),
                "its sorter's sizes are not its boundaries'");
    EXPECT_EQ(with("sorted_sequence", {5}).arg("self", graph::float_arg(0.5)).check("aten.searchsorted.Scalar", {{}}), "");
    EXPECT_SAYS(with("sorted_sequence", {2, 5}).arg("self", graph::float_arg(0.5)).check("aten.searchsorted.Scalar", {{}}),
                "its boundaries have rank 2, not 1");
    EXPECT_EQ(with("self", {2, 3}).tensor("boundaries", {5}).check("aten.bucketize.Tensor", {{2, 3}}), "");
    EXPECT_SAYS(with("self", {2, 3}).tensor("boundaries", {5}).check("aten.bucketize.Tensor", {{3, 2}}), "where its arguments make it [2, 3]");
    EXPECT_SAYS(with("boundaries", {2, 5}).arg("self", graph::float_arg(0.5)).check("aten.bucketize.Scalar", {{}}),
                "its boundaries have rank 2, not 1");
}

TEST(ShapeContractsLinalg, CombinationsCountTheChoices) {
    EXPECT_EQ(with("self", {5}).arg("r", int_arg(3)).check("aten.combinations.default", {{10, 3}}), "");
    EXPECT_EQ(with("self", {5}).arg("r", int_arg(3)).arg("with_replacement", bool_arg(true)).check("aten.combinations.default", {{35, 3}}),
              "");
    EXPECT_EQ(with("self", {3}).arg("r", int_arg(4)).check("aten.combinations.default", {{0, 4}}), "");
    EXPECT_EQ(with("self", {5}).arg("r", int_arg(0)).check("aten.combinations.default", {{0}}), "");
    EXPECT_SAYS(with("self", {5}).check("aten.combinations.default", {{20, 2}}), "where its arguments make it [10, 2]");
    EXPECT_SAYS(with("self", {2, 5}).check("aten.combinations.default", {{10, 2}}), "it combines the elements of a tensor of rank 2, not 1");
    EXPECT_SAYS(with("self", {5}).arg("r", int_arg(-1)).check("aten.combinations.default", {{0}}), "it chooses -1 elements");
}

}  // namespace
}  // namespace pt2ov
