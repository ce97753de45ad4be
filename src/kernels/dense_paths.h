// Internal to the CPU kernels: what their fast paths share: loops over independent rows split
// over threads.
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {

// for_each_element over `sizes` split over threads when the work (the indices times
// `work_per_index`, in elements) reaches kParallelMinElements: body(scratch, pointers) once per
// index, in no particular order, where scratch is a range's own make_scratch() (a row buffer).
// For kernels whose indices are independent (a sort or a softmax per row): a body that writes
// only its own index's outputs gives the same result however the indices are split.
template <size_t N, typename MakeScratch, typename Body>
void for_each_element_parallel(const std::vector<int64_t>& sizes, const std::array<const StridedTensor*, N>& operands,
                               int64_t work_per_index, const MakeScratch& make_scratch, const Body& body) {
    std::array<std::vector<int64_t>, N> offsets;
    for (size_t k = 0; k < N; ++k) offsets[k] = byte_offsets(sizes, operands[k]->strides, operands[k]->element_size());
    const auto count = static_cast<int64_t>(offsets[0].size());
    auto range = [&](int64_t begin, int64_t end) {
        auto scratch = make_scratch();
        for (int64_t i = begin; i < end; ++i) {
            std::array<std::byte*, N> p;
            for (size_t k = 0; k < N; ++k) p[k] = operands[k]->data + offsets[k][static_cast<size_t>(i)];
            body(scratch, p);
        }
    };
    const int64_t work = std::max<int64_t>(work_per_index, 1);
    if (count < 2 || count * work < kParallelMinElements) {
        range(0, count);
    } else {
        parallel_ranges(count, std::max<int64_t>(1, kParallelMinElements / 2 / work), range);
    }
}

}  // namespace pt2ov::kernels
