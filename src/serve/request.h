// An inference request and response as both protocols decode and encode them, and their check
// against a model's inputs and outputs (IOInfo, as Program::inputs/outputs give them). Pure: no
// Program, no I/O, so the fuzz target reaches it as the server does.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pt2ov/pt2ov.h"
#include "pt2ov/tensor.h"

namespace pt2ov::serve {

struct InputTensor {
    std::string name;
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    Tensor tensor;  // decoded, owning its memory
};

struct RequestedOutput {
    std::string name;
    std::optional<bool> binary;  // REST: the output's "binary_data" parameter, when given
};

struct InferRequest {
    std::string id;
    std::vector<InputTensor> inputs;
    std::vector<RequestedOutput> outputs;  // empty: every output
    bool binary_outputs = false;           // REST: the request's "binary_data_output" parameter
};

struct OutputTensor {
    std::string name;
    Tensor tensor;
    bool binary = false;  // REST: sent as binary data
};

struct InferResponse {
    std::string model_name;
    std::string model_version;
    std::string id;
    std::vector<OutputTensor> outputs;
};

// The request's input tensors in the order of the model's `inputs`, each checked: given once, by
// name, of the input's datatype, its shape the input's (static dims equal, dynamic dims within
// their ranges). RequestError (BadRequest) naming the model (`model`) and the input otherwise.
std::vector<Tensor> ordered_inputs(const std::string& model, const std::vector<IOInfo>& inputs,
                                   const InferRequest& request);

// The outputs to send, as (position in the model's `outputs`, binary): the requested ones (each
// an output of the model, once) or all; binary as each asks or as the request's default.
std::vector<std::pair<size_t, bool>> chosen_outputs(const std::string& model, const std::vector<IOInfo>& outputs,
                                                    const InferRequest& request);

}  // namespace pt2ov::serve
