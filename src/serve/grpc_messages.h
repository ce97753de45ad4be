// The gRPC infer messages of grpc_predict_v2.proto to and from the protocol-neutral
// InferRequest/InferResponse. Needs protobuf only (no gRPC), so the fuzz target reaches it.
#pragma once

#include "grpc_predict_v2.pb.h"
#include "serve/request.h"

namespace pt2ov::serve {

// A ModelInferRequest as an InferRequest: each input from raw_input_contents (all inputs, in
// order) or from its typed `contents`. RequestError (BadRequest) naming the input at fault.
// Pure, for the fuzz target and the tests.
InferRequest decode_grpc_request(const inference::ModelInferRequest& message);

// An InferResponse as a ModelInferResponse: every output's bytes in raw_output_contents.
void encode_grpc_response(const InferResponse& response, inference::ModelInferResponse& message);

}  // namespace pt2ov::serve
