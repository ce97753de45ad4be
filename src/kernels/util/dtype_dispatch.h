// Dtype dispatch (a lambda called with the element type), NaN-aware orders, and PyTorch's
// type promotion.
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

#include "kernels/util/element_types.h"

namespace pt2ov::kernels {

// ---- Dtype dispatch ------------------------------------------------------------------------
// visit_dtype(dtype, [&]<typename T>() { ... }) calls the lambda with T the element type.

template <typename F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
    switch (dtype) {
        case DType::Bool: return f.template operator()<bool>();
        case DType::UInt8: return f.template operator()<uint8_t>();
        case DType::Int8: return f.template operator()<int8_t>();
        case DType::Int16: return f.template operator()<int16_t>();
        case DType::UInt16: return f.template operator()<uint16_t>();
        case DType::Int32: return f.template operator()<int32_t>();
        case DType::Int64: return f.template operator()<int64_t>();
        case DType::Float16: return f.template operator()<Half>();
        case DType::BFloat16: return f.template operator()<BFloat16>();
        case DType::Float32: return f.template operator()<float>();
        case DType::Float64: return f.template operator()<double>();
    }
    throw InternalError("unknown dtype in a CPU kernel");
}

// Only the floating types; anything else is a bug in the kernel's validation.
template <typename F>
decltype(auto) visit_floating(DType dtype, F&& f) {
    switch (dtype) {
        case DType::Float16: return f.template operator()<Half>();
        case DType::BFloat16: return f.template operator()<BFloat16>();
        case DType::Float32: return f.template operator()<float>();
        case DType::Float64: return f.template operator()<double>();
        default: break;
    }
    throw InternalError(std::string("a CPU kernel dispatched ") + std::string(dtype_name(dtype)) +
                " as a floating type");
}

// Whether a computed value (compute_t of any dtype) is NaN; never for integers and bools.
template <typename V>
bool is_nan(V v) {
    if constexpr (std::is_floating_point_v<V>) {
        return std::isnan(v);
    } else {
        return false;
    }
}

// PyTorch's orders for sorting and selection (sort, topk, kthvalue, unique, ...): NaN above
// every number, so ascending puts it last and descending first.
template <typename V>
bool less_nan_last(V a, V b) {
    return (!is_nan(a) && is_nan(b)) || a < b;
}
template <typename V>
bool greater_nan_first(V a, V b) {
    return (is_nan(a) && !is_nan(b)) || a > b;
}

bool dtype_is_integer(DType dtype);  // not bool, not floating
bool dtype_is_reduced_float(DType dtype);

// PyTorch's promote_types (uint16 promotes only with itself and floating types).
std::optional<DType> promote_types(DType a, DType b);

// One operand of PyTorch's result_type: a tensor with dims, a 0-dim tensor, or a number.
struct TypeOperand {
    enum class Kind { Dimensioned, ZeroDim, Number };
    DType dtype;
    Kind kind;
};
// c10's result_type: dimensioned tensors win over 0-dim ones over numbers within a category
// (bool < integer < floating); a number of a higher category gives that category's default
// (int64, float32). Null when the types do not promote.
std::optional<DType> result_type(const std::vector<TypeOperand>& operands);

}  // namespace pt2ov::kernels
