// Runs a planned method, call after call: binds inputs without copies, runs the steps in order
// (OpenVINO models and CPU kernels), makes the outputs OpenVINO would alias, and carries the
// state of mutated buffers from call to call.
//
// Thread safety: one call at a time (one infer request per OpenVINO step).
#pragma once

#include <array>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/tensor.h"
#include "openvino/runtime/compiled_model.hpp"
#include "openvino/runtime/infer_request.hpp"
#include "compile/method.h"

namespace pt2ov::runtime {

using compile::Alias;
using compile::OpenVINOStep;
using compile::PlannedMethod;
using compile::PreparedMethod;

class Executor {
public:
    // Compiles every OpenVINO step of `planned` for the device in `options`.
    Executor(const PreparedMethod& prepared, const PlannedMethod& planned, const LoadOptions& options);

    // One call. `outputs` may hold caller tensors to write static outputs into (empty: allocate).
    void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);

    double compile_ms() const { return compile_ms_; }
    int64_t last_openvino_ns() const { return last_openvino_ns_; }

private:
    struct CompiledStep {
        const OpenVINOStep* lowered = nullptr;
        ov::CompiledModel compiled;
        ov::InferRequest request;
        std::vector<bool> static_result;
        // Per result: the parameter (value name) OpenVINO compiled it into, or "" (see
        // find_results_compiled_into_inputs).
        std::vector<std::string> result_is_input;
        // Per result: memory kept across calls for a static result that is not a program
        // output (it lives only within a call); empty where results get fresh memory.
        std::vector<kernels::StridedTensor> reused;
        // Known at compile time, so a call asks OpenVINO nothing it already said.
        std::vector<ov::element::Type> parameter_types;
        std::vector<std::vector<int64_t>> result_sizes;  // for static results
        std::vector<DType> result_dtypes;
        // What each port was bound to last call: binding the same memory again is skipped.
        std::vector<const void*> bound_input_data, bound_output_data;
        std::vector<std::vector<int64_t>> bound_input_sizes;
    };
    using Values = std::unordered_map<std::string, kernels::RuntimeValue>;

    void run_cpu_step(const partition::Step& step, Values& values);
    void run_openvino_step(size_t step_index, const OpenVINOStep& lowered, Values& values,
                           const std::map<std::string, Tensor*>& caller_outputs);
    void plan_reused_memory(CompiledStep& step, const graph::Graph& graph);
    kernels::StridedTensor next_state_buffer(const std::string& buffer, DType dtype, const std::vector<int64_t>& sizes);
    const kernels::RuntimeValue& lookup(const Values& values, const std::string& name) const;
    Tensor hand_out(const kernels::RuntimeValue& value, std::set<const void*>& handed_out) const;

    const PreparedMethod& prepared_;
    const PlannedMethod& planned_;
    std::map<size_t, CompiledStep> steps_;
    std::unordered_map<std::string, kernels::RuntimeValue> constants_;  // views of the archive's memory
    std::map<std::string, kernels::StridedTensor> buffer_state_;       // mutated buffers, by graph input
    // Memory kept across calls (reused buffers, state halves, constants OpenVINO hands back):
    // never handed out as is.
    std::set<const void*> reused_owners_;
    // A mutated buffer whose new value OpenVINO writes: two buffers used in turn, one holding
    // the state the call reads, the other receiving the state it leaves (no allocation per call).
    std::map<std::string, std::string> buffer_of_mutation_value_;  // new-value name → buffer input
    std::map<std::string, std::array<kernels::StridedTensor, 2>> state_buffers_;
    double compile_ms_ = 0;
    int64_t last_openvino_ns_ = 0;
};

}  // namespace pt2ov::runtime
