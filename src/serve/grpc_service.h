// The gRPC half of the protocol: GRPCInferenceService of grpc_predict_v2.proto (ServerLive,
// ServerReady, ModelReady, ServerMetadata, ModelMetadata, ModelInfer), and the conversion of
// its messages to and from the protocol-neutral InferRequest/InferResponse.
#pragma once

#include "grpc_predict_v2.grpc.pb.h"
#include "serve/inference.h"
#include "serve/server.h"

namespace pt2ov::serve {

// A ModelInferRequest as an InferRequest: each input from raw_input_contents (all inputs, in
// order) or from its typed `contents`. RequestError (BadRequest) naming the input at fault.
// Pure, for the fuzz target and the tests.
InferRequest decode_grpc_request(const inference::ModelInferRequest& message);

// An InferResponse as a ModelInferResponse: every output's bytes in raw_output_contents.
void encode_grpc_response(const InferResponse& response, inference::ModelInferResponse& message);

class InferenceService final : public inference::GRPCInferenceService::Service {
public:
    explicit InferenceService(const ServerState& state) : state_(state) {}

    grpc::Status ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                            inference::ServerLiveResponse* response) override;
    grpc::Status ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                             inference::ServerReadyResponse* response) override;
    grpc::Status ModelReady(grpc::ServerContext*, const inference::ModelReadyRequest* request,
                            inference::ModelReadyResponse* response) override;
    grpc::Status ServerMetadata(grpc::ServerContext*, const inference::ServerMetadataRequest*,
                                inference::ServerMetadataResponse* response) override;
    grpc::Status ModelMetadata(grpc::ServerContext*, const inference::ModelMetadataRequest* request,
                               inference::ModelMetadataResponse* response) override;
    grpc::Status ModelInfer(grpc::ServerContext*, const inference::ModelInferRequest* request,
                            inference::ModelInferResponse* response) override;

private:
    ServerState state_;
};

}  // namespace pt2ov::serve
