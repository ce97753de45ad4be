// HTTP/1.1 for `pt2ov serve`, on Boost.Beast over Asio: an event loop owns every connection, so
// an idle or slow connection costs a socket and a few KB, not a thread. Handlers run on a pool of
// worker threads (an inference blocks); their answer is written back by the event loop. Requests
// on one connection are answered in order, pipelined ones included. Every limit a client could
// abuse is here, with the defaults docs/SERVING.md lists. The routes live elsewhere
// (http_server.h): this layer knows nothing of the protocol it carries.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pt2ov::serve {

struct HttpLimits {
    size_t max_request_line_bytes = size_t{8} << 10;   // method, target and version: beyond, 414
    size_t max_header_bytes = size_t{64} << 10;        // the request line and every field: beyond, 431
    size_t max_body_bytes = size_t{64} << 20;          // a declared Content-Length beyond: 413, body unread
    std::chrono::milliseconds keep_alive_timeout{60'000};  // a connection idle between requests: closed
    std::chrono::milliseconds request_timeout{30'000};     // from a request's first byte to its last: 408
    size_t max_connections = 10'000;                   // beyond, a new connection gets a 503 and is closed
    int worker_threads = 32;                           // handlers running at once
    // Event-loop threads, each holding its share of the connections and answering light requests.
    int event_loops = 2;
    // After answering a request on its event loop, a thread polls for this long before it sleeps
    // (0: sleeps at once). A thread woken from sleep for the next request costs tens of
    // microseconds on a virtual machine, more than a light request's answer.
    std::chrono::microseconds busy_poll{500};
};

struct HttpRequest {
    std::string method;
    std::string target;  // as sent: path and query
    std::string path;    // the target up to '?'
    std::vector<std::pair<std::string, std::string>> fields;
    std::string body;

    // A header field's value ("" when absent), its name compared without case.
    std::string_view header(std::string_view name) const;
    bool has_header(std::string_view name) const;
};

struct HttpResponse {
    int status = 200;
    std::string content_type = "application/json";
    std::vector<std::pair<std::string, std::string>> fields;
    std::string body;
    bool close = false;  // close the connection after it (the body of the request may be unread)
};

// A response sent in pieces as they are made (server-sent events, chunked transfer encoding),
// from any thread, holding no thread while it lasts. write() queues a piece (false once the
// client has gone: the producer should stop); finish() ends the response and lets the
// connection read its next request.
class HttpStream {
public:
    virtual ~HttpStream() = default;
    virtual bool write(std::string piece) = 0;
    virtual void finish() = 0;
    virtual bool client_gone() const = 0;
};

// How a handler answers: exactly one of send() or stream(), from any thread, once.
class HttpReply {
public:
    virtual ~HttpReply() = default;
    virtual void send(HttpResponse response) = 0;
    virtual std::shared_ptr<HttpStream> stream(int status, std::string content_type,
                                               std::vector<std::pair<std::string, std::string>> fields) = 0;
};

struct HttpRoutes {
    // Called on the event loop when a request's head has arrived, before its body is read: a
    // response here is sent, the body left unread and the connection closed. Must not block.
    std::function<std::optional<HttpResponse>(const HttpRequest& head)> check_head;
    // Called on a worker thread with the whole request; answers through `reply` (it may keep
    // `reply` and answer later from another thread).
    std::function<void(HttpRequest request, std::shared_ptr<HttpReply> reply)> handle;
    // Called on the event loop with the whole request: true when `handle` answers it in
    // microseconds without waiting on anything (health, metadata, an inference measured light),
    // so that it runs right there, without the hand-off to a worker and back (two thread
    // wake-ups, most of a light request's latency). May be empty: every request goes to a worker.
    std::function<bool(const HttpRequest& request)> answers_at_once;
    // The protocol's error body for the transport's own refusals (400, 408, 413, 414, 431, 503).
    std::function<HttpResponse(int status, const std::string& message)> error;
};

class HttpTransport {
public:
    HttpTransport(HttpRoutes routes, HttpLimits limits);
    ~HttpTransport();
    HttpTransport(const HttpTransport&) = delete;
    HttpTransport& operator=(const HttpTransport&) = delete;

    // Binds and listens; false when the address cannot be bound (in use, not this machine's).
    bool bind(const std::string& host, int port);
    // The port bound (the one chosen when bind was given 0).
    int port() const;
    // Serves on threads of its own until stop().
    void start();
    void stop();

    // Connections open now (for tests and metrics).
    size_t connections() const;
    // Polls that found nothing ready, over every event loop so far (for tests: busy_poll).
    uint64_t empty_polls() const;

    struct Impl;  // the event loop, the acceptor and the worker pool (http_transport.cpp)

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace pt2ov::serve
