// Internal to the CPU kernels: what their fast paths share: loops over independent rows or
// elements split over threads.
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

// body(begin, end) over [0, n), split over threads when n reaches kParallelMinElements (ranges
// of at least half that), else on the calling thread: for elementwise loops over dense memory,
// whose results do not depend on the split.
template <typename Body>
void for_dense_ranges(int64_t n, const Body& body) {
    if (n < kParallelMinElements) {
        body(int64_t{0}, n);
    } else {
        parallel_ranges(n, kParallelMinElements / 2, body);
    }
}

}  // namespace pt2ov::kernels
