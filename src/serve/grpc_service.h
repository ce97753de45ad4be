// The gRPC half of the protocol: GRPCInferenceService of grpc_predict_v2.proto (ServerLive,
// ServerReady, ModelReady, ServerMetadata, ModelMetadata, ModelInfer) on gRPC C++'s async API.
//
// Why async: gRPC's sync server woke a second thread for every call (the thread that read a call
// handed polling to another before it ran the handler), and its callback API (gRPC 1.51) ran
// handlers on threads of its own, more wake-ups still; a wake-up costs about 25 us on a 2-core
// virtual machine. Here a few threads of ours each own a completion queue: a call that takes
// microseconds (health, metadata, a light inference: runs_light) is answered on the thread that
// read it, a heavier one on a worker, so that it holds none of the queues' threads. After
// answering a call itself a thread polls its queue for busy_poll before it sleeps, as REST's
// event loops do.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "serve/server.h"

namespace pt2ov::serve {

class GrpcServer {
public:
    // Listens on options.host:options.grpc_port and serves on threads of its own. Throws
    // pt2ov::InputError when the address cannot be bound.
    GrpcServer(const ServerState& state, const ServeOptions& options);
    ~GrpcServer();
    GrpcServer(const GrpcServer&) = delete;
    GrpcServer& operator=(const GrpcServer&) = delete;

    // Finishes the calls in flight, then stops every thread.
    void stop();

    struct Impl;  // the server, its completion queues and threads, the workers (grpc_service.cpp)

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace pt2ov::serve
