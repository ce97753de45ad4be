#include "serve/datatype.h"

#include <array>
#include <utility>

namespace pt2ov::serve {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 11> kDatatypes{{
    {DType::Bool, "BOOL"},
    {DType::UInt8, "UINT8"},
    {DType::Int8, "INT8"},
    {DType::Int16, "INT16"},
    {DType::UInt16, "UINT16"},
    {DType::Int32, "INT32"},
    {DType::Int64, "INT64"},
    {DType::Float16, "FP16"},
    {DType::BFloat16, "BF16"},
    {DType::Float32, "FP32"},
    {DType::Float64, "FP64"},
}};

}  // namespace

std::string_view protocol_datatype(DType dtype) {
    for (const auto& [candidate, name] : kDatatypes) {
        if (candidate == dtype) return name;
    }
    return "UNKNOWN";
}

std::optional<DType> dtype_of_protocol(std::string_view datatype) {
    for (const auto& [dtype, name] : kDatatypes) {
        if (name == datatype) return dtype;
    }
    return std::nullopt;
}

bool has_json_form(DType dtype) { return dtype != DType::BFloat16; }

}  // namespace pt2ov::serve
