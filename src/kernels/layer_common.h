// Internal to the neural-network layer kernels (sampling, pooling, embedding bags, losses):
// reading float lists and writing a row-major result into the output's recorded layout.
#pragma once

#include <string>
#include <vector>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {

// A float[]? argument: empty when None.
inline std::vector<double> float_list(const KernelCall& call, ArgName name, size_t position) {
    const graph::Argument* a = call.arg(name, position);
    std::vector<double> values;
    if (!a || a->kind == graph::Argument::Kind::None) return values;
    if (a->kind == graph::Argument::Kind::Float) return {a->float_value};
    if (a->kind != graph::Argument::Kind::List) call.fail("argument '" + std::string(name.text()) + "' is not a list of floats");
    for (const auto& item : a->items) {
        if (item.kind == graph::Argument::Kind::Float) {
            values.push_back(item.float_value);
        } else if (item.kind == graph::Argument::Kind::Int) {
            values.push_back(static_cast<double>(item.int_value));
        } else {
            call.fail("argument '" + std::string(name.text()) + "' holds a value that is not a static float");
        }
    }
    return values;
}

// A float? argument: nullopt when None.
inline std::optional<double> optional_float(const KernelCall& call, ArgName name, size_t position) {
    if (!call.has(name, position)) return std::nullopt;
    return call.float_arg(name, position, 0.0);
}

// Values computed row-major in T (float or double, or int64_t for integer results), stored as
// output `index` in `dtype` (rounded once) and laid out as torch.export recorded it.
template <typename T>
StridedTensor output_of_values(const KernelCall& call, size_t index, const std::vector<T>& values,
                               const std::vector<int64_t>& sizes, DType dtype) {
    constexpr DType computed = std::is_same_v<T, double>    ? DType::Float64
                               : std::is_same_v<T, float>   ? DType::Float32
                               : std::is_same_v<T, int64_t> ? DType::Int64
                                                            : DType::UInt8;
    StridedTensor dense = StridedTensor::allocate_for_overwrite(computed, sizes);
    // The copy below trusts values to fill `sizes` exactly; a kernel that sized one from a
    // recorded shape and the other from its arguments would write past the buffer.
    if (static_cast<int64_t>(values.size()) != dense.numel()) {
        call.fail("internal: " + std::to_string(values.size()) + " values computed for output " + std::to_string(index) +
                  " of shape " + shape_text(sizes));
    }
    if (!values.empty()) std::memcpy(dense.data, values.data(), values.size() * sizeof(T));
    StridedTensor out = allocate_output(call, index, sizes, dtype);
    copy_into(dense, out);
    return out;
}

// Elements of an integer tensor as int64, row-major.
inline std::vector<int64_t> dense_int64(const StridedTensor& tensor) {
    StridedTensor dense = StridedTensor::allocate_for_overwrite(DType::Int64, tensor.sizes);
    copy_into(tensor, dense);
    const auto* data = reinterpret_cast<const int64_t*>(dense.data);
    return std::vector<int64_t>(data, data + dense.numel());
}

inline int64_t product(const std::vector<int64_t>& sizes, size_t from = 0, size_t to = SIZE_MAX) {
    int64_t n = 1;
    for (size_t d = from; d < sizes.size() && d < to; ++d) {
        // Sizes from a damaged archive (output_size [2**63 - 1, ...]) must not wrap around.
        if (__builtin_mul_overflow(n, sizes[d], &n)) throw UnsupportedError("sizes " + shape_text(sizes) + " are too large to count");
    }
    return n;
}

}  // namespace pt2ov::kernels
