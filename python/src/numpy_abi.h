// numpy without numpy's headers: its C API taken from the table numpy publishes (numpy is a
// runtime dependency only), an array made over a pt2ov::Tensor's own memory, and an array
// read from its own fields as an input.
#pragma once

#include <nanobind/nanobind.h>

#include "input.h"
#include "pt2ov/pt2ov.h"

namespace pt2ov::python {

// The slots of numpy's C API this module calls (numpy_abi.cpp says which and why they hold).
struct NumpyApi {
    PyTypeObject* array_type = nullptr;
    PyObject* (*descr_from_type)(int type_num) = nullptr;  // a new reference
    PyObject* (*new_from_descr)(PyTypeObject* subtype, PyObject* descr, int nd, const Py_intptr_t* dims,
                                const Py_intptr_t* strides, void* data, int flags, PyObject* obj) = nullptr;
    int (*set_base_object)(PyObject* array, PyObject* base) = nullptr;  // steals base
};

// Null if numpy cannot be imported. Kept for the life of the process.
const NumpyApi* numpy_api();

// A numpy array over `tensor`'s memory, which the array's base keeps alive.
nb::object to_numpy(const NumpyApi& numpy, pt2ov::Tensor tensor);

// bfloat16 has no numpy dtype: numpy outputs carry it as float32 (exact), as .npz files do.
pt2ov::Tensor bfloat16_as_float32(const pt2ov::Tensor& t);

// A numpy array (or subclass), from its own fields; false for big-endian data (prepared in
// Python). Returns through `out`.
bool numpy_input(nb::handle item, size_t index, Input& out);

}  // namespace pt2ov::python
