#include "dlpack.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace pt2ov::python {

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

// (struct TorchDLPack: dlpack.h)


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

}  // namespace pt2ov::python
