// Copies that keep the dtype: clone and its relatives. Each returns new memory (never the
// input's), laid out as PyTorch lays that op's result out; the bits are copied exactly.
#include "kernels/dispatch.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

StridedTensor copy_with_format(const KernelCall& call, const StridedTensor& self, int64_t memory_format) {
    StridedTensor out = allocate_like(call, self, self.dtype, memory_format);
    copy_into(self, out);
    return out;
}

// clone(Tensor self, *, MemoryFormat? memory_format=None): None keeps the input's layout.
std::vector<RuntimeValue> clone(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    return single(copy_with_format(call, self, call.memory_format("memory_format", kKeywordOnly, kPreserveFormat)));
}

// alias_copy, detach_copy, lift_fresh_copy: functional copies whose result is row-major.
std::vector<RuntimeValue> contiguous_copy(const KernelCall& call) {
    return single(copy_with_format(call, call.tensor("self", 0), kContiguousFormat));
}

// contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format). PyTorch returns
// self when it already has that layout; a copy has the same values and cannot alias a
// buffer a later step writes.
std::vector<RuntimeValue> contiguous(const KernelCall& call) {
    const int64_t format = call.memory_format("memory_format", kKeywordOnly, kContiguousFormat);
    if (format == kPreserveFormat) call.fail("contiguous() does not take memory_format=torch.preserve_format");
    return single(copy_with_format(call, call.tensor("self", 0), format));
}

// copy(Tensor self, Tensor src, bool non_blocking=False): src broadcast into a tensor laid out
// like self, in self's dtype.
std::vector<RuntimeValue> copy(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& src = call.tensor("src", 1);
    StridedTensor out = allocate_like(call, self, self.dtype, kPreserveFormat);
    copy_into(broadcast_to(call, src, self.sizes), out);
    return single(out);
}

// ExecuTorch's dim_order_ops._clone_dim_order(Tensor self, *, bool non_blocking=False,
// int[]? dim_order=None): None keeps the input's layout, as preserve_format does.
std::vector<RuntimeValue> clone_dim_order(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (!call.has("dim_order", kKeywordOnly)) return single(copy_with_format(call, self, kPreserveFormat));
    const auto order = checked_dim_order(call, call.ints("dim_order", kKeywordOnly), self.rank());
    StridedTensor out = StridedTensor::allocate_in_order(self.dtype, self.sizes, order);
    copy_into(self, out);
    return single(out);
}

// Every kernel here keeps the sizes of `self`.
PT2OV_FILE_SHAPE_CONTRACT(same_as_self);

PT2OV_KERNEL("aten.clone.default", clone);
PT2OV_KERNEL("aten.alias_copy.default", contiguous_copy);
PT2OV_KERNEL("aten.detach_copy.default", contiguous_copy);
PT2OV_KERNEL("aten.lift_fresh_copy.default", contiguous_copy);
PT2OV_KERNEL("aten.contiguous.default", contiguous);
PT2OV_KERNEL("aten.copy.default", copy);
PT2OV_KERNEL("dim_order_ops._clone_dim_order.default", clone_dim_order);

}  // namespace

}  // namespace pt2ov::kernels
