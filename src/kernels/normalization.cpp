// Batch norm in inference form and layer norm. Computed in double over a dense copy (these run
// on the CPU only when kept off OpenVINO, where exactness matters more than speed), written
// back in the input's dtype. The statistics outputs PyTorch also returns are filled as PyTorch
// fills them: empty for batch norm in inference form, mean and 1/std for layer norm.
#include <fmt/format.h>

#include <cmath>

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
PT2OV_KERNEL("aten.instance_norm.default", instance_norm, instance_norm_shape);
PT2OV_KERNEL("aten.native_layer_norm.default", layer_norm, layer_norm_shape);

}  // namespace
}  // namespace pt2ov::kernels
