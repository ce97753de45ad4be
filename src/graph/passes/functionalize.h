// Pass 4 (passes.h), functionalization, in three parts: the analysis of the view chain an
// in-place op writes through and the insertion of the scatters that write a view's new value
// back into its base (functionalize_views.cpp), copy_ (functionalize_copy.cpp), and the walk
// over the nodes that makes every in-place op functional and the buffers' mutations outputs
// (functionalize.cpp). Private to graph/passes/.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace pt2ov::graph::functionalization {

// "aten.add_.Tensor" → "add_"; "" when the target is not an aten op.
std::string op_name(const std::string& target);

// An in-place op ("aten.add_.Tensor", Python's augmented `b |= x` as aten.__ior__).
bool is_in_place(const std::string& target);

// The tensor an in-place op (or a view) reads first: the one it writes (or views).
std::string mutated_input(const Node& node);

// Every reference to tensor `from` in `arg` (and its list items) made `to`.
void replace_references(Argument& arg, const std::string& from, const std::string& to);

// The node that made `value` when its result shares memory with its input, as an in-place op
// sees it: a view op as it is, a conversion to self as the alias it is. Empty otherwise.
std::optional<Node> view_producing(const Graph& graph, const std::string& value);

// The views from a written tensor out to the first tensor that is not a view.
struct ViewChain {
    std::optional<Node> view;  // the view the op writes, if it writes one
    std::string key;           // what the view selects (target and integer arguments); "" when not all are integers
    std::vector<Node> levels;  // the views, innermost first (copies: nodes move while others are inserted)
    std::string base;          // the tensor the outermost view is a view of; "" without a view

    std::vector<std::string> bases() const;  // each level's input, innermost first
};

// The chain behind `written` (empty when it is no view).
ViewChain view_chain_of(const Graph& graph, const std::string& written);

class Functionalizer {
public:
    Functionalizer(Graph& graph, const std::string& where);

    // Makes every in-place op functional, then adds each mutated buffer's last version as a
    // buffer mutation output (an input or parameter written in place is refused).
    void run();

private:
    // ---- bookkeeping (functionalize.cpp)
    // Every reader from node `first_node` on, and the outputs, read `to` for `from`.
    void rename_after(size_t first_node, const std::string& from, const std::string& to);
    // Removes node i, whose one result `result` is `replacement` from now on.
    void drop_node(size_t i, const std::string& result, const std::string& replacement);
    // `version` is the new value of `previous` (and of the tensor first mutated).
    void record_version(const std::string& version, const std::string& previous);
    // Whether the chain only views a tensor that the op's own node chain reads: a base made by a
    // node (not an input, a parameter, a buffer or a constant), not an output, each level's input
    // read by nothing but the next level of the chain (the innermost by the in-place op). Then
    // nothing but the view sees the write, and it needs no write-back.
    bool views_a_private_tensor(const ViewChain& chain, const std::string& written) const;
    void add_buffer_mutations();

    // ---- scatters (functionalize_views.cpp)
    // The nodes that write a view's new value back, level by level: the last gives the new
    // value of the chain's base. Empty when one level cannot.
    std::vector<Node> scatters_for(const ViewChain& chain, const std::string& new_view, const std::string& node_name) const;
    // Inserts the scatters at `at`; every later reader of a view in the chain, and of the base,
    // reads its new value.
    void insert_scatters(const ViewChain& chain, std::vector<Node>& scatters, size_t at);

    // ---- copy_ (functionalize_copy.cpp)
    // Rewrites copy_ node i (writing `self`, giving `result`) into what its new value is made
    // of. The index of the last node handled (the loop goes on after it), or nullopt when copy_
    // becomes the functional aten.copy like any in-place op (a dynamic expand).
    std::optional<size_t> rewrite_copy(size_t i, const std::string& self, const std::string& result,
                                       const ViewChain& chain, std::vector<Node>& scatters);

    Graph& graph_;
    const std::string& where_;
    std::map<std::string, size_t> input_index_;  // graph input name → index in input_specs
    std::map<std::string, std::string> root_of_;  // a version of a tensor → the tensor first mutated
    std::map<std::string, std::string> latest_;   // mutated graph input → its last version
    std::vector<std::string> mutation_order_;
    std::set<std::string> written_views_;        // new values of views, already scattered back
    std::set<std::string> new_values_of_views_;  // a view's new value made while writing through a chain
    // A view's new value → where it was scattered back: the base it made and the view's key.
    std::map<std::string, std::pair<std::string, std::string>> scattered_to_;
};

}  // namespace pt2ov::graph::functionalization
