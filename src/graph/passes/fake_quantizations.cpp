#include <cmath>

#include "graph/passes/passes.h"

namespace pt2ov::graph {

// Pass 2b (passes.h): each dequantize_per_tensor.default whose input a quantize_per_tensor.default
// of the same scale, zero point, range and dtype made from a float32 value is recorded as one
// fake quantization of that value. Nothing is rewritten: pass 3 decomposes both ops into
// eager's reference arithmetic, which the CPU kernels run and OpenVINO runs unless lowering
// replaces the pair (lower/low_precision.cpp). The .tensor overloads (scale and zero point as
// tensors) and per-channel activations are left to the reference arithmetic.

namespace {

using Kind = Argument::Kind;

bool is_per_tensor_pair_argument(const Argument& a) { return a.kind == Kind::Float || a.kind == Kind::Int; }

double number_of(const Argument& a) { return a.kind == Kind::Float ? a.float_value : static_cast<double>(a.int_value); }

}  // namespace

void record_fake_quantizations(Graph& graph) {
    graph.fake_quantizations.clear();
    for (const Node& dequantize : graph.nodes) {
        if (dequantize.op != op_id("quantized_decomposed.dequantize_per_tensor.default")) continue;
        const Argument& q = schema_arg(dequantize, 0, "input");
        const Value* q_value = q.is_tensor() ? graph.find_value(q.name) : nullptr;
        if (!q_value || q_value->producer < 0) continue;
        const Node& quantize = graph.nodes[static_cast<size_t>(q_value->producer)];
        if (quantize.op != op_id("quantized_decomposed.quantize_per_tensor.default")) continue;
        const Argument& x = schema_arg(quantize, 0, "input");
        const Value* x_value = x.is_tensor() ? graph.find_value(x.name) : nullptr;
        if (!x_value || x_value->meta.dtype != DType::Float32) continue;
        const Argument& out_dtype = schema_arg(dequantize, 6, "out_dtype");
        if (out_dtype.kind == Kind::ScalarType && out_dtype.dtype != DType::Float32) continue;
        bool same = schema_arg(quantize, 5, "dtype").dtype == schema_arg(dequantize, 5, "dtype").dtype;
        static constexpr const char* kNames[] = {"scale", "zero_point", "quant_min", "quant_max"};
        for (size_t i = 1; i <= 4 && same; ++i) {
            const Argument& a = schema_arg(quantize, i, kNames[i - 1]);
            const Argument& b = schema_arg(dequantize, i, kNames[i - 1]);
            same = is_per_tensor_pair_argument(a) && is_per_tensor_pair_argument(b) && number_of(a) == number_of(b);
        }
        if (!same || dequantize.outputs.empty() || !dequantize.outputs[0].is_tensor()) continue;
        const double scale = number_of(schema_arg(dequantize, 1, "scale"));
        const double low = number_of(schema_arg(dequantize, 3, "quant_min"));
        const double high = number_of(schema_arg(dequantize, 4, "quant_max"));
        const double zero_point = number_of(schema_arg(dequantize, 2, "zero_point"));
        const auto scale32 = static_cast<float>(scale);
        if (!(std::isfinite(scale32) && scale32 > 0) || !(high > low) || high - low > 65535) continue;
        graph.fake_quantizations.push_back({x.name, dequantize.outputs[0].name, dequantize.source_name(), scale32,
                                            static_cast<int64_t>(zero_point), static_cast<int64_t>(low), static_cast<int64_t>(high)});
    }
}

}  // namespace pt2ov::graph
