// A tensor's contents as the Open Inference Protocol carries them, to and from pt2ov::Tensor:
// JSON values ("data" in REST, flat or nested, row-major) and raw bytes (REST's binary-data
// extension, gRPC's raw_input_contents/raw_output_contents: little-endian, row-major, no
// padding). Decoding checks everything a client controls (the element count against the shape,
// each value against the dtype's range, sizes that overflow) and throws RequestError naming
// `what` ("input 'x'"); it never trusts a size it has not checked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pt2ov/tensor.h"

namespace pt2ov::serve {

// The element count of a shape a request gives, checked: no negative dim, and the byte size
// (at `element_size` bytes an element) within 2^62. RequestError naming `what` otherwise.
int64_t checked_element_count(const std::vector<int64_t>& shape, size_t element_size, const std::string& what);

// The deepest nesting of "data" taken (a tensor's rank); a request is refused before it is
// parsed when nested deeper than this and the few levels around "data".
constexpr size_t kMaxDataNesting = 64;
constexpr size_t kMaxRequestNesting = kMaxDataNesting + 8;

// A tensor of `dtype` and `shape` from JSON values in row-major order, flat (one array of every
// value) or nested level by level as the shape is (an array of shape[0] arrays of shape[1] ...,
// values at the last level): BOOL from true/false, integers from JSON integers within the
// dtype's range, floats from JSON numbers within the dtype's finite range (FP16 and FP32
// rounded to nearest from the number's double; one beyond the largest finite value is refused,
// not made an infinity).
Tensor tensor_from_json(const nlohmann::json& data, DType dtype, const std::vector<int64_t>& shape,
                        const std::string& what);

// A tensor's values as a flat JSON array text, row-major. Floats are written so that a reader
// gets the same value back bit for bit (as the double the float widens to: shortest form);
// NaN and infinities, which JSON has no number for, as NaN, Infinity and -Infinity, which
// Python's json module and tritonclient read.
void append_json_values(std::string& out, const Tensor& tensor);

// A tensor of `dtype` and `shape` from raw bytes, copied into memory of its own (aligned as the
// engine wants it): exactly numel * element size bytes, a BOOL byte 0 or 1.
Tensor tensor_from_bytes(std::string_view bytes, DType dtype, const std::vector<int64_t>& shape,
                         const std::string& what);

// A tensor's bytes in place (raw form).
std::string_view tensor_bytes(const Tensor& tensor);

}  // namespace pt2ov::serve
