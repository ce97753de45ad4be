// Internal to the CPU kernels: element types as C++ types, PyTorch's conversions between
// them, dtype dispatch, strided loops, broadcasting, dims and output allocation. Kernels
// include this; nothing outside src/kernels/ should.
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

#include "common/bfloat16.h"
#include "kernels/registry.h"
#include "kernels/tensor.h"
#include "pt2ov/error.h"

namespace pt2ov::kernels {

// ---- 16-bit floats -------------------------------------------------------------------------
// Stored as their bits; computed on as float (PyTorch's "opmath" for f16 and bf16).

struct Half {
    uint16_t bits;
};
struct BFloat16 {
    uint16_t bits;
};

// Round to nearest even, subnormals kept, overflow to inf; NaN stays NaN (quiet, sign and
// the top payload bits kept, as x86's F16C conversion does).
uint16_t float_to_half_bits(float value);
float half_bits_to_float(uint16_t bits);
// Round to nearest even; NaN becomes 0x7FC0, as c10::BFloat16 does (common/bfloat16.h).
using pt2ov::bfloat16_bits_to_float;
using pt2ov::float_to_bfloat16_bits;

// ---- Element types -------------------------------------------------------------------------

template <typename T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_reduced_float_v<T>;
template <typename T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type a kernel computes in for elements stored as T.
template <typename T>
struct ComputeTypeOf {
    using type = T;
};
template <>
struct ComputeTypeOf<Half> {
    using type = float;
};
template <>
struct ComputeTypeOf<BFloat16> {
    using type = float;
};
template <typename T>
using compute_t = typename ComputeTypeOf<T>::type;

template <typename T>
inline compute_t<T> load(const std::byte* p) {
    if constexpr (std::is_same_v<T, bool>) {
        return *reinterpret_cast<const uint8_t*>(p) != 0;  // any non-zero byte is true
    } else if constexpr (std::is_same_v<T, Half>) {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        return half_bits_to_float(bits);
    } else if constexpr (std::is_same_v<T, BFloat16>) {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        return bfloat16_bits_to_float(bits);
    } else {
        T value;
        std::memcpy(&value, p, sizeof(T));
        return value;
    }
}

template <typename T>
inline void store(std::byte* p, compute_t<T> value) {
    if constexpr (std::is_same_v<T, bool>) {
        *reinterpret_cast<uint8_t*>(p) = value ? 1 : 0;
    } else if constexpr (std::is_same_v<T, Half>) {
        const uint16_t bits = float_to_half_bits(value);
        std::memcpy(p, &bits, 2);
    } else if constexpr (std::is_same_v<T, BFloat16>) {
        const uint16_t bits = float_to_bfloat16_bits(value);
        std::memcpy(p, &bits, 2);
    } else {
        std::memcpy(p, &value, sizeof(T));
    }
}

// Float to integer as PyTorch's CPU casts do on x86: int64 and uint8 go through a 64-bit
// truncation, the other integers through a 32-bit one; NaN and out-of-range values give
// the "integer indefinite" (the minimum) of that width, then wrap to the target.
template <typename To>
To float_to_integer(double value) {
    auto truncate64 = [](double v) -> int64_t {
        if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return std::numeric_limits<int64_t>::min();
        return static_cast<int64_t>(v);
    };
    auto truncate32 = [](double v) -> int32_t {
        if (!(v > -2147483649.0 && v < 2147483648.0)) return std::numeric_limits<int32_t>::min();
        return static_cast<int32_t>(v);
    };
    if constexpr (std::is_same_v<To, int64_t> || std::is_same_v<To, uint8_t>) {
        return static_cast<To>(truncate64(value));
    } else {
        return static_cast<To>(truncate32(value));
    }
}

// Converts a computed value (bool, an integer, float or double) to element type `To` as
// PyTorch's cast does, returning it in To's compute type. For f16/bf16 the value is rounded
// to that type (so the result is exactly what storing and loading it again gives).
template <typename To, typename From>
inline compute_t<To> cast(From value) {
    static_assert(!is_reduced_float_v<From>, "cast from the compute type (float), not from Half/BFloat16");
    if constexpr (std::is_same_v<To, bool>) {
        return value != From(0);
    } else if constexpr (is_integer_v<To>) {
        if constexpr (std::is_floating_point_v<From>) {
            return float_to_integer<To>(static_cast<double>(value));
        } else {
            return static_cast<To>(value);  // integers wrap (C++20 defines it)
        }
    } else if constexpr (std::is_same_v<To, Half>) {
        // PyTorch goes through float: double and int64 values are rounded twice, as here.
        return half_bits_to_float(float_to_half_bits(static_cast<float>(value)));
    } else if constexpr (std::is_same_v<To, BFloat16>) {
        return bfloat16_bits_to_float(float_to_bfloat16_bits(static_cast<float>(value)));
    } else {
        return static_cast<To>(value);
    }
}

// ---- Dtype dispatch ------------------------------------------------------------------------
// visit_dtype(dtype, [&]<typename T>() { ... }) calls the lambda with T the element type.

template <typename F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
    switch (dtype) {
        case DType::Bool: return f.template operator()<bool>();
        case DType::UInt8: return f.template operator()<uint8_t>();
        case DType::Int8: return f.template operator()<int8_t>();
        case DType::Int16: return f.template operator()<int16_t>();
        case DType::UInt16: return f.template operator()<uint16_t>();
        case DType::Int32: return f.template operator()<int32_t>();
        case DType::Int64: return f.template operator()<int64_t>();
        case DType::Float16: return f.template operator()<Half>();
        case DType::BFloat16: return f.template operator()<BFloat16>();
        case DType::Float32: return f.template operator()<float>();
        case DType::Float64: return f.template operator()<double>();
    }
    throw InternalError("unknown dtype in a CPU kernel");
}

// Only the floating types; anything else is a bug in the kernel's validation.
template <typename F>
decltype(auto) visit_floating(DType dtype, F&& f) {
    switch (dtype) {
        case DType::Float16: return f.template operator()<Half>();
        case DType::BFloat16: return f.template operator()<BFloat16>();
        case DType::Float32: return f.template operator()<float>();
        case DType::Float64: return f.template operator()<double>();
        default: break;
    }
    throw InternalError(std::string("a CPU kernel dispatched ") + std::string(dtype_name(dtype)) +
                " as a floating type");
}

// Whether a computed value (compute_t of any dtype) is NaN; never for integers and bools.
template <typename V>
bool is_nan(V v) {
    if constexpr (std::is_floating_point_v<V>) {
        return std::isnan(v);
    } else {
        return false;
    }
}

// PyTorch's orders for sorting and selection (sort, topk, kthvalue, unique, ...): NaN above
// every number, so ascending puts it last and descending first.
template <typename V>
bool less_nan_last(V a, V b) {
    return (!is_nan(a) && is_nan(b)) || a < b;
}
template <typename V>
bool greater_nan_first(V a, V b) {
    return (is_nan(a) && !is_nan(b)) || a > b;
}

bool dtype_is_integer(DType dtype);  // not bool, not floating
bool dtype_is_reduced_float(DType dtype);

// PyTorch's promote_types (uint16 promotes only with itself and floating types).
std::optional<DType> promote_types(DType a, DType b);

// One operand of PyTorch's result_type: a tensor with dims, a 0-dim tensor, or a number.
struct TypeOperand {
    enum class Kind { Dimensioned, ZeroDim, Number };
    DType dtype;
    Kind kind;
};
// c10's result_type: dimensioned tensors win over 0-dim ones over numbers within a category
// (bool < integer < floating); a number of a higher category gives that category's default
// (int64, float32). Null when the types do not promote.
std::optional<DType> result_type(const std::vector<TypeOperand>& operands);

// ---- Scalars -------------------------------------------------------------------------------

double scalar_to_double(const Scalar& s);
int64_t scalar_to_int(const Scalar& s);  // a double is truncated toward zero
bool scalar_to_bool(const Scalar& s);
bool scalar_is_floating(const Scalar& s);
DType scalar_dtype(const Scalar& s);  // int64, float64 or bool, as a wrapped number
// A 0-dim tensor of the scalar's own dtype (int64, float64 or bool).
StridedTensor scalar_tensor_of(const Scalar& s);
// A 0-dim tensor holding `s` cast to `dtype`.
StridedTensor scalar_tensor_as(const Scalar& s, DType dtype);

// One operand of an elementwise op: a tensor, or a number (a Scalar argument, or a number the
// exporter wrote where the schema has a tensor, as in add.Tensor(x, 2)).
struct Operand {
    std::optional<StridedTensor> tensor;
    Scalar number = int64_t{0};

    bool is_number() const { return !tensor.has_value(); }
    // A number or a 0-dim tensor: what PyTorch calls a CPU scalar.
    bool is_scalar() const { return !tensor || tensor->rank() == 0; }
    std::vector<int64_t> sizes() const { return tensor ? tensor->sizes : std::vector<int64_t>{}; }
    TypeOperand type_operand() const;
    // The value of a scalar operand as a double (the number, or the 0-dim tensor's element).
    double scalar_value() const;
    // A tensor of `dtype` (a number becomes a 0-dim tensor), converted as Tensor.to does.
    StridedTensor as_dtype(DType dtype) const;
};
Operand read_operand(const KernelCall& call, std::string_view name, size_t position);
// The promoted dtype of several operands; fails naming the node when they do not promote.
DType common_dtype(const KernelCall& call, const std::vector<const Operand*>& operands);

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

// ---- Parallel ranges -----------------------------------------------------------------------

// Loops this long or longer are split over threads; shorter ones run on the calling thread,
// where a hand-off to other threads would cost more than it saves.
inline constexpr int64_t kParallelMinElements = 65536;

// Runs body(begin, end) over ranges that together cover [0, total) once each, split over the
// threads of the library's pool (TBB's, which OpenVINO shares, when pt2ov is built with it)
// with no range shorter than `min_per_range`; on the calling thread alone when that leaves one
// range. Callers decide when a loop is worth splitting (kParallelMinElements). Safe to call
// from several threads at once. The ranges are disjoint, so a body that writes only its own
// range's outputs gives the same result however they are split. The first exception a range
// throws is rethrown here once every range has finished.
void parallel_ranges(int64_t total, int64_t min_per_range, const std::function<void(int64_t, int64_t)>& body);

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

// ---- Arguments -----------------------------------------------------------------------------

// The position to pass for keyword-only schema arguments: never a positional one.
inline constexpr size_t kKeywordOnly = 1000;

// MemoryFormat as the archive numbers it (torch/_export/serde/schema.py).
inline constexpr int64_t kContiguousFormat = 1;
inline constexpr int64_t kChannelsLast = 2;
inline constexpr int64_t kChannelsLast3d = 3;
inline constexpr int64_t kPreserveFormat = 4;

// ---- Shapes, dims and layouts --------------------------------------------------------------

// `dim` wrapped into [0, rank) (a 0-dim tensor accepts -1 and 0 as dim 0); fails naming the node.
int64_t normalize_dim(const KernelCall& call, int64_t dim, int64_t rank);
// Several dims, each wrapped; fails on a repeated dim.
std::vector<int64_t> normalize_dims(const KernelCall& call, const std::vector<int64_t>& dims, int64_t rank);

// numpy broadcasting of two shapes; fails naming the node when they do not broadcast.
std::vector<int64_t> broadcast_shapes(const KernelCall& call, const std::vector<int64_t>& a,
                                      const std::vector<int64_t>& b);
// A view of `t` expanded to `sizes` (size-1 and missing leading dims get stride 0).
StridedTensor broadcast_to(const KernelCall& call, const StridedTensor& t, const std::vector<int64_t>& sizes);

bool is_non_overlapping_and_dense(const StridedTensor& t);
// Dims from outermost to innermost in memory, as torch's dim_order() orders them.
std::vector<int> dim_order_of(const StridedTensor& t);
std::vector<int> contiguous_order(size_t rank);

// New memory for an output of `sizes`: the dim order torch.export recorded for output
// `index` when its rank matches (so a CPU step lays out values as PyTorch did), else
// row-major. The dtype is the recorded one.
StridedTensor allocate_output(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes);
StridedTensor allocate_output(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes, DType dtype);
// The same memory unfilled, for a kernel that writes every element of it (zero-filling a
// megabyte output costs about as much as an elementwise op on it).
StridedTensor allocate_output_for_overwrite(const KernelCall& call, size_t index, const std::vector<int64_t>& sizes,
                                            DType dtype);

// New memory shaped like `like` for a copy with `memory_format` (Contiguous 1, ChannelsLast 2,
// ChannelsLast3d 3, Preserve 4), as torch.empty_like lays it out.
StridedTensor allocate_like(const KernelCall& call, const StridedTensor& like, DType dtype, int64_t memory_format);

// A dim_order argument checked to be a permutation of `rank` dims.
std::vector<int> checked_dim_order(const KernelCall& call, const std::vector<int64_t>& dim_order, size_t rank);

// A row-major copy of `t` in `dtype` (t itself when it already is that).
StridedTensor contiguous_as(const StridedTensor& t, DType dtype);

// The strides of a view of `t` with `sizes`, when it can share t's memory (torch's
// computeStride); null when it cannot (the caller copies).
std::optional<std::vector<int64_t>> view_strides(const StridedTensor& t, const std::vector<int64_t>& sizes);
// Resolves one -1 in a view's sizes against `numel`; fails naming the node when the sizes do
// not fit.
std::vector<int64_t> infer_view_sizes(const KernelCall& call, std::vector<int64_t> sizes, int64_t numel);

std::string shape_string(const std::vector<int64_t>& sizes);

// Byte offsets of every index of `sizes` under `strides` (elements of `element_size` bytes),
// in row-major order.
std::vector<int64_t> byte_offsets(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                  size_t element_size);

// A reduction of a tensor over some dims, laid out for a loop over the kept dims with an
// inner loop over the reduced elements.
struct Reduction {
    std::vector<int64_t> out_sizes;      // what the op returns (keepdim applied)
    std::vector<int64_t> kept_sizes;     // the kept dims only
    StridedTensor kept_input;            // the input viewed over the kept dims
    std::vector<int64_t> reduced_bytes;  // byte offsets of the reduced elements from a kept element
    std::vector<int64_t> dims;           // the reduced dims, sorted
    bool keepdim = false;

    int64_t reduced_count() const { return static_cast<int64_t>(reduced_bytes.size()); }
    // `out` (of out_sizes) viewed over the kept dims, to walk alongside kept_input.
    StridedTensor kept_output(const StridedTensor& out) const;
};
// `dims` are normalized; an empty list reduces every dim.
Reduction plan_reduction(const StridedTensor& input, std::vector<int64_t> dims, bool keepdim);

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

// One output, as most kernels return.
inline std::vector<RuntimeValue> single(StridedTensor t) { return {RuntimeValue::of(std::move(t))}; }

// ---- Dense copies ---------------------------------------------------------------------------
// For kernels that compute over a whole tensor in one float type (normalization, recurrent
// layers): its elements as a row-major vector, converted as copy_into converts, and back.

template <typename T>
inline constexpr DType dense_dtype_v = std::is_same_v<T, double> ? DType::Float64 : DType::Float32;

template <typename T>
std::vector<T> dense_values(const StridedTensor& tensor) {
    StridedTensor dense = StridedTensor::allocate_for_overwrite(dense_dtype_v<T>, tensor.sizes);
    copy_into(tensor, dense);
    const auto* data = reinterpret_cast<const T*>(dense.data);
    return std::vector<T>(data, data + dense.numel());
}

template <typename T>
StridedTensor tensor_of_values(const std::vector<T>& values, std::vector<int64_t> sizes, DType dtype) {
    StridedTensor dense = StridedTensor::allocate_for_overwrite(dense_dtype_v<T>, sizes);
    std::copy(values.begin(), values.end(), reinterpret_cast<T*>(dense.data));
    if (dtype == dense.dtype) return dense;
    StridedTensor out = StridedTensor::allocate_for_overwrite(dtype, std::move(sizes));
    copy_into(dense, out);
    return out;
}

}  // namespace pt2ov::kernels
