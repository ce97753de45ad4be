#include "lower/openvino_facts.h"

#include <cstdlib>

#include <algorithm>
#include <map>
#include <set>

#include "common/error.h"
#include "graph/schema.h"

namespace pt2ov::lower::openvino_facts {

using graph::in_any_family;
using graph::is_one_of;
using graph::op_family;
using graph::op_id;
using graph::OpId;

const std::vector<Fact>& all() {
    static const std::vector<Fact> facts = {
        {"ResultThatIsItsInput", "2026.4.1",
         "a Result fed straight by a Parameter, bound after the input, is not written, and the input is overwritten "
         "with the output buffer's old contents",
         "results that are a step's own inputs or constants, or repeat another result, are taken out of the model "
         "and made by pt2ov (a bit-exact copy where the program returns a copy)"},
        {"ArenaPerCompiledModel", "2026.4.1",
         "the CPU plugin infers each compiled model in a TBB arena of its own, and a thread that goes from one "
         "arena to the next on every call (a method of several OpenVINO steps) leaves oneTBB's task proxies "
         "behind in the arenas' mailboxes, kept in its pool: RSS grew by up to 25 MB over 55,000 calls; with "
         "EXCLUSIVE_ASYNC_REQUESTS the plugin infers in the calling thread's arena instead",
         "under the latency hint on the CPU device every step is compiled with EXCLUSIVE_ASYNC_REQUESTS and each "
         "call runs in one arena of its call context, as wide as the plugin's inference threads, made anew every "
         "256 calls (which frees proxies a worker thread kept away from its slot left in the old one)"},
        {"CompiledResultFoldedIntoInput", "2026.4.1",
         "compile_model may fold a no-op Convert or Reshape so that a Result reads a Parameter directly; with a "
         "dynamic dim the plugin then keeps the input memory it was given as that output's and writes the next "
         "call's input into it",
         "the compiled runtime model is checked for such results; they are taken out, the step compiled again "
         "without them, and pt2ov makes them from the input"},
        {"Int64BeyondThirtyTwoBits", "2026.4.1", "the CPU plugin computes int64 in 32 bits: 2**40 + 0 gives 0",
         "64-bit arithmetic runs on pt2ov's CPU kernels; an int64 tensor entering OpenVINO is checked on every call "
         "and a value beyond 32 bits stops the call naming the tensor"},
        {"Float64ComputedInThirtyTwoBits", "2026.4.1",
         "the CPU plugin computes float64 in float32: 1 + 2**-40 comes back as 1",
         "float64 arithmetic runs on pt2ov's CPU kernels"},
        {"IntegerDivisionTruncates", "2026.4.1",
         "integer floor division rounds toward zero on the CPU plugin: -9 // 4 gives -2, PyTorch gives -3",
         "integer division with rounding runs on pt2ov's CPU kernels"},
        {"IntegerDivisionOfNonNegativeExact", "2026.4.1",
         "div with rounding_mode floor or trunc (by a tensor or a number), remainder and fmod (Tensor and Scalar) "
         "of int32 and int64 dividends in [0, 2**24] by divisors in [1, 2**24], converted by the PyTorch frontend, "
         "give PyTorch's quotients and remainders exactly (floor and truncation agree on them); floor_divide "
         "reaches OpenVINO as div with rounding_mode floor, and div.Scalar_mode has no converter",
         "such a division whose operands are bounded at load within those ranges (partition/int64_ranges: "
         "index arithmetic such as roll's (arange + shift) % n) stays on OpenVINO; any other runs on pt2ov's CPU "
         "kernels"},
        {"ValueMovingOpsKeepInt64", "2026.4.1",
         "Reshape, Concat, Gather and other value-moving ops hand int64 values that fit in 32 bits through unchanged",
         "a node OpenVINO converts only to such ops stays on OpenVINO: its int64 inputs are checked on entry"},
        {"NanNotPropagated", "2026.4.1", "exp(NaN) gives inf and relu(NaN) gives 0 on the CPU plugin",
         "a known limit: NaN inputs to such ops on OpenVINO do not give NaN"},
        {"SubnormalsInComputedOutputs", "2026.4.1",
         "the CPU plugin may flush subnormals and -0.0 in computed float outputs (its denormals optimisation); "
         "a plain x * b keeps them on 2026.4.1",
         "computed values need only be within tolerance, so either is right; copies are made by pt2ov and keep "
         "them bit for bit"},
        {"EmptyShapeBroadcastCrash", "2026.4.1",
         "compile_model on the CPU plugin dies (SIGSEGV) on a model computing Broadcast of a 0-d tensor to the empty "
         "shape (ShapeOf of a 0-d tensor, or a constant []), any element type; a (1,) tensor compiles",
         "copy_(dst, src) becomes src itself (converted and expanded to dst only where they differ), as PyTorch's "
         "functionalization makes it, so no functional aten.copy (OpenVINO's Broadcast to ShapeOf(dst)) is converted; "
         "the state matrix (tests/e2e/test_state_matrix.py) runs every 0-d buffer pattern"},
        // Converter faults (docs/EXACTNESS.md, O9): OpenVINO's PyTorch frontend converts these
        // nodes and the CPU plugin runs them, wrongly or not at all.
        {"ExpandZeroDimToEmptyCrashes", "2026.4.1",
         "expand of a 0-d tensor to [] (f32, f16, int32, bool) crashes the process (segfault) when the model is run",
         "an expand to its input's own sizes is a view of its input: pt2ov rewrites it to alias before conversion "
         "(graph/canonical_forms.cpp), so no such node reaches OpenVINO"},
        {"MatMulViewToScalarCrashes", "2026.4.1",
         "compile_model on the CPU plugin dies (SIGSEGV, in a graph-rewrite pass) on a MatMul whose result is "
         "reshaped to a 0-d tensor: torch.mm(m, m.T).view([]) for m of shape (1, 5)",
         "a view or reshape to 0-d of a matmul-family result runs on pt2ov's CPU kernel"},
        {"AbsOfRangeDropped", "2026.4.1",
         "the CPU plugin drops an Abs whose input is a Range, as if a range were never negative: "
         "abs(arange(-3, 3)) gives -3 ... 2 (f32, i32, i64)",
         "an abs of an arange (through views and reshapes) runs on pt2ov's CPU kernel"},
        {"MatMulOfEmptyUninitialised", "2026.4.1",
         "a MatMul with an operand that has no elements: over an empty contraction dim with a constant operand "
         "it returns uninitialised memory instead of zeros ((2, 0) @ constant (0, 3)); with no constant operand, "
         "or an empty constant, it fails in compile_model or infer (\"object is not initialized\")",
         "a matmul-family node (mm, bmm, addmm, matmul, linear, baddbmm, addbmm, addmv, mv, dot) with a static "
         "zero-sized dim in any tensor operand runs on pt2ov's CPU kernel"},
        {"ConstantOverReductionReversed", "2026.4.1",
         "the CPU plugin computes Divide(c, reduce(x)) as reduce(x) / c when the frontend marks the Divide as "
         "true division and the reduction covers dim 0 and every dim after dim 1 (or all dims): "
         "ones(1, 3, 1) / x.sum([0, 2], keepdim=True) gives the sum itself",
         "a division whose divisor is a reduction (sum, mean, max, min, prod, norms, var, std) runs on pt2ov's CPU "
         "kernel, whatever its dims"},
        {"ReductionOverConstantHalfZero", "2026.4.1",
         "the CPU plugin computes Divide(reduce(x), c), c a constant, with zeros in place of every result after the "
         "first slice of dim 0 when x has 3 dims and the reduction covers dim 1 (alone or with dim 2; or dim 2 when "
         "dim 1 has size 1): x.sum(1) / 2 for x of shape (2, 4, 5) gives x[0].sum(0) / 2 and then five zeros; "
         "a Multiply in its place is right",
         "a division whose dividend is a reduction (sum, mean, max, min, prod, norms, var, std) runs on pt2ov's CPU "
         "kernel, whatever its rank and dims"},
        {"SortOrderNotPyTorchs", "2026.4.1",
         "sort and argsort (converted to TopK) do not put NaN last (first when descending), and return equal values "
         "in another order than PyTorch's, also with stable=True: sort([0.5, nan, 2, 2, nan, -inf, 2, 0.5]) gives "
         "[nan, 2, 2, nan, -inf, 2, 0.5, 0.5]",
         "every sort and argsort runs on pt2ov's CPU kernel (PyTorch's comparators and algorithms)"},
        {"TopkOrderNotPyTorchs", "2026.4.1",
         "topk (TopK) returns other indices than PyTorch among equal values (48 of 50 tie-heavy int32 rows, 45 of "
         "50 float32 rows differ) and does not take NaN as the largest value: the top 2 of [1, nan, 3, 2] come "
         "back as [1, nan], PyTorch [nan, 3]",
         "every topk runs on pt2ov's CPU kernel (PyTorch's algorithms and comparator)"},
        {"GroupedMatMulRowsPastLastOffsetRefused", "2026.4.1",
         "GroupedMatMul (the CPU plugin's GatherMatmul) raises 'Invalid gather_id' for the rows past its last "
         "offset, which transformers' grouped product leaves 0, and multiplies rows past an offset beyond the "
         "rows by no expert PyTorch would",
         "every offset OpenVINO gets is clamped to the rows and the last is the row count, so every row has an "
         "expert; the rows past the real last offset are then selected against 0"},
        {"GroupedMatMulOffsetsMustRise", "2026.4.1",
         "GroupedMatMul gives each row the expert a sorted search of the offsets finds: offsets that fall ([1, 4, "
         "2] of 5 rows) give rows other experts than transformers' loop of slices (row 4 is 0 there)",
         "transformers' grouped_mm_fallback goes to OpenVINO only where its offsets are a cumsum of histc's counts "
         "(never negative, so the sums rise), as transformers computes them; any other runs on pt2ov's CPU kernel"},
        {"HalfIntermediatesKeptInFloat", "2026.4.1",
         "the CPU plugin computes a float16 model in float32 and rounds only what leaves the model; a Convert to "
         "f16 and back inside it is removed: exp(12) in float16 is inf in PyTorch (float16 ends at 65504) but "
         "162754.8 inside an OpenVINO step, so log1p(exp(12)) comes back 12 where PyTorch gives inf",
         "a float16 exp, exp2, expm1, sinh, cosh or pow (the ops whose finite inputs overflow float16) runs on "
         "pt2ov's CPU kernel, which rounds its result to float16 as PyTorch does; so does 16-bit arithmetic "
         "(add, sub, mul, div) whose result is converted to float32 or float64, where the missing rounding is "
         "beyond the wider type's tolerance (NNCF's int4 weight decompression: 1.3e-4 off on outputs of 0.5); "
         "the rest stay within E5's tolerance of their 16-bit outputs"},
        {"HalfTransposedConvolutionInFloat", "2026.4.1",
         "a float16 or bfloat16 transposed convolution is computed in float32 and rounded once, while PyTorch's CPU "
         "kernel adds the overlapping contributions in the 16-bit type (col2im): about 0.5 % of float16 values "
         "differ beyond rtol 1e-2 / atol 1e-3, by up to 0.125 on values near 100",
         "such a convolution runs on pt2ov's CPU kernel, which adds in 16 bits in PyTorch's order where PyTorch's "
         "CPU kernel does"},
        {"ConvolutionOfNoChannels", "2026.4.1",
         "a convolution whose input has no channels (input [2, 0, 5, 5], weight [4, 0, 3, 3]) returns the weight's "
         "output channels ([2, 4, 3, 3]); PyTorch's CPU kernel returns none ([2, 0, 3, 3])",
         "such a convolution runs on pt2ov's CPU kernel, which returns PyTorch's shape"},
        {"OneChannelConvolutionToOneColumnWrong", "2026.4.1",
         "a 2-d or 3-d convolution of an input with one channel (groups 1) whose last spatial dim comes out of "
         "length 1 with a stride above 1 there gives wrong values: input [3, 1, 11, 3], weight [4, 1, 1, 3], "
         "stride (1, 2) was off by up to 7.4 (found by random programs, own seed 93712); conv1d, grouped and "
         "depthwise ones of the same shapes are right",
         "such a convolution runs on pt2ov's CPU kernel"},
        {"EluOfNegativeZeroPositive", "2026.4.1",
         "Elu of -0.0 is +0.0, where PyTorch's is -0.0 (its expm1 keeps the sign): equal as numbers (O7), but an "
         "atan2 after it gives pi for -pi (found by random programs, own seed 96631: atan2(elu(x), y))",
         "every floating elu runs on pt2ov's CPU kernel (ExpMinusOneCancelsNearZero's handling; until that fact, only "
         "an elu whose value reached an op that reads the sign of a zero did)"},
        {"BroadcastConcatAlongChannelsWrong", "2026.4.1",
         "a Broadcast to rank 4 or 5 whose result feeds a Concat along dim 1 made of broadcasts only (or a Tile "
         "repeating dim 1) and also another op gives a wrong Concat: x [1, 16] broadcast to [1, 1, 1, 16], "
         "concatenated with itself along dim 1 and added to x, gave values of other elements (found by random "
         "programs, NNSmith seed 100031: expand, cat and lt); the same to rank 3, along dim 0 or 2, or without the "
         "other consumer is right",
         "an expand to rank 4 or more whose result is read by a cat, repeat or tile and by another op runs on "
         "pt2ov's CPU kernel (OpenVINO then reads its result as an input, which is right)"},
        {"BucketizeNanFirst", "2026.4.1",
         "bucketize with right=False puts NaN in bucket 0; PyTorch puts it after the last boundary",
         "every bucketize with right=False runs on pt2ov's CPU kernel"},
        {"GridSamplerHalfInFloat", "2026.4.1",
         "grid_sampler (GridSample) on float16 or bfloat16 computes in float and rounds once; PyTorch rounds every "
         "step to the 16-bit type, so results differ by up to 2e-2",
         "such a grid_sampler goes to pt2ov's CPU kernel, which refuses 16-bit inputs with a message (convert "
         "them to float32)"},
        {"MishNegativeTailFlushed", "2026.4.1",
         "Mish gives -0.0 for x below about -15 where PyTorch gives -4.1e-8 at -20 and -5.3e-25 at -60, and is 4e-4 "
         "off relatively at -10: each within the absolute tolerance, but an op that orders or divides these values "
         "(a sort, a division, a log) turns them into wrong results (found by random programs, own seed 114033: "
         "rad2deg, mish, then sort's indices, 8 of 60 wrong)",
         "mish is decomposed before conversion into x * tanh(softplus(x)) as run_decompositions() writes it "
         "(graph/decompose/elementwise.cpp), which OpenVINO computes to PyTorch's values"},
        {"RepeatZeroDimUninitialised", "2026.4.1",
         "repeat (and tile) of a 0-d tensor with repeats () returns uninitialised memory",
         "a repeat by all ones that adds no dim is a copy of its input: pt2ov rewrites it to clone before conversion "
         "(graph/canonical_forms.cpp)"},
        {"SqueezeNoDimsDropsAll", "2026.4.1",
         "squeeze.dims with dims=() drops every size-1 dim ([1, 3, 1] gives [3]); PyTorch squeezes nothing",
         "a squeeze.dims that keeps the rank is a view of its input: pt2ov rewrites it to alias before conversion "
         "(graph/canonical_forms.cpp)"},
        {"VarianceCorrectionReadAsZero", "2026.4.1",
         "var.correction, var_mean.correction and std.correction with correction absent (PyTorch's default None, "
         "meaning 1) divide by N instead of N - 1: the converter reads an absent correction as 0",
         "pt2ov writes correction=1 out before conversion (graph/canonical_forms.cpp); a written-out correction "
         "converts right"},
        {"KthvalueConvertedWrongly", "2026.4.1",
         "kthvalue comes back with the wrong shape (a [5, 6] input along dim 1 gives [] or [1], PyTorch [5] or "
         "[5, 1]) and float32 indices",
         "every kthvalue runs on pt2ov's CPU kernel"},
        {"NonzeroOfZeroDimHasAColumn", "2026.4.1",
         "nonzero of a 0-d tensor gives shape (n, 1); PyTorch gives (n, 0)",
         "nonzero of a 0-d tensor runs on pt2ov's CPU kernel"},
        {"CdistOnlyEuclidean", "2026.4.1",
         "_cdist_forward is right only for p = 2: p = 0 gives inf, p = 1, 3 or 0.5 NaN where a difference is "
         "negative, p = inf a wrong maximum",
         "_cdist_forward with p other than 2 runs on pt2ov's CPU kernel"},
        {"ErfinvImprecise", "2026.4.1",
         "erfinv in float32 is off by up to 5e-3 near +-1 (erfinv(-0.999) gives -2.3218, PyTorch -2.3268)",
         "every erfinv runs on pt2ov's CPU kernel (computed in float64)"},
        {"ErfcOfLargeValuesZero", "2026.4.1",
         "erfc converts to 1 - erf(x), which is 0 in float32 from x = 4 on: erfc(4.46) gives 0 (PyTorch 2.8e-10), "
         "within the absolute tolerance, but a comparison or logical_not after it flips (own seed 52497)",
         "every floating erfc runs on pt2ov's CPU kernel"},
        {"SafeSoftmaxMaskedRowsNaN", "2026.4.1",
         "_safe_softmax of a row that is all -inf gives NaN; PyTorch gives 0 (which rows are masked is only known "
         "at run time)",
         "every _safe_softmax runs on pt2ov's CPU kernel"},
        {"AttentionMaskedRowsNaN", "2026.4.1",
         "ScaledDotProductAttention whose mask blanks a whole query row (boolean false, or -inf added, for every key: "
         "a left-padded sequence under a causal mask) gives NaN for that row; PyTorch gives 0; the next layer spreads "
         "the NaN to every position (35 decoder-LM families, all-NaN logits)",
         "compile selects 0 for the rows whose mask keeps no key (the mask reduced by logical or over the keys), "
         "after every attention that reads a mask (lower/plugin_workarounds)"},
        {"InstanceNormRunningStatsUsed", "2026.4.1",
         "instance_norm with running_mean / running_var given and use_input_stats=True normalises with wrong "
         "statistics; without running stats, or with use_input_stats=False, it is right",
         "such an instance_norm runs on pt2ov's CPU kernel, with the input's statistics"},
        {"IntegerResultDtypeKept", "2026.4.1",
         "atan2, cumsum, prod and logsumexp of integer (or bool) tensors come back in the input's dtype where "
         "PyTorch promotes: atan2 and logsumexp to float32, cumsum and prod to int64 (with dtype= given they are right)",
         "such a node runs on pt2ov's CPU kernel"},
        {"GcdSignWithZero", "2026.4.1",
         "gcd(0, -5) gives -5 and gcd(-9, 0) gives -9; PyTorch gives 5 and 9 (which operands are zero is only known "
         "at run time)",
         "every gcd runs on pt2ov's CPU kernel"},
        {"LinspaceDtypeIgnored", "2026.4.1",
         "linspace with dtype=int32 or float16 comes back float32 (int64, float32 and float64 are kept)",
         "a linspace whose dtype= is not int64, float32 or float64 runs on pt2ov's CPU kernel"},
        {"IntegerAvgPoolRounds", "2026.4.1",
         "avg_pool1d/2d/3d of an integer tensor rounds the mean (1 and 2 average to 2); PyTorch truncates it (to 1)",
         "such a node runs on pt2ov's CPU kernel (which truncates as PyTorch does)"},
        {"DynamicQuantizationOfActivations", "2026.4.1",
         "the CPU plugin quantizes the activations of a MatMul with compressed weights (an i8/u8/i4/u4 Constant, "
         "Convert, Subtract, Multiply) to int8 in groups on the fly, also under the f32 precision hint: "
         "0.5 % off eager with exit 0 on NNCF int8/int4 weight-compressed programs",
         "every step on the CPU device is compiled with DYNAMIC_QUANTIZATION_GROUP_SIZE 0"},
        {"Int8ProductsSaturateWithoutVnni", "2026.4.1",
         "on a CPU without VNNI (AVX2 only: AMD Zen 3 here), the CPU plugin's int8 kernels, which a FakeQuantize "
         "before a MatMul or Convolution selects, add pairs of u8 x s8 products in 16 bits, which saturate: a PT2E "
         "int8 linear layer 2.5 off eager, with exit 0",
         "on such a CPU the quantize-dequantize pairs compute eager's reference arithmetic in float32 (as "
         "quantized_reference), so no int8 kernel is selected"},
        {"KvCacheQuantizedByDefault", "2026.4.1",
         "where the CPU plugin fuses attention over a cache kept as state (ReadValue, Gather, Concat, "
         "ScaledDotProductAttention, Assign), it stores the cache in u8 by default, also under the f32 precision "
         "hint: 0.011 off on values within 3 after 12 steps (0.11 on random normal ones)",
         "every step on the CPU device is compiled with KV_CACHE_PRECISION set to the inference precision"},
        {"FakeQuantizeOneLevelFromReference", "2026.4.1",
         "FakeQuantize (bounds (qmin - z) * s and (qmax - z) * s, qmax - qmin + 1 levels) rounds "
         "(x - low) * levels / (high - low), not eager's x * (1 / s) + z: values within a few ulps of a rounding "
         "boundary land one level apart (a step of s); between FakeQuantizes the plugin computes convolutions "
         "and matmuls on int8 kernels, exact integer sums scaled once",
         "a quantize-dequantize pair of one per-tensor scale runs as FakeQuantize (int8 speed) within one step "
         "of eager's; --quantized-reference computes eager's reference arithmetic instead (lower/low_precision)"},
        {"TransposeOfUnitDimsAfterReduce", "2026.4.1",
         "a Transpose that moves only dims of size 1, after a Reduce without keep_dims over the leading axis, comes "
         "back with the untransposed shape: ReduceMax(x [3, 7, 1, 15, 12], 0) then Transpose [1, 0, 2, 3] gives "
         "[7, 1, 15, 12], not [1, 7, 15, 12] (ReduceSum and ReduceMean alike); the compiled model contradicts its "
         "own declared shape",
         "compile writes every Transpose of a static shape that moves only dims of size 1 as a Reshape "
         "(lower/plugin_workarounds)"},
        {"ReshapeAfterReduceLost", "2026.4.1",
         "a Reshape, Transpose or Squeeze/Unsqueeze that moves dims of size 1 right after a Reduce without keep_dims "
         "comes back with the Reduce's shape: ReduceSum(x [3, 3, 1, 4], [0, 1]) then Reshape [4, 1] gives [1, 4], "
         "[3, 4, 1] reduced over 0 then Reshape [1, 4] gives [4, 1] (ReduceMean, ReduceMin, ReduceProd, ReduceL2 alike); "
         "the compiled model contradicts its own declared shape",
         "compile computes such a Reduce with keep_dims, then a Reshape to its result shape (lower/plugin_workarounds)"},
        {"ReshapeBroadcastRankLost", "2026.4.1",
         "an elementwise op broadcasting a reshaped tensor to a higher rank against a constant of dims 1 comes back "
         "at the lower rank: Minimum(Reshape(x [1, 7, 1, 32], [224]), Constant [1, 1, 1, 1]) gives [224], not "
         "[1, 1, 1, 224] (Add, Maximum alike, int32 and f32)",
         "compile gives the lower-rank operand of every elementwise op its leading dims of 1 explicitly, unless it "
         "is computed from constants alone (lower/plugin_workarounds)"},
        {"ClampOfBroadcastRankLost", "2026.4.1",
         "Minimum(Maximum(Broadcast(x [56], [1, 56]), c), c) with constants c of shape [1, 1] (clamp of an expand "
         "that adds leading dims, with [1, 1] bounds) comes back at x's rank: [56], not [1, 56] (f32 and int32, "
         "[59] to [1, 1, 1, 59] alike); with scalar bounds it is right (found by NNSmith, seeds 32587 and 20941, where "
         "the ReshapeBroadcastRankLost rewrite had raised clip's scalar bounds to [1, 1])",
         "compile gives a constant operand of Maximum or Minimum whose dims are all 1 as a scalar when the other "
         "operand has the result's rank (lower/plugin_workarounds)"},
        {"ReduceAxesNegativeAfterUnsqueeze", "2026.4.1",
         "a Reduce with negative axes right after an Unsqueeze (or a Reshape that only adds dims of 1) reduces the "
         "wrong dims: ReduceMin(Unsqueeze(x [2, 3, 4], -1), [-3, -2]) gives [4, 1], not [2, 1] (the plugin moves the "
         "Unsqueeze after the Reduce and keeps the axes, now counted from the end of the lower-rank x; ReduceSum, "
         "ReduceMax alike; some axes make compile_model throw)",
         "compile writes every Reduce's negative constant axes as non-negative ones (lower/plugin_workarounds)"},
        {"TileRaisingRankUninitialised", "2026.4.1",
         "a Tile whose repeats are longer than its input's rank and repeat four dims or more leaves its result "
         "unwritten: Tile(x [5, 5, 2, 1], [1, 2, 2, 2, 2]) gives NaN and 1e37 for every value ([2, 2, 2, 2] with "
         "[1, 1, 2, 2, 2, 2] alike; with the input reshaped to the repeats' rank first it is right; found by the random "
         "run, own seed 31685: 2.4e38 for 1.42, exit 0)",
         "compile gives the input of such a Tile its leading dims of 1 explicitly (an Unsqueeze; "
         "lower/plugin_workarounds)"},
        {"MaxOfAllInfinite", "2026.4.1",
         "ReduceMax and MaxPool of a row or window that is all -inf give -3.4e38 (the lowest finite float), PyTorch -inf; "
         "ReduceMin of all +inf gives 3.4e38 (f32; f16 is right; found by NNSmith, seed 20374: a max_pool2d of x / 0)",
         "compile selects the infinity where the same Reduce or MaxPool of an indicator (x is not that infinity) is 0, "
         "unless the input is a Relu, Sigmoid, Exp, ... that cannot hold it (lower/plugin_workarounds)"},
        {"Atan2OfNegativeZero", "2026.4.1",
         "atan2(-0.0, x) for x < 0 gives +pi; PyTorch gives -pi (which values are -0.0 is only known at run time: "
         "a truncated division, a product with 0 of a negative number)",
         "every floating atan2 runs on pt2ov's CPU kernel"},
        {"FloatRemainderOfLargeValuesWrong", "2026.4.1",
         "a floating remainder (FloorMod) of values beyond 2**24: remainder(1.094e18, 3) gives -6.87e10, "
         "remainder(2**40, 3) 0 (PyTorch 1, an exact fmod), exit 0, OpenVINO alone too (found by the large "
         "structured inputs of random programs, own seeds 106 and 138)",
         "every floating remainder runs on pt2ov's CPU kernel"},
        {"Int32ReducedInFloat", "2026.4.1",
         "a reduction of int32 values (amax, amin, max/min over a dim, sum, prod, argmax/argmin) is computed in "
         "float32: amax of 16777217 gives 16777216, of 2147483646 -2147483648, sum of [2147483646, 1, "
         "-2147483646] 0 (PyTorch 1), exit 0, OpenVINO alone too (found by the int_edge structured inputs); "
         "int64 is right",
         "every reduction of an int32 tensor runs on pt2ov's CPU kernels"},
        {"FmodOfConstantDrifts", "2026.4.1",
         "a floating Mod (what fmod converts to) of a Constant dividend changes that constant on every call: "
         "Mod(Constant, -2.5) + x gives the right values on the first call, others on the next (found by the "
         "random run, own seed 13218: fmod of a parameter, then layer_norm, gave -1e11 for -1.5, exit 0)",
         "every floating fmod runs on pt2ov's CPU kernel (a dividend computed from constants is one too after "
         "OpenVINO folds it)"},
        {"TruncDivisionLosesSignOfZero", "2026.4.1",
         "a floating div with rounding_mode='trunc' gives +0.0 where PyTorch gives -0.0 (-0.3 // 2, -0.0 // 2); equal "
         "as numbers, but an op reading the sign of a zero after it (atan2, copysign, signbit, a division by it) "
         "then gives another value",
         "every floating trunc division runs on pt2ov's CPU kernel"},
        {"FloorDivisionOfRoundedQuotient", "2026.4.1",
         "a floating div with rounding_mode='floor' is floor(a / b) of the rounded quotient, where PyTorch (as "
         "Python) takes (a - fmod(a, b)) / b and steps down when the remainder's sign differs from b's: 1 // 0.1 "
         "gives 10 (PyTorch 9, 0.1 being a little more than a tenth in float32), -1e-30 // 1e30 gives 0 (the "
         "quotient underflows to -0; PyTorch -1); exit 0 (found by the `small` structured inputs, own seed 140687)",
         "every floating floor division (div with rounding_mode='floor', floor_divide, //) runs on pt2ov's CPU "
         "kernel, which computes it as PyTorch does"},
        {"RepeatInterleaveOfZeroCrashes", "2026.4.1",
         "repeat_interleave with repeats 0 (an int: x.repeat_interleave(0, dim=2), an empty result) kills the "
         "process with SIGFPE in the CPU plugin when compiled (an integer division by the repeat count), at load",
         "every repeat_interleave.self_int whose repeats is 0 runs on pt2ov's CPU kernel (an empty tensor)"},
        {"NearestDownscaleIndexRoundsDown", "2026.4.1",
         "nearest Interpolate (asymmetric coordinates, floor) divides by the float32 ratio out/in instead of "
         "multiplying by in/out as PyTorch does, so an exact source index can floor to the one before: 56 columns "
         "to 2 take columns 0 and 27, PyTorch 0 and 28",
         "an upsample_nearest1d/2d/3d that shrinks a dim (or whose sizes are known only at run time) runs on "
         "pt2ov's CPU kernel"},
        {"LinearInterpolateCoordinateRounded", "2026.4.1",
         "linear and cubic Interpolate compute a source coordinate as (x + 0.5) / r - 0.5 with r the float32 ratio "
         "out/in (or the scale), where PyTorch multiplies by its float32 ratio in/out (or 1 / scale); unless the "
         "ratio is a power of two the two round apart by an ulp of the coordinate, and a sample PyTorch takes from "
         "one source element mixes in its neighbours with weights near 1e-7, an error of 1e-7 times their size: "
         "upsample_bicubic2d of one row [-10.3, 0.298, -207, 0.184, 13.7, 5.21, 9.67] to 1x1 gave 0.183925 where "
         "PyTorch gives 0.183977 (NNSmith seed 84621)",
         "an upsample_linear1d/bilinear2d/bicubic2d/trilinear3d whose ratio in some resized dim is not a power "
         "of two (with align_corners, (in - 1) / (out - 1)), or is known only at run time, runs on pt2ov's CPU "
         "kernel"},
        {"AbsOfFoldedConstantRankOne", "2026.4.1",
         "a rank-1 Abs whose input is a constant expression the plugin folds (Multiply, Sin, ... of a Constant) "
         "comes back without the abs: |[-0.5, 2, -3] * 2| gives [-1, 4, -6] (f32, f16, i32); at rank 0, 2 or more, "
         "or of a Constant itself, it is right",
         "compile computes every rank-1 Abs at rank 2, as Squeeze(Abs(Unsqueeze(x, 0)), 0) (lower/plugin_workarounds)"},
        {"AbsOfConcatRankOne", "2026.4.1",
         "a rank-1 Abs of a Concat writes |x| into the Concat's memory, so the Concat's other users (and the "
         "Concat returned) read absolute values: cat([x, c]) + 1 with c = [0.5, -0.25] gives 1.25 for 0.75; at "
         "rank 2 or more it is right",
         "compile computes every rank-1 Abs at rank 2, as Squeeze(Abs(Unsqueeze(x, 0)), 0) (lower/plugin_workarounds)"},
        {"InterpolateToSizeOneAtOrigin", "2026.4.1",
         "Interpolate in linear, linear_onnx or cubic mode with pytorch_half_pixel coordinates (what the frontend "
         "makes of upsample_linear1d/bilinear2d/bicubic2d/trilinear3d with align_corners=False) samples source "
         "coordinate 0 for an output axis of length 1; PyTorch samples the middle: [1, 2] to size 1 gives 1, "
         "PyTorch 1.5",
         "compile gives such an Interpolate half_pixel coordinates, the same formula for every other output length "
         "(lower/plugin_workarounds)"},
        {"InterpolateOfConstantsFoldedAtOrigin", "2026.4.1",
         "the PyTorch frontend folds an Interpolate whose input is computed from constants alone while it converts "
         "(OpenVINO's reference implementation, before any rewrite of pt2ov's can reach it), and the fold is wrong "
         "for some shapes with an output of size 1: upsample_trilinear3d of tan(parameter) [1, 13, 1, 4, 1] to "
         "(1, 1, 1) gave 0.36 where PyTorch gives -42.3 (NNSmith seed 70759); the same of a user input is right "
         "with InterpolateToSizeOneAtOrigin's rewrite",
         "such an upsample (linear, bilinear, bicubic or trilinear, align_corners=False) to an output of size 1 in "
         "some spatial dim, its input computed from the program's parameters, buffers and constants alone, runs on "
         "pt2ov's CPU kernel"},
        {"ErfOfTinyValuesInexact", "2026.4.1",
         "Erf of small inputs is inexact on the CPU plugin: erf(8.5e-8) gives 0 (PyTorch 9.6e-8), erf(1e-4) "
         "1.12889e-4 (PyTorch 1.12838e-4); within the absolute tolerance, but sqrt(erf(x * x)) then gave 0 where "
         "PyTorch gives 3.3e-4 (own seed 85058)",
         "every floating erf runs on pt2ov's CPU kernel (gelu converts to OpenVINO's Gelu, not to Erf, and stays)"},
        {"HardSigmoidSaturatesBelowOne", "2026.4.1",
         "HSigmoid (the frontend's hardsigmoid) of an input of 3 or more gives 0.99999994 where PyTorch's "
         "min(max(x + 3, 0), 6) / 6 is exactly 1: within the tolerance, but remainder(hardsigmoid(n), 0.25) then gave "
         "0.25 for 0 and its bool True (own seed 81905)",
         "compile writes every floating HSigmoid, and every min(max(x + 3, 0), 6) / 6 of the decomposed form, as "
         "Clamp((x + 3) / 6, 0, 1), PyTorch's values (its own order, "
         "min(max(x + 3, 0), 6) / 6, the plugin fuses back into HSigmoid) (lower/plugin_workarounds)"},
        {"DilatedUnitKernelCrash", "2026.4.1",
         "compile_model or inference on the CPU plugin dies (SIGSEGV) on a Convolution with stride 2 dilated along "
         "a dim where the kernel has size 1, with its bias added: Conv2d(6, 2, (3, 1), stride=2, padding=1, "
         "dilation=(1, 2)) on a [2, 6, 1, 1] input",
         "compile sets the dilation to 1 along every kernel dim of size 1, where it moves no tap "
         "(lower/plugin_workarounds)"},
        {"DilatedStridedConvPaddedBeyondInputCrash", "2026.4.1",
         "inference on the CPU plugin dies (SIGSEGV) on a Convolution with its bias added whose dilation and "
         "stride are above 1 and whose padding is far beyond its input along a dim where the kernel is above 1: "
         "1-d, kernel 2, dilation 2 to 8, stride 2 or 3, padding 16 to 100 on an input of length 1 (NNSmith seed "
         "114787: a reflect pad to length 1, then Conv1d(64, 1, 2, stride=2, padding=65, dilation=4)); 2-d, "
         "kernel (1, 2), stride 38, padding 255, dilation (1, 56) on a [20, 4, 14, 3] input (NNSmith seed "
         "147693); neighbours of both run (length 2 to 4, a kernel of 1, no dilation, stride 1; in 2-d "
         "stride 2 to 16 or dilation 2 to 8)",
         "a forward convolution with, along some dim, a kernel above 1, dilation and stride above 1 and padding "
         "beyond the input's size (or a size unknown until run time) runs on pt2ov's CPU kernel"},
        {"GroupNormWithComputedOperandCrashes", "2026.4.1",
         "inference on the CPU plugin dies (SIGSEGV) when a GroupNormalization's result meets another computed "
         "tensor in a binary elementwise op: GroupNormalization(x, 6 groups) + Sigmoid(y) on [1, 6, 5], also "
         "GN * Relu(y), at every shape and group count tried (with SNIPPETS_MODE DISABLE it runs: the fault is "
         "in the plugin's snippets kernel for GroupNormalization)",
         "compile writes every GroupNormalization as Reshape to [N, groups, -1], MVN over the last axis, Reshape "
         "back, then the per-channel scale and shift (lower/plugin_workarounds)"},
        {"ConstantOpWithoutEvaluateDrifts", "2026.4.1",
         "an op computed from constants alone that OpenVINO cannot fold (no evaluate(): AvgPool, Convolution, "
         "GroupConvolution, ConvolutionBackpropData, AdaptiveAvgPool, Mod) is computed once by the CPU plugin and "
         "kept; an Add or Multiply by an input fused after it writes into that memory, so each call changes it: "
         "AvgPool(Constant) * 0.7 gave 209, 146, 102 on three calls (own seed 13218's fmod, NNSmith seed 41573's "
         "avg_pool2d of a parameter)",
         "pt2ov computes such ops at load, on the CPU plugin in one model, and gives the converted model their "
         "values as Constants (lower/constant_precompute)"},
        {"HalfConstantArithmeticInFloat", "2026.4.1",
         "float16/bfloat16 arithmetic computed from constants alone (NNCF's compressed weights: an int8 or int4 "
         "weight converted to float16 and multiplied by a float16 scale, then converted to float32) is kept by the "
         "CPU plugin as a decompression it computes in float32 without rounding the product to float16: a linear "
         "layer of such weights came back 3.7e-4 off relatively (2e-4 on outputs of 0.5), exit 0",
         "pt2ov computes such ops at load with OpenVINO's own evaluate(), which rounds each element in the op's "
         "type as PyTorch does, and gives the model their values as Constants (lower/constant_precompute)"},
        {"ConstantOverFusedOpReversed", "2026.4.1",
         "the CPU plugin fuses a Divide (kept a true division, as the frontend keeps aten.div's) whose divisor is "
         "computed by MVN, a convolution (grouped and transposed too), MatMul, Interpolate, NormalizeL2 or a Reduce, "
         "directly or after arithmetic and activations fused into it, into that op as a post-op, and where the "
         "dividend is a constant of one element or one per channel it divides the wrong way round: "
         "c / (instance_norm(x, w, b) + 5) gave (instance_norm(x, w, b) + 5) / c, 5.2 off, exit 0 (issue 43; a "
         "buffer is a Parameter when the step is converted and a Constant once a load makes it one, so the fault "
         "appears at load only); Subtract, Power, FloorMod and Mod of such a constant by such a result are right, "
         "and so are a dividend of the divisor's full shape or computed at run time, and pooling",
         "compile hands every Divide whose divisor comes from such an op (through elementwise ops and reshapes) "
         "and whose dividend, made of constants and inputs (a buffer the load may make a constant), is broadcast "
         "over the divisor its divisor through Maximum(y, y), the same values, which the plugin fuses into no "
         "such op: the Divide is computed in an elementwise node, the right way round (lower/plugin_workarounds)"},
        {"MeanOfEqualValuesRounded", "2026.4.1",
         "MVN (what layer_norm, instance_norm and group_norm become) computes the mean of a row of equal values "
         "with a rounding, which the division by sqrt(var + eps) magnifies: layer_norm of six times -0.6059 with "
         "eps 1e-5 gives 1.9e-5 (times the weight) where PyTorch gives exactly 0 (own seeds 50839, 51161: "
         "5.6e-5 off, beyond E5)",
         "compile shifts the input of every floating MVN by each row's first element, which leaves MVN the same "
         "and makes a row of equal values exact zeros (lower/plugin_workarounds)"},
        {"UnitConvolutionStridedPaddedShape", "2026.4.1",
         "a convolution whose kernel is 1 in every spatial dim, with a stride above 1 and padding above 0, after "
         "an activation, comes back with the wrong shape: Conv2d(4, 4, 1, stride=2, padding=1)(relu(x)) on "
         "[1, 4, 5, 5] gives [1, 4, 5, 5], not [1, 4, 4, 4] (an explicit Pad before it is folded into it alike)",
         "such a convolution (with or without an activation before it) runs on pt2ov's CPU kernel"},
        {"AvgPoolCeilPaddedDivisor", "2026.4.1",
         "avg_pool with ceil_mode=True, count_include_pad=True and padding divides a last window that runs past "
         "the padded input by the whole kernel size; PyTorch divides by the part inside input plus padding: "
         "avg_pool2d(ones(1, 1, 1, 4), (1, 3), (1, 2), (0, 1), ceil_mode=True) gives [0.667, 1, 0.333], "
         "PyTorch [0.667, 1, 0.5]",
         "such an avg_pool2d/3d (and avg_pool1d, which pt2ov computes as avg_pool2d) runs on pt2ov's CPU kernel"},
        {"ByteArithmeticSaturates", "2026.4.1",
         "Add, Subtract and Multiply (and Negative, a Multiply by -1) of uint8 or int8 saturate on the CPU plugin where PyTorch wraps modulo 256: "
         "uint8 0 - 1 gives 0 (PyTorch 255), 254 * 4 gives 255 (PyTorch 248), int8 120 + 10 gives 127 (PyTorch -126)",
         "every add, sub, rsub, mul and neg with an uint8 or int8 result runs on pt2ov's CPU kernel, which wraps "
         "(neg converts to a Multiply by -1, which saturates alike: uint8 -255 gave 255, PyTorch 1; NNSmith seed 32596); "
         "so do the 8-bit matrix products (mm, bmm, matmul, addmm, baddbmm, addbmm, mv, addmv, dot, linear): a uint8 "
         "MatMul of [[200, 100, 3]] by [[2], [2], [1]] gave 255, PyTorch 91 (NNSmith seed 50694)"},
        {"IntegerProductsInFloat", "2026.4.1",
         "MatMul of int16 or int32 is computed in float32 and converted back saturating: an int32 dot of five "
         "-2**31 gives 2147483520 (PyTorch 0, wrapping), [[46341, 2]] @ [[46341], [1]] gives 2147483520 (PyTorch "
         "-2147479013), products beyond 2**24 lose their low bits (16916240 for 16916240 happens to hold, 50331652 "
         "for 50331654 does not); int16 alike; exit 0, OpenVINO alone too (found by the `large` structured inputs: "
         "NNSmith seed 140735, a float cast to int32 and multiplied by itself)",
         "every matrix product (mm, bmm, matmul, addmm, baddbmm, addbmm, mv, addmv, dot, linear) with an int16 or "
         "int32 result runs on pt2ov's CPU kernel, which accumulates in the result's type and wraps as PyTorch does"},
        {"ExpMinusOneCancelsNearZero", "2026.4.1",
         "expm1 and Elu (so selu and celu, which pt2ov writes as elu) compute exp(x) - 1 in float32, which cancels "
         "near zero: elu(-1e-10) and expm1(-1e-10) give 0 (PyTorch -1e-10), elu(-1e-6) gives -1.0133e-06 for "
         "-9.99999e-07 (1.3 % off), expm1(1e-30) gives 0; a sign or floor after it reads 0 for -1 (found by random "
         "programs on magnitudes near 1e-30: own seeds 141137, 140752)",
         "every floating expm1 and elu runs on pt2ov's CPU kernel (std::expm1)"},
        {"Log1pCancelsNearZero", "2026.4.1",
         "log1p converts to Log(1 + x) in float32, which cancels for small x: log1p(1e-7) gives 1.19e-07 (19 % off), "
         "log1p(3.7e-5) 3.6954e-05 for 3.6999e-05; softplus (decomposed to log1p(exp(x))) of -10.2 alike; within the "
         "absolute tolerance, but a sort or comparison after it reads the order of such values",
         "every floating log1p runs on pt2ov's CPU kernel"},
        {"ReduceFusedArithmeticWrong", "2026.4.1",
         "an elementwise op the CPU plugin fuses into the Reduce before it comes back wrong: integer (int32, int8, "
         "uint8) ReduceMin/Max/Sum/Prod/Mean of [30, 2, 3] over dim 2, then Negative (or Add, Subtract, Multiply "
         "by a constant), is right only in its first elements (0 for 2 from the fifth on, NNSmith seed 31491: "
         "neg(min(x, 2)) of int32); a float32 ReduceSum of [2, 4, 4] over dim 2, then Multiply (Add, Subtract, "
         "Divide) by a Constant [4], gives the sums unscaled or scaled by the wrong element (own seed 32074: "
         "sum(x, 2) * mask, the mask not applied); a constant divided by a full floating reduction, or by scalar "
         "arithmetic fused after it, is fused as the reduction divided by the constant: 1 / (sum(|x|) * 0.1) gave "
         "sum(|x|) * 0.1 (own seed 81133: 1 // x.std()); a floating reduction through Unsqueeze and Squeeze divided "
         "by a constant (a true division, as the frontend keeps it) and added to x is lost past the first row "
         "(own seed 95145: addcdiv(x, adaptive_avg_pool1d(x, 1), b) gave x)",
         "compile routes such a Reduce's result to its users through Maximum(r, r), the same values, which the "
         "plugin does not fuse (lower/plugin_workarounds): for integers before any unary arithmetic or binary "
         "arithmetic with a constant, for floats before binary arithmetic with a constant of more than one element "
         "and before a chain of fused unary and scalar arithmetic that ends in a Divide by or of a constant (a ShapeOf of a "
         "static value and a ConvertLike's type operand count as constants, as the plugin folds them); an RMS norm's "
         "reduction (x * rsqrt(mean(x^2, -1) + eps), its last dim of known size) is left bare for the plugin to fuse "
         "the whole norm into one RMS node, and the compiled model is checked for that: where the norm was not fused, "
         "the step is compiled again with the barrier"},
        {"FloatToInt64CutTo32Bits", "2026.4.1",
         "Convert from a floating type to int64 goes through int32 on the CPU plugin: 3e9 gives -2**31 (PyTorch "
         "3000000000), and inf, -inf, NaN give -2**31 where PyTorch on x86 gives -2**63 (NNSmith seed 30589: "
         "(x / 0).to(int64))",
         "every cast (_to_copy, to, convert_element_type) from a floating dtype to int64 runs on pt2ov's CPU "
         "kernel; what it makes is int64 that may exceed 32 bits, so its readers follow Int64BeyondThirtyTwoBits"},
        {"NarrowingConversionFolded", "2026.4.1",
         "two Converts in a row, the first narrowing to an integer type, are folded into one on the CPU plugin, "
         "which loses the first one's wrap: x.to(int16).to(int32) of 70000 gives 70000 (PyTorch 4464), the same "
         "from float32 to float32, and (1e10).to(int32).to(bool) gives False (PyTorch's int32 is -2**31: True); "
         "found by the `large` structured inputs (NNSmith seeds 147184, 147556, 148882, 148950); the logical ops "
         "begin with a Convert to bool and lose it the same way (logical_not of (1e10).to(int32), own seed 153432); "
         "and int16 values are held as int32, so a conversion to int16 wraps only where the value leaves the step "
         "(x.to(int16) * 0.5 of 70000 gives 35000, PyTorch 2232); casts to int8 and uint8 keep their wrap (300.0 "
         "to int8 and back is 44, as in PyTorch)",
         "a conversion to int16 from a floating type or a wider integer runs on pt2ov's CPU kernel (its value "
         "enters OpenVINO wrapped), and so does a cast or a logical op (not, and, or, xor) that reads a value a "
         "conversion to int32 made"},
        {"IntegerPowerComputedInFloat", "2026.4.1",
         "Power of integer tensors is computed in float32 on the CPU plugin: an int32 83 ** 4 gives 47458320 "
         "(PyTorch 47458321), every power beyond 2**24 loses its low bits (own seed 60017: pow(stack(x, x), 4))",
         "every pow (Tensor_Scalar, Tensor_Tensor, Scalar) with an integer result runs on pt2ov's CPU kernel, "
         "which multiplies by squaring and wraps as PyTorch does"},
        {"ShiftCountWraps", "2026.4.1",
         "BitwiseLeftShift takes the shift count modulo 32 and computes int64 in 32 bits: 5 << 40 gives 1280 and "
         "5 << -1 gives -2**31 in int32, where PyTorch gives 0 for a count that is negative or at least the "
         "type's width (and 1 << 40 in int64 is 2**40); the frontend converts bitwise_left_shift.Tensor to it",
         "every bit shift (bitwise_left_shift, bitwise_right_shift, << and >>, each overload) runs on pt2ov's CPU "
         "kernel, which follows PyTorch's definition"},
    };
    return facts;
}

const Fact& fact(std::string_view name) {
    const auto& facts = all();
    auto it = std::find_if(facts.begin(), facts.end(), [&](const Fact& f) { return f.name == name; });
    if (it == facts.end()) throw InternalError("no OpenVINO fact named '" + std::string(name) + "'");
    return *it;
}

bool computes_in_32_bits(DType dtype) { return dtype == DType::Int64 || dtype == DType::Float64; }

bool rounds_integer_division_wrong(graph::OpId op, DType result_dtype) {
    const bool division = is_one_of(op, {op_id("aten.div.Tensor_mode"), op_id("aten.div.Scalar_mode"),
                                         op_id("aten.floor_divide.default"), op_id("aten.remainder.Tensor"),
                                         op_id("aten.remainder.Scalar"), op_id("aten.fmod.Tensor"), op_id("aten.fmod.Scalar")});
    return division && !dtype_is_floating(result_dtype) && result_dtype != DType::Bool;
}

bool integer_division_exact(int64_t dividend_min, int64_t dividend_max, int64_t divisor_min, int64_t divisor_max) {
    return dividend_min >= 0 && dividend_max <= kExactDivisionMax && divisor_min >= 1 && divisor_max <= kExactDivisionMax;
}

bool only_moves_values(const std::set<std::string>& openvino_op_types) {
    static const std::set<std::string> moving = {
        "Reshape", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Gather", "GatherElements", "GatherND",
        "Slice", "StridedSlice", "Broadcast", "Tile", "Split", "VariadicSplit", "ShapeOf", "Constant",
        "Select", "Reverse", "Roll", "Pad"};
    return std::all_of(openvino_op_types.begin(), openvino_op_types.end(),
                       [](const std::string& type) { return moving.count(type) > 0; });
}

namespace {

using ArgKind = graph::Argument::Kind;

size_t rank_of(const graph::Graph& graph, const graph::Argument& arg) {
    return arg.kind == ArgKind::Tensor ? graph.value(arg.name).meta.rank() : 0;
}

double number_of(const graph::Argument& arg, double fallback) {
    if (arg.kind == ArgKind::Float) return arg.float_value;
    if (arg.kind == ArgKind::Int) return static_cast<double>(arg.int_value);
    return fallback;
}

}  // namespace

namespace {

// The node that produces tensor argument `arg`; null for a graph input.
const graph::Node* producer_node(const graph::Graph& graph, const graph::Argument& arg) {
    if (arg.kind != ArgKind::Tensor) return nullptr;
    const auto* value = graph.find_value(arg.name);
    if (!value || value->producer < 0 || static_cast<size_t>(value->producer) >= graph.nodes.size()) return nullptr;
    return &graph.nodes[static_cast<size_t>(value->producer)];
}

// The op of the node that produces tensor argument `arg`; unknown for a graph input.
OpId producer_op(const graph::Graph& graph, const graph::Argument& arg) {
    const graph::Node* producer = producer_node(graph, arg);
    return producer ? producer->op : OpId::Unknown;
}

// Every spelling of a dtype conversion in the archive's two forms.
bool is_cast_op(OpId op) {
    return is_one_of(op, {op_id("aten._to_copy.default"), op_id("aten.to.dtype"), op_id("aten.to.dtype_layout"),
                          op_id("aten.to.other"), op_id("aten.type_as.default"),
                          op_id("prims.convert_element_type.default")});
}

// The op behind `arg` once views and reshapes are looked through (the MatMul or Range they
// move unchanged is what the CPU plugin's rewrites see).
OpId matmul_source_op(const graph::Graph& graph, graph::Argument arg) {
    for (int hops = 0; hops < 16; ++hops) {
        const graph::Node* found = producer_node(graph, arg);
        if (!found) return OpId::Unknown;
        const graph::Node& producer = *found;
        const bool moves = is_one_of(producer.op, {op_id("aten.view.default"), op_id("aten._unsafe_view.default"),
                                                   op_id("aten.reshape.default"), op_id("aten.permute.default"),
                                                   op_id("aten.squeeze.dims"), op_id("aten.squeeze.dim"),
                                                   op_id("aten.squeeze.default"), op_id("aten.unsqueeze.default"),
                                                   op_id("aten.alias.default"), op_id("aten.clone.default"),
                                                   op_id("aten.transpose.int")});
        if (!moves || producer.arity() == 0) return producer.op;
        arg = producer.arg(0);
    }
    return OpId::Unknown;
}

// The linear and cubic upsamples (each overload).
bool linear_or_cubic_upsample(OpId op, bool antialiased_too) {
    return in_any_family(op, {op_family("aten.upsample_linear1d"), op_family("aten.upsample_bilinear2d"),
                              op_family("aten.upsample_bicubic2d"), op_family("aten.upsample_trilinear3d")}) ||
           (antialiased_too &&
            in_any_family(op, {op_family("aten._upsample_bilinear2d_aa"), op_family("aten._upsample_bicubic2d_aa")}));
}

// A forward convolution whose kernel is 1 in every spatial dim, with a stride above 1 and a
// padding above 0 in some dim (UnitConvolutionStridedPaddedShape).
bool unit_kernel_strided_and_padded(const graph::Node& node, const graph::Graph& graph) {
    const bool convolution = is_one_of(node.op, {op_id("aten.convolution.default"), op_id("aten.conv1d.default"),
                                                 op_id("aten.conv2d.default"), op_id("aten.conv3d.default"),
                                                 op_id("aten._convolution.default")});
    if (!convolution || node.arity() < 2 || node.arg(1).kind != ArgKind::Tensor) return false;
    if (const auto* transposed = node.find_input("transposed");
        transposed && transposed->arg.kind == ArgKind::Bool && transposed->arg.bool_value) {
        return false;
    }
    const auto& weight = graph.value(node.arg(1).name).meta;
    if (weight.rank() < 3) return false;
    for (size_t d = 2; d < weight.rank(); ++d) {
        if (!weight.sizes[d].is_static() || *weight.sizes[d].value != 1) return false;
    }
    auto any_above = [&](const char* name, int64_t bound) {
        const auto* input = node.find_input(name);
        if (!input) return false;
        if (input->arg.kind == ArgKind::Int) return input->arg.int_value > bound;
        for (const auto& item : input->arg.items) {
            // A symbolic stride or padding may be anything: taken as above.
            if (item.kind != ArgKind::Int || item.int_value > bound) return true;
        }
        return false;
    };
    return any_above("stride", 1) && any_above("padding", 0);
}

// A forward convolution (resolved: input, weight, bias, stride, padding, dilation, transposed,
// ...) with, along some spatial dim, a kernel above 1, a dilation and a stride above 1, and
// padding beyond the input's size there, or a size or argument unknown until run time
// (DilatedStridedConvPaddedBeyondInputCrash).
bool dilated_strided_conv_padded_beyond_input(const graph::Node& node, const graph::Graph& graph) {
    if (node.op != op_id("aten.convolution.default") || node.arity() < 7) return false;
    if (node.arg(0).kind != ArgKind::Tensor || node.arg(1).kind != ArgKind::Tensor) return false;
    if (node.arg(6).kind == ArgKind::Bool && node.arg(6).bool_value) return false;  // transposed
    const auto& input = graph.value(node.arg(0).name).meta;
    const auto& weight = graph.value(node.arg(1).name).meta;
    if (input.rank() < 3 || weight.rank() != input.rank()) return false;
    const size_t spatial = input.rank() - 2;
    // Dim d of an int[] argument (one value stands for every dim); nullopt when symbolic.
    const auto at = [](const graph::Argument& arg, size_t d) -> std::optional<int64_t> {
        if (arg.kind == ArgKind::Int) return arg.int_value;
        if (arg.kind != ArgKind::List || arg.items.empty()) return std::nullopt;
        const auto& item = arg.items[arg.items.size() == 1 ? 0 : std::min(d, arg.items.size() - 1)];
        return item.kind == ArgKind::Int ? std::optional<int64_t>(item.int_value) : std::nullopt;
    };
    for (size_t d = 0; d < spatial; ++d) {
        const auto& kernel = weight.sizes[2 + d];
        if (kernel.is_static() && *kernel.value < 2) continue;
        const auto stride = at(node.arg(3), d), padding = at(node.arg(4), d), dilation = at(node.arg(5), d);
        if ((stride && *stride < 2) || (dilation && *dilation < 2) || (padding && *padding < 1)) continue;
        const auto& size = input.sizes[2 + d];
        if (!padding || !size.is_static() || *padding > *size.value) return true;
    }
    return false;
}

// Whether `name` is computed from the program's parameters, buffers and constants alone (no
// user input reaches it): OpenVINO's frontend folds such values while it converts. Deep or
// unknown chains count as constant (the caller then routes to an exact kernel).
bool computed_from_constants_alone(const std::string& name, const graph::Graph& graph, std::map<std::string, bool>& known,
                                   int depth = 0) {
    if (auto it = known.find(name); it != known.end()) return it->second;
    const auto* value = graph.find_value(name);
    if (!value || depth > 64) return true;
    bool constant = true;
    if (value->producer < 0) {
        for (const auto& spec : graph.input_specs) {
            if (spec.arg.kind == ArgKind::Tensor && spec.arg.name == name) constant = spec.kind != graph::InputSpec::Kind::UserInput;
        }
    } else {
        const auto& producer = graph.nodes[static_cast<size_t>(value->producer)];
        for (const auto& input : producer.inputs) {
            auto visit = [&](const graph::Argument& arg) {
                if ((arg.kind == ArgKind::Tensor || arg.kind == ArgKind::SymInt) && !arg.name.empty()) {
                    constant = constant && computed_from_constants_alone(arg.name, graph, known, depth + 1);
                }
            };
            visit(input.arg);
            for (const auto& item : input.arg.items) visit(item);
        }
    }
    known[name] = constant;
    return constant;
}

// An upsample in a linear or cubic mode with align_corners=False to an output of size 1 in
// some spatial dim, from an input computed from constants alone (InterpolateOfConstantsFoldedAtOrigin).
bool interpolate_of_constants_to_size_one(const graph::Node& node, const graph::Graph& graph) {
    if (!linear_or_cubic_upsample(node.op, /*antialiased_too=*/true) || node.arity() == 0 || node.arg(0).kind != ArgKind::Tensor || node.outputs.empty() ||
        node.outputs[0].kind != ArgKind::Tensor) {
        return false;
    }
    if (const auto* align = node.find_input("align_corners"); align && align->arg.kind == ArgKind::Bool && align->arg.bool_value) {
        return false;
    }
    const auto& out = graph.value(node.outputs[0].name).meta;
    bool size_one = false;
    for (size_t d = 2; d < out.rank(); ++d) size_one |= !out.sizes[d].is_static() || *out.sizes[d].value == 1;
    if (!size_one) return false;
    std::map<std::string, bool> known;
    return computed_from_constants_alone(node.arg(0).name, graph, known);
}

// Whether OpenVINO's linear/cubic Interpolate reads the source coordinates PyTorch reads, in
// every resized dim of `node` (LinearInterpolateCoordinateRounded). PyTorch multiplies by its
// float ratio in/out (or 1/scale when a scale is given), OpenVINO divides by out/in (or the
// scale); the two agree bit for bit only where the ratio is a power of two, its reciprocal
// exact as well. A dim only the run sizes is not known to agree.
bool linear_interpolate_coordinates_agree(const graph::Node& node, const graph::Graph& graph) {
    const auto& in = graph.value(node.arg(0).name).meta;
    const auto& out = graph.value(node.outputs[0].name).meta;
    if (in.rank() != out.rank() || in.rank() < 3) return false;
    const size_t spatial = in.rank() - 2;
    const auto* align = node.find_input("align_corners");
    const bool align_corners = align && align->arg.kind == ArgKind::Bool && align->arg.bool_value;
    // The scale PyTorch is given for each spatial dim, 0 where none.
    std::vector<double> scales(spatial, 0.0);
    if (const auto* factors = node.find_input("scale_factors"); factors && factors->arg.kind == ArgKind::List) {
        for (size_t d = 0; d < spatial && d < factors->arg.items.size(); ++d) {
            if (factors->arg.items[d].kind == ArgKind::Float) scales[d] = factors->arg.items[d].float_value;
        }
    }
    static const std::vector<std::vector<std::string>> scale_names = {
        {"scales"}, {"scales_h", "scales_w"}, {"scales_d", "scales_h", "scales_w"}};
    if (spatial <= scale_names.size()) {
        for (size_t d = 0; d < spatial; ++d) {
            const auto* given = node.find_input(scale_names[spatial - 1][d]);
            if (given && given->arg.kind == ArgKind::Float) scales[d] = given->arg.float_value;
        }
    }
    const auto power_of_two_ratio = [](int64_t a, int64_t b) {
        if (a <= 0 || b <= 0) return false;
        const int64_t big = std::max(a, b), small = std::min(a, b);
        if (big % small != 0) return false;
        const int64_t q = big / small;
        return (q & (q - 1)) == 0;
    };
    for (size_t d = 2; d < in.rank(); ++d) {
        if (!in.sizes[d].is_static() || !out.sizes[d].is_static()) return false;
        const int64_t n_in = *in.sizes[d].value, n_out = *out.sizes[d].value;
        const double scale = scales[d - 2];
        if (align_corners) {
            // Both read x * (in - 1) / (out - 1); one output reads 0; an input of one reads 0.
            if (n_out == 1 || n_in == 1 || power_of_two_ratio(n_in - 1, n_out - 1)) continue;
            return false;
        }
        if (n_in == n_out && (scale <= 0 || scale == 1.0)) continue;
        if (!power_of_two_ratio(n_in, n_out)) return false;
        if (scale > 0 && scale != static_cast<double>(n_out) / static_cast<double>(n_in)) return false;
    }
    return true;
}

// A non-grouped 2-d or 3-d convolution of one input channel whose last spatial dim comes out
// of length 1 with a stride above 1 there (OneChannelConvolutionToOneColumnWrong). A size only
// the run knows may be 1.
bool one_channel_convolution_to_one_column(const graph::Node& node, const graph::Graph& graph) {
    if (node.outputs.empty() || node.outputs[0].kind != ArgKind::Tensor) return false;
    const auto& input = graph.value(node.arg(0).name).meta;
    const auto& out = graph.value(node.outputs[0].name).meta;
    if (input.rank() < 4 || out.rank() != input.rank()) return false;
    if (!input.sizes[1].is_static() || *input.sizes[1].value != 1) return false;
    const auto* groups = node.find_input("groups");
    if (groups && groups->arg.kind == ArgKind::Int && groups->arg.int_value != 1) return false;
    const auto& last = out.sizes[out.rank() - 1];
    if (last.is_static() && *last.value != 1) return false;
    const auto* stride = node.find_input("stride");
    if (!stride || stride->arg.kind != ArgKind::List || stride->arg.items.empty()) return false;
    const auto& last_stride = stride->arg.items.back();
    // A stride of one value applies to every dim.
    return last_stride.kind != ArgKind::Int || last_stride.int_value > 1;
}

// An expand to rank 4 or more whose result is read by a cat, repeat or tile and by another
// node besides (BroadcastConcatAlongChannelsWrong). Measured wrong only for a Concat along dim 1
// made of broadcasts alone; any cat is taken, the exact kernel being right for all of them.
bool expand_into_concat_and_more(const graph::Node& node, const graph::Graph& graph) {
    if (!is_one_of(node.op, {op_id("aten.expand.default"), op_id("aten.expand_copy.default")}) || node.outputs.empty() ||
        node.outputs[0].kind != ArgKind::Tensor || graph.value(node.outputs[0].name).meta.rank() < 4) {
        return false;
    }
    const std::string& value = node.outputs[0].name;
    size_t readers = 0;
    bool joined = false;
    for (const auto& user : graph.nodes) {
        bool reads = false;
        for (size_t i = 0; i < user.arity() && !reads; ++i) reads = graph::names_tensor(user.arg(i), value);
        if (!reads) continue;
        ++readers;
        joined |= is_one_of(user.op, {op_id("aten.cat.default"), op_id("aten.repeat.default"), op_id("aten.tile.default")});
    }
    return joined && readers >= 2;
}

// Whether `value` depends on the program's parameters, unmutated buffers and constants alone
// (through at most `depth` nodes, none of them sent to the CPU kernels by a fact): OpenVINO then
// folds it at conversion (HalfConstantArithmeticInFloat), rounding as PyTorch does.
bool computed_from_constants(const std::string& value, const graph::Graph& graph, int depth = 8) {
    const graph::Value* v = graph.find_value(value);
    if (!v) return false;
    if (v->producer < 0) {
        for (const auto& spec : graph.input_specs) {
            if (spec.arg.kind != ArgKind::Tensor || spec.arg.name != value) continue;
            if (spec.kind != graph::InputSpec::Kind::Parameter && spec.kind != graph::InputSpec::Kind::Buffer &&
                spec.kind != graph::InputSpec::Kind::TensorConstant) {
                return false;
            }
            for (const auto& out : graph.output_specs) {
                if (out.kind == graph::OutputSpec::Kind::BufferMutation && out.target == spec.target) return false;
            }
            return true;
        }
        return false;
    }
    if (depth == 0) return false;
    const graph::Node& node = graph.nodes[static_cast<size_t>(v->producer)];
    // A producer the facts send to pt2ov's CPU kernels hands its value to OpenVINO as an input,
    // which OpenVINO cannot fold. (Asked without this rule, which would ask about the same value.)
    static thread_local bool asking = false;
    if (!asking) {
        struct Asking {
            Asking() { asking = true; }
            ~Asking() { asking = false; }
        } scope;
        if (converter_fault(node, graph)) return false;
    }
    bool any = false;
    for (size_t i = 0; i < node.arity(); ++i) {
        const graph::Argument& arg = node.arg(i);
        if (arg.kind == ArgKind::SymInt) return false;
        if (arg.kind == ArgKind::Tensor) {
            if (!computed_from_constants(arg.name, graph, depth - 1)) return false;
            any = true;
        }
        for (const auto& item : arg.items) {
            if (item.kind == ArgKind::Tensor && !computed_from_constants(item.name, graph, depth - 1)) return false;
            any |= item.kind == ArgKind::Tensor;
        }
    }
    return any;
}

// 16-bit float arithmetic whose result is converted to float32 or float64
// (HalfIntermediatesKeptInFloat): the plugin leaves the product unrounded, and the wider type's
// tolerance sees the difference.
bool half_arithmetic_widened(const graph::Node& node, const graph::Graph& graph) {
    static constexpr graph::OpId kArithmetic[] = {
        op_id("aten.add.Tensor"), op_id("aten.add.Scalar"), op_id("aten.sub.Tensor"), op_id("aten.sub.Scalar"),
        op_id("aten.rsub.Tensor"), op_id("aten.rsub.Scalar"), op_id("aten.mul.Tensor"), op_id("aten.mul.Scalar"),
        op_id("aten.div.Tensor"), op_id("aten.div.Scalar")};
    if (std::find(std::begin(kArithmetic), std::end(kArithmetic), node.op) == std::end(kArithmetic) ||
        node.outputs.empty() || node.outputs[0].kind != ArgKind::Tensor) {
        return false;
    }
    const DType made = graph.value(node.outputs[0].name).meta.dtype;
    if (made != DType::Float16 && made != DType::BFloat16) return false;
    if (computed_from_constants(node.outputs[0].name, graph)) return false;
    // The value and what views and copies of it carry it on (NNCF reshapes a decompressed weight
    // before converting it).
    std::vector<std::string> carriers{node.outputs[0].name};
    for (size_t k = 0; k < carriers.size() && k < 64; ++k) {
        for (const auto& user : graph.nodes) {
            if (user.arity() == 0 || !graph::names_tensor(user.arg(0), carriers[k]) || user.outputs.empty() ||
                user.outputs[0].kind != ArgKind::Tensor) {
                continue;
            }
            const DType dtype = graph.value(user.outputs[0].name).meta.dtype;
            if (is_one_of(user.op, {op_id("aten._to_copy.default"), op_id("aten.to.dtype"), op_id("aten.to.dtype_layout"),
                                    op_id("prims.convert_element_type.default")})) {
                if (dtype == DType::Float32 || dtype == DType::Float64) return true;
            } else if (dtype == made &&
                       is_one_of(user.op, {op_id("aten.reshape.default"), op_id("aten.view.default"),
                                           op_id("aten._unsafe_view.default"), op_id("aten.permute.default"),
                                           op_id("aten.transpose.int"), op_id("aten.t.default"),
                                           op_id("aten.flatten.using_ints"), op_id("aten.unsqueeze.default"),
                                           op_id("aten.squeeze.dim"), op_id("aten.clone.default"),
                                           op_id("aten.contiguous.default")})) {
                carriers.push_back(user.outputs[0].name);
            }
        }
    }
    return false;
}

// Whether converting `from` to `to` wraps or cuts values the way the plugin's folding loses:
// to int16 or int32 from any floating type or a wider integer. Measured on 2026.4.1: int8 and
// uint8 keep their wrap when folded (300.0 to int8 and back is 44 there as in PyTorch), and a
// quantized program's Q/DQ pairs are exactly such casts, which must stay on OpenVINO.
bool narrows_to_integer(DType from, DType to) {
    if (to != DType::Int16 && to != DType::Int32) return false;
    if (dtype_is_floating(from)) return true;
    return from != DType::Bool && dtype_size(from) > dtype_size(to);
}

// Whether `arg` is the result of a cast that narrows to int16 or int32 (narrows_to_integer).
bool is_narrowed_value(const graph::Graph& graph, const graph::Argument& arg) {
    if (arg.kind != ArgKind::Tensor) return false;
    const graph::Node* cast = producer_node(graph, arg);
    if (!cast || !is_cast_op(cast->op) || cast->arity() == 0 || cast->arg(0).kind != ArgKind::Tensor) return false;
    return narrows_to_integer(graph.value(cast->arg(0).name).meta.dtype, graph.value(arg.name).meta.dtype);
}

// NarrowingConversionFolded: where the CPU plugin loses the wrap of a narrowing conversion.
// - A conversion to int16 itself: the plugin holds int16 values as int32, so the wrap happens
//   only where the value leaves the step; (x.to(int16) * 0.5) of 70000 gave 35000 (PyTorch
//   2232), a logical_xor or a product with int32 read the unwrapped value too. On the CPU
//   kernels it is made wrapped and enters OpenVINO as an int16 input, widened exactly.
// - A Convert right after a conversion to int32 (or int16) is folded into it: a second cast,
//   and the logical ops, whose converters begin with a Convert to bool ((1e10).to(int32) is
//   -2**31 in PyTorch, true; logical_not gave true where PyTorch gives false).
bool loses_a_narrowing_wrap(const graph::Node& node, const graph::Graph& graph) {
    if (node.outputs.empty() || node.outputs[0].kind != ArgKind::Tensor) return false;
    const DType made = graph.value(node.outputs[0].name).meta.dtype;
    const bool cast = is_cast_op(node.op);
    if (cast && made == DType::Int16 && node.arity() > 0 && node.arg(0).kind == ArgKind::Tensor &&
        narrows_to_integer(graph.value(node.arg(0).name).meta.dtype, made)) {
        return true;
    }
    const bool logical = is_one_of(node.op, {op_id("aten.logical_not.default"), op_id("aten.logical_and.default"),
                                             op_id("aten.logical_or.default"), op_id("aten.logical_xor.default")});
    if (logical) {
        for (size_t i = 0; i < node.arity(); ++i) {
            if (is_narrowed_value(graph, node.arg(i))) return true;
        }
        return false;
    }
    // A cast to another dtype than the narrowed one (a cast to the same dtype is no Convert).
    return cast && node.arity() > 0 && is_narrowed_value(graph, node.arg(0)) &&
           graph.value(node.arg(0).name).meta.dtype != made;
}

// Faults that depend on which op produces an input.
const Fact* fault_of_producer(const graph::Node& node, const graph::Graph& graph) {
    const OpId op = node.op;
    if (loses_a_narrowing_wrap(node, graph)) return &fact("NarrowingConversionFolded");
    if (is_one_of(op, {op_id("aten.view.default"), op_id("aten._unsafe_view.default"), op_id("aten.reshape.default"),
                       op_id("aten.view_copy.default")}) &&
        !node.outputs.empty() && node.outputs[0].kind == ArgKind::Tensor &&
        graph.value(node.outputs[0].name).meta.rank() == 0 &&
        in_any_family(matmul_source_op(graph, node.arg(0)),
                      {op_family("aten.mm"), op_family("aten.bmm"), op_family("aten.matmul"), op_family("aten.addmm"),
                       op_family("aten.baddbmm"), op_family("aten.linear"), op_family("aten.dot"), op_family("aten.mv")})) {
        return &fact("MatMulViewToScalarCrashes");
    }
    if (op == op_id("aten.abs.default") && op_family("aten.arange").contains(matmul_source_op(graph, node.arg(0)))) {
        return &fact("AbsOfRangeDropped");
    }
    if (is_one_of(op, {op_id("aten.mm.default"), op_id("aten.bmm.default"), op_id("aten.addmm.default"),
                       op_id("aten.matmul.default"), op_id("aten.linear.default"), op_id("aten.baddbmm.default"),
                       op_id("aten.addbmm.default"), op_id("aten.addmv.default"), op_id("aten.mv.default"),
                       op_id("aten.dot.default")})) {
        for (size_t i = 0; i < node.arity(); ++i) {
            const auto& arg = node.arg(i);
            if (arg.kind != ArgKind::Tensor) continue;
            for (const auto& dim : graph.value(arg.name).meta.sizes) {
                // A symbolic dim is at least 2 unless the export said otherwise: only a static 0 is met.
                if (dim.is_static() && *dim.value == 0) return &fact("MatMulOfEmptyUninitialised");
            }
        }
    }
    const auto reduction = [](OpId producer) {
        return in_any_family(producer, {op_family("aten.sum"), op_family("aten.mean"), op_family("aten.amax"),
                                        op_family("aten.amin"), op_family("aten.max"), op_family("aten.min"),
                                        op_family("aten.prod"), op_family("aten.linalg_vector_norm"),
                                        op_family("aten.norm"), op_family("aten.var"), op_family("aten.std"),
                                        op_family("aten.logsumexp"), op_family("aten.var_mean"),
                                        op_family("aten.std_mean")});
    };
    const bool division = is_one_of(op, {op_id("aten.div.Tensor"), op_id("aten.div.Tensor_mode"), op_id("aten.div.Scalar"),
                                         op_id("aten.div.Scalar_mode")});
    if (division && node.arity() >= 2 && reduction(producer_op(graph, node.arg(1)))) {
        // Measured on plain OpenVINO for reductions over dim 0, but seen through the frontend
        // over the last dim alone too: every reduction's dims are taken as affected.
        return &fact("ConstantOverReductionReversed");
    }
    if (division && node.arity() >= 1 && reduction(producer_op(graph, node.arg(0)))) {
        // Measured on rank-3 inputs only, but which fused forms go wrong is the plugin's choice:
        // every reduction's rank and dims are taken as affected.
        return &fact("ReductionOverConstantHalfZero");
    }
    return nullptr;
}

}  // namespace

namespace {
const Fact* fault_met(const graph::Node& node, const graph::Graph& graph);
}  // namespace

const Fact* converter_fault(const graph::Node& node, const graph::Graph& graph) {
    const Fact* met = fault_met(node, graph);
    return met && !ignored(met->name) ? met : nullptr;
}

bool ignored(std::string_view name) {
    // Read once: the set is a test's choice for the whole process.
    static const std::set<std::string, std::less<>> names = [] {
        std::set<std::string, std::less<>> result;
        const char* text = std::getenv("PT2OV_IGNORE_FACTS");
        std::string_view rest = text ? text : "";
        while (!rest.empty()) {
            const size_t comma = rest.find(',');
            const std::string_view item = rest.substr(0, comma);
            if (!item.empty()) result.emplace(item);
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        }
        for (const auto& item : result) fact(item);  // a typo is an error, not a silent no-op
        return result;
    }();
    return names.count(name) > 0;
}

namespace {

// Whether `offsets` (grouped_mm_fallback's) is a cumsum over its one dim of histc's counts,
// through casts: counts are never negative, so the running sums rise.
bool rising_offsets(const graph::Graph& graph, const graph::Argument& offsets) {
    const auto through_casts = [&](const graph::Argument& arg) {
        const graph::Node* node = producer_node(graph, arg);
        for (int hops = 0; node && is_cast_op(node->op) && node->arity() > 0 && hops < 4; ++hops) {
            node = producer_node(graph, node->arg(0));
        }
        return node;
    };
    const graph::Node* sums = through_casts(offsets);
    if (!sums || sums->op != op_id("aten.cumsum.default") || sums->arity() < 2 || sums->arg(1).kind != ArgKind::Int) return false;
    if (sums->arg(1).int_value != 0 && sums->arg(1).int_value != -1) return false;
    const graph::Node* counts = through_casts(sums->arg(0));
    return counts && counts->op == op_id("aten.histc.default");
}

const Fact* fault_met(const graph::Node& node, const graph::Graph& graph) {
    const OpId op = node.op;
    if (op == op_id("transformers.grouped_mm_fallback.default") &&
        (node.arity() < 3 || node.arg(2).kind != ArgKind::Tensor || !rising_offsets(graph, node.arg(2)))) {
        return &fact("GroupedMatMulOffsetsMustRise");
    }
    if (op == op_id("aten.kthvalue.default")) return &fact("KthvalueConvertedWrongly");
    if (op == op_id("aten.topk.default")) return &fact("TopkOrderNotPyTorchs");
    if (is_one_of(op, {op_id("aten.sort.default"), op_id("aten.sort.stable"), op_id("aten.argsort.default"),
                       op_id("aten.argsort.stable")})) {
        return &fact("SortOrderNotPyTorchs");
    }
    if (is_one_of(op, {op_id("aten.grid_sampler.default"), op_id("aten.grid_sampler_2d.default"),
                       op_id("aten.grid_sampler_3d.default")}) &&
        node.arg(0).kind == ArgKind::Tensor) {
        const DType dtype = graph.value(node.arg(0).name).meta.dtype;
        if (dtype == DType::Float16 || dtype == DType::BFloat16) return &fact("GridSamplerHalfInFloat");
    }
    if (op_family("aten.bucketize").contains(op)) {
        const auto* right = node.find_input("right");
        if (!right || right->arg.kind != ArgKind::Bool || !right->arg.bool_value) return &fact("BucketizeNanFirst");
    }
    if (op == op_id("aten.erfinv.default")) return &fact("ErfinvImprecise");
    if (is_one_of(op, {op_id("aten.erf.default"), op_id("aten.special_erf.default")}) && !node.outputs.empty() &&
        node.outputs[0].kind == ArgKind::Tensor && dtype_is_floating(graph.value(node.outputs[0].name).meta.dtype)) {
        return &fact("ErfOfTinyValuesInexact");
    }
    if (op == op_id("aten.erfc.default") && !node.outputs.empty() && node.outputs[0].kind == ArgKind::Tensor &&
        dtype_is_floating(graph.value(node.outputs[0].name).meta.dtype)) {
        return &fact("ErfcOfLargeValuesZero");
    }
    const bool overflowing = is_one_of(op, {op_id("aten.exp.default"), op_id("aten.exp2.default"),
                                            op_id("aten.expm1.default"), op_id("aten.sinh.default"),
                                            op_id("aten.cosh.default"), op_id("aten.pow.Tensor_Scalar"),
                                            op_id("aten.pow.Tensor_Tensor"), op_id("aten.pow.Scalar")});
    if (overflowing && !node.outputs.empty() && node.outputs[0].kind == ArgKind::Tensor &&
        graph.value(node.outputs[0].name).meta.dtype == DType::Float16) {
        return &fact("HalfIntermediatesKeptInFloat");
    }
    const bool matrix_product = is_one_of(op, {op_id("aten.mm.default"), op_id("aten.bmm.default"), op_id("aten.matmul.default"),
                                               op_id("aten.addmm.default"), op_id("aten.baddbmm.default"),
                                               op_id("aten.addbmm.default"), op_id("aten.mv.default"),
                                               op_id("aten.addmv.default"), op_id("aten.dot.default"),
                                               op_id("aten.linear.default")});
    const bool wrapping = matrix_product  // MatMul accumulates and stores saturated alike
                          || is_one_of(op, {op_id("aten.add.Tensor"), op_id("aten.add.Scalar"), op_id("aten.sub.Tensor"),
                                            op_id("aten.sub.Scalar"), op_id("aten.rsub.Tensor"), op_id("aten.rsub.Scalar"),
                                            op_id("aten.mul.Tensor"), op_id("aten.mul.Scalar"), op_id("aten.neg.default")});
    if (op_family("aten.pow").contains(op) && !node.outputs.empty() && node.outputs[0].kind == ArgKind::Tensor) {
        const DType dtype = graph.value(node.outputs[0].name).meta.dtype;
        if (!dtype_is_floating(dtype) && dtype != DType::Bool) return &fact("IntegerPowerComputedInFloat");
    }
    if (wrapping && !node.outputs.empty() && node.outputs[0].kind == ArgKind::Tensor) {
        const DType dtype = graph.value(node.outputs[0].name).meta.dtype;
        if (dtype == DType::UInt8 || dtype == DType::Int8) return &fact("ByteArithmeticSaturates");
    }
    if (matrix_product && !node.outputs.empty() && node.outputs[0].kind == ArgKind::Tensor) {
        const DType dtype = graph.value(node.outputs[0].name).meta.dtype;
        if (dtype == DType::Int16 || dtype == DType::Int32) return &fact("IntegerProductsInFloat");
    }
    if (op == op_id("aten.log1p.default") && !node.outputs.empty() && node.outputs[0].kind == ArgKind::Tensor &&
        dtype_is_floating(graph.value(node.outputs[0].name).meta.dtype)) {
        return &fact("Log1pCancelsNearZero");
    }
    if ((op == op_id("aten.expm1.default") || op == op_id("aten.elu.default")) && !node.outputs.empty() &&
        node.outputs[0].kind == ArgKind::Tensor && dtype_is_floating(graph.value(node.outputs[0].name).meta.dtype)) {
        return &fact("ExpMinusOneCancelsNearZero");
    }
    if (is_cast_op(op) && node.arity() > 0 && node.arg(0).kind == ArgKind::Tensor && !node.outputs.empty() &&
        node.outputs[0].kind == ArgKind::Tensor && graph.value(node.outputs[0].name).meta.dtype == DType::Int64 &&
        dtype_is_floating(graph.value(node.arg(0).name).meta.dtype)) {
        return &fact("FloatToInt64CutTo32Bits");
    }
    if (op == op_id("aten.repeat_interleave.self_int") && node.arity() > 1 && node.arg(1).kind == ArgKind::Int &&
        node.arg(1).int_value == 0) {
        return &fact("RepeatInterleaveOfZeroCrashes");
    }
    if (op == op_id("aten._safe_softmax.default")) return &fact("SafeSoftmaxMaskedRowsNaN");
    if (op == op_id("aten.gcd.default")) return &fact("GcdSignWithZero");
    if (is_one_of(op, {op_id("aten.div.Tensor_mode"), op_id("aten.div.Scalar_mode")}) && !node.outputs.empty() &&
        node.outputs[0].kind == ArgKind::Tensor && dtype_is_floating(graph.value(node.outputs[0].name).meta.dtype)) {
        const auto* mode = node.find_input("rounding_mode");
        if (mode && mode->arg.kind == ArgKind::String && mode->arg.string_value == "trunc") {
            return &fact("TruncDivisionLosesSignOfZero");
        }
        if (mode && mode->arg.kind == ArgKind::String && mode->arg.string_value == "floor") {
            return &fact("FloorDivisionOfRoundedQuotient");
        }
    }
    if (in_any_family(op, {op_family("aten.upsample_nearest1d"), op_family("aten.upsample_nearest2d"),
                           op_family("aten.upsample_nearest3d")}) &&
        node.arity() > 0 && node.arg(0).kind == ArgKind::Tensor && !node.outputs.empty() &&
        node.outputs[0].kind == ArgKind::Tensor) {
        // Enlarging by whole or exactly representable ratios floors alike; a shrinking dim (or
        // one only the run decides) is where the two formulas part.
        const auto& in = graph.value(node.arg(0).name).meta;
        const auto& out = graph.value(node.outputs[0].name).meta;
        bool shrinks_or_unknown = in.rank() != out.rank();
        for (size_t d = 2; !shrinks_or_unknown && d < in.rank(); ++d) {
            shrinks_or_unknown = !in.sizes[d].is_static() || !out.sizes[d].is_static() ||
                                 *out.sizes[d].value < *in.sizes[d].value;
        }
        if (shrinks_or_unknown) return &fact("NearestDownscaleIndexRoundsDown");
    }
    if (linear_or_cubic_upsample(op, /*antialiased_too=*/false) &&
        node.arity() > 0 && node.arg(0).kind == ArgKind::Tensor && !node.outputs.empty() &&
        node.outputs[0].kind == ArgKind::Tensor && !linear_interpolate_coordinates_agree(node, graph)) {
        return &fact("LinearInterpolateCoordinateRounded");
    }
    if (is_one_of(op, {op_id("aten.remainder.Tensor"), op_id("aten.remainder.Scalar"), op_id("aten.remainder.Scalar_Tensor")}) &&
        !node.outputs.empty() && node.outputs[0].kind == ArgKind::Tensor &&
        dtype_is_floating(graph.value(node.outputs[0].name).meta.dtype)) {
        return &fact("FloatRemainderOfLargeValuesWrong");
    }
    // The plugin reduces int32 in float32; an int32 reduction's values are not bounded at load.
    if (in_any_family(op, {op_family("aten.amax"), op_family("aten.amin"), op_family("aten.max"), op_family("aten.min"),
                           op_family("aten.sum"), op_family("aten.prod"), op_family("aten.argmax"), op_family("aten.argmin")}) &&
        node.arity() > 0 && node.arg(0).kind == ArgKind::Tensor &&
        graph.value(node.arg(0).name).meta.dtype == DType::Int32 && graph.value(node.arg(0).name).meta.rank() > 0) {
        return &fact("Int32ReducedInFloat");
    }
    if (is_one_of(op, {op_id("aten.fmod.Tensor"), op_id("aten.fmod.Scalar")}) && !node.outputs.empty() &&
        node.outputs[0].kind == ArgKind::Tensor && dtype_is_floating(graph.value(node.outputs[0].name).meta.dtype)) {
        return &fact("FmodOfConstantDrifts");
    }
    // Integer operands hold no -0.0 (and IntegerResultDtypeKept routes them).
    if (op == op_id("aten.atan2.default") && node.arity() > 0 && node.arg(0).kind == ArgKind::Tensor &&
        dtype_is_floating(graph.value(node.arg(0).name).meta.dtype)) {
        return &fact("Atan2OfNegativeZero");
    }
    if (op == op_id("aten.convolution.default") && node.arg(0).kind == ArgKind::Tensor) {
        const auto* transposed = node.find_input("transposed");
        const bool is_transposed = transposed && transposed->arg.kind == ArgKind::Bool && transposed->arg.bool_value;
        const auto& input = graph.value(node.arg(0).name).meta;
        if (is_transposed && (input.dtype == DType::Float16 || input.dtype == DType::BFloat16)) {
            return &fact("HalfTransposedConvolutionInFloat");
        }
        if (!is_transposed && input.rank() > 1 && input.sizes[1].is_static() && *input.sizes[1].value == 0) {
            return &fact("ConvolutionOfNoChannels");
        }
        if (!is_transposed && one_channel_convolution_to_one_column(node, graph)) {
            return &fact("OneChannelConvolutionToOneColumnWrong");
        }
    }
    if (node.arity() == 0) return nullptr;  // the rest read arguments: resolved nodes only
    if (expand_into_concat_and_more(node, graph)) return &fact("BroadcastConcatAlongChannelsWrong");
    if (half_arithmetic_widened(node, graph)) return &fact("HalfIntermediatesKeptInFloat");
    if (unit_kernel_strided_and_padded(node, graph)) return &fact("UnitConvolutionStridedPaddedShape");
    if (dilated_strided_conv_padded_beyond_input(node, graph)) return &fact("DilatedStridedConvPaddedBeyondInputCrash");
    if (interpolate_of_constants_to_size_one(node, graph)) return &fact("InterpolateOfConstantsFoldedAtOrigin");
    if (const Fact* f = fault_of_producer(node, graph)) return f;
    const bool promoting = is_one_of(op, {op_id("aten.atan2.default"), op_id("aten.cumsum.default"), op_id("aten.prod.default"),
                                          op_id("aten.prod.dim_int"), op_id("aten.logsumexp.default")});
    const auto* dtype = node.find_input("dtype");
    if (promoting && (!dtype || dtype->arg.kind == ArgKind::None) && !node.outputs.empty() &&
        node.outputs[0].kind == ArgKind::Tensor) {
        // Every tensor input integral, and the result of another dtype than the first input.
        bool integral = true;
        const graph::Argument* first = nullptr;
        for (size_t i = 0; i < node.arity(); ++i) {
            const auto& arg = node.arg(i);
            if (arg.kind != ArgKind::Tensor) continue;
            if (!first) first = &arg;
            integral &= !dtype_is_floating(graph.value(arg.name).meta.dtype);
        }
        if (first && integral && graph.value(first->name).meta.dtype != graph.value(node.outputs[0].name).meta.dtype) {
            return &fact("IntegerResultDtypeKept");
        }
    }
    if (op == op_id("aten.linspace.default") && dtype && dtype->arg.kind == ArgKind::ScalarType &&
        dtype->arg.dtype != DType::Int64 && dtype->arg.dtype != DType::Float32 && dtype->arg.dtype != DType::Float64) {
        return &fact("LinspaceDtypeIgnored");
    }
    const bool avg_pool = is_one_of(op, {op_id("aten.avg_pool1d.default"), op_id("aten.avg_pool2d.default"),
                                         op_id("aten.avg_pool3d.default")});
    if (avg_pool && node.arg(0).kind == ArgKind::Tensor &&
        !dtype_is_floating(graph.value(node.arg(0).name).meta.dtype)) {
        return &fact("IntegerAvgPoolRounds");
    }
    if (avg_pool) {
        const auto* ceil_mode = node.find_input("ceil_mode");
        const auto* include_pad = node.find_input("count_include_pad");
        const auto* padding = node.find_input("padding");
        const bool ceil = ceil_mode && ceil_mode->arg.kind == ArgKind::Bool && ceil_mode->arg.bool_value;
        const bool counts_pad = !include_pad || include_pad->arg.kind != ArgKind::Bool || include_pad->arg.bool_value;
        bool padded = false;
        if (padding) {
            if (padding->arg.kind == ArgKind::Int) padded = padding->arg.int_value != 0;
            for (const auto& item : padding->arg.items) padded |= item.kind != ArgKind::Int || item.int_value != 0;
        }
        if (ceil && counts_pad && padded) return &fact("AvgPoolCeilPaddedDivisor");
    }
    if (op == op_id("aten.nonzero.default") && node.arg(0).kind == ArgKind::Tensor && rank_of(graph, node.arg(0)) == 0) {
        return &fact("NonzeroOfZeroDimHasAColumn");
    }
    if (op == op_id("aten._cdist_forward.default") && number_of(node.arg(2), 2.0) != 2.0) return &fact("CdistOnlyEuclidean");
    if (op == op_id("aten.instance_norm.default")) {
        // instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, ...)
        const bool running_stats = node.arg(3).kind == ArgKind::Tensor || node.arg(4).kind == ArgKind::Tensor;
        const bool input_stats = node.arg(5).kind != ArgKind::Bool || node.arg(5).bool_value;
        if (running_stats && input_stats) return &fact("InstanceNormRunningStatsUsed");
    }
    if (in_any_family(op, {op_family("aten.bitwise_left_shift"), op_family("aten.bitwise_right_shift"),
                           op_family("aten.__lshift__"), op_family("aten.__rshift__")})) {
        return &fact("ShiftCountWraps");
    }
    return nullptr;
}

}  // namespace

bool int8_products_saturate() {
#if defined(__x86_64__) || defined(__i386__)
    static const bool without_vnni = !__builtin_cpu_supports("avx512vnni") && !__builtin_cpu_supports("avxvnni");
#else
    static const bool without_vnni = false;  // the fact was seen on x86 only
#endif
    return without_vnni && !ignored("Int8ProductsSaturateWithoutVnni");
}

}  // namespace pt2ov::lower::openvino_facts
