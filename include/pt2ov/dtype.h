// Element types as PyTorch names them. Shared by the public API and the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pt2ov {

enum class DType : uint8_t {
    Bool,
    UInt8,
    Int8,
    Int16,
    UInt16,
    Int32,
    Int64,
    Float16,
    BFloat16,
    Float32,
    Float64,
};

// Bytes per element.
size_t dtype_size(DType dtype);

// PyTorch's spelling: "float32", "int64", "bool", ...
std::string_view dtype_name(DType dtype);

// numpy's array-interface code for the dtype as it travels in .npy files ("<f4", "|b1", ...).
// bfloat16 has none: it travels as float32 (see README.md, "The command line"), so this returns "<f4" for it.
std::string_view dtype_npy_code(DType dtype);

bool dtype_is_floating(DType dtype);

}  // namespace pt2ov
