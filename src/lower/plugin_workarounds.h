// Rewrites of a converted ov::Model that keep OpenVINO's CPU plugin away from faults the facts
// table lists (openvino_facts.h), where an equivalent form of the same OpenVINO ops computes the
// right result: the step stays on OpenVINO and its numbers are PyTorch's. A fault with no such
// form is a placement rule instead (openvino_facts::converter_fault).
#pragma once

#include <string>
#include <vector>

#include "openvino/core/model.hpp"

namespace pt2ov::lower {

// One rewrite made: the fact it avoids and the op it changed (its friendly name).
struct Workaround {
    std::string fact;
    std::string op;
};

// Applies every rewrite to `model` in place; returns what it changed (for tests and reports).
//  - AbsOfFoldedConstantRankOne, AbsOfConcatRankOne: every Abs of rank 1 (or unknown rank) is
//    computed as Squeeze(Abs(Unsqueeze(x, 0)), 0), at rank 2, which the plugin gets right;
//  - InterpolateToSizeOneAtOrigin: an Interpolate in a linear or cubic mode with PyTorch's
//    half-pixel coordinates takes the plain half-pixel ones, the same formula for every output
//    length but 1, where it gives what PyTorch gives (the plugin samples index 0 there);
//  - DilatedUnitKernelCrash: a convolution dilated along a dim where its kernel has size 1
//    (where dilation changes nothing) is given dilation 1 there.
//  - TransposeOfUnitDimsAfterReduce: a Transpose of a static shape that moves only dims of
//    size 1 (the data keeps its order) becomes a Reshape to its output shape;
//  - ReshapeBroadcastRankLost: an elementwise op whose non-constant operand has a lower rank
//    than its result gets that operand's leading dims of 1 explicitly (an Unsqueeze);
//  - ReshapeAfterReduceLost: a Reduce without keep_dims of static shapes whose result feeds a
//    Reshape, Transpose, Squeeze or Unsqueeze is computed with keep_dims, then reshaped to its
//    own result shape;
//  - GroupNormWithComputedOperandCrashes: every GroupNormalization is computed as a Reshape to
//    [N, groups, -1], an MVN over the last axis (eps inside the square root) and a Reshape back,
//    then the per-channel scale and shift;
//  - ClampOfBroadcastRankLost: a constant operand of Maximum or Minimum whose dims are all 1,
//    beside an operand of the result's rank, is given as a scalar (ReshapeBroadcastRankLost no
//    longer raises an operand computed from constants alone);
//  - ReduceAxesNegativeAfterUnsqueeze: a Reduce's negative constant axes are written >= 0;
//  - TileRaisingRankUninitialised: a Tile whose repeats are longer than its input's rank gets
//    that input's leading dims of 1 explicitly (an Unsqueeze);
//  - MaxOfAllInfinite: a floating ReduceMax or MaxPool (ReduceMin) gives -inf (+inf) where the
//    same op of the indicator "x is not that infinity" is 0, unless its input cannot hold it;
//  - ReduceFusedArithmeticWrong: a Reduce whose result (directly or through reshapes) feeds an
//    elementwise op the plugin would fuse into it wrongly (integer: any unary arithmetic, or binary
//    arithmetic with a constant; floating: binary arithmetic with a constant of more than one
//    element, or a chain of unary and scalar arithmetic ending as a constant's divisor) reaches
//    its users through Maximum(r, r), the same values, which the plugin does not fuse. An RMS
//    norm's reduction (x * rsqrt(mean(x^2, -1) + eps), each op read by the next alone) is left
//    bare and marked instead: the plugin fuses the whole norm into one RMS node, leaving no Reduce
//    to fuse arithmetic into, and whether it did is checked on the compiled model
//    (expected_fusions_missed below).
//  - HardSigmoidSaturatesBelowOne: every floating HSigmoid, and the decomposed form
//    min(max(x + 3, 0), 6) / 6 the plugin would fuse into one, is written as Clamp((x + 3) / 6, 0, 1),
//    PyTorch's values (the plugin's HSigmoid saturates at 0.99999994, and it fuses PyTorch's own
//    order of the ops back into one).
//  - MeanOfEqualValuesRounded: the input of every floating MVN that normalizes the variance is
//    shifted by each row's first element (MVN is the same; a row of equal values becomes exact
//    zeros).
//  - ConstantOverFusedOpReversed: a Divide whose dividend is made of Constants and Parameters
//    (a buffer, which a load may make a Constant) broadcast over its divisor, and whose divisor
//    is computed by an op the plugin gives post-ops to (MVN, a convolution, MatMul, Interpolate,
//    NormalizeL2, a Reduce not already barred or left to the RMS fusion), directly or through
//    elementwise ops and reshapes, reads its divisor through Maximum(y, y), the same values, so
//    that the plugin cannot fuse the Divide into that op, where it divides the wrong way round.
//  - AttentionMaskedRowsNaN: every ScaledDotProductAttention that reads a mask gives 0 for the
//    query rows whose mask keeps no key (PyTorch's value; the plugin's is NaN), by a Select
//    against the mask reduced by logical or over the keys.
//  - GroupedMatMulRowsPastLastOffsetRefused: every GroupedMatMul of a 2-D input and 3-D weights
//    gets its offsets clamped to the rows with the last one the row count, and its rows past the
//    real last offset selected against 0.
std::vector<Workaround> work_around_plugin_faults(ov::Model& model);

// Whether work_around_plugin_faults left a reduction to a fusion of the plugin's.
bool expects_fusions(const ov::Model& model);
// The friendly names of the reductions work_around_plugin_faults left to the plugin's RMS fusion
// that `compiled` (the plugin's runtime model of `model`) did not fuse: each must run in no node
// of the compiled model, and an RMS node must run the ops after it. Empty when all were fused.
std::vector<std::string> expected_fusions_missed(const ov::Model& model, const ov::Model& compiled);
// Puts the ReduceFusedArithmeticWrong barrier after every reduction left to a fusion (for a
// compile that did not fuse them, or a model compiled where nothing checks); returns how many.
size_t bar_expected_fusions(ov::Model& model);

}  // namespace pt2ov::lower
