// `pt2ov serve`: the Open Inference Protocol (KServe v2) over REST (Boost.Beast) and gRPC
// (gRPC C++), answering from one ModelRepository. docs/SERVING.md describes it.
#pragma once

#include <cstddef>
#include <string>

#include "serve/inference.h"
#include "serve/repository.h"

namespace pt2ov::serve {

struct ServeOptions {
    std::string host = "0.0.0.0";
    int http_port = 8000;   // 0: no REST
    int grpc_port = 8001;   // 0: no gRPC
    size_t max_body_bytes = size_t{64} << 20;  // a request body (REST) or message (gRPC) beyond: refused
    // A REST request's JSON beyond: refused before it is read. Parsing JSON takes about 19 bytes
    // of memory per byte of it, so JSON has a lower limit than binary data.
    size_t max_json_bytes = size_t{8} << 20;
    int max_concurrent_inferences = 0;          // 0: no limit
    int http_threads = 32;                      // REST requests handled at once (connections cost no thread)
    // What a REST client may hold of the server (serve/http_transport.h; docs/SERVING.md, Limits).
    size_t max_header_bytes = size_t{64} << 10;
    size_t max_request_line_bytes = size_t{8} << 10;
    int keep_alive_timeout_ms = 60'000;
    int request_timeout_ms = 30'000;
    size_t max_connections = 10'000;
    // An event-loop thread that has just answered a request polls this long before it sleeps.
    int busy_poll_us = 500;
};

// What the protocols' handlers share.
struct ServerState {
    const ModelRepository& repository;
    InferenceSlots& slots;
    const ServeOptions& options;
};

// Serves until SIGINT or SIGTERM, then stops both servers and returns. Throws pt2ov::InputError
// when a port cannot be bound.
void serve(const ModelRepository& repository, const ServeOptions& options);

// The server's name and version as its metadata gives them.
inline constexpr const char* kServerName = "pt2ov";
std::string server_version();

}  // namespace pt2ov::serve
