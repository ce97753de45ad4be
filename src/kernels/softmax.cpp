// softmax and log_softmax along one dim, max-subtracted so large inputs do not overflow;
// computed in double and rounded once to the recorded result dtype (which carries
// half_to_float and dtype=).
#include <cmath>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

std::vector<RuntimeValue> softmax(const KernelCall& call, bool log) {
    const StridedTensor& self = call.tensor("self", 0);
    const DType dtype = call.output_meta(0).dtype;
    if (!dtype_is_floating(dtype)) call.fail("softmax needs a floating result, got " + std::string(dtype_name(dtype)));
    if (!dtype_is_floating(self.dtype) && self.dtype != dtype) {
        call.fail("softmax needs a floating input, got " + std::string(dtype_name(self.dtype)));
    }
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()));
    const std::vector<int64_t> dims = self.rank() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
    const Reduction in = plan_reduction(self, dims, true);
    StridedTensor result = StridedTensor::allocate(DType::Float64, self.sizes);
    const Reduction out = plan_reduction(result, dims, true);
    std::vector<double> row(static_cast<size_t>(in.reduced_count()));
    visit_dtype(self.dtype, [&]<typename T>() {
        for_each_element<2>(in.kept_sizes, {&out.kept_input, &in.kept_input}, [&](const std::array<std::byte*, 2>& p) {
            double max = -INFINITY;
            for (size_t i = 0; i < row.size(); ++i) {
                row[i] = static_cast<double>(load<T>(p[1] + in.reduced_bytes[i]));
                max = std::max(max, row[i]);
            }
            double sum = 0;
            for (double x : row) sum += std::exp(x - max);
            for (size_t i = 0; i < row.size(); ++i) {
                const double value = log ? (row[i] - max) - std::log(sum) : std::exp(row[i] - max) / sum;
                std::memcpy(p[0] + out.reduced_bytes[i], &value, sizeof(double));
            }
        });
    });
    StridedTensor final_out = allocate_output(call, 0, self.sizes, dtype);
    copy_into(result, final_out);
    return single(final_out);
}

PT2OV_KERNEL("aten._softmax.default", [](const KernelCall& c) { return softmax(c, false); });
PT2OV_KERNEL("aten.softmax.int", [](const KernelCall& c) { return softmax(c, false); });
PT2OV_KERNEL("aten._log_softmax.default", [](const KernelCall& c) { return softmax(c, true); });
PT2OV_KERNEL("aten.log_softmax.int", [](const KernelCall& c) { return softmax(c, true); });

}  // namespace
}  // namespace pt2ov::kernels
