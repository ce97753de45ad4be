// libFuzzer target: an inference request as a client sends it, through `pt2ov serve`'s decoding
// (src/serve/): the REST body (JSON, nested data, the binary-data extension) or the gRPC
// ModelInferRequest's wire bytes, then the check against a model's inputs and outputs. Every
// input must be decoded or refused with a RequestError that is not Internal; anything else (a
// sanitizer report, another exception, running out of memory on a small input) is a finding.
// What decodes must survive encoding: each tensor's raw bytes and (finite values) JSON text
// decode back to the same bytes, and the REST and gRPC responses encode.
//
// The input: byte 0 picks the protocol (bit 0: gRPC) and, for REST, whether the
// Inference-Header-Content-Length header is sent (bit 1; its value in bytes 1-2, little-endian);
// the rest is the body or the message. Seeds: fuzz/corpus/serve_request/ (make_serve_corpus.py).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "serve/codec.h"
#include "serve/datatype.h"
#include "serve/error.h"
#include "serve/grpc_messages.h"
#include "serve/request.h"
#include "serve/rest_messages.h"

namespace {

using namespace pt2ov;
using namespace pt2ov::serve;

[[noreturn]] void finding(const char* what, const char* detail) {
    std::fprintf(stderr, "%s: %s\n", what, detail);
    std::abort();
}

// A model's signature as Program::inputs/outputs would give it: a dynamic batch, every kind of
// dim, several dtypes.
const std::vector<IOInfo>& model_inputs() {
    static const std::vector<IOInfo> inputs{
        {"x", DType::Float32, {-1, 8}, {{1, 32}, {8, 8}}},
        {"ids", DType::Int64, {2}, {{2, 2}}},
        {"mask", DType::Bool, {-1, -1}, {{0, 64}, {1, 64}}},
        {"h", DType::Float16, {3}, {{3, 3}}},
        {"b", DType::BFloat16, {2}, {{2, 2}}},
        {"u", DType::UInt8, {1}, {{1, 1}}},
    };
    return inputs;
}

const std::vector<IOInfo>& model_outputs() {
    static const std::vector<IOInfo> outputs{{"y", DType::Float32, {-1, 4}, {{1, 32}, {4, 4}}},
                                             {"z", DType::Int64, {-1}, {{1, 32}}}};
    return outputs;
}

void expect_same(const Tensor& a, const Tensor& b, const char* how) {
    if (a.dtype() != b.dtype() || a.shape() != b.shape() || a.byte_size() != b.byte_size() ||
        (a.byte_size() && std::memcmp(a.data(), b.data(), a.byte_size()) != 0)) {
        finding("a tensor does not survive its encoding", how);
    }
}

void round_trip(const InputTensor& input) {
    const Tensor& tensor = input.tensor;
    expect_same(tensor, tensor_from_bytes(tensor_bytes(tensor), tensor.dtype(), tensor.shape(), "raw"), "raw bytes");
    if (!has_json_form(tensor.dtype())) return;
    std::string text;
    append_json_values(text, tensor);
    // NaN and infinities are written as Python reads them, which JSON (and nlohmann) does not.
    if (text.find("NaN") != std::string::npos || text.find("Infinity") != std::string::npos) return;
    expect_same(tensor, tensor_from_json(nlohmann::json::parse(text), tensor.dtype(), tensor.shape(), "json"), "JSON");
}

void exercise(const InferRequest& request) {
    for (const auto& input : request.inputs) round_trip(input);
    try {
        (void)ordered_inputs("m", model_inputs(), request);
    } catch (const RequestError& e) {
        if (e.failure() == Failure::Internal) throw;
    }
    // The decoded inputs as a response's outputs: both encodings must take any tensor.
    try {
        const auto chosen = chosen_outputs("m", model_outputs(), request);
        (void)chosen;
    } catch (const RequestError& e) {
        if (e.failure() == Failure::Internal) throw;
    }
    InferResponse response{"m", "1", request.id, {}};
    for (const auto& input : request.inputs) response.outputs.push_back({input.name, input.tensor, input.name.size() % 2 == 0});
    (void)encode_rest_response(response);
    inference::ModelInferResponse message;
    encode_grpc_response(response, message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const bool grpc = data[0] & 1;
    const bool with_length = data[0] & 2;
    std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        if (grpc) {
            inference::ModelInferRequest message;
            if (!message.ParseFromArray(rest.data(), static_cast<int>(rest.size()))) return 0;  // gRPC refuses it first
            exercise(decode_grpc_request(message));
        } else {
            std::optional<size_t> json_length;
            if (with_length) {
                if (rest.size() < 2) return 0;
                json_length = static_cast<size_t>(static_cast<uint8_t>(rest[0])) |
                              static_cast<size_t>(static_cast<uint8_t>(rest[1])) << 8;
                rest.remove_prefix(2);
                if (*json_length > rest.size()) {
                    // what the server answers: parse_json_length refuses it
                    try {
                        (void)parse_json_length(std::to_string(*json_length), rest.size());
                        finding("a header length beyond the body was taken", "");
                    } catch (const RequestError&) {
                        return 0;
                    }
                }
            }
            exercise(decode_rest_request(rest, json_length));
        }
    } catch (const RequestError& e) {
        if (e.failure() == Failure::Internal) finding("internal RequestError", e.what());
    } catch (const std::bad_alloc&) {
        finding("std::bad_alloc on a fuzz input", "");
    } catch (const std::exception& e) {
        finding("foreign exception escaped", e.what());
    }
    return 0;
}
