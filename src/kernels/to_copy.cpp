// Copies that may change the dtype: _to_copy, to.dtype and ExecuTorch's _to_dim_order_copy.
// Conversions follow Tensor.copy_ (copy_into); device, layout and pin_memory are ignored (the
// engine has one device: host memory).
#include "kernels/dispatch.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

StridedTensor converted(const KernelCall& call, const StridedTensor& self, DType dtype, int64_t memory_format) {
    StridedTensor out = allocate_like(call, self, dtype, memory_format);
    copy_into(self, out);
    return out;
}

// _to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
//          bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None)
std::vector<RuntimeValue> to_copy(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const DType dtype = call.dtype_arg("dtype", kKeywordOnly).value_or(self.dtype);
    return single(converted(call, self, dtype, call.memory_format("memory_format", kKeywordOnly, kPreserveFormat)));
}

// to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False,
//          MemoryFormat? memory_format=None): self itself when nothing changes, as PyTorch does.
std::vector<RuntimeValue> to_dtype(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto dtype = call.dtype_arg("dtype", 1);
    if (!dtype) call.fail("argument 'dtype' is missing");
    const bool force_copy = call.bool_arg("copy", 3, false);
    const int64_t format = call.memory_format("memory_format", 4, kPreserveFormat);
    if (*dtype == self.dtype && !force_copy && format == kPreserveFormat) return single(self);
    return single(converted(call, self, *dtype, format));
}

// dim_order_ops._to_dim_order_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None,
//     Device? device=None, bool? pin_memory=None, bool non_blocking=False, int[]? dim_order=None)
std::vector<RuntimeValue> to_dim_order_copy(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const DType dtype = call.dtype_arg("dtype", kKeywordOnly).value_or(self.dtype);
    if (!call.has("dim_order", kKeywordOnly)) return single(converted(call, self, dtype, kPreserveFormat));
    const auto order = checked_dim_order(call, call.ints("dim_order", kKeywordOnly), self.rank());
    StridedTensor out = StridedTensor::allocate_in_order(dtype, self.sizes, order);
    copy_into(self, out);
    return single(out);
}

// Every kernel here keeps the sizes of `self`.
PT2OV_FILE_SHAPE_CONTRACT(same_as_self);

PT2OV_KERNEL("aten._to_copy.default", to_copy);
PT2OV_KERNEL("aten.to.dtype", to_dtype);
PT2OV_KERNEL("dim_order_ops._to_dim_order_copy.default", to_dim_order_copy);

}  // namespace
}  // namespace pt2ov::kernels
