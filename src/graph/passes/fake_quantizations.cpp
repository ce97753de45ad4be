#include <cmath>

#include "graph/passes/passes.h"

namespace pt2ov::graph {

// Pass 2b (passes.h): each dequantize_per_tensor.default whose input a quantize_per_tensor.default
// of the same scale, zero point, range and dtype made from a float32 value is recorded as one
// fake quantization of that value. Nothing is rewritten: pass 3 decomposes both ops into
// eager's reference arithmetic, which the CPU kernels run and OpenVINO runs unless lowering
// replaces the pair (lower/low_precision.cpp). Per-channel pairs of the same scales and zero
// points are recorded too (their values read at lowering, where they must be constants); the
// .tensor overloads (scale and zero point as tensors) are left to the reference arithmetic.

namespace {

using Kind = Argument::Kind;

bool is_per_tensor_pair_argument(const Argument& a) { return a.kind == Kind::Float || a.kind == Kind::Int; }

double number_of(const Argument& a) { return a.kind == Kind::Float ? a.float_value : static_cast<double>(a.int_value); }

// The quantize node `quantize_op` that made the integers `dequantize` reads, from a float32
// value; null otherwise.
const Node* float32_quantize_of(const Graph& graph, const Node& dequantize, OpId quantize_op) {
    const Argument& q = schema_arg(dequantize, 0, "input");
    const Value* q_value = q.is_tensor() ? graph.find_value(q.name) : nullptr;
    if (!q_value || q_value->producer < 0) return nullptr;
    const Node& quantize = graph.nodes[static_cast<size_t>(q_value->producer)];
    if (quantize.op != quantize_op) return nullptr;
    const Argument& x = schema_arg(quantize, 0, "input");
    const Value* x_value = x.is_tensor() ? graph.find_value(x.name) : nullptr;
    return x_value && x_value->meta.dtype == DType::Float32 ? &quantize : nullptr;
}

// dequantize_per_channel.default of the integers quantize_per_channel.default made from a float32
// value, with the same scales and zero points (the same values), axis, range and dtype.
void record_per_channel(Graph& graph, const Node& dequantize) {
    const Node* found = float32_quantize_of(graph, dequantize, op_id("quantized_decomposed.quantize_per_channel.default"));
    if (!found) return;
    const Node& quantize = *found;
    const Argument& x = schema_arg(quantize, 0, "input");
    const Value* x_value = graph.find_value(x.name);
    const Argument& scales = schema_arg(dequantize, 1, "scales");
    const Argument& zero_points = schema_arg(dequantize, 2, "zero_points");
    if (!scales.is_tensor() || !zero_points.is_tensor()) return;
    if (schema_arg(quantize, 1, "scales").name != scales.name || schema_arg(quantize, 2, "zero_points").name != zero_points.name) return;
    static constexpr const char* kNames[] = {"axis", "quant_min", "quant_max"};
    for (size_t i = 3; i <= 5; ++i) {
        const Argument& a = schema_arg(quantize, i, kNames[i - 3]);
        const Argument& b = schema_arg(dequantize, i, kNames[i - 3]);
        if (a.kind != Kind::Int || b.kind != Kind::Int || a.int_value != b.int_value) return;
    }
    if (schema_arg(quantize, 6, "dtype").dtype != schema_arg(dequantize, 6, "dtype").dtype) return;
    const Argument& out_dtype = schema_arg(dequantize, 7, "out_dtype");
    if (out_dtype.kind == Kind::ScalarType && out_dtype.dtype != DType::Float32) return;
    const int64_t low = schema_arg(dequantize, 4, "quant_min").int_value;
    const int64_t high = schema_arg(dequantize, 5, "quant_max").int_value;
    if (!(high > low) || high - low > 65535 || dequantize.outputs.empty() || !dequantize.outputs[0].is_tensor()) return;
    const auto rank = static_cast<int64_t>(x_value->meta.rank());
    int64_t axis = schema_arg(dequantize, 3, "axis").int_value;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return;
    FakeQuantization pair;
    pair.input = x.name;
    pair.output = dequantize.outputs[0].name;
    pair.node = dequantize.source_name();
    pair.quant_min = low;
    pair.quant_max = high;
    pair.scales = scales.name;
    pair.zero_points = zero_points.name;
    pair.axis = axis;
    graph.fake_quantizations.push_back(std::move(pair));
}

}  // namespace

void record_fake_quantizations(Graph& graph) {
    graph.fake_quantizations.clear();
    for (const Node& dequantize : graph.nodes) {
        if (dequantize.op == op_id("quantized_decomposed.dequantize_per_channel.default")) {
            record_per_channel(graph, dequantize);
            continue;
        }
        if (dequantize.op != op_id("quantized_decomposed.dequantize_per_tensor.default")) continue;
        const Node* found = float32_quantize_of(graph, dequantize, op_id("quantized_decomposed.quantize_per_tensor.default"));
        if (!found) continue;
        const Node& quantize = *found;
        const Argument& x = schema_arg(quantize, 0, "input");
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
        FakeQuantization pair;
        pair.input = x.name;
        pair.output = dequantize.outputs[0].name;
        pair.node = dequantize.source_name();
        pair.scale = scale32;
        pair.zero_point = static_cast<int64_t>(zero_point);
        pair.quant_min = static_cast<int64_t>(low);
        pair.quant_max = static_cast<int64_t>(high);
        graph.fake_quantizations.push_back(std::move(pair));
    }
}

}  // namespace pt2ov::graph
