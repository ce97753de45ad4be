// Decompositions of training-IR ops into core ATen, one file per family, each the same
// computation PyTorch's own decomposition of that op makes (torch._decomp / torch._refs), so
// that a program saved as torch.export.export gives it runs like one saved after
// ep.run_decompositions(). A decomposition replaces one node by several: it reads the node's
// arguments by schema position, makes core-ATen nodes through a Builder, and ends with the
// nodes that produce the original node's outputs under their original names.
//
// Nodes a decomposition makes are resolved against the op schemas like the archive's own,
// carry the archive node's name and target (origin, origin_target) so reports and errors name
// what the user exported, and are themselves rewritten or decomposed again when their target
// has a decomposition (a decomposition may use another op that decomposes).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace pt2ov::graph::decompose {

using Keywords = std::vector<std::pair<std::string, Argument>>;

// Makes the nodes that replace one node.
class Builder {
public:
    Builder(Graph& graph, const Node& node, std::string where);

    const Node& node() const { return node_; }

    // The node's resolved argument at schema `position`, which must be the schema's `name`
    // there (else an internal error: the decomposition reads the wrong position). Defaults are
    // filled in.
    const Argument& arg(size_t position, ArgName name) const;
    // The metadata of a tensor argument (a value of the graph).
    const TensorMeta& meta(const Argument& tensor) const;
    int64_t rank(const Argument& tensor) const { return static_cast<int64_t>(meta(tensor).rank()); }
    // The metadata torch.export recorded for the node's `index`-th output (list items
    // flattened in order).
    const TensorMeta& output_meta(size_t index = 0) const;
    size_t output_count() const { return output_names_.size(); }
    // Whether the `index`-th output is read at all (a None output is not).
    bool output_used(size_t index) const { return !output_names_.at(index).empty(); }

    // A dim index in [0, rank) from one PyTorch allows in [-rank, rank); rank 0 takes -1 and 0.
    int64_t dim(int64_t d, int64_t rank) const;
    // The size of `tensor` along `d` as an argument: an int when static, else a symbolic int
    // read at run time by an aten.sym_size.int node made here (once per tensor and dim).
    Argument size(const Argument& tensor, int64_t d);
    // All sizes of `tensor` as an int list argument (see size()).
    Argument sizes(const Argument& tensor);

    // A new node `target(positional..., keywords...)` with one tensor output of `meta`;
    // returns that output. Positional arguments take their names from the target's schema.
    Argument op(const std::string& target, std::vector<Argument> positional, const TensorMeta& meta,
                Keywords keywords = {});
    // A new node with several outputs, one per entry of `metas` (nullopt: an output nobody
    // reads, written as None).
    std::vector<Argument> op_multi(const std::string& target, std::vector<Argument> positional,
                                   const std::vector<std::optional<TensorMeta>>& metas, Keywords keywords = {});
    // The node that produces the original node's `index`-th output, under its name. Every used
    // output must be produced exactly once.
    void output(size_t index, const std::string& target, std::vector<Argument> positional, Keywords keywords = {});
    // One node, named as the original, that produces all of the original node's outputs, in
    // order, under their names (the original node's target spelled another way), followed by
    // `unused` outputs nobody reads (the core form also returns statistics or indices).
    void outputs(const std::string& target, std::vector<Argument> positional, Keywords keywords = {}, size_t unused = 0);
    // The original node's `index`-th output is `value` itself (an alias node makes it).
    void output_is(size_t index, const Argument& value);

    // The nodes made, in order; throws InternalError when a used output was not produced.
    std::vector<Node> take();
    // Removes the values the nodes made so far added to the graph (a declined decomposition).
    void forget_values();

    // Leaves the node as it is (the decomposition does not apply to these arguments): the node
    // goes on to placement.
    [[noreturn]] void decline() const;
    // Fails the decomposition with an UnsupportedError naming the node: it cannot be run this way.
    [[noreturn]] void refuse(const std::string& why) const;

private:
    Node make(const std::string& target, std::vector<Argument> positional, Keywords keywords) const;
    std::string fresh_name(const std::string& stem);

    Graph& graph_;
    const Node& node_;
    std::string where_;
    std::vector<std::string> output_names_;  // "" for a None output
    std::vector<bool> produced_;
    std::vector<Node> made_;
    std::vector<std::string> values_made_;
    std::vector<std::pair<std::string, Argument>> sizes_read_;  // "<tensor>#<dim>" → symbolic int
    int counter_ = 0;
};

// Metadata of a new tensor: its dtype and sizes, contiguous strides (hints where a size is
// symbolic), as the ops that decompositions make produce.
TensorMeta contiguous_meta(DType dtype, std::vector<Dim> sizes);
// `meta` with another dtype (contiguous strides).
TensorMeta with_dtype(const TensorMeta& meta, DType dtype);
// `meta`'s sizes, contiguous (its dtype kept).
TensorMeta contiguous_like(const TensorMeta& meta);
Dim static_dim(int64_t value);
// `meta` reduced over `dims` (each in [0, rank)), kept as size 1 with `keepdim`.
TensorMeta reduced_meta(const TensorMeta& meta, const std::vector<int64_t>& dims, bool keepdim, DType dtype);

bool is_floating(DType dtype);

using Decomposition = std::function<void(Builder&)>;

// Registers `fn` for `target` ("aten.pad.default"). Called at static initialization through
// PT2OV_DECOMPOSITION.
void register_decomposition(const std::string& target, Decomposition fn);
// The decomposition of an op; null when there is none.
const Decomposition* find_decomposition(OpId op);
// Every target with a decomposition (for reports and tests).
std::vector<std::string> decomposed_targets();

struct DecompositionRegistrar {
    DecompositionRegistrar(const std::string& target, Decomposition fn) { register_decomposition(target, std::move(fn)); }
};

// Replaces node `index` of `graph` by the nodes its decomposition makes (resolved); returns
// how many, or nullopt when the decomposition declined and the node is unchanged. The graph's
// producers are not reindexed.
std::optional<size_t> decompose_node(Graph& graph, size_t index, const Decomposition& decomposition, const std::string& where);

}  // namespace pt2ov::graph::decompose

#define PT2OV_DECOMPOSITION_CONCAT_INNER(a, b) a##b
#define PT2OV_DECOMPOSITION_CONCAT(a, b) PT2OV_DECOMPOSITION_CONCAT_INNER(a, b)
// Registers at static-initialization time: `PT2OV_DECOMPOSITION("aten.pad.default", pad);`
#define PT2OV_DECOMPOSITION(target, fn)                                                              \
    static const ::pt2ov::graph::decompose::DecompositionRegistrar PT2OV_DECOMPOSITION_CONCAT(       \
        decomposition_registrar_, __LINE__)(target, fn)
