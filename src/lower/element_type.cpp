#include "lower/element_type.h"

#include <cstring>

#include "common/error.h"

namespace pt2ov::lower {

ov::element::Type element_type(DType dtype) {
    switch (dtype) {
    case DType::Bool: return ov::element::boolean;
    case DType::UInt8: return ov::element::u8;
    case DType::Int8: return ov::element::i8;
    case DType::Int16: return ov::element::i16;
    case DType::UInt16: return ov::element::u16;
    case DType::Int32: return ov::element::i32;
    case DType::Int64: return ov::element::i64;
    case DType::Float16: return ov::element::f16;
    case DType::BFloat16: return ov::element::bf16;
    case DType::Float32: return ov::element::f32;
    case DType::Float64: return ov::element::f64;
    }
    throw InternalError("unknown dtype");
}

DType dtype_from_element(const ov::element::Type& type) {
    static const std::map<ov::element::Type_t, DType> types = {
        {ov::element::Type_t::boolean, DType::Bool}, {ov::element::Type_t::u8, DType::UInt8},
        {ov::element::Type_t::i8, DType::Int8},      {ov::element::Type_t::i16, DType::Int16},
        {ov::element::Type_t::u16, DType::UInt16},   {ov::element::Type_t::i32, DType::Int32},
        {ov::element::Type_t::i64, DType::Int64},    {ov::element::Type_t::f16, DType::Float16},
        {ov::element::Type_t::bf16, DType::BFloat16}, {ov::element::Type_t::f32, DType::Float32},
        {ov::element::Type_t::f64, DType::Float64},
    };
    auto it = types.find(type);
    if (it == types.end()) throw UnsupportedError("OpenVINO element type " + type.get_type_name() + " has no PyTorch dtype here");
    return it->second;
}

ov::Dimension dimension_for(const graph::Dim& dim, const std::map<std::string, graph::SymbolRange>& ranges) {
    if (dim.is_static()) return ov::Dimension(*dim.value);
    auto it = dim.symbol.empty() ? ranges.end() : ranges.find(dim.symbol);
    if (it == ranges.end()) return ov::Dimension::dynamic();
    const int64_t max = it->second.max >= std::numeric_limits<int32_t>::max() ? -1 : it->second.max;
    return ov::Dimension(it->second.min, max);
}

bool is_contiguous(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    int64_t expected = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        if (sizes[i] != 1 && strides[i] != expected) return false;
        expected *= sizes[i];
    }
    return true;
}

namespace {

// Gathers a strided view into a new contiguous buffer, element by element.
std::vector<std::byte> gather_contiguous(const archive::StoredTensor& stored, const std::vector<int64_t>& sizes,
                                         const std::vector<int64_t>& strides) {
    const size_t element = dtype_size(stored.meta.dtype);
    int64_t count = 1;
    for (auto s : sizes) count *= s;
    std::vector<std::byte> out(static_cast<size_t>(count) * element);
    std::vector<int64_t> index(sizes.size(), 0);
    for (int64_t n = 0; n < count; ++n) {
        int64_t offset = 0;
        for (size_t d = 0; d < sizes.size(); ++d) offset += index[d] * strides[d];
        std::memcpy(out.data() + n * element, stored.data() + offset * element, element);
        for (size_t d = sizes.size(); d-- > 0;) {
            if (++index[d] < sizes[d]) break;
            index[d] = 0;
        }
    }
    return out;
}

}  // namespace

std::shared_ptr<ov::op::v0::Constant> make_shared_constant(const archive::StoredTensor& stored,
                                                           std::shared_ptr<const void> owner) {
    const auto sizes = stored.meta.static_sizes();
    const auto strides = stored.meta.static_strides();
    const ov::Shape shape(sizes.begin(), sizes.end());
    const auto type = element_type(stored.meta.dtype);
    if (is_contiguous(sizes, strides)) {
        return std::make_shared<ov::op::v0::Constant>(type, shape, stored.data(), std::const_pointer_cast<void>(owner));
    }
    // A weight saved as a strided view of a larger storage: OpenVINO needs it dense.
    auto dense = gather_contiguous(stored, sizes, strides);
    return std::make_shared<ov::op::v0::Constant>(type, shape, dense.data());
}

}  // namespace pt2ov::lower
