// Selections by a bool condition: where (tensor or number branches) and masked_fill. Both
// branches are cast to the result dtype torch.export recorded, so choosing is a bit copy.
#include "kernels/dense_paths.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

StridedTensor bool_condition(const KernelCall& call, const StridedTensor& condition, const char* what) {
    if (condition.dtype != DType::Bool && condition.dtype != DType::UInt8) {
        call.fail(std::string(what) + " must be a bool tensor, got " + std::string(dtype_name(condition.dtype)));
    }
    return condition.dtype == DType::Bool ? condition : contiguous_as(condition, DType::Bool);
}

// out = condition ? when_true : when_false, all broadcast together.
StridedTensor select_by(const KernelCall& call, const StridedTensor& condition, const Operand& when_true,
                        const Operand& when_false) {
    auto sizes = broadcast_shapes(call, condition.sizes, when_true.sizes());
    sizes = broadcast_shapes(call, sizes, when_false.sizes());
    const DType dtype = call.output_meta(0).dtype;
    StridedTensor out = allocate_output_for_overwrite(call, 0, sizes, dtype);  // map_elements writes all
    const StridedTensor c = broadcast_to(call, condition, sizes);
    const StridedTensor t = broadcast_to(call, when_true.as_dtype(dtype), sizes);
    const StridedTensor f = broadcast_to(call, when_false.as_dtype(dtype), sizes);
    // Elements move as bits of their width; a scalar branch is read once, so the loop over the
    // other operands stays dense (masked_fill's value, where(c, x, 0.0)).
    visit_bits(out.element_size(), [&]<typename Bits>() {
        if (when_true.is_scalar() && when_false.is_scalar()) {
            const Bits yes = load<Bits>(t.data), no = load<Bits>(f.data);
            map_elements<Bits, bool>(out, {&c}, [yes, no](bool keep) { return select_bits(keep, yes, no); });
        } else if (when_true.is_scalar()) {
            const Bits yes = load<Bits>(t.data);
            map_elements<Bits, bool, Bits>(out, {&c, &f}, [yes](bool keep, Bits no) { return select_bits(keep, yes, no); });
        } else if (when_false.is_scalar()) {
            const Bits no = load<Bits>(f.data);
            map_elements<Bits, bool, Bits>(out, {&c, &t}, [no](bool keep, Bits yes) { return select_bits(keep, yes, no); });
        } else {
            map_elements<Bits, bool, Bits, Bits>(out, {&c, &t, &f},
                                                 [](bool keep, Bits yes, Bits no) { return select_bits(keep, yes, no); });
        }
    });
    return out;
}

// where.self / ScalarSelf / ScalarOther / Scalar (Tensor condition, self, other)
std::vector<RuntimeValue> where(const KernelCall& call) {
    const StridedTensor condition = bool_condition(call, call.tensor("condition", 0), "where() condition");
    return single(select_by(call, condition, read_operand(call, "self", 1), read_operand(call, "other", 2)));
}

// masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) and masked_fill.Tensor (a 0-dim value)
std::vector<RuntimeValue> masked_fill(const KernelCall& call) {
    const Operand self{call.tensor("self", 0), int64_t{0}};
    const StridedTensor mask = bool_condition(call, call.tensor("mask", 1), "masked_fill() mask");
    const Operand value = read_operand(call, "value", 2);
    if (!value.is_scalar()) {
        call.fail("masked_fill() takes a 0-dim value tensor, got shape " + shape_text(value.sizes()));
    }
    return single(select_by(call, mask, value, self));
}

// Every kernel here is elementwise: its outputs have the broadcast sizes of its tensor arguments.
PT2OV_FILE_SHAPE_CONTRACT(elementwise_shape);

PT2OV_KERNEL("aten.where.self", where);
PT2OV_KERNEL("aten.where.ScalarSelf", where);
PT2OV_KERNEL("aten.where.ScalarOther", where);
PT2OV_KERNEL("aten.where.Scalar", where);
PT2OV_KERNEL("aten.masked_fill.Scalar", masked_fill);
PT2OV_KERNEL("aten.masked_fill.Tensor", masked_fill);

}  // namespace
}  // namespace pt2ov::kernels
