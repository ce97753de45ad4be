// Positions of extremes: argmax / argmin (over one dim or everything) and max.dim / min.dim
// (values and indices). The first extreme wins ties, and the first NaN beats everything, as
// in PyTorch.
#include <cmath>

#include "kernels/dispatch.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

// The index (in reduced order) and offset of the extreme among `offsets` from `base`.
template <typename T>
std::pair<int64_t, int64_t> extreme_of(const std::byte* base, const std::vector<int64_t>& offsets, bool maximum) {
    int64_t best_index = 0;
    auto best = load<T>(base + offsets[0]);
    for (size_t i = 1; i < offsets.size(); ++i) {
        if constexpr (is_floating_v<T>) {
            if (std::isnan(best)) break;
        }
        const auto v = load<T>(base + offsets[i]);
        bool better = maximum ? best < v : v < best;
        if constexpr (is_floating_v<T>) better = better || std::isnan(v);
        if (better) {
            best = v;
            best_index = static_cast<int64_t>(i);
        }
    }
    return {best_index, offsets[best_index]};
}

// Fills `indices` (int64, over the kept dims) and, when given, `values` (self's dtype).
void find_extremes(const KernelCall& call, const StridedTensor& self, const Reduction& r, bool maximum,
                   const StridedTensor& indices, const StridedTensor* values) {
    if (r.reduced_count() == 0) {
        call.fail(std::string(maximum ? "argmax" : "argmin") + "(): cannot reduce over a dim of size zero (input shape " +
                  shape_text(self.sizes) + ")");
    }
    const size_t element = self.element_size();
    visit_dtype(self.dtype, [&]<typename T>() {
        const StridedTensor no_values = indices;  // walked alongside but never written
        const StridedTensor& value_target = values ? *values : no_values;
        for_each_element<3>(r.kept_sizes, {&indices, &r.kept_input, &value_target},
                            [&](const std::array<std::byte*, 3>& p) {
                                const auto [index, offset] = extreme_of<T>(p[1], r.reduced_bytes, maximum);
                                std::memcpy(p[0], &index, sizeof(int64_t));
                                if (values) std::memcpy(p[2], p[1] + offset, element);
                            });
    });
}

// argmax / argmin(Tensor self, int? dim=None, bool keepdim=False)
std::vector<RuntimeValue> arg_extreme(const KernelCall& call, bool maximum) {
    const StridedTensor& self = call.tensor("self", 0);
    std::vector<int64_t> dims;
    if (call.has("dim", 1)) dims = {normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()))};
    const Reduction r = plan_reduction(self, dims, call.bool_arg("keepdim", 2, false));
    StridedTensor out = allocate_output(call, 0, r.out_sizes, DType::Int64);
    find_extremes(call, self, r, maximum, r.kept_output(out), nullptr);
    return single(out);
}

// max.dim / min.dim(Tensor self, int dim, bool keepdim=False) -> (values, indices)
std::vector<RuntimeValue> extreme_with_index(const KernelCall& call, bool maximum) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()));
    const Reduction r = plan_reduction(self, {dim}, call.bool_arg("keepdim", 2, false));
    StridedTensor values = allocate_output(call, 0, r.out_sizes, self.dtype);
    StridedTensor indices = allocate_output(call, 1, r.out_sizes, DType::Int64);
    const StridedTensor kept_values = r.kept_output(values);
    find_extremes(call, self, r, maximum, r.kept_output(indices), &kept_values);
    return {RuntimeValue::of(values), RuntimeValue::of(indices)};
}

// Every kernel here reduces `self` over `dim` (every dim when it has none), keeping size 1 with `keepdim`.
PT2OV_FILE_SHAPE_CONTRACT(reduced_self);

PT2OV_KERNEL("aten.argmax.default", [](const KernelCall& c) { return arg_extreme(c, true); });
PT2OV_KERNEL("aten.argmin.default", [](const KernelCall& c) { return arg_extreme(c, false); });
PT2OV_KERNEL("aten.max.dim", [](const KernelCall& c) { return extreme_with_index(c, true); });
PT2OV_KERNEL("aten.min.dim", [](const KernelCall& c) { return extreme_with_index(c, false); });

}  // namespace
}  // namespace pt2ov::kernels
