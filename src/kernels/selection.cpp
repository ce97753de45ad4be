// Ops that pick elements by value or position: kthvalue and nonzero. OpenVINO 2026.4.1 converts
// kthvalue wrongly, and nonzero of a 0-d tensor (openvino_facts KthvalueConvertedWrongly,
// NonzeroOfZeroDimHasAColumn), so these run here.
#include <algorithm>
#include <numeric>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// PyTorch's order for sorting and selection: NaN after every number.
template <typename V>
bool less_nan_last(V a, V b) {
    if constexpr (std::is_floating_point_v<V>) {
        if (std::isnan(a)) return false;
        if (std::isnan(b)) return true;
    }
    return a < b;
}

// kthvalue(self, k, dim=-1, keepdim=False) -> (values, indices): the k-th smallest element
// along dim (k from 1) and its index. Of equal elements the first is taken (PyTorch's
// quickselect may pick another of them: their values agree, their indices may not).
std::vector<RuntimeValue> kthvalue(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t k = call.int_arg("k", 1);
    const auto rank = static_cast<int64_t>(self.rank());
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 2, -1), rank);
    const bool keepdim = call.bool_arg("keepdim", 3, false);
    const int64_t size = rank == 0 ? 1 : self.sizes[static_cast<size_t>(dim)];
    if (k < 1 || k > size) call.fail("k = " + std::to_string(k) + " is out of range for a dim of size " + std::to_string(size));
    if (self.dtype == DType::Bool) call.fail("kthvalue does not take bool");
    const Reduction plan = plan_reduction(self, rank == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim}, keepdim);
    StridedTensor values = allocate_output(call, 0, plan.out_sizes, self.dtype);
    StridedTensor indices = allocate_output(call, 1, plan.out_sizes, DType::Int64);
    const StridedTensor values_kept = plan.kept_output(values), indices_kept = plan.kept_output(indices);
    visit_dtype(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        std::vector<std::pair<V, int64_t>> row(static_cast<size_t>(plan.reduced_count()));
        for_each_element<3>(plan.kept_sizes, {&values_kept, &indices_kept, &plan.kept_input},
                            [&](const std::array<std::byte*, 3>& p) {
                                for (size_t i = 0; i < row.size(); ++i) {
                                    row[i] = {load<T>(p[2] + plan.reduced_bytes[i]), static_cast<int64_t>(i)};
                                }
                                std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) {
                                    return less_nan_last(a.first, b.first);
                                });
                                const auto& picked = row[static_cast<size_t>(k - 1)];
                                store<T>(p[0], picked.first);
                                store<int64_t>(p[1], picked.second);
                            });
    });
    return {RuntimeValue::of(values), RuntimeValue::of(indices)};
}

// nonzero(self) -> int64 [n, rank]: the index of every non-zero element, in row-major order. A
// 0-d tensor gives (1, 0) or (0, 0).
std::vector<RuntimeValue> nonzero(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const size_t rank = self.rank();
    const auto offsets = byte_offsets(self.sizes, self.strides, self.element_size());
    std::vector<int64_t> found;  // row-major element numbers
    visit_dtype(self.dtype, [&]<typename T>() {
        for (size_t i = 0; i < offsets.size(); ++i) {
            const auto v = load<T>(self.data + offsets[i]);
            if (v != compute_t<T>(0)) found.push_back(static_cast<int64_t>(i));
        }
    });
    const auto count = static_cast<int64_t>(found.size());
    StridedTensor out = allocate_output(call, 0, {count, static_cast<int64_t>(rank)}, DType::Int64);
    for (int64_t r = 0; r < count; ++r) {
        int64_t rest = found[static_cast<size_t>(r)];
        for (size_t d = rank; d-- > 0;) {
            const int64_t size = self.sizes[d];
            store<int64_t>(out.data + (r * out.strides[0] + static_cast<int64_t>(d) * out.strides[1]) * 8, rest % size);
            rest /= size;
        }
    }
    return single(out);
}

PT2OV_KERNEL("aten.kthvalue.default", kthvalue);
PT2OV_KERNEL("aten.nonzero.default", nonzero);

}  // namespace
}  // namespace pt2ov::kernels
