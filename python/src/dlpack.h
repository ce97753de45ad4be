// DLPack without torch's headers: torch's C entry points (the DLPack C exchange API where
// torch has it, else torch._C's DLPack functions), a torch tensor made over a pt2ov::Tensor's
// own memory, and a DLPack tensor (torch's, or any object's through nanobind) read as an input.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "input.h"
#include "pt2ov/pt2ov.h"

namespace pt2ov::python {

struct DLPackExchangeApi;

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

// Null until the caller has imported torch (pt2ov never imports it for a call).
TorchDLPack* torch_dlpack();

// A torch tensor over `tensor`'s memory, which torch frees through DLPack's deleter.
nb::object to_torch(const TorchDLPack& torch, pt2ov::Tensor tensor);

// A torch tensor (see dlpack.cpp for the paths); false for a negative view and off the CPU.
bool torch_input(const TorchDLPack& torch, nb::handle item, size_t index, Input& out);

// Another object with __dlpack__ or the buffer protocol, as nanobind took it into in.array
// (strides in elements); false off the CPU.
bool other_input(size_t index, Input& in);

}  // namespace pt2ov::python
