// The public API: load, inspect, run.
#include <chrono>
#include <cstring>

#include "common/error.h"
#include "lower/convert.h"
#include "lower/element_type.h"
#include "openvino/runtime/core.hpp"
#include "openvino/runtime/properties.hpp"
#include "runtime/inputs.h"
#include "runtime/method.h"

namespace pt2ov {

using runtime::OutputSource;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

ov::Core& shared_core() {
    static ov::Core core;
    return core;
}

ov::element::Type precision_hint(const std::string& precision) {
    if (precision == "f32") return ov::element::f32;
    if (precision == "f16") return ov::element::f16;
    if (precision == "bf16") return ov::element::bf16;
    throw InputError("unknown precision '" + precision + "'; use f32, f16 or bf16");
}

ov::Tensor wrap(const Tensor& tensor) {
    return ov::Tensor(lower::element_type(tensor.dtype()), ov::Shape(tensor.shape().begin(), tensor.shape().end()),
                      tensor.data());
}

Tensor copy_of(const ov::Tensor& source) {
    const auto& shape = source.get_shape();
    Tensor copy = Tensor::allocate(lower::dtype_from_element(source.get_element_type()),
                                   std::vector<int64_t>(shape.begin(), shape.end()));
    std::memcpy(copy.data(), source.data(), copy.byte_size());
    return copy;
}

Tensor copy_of(const Tensor& source) {
    Tensor copy = Tensor::allocate(source.dtype(), source.shape());
    std::memcpy(copy.data(), source.data(), copy.byte_size());
    return copy;
}

}  // namespace

struct Program::Impl {
    runtime::PreparedMethod prepared;
    runtime::LoweredMethod lowered;
    LoadTimings timings;
    ov::CompiledModel compiled;
    ov::InferRequest request;
    std::vector<bool> result_is_static;
    // Mutated buffers: the value each call reads, by graph input name. Starts as a view of the
    // archive's bytes (read in place, never written) and becomes engine memory after a call.
    std::map<std::string, Tensor> buffer_state;
    std::vector<size_t> buffer_output_slots;  // graph output slots that are buffer mutations
    int64_t last_openvino_ns = 0;

    void compile(const LoadOptions& options);
    size_t owner_slot_of_result(size_t result) const {
        for (size_t j = 0; j < lowered.sources.size(); ++j) {
            if (lowered.sources[j].kind == OutputSource::Kind::OpenVINO && lowered.sources[j].index == result) return j;
        }
        throw Error("internal: no output reads result " + std::to_string(result));
    }
    void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
    Tensor make_output(size_t slot, const std::vector<Tensor>& inputs, const std::vector<Tensor>& slots,
                       std::vector<ov::Tensor>& bound_results, const std::map<std::string, Tensor>& old_state);
};

void Program::Impl::compile(const LoadOptions& options) {
    for (const auto& [name, target] : prepared.mutated_buffers) {
        const auto& stored = prepared.stored.at(target);
        buffer_state[name] = Tensor::view(stored.meta.dtype, stored.meta.static_sizes(), const_cast<std::byte*>(stored.data()));
    }
    for (size_t i = 0; i < prepared.graph.output_specs.size(); ++i) {
        if (prepared.graph.output_specs[i].kind == graph::OutputSpec::Kind::BufferMutation) buffer_output_slots.push_back(i);
    }
    if (!lowered.model) return;
    const auto start = Clock::now();
    ov::AnyMap config{ov::hint::inference_precision(precision_hint(options.precision))};
    if (!options.cache_dir.empty()) config.emplace(ov::cache_dir(options.cache_dir));
    compiled = with_context(prepared.where + ": OpenVINO could not compile it for device '" + options.device + "'",
                            [&] { return shared_core().compile_model(lowered.model, options.device, config); });
    request = compiled.create_infer_request();
    for (const auto& output : compiled.outputs()) result_is_static.push_back(output.get_partial_shape().is_static());
    timings.compile_ms = ms_since(start);
}

Tensor Program::Impl::make_output(size_t slot, const std::vector<Tensor>& inputs, const std::vector<Tensor>& slots,
                                  std::vector<ov::Tensor>& bound_results, const std::map<std::string, Tensor>& old_state) {
    const OutputSource& source = lowered.sources[slot];
    switch (source.kind) {
    case OutputSource::Kind::OpenVINO: {
        if (bound_results[source.index]) return Tensor();  // written in place
        return copy_of(request.get_output_tensor(source.index));
    }
    case OutputSource::Kind::CopyOfInput: return copy_of(inputs[source.index]);
    case OutputSource::Kind::CopyOfBuffer: return copy_of(old_state.at(source.name));
    case OutputSource::Kind::CopyOfConstant: {
        const auto& shape = source.constant->get_shape();
        Tensor copy = Tensor::allocate(lower::dtype_from_element(source.constant->get_element_type()),
                                       std::vector<int64_t>(shape.begin(), shape.end()));
        std::memcpy(copy.data(), source.constant->get_data_ptr(), copy.byte_size());
        return copy;
    }
    case OutputSource::Kind::CopyOfOutput: {
        for (size_t j = 0; j < slot; ++j) {
            const auto& other = lowered.sources[j];
            if (other.kind == OutputSource::Kind::OpenVINO && other.name == source.name) return copy_of(slots[j]);
        }
        throw Error("internal: output copied from an unknown output " + source.name);
    }
    case OutputSource::Kind::Number: return copy_of(source.number);
    }
    throw Error("internal: unknown output source");
}

void Program::Impl::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& user_outputs) {
    runtime::check_inputs(prepared, inputs);
    const auto& sources = lowered.sources;
    const size_t slot_count = sources.size();
    const size_t mutation_count = buffer_output_slots.size();
    if (!user_outputs.empty() && user_outputs.size() != slot_count - mutation_count) {
        throw InputError(prepared.where + ": " + std::to_string(user_outputs.size()) + " output tensors given, the program has " +
                         std::to_string(slot_count - mutation_count) + " outputs");
    }
    std::vector<Tensor> slots(slot_count);
    for (size_t i = 0; i < user_outputs.size(); ++i) slots[mutation_count + i] = user_outputs[i];

    std::vector<ov::Tensor> bound_results(result_is_static.size());
    if (lowered.model) {
        std::map<std::string, size_t> user_input_index;
        for (size_t i = 0; i < prepared.user_inputs.size(); ++i) user_input_index[prepared.user_inputs[i]] = i;
        for (size_t p = 0; p < lowered.model_inputs.size(); ++p) {
            const std::string& name = lowered.model_inputs[p];
            auto it = user_input_index.find(name);
            const Tensor& bound = it != user_input_index.end() ? inputs[it->second] : buffer_state.at(name);
            request.set_input_tensor(p, wrap(bound));
        }
        // Static results are written straight into the output tensors (the caller's, or new
        // ones); a result read by two outputs is bound once and copied for the second.
        for (size_t slot = 0; slot < slot_count; ++slot) {
            const auto& source = sources[slot];
            if (source.kind != OutputSource::Kind::OpenVINO || !result_is_static[source.index] || bound_results[source.index]) continue;
            const auto& shape = compiled.output(source.index).get_shape();
            std::vector<int64_t> dims(shape.begin(), shape.end());
            const DType dtype = lower::dtype_from_element(compiled.output(source.index).get_element_type());
            if (slots[slot].empty_handle() || slots[slot].shape() != dims || slots[slot].dtype() != dtype) {
                if (!slots[slot].empty_handle()) {
                    throw InputError(prepared.where + ": output " + std::to_string(slot - mutation_count) +
                                     " given with the wrong shape or dtype");
                }
                slots[slot] = Tensor::allocate(dtype, dims);
            }
            bound_results[source.index] = wrap(slots[slot]);
            request.set_output_tensor(source.index, bound_results[source.index]);
        }
        const auto start = Clock::now();
        with_context(prepared.where + ": OpenVINO failed during the call", [&] { request.infer(); });
        last_openvino_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    }
    const auto old_state = buffer_state;
    for (size_t slot = 0; slot < slot_count; ++slot) {
        const auto& source = sources[slot];
        if (source.kind == OutputSource::Kind::OpenVINO && bound_results.size() > source.index && bound_results[source.index]) {
            // Written in place into the slot that owns the result; another slot reading the
            // same result gets its own copy.
            const size_t owner = owner_slot_of_result(source.index);
            if (owner != slot) slots[slot] = copy_of(slots[owner]);
            continue;
        }
        Tensor made = make_output(slot, inputs, slots, bound_results, old_state);
        if (!slots[slot].empty_handle() && slots[slot].shape() == made.shape() && slots[slot].dtype() == made.dtype()) {
            std::memcpy(slots[slot].data(), made.data(), made.byte_size());
        } else {
            slots[slot] = made;
        }
    }
    for (size_t k = 0; k < mutation_count; ++k) {
        const size_t slot = buffer_output_slots[k];
        const std::string buffer_value = [&] {
            for (const auto& [name, target] : prepared.mutated_buffers) {
                if (target == prepared.graph.output_specs[slot].target) return name;
            }
            throw Error("internal: mutation of unknown buffer " + prepared.graph.output_specs[slot].target);
        }();
        buffer_state[buffer_value] = slots[slot];
    }
    user_outputs.assign(slots.begin() + static_cast<std::ptrdiff_t>(mutation_count), slots.end());
}

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

Program Program::load(const std::string& path, const LoadOptions& options) {
    auto impl = std::make_unique<Impl>();
    impl->prepared = runtime::prepare_method(path, options);
    impl->lowered = runtime::lower_method(impl->prepared, options, false);
    impl->timings.archive_ms = impl->prepared.archive_ms;
    impl->timings.convert_ms = impl->lowered.convert_ms;
    impl->compile(options);
    return Program(std::move(impl));
}

PlacementReport Program::inspect(const std::string& path, const LoadOptions& options) {
    auto prepared = runtime::prepare_method(path, options);
    return runtime::lower_method(prepared, options, true).report;
}

std::vector<std::string> Program::methods(const std::string& path) {
    auto archive = archive::Archive::open(path);
    auto models = archive->models();
    if (models.size() == 1) return {"forward"};
    return models;
}

const std::vector<IOInfo>& Program::inputs() const { return impl_->prepared.input_infos; }
const std::vector<IOInfo>& Program::outputs() const { return impl_->prepared.output_infos; }
const PlacementReport& Program::report() const { return impl_->lowered.report; }
const LoadTimings& Program::timings() const { return impl_->timings; }
int64_t Program::last_openvino_ns() const { return impl_->last_openvino_ns; }

std::vector<Tensor> Program::run(const std::vector<Tensor>& inputs) {
    std::vector<Tensor> outputs;
    impl_->run(inputs, outputs);
    return outputs;
}

void Program::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { impl_->run(inputs, outputs); }

std::string openvino_version() { return lower::openvino_runtime_version(); }

}  // namespace pt2ov
