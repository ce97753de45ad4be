// The Open Inference Protocol's tensor datatypes ("FP32", "INT64", ...) and pt2ov's dtypes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pt2ov/dtype.h"

namespace pt2ov::serve {

// The protocol's name of a pt2ov dtype. Every dtype pt2ov has, the protocol has too.
std::string_view protocol_datatype(DType dtype);

// The pt2ov dtype of a protocol datatype; nothing for the protocol's types pt2ov has no dtype
// for (UINT32, UINT64, BYTES) and for names the protocol does not have.
std::optional<DType> dtype_of_protocol(std::string_view datatype);

// Whether JSON can carry the dtype's values ("data" in REST, typed `contents` in gRPC): BF16 has
// no JSON form in the protocol and travels as binary data only.
bool has_json_form(DType dtype);

}  // namespace pt2ov::serve
