#include "serve/codec.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/bfloat16.h"
#include "common/json_text.h"
#include "serve/datatype.h"
#include "serve/error.h"

namespace pt2ov::serve {
namespace {

using json = nlohmann::json;

// The leaves of `data` in row-major order, without recursion, so that a crafted body cannot
// exhaust the stack. `data` is flat (every item a value: any shape of as many elements) or
// nested as `shape` is, level by level: the array at depth d holds shape[d] items, arrays above
// the last level and values at it. A nesting that contradicts the shape (a 4x6 nesting for
// [3, 8], a ragged row) is refused naming the first place it does.
std::vector<const json*> leaves_of(const json& data, const std::vector<int64_t>& shape, const std::string& what) {
    if (!data.is_array()) {
        throw bad_request(fmt::format("{}: \"data\" must be an array of values (flat or nested, row-major), not {}",
                                      what, data.type_name()));
    }
    std::vector<const json*> leaves;
    const bool nested = std::any_of(data.begin(), data.end(), [](const json& item) { return item.is_array(); });
    if (!nested) {
        leaves.reserve(data.size());
        for (const auto& item : data) leaves.push_back(&item);
        return leaves;
    }
    if (shape.size() > kMaxDataNesting) {
        throw bad_request(fmt::format("{}: \"data\" nested for rank {}, more than {}: send it flat", what,
                                      shape.size(), kMaxDataNesting));
    }
    struct Level {
        const json* array;
        size_t next;
    };
    std::vector<Level> stack;
    std::vector<size_t> position;  // the index of each level's array within its parent, for messages
    const auto where = [&] {
        std::string text = "\"data\"";
        for (size_t index : position) text += fmt::format("[{}]", index);
        return text;
    };
    const auto enter = [&](const json& array) {
        const size_t depth = stack.size();
        if (depth >= shape.size() || static_cast<int64_t>(array.size()) != shape[depth]) {
            throw bad_request(fmt::format(
                "{}: {} holds {} items, but shape [{}] needs {} at this level (nest \"data\" as the shape is, or "
                "send it flat)",
                what, where(), array.size(), fmt::join(shape, ", "),
                depth < shape.size() ? std::to_string(shape[depth]) : std::string("a value, not an array")));
        }
        stack.push_back({&array, 0});
    };
    enter(data);
    while (!stack.empty()) {
        Level& level = stack.back();
        if (level.next == level.array->size()) {
            stack.pop_back();
            if (!position.empty()) position.pop_back();
            continue;
        }
        const size_t index = level.next++;
        const json& item = (*level.array)[index];
        const bool last_level = stack.size() == shape.size();
        if (item.is_array() != !last_level) {
            position.push_back(index);
            const std::string at = where();
            throw bad_request(fmt::format("{}: {} is {}, but shape [{}] needs {} there", what, at,
                                          item.is_array() ? "an array" : "a value", fmt::join(shape, ", "),
                                          last_level ? "a value" : "an array"));
        }
        if (last_level) {
            leaves.push_back(&item);
        } else {
            position.push_back(index);
            enter(item);
        }
    }
    return leaves;
}

template <typename T>
T integer_from(const json& value, const std::string& what, size_t index, std::string_view datatype) {
    const auto refuse = [&](const std::string& why) {
        return bad_request(fmt::format("{}: element {} ({}) {} for {}", what, index, json_excerpt(value), why, datatype));
    };
    if (value.is_number_unsigned()) {
        const auto v = value.get<uint64_t>();
        if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) throw refuse("is out of range");
        return static_cast<T>(v);
    }
    if (value.is_number_integer()) {
        const auto v = value.get<int64_t>();
        if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
            (v > 0 && static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
            throw refuse("is out of range");
        }
        return static_cast<T>(v);
    }
    throw refuse("is not an integer");
}

template <typename T>
double largest_finite() {
    if constexpr (std::is_same_v<T, _Float16>) {
        return 65504.0;
    } else {
        return static_cast<double>(std::numeric_limits<T>::max());
    }
}

template <typename T>
T number_from(const json& value, const std::string& what, size_t index, std::string_view datatype) {
    if (!value.is_number()) {
        throw bad_request(fmt::format("{}: element {} ({}) is not a number for {}", what, index, json_excerpt(value), datatype));
    }
    const double number = value.get<double>();
    const T rounded = static_cast<T>(number);
    // JSON numbers are finite (nlohmann refuses 1e400 at parse); one that rounds to an infinity
    // in a narrower float is out of its range, as an integer out of its dtype's range is.
    if (std::isinf(static_cast<double>(rounded)) && std::isfinite(number)) {
        throw bad_request(fmt::format("{}: element {} ({}) is out of range for {} (largest finite: {})", what, index,
                                      json_excerpt(value), datatype, largest_finite<T>()));
    }
    return rounded;
}

template <typename T>
void fill(Tensor& tensor, const std::vector<const json*>& leaves, const std::string& what) {
    T* out = tensor.data_as<T>();
    const std::string_view datatype = protocol_datatype(tensor.dtype());
    for (size_t i = 0; i < leaves.size(); ++i) {
        const json& value = *leaves[i];
        if constexpr (std::is_same_v<T, bool>) {
            if (!value.is_boolean()) {
                throw bad_request(fmt::format("{}: element {} ({}) is not true or false for BOOL", what, i, json_excerpt(value)));
            }
            out[i] = value.get<bool>();
        } else if constexpr (std::is_integral_v<T>) {
            out[i] = integer_from<T>(value, what, i, datatype);
        } else {
            out[i] = number_from<T>(value, what, i, datatype);
        }
    }
}

void append_double(std::string& out, double value) {
    if (std::isnan(value)) {
        out += "NaN";
    } else if (std::isinf(value)) {
        out += value > 0 ? "Infinity" : "-Infinity";
    } else {
        char buffer[32];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
        out.append(buffer, result.ptr);
        // "-0" or "3" would read back as an integer (and -0 as 0): a float keeps a fraction.
        if (std::string_view(buffer, result.ptr).find_first_of(".e") == std::string_view::npos) out += ".0";
    }
}

template <typename T>
void append_integers(std::string& out, const T* values, int64_t count) {
    char buffer[24];
    for (int64_t i = 0; i < count; ++i) {
        if (i) out += ',';
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, values[i]);
        out.append(buffer, result.ptr);
    }
}

template <typename T, typename ToDouble>
void append_floats(std::string& out, const T* values, int64_t count, ToDouble to_double) {
    for (int64_t i = 0; i < count; ++i) {
        if (i) out += ',';
        append_double(out, to_double(values[i]));
    }
}

}  // namespace

int64_t checked_element_count(const std::vector<int64_t>& shape, size_t element_size, const std::string& what) {
    constexpr uint64_t kMaxBytes = uint64_t{1} << 62;
    uint64_t count = 1;
    for (int64_t dim : shape) {
        if (dim < 0) throw bad_request(fmt::format("{}: shape {} has a negative dim", what, fmt::join(shape, "x")));
        if (dim != 0 && count > kMaxBytes / element_size / static_cast<uint64_t>(dim)) {
            throw bad_request(fmt::format("{}: shape [{}] is too large", what, fmt::join(shape, ", ")));
        }
        count *= static_cast<uint64_t>(dim);
    }
    return static_cast<int64_t>(count);
}

Tensor tensor_from_json(const json& data, DType dtype, const std::vector<int64_t>& shape, const std::string& what) {
    if (!has_json_form(dtype)) {
        throw bad_request(fmt::format("{}: {} has no JSON form in the protocol; send it as binary data "
                                      "(\"parameters\": {{\"binary_data_size\": N}})",
                                      what, protocol_datatype(dtype)));
    }
    const int64_t count = checked_element_count(shape, dtype_size(dtype), what);
    const auto leaves = leaves_of(data, shape, what);
    if (static_cast<int64_t>(leaves.size()) != count) {
        throw bad_request(fmt::format("{}: \"data\" holds {} values, but shape [{}] needs {}", what, leaves.size(),
                                      fmt::join(shape, ", "), count));
    }
    Tensor tensor = Tensor::allocate(dtype, shape);
    switch (dtype) {
        case DType::Bool: fill<bool>(tensor, leaves, what); break;
        case DType::UInt8: fill<uint8_t>(tensor, leaves, what); break;
        case DType::Int8: fill<int8_t>(tensor, leaves, what); break;
        case DType::Int16: fill<int16_t>(tensor, leaves, what); break;
        case DType::UInt16: fill<uint16_t>(tensor, leaves, what); break;
        case DType::Int32: fill<int32_t>(tensor, leaves, what); break;
        case DType::Int64: fill<int64_t>(tensor, leaves, what); break;
        case DType::Float16: fill<_Float16>(tensor, leaves, what); break;
        case DType::Float32: fill<float>(tensor, leaves, what); break;
        case DType::Float64: fill<double>(tensor, leaves, what); break;
        case DType::BFloat16: break;  // refused above
    }
    return tensor;
}

void append_json_values(std::string& out, const Tensor& tensor) {
    const int64_t n = tensor.numel();
    const void* data = tensor.data();
    out += '[';
    switch (tensor.dtype()) {
        case DType::Bool: {
            const auto* values = static_cast<const uint8_t*>(data);
            for (int64_t i = 0; i < n; ++i) {
                if (i) out += ',';
                out += values[i] ? "true" : "false";
            }
            break;
        }
        case DType::UInt8: append_integers(out, static_cast<const uint8_t*>(data), n); break;
        case DType::Int8: append_integers(out, static_cast<const int8_t*>(data), n); break;
        case DType::Int16: append_integers(out, static_cast<const int16_t*>(data), n); break;
        case DType::UInt16: append_integers(out, static_cast<const uint16_t*>(data), n); break;
        case DType::Int32: append_integers(out, static_cast<const int32_t*>(data), n); break;
        case DType::Int64: append_integers(out, static_cast<const int64_t*>(data), n); break;
        case DType::Float16:
            append_floats(out, static_cast<const _Float16*>(data), n, [](_Float16 v) { return static_cast<double>(v); });
            break;
        case DType::BFloat16:
            append_floats(out, static_cast<const uint16_t*>(data), n,
                          [](uint16_t bits) { return static_cast<double>(bfloat16_bits_to_float(bits)); });
            break;
        case DType::Float32:
            append_floats(out, static_cast<const float*>(data), n, [](float v) { return static_cast<double>(v); });
            break;
        case DType::Float64:
            append_floats(out, static_cast<const double*>(data), n, [](double v) { return v; });
            break;
    }
    out += ']';
}

Tensor tensor_from_bytes(std::string_view bytes, DType dtype, const std::vector<int64_t>& shape, const std::string& what) {
    const int64_t count = checked_element_count(shape, dtype_size(dtype), what);
    const uint64_t expected = static_cast<uint64_t>(count) * dtype_size(dtype);
    if (bytes.size() != expected) {
        throw bad_request(fmt::format("{}: {} bytes of data, but {} of shape [{}] takes {} bytes", what, bytes.size(),
                                      protocol_datatype(dtype), fmt::join(shape, ", "), expected));
    }
    if (dtype == DType::Bool) {
        for (size_t i = 0; i < bytes.size(); ++i) {
            const auto byte = static_cast<unsigned char>(bytes[i]);
            if (byte > 1) throw bad_request(fmt::format("{}: BOOL element {} is byte {}, not 0 or 1", what, i, byte));
        }
    }
    Tensor tensor = Tensor::allocate(dtype, shape);
    if (!bytes.empty()) std::memcpy(tensor.data(), bytes.data(), bytes.size());
    return tensor;
}

std::string_view tensor_bytes(const Tensor& tensor) {
    return {static_cast<const char*>(tensor.data()), tensor.byte_size()};
}

}  // namespace pt2ov::serve
