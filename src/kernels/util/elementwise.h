// Elementwise maps over strided operands (a plan of merged dims, dense runs the compiler
// vectorizes) and elementwise binary ops with broadcasting.
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

#include "kernels/util/dtype_dispatch.h"
#include "kernels/util/element_types.h"
#include "kernels/util/operands.h"
#include "kernels/util/parallel.h"
#include "kernels/util/shapes.h"
#include "kernels/util/strided_loops.h"

namespace pt2ov::kernels {

// ---- Elementwise maps ----------------------------------------------------------------------

// How map_elements walks its operands (output first): the dims in the output's memory order
// (outermost first), size-1 dims dropped and dims every operand walks as one merged, with each
// operand's byte strides per merged dim. No dims: a single element.
struct ElementwisePlan {
    std::vector<int64_t> sizes;
    std::vector<std::vector<int64_t>> byte_strides;  // [operand][merged dim]
    int64_t total = 0;                               // the number of elements
};
ElementwisePlan plan_elementwise(const std::vector<const StridedTensor*>& operands);

namespace detail {

// One run of `count` elements along the innermost merged dim, every operand dense in it: a
// flat loop over typed elements the compiler vectorizes (for the types load/store inline).
template <typename Out, typename... Ins, typename Fn, size_t... K>
inline void dense_run(std::byte* out, std::array<const std::byte*, sizeof...(Ins)> in, int64_t count, const Fn& fn,
                      std::index_sequence<K...>) {
    for (int64_t i = 0; i < count; ++i) {
        store<Out>(out + i * static_cast<int64_t>(sizeof(Out)),
                   static_cast<compute_t<Out>>(fn(load<Ins>(in[K] + i * static_cast<int64_t>(sizeof(Ins)))...)));
    }
}

// Copies `count` elements of T spaced `stride` bytes apart to consecutive ones, as bits.
template <typename T>
inline void gather(std::byte* to, const std::byte* from, int64_t stride, int64_t count) {
    for (int64_t i = 0; i < count; ++i) std::memcpy(to + i * static_cast<int64_t>(sizeof(T)), from + i * stride, sizeof(T));
}

// The same run with any strides (broadcast operands have stride 0), through staging blocks:
// strided inputs are gathered into a dense block, the block computed by the flat loop and a
// strided output scattered from its block, so the arithmetic is the same vectorized loop.
template <typename Out, typename... Ins, typename Fn, size_t... K>
inline void strided_run(std::byte* out, int64_t out_stride, std::array<const std::byte*, sizeof...(Ins)> in,
                        std::array<int64_t, sizeof...(Ins)> in_strides, int64_t count, const Fn& fn,
                        std::index_sequence<K...> sequence) {
    constexpr int64_t kBlock = 256;
    constexpr size_t kWidest = std::max({sizeof(Out), sizeof(Ins)...});
    alignas(64) std::byte staged_in[sizeof...(Ins) + 1][kBlock * kWidest];
    alignas(64) std::byte staged_out[kBlock * kWidest];
    const bool out_dense = out_stride == static_cast<int64_t>(sizeof(Out));
    for (int64_t start = 0; start < count; start += kBlock) {
        const int64_t n = std::min(kBlock, count - start);
        std::array<const std::byte*, sizeof...(Ins)> block{};
        (
            [&] {
                if (in_strides[K] == static_cast<int64_t>(sizeof(Ins))) {
                    block[K] = in[K] + start * in_strides[K];
                } else {
                    gather<Ins>(staged_in[K], in[K] + start * in_strides[K], in_strides[K], n);
                    block[K] = staged_in[K];
                }
            }(),
            ...);
        std::byte* target = out_dense ? out + start * out_stride : staged_out;
        dense_run<Out, Ins...>(target, block, n, fn, sequence);
        if (!out_dense) {
            for (int64_t i = 0; i < n; ++i) {
                std::memcpy(out + (start + i) * out_stride, staged_out + i * static_cast<int64_t>(sizeof(Out)), sizeof(Out));
            }
        }
    }
}

}  // namespace detail

// out = fn(inputs...) at every index: fn maps the inputs' compute_t values to a value stored as
// Out (converted by static_cast to compute_t<Out>). `out` is new memory of the broadcast sizes
// (it must not overlap an input); every input has out's sizes (broadcast first) and any
// strides. Elements are visited in no particular order and, for big tensors, on several
// threads at once: fn must be a pure function of its arguments. Runs along which every operand
// is dense are flat typed loops; the rest walk their strides.
template <typename Out, typename... Ins, typename Fn>
void map_elements(const StridedTensor& out, const std::array<const StridedTensor*, sizeof...(Ins)>& ins, const Fn& fn) {
    constexpr size_t kInputs = sizeof...(Ins);
    constexpr std::array<int64_t, kInputs + 1> kElementBytes = {static_cast<int64_t>(sizeof(Out)),
                                                                static_cast<int64_t>(sizeof(Ins))...};
    std::vector<const StridedTensor*> operands{&out};
    for (const StridedTensor* in : ins) operands.push_back(in);
    const ElementwisePlan plan = plan_elementwise(operands);
    if (plan.total == 0) return;
    const auto sequence = std::index_sequence_for<Ins...>{};
    const size_t rank = plan.sizes.size();
    if (rank == 0) {
        std::array<const std::byte*, kInputs> in{};
        for (size_t k = 0; k < kInputs; ++k) in[k] = ins[k]->data;
        detail::dense_run<Out, Ins...>(out.data, in, 1, fn, sequence);
        return;
    }
    const int64_t inner = plan.sizes[rank - 1];
    int64_t out_stride = plan.byte_strides[0][rank - 1];
    std::array<int64_t, kInputs> in_strides{};
    bool dense = out_stride == kElementBytes[0];
    for (size_t k = 0; k < kInputs; ++k) {
        in_strides[k] = plan.byte_strides[k + 1][rank - 1];
        dense = dense && in_strides[k] == kElementBytes[k + 1];
    }
    // Elements [begin, end) in the plan's order: runs along the innermost dim, the operands'
    // addresses found from the index of the run's first element.
    auto range = [&](int64_t begin, int64_t end) {
        std::vector<int64_t> index(rank, 0);
        int64_t rest = begin;
        for (size_t d = rank; d-- > 0;) {
            index[d] = rest % plan.sizes[d];
            rest /= plan.sizes[d];
        }
        while (begin < end) {
            const int64_t count = std::min(inner - index[rank - 1], end - begin);
            std::byte* o = out.data;
            std::array<const std::byte*, kInputs> in{};
            for (size_t k = 0; k < kInputs; ++k) in[k] = ins[k]->data;
            for (size_t d = 0; d < rank; ++d) {
                o += index[d] * plan.byte_strides[0][d];
                for (size_t k = 0; k < kInputs; ++k) in[k] += index[d] * plan.byte_strides[k + 1][d];
            }
            if (dense) {
                detail::dense_run<Out, Ins...>(o, in, count, fn, sequence);
            } else {
                detail::strided_run<Out, Ins...>(o, out_stride, in, in_strides, count, fn, sequence);
            }
            begin += count;
            index[rank - 1] = 0;
            for (size_t d = rank - 1; d-- > 0;) {  // carry into the outer dims, odometer style
                if (++index[d] < plan.sizes[d]) break;
                index[d] = 0;
            }
        }
    };
    if (plan.total < kParallelMinElements) {
        range(0, plan.total);
    } else {
        parallel_ranges(plan.total, kParallelMinElements / 2, range);
    }
}

// `keep ? yes : no` for elements moved as bits, computed with a mask rather than a branch (a
// branch on a random condition mispredicts every other element).
template <typename Bits>
inline Bits select_bits(bool keep, Bits yes, Bits no) {
    const auto mask = static_cast<Bits>(Bits{0} - static_cast<Bits>(keep));
    return static_cast<Bits>(no ^ ((yes ^ no) & mask));
}

// An unsigned integer as wide as an element of `element_bytes` (1, 2, 4 or 8): for kernels that
// move elements as bits (selections, copies), whatever their dtype.
template <typename F>
decltype(auto) visit_bits(size_t element_bytes, F&& f) {
    switch (element_bytes) {
        case 1: return f.template operator()<uint8_t>();
        case 2: return f.template operator()<uint16_t>();
        case 4: return f.template operator()<uint32_t>();
        case 8: return f.template operator()<uint64_t>();
        default: break;
    }
    throw InternalError("a CPU kernel moved elements of " + std::to_string(element_bytes) + " bytes");
}

// ---- Elementwise binary ops ----------------------------------------------------------------

// Computes op(a, b) elementwise with numpy broadcasting into a new output 0 (its recorded
// dtype and dim order). Both operands are cast to `compute` first, as PyTorch's
// TensorIterator casts to the common dtype. make_op.template operator()<C>() gives the op for
// element type C: it maps two compute_t<C> values to compute_t<C> (stored as C) or to bool
// (stored as bool); the result is converted when the recorded dtype differs.
// With `scalar_in_opmath`, an f16/bf16 computation takes a scalar `b` at float precision
// without rounding it to f16/bf16 first, as PyTorch's add, sub, mul and div do.
template <typename MakeOp>
StridedTensor elementwise_binary(const KernelCall& call, const Operand& a, const Operand& b, DType compute,
                                 MakeOp&& make_op, bool scalar_in_opmath = false) {
    const auto sizes = broadcast_shapes(call, a.sizes(), b.sizes());
    const DType out_dtype = call.output_meta(0).dtype;
    StridedTensor out = allocate_output_for_overwrite(call, 0, sizes, out_dtype);  // written whole below
    visit_dtype(compute, [&]<typename C>() {
        using V = compute_t<C>;
        const auto op = make_op.template operator()<C>();
        using Result = decltype(op(V{}, V{}));
        using Stored = std::conditional_t<std::is_same_v<Result, bool>, bool, C>;
        const DType stored_dtype = std::is_same_v<Result, bool> ? DType::Bool : compute;
        StridedTensor target =
            stored_dtype == out_dtype ? out : allocate_output_for_overwrite(call, 0, sizes, stored_dtype);
        const StridedTensor left = broadcast_to(call, a.as_dtype(compute), sizes);
        if (b.is_scalar()) {
            const V right = scalar_in_opmath && is_reduced_float_v<C> ? static_cast<V>(b.scalar_value())
                                                                      : load<C>(b.as_dtype(compute).data);
            map_elements<Stored, C>(target, {&left}, [&op, right](V x) { return op(x, right); });
        } else {
            const StridedTensor right = broadcast_to(call, b.as_dtype(compute), sizes);
            map_elements<Stored, C, C>(target, {&left, &right}, op);
        }
        if (target.data != out.data) copy_into(target, out);
    });
    return out;
}

}  // namespace pt2ov::kernels
