// softmax and log_softmax along one dim, max-subtracted so large inputs do not overflow. A
// float32 softmax to float32 runs in float (kernels/isa/float_math.h, the CPU's level of the ISA
// table: a vectorized exp of the exact difference from the max, the exponentials summed in
// double, each divided by the sum), within 3 ulp of the exact value, as PyTorch's float
// computation is within a few; every other case is computed in double and rounded once to the
// recorded result dtype (which carries half_to_float and dtype=).
#include <algorithm>
#include <cmath>

#include "kernels/dense_paths.h"
#include "kernels/cpu_isa.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

// One row, exactly: max-subtracted, in double. `safe` (_safe_softmax): a row that is all -inf
// gives zeros, where softmax gives NaN.
void softmax_row(std::vector<double>& row, bool log, bool safe = false) {
    double max = -INFINITY;
    for (double x : row) max = std::max(max, x);
    if (safe && max == -INFINITY && std::none_of(row.begin(), row.end(), [](double x) { return std::isnan(x); })) {
        std::fill(row.begin(), row.end(), 0.0);
        return;
    }
    double sum = 0;
    if (log) {
        for (double x : row) sum += std::exp(x - max);
        const double log_sum = std::log(sum);
        for (double& x : row) x = (x - max) - log_sum;
        return;
    }
    for (double& x : row) {  // each exponential computed once, kept for the division
        x = std::exp(x - max);
        sum += x;
    }
    for (double& x : row) x /= sum;
}

// PyTorch's f16/bf16 log_softmax over the last dim rounds the sum of exponentials and its log
// to the input's type before the final subtraction (serial_vec_log_softmax_lastdim_range);
// results differ from the exact ones by several units in the last place, so they are
// reproduced here step by step, in float.
void reduced_log_softmax_row(std::vector<double>& row, DType dtype) {
    auto round = [dtype](float v) {
        return dtype == DType::Float16 ? half_bits_to_float(float_to_half_bits(v))
                                       : bfloat16_bits_to_float(float_to_bfloat16_bits(v));
    };
    float max = -INFINITY;
    for (double x : row) max = std::max(max, static_cast<float>(x));
    float sum = 0;
    for (double x : row) sum += std::exp(static_cast<float>(x) - max);
    const float log_sum = round(std::log(round(sum)));
    for (double& x : row) x = static_cast<float>(x) - max - log_sum;
}

// softmax of float32 rows into float32 rows over the planned reduction: rows that are
// contiguous in both are read and written in place, others through a row buffer. `safe`: a
// row of -inf gives zeros.
void float_softmax(const Reduction& in, const Reduction& out, bool safe) {
    const auto length = static_cast<int64_t>(in.reduced_count());
    auto contiguous_rows = [length](const Reduction& r) {
        for (int64_t i = 0; i < length; ++i) {
            if (r.reduced_bytes[static_cast<size_t>(i)] != i * static_cast<int64_t>(sizeof(float))) return false;
        }
        return true;
    };
    const bool in_place = contiguous_rows(in) && contiguous_rows(out);
    const isa::MapF32 softmax_row = isa_kernels().softmax_row_f32;
    for_each_element_parallel<2>(in.kept_sizes, {&out.kept_input, &in.kept_input}, length * 8,
                                 [length, in_place] { return std::vector<float>(in_place ? 0 : 2 * static_cast<size_t>(length)); },
                                 [&](std::vector<float>& buffer, const std::array<std::byte*, 2>& p) {
        const float* row = reinterpret_cast<const float*>(p[1]);
        float* result = reinterpret_cast<float*>(p[0]);
        if (!in_place) {
            for (int64_t i = 0; i < length; ++i) std::memcpy(&buffer[static_cast<size_t>(i)], p[1] + in.reduced_bytes[static_cast<size_t>(i)], sizeof(float));
            row = buffer.data();
            result = buffer.data() + length;
        }
        if (safe && std::all_of(row, row + length, [](float x) { return x == -INFINITY; })) {
            std::fill(result, result + length, 0.0f);
        } else {
            softmax_row(row, result, length);
        }
        if (!in_place) {
            for (int64_t i = 0; i < length; ++i) std::memcpy(p[0] + out.reduced_bytes[static_cast<size_t>(i)], &result[i], sizeof(float));
        }
    });
}

std::vector<RuntimeValue> softmax(const KernelCall& call, bool log, bool safe = false) {
    const StridedTensor& self = call.tensor("self", 0);
    const DType dtype = call.output_meta(0).dtype;
    if (!dtype_is_floating(dtype)) call.fail("softmax needs a floating result, got " + std::string(dtype_name(dtype)));
    if (!dtype_is_floating(self.dtype) && self.dtype != dtype) {
        call.fail("softmax needs a floating input, got " + std::string(dtype_name(self.dtype)));
    }
    const auto rank = static_cast<int64_t>(self.rank());
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), rank);
    const std::vector<int64_t> dims = rank == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
    const bool reduced_last_dim = log && rank > 0 && dim == rank - 1 && self.dtype == dtype && dtype_is_reduced_float(dtype);
    const Reduction in = plan_reduction(self, dims, true);
    if (!log && self.dtype == DType::Float32 && dtype == DType::Float32 && self.numel() > 0) {
        StridedTensor final_out = allocate_output_for_overwrite(call, 0, self.sizes, dtype);  // every row written
        float_softmax(in, plan_reduction(final_out, dims, true), safe);
        return single(final_out);
    }
    StridedTensor result = StridedTensor::allocate_for_overwrite(DType::Float64, self.sizes);  // every row written
    const Reduction out = plan_reduction(result, dims, true);
    const auto length = static_cast<size_t>(in.reduced_count());
    visit_dtype(self.dtype, [&]<typename T>() {
        // Rows are independent, each computed by one thread.
        for_each_element_parallel<2>(in.kept_sizes, {&out.kept_input, &in.kept_input}, static_cast<int64_t>(length) * 8,
                                     [length] { return std::vector<double>(length); },
                                     [&](std::vector<double>& row, const std::array<std::byte*, 2>& p) {
            for (size_t i = 0; i < row.size(); ++i) row[i] = static_cast<double>(load<T>(p[1] + in.reduced_bytes[i]));
            if (reduced_last_dim) {
                reduced_log_softmax_row(row, dtype);
            } else {
                softmax_row(row, log, safe);
            }
            for (size_t i = 0; i < row.size(); ++i) std::memcpy(p[0] + out.reduced_bytes[i], &row[i], sizeof(double));
        });
    });
    StridedTensor final_out = allocate_output_for_overwrite(call, 0, self.sizes, dtype);  // copied in whole
    copy_into(result, final_out);
    return single(final_out);
}

// Every kernel here keeps the sizes of `self`.
PT2OV_FILE_SHAPE_CONTRACT(same_as_self);

PT2OV_KERNEL("aten._softmax.default", [](const KernelCall& c) { return softmax(c, false); });
PT2OV_KERNEL("aten.softmax.int", [](const KernelCall& c) { return softmax(c, false); });
// _safe_softmax(self, dim, dtype=None): softmax, but a row of -inf gives 0 (openvino_facts
// SafeSoftmaxMaskedRowsNaN: OpenVINO gives NaN).
PT2OV_KERNEL("aten._safe_softmax.default", [](const KernelCall& c) { return softmax(c, false, true); });
PT2OV_KERNEL("aten._log_softmax.default", [](const KernelCall& c) { return softmax(c, true); });
PT2OV_KERNEL("aten.log_softmax.int", [](const KernelCall& c) { return softmax(c, true); });

}  // namespace
}  // namespace pt2ov::kernels
