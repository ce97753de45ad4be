// cat: tensors joined along one dim, converted to the promoted dtype torch.export recorded.
#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// PyTorch still skips 1-D empty tensors (shape [0]) whatever the others' shape, for old code
// that built a result up from torch.tensor([]).
bool legacy_empty(const StridedTensor& t) { return t.rank() == 1 && t.sizes[0] == 0; }

// cat(Tensor[] tensors, int dim=0)
std::vector<RuntimeValue> cat(const KernelCall& call) {
    const auto inputs = call.tensors("tensors", 0);
    if (inputs.empty()) call.fail("cat() expects a non-empty list of tensors");
    const StridedTensor* reference = nullptr;
    for (const auto& t : inputs) {
        if (!legacy_empty(t)) {
            reference = &t;
            break;
        }
    }
    if (!reference) return single(allocate_output(call, 0, {0}));
    if (reference->rank() == 0) call.fail("cat() cannot join 0-dim tensors");
    const auto rank = static_cast<int64_t>(reference->rank());
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1, 0), rank);
    std::vector<int64_t> sizes = reference->sizes;
    sizes[dim] = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& t = inputs[i];
        if (legacy_empty(t)) continue;
        bool fits = static_cast<int64_t>(t.rank()) == rank;
        for (int64_t d = 0; fits && d < rank; ++d) fits = d == dim || t.sizes[d] == reference->sizes[d];
        if (!fits) {
            call.fail("cat() tensor " + std::to_string(i) + " has shape " + shape_text(t.sizes) +
                      ", which does not match " + shape_text(reference->sizes) + " outside dim " + std::to_string(dim));
        }
        sizes[dim] += t.sizes[dim];
    }
    StridedTensor out = allocate_output(call, 0, sizes);
    int64_t cursor = 0;
    for (const auto& t : inputs) {
        if (legacy_empty(t)) continue;
        std::vector<int64_t> part_sizes = out.sizes;
        part_sizes[dim] = t.sizes[dim];
        copy_into(t, out.view(part_sizes, out.strides, cursor * out.strides[dim]));
        cursor += t.sizes[dim];
    }
    return single(out);
}

PT2OV_KERNEL("aten.cat.default", cat, concatenated_shape);

}  // namespace
}  // namespace pt2ov::kernels
