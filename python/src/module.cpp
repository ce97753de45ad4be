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

#include <cstdint>
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

template <typename Framework>
nb::object to_python(pt2ov::Tensor tensor) {
    static char empty_storage[64];
    auto* owned = new pt2ov::Tensor(std::move(tensor));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<pt2ov::Tensor*>(p); });
    std::vector<size_t> shape(owned->shape().begin(), owned->shape().end());
    void* data = owned->data() ? owned->data() : empty_storage;
    return nb::cast(nb::ndarray<Framework>(data, shape.size(), shape.data(), owner, nullptr,
                                           dlpack_of(owned->dtype()), nb::device::cpu::value),
                    nb::rv_policy::reference);
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
                                const std::vector<std::string>& cpu_nodes, bool strict, int num_threads) {
    pt2ov::LoadOptions options;
    options.method = method;
    options.device = device;
    options.precision = precision;
    options.cache_dir = cache_dir;
    options.cpu_ops = cpu_ops;
    options.cpu_nodes = cpu_nodes;
    options.strict = strict;
    options.num_threads = num_threads;
    return options;
}

// A loaded Program. Its calls run without the GIL and without a lock of ours: Program::run is
// safe from many threads at once (a program with state serializes its own calls).
struct PyProgram {
    pt2ov::Program program;

    explicit PyProgram(pt2ov::Program p) : program(std::move(p)) {}

    nb::tuple run(const std::vector<InArray>& arrays, bool torch_out) {
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
        nb::list result;
        for (auto& t : outputs) {
            if (torch_out) {
                result.append(to_python<nb::pytorch>(std::move(t)));
            } else {
                if (t.dtype() == pt2ov::DType::BFloat16) t = bfloat16_as_float32(t);
                result.append(to_python<nb::numpy>(std::move(t)));
            }
        }
        return nb::tuple(result);
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
           const std::vector<std::string>& cpu_nodes, bool strict, int num_threads) {
            auto options = make_options(method, device, precision, cache_dir, cpu_ops, cpu_nodes, strict, num_threads);
            std::unique_ptr<PyProgram> result;
            {
                nb::gil_scoped_release release;
                result = std::make_unique<PyProgram>(pt2ov::Program::load(path, options));
            }
            return result.release();
        },
        nb::arg("path"), nb::arg("method"), nb::arg("device"), nb::arg("precision"), nb::arg("cache_dir"),
        nb::arg("cpu_ops"), nb::arg("cpu_nodes"), nb::arg("strict"), nb::arg("num_threads"),
        nb::rv_policy::take_ownership);

    // The same JSON as `pt2ov inspect --json`: every method when method == "forward", as the
    // command does.
    m.def(
        "inspect_json",
        [](const std::string& path, const std::string& method, const std::string& device, const std::string& precision,
           const std::string& cache_dir, const std::vector<std::string>& cpu_ops,
           const std::vector<std::string>& cpu_nodes, bool strict, int num_threads) {
            auto options = make_options(method, device, precision, cache_dir, cpu_ops, cpu_nodes, strict, num_threads);
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
        nb::arg("cpu_ops"), nb::arg("cpu_nodes"), nb::arg("strict"), nb::arg("num_threads"));

    // For the tests: the addresses a call would read its inputs from (the same conversion as
    // _Program.run's), to show that contiguous inputs are viewed, not copied.
    m.def("_view_addresses", [](const std::vector<InArray>& arrays) {
        std::vector<uintptr_t> addresses;
        for (const auto& a : arrays) addresses.push_back(reinterpret_cast<uintptr_t>(a.data()));
        return addresses;
    });
    m.def("methods", [](const std::string& path) { return pt2ov::Program::methods(path); }, nb::arg("path"));
    m.def("openvino_version", &pt2ov::openvino_version);
}
