// PyTorch's type promotion (c10's promote_types and result_type).
#include "kernels/util/dtype_dispatch.h"
#include "kernels/dispatch.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <numeric>

#include "graph/graph.h"

namespace pt2ov::kernels {

bool dtype_is_integer(DType dtype) { return !dtype_is_floating(dtype) && dtype != DType::Bool; }

bool dtype_is_reduced_float(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

// ---- Type promotion ------------------------------------------------------------------------

namespace {

int float_rank(DType d) {
    switch (d) {
        case DType::Float16:
        case DType::BFloat16: return 1;
        case DType::Float32: return 2;
        default: return 3;
    }
}

int signed_rank(DType d) {
    switch (d) {
        case DType::Int8: return 1;
        case DType::Int16: return 2;
        case DType::Int32: return 3;
        default: return 4;
    }
}

std::optional<DType> promote_skip_undefined(std::optional<DType> a, std::optional<DType> b) {
    if (!a) return b;
    if (!b) return a;
    return promote_types(*a, *b);
}

// c10's combine_categories: a higher category wins, except that a bool or integer `higher`
// meets a floating `lower` by promotion.
std::optional<DType> combine_categories(std::optional<DType> higher, std::optional<DType> lower) {
    if (higher && dtype_is_floating(*higher)) return higher;
    if ((higher && *higher == DType::Bool) || (lower && dtype_is_floating(*lower))) {
        return promote_skip_undefined(higher, lower);
    }
    return higher ? higher : lower;
}

}  // namespace

std::optional<DType> promote_types(DType a, DType b) {
    if (a == b) return a;
    const bool a_float = dtype_is_floating(a);
    const bool b_float = dtype_is_floating(b);
    if (a_float && b_float) {
        if (float_rank(a) == 1 && float_rank(b) == 1) return DType::Float32;  // f16 with bf16
        return float_rank(a) >= float_rank(b) ? a : b;
    }
    if (a_float) return a;
    if (b_float) return b;
    if (a == DType::UInt16 || b == DType::UInt16) return std::nullopt;  // torch refuses these
    if (a == DType::Bool) return b;
    if (b == DType::Bool) return a;
    if (a == DType::UInt8 || b == DType::UInt8) {
        const DType other = a == DType::UInt8 ? b : a;
        return other == DType::Int8 ? DType::Int16 : other;
    }
    return signed_rank(a) >= signed_rank(b) ? a : b;
}

std::optional<DType> result_type(const std::vector<TypeOperand>& operands) {
    std::optional<DType> dimensioned, zero_dim, numbers;
    bool failed = false;
    auto fold = [&](std::optional<DType>& state, DType dtype) {
        const auto promoted = promote_skip_undefined(state, dtype);
        failed = failed || !promoted;
        state = promoted;
    };
    for (const auto& operand : operands) {
        switch (operand.kind) {
            case TypeOperand::Kind::Dimensioned: fold(dimensioned, operand.dtype); break;
            case TypeOperand::Kind::ZeroDim: fold(zero_dim, operand.dtype); break;
            case TypeOperand::Kind::Number:
                // A Python float counts as the default dtype (float32), an int as int64.
                fold(numbers, dtype_is_floating(operand.dtype) ? DType::Float32 : operand.dtype);
                break;
        }
    }
    if (failed) return std::nullopt;
    return combine_categories(dimensioned, combine_categories(zero_dim, numbers));
}

}  // namespace pt2ov::kernels
