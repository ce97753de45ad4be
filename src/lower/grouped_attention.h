// Grouped-query attention without the repeated keys and values (a rewrite for speed, not for a
// fault): transformers' `repeat_kv` broadcasts K and V from the KV heads to every query head
// before `scaled_dot_product_attention`, and the CPU plugin then writes and reads that copy at
// every call (Qwen2.5-0.5B's shape: 14 heads on 2, a 272-position cache, 580 us a layer per
// token). The same attention over 5-D views, Q as [B, KV heads, group, S, D] and the K and V
// before their repeat as [B, KV heads, 1, L, D], lets the SDPA broadcast them instead (172 us):
// the same products and sums, so within E5.
#pragma once

#include <cstddef>

#include "openvino/core/model.hpp"

namespace pt2ov::lower {

// Rewrites every ScaledDotProductAttention whose K and V are such repeats; returns how many.
size_t attend_grouped_queries_by_broadcast(ov::Model& model);

}  // namespace pt2ov::lower
