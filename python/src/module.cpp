// pt2ov._pt2ov: the binding under the Python package pt2ov (python/pt2ov/__init__.py is the
// public face; this module is its engine room). Over the public API only (include/pt2ov/) and
// the tools' report formatting (src/tools/report.h).
//
// Inputs arrive as nb::ndarray (DLPack or the buffer protocol: torch tensors and numpy arrays
// alike), C-contiguous and on the CPU, and are viewed in place: no copy. Outputs leave as numpy
// arrays or torch tensors over the pt2ov::Tensor's own memory, kept alive by a capsule.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
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

using InArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

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

nb::object to_numpy(pt2ov::Tensor tensor) {
    static char empty_storage[64];
    auto* owned = new pt2ov::Tensor(std::move(tensor));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<pt2ov::Tensor*>(p); });
    const auto& sizes = owned->shape();
    size_t shape[32];
    if (sizes.size() > std::size(shape)) throw pt2ov::InternalError("an output of rank " + std::to_string(sizes.size()));
    for (size_t d = 0; d < sizes.size(); ++d) shape[d] = static_cast<size_t>(sizes[d]);
    void* data = owned->data() ? owned->data() : empty_storage;
    return nb::cast(nb::ndarray<nb::numpy>(data, sizes.size(), shape, owner, nullptr, dlpack_of(owned->dtype()),
                                           nb::device::cpu::value),
                    nb::rv_policy::reference);
}

// torch's C entry points for DLPack, looked up once torch is imported. Going through them
// directly saves microseconds per tensor over torch.Tensor.__dlpack__ and
// torch.utils.dlpack.from_dlpack, which are Python functions checking streams and devices.
// The handles are kept for the life of the process (never released: no destructor runs at
// interpreter shutdown).
struct TorchDLPack {
    PyTypeObject* tensor_type = nullptr;
    nb::handle to_dlpack;    // torch._C._to_dlpack(tensor) -> "dltensor" capsule
    nb::handle from_dlpack;  // torch._C._from_dlpack(capsule) -> tensor
};

// Null until the caller has imported torch (pt2ov never imports it for a call).
const TorchDLPack* torch_dlpack() {
    static TorchDLPack entry;
    if (entry.tensor_type) return &entry;
    PyObject* torch = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");  // borrowed
    if (!torch) return nullptr;
    nb::object c_api = nb::borrow(torch).attr("_C");
    nb::object tensor_type = nb::borrow(torch).attr("Tensor");
    if (!PyType_Check(tensor_type.ptr())) throw pt2ov::InternalError("torch.Tensor is not a type");
    entry.to_dlpack = nb::object(c_api.attr("_to_dlpack")).release();
    entry.from_dlpack = nb::object(c_api.attr("_from_dlpack")).release();
    entry.tensor_type = reinterpret_cast<PyTypeObject*>(tensor_type.release().ptr());
    return &entry;
}

// A DLPack DLManagedTensor (DLPack's unversioned ABI) over an output's own memory: torch takes
// it over and calls `deleter` when its tensor dies, which frees the pt2ov::Tensor.
struct ExportedTensor {
    nb::dlpack::dltensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(ExportedTensor*);
    pt2ov::Tensor tensor;
    std::vector<int64_t> strides;
};

nb::object to_torch(const TorchDLPack& torch, pt2ov::Tensor tensor) {
    static char empty_storage[64];
    auto exported = std::make_unique<ExportedTensor>();
    exported->tensor = std::move(tensor);
    const auto& sizes = exported->tensor.shape();
    exported->strides.assign(sizes.size(), 1);
    for (size_t d = sizes.size(); d-- > 1;) exported->strides[d - 1] = exported->strides[d] * std::max<int64_t>(sizes[d], 1);
    auto& dl = exported->dl_tensor;
    dl.data = exported->tensor.data() ? exported->tensor.data() : empty_storage;
    dl.device = {nb::device::cpu::value, 0};
    dl.ndim = static_cast<int32_t>(sizes.size());
    dl.dtype = dlpack_of(exported->tensor.dtype());
    dl.shape = const_cast<int64_t*>(sizes.data());
    dl.strides = exported->strides.data();
    dl.byte_offset = 0;
    exported->manager_ctx = nullptr;
    exported->deleter = [](ExportedTensor* self) { delete self; };
    // A capsule torch never consumed (its name still "dltensor") frees the tensor itself.
    PyObject* capsule = PyCapsule_New(exported.get(), "dltensor", [](PyObject* self) {
        if (auto* unused = static_cast<ExportedTensor*>(PyCapsule_GetPointer(self, "dltensor"))) {
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

// The package's own preparation of an input (pt2ov._as_array: detach, resolve a conjugate or
// negative view, copy to contiguous native order, refuse a tensor off the CPU), for what the
// direct path below does not take.
nb::object prepare_in_python(nb::handle item, size_t index) {
    static nb::handle as_array = nb::object(nb::module_::import_("pt2ov").attr("_as_array")).release();
    PyObject* torch = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");  // borrowed
    return as_array(item, torch ? nb::handle(torch) : nb::none(), index);
}

// An input as the engine views it: C-contiguous, on the CPU, read in place. A torch tensor
// enters as the DLPack capsule torch's C side makes of it, unless it is a conjugate or
// negative view (DLPack would carry its memory without the pending negation); anything the
// direct path refuses is prepared by the package first.
InArray as_input(nb::handle item, const TorchDLPack* torch, size_t index, bool prepared = false) {
    InArray array;
    if (torch && PyObject_TypeCheck(item.ptr(), torch->tensor_type)) {
        if (!nb::cast<bool>(item.attr("is_neg")()) && !nb::cast<bool>(item.attr("is_conj")())) {
            nb::object capsule = torch->to_dlpack(item);
            if (nb::try_cast(capsule, array, /*convert=*/false)) return array;
        }
    } else if (nb::try_cast(item, array, /*convert=*/false)) {
        return array;
    }
    if (!prepared) return as_input(prepare_in_python(item, index), torch, index, /*prepared=*/true);
    throw nb::type_error(
        ("input " + std::to_string(index) + ": not a C-contiguous CPU array or tensor (DLPack or the buffer protocol)")
            .c_str());
}

// The list (or tuple) of arrays Program.__call__ passes.
std::vector<InArray> as_inputs(nb::handle arrays) {
    nb::object sequence = nb::steal(PySequence_Fast(arrays.ptr(), "the inputs are a list of arrays"));
    if (!sequence.is_valid()) throw nb::python_error();
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence.ptr());
    PyObject** items = PySequence_Fast_ITEMS(sequence.ptr());
    const TorchDLPack* torch = torch_dlpack();
    std::vector<InArray> result;
    result.reserve(static_cast<size_t>(count));
    for (Py_ssize_t i = 0; i < count; ++i) result.push_back(as_input(items[i], torch, static_cast<size_t>(i)));
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
                                bool openvino_state) {
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
    return options;
}

// A loaded Program. Its calls run without the GIL and without a lock of ours: Program::run is
// safe from many threads at once (a program with state serializes its own calls).
struct PyProgram {
    pt2ov::Program program;

    explicit PyProgram(pt2ov::Program p) : program(std::move(p)) {}

    nb::tuple run(nb::handle array_list, bool torch_out) {
        const std::vector<InArray> arrays = as_inputs(array_list);
        std::vector<pt2ov::Tensor> inputs;
        inputs.reserve(arrays.size());
        for (size_t i = 0; i < arrays.size(); ++i) {
            const auto& a = arrays[i];
            std::vector<int64_t> shape(a.ndim());
            for (size_t d = 0; d < a.ndim(); ++d) shape[d] = static_cast<int64_t>(a.shape(d));
            inputs.push_back(pt2ov::Tensor::view(dtype_of(a.dtype(), i), std::move(shape), const_cast<void*>(a.data())));
        }
        std::vector<pt2ov::Tensor> outputs;
        {
            nb::gil_scoped_release release;
            outputs = program.run(inputs);
        }
        const TorchDLPack* torch = torch_out ? torch_dlpack() : nullptr;
        if (torch_out && !torch) throw pt2ov::InternalError("torch outputs asked for, and torch is not imported");
        nb::tuple result = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(outputs.size())));
        for (size_t k = 0; k < outputs.size(); ++k) {
            auto& t = outputs[k];
            nb::object out;
            if (torch) {
                out = to_torch(*torch, std::move(t));
            } else {
                if (t.dtype() == pt2ov::DType::BFloat16) t = bfloat16_as_float32(t);
                out = to_numpy(std::move(t));
            }
            PyTuple_SET_ITEM(result.ptr(), static_cast<Py_ssize_t>(k), out.release().ptr());
        }
        return result;
    }
};

}  // namespace

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
            PyErr_SetString(g_archive_error, pt2ov::tools::one_line(e.what()).c_str());
        } catch (const pt2ov::UnsupportedError& e) {
            PyErr_SetString(g_unsupported_error, pt2ov::tools::one_line(e.what()).c_str());
        } catch (const pt2ov::InputError& e) {
            PyErr_SetString(g_input_error, pt2ov::tools::one_line(e.what()).c_str());
        } catch (const pt2ov::InternalError& e) {
            PyErr_SetString(g_internal_error, pt2ov::tools::one_line(e.what()).c_str());
        } catch (const pt2ov::Error& e) {
            PyErr_SetString(g_error, pt2ov::tools::one_line(e.what()).c_str());
        }
    });

    nb::class_<PyProgram>(m, "_Program")
        .def("run", &PyProgram::run, nb::arg("inputs"), nb::arg("torch_out"))
        .def_prop_ro("inputs", [](PyProgram& p) { return io_list(p.program.inputs()); })
        .def_prop_ro("outputs", [](PyProgram& p) { return io_list(p.program.outputs()); })
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
        .def_prop_ro("last_openvino_ns", [](PyProgram& p) { return p.program.last_openvino_ns(); });

    m.def(
        "load",
        [](const std::string& path, const std::string& method, const std::string& device, const std::string& precision,
           const std::string& cache_dir, const std::vector<std::string>& cpu_ops,
           const std::vector<std::string>& cpu_nodes, bool strict, int num_threads, bool openvino_state) {
            auto options = make_options(method, device, precision, cache_dir, cpu_ops, cpu_nodes, strict, num_threads,
                                        openvino_state);
            std::unique_ptr<PyProgram> result;
            {
                nb::gil_scoped_release release;
                result = std::make_unique<PyProgram>(pt2ov::Program::load(path, options));
            }
            return result.release();
        },
        nb::arg("path"), nb::arg("method"), nb::arg("device"), nb::arg("precision"), nb::arg("cache_dir"),
        nb::arg("cpu_ops"), nb::arg("cpu_nodes"), nb::arg("strict"), nb::arg("num_threads"),
        nb::arg("openvino_state") = true, nb::rv_policy::take_ownership);

    // The same JSON as `pt2ov inspect --json`: every method when method == "forward", as the
    // command does.
    m.def(
        "inspect_json",
        [](const std::string& path, const std::string& method, const std::string& device, const std::string& precision,
           const std::string& cache_dir, const std::vector<std::string>& cpu_ops,
           const std::vector<std::string>& cpu_nodes, bool strict, int num_threads, bool openvino_state) {
            auto options = make_options(method, device, precision, cache_dir, cpu_ops, cpu_nodes, strict, num_threads,
                                        openvino_state);
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
        nb::arg("cpu_ops"), nb::arg("cpu_nodes"), nb::arg("strict"), nb::arg("num_threads"),
        nb::arg("openvino_state") = true);

    // For the tests: the addresses a call would read its inputs from (the same conversion as
    // _Program.run's), to show that contiguous inputs are viewed, not copied.
    m.def("_view_addresses", [](nb::handle array_list) {
        std::vector<uintptr_t> addresses;
        for (const auto& a : as_inputs(array_list)) addresses.push_back(reinterpret_cast<uintptr_t>(a.data()));
        return addresses;
    });
    m.def("methods", [](const std::string& path) { return pt2ov::Program::methods(path); }, nb::arg("path"));
    m.def("openvino_version", &pt2ov::openvino_version);
}
