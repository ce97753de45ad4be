#include "lower/openvino_facts.h"

#include <algorithm>

#include "common/error.h"

namespace pt2ov::lower::openvino_facts {

const std::vector<Fact>& all() {
    static const std::vector<Fact> facts = {
        {"ResultThatIsItsInput", "2026.4.1",
         "a Result fed straight by a Parameter, bound after the input, is not written, and the input is overwritten "
         "with the output buffer's old contents",
         "results that are a step's own inputs or constants, or repeat another result, are taken out of the model "
         "and made by pt2ov (a bit-exact copy where the program returns a copy)"},
        {"CompiledResultFoldedIntoInput", "2026.4.1",
         "compile_model may fold a no-op Convert or Reshape so that a Result reads a Parameter directly",
         "the compiled runtime model is checked for such results; pt2ov makes them from the input"},
        {"Int64BeyondThirtyTwoBits", "2026.4.1", "the CPU plugin computes int64 in 32 bits: 2**40 + 0 gives 0",
         "64-bit arithmetic runs on pt2ov's CPU kernels; an int64 tensor entering OpenVINO is checked on every call "
         "and a value beyond 32 bits stops the call naming the tensor"},
        {"Float64ComputedInThirtyTwoBits", "2026.4.1",
         "the CPU plugin computes float64 in float32: 1 + 2**-40 comes back as 1",
         "float64 arithmetic runs on pt2ov's CPU kernels"},
        {"IntegerDivisionTruncates", "2026.4.1",
         "integer floor division rounds toward zero on the CPU plugin: -9 // 4 gives -2, PyTorch gives -3",
         "integer division with rounding runs on pt2ov's CPU kernels"},
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

bool rounds_integer_division_wrong(const std::string& target, DType result_dtype) {
    static const std::set<std::string> ops = {"aten.div.Tensor_mode",      "aten.div.Scalar_mode",
                                              "aten.floor_divide.default", "aten.remainder.Tensor",
                                              "aten.remainder.Scalar",     "aten.fmod.Tensor",
                                              "aten.fmod.Scalar"};
    return ops.count(target) > 0 && !dtype_is_floating(result_dtype) && result_dtype != DType::Bool;
}

bool only_moves_values(const std::set<std::string>& openvino_op_types) {
    static const std::set<std::string> moving = {
        "Reshape", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Gather", "GatherElements", "GatherND",
        "Slice", "StridedSlice", "Broadcast", "Tile", "Split", "VariadicSplit", "ShapeOf", "Constant",
        "Select", "Reverse", "Roll", "Pad"};
    return std::all_of(openvino_op_types.begin(), openvino_op_types.end(),
                       [](const std::string& type) { return moving.count(type) > 0; });
}

}  // namespace pt2ov::lower::openvino_facts
