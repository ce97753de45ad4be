#include "pt2ov/dtype.h"

#include "pt2ov/error.h"

#include <iterator>
#include <stdexcept>
#include <string>

namespace pt2ov {

namespace {

// One row per dtype, so size, name and numpy code cannot drift apart.
struct DTypeInfo {
    size_t size;
    std::string_view name;
    std::string_view npy_code;
    bool floating;
};

const DTypeInfo& info(DType dtype) {
    static const DTypeInfo table[] = {
        /* Bool     */ {1, "bool", "|b1", false},
        /* UInt8    */ {1, "uint8", "|u1", false},
        /* Int8     */ {1, "int8", "|i1", false},
        /* Int16    */ {2, "int16", "<i2", false},
        /* UInt16   */ {2, "uint16", "<u2", false},
        /* Int32    */ {4, "int32", "<i4", false},
        /* Int64    */ {8, "int64", "<i8", false},
        /* Float16  */ {2, "float16", "<f2", true},
        // numpy has no bfloat16; it travels as float32, which holds every bf16 value exactly.
        /* BFloat16 */ {2, "bfloat16", "<f4", true},
        /* Float32  */ {4, "float32", "<f4", true},
        /* Float64  */ {8, "float64", "<f8", true},
    };
    const auto index = static_cast<size_t>(dtype);
    if (index >= std::size(table)) {
        // Only a cast from a bad integer gets here; throwing beats reading past the table.
        throw InputError("invalid DType value " + std::to_string(index) + ": use one of the pt2ov::DType names");
    }
    return table[index];
}

}  // namespace

size_t dtype_size(DType dtype) { return info(dtype).size; }

std::string_view dtype_name(DType dtype) { return info(dtype).name; }

std::string_view dtype_npy_code(DType dtype) { return info(dtype).npy_code; }

bool dtype_is_floating(DType dtype) { return info(dtype).floating; }

}  // namespace pt2ov
