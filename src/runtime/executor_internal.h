// What the executor's files share (runtime/executor*.cpp): views of tensors and OpenVINO
// tensors over them, a value's slot, and the compile configuration of a program's OpenVINO
// steps. Not part of the executor's interface.
#pragma once

#include <chrono>
#include <string>

#include "common/error.h"
#include "compile/settings.h"
#include "graph/graph.h"
#include "kernels/tensor.h"
#include "lower/element_type.h"
#include "openvino/core/any.hpp"
#include "openvino/runtime/tensor.hpp"
#include "pt2ov/tensor.h"

namespace pt2ov::runtime {

using Clock = std::chrono::steady_clock;
using kernels::StridedTensor;

inline StridedTensor view_of(const Tensor& tensor) {
    StridedTensor view;
    view.dtype = tensor.dtype();
    view.sizes = tensor.shape();
    view.strides = kernels::contiguous_strides(view.sizes);
    view.data = static_cast<std::byte*>(tensor.data());
    view.owner = tensor.owner();
    return view;
}

inline StridedTensor contiguous_copy(const StridedTensor& source) {
    StridedTensor copy = StridedTensor::allocate_for_overwrite(source.dtype, source.sizes);
    kernels::copy_into(source, copy);
    return copy;
}

inline ov::Tensor wrap(const StridedTensor& tensor) {
    return ov::Tensor(lower::element_type(tensor.dtype), ov::Shape(tensor.sizes.begin(), tensor.sizes.end()), tensor.data);
}

inline int slot_of(const graph::Graph& graph, const std::string& name) {
    const auto* value = graph.find_value(name);
    if (!value) throw InternalError("no value '" + name + "' in the graph");
    return value->slot;
}

// The properties every OpenVINO step of one program is compiled with, and whether its steps
// infer in the calling thread's arena (openvino_facts ArenaPerCompiledModel).
struct OpenVINOConfig {
    ov::AnyMap properties;
    bool in_callers_arena = false;
};
OpenVINOConfig openvino_config(const compile::Settings& settings);

}  // namespace pt2ov::runtime
