// pt2ov._pt2ov: the binding under the Python package pt2ov (python/pt2ov/__init__.py is the
// public face; this module is its engine room). Over the public API only (include/pt2ov/) and
// the tools' report formatting (src/tools/report.h).
//
// A call's per-input work is done here, by the input's type: a numpy array is read from its
// own fields, a torch tensor through DLPack's C exchange API where torch has it (else the
// DLPack capsule torch's C side makes of it), anything else with __dlpack__ or the buffer
// protocol through nb::ndarray. Contiguous inputs are viewed in place (no copy); strided ones
// are copied to contiguous order here. Outputs leave as numpy arrays or torch tensors over the
// pt2ov::Tensor's own memory, kept alive by their base object, made through numpy's and
// torch's C entry points (no Python-level call).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "pt2ov/pt2ov.h"
#include "tools/report.h"

namespace nb = nanobind;

namespace {

PyObject* g_error = nullptr;
PyObject* g_archive_error = nullptr;
PyObject* g_unsupported_error = nullptr;
PyObject* g_input_error = nullptr;
PyObject* g_internal_error = nullptr;

pt2ov::DType dtype_of(const nb::dlpack::dtype& t, size_t index) {
    using Code = nb::dlpack::dtype_code;
    const auto code = static_cast<Code>(t.code);
    if (t.lanes == 1) {
        if (code == Code::Bool && t.bits == 8) return pt2ov::DType::Bool;
        if (code == Code::Float) {
            if (t.bits == 16) return pt2ov::DType::Float16;
            if (t.bits == 32) return pt2ov::DType::Float32;
            if (t.bits == 64) return pt2ov::DType::Float64;
        }
        if (code == Code::Bfloat && t.bits == 16) return pt2ov::DType::BFloat16;
        if (code == Code::Int) {
            if (t.bits == 8) return pt2ov::DType::Int8;
            if (t.bits == 16) return pt2ov::DType::Int16;
            if (t.bits == 32) return pt2ov::DType::Int32;
            if (t.bits == 64) return pt2ov::DType::Int64;
        }
        if (code == Code::UInt) {
            if (t.bits == 8) return pt2ov::DType::UInt8;
            if (t.bits == 16) return pt2ov::DType::UInt16;
        }
    }
    static const char* const names[] = {"int", "uint", "float", "opaque", "bfloat", "complex", "bool"};
    const char* name = t.code < 7 ? names[t.code] : "unknown";
    throw pt2ov::InputError("input " + std::to_string(index) + ": element type " + name +
                            std::to_string(t.bits) + " is not one pt2ov reads (bool, uint8, int8, int16, "
                            "uint16, int32, int64, float16, bfloat16, float32, float64)");
}

nb::dlpack::dtype dlpack_of(pt2ov::DType dtype) {
    using D = pt2ov::DType;
    switch (dtype) {
        case D::Bool: return nb::dtype<bool>();
        case D::UInt8: return nb::dtype<uint8_t>();
        case D::Int8: return nb::dtype<int8_t>();
        case D::Int16: return nb::dtype<int16_t>();
        case D::UInt16: return nb::dtype<uint16_t>();
        case D::Int32: return nb::dtype<int32_t>();
        case D::Int64: return nb::dtype<int64_t>();
        case D::Float16: return {static_cast<uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
        case D::BFloat16: return {static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat), 16, 1};
        case D::Float32: return nb::dtype<float>();
        case D::Float64: return nb::dtype<double>();
    }
    return nb::dtype<float>();
}

// bfloat16 has no numpy dtype: numpy outputs carry it as float32 (exact), as .npz files do.
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
struct NumpyApi {
    PyTypeObject* array_type = nullptr;
    PyObject* (*descr_from_type)(int type_num) = nullptr;  // a new reference
    PyObject* (*new_from_descr)(PyTypeObject* subtype, PyObject* descr, int nd, const Py_intptr_t* dims,
                                const Py_intptr_t* strides, void* data, int flags, PyObject* obj) = nullptr;
    int (*set_base_object)(PyObject* array, PyObject* base) = nullptr;  // steals base
};

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

// Null if numpy cannot be imported. Kept for the life of the process.
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

// DLPack's unversioned DLManagedTensor, as torch._C._to_dlpack's capsule holds it and
// torch._C._from_dlpack takes it.
struct ManagedDLTensorLegacy {
    nb::dlpack::dltensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(ManagedDLTensorLegacy*);
};

// DLPack's C exchange API (DLPack 1.2 and later): a table of C functions a tensor type
// publishes as the capsule `__dlpack_c_exchange_api__` on the type, through which a consumer
// reads a tensor and makes one without a capsule or a Python call per tensor. The structs below
// mirror the standard's (DLPackVersion, DLManagedTensorVersioned, DLPackExchangeAPI), so that
// the module needs no torch header: torch stays a runtime dependency only. Their layout is
// fixed for DLPack major version 1.
struct DLPackVersion {
    uint32_t major;
    uint32_t minor;
};

struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned* self);
    uint64_t flags;
    nb::dlpack::dltensor dl_tensor;
};

struct DLPackExchangeApi {
    DLPackVersion version;
    void* prev_api;
    int (*managed_tensor_allocator)(nb::dlpack::dltensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                                    void (*set_error)(void* error_ctx, const char* kind, const char* message));
    int (*managed_tensor_from_py_object_no_sync)(void* py_object, DLManagedTensorVersioned** out);
    // Steals `tensor` (its deleter runs when the new object dies); 0 on success, else -1 with
    // a Python error set.
    int (*managed_tensor_to_py_object_no_sync)(DLManagedTensorVersioned* tensor, void** out_py_object);
    // Fills `out` with a view of the object's data, shape and strides (the producer's memory,
    // valid while the object lives unchanged); may be null.
    int (*dltensor_from_py_object_no_sync)(void* py_object, nb::dlpack::dltensor* out);
    int (*current_work_stream)(int32_t device_type, int32_t device_id, void** out_stream);
};

constexpr uint32_t kDLPackMajor = 1;

// torch's C entry points, looked up once torch is imported: the exchange API where this
// torch has it (the pinned 2.13 does), else the legacy DLPack functions of torch._C. Either
// way no Python function runs per tensor (torch.Tensor.__dlpack__ and
// torch.utils.dlpack.from_dlpack are Python functions checking streams and devices). The
// handles are kept for the life of the process (never released: no destructor runs at
// interpreter shutdown).
struct TorchDLPack {
    PyTypeObject* tensor_type = nullptr;
    const DLPackExchangeApi* exchange = nullptr;  // null: the legacy functions below
    const DLPackExchangeApi* exchange_found = nullptr;  // what torch has (exchange, unless a test turned it off)
    nb::handle to_dlpack;    // torch._C._to_dlpack(tensor) -> "dltensor" capsule
    nb::handle from_dlpack;  // torch._C._from_dlpack(capsule) -> tensor
    nb::handle is_neg;       // torch.Tensor.is_neg, called on a tensor without a bound method
};

// The exchange API torch.Tensor publishes, if of a major version this module reads.
const DLPackExchangeApi* exchange_api_of(nb::handle tensor_type) {
    PyObject* capsule = PyObject_GetAttrString(tensor_type.ptr(), "__dlpack_c_exchange_api__");
    if (!capsule) {
        PyErr_Clear();
        return nullptr;
    }
    const auto* api = PyCapsule_CheckExact(capsule)
                          ? static_cast<const DLPackExchangeApi*>(PyCapsule_GetPointer(capsule, "dlpack_exchange_api"))
                          : nullptr;
    // The table is static in torch ("must stay alive throughout the lifetime of the process"):
    // the capsule need not be kept.
    Py_DECREF(capsule);
    if (!api) {
        PyErr_Clear();
        return nullptr;
    }
    if (api->version.major != kDLPackMajor || !api->managed_tensor_to_py_object_no_sync) return nullptr;
    return api;
}

// Null until the caller has imported torch (pt2ov never imports it for a call).
TorchDLPack* torch_dlpack() {
    static TorchDLPack entry;
    if (entry.tensor_type) return &entry;
    PyObject* torch = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");  // borrowed
    if (!torch) return nullptr;
    nb::object c_api = nb::borrow(torch).attr("_C");
    nb::object tensor_type = nb::borrow(torch).attr("Tensor");
    if (!PyType_Check(tensor_type.ptr())) throw pt2ov::InternalError("torch.Tensor is not a type");
    entry.exchange = entry.exchange_found = exchange_api_of(tensor_type);
    entry.to_dlpack = nb::object(c_api.attr("_to_dlpack")).release();
    entry.from_dlpack = nb::object(c_api.attr("_from_dlpack")).release();
    entry.is_neg = nb::object(tensor_type.attr("is_neg")).release();
    entry.tensor_type = reinterpret_cast<PyTypeObject*>(tensor_type.release().ptr());
    return &entry;
}

// An output's own memory as DLPack describes it, in either of DLPack's managed forms: torch
// takes it over and calls the deleter when its tensor dies, which frees the pt2ov::Tensor.
struct ExportedTensor {
    pt2ov::Tensor tensor;
    std::vector<int64_t> strides;  // row-major, in elements (DLPack 1.2 wants them spelled out)
    DLManagedTensorVersioned versioned;  // for the exchange API
    ManagedDLTensorLegacy legacy;        // for torch._C._from_dlpack
};

nb::object to_torch(const TorchDLPack& torch, pt2ov::Tensor tensor) {
    static char empty_storage[64];
    auto exported = std::make_unique<ExportedTensor>();
    exported->tensor = std::move(tensor);
    const auto& sizes = exported->tensor.shape();
    exported->strides.assign(sizes.size(), 1);
    for (size_t d = sizes.size(); d-- > 1;) exported->strides[d - 1] = exported->strides[d] * std::max<int64_t>(sizes[d], 1);
    nb::dlpack::dltensor dl;
    dl.data = exported->tensor.data() ? exported->tensor.data() : empty_storage;
    dl.device = {nb::device::cpu::value, 0};
    dl.ndim = static_cast<int32_t>(sizes.size());
    dl.dtype = dlpack_of(exported->tensor.dtype());
    dl.shape = const_cast<int64_t*>(sizes.data());
    dl.strides = exported->strides.data();
    dl.byte_offset = 0;
    if (torch.exchange) {
        auto& managed = exported->versioned;
        managed.version = {kDLPackMajor, 0};
        managed.manager_ctx = exported.get();
        managed.deleter = [](DLManagedTensorVersioned* self) { delete static_cast<ExportedTensor*>(self->manager_ctx); };
        managed.flags = 0;  // writable, and not a copy torch should know of
        managed.dl_tensor = dl;
        void* result = nullptr;
        // Stolen from here on, failed or not: torch frees it.
        if (torch.exchange->managed_tensor_to_py_object_no_sync(&exported.release()->versioned, &result) != 0)
            throw nb::python_error();
        return nb::steal(static_cast<PyObject*>(result));
    }
    auto& managed = exported->legacy;
    managed.dl_tensor = dl;
    managed.manager_ctx = exported.get();
    managed.deleter = [](ManagedDLTensorLegacy* self) { delete static_cast<ExportedTensor*>(self->manager_ctx); };
    // A capsule torch never consumed (its name still "dltensor") frees the tensor itself.
    PyObject* capsule = PyCapsule_New(&managed, "dltensor", [](PyObject* self) {
        if (auto* unused = static_cast<ManagedDLTensorLegacy*>(PyCapsule_GetPointer(self, "dltensor"))) {
            unused->deleter(unused);
        } else {
            PyErr_Clear();
        }
    });
    if (!capsule) throw nb::python_error();
    exported.release();
    nb::object owner = nb::steal(capsule);
    return torch.from_dlpack(owner);
}

// The package's own preparation of an input (pt2ov._as_array: resolve a conjugate or negative
// torch view, swap big-endian numpy data to native order, make an array of anything else numpy
// takes, refuse a tensor off the CPU), for the few inputs the direct paths below do not take.
nb::object prepare_in_python(nb::handle item, size_t index) {
    static nb::handle as_array = nb::object(nb::module_::import_("pt2ov").attr("_as_array")).release();
    PyObject* torch = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");  // borrowed
    return as_array(item, torch ? nb::handle(torch) : nb::none(), index);
}

// One input as the engine reads it, and what keeps its memory alive during the call: the
// caller's memory in place when it is C-contiguous, else a contiguous copy made here.
struct Input {
    pt2ov::Tensor tensor;
    nb::object keep;            // the numpy array or DLPack capsule the view reads from
    nb::ndarray<nb::ro> array;  // or the other object, through nanobind
};

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

// A view of `data` if the byte strides are row-major (a dim of size 1 has any stride, an empty
// array reads nothing), else a contiguous copy.
pt2ov::Tensor view_or_copy(pt2ov::DType dtype, std::vector<int64_t> shape, const int64_t* byte_strides,
                           const char* data, bool aligned = true) {
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

[[noreturn]] void refuse_numpy_dtype(nb::handle array, size_t index) {
    nb::object text = nb::steal(PyObject_Str(nb::object(array.attr("dtype")).ptr()));
    if (!text.is_valid()) throw nb::python_error();
    const std::string name = PyUnicode_AsUTF8(text.ptr());
    throw pt2ov::InputError("input " + std::to_string(index) + ": element type " + name +
                            " is not one pt2ov reads (bool, uint8, int8, int16, uint16, int32, int64, float16, "
                            "bfloat16, float32, float64)");
}

// A numpy array (or subclass), from its own fields; false for big-endian data (prepared in
// Python). Returns through `out`.
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

// A DLPack tensor (strides in elements, null for row-major); false off the CPU.
bool dlpack_input(const nb::dlpack::dltensor& dl, size_t index, Input& out) {
    if (dl.device.device_type != nb::device::cpu::value) return false;
    const pt2ov::DType dtype = dtype_of(dl.dtype, index);
    const auto rank = static_cast<size_t>(dl.ndim);
    std::vector<int64_t> shape(dl.shape, dl.shape + rank);
    const char* data = static_cast<const char*>(dl.data) + dl.byte_offset;
    if (!dl.strides) {
        out.tensor = pt2ov::Tensor::view(dtype, std::move(shape), const_cast<char*>(data));
        return true;
    }
    const auto elem = static_cast<int64_t>(pt2ov::dtype_size(dtype));
    std::vector<int64_t> strides(rank);
    for (size_t d = 0; d < rank; ++d) strides[d] = dl.strides[d] * elem;
    out.tensor = view_or_copy(dtype, std::move(shape), strides.data(), data);
    return true;
}

// Another object with __dlpack__ or the buffer protocol, as nanobind took it into in.array
// (strides in elements); false off the CPU.
bool other_input(size_t index, Input& in) {
    const auto& a = in.array;
    if (a.device_type() != nb::device::cpu::value) return false;
    const pt2ov::DType dtype = dtype_of(a.dtype(), index);
    const auto elem = static_cast<int64_t>(pt2ov::dtype_size(dtype));
    std::vector<int64_t> shape(a.ndim()), strides(a.ndim());
    for (size_t d = 0; d < a.ndim(); ++d) {
        shape[d] = static_cast<int64_t>(a.shape(d));
        strides[d] = a.stride(d) * elem;
    }
    in.tensor = view_or_copy(dtype, std::move(shape), strides.data(), static_cast<const char*>(a.data()));
    return true;
}

// A torch tensor through torch's DLPack entry points: a plain torch.Tensor through the exchange
// API's view (no allocation on either side; the tensor itself keeps its memory alive for the
// call), a subclass, or a tensor the view refuses, through the capsule torch._C._to_dlpack
// makes. False for a negative view (DLPack would carry its memory without the pending
// negation) and off the CPU. A conjugate view is complex, which pt2ov refuses by its dtype
// either way: it is not asked about.
bool torch_input(const TorchDLPack& torch, nb::handle item, size_t index, Input& out) {
    PyObject* self = item.ptr();
    nb::object negative = nb::steal(PyObject_Vectorcall(torch.is_neg.ptr(), &self, 1, nullptr));
    if (!negative.is_valid()) throw nb::python_error();
    if (negative.ptr() != Py_False) return false;
    // The exchange API reads objects of the type it was found on only.
    if (torch.exchange && torch.exchange->dltensor_from_py_object_no_sync && Py_TYPE(self) == torch.tensor_type) {
        nb::dlpack::dltensor view;
        if (torch.exchange->dltensor_from_py_object_no_sync(self, &view) == 0) {
            if (!dlpack_input(view, index, out)) return false;
            out.keep = nb::borrow(item);
            return true;
        }
        PyErr_Clear();  // a tensor the view does not describe: the capsule path decides
    }
    nb::object capsule = nb::steal(PyObject_Vectorcall(torch.to_dlpack.ptr(), &self, 1, nullptr));
    if (!capsule.is_valid()) throw nb::python_error();
    auto* managed = static_cast<ManagedDLTensorLegacy*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (!managed) throw nb::python_error();
    if (!dlpack_input(managed->dl_tensor, index, out)) return false;
    out.keep = std::move(capsule);  // torch's capsule frees the DLPack tensor when dropped
    return true;
}

// An input by its type: numpy array, torch tensor, anything else with __dlpack__ or the buffer
// protocol; what none of them takes is prepared by the package first.
Input as_input(nb::handle item, const NumpyApi* numpy, const TorchDLPack* torch, size_t index,
               bool prepared = false) {
    Input in;
    if (numpy && PyObject_TypeCheck(item.ptr(), numpy->array_type)) {
        if (numpy_input(item, index, in)) return in;
    } else if (torch && PyObject_TypeCheck(item.ptr(), torch->tensor_type)) {
        if (torch_input(*torch, item, index, in)) return in;
    } else {
        if (nb::try_cast(item, in.array, /*convert=*/false) && other_input(index, in)) return in;
    }
    if (!prepared) return as_input(prepare_in_python(item, index), numpy, torch, index, /*prepared=*/true);
    throw nb::type_error(
        ("input " + std::to_string(index) + ": not a CPU array or tensor (DLPack or the buffer protocol)").c_str());
}

// The call's inputs, each as the engine reads it.
std::vector<Input> as_inputs(PyObject* const* items, size_t count) {
    const NumpyApi* numpy = numpy_api();
    const TorchDLPack* torch = torch_dlpack();
    std::vector<Input> result;
    result.reserve(count);
    for (size_t i = 0; i < count; ++i) result.push_back(as_input(items[i], numpy, torch, i));
    return result;
}

nb::list io_list(const std::vector<pt2ov::IOInfo>& infos) {
    nb::list out;
    for (const auto& info : infos) {
        nb::list shape, ranges;
        for (int64_t d : info.shape) shape.append(d < 0 ? nb::none() : nb::cast(d));
        for (const auto& [lo, hi] : info.dim_ranges) ranges.append(nb::make_tuple(lo, hi));
        out.append(nb::make_tuple(info.name, std::string(pt2ov::dtype_name(info.dtype)), nb::tuple(shape),
                                  nb::tuple(ranges)));
    }
    return out;
}

pt2ov::LoadOptions make_options(const std::string& method, const std::string& device, const std::string& precision,
                                const std::string& cache_dir, const std::vector<std::string>& cpu_ops,
                                const std::vector<std::string>& cpu_nodes, bool strict, int num_threads,
                                bool openvino_state, int64_t int64_input_limit, const std::string& hint,
                                bool measure_placement, bool verify) {
    pt2ov::LoadOptions options;
    options.method = method;
    options.device = device;
    options.precision = precision;
    options.cache_dir = cache_dir;
    options.cpu_ops = cpu_ops;
    options.cpu_nodes = cpu_nodes;
    options.strict = strict;
    options.num_threads = num_threads;
    options.openvino_state = openvino_state;
    options.int64_input_limit = int64_input_limit;
    options.performance_hint = hint;
    options.measure_placement = measure_placement;
    options.verify = verify;
    return options;
}

// A loaded Program. Its calls run without the GIL and without a lock of ours: Program::run is
// safe from many threads at once (a program with state serializes its own calls).
struct PyProgram {
    pt2ov::Program program;

    explicit PyProgram(pt2ov::Program p) : program(std::move(p)) {}

    // program(*inputs): outputs of the kind of the first input (torch tensors for a torch
    // tensor, numpy arrays otherwise).
    nb::tuple call(nb::args args) {
        std::vector<Input> arrays = as_inputs(&PyTuple_GET_ITEM(args.ptr(), 0), args.size());
        const TorchDLPack* torch = torch_dlpack();
        const bool torch_out = torch && args.size() > 0 && PyObject_TypeCheck(args[0].ptr(), torch->tensor_type);
        const NumpyApi* numpy = torch_out ? nullptr : numpy_api();
        if (!torch_out && !numpy) throw pt2ov::InternalError("numpy outputs asked for, and numpy cannot be imported");
        std::vector<pt2ov::Tensor> inputs;
        inputs.reserve(arrays.size());
        for (auto& a : arrays) inputs.push_back(std::move(a.tensor));  // a.keep still holds the memory
        std::vector<pt2ov::Tensor> outputs;
        {
            nb::gil_scoped_release release;
            outputs = program.run(inputs);
        }
        nb::tuple result = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(outputs.size())));
        for (size_t k = 0; k < outputs.size(); ++k) {
            auto& t = outputs[k];
            nb::object out;
            if (torch_out) {
                out = to_torch(*torch, std::move(t));
            } else {
                if (t.dtype() == pt2ov::DType::BFloat16) t = bfloat16_as_float32(t);
                out = to_numpy(*numpy, std::move(t));
            }
            PyTuple_SET_ITEM(result.ptr(), static_cast<Py_ssize_t>(k), out.release().ptr());
        }
        return result;
    }
};

}  // namespace

// Raises `e` as an instance of `type` whose message is e's on one line and whose `node` is
// the program's node it is about (None when none).
static void raise_as(PyObject* type, const pt2ov::Error& e) {
    PyObject* message = PyUnicode_FromString(pt2ov::tools::one_line(e.what()).c_str());
    PyObject* exception = message ? PyObject_CallOneArg(type, message) : nullptr;
    Py_XDECREF(message);
    if (!exception) return;  // Python's own error is set
    PyObject* node = e.node().empty() ? Py_NewRef(Py_None) : PyUnicode_FromString(e.node().c_str());
    if (!node || PyObject_SetAttrString(exception, "node", node) != 0) {
        Py_XDECREF(node);
        Py_DECREF(exception);
        return;
    }
    Py_DECREF(node);
    PyErr_SetObject(type, exception);
    Py_DECREF(exception);
}

NB_MODULE(_pt2ov, m) {
    m.doc() = "pt2ov's binding (use the package pt2ov, not this module).";

    g_error = PyErr_NewExceptionWithDoc("pt2ov.Error", "Anything the engine reports. Catch this to catch them all.",
                                        PyExc_RuntimeError, nullptr);
    g_archive_error = PyErr_NewExceptionWithDoc(
        "pt2ov.ArchiveError", "The .pt2 file is missing, damaged, truncated or of a version pt2ov does not read.",
        g_error, nullptr);
    g_unsupported_error = PyErr_NewExceptionWithDoc(
        "pt2ov.UnsupportedError", "The program asks for something the engine (or the installed OpenVINO) cannot do.",
        g_error, nullptr);
    g_input_error = PyErr_NewExceptionWithDoc(
        "pt2ov.InputError", "A call's inputs do not fit the program: count, dtype, rank, shape or range.", g_error,
        nullptr);
    g_internal_error = PyErr_NewExceptionWithDoc(
        "pt2ov.InternalError", "pt2ov broke one of its own invariants: a bug in pt2ov; please report it with the model.",
        g_error, nullptr);
    m.attr("Error") = nb::handle(g_error);
    m.attr("InternalError") = nb::handle(g_internal_error);
    m.attr("ArchiveError") = nb::handle(g_archive_error);
    m.attr("UnsupportedError") = nb::handle(g_unsupported_error);
    m.attr("InputError") = nb::handle(g_input_error);

    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const pt2ov::ArchiveError& e) {
            raise_as(g_archive_error, e);
        } catch (const pt2ov::UnsupportedError& e) {
            raise_as(g_unsupported_error, e);
        } catch (const pt2ov::InputError& e) {
            raise_as(g_input_error, e);
        } catch (const pt2ov::InternalError& e) {
            raise_as(g_internal_error, e);
        } catch (const pt2ov::Error& e) {
            raise_as(g_error, e);
        }
    });

    // Subclassed by pt2ov.Program, which inherits __call__ as it is.
    nb::class_<PyProgram>(m, "_Program")
        .def(
            "__init__",
            [](PyProgram* self, const std::string& path, const std::string& method, const std::string& device,
               const std::string& precision, const std::string& cache_dir, const std::vector<std::string>& cpu_ops,
               const std::vector<std::string>& cpu_nodes, bool strict, int num_threads, bool openvino_state,
               int64_t int64_input_limit, const std::string& hint, bool measure_placement, bool verify) {
                auto options = make_options(method, device, precision, cache_dir, cpu_ops, cpu_nodes, strict,
                                            num_threads, openvino_state, int64_input_limit, hint, measure_placement, verify);
                nb::gil_scoped_release release;
                new (self) PyProgram(pt2ov::Program::load(path, options));
            },
            nb::arg("path"), nb::arg("method"), nb::arg("device"), nb::arg("precision"), nb::arg("cache_dir"),
            nb::arg("cpu_ops"), nb::arg("cpu_nodes"), nb::arg("strict"), nb::arg("num_threads"),
            nb::arg("openvino_state"), nb::arg("int64_input_limit"), nb::arg("hint"), nb::arg("measure_placement"), nb::arg("verify"))
        .def("__call__", &PyProgram::call)
        // For bench/python_overhead.py: the same call from C++ in this process, `calls` times on
        // the inputs as __call__ reads them, each timed alone (ns). With reuse_outputs, outputs of
        // a static shape are written into buffers kept across calls, as `pt2ov bench` does;
        // without, every call returns outputs owning new memory, as __call__ needs.
        .def(
            "_time_runs",
            [](PyProgram& self, int calls, bool reuse_outputs, nb::args items) {
                const std::vector<Input> arrays = as_inputs(&PyTuple_GET_ITEM(items.ptr(), 0), items.size());
                std::vector<pt2ov::Tensor> inputs;
                for (const auto& a : arrays) inputs.push_back(a.tensor);
                std::vector<int64_t> samples;
                samples.reserve(static_cast<size_t>(std::max(calls, 0)));
                nb::gil_scoped_release release;
                std::vector<pt2ov::Tensor> outputs;
                std::vector<bool> reused(self.program.outputs().size());
                for (size_t k = 0; k < reused.size(); ++k) {
                    const auto& shape = self.program.outputs()[k].shape;
                    reused[k] = reuse_outputs && std::none_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; });
                }
                for (int i = 0; i < calls; ++i) {
                    outputs.resize(reused.size());
                    for (size_t k = 0; k < reused.size(); ++k)
                        if (!reused[k]) outputs[k] = pt2ov::Tensor();
                    const auto start = std::chrono::steady_clock::now();
                    self.program.run(inputs, outputs);
                    samples.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - start)
                                          .count());
                }
                return samples;
            },
            nb::arg("calls"), nb::arg("reuse_outputs"), nb::arg("inputs"))
        .def_prop_ro("input_infos", [](PyProgram& p) { return io_list(p.program.inputs()); })
        .def_prop_ro("output_infos", [](PyProgram& p) { return io_list(p.program.outputs()); })
        .def_prop_ro("method", [](PyProgram& p) { return p.program.report().method; })
        .def_prop_ro("report_json", [](PyProgram& p) { return pt2ov::tools::report_json({p.program.report()}); })
        .def_prop_ro("timings", [](PyProgram& p) {
            const auto& t = p.program.timings();
            nb::dict d;
            d["archive_ms"] = t.archive_ms;
            d["convert_ms"] = t.convert_ms;
            d["compile_ms"] = t.compile_ms;
            return d;
        })
        .def_prop_ro("last_openvino_ns", [](PyProgram& p) { return p.program.last_openvino_ns(); })
        // The mutated buffers' state (Program::state_names / read_state / write_state /
        // reset_state); a state read comes back as torch tensor when `as_torch`, else numpy.
        .def_prop_ro("state_names", [](PyProgram& p) { return p.program.state_names(); })
        .def(
            "read_state",
            [](PyProgram& self, const std::string& name, bool as_torch) {
                pt2ov::Tensor value;
                {
                    nb::gil_scoped_release release;
                    value = self.program.read_state(name);
                }
                if (as_torch) {
                    const TorchDLPack* torch = torch_dlpack();
                    if (!torch) throw pt2ov::InputError("read_state(..., as_torch=True): torch cannot be imported");
                    return to_torch(*torch, std::move(value));
                }
                const NumpyApi* numpy = numpy_api();
                if (!numpy) throw pt2ov::InternalError("read_state: numpy cannot be imported");
                if (value.dtype() == pt2ov::DType::BFloat16) value = bfloat16_as_float32(value);
                return to_numpy(*numpy, std::move(value));
            },
            nb::arg("name"), nb::arg("as_torch") = false)
        .def(
            "write_state",
            [](PyProgram& self, const std::string& name, nb::handle value) {
                PyObject* item = value.ptr();
                const std::vector<Input> arrays = as_inputs(&item, 1);
                nb::gil_scoped_release release;
                self.program.write_state(name, arrays[0].tensor);
            },
            nb::arg("name"), nb::arg("value"))
        .def("reset_state", [](PyProgram& self) {
            nb::gil_scoped_release release;
            self.program.reset_state();
        });

    // The same JSON as `pt2ov inspect --json`: every method when method == "forward", as the
    // command does.
    m.def(
        "inspect_json",
        [](const std::string& path, const std::string& method, const std::string& device, const std::string& precision,
           const std::string& cache_dir, const std::vector<std::string>& cpu_ops,
           const std::vector<std::string>& cpu_nodes, bool strict, int num_threads, bool openvino_state,
           int64_t int64_input_limit, const std::string& hint, bool measure_placement, bool verify) {
            auto options = make_options(method, device, precision, cache_dir, cpu_ops, cpu_nodes, strict, num_threads,
                                        openvino_state, int64_input_limit, hint, measure_placement, verify);
            nb::gil_scoped_release release;
            std::vector<pt2ov::PlacementReport> reports;
            const bool all_methods = options.method == "forward";
            for (const auto& name :
                 all_methods ? pt2ov::Program::methods(path) : std::vector<std::string>{options.method}) {
                options.method = name;
                reports.push_back(pt2ov::Program::inspect(path, options));
            }
            return pt2ov::tools::report_json(reports);
        },
        nb::arg("path"), nb::arg("method"), nb::arg("device"), nb::arg("precision"), nb::arg("cache_dir"),
        nb::arg("cpu_ops"), nb::arg("cpu_nodes"), nb::arg("strict"), nb::arg("num_threads"), nb::arg("openvino_state"),
        nb::arg("int64_input_limit"), nb::arg("hint"), nb::arg("measure_placement"), nb::arg("verify"));

    // For the tests: the addresses a call would read its inputs from (the same conversion as
    // _Program.__call__'s), to show that contiguous inputs are viewed, not copied.
    m.def("_view_addresses", [](nb::args items) {
        std::vector<uintptr_t> addresses;
        for (const auto& a : as_inputs(&PyTuple_GET_ITEM(items.ptr(), 0), items.size()))
            addresses.push_back(reinterpret_cast<uintptr_t>(a.tensor.data()));
        return addresses;
    });
    // For the tests and bench/python_overhead.py: torch tensors through the exchange API (when
    // torch has it) or through the legacy capsule functions; returns whether torch has the API.
    m.def("_use_torch_exchange_api", [](bool enabled) {
        TorchDLPack* torch = torch_dlpack();
        if (!torch) throw pt2ov::InputError("torch is not imported");
        torch->exchange = enabled ? torch->exchange_found : nullptr;
        return torch->exchange_found != nullptr;
    });
    m.def("methods", [](const std::string& path) { return pt2ov::Program::methods(path); }, nb::arg("path"));
    m.def("openvino_version", &pt2ov::openvino_version);
}
