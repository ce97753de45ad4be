// A static KV cache that the calls fill in order, held as OpenVINO state that grows (a rewrite
// for speed under a promise, LoadOptions::appending_positions).
//
// transformers' static cache is a buffer [B, KV heads, capacity, D] that each call writes at
// its positions (index_copy along dim 2) and that the attention then reads whole, the positions
// not yet written masked out. Kept as OpenVINO state in that form, the CPU plugin copies the
// whole cache into the state at every call (its Assign) and runs the attention over the whole
// capacity as separate MatMul and Softmax nodes: for Qwen2.5-0.5B's shape with 272 positions,
// about 1.7 ms a token of copies alone.
//
// When the caller promises that each call's positions continue where the previous call's ended
// (n, n + 1, ..., n + S - 1, from 0 after load or reset: what a generator does), the first n
// positions of the cache are all that was ever written, and the attention over the whole
// capacity equals the attention over those n + S positions: the masked ones add exact zeros to
// the softmax's sums. The rewrite makes each such cache a state of [B, KV heads, n, D] that a
// Concat appends to (ReadValue -> Gather -> Concat -> Assign, the form the CPU plugin fuses
// with the attention into one node that appends in place), and slices the mask to the n + S
// positions. Same products and sums, in another order: within E5.
//
// Only the exact form is rewritten: the cache written at the promised positions themselves
// (the positions input, or its first element plus arange(S), as transformers' StaticLayer
// computes them), read by nothing but the K or V input of attentions whose mask spans the
// whole capacity. Anything else (a sliding-window cache written modulo its size, a cache read
// by another op) stays as it is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "openvino/core/model.hpp"

namespace pt2ov::lower {

struct AppendedCache {
    std::string variable;  // the state's id (the buffer's state-dict name)
    int64_t capacity = 0;  // the static cache's positions (dim 2)
};

// Rewrites the caches of `model` that are written at the positions `positions_parameter` (the
// name of a rank-1 int64 Parameter) holds; returns them.
std::vector<AppendedCache> append_to_static_caches(ov::Model& model, const std::string& positions_parameter);

}  // namespace pt2ov::lower
