#include "serve/server.h"

#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>
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
namespace {

// Threads gRPC's sync server keeps polling between calls (below, at the ServerBuilder): as many
// as calls commonly in flight, so that a finished call's thread stays for the next one.
constexpr int kGrpcPollers = 16;

}  // namespace

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

    std::unique_ptr<InferenceService> service;
    std::unique_ptr<grpc::Server> grpc_server;
    if (options.grpc_port > 0) {
        service = std::make_unique<InferenceService>(state);
        // gRPC's core writes lines of its own to stderr (a port in use: a line of its internals
        // before the command's own one-line error). The command's stderr says each failure once,
        // in its words; GRPC_VERBOSITY set in the environment brings gRPC's lines back.
        if (!std::getenv("GRPC_VERBOSITY")) gpr_set_log_function([](gpr_log_func_args*) {});
        grpc::ServerBuilder builder;
        int bound_port = 0;
        builder.AddListeningPort(fmt::format("{}:{}", options.host, options.grpc_port), grpc::InsecureServerCredentials(),
                                 &bound_port);
        builder.RegisterService(service.get());
        const int limit = options.max_body_bytes > static_cast<size_t>(INT32_MAX) ? INT32_MAX
                                                                                  : static_cast<int>(options.max_body_bytes);
        builder.SetMaxReceiveMessageSize(limit);
        builder.SetMaxSendMessageSize(-1);
        // gRPC 1.51 inflates a compressed message whole before it compares its size with the
        // limit (a 200 KB gzip message took 215 MB before it was refused): compressed messages
        // are not taken at all, as compressed REST bodies are not.
        builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
        builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
        // gRPC's sync server ends a thread that finds more than MAX_POLLERS threads polling (2 by
        // default) and starts another when fewer than MIN_POLLERS are: one client calling
        // ModelInfer in a loop made it start a thread about every 50 calls (60 over 3,000, counted
        // with strace; 2 with these options), and each new thread's first inference pays
        // OpenVINO's and oneTBB's set-up for a thread it has not seen.
        builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, 1);
        builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, kGrpcPollers);
        // gRPC sets SO_REUSEPORT by default on Linux: a port in use would be shared silently.
        builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
        grpc_server = builder.BuildAndStart();
        if (!grpc_server || bound_port == 0) {
            throw InputError(fmt::format("cannot listen for gRPC on {}:{} (in use, or not an address of this machine): "
                                         "give another --grpc-port or --host",
                                         options.host, options.grpc_port));
        }
    }

    std::unique_ptr<HttpTransport> http_server;
    if (options.http_port > 0) {
        http_server = std::make_unique<HttpTransport>(rest_routes(state), http_limits(options));
        if (!http_server->bind(options.host, options.http_port)) {
            if (grpc_server) grpc_server->Shutdown();
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
    if (grpc_server) grpc_server->Shutdown();
}

}  // namespace pt2ov::serve
