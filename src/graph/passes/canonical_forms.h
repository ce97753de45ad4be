// Canonical forms, a rewrite after the passes of passes.h (run by prepare_for_lowering):
// nodes whose PyTorch meaning is plain, spelled so that no engine can read them otherwise.
//  - A node that is an identity of its input becomes a copy of it: `expand` to the input's own
//    sizes and `squeeze.dims` with `dims=()` become `alias` (they are views), `repeat` by all
//    ones with no new dims becomes `clone` (it makes a new tensor). PyTorch computes nothing
//    for them; OpenVINO 2026.4.1 crashed on some and got others wrong
//    (openvino_facts ExpandZeroDimToEmptyCrashes, RepeatZeroDimUninitialised, SqueezeNoDimsDropsAll).
//  - `var`, `var_mean` and `std` with `correction` left at its default (None, which PyTorch
//    reads as 1) get `correction=1` written out (openvino_facts VarianceCorrectionReadAsZero).
// Knows nothing about OpenVINO: each form is what PyTorch's schema and meta say the node is.
#pragma once

#include "graph/graph.h"

namespace pt2ov::graph {

// Applies both. `where` names the method in errors; nodes it changes are resolved again.
void canonicalize(Graph& graph, const std::string& where);

// True when `node` is an identity of its first input as canonicalize rewrites it (for tests).
bool is_identity_node(const Graph& graph, const Node& node);

}  // namespace pt2ov::graph
