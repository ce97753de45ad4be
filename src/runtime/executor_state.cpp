// The executor's mutated buffers as state: read, written and reset by name between calls,
// kept in OpenVINO's variables where a step holds them, else in two buffers a call alternates.
#include "runtime/executor.h"

#include <cstring>
#include <string>

#include "common/error.h"
#include "runtime/executor_internal.h"

namespace pt2ov::runtime {

using kernels::RuntimeValue;
using kernels::Scalar;
using kernels::StridedTensor;

std::vector<std::string> Executor::state_names() const {
    std::vector<std::string> names;
    for (const auto& buffer : buffers_) {
        const std::string& name = buffer.split < 0 ? buffer.name : splits_[static_cast<size_t>(buffer.split)].name;
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    return names;
}

std::vector<Executor::MutatedBuffer*> Executor::buffers_named(const std::string& name, const char* what) {
    std::vector<MutatedBuffer*> found;
    for (const auto& split : splits_) {
        if (split.name != name) continue;
        for (int part : split.parts) found.push_back(&buffers_[static_cast<size_t>(part)]);
        return found;
    }
    for (auto& buffer : buffers_) {
        if (buffer.split < 0 && buffer.name == name) return {&buffer};
    }
    std::string known;
    for (const auto& state : state_names()) known += (known.empty() ? "'" : ", '") + state + "'";
    throw InputError(prepared_.where + ": cannot " + what + " state '" + name + "': the program mutates " +
                     (known.empty() ? std::string("no buffer") : "only the buffers " + known));
}

ov::VariableState Executor::openvino_variable(const MutatedBuffer& buffer) const {
    for (auto& variable : state_context_->steps.at(buffer.openvino_step).request.query_state()) {
        if (variable.get_name() == buffer.name) return variable;
    }
    throw InternalError(prepared_.where + ": step " + std::to_string(buffer.openvino_step + 1) +
                        " has no OpenVINO state '" + buffer.name + "'");
}

// OpenVINO copies the value into the request's own memory (the archive's bytes are read only).
void Executor::set_openvino_state(const MutatedBuffer& buffer, const StridedTensor& value) const {
    const StridedTensor contiguous = value.is_contiguous() ? value : contiguous_copy(value);
    with_context(prepared_.where + ": OpenVINO could not set state '" + buffer.name + "'",
                 [&] { openvino_variable(buffer).set_state(wrap(contiguous)); });
}

void Executor::read_buffer(const MutatedBuffer& buffer, std::byte* destination) const {
    const size_t bytes = static_cast<size_t>(buffer.initial.numel()) * buffer.initial.element_size();
    if (buffer.openvino_step < 0) {
        if (!bytes) return;
        StridedTensor into = buffer.initial;
        into.strides = kernels::contiguous_strides(into.sizes);
        into.data = destination;
        into.owner = nullptr;
        kernels::copy_into(buffer.state, into);
        return;
    }
    const ov::Tensor held = with_context(prepared_.where + ": OpenVINO could not read state '" + buffer.name + "'",
                                         [&] { return openvino_variable(buffer).get_state(); });
    if (buffer.appends) {
        // OpenVINO holds [B, H, n, D] of the cache [B, H, capacity, D]; the positions from n on
        // were never written since load or reset_state: they hold the archive's values.
        const auto& sizes = buffer.initial.sizes;
        const ov::Shape shape = held.get_shape();
        if (held.get_element_type() != lower::element_type(buffer.initial.dtype) || shape.size() != 4 ||
            static_cast<int64_t>(shape[0]) != sizes[0] || static_cast<int64_t>(shape[1]) != sizes[1] ||
            static_cast<int64_t>(shape[2]) > sizes[2] || static_cast<int64_t>(shape[3]) != sizes[3]) {
            throw InternalError(prepared_.where + ": OpenVINO holds appending state '" + buffer.name + "' as " +
                                held.get_element_type().get_type_name() + " " + shape.to_string());
        }
        StridedTensor whole = buffer.initial;
        whole.strides = kernels::contiguous_strides(whole.sizes);
        whole.data = destination;
        whole.owner = nullptr;
        kernels::copy_into(buffer.initial, whole);
        const size_t row = static_cast<size_t>(sizes[3]) * buffer.initial.element_size();
        const size_t written = shape[2];
        const auto* from = static_cast<const std::byte*>(held.data());
        for (int64_t bh = 0; bh < sizes[0] * sizes[1]; ++bh) {
            if (written) std::memcpy(destination + static_cast<size_t>(bh * sizes[2]) * row, from + bh * written * row, written * row);
        }
        return;
    }
    // OpenVINO's CPU plugin holds a 0-d state as shape [1]: the elements are what must match.
    if (held.get_element_type() != lower::element_type(buffer.initial.dtype) ||
        static_cast<int64_t>(held.get_size()) != buffer.initial.numel()) {
        throw InternalError(prepared_.where + ": OpenVINO holds state '" + buffer.name + "' as " +
                            held.get_element_type().get_type_name() + " " + held.get_shape().to_string());
    }
    if (bytes) std::memcpy(destination, held.data(), bytes);
}

void Executor::write_buffer(MutatedBuffer& buffer, const StridedTensor& value) {
    if (buffer.openvino_step >= 0) {
        set_openvino_state(buffer, value);
    } else {
        buffer.state = contiguous_copy(value);
    }
}

Tensor Executor::read_state(const std::string& name) const {
    std::lock_guard lock(state_mutex_);
    const auto buffers = const_cast<Executor*>(this)->buffers_named(name, "read");
    // A split buffer is its parts stacked along dim 0, each part one row of contiguous bytes.
    std::vector<int64_t> sizes = buffers.front()->initial.sizes;
    if (buffers.front()->split >= 0) sizes = splits_[static_cast<size_t>(buffers.front()->split)].sizes;
    Tensor copy = Tensor::allocate(buffers.front()->initial.dtype, sizes);
    size_t offset = 0;
    for (const MutatedBuffer* buffer : buffers) {
        read_buffer(*buffer, static_cast<std::byte*>(copy.data()) + offset);
        offset += static_cast<size_t>(buffer->initial.numel()) * buffer->initial.element_size();
    }
    return copy;
}

void Executor::write_state(const std::string& name, const Tensor& value) {
    std::lock_guard lock(state_mutex_);
    const auto buffers = buffers_named(name, "write");
    const DType dtype = buffers.front()->initial.dtype;
    std::vector<int64_t> sizes = buffers.front()->initial.sizes;
    if (buffers.front()->split >= 0) sizes = splits_[static_cast<size_t>(buffers.front()->split)].sizes;
    auto shape_text = [](const std::vector<int64_t>& dims) {
        std::string text = "(";
        for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
        return text + (dims.size() == 1 ? ",)" : ")");
    };
    if (value.dtype() != dtype || value.shape() != sizes) {
        throw InputError(prepared_.where + ": state '" + name + "' is " + std::string(dtype_name(dtype)) +
                         " of shape " + shape_text(sizes) + "; the value given is " +
                         std::string(dtype_name(value.dtype())) + " of shape " + shape_text(value.shape()));
    }
    if (value.numel() > 0 && !value.data()) throw InputError(prepared_.where + ": state '" + name + "': the value has no data");
    if (buffers.front()->appends) {
        throw InputError(prepared_.where + ": state '" + name +
                         "' is a cache held under the appending positions promise, which grows by each call's positions "
                         "and cannot be written; reset_state empties it, or load the program without the promise to write it");
    }
    const StridedTensor whole = view_of(value);
    if (buffers.front()->split < 0) {
        write_buffer(*buffers.front(), whole);
        return;
    }
    for (size_t r = 0; r < buffers.size(); ++r) {
        const std::vector<int64_t> row_sizes(whole.sizes.begin() + 1, whole.sizes.end());
        const std::vector<int64_t> row_strides(whole.strides.begin() + 1, whole.strides.end());
        write_buffer(*buffers[r], whole.view(row_sizes, row_strides, static_cast<int64_t>(r) * whole.strides[0]));
    }
}

void Executor::reset_state() {
    std::lock_guard lock(state_mutex_);
    appended_ = 0;
    for (auto& buffer : buffers_) {
        if (buffer.appends) {
            with_context(prepared_.where + ": OpenVINO could not reset state '" + buffer.name + "'",
                         [&] { openvino_variable(buffer).reset(); });
        } else if (buffer.openvino_step >= 0) {
            set_openvino_state(buffer, buffer.initial);
        } else {
            buffer.state = buffer.initial;
        }
    }
}

int64_t Executor::appending_positions_of(const std::vector<Tensor>& inputs) const {
    const int index = prepared_.appending_positions_input;
    if (index < 0) return 0;
    const Tensor& positions = inputs.at(static_cast<size_t>(index));
    const auto* values = static_cast<const int64_t*>(positions.data());
    const int64_t count = positions.numel();
    // Built only on failure: this runs on every call.
    auto who = [&] { return "input " + std::to_string(index) + " ('" + prepared_.input_infos[index].name + "')"; };
    for (int64_t k = 0; k < count; ++k) {
        if (values[k] == appended_ + k) continue;
        throw InputError(prepared_.where + ": " + who() + " holds " + std::to_string(values[k]) + " at index " +
                         std::to_string(k) + " where the appending positions promise " + std::to_string(appended_ + k) +
                         ": each call's positions run on from the previous call's (" + std::to_string(appended_) +
                         " given since load or reset_state); call reset_state to start again at 0, or load the program "
                         "without the promise");
    }
    if (appending_capacity_ > 0 && appended_ + count > appending_capacity_) {
        throw InputError(prepared_.where + ": " + who() + " runs to position " + std::to_string(appended_ + count - 1) +
                         ", and the program's cache holds " + std::to_string(appending_capacity_) +
                         " positions (0 to " + std::to_string(appending_capacity_ - 1) + "); call reset_state to start again");
    }
    return count;
}

kernels::StridedTensor Executor::next_state_buffer(MutatedBuffer& buffer, DType dtype, const std::vector<int64_t>& sizes) {
    auto& pair = buffer.halves;
    if (!pair[0].data || pair[0].sizes != sizes || pair[0].dtype != dtype) {
        for (auto& half : pair) {
            reused_owners_.erase(half.owner.get());
            half = StridedTensor::allocate_for_overwrite(dtype, sizes);
            reused_owners_.insert(half.owner.get());
        }
    }
    // The half the current state is not in.
    return pair[0].data == buffer.state.data ? pair[1] : pair[0];
}

}  // namespace pt2ov::runtime
