// PyTorch's reference quantization ops (quantized_decomposed::, what PT2E's convert_pt2e and NNCF
// write into a program) as the core ATen ops their reference implementations run
// (torch/ao/quantization/fx/_decomposed.py), op for op and in the same dtypes, so the quantized
// integers are eager's exactly and the dequantized values are eager's bit for bit, on OpenVINO
// or on the CPU kernels alike.
//
// Quantize:   clamp(round(x * (1 / scale)) + zero_point, quant_min, quant_max).to(dtype)
// Dequantize: (q.to(out_dtype) - zero_point) * scale            (per tensor)
//             ((q - zero_points) * scales).to(out_dtype)         (per channel: integer subtraction)
//
// A per-tensor scale is a Python float in the .default overload: eager computes 1 / scale in
// double and multiplies a float32 tensor by it, which rounds the double to float32 first. The
// .tensor overloads read scale.item() (a double) and zero_point.item(); here the scale is widened
// to float64, inverted there and rounded to float32, the same two roundings. Schemes without a
// decomposition here (per-token, per-group, choose_qparams: dynamic quantization) are refused by
// name.
#include <algorithm>
#include <optional>

#include "common/error.h"
#include "graph/decompose/common.h"

namespace pt2ov::graph::decompose {
namespace {

using Kind = Argument::Kind;

std::string name_of(DType dtype) { return std::string(dtype_name(dtype)); }

bool is_quantized_integer(DType dtype) {
    switch (dtype) {
        case DType::UInt8:
        case DType::Int8:
        case DType::Int16:
        case DType::UInt16:
        case DType::Int32:
            return true;
        default:
            return false;
    }
}

DType target_dtype(const Builder& b, size_t position) {
    const Argument& dtype = b.arg(position, "dtype");
    if (dtype.kind != Kind::ScalarType || !is_quantized_integer(dtype.dtype)) {
        b.refuse("quantizes to " + (dtype.kind == Kind::ScalarType ? name_of(dtype.dtype) : std::string("a dtype not given")) +
                 "; pt2ov runs quantization to uint8, int8, int16, uint16 and int32");
    }
    return dtype.dtype;
}

// The float input of a quantize op: float16/bfloat16 are widened to float32 as eager does; any
// other dtype is refused, as eager raises.
Argument float_input(Builder& b) {
    const Argument x = b.arg(0, "input");
    const DType dtype = b.meta(x).dtype;
    if (dtype == DType::Float16 || dtype == DType::BFloat16) return to_dtype(b, x, DType::Float32);
    if (dtype != DType::Float32) b.refuse("quantizes a " + name_of(dtype) + " tensor; eager takes float32 (or float16/bfloat16) only");
    return x;
}

// The integer input of a dequantize op, which must hold the dtype the node names (eager asserts).
Argument integer_input(Builder& b, size_t dtype_position) {
    const Argument q = b.arg(0, "input");
    const DType named = target_dtype(b, dtype_position);
    if (b.meta(q).dtype != named) {
        b.refuse("dequantizes a " + name_of(b.meta(q).dtype) + " tensor it names " + name_of(named) +
                 " (eager raises: re-export the program)");
    }
    return q;
}

DType out_dtype_of(const Builder& b, size_t position) {
    const Argument& out = b.arg(position, "out_dtype");
    return out.kind == Kind::ScalarType ? out.dtype : DType::Float32;
}

// A one-element tensor parameter (scale, zero_point, quant_min/max of the .tensor overloads) as a
// 0-d tensor, so that it broadcasts like eager's .item() number and takes no part in type
// promotion beyond its category.
Argument as_number(Builder& b, const Argument& t) {
    if (t.kind != Kind::Tensor) return t;
    if (b.rank(t) == 0) return t;
    return b.op("aten.view.default", {t, ints_arg({})}, contiguous_meta(b.meta(t).dtype, {}));
}

// 1 / scale in double, rounded to float32: what eager's `input * (1.0 / scale)` multiplies by.
Argument inverse_scale(Builder& b, const Argument& scale) {
    if (scale.kind != Kind::Tensor) return float_arg(static_cast<double>(static_cast<float>(1.0 / number(b, scale))));
    const Argument wide = to_dtype(b, as_number(b, scale), DType::Float64);
    const Argument inverse = elementwise(b, "aten.reciprocal.default", {wide}, DType::Float64);
    return to_dtype(b, inverse, DType::Float32);
}

// clamp(round(x * inverse) + zero_point, quant_min, quant_max).to(dtype), the result in
// `compute` (float32, or float64 where per-channel float64 scales promote the product).
void quantize(Builder& b, const Argument& x, const Argument& inverse, const Argument& zero_point, const Argument& low,
              const Argument& high, DType compute, DType dtype) {
    const Argument scaled = elementwise(b, "aten.mul.Tensor", {x, inverse}, compute);
    const Argument rounded = elementwise(b, "aten.round.default", {scaled}, compute);
    const Argument shifted = elementwise(b, "aten.add.Tensor", {rounded, zero_point}, compute);
    const bool tensor_bounds = low.kind == Kind::Tensor || high.kind == Kind::Tensor;
    const Argument clamped = elementwise(b, tensor_bounds ? "aten.clamp.Tensor" : "aten.clamp.default", {shifted, low, high}, compute);
    b.output(0, "aten._to_copy.default", {clamped}, {{"dtype", dtype_arg(dtype)}});
}

// quantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype) and its .tensor
// (scale and zero_point tensors) and .tensor2 (quant_min and quant_max tensors too) overloads.
void quantize_per_tensor(Builder& b) {
    const DType dtype = target_dtype(b, 5);
    const Argument x = float_input(b);
    const Argument inverse = inverse_scale(b, b.arg(1, "scale"));
    quantize(b, x, inverse, as_number(b, b.arg(2, "zero_point")), as_number(b, b.arg(3, "quant_min")),
             as_number(b, b.arg(4, "quant_max")), DType::Float32, dtype);
}

// dequantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype):
// (input.to(out_dtype) - zero_point) * scale. A Python float scale multiplies as float32 (its
// double rounded once); a tensor scale is rounded to float32 the same way (float64 for a float64
// result).
void dequantize_per_tensor(Builder& b) {
    const Argument q = integer_input(b, 5);
    const DType out = out_dtype_of(b, 6);
    if (out != DType::Float32 && out != DType::Float16 && out != DType::BFloat16 && out != DType::Float64) {
        b.refuse("dequantizes to " + name_of(out) + "; eager's out_dtype is a float dtype");
    }
    Argument scale = b.arg(1, "scale");
    if (scale.kind == Kind::Tensor) scale = to_dtype(b, as_number(b, scale), out == DType::Float64 ? DType::Float64 : DType::Float32);
    const Argument shifted = elementwise(b, "aten.sub.Tensor", {to_dtype(b, q, out), as_number(b, b.arg(2, "zero_point"))}, out);
    b.output(0, "aten.mul.Tensor", {shifted, scale});
}

// scales (or zero_points), one per channel along `axis` of a rank-`rank` tensor, viewed to
// broadcast along it: [1, ..., C, ..., 1].
Argument along_axis(Builder& b, const Argument& per_channel, int64_t axis, int64_t rank) {
    if (b.rank(per_channel) != 1) b.refuse("has per-channel parameters of rank " + std::to_string(b.rank(per_channel)) + "; eager takes one value per channel");
    std::vector<Dim> sizes(static_cast<size_t>(rank), static_dim(1));
    sizes[static_cast<size_t>(axis)] = b.meta(per_channel).sizes[0];
    std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
    const auto channels = b.meta(per_channel).sizes[0];
    if (!channels.is_static()) b.refuse("has a symbolic channel count; pt2ov needs it known when the program is exported");
    shape[static_cast<size_t>(axis)] = channels.value.value();
    return b.op("aten.view.default", {per_channel, ints_arg(shape)}, contiguous_meta(b.meta(per_channel).dtype, sizes));
}

int64_t channel_axis(const Builder& b, const Argument& x, size_t position) {
    const Argument& axis = b.arg(position, "axis");
    const int64_t rank = b.rank(x);
    if (axis.kind != Kind::Int || axis.int_value >= rank || axis.int_value < -rank) {
        b.refuse("quantizes along axis " + (axis.kind == Kind::Int ? std::to_string(axis.int_value) : std::string("?")) +
                 " of a rank-" + std::to_string(rank) + " tensor");
    }
    return axis.int_value < 0 ? axis.int_value + rank : axis.int_value;
}

bool wider_float(DType a, DType b) { return a == DType::Float64 || b == DType::Float64; }

// quantize_per_channel(input, scales, zero_points, axis, quant_min, quant_max, dtype):
// 1.0 / scales is eager's reciprocal in the scales' dtype; a float64 one promotes the product.
void quantize_per_channel(Builder& b) {
    const DType dtype = target_dtype(b, 6);
    const Argument x = float_input(b);
    const int64_t axis = channel_axis(b, x, 3);
    const int64_t rank = b.rank(x);
    const Argument scales = along_axis(b, b.arg(1, "scales"), axis, rank);
    const DType scale_dtype = b.meta(scales).dtype;
    const Argument inverse = elementwise(b, "aten.reciprocal.default", {scales}, scale_dtype);
    const DType compute = wider_float(DType::Float32, scale_dtype) ? DType::Float64 : DType::Float32;
    quantize(b, x, inverse, along_axis(b, b.arg(2, "zero_points"), axis, rank), b.arg(4, "quant_min"), b.arg(5, "quant_max"),
             compute, dtype);
}

// dequantize_per_channel(input, scales, zero_points?, axis, quant_min, quant_max, dtype, *,
// out_dtype): ((input - zero_points) * scales).to(out_dtype), the subtraction in integers (int8
// minus int64 is int64) and the product in the scales' float dtype.
void dequantize_per_channel(Builder& b) {
    const Argument q = integer_input(b, 6);
    const DType out = out_dtype_of(b, 7);
    const int64_t axis = channel_axis(b, q, 3);
    const int64_t rank = b.rank(q);
    const Argument scales = along_axis(b, b.arg(1, "scales"), axis, rank);
    const DType scale_dtype = b.meta(scales).dtype;
    if (scale_dtype != DType::Float32 && scale_dtype != DType::Float64 && scale_dtype != DType::Float16 &&
        scale_dtype != DType::BFloat16) {
        b.refuse("has " + name_of(scale_dtype) + " scales; eager's are a float dtype");
    }
    Argument centred = q;
    if (const Argument& zero_points = b.arg(2, "zero_points"); zero_points.kind == Kind::Tensor) {
        const Argument zp = along_axis(b, zero_points, axis, rank);
        const DType zp_dtype = b.meta(zp).dtype;
        if (is_floating(zp_dtype)) b.refuse("has float zero points; pt2ov runs integer zero points (torchao's affine ops take float ones)");
        // Two integer tensors promote to the wider of the two (int8 - int64 is int64).
        const DType difference = zp_dtype == DType::Int64 || b.meta(q).dtype == DType::Int64 ? DType::Int64 : DType::Int32;
        centred = elementwise(b, "aten.sub.Tensor", {q, zp}, difference);
    }
    const Argument product = elementwise(b, "aten.mul.Tensor", {centred, scales}, scale_dtype);
    if (out == scale_dtype) {
        b.output_is(0, product);
    } else {
        b.output(0, "aten._to_copy.default", {product}, {{"dtype", dtype_arg(out)}});
    }
}

// ---- per token (dynamic quantization: ExecuTorch's and torchao's int8 activations) -------------

// The sizes of `x` with its last dim 1: one value per token.
std::vector<Dim> per_token_sizes(const Builder& b, const Argument& x) {
    std::vector<Dim> sizes = b.meta(x).sizes;
    if (sizes.empty()) b.refuse("quantizes a 0-d tensor per token; eager takes [..., N]");
    sizes.back() = static_dim(1);
    return sizes;
}

Argument reduce_last(Builder& b, const std::string& target, const Argument& x) {
    return b.op(target, {x, ints_arg({-1}), bool_arg(true)}, contiguous_meta(b.meta(x).dtype, per_token_sizes(b, x)));
}

// choose_qparams_per_token_asymmetric(input, dtype) -> (scales float64, zero_points int64), as
// its reference computes them in the input's float32: the range of each token widened to hold
// 0, over 255, at least float32's epsilon; the zero point from whichever end errs less, clamped
// to [-128, 127] and rounded.
void choose_qparams_per_token_asymmetric(Builder& b) {
    const Argument x = b.arg(0, "input");
    if (b.meta(x).dtype != DType::Float32) {
        b.refuse("chooses per-token parameters of a " + name_of(b.meta(x).dtype) + " tensor; pt2ov runs float32 ones");
    }
    const DType f32 = DType::Float32;
    const Argument zero = scalar_tensor(b, 0.0, f32);
    const Argument low = elementwise(b, "aten.minimum.default", {reduce_last(b, "aten.amin.default", x), zero}, f32);
    const Argument high = elementwise(b, "aten.maximum.default", {reduce_last(b, "aten.amax.default", x), zero}, f32);
    const Argument range = elementwise(b, "aten.sub.Tensor", {high, low}, f32);
    const Argument scale = elementwise(
        b, "aten.clamp.default",
        {elementwise(b, "aten.div.Tensor", {range, float_arg(255.0)}, f32), float_arg(1.1920928955078125e-07), Argument{}}, f32);
    const Argument descaled_low = elementwise(b, "aten.div.Tensor", {low, scale}, f32);
    const Argument descaled_high = elementwise(b, "aten.div.Tensor", {high, scale}, f32);
    const Argument error_low = elementwise(b, "aten.add.Tensor", {descaled_low, float_arg(-128.0)}, f32);
    const Argument error_high = elementwise(b, "aten.add.Tensor", {descaled_high, float_arg(127.0)}, f32);
    const Argument sum = elementwise(b, "aten.add.Tensor", {error_low, error_high}, f32);
    const Argument positive = b.op("aten.gt.Scalar", {sum, float_arg(0.0)}, contiguous_meta(DType::Bool, b.meta(sum).sizes));
    // qmin - descaled_min and qmax - descaled_max: a Python int minus a float32 tensor.
    const Argument from_low = elementwise(b, "aten.sub.Tensor", {scalar_tensor(b, -128.0, f32), descaled_low}, f32);
    const Argument from_high = elementwise(b, "aten.sub.Tensor", {scalar_tensor(b, 127.0, f32), descaled_high}, f32);
    const Argument chosen = elementwise(b, "aten.where.self", {positive, from_low, from_high}, f32);
    const Argument clamped = elementwise(b, "aten.clamp.default", {chosen, float_arg(-128.0), float_arg(127.0)}, f32);
    const Argument rounded = elementwise(b, "aten.round.default", {clamped}, f32);
    b.output(0, "aten._to_copy.default", {scale}, {{"dtype", dtype_arg(DType::Float64)}});
    b.output(1, "aten._to_copy.default", {rounded}, {{"dtype", dtype_arg(DType::Int64)}});
}

// The dtype eager's `a * b` of two tensors of one or more dims takes: the wider float.
DType wider_float_of(DType a, DType b) { return a == DType::Float64 || b == DType::Float64 ? DType::Float64 : DType::Float32; }

// quantize_per_token(input, scales, zero_points, quant_min, quant_max, dtype):
// input.mul(1.0 / scales).add(zero_points).round().clamp(quant_min, quant_max).to(dtype), the
// product in the wider of the input's and the scales' dtypes (float64 scales: float64).
void quantize_per_token(Builder& b) {
    const DType dtype = target_dtype(b, 5);
    const Argument x = float_input(b);
    const Argument scales = b.arg(1, "scales");
    const Argument zero_points = b.arg(2, "zero_points");
    const DType scale_dtype = b.meta(scales).dtype;
    if (!is_floating(scale_dtype)) b.refuse("has integer scales; eager's are float");
    const DType compute = wider_float_of(DType::Float32, scale_dtype);
    const Argument inverse = elementwise(b, "aten.reciprocal.default", {scales}, scale_dtype);
    const Argument scaled = elementwise(b, "aten.mul.Tensor", {x, inverse}, compute);
    const Argument shifted = elementwise(b, "aten.add.Tensor", {scaled, zero_points}, compute);
    const Argument rounded = elementwise(b, "aten.round.default", {shifted}, compute);
    const Argument clamped = elementwise(b, "aten.clamp.default", {rounded, b.arg(3, "quant_min"), b.arg(4, "quant_max")}, compute);
    b.output(0, "aten._to_copy.default", {clamped}, {{"dtype", dtype_arg(dtype)}});
}

// dequantize_per_token(input, scales, zero_points, quant_min, quant_max, dtype, output_dtype):
// ((input - zero_points) * scales).to(output_dtype), the difference in integers.
void dequantize_per_token(Builder& b) {
    const Argument q = integer_input(b, 5);
    const Argument scales = b.arg(1, "scales");
    const Argument zero_points = b.arg(2, "zero_points");
    const DType zp_dtype = b.meta(zero_points).dtype;
    const DType scale_dtype = b.meta(scales).dtype;
    if (!is_floating(scale_dtype)) b.refuse("has integer scales; eager's are float");
    const Argument& output_dtype = b.arg(6, "output_dtype");
    const DType out = output_dtype.kind == Kind::ScalarType ? output_dtype.dtype : DType::Float32;
    DType difference = DType::Int32;
    if (is_floating(zp_dtype)) difference = zp_dtype;
    else if (zp_dtype == DType::Int64 || b.meta(q).dtype == DType::Int64) difference = DType::Int64;
    const Argument centred = elementwise(b, "aten.sub.Tensor", {q, zero_points}, difference);
    const DType product_dtype = is_floating(difference) ? wider_float_of(difference, scale_dtype) : scale_dtype;
    const Argument product = elementwise(b, "aten.mul.Tensor", {centred, scales}, product_dtype);
    if (out == product_dtype) {
        b.output_is(0, product);
    } else {
        b.output(0, "aten._to_copy.default", {product}, {{"dtype", dtype_arg(out)}});
    }
}

// _int_mm(self [M, K] int8 or uint8, mat2 [K, N] int8) -> int32, torchao's dynamic int8 matmul
// (its CPU path quantizes activations to uint8). Each product of two int8 values is at most 2^14
// in magnitude (2^15 with a uint8 operand), so over at most 1,024 of them (512) every partial sum
// is an integer of at most 2^24, which float32 holds exactly in any order: the product of the
// operands converted to float32, then converted to int32, is eager's exact integer sum. A longer
// K is summed in slices of that many (each exact), the slices added in int32.
void int_mm(Builder& b) {
    const Argument a = b.arg(0, "self");
    const Argument w = b.arg(1, "mat2");
    const DType left_dtype = b.meta(a).dtype;
    if ((left_dtype != DType::Int8 && left_dtype != DType::UInt8) || b.meta(w).dtype != DType::Int8 || b.rank(a) != 2 ||
        b.rank(w) != 2) {
        b.refuse("multiplies other than an int8 or uint8 matrix by an int8 one; eager's _int_mm takes [M, K] and [K, N]");
    }
    const Dim depth = b.meta(a).sizes[1];
    if (!depth.is_static()) b.refuse("has a symbolic inner dim; pt2ov needs it known when the program is exported");
    const int64_t kExactDepth = left_dtype == DType::UInt8 ? 512 : 1024;
    const int64_t k = depth.value.value();
    const Dim rows = b.meta(a).sizes[0];
    const Dim columns = b.meta(w).sizes[1];
    const Argument a32 = to_dtype(b, a, DType::Float32);
    const Argument w32 = to_dtype(b, w, DType::Float32);
    std::optional<Argument> sum;
    for (int64_t first = 0; first < k || (k == 0 && !sum); first += kExactDepth) {
        const int64_t last = std::min(k, first + kExactDepth);
        Argument left = a32, right = w32;
        if (first > 0 || last < k) {
            left = b.op("aten.slice.Tensor", {a32, int_arg(1), int_arg(first), int_arg(last), int_arg(1)},
                        contiguous_meta(DType::Float32, {rows, static_dim(last - first)}));
            right = b.op("aten.slice.Tensor", {w32, int_arg(0), int_arg(first), int_arg(last), int_arg(1)},
                         contiguous_meta(DType::Float32, {static_dim(last - first), columns}));
        }
        const Argument product = b.op("aten.mm.default", {left, right}, contiguous_meta(DType::Float32, {rows, columns}));
        const Argument exact = to_dtype(b, product, DType::Int32);
        sum = sum ? elementwise(b, "aten.add.Tensor", {*sum, exact}, DType::Int32) : exact;
        if (k == 0) break;
    }
    b.output_is(0, *sum);
}

// The schemes pt2ov does not run yet: one line naming the scheme and what to do instead.
Decomposition not_yet(std::string scheme) {
    return [scheme](Builder& b) {
        b.refuse(scheme + " is not supported yet; quantize per tensor or per channel with static scales (PT2E's "
                          "convert_pt2e, NNCF's quantize) or export the float model");
    };
}

}  // namespace

PT2OV_DECOMPOSITION("aten._int_mm.default", int_mm);
PT2OV_DECOMPOSITION("quantized_decomposed.quantize_per_tensor.default", quantize_per_tensor);
PT2OV_DECOMPOSITION("quantized_decomposed.quantize_per_tensor.tensor", quantize_per_tensor);
PT2OV_DECOMPOSITION("quantized_decomposed.quantize_per_tensor.tensor2", quantize_per_tensor);
PT2OV_DECOMPOSITION("quantized_decomposed.dequantize_per_tensor.default", dequantize_per_tensor);
PT2OV_DECOMPOSITION("quantized_decomposed.dequantize_per_tensor.tensor", dequantize_per_tensor);
PT2OV_DECOMPOSITION("quantized_decomposed.dequantize_per_tensor.tensor2", dequantize_per_tensor);
PT2OV_DECOMPOSITION("quantized_decomposed.quantize_per_channel.default", quantize_per_channel);
PT2OV_DECOMPOSITION("quantized_decomposed.dequantize_per_channel.default", dequantize_per_channel);
PT2OV_DECOMPOSITION("quantized_decomposed.quantize_per_token.default", quantize_per_token);
PT2OV_DECOMPOSITION("quantized_decomposed.dequantize_per_token.default", dequantize_per_token);
PT2OV_DECOMPOSITION("quantized_decomposed.quantize_per_channel_group.default",
                    not_yet("per-group quantization (quantize_per_channel_group)"));
PT2OV_DECOMPOSITION("quantized_decomposed.dequantize_per_channel_group.default",
                    not_yet("per-group quantization (dequantize_per_channel_group)"));
PT2OV_DECOMPOSITION("quantized_decomposed.choose_qparams.tensor", not_yet("dynamic quantization (choose_qparams)"));
PT2OV_DECOMPOSITION("quantized_decomposed.choose_qparams_symmetric.tensor",
                    not_yet("dynamic quantization (choose_qparams_symmetric)"));
PT2OV_DECOMPOSITION("quantized_decomposed.choose_qparams_per_token.default",
                    not_yet("dynamic quantization (choose_qparams_per_token)"));
PT2OV_DECOMPOSITION("quantized_decomposed.choose_qparams_per_token_asymmetric.default", choose_qparams_per_token_asymmetric);
PT2OV_DECOMPOSITION("quantized_decomposed._choose_qparams_per_token_asymmetric_impl.default", choose_qparams_per_token_asymmetric);
PT2OV_DECOMPOSITION("quantized_decomposed.fake_quant_per_channel.default", not_yet("fake quantization (fake_quant_per_channel)"));
PT2OV_DECOMPOSITION("quantized_decomposed.convert_element_type.no_fuse", not_yet("convert_element_type.no_fuse"));

}  // namespace pt2ov::graph::decompose
