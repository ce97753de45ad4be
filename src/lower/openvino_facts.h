// What pt2ov knows about OpenVINO's behaviour, in one place: each fact is named, says the
// OpenVINO version it was measured on, and names the test in
// tests/cpp/lower/test_openvino_facts.cpp that re-measures it on plain OpenVINO (no PyTorch).
// Placement, conversion and the executor ask these functions; no other file hard-codes an
// OpenVINO quirk or a list of OpenVINO op types. When a fact changes with a new OpenVINO, its
// test says so, and this file is the one to change.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "pt2ov/dtype.h"

namespace pt2ov::lower::openvino_facts {

struct Fact {
    std::string_view name;         // also the name of its test: TEST(OpenVINOFacts, <name>)
    std::string_view measured_on;  // the OpenVINO version the fact was seen on
    std::string_view what;         // the behaviour, in one sentence
    std::string_view handling;     // what pt2ov does about it
};

// Whether the environment variable PT2OV_IGNORE_FACTS (comma-separated fact names) switches
// `name` off: its rule or rewrite is not applied, so a test can show the fault happen and be
// caught by the output guard or --verify. For tests only: a switched-off fact gives OpenVINO's
// wrong answers back. An unknown name in the variable is an error.
bool ignored(std::string_view name);

// Int8ProductsSaturateWithoutVnni: whether this CPU lacks the VNNI dot-product instructions
// (AVX512-VNNI or AVX-VNNI), on which the CPU plugin's int8 kernels saturate; false when the fact
// is ignored.
bool int8_products_saturate();

// Every fact, in a stable order (docs/EXACTNESS.md explains each).
const std::vector<Fact>& all();
// The fact named `name`; throws Error for an unknown name (a typo in a caller).
const Fact& fact(std::string_view name);

// ResultThatIsItsInput: a Result fed straight by a Parameter (or a Constant) is not written
// when the output is bound after the input, and the input can be overwritten with the old
// contents of the output. Results that are inputs or constants, or that repeat another
// result's tensor, are taken out of every model before it is compiled.
// CompiledResultFoldedIntoInput: compiling may fold a no-op Convert or Reshape so that a
// Result reads a Parameter directly, and the plugin then writes each call's input into the
// memory of the input it had last call; the compiled model is checked as well, and such
// results are taken out of it (the step compiled again).

// ArenaPerCompiledModel: the CPU plugin infers each compiled model in a TBB arena of its own;
// a thread that enters a different arena for each step of a call, call after call, leaves
// oneTBB task proxies in the arenas' mailboxes, which its task pool keeps (RSS grows in steps,
// by up to 25 MB). This property, set at compile time, makes the plugin infer in the arena of
// the calling thread instead (it then ignores the inference threads for its own arena: the
// caller's arena decides).
inline constexpr const char* kInferInCallersArena = "EXCLUSIVE_ASYNC_REQUESTS";

// DynamicQuantizationOfActivations: on a matmul whose weights are compressed (an integer
// Constant converted and scaled, as NNCF's compress_weights and torchao's weight-only schemes
// export them), the CPU plugin quantizes the activations to int8 in groups on the fly, under
// the f32 precision hint too: 0.5 % off eager with exit 0. This property, set to 0 at compile
// time, turns it off (the product is then computed in f32, within E5).
inline constexpr const char* kNoDynamicQuantization = "DYNAMIC_QUANTIZATION_GROUP_SIZE";

// KvCacheQuantizedByDefault: where the CPU plugin fuses attention over a cache kept as state
// (ReadValue, Gather, Concat, ScaledDotProductAttention, Assign: the form of a dynamic KV cache)
// it stores the cache in u8 by default, under the f32 precision hint too: 0.11 off on values of
// about 3 after 12 steps. Set at compile time to the inference precision, the cache keeps it.
inline constexpr const char* kKvCachePrecision = "KV_CACHE_PRECISION";

// Int64BeyondThirtyTwoBits / Float64ComputedInThirtyTwoBits: the CPU plugin computes int64
// and float64 in 32 bits. True when a tensor of `dtype` computed on OpenVINO may lose bits.
bool computes_in_32_bits(DType dtype);
// The values an int64 tensor may hold and still pass through OpenVINO exactly.
constexpr int64_t kExactInt64Min = -2147483648LL;
constexpr int64_t kExactInt64Max = 2147483647LL;
inline bool int64_passes_exactly(int64_t value) { return value >= kExactInt64Min && value <= kExactInt64Max; }

// IntegerDivisionTruncates: integer division that PyTorch rounds toward -inf (floor_divide,
// div with rounding_mode, remainder, fmod) came back truncated toward zero (-9 // 4 gave -2).
// True when `target` is such an op on integer operands (`result_dtype` is its result's).
bool rounds_integer_division_wrong(graph::OpId op, DType result_dtype);

// IntegerDivisionOfNonNegativeExact: those same ops come back exact when the dividend lies in
// [0, kExactDivisionMax] and the divisor in [1, kExactDivisionMax] (floor and truncation agree,
// and no division by zero is left for PyTorch to raise). True for such bounds.
constexpr int64_t kExactDivisionMax = int64_t{1} << 24;
bool integer_division_exact(int64_t dividend_min, int64_t dividend_max, int64_t divisor_min, int64_t divisor_max);

// ValueMovingOpsKeepInt64: ops that only move, pick or reshape values (Reshape, Concat,
// Gather, ...) hand int64 values through unchanged when they fit in 32 bits, so a node
// OpenVINO converts only to these needs no CPU step: its values were checked on entry.
bool only_moves_values(const std::set<std::string>& openvino_op_types);

// EmptyShapeBroadcastCrash: compiling a Broadcast of a 0-d tensor to the empty shape kills the
// process inside the CPU plugin. graph/passes/functionalize.cpp (pass 2) never makes one from copy_.
// Converter faults (docs/EXACTNESS.md, O9): nodes OpenVINO's PyTorch frontend converts and its
// CPU plugin runs, with results PyTorch does not give. The fact whose condition `node` meets
// (its op, argument values, input ranks), or null. Placement keeps such nodes off OpenVINO
// (pass 2); each fact's test re-measures its condition on OpenVINO alone:
//  KthvalueConvertedWrongly       every kthvalue: wrong value shape, float indices;
//  NonzeroOfZeroDimHasAColumn     nonzero of a 0-d tensor: a column where PyTorch has none;
//  CdistOnlyEuclidean             _cdist_forward with p != 2 (p = 0 gives inf, p = 1 NaN);
//  ErfinvImprecise                every erfinv: off by 5e-3 near +-1 in float32;
//  SafeSoftmaxMaskedRowsNaN       every _safe_softmax: a row of -inf gives NaN, not 0;
//  InstanceNormRunningStatsUsed   instance_norm with running stats and use_input_stats;
//  IntegerResultDtypeKept         atan2, cumsum, prod, logsumexp of integers without dtype=;
//  GcdSignWithZero                every gcd: gcd(0, -5) gives -5;
//  Atan2OfNegativeZero            every floating atan2: atan2(-0.0, -1) gives +pi;
//  TruncDivisionLosesSignOfZero   every floating div(rounding_mode='trunc'): +0.0 for -0.0;
//  NearestDownscaleIndexRoundsDown  upsample_nearest shrinking a dim: 56 to 2 takes column 27, not 28;
//  LinspaceDtypeIgnored           linspace with dtype= other than int64, float32, float64;
//  IntegerAvgPoolRounds           avg_pool1d/2d/3d of integers (no kernel yet: refused).
//  UnitConvolutionStridedPaddedShape  a convolution with a 1x..x1 kernel, stride > 1 and padding > 0;
//  ByteArithmeticSaturates        add, sub, rsub, mul, neg with an uint8 or int8 result;
//  FloatToInt64CutTo32Bits        a cast from a floating dtype to int64: 3e9 gives -2**31;
//  FloatRemainderOfLargeValuesWrong  every floating remainder: remainder(2**40, 3) gives 0;
//  Int32ReducedInFloat            amax, amin, max/min, sum, prod, argmax/argmin of int32: in float32.
// Faults an equivalent model avoids on OpenVINO itself are rewritten in the converted model
// instead (lower/plugin_workarounds.h): AbsOfFoldedConstantRankOne, AbsOfConcatRankOne,
// InterpolateToSizeOneAtOrigin, DilatedUnitKernelCrash, TransposeOfUnitDimsAfterReduce,
// ReshapeBroadcastRankLost, ReshapeAfterReduceLost, ClampOfBroadcastRankLost,
// ReduceAxesNegativeAfterUnsqueeze, TileRaisingRankUninitialised, MaxOfAllInfinite, ReduceFusedArithmeticWrong,
// ConstantOverFusedOpReversed, AttentionMaskedRowsNaN.
const Fact* converter_fault(const graph::Node& node, const graph::Graph& graph);

}  // namespace pt2ov::lower::openvino_facts
