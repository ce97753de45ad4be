#include "numpy_abi.h"

#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace pt2ov::python {

pt2ov::Tensor bfloat16_as_float32(const pt2ov::Tensor& t) {
    auto out = pt2ov::Tensor::allocate(pt2ov::DType::Float32, t.shape());
    const auto* src = t.data_as<const uint16_t>();
    auto* dst = out.data_as<uint32_t>();
    for (int64_t i = 0; i < t.numel(); ++i) dst[i] = static_cast<uint32_t>(src[i]) << 16;
    return out;
}

// numpy's C API, taken from the table numpy publishes as the capsule _ARRAY_API (what numpy's
// own import_array() does), so that the module builds without numpy's headers: numpy is a
// runtime dependency only. The slots used are fixed in numpy's ABI since 1.7, in 1.x and 2.x
// alike, and so are the leading fields of an array and of a dtype read below.
// (struct NumpyApi: numpy_abi.h)


// The leading fields of numpy's PyArray_Descr (in 1.x the byte after byteorder is `flags`,
// in 2.x unused: type_num stays where it was).
struct NumpyDescrHead {
    PyObject_HEAD
    PyTypeObject* typeobj;
    char kind;
    char type;
    char byteorder;  // '<', '>', '=' or '|'
    char unused;
    int type_num;
};

// The leading fields of numpy's PyArrayObject_fields.
struct NumpyArrayHead {
    PyObject_HEAD
    char* data;
    int nd;
    Py_intptr_t* dimensions;
    Py_intptr_t* strides;  // in bytes
    PyObject* base;
    NumpyDescrHead* descr;
    int flags;
};

constexpr int kNumpyCContiguous = 0x0001;  // NPY_ARRAY_C_CONTIGUOUS
constexpr int kNumpyAligned = 0x0100;      // NPY_ARRAY_ALIGNED
constexpr int kNumpyWriteable = 0x0400;    // NPY_ARRAY_WRITEABLE

const NumpyApi* numpy_api() {
    static NumpyApi api;
    static bool tried = false;
    if (api.array_type || tried) return api.array_type ? &api : nullptr;
    tried = true;
    PyObject* core = PyImport_ImportModule("numpy._core._multiarray_umath");
    if (!core) {
        PyErr_Clear();
        core = PyImport_ImportModule("numpy.core._multiarray_umath");
    }
    if (!core) {
        PyErr_Clear();
        return nullptr;
    }
    PyObject* capsule = PyObject_GetAttrString(core, "_ARRAY_API");
    Py_DECREF(core);
    void** table = capsule && PyCapsule_CheckExact(capsule) ? static_cast<void**>(PyCapsule_GetPointer(capsule, nullptr))
                                                             : nullptr;
    Py_XDECREF(capsule);  // the table lives as long as numpy's module, which is never unloaded
    if (!table) {
        PyErr_Clear();
        return nullptr;
    }
    api.descr_from_type = reinterpret_cast<decltype(api.descr_from_type)>(table[45]);
    api.new_from_descr = reinterpret_cast<decltype(api.new_from_descr)>(table[94]);
    api.set_base_object = reinterpret_cast<decltype(api.set_base_object)>(table[282]);
    api.array_type = static_cast<PyTypeObject*>(table[2]);
    return &api;
}

// numpy's type numbers (NPY_BOOL, NPY_BYTE, ...: fixed in its ABI).
int numpy_type_num(pt2ov::DType dtype) {
    using D = pt2ov::DType;
    switch (dtype) {
        case D::Bool: return 0;
        case D::Int8: return 1;
        case D::UInt8: return 2;
        case D::Int16: return 3;
        case D::UInt16: return 4;
        case D::Int32: return 5;
        case D::Int64: return 9;  // NPY_LONGLONG
        case D::Float32: return 11;
        case D::Float64: return 12;
        case D::Float16: return 23;
        case D::BFloat16: break;  // no numpy dtype: converted to float32 before
    }
    throw pt2ov::InternalError("no numpy dtype for " + std::string(pt2ov::dtype_name(dtype)));
}

// Null for a numpy type pt2ov does not read.
bool dtype_of_numpy(int type_num, pt2ov::DType& out) {
    using D = pt2ov::DType;
    switch (type_num) {
        case 0: out = D::Bool; return true;
        case 1: out = D::Int8; return true;
        case 2: out = D::UInt8; return true;
        case 3: out = D::Int16; return true;
        case 4: out = D::UInt16; return true;
        case 5: out = sizeof(int) == 4 ? D::Int32 : D::Int64; return true;    // NPY_INT
        case 7: out = sizeof(long) == 8 ? D::Int64 : D::Int32; return true;   // NPY_LONG
        case 9: out = D::Int64; return true;                                  // NPY_LONGLONG
        case 11: out = D::Float32; return true;
        case 12: out = D::Float64; return true;
        case 23: out = D::Float16; return true;
        default: return false;
    }
}

struct OwnedTensorCapsule {
    static void destroy(PyObject* capsule) {
        delete static_cast<pt2ov::Tensor*>(PyCapsule_GetPointer(capsule, "pt2ov.Tensor"));
    }
};

nb::object to_numpy(const NumpyApi& numpy, pt2ov::Tensor tensor) {
    static char empty_storage[64];
    const auto& sizes = tensor.shape();
    Py_intptr_t dims[64];
    if (sizes.size() > std::size(dims)) throw pt2ov::InternalError("an output of rank " + std::to_string(sizes.size()));
    for (size_t d = 0; d < sizes.size(); ++d) dims[d] = static_cast<Py_intptr_t>(sizes[d]);
    PyObject* descr = numpy.descr_from_type(numpy_type_num(tensor.dtype()));
    if (!descr) throw nb::python_error();
    void* data = tensor.data() ? tensor.data() : empty_storage;
    nb::object array = nb::steal(numpy.new_from_descr(numpy.array_type, descr, static_cast<int>(sizes.size()), dims,
                                                      nullptr, data, kNumpyCContiguous | kNumpyAligned | kNumpyWriteable,
                                                      nullptr));  // steals descr
    if (!array.is_valid()) throw nb::python_error();
    auto owned = std::make_unique<pt2ov::Tensor>(std::move(tensor));
    PyObject* base = PyCapsule_New(owned.get(), "pt2ov.Tensor", &OwnedTensorCapsule::destroy);
    if (!base) throw nb::python_error();
    owned.release();
    if (numpy.set_base_object(array.ptr(), base) < 0) throw nb::python_error();  // base stolen, even on failure
    return array;
}

[[noreturn]] void refuse_numpy_dtype(nb::handle array, size_t index) {
    nb::object text = nb::steal(PyObject_Str(nb::object(array.attr("dtype")).ptr()));
    if (!text.is_valid()) throw nb::python_error();
    const std::string name = PyUnicode_AsUTF8(text.ptr());
    throw pt2ov::InputError("input " + std::to_string(index) + ": element type " + name +
                            " is not one pt2ov reads (bool, uint8, int8, int16, uint16, int32, int64, float16, "
                            "bfloat16, float32, float64)");
}

bool numpy_input(nb::handle item, size_t index, Input& out) {
    const auto* array = reinterpret_cast<const NumpyArrayHead*>(item.ptr());
    constexpr char foreign_order = '>';  // pt2ov runs on little-endian hosts only
    if (array->descr->byteorder == foreign_order) return false;
    pt2ov::DType dtype;
    if (!dtype_of_numpy(array->descr->type_num, dtype)) refuse_numpy_dtype(item, index);
    const auto rank = static_cast<size_t>(array->nd);
    std::vector<int64_t> shape(array->dimensions, array->dimensions + rank);
    if (array->flags & kNumpyCContiguous && array->flags & kNumpyAligned) {
        out.tensor = pt2ov::Tensor::view(dtype, std::move(shape), array->data);
    } else {
        std::vector<int64_t> strides(array->strides, array->strides + rank);
        out.tensor = view_or_copy(dtype, std::move(shape), strides.data(), array->data, array->flags & kNumpyAligned);
    }
    out.keep = nb::borrow(item);
    return true;
}

}  // namespace pt2ov::python
