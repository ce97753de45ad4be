// A dense row-major (contiguous) tensor as the public API passes it. It either views memory
// the caller owns (no copy, the caller keeps it alive for the call) or owns its buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "pt2ov/dtype.h"

namespace pt2ov {

class Tensor {
public:
    Tensor() = default;

    // Views `data` (not owned). `data` must hold numel(shape) elements of `dtype`.
    static Tensor view(DType dtype, std::vector<int64_t> shape, void* data);

    // Owns a new zero-filled buffer, 64-byte aligned.
    static Tensor allocate(DType dtype, std::vector<int64_t> shape);

    // Views `data`, keeping `owner` alive for as long as the tensor (or a copy of it) lives.
    static Tensor adopt(DType dtype, std::vector<int64_t> shape, void* data, std::shared_ptr<void> owner);

    // What keeps the memory alive; null for a view of caller memory.
    const std::shared_ptr<void>& owner() const { return owner_; }

    DType dtype() const { return dtype_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    size_t rank() const { return shape_.size(); }
    int64_t numel() const;
    size_t byte_size() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
    void* data() const { return data_; }
    template <typename T>
    T* data_as() const { return static_cast<T*>(data_); }
    bool empty_handle() const { return data_ == nullptr && shape_.empty(); }

private:
    DType dtype_ = DType::Float32;
    std::vector<int64_t> shape_;
    void* data_ = nullptr;
    std::shared_ptr<void> owner_;  // set when the tensor owns its buffer
};

}  // namespace pt2ov
