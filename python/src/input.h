// One input of a call as the engine reads it, shared by the numpy and DLPack readers: the
// caller's memory in place when it is C-contiguous, else a contiguous copy made here.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <vector>

#include "pt2ov/pt2ov.h"

namespace pt2ov::python {

namespace nb = nanobind;

struct Input {
    pt2ov::Tensor tensor;
    nb::object keep;            // the numpy array or DLPack capsule the view reads from
    nb::ndarray<nb::ro> array;  // or the other object, through nanobind
};

// A view of `data` if the byte strides are row-major (a dim of size 1 has any stride, an empty
// array reads nothing), else a contiguous copy.
pt2ov::Tensor view_or_copy(pt2ov::DType dtype, std::vector<int64_t> shape, const int64_t* byte_strides,
                           const char* data, bool aligned = true);

}  // namespace pt2ov::python
