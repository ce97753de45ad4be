// Scalars and the operands of elementwise ops: a tensor or a number, and their common dtype.
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

#include "kernels/registry.h"
#include "kernels/util/dtype_dispatch.h"

namespace pt2ov::kernels {

// ---- Scalars -------------------------------------------------------------------------------

double scalar_to_double(const Scalar& s);
int64_t scalar_to_int(const Scalar& s);  // a double is truncated toward zero
bool scalar_to_bool(const Scalar& s);
bool scalar_is_floating(const Scalar& s);
DType scalar_dtype(const Scalar& s);  // int64, float64 or bool, as a wrapped number
// A 0-dim tensor of the scalar's own dtype (int64, float64 or bool).
StridedTensor scalar_tensor_of(const Scalar& s);
// A 0-dim tensor holding `s` cast to `dtype`.
StridedTensor scalar_tensor_as(const Scalar& s, DType dtype);

// One operand of an elementwise op: a tensor, or a number (a Scalar argument, or a number the
// exporter wrote where the schema has a tensor, as in add.Tensor(x, 2)).
struct Operand {
    std::optional<StridedTensor> tensor;
    Scalar number = int64_t{0};

    bool is_number() const { return !tensor.has_value(); }
    // A number or a 0-dim tensor: what PyTorch calls a CPU scalar.
    bool is_scalar() const { return !tensor || tensor->rank() == 0; }
    std::vector<int64_t> sizes() const { return tensor ? tensor->sizes : std::vector<int64_t>{}; }
    TypeOperand type_operand() const;
    // The value of a scalar operand as a double (the number, or the 0-dim tensor's element).
    double scalar_value() const;
    // A tensor of `dtype` (a number becomes a 0-dim tensor), converted as Tensor.to does.
    StridedTensor as_dtype(DType dtype) const;
};
Operand read_operand(const KernelCall& call, ArgName name, size_t position);
// The promoted dtype of several operands; fails naming the node when they do not promote.
DType common_dtype(const KernelCall& call, const std::vector<const Operand*>& operands);

}  // namespace pt2ov::kernels
