#include "serve/grpc_service.h"

#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <fmt/format.h>

#include "grpc_predict_v2.grpc.pb.h"
#include "pt2ov/error.h"

#include "common/text.h"
#include "serve/grpc_messages.h"
#include "serve/datatype.h"
#include "serve/error.h"
#include "serve/inference.h"

namespace pt2ov::serve {
namespace {

grpc::Status status_of(const RequestError& error) {
    const std::string message = client_message(error.what());
    switch (error.failure()) {
        case Failure::BadRequest: return {grpc::StatusCode::INVALID_ARGUMENT, message};
        case Failure::NotFound: return {grpc::StatusCode::NOT_FOUND, message};
        case Failure::TooLarge: return {grpc::StatusCode::RESOURCE_EXHAUSTED, message};
        case Failure::Exhausted: return {grpc::StatusCode::RESOURCE_EXHAUSTED, message};
        case Failure::Internal: return {grpc::StatusCode::INTERNAL, message};
    }
    return {grpc::StatusCode::INTERNAL, message};
}

// Runs `handle`, turning every exception into a status: none leaves the service.
template <typename Handle>
grpc::Status answer(Handle&& handle) {
    try {
        handle();
        return grpc::Status::OK;
    } catch (const RequestError& e) {
        return status_of(e);
    } catch (const std::exception& e) {
        return {grpc::StatusCode::INTERNAL, client_message(fmt::format("internal error: {}", e.what()))};
    }
}

void add_tensor_metadata(const std::vector<IOInfo>& infos,
                         google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>* out) {
    for (const auto& info : infos) {
        auto* tensor = out->Add();
        tensor->set_name(info.name);
        tensor->set_datatype(std::string(protocol_datatype(info.dtype)));
        for (int64_t dim : info.shape) tensor->add_shape(dim);
    }
}

using Service = inference::GRPCInferenceService::AsyncService;

// Inferences handed off at once at most (gRPC's sync server, before, kept 16 threads).
constexpr size_t kWorkers = 16;

// How long stop() lets the calls in flight finish before it cancels them.
constexpr std::chrono::seconds kShutdownGrace{5};

size_t tensor_bytes(const inference::ModelInferRequest& request) {
    size_t bytes = 0;
    for (const auto& raw : request.raw_input_contents()) bytes += raw.size();
    for (const auto& input : request.inputs()) bytes += input.contents().ByteSizeLong();
    return bytes;
}

// The answers, one per method: each fills the response and returns the call's status.
grpc::Status server_live(const ServerState&, const inference::ServerLiveRequest&, inference::ServerLiveResponse& response) {
    response.set_live(true);
    return grpc::Status::OK;
}

grpc::Status server_ready(const ServerState&, const inference::ServerReadyRequest&,
                          inference::ServerReadyResponse& response) {
    response.set_ready(true);
    return grpc::Status::OK;
}

grpc::Status model_ready(const ServerState& state, const inference::ModelReadyRequest& request,
                         inference::ModelReadyResponse& response) {
    return answer([&] {
        state.repository.find(request.name(), request.version());
        response.set_ready(true);
    });
}

grpc::Status server_metadata(const ServerState&, const inference::ServerMetadataRequest&,
                             inference::ServerMetadataResponse& response) {
    response.set_name(kServerName);
    response.set_version(server_version());
    response.add_extensions("binary_tensor_data");
    return grpc::Status::OK;
}

grpc::Status model_metadata(const ServerState& state, const inference::ModelMetadataRequest& request,
                            inference::ModelMetadataResponse& response) {
    return answer([&] {
        const Model& model = state.repository.find(request.name(), request.version());
        response.set_name(model.name);
        for (const auto& version : state.repository.versions(model.name)) response.add_versions(version);
        response.set_platform("pt2ov");
        add_tensor_metadata(model.program.inputs(), response.mutable_inputs());
        add_tensor_metadata(model.program.outputs(), response.mutable_outputs());
    });
}

grpc::Status model_infer(const ServerState& state, const inference::ModelInferRequest& request,
                         inference::ModelInferResponse& response) {
    return answer([&] {
        Model& model = state.repository.find(request.model_name(), request.model_version());
        InferRequest decoded = [&] {
            try {
                return decode_grpc_request(request);
            } catch (const RequestError&) {
                model.metrics.requests.fetch_add(1, std::memory_order_relaxed);
                model.metrics.failures.fetch_add(1, std::memory_order_relaxed);
                throw;
            }
        }();
        encode_grpc_response(infer(model, decoded, state.slots), response);
    });
}

// The repository is read once at start: loading and unloading models are refused.
grpc::Status model_control_refused(const char* verb, const std::string& model) {
    return {grpc::StatusCode::UNIMPLEMENTED,
            client_message(fmt::format("cannot {} model '{}': pt2ov serve reads its repository once, at start "
                                       "(restart it to serve other models)",
                                       verb, model))};
}

grpc::Status model_load(const ServerState&, const inference::RepositoryModelLoadRequest& request,
                        inference::RepositoryModelLoadResponse&) {
    return model_control_refused("load", request.model_name());
}

grpc::Status model_unload(const ServerState&, const inference::RepositoryModelUnloadRequest& request,
                          inference::RepositoryModelUnloadResponse&) {
    return model_control_refused("unload", request.model_name());
}

// Whether a call is answered on its queue's thread (else a worker's).
template <typename Request>
bool answers_at_once(const ServerState&, const Request&) {
    return true;
}

template <>
bool answers_at_once(const ServerState& state, const inference::ModelInferRequest& request) {
    try {
        return runs_light(state.repository.find(request.model_name(), request.model_version()), state.slots,
                          tensor_bytes(request));
    } catch (const RequestError&) {
        return true;  // no such model: answered with its error
    }
}

// Until when this queue thread polls instead of sleeping (set when it has just answered a call).
thread_local std::chrono::steady_clock::time_point poll_until{};

// A tag on a completion queue: what to do when its operation completes.
class Call {
public:
    virtual ~Call() = default;
    virtual void proceed(bool ok) = 0;
};

}  // namespace

struct GrpcServer::Impl {
    const ServerState& state;
    std::chrono::microseconds busy_poll;
    Service service;
    std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues;
    std::unique_ptr<grpc::Server> server;
    std::vector<std::thread> threads;
    boost::asio::thread_pool workers{kWorkers};
    std::atomic<bool> stopping{false};
    bool stopped = false;

    Impl(const ServerState& s, const ServeOptions& options)
        : state(s), busy_poll(std::chrono::microseconds(std::max(0, options.busy_poll_us))) {}

    void run(grpc::ServerCompletionQueue& queue) const;
};

namespace {

// One unary call of a method, from waiting for it to its answer's completion. Each queue holds
// one waiting call per method; when a call arrives, the next one is put in its place.
template <typename Request, typename Response>
class UnaryCall final : public Call {
public:
    using Requester = void (Service::*)(grpc::ServerContext*, Request*, grpc::ServerAsyncResponseWriter<Response>*,
                                        grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*);
    using Answer = grpc::Status (*)(const ServerState&, const Request&, Response&);

    static void wait(GrpcServer::Impl& server, grpc::ServerCompletionQueue& queue, Requester requester, Answer answer) {
        auto* call = new UnaryCall(server, queue, requester, answer);
        (server.service.*requester)(&call->context_, &call->request_, &call->writer_, &queue, &queue, call);
    }

    void proceed(bool ok) override {
        if (answered_ || !ok) {  // the answer is out (or the call was cut), or the server is shutting down
            delete this;
            return;
        }
        answered_ = true;
        if (!server_.stopping.load(std::memory_order_acquire)) wait(server_, queue_, requester_, answer_);
        if (answers_at_once(server_.state, request_)) {
            finish();
            if (server_.busy_poll.count() > 0) poll_until = std::chrono::steady_clock::now() + server_.busy_poll;
        } else {
            poll_until = {};  // the worker needs the cores more than the next call needs a poll
            boost::asio::post(server_.workers, [this] { finish(); });
        }
    }

private:
    UnaryCall(GrpcServer::Impl& server, grpc::ServerCompletionQueue& queue, Requester requester, Answer answer)
        : server_(server), queue_(queue), requester_(requester), answer_(answer), writer_(&context_) {}

    void finish() {
        grpc::Status status;
        try {
            status = answer_(server_.state, request_, response_);
        } catch (const std::exception& e) {
            status = {grpc::StatusCode::INTERNAL, client_message(fmt::format("internal error: {}", e.what()))};
        }
        writer_.Finish(response_, status, this);
    }

    GrpcServer::Impl& server_;
    grpc::ServerCompletionQueue& queue_;
    Requester requester_;
    Answer answer_;
    grpc::ServerContext context_;
    Request request_;
    Response response_;
    grpc::ServerAsyncResponseWriter<Response> writer_;
    bool answered_ = false;
};

template <typename Request, typename Response>
void wait_for(GrpcServer::Impl& server, grpc::ServerCompletionQueue& queue,
              typename UnaryCall<Request, Response>::Requester requester,
              typename UnaryCall<Request, Response>::Answer answer) {
    UnaryCall<Request, Response>::wait(server, queue, requester, answer);
}

}  // namespace

void GrpcServer::Impl::run(grpc::ServerCompletionQueue& queue) const {
    for (;;) {
        void* tag = nullptr;
        bool ok = false;
        const bool polling = poll_until > std::chrono::steady_clock::now();
        const auto got = queue.AsyncNext(&tag, &ok, polling ? gpr_time_0(GPR_CLOCK_MONOTONIC)
                                                            : gpr_inf_future(GPR_CLOCK_MONOTONIC));
        if (got == grpc::CompletionQueue::SHUTDOWN) return;
        if (got == grpc::CompletionQueue::TIMEOUT) {
            std::this_thread::yield();
            continue;
        }
        static_cast<Call*>(tag)->proceed(ok);
    }
}

GrpcServer::GrpcServer(const ServerState& state, const ServeOptions& options)
    : impl_(std::make_unique<Impl>(state, options)) {
    // gRPC's core writes lines of its own to stderr (a port in use: a line of its internals
    // before the command's own one-line error). The command's stderr says each failure once,
    // in its words; GRPC_VERBOSITY set in the environment brings gRPC's lines back.
    if (!std::getenv("GRPC_VERBOSITY")) gpr_set_log_function([](gpr_log_func_args*) {});
    grpc::ServerBuilder builder;
    int bound_port = 0;
    builder.AddListeningPort(fmt::format("{}:{}", options.host, options.grpc_port), grpc::InsecureServerCredentials(),
                             &bound_port);
    builder.RegisterService(&impl_->service);
    const int limit = options.max_body_bytes > static_cast<size_t>(INT32_MAX) ? INT32_MAX
                                                                              : static_cast<int>(options.max_body_bytes);
    builder.SetMaxReceiveMessageSize(limit);
    builder.SetMaxSendMessageSize(-1);
    // gRPC 1.51 inflates a compressed message whole before it compares its size with the limit
    // (a 200 KB gzip message took 215 MB before it was refused): compressed messages are not
    // taken at all, as compressed REST bodies are not.
    builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
    builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
    // gRPC sets SO_REUSEPORT by default on Linux: a port in use would be shared silently.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 2u);
    for (unsigned i = 0; i < threads; ++i) impl_->queues.push_back(builder.AddCompletionQueue());
    impl_->server = builder.BuildAndStart();
    if (!impl_->server || bound_port == 0) {
        for (auto& queue : impl_->queues) queue->Shutdown();
        for (auto& queue : impl_->queues) {
            void* tag = nullptr;
            bool ok = false;
            while (queue->Next(&tag, &ok)) {
            }
        }
        impl_->stopped = true;
        throw InputError(fmt::format("cannot listen for gRPC on {}:{} (in use, or not an address of this machine): "
                                     "give another --grpc-port or --host",
                                     options.host, options.grpc_port));
    }
    Impl& server = *impl_;
    for (auto& queue : impl_->queues) {
        using namespace inference;
        wait_for<ServerLiveRequest, ServerLiveResponse>(server, *queue, &Service::RequestServerLive, server_live);
        wait_for<ServerReadyRequest, ServerReadyResponse>(server, *queue, &Service::RequestServerReady, server_ready);
        wait_for<ModelReadyRequest, ModelReadyResponse>(server, *queue, &Service::RequestModelReady, model_ready);
        wait_for<ServerMetadataRequest, ServerMetadataResponse>(server, *queue, &Service::RequestServerMetadata,
                                                                server_metadata);
        wait_for<ModelMetadataRequest, ModelMetadataResponse>(server, *queue, &Service::RequestModelMetadata,
                                                              model_metadata);
        wait_for<ModelInferRequest, ModelInferResponse>(server, *queue, &Service::RequestModelInfer, model_infer);
        wait_for<RepositoryModelLoadRequest, RepositoryModelLoadResponse>(server, *queue,
                                                                          &Service::RequestRepositoryModelLoad, model_load);
        wait_for<RepositoryModelUnloadRequest, RepositoryModelUnloadResponse>(
            server, *queue, &Service::RequestRepositoryModelUnload, model_unload);
    }
    for (auto& queue : impl_->queues) impl_->threads.emplace_back([&server, &queue = *queue] { server.run(queue); });
}

GrpcServer::~GrpcServer() { stop(); }

void GrpcServer::stop() {
    if (!impl_ || impl_->stopped) return;
    impl_->stopped = true;
    impl_->stopping.store(true, std::memory_order_release);
    // The calls in flight finish (their answers go out through the queues, still served), the
    // calls waiting are cancelled; then the workers are done, and the queues drain and end.
    // Calls still open after kShutdownGrace are cancelled: a client that sends half a message,
    // or never reads its answer (a zero flow-control window), would otherwise hold the server
    // past SIGTERM for ever.
    impl_->server->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
    impl_->workers.join();
    for (auto& queue : impl_->queues) queue->Shutdown();
    for (auto& thread : impl_->threads) thread.join();
}

}  // namespace pt2ov::serve
