// The HTTP transport (src/serve/http_transport.h) against raw sockets: what a hostile or merely
// odd client sends. Pipelined requests answered in order; every limit refused with its status and
// the connection closed; idle and slow connections holding no worker; a streamed answer from
// another thread; a handler that throws or never answers still answering the client.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "serve/http_transport.h"

namespace pt2ov::serve {
namespace {

using namespace std::chrono_literals;

HttpResponse text_response(int status, const std::string& body) {
    HttpResponse response;
    response.status = status;
    response.content_type = "text/plain";
    response.body = body;
    return response;
}

// Routes for the tests: /echo answers the body; /stream sends three pieces from a thread of its
// own; /throw throws; /drop never answers; /hold blocks its worker until released.
struct TestRoutes {
    std::atomic<bool> release{false};
    std::atomic<int> handled{0};

    HttpRoutes routes() {
        HttpRoutes routes;
        routes.check_head = [](const HttpRequest& head) -> std::optional<HttpResponse> {
            if (head.header("X-Refuse") == "yes") return text_response(403, "refused at the head");
            return std::nullopt;
        };
        routes.handle = [this](HttpRequest request, std::shared_ptr<HttpReply> reply) {
            handled.fetch_add(1);
            if (request.path == "/stream") {
                auto stream = reply->stream(200, "text/event-stream", {});
                std::thread([stream] {
                    for (int i = 0; i < 3; ++i) {
                        std::this_thread::sleep_for(10ms);
                        stream->write("data: " + std::to_string(i) + "\n\n");
                    }
                    stream->finish();
                }).detach();
                return;
            }
            if (request.path == "/throw") throw std::runtime_error("the handler failed");
            if (request.path == "/drop") return;
            if (request.path == "/hold") {
                while (!release.load()) std::this_thread::sleep_for(1ms);
            }
            reply->send(text_response(200, request.method + " " + request.target + " " + request.body));
        };
        routes.error = [](int status, const std::string& message) { return text_response(status, message); };
        routes.answers_at_once = [](const HttpRequest& request) { return request.path == "/light"; };
        return routes;
    }
};

class Client {
public:
    explicit Client(int port) {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    }
    ~Client() { ::close(fd_); }
    bool connected() const { return connected_; }

    bool send(const std::string& bytes) {
        size_t sent = 0;
        while (sent < bytes.size()) {
            const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) return false;
            sent += static_cast<size_t>(n);
        }
        return true;
    }
    // Reads until `count` whole responses are in (by Content-Length or a chunked body's end), the
    // server closes, or `timeout` passes.
    std::string read_responses(int count, std::chrono::milliseconds timeout = 5000ms) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (complete_responses() < count && receive_until(deadline)) {
        }
        return received_;
    }
    // Reads until `needle` has arrived (or `timeout` passes).
    std::string read_until(const std::string& needle, std::chrono::milliseconds timeout = 5000ms) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (received_.find(needle) == std::string::npos && receive_until(deadline)) {
        }
        return received_;
    }
    // Whether the server closed the connection within `timeout`.
    bool closed_by_server(std::chrono::milliseconds timeout = 5000ms) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (!closed_ && receive_until(deadline)) {
        }
        return closed_;
    }
    const std::string& received() const { return received_; }
    int fd() const { return fd_; }

private:
    // One read of what has arrived by `deadline` into received_; false when nothing came in time
    // or the server closed the connection (closed_ then set).
    bool receive_until(std::chrono::steady_clock::time_point deadline) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left <= 0ms) return false;
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
        char chunk[65536];
        const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
        if (n <= 0) {
            closed_ = true;
            return false;
        }
        received_.append(chunk, static_cast<size_t>(n));
        return true;
    }

    int complete_responses() const {
        int count = 0;
        size_t at = 0;
        while (true) {
            const size_t head_end = received_.find("\r\n\r\n", at);
            if (head_end == std::string::npos) return count;
            const std::string head = received_.substr(at, head_end - at);
            if (head.starts_with("HTTP/1.1 100")) {
                at = head_end + 4;
                continue;
            }
            size_t end;
            if (head.find("Transfer-Encoding: chunked") != std::string::npos) {
                // The last chunk, "0\r\n\r\n", follows the head's or the previous chunk's line end.
                end = received_.find("\r\n0\r\n\r\n", head_end + 2);
                if (end == std::string::npos) return count;
                end += 7;
            } else {
                const size_t length_at = head.find("Content-Length: ");
                const size_t length = length_at == std::string::npos ? 0 : std::stoul(head.substr(length_at + 16));
                end = head_end + 4 + length;
                if (received_.size() < end) return count;
            }
            ++count;
            at = end;
        }
    }

    int fd_ = -1;
    bool connected_ = false;
    bool closed_ = false;
    std::string received_;
};

std::string get(const std::string& path, const std::string& extra = "") {
    return "GET " + path + " HTTP/1.1\r\nHost: test\r\n" + extra + "\r\n";
}

std::string post(const std::string& path, const std::string& body) {
    return "POST " + path + " HTTP/1.1\r\nHost: test\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class HttpTransportTest : public ::testing::Test {
protected:
    void start(HttpLimits limits = {}) {
        transport_ = std::make_unique<HttpTransport>(routes_.routes(), limits);
        ASSERT_TRUE(transport_->bind("127.0.0.1", 0));
        transport_->start();
        port_ = transport_->port();
    }
    void TearDown() override {
        routes_.release = true;
        if (transport_) transport_->stop();
    }
    // One request on a fresh connection, answered.
    void expect_served(const std::string& why) {
        Client client(port_);
        ASSERT_TRUE(client.connected()) << why;
        client.send(get("/alive"));
        EXPECT_NE(client.read_responses(1).find("200 OK"), std::string::npos) << why;
    }

    TestRoutes routes_;
    std::unique_ptr<HttpTransport> transport_;
    int port_ = 0;
};

TEST_F(HttpTransportTest, PipelinedRequestsAreAnsweredInOrder) {
    start();
    Client client(port_);
    ASSERT_TRUE(client.send(get("/one") + post("/two", "body two") + get("/three")));
    const std::string got = client.read_responses(3);
    const size_t one = got.find("GET /one"), two = got.find("POST /two body two"), three = got.find("GET /three");
    ASSERT_NE(one, std::string::npos) << got;
    ASSERT_NE(two, std::string::npos) << got;
    ASSERT_NE(three, std::string::npos) << got;
    EXPECT_LT(one, two);
    EXPECT_LT(two, three);
}

TEST_F(HttpTransportTest, OversizedHeadAndRequestLineAreRefusedAndTheConnectionClosed) {
    HttpLimits limits;
    limits.max_header_bytes = 4096;
    limits.max_request_line_bytes = 1024;
    start(limits);
    {
        Client client(port_);
        client.send(get("/x", "X-Big: " + std::string(1 << 20, 'a') + "\r\n"));
        EXPECT_TRUE(client.closed_by_server());
        EXPECT_NE(client.received().find("431"), std::string::npos) << client.received().substr(0, 200);
    }
    {
        Client client(port_);
        client.send(get("/" + std::string(2000, 'p')));
        EXPECT_TRUE(client.closed_by_server());
        EXPECT_NE(client.received().find("414"), std::string::npos) << client.received().substr(0, 200);
    }
    {
        Client client(port_);
        client.send("NOT HTTP AT ALL\r\n\r\n");
        EXPECT_TRUE(client.closed_by_server());
        EXPECT_NE(client.received().find("400"), std::string::npos) << client.received();
    }
    expect_served("after the refusals");
}

TEST_F(HttpTransportTest, BodiesBeyondTheLimitAndHeadRefusalsLeaveTheBodyUnread) {
    HttpLimits limits;
    limits.max_body_bytes = 1000;
    start(limits);
    {
        Client client(port_);
        client.send("POST /echo HTTP/1.1\r\nContent-Length: 5000\r\n\r\n" + std::string(5000, 'b'));
        EXPECT_TRUE(client.closed_by_server());
        EXPECT_NE(client.received().find("413"), std::string::npos) << client.received();
    }
    {
        Client client(port_);
        client.send("POST /echo HTTP/1.1\r\nX-Refuse: yes\r\nContent-Length: 10\r\n\r\n0123456789");
        EXPECT_TRUE(client.closed_by_server());
        EXPECT_NE(client.received().find("403"), std::string::npos) << client.received();
    }
    EXPECT_EQ(routes_.handled.load(), 0);
    expect_served("after the refusals");
}

TEST_F(HttpTransportTest, ExpectContinueIsAnswered) {
    start();
    Client client(port_);
    client.send("POST /echo HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
    EXPECT_NE(client.read_until("100 Continue", 2000ms).find("100 Continue"), std::string::npos);
    client.send("hello");
    EXPECT_NE(client.read_responses(1).find("POST /echo hello"), std::string::npos) << client.received();
}

TEST_F(HttpTransportTest, IdleAndSlowConnectionsHoldNoWorkerAndAreClosed) {
    HttpLimits limits;
    limits.worker_threads = 2;
    limits.keep_alive_timeout = 2000ms;
    limits.request_timeout = 300ms;
    start(limits);
    // Far more idle connections than workers, and one sending its head a byte at a time.
    std::vector<std::unique_ptr<Client>> idle;
    for (int i = 0; i < 200; ++i) idle.push_back(std::make_unique<Client>(port_));
    Client slow(port_);
    slow.send("G");
    expect_served("with 200 idle connections and a slow one open");
    // The slow one gets no more than the request timeout.
    EXPECT_TRUE(slow.closed_by_server(2000ms));
    EXPECT_NE(slow.received().find("408"), std::string::npos) << slow.received();
    // The idle ones are closed after the keep-alive timeout.
    EXPECT_TRUE(idle.front()->closed_by_server(5000ms));
    EXPECT_TRUE(idle.back()->closed_by_server(2000ms));
}

TEST_F(HttpTransportTest, ConnectionsBeyondTheLimitAreRefusedWith503) {
    HttpLimits limits;
    limits.max_connections = 3;
    start(limits);
    std::vector<std::unique_ptr<Client>> held;
    for (int i = 0; i < 3; ++i) {
        held.push_back(std::make_unique<Client>(port_));
        held.back()->send(get("/held"));
        held.back()->read_responses(1);
    }
    Client extra(port_);
    EXPECT_TRUE(extra.closed_by_server());
    EXPECT_NE(extra.received().find("503"), std::string::npos) << extra.received();
    held.clear();
    std::this_thread::sleep_for(100ms);
    expect_served("once the held connections closed");
}

TEST_F(HttpTransportTest, AStreamIsWrittenFromAnotherThreadThenTheConnectionGoesOn) {
    start();
    Client client(port_);
    client.send(get("/stream"));
    const std::string got = client.read_responses(1);
    EXPECT_NE(got.find("Transfer-Encoding: chunked"), std::string::npos) << got;
    const size_t zero = got.find("data: 0"), two = got.find("data: 2");
    ASSERT_NE(zero, std::string::npos) << got;
    ASSERT_NE(two, std::string::npos) << got;
    EXPECT_LT(zero, two);
    client.send(get("/after"));
    EXPECT_NE(client.read_responses(2).find("GET /after"), std::string::npos) << client.received();
}

TEST_F(HttpTransportTest, AHandlerThatThrowsOrNeverAnswersStillAnswers) {
    start();
    Client client(port_);
    client.send(get("/throw"));
    EXPECT_NE(client.read_responses(1).find("500"), std::string::npos);
    EXPECT_NE(client.received().find("the handler failed"), std::string::npos) << client.received();
    client.send(get("/drop"));
    EXPECT_NE(client.read_responses(2).find("the request was not answered"), std::string::npos) << client.received();
    client.send(get("/after"));
    EXPECT_NE(client.read_responses(3).find("GET /after"), std::string::npos) << client.received();
}

TEST_F(HttpTransportTest, AClientGoneMidBodyOrMidAnswerLeavesTheServerServing) {
    start();
    {
        Client client(port_);
        client.send("POST /echo HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" + std::string(500, 'x'));
        linger reset{1, 0};
        setsockopt(client.fd(), SOL_SOCKET, SO_LINGER, &reset, sizeof reset);  // close sends a reset
    }
    {
        Client client(port_);
        client.send(get("/hold"));
        ::shutdown(client.fd(), SHUT_WR);  // half-closed while its request is handled
        routes_.release = true;
        EXPECT_NE(client.read_responses(1).find("GET /hold"), std::string::npos) << client.received();
    }
    expect_served("after clients went away");
}

// After answering a light request on its event loop the thread polls for busy_poll, then
// sleeps: an idle server polls no more. A request handed to a worker starts no poll.
TEST_F(HttpTransportTest, AfterALightAnswerTheLoopPollsForItsWindowThenSleeps) {
    HttpLimits limits;
    limits.event_loops = 1;
    limits.busy_poll = 300ms;
    start(limits);
    Client client(port_);
    EXPECT_EQ(transport_->empty_polls(), 0u) << "polled before any request";
    client.send(get("/light"));
    ASSERT_NE(client.read_responses(1).find("GET /light"), std::string::npos) << client.received();
    std::this_thread::sleep_for(100ms);
    EXPECT_GT(transport_->empty_polls(), 0u) << "no poll after a light answer";
    std::this_thread::sleep_for(400ms);  // past the window
    const uint64_t after_window = transport_->empty_polls();
    std::this_thread::sleep_for(200ms);
    EXPECT_EQ(transport_->empty_polls(), after_window) << "the loop polls on past its window";
    client.send(get("/echo"));
    ASSERT_NE(client.read_responses(2).find("GET /echo"), std::string::npos) << client.received();
    std::this_thread::sleep_for(200ms);
    EXPECT_EQ(transport_->empty_polls(), after_window) << "a worker's request started a poll";
}

// With busy_poll 0 a loop never polls.
TEST_F(HttpTransportTest, NoPollWhenBusyPollIsZero) {
    HttpLimits limits;
    limits.busy_poll = 0ms;
    start(limits);
    Client client(port_);
    for (int i = 0; i < 5; ++i) client.send(get("/light"));
    ASSERT_NE(client.read_responses(5).find("GET /light"), std::string::npos) << client.received();
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(transport_->empty_polls(), 0u);
}

// Connections are spread over the event loops; each serves, pipelined requests in order.
TEST_F(HttpTransportTest, ConnectionsOnEveryEventLoopAreServed) {
    HttpLimits limits;
    limits.event_loops = 3;
    start(limits);
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < 7; ++i) clients.push_back(std::make_unique<Client>(port_));
    for (size_t i = 0; i < clients.size(); ++i)
        ASSERT_TRUE(clients[i]->send(get("/light?" + std::to_string(i)) + get("/echo?" + std::to_string(i))));
    for (size_t i = 0; i < clients.size(); ++i) {
        const std::string got = clients[i]->read_responses(2);
        const size_t light = got.find("GET /light?" + std::to_string(i)), echo = got.find("GET /echo?" + std::to_string(i));
        ASSERT_NE(light, std::string::npos) << got;
        ASSERT_NE(echo, std::string::npos) << got;
        EXPECT_LT(light, echo);
    }
}

}  // namespace
}  // namespace pt2ov::serve
