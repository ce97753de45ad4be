// Shape contracts: what a kernel's outputs must measure, from its arguments' recorded metadata,
// as PyTorch's meta function for the op computes it. A kernel declares its contract where it is
// registered (PT2OV_KERNEL's third argument, or once for a whole file of kernels that share one,
// PT2OV_FILE_SHAPE_CONTRACT). At load every node whose op has a contract is checked against what
// the archive records (check_shape_contract), so a damaged or edited archive whose metadata
// contradict its own program is refused there, naming the node, before any kernel runs; where a
// size is symbolic the kernel checks the actual inputs itself before it touches memory, and every
// value a kernel makes is checked against the metadata (runtime/output_guard).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "kernels/registry.h"

namespace pt2ov::kernels {

// A node's arguments as metadata, for a contract to read.
class ShapeQuery {
public:
    ShapeQuery(const graph::Node& node, const graph::Graph& graph) : node_(node), graph_(graph) {}

    const graph::Node& node() const { return node_; }
    const graph::Graph& graph() const { return graph_; }
    // The recorded sizes of the tensor argument at schema `position` (named `name`); nullopt
    // when the overload has no such argument or it is None or not a tensor.
    std::optional<ExpectedSizes> sizes(ArgName name, size_t position) const;
    // The recorded sizes of every tensor argument, in schema order (an `out` argument excepted).
    std::vector<ExpectedSizes> tensor_sizes() const;
    // The recorded sizes of each tensor of the tensor-list argument at `position`; nullopt when
    // absent or not a list of tensors.
    std::optional<std::vector<ExpectedSizes>> tensor_list_sizes(ArgName name, size_t position) const;
    // The argument at `position` as a static int; nullopt when absent, None or symbolic.
    std::optional<int64_t> int_arg(ArgName name, size_t position) const;
    // The argument at `position` as static ints (one int counts as a list of one); nullopt when
    // absent, None or any item symbolic.
    std::optional<std::vector<int64_t>> ints(ArgName name, size_t position) const;
    // A contradiction among the arguments themselves (sizes that do not broadcast, a dim out of
    // range): thrown by check_shape_contract as the archive's.
    [[noreturn]] void contradiction(const std::string& what) const;

private:
    const graph::Argument* argument(ArgName name, size_t position) const;

    const graph::Node& node_;
    const graph::Graph& graph_;
};

// The sizes of `a` and `b` broadcast together (numpy's rule); a pair of static sizes that are
// neither equal nor 1 is a contradiction.
ExpectedSizes broadcast(const ShapeQuery& query, const ExpectedSizes& a, const ExpectedSizes& b);

// Contracts shared by many kernels.
// Every output has the broadcast sizes of all tensor arguments (unary, binary, ternary ops).
std::optional<std::vector<ExpectedSizes>> elementwise_shape(const ShapeQuery& query);
// Every output has the sizes of `self` (a copy, a softmax, a scan along a dim).
std::optional<std::vector<ExpectedSizes>> same_as_self(const ShapeQuery& query);
// A reduction over `dim` (all dims when None or empty), kept as size 1 with `keepdim`.
std::optional<std::vector<ExpectedSizes>> reduced_self(const ShapeQuery& query);

// Matrix products: mm and addmm [n, k] x [k, m], bmm [b, n, k] x [b, k, m], linear [..., k] by
// a weight [o, k]: the inner sizes must agree.
std::optional<std::vector<ExpectedSizes>> matrix_product_shape(const ShapeQuery& query);
// cat: the tensors' sizes, equal but along `dim`, where they add up (legacy 1-d empty tensors
// taking no part); stack: the common sizes with a new dim of the count at `dim`.
std::optional<std::vector<ExpectedSizes>> concatenated_shape(const ShapeQuery& query);
std::optional<std::vector<ExpectedSizes>> stacked_shape(const ShapeQuery& query);
// Views: permute by `dims`, transpose `dim0` and `dim1` (t: a matrix's two), unsqueeze at `dim`,
// view and reshape to `size` (one -1 inferred from the element count), expand to `size` (-1 keeps
// the size).
std::optional<std::vector<ExpectedSizes>> permuted_shape(const ShapeQuery& query);
std::optional<std::vector<ExpectedSizes>> transposed_shape(const ShapeQuery& query);
std::optional<std::vector<ExpectedSizes>> unsqueezed_shape(const ShapeQuery& query);
std::optional<std::vector<ExpectedSizes>> reshaped_shape(const ShapeQuery& query);
std::optional<std::vector<ExpectedSizes>> expanded_shape(const ShapeQuery& query);

// Checks `node` against its op's contract: an ArchiveError naming the node and `where` when what
// the archive records for an output contradicts it (or its arguments contradict each other).
// Nothing for an op without a contract.
void check_shape_contract(const graph::Node& node, const graph::Graph& graph, const std::string& where);

// Helpers for the contracts of indexing, factory and view kernels.
// `d` in [0, rank) from PyTorch's [-rank, rank) (a 0-d tensor takes -1 and 0 as 0); a dim out of
// range is a contradiction.
int64_t wrap_dim(const ShapeQuery& query, int64_t d, int64_t rank);
// The dtype recorded for a tensor argument (or an item of a tensor list); nullopt when it is not one.
std::optional<DType> tensor_dtype(const ShapeQuery& query, const graph::Argument& arg);
// A SymInt[] argument (a size) as expected sizes, a symbolic item unknown; nullopt when absent,
// None or not a list of ints.
std::optional<ExpectedSizes> size_list(const ShapeQuery& query, ArgName name);
// The element count, nullopt when a size is symbolic.
std::optional<int64_t> element_count(const ExpectedSizes& sizes);
// `self` with its dim `d` (already wrapped) removed.
ExpectedSizes without_dim(ExpectedSizes sizes, int64_t d);
// What advanced indexing of `self` by the Tensor?[] argument `indices` makes (index.Tensor):
// the indices broadcast together, in place of the dims they index when those are adjacent, else
// first; a bool mask indexes as many dims as it has, by a data-dependent count of positions.
std::optional<ExpectedSizes> indexed_sizes(const ShapeQuery& query, const ExpectedSizes& self, ArgName indices);

// Shared by the contracts of the nn kernels (convolution, pooling, sampling).
// The static ints of the argument at `position`, one value standing for all `count` dims (as
// PyTorch reads `int[2] stride=2`); nullopt when absent, symbolic or of another length.
std::optional<std::vector<int64_t>> ints_per_dim(const ShapeQuery& query, ArgName name, size_t position, size_t count);
// The positions a window of `kernel` dilated by `dilation` takes at `stride` over `input` padded
// by `padding` on both sides: (input + 2 padding - dilation (kernel - 1) - 1) // stride + 1, as
// PyTorch's conv and im2col meta functions floor it; a kernel, stride or dilation below 1 is a
// contradiction.
std::optional<int64_t> sliding_window_size(const ShapeQuery& query, std::optional<int64_t> input, int64_t kernel, int64_t stride,
                                           int64_t padding, int64_t dilation);

// Parts of the contracts of the linear-algebra, sorting and set kernels (linalg_*.cpp,
// order_statistics.cpp, selection.cpp, sets.cpp).
// (wrap_dim above for a dim.)
// Two sizes that must be equal: a contradiction saying `what` when both are static and differ.
void require_same_size(const ShapeQuery& query, const std::optional<int64_t>& a, const std::optional<int64_t>& b,
                       const std::string& what);
// The sizes of the argument `name` as a matrix or a batch of matrices [..., m, n]: nullopt when
// absent; a contradiction when its rank is below 2 or, with `square`, when m and n differ.
std::optional<ExpectedSizes> matrix_sizes(const ShapeQuery& query, ArgName name, size_t position, bool square);
// `sizes` without its last `count` dims (the batch dims of a batch of matrices, of vectors).
ExpectedSizes leading(const ExpectedSizes& sizes, size_t count);
// `sizes`' batch dims (all but the last two) broadcast with `other`'s, followed by `sizes`' last
// two: PyTorch's _linalg_broadcast_batch_dims, as the solvers size their results.
ExpectedSizes with_broadcast_batch(const ShapeQuery& query, const ExpectedSizes& sizes, const ExpectedSizes& other);
// The smaller of two sizes (k = min(m, n) of a factorization); nullopt unless both are static.
std::optional<int64_t> smaller(const std::optional<int64_t>& a, const std::optional<int64_t>& b);

}  // namespace pt2ov::kernels
