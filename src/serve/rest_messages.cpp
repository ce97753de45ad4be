#include "serve/rest_messages.h"

#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "common/text.h"
#include "serve/codec.h"
#include "serve/datatype.h"
#include "serve/error.h"

namespace pt2ov::serve {
namespace {

using json = nlohmann::json;

const json* member(const json& object, const char* key) {
    const auto found = object.find(key);
    return found == object.end() ? nullptr : &*found;
}

std::string string_member(const json& object, const char* key, const std::string& where, bool required) {
    const json* value = member(object, key);
    if (!value) {
        if (required) throw bad_request(fmt::format("{}: \"{}\" is missing", where, key));
        return {};
    }
    if (!value->is_string()) throw bad_request(fmt::format("{}: \"{}\" must be a string", where, key));
    return value->get<std::string>();
}

const json* parameters_of(const json& object, const std::string& where) {
    const json* parameters = member(object, "parameters");
    if (parameters && !parameters->is_object()) {
        throw bad_request(fmt::format("{}: \"parameters\" must be an object", where));
    }
    return parameters;
}

std::optional<bool> bool_parameter(const json* parameters, const char* key, const std::string& where) {
    if (!parameters) return std::nullopt;
    const json* value = member(*parameters, key);
    if (!value) return std::nullopt;
    if (!value->is_boolean()) throw bad_request(fmt::format("{}: parameter \"{}\" must be true or false", where, key));
    return value->get<bool>();
}

std::vector<int64_t> shape_of(const json& input, const std::string& where) {
    const json* shape = member(input, "shape");
    if (!shape) throw bad_request(fmt::format("{}: \"shape\" is missing", where));
    if (!shape->is_array()) throw bad_request(fmt::format("{}: \"shape\" must be an array of sizes", where));
    std::vector<int64_t> dims;
    for (size_t i = 0; i < shape->size(); ++i) {
        const json& dim = (*shape)[i];
        if (!dim.is_number_integer() || (!dim.is_number_unsigned() && dim.get<int64_t>() < 0) ||
            (dim.is_number_unsigned() && dim.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) {
            throw bad_request(fmt::format("{}: \"shape\" must hold sizes (integers >= 0); item {} is {}", where, i,
                                          json_excerpt(dim)));
        }
        dims.push_back(dim.get<int64_t>());
    }
    return dims;
}

}  // namespace

std::optional<size_t> parse_json_length(const std::string& header, size_t body_size) {
    size_t value = 0;
    const auto [end, error] = std::from_chars(header.data(), header.data() + header.size(), value);
    if (header.empty() || error != std::errc() || end != header.data() + header.size() || value > body_size) {
        throw bad_request(fmt::format("Inference-Header-Content-Length '{}' must be the JSON's length in bytes, at "
                                      "most the body's {}",
                                      header, body_size));
    }
    return value;
}

InferRequest decode_rest_request(std::string_view body, std::optional<size_t> json_length) {
    const size_t header_size = json_length.value_or(body.size());
    if (header_size > body.size()) {
        throw bad_request(fmt::format("Inference-Header-Content-Length {} is beyond the body's {} bytes", header_size,
                                      body.size()));
    }
    const std::string_view header = body.substr(0, header_size);
    std::string_view binary = body.substr(header_size);
    if (const size_t nesting = json_nesting(header); nesting > kMaxRequestNesting) {
        throw bad_request(fmt::format("the request's JSON is nested {} deep, more than the {} a request needs (\"data\" "
                                      "nested up to rank {})",
                                      nesting, kMaxRequestNesting, kMaxDataNesting));
    }
    json document;
    try {
        document = json::parse(header.begin(), header.end());
    } catch (const json::exception& e) {
        throw bad_request(fmt::format("the request body is not valid JSON: {}", one_line(e.what())));
    }
    if (!document.is_object()) throw bad_request("the request body must be a JSON object with \"inputs\"");
    InferRequest request;
    request.id = string_member(document, "id", "the request", false);
    if (const auto binary_outputs = bool_parameter(parameters_of(document, "the request"), "binary_data_output",
                                                   "the request")) {
        request.binary_outputs = *binary_outputs;
    }
    const json* inputs = member(document, "inputs");
    if (!inputs || !inputs->is_array()) throw bad_request("the request must hold \"inputs\", an array of tensors");
    for (size_t i = 0; i < inputs->size(); ++i) {
        const json& entry = (*inputs)[i];
        std::string where = fmt::format("inputs[{}]", i);
        if (!entry.is_object()) throw bad_request(where + " must be an object");
        InputTensor input;
        input.name = string_member(entry, "name", where, true);
        where = fmt::format("input '{}'", input.name);
        const std::string datatype = string_member(entry, "datatype", where, true);
        const auto dtype = dtype_of_protocol(datatype);
        if (!dtype) {
            throw bad_request(fmt::format("{}: datatype '{}' is not one pt2ov takes (BOOL, UINT8, UINT16, INT8, INT16, "
                                          "INT32, INT64, FP16, BF16, FP32, FP64)",
                                          where, datatype));
        }
        input.dtype = *dtype;
        input.shape = shape_of(entry, where);
        const json* parameters = parameters_of(entry, where);
        const json* binary_size = parameters ? member(*parameters, "binary_data_size") : nullptr;
        if (binary_size) {
            if (!binary_size->is_number_unsigned() && !(binary_size->is_number_integer() && binary_size->get<int64_t>() >= 0)) {
                throw bad_request(fmt::format("{}: \"binary_data_size\" must be a count of bytes", where));
            }
            const uint64_t size = binary_size->get<uint64_t>();
            if (member(entry, "data")) {
                throw bad_request(fmt::format("{}: give \"data\" or \"binary_data_size\", not both", where));
            }
            if (size > binary.size()) {
                throw bad_request(fmt::format("{}: \"binary_data_size\" {} is more than the {} bytes of binary data left "
                                              "in the body",
                                              where, size, binary.size()));
            }
            input.tensor = tensor_from_bytes(binary.substr(0, size), input.dtype, input.shape, where);
            binary.remove_prefix(size);
        } else {
            const json* data = member(entry, "data");
            if (!data) throw bad_request(fmt::format("{}: \"data\" is missing (or give binary data)", where));
            input.tensor = tensor_from_json(*data, input.dtype, input.shape, where);
        }
        request.inputs.push_back(std::move(input));
    }
    if (!binary.empty()) {
        throw bad_request(fmt::format("{} bytes of binary data after the inputs' binary_data_size, which account for "
                                      "less",
                                      binary.size()));
    }
    if (const json* outputs = member(document, "outputs")) {
        if (!outputs->is_array()) throw bad_request("\"outputs\" must be an array of {\"name\": ...}");
        for (size_t i = 0; i < outputs->size(); ++i) {
            const json& entry = (*outputs)[i];
            const std::string where = fmt::format("outputs[{}]", i);
            if (!entry.is_object()) throw bad_request(where + " must be an object");
            RequestedOutput output;
            output.name = string_member(entry, "name", where, true);
            output.binary = bool_parameter(parameters_of(entry, where), "binary_data", where);
            request.outputs.push_back(std::move(output));
        }
    }
    return request;
}

RestBody encode_rest_response(const InferResponse& response) {
    RestBody out;
    std::string& text = out.body;
    text += "{\"model_name\":" + json(response.model_name).dump();
    text += ",\"model_version\":" + json(response.model_version).dump();
    if (!response.id.empty()) text += ",\"id\":" + json(response.id).dump(-1, ' ', false, json::error_handler_t::replace);
    text += ",\"outputs\":[";
    bool any_binary = false;
    for (size_t i = 0; i < response.outputs.size(); ++i) {
        const auto& output = response.outputs[i];
        if (i) text += ',';
        text += "{\"name\":" + json(output.name).dump();
        text += fmt::format(",\"datatype\":\"{}\",\"shape\":[{}]", protocol_datatype(output.tensor.dtype()),
                            fmt::join(output.tensor.shape(), ","));
        // BF16 has no JSON form: it goes as binary data whatever was asked.
        const bool binary = output.binary || !has_json_form(output.tensor.dtype());
        if (binary) {
            text += fmt::format(",\"parameters\":{{\"binary_data_size\":{}}}}}", output.tensor.byte_size());
            any_binary = true;
        } else {
            text += ",\"data\":";
            append_json_values(text, output.tensor);
            text += '}';
        }
    }
    text += "]}";
    if (any_binary) {
        out.json_length = text.size();
        for (const auto& output : response.outputs) {
            if (output.binary || !has_json_form(output.tensor.dtype())) text += tensor_bytes(output.tensor);
        }
    }
    return out;
}

}  // namespace pt2ov::serve
