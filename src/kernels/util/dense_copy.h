// Dense copies, for kernels that compute over a whole tensor in one float type
// (normalization, recurrent layers).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/tensor.h"
#include "kernels/util/element_types.h"

namespace pt2ov::kernels {

// ---- Dense copies ---------------------------------------------------------------------------
// For kernels that compute over a whole tensor in one float type (normalization, recurrent
// layers): its elements as a row-major vector, converted as copy_into converts, and back.

template <typename T>
inline constexpr DType dense_dtype_v = std::is_same_v<T, double> ? DType::Float64 : DType::Float32;

template <typename T>
std::vector<T> dense_values(const StridedTensor& tensor) {
    StridedTensor dense = StridedTensor::allocate_for_overwrite(dense_dtype_v<T>, tensor.sizes);
    copy_into(tensor, dense);
    const auto* data = reinterpret_cast<const T*>(dense.data);
    return std::vector<T>(data, data + dense.numel());
}

template <typename T>
StridedTensor tensor_of_values(const std::vector<T>& values, std::vector<int64_t> sizes, DType dtype) {
    StridedTensor dense = StridedTensor::allocate_for_overwrite(dense_dtype_v<T>, sizes);
    std::copy(values.begin(), values.end(), reinterpret_cast<T*>(dense.data));
    if (dtype == dense.dtype) return dense;
    StridedTensor out = StridedTensor::allocate_for_overwrite(dtype, std::move(sizes));
    copy_into(dense, out);
    return out;
}

}  // namespace pt2ov::kernels
