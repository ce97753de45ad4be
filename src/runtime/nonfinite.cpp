#include "runtime/nonfinite.h"

#include <algorithm>
#include <cstdint>

namespace pt2ov::runtime {

namespace {

// Any element whose exponent field (`exponent`, its bits in the word) is all ones: NaN or
// +-inf. Blocks of 4096 elements are reduced without a branch, so that the compiler vectorizes
// the loop; the scan stops at the first block that holds one.
template <typename Bits>
bool any_exponent_all_ones(const Bits* bits, int64_t count, Bits exponent) {
    constexpr int64_t kBlock = 4096;
    for (int64_t start = 0; start < count; start += kBlock) {
        const int64_t end = std::min(count, start + kBlock);
        Bits found = 0;
        for (int64_t i = start; i < end; ++i) found |= static_cast<Bits>((bits[i] & exponent) == exponent);
        if (found) return true;
    }
    return false;
}

}  // namespace

bool holds_nonfinite(const Tensor& tensor) {
    if (!tensor.data()) return false;
    const int64_t count = tensor.numel();
    switch (tensor.dtype()) {
        case DType::Float32:
            return any_exponent_all_ones(static_cast<const uint32_t*>(tensor.data()), count, uint32_t{0x7f800000u});
        case DType::Float64:
            return any_exponent_all_ones(static_cast<const uint64_t*>(tensor.data()), count, uint64_t{0x7ff0000000000000ull});
        case DType::Float16:
            return any_exponent_all_ones(static_cast<const uint16_t*>(tensor.data()), count, uint16_t{0x7c00u});
        case DType::BFloat16:
            return any_exponent_all_ones(static_cast<const uint16_t*>(tensor.data()), count, uint16_t{0x7f80u});
        default:
            return false;
    }
}

int first_nonfinite(const std::vector<Tensor>& inputs) {
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (holds_nonfinite(inputs[i])) return static_cast<int>(i);
    }
    return -1;
}

bool cheap_to_scan(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) {
    int64_t read = 0;
    for (const auto& input : inputs) read += input.numel();
    int64_t floating = 0;
    for (const auto& output : outputs) {
        if (dtype_is_floating(output.dtype())) floating += output.numel();
    }
    return floating <= 2 * read + 65536;
}

}  // namespace pt2ov::runtime
