// The rewrites of the IR before lowering, one pass per file of graph/passes/, run in the order
// of the table passes() (passes.cpp):
//   inline scoping regions (scoping_regions.cpp): the higher-order ops that only scope a
//      region (wrap_with_autocast, wrap_with_set_grad_enabled) replaced by their body's nodes,
//      with the casts CPU autocast makes in an enabled region spelled out as _to_copy nodes;
//   0. fold the error checks run_decompositions() orders by effect tokens into the *_ex op
//      that made their info (check_errors=True), and drop the tokens then unused
//      (error_checks.cpp);
//   1. drop nodes with no outputs (runtime assertions; the engine checks input ranges itself;
//      drop_assertions.cpp);
//   2. functionalize in-place ops (training-IR archives mutate buffers in place, with no
//      buffer_mutation output): the op becomes its functional form, later readers read its
//      result, and a mutated buffer gets a buffer_mutation output like run_decompositions()
//      would give it (functionalize.cpp);
//   2b. record each quantize-dequantize pair of one per-tensor scale in
//      Graph::fake_quantizations, before pass 3 decomposes both (fake_quantizations.cpp);
//   3. decompose training-IR ops that OpenVINO's FX op table lacks into their core-ATen forms
//      (training_ops.cpp, running graph/decompose/), after a sqrt that alone reads a var is made
//      the std that run_decompositions() split into the two (in range where the var is not);
//   4. clamp slice bounds beyond the sliced dim (`x[1:]` ends at 2**63 - 1) as PyTorch does,
//      so they fit in 32 bits (slice_bounds.cpp);
//   5. canonical forms of nodes OpenVINO gets wrong (canonical_forms.h);
//   6. split a mutated buffer used one constant index of dim 0 at a time (a stacked KV cache
//      written through per-layer views) into one buffer per index (split_buffers.cpp).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace pt2ov::graph {

// One pass: its name (for reports and tests) and what runs it. `where` names the method in
// errors.
struct Pass {
    std::string_view name;
    void (*run)(Graph& graph, const std::string& where);
};

// Every pass, in the order prepare_for_lowering runs them.
const std::vector<Pass>& passes();

// The resolved argument at `position` of `node`, checked to be the schema's `name` there, so
// a pass reading the wrong position fails at once (InternalError) instead of rewriting
// wrongly. Defaults are filled in: no argument is ever absent.
const Argument& schema_arg(const Node& node, size_t position, std::string_view name);

// Value::producer again after a pass inserted or removed nodes.
void reindex_producers(Graph& graph);

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
const std::vector<OpId>& composites_autocast_leaves_alone();
bool is_composite_op(OpId op);
void drop_assertions(Graph& graph);
void functionalize_in_place_ops(Graph& graph, const std::string& where);
void record_fake_quantizations(Graph& graph);
void lower_training_ops(Graph& graph, const std::string& where);
void clamp_slice_bounds(Graph& graph, const std::string& where);
// Records each split in Graph::buffer_splits; a buffer with any other use is left whole.
void split_stacked_buffers(Graph& graph, const std::string& where);

}  // namespace pt2ov::graph
