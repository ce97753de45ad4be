// Cumulative ops along one dim: cumprod, cummax / cummin (values and int64 indices) and
// logcumsumexp. Each accumulates as PyTorch's CPU kernels do: in the result dtype's CPU
// accumulate type (double for float and double, float for float16 and bfloat16, int64 for
// integers), rounding each partial result once.
#include <cmath>
#include <limits>

#include "kernels/dispatch.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

// PyTorch's at::acc_type<T, /*is_cuda=*/false>.
template <typename T>
using cpu_accumulate_t = std::conditional_t<is_reduced_float_v<T>, float,
                                            std::conditional_t<is_floating_v<T>, double, int64_t>>;

// The lines along `dim` of `self` and of each output (each of self's sizes), to walk together:
// the kept dims outside, each line's element offsets inside.
struct ScanLayout {
    Reduction input;
    std::vector<Reduction> outputs;
};

ScanLayout plan_scan(const StridedTensor& self, int64_t dim, const std::vector<StridedTensor>& outputs) {
    const std::vector<int64_t> dims = self.rank() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
    ScanLayout layout{plan_reduction(self, dims, true), {}};
    for (const auto& out : outputs) layout.outputs.push_back(plan_reduction(out, dims, true));
    return layout;
}

int64_t scan_dim(const KernelCall& call, const StridedTensor& self) {
    return normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()));
}

// cumprod(self, dim, *, dtype=None): the running product in the recorded result dtype (dtype=,
// else int64 for integer and bool inputs). The input is first cast to the result dtype, as
// PyTorch does.
std::vector<RuntimeValue> cumprod(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t dim = scan_dim(call, self);
    const DType dtype = call.output_meta(0).dtype;
    if (dtype == DType::Bool) call.fail("cumprod into bool is not supported");
    StridedTensor out = allocate_output(call, 0, self.sizes, dtype);
    const StridedTensor in = self.dtype == dtype ? self : contiguous_as(self, dtype);
    const ScanLayout layout = plan_scan(in, dim, {out});
    const Reduction& at = layout.outputs[0];
    visit_dtype(dtype, [&]<typename T>() {
        using Acc = cpu_accumulate_t<T>;
        for_each_element<2>(layout.input.kept_sizes, {&at.kept_input, &layout.input.kept_input},
                            [&](const std::array<std::byte*, 2>& p) {
                                Acc product = 1;
                                for (size_t i = 0; i < at.reduced_bytes.size(); ++i) {
                                    const auto v = load<T>(p[1] + layout.input.reduced_bytes[i]);
                                    if constexpr (std::is_integral_v<Acc>) {
                                        // Wrapping, as int64 arithmetic does in PyTorch.
                                        product = static_cast<Acc>(static_cast<uint64_t>(product) *
                                                                   static_cast<uint64_t>(static_cast<int64_t>(v)));
                                    } else {
                                        product *= static_cast<Acc>(v);
                                    }
                                    store<T>(p[0] + at.reduced_bytes[i], cast<T>(product));
                                }
                            });
    });
    return single(out);
}

// cummax / cummin(self, dim) -> (values, indices): the running extreme and the index where it
// was last reached (a later equal element takes over); NaN takes over and stays, each later
// NaN moving the index to itself.
std::vector<RuntimeValue> cumulative_extreme(const KernelCall& call, bool maximum) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t dim = scan_dim(call, self);
    StridedTensor values = allocate_output(call, 0, self.sizes, self.dtype);
    StridedTensor indices = allocate_output(call, 1, self.sizes, DType::Int64);
    const ScanLayout layout = plan_scan(self, dim, {values, indices});
    const Reduction &at_values = layout.outputs[0], &at_indices = layout.outputs[1];
    visit_dtype(self.dtype, [&]<typename T>() {
        for_each_element<3>(layout.input.kept_sizes,
                            {&at_values.kept_input, &at_indices.kept_input, &layout.input.kept_input},
                            [&](const std::array<std::byte*, 3>& p) {
                                const auto& offsets = layout.input.reduced_bytes;
                                if (offsets.empty()) return;
                                auto best = load<T>(p[2] + offsets[0]);
                                int64_t best_index = 0;
                                for (size_t i = 0; i < offsets.size(); ++i) {
                                    const auto v = load<T>(p[2] + offsets[i]);
                                    bool take = maximum ? v >= best : v <= best;
                                    if constexpr (is_floating_v<T>) take = std::isnan(v) || (!std::isnan(best) && take);
                                    if (take) {
                                        best = v;
                                        best_index = static_cast<int64_t>(i);
                                    }
                                    store<T>(p[0] + at_values.reduced_bytes[i], best);
                                    store<int64_t>(p[1] + at_indices.reduced_bytes[i], best_index);
                                }
                            });
    });
    return {RuntimeValue::of(values), RuntimeValue::of(indices)};
}

// log(exp(x) + exp(y)) as PyTorch's _log_add_exp_helper: NaN propagates, two equal infinities
// give themselves.
template <typename V>
V log_add_exp(V x, V y) {
    const V low = std::isnan(y) ? y : std::min(x, y);
    const V high = std::isnan(y) ? y : std::max(x, y);
    if (low != high || std::isfinite(low)) return std::log1p(std::exp(low - high)) + high;
    return x;
}

// logcumsumexp(self, dim): floating inputs only, the input's dtype.
std::vector<RuntimeValue> logcumsumexp(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t dim = scan_dim(call, self);
    const DType dtype = call.output_meta(0).dtype;
    if (!dtype_is_floating(self.dtype) || dtype != self.dtype) {
        call.fail("logcumsumexp needs a floating input, got " + std::string(dtype_name(self.dtype)));
    }
    StridedTensor out = allocate_output(call, 0, self.sizes, dtype);
    const ScanLayout layout = plan_scan(self, dim, {out});
    const Reduction& at = layout.outputs[0];
    visit_floating(dtype, [&]<typename T>() {
        using Acc = cpu_accumulate_t<T>;
        for_each_element<2>(layout.input.kept_sizes, {&at.kept_input, &layout.input.kept_input},
                            [&](const std::array<std::byte*, 2>& p) {
                                Acc total = -std::numeric_limits<Acc>::infinity();
                                for (size_t i = 0; i < at.reduced_bytes.size(); ++i) {
                                    const auto v = static_cast<Acc>(load<T>(p[1] + layout.input.reduced_bytes[i]));
                                    total = log_add_exp(v, total);
                                    store<T>(p[0] + at.reduced_bytes[i], cast<T>(total));
                                }
                            });
    });
    return single(out);
}

// Every kernel here keeps the sizes of `self`.
PT2OV_FILE_SHAPE_CONTRACT(same_as_self);

PT2OV_KERNEL("aten.cumprod.default", cumprod);
PT2OV_KERNEL("aten.cummax.default", [](const KernelCall& c) { return cumulative_extreme(c, true); });
PT2OV_KERNEL("aten.cummin.default", [](const KernelCall& c) { return cumulative_extreme(c, false); });
PT2OV_KERNEL("aten.logcumsumexp.default", logcumsumexp);

}  // namespace
}  // namespace pt2ov::kernels
