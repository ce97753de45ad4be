// The values CPU kernels read and write: strided tensors in any dim order (views share memory
// through `owner`), and scalars (symbolic ints and numbers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "pt2ov/dtype.h"

namespace pt2ov::kernels {

struct StridedTensor {
    DType dtype = DType::Float32;
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;  // in elements
    std::byte* data = nullptr;     // the element at index (0, ..., 0)
    std::shared_ptr<void> owner;   // keeps the memory alive (null: memory owned elsewhere)

    size_t rank() const { return sizes.size(); }
    int64_t numel() const;
    size_t element_size() const { return dtype_size(dtype); }
    bool is_contiguous() const;  // row-major, size-1 dims ignored

    // New memory, 64-byte aligned, zero-filled, row-major.
    static StridedTensor allocate(DType dtype, std::vector<int64_t> sizes);
    // The same, not filled: for memory a producer (OpenVINO, a copy) writes whole.
    static StridedTensor allocate_for_overwrite(DType dtype, std::vector<int64_t> sizes);
    // New memory laid out in `dim_order` (outermost first), as torch.empty_like with a memory format.
    static StridedTensor allocate_in_order(DType dtype, std::vector<int64_t> sizes, const std::vector<int>& dim_order);
    // A view of the same memory with other sizes/strides/offset (elements).
    StridedTensor view(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset_elements = 0) const;
};

// Row-major strides for `sizes`.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);

// A number as PyTorch passes it to ops: int (also symbolic ints and bools as 0/1 where
// PyTorch does), float, or bool.
using Scalar = std::variant<int64_t, double, bool>;

struct RuntimeValue {
    std::variant<std::monostate, StridedTensor, Scalar> value;

    bool is_tensor() const { return std::holds_alternative<StridedTensor>(value); }
    bool is_scalar() const { return std::holds_alternative<Scalar>(value); }
    const StridedTensor& tensor() const;  // throws Error when not a tensor
    const Scalar& scalar() const;         // throws Error when not a scalar
    static RuntimeValue of(StridedTensor t) { return RuntimeValue{std::move(t)}; }
    static RuntimeValue of(Scalar s) { return RuntimeValue{s}; }
};

// Copies `source` into `destination` element by element, both of the same sizes, in any
// strides, converting dtype when they differ (as Tensor.copy_ does; float→int truncates toward
// zero, →bool is != 0). Exact for equal dtypes: the bits are copied (NaN payloads, -0.0,
// subnormals).
void copy_into(const StridedTensor& source, const StridedTensor& destination);

}  // namespace pt2ov::kernels
