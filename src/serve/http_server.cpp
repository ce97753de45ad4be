#include "serve/http_server.h"

#include <httplib.h>

#include <charconv>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/text.h"
#include "serve/datatype.h"
#include "serve/error.h"
#include "serve/rest_messages.h"

namespace pt2ov::serve {
namespace {

using json = nlohmann::json;

constexpr const char* kJson = "application/json";
constexpr const char* kHeaderLength = "Inference-Header-Content-Length";

// A model's path: /v2/models/{name}[/versions/{version}]; the name and version in match 1 and 2.
constexpr const char* kModelPath = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";

void send_json(httplib::Response& response, int status, const json& body) {
    response.status = status;
    response.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), kJson);
}

void send_error(httplib::Response& response, int status, const std::string& message) {
    send_json(response, status, {{"error", one_line(message)}});
}

json tensor_metadata(const std::vector<IOInfo>& infos) {
    json out = json::array();
    for (const auto& info : infos) {
        out.push_back({{"name", info.name}, {"datatype", protocol_datatype(info.dtype)}, {"shape", info.shape}});
    }
    return out;
}

// Runs `handle`, answering a RequestError with its status and {"error": ...}, and anything
// else with 500: no exception leaves a handler.
template <typename Handle>
void answer(httplib::Response& response, Handle&& handle) {
    try {
        handle();
    } catch (const RequestError& e) {
        send_error(response, http_status(e.failure()), e.what());
    } catch (const std::exception& e) {
        send_error(response, 500, fmt::format("internal error: {}", e.what()));
    }
}

std::string version_of(const httplib::Request& request) {
    return request.matches.size() > 2 ? request.matches[2].str() : std::string();
}

}  // namespace

std::unique_ptr<httplib::Server> make_http_server(const ServerState& state) {
    auto server = std::make_unique<httplib::Server>();
    const int threads = state.options.http_threads;
    server->new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
    server->set_payload_max_length(state.options.max_body_bytes);
    // A client keeps its connection for many requests (httplib's default closes it after 5).
    server->set_keep_alive_max_count(1u << 30);
    server->set_tcp_nodelay(true);
    // httplib's default also sets SO_REUSEPORT, with which a second server on a port in use
    // binds without error and takes half its connections: reuse of the address only.
    server->set_socket_options([](int socket) {
        int yes = 1;
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });

    // Before any body is read: cpp-httplib decompresses a compressed body and reads a chunked one
    // with no regard for the payload limit (a 200 KB gzip body became 200 MB in memory), so the
    // limit holds only for a plain body of a declared length. Neither is what protocol clients
    // send by default; both are refused, and the connection closed, its body unread.
    server->set_pre_routing_handler([json_limit = state.options.max_json_bytes](const httplib::Request& request,
                                                                                  httplib::Response& response) {
        const std::string encoding = request.get_header_value("Content-Encoding");
        if (!encoding.empty() && encoding != "identity") {
            response.set_header("Connection", "close");
            send_error(response, 415, fmt::format("Content-Encoding '{}': pt2ov serve takes uncompressed bodies only "
                                                  "(turn the client's request compression off)",
                                                  encoding));
            return httplib::Server::HandlerResponse::Handled;
        }
        if (request.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos) {
            response.set_header("Connection", "close");
            send_error(response, 411, "a chunked body: pt2ov serve takes a body of a declared Content-Length only");
            return httplib::Server::HandlerResponse::Handled;
        }
        // The JSON's length is known from the headers: the body's, or the binary-data header's.
        const auto declared = [&](const char* header) -> std::optional<size_t> {
            const std::string text = request.get_header_value(header);
            size_t value = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
            return value;
        };
        const auto body_length = declared("Content-Length");
        auto json_length = request.has_header(kHeaderLength) ? declared(kHeaderLength) : body_length;
        // A header length beyond the body is the handler's to refuse (400), saying so.
        if (json_length && body_length && *json_length > *body_length) json_length.reset();
        if (json_length && *json_length > json_limit) {
            response.set_header("Connection", "close");
            send_error(response, 413, fmt::format("the request's JSON is {} bytes, over the server's limit of {} bytes "
                                                  "for JSON (pt2ov serve --max-json-bytes): send large tensors as "
                                                  "binary data",
                                                  *json_length, json_limit));
            return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });
    server->Get("/v2/health/live", [](const httplib::Request&, httplib::Response& response) {
        send_json(response, 200, {{"live", true}});
    });
    server->Get("/v2/health/ready", [](const httplib::Request&, httplib::Response& response) {
        send_json(response, 200, {{"ready", true}});
    });
    server->Get("/v2", [](const httplib::Request&, httplib::Response& response) {
        send_json(response, 200, {{"name", kServerName}, {"version", server_version()}, {"extensions", {"binary_tensor_data"}}});
    });
    server->Get(std::string(kModelPath) + "/ready", [&repository = state.repository](const httplib::Request& request,
                                                                                     httplib::Response& response) {
        answer(response, [&] {
            const Model& model = repository.find(request.matches[1].str(), version_of(request));
            send_json(response, 200, {{"name", model.name}, {"ready", true}});
        });
    });
    server->Get(kModelPath, [&repository = state.repository](const httplib::Request& request, httplib::Response& response) {
        answer(response, [&] {
            const Model& model = repository.find(request.matches[1].str(), version_of(request));
            send_json(response, 200,
                      {{"name", model.name},
                       {"versions", repository.versions(model.name)},
                       {"platform", "pt2ov"},
                       {"inputs", tensor_metadata(model.program.inputs())},
                       {"outputs", tensor_metadata(model.program.outputs())}});
        });
    });
    server->Post(std::string(kModelPath) + "/infer", [state](const httplib::Request& request, httplib::Response& response) {
        answer(response, [&] {
            Model& model = state.repository.find(request.matches[1].str(), version_of(request));
            std::optional<size_t> json_length;
            if (request.has_header(kHeaderLength)) {
                json_length = parse_json_length(request.get_header_value(kHeaderLength), request.body.size());
            }
            InferRequest decoded = [&] {
                try {
                    return decode_rest_request(request.body, json_length);
                } catch (const RequestError&) {
                    // A request that never reaches the program still counts as the model's failure.
                    model.metrics.requests.fetch_add(1, std::memory_order_relaxed);
                    model.metrics.failures.fetch_add(1, std::memory_order_relaxed);
                    throw;
                }
            }();
            const RestBody body = encode_rest_response(infer(model, decoded, state.slots));
            response.status = 200;
            if (body.json_length) {
                response.set_header(kHeaderLength, std::to_string(*body.json_length));
                response.set_content(body.body, "application/octet-stream");
            } else {
                response.set_content(body.body, kJson);
            }
        });
    });
    server->Get("/metrics", [&repository = state.repository](const httplib::Request&, httplib::Response& response) {
        response.set_content(prometheus_text(repository.metrics()), "text/plain; version=0.0.4");
    });
    // Statuses httplib sets itself (no route: 404; a body over the limit: 413; a bad request
    // line: 400) get the protocol's error body too; a handler's own error body is kept.
    server->set_error_handler(httplib::Server::HandlerWithResponse([limit = state.options.max_body_bytes](
                                                                     const httplib::Request& request,
                                                                     httplib::Response& response) {
        if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        if (response.status == 413) {
            send_error(response, 413, fmt::format("the request body is over the server's limit of {} bytes "
                                                  "(pt2ov serve --max-body-bytes)",
                                                  limit));
        } else if (response.status == 404) {
            send_error(response, 404, fmt::format("no endpoint {} {} (the Open Inference Protocol's are under /v2)",
                                                  request.method, request.path));
        } else {
            send_error(response, response.status, fmt::format("HTTP status {}", response.status));
        }
        return httplib::Server::HandlerResponse::Handled;
    }));
    server->set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr error) {
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            send_error(response, 500, fmt::format("internal error: {}", e.what()));
        } catch (...) {
            send_error(response, 500, "internal error");
        }
    });
    return server;
}

}  // namespace pt2ov::serve
