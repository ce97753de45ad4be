// linalg_vector_norm: the p-norm of the elements over dims (all of them when dim is None or
// empty), accumulated as ATen's CPU kernel accumulates it. In double for float64 input or
// dtype=float64 (OpenVINO's CPU plugin computes float64 in float32, so a norm of float64 values
// came back at float32 precision and inf as float32's largest value); in float for float32,
// float16 and bfloat16, so that it overflows and underflows where PyTorch's does (the 2-norm of
// [2e19, 2e19] is inf, of [1e-20, 1e-20] 0; F.normalize of a row holding 3.4e38 gives 0). A
// reduction over one element is |x| in PyTorch whatever the order (1e36, not inf), and here too.
#include <cmath>
#include <limits>

#include "kernels/dispatch.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

std::vector<RuntimeValue> vector_norm(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const double ord = call.has("ord", 1) ? scalar_to_double(call.scalar("ord", 1)) : 2.0;
    std::vector<int64_t> dims;
    if (call.has("dim", 2)) dims = normalize_dims(call, call.ints("dim", 2), static_cast<int64_t>(self.rank()));
    const Reduction r = plan_reduction(self, dims, call.bool_arg("keepdim", 3, false));
    const DType dtype = call.output_meta(0).dtype;
    if (!dtype_is_floating(dtype) || !dtype_is_floating(self.dtype)) {
        call.fail("linalg_vector_norm of " + std::string(dtype_name(self.dtype)) + " into " + std::string(dtype_name(dtype)) +
                  ": only real floating inputs and results are supported");
    }
    if (std::isinf(ord) && r.reduced_count() == 0) {
        call.fail("linalg_vector_norm cannot compute the " + std::string(ord > 0 ? "inf" : "-inf") +
                  " norm over no elements (input shape " + shape_text(self.sizes) + ")");
    }
    StridedTensor folded = StridedTensor::allocate(DType::Float64, r.kept_sizes);
    const bool one_element = r.reduced_count() == 1;
    // With dtype=float64 ATen converts the input first: the norm is then accumulated in double.
    const bool in_double = self.dtype == DType::Float64 || dtype == DType::Float64;
    visit_floating(self.dtype, [&]<typename In>() {
        const auto reduce = [&]<typename Acc>() {
            for_each_element<2>(r.kept_sizes, {&folded, &r.kept_input}, [&](const std::array<std::byte*, 2>& p) {
                double result = 0;
                if (one_element && ord != 0) {
                    result = std::abs(static_cast<double>(load<In>(p[1] + r.reduced_bytes[0])));
                } else if (std::isinf(ord)) {
                    // max or min of |x|; NaN wins, as PyTorch's reduction propagates it.
                    result = ord > 0 ? 0.0 : std::numeric_limits<double>::infinity();
                    for (int64_t offset : r.reduced_bytes) {
                        const double a = std::abs(static_cast<double>(load<In>(p[1] + offset)));
                        if (std::isnan(a)) {
                            result = a;
                            break;
                        }
                        result = ord > 0 ? std::max(result, a) : std::min(result, a);
                    }
                } else if (ord == 0) {
                    // The count of nonzero elements (NaN counts: it is not zero).
                    for (int64_t offset : r.reduced_bytes) result += static_cast<double>(load<In>(p[1] + offset)) != 0.0;
                } else if (ord == 1) {
                    Acc sum = 0;
                    for (int64_t offset : r.reduced_bytes) sum += std::abs(static_cast<Acc>(load<In>(p[1] + offset)));
                    result = static_cast<double>(sum);
                } else if (ord == 2) {
                    Acc sum = 0;
                    for (int64_t offset : r.reduced_bytes) {
                        const Acc v = static_cast<Acc>(load<In>(p[1] + offset));
                        sum += v * v;
                    }
                    result = static_cast<double>(std::sqrt(sum));
                } else {
                    Acc sum = 0;
                    for (int64_t offset : r.reduced_bytes) {
                        sum += std::pow(std::abs(static_cast<Acc>(load<In>(p[1] + offset))), static_cast<Acc>(ord));
                    }
                    result = static_cast<double>(std::pow(sum, static_cast<Acc>(1.0 / ord)));
                }
                std::memcpy(p[0], &result, sizeof(double));
            });
        };
        if (in_double) {
            reduce.template operator()<double>();
        } else {
            reduce.template operator()<float>();
        }
    });
    StridedTensor out = allocate_output(call, 0, r.out_sizes, dtype);
    copy_into(folded, r.kept_output(out));
    return single(out);
}

}  // namespace

// Every kernel here reduces `self` over `dim` (every dim when it has none), keeping size 1 with `keepdim`.
PT2OV_FILE_SHAPE_CONTRACT(reduced_self);

PT2OV_KERNEL("aten.linalg_vector_norm.default", vector_norm);

}  // namespace pt2ov::kernels
