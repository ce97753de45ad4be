// Ops that compute from constants alone but that OpenVINO cannot fold (no evaluate(): AvgPool,
// Convolution and its kinds, AdaptiveAvgPool, Mod, ...) are computed by the CPU plugin once, at
// the first call, and kept as constants of the compiled graph; an elementwise op the plugin then
// fuses after them writes into that memory, so every later call starts from a changed value
// (openvino_facts ConstantOpWithoutEvaluateDrifts). pt2ov computes them itself, at load, once,
// and gives the model their values as Constants.
#pragma once

#include <vector>

#include "lower/plugin_workarounds.h"
#include "openvino/core/model.hpp"

namespace pt2ov::lower {

// Replaces the outputs of every op of `model` that is computed from constants alone and has no
// evaluate() by a Constant holding its value (computed by the CPU plugin, f32, in one compiled
// model for all of them); returns one Workaround per op replaced.
std::vector<Workaround> precompute_constant_ops(ov::Model& model);

// Replaces every float16/bfloat16 op other than a Convert that is computed from constants alone
// (and the constant ops it reads) by a Constant of its value, computed by OpenVINO's evaluate(),
// which rounds each element in the op's type as PyTorch does; the plugin would keep such a
// subgraph as a weight decompression computed in float32 (openvino_facts
// HalfConstantArithmeticInFloat). Returns one Workaround per 16-bit op replaced.
// With keep_weight_decompression (--compressed-weights), an op that reads, through other ops of
// constants, a Convert of a narrow integer Constant (8 bits or fewer: a weight's integers) is
// left to the plugin, which keeps the weight compressed and decompresses it in float32 (E9).
std::vector<Workaround> fold_half_constant_arithmetic(ov::Model& model, bool keep_weight_decompression = false);

}  // namespace pt2ov::lower
