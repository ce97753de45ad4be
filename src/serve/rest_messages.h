// The REST infer request and response bodies of the Open Inference Protocol, with its
// binary-data extension: a JSON header, then (when the Inference-Header-Content-Length header
// gives the JSON's length) the binary data of the inputs that give a "binary_data_size"
// parameter, in their order. Decoding is pure (no model, no I/O), so the fuzz target and the
// unit tests reach it as the server does.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "serve/request.h"

namespace pt2ov::serve {

// Decodes an infer request body. `json_length`: the Inference-Header-Content-Length header's
// value, when given (the body's first json_length bytes are the JSON, the rest binary data).
// RequestError (BadRequest) naming the field or input at fault.
InferRequest decode_rest_request(std::string_view body, std::optional<size_t> json_length);

// The header's value as the client sent it: a decimal count of bytes, at most the body's size.
std::optional<size_t> parse_json_length(const std::string& header, size_t body_size);

struct RestBody {
    std::string body;
    std::optional<size_t> json_length;  // set when binary data follows the JSON
};

// Encodes an infer response: outputs marked binary as binary data after the JSON (each with
// its "binary_data_size" parameter), the others as JSON "data".
RestBody encode_rest_response(const InferResponse& response);

}  // namespace pt2ov::serve
