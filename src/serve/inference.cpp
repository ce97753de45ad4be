#include "serve/inference.h"

#include <chrono>
#include <set>

#include <fmt/format.h>

#include "common/text.h"
#include "serve/datatype.h"
#include "serve/error.h"

namespace pt2ov::serve {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t nanoseconds_since(Clock::time_point start) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

std::vector<std::string> names_of(const std::vector<IOInfo>& infos) {
    std::vector<std::string> names;
    for (const auto& info : infos) names.push_back(info.name);
    return names;
}

std::string shape_text(const std::vector<int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

void check_input(const Model& model, const IOInfo& info, const InputTensor& input) {
    const std::string what = fmt::format("model '{}' input '{}'", model.name, info.name);
    if (input.dtype != info.dtype) {
        throw bad_request(fmt::format("{}: datatype {}, but the model takes {}", what, protocol_datatype(input.dtype),
                                      protocol_datatype(info.dtype)));
    }
    bool fits = input.shape.size() == info.shape.size();
    for (size_t d = 0; fits && d < info.shape.size(); ++d) {
        if (info.shape[d] >= 0) {
            fits = input.shape[d] == info.shape[d];
        } else if (d < info.dim_ranges.size()) {
            fits = input.shape[d] >= info.dim_ranges[d].first && input.shape[d] <= info.dim_ranges[d].second;
        }
    }
    if (!fits) {
        std::string ranges;
        for (size_t d = 0; d < info.shape.size(); ++d) {
            if (info.shape[d] < 0 && d < info.dim_ranges.size()) {
                ranges += fmt::format("; dim {} within [{}, {}]", d, info.dim_ranges[d].first, info.dim_ranges[d].second);
            }
        }
        throw bad_request(fmt::format("{}: shape {}, but the model takes {} (-1: any size{})", what,
                                      shape_text(input.shape), shape_text(info.shape), ranges));
    }
}

// The request's inputs in the program's order, each checked.
std::vector<Tensor> program_inputs(const Model& model, const InferRequest& request) {
    const auto& infos = model.program.inputs();
    std::vector<const InputTensor*> by_position(infos.size(), nullptr);
    for (const auto& input : request.inputs) {
        size_t position = infos.size();
        for (size_t i = 0; i < infos.size(); ++i) {
            if (infos[i].name == input.name) position = i;
        }
        if (position == infos.size()) {
            throw bad_request(fmt::format("model '{}' has no input '{}' (its inputs: {})", model.name, input.name,
                                          fmt::join(names_of(infos), ", ")));
        }
        if (by_position[position]) {
            throw bad_request(fmt::format("model '{}' input '{}' is given twice", model.name, input.name));
        }
        by_position[position] = &input;
    }
    std::vector<Tensor> tensors;
    for (size_t i = 0; i < infos.size(); ++i) {
        if (!by_position[i]) {
            throw bad_request(fmt::format("model '{}' input '{}' is missing (its inputs: {})", model.name, infos[i].name,
                                          fmt::join(names_of(infos), ", ")));
        }
        check_input(model, infos[i], *by_position[i]);
        tensors.push_back(by_position[i]->tensor);
    }
    return tensors;
}

// Which outputs to send, checked before the run so a bad name costs no inference.
std::vector<std::pair<size_t, bool>> chosen_outputs(const Model& model, const InferRequest& request) {
    const auto& infos = model.program.outputs();
    std::vector<std::pair<size_t, bool>> chosen;
    if (request.outputs.empty()) {
        for (size_t i = 0; i < infos.size(); ++i) chosen.emplace_back(i, request.binary_outputs);
        return chosen;
    }
    std::set<std::string> seen;
    for (const auto& wanted : request.outputs) {
        size_t position = infos.size();
        for (size_t i = 0; i < infos.size(); ++i) {
            if (infos[i].name == wanted.name) position = i;
        }
        if (position == infos.size()) {
            throw bad_request(fmt::format("model '{}' has no output '{}' (its outputs: {})", model.name, wanted.name,
                                          fmt::join(names_of(infos), ", ")));
        }
        if (!seen.insert(wanted.name).second) {
            throw bad_request(fmt::format("model '{}' output '{}' is requested twice", model.name, wanted.name));
        }
        chosen.emplace_back(position, wanted.binary.value_or(request.binary_outputs));
    }
    return chosen;
}

}  // namespace

void InferenceSlots::acquire() {
    if (limit_ <= 0) return;
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return running_ < limit_; });
    ++running_;
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
        const std::vector<Tensor> inputs = program_inputs(model, request);
        const auto chosen = chosen_outputs(model, request);
        const auto queued = Clock::now();
        slots.acquire();
        struct Release {
            InferenceSlots& slots;
            ~Release() { slots.release(); }
        } release{slots};
        model.metrics.queue_ns.fetch_add(nanoseconds_since(queued), std::memory_order_relaxed);
        const auto started = Clock::now();
        std::vector<Tensor> outputs;
        try {
            outputs = model.program.run(inputs);
        } catch (const InternalError& e) {
            throw RequestError(Failure::Internal, fmt::format("model '{}': internal error (a bug in pt2ov; please report "
                                                              "it with the model): {}",
                                                              model.name, one_line(e.what())));
        } catch (const Error& e) {
            throw bad_request(fmt::format("model '{}': {}", model.name, one_line(e.what())));
        }
        model.metrics.compute_ns.fetch_add(nanoseconds_since(started), std::memory_order_relaxed);
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
