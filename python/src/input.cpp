#include "input.h"

#include <cstring>

namespace pt2ov::python {

namespace {

// Copies a strided array (strides in bytes, any sign) to contiguous row-major order.
void copy_strided(const char* src, const int64_t* shape, const int64_t* byte_strides, size_t rank, size_t elem,
                  char* dst) {
    if (rank == 0) {
        std::memcpy(dst, src, elem);
        return;
    }
    std::vector<int64_t> index(rank, 0);
    for (size_t d = 0; d < rank; ++d)
        if (shape[d] == 0) return;
    const int64_t inner = shape[rank - 1], inner_stride = byte_strides[rank - 1];
    for (;;) {
        const char* row = src;
        for (size_t d = 0; d + 1 < rank; ++d) row += index[d] * byte_strides[d];
        for (int64_t i = 0; i < inner; ++i, dst += elem) std::memcpy(dst, row + i * inner_stride, elem);
        size_t d = rank - 1;
        for (;;) {  // the next row: the odometer over the outer dims
            if (d == 0) return;
            --d;
            if (++index[d] < shape[d]) break;
            index[d] = 0;
        }
    }
}

}  // namespace

pt2ov::Tensor view_or_copy(pt2ov::DType dtype, std::vector<int64_t> shape, const int64_t* byte_strides,
                           const char* data, bool aligned) {
    const auto elem = static_cast<int64_t>(pt2ov::dtype_size(dtype));
    bool contiguous = aligned;
    int64_t expected = elem;
    bool empty = false;
    for (size_t d = shape.size(); d-- > 0;) {
        if (shape[d] == 0) empty = true;
        if (shape[d] != 1 && byte_strides[d] != expected) contiguous = false;
        expected *= shape[d];
    }
    if (contiguous || empty) return pt2ov::Tensor::view(dtype, std::move(shape), const_cast<char*>(data));
    auto copy = pt2ov::Tensor::allocate(dtype, shape);
    copy_strided(data, shape.data(), byte_strides, shape.size(), static_cast<size_t>(elem), copy.data_as<char>());
    return copy;
}

}  // namespace pt2ov::python
