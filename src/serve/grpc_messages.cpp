#include "serve/grpc_messages.h"

#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "serve/codec.h"
#include "serve/datatype.h"
#include "serve/error.h"

namespace pt2ov::serve {
namespace {

// A tensor from a repeated field of the contents message, element by element with the range
// of the dtype checked (int_contents carries INT8 and INT16 in 32 bits, uint_contents UINT8 and
// UINT16).
template <typename T, typename Field>
Tensor from_field(const Field& field, DType dtype, const std::vector<int64_t>& shape, const std::string& what,
                  const char* field_name) {
    const int64_t count = checked_element_count(shape, dtype_size(dtype), what);
    if (field.size() != count) {
        throw bad_request(fmt::format("{}: contents.{} holds {} values, but shape [{}] needs {}", what, field_name,
                                      field.size(), fmt::join(shape, ", "), count));
    }
    Tensor tensor = Tensor::allocate(dtype, shape);
    T* out = tensor.data_as<T>();
    for (int i = 0; i < field.size(); ++i) {
        const auto value = field.Get(i);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            if (value < std::numeric_limits<T>::min() || value > std::numeric_limits<T>::max()) {
                throw bad_request(fmt::format("{}: element {} ({}) is out of range for {}", what, i, value,
                                              protocol_datatype(dtype)));
            }
        }
        out[i] = static_cast<T>(value);
    }
    return tensor;
}

Tensor from_contents(const inference::InferTensorContents& contents, DType dtype, const std::vector<int64_t>& shape,
                     const std::string& what) {
    switch (dtype) {
        case DType::Bool: return from_field<bool>(contents.bool_contents(), dtype, shape, what, "bool_contents");
        case DType::Int8: return from_field<int8_t>(contents.int_contents(), dtype, shape, what, "int_contents");
        case DType::Int16: return from_field<int16_t>(contents.int_contents(), dtype, shape, what, "int_contents");
        case DType::Int32: return from_field<int32_t>(contents.int_contents(), dtype, shape, what, "int_contents");
        case DType::Int64: return from_field<int64_t>(contents.int64_contents(), dtype, shape, what, "int64_contents");
        case DType::UInt8: return from_field<uint8_t>(contents.uint_contents(), dtype, shape, what, "uint_contents");
        case DType::UInt16: return from_field<uint16_t>(contents.uint_contents(), dtype, shape, what, "uint_contents");
        case DType::Float32: return from_field<float>(contents.fp32_contents(), dtype, shape, what, "fp32_contents");
        case DType::Float64: return from_field<double>(contents.fp64_contents(), dtype, shape, what, "fp64_contents");
        case DType::Float16:
        case DType::BFloat16:
            break;
    }
    throw bad_request(fmt::format("{}: {} has no typed contents in the protocol; send it in raw_input_contents", what,
                                  protocol_datatype(dtype)));
}

}  // namespace

InferRequest decode_grpc_request(const inference::ModelInferRequest& message) {
    InferRequest request;
    request.id = message.id();
    const bool raw = message.raw_input_contents_size() > 0;
    if (raw && message.raw_input_contents_size() != message.inputs_size()) {
        throw bad_request(fmt::format("raw_input_contents holds {} tensors for {} inputs: give one per input, in order",
                                      message.raw_input_contents_size(), message.inputs_size()));
    }
    for (int i = 0; i < message.inputs_size(); ++i) {
        const auto& entry = message.inputs(i);
        InputTensor input;
        input.name = entry.name();
        const std::string what = fmt::format("input '{}'", input.name);
        const auto dtype = dtype_of_protocol(entry.datatype());
        if (!dtype) {
            throw bad_request(fmt::format("{}: datatype '{}' is not one pt2ov takes (BOOL, UINT8, UINT16, INT8, INT16, "
                                          "INT32, INT64, FP16, BF16, FP32, FP64)",
                                          what, entry.datatype()));
        }
        input.dtype = *dtype;
        input.shape.assign(entry.shape().begin(), entry.shape().end());
        if (raw) {
            if (entry.has_contents()) {
                throw bad_request(fmt::format("{}: give contents or raw_input_contents, not both", what));
            }
            input.tensor = tensor_from_bytes(message.raw_input_contents(i), input.dtype, input.shape, what);
        } else {
            input.tensor = from_contents(entry.contents(), input.dtype, input.shape, what);
        }
        request.inputs.push_back(std::move(input));
    }
    for (const auto& output : message.outputs()) request.outputs.push_back({output.name(), std::nullopt});
    return request;
}

void encode_grpc_response(const InferResponse& response, inference::ModelInferResponse& message) {
    message.set_model_name(response.model_name);
    message.set_model_version(response.model_version);
    message.set_id(response.id);
    for (const auto& output : response.outputs) {
        auto* tensor = message.add_outputs();
        tensor->set_name(output.name);
        tensor->set_datatype(std::string(protocol_datatype(output.tensor.dtype())));
        for (int64_t dim : output.tensor.shape()) tensor->add_shape(dim);
        message.add_raw_output_contents(std::string(tensor_bytes(output.tensor)));
    }
}

}  // namespace pt2ov::serve
