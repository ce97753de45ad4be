// Scalars and operands, as PyTorch's Scalar and TensorIterator read them.
#include "kernels/util/operands.h"
#include "kernels/dispatch.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <numeric>

#include "graph/graph.h"

namespace pt2ov::kernels {

// ---- Scalars -------------------------------------------------------------------------------

double scalar_to_double(const Scalar& s) {
    return std::visit([](auto v) { return static_cast<double>(v); }, s);
}

int64_t scalar_to_int(const Scalar& s) {
    if (const auto* d = std::get_if<double>(&s)) return float_to_integer<int64_t>(*d);
    if (const auto* b = std::get_if<bool>(&s)) return *b ? 1 : 0;
    return std::get<int64_t>(s);
}

bool scalar_to_bool(const Scalar& s) {
    return std::visit([](auto v) { return v != decltype(v)(0); }, s);
}

bool scalar_is_floating(const Scalar& s) { return std::holds_alternative<double>(s); }

DType scalar_dtype(const Scalar& s) {
    if (std::holds_alternative<double>(s)) return DType::Float64;
    if (std::holds_alternative<bool>(s)) return DType::Bool;
    return DType::Int64;
}

StridedTensor scalar_tensor_of(const Scalar& s) { return scalar_tensor_as(s, scalar_dtype(s)); }

StridedTensor scalar_tensor_as(const Scalar& s, DType dtype) {
    StridedTensor t = StridedTensor::allocate(dtype, {});
    visit_dtype(dtype, [&]<typename T>() {
        std::visit([&](auto v) { store<T>(t.data, cast<T>(v)); }, s);
    });
    return t;
}

// ---- Operands ------------------------------------------------------------------------------

TypeOperand Operand::type_operand() const {
    if (!tensor) return {scalar_dtype(number), TypeOperand::Kind::Number};
    return {tensor->dtype, tensor->rank() == 0 ? TypeOperand::Kind::ZeroDim : TypeOperand::Kind::Dimensioned};
}

double Operand::scalar_value() const {
    if (!tensor) return scalar_to_double(number);
    return visit_dtype(tensor->dtype, [&]<typename T>() { return static_cast<double>(load<T>(tensor->data)); });
}

StridedTensor Operand::as_dtype(DType dtype) const {
    if (!tensor) return scalar_tensor_as(number, dtype);
    return tensor->dtype == dtype ? *tensor : contiguous_as(*tensor, dtype);
}

Operand read_operand(const KernelCall& call, ArgName name, size_t position) {
    const graph::Argument* a = call.arg(name, position);
    if (a && a->kind == graph::Argument::Kind::Tensor) return Operand{call.tensor(name, position), int64_t{0}};
    return Operand{std::nullopt, call.scalar(name, position)};
}

DType common_dtype(const KernelCall& call, const std::vector<const Operand*>& operands) {
    std::vector<TypeOperand> types;
    std::string names;
    for (const Operand* operand : operands) {
        types.push_back(operand->type_operand());
        names += (names.empty() ? "" : ", ") + std::string(dtype_name(types.back().dtype));
    }
    const auto dtype = result_type(types);
    if (!dtype) call.fail("the operand dtypes (" + names + ") do not promote to a common dtype");
    return *dtype;
}

}  // namespace pt2ov::kernels
