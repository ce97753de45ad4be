// Ops whose result dtype PyTorch promotes from an integer input, or whose sign rules OpenVINO
// 2026.4.1 gets wrong (openvino_facts IntegerResultDtypeKept, GcdSignWithZero): cumsum (an
// integer or bool input gives int64), logsumexp (an integer input gives float32), gcd.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>

#include "kernels/dispatch.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

// cumsum(self, dim, *, dtype=None): the running sum along dim, in the recorded result dtype
// (dtype=, else int64 for integer and bool inputs, else the input's). Floats accumulate in
// double and round each partial sum once; integers wrap in 64 bits, then cast.
std::vector<RuntimeValue> cumsum(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto rank = static_cast<int64_t>(self.rank());
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), rank);
    const DType dtype = call.output_meta(0).dtype;
    const std::vector<int64_t> dims = rank == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
    const Reduction in = plan_reduction(self, dims, true);
    StridedTensor out = allocate_output(call, 0, self.sizes, dtype);
    const Reduction at = plan_reduction(out, dims, true);
    visit_dtype(self.dtype, [&]<typename In>() {
        visit_dtype(dtype, [&]<typename Out>() {
            for_each_element<2>(in.kept_sizes, {&at.kept_input, &in.kept_input}, [&](const std::array<std::byte*, 2>& p) {
                if constexpr (is_floating_v<Out>) {
                    double total = 0;
                    for (size_t i = 0; i < in.reduced_bytes.size(); ++i) {
                        total += static_cast<double>(load<In>(p[1] + in.reduced_bytes[i]));
                        store<Out>(p[0] + at.reduced_bytes[i], cast<Out>(is_reduced_float_v<Out> ? static_cast<float>(total) : total));
                    }
                } else {
                    uint64_t total = 0;
                    for (size_t i = 0; i < in.reduced_bytes.size(); ++i) {
                        total += static_cast<uint64_t>(cast<int64_t>(load<In>(p[1] + in.reduced_bytes[i])));
                        store<Out>(p[0] + at.reduced_bytes[i], cast<Out>(static_cast<int64_t>(total)));
                    }
                }
            });
        });
    });
    return single(out);
}

// logsumexp(self, dim, keepdim=False): log(sum(exp(x))) over dims, max-subtracted, in double;
// an integer input gives float32 (the recorded dtype). A row whose max is +-inf gives that max.
std::vector<RuntimeValue> logsumexp(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const DType dtype = call.output_meta(0).dtype;
    if (!dtype_is_floating(dtype)) call.fail("logsumexp needs a floating result, got " + std::string(dtype_name(dtype)));
    const auto rank = static_cast<int64_t>(self.rank());
    const auto dims = normalize_dims(call, call.ints("dim", 1), rank);
    const Reduction r = plan_reduction(self, rank == 0 ? std::vector<int64_t>{} : dims, call.bool_arg("keepdim", 2, false));
    StridedTensor result = StridedTensor::allocate(DType::Float64, r.kept_sizes);
    visit_dtype(self.dtype, [&]<typename In>() {
        for_each_element<2>(r.kept_sizes, {&result, &r.kept_input}, [&](const std::array<std::byte*, 2>& p) {
            double max = -std::numeric_limits<double>::infinity();
            bool nan = false;
            for (int64_t offset : r.reduced_bytes) {
                const double v = static_cast<double>(load<In>(p[1] + offset));
                nan |= std::isnan(v);
                max = std::max(max, v);
            }
            double value;
            if (nan) {
                value = std::numeric_limits<double>::quiet_NaN();
            } else if (std::isinf(max)) {
                value = max;
            } else {
                double sum = 0;
                for (int64_t offset : r.reduced_bytes) sum += std::exp(static_cast<double>(load<In>(p[1] + offset)) - max);
                value = max + std::log(sum);
            }
            std::memcpy(p[0], &value, sizeof(double));
        });
    });
    StridedTensor out = allocate_output(call, 0, r.out_sizes, dtype);
    copy_into(result, r.kept_output(out));
    return single(out);
}

// gcd(self, other): the greatest common divisor, never negative (gcd(0, -5) is 5), broadcast.
std::vector<RuntimeValue> gcd(const KernelCall& call) {
    const Operand a = read_operand(call, "self", 0), b = read_operand(call, "other", 1);
    const DType dtype = call.output_meta(0).dtype;
    if (!dtype_is_integer(dtype)) call.fail("gcd needs integer operands, got " + std::string(dtype_name(dtype)));
    return single(elementwise_binary(call, a, b, dtype, [&]<typename C>() {
        using V = compute_t<C>;
        return [](V x, V y) -> V {
            if constexpr (is_integer_v<V>) {
                // On magnitudes, as PyTorch's calc_gcd does; gcd(INT_MIN, 0) wraps back to INT_MIN.
                uint64_t u = x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
                uint64_t v = y < 0 ? 0 - static_cast<uint64_t>(y) : static_cast<uint64_t>(y);
                while (v != 0) {
                    const uint64_t t = u % v;
                    u = v;
                    v = t;
                }
                return static_cast<V>(u);
            } else {
                return x;
            }
        };
    }));
}

PT2OV_KERNEL("aten.cumsum.default", cumsum, same_as_self);
PT2OV_KERNEL("aten.logsumexp.default", logsumexp, reduced_self);
PT2OV_KERNEL("aten.gcd.default", gcd, elementwise_shape);

}  // namespace
}  // namespace pt2ov::kernels
