// The tensor codec (src/serve/codec.h) and the REST and gRPC request decoding: every dtype
// through JSON and raw bytes and back, flat and nested data, and each malformed request refused
// with a RequestError that names the input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/bfloat16.h"
#include "common/json_text.h"
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
    expect_refused([&] { tensor_from_json(json::parse(deep), DType::Float32, {1}, "input 'x'"); },
                   "\"data\"[0] is an array, but shape [1] needs a value there");
    // A float beyond the dtype's largest finite value is out of its range, not an infinity.
    expect_refused(decode("[1e39]", DType::Float32, {1}), "element 0 (1e+39) is out of range for FP32");
    expect_refused(decode("[-1e39]", DType::Float32, {1}), "out of range for FP32");
    expect_refused(decode("[70000]", DType::Float16, {1}), "out of range for FP16 (largest finite: 65504)");
    EXPECT_EQ(tensor_from_json(json::parse("[3.4e38]"), DType::Float32, {1}, "x").data_as<float>()[0], 3.4e38f);
    EXPECT_EQ(tensor_from_json(json::parse("[1e39]"), DType::Float64, {1}, "x").data_as<double>()[0], 1e39);
    // A long string is quoted cut short.
    const std::string long_text = "[\"" + std::string(5000, 'a') + "\"]";
    try {
        tensor_from_json(json::parse(long_text), DType::Float32, {1}, "input 'x'");
        FAIL() << "a string taken for FP32";
    } catch (const RequestError& e) {
        EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
        EXPECT_NE(std::string(e.what()).find("(5000 characters)"), std::string::npos) << e.what();
    }
}

// Nested data must be nested as the shape is, level by level (flat data of any shape is taken
// whole): a 4x6 nesting for [3, 8] and a ragged row hold the right count of values but are
// refused naming where they part from the shape.
TEST(ServeCodec, NestedDataMustFollowTheShapeLevelByLevel) {
    const auto decode = [](const std::string& text, std::vector<int64_t> shape) {
        return [=] { tensor_from_json(json::parse(text), DType::Float32, shape, "input 'x'"); };
    };
    const auto rows = [](int count, int width) {
        std::string text = "[";
        for (int r = 0; r < count; ++r) {
            text += r ? ",[" : "[";
            for (int c = 0; c < width; ++c) text += (c ? ",1" : "1");
            text += "]";
        }
        return text + "]";
    };
    expect_refused(decode(rows(4, 6), {3, 8}), "input 'x': \"data\" holds 4 items, but shape [3, 8] needs 3 at this level");
    expect_refused(decode("[[1,1,1,1,1,1,1,1],[1,1,1,1,1,1,1],[1,1,1,1,1,1,1,1,1]]", {3, 8}),
                   "\"data\"[1] holds 7 items, but shape [3, 8] needs 8");
    expect_refused(decode("[[1,2],3]", {2, 2}), "\"data\"[1] is a value, but shape [2, 2] needs an array there");
    expect_refused(decode("[[[1],[2]]]", {1, 2}), "\"data\"[0][0] is an array, but shape [1, 2] needs a value there");
    expect_refused(decode("[[1]]", {}), "shape [] needs a value, not an array");
    // Right nestings, and flat data of any shape.
    EXPECT_EQ(tensor_from_json(json::parse(rows(3, 8)), DType::Float32, {3, 8}, "x").numel(), 24);
    EXPECT_EQ(tensor_from_json(json::parse("[[[1],[2]],[[3],[4]]]"), DType::Float32, {2, 2, 1}, "x").data_as<float>()[3], 4.0f);
    EXPECT_EQ(tensor_from_json(json::parse("[[],[]]"), DType::Float32, {2, 0}, "x").numel(), 0);
    EXPECT_EQ(tensor_from_json(json::parse("[5]"), DType::Float32, {}, "x").data_as<float>()[0], 5.0f);
    EXPECT_EQ(tensor_from_json(json::parse("[1,2,3,4,5,6]"), DType::Float32, {3, 2}, "x").numel(), 6);
}

// Nesting is counted without recursion, outside strings only.
TEST(ServeCodec, JsonNestingIsCountedOutsideStrings) {
    EXPECT_EQ(json_nesting("1"), 0u);
    EXPECT_EQ(json_nesting("[[1],{\"a\":[2]}]"), 3u);
    EXPECT_EQ(json_nesting("[\"[[[[\\\"[[\"]"), 1u);
    EXPECT_EQ(json_nesting(std::string(1000000, '[')), 1000000u);
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

// Nesting a million deep in any field of a request (the shape, the data, an element of the
// data, the parameters, an unknown member) is refused before anything walks it: one
// RequestError, no stack overflow.
TEST(ServeRestMessages, DeeplyNestedRequestsAreRefusedWithoutRecursion) {
    constexpr size_t kDepth = 1000000;
    const std::string open(kDepth, '['), close(kDepth, ']');
    const std::string deep_object = [&] {
        std::string text;
        for (size_t i = 0; i < kDepth; ++i) text += "{\"a\":";
        text += "1";
        text += std::string(kDepth, '}');
        return text;
    }();
    const std::string before = R"({"inputs":[{"name":"x","datatype":"FP32",)";
    const std::vector<std::string> bodies = {
        before + R"("shape":)" + open + "1" + close + R"(,"data":[0]}]})",
        before + R"("shape":[1],"data":)" + open + "1" + close + "}]}",
        before + R"("shape":[1],"data":[)" + deep_object + "]}]}",
        before + R"("shape":[1],"data":[0],"parameters":)" + deep_object + "}]}",
        before + R"("shape":[1],"data":[0]}],"extra":)" + open + close + "}",
    };
    for (const auto& body : bodies) {
        expect_refused([&] { decode_rest_request(body, std::nullopt); }, "nested 1000");
    }
    // Within the limit, a shape element that is not a size is quoted short.
    expect_refused([&] { decode_rest_request(before + R"("shape":[[[[1]]]],"data":[0]}]})", std::nullopt); },
                   "\"shape\" must hold sizes (integers >= 0); item 0 is an array of 1");
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
