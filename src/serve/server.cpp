#include "serve/server.h"

#include <signal.h>
#include <sys/resource.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "pt2ov/error.h"
#include "serve/grpc_service.h"
#include "serve/http_server.h"

namespace pt2ov::serve {
std::string server_version() {
#ifdef PT2OV_VERSION
    return PT2OV_VERSION;
#else
    return "unknown";
#endif
}

void serve(const ModelRepository& repository, const ServeOptions& options) {
    // SIGINT and SIGTERM are taken by sigwait below, on this thread; every thread started from
    // here on inherits the mask, so neither signal ends the process mid-request.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    // A client that closes its connection while its answer is written must not end the server.
    signal(SIGPIPE, SIG_IGN);
    // Each connection is a file descriptor: the soft limit (often 1,024) raised to the hard one, so
    // that --max-connections, not the descriptor limit, is what refuses connections.
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }

    InferenceSlots slots(options.max_concurrent_inferences);
    const ServerState state{repository, slots, options};

    std::unique_ptr<GrpcServer> grpc_server;
    if (options.grpc_port > 0) grpc_server = std::make_unique<GrpcServer>(state, options);

    std::unique_ptr<HttpTransport> http_server;
    if (options.http_port > 0) {
        http_server = std::make_unique<HttpTransport>(rest_routes(state), http_limits(options));
        if (!http_server->bind(options.host, options.http_port)) {
            if (grpc_server) grpc_server->stop();
            throw InputError(fmt::format("cannot listen for HTTP on {}:{} (in use, or not an address of this machine): "
                                         "give another --http-port or --host",
                                         options.host, options.http_port));
        }
        http_server->start();
    }
    std::cerr << fmt::format("pt2ov serve: {} model(s) ready; HTTP {}, gRPC {}\n", repository.model_names().size(),
                             options.http_port > 0 ? fmt::format("{}:{}", options.host, options.http_port) : "off",
                             options.grpc_port > 0 ? fmt::format("{}:{}", options.host, options.grpc_port) : "off")
              << std::flush;

    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    std::cerr << "pt2ov serve: stopping\n";
    if (http_server) http_server->stop();
    if (grpc_server) grpc_server->stop();
}

}  // namespace pt2ov::serve
