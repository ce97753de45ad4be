// pt2ov._pt2ov: the binding under the Python package pt2ov (python/pt2ov/__init__.py is the
// public face; this module is its engine room). Over the public API only (include/pt2ov/) and
// the tools' report formatting (src/tools/report.h).
//
// Four files, one concern each: this one the binding (the module, its exceptions, Program,
// each input routed by its type); generate.cpp text generation (Tokenizer, Generator); numpy_abi.cpp numpy's C ABI without its headers; dlpack.cpp
// torch's DLPack entry points without its headers (input.cpp what they share). A numpy array
// is read from its own fields, a torch tensor through DLPack's C exchange API where torch has
// it (else the DLPack capsule torch's C side makes of it), anything else with __dlpack__ or
// the buffer protocol through nb::ndarray. Contiguous inputs are viewed in place (no copy); strided ones
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
#include <type_traits>
#include <variant>
#include <vector>

#include "common/text.h"
#include "dlpack.h"
#include "generate.h"
#include "input.h"
#include "numpy_abi.h"
#include "pt2ov/load_options.h"
#include "pt2ov/pt2ov.h"
#include "tools/report.h"

namespace nb = nanobind;

namespace {

using namespace pt2ov::python;

PyObject* g_error = nullptr;
PyObject* g_archive_error = nullptr;
PyObject* g_unsupported_error = nullptr;
PyObject* g_input_error = nullptr;
PyObject* g_option_error = nullptr;
PyObject* g_resource_error = nullptr;
PyObject* g_openvino_error = nullptr;
PyObject* g_internal_error = nullptr;

// The package's own preparation of an input (pt2ov._as_array: resolve a conjugate or negative
// torch view, swap big-endian numpy data to native order, make an array of anything else numpy
// takes, refuse a tensor off the CPU), for the few inputs the direct paths below do not take.
nb::object prepare_in_python(nb::handle item, size_t index) {
    static nb::handle as_array = nb::object(nb::module_::import_("pt2ov").attr("_as_array")).release();
    PyObject* torch = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");  // borrowed
    return as_array(item, torch ? nb::handle(torch) : nb::none(), index);
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
                                  nb::tuple(ranges), info.written));
    }
    return out;
}

// The load options from the Python module's dict, each by its name in the load option table
// (pt2ov/__init__.py's _options gives every one, of its type).
pt2ov::LoadOptions make_options(const nb::dict& given) {
    pt2ov::LoadOptions options;
    for (const auto& [key, value] : given) {
        const std::string name = nb::cast<std::string>(key);
        const auto* row = pt2ov::find_load_option(name);
        if (!row) throw nb::type_error(("unknown load option '" + name + "'").c_str());
        std::visit(
            [&](auto field) {
                auto& target = options.*field;
                using Value = std::decay_t<decltype(target)>;
                if (!nb::try_cast<Value>(value, target)) {
                    throw nb::type_error(("load option '" + name + "': " + std::string(nb::str(value).c_str()) +
                                          " is not of its type").c_str());
                }
            },
            row->field);
    }
    return options;
}

// A loaded Program. Its calls run without the GIL and without a lock of ours: Program::run is
// safe from many threads at once (a program with state serializes its own calls).
struct PyProgram {
    pt2ov::Program program;

    explicit PyProgram(pt2ov::Program p) : program(std::move(p)) {}

    // An input the program writes in place gets its new value in the caller's own memory, as in
    // PyTorch: so it must be read in place (C-contiguous, aligned: not copied here) and writable.
    // Otherwise the write could not reach the caller, and the call is refused before it runs.
    void check_written_inputs(const nb::args& args, const std::vector<Input>& arrays) const {
        const auto& infos = program.inputs();
        for (size_t i = 0; i < arrays.size() && i < infos.size(); ++i) {
            if (!infos[i].written) continue;
            const bool copied = static_cast<bool>(arrays[i].tensor.owner());
            bool read_only = false;
            nb::handle item = args[i];
            if (nb::hasattr(item, "flags") && nb::hasattr(item.attr("flags"), "writeable")) {
                read_only = !nb::cast<bool>(item.attr("flags").attr("writeable"));
            }
            if (copied || read_only) {
                throw pt2ov::InputError("input '" + infos[i].name + "' is written by the program in place, as PyTorch " +
                                        "writes the caller's tensor, but this one " +
                                        (read_only ? std::string("is read-only") : std::string("is not C-contiguous and aligned (it would be copied)")) +
                                        ": pass a writable, C-contiguous array (np.ascontiguousarray(x) or x.contiguous())");
            }
        }
    }

    // program(*inputs): outputs of the kind of the first input (torch tensors for a torch
    // tensor, numpy arrays otherwise).
    nb::tuple call(nb::args args) {
        std::vector<Input> arrays = as_inputs(&PyTuple_GET_ITEM(args.ptr(), 0), args.size());
        const TorchDLPack* torch = torch_dlpack();
        const bool torch_out = torch && args.size() > 0 && PyObject_TypeCheck(args[0].ptr(), torch->tensor_type);
        const NumpyApi* numpy = torch_out ? nullptr : numpy_api();
        if (!torch_out && !numpy) throw pt2ov::InternalError("numpy outputs asked for, and numpy cannot be imported");
        check_written_inputs(args, arrays);
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
    PyObject* message = PyUnicode_FromString(pt2ov::one_line(e.what()).c_str());
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
        "pt2ov.ArchiveError",
        "The .pt2 file (or a model file beside it: a tokenizer) is missing, damaged, truncated or of a version pt2ov "
        "does not read.",
        g_error, nullptr);
    g_unsupported_error = PyErr_NewExceptionWithDoc(
        "pt2ov.UnsupportedError", "The program asks for something the engine (or the installed OpenVINO) cannot do.",
        g_error, nullptr);
    g_input_error = PyErr_NewExceptionWithDoc(
        "pt2ov.InputError", "A call's inputs do not fit the program: count, dtype, rank, shape or range.", g_error,
        nullptr);
    g_option_error = PyErr_NewExceptionWithDoc(
        "pt2ov.OptionError",
        "An option, setting or environment variable given to pt2ov is not one it takes; the message names it.",
        g_error, nullptr);
    g_resource_error = PyErr_NewExceptionWithDoc(
        "pt2ov.ResourceError",
        "The machine could not give what the call needed (memory, a file or folder to write, a process to start).",
        g_error, nullptr);
    g_openvino_error = PyErr_NewExceptionWithDoc(
        "pt2ov.OpenVINOError",
        "OpenVINO failed at a step pt2ov could not route to its own CPU kernels; the message carries OpenVINO's words.",
        g_error, nullptr);
    g_internal_error = PyErr_NewExceptionWithDoc(
        "pt2ov.InternalError", "pt2ov broke one of its own invariants: a bug in pt2ov; please report it with the model.",
        g_error, nullptr);
    m.attr("Error") = nb::handle(g_error);
    m.attr("InternalError") = nb::handle(g_internal_error);
    m.attr("ArchiveError") = nb::handle(g_archive_error);
    m.attr("UnsupportedError") = nb::handle(g_unsupported_error);
    m.attr("InputError") = nb::handle(g_input_error);
    m.attr("OptionError") = nb::handle(g_option_error);
    m.attr("ResourceError") = nb::handle(g_resource_error);
    m.attr("OpenVINOError") = nb::handle(g_openvino_error);

    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const pt2ov::ArchiveError& e) {
            raise_as(g_archive_error, e);
        } catch (const pt2ov::UnsupportedError& e) {
            raise_as(g_unsupported_error, e);
        } catch (const pt2ov::InputError& e) {
            raise_as(g_input_error, e);
        } catch (const pt2ov::OptionError& e) {
            raise_as(g_option_error, e);
        } catch (const pt2ov::ResourceError& e) {
            raise_as(g_resource_error, e);
        } catch (const pt2ov::OpenVINOError& e) {
            raise_as(g_openvino_error, e);
        } catch (const pt2ov::InternalError& e) {
            raise_as(g_internal_error, e);
        } catch (const pt2ov::Error& e) {
            raise_as(g_error, e);  // none is thrown as the base (pt2ov/error.h); kept so none escapes
        }
    });

    // Subclassed by pt2ov.Program, which inherits __call__ as it is.
    nb::class_<PyProgram>(m, "_Program")
        .def(
            "__init__",
            [](PyProgram* self, const std::string& path, const nb::dict& given) {
                auto options = make_options(given);
                nb::gil_scoped_release release;
                new (self) PyProgram(pt2ov::Program::load(path, options));
            },
            nb::arg("path"), nb::arg("options"))
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
        [](const std::string& path, const nb::dict& given) {
            auto options = make_options(given);
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
        nb::arg("path"), nb::arg("options"));

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
    // The load option table's rows (name, command-line flag, whether it changes the plan): the
    // test that every front end has every option reads it.
    m.def("_load_option_table", [] {
        nb::list rows;
        for (const auto& row : pt2ov::load_option_table()) {
            rows.append(nb::make_tuple(std::string(row.name), std::string(row.flag), row.changes_plan));
        }
        return rows;
    });
    m.def("methods", [](const std::string& path) { return pt2ov::Program::methods(path); }, nb::arg("path"));
    m.def("openvino_version", &pt2ov::openvino_version);

    bind_generate(m, [](nb::handle program) -> pt2ov::Program& { return nb::cast<PyProgram&>(program).program; });
}
