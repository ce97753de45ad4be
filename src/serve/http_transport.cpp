#include "serve/http_transport.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <deque>
#include <mutex>
#include <thread>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

namespace pt2ov::serve {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

bool same_without_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

std::string_view HttpRequest::header(std::string_view name) const {
    for (const auto& [key, value] : fields) {
        if (same_without_case(key, name)) return value;
    }
    return {};
}

bool HttpRequest::has_header(std::string_view name) const {
    for (const auto& field : fields) {
        if (same_without_case(field.first, name)) return true;
    }
    return false;
}

namespace {

// After refusing a request whose body is unread, the connection is not closed at once: a client
// still sending would get a reset, and with it lose the answer. Its send side is shut and what
// still arrives is read and dropped, for this long or this many bytes at most.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr size_t kLingerBytes = size_t{64} << 20;
// A failing accept (no file descriptors left) is retried after this pause, not in a busy loop.
constexpr auto kAcceptRetry = std::chrono::milliseconds(50);

std::string status_line(int status) {
    const auto reason = http::obsolete_reason(http::int_to_status(static_cast<unsigned>(status)));
    return fmt::format("HTTP/1.1 {} {}\r\n", status, std::string_view(reason.data(), reason.size()));
}

std::string head_of(const HttpResponse& response, bool close) {
    std::string head = status_line(response.status);
    head += fmt::format("Content-Type: {}\r\nContent-Length: {}\r\n", response.content_type, response.body.size());
    for (const auto& [key, value] : response.fields) head += key + ": " + value + "\r\n";
    if (close) head += "Connection: close\r\n";
    head += "\r\n";
    return head;
}

}  // namespace

// One event loop per thread, each connection on one of them for its whole life: a connection's
// handlers then run on the thread that read its bytes. With one loop shared by two threads,
// Asio's reactor thread woke the other to run each handler, a thread wake-up per request
// (about 30 us of a light request's 100 us round trip on a 2-core virtual machine).
struct HttpTransport::Impl {
    HttpRoutes routes;
    HttpLimits limits;
    std::vector<std::unique_ptr<asio::io_context>> loops;
    tcp::acceptor acceptor;
    asio::steady_timer accept_retry;
    asio::thread_pool workers;
    std::vector<std::thread> io_threads;
    size_t next_loop = 0;  // the acceptor's: which loop the next connection joins
    std::atomic<size_t> open{0};
    std::atomic<uint64_t> empty_polls{0};
    std::atomic<bool> stopped{false};

    Impl(HttpRoutes r, HttpLimits l)
        : routes(std::move(r)),
          limits(l),
          loops(make_loops(l.event_loops)),
          acceptor(*loops.front()),
          accept_retry(*loops.front()),
          workers(static_cast<size_t>(std::max(1, l.worker_threads))) {}

    static std::vector<std::unique_ptr<asio::io_context>> make_loops(int count) {
        std::vector<std::unique_ptr<asio::io_context>> made;
        for (int i = 0; i < std::max(1, count); ++i) made.push_back(std::make_unique<asio::io_context>(1));
        return made;
    }

    void accept();
    void run_loop(asio::io_context& loop);
};

namespace {

class Session;

// Until when this event-loop thread polls its sockets instead of sleeping: set when it has just
// answered a request itself (HttpRoutes::answers_at_once). A client of a light model sends its
// next request within microseconds; waking a sleeping thread for it costs more than the answer
// (HttpLimits::busy_poll).
thread_local std::chrono::steady_clock::time_point busy_poll_until{};

// One piece of output: a head and a body written together (one gather write).
struct Piece {
    std::string head;
    std::string body;
};

class Session : public std::enable_shared_from_this<Session> {
public:
    Session(tcp::socket socket, HttpTransport::Impl& transport)
        : socket_(std::move(socket)),
          timer_(socket_.get_executor()),
          transport_(transport),
          buffer_(transport.limits.max_header_bytes + 65536) {
        transport_.open.fetch_add(1, std::memory_order_relaxed);
    }
    ~Session() { transport_.open.fetch_sub(1, std::memory_order_relaxed); }

    void start() { wait_for_request(); }

    // From any thread: queued on the connection's strand.
    void post(std::function<void(Session&)> work) {
        asio::post(socket_.get_executor(), [self = shared_from_this(), work = std::move(work)] { work(*self); });
    }
    // Run now when called on the connection's strand (a handler answering on the event loop),
    // queued there from any other thread.
    void dispatch_here(std::function<void(Session&)> work) {
        asio::dispatch(socket_.get_executor(), [self = shared_from_this(), work = std::move(work)] { work(*self); });
    }

    // On the strand.
    void send(HttpResponse response) {
        const bool close = response.close || !keep_alive_;
        // A HEAD request's answer is the head a GET would get, its Content-Length included, and
        // no body (RFC 9110 9.3.2): a body would be read as the next response's start.
        enqueue({head_of(response, close), answering_head_ ? std::string() : std::move(response.body)});
        end_of_response_ = true;
        close_after_ = close;
        linger_after_ = response.close && !request_read_;
    }
    void start_stream(int status, const std::string& content_type,
                      const std::vector<std::pair<std::string, std::string>>& fields) {
        std::string head = status_line(status);
        head += "Content-Type: " + content_type + "\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\n";
        for (const auto& [key, value] : fields) head += key + ": " + value + "\r\n";
        if (!keep_alive_) head += "Connection: close\r\n";
        head += "\r\n";
        enqueue({std::move(head), {}});
    }
    void stream_piece(std::string piece) {
        if (piece.empty()) return;  // an empty chunk would end the response
        enqueue({fmt::format("{:x}\r\n", piece.size()), std::move(piece) + "\r\n"});
    }
    void finish_stream() {
        enqueue({"0\r\n\r\n", {}});
        end_of_response_ = true;
        close_after_ = !keep_alive_;
    }
    bool gone() const { return gone_.load(std::memory_order_relaxed); }

private:
    // Waits for a request's first byte within the keep-alive timeout (bytes of a pipelined
    // request may already be here), then gives the request the request timeout.
    void wait_for_request() {
        if (buffer_.size() > 0) return read_head();
        arm(transport_.limits.keep_alive_timeout);
        socket_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](error_code ec, size_t n) {
            if (ec) return self->close_now();  // gone, or idle past the keep-alive timeout: no answer
            self->buffer_.commit(n);
            self->read_head();
        });
    }

    void read_head() {
        const auto& limits = transport_.limits;
        parser_.emplace();
        parser_->header_limit(static_cast<uint32_t>(std::min<size_t>(limits.max_header_bytes, UINT32_MAX)));
        parser_->body_limit(limits.max_body_bytes);
        request_read_ = false;
        answering_head_ = false;
        arm(limits.request_timeout);
        http::async_read_header(socket_, buffer_, *parser_,
                                [self = shared_from_this()](error_code ec, size_t) { self->on_head(ec); });
    }

    void on_head(error_code ec) {
        const auto& limits = transport_.limits;
        if (ec) return refuse_unread(ec, "header");
        const auto& message = parser_->get();
        const std::string_view method(message.method_string().data(), message.method_string().size());
        const std::string_view target(message.target().data(), message.target().size());
        answering_head_ = method == "HEAD";
        // Method, target, version and the spaces and line end between them.
        if (method.size() + target.size() + 12 > limits.max_request_line_bytes) {
            return refuse(414, fmt::format("the request line is over the server's limit of {} bytes "
                                           "(pt2ov serve --max-request-line-bytes)",
                                           limits.max_request_line_bytes));
        }
        keep_alive_ = message.keep_alive();
        head_ = HttpRequest{};
        head_.method = method;
        head_.target = target;
        head_.path = target.substr(0, target.find('?'));
        for (const auto& field : message) {
            head_.fields.emplace_back(std::string(field.name_string()), std::string(field.value()));
        }
        if (transport_.routes.check_head) {
            if (auto refusal = transport_.routes.check_head(head_)) {
                refusal->close = true;
                send(std::move(*refusal));
                return;
            }
        }
        if (const auto length = parser_->content_length(); length && *length > limits.max_body_bytes) {
            return refuse_body_too_large();
        }
        if (parser_->is_done()) return dispatch();
        // curl and others wait for this before sending a body of more than 1 KB.
        if (same_without_case(head_.header("Expect"), "100-continue")) {
            enqueue({"HTTP/1.1 100 Continue\r\n\r\n", {}});
        }
        http::async_read(socket_, buffer_, *parser_, [self = shared_from_this()](error_code ec, size_t) {
            if (ec) return self->refuse_unread(ec, "body");
            self->dispatch();
        });
    }

    // A request that could not be read: the client's mistake or its going away.
    void refuse_unread(error_code ec, const char* part) {
        const auto& limits = transport_.limits;
        if (timed_out_) {
            return refuse(408, fmt::format("the request's {} did not arrive within {} ms (pt2ov serve "
                                           "--request-timeout-ms)",
                                           part, limits.request_timeout.count()));
        }
        if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
            ec == http::error::partial_message || ec == asio::error::operation_aborted) {
            return close_now();
        }
        if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
            return refuse(431, fmt::format("the request's header is over the server's limit of {} bytes (pt2ov serve "
                                           "--max-header-bytes)",
                                           limits.max_header_bytes));
        }
        if (ec == http::error::body_limit) return refuse_body_too_large();
        refuse(400, fmt::format("malformed HTTP request: {}", ec.message()));
    }

    // A declared Content-Length beyond the limit (seen at the head) and a body that grows past it
    // (Beast's body_limit) are one refusal.
    void refuse_body_too_large() {
        refuse(413, fmt::format("the request body is over the server's limit of {} bytes (pt2ov serve --max-body-bytes)",
                                transport_.limits.max_body_bytes));
    }

    void refuse(int status, const std::string& message) {
        HttpResponse response = transport_.routes.error(status, message);
        response.close = true;
        send(std::move(response));
    }

    void dispatch() {
        request_read_ = true;
        HttpRequest request = std::move(head_);
        request.body = std::move(parser_->get().body());
        parser_.reset();
        // No timer while the handler runs: nothing is being read or written.
        disarm();
        auto reply = std::make_shared<Reply>(shared_from_this());
        const auto& routes = transport_.routes;
        if (routes.answers_at_once && routes.answers_at_once(request)) {
            handle(routes, std::move(request), reply);
            if (transport_.limits.busy_poll.count() > 0)
                busy_poll_until = std::chrono::steady_clock::now() + transport_.limits.busy_poll;
            return;
        }
        // A heavy request: the worker needs the cores more than the next request needs a poll.
        busy_poll_until = {};
        asio::post(transport_.workers, [&routes, request = std::move(request), reply]() mutable {
            handle(routes, std::move(request), reply);
        });
    }

    // A handler's exception is the client's 500; the connection stays open.
    static void handle(const HttpRoutes& routes, HttpRequest request, const std::shared_ptr<HttpReply>& reply) {
        const auto fail = [&](const std::string& message) {
            HttpResponse response = routes.error(500, message);
            response.close = false;
            reply->send(std::move(response));
        };
        try {
            routes.handle(std::move(request), reply);
        } catch (const std::exception& e) {
            fail(fmt::format("internal error: {}", e.what()));
        } catch (...) {
            fail("internal error");
        }
    }

    void enqueue(Piece piece) {
        queue_.push_back(std::move(piece));
        if (!writing_) write_next();
    }

    void write_next() {
        if (queue_.empty()) {
            writing_ = false;
            if (end_of_response_) after_response();
            return;
        }
        writing_ = true;
        // A client that does not read its answer holds it no longer than a request may take.
        arm(transport_.limits.request_timeout);
        const Piece& piece = queue_.front();
        const std::array<asio::const_buffer, 2> buffers{asio::buffer(piece.head), asio::buffer(piece.body)};
        asio::async_write(socket_, buffers, [self = shared_from_this()](error_code ec, size_t) {
            self->queue_.pop_front();
            if (ec) {
                self->gone_.store(true, std::memory_order_relaxed);
                self->queue_.clear();
                return self->close_now();
            }
            self->write_next();
        });
    }

    void after_response() {
        end_of_response_ = false;
        disarm();
        if (!close_after_) return wait_for_request();
        if (linger_after_) return linger();
        close_gracefully();
    }

    void linger() {
        error_code ignored;
        socket_.shutdown(tcp::socket::shutdown_send, ignored);
        arm(kLingerTime);
        drain(0);
    }
    void drain(size_t dropped) {
        if (dropped > kLingerBytes) return close_now();
        buffer_.clear();
        socket_.async_read_some(buffer_.prepare(65536), [self = shared_from_this(), dropped](error_code ec, size_t n) {
            if (ec) return self->close_now();
            self->drain(dropped + n);
        });
    }

    void close_gracefully() {
        error_code ignored;
        socket_.shutdown(tcp::socket::shutdown_send, ignored);
        close_now();
    }
    void close_now() {
        gone_.store(true, std::memory_order_relaxed);
        disarm();
        error_code ignored;
        socket_.close(ignored);
    }

    // One deadline for what the connection is doing now (waiting for a request, reading one,
    // writing an answer, lingering): at it, the pending operations are cancelled and complete
    // with timed_out_ set, so that a late request can still be answered 408.
    void arm(std::chrono::steady_clock::duration timeout) {
        timed_out_ = false;
        timer_.expires_after(timeout);
        timer_.async_wait([self = shared_from_this()](error_code ec) {
            if (ec) return;  // re-armed or disarmed
            self->timed_out_ = true;
            error_code ignored;
            self->socket_.cancel(ignored);
        });
    }
    void disarm() { timer_.cancel(); }

    // The handler's answer, posted to the strand; one answer only.
    class Reply : public HttpReply {
    public:
        explicit Reply(std::shared_ptr<Session> session) : session_(std::move(session)) {}
        ~Reply() override {
            // A handler that never answered: the client still gets one, and the connection moves on.
            if (!answered_.exchange(true)) {
                session_->post([](Session& s) {
                    s.send(s.transport_.routes.error(500, "internal error: the request was not answered"));
                });
            }
        }
        void send(HttpResponse response) override {
            if (answered_.exchange(true)) return;
            session_->dispatch_here([response = std::move(response)](Session& s) mutable { s.send(std::move(response)); });
        }
        std::shared_ptr<HttpStream> stream(int status, std::string content_type,
                                           std::vector<std::pair<std::string, std::string>> fields) override {
            if (answered_.exchange(true)) return nullptr;
            session_->post([status, content_type = std::move(content_type), fields = std::move(fields)](Session& s) {
                s.start_stream(status, content_type, fields);
            });
            return std::make_shared<Stream>(session_);
        }

    private:
        std::shared_ptr<Session> session_;
        std::atomic<bool> answered_{false};
    };

    class Stream : public HttpStream {
    public:
        explicit Stream(std::shared_ptr<Session> session) : session_(std::move(session)) {}
        ~Stream() override { finish(); }
        bool write(std::string piece) override {
            if (finished_.load() || session_->gone()) return false;
            session_->post([piece = std::move(piece)](Session& s) mutable { s.stream_piece(std::move(piece)); });
            return true;
        }
        void finish() override {
            if (finished_.exchange(true)) return;
            session_->post([](Session& s) { s.finish_stream(); });
        }
        bool client_gone() const override { return session_->gone(); }

    private:
        std::shared_ptr<Session> session_;
        std::atomic<bool> finished_{false};
    };

    tcp::socket socket_;
    asio::steady_timer timer_;
    bool timed_out_ = false;
    HttpTransport::Impl& transport_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    HttpRequest head_;
    std::deque<Piece> queue_;
    bool writing_ = false;
    bool keep_alive_ = true;
    bool end_of_response_ = false;
    bool close_after_ = false;
    bool linger_after_ = false;
    bool request_read_ = false;
    bool answering_head_ = false;  // the request being answered is a HEAD: its answer has no body
    std::atomic<bool> gone_{false};
};

}  // namespace

void HttpTransport::Impl::accept() {
    asio::io_context& loop = *loops[next_loop++ % loops.size()];
    acceptor.async_accept(loop, [this](error_code ec, tcp::socket socket) {
        if (stopped.load()) return;
        if (ec) {
            if (ec == asio::error::operation_aborted) return;
            accept_retry.expires_after(kAcceptRetry);
            accept_retry.async_wait([this](error_code) { accept(); });
            return;
        }
        error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        if (open.load(std::memory_order_relaxed) >= limits.max_connections) {
            // Refused at once, without a session: a short answer the kernel buffers, then closed.
            const HttpResponse busy = routes.error(
                503, fmt::format("the server holds its limit of {} connections (pt2ov serve --max-connections): try "
                                 "again later",
                                 limits.max_connections));
            const std::string text = head_of(busy, true) + busy.body;
            socket.non_blocking(true, ignored);
            socket.write_some(asio::buffer(text), ignored);
            socket.close(ignored);
        } else {
            std::make_shared<Session>(std::move(socket), *this)->start();
        }
        accept();
    });
}

// Runs one loop until stop(). While busy_poll_until lies ahead it polls (the reactor asked with
// no wait), so a request arriving then is read without a wake-up; else it sleeps in the reactor.
void HttpTransport::Impl::run_loop(asio::io_context& loop) {
    const auto work = asio::make_work_guard(loop);
    while (!loop.stopped()) {
        if (busy_poll_until > std::chrono::steady_clock::now()) {
            // Nothing ready: the core goes to any thread that wants it (the client, on a machine
            // of few cores) before the next poll.
            if (loop.poll_one() == 0) {
                empty_polls.fetch_add(1, std::memory_order_relaxed);
                std::this_thread::yield();
            }
        } else if (loop.run_one() == 0) {
            return;
        }
    }
}

HttpTransport::HttpTransport(HttpRoutes routes, HttpLimits limits)
    : impl_(std::make_unique<Impl>(std::move(routes), limits)) {}

HttpTransport::~HttpTransport() { stop(); }

bool HttpTransport::bind(const std::string& host, int port) {
    error_code ec;
    tcp::resolver resolver(*impl_->loops.front());
    const auto endpoints = resolver.resolve(host, std::to_string(port), tcp::resolver::passive, ec);
    if (ec || endpoints.empty()) return false;
    const tcp::endpoint endpoint = *endpoints.begin();
    auto& acceptor = impl_->acceptor;
    acceptor.open(endpoint.protocol(), ec);
    if (ec) return false;
    // The address may be reused (a restart while old connections linger); the port is not shared:
    // no SO_REUSEPORT, so a second server on a port in use fails here.
    acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    acceptor.bind(endpoint, ec);
    if (ec) {
        acceptor.close(ec);
        return false;
    }
    acceptor.listen(asio::socket_base::max_listen_connections, ec);
    return !ec;
}

int HttpTransport::port() const { return impl_->acceptor.local_endpoint().port(); }

void HttpTransport::start() {
    impl_->accept();
    for (auto& loop : impl_->loops)
        impl_->io_threads.emplace_back([this, &loop = *loop] { impl_->run_loop(loop); });
}

void HttpTransport::stop() {
    if (!impl_ || impl_->stopped.exchange(true)) return;
    asio::post(*impl_->loops.front(), [this] {
        error_code ignored;
        impl_->acceptor.close(ignored);
        impl_->accept_retry.cancel();
    });
    for (auto& loop : impl_->loops) loop->stop();
    for (auto& thread : impl_->io_threads) thread.join();
    impl_->io_threads.clear();
    impl_->workers.join();
}

size_t HttpTransport::connections() const { return impl_->open.load(std::memory_order_relaxed); }

uint64_t HttpTransport::empty_polls() const { return impl_->empty_polls.load(std::memory_order_relaxed); }

}  // namespace pt2ov::serve
