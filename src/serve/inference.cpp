#include "serve/inference.h"

#include <chrono>

#include <fmt/format.h>

#include "common/text.h"
#include "serve/error.h"

namespace pt2ov::serve {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t nanoseconds_since(Clock::time_point start) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

}  // namespace

void InferenceSlots::acquire() {
    if (limit_ <= 0) return;
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return running_ < limit_; });
    ++running_;
}

bool runs_light(const Model& model, InferenceSlots& slots, size_t request_bytes) {
    const uint64_t typical = model.typical_run_ns.load(std::memory_order_relaxed);
    return request_bytes <= kLightRequestBytes && !model.batcher && typical > 0 && typical < kLightRunNs &&
           slots.free_now();
}

bool InferenceSlots::free_now() {
    if (limit_ <= 0) return true;
    std::lock_guard lock(mutex_);
    return running_ < limit_;
}

void InferenceSlots::release() {
    if (limit_ <= 0) return;
    {
        std::lock_guard lock(mutex_);
        --running_;
    }
    freed_.notify_one();
}

InferResponse infer(Model& model, InferRequest& request, InferenceSlots& slots) {
    model.metrics.requests.fetch_add(1, std::memory_order_relaxed);
    try {
        // Checked before the slot is taken, so a bad request costs no inference.
        const std::vector<Tensor> inputs = ordered_inputs(model.name, model.program.inputs(), request);
        const auto chosen = chosen_outputs(model.name, model.program.outputs(), request);
        std::vector<Tensor> outputs;
        try {
            if (model.batcher) {
                auto result = model.batcher->run(inputs, slots);
                model.metrics.queue_ns.fetch_add(result.queue_ns, std::memory_order_relaxed);
                model.metrics.compute_ns.fetch_add(result.compute_ns, std::memory_order_relaxed);
                outputs = std::move(result.outputs);
            } else {
                const auto queued = Clock::now();
                slots.acquire();
                struct Release {
                    InferenceSlots& slots;
                    ~Release() { slots.release(); }
                } release{slots};
                model.metrics.queue_ns.fetch_add(nanoseconds_since(queued), std::memory_order_relaxed);
                const auto started = Clock::now();
                outputs = model.program.run(inputs);
                const uint64_t ran = nanoseconds_since(started);
                model.metrics.runs.fetch_add(1, std::memory_order_relaxed);
                model.metrics.compute_ns.fetch_add(ran, std::memory_order_relaxed);
                // Racing writers may lose a sample: it is a hint, not a metric.
                const uint64_t typical = model.typical_run_ns.load(std::memory_order_relaxed);
                model.typical_run_ns.store(typical ? typical - typical / 8 + ran / 8 : ran, std::memory_order_relaxed);
            }
        } catch (const InternalError& e) {
            throw RequestError(Failure::Internal, fmt::format("model '{}': internal error (a bug in pt2ov; please report "
                                                              "it with the model): {}",
                                                              model.name, one_line(e.what())));
        } catch (const OpenVINOError& e) {
            // Not the request's fault, and no bug of pt2ov's that it knows of.
            throw RequestError(Failure::Internal, fmt::format("model '{}': {}", model.name, one_line(e.what())));
        } catch (const ResourceError& e) {
            throw RequestError(Failure::Exhausted, fmt::format("model '{}': {}", model.name, one_line(e.what())));
        } catch (const Error& e) {
            throw bad_request(fmt::format("model '{}': {}", model.name, one_line(e.what())));
        }
        InferResponse response{model.name, model.version, request.id, {}};
        const auto& infos = model.program.outputs();
        for (const auto& [position, binary] : chosen) {
            response.outputs.push_back({infos[position].name, outputs[position], binary});
        }
        return response;
    } catch (const RequestError&) {
        model.metrics.failures.fetch_add(1, std::memory_order_relaxed);
        throw;
    } catch (const std::exception& e) {
        model.metrics.failures.fetch_add(1, std::memory_order_relaxed);
        throw RequestError(Failure::Internal, fmt::format("model '{}': internal error: {}", model.name, one_line(e.what())));
    }
}

}  // namespace pt2ov::serve
