// Ops that pick elements by value or position: kthvalue, topk and nonzero. OpenVINO 2026.4.1
// converts kthvalue wrongly, orders topk's equal elements and NaN otherwise than PyTorch, and
// gives nonzero of a 0-d tensor a column (openvino_facts KthvalueConvertedWrongly,
// TopkOrderNotPyTorchs, NonzeroOfZeroDimHasAColumn), so these run here.
#include <algorithm>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "kernels/contracts.h"
#include "kernels/dense_paths.h"

namespace pt2ov::kernels {
namespace {

// The quickselect of PyTorch's CPU kthvalue (ATen's quick_select_template, Sedgewick's
// partitioning with a median-of-three pivot): it moves the k-th smallest of `row` (k from 0) to
// row[k]. Which of equal elements lands there, and so the index returned, is this algorithm's
// choice; running the same steps gives the same index.
template <typename V>
void quick_select(std::vector<std::pair<V, int64_t>>& row, int64_t k) {
    auto gt = [&](int64_t a, int64_t b) { return greater_nan_first(row[static_cast<size_t>(a)].first, row[static_cast<size_t>(b)].first); };
    auto swap = [&](int64_t a, int64_t b) { std::swap(row[static_cast<size_t>(a)], row[static_cast<size_t>(b)]); };
    int64_t left = 0, right = static_cast<int64_t>(row.size()) - 1;
    while (right > left) {
        if (right == left + 1) {
            if (gt(left, right)) swap(left, right);
            return;
        }
        swap((left + right) >> 1, left + 1);
        if (gt(left + 1, right)) swap(left + 1, right);
        if (gt(left, right)) swap(left, right);
        if (gt(left + 1, left)) swap(left + 1, left);
        // row[left + 1] <= pivot <= row[right] bound both scans
        const V pivot = row[static_cast<size_t>(left)].first;
        int64_t i = left + 1, j = right;
        while (true) {
            do ++i;
            while (greater_nan_first(pivot, row[static_cast<size_t>(i)].first));
            do --j;
            while (greater_nan_first(row[static_cast<size_t>(j)].first, pivot));
            if (j < i) break;
            swap(i, j);
        }
        swap(left, j);
        if (j <= k) left = i;
        if (j >= k) right = j - 1;
    }
}

// kthvalue(self, k, dim=-1, keepdim=False) -> (values, indices): the k-th smallest element
// along dim (k from 1) and its index, found by PyTorch's own quickselect, so that among equal
// elements the index is the one PyTorch returns.
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
    const size_t element = self.element_size();
    visit_dtype(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        std::vector<std::pair<V, int64_t>> row(static_cast<size_t>(plan.reduced_count()));
        for_each_element<3>(plan.kept_sizes, {&values_kept, &indices_kept, &plan.kept_input},
                            [&](const std::array<std::byte*, 3>& p) {
                                for (size_t i = 0; i < row.size(); ++i) {
                                    row[i] = {load<T>(p[2] + plan.reduced_bytes[i]), static_cast<int64_t>(i)};
                                }
                                quick_select(row, k - 1);
                                const int64_t picked = row[static_cast<size_t>(k - 1)].second;
                                // the element itself, bit for bit (NaN payloads, -0.0)
                                std::memcpy(p[0], p[2] + plan.reduced_bytes[static_cast<size_t>(picked)], element);
                                store<int64_t>(p[1], picked);
                            });
    });
    return {RuntimeValue::of(values), RuntimeValue::of(indices)};
}

// topk(self, k, dim=-1, largest=True, sorted=True) -> (values, indices). PyTorch's CPU kernel
// (ATen's topk_impl_loop) takes a row as (value, index) pairs; when k is at most 1/64 of the
// row it partially sorts the row, otherwise it places the k-th with nth_element and, when
// sorted, sorts the k - 1 before it. NaN counts as the largest value. The same standard
// algorithms with the same comparator give the same one of equal elements, so the indices
// agree with PyTorch's where the values tie.
std::vector<RuntimeValue> topk(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t k = call.int_arg("k", 1);
    const auto rank = static_cast<int64_t>(self.rank());
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 2, -1), rank);
    const bool largest = call.bool_arg("largest", 3, true);
    const bool sorted = call.bool_arg("sorted", 4, true);
    const int64_t size = rank == 0 ? 1 : self.sizes[static_cast<size_t>(dim)];
    if (k < 0 || k > size) call.fail("k = " + std::to_string(k) + " is out of range for a dim of size " + std::to_string(size));
    if (self.dtype == DType::Bool) call.fail("topk does not take bool (PyTorch has no CPU kernel for it)");
    std::vector<int64_t> out_sizes = self.sizes;
    if (rank > 0) out_sizes[static_cast<size_t>(dim)] = k;
    StridedTensor values = allocate_output(call, 0, out_sizes, self.dtype);
    StridedTensor indices = allocate_output(call, 1, out_sizes, DType::Int64);
    if (k == 0 || self.numel() == 0) return {RuntimeValue::of(values), RuntimeValue::of(indices)};
    const std::vector<int64_t> dims = rank == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
    const Reduction in = plan_reduction(self, dims, true);
    const Reduction at_values = plan_reduction(values, dims, true);
    const Reduction at_indices = plan_reduction(indices, dims, true);
    const size_t element = self.element_size();
    const bool partial = k * 64 <= size;
    visit_dtype(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        using Pair = std::pair<V, int64_t>;
        const size_t length = in.reduced_bytes.size();
        auto above = [](const Pair& x, const Pair& y) { return greater_nan_first(x.first, y.first); };
        auto below = [](const Pair& x, const Pair& y) { return less_nan_last(x.first, y.first); };
        // std::partial_sort's own steps (libstdc++'s __heap_select, then __sort_heap) over the
        // row read in place: a heap of the first k pairs, then each later element that beats the
        // heap's top replaces it as __pop_heap does (std::pop_heap over the heap and the new pair
        // placed after it), then the heap sorted. Only the elements that enter the heap become
        // pairs, so a row costs one comparison per element; the result is partial_sort's, equal
        // elements included.
        auto heap_select = [&](std::vector<Pair>& heap, const std::byte* row, auto order) {
            for (size_t i = 0; i < static_cast<size_t>(k); ++i) heap[i] = {load<T>(row + in.reduced_bytes[i]), static_cast<int64_t>(i)};
            const auto heap_end = heap.begin() + k;
            std::make_heap(heap.begin(), heap_end, order);
            for (size_t i = static_cast<size_t>(k); i < length; ++i) {
                const Pair candidate{load<T>(row + in.reduced_bytes[i]), static_cast<int64_t>(i)};
                if (order(candidate, heap[0])) {
                    *heap_end = candidate;
                    std::pop_heap(heap.begin(), heap_end + 1, order);
                }
            }
            std::sort_heap(heap.begin(), heap_end, order);
        };
        auto select = [&](std::vector<Pair>& row, auto order) {
            std::nth_element(row.begin(), row.begin() + (k - 1), row.end(), order);
            if (sorted) std::sort(row.begin(), row.begin() + (k - 1), order);
        };
        // Rows are selected independently, each by one thread.
        for_each_element_parallel<3>(in.kept_sizes, {&at_values.kept_input, &at_indices.kept_input, &in.kept_input},
                            static_cast<int64_t>(length) * 2,
                            [length, partial, k] { return std::vector<Pair>(partial ? static_cast<size_t>(k) + 1 : length); },
                            [&](std::vector<Pair>& row, const std::array<std::byte*, 3>& p) {
                                if (partial) {
                                    largest ? heap_select(row, p[2], above) : heap_select(row, p[2], below);
                                } else {
                                    for (size_t i = 0; i < row.size(); ++i) {
                                        row[i] = {load<T>(p[2] + in.reduced_bytes[i]), static_cast<int64_t>(i)};
                                    }
                                    largest ? select(row, above) : select(row, below);
                                }
                                for (size_t j = 0; j < static_cast<size_t>(k); ++j) {
                                    const auto source = static_cast<size_t>(row[j].second);
                                    std::memcpy(p[0] + at_values.reduced_bytes[j], p[2] + in.reduced_bytes[source], element);
                                    store<int64_t>(p[1] + at_indices.reduced_bytes[j], row[j].second);
                                }
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

// ---- Shape contracts -----------------------------------------------------------------------

// The size of self's dim `dim` (a 0-d tensor's one element counting as a dim of size 1).
std::optional<int64_t> size_of_dim(const ShapeQuery& query, const ExpectedSizes& self, int64_t dim) {
    const int64_t d = wrap_dim(query, dim, static_cast<int64_t>(self.size()));
    return self.empty() ? std::optional<int64_t>(1) : self[static_cast<size_t>(d)];
}

// kthvalue: the values and indices of self reduced over `dim`, k in [1, the dim's size].
std::optional<std::vector<ExpectedSizes>> kthvalue_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto k = query.int_arg("k", 1), dim = query.int_arg("dim", 2);
    if (!self || !dim) return std::nullopt;
    const auto size = size_of_dim(query, *self, *dim);
    if (k && size && (*k < 1 || *k > *size)) query.contradiction(fmt::format("its k {} is out of range for a dim of size {}", *k, *size));
    return reduced_self(query);
}

// topk: self's sizes with k along `dim`, k in [0, the dim's size].
std::optional<std::vector<ExpectedSizes>> topk_shape(const ShapeQuery& query) {
    auto self = query.sizes("self", 0);
    const auto k = query.int_arg("k", 1), dim = query.int_arg("dim", 2);
    if (!self || !dim) return std::nullopt;
    const auto size = size_of_dim(query, *self, *dim);
    if (k && size && (*k < 0 || *k > *size)) query.contradiction(fmt::format("its k {} is out of range for a dim of size {}", *k, *size));
    if (!self->empty()) (*self)[static_cast<size_t>(wrap_dim(query, *dim, static_cast<int64_t>(self->size())))] = k;
    return std::vector<ExpectedSizes>{*self};
}

// nonzero: one row per nonzero element (which only the data tell) of self's rank indices.
std::optional<std::vector<ExpectedSizes>> nonzero_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    return std::vector<ExpectedSizes>{{std::nullopt, static_cast<int64_t>(self->size())}};
}

PT2OV_KERNEL("aten.kthvalue.default", kthvalue, kthvalue_shape);
PT2OV_KERNEL("aten.topk.default", topk, topk_shape);
PT2OV_KERNEL("aten.nonzero.default", nonzero, nonzero_shape);

}  // namespace
}  // namespace pt2ov::kernels
