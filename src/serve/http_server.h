// The REST half of the protocol: its routes, handlers and error bodies, carried by the HTTP
// transport (serve/http_transport.h).
#pragma once

#include "serve/http_transport.h"
#include "serve/server.h"

namespace pt2ov::serve {

// Every /v2 route and /metrics, answering from `state` (which must outlive the transport).
HttpRoutes rest_routes(const ServerState& state);

// The transport's limits as the server's options give them.
HttpLimits http_limits(const ServeOptions& options);

}  // namespace pt2ov::serve
