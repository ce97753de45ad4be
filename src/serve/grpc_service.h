// The gRPC half of the protocol: GRPCInferenceService of grpc_predict_v2.proto (ServerLive,
// ServerReady, ModelReady, ServerMetadata, ModelMetadata, ModelInfer) on gRPC C++'s sync server.
#pragma once

#include "grpc_predict_v2.grpc.pb.h"
#include "serve/server.h"

namespace pt2ov::serve {

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
