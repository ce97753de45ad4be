// Rewrites of the IR before lowering. First, the higher-order ops that only scope a region
// (wrap_with_autocast, wrap_with_set_grad_enabled) are replaced by their body's nodes, with the
// casts CPU autocast makes in an enabled region spelled out as _to_copy nodes
// (scoping_regions.cpp). Then the numbered passes over the method's graph:
//   0. fold the error checks run_decompositions() orders by effect tokens into the *_ex op
//      that made their info (check_errors=True), and drop the tokens then unused (effects.cpp);
//   1. drop nodes with no outputs (runtime assertions; the engine checks input ranges itself);
//   2. functionalize in-place ops (training-IR archives mutate buffers in place, with no
//      buffer_mutation output): the op becomes its functional form, later readers read its
//      result, and a mutated buffer gets a buffer_mutation output like run_decompositions()
//      would give it;
//   3. rewrite training-IR ops that OpenVINO's FX op table lacks into their core-ATen forms;
//   4. clamp slice bounds beyond the sliced dim (`x[1:]` ends at 2**63 - 1) as PyTorch does,
//      so they fit in 32 bits (slice_bounds.cpp);
//   5. canonical forms of nodes OpenVINO gets wrong (canonical_forms.h);
//   6. split a mutated buffer used one constant index of dim 0 at a time (a stacked KV cache
//      written through per-layer views) into one buffer per index (split_buffers.cpp).
#pragma once

#include <set>
#include <string_view>

#include "graph/graph.h"

namespace pt2ov::graph {

// Applies every pass. `where` names the method in errors. The graph's nodes must have been
// resolved (check_and_resolve, schema.h); the nodes a pass makes or changes are resolved again. Throws UnsupportedError naming the
// node for an in-place op on a user input, a parameter or a view.
void prepare_for_lowering(Graph& graph, const std::string& where);

// Throws UnsupportedError naming the node for what cannot be inlined exactly: in an enabled CPU
// autocast region, a composite op that may run ops autocast casts, or a dtype autocast refuses.
void inline_scoping_regions(Graph& graph, const std::string& where);
void fold_error_checks(Graph& graph, const std::string& where);
// The composite ops inline_scoping_regions lets run in an enabled CPU autocast region, and
// whether a target is composite (a CompositeImplicitAutograd kernel, autocast_cpu_ops.inc).
const std::set<std::string_view>& composites_autocast_leaves_alone();
bool is_composite_op(std::string_view target);
void drop_assertions(Graph& graph);
void functionalize_in_place_ops(Graph& graph, const std::string& where);
void lower_training_ops(Graph& graph, const std::string& where);
void clamp_slice_bounds(Graph& graph, const std::string& where);
// Records each split in Graph::buffer_splits; a buffer with any other use is left whole.
void split_stacked_buffers(Graph& graph, const std::string& where);

}  // namespace pt2ov::graph
