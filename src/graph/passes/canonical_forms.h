// Canonical forms, a rewrite after the passes of passes.h (run by prepare_for_lowering):
// nodes whose PyTorch meaning is plain, spelled so that no engine can read them otherwise.
//  - A node that is an identity of its input becomes a copy of it: `expand` to the input's own
//    sizes and `squeeze.dims` with `dims=()` become `alias` (they are views), `repeat` by all
//    ones with no new dims becomes `clone` (it makes a new tensor). PyTorch computes nothing
//    for them; OpenVINO 2026.4.1 crashed on some and got others wrong
//    (openvino_facts ExpandZeroDimToEmptyCrashes, RepeatZeroDimUninitialised, SqueezeNoDimsDropsAll);
//    so does an `avg_pool1d/2d/3d` of one-element kernel, stride 1 and no padding (`clone`), which
//    the CPU plugin got wrong when read twice.
//  - `item` becomes `_local_scalar_dense`, the core-ATen spelling of the same read.
//  - `var`, `var_mean` and `std` with `correction` left at its default (None, which PyTorch
//    reads as 1) get `correction=1` written out (openvino_facts VarianceCorrectionReadAsZero).
//  - Others: `squeeze.dims` listing dims of sizes other than 1, `linalg_vector_norm` over every dim.
// Knows nothing about OpenVINO: each form is what PyTorch's schema and meta say the node is.
#pragma once

#include "graph/graph.h"

namespace pt2ov::graph {

// Applies them all. `where` names the method in errors; nodes it changes are resolved again.
void canonicalize(Graph& graph, const std::string& where);

// True when `node` is an identity of its first input as canonicalize rewrites it (for tests).
bool is_identity_node(const Graph& graph, const Node& node);

}  // namespace pt2ov::graph
