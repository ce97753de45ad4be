// The tensor codec (src/serve/codec.h) and the REST and gRPC request decoding: every dtype
// through JSON and raw bytes and back, flat and nested data, and each malformed request refused
// with a RequestError that names the input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/bfloat16.h"
#include "serve/codec.h"
#include "serve/datatype.h"
#include "serve/error.h"
#include "serve/grpc_messages.h"
#include "serve/rest_messages.h"

namespace pt2ov::serve {
namespace {

using json = nlohmann::json;

// Runs `call`, expecting a RequestError of `failure` whose message holds `needle`.
template <typename Call>
void expect_refused(Call&& call, const std::string& needle, Failure failure = Failure::BadRequest) {
    try {
        call();
        FAIL() << "expected a RequestError about '" << needle << "'";
    } catch (const RequestError& e) {
        EXPECT_EQ(e.failure(), failure) << e.what();
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(ServeDatatype, EveryDtypeHasAProtocolNameThatMapsBack) {
    for (DType dtype : {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::UInt16, DType::Int32, DType::Int64,
                        DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
        const auto name = protocol_datatype(dtype);
        ASSERT_NE(name, "UNKNOWN") << dtype_name(dtype);
        EXPECT_EQ(dtype_of_protocol(name), dtype) << name;
    }
    EXPECT_FALSE(dtype_of_protocol("UINT32"));
    EXPECT_FALSE(dtype_of_protocol("BYTES"));
    EXPECT_FALSE(dtype_of_protocol("fp32"));
}

// The JSON text of `tensor`'s values, parsed back into `dtype` with the same shape.
Tensor json_round_trip(const Tensor& tensor) {
    std::string text;
    append_json_values(text, tensor);
    return tensor_from_json(json::parse(text), tensor.dtype(), tensor.shape(), "input 'x'");
}

template <typename T>
Tensor tensor_of(DType dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
    Tensor tensor = Tensor::allocate(dtype, std::move(shape));
    std::memcpy(tensor.data(), values.data(), values.size() * sizeof(T));
    return tensor;
}

void expect_same_bytes(const Tensor& a, const Tensor& b) {
    ASSERT_EQ(a.dtype(), b.dtype());
    ASSERT_EQ(a.shape(), b.shape());
    ASSERT_EQ(a.byte_size(), b.byte_size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byte_size()), 0);
}

TEST(ServeCodec, JsonRoundTripKeepsEveryValueBitForBit) {
    const float tiny = std::numeric_limits<float>::denorm_min();
    expect_same_bytes(json_round_trip(tensor_of<float>(DType::Float32, {2, 3}, {0.1f, -0.0f, 1e-30f, tiny, 3.4e38f, 1.0f / 3})),
                      tensor_of<float>(DType::Float32, {2, 3}, {0.1f, -0.0f, 1e-30f, tiny, 3.4e38f, 1.0f / 3}));
    const std::vector<double> doubles{0.1, 1e-310, -2.5e300, 1.0 / 3};
    expect_same_bytes(json_round_trip(tensor_of<double>(DType::Float64, {4}, doubles)),
                      tensor_of<double>(DType::Float64, {4}, doubles));
    const std::vector<_Float16> halves{static_cast<_Float16>(0.1f), static_cast<_Float16>(-65504.0f),
                                       static_cast<_Float16>(6e-8f)};
    expect_same_bytes(json_round_trip(tensor_of<_Float16>(DType::Float16, {3}, halves)),
                      tensor_of<_Float16>(DType::Float16, {3}, halves));
    const std::vector<int64_t> longs{std::numeric_limits<int64_t>::min(), -1, 0, std::numeric_limits<int64_t>::max()};
    expect_same_bytes(json_round_trip(tensor_of<int64_t>(DType::Int64, {2, 2}, longs)),
                      tensor_of<int64_t>(DType::Int64, {2, 2}, longs));
    const std::vector<uint8_t> bools{1, 0, 1};
    expect_same_bytes(json_round_trip(tensor_of<uint8_t>(DType::Bool, {3}, bools)), tensor_of<uint8_t>(DType::Bool, {3}, bools));
    const std::vector<int8_t> bytes{-128, 0, 127};
    expect_same_bytes(json_round_trip(tensor_of<int8_t>(DType::Int8, {3}, bytes)), tensor_of<int8_t>(DType::Int8, {3}, bytes));
    const std::vector<uint16_t> shorts{0, 65535};
    expect_same_bytes(json_round_trip(tensor_of<uint16_t>(DType::UInt16, {2}, shorts)),
                      tensor_of<uint16_t>(DType::UInt16, {2}, shorts));
}

TEST(ServeCodec, NonFiniteFloatsAreWrittenAsPythonReadsThem) {
    std::string text;
    append_json_values(text, tensor_of<float>(DType::Float32, {3}, {NAN, INFINITY, -INFINITY}));
    EXPECT_EQ(text, "[NaN,Infinity,-Infinity]");
}

TEST(ServeCodec, NestedAndFlatDataGiveTheSameRowMajorTensor) {
    const Tensor flat = tensor_from_json(json::parse("[1,2,3,4,5,6]"), DType::Int32, {2, 3}, "input 'x'");
    const Tensor nested = tensor_from_json(json::parse("[[1,2,3],[4,5,6]]"), DType::Int32, {2, 3}, "input 'x'");
    expect_same_bytes(flat, nested);
    EXPECT_EQ(flat.data_as<int32_t>()[4], 5);
}

TEST(ServeCodec, JsonValuesThatDoNotFitAreRefusedNamingTheInput) {
    const auto decode = [](const char* text, DType dtype, std::vector<int64_t> shape) {
        return [=] { tensor_from_json(json::parse(text), dtype, shape, "input 'x'"); };
    };
    expect_refused(decode("[1,2,3]", DType::Float32, {2, 2}), "input 'x': \"data\" holds 3 values, but shape [2, 2] needs 4");
    expect_refused(decode("[300]", DType::UInt8, {1}), "out of range");
    expect_refused(decode("[-1]", DType::UInt16, {1}), "out of range");
    expect_refused(decode("[1.5]", DType::Int64, {1}), "not an integer");
    expect_refused(decode("[18446744073709551615]", DType::Int64, {1}), "out of range");
    expect_refused(decode("[1]", DType::Bool, {1}), "not true or false");
    expect_refused(decode("[\"a\"]", DType::Float32, {1}), "not a number");
    expect_refused(decode("{\"a\": 1}", DType::Float32, {1}), "must be an array");
    expect_refused(decode("[1]", DType::BFloat16, {1}), "binary data");
    expect_refused(decode("[1]", DType::Float32, {-1}), "negative");
    expect_refused(decode("[1]", DType::Float32, {1LL << 40, 1LL << 40}), "too large");
    std::string deep(100, '[');
    deep += "1" + std::string(100, ']');
    expect_refused([&] { tensor_from_json(json::parse(deep), DType::Float32, {1}, "input 'x'"); }, "nested");
}

TEST(ServeCodec, RawBytesMustMatchTheShape) {
    const float values[2] = {1.5f, -2.0f};
    const std::string_view bytes(reinterpret_cast<const char*>(values), sizeof values);
    const Tensor tensor = tensor_from_bytes(bytes, DType::Float32, {2}, "input 'x'");
    EXPECT_EQ(tensor_bytes(tensor), bytes);
    expect_refused([&] { tensor_from_bytes(bytes, DType::Float32, {3}, "input 'x'"); },
                   "input 'x': 8 bytes of data, but FP32 of shape [3] takes 12 bytes");
    expect_refused([&] { tensor_from_bytes(std::string_view("\x02", 1), DType::Bool, {1}, "input 'b'"); }, "not 0 or 1");
}

TEST(ServeRestMessages, DecodesJsonAndBinaryInputsInOrder) {
    const std::string header =
        R"({"id":"7","inputs":[{"name":"a","datatype":"FP32","shape":[2],"parameters":{"binary_data_size":8}},)"
        R"({"name":"b","datatype":"INT64","shape":[1,2],"data":[[3,4]]},)"
        R"({"name":"c","datatype":"BF16","shape":[1],"parameters":{"binary_data_size":2}}],)"
        R"("outputs":[{"name":"y","parameters":{"binary_data":true}},{"name":"z"}]})";
    const float a[2] = {0.25f, -1.0f};
    const uint16_t c = float_to_bfloat16_bits(1.5f);
    std::string body = header + std::string(reinterpret_cast<const char*>(a), 8) + std::string(reinterpret_cast<const char*>(&c), 2);
    const InferRequest request = decode_rest_request(body, header.size());
    EXPECT_EQ(request.id, "7");
    ASSERT_EQ(request.inputs.size(), 3u);
    EXPECT_EQ(request.inputs[0].tensor.data_as<float>()[1], -1.0f);
    EXPECT_EQ(request.inputs[1].tensor.data_as<int64_t>()[1], 4);
    EXPECT_EQ(request.inputs[1].shape, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(bfloat16_bits_to_float(request.inputs[2].tensor.data_as<uint16_t>()[0]), 1.5f);
    ASSERT_EQ(request.outputs.size(), 2u);
    EXPECT_EQ(request.outputs[0].binary, true);
    EXPECT_FALSE(request.outputs[1].binary.has_value());

    // One byte more or less than the inputs account for.
    expect_refused([&] { decode_rest_request(body + "x", header.size()); }, "binary data after the inputs");
    expect_refused([&] { decode_rest_request(body.substr(0, body.size() - 1), header.size()); }, "input 'c'");
}

TEST(ServeRestMessages, MalformedRequestsAreRefusedClearly) {
    const auto decode = [](std::string body) { return [body] { decode_rest_request(body, std::nullopt); }; };
    expect_refused(decode("{\"inputs\": [}"), "not valid JSON");
    expect_refused(decode("[1]"), "JSON object");
    expect_refused(decode("{}"), "\"inputs\"");
    expect_refused(decode(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1]}]})"), "input 'x': \"data\" is missing");
    expect_refused(decode(R"({"inputs":[{"name":"x","datatype":"STRING","shape":[1],"data":[1]}]})"),
                   "input 'x': datatype 'STRING'");
    expect_refused(decode(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[-1],"data":[1]}]})"), "input 'x': \"shape\"");
    expect_refused(decode(R"({"inputs":[{"datatype":"FP32","shape":[1],"data":[1]}]})"), "\"name\" is missing");
    expect_refused(decode(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}],"outputs":[{}]})"),
                   "outputs[0]: \"name\" is missing");
    expect_refused(decode(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"parameters":{"binary_data_size":4}}]})"),
                   "more than the 0 bytes");
    expect_refused([] { parse_json_length("12x", 100); }, "Inference-Header-Content-Length");
    expect_refused([] { parse_json_length("101", 100); }, "Inference-Header-Content-Length");
}

TEST(ServeRestMessages, EncodesBinaryOutputsAfterTheJson) {
    InferResponse response{"m", "1", "", {}};
    response.outputs.push_back({"y", tensor_of<float>(DType::Float32, {2}, {1.0f, 2.0f}), true});
    response.outputs.push_back({"z", tensor_of<int32_t>(DType::Int32, {1}, {5}), false});
    const RestBody body = encode_rest_response(response);
    ASSERT_TRUE(body.json_length.has_value());
    const json header = json::parse(body.body.substr(0, *body.json_length));
    EXPECT_EQ(header["outputs"][0]["parameters"]["binary_data_size"], 8);
    EXPECT_EQ(header["outputs"][1]["data"], json::parse("[5]"));
    EXPECT_EQ(body.body.size(), *body.json_length + 8);
    EXPECT_EQ(body.body.substr(*body.json_length), tensor_bytes(response.outputs[0].tensor));
}

TEST(ServeGrpcMessages, DecodesRawAndTypedContents) {
    inference::ModelInferRequest message;
    auto* a = message.add_inputs();
    a->set_name("a");
    a->set_datatype("INT16");
    a->add_shape(2);
    a->mutable_contents()->add_int_contents(-3);
    a->mutable_contents()->add_int_contents(7);
    InferRequest request = decode_grpc_request(message);
    ASSERT_EQ(request.inputs.size(), 1u);
    EXPECT_EQ(request.inputs[0].tensor.data_as<int16_t>()[0], -3);

    a->mutable_contents()->set_int_contents(1, 40000);
    expect_refused([&] { decode_grpc_request(message); }, "input 'a': element 1 (40000) is out of range for INT16");
    a->clear_contents();
    a->set_datatype("FP16");
    expect_refused([&] { decode_grpc_request(message); }, "raw_input_contents");
    const _Float16 halves[2] = {static_cast<_Float16>(0.5f), static_cast<_Float16>(-2.0f)};
    message.add_raw_input_contents(std::string(reinterpret_cast<const char*>(halves), 4));
    request = decode_grpc_request(message);
    EXPECT_EQ(static_cast<float>(request.inputs[0].tensor.data_as<_Float16>()[1]), -2.0f);
    message.set_raw_input_contents(0, "abc");
    expect_refused([&] { decode_grpc_request(message); }, "input 'a': 3 bytes of data, but FP16 of shape [2] takes 4");
    message.add_raw_input_contents("");
    expect_refused([&] { decode_grpc_request(message); }, "raw_input_contents holds 2 tensors for 1 inputs");
}

}  // namespace
}  // namespace pt2ov::serve
