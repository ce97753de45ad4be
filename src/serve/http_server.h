// The REST half of the protocol on cpp-httplib: routes, handlers, error bodies.
#pragma once

#include <memory>

#include "serve/server.h"

namespace httplib {
class Server;
}

namespace pt2ov::serve {

// A cpp-httplib server with every /v2 route and /metrics installed, not yet listening.
std::unique_ptr<httplib::Server> make_http_server(const ServerState& state);

}  // namespace pt2ov::serve
