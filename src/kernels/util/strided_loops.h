// Loops over every index of strided operands.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/tensor.h"
#include "kernels/util/element_types.h"

namespace pt2ov::kernels {

// ---- Strided loops -------------------------------------------------------------------------

// Walks every index of `sizes` in row-major order and calls body(pointers), where
// pointers[k] addresses operand k's element at that index. Each operand has `sizes` as its
// sizes (broadcast first) and any strides.
template <size_t N, typename Body>
void for_each_element(const std::vector<int64_t>& sizes, const std::array<const StridedTensor*, N>& operands,
                      Body&& body) {
    for (int64_t s : sizes) {
        if (s == 0) return;
    }
    std::array<std::byte*, N> base;
    for (size_t k = 0; k < N; ++k) base[k] = operands[k]->data;
    if (sizes.empty()) {
        body(base);
        return;
    }
    // Dims every operand walks as one (stride[d] == stride[d+1] * size[d+1]) are merged, so a
    // dense tensor is one flat loop whatever its rank; size-1 dims are dropped.
    std::vector<int64_t> merged_sizes;
    std::array<std::vector<int64_t>, N> byte_strides;
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] == 1) continue;
        bool mergeable = !merged_sizes.empty();
        for (size_t k = 0; k < N && mergeable; ++k) {
            const auto stride = operands[k]->strides[d] * static_cast<int64_t>(operands[k]->element_size());
            mergeable = byte_strides[k].back() == stride * sizes[d];
        }
        if (mergeable) {
            merged_sizes.back() *= sizes[d];
            for (size_t k = 0; k < N; ++k) {
                byte_strides[k].back() = operands[k]->strides[d] * static_cast<int64_t>(operands[k]->element_size());
            }
            continue;
        }
        merged_sizes.push_back(sizes[d]);
        for (size_t k = 0; k < N; ++k) {
            byte_strides[k].push_back(operands[k]->strides[d] * static_cast<int64_t>(operands[k]->element_size()));
        }
    }
    if (merged_sizes.empty()) {
        body(base);
        return;
    }
    const size_t rank = merged_sizes.size();
    std::array<int64_t, N> inner_stride;
    for (size_t k = 0; k < N; ++k) inner_stride[k] = byte_strides[k][rank - 1];
    std::vector<int64_t> index(rank, 0);
    const int64_t inner = merged_sizes[rank - 1];
    for (;;) {
        std::array<std::byte*, N> p = base;
        for (int64_t i = 0; i < inner; ++i) {
            body(p);
            for (size_t k = 0; k < N; ++k) p[k] += inner_stride[k];
        }
        // Carry into the outer dims, odometer style.
        size_t d = rank - 1;
        for (;;) {
            if (d == 0) return;
            --d;
            ++index[d];
            for (size_t k = 0; k < N; ++k) base[k] += byte_strides[k][d];
            if (index[d] < merged_sizes[d]) break;
            for (size_t k = 0; k < N; ++k) base[k] -= byte_strides[k][d] * merged_sizes[d];
            index[d] = 0;
        }
    }
}

}  // namespace pt2ov::kernels
