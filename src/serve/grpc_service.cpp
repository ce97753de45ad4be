#include "serve/grpc_service.h"

#include <fmt/format.h>

#include "common/text.h"
#include "serve/grpc_messages.h"
#include "serve/datatype.h"
#include "serve/error.h"

namespace pt2ov::serve {
namespace {

grpc::Status status_of(const RequestError& error) {
    const std::string message = client_message(error.what());
    switch (error.failure()) {
        case Failure::BadRequest: return {grpc::StatusCode::INVALID_ARGUMENT, message};
        case Failure::NotFound: return {grpc::StatusCode::NOT_FOUND, message};
        case Failure::TooLarge: return {grpc::StatusCode::RESOURCE_EXHAUSTED, message};
        case Failure::Exhausted: return {grpc::StatusCode::RESOURCE_EXHAUSTED, message};
        case Failure::Internal: return {grpc::StatusCode::INTERNAL, message};
    }
    return {grpc::StatusCode::INTERNAL, message};
}

// Runs `handle`, turning every exception into a status: none leaves the service.
template <typename Handle>
grpc::Status answer(Handle&& handle) {
    try {
        handle();
        return grpc::Status::OK;
    } catch (const RequestError& e) {
        return status_of(e);
    } catch (const std::exception& e) {
        return {grpc::StatusCode::INTERNAL, client_message(fmt::format("internal error: {}", e.what()))};
    }
}

void add_tensor_metadata(const std::vector<IOInfo>& infos,
                         google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>* out) {
    for (const auto& info : infos) {
        auto* tensor = out->Add();
        tensor->set_name(info.name);
        tensor->set_datatype(std::string(protocol_datatype(info.dtype)));
        for (int64_t dim : info.shape) tensor->add_shape(dim);
    }
}

}  // namespace

grpc::Status InferenceService::ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                                          inference::ServerLiveResponse* response) {
    response->set_live(true);
    return grpc::Status::OK;
}

grpc::Status InferenceService::ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                                           inference::ServerReadyResponse* response) {
    response->set_ready(true);
    return grpc::Status::OK;
}

grpc::Status InferenceService::ModelReady(grpc::ServerContext*, const inference::ModelReadyRequest* request,
                                          inference::ModelReadyResponse* response) {
    return answer([&] {
        state_.repository.find(request->name(), request->version());
        response->set_ready(true);
    });
}

grpc::Status InferenceService::ServerMetadata(grpc::ServerContext*, const inference::ServerMetadataRequest*,
                                              inference::ServerMetadataResponse* response) {
    response->set_name(kServerName);
    response->set_version(server_version());
    response->add_extensions("binary_tensor_data");
    return grpc::Status::OK;
}

grpc::Status InferenceService::ModelMetadata(grpc::ServerContext*, const inference::ModelMetadataRequest* request,
                                             inference::ModelMetadataResponse* response) {
    return answer([&] {
        const Model& model = state_.repository.find(request->name(), request->version());
        response->set_name(model.name);
        for (const auto& version : state_.repository.versions(model.name)) response->add_versions(version);
        response->set_platform("pt2ov");
        add_tensor_metadata(model.program.inputs(), response->mutable_inputs());
        add_tensor_metadata(model.program.outputs(), response->mutable_outputs());
    });
}

grpc::Status InferenceService::ModelInfer(grpc::ServerContext*, const inference::ModelInferRequest* request,
                                          inference::ModelInferResponse* response) {
    return answer([&] {
        Model& model = state_.repository.find(request->model_name(), request->model_version());
        InferRequest decoded = [&] {
            try {
                return decode_grpc_request(*request);
            } catch (const RequestError&) {
                model.metrics.requests.fetch_add(1, std::memory_order_relaxed);
                model.metrics.failures.fetch_add(1, std::memory_order_relaxed);
                throw;
            }
        }();
        encode_grpc_response(infer(model, decoded, state_.slots), *response);
    });
}

}  // namespace pt2ov::serve
