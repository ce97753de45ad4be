// Batch norm in inference form and in training form without running statistics, layer norm,
// instance norm and RMS norm. Computed in double over a dense copy (these run
// on the CPU only when kept off OpenVINO, where exactness matters more than speed; RMS norm in
// PyTorch's compute type, as its eps and rounding depend on it), written back in the input's dtype. The statistics outputs PyTorch also returns are filled as PyTorch
// fills them: empty for batch norm in inference form, mean and 1/std for layer norm.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

std::vector<double> per_channel(const KernelCall& call, ArgName name, size_t position, int64_t channels,
                                double fallback) {
    auto tensor = call.optional_tensor(name, position);
    if (!tensor) return std::vector<double>(static_cast<size_t>(channels), fallback);
    if (tensor->numel() != channels) call.fail(std::string(name.text()) + " must hold one value per channel");
    return dense_values<double>(*tensor);
}

std::vector<RuntimeValue> batch_norm_no_training(const KernelCall& call) {
    const StridedTensor& input = call.tensor("input", 0);
    if (input.rank() < 2) call.fail("expects an input of rank 2 or more (N, C, ...)");
    const int64_t channels = input.sizes[1];
    const auto weight = per_channel(call, "weight", 1, channels, 1.0);
    const auto bias = per_channel(call, "bias", 2, channels, 0.0);
    const auto mean = per_channel(call, "running_mean", 3, channels, 0.0);
    const auto var = per_channel(call, "running_var", 4, channels, 1.0);
    const double eps = call.float_arg("eps", 6, 1e-5);

    auto values = dense_values<double>(input);
    int64_t inner = 1;
    for (size_t d = 2; d < input.rank(); ++d) inner *= input.sizes[d];
    for (size_t i = 0; i < values.size(); ++i) {
        const auto c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
        values[i] = (values[i] - mean[c]) / std::sqrt(var[c] + eps) * weight[c] + bias[c];
    }
    const DType dtype = call.output_meta(0).dtype;
    return {RuntimeValue::of(tensor_of_values<double>(values, input.sizes, dtype)),
            RuntimeValue::of(StridedTensor::allocate(dtype, {0})), RuntimeValue::of(StridedTensor::allocate(dtype, {0}))};
}

std::vector<RuntimeValue> layer_norm(const KernelCall& call) {
    const StridedTensor& input = call.tensor("input", 0);
    const auto shape = call.ints("normalized_shape", 1);
    if (shape.size() > input.rank()) call.fail("normalized_shape has more dims than the input");
    int64_t inner = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (input.sizes[input.rank() - shape.size() + d] != shape[d]) call.fail("normalized_shape does not match the input");
        inner *= shape[d];
    }
    const auto weight = per_channel(call, "weight", 2, inner, 1.0);
    const auto bias = per_channel(call, "bias", 3, inner, 0.0);
    const double eps = call.float_arg("eps", 4, 1e-5);

    auto values = dense_values<double>(input);
    const int64_t outer = inner ? static_cast<int64_t>(values.size()) / inner : 0;
    std::vector<double> means(static_cast<size_t>(outer)), inv_std(static_cast<size_t>(outer));
    for (int64_t o = 0; o < outer; ++o) {
        double* row = values.data() + o * inner;
        double mean = 0;
        for (int64_t j = 0; j < inner; ++j) mean += row[j];
        mean /= static_cast<double>(inner);
        double var = 0;
        for (int64_t j = 0; j < inner; ++j) var += (row[j] - mean) * (row[j] - mean);
        var /= static_cast<double>(inner);
        const double rstd = 1.0 / std::sqrt(var + eps);
        for (int64_t j = 0; j < inner; ++j) row[j] = (row[j] - mean) * rstd * weight[j] + bias[j];
        means[o] = mean;
        inv_std[o] = rstd;
    }
    // Statistics keep the input's leading dims and 1 for each normalized dim.
    std::vector<int64_t> stat_sizes(input.sizes.begin(), input.sizes.end() - static_cast<std::ptrdiff_t>(shape.size()));
    stat_sizes.resize(input.rank(), 1);
    const DType dtype = call.output_meta(0).dtype;
    return {RuntimeValue::of(tensor_of_values<double>(values, input.sizes, dtype)),
            RuntimeValue::of(tensor_of_values<double>(means, stat_sizes, dtype)),
            RuntimeValue::of(tensor_of_values<double>(inv_std, stat_sizes, dtype))};
}

// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps): batch norm in
// training mode without running statistics (nothing to update): each channel normalized by its
// own mean and biased variance over the batch and every spatial position. Returns the output,
// the channels' means and their 1/sqrt(var + eps), as PyTorch's CPU kernel (which sums in double).
std::vector<RuntimeValue> batch_norm_no_stats(const KernelCall& call) {
    const StridedTensor& input = call.tensor("input", 0);
    if (input.rank() < 2) call.fail("expects an input of rank 2 or more (N, C, ...)");
    if (!dtype_is_floating(input.dtype)) call.fail("expects a floating input, got " + std::string(dtype_name(input.dtype)));
    if (!call.bool_arg("training", 3, true)) {
        call.fail("without running statistics batch norm must be in training mode (training=False has no statistics to use)");
    }
    const int64_t channels = input.sizes[1];
    const auto weight = per_channel(call, "weight", 1, channels, 1.0);
    const auto bias = per_channel(call, "bias", 2, channels, 0.0);
    const double eps = call.float_arg("eps", 5, 1e-5);

    auto values = dense_values<double>(input);
    int64_t inner = 1;
    for (size_t d = 2; d < input.rank(); ++d) inner *= input.sizes[d];
    const int64_t batch = input.sizes[0];
    const auto count = static_cast<double>(batch * inner);
    std::vector<double> means(static_cast<size_t>(channels)), inv_std(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
        auto each = [&](auto&& f) {
            for (int64_t n = 0; n < batch; ++n) {
                double* plane = values.data() + (n * channels + c) * inner;
                for (int64_t j = 0; j < inner; ++j) f(plane[j]);
            }
        };
        double sum = 0;
        each([&](double x) { sum += x; });
        const double mean = sum / count;
        double squares = 0;
        each([&](double x) { squares += (x - mean) * (x - mean); });
        const double rstd = 1.0 / std::sqrt(squares / count + eps);
        const auto k = static_cast<size_t>(c);
        each([&](double& x) { x = (x - mean) * rstd * weight[k] + bias[k]; });
        means[k] = mean;
        inv_std[k] = rstd;
    }
    // The statistics in their recorded dtype (float for a reduced-float input with float
    // parameters), or the output's when nobody reads them (None).
    const auto stat_dtype = [&](size_t index) {
        const auto& outputs = call.node().outputs;
        const bool recorded = index < outputs.size() && outputs[index].kind == graph::Argument::Kind::Tensor;
        return call.output_meta(recorded ? index : 0).dtype;
    };
    return {RuntimeValue::of(tensor_of_values<double>(values, input.sizes, call.output_meta(0).dtype)),
            RuntimeValue::of(tensor_of_values<double>(means, {channels}, stat_dtype(1))),
            RuntimeValue::of(tensor_of_values<double>(inv_std, {channels}, stat_dtype(2)))};
}

// rms_norm(input, normalized_shape, weight=None, eps=None) as PyTorch's CPU kernel computes it:
// x * rsqrt(mean(x * x over the normalized dims) + eps) * weight, f16/bf16 (and the weight) in
// float and rounded once; eps None is the epsilon of that compute type (float's for f16/bf16).
template <typename C>
StridedTensor rms_norm_of(const KernelCall& call, const StridedTensor& input, int64_t inner, DType dtype) {
    using V = std::conditional_t<std::is_same_v<C, double>, double, float>;
    const V eps = call.has("eps", 3) ? static_cast<V>(call.float_arg("eps", 3, 0.0)) : std::numeric_limits<V>::epsilon();
    const auto weight_tensor = call.optional_tensor("weight", 2);
    if (weight_tensor && weight_tensor->numel() != inner) call.fail("weight must have normalized_shape's sizes");
    const auto weight = weight_tensor ? dense_values<V>(*weight_tensor) : std::vector<V>{};
    auto values = dense_values<V>(input);
    const int64_t outer = inner ? static_cast<int64_t>(values.size()) / inner : 0;
    for (int64_t o = 0; o < outer; ++o) {
        V* row = values.data() + o * inner;
        // Summed in the compute type, as PyTorch does: a square beyond its range is inf there.
        V squares = 0;
        for (int64_t j = 0; j < inner; ++j) squares += row[j] * row[j];
        const V rstd = V(1) / std::sqrt(squares / static_cast<V>(inner) + eps);
        for (int64_t j = 0; j < inner; ++j) {
            row[j] = row[j] * rstd;
            if (!weight.empty()) row[j] = row[j] * weight[static_cast<size_t>(j)];
        }
    }
    return tensor_of_values<V>(values, input.sizes, dtype);
}

std::vector<RuntimeValue> rms_norm(const KernelCall& call) {
    const StridedTensor& input = call.tensor("input", 0);
    if (!dtype_is_floating(input.dtype)) call.fail("expects a floating input, got " + std::string(dtype_name(input.dtype)));
    const auto shape = call.ints("normalized_shape", 1);
    if (shape.size() > input.rank()) call.fail("normalized_shape has more dims than the input");
    int64_t inner = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (input.sizes[input.rank() - shape.size() + d] != shape[d]) {
            call.fail("normalized_shape " + shape_text(shape) + " does not match the input of shape " + shape_text(input.sizes));
        }
        inner *= shape[d];
    }
    const DType dtype = call.output_meta(0).dtype;
    return single(visit_floating(input.dtype, [&]<typename C>() { return rms_norm_of<C>(call, input, inner, dtype); }));
}

// The input's sizes, whose last dims (and the weight) must be normalized_shape.
std::optional<std::vector<ExpectedSizes>> rms_norm_shape(const ShapeQuery& query) {
    const auto input = query.sizes("input", 0);
    const auto normalized = query.ints("normalized_shape", 1);
    if (!input) return std::nullopt;
    if (normalized) {
        const size_t count = normalized->size();
        bool fits = count <= input->size();
        for (size_t d = 0; fits && d < count; ++d) {
            const auto size = (*input)[input->size() - count + d];
            fits = !size || *size == (*normalized)[d];
        }
        if (!fits) query.contradiction(fmt::format("its input of rank {} does not end in normalized_shape of {} dims", input->size(), count));
        if (const auto weight = query.sizes("weight", 2)) {
            bool same = weight->size() == count;
            for (size_t d = 0; same && d < count; ++d) same = !(*weight)[d] || *(*weight)[d] == (*normalized)[d];
            if (!same) query.contradiction("its weight does not have normalized_shape's sizes");
        }
    }
    return std::vector<ExpectedSizes>{*input};
}

// The input's sizes, and one mean and one 1/std per channel.
std::optional<std::vector<ExpectedSizes>> batch_norm_no_stats_shape(const ShapeQuery& query) {
    const auto input = query.sizes("input", 0);
    if (!input) return std::nullopt;
    if (input->size() < 2) query.contradiction(fmt::format("its input has {} dims where batch norm needs a channel dim", input->size()));
    const auto channels = (*input)[1];
    for (const auto& [name, position] : {std::pair{ArgName("weight"), 1}, {ArgName("bias"), 2}}) {
        const auto sizes = query.sizes(name, static_cast<size_t>(position));
        if (!sizes || !channels) continue;
        if (sizes->size() != 1 || ((*sizes)[0] && *(*sizes)[0] != *channels)) {
            query.contradiction(fmt::format("its {} must hold one value for each of the input's {} channels", name.text(), *channels));
        }
    }
    return std::vector<ExpectedSizes>{*input, {channels}, {channels}};
}

// instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
// cudnn_enabled): each (n, c) plane normalised by its own mean and biased variance when
// use_input_stats, else by the running statistics. The running statistics PyTorch would also
// update in place are not written (pt2ov never writes an input, E2); the result is what
// PyTorch returns (openvino_facts InstanceNormRunningStatsUsed).
std::vector<RuntimeValue> instance_norm(const KernelCall& call) {
    const StridedTensor& input = call.tensor("input", 0);
    if (input.rank() < 2) call.fail("expects an input of rank 2 or more (N, C, ...)");
    if (!dtype_is_floating(input.dtype)) call.fail("expects a floating input, got " + std::string(dtype_name(input.dtype)));
    const int64_t channels = input.sizes[1];
    const auto weight = per_channel(call, "weight", 1, channels, 1.0);
    const auto bias = per_channel(call, "bias", 2, channels, 0.0);
    const bool use_input_stats = call.bool_arg("use_input_stats", 5, true);
    std::vector<double> running_mean, running_var;
    if (!use_input_stats) {
        if (!call.optional_tensor("running_mean", 3) || !call.optional_tensor("running_var", 4)) {
            call.fail("use_input_stats=False needs running_mean and running_var");
        }
        running_mean = per_channel(call, "running_mean", 3, channels, 0.0);
        running_var = per_channel(call, "running_var", 4, channels, 1.0);
    }
    const double eps = call.float_arg("eps", 7, 1e-5);

    auto values = dense_values<double>(input);
    int64_t inner = 1;
    for (size_t d = 2; d < input.rank(); ++d) inner *= input.sizes[d];
    const int64_t planes = inner ? static_cast<int64_t>(values.size()) / inner : 0;
    for (int64_t plane = 0; plane < planes; ++plane) {
        const auto c = static_cast<size_t>(plane % channels);
        double* row = values.data() + plane * inner;
        double mean = 0, var = 0;
        if (use_input_stats) {
            for (int64_t j = 0; j < inner; ++j) mean += row[j];
            mean /= static_cast<double>(inner);
            for (int64_t j = 0; j < inner; ++j) var += (row[j] - mean) * (row[j] - mean);
            var /= static_cast<double>(inner);
        } else {
            mean = running_mean[c];
            var = running_var[c];
        }
        const double rstd = 1.0 / std::sqrt(var + eps);
        for (int64_t j = 0; j < inner; ++j) row[j] = (row[j] - mean) * rstd * weight[c] + bias[c];
    }
    return single(tensor_of_values<double>(values, input.sizes, call.output_meta(0).dtype));
}

// The input's sizes; the saved statistics have one size per channel in meta_batch_norm and none
// in PyTorch's CPU kernel, so their length is left unknown.
std::optional<std::vector<ExpectedSizes>> batch_norm_shape(const ShapeQuery& query) {
    const auto input = query.sizes("input", 0);
    if (!input) return std::nullopt;
    if (input->size() < 2) query.contradiction(fmt::format("its input has {} dims where batch norm needs a channel dim", input->size()));
    const auto channels = (*input)[1];
    for (const auto& [name, position] : {std::pair{ArgName("weight"), 1}, {ArgName("bias"), 2}, {ArgName("running_mean"), 3},
                                         {ArgName("running_var"), 4}}) {
        const auto sizes = query.sizes(name, static_cast<size_t>(position));
        if (!sizes || !channels) continue;
        if (sizes->size() != 1 || ((*sizes)[0] && *(*sizes)[0] != *channels)) {
            query.contradiction(fmt::format("its {} must hold one value for each of the input's {} channels", name.text(), *channels));
        }
    }
    return std::vector<ExpectedSizes>{*input, {std::nullopt}, {std::nullopt}};
}

std::optional<std::vector<ExpectedSizes>> instance_norm_shape(const ShapeQuery& query) {
    const auto input = query.sizes("input", 0);
    if (!input) return std::nullopt;
    return std::vector<ExpectedSizes>{*input};
}

// The input's sizes, and mean and 1/std [leading dims..., 1 for each normalized dim]; the input's
// last dims (and weight and bias) must be normalized_shape.
std::optional<std::vector<ExpectedSizes>> layer_norm_shape(const ShapeQuery& query) {
    const auto input = query.sizes("input", 0);
    const auto normalized = query.ints("normalized_shape", 1);
    if (!input) return std::nullopt;
    // A symbolic normalized_shape: the statistics still have the input's rank.
    if (!normalized) return std::vector<ExpectedSizes>{*input, ExpectedSizes(input->size()), ExpectedSizes(input->size())};
    const size_t count = normalized->size();
    const auto mismatch = [&] {
        query.contradiction(fmt::format("its input of rank {} does not end in normalized_shape of {} dims", input->size(), count));
    };
    if (count > input->size()) mismatch();
    const size_t leading = input->size() - count;
    for (size_t d = 0; d < count; ++d) {
        const auto size = (*input)[leading + d];
        if (size && *size != (*normalized)[d]) mismatch();
    }
    for (const auto& [name, position] : {std::pair{ArgName("weight"), 2}, {ArgName("bias"), 3}}) {
        const auto sizes = query.sizes(name, static_cast<size_t>(position));
        if (!sizes) continue;
        bool same = sizes->size() == count;
        for (size_t d = 0; same && d < count; ++d) same = !(*sizes)[d] || *(*sizes)[d] == (*normalized)[d];
        if (!same) query.contradiction(fmt::format("its {} does not have normalized_shape's sizes", name.text()));
    }
    ExpectedSizes statistics(input->begin(), input->begin() + static_cast<std::ptrdiff_t>(leading));
    statistics.resize(input->size(), 1);
    return std::vector<ExpectedSizes>{*input, statistics, statistics};
}

PT2OV_KERNEL("aten._native_batch_norm_legit_no_training.default", batch_norm_no_training, batch_norm_shape);
PT2OV_KERNEL("aten._native_batch_norm_legit.no_stats", batch_norm_no_stats, batch_norm_no_stats_shape);
PT2OV_KERNEL("aten.instance_norm.default", instance_norm, instance_norm_shape);
PT2OV_KERNEL("aten.rms_norm.default", rms_norm, rms_norm_shape);
PT2OV_KERNEL("aten.native_layer_norm.default", layer_norm, layer_norm_shape);

}  // namespace
}  // namespace pt2ov::kernels
