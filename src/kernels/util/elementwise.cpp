// The plan of an elementwise map: dims merged, in the output's memory order.
#include "kernels/util/elementwise.h"
#include "kernels/dispatch.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <numeric>

#include "graph/graph.h"

namespace pt2ov::kernels {

ElementwisePlan plan_elementwise(const std::vector<const StridedTensor*>& operands) {
    const StridedTensor& out = *operands.front();
    ElementwisePlan plan;
    plan.total = out.numel();
    plan.byte_strides.resize(operands.size());
    if (plan.total == 0) return plan;
    // The output's dims from outermost to innermost in memory (size-1 dims dropped); a stable
    // sort keeps row-major order among equal strides.
    std::vector<size_t> order;
    for (size_t d = 0; d < out.rank(); ++d) {
        if (out.sizes[d] != 1) order.push_back(d);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::abs(out.strides[a]) > std::abs(out.strides[b]);
    });
    for (size_t d : order) {
        bool mergeable = !plan.sizes.empty();
        for (size_t k = 0; k < operands.size() && mergeable; ++k) {
            const int64_t stride = operands[k]->strides[d] * static_cast<int64_t>(operands[k]->element_size());
            mergeable = plan.byte_strides[k].back() == stride * out.sizes[d];
        }
        for (size_t k = 0; k < operands.size(); ++k) {
            const int64_t stride = operands[k]->strides[d] * static_cast<int64_t>(operands[k]->element_size());
            if (mergeable) {
                plan.byte_strides[k].back() = stride;
            } else {
                plan.byte_strides[k].push_back(stride);
            }
        }
        if (mergeable) {
            plan.sizes.back() *= out.sizes[d];
        } else {
            plan.sizes.push_back(out.sizes[d]);
        }
    }
    return plan;
}

}  // namespace pt2ov::kernels
