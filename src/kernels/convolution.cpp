// Convolutions: aten.convolution (forward and transposed) and the forms torch.export keeps
// (conv1d/2d/3d, their 'same'/'valid' padding overload, conv_transpose1d/2d/3d), over 1 to 3
// spatial dims, any groups, strides in any dim order.
//
// Forward: im2col + GEMM. Each (batch element, group, block of output positions) gathers its
// input patches into a [channels * kernel, block] matrix and multiplies the group's weight by it
// (kernels/gemm.h for float and double; a 1x1 convolution with unit stride multiplies the input
// in place when its strides allow). Transposed: GEMM + col2im. Each (batch element, group, block
// of output channels) multiplies the weight's transpose by the input, and col2im adds each
// kernel offset's contribution into the output in lexicographic order of the offsets, as
// PyTorch's slow_conv_transpose kernels do.
//
// Rounding follows PyTorch's CPU kernels. float and double accumulate in the type; a forward
// float16/bfloat16 convolution accumulates in float and rounds once (PyTorch's GEMM adds the
// bias, then the products, in float). A transposed one goes to oneDNN in PyTorch, which also
// rounds once, when the CPU has oneDNN's 16-bit support; otherwise PyTorch's col2im rounds
// each column to the 16-bit type and adds the overlapping contributions in it, then adds the
// bias in it, and so does this kernel (see sums_transposed_in_16_bits). Integers wrap.
//
// Work is split over threads in blocks whose shapes depend on the convolution only, so the
// result is the same on any number of threads.
#include <cpuid.h>
#include <fmt/format.h>

#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/dense_paths.h"
#include "kernels/dispatch.h"
#include "kernels/gemm.h"

namespace pt2ov::kernels {
namespace {

constexpr size_t kMaxSpatialDims = 3;

// A [rows, cols] block of T: element (i, j) at data[i * row_stride + j * column_stride]
// (strides in elements).
template <typename T>
struct MatrixRef {
    T* data;
    int64_t rows;
    int64_t cols;
    int64_t row_stride;
    int64_t column_stride;
};

// Whether the GEMM uses `m` in place (and writes it, for a result); other blocks are gathered first.
template <typename T>
bool gemm_accepts(const MatrixRef<T>& m) {
    return gemm_uses_in_place(m.rows, m.cols, m.row_stride, m.column_stride);
}

// The type a convolution computes in for elements stored as T.
template <typename T>
using conv_compute_t = std::conditional_t<std::is_same_v<T, double>, double,
                                          std::conditional_t<is_floating_v<T>, float, uint64_t>>;

struct ConvolutionParams {
    size_t dims = 0;                       // spatial dims
    bool transposed = false;
    bool batched = true;                   // false: the input has no batch dim (conv1d/2d/3d, conv_transpose*)
    int64_t groups = 1;
    std::vector<int64_t> stride, padding_before, dilation, output_padding;
    // 'same' padding of an even extent pads one more after than before, as PyTorch does.
    std::vector<int64_t> padding_after;
};

// An int list argument of one value per spatial dim (a single value serves every dim).
std::vector<int64_t> per_dim(const KernelCall& call, ArgName name, size_t position, size_t dims,
                             int64_t fallback) {
    std::vector<int64_t> values = call.ints(name, position, {fallback});
    if (values.size() == 1 && dims > 1) values.assign(dims, values[0]);
    if (values.size() != dims) {
        call.fail("expected " + std::string(name.text()) + " to be a single integer value or a list of " + std::to_string(dims) +
                  " values to match the convolution dimensions, but got " + std::string(name.text()) + "=" + shape_text(values));
    }
    return values;
}

// The padding of conv1d/2d/3d: a list, or the string 'same' or 'valid' of the .padding overload.
void read_padding(const KernelCall& call, const StridedTensor& weight, ConvolutionParams& p) {
    const graph::Argument* padding = call.arg("padding", 4);
    if (padding && padding->kind == graph::Argument::Kind::String) {
        if (padding->string_value == "valid") {
            p.padding_before.assign(p.dims, 0);
            p.padding_after.assign(p.dims, 0);
            return;
        }
        if (padding->string_value != "same") {
            call.fail("Invalid padding string: '" + padding->string_value + "'");
        }
        for (int64_t s : p.stride) {
            if (s != 1) call.fail("padding='same' is not supported for strided convolutions");
        }
        for (size_t d = 0; d < p.dims; ++d) {
            const int64_t total = p.dilation[d] * (weight.sizes[d + 2] - 1);
            p.padding_before.push_back(total / 2);
            p.padding_after.push_back(total - total / 2);
        }
        return;
    }
    p.padding_before = per_dim(call, "padding", 4, p.dims, 0);
    p.padding_after = p.padding_before;
}

enum class Form { Convolution, Forward, Transposed };

ConvolutionParams read_params(const KernelCall& call, Form form, const StridedTensor& input, const StridedTensor& weight) {
    if (weight.rank() < 3 || weight.rank() > 2 + kMaxSpatialDims) {
        call.fail("expects a weight of 3 to 5 dims (1 to 3 spatial dims), got shape " + shape_text(weight.sizes));
    }
    ConvolutionParams p;
    p.dims = weight.rank() - 2;
    if (input.rank() == weight.rank() - 1 && form != Form::Convolution) {
        p.batched = false;
    } else if (input.rank() != weight.rank()) {
        call.fail("Expected " + std::to_string(weight.rank()) + "-dimensional input for " + std::to_string(weight.rank()) +
                  "-dimensional weight " + shape_text(weight.sizes) + ", but got " + std::to_string(input.rank()) +
                  "-dimensional input of size " + shape_text(input.sizes) + " instead");
    }
    p.stride = per_dim(call, "stride", 3, p.dims, 1);
    switch (form) {
        case Form::Convolution:
            p.padding_before = per_dim(call, "padding", 4, p.dims, 0);
            p.padding_after = p.padding_before;
            p.dilation = per_dim(call, "dilation", 5, p.dims, 1);
            p.transposed = call.bool_arg("transposed", 6, false);
            p.output_padding = per_dim(call, "output_padding", 7, p.dims, 0);
            p.groups = call.int_arg("groups", 8);
            break;
        case Form::Forward:
            p.dilation = per_dim(call, "dilation", 5, p.dims, 1);
            read_padding(call, weight, p);
            p.output_padding.assign(p.dims, 0);
            p.groups = call.int_arg("groups", 6, 1);
            break;
        case Form::Transposed:
            p.transposed = true;
            p.padding_before = per_dim(call, "padding", 4, p.dims, 0);
            p.padding_after = p.padding_before;
            p.output_padding = per_dim(call, "output_padding", 5, p.dims, 0);
            p.groups = call.int_arg("groups", 6, 1);
            p.dilation = per_dim(call, "dilation", 7, p.dims, 1);
            break;
    }
    return p;
}

// The sizes of an input, weight and output as [batch, channels, spatial...], and their checks
// (PyTorch's, in its words where it has them).
struct Geometry {
    int64_t batch, in_channels, out_channels;
    int64_t group_in, group_out;  // channels per group
    std::vector<int64_t> in_size, kernel, out_size;

    int64_t in_positions() const { return product(in_size); }
    int64_t out_positions() const { return product(out_size); }
    int64_t kernel_positions() const { return product(kernel); }
    static int64_t product(const std::vector<int64_t>& v) {
        int64_t n = 1;
        for (int64_t x : v) n *= x;
        return n;
    }
};

Geometry check_geometry(const KernelCall& call, const ConvolutionParams& p, const StridedTensor& input,
                        const StridedTensor& weight, const std::optional<StridedTensor>& bias) {
    Geometry g;
    const size_t offset = p.batched ? 1 : 0;
    g.batch = p.batched ? input.sizes[0] : 1;
    g.in_channels = input.sizes[offset];
    for (size_t d = 0; d < p.dims; ++d) {
        g.in_size.push_back(input.sizes[offset + 1 + d]);
        g.kernel.push_back(weight.sizes[2 + d]);
    }
    if (p.groups <= 0) call.fail("non-positive groups is not supported");
    for (size_t d = 0; d < p.dims; ++d) {
        if (p.stride[d] <= 0) call.fail("non-positive stride is not supported");
        if (p.dilation[d] <= 0) call.fail("dilation should be greater than zero");
        if (p.padding_before[d] < 0) call.fail("negative padding is not supported");
        if (p.output_padding[d] < 0) call.fail("negative output_padding is not supported");
        if (p.transposed && p.output_padding[d] >= p.stride[d] && p.output_padding[d] >= p.dilation[d]) {
            call.fail("output padding must be smaller than either stride or dilation, but got output_padding=" +
                      shape_text(p.output_padding));
        }
        if (!p.transposed && p.output_padding[d] != 0) call.fail("only transposed convolutions take an output_padding");
    }
    if (p.transposed) {
        if (weight.sizes[0] != g.in_channels) {
            call.fail("Given transposed=1, weight of size " + shape_text(weight.sizes) + ", expected input" +
                      shape_text(input.sizes) + " to have " + std::to_string(weight.sizes[0]) +
                      " channels, but got " + std::to_string(g.in_channels) + " channels instead");
        }
        if (weight.sizes[0] < p.groups) {
            call.fail("Given groups=" + std::to_string(p.groups) + ", expected weight to be at least " +
                      std::to_string(p.groups) + " at dimension 0, but got weight of size " + shape_text(weight.sizes) +
                      " instead");
        }
        if (g.in_channels % p.groups != 0) call.fail("the input's channels are not divisible by groups");
        g.out_channels = weight.sizes[1] * p.groups;
        g.group_in = g.in_channels / p.groups;
        g.group_out = weight.sizes[1];
        for (size_t d = 0; d < p.dims; ++d) {
            g.out_size.push_back((g.in_size[d] - 1) * p.stride[d] - p.padding_before[d] - p.padding_after[d] +
                                 p.dilation[d] * (g.kernel[d] - 1) + p.output_padding[d] + 1);
        }
    } else {
        g.out_channels = weight.sizes[0];
        if (g.out_channels % p.groups != 0) {
            call.fail("Given groups=" + std::to_string(p.groups) + ", expected weight to be divisible by " +
                      std::to_string(p.groups) + " at dimension 0, but got weight of size " + shape_text(weight.sizes) +
                      " instead");
        }
        if (weight.sizes[1] * p.groups != g.in_channels) {
            call.fail("Given groups=" + std::to_string(p.groups) + ", weight of size " + shape_text(weight.sizes) +
                      ", expected input" + shape_text(input.sizes) + " to have " +
                      std::to_string(weight.sizes[1] * p.groups) + " channels, but got " + std::to_string(g.in_channels) +
                      " channels instead");
        }
        g.group_in = weight.sizes[1];
        g.group_out = g.out_channels / p.groups;
        for (size_t d = 0; d < p.dims; ++d) {
            const int64_t padded = g.in_size[d] + p.padding_before[d] + p.padding_after[d];
            const int64_t extent = p.dilation[d] * (g.kernel[d] - 1) + 1;
            if (padded < extent) {
                call.fail("Calculated padded input size per channel: " + std::to_string(padded) +
                          ". Kernel size: " + std::to_string(extent) + ". Kernel size can't be greater than actual input size");
            }
            g.out_size.push_back((padded - extent) / p.stride[d] + 1);
        }
    }
    for (size_t d = 0; d < p.dims; ++d) {
        if (g.out_size[d] <= 0) call.fail("the computed output size " + shape_text(g.out_size) + " is too small");
    }
    if (bias && (bias->rank() != 1 || bias->sizes[0] != g.out_channels)) {
        call.fail("Given weight of size " + shape_text(weight.sizes) + ", expected bias to be 1-dimensional with " +
                  std::to_string(g.out_channels) + " elements, but got bias of size " + shape_text(bias->sizes) +
                  " instead");
    }
    return g;
}

// ---- CPU features that decide PyTorch's kernel for 16-bit transposed convolutions -----------

// Whether the OS saves the AVX-512 register state (XCR0 bits 1, 2, 5, 6, 7).
bool os_saves_avx512_state() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) return false;  // OSXSAVE
    uint32_t xcr0_low = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    return (xcr0_low & 0xE6u) == 0xE6u;
}

struct SixteenBitSupport {
    bool bfloat16 = false;  // oneDNN's avx512_core (avx512f, bw, vl, dq) or avx_ne_convert
    bool float16 = false;   // avx512_fp16, amx_fp16 or avx_ne_convert
};

SixteenBitSupport onednn_sixteen_bit_support() {
    SixteenBitSupport s;
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return s;
    const bool avx512 = os_saves_avx512_state();
    const bool avx512_core = avx512 && (ebx & (1u << 16)) && (ebx & (1u << 17)) && (ebx & (1u << 30)) && (ebx & (1u << 31));
    const bool avx512_fp16 = avx512_core && (edx & (1u << 23));
    unsigned eax1 = 0, ebx1 = 0, ecx1 = 0, edx1 = 0;
    bool amx_fp16 = false, avx_ne_convert = false;
    if (eax >= 1 && __get_cpuid_count(7, 1, &eax1, &ebx1, &ecx1, &edx1)) {
        amx_fp16 = (eax1 & (1u << 21)) != 0;
        avx_ne_convert = (edx1 & (1u << 5)) != 0 && __builtin_cpu_supports("avx2");
    }
    s.bfloat16 = avx512_core || avx_ne_convert;
    s.float16 = avx512_fp16 || amx_fp16 || avx_ne_convert;
    return s;
}

// PyTorch sends a 16-bit transposed convolution to oneDNN (float accumulation, one rounding)
// when the CPU has oneDNN's support for the type and no output_padding reaches its stride;
// otherwise to slow_conv_transpose, whose col2im adds in the 16-bit type.
template <typename T>
bool sums_transposed_in_16_bits(const ConvolutionParams& p) {
    if constexpr (!is_reduced_float_v<T>) {
        return false;
    } else {
        static const SixteenBitSupport support = onednn_sixteen_bit_support();
        for (size_t d = 0; d < p.dims; ++d) {
            if (p.output_padding[d] >= p.stride[d]) return true;
        }
        return std::is_same_v<T, Half> ? !support.float16 : !support.bfloat16;
    }
}

// ---- The order in which PyTorch's col2im adds, for 16-bit sums -----------------------------

// c10's is_channels_last_strides_2d: whether Tensor.suggest_memory_format() of a 4-d tensor is
// ChannelsLast (ambiguous size-1 layouts count as contiguous).
bool suggests_channels_last(const std::array<int64_t, 4>& sizes, const std::array<int64_t, 4>& strides) {
    if (strides[1] == 0) return false;
    int64_t min = 0;
    for (int d : {1, 3, 2, 0}) {
        if (sizes[d] == 0 || strides[d] < min) return false;
        if (d == 0 && min == strides[1]) return false;
        min = strides[d];
        if (sizes[d] > 1) min *= sizes[d];
    }
    return true;
}

// The strides of Tensor.contiguous(memory_format) for 4-d `sizes`.
std::array<int64_t, 4> strides_in_format(const std::array<int64_t, 4>& sizes, bool channels_last) {
    if (channels_last) return {sizes[1] * sizes[2] * sizes[3], 1, sizes[3] * sizes[1], sizes[1]};
    return {sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3], sizes[3], 1};
}

// The sizes and strides eager had for a tensor argument: the ones torch.export recorded
// (hints where symbolic), else the runtime ones.
std::pair<std::vector<int64_t>, std::vector<int64_t>> eager_layout(const KernelCall& call, ArgName name,
                                                                   size_t position, const StridedTensor& t) {
    const graph::Argument* a = call.arg(name, position);
    if (a && a->kind == graph::Argument::Kind::Tensor) {
        const graph::TensorMeta& meta = call.graph().value(a->name).meta;
        std::vector<int64_t> sizes, strides;
        auto known = [](const graph::Dim& d, std::vector<int64_t>& into) {
            if (d.is_static()) {
                into.push_back(*d.value);
            } else if (d.hint >= 0) {
                into.push_back(d.hint);
            }
        };
        for (const auto& d : meta.sizes) known(d, sizes);
        for (const auto& d : meta.strides) known(d, strides);
        if (sizes.size() == t.rank() && strides.size() == t.rank()) return {sizes, strides};
    }
    return {t.sizes, t.strides};
}

// A 3-d or 4-d layout as the 4-d one PyTorch's 2-d kernels see: a 1-d convolution's input is
// made contiguous and gets a unit dim 2 (view4d, which is unsqueeze(2)), as does its weight.
std::pair<std::array<int64_t, 4>, std::array<int64_t, 4>> as_4d(std::pair<std::vector<int64_t>, std::vector<int64_t>> layout,
                                                                bool made_contiguous) {
    auto& [sizes, strides] = layout;
    if (made_contiguous) strides = contiguous_strides(sizes);
    if (sizes.size() == 3) {
        sizes.insert(sizes.begin() + 2, 1);
        strides.insert(strides.begin() + 2, sizes[3] * strides[2]);
    }
    return {{sizes[0], sizes[1], sizes[2], sizes[3]}, {strides[0], strides[1], strides[2], strides[3]}};
}

// Whether PyTorch's slow_conv_transpose2d takes its channels-last path for this call, whose
// col2im adds each output's contributions in reverse order of the kernel offsets (its loops
// run over input positions first). PyTorch decides once for the whole call
// (thnn_conv_use_channels_last: the input or the weight suggests channels-last), makes both
// contiguous in that format, then decides again on each group's slices.
bool col2im_in_reverse(const KernelCall& call, const ConvolutionParams& p, const Geometry& g,
                       const StridedTensor& input, const StridedTensor& weight) {
    if (p.dims == 3) return false;  // slow_conv_transpose3d has one order
    auto input_layout = eager_layout(call, "input", 0, input);
    if (!p.batched) {
        // conv_transpose1d/2d add the batch dim in front (unsqueeze(0)).
        auto& [sizes, strides] = input_layout;
        strides.insert(strides.begin(), sizes[0] * strides[0]);
        sizes.insert(sizes.begin(), 1);
    }
    auto [in_sizes, in_strides] = as_4d(input_layout, p.dims == 1);
    auto [w_sizes, w_strides] = as_4d(eager_layout(call, "weight", 1, weight), false);
    const bool channels_last = suggests_channels_last(in_sizes, in_strides) || suggests_channels_last(w_sizes, w_strides);
    std::array<int64_t, 4> in_group = in_sizes, w_group = w_sizes;
    in_group[1] = g.group_in;
    w_group[0] = g.group_in;
    return suggests_channels_last(in_group, strides_in_format(in_group, channels_last)) ||
           suggests_channels_last(w_group, strides_in_format(w_group, channels_last));
}

// ---- Shared pieces -------------------------------------------------------------------------

// Multiplies dense blocks in the compute type C: through kernels/gemm.h for float and double
// (the ISA table's GEMM),
// an in-order loop for the wrapping integer types.
template <typename C>
void multiply(MatrixRef<const C> a, MatrixRef<const C> b, MatrixRef<C> c) {
    if constexpr (std::is_same_v<C, float>) {
        gemm_f32(c.rows, c.cols, a.cols, 1.0f, a.data, a.row_stride, a.column_stride, b.data, b.row_stride,
                 b.column_stride, 0.0f, c.data, c.row_stride, c.column_stride);
    } else if constexpr (std::is_same_v<C, double>) {
        gemm_f64(c.rows, c.cols, a.cols, 1.0, a.data, a.row_stride, a.column_stride, b.data, b.row_stride,
                 b.column_stride, 0.0, c.data, c.row_stride, c.column_stride);
    } else {
        for (int64_t i = 0; i < c.rows; ++i) {
            for (int64_t j = 0; j < c.cols; ++j) c.data[i * c.row_stride + j * c.column_stride] = 0;
            for (int64_t l = 0; l < a.cols; ++l) {
                const C x = a.data[i * a.row_stride + l * a.column_stride];
                for (int64_t j = 0; j < c.cols; ++j) {
                    c.data[i * c.row_stride + j * c.column_stride] += x * b.data[l * b.row_stride + j * b.column_stride];
                }
            }
        }
    }
}

template <typename T, typename C>
C load_as(const std::byte* p) {
    return static_cast<C>(load<T>(p));
}

// The one stride that walks every spatial position of `t` in row-major order, when its spatial
// dims merge into one (as in contiguous and channels-last layouts).
std::optional<int64_t> merged_spatial_stride(const StridedTensor& t, size_t first, size_t dims) {
    std::optional<int64_t> inner;
    int64_t expected = 0;
    for (size_t k = dims; k-- > 0;) {
        const size_t d = first + k;
        if (t.sizes[d] == 1) continue;
        if (!inner) {
            inner = t.strides[d];
        } else if (t.strides[d] != expected) {
            return std::nullopt;
        }
        expected = t.strides[d] * t.sizes[d];
    }
    return inner.value_or(1);
}

// A tensor's [channels, spatial positions] for one batch element and group, read in place:
// rows step by the channel stride, columns by the merged spatial stride.
template <typename C>
MatrixRef<C> channel_matrix(const StridedTensor& t, int64_t channels, int64_t positions, int64_t spatial_stride,
                            C* data = nullptr) {
    return {data, channels, positions, channels == 1 ? 1 : t.strides[1], spatial_stride};
}

// Splits `count` independent work items over threads when the whole is worth it.
void run_items(int64_t count, int64_t multiply_adds, const std::function<void(int64_t, int64_t)>& items) {
    constexpr int64_t kParallelMinMultiplyAdds = int64_t{1} << 18;
    if (count < 2 || multiply_adds < kParallelMinMultiplyAdds) {
        items(0, count);
    } else {
        parallel_ranges(count, 1, items);
    }
}

// The tensors of a call with a batch dim (an unbatched input viewed with a batch of one).
struct Operands {
    StridedTensor input, weight, out;
    std::optional<StridedTensor> bias;
};

// The weight as dense [groups][group_out][group_in * kernel] (forward) or
// [groups][group_out * kernel][group_in] (transposed: A of columns = A @ input), in C.
template <typename T, typename C>
std::vector<C> pack_weight(const Operands& o, const Geometry& g, bool transposed) {
    const int64_t kernel = g.kernel_positions();
    const size_t dims = g.kernel.size();
    std::vector<C> packed(static_cast<size_t>(g.out_channels * g.group_in * kernel));
    const int64_t groups = g.out_channels / std::max<int64_t>(g.group_out, 1);
    // The element offset of each kernel position, computed once: packing runs on every call.
    std::vector<int64_t> kernel_offsets(static_cast<size_t>(kernel));
    for (int64_t k = 0; k < kernel; ++k) {
        int64_t offset = 0;
        for (int64_t rest = k, d = static_cast<int64_t>(dims); d-- > 0;) {
            offset += (rest % g.kernel[d]) * o.weight.strides[2 + d];
            rest /= g.kernel[d];
        }
        kernel_offsets[static_cast<size_t>(k)] = offset;
    }
    const auto element = static_cast<int64_t>(o.weight.element_size());
    auto weight_at = [&](int64_t w0, int64_t w1, int64_t k) {
        const int64_t offset = w0 * o.weight.strides[0] + w1 * o.weight.strides[1] + kernel_offsets[static_cast<size_t>(k)];
        return load_as<T, C>(o.weight.data + offset * element);
    };
    for (int64_t grp = 0; grp < groups; ++grp) {
        C* block = packed.data() + grp * g.group_out * g.group_in * kernel;
        for (int64_t oc = 0; oc < g.group_out; ++oc) {
            for (int64_t ic = 0; ic < g.group_in; ++ic) {
                for (int64_t k = 0; k < kernel; ++k) {
                    if (transposed) {
                        block[(oc * kernel + k) * g.group_in + ic] = weight_at(grp * g.group_in + ic, oc, k);
                    } else {
                        block[oc * g.group_in * kernel + ic * kernel + k] = weight_at(grp * g.group_out + oc, ic, k);
                    }
                }
            }
        }
    }
    return packed;
}

template <typename T, typename C>
std::vector<C> bias_values(const Operands& o, int64_t channels) {
    std::vector<C> values(static_cast<size_t>(channels), C(0));
    if (!o.bias) return values;
    for (int64_t c = 0; c < channels; ++c) {
        values[c] = load_as<T, C>(o.bias->data + c * o.bias->strides[0] * static_cast<int64_t>(o.bias->element_size()));
    }
    return values;
}

// Stores value `v` (computed in C) as T.
template <typename T, typename C>
void store_as(std::byte* p, C v) {
    if constexpr (is_integer_v<T>) {
        store<T>(p, static_cast<T>(v));  // wraps
    } else {
        store<T>(p, static_cast<compute_t<T>>(v));
    }
}

// ---- Forward -------------------------------------------------------------------------------

// im2col of one block: row (channel, kernel offset) of `columns` holds, for the output positions
// j0 .. j0 + cols, the input element that offset reads there (zero in the padding). Walks each
// row in runs along the innermost spatial dim, whose in-range part is one strided copy.
template <typename T, typename C>
void gather_patches(const Operands& o, const ConvolutionParams& p, const Geometry& g, const std::byte* in_base, int64_t j0,
                    int64_t cols, C* columns) {
    const size_t dims = p.dims, last = dims - 1;
    const int64_t kernel = g.kernel_positions(), rows = g.group_in * kernel;
    const auto element = static_cast<int64_t>(o.input.element_size());
    const int64_t out_last = g.out_size[last], step = p.stride[last];
    const int64_t in_last = g.in_size[last], in_step = o.input.strides[2 + last];
    std::array<int64_t, kMaxSpatialDims> first{0, 0, 0};  // the coordinates of position j0
    for (int64_t pos = j0, d = static_cast<int64_t>(dims); d-- > 0;) {
        first[d] = pos % g.out_size[d];
        pos /= g.out_size[d];
    }
    for (int64_t r = 0; r < rows; ++r) {
        std::array<int64_t, kMaxSpatialDims> shift{0, 0, 0};  // kernel offset * dilation - padding
        for (int64_t k = r % kernel, d = static_cast<int64_t>(dims); d-- > 0;) {
            shift[d] = (k % g.kernel[d]) * p.dilation[d] - p.padding_before[d];
            k /= g.kernel[d];
        }
        const std::byte* channel_base = in_base + (r / kernel) * o.input.strides[1] * element;
        C* row = columns + r * cols;
        std::array<int64_t, kMaxSpatialDims> at_out = first;
        for (int64_t j = 0; j < cols;) {
            const int64_t run = std::min(cols - j, out_last - at_out[last]);
            bool inside = true;
            int64_t offset = 0;
            for (size_t d = 0; d < last; ++d) {
                const int64_t at = at_out[d] * p.stride[d] + shift[d];
                inside &= at >= 0 && at < g.in_size[d];
                offset += at * o.input.strides[2 + d];
            }
            // In range along the last dim: 0 <= (at_out + t) * step + shift < in_last.
            const int64_t below = -shift[last] - at_out[last] * step;
            const int64_t above = in_last - 1 - shift[last] - at_out[last] * step;
            int64_t t_lo = below <= 0 ? 0 : (below + step - 1) / step;
            int64_t t_hi = above < 0 ? 0 : above / step + 1;
            if (!inside) t_lo = t_hi = 0;
            t_lo = std::min(t_lo, run);
            t_hi = std::clamp(t_hi, t_lo, run);
            std::fill(row + j, row + j + t_lo, C(0));
            const std::byte* from = channel_base + (offset + ((at_out[last] + t_lo) * step + shift[last]) * in_step) * element;
            const int64_t from_step = step * in_step * element;
            if (std::is_same_v<T, C> && from_step == element) {
                std::memcpy(row + j + t_lo, from, static_cast<size_t>(t_hi - t_lo) * sizeof(C));
            } else {
                for (int64_t t = t_lo; t < t_hi; ++t, from += from_step) row[j + t] = load_as<T, C>(from);
            }
            std::fill(row + j + t_hi, row + j + run, C(0));
            j += run;
            at_out[last] += run;
            for (size_t d = last; d > 0 && at_out[d] == g.out_size[d]; --d) {
                at_out[d] = 0;
                ++at_out[d - 1];
            }
        }
    }
}

// Element offsets of every spatial position (row-major over `sizes`) in a tensor whose spatial
// dims start at dim 2.
std::vector<int64_t> position_offsets(const std::vector<int64_t>& sizes, const StridedTensor& t) {
    int64_t count = 1;
    for (int64_t s : sizes) count *= s;
    std::vector<int64_t> offsets(static_cast<size_t>(count));
    for (int64_t j = 0; j < count; ++j) {
        int64_t pos = j, offset = 0;
        for (size_t d = sizes.size(); d-- > 0;) {
            offset += (pos % sizes[d]) * t.strides[2 + d];
            pos /= sizes[d];
        }
        offsets[static_cast<size_t>(j)] = offset;
    }
    return offsets;
}

// The output positions one work item computes: about kColumnBlockElements elements of its
// im2col matrix (a quarter of a megabyte of floats), whatever the threads.
constexpr int64_t kColumnBlockElements = int64_t{1} << 16;

template <typename T>
void forward(const Operands& o, const ConvolutionParams& p, const Geometry& g) {
    using C = conv_compute_t<T>;
    const int64_t kernel = g.kernel_positions(), rows = g.group_in * kernel;
    const int64_t positions = g.out_positions();
    // Blocks of equal size, so that threads get equal shares.
    const int64_t wanted = std::max<int64_t>(1, (positions * std::max<int64_t>(rows, 1) + kColumnBlockElements - 1) / kColumnBlockElements);
    const int64_t blocks_wanted = std::min(wanted, (positions + 15) / 16);
    const int64_t block = (positions + blocks_wanted - 1) / blocks_wanted;
    const int64_t blocks = (positions + block - 1) / block;
    const std::vector<C> weight = pack_weight<T, C>(o, g, false);
    const std::vector<C> bias = bias_values<T, C>(o, g.out_channels);
    const size_t dims = p.dims;
    const auto out_element = static_cast<int64_t>(o.out.element_size());
    const auto in_element = static_cast<int64_t>(o.input.element_size());
    // A 1x1 convolution with unit stride and no padding reads the input as its im2col matrix.
    bool pointwise = std::is_same_v<T, C>;
    for (size_t d = 0; d < dims; ++d) {
        pointwise &= g.kernel[d] == 1 && p.stride[d] == 1 && p.padding_before[d] == 0 && p.padding_after[d] == 0;
    }
    const std::optional<int64_t> in_spatial = merged_spatial_stride(o.input, 2, dims);
    pointwise &= in_spatial && gemm_accepts(channel_matrix<C>(o.input, g.group_in, positions, *in_spatial));
    const std::optional<int64_t> out_spatial = merged_spatial_stride(o.out, 2, dims);
    const bool direct_out =
        std::is_same_v<T, C> && out_spatial && gemm_accepts(channel_matrix<C>(o.out, g.group_out, positions, *out_spatial));
    const std::vector<int64_t> out_offsets = direct_out ? std::vector<int64_t>{} : position_offsets(g.out_size, o.out);

    auto item = [&](int64_t index, std::vector<C>& columns, std::vector<C>& result) {
        const int64_t j0 = (index % blocks) * block, n_g = index / blocks;
        const int64_t grp = n_g % p.groups, n = n_g / p.groups;
        const int64_t cols = std::min(block, positions - j0);
        const std::byte* in_base = o.input.data + (n * o.input.strides[0] + grp * g.group_in * o.input.strides[1]) * in_element;
        MatrixRef<const C> b{};
        if (pointwise) {
            b = channel_matrix<const C>(o.input, rows, cols, *in_spatial, reinterpret_cast<const C*>(in_base) + j0 * *in_spatial);
        } else {
            columns.resize(static_cast<size_t>(rows * cols));
            gather_patches<T, C>(o, p, g, in_base, j0, cols, columns.data());
            b = {columns.data(), rows, cols, cols, 1};
        }
        const MatrixRef<const C> a{weight.data() + grp * g.group_out * rows, g.group_out, rows, rows, 1};
        std::byte* out_base = o.out.data + (n * o.out.strides[0] + grp * g.group_out * o.out.strides[1]) * out_element;
        if (direct_out) {
            C* c = reinterpret_cast<C*>(out_base) + j0 * *out_spatial;
            multiply<C>(a, b, channel_matrix<C>(o.out, g.group_out, cols, *out_spatial, c));
            if (o.bias) {
                for (int64_t oc = 0; oc < g.group_out; ++oc) {
                    const C add = bias[grp * g.group_out + oc];
                    for (int64_t j = 0; j < cols; ++j) c[oc * o.out.strides[1] + j * *out_spatial] += add;
                }
            }
            return;
        }
        result.resize(static_cast<size_t>(g.group_out * cols));
        multiply<C>(a, b, {result.data(), g.group_out, cols, cols, 1});
        for (int64_t j = 0; j < cols; ++j) {
            const int64_t offset = out_offsets[j0 + j];
            for (int64_t oc = 0; oc < g.group_out; ++oc) {
                // The bias is added in C before the one rounding, as PyTorch's GEMM adds it.
                const C value = bias[grp * g.group_out + oc] + result[oc * cols + j];
                store_as<T, C>(out_base + (offset + oc * o.out.strides[1]) * out_element, value);
            }
        }
    };
    const int64_t count = g.batch * p.groups * blocks;
    run_items(count, g.batch * g.out_channels * positions * rows, [&](int64_t first, int64_t last) {
        std::vector<C> columns, result;
        for (int64_t i = first; i < last; ++i) item(i, columns, result);
    });
}

// ---- Transposed ----------------------------------------------------------------------------

// Output channels one work item computes: about kColumnBlockElements elements of its columns.
// `reverse_offsets`: col2im adds in reverse order of the kernel offsets (col2im_in_reverse).
template <typename T>
void transposed(const Operands& o, const ConvolutionParams& p, const Geometry& g, bool reverse_offsets) {
    using C = conv_compute_t<T>;
    const bool in_16_bits = sums_transposed_in_16_bits<T>(p);
    // What an addition or a column element rounds to: T's values when PyTorch adds in T.
    auto round = [in_16_bits](C v) -> C {
        if constexpr (is_reduced_float_v<T>) {
            if (in_16_bits) return cast<T>(v);
        }
        return v;
    };
    const int64_t kernel = g.kernel_positions(), in_positions = g.in_positions(), out_positions = g.out_positions();
    const int64_t per_channel = std::max<int64_t>(kernel * in_positions, 1);
    const int64_t channel_block = std::clamp<int64_t>(kColumnBlockElements / per_channel, 1, std::max<int64_t>(g.group_out, 1));
    const int64_t blocks = (g.group_out + channel_block - 1) / channel_block;
    const std::vector<C> weight = pack_weight<T, C>(o, g, true);
    const std::vector<C> bias = bias_values<T, C>(o, g.out_channels);
    const size_t dims = p.dims;
    const std::vector<int64_t> out_offsets = position_offsets(g.out_size, o.out);
    const auto in_element = static_cast<int64_t>(o.input.element_size());
    const auto out_element = static_cast<int64_t>(o.out.element_size());
    const std::optional<int64_t> in_spatial = merged_spatial_stride(o.input, 2, dims);
    const bool direct_in =
        std::is_same_v<T, C> && in_spatial && gemm_accepts(channel_matrix<C>(o.input, g.group_in, in_positions, *in_spatial));
    const std::vector<int64_t> in_offsets = direct_in ? std::vector<int64_t>{} : position_offsets(g.in_size, o.input);
    // For each kernel offset and input position, the output position it adds to (-1: none).
    std::vector<int64_t> target(static_cast<size_t>(kernel * in_positions));
    for (int64_t k = 0; k < kernel; ++k) {
        std::array<int64_t, kMaxSpatialDims> shift{0, 0, 0};
        for (int64_t rest = k, d = static_cast<int64_t>(dims); d-- > 0;) {
            shift[d] = (rest % g.kernel[d]) * p.dilation[d] - p.padding_before[d];
            rest /= g.kernel[d];
        }
        for (int64_t i = 0; i < in_positions; ++i) {
            int64_t pos = i, out = 0, scale = 1;
            bool inside = true;
            for (size_t d = dims; d-- > 0;) {
                const int64_t at = (pos % g.in_size[d]) * p.stride[d] + shift[d];
                pos /= g.in_size[d];
                inside &= at >= 0 && at < g.out_size[d];
                out += at * scale;
                scale *= g.out_size[d];
            }
            target[k * in_positions + i] = inside ? out : -1;
        }
    }

    auto item = [&](int64_t index, std::vector<C>& input, std::vector<C>& columns, std::vector<C>& sums) {
        const int64_t c0 = (index % blocks) * channel_block, n_g = index / blocks;
        const int64_t grp = n_g % p.groups, n = n_g / p.groups;
        const int64_t channels = std::min(channel_block, g.group_out - c0);
        const std::byte* in_base = o.input.data + (n * o.input.strides[0] + grp * g.group_in * o.input.strides[1]) * in_element;
        MatrixRef<const C> b{};
        if (direct_in) {
            b = channel_matrix<const C>(o.input, g.group_in, in_positions, *in_spatial, reinterpret_cast<const C*>(in_base));
        } else {
            input.resize(static_cast<size_t>(g.group_in * in_positions));
            for (int64_t c = 0; c < g.group_in; ++c) {
                const std::byte* channel_in = in_base + c * o.input.strides[1] * in_element;
                for (int64_t i = 0; i < in_positions; ++i) {
                    input[c * in_positions + i] = load_as<T, C>(channel_in + in_offsets[i] * in_element);
                }
            }
            b = {input.data(), g.group_in, in_positions, in_positions, 1};
        }
        const int64_t rows = channels * kernel;
        columns.resize(static_cast<size_t>(rows * in_positions));
        const MatrixRef<const C> a{weight.data() + (grp * g.group_out + c0) * kernel * g.group_in, rows, g.group_in,
                                   g.group_in, 1};
        multiply<C>(a, b, {columns.data(), rows, in_positions, in_positions, 1});
        // col2im: each channel's kernel offsets in the order PyTorch adds them (in 16 bits, the
        // order decides the rounding).
        sums.assign(static_cast<size_t>(out_positions), C(0));
        std::byte* out_base = o.out.data + (n * o.out.strides[0] + (grp * g.group_out + c0) * o.out.strides[1]) * out_element;
        for (int64_t oc = 0; oc < channels; ++oc) {
            std::fill(sums.begin(), sums.end(), C(0));
            const C* channel_columns = columns.data() + oc * kernel * in_positions;
            for (int64_t step = 0; step < kernel; ++step) {
                const int64_t k = reverse_offsets ? kernel - 1 - step : step;
                const int64_t* to = target.data() + k * in_positions;
                const C* from = channel_columns + k * in_positions;
                for (int64_t i = 0; i < in_positions; ++i) {
                    if (to[i] >= 0) sums[to[i]] = round(sums[to[i]] + round(from[i]));
                }
            }
            const C add = bias[grp * g.group_out + c0 + oc];
            std::byte* channel_out = out_base + oc * o.out.strides[1] * out_element;
            for (int64_t j = 0; j < out_positions; ++j) {
                store_as<T, C>(channel_out + out_offsets[j] * out_element, o.bias ? sums[j] + add : sums[j]);
            }
        }
    };
    const int64_t count = g.batch * p.groups * blocks;
    run_items(count, g.batch * g.out_channels * kernel * in_positions * g.group_in, [&](int64_t first, int64_t last) {
        std::vector<C> input, columns, sums;
        for (int64_t i = first; i < last; ++i) item(i, input, columns, sums);
    });
}

// ---- The kernels ---------------------------------------------------------------------------

std::vector<RuntimeValue> convolution(const KernelCall& call, Form form) {
    const StridedTensor& input = call.tensor("input", 0);
    const StridedTensor& weight = call.tensor("weight", 1);
    const std::optional<StridedTensor> bias = call.optional_tensor("bias", 2);
    const ConvolutionParams p = read_params(call, form, input, weight);
    if (input.dtype != weight.dtype || (bias && bias->dtype != input.dtype)) {
        call.fail("Input type (" + std::string(dtype_name(input.dtype)) + ") and weight type (" +
                  std::string(dtype_name(weight.dtype)) + ")" +
                  (bias ? " and bias type (" + std::string(dtype_name(bias->dtype)) + ")" : std::string()) +
                  " should be the same");
    }
    const DType dtype = input.dtype;
    // PyTorch's CPU kernels: slow_conv2d/3d and the dilated ones take every integer dtype but
    // not bool; slow_conv_transpose takes int64 among the integers.
    if (dtype == DType::Bool || dtype == DType::UInt16 ||
        (p.transposed && dtype_is_integer(dtype) && dtype != DType::Int64)) {
        call.fail(std::string(p.transposed ? "a transposed" : "a") + " convolution of " + std::string(dtype_name(dtype)) +
                  " tensors is not implemented on CPU (as in PyTorch)");
    }
    const Geometry g = check_geometry(call, p, input, weight, bias);
    std::vector<int64_t> out_sizes;
    if (p.batched) out_sizes.push_back(g.batch);
    out_sizes.push_back(g.out_channels);
    out_sizes.insert(out_sizes.end(), g.out_size.begin(), g.out_size.end());
    // A forward convolution of an input without channels gives no channels either in eager
    // (its "empty" backend), whatever the weight's first dim says.
    if (!p.transposed && g.in_channels == 0) out_sizes[p.batched ? 1 : 0] = 0;
    StridedTensor out = allocate_output_for_overwrite(call, 0, out_sizes, dtype);
    if (out.numel() == 0) return single(out);

    Operands o{input, weight, out, bias};
    if (!p.batched) {
        auto batch_of_one = [](const StridedTensor& t) {
            std::vector<int64_t> sizes = t.sizes, strides = t.strides;
            sizes.insert(sizes.begin(), 1);
            strides.insert(strides.begin(), 0);
            return t.view(sizes, strides);
        };
        o.input = batch_of_one(input);
        o.out = batch_of_one(out);
    }
    visit_dtype(dtype, [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, uint16_t>) {
            if (p.transposed) {
                const bool reverse = sums_transposed_in_16_bits<T>(p) && col2im_in_reverse(call, p, g, input, weight);
                transposed<T>(o, p, g, reverse);
            } else {
                forward<T>(o, p, g);
            }
        }
    });
    return single(out);
}

// convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding,
//             SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups)
std::vector<RuntimeValue> convolution_kernel(const KernelCall& call) { return convolution(call, Form::Convolution); }
// conv1d/2d/3d(input, weight, bias=None, stride=1, padding=0 (or 'valid'/'same'), dilation=1, groups=1)
std::vector<RuntimeValue> conv_nd(const KernelCall& call) { return convolution(call, Form::Forward); }
// conv_transpose1d/2d/3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1)
std::vector<RuntimeValue> conv_transpose_nd(const KernelCall& call) { return convolution(call, Form::Transposed); }

// [N, C_out, spatial...] from a weight [C_out, C_in / groups, k...] (transposed: [C_in,
// C_out / groups, k...]), as meta_conv computes it; conv*d and conv_transpose*d also take an
// unbatched input (no N), which aten.convolution does not. padding='same' keeps the spatial sizes
// (stride 1), 'valid' pads none.
std::optional<std::vector<ExpectedSizes>> convolution_shape(const ShapeQuery& query) {
    const auto input = query.sizes("input", 0), weight = query.sizes("weight", 1);
    if (!input || !weight || weight->size() < 3 || !query.node().schema) return std::nullopt;
    const graph::OpId op = query.node().op;
    const bool core = op == graph::op_id("aten.convolution.default");
    const bool transposed = core ? query.int_arg("transposed", 6).value_or(0) != 0
                                 : graph::op_target(op).starts_with("aten.conv_transpose");
    const size_t spatial = weight->size() - 2;
    const bool batched = input->size() == spatial + 2;
    if (!batched && (core || input->size() != spatial + 1)) {
        query.contradiction(fmt::format("its input of rank {} is not a {} for a weight of rank {}", input->size(),
                                        core ? "batch" : "batch or an unbatched sample", weight->size()));
    }
    const size_t channel_dim = batched ? 1 : 0;
    const auto groups = query.int_arg("groups", core ? 8 : 6);
    const auto channels = (*input)[channel_dim];
    // meta_conv checks the channels of a forward convolution only (a transposed one's are left to
    // the kernel), and gives an input of no channels an output of none.
    const auto takes = (*weight)[1] && groups ? std::optional<int64_t>(*(*weight)[1] * *groups) : std::nullopt;
    if (!transposed && channels && takes && *channels != *takes) {
        query.contradiction(fmt::format("its input has {} channels where its weight takes {}", *channels, *takes));
    }
    ExpectedSizes out(input->begin(), input->begin() + static_cast<std::ptrdiff_t>(channel_dim));
    out.push_back(channels == 0 ? std::optional<int64_t>(0) : transposed ? takes : (*weight)[0]);
    const auto stride = ints_per_dim(query, "stride", 3, spatial);
    const auto dilation = ints_per_dim(query, "dilation", transposed && !core ? 7 : 5, spatial);
    const graph::Argument& padding_arg = query.node().arg(*query.node().schema->position_of(ArgName("padding").id()));
    const bool same = padding_arg.kind == graph::Argument::Kind::String && padding_arg.string_value == "same";
    const auto padding = padding_arg.kind == graph::Argument::Kind::String ? std::optional(std::vector<int64_t>(spatial, 0))
                                                                           : ints_per_dim(query, "padding", 4, spatial);
    const auto output_padding =
        transposed ? ints_per_dim(query, "output_padding", core ? 7 : 5, spatial) : std::optional(std::vector<int64_t>(spatial, 0));
    for (size_t d = 0; d < spatial; ++d) {
        const auto in = (*input)[channel_dim + 1 + d], kernel = (*weight)[2 + d];
        if (same) {
            out.push_back(in);
        } else if (!stride || !dilation || !padding || !output_padding || !kernel) {
            out.push_back(std::nullopt);
        } else if (!transposed) {
            out.push_back(sliding_window_size(query, in, *kernel, (*stride)[d], (*padding)[d], (*dilation)[d]));
        } else if (in) {
            out.push_back((*in - 1) * (*stride)[d] - 2 * (*padding)[d] + (*dilation)[d] * (*kernel - 1) + (*output_padding)[d] + 1);
        } else {
            out.push_back(std::nullopt);
        }
    }
    return std::vector<ExpectedSizes>{out};
}

PT2OV_KERNEL("aten.convolution.default", convolution_kernel, convolution_shape);
PT2OV_KERNEL("aten.conv1d", conv_nd, convolution_shape);
PT2OV_KERNEL("aten.conv2d", conv_nd, convolution_shape);
PT2OV_KERNEL("aten.conv3d", conv_nd, convolution_shape);
PT2OV_KERNEL("aten.conv_transpose1d", conv_transpose_nd, convolution_shape);
PT2OV_KERNEL("aten.conv_transpose2d", conv_transpose_nd, convolution_shape);
PT2OV_KERNEL("aten.conv_transpose3d", conv_transpose_nd, convolution_shape);

}  // namespace
}  // namespace pt2ov::kernels
