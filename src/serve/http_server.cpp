#include "serve/http_server.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <thread>
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

constexpr const char* kHeaderLength = "Inference-Header-Content-Length";

HttpResponse json_response(int status, const json& body) {
    HttpResponse response;
    response.status = status;
    response.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    return response;
}

HttpResponse error_response(int status, const std::string& message) {
    return json_response(status, {{"error", client_message(message)}});
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
HttpResponse answer(Handle&& handle) {
    try {
        return handle();
    } catch (const RequestError& e) {
        return error_response(http_status(e.failure()), e.what());
    } catch (const std::exception& e) {
        return error_response(500, fmt::format("internal error: {}", e.what()));
    }
}

// /v2/models/{name}[/versions/{version}][/{action}]: action "" (metadata), "ready" or "infer".
struct ModelPath {
    std::string name;
    std::string version;
    std::string action;
};

std::optional<ModelPath> model_path(std::string_view path) {
    constexpr std::string_view kPrefix = "/v2/models/";
    if (!path.starts_with(kPrefix)) return std::nullopt;
    path.remove_prefix(kPrefix.size());
    const auto next = [&path]() {
        const size_t slash = path.find('/');
        std::string_view part = path.substr(0, slash);
        path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
        return part;
    };
    const bool more_after_name = path.find('/') != std::string_view::npos;
    ModelPath parsed;
    parsed.name = next();
    if (parsed.name.empty()) return std::nullopt;
    if (!more_after_name) return parsed;
    std::string_view part = next();
    if (part == "versions") {
        const bool more = path.find('/') != std::string_view::npos;
        parsed.version = next();
        if (parsed.version.empty()) return std::nullopt;
        if (!more) return parsed;
        part = next();
    }
    if ((part != "ready" && part != "infer") || !path.empty()) return std::nullopt;
    parsed.action = part;
    return parsed;
}

std::optional<size_t> declared_length(const HttpRequest& request, std::string_view header) {
    const std::string_view text = request.header(header);
    size_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// Before any body is read: a compressed body would be inflated past every limit, and a chunked
// one has no length to check first. Neither is what protocol clients send by default; both are
// refused, and the connection closed, its body unread. JSON beyond --max-json-bytes likewise.
std::optional<HttpResponse> check_head(const HttpRequest& request, size_t json_limit) {
    const std::string_view encoding = request.header("Content-Encoding");
    if (!encoding.empty() && encoding != "identity") {
        return error_response(415, fmt::format("Content-Encoding '{}': pt2ov serve takes uncompressed bodies only "
                                               "(turn the client's request compression off)",
                                               encoding));
    }
    if (request.header("Transfer-Encoding").find("chunked") != std::string_view::npos) {
        return error_response(411, "a chunked body: pt2ov serve takes a body of a declared Content-Length only");
    }
    // The JSON's length is known from the headers: the body's, or the binary-data header's.
    const auto body_length = declared_length(request, "Content-Length");
    auto json_length = request.has_header(kHeaderLength) ? declared_length(request, kHeaderLength) : body_length;
    // A header length beyond the body is the handler's to refuse (400), saying so.
    if (json_length && body_length && *json_length > *body_length) json_length.reset();
    if (json_length && *json_length > json_limit) {
        return error_response(413, fmt::format("the request's JSON is {} bytes, over the server's limit of {} bytes "
                                               "for JSON (pt2ov serve --max-json-bytes): send large tensors as "
                                               "binary data",
                                               *json_length, json_limit));
    }
    return std::nullopt;
}

HttpResponse infer_response(const ServerState& state, const ModelPath& path, const HttpRequest& request) {
    Model& model = state.repository.find(path.name, path.version);
    std::optional<size_t> json_length;
    if (request.has_header(kHeaderLength)) {
        json_length = parse_json_length(std::string(request.header(kHeaderLength)), request.body.size());
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
    RestBody body = encode_rest_response(infer(model, decoded, state.slots));
    HttpResponse response;
    if (body.json_length) {
        response.fields.emplace_back(kHeaderLength, std::to_string(*body.json_length));
        response.content_type = "application/octet-stream";
    }
    response.body = std::move(body.body);
    return response;
}

HttpResponse route(const ServerState& state, const HttpRequest& request) {
    // HEAD is answered as GET is (the transport sends the head alone).
    const bool get = request.method == "GET" || request.method == "HEAD", post = request.method == "POST";
    const std::string& path = request.path;
    if (get && path == "/v2/health/live") return json_response(200, {{"live", true}});
    if (get && path == "/v2/health/ready") return json_response(200, {{"ready", true}});
    if (get && path == "/v2") {
        return json_response(200, {{"name", kServerName}, {"version", server_version()}, {"extensions", {"binary_tensor_data"}}});
    }
    if (get && path == "/metrics") {
        HttpResponse response;
        response.content_type = "text/plain; version=0.0.4";
        response.body = prometheus_text(state.repository.metrics());
        return response;
    }
    if (const auto model = model_path(path)) {
        if (get && model->action.empty()) {
            return answer([&] {
                const Model& found = state.repository.find(model->name, model->version);
                return json_response(200, {{"name", found.name},
                                           {"versions", state.repository.versions(found.name)},
                                           {"platform", "pt2ov"},
                                           {"inputs", tensor_metadata(found.program.inputs())},
                                           {"outputs", tensor_metadata(found.program.outputs())}});
            });
        }
        if (get && model->action == "ready") {
            return answer([&] {
                const Model& found = state.repository.find(model->name, model->version);
                return json_response(200, {{"name", found.name}, {"ready", true}});
            });
        }
        if (post && model->action == "infer") return answer([&] { return infer_response(state, *model, request); });
    }
    return error_response(404, fmt::format("no endpoint {} {} (the Open Inference Protocol's are under /v2)",
                                           request.method, path));
}

// A request answered on the event loop (HttpRoutes::answers_at_once): every GET (health,
// metadata and metrics read memory), and a light inference (runs_light). The request saves the
// hand-off to a worker and back.
bool answers_at_once(const ServerState& state, const HttpRequest& request) {
    if (request.method == "GET" || request.method == "HEAD") return true;
    if (request.method != "POST" || request.body.size() > kLightRequestBytes) return false;
    const auto model = model_path(request.path);
    if (!model || model->action != "infer") return true;  // answered with an error
    try {
        return runs_light(state.repository.find(model->name, model->version), state.slots, request.body.size());
    } catch (const RequestError&) {
        return true;  // no such model: a 404
    }
}

}  // namespace

HttpRoutes rest_routes(const ServerState& state) {
    HttpRoutes routes;
    routes.check_head = [json_limit = state.options.max_json_bytes](const HttpRequest& head) {
        return check_head(head, json_limit);
    };
    routes.handle = [&state](HttpRequest request, std::shared_ptr<HttpReply> reply) {
        reply->send(route(state, request));
    };
    routes.answers_at_once = [&state](const HttpRequest& request) { return answers_at_once(state, request); };
    routes.error = error_response;
    return routes;
}

HttpLimits http_limits(const ServeOptions& options) {
    HttpLimits limits;
    limits.max_request_line_bytes = options.max_request_line_bytes;
    limits.max_header_bytes = options.max_header_bytes;
    limits.max_body_bytes = options.max_body_bytes;
    limits.keep_alive_timeout = std::chrono::milliseconds(options.keep_alive_timeout_ms);
    limits.request_timeout = std::chrono::milliseconds(options.request_timeout_ms);
    limits.max_connections = options.max_connections;
    limits.worker_threads = options.http_threads;
    limits.event_loops = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 2u));
    limits.busy_poll = std::chrono::microseconds(options.busy_poll_us);
    return limits;
}

}  // namespace pt2ov::serve
