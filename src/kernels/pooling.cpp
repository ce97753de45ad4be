// Pooling layers OpenVINO has no converter for, or whose converter fails or rounds: max_unpool
// (2-d, 3-d), avg_pool2d/3d (every ceil_mode, count_include_pad and
// divisor_override; integer inputs truncate the mean as PyTorch's integer division does,
// where OpenVINO rounds it: openvino_facts IntegerAvgPoolRounds), im2col and col2im; and the
// pools every CNN has, for the all-CPU plan a call with NaN or inf takes (OpenVINO's max pooling
// skips NaN): max_pool2d/3d_with_indices (max_pool1d and max_pool2d reach them decomposed),
// adaptive_avg_pool2d/3d and adaptive_max_pool2d/3d, as PyTorch's CPU kernels compute them
// (MaxPoolKernel.cpp, AdaptiveAvgPoolKernel.cpp, AdaptiveMaxPoolKernel.cpp): a NaN in a window
// is its maximum, the last NaN's index; a window of -inf (or of the integer minimum) gives its
// first position. avg_pool sums floating inputs in double and rounds once, integer ones in int64;
// adaptive_avg_pool sums in PyTorch's order and divides by each window extent in turn, as its
// kernels do: 2-d in float for float16 and bfloat16, 3-d in the input's type.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/contracts.h"
#include "kernels/layer_common.h"

namespace pt2ov::kernels {
namespace {

// A [N, C, spatial...] or unbatched [C, spatial...] input seen as planes of spatial elements.
struct Planes {
    bool batched = true;
    int64_t count = 0;            // N * C
    std::vector<int64_t> leading; // the sizes before the spatial dims
    std::vector<int64_t> spatial;
};

Planes planes_of(const KernelCall& call, const std::vector<int64_t>& sizes, size_t spatial) {
    if (sizes.size() != spatial + 1 && sizes.size() != spatial + 2) {
        call.fail("expects a " + std::to_string(spatial + 1) + "-d or " + std::to_string(spatial + 2) + "-d input, got shape " +
                  shape_text(sizes));
    }
    Planes p;
    p.batched = sizes.size() == spatial + 2;
    const size_t lead = sizes.size() - spatial;
    p.leading.assign(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(lead));
    p.spatial.assign(sizes.begin() + static_cast<std::ptrdiff_t>(lead), sizes.end());
    p.count = product(p.leading);
    return p;
}

std::vector<int64_t> with_leading(const Planes& p, const std::vector<int64_t>& spatial) {
    auto sizes = p.leading;
    sizes.insert(sizes.end(), spatial.begin(), spatial.end());
    return sizes;
}

// An int[S] argument given as one value or S values.
std::vector<int64_t> per_dim(const KernelCall& call, ArgName name, size_t position, size_t spatial,
                             std::vector<int64_t> fallback) {
    auto values = call.ints(name, position, fallback);
    if (values.size() == 1) values.assign(spatial, values[0]);
    if (values.size() != spatial) {
        call.fail("argument '" + std::string(name.text()) + "' needs 1 or " + std::to_string(spatial) + " values, got " +
                  std::to_string(values.size()));
    }
    return values;
}

// A pooling's stride (argument 2): one value or one per spatial dim; empty or absent, the kernel's.
std::vector<int64_t> pool_stride(const KernelCall& call, const std::vector<int64_t>& kernel, size_t spatial) {
    if (call.ints("stride", 2, {}).empty()) return kernel;
    return per_dim(call, "stride", 2, spatial, {});
}

// Visits the elements of `sizes` (row-major), giving the flat index and the multi-index.
template <typename Body>
void for_each_index(const std::vector<int64_t>& sizes, Body&& body) {
    const int64_t total = product(sizes);
    std::vector<int64_t> index(sizes.size(), 0);
    for (int64_t k = 0; k < total; ++k) {
        body(k, index);
        for (size_t d = sizes.size(); d-- > 0;) {
            if (++index[d] < sizes[d]) break;
            index[d] = 0;
        }
    }
}

// ---- max_unpool ----------------------------------------------------------------------------

std::vector<RuntimeValue> max_unpool(const KernelCall& call, size_t spatial) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& indices = call.tensor("indices", 1);
    const auto output_size = call.ints("output_size", 2);
    if (indices.dtype != DType::Int64) call.fail("expects int64 indices, got " + std::string(dtype_name(indices.dtype)));
    if (indices.sizes != self.sizes) {
        call.fail("expects indices of the input's shape " + shape_text(self.sizes) + ", got " + shape_text(indices.sizes));
    }
    if (output_size.size() != spatial) call.fail("output_size needs " + std::to_string(spatial) + " values");
    const Planes planes = planes_of(call, self.sizes, spatial);
    for (auto s : output_size) {
        if (s < 0) call.fail("output_size must not be negative");
    }
    const int64_t in_plane = product(planes.spatial), out_plane = product(output_size);
    const auto out_sizes = with_leading(planes, output_size);
    StridedTensor dense = StridedTensor::allocate(self.dtype, out_sizes);  // zero-filled
    const auto where = dense_int64(indices);
    const auto from = byte_offsets(self.sizes, self.strides, self.element_size());
    const size_t element = self.element_size();
    for (int64_t plane = 0; plane < planes.count; ++plane) {
        for (int64_t i = 0; i < in_plane; ++i) {
            const int64_t k = plane * in_plane + i;
            const int64_t target = where[static_cast<size_t>(k)];
            if (target < 0 || target >= out_plane) {
                call.fail("found an invalid max index " + std::to_string(target) + " (output plane of " +
                          std::to_string(out_plane) + " elements)");
            }
            std::memcpy(dense.data + (plane * out_plane + target) * static_cast<int64_t>(element),
                        self.data + from[static_cast<size_t>(k)], element);
        }
    }
    StridedTensor out = allocate_output(call, 0, out_sizes, self.dtype);
    copy_into(dense, out);
    return single(std::move(out));
}

// ---- avg_pool ------------------------------------------------------------------------------

int64_t floor_div(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// pooling_output_shape (ATen/native/Pool.h).
int64_t pooled_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride, bool ceil_mode, int64_t dilation = 1) {
    int64_t out = floor_div(in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
    if (ceil_mode && (out - 1) * stride >= in + pad) --out;  // the last window starts inside the input
    return out;
}

template <typename Acc>
std::vector<Acc> avg_pool_planes(const std::vector<Acc>& input, const Planes& planes, const std::vector<int64_t>& out,
                                 const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& pad, bool count_include_pad, std::optional<int64_t> divisor) {
    const size_t rank = planes.spatial.size();
    const int64_t in_plane = product(planes.spatial), out_plane = product(out);
    std::vector<int64_t> in_strides(rank, 1);
    for (size_t d = rank - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * planes.spatial[d];
    int64_t out_count = 0;
    if (__builtin_mul_overflow(planes.count, out_plane, &out_count) || out_count > (int64_t{1} << 36)) {
        throw UnsupportedError("an output of " + std::to_string(planes.count) + " planes of " + shape_text(out) + " is larger than pt2ov computes");
    }
    std::vector<Acc> result(static_cast<size_t>(out_count), Acc(0));
    std::vector<int64_t> lo(rank), hi(rank);
    for_each_index(out, [&](int64_t k, const std::vector<int64_t>& o) {
        int64_t pool_size = 1, inside = 1;
        for (size_t d = 0; d < rank; ++d) {
            lo[d] = o[d] * stride[d] - pad[d];
            hi[d] = std::min(lo[d] + kernel[d], planes.spatial[d] + pad[d]);
            pool_size *= hi[d] - lo[d];
            lo[d] = std::max<int64_t>(lo[d], 0);
            hi[d] = std::min(hi[d], planes.spatial[d]);
            inside *= std::max<int64_t>(hi[d] - lo[d], 0);
        }
        if (inside == 0) return;  // a window wholly in the padding gives 0, as PyTorch's kernel does
        const int64_t by = divisor ? *divisor : (count_include_pad ? pool_size : inside);
        std::vector<int64_t> window(rank);
        for (size_t d = 0; d < rank; ++d) window[d] = hi[d] - lo[d];
        for (int64_t plane = 0; plane < planes.count; ++plane) {
            const Acc* base = input.data() + plane * in_plane;
            // An int64 sum wraps as PyTorch's does: added as unsigned, where wrapping is defined
            // (a signed overflow is undefined behaviour, which UBSan reported on INT64_MAX).
            using Sum = typename std::conditional_t<std::is_integral_v<Acc>, std::make_unsigned<Acc>, std::type_identity<Acc>>::type;
            Sum sum = 0;
            for_each_index(window, [&](int64_t, const std::vector<int64_t>& w) {
                int64_t offset = 0;
                for (size_t d = 0; d < rank; ++d) offset += (lo[d] + w[d]) * in_strides[d];
                sum += static_cast<Sum>(base[offset]);
            });
            result[static_cast<size_t>(plane * out_plane + k)] = static_cast<Acc>(sum) / static_cast<Acc>(by);
        }
    });
    return result;
}

std::vector<RuntimeValue> avg_pool(const KernelCall& call, size_t spatial) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto kernel = per_dim(call, "kernel_size", 1, spatial, {});
    const auto stride = pool_stride(call, kernel, spatial);
    const auto pad = per_dim(call, "padding", 3, spatial, {0});
    const bool ceil_mode = call.bool_arg("ceil_mode", 4, false);
    const bool count_include_pad = call.bool_arg("count_include_pad", 5, true);
    std::optional<int64_t> divisor;
    if (call.has("divisor_override", 6)) divisor = call.int_arg("divisor_override", 6);
    if (self.dtype == DType::Bool) call.fail("does not pool bool tensors");
    if (divisor && *divisor == 0) call.fail("divisor_override must not be zero");
    const Planes planes = planes_of(call, self.sizes, spatial);
    std::vector<int64_t> out;
    for (size_t d = 0; d < spatial; ++d) {
        if (kernel[d] <= 0 || stride[d] <= 0 || pad[d] < 0) call.fail("needs positive kernel sizes and strides and non-negative padding");
        if (pad[d] > kernel[d] / 2) call.fail("padding should be at most half of the kernel size");
        out.push_back(pooled_size(planes.spatial[d], kernel[d], pad[d], stride[d], ceil_mode));
        if (out.back() <= 0) call.fail("the output would be empty for an input of shape " + shape_text(self.sizes));
    }
    const auto out_sizes = with_leading(planes, out);
    const DType dtype = call.output_meta(0).dtype;
    if (dtype_is_integer(self.dtype)) {
        const auto result = avg_pool_planes<int64_t>(dense_int64(self), planes, out, kernel, stride, pad, count_include_pad, divisor);
        return single(output_of_values<int64_t>(call, 0, result, out_sizes, dtype));
    }
    const auto result = avg_pool_planes<double>(dense_values<double>(self), planes, out, kernel, stride, pad, count_include_pad, divisor);
    return single(output_of_values<double>(call, 0, result, out_sizes, dtype));
}

// ---- windowed max and mean: max_pool, adaptive_max_pool, adaptive_avg_pool --------------------
// 1 to 3 spatial dims, walked as 3 (a 2-d pool has one depth position). Inputs and outputs are
// read and written in place through their strides, plane by plane (a plane: one index of the
// leading batch and channel dims); planes are independent and split over threads.

constexpr size_t kMaxSpatial = 3;

// The input positions of one output position's window along one spatial dim: from `first` up to
// `end` (exclusive) by `step`.
struct Span {
    int64_t first = 0, end = 1, step = 1;
};
using Spans = std::array<std::vector<Span>, kMaxSpatial>;

// max_pool's windows along one dim (cpu_max_pool): the window starts at o * stride - pad and ends
// past its last tap or at the input's end; taps in the padding are skipped by whole dilations.
std::vector<Span> max_pool_spans(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
    std::vector<Span> spans(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
        Span& s = spans[static_cast<size_t>(o)];
        s.first = o * stride - pad;
        s.end = std::min(s.first + (kernel - 1) * dilation + 1, in);
        s.step = dilation;
        while (s.first < 0) s.first += dilation;
    }
    return spans;
}

// Adaptive pooling's windows (AdaptivePooling.h): [floor(o * in / out), ceil((o + 1) * in / out)).
std::vector<Span> adaptive_spans(int64_t in, int64_t out) {
    std::vector<Span> spans(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
        spans[static_cast<size_t>(o)] = Span{(o / out) * in + ((o % out) * in) / out, 1 + ((o + 1) * in - 1) / out, 1};
    }
    return spans;
}

// A tensor of [leading..., spatial...] as planes: each plane's byte offset and the byte strides of
// its spatial dims, padded at the front to 3 (stride 0 for a missing dim).
struct PlaneLayout {
    std::vector<int64_t> planes;
    std::array<int64_t, kMaxSpatial> strides{0, 0, 0};
};

PlaneLayout plane_layout(const StridedTensor& t, size_t spatial) {
    const size_t lead = t.rank() - spatial;
    const auto element = static_cast<int64_t>(t.element_size());
    PlaneLayout layout;
    layout.planes = byte_offsets(std::vector<int64_t>(t.sizes.begin(), t.sizes.begin() + static_cast<std::ptrdiff_t>(lead)),
                                 std::vector<int64_t>(t.strides.begin(), t.strides.begin() + static_cast<std::ptrdiff_t>(lead)),
                                 t.element_size());
    for (size_t d = 0; d < spatial; ++d) layout.strides[kMaxSpatial - spatial + d] = t.strides[lead + d] * element;
    return layout;
}

// The input's spatial sizes padded at the front to 3 (size 1).
std::array<int64_t, kMaxSpatial> spatial3(const std::vector<int64_t>& spatial) {
    std::array<int64_t, kMaxSpatial> in{1, 1, 1};
    for (size_t d = 0; d < spatial.size(); ++d) in[kMaxSpatial - spatial.size() + d] = spatial[d];
    return in;
}

// Calls body(plane, output position (3 indices), spans) for every plane and output position,
// planes split over threads (the work of a plane: its outputs times their windows).
template <typename Body>
void for_each_window(int64_t planes, const Spans& spans, Body&& body) {
    int64_t per_plane = 1;
    for (const auto& along : spans) {
        int64_t taps = 0;
        for (const Span& s : along) taps += std::max<int64_t>(0, (s.end - s.first + s.step - 1) / s.step);
        per_plane = std::min<int64_t>(per_plane * std::max<int64_t>(taps, 1), kParallelMinElements);
    }
    parallel_ranges(planes, std::max<int64_t>(1, kParallelMinElements / per_plane), [&](int64_t first, int64_t last) {
        for (int64_t p = first; p < last; ++p) {
            for (size_t z = 0; z < spans[0].size(); ++z) {
                for (size_t y = 0; y < spans[1].size(); ++y) {
                    for (size_t x = 0; x < spans[2].size(); ++x) body(p, z, y, x, spans[0][z], spans[1][y], spans[2][x]);
                }
            }
        }
    });
}

// The maximum of each window and its position in the plane (z * H + y) * W + x, as PyTorch's
// kernels find it: a value above the maximum so far or any NaN takes its place (so NaN wins, its
// last occurrence), starting from -inf (the type's lowest for integers) at the window's first tap.
template <typename T>
void max_over_windows(const StridedTensor& self, const std::vector<int64_t>& spatial, const Spans& spans, StridedTensor& values,
                      StridedTensor* indices) {
    using V = compute_t<T>;
    const PlaneLayout in = plane_layout(self, spatial.size()), out = plane_layout(values, spatial.size());
    const PlaneLayout at = indices ? plane_layout(*indices, spatial.size()) : PlaneLayout{};
    const auto size = spatial3(spatial);
    const V lowest = std::numeric_limits<V>::has_infinity ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::lowest();
    for_each_window(static_cast<int64_t>(in.planes.size()), spans,
                    [&](int64_t p, size_t oz, size_t oy, size_t ox, const Span& sz, const Span& sy, const Span& sx) {
                        const std::byte* base = self.data + in.planes[static_cast<size_t>(p)];
                        V best = lowest;
                        int64_t where = (sz.first * size[1] + sy.first) * size[2] + sx.first;
                        for (int64_t z = sz.first; z < sz.end; z += sz.step) {
                            for (int64_t y = sy.first; y < sy.end; y += sy.step) {
                                const std::byte* row = base + z * in.strides[0] + y * in.strides[1];
                                for (int64_t x = sx.first; x < sx.end; x += sx.step) {
                                    const V v = load<T>(row + x * in.strides[2]);
                                    if (v > best || is_nan(v)) {
                                        best = v;
                                        where = (z * size[1] + y) * size[2] + x;
                                    }
                                }
                            }
                        }
                        const auto o = static_cast<int64_t>(oz), q = static_cast<int64_t>(oy), r = static_cast<int64_t>(ox);
                        store<T>(values.data + out.planes[static_cast<size_t>(p)] + o * out.strides[0] + q * out.strides[1] +
                                     r * out.strides[2],
                                 best);
                        if (indices) {
                            store<int64_t>(indices->data + at.planes[static_cast<size_t>(p)] + o * at.strides[0] + q * at.strides[1] +
                                               r * at.strides[2],
                                           where);
                        }
                    });
}

// The mean of each window, as PyTorch's kernels compute it: 2-d sums in the opmath type (float
// for float16 and bfloat16) and divides by each extent in turn (sum / kh / kw); 3-d does the same
// in the input's own type, rounding every addition and division for float16 and bfloat16
// (cpu_adaptive_avg_pool3d accumulates in scalar_t).
template <typename T>
void mean_over_windows(const StridedTensor& self, const std::vector<int64_t>& spatial, const Spans& spans, StridedTensor& values) {
    using V = compute_t<T>;
    const PlaneLayout in = plane_layout(self, spatial.size()), out = plane_layout(values, spatial.size());
    const size_t first_dim = kMaxSpatial - spatial.size();
    const bool round_each_step = spatial.size() == 3;
    const auto rounded = [&](V v) { return round_each_step ? cast<T>(v) : v; };
    for_each_window(static_cast<int64_t>(in.planes.size()), spans,
                    [&](int64_t p, size_t oz, size_t oy, size_t ox, const Span& sz, const Span& sy, const Span& sx) {
                        const std::byte* base = self.data + in.planes[static_cast<size_t>(p)];
                        V sum = 0;
                        for (int64_t z = sz.first; z < sz.end; ++z) {
                            for (int64_t y = sy.first; y < sy.end; ++y) {
                                const std::byte* row = base + z * in.strides[0] + y * in.strides[1];
                                for (int64_t x = sx.first; x < sx.end; ++x) sum = rounded(sum + load<T>(row + x * in.strides[2]));
                            }
                        }
                        const Span* window[kMaxSpatial] = {&sz, &sy, &sx};
                        for (size_t d = first_dim; d < kMaxSpatial; ++d) {
                            sum = rounded(sum / static_cast<V>(window[d]->end - window[d]->first));
                        }
                        store<T>(values.data + out.planes[static_cast<size_t>(p)] + static_cast<int64_t>(oz) * out.strides[0] +
                                     static_cast<int64_t>(oy) * out.strides[1] + static_cast<int64_t>(ox) * out.strides[2],
                                 sum);
                    });
}

// Whether the node names output `index` (an unused return of a decomposition is None).
bool names_output(const KernelCall& call, size_t index) {
    const auto& outputs = call.node().outputs;
    return index < outputs.size() && outputs[index].kind == graph::Argument::Kind::Tensor;
}

// The outputs of a pool: values of the input's dtype and, where the node names them, int64
// indices, in the layouts torch.export recorded.
struct PoolOutputs {
    StridedTensor values;
    std::optional<StridedTensor> indices;

    std::vector<RuntimeValue> returned() {
        std::vector<RuntimeValue> result{RuntimeValue::of(std::move(values))};
        result.push_back(indices ? RuntimeValue::of(std::move(*indices)) : RuntimeValue{});
        return result;
    }
};

PoolOutputs pool_outputs(const KernelCall& call, const StridedTensor& self, const std::vector<int64_t>& sizes, bool with_indices) {
    if (call.output_meta(0).dtype != self.dtype) {
        call.fail("records a " + std::string(dtype_name(call.output_meta(0).dtype)) + " result for a " +
                  std::string(dtype_name(self.dtype)) + " input");
    }
    PoolOutputs outs{allocate_output_for_overwrite(call, 0, sizes, self.dtype), std::nullopt};
    if (with_indices && names_output(call, 1)) {
        if (call.output_meta(1).dtype != DType::Int64) call.fail("records indices that are not int64");
        outs.indices = allocate_output_for_overwrite(call, 1, sizes, DType::Int64);
    }
    return outs;
}

// The input's planes, with every non-batch dim non-empty, as PyTorch's shape checks require.
Planes pooled_planes(const KernelCall& call, const StridedTensor& self, size_t spatial) {
    const Planes planes = planes_of(call, self.sizes, spatial);
    for (size_t d = planes.batched ? 1 : 0; d < self.rank(); ++d) {
        if (self.sizes[d] == 0) call.fail("expects non-empty non-batch dims, got shape " + shape_text(self.sizes));
    }
    return planes;
}

// max_pool{2,3}d_with_indices(self, kernel_size, stride=[] (the kernel's), padding=0, dilation=1,
// ceil_mode=False) -> (values, indices).
std::vector<RuntimeValue> max_pool(const KernelCall& call, size_t spatial) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto kernel = per_dim(call, "kernel_size", 1, spatial, {});
    const auto stride = pool_stride(call, kernel, spatial);
    const auto pad = per_dim(call, "padding", 3, spatial, {0});
    const auto dilation = per_dim(call, "dilation", 4, spatial, {1});
    const bool ceil_mode = call.bool_arg("ceil_mode", 5, false);
    if (self.dtype == DType::Bool) call.fail("does not pool bool tensors");
    const Planes planes = pooled_planes(call, self, spatial);
    constexpr int64_t kLargest = int64_t{1} << 30;  // keeps the window arithmetic in range
    Spans spans;
    std::vector<int64_t> out;
    for (size_t d = 0; d < spatial; ++d) {
        if (kernel[d] <= 0 || stride[d] <= 0 || dilation[d] <= 0 || pad[d] < 0) {
            call.fail("needs positive kernel sizes, strides and dilations and non-negative padding");
        }
        if (kernel[d] > kLargest || stride[d] > kLargest || dilation[d] > kLargest) {
            call.fail("kernel_size, stride and dilation must be below 2**30");
        }
        if (pad[d] > kernel[d] / 2) call.fail("padding should be at most half of the kernel size");
        out.push_back(pooled_size(planes.spatial[d], kernel[d], pad[d], stride[d], ceil_mode, dilation[d]));
        if (out.back() <= 0) call.fail("the output would be empty for an input of shape " + shape_text(self.sizes));
        spans[kMaxSpatial - spatial + d] = max_pool_spans(planes.spatial[d], out.back(), kernel[d], stride[d], pad[d], dilation[d]);
    }
    for (size_t d = 0; d < kMaxSpatial - spatial; ++d) spans[d] = {Span{}};
    PoolOutputs outs = pool_outputs(call, self, with_leading(planes, out), true);
    visit_dtype(self.dtype, [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool>) {
            max_over_windows<T>(self, planes.spatial, spans, outs.values, outs.indices ? &*outs.indices : nullptr);
        }
    });
    return outs.returned();
}

// adaptive_{avg,max}_pool{1,2,3}d(self, output_size): windows that tile the input as PyTorch's
// start/end index rule cuts it.
template <bool kMax>
std::vector<RuntimeValue> adaptive_pool(const KernelCall& call, size_t spatial) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto out = per_dim(call, "output_size", 1, spatial, {});
    if (!dtype_is_floating(self.dtype)) call.fail("expects a floating input, got " + std::string(dtype_name(self.dtype)));
    const Planes planes = planes_of(call, self.sizes, spatial);
    Spans spans;
    for (size_t d = 0; d < kMaxSpatial - spatial; ++d) spans[d] = {Span{}};
    for (size_t d = 0; d < spatial; ++d) {
        if (out[d] < 0) call.fail("output_size must not be negative");
        if (planes.spatial[d] == 0 && out[d] > 0) call.fail("expects non-empty spatial dims, got " + shape_text(self.sizes));
        spans[kMaxSpatial - spatial + d] = adaptive_spans(planes.spatial[d], out[d]);
    }
    PoolOutputs outs = pool_outputs(call, self, with_leading(planes, out), kMax);
    visit_floating(self.dtype, [&]<typename T>() {
        if constexpr (kMax) {
            max_over_windows<T>(self, planes.spatial, spans, outs.values, outs.indices ? &*outs.indices : nullptr);
        } else {
            mean_over_windows<T>(self, planes.spatial, spans, outs.values);
        }
    });
    if constexpr (kMax) return outs.returned();
    return single(std::move(outs.values));
}

// ---- im2col / col2im -----------------------------------------------------------------------

struct Patches {
    int64_t kh, kw, dh, dw, ph, pw, sh, sw;
    int64_t blocks_h = 0, blocks_w = 0;  // sliding positions
};

Patches patches_of(const KernelCall& call, size_t kernel_pos, size_t dilation_pos, size_t padding_pos, size_t stride_pos,
                   int64_t height, int64_t width) {
    const auto k = per_dim(call, "kernel_size", kernel_pos, 2, {});
    const auto d = per_dim(call, "dilation", dilation_pos, 2, {});
    const auto p = per_dim(call, "padding", padding_pos, 2, {});
    const auto s = per_dim(call, "stride", stride_pos, 2, {});
    Patches x{k[0], k[1], d[0], d[1], p[0], p[1], s[0], s[1]};
    if (x.kh <= 0 || x.kw <= 0 || x.dh <= 0 || x.dw <= 0 || x.sh <= 0 || x.sw <= 0 || x.ph < 0 || x.pw < 0) {
        call.fail("needs positive kernel_size, dilation and stride and non-negative padding");
    }
    constexpr int64_t kLargest = int64_t{1} << 30;  // keeps the window arithmetic below in range
    if (x.kh > kLargest || x.kw > kLargest || x.dh > kLargest || x.dw > kLargest || x.ph > kLargest || x.pw > kLargest) {
        call.fail("kernel_size, dilation and padding must be below 2**30");
    }
    x.blocks_h = (height + 2 * x.ph - (x.dh * (x.kh - 1) + 1)) / x.sh + 1;
    x.blocks_w = (width + 2 * x.pw - (x.dw * (x.kw - 1) + 1)) / x.sw + 1;
    if (height + 2 * x.ph - (x.dh * (x.kh - 1) + 1) < 0 || width + 2 * x.pw - (x.dw * (x.kw - 1) + 1) < 0 || x.blocks_h <= 0 ||
        x.blocks_w <= 0) {
        call.fail("the kernel does not fit in the padded input of " + std::to_string(height) + "x" + std::to_string(width));
    }
    return x;
}

// Calls body(row, column, y, x) for each patch element that lies inside the image.
template <typename Body>
void for_each_patch_element(const Patches& x, int64_t height, int64_t width, Body&& body) {
    for (int64_t i = 0; i < x.kh; ++i) {
        for (int64_t j = 0; j < x.kw; ++j) {
            for (int64_t bh = 0; bh < x.blocks_h; ++bh) {
                const int64_t y = bh * x.sh - x.ph + i * x.dh;
                if (y < 0 || y >= height) continue;
                for (int64_t bw = 0; bw < x.blocks_w; ++bw) {
                    const int64_t xx = bw * x.sw - x.pw + j * x.dw;
                    if (xx < 0 || xx >= width) continue;
                    body(i * x.kw + j, bh * x.blocks_w + bw, y, xx);
                }
            }
        }
    }
}

std::vector<RuntimeValue> im2col(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const Planes planes = planes_of(call, self.sizes, 2);
    const int64_t n = planes.batched ? self.sizes[0] : 1, channels = planes.leading.back();
    const int64_t height = planes.spatial[0], width = planes.spatial[1];
    if (channels == 0 || height == 0 || width == 0) call.fail("expects non-empty channel and spatial dims");
    const Patches x = patches_of(call, 1, 2, 3, 4, height, width);
    const int64_t rows = channels * x.kh * x.kw, columns = x.blocks_h * x.blocks_w;
    std::vector<int64_t> out_sizes{rows, columns};
    if (planes.batched) out_sizes.insert(out_sizes.begin(), n);
    StridedTensor dense = StridedTensor::allocate(self.dtype, out_sizes);  // zero-filled: the padding
    const size_t element = self.element_size();
    const int64_t rank = static_cast<int64_t>(self.rank());
    for (int64_t b = 0; b < n; ++b) {
        for (int64_t c = 0; c < channels; ++c) {
            const std::byte* plane = self.data + ((planes.batched ? b * self.strides[0] : 0) + c * self.strides[rank - 3]) *
                                                     static_cast<int64_t>(element);
            std::byte* out = dense.data + ((b * channels + c) * x.kh * x.kw * columns) * static_cast<int64_t>(element);
            for_each_patch_element(x, height, width, [&](int64_t row, int64_t column, int64_t y, int64_t xx) {
                std::memcpy(out + (row * columns + column) * static_cast<int64_t>(element),
                            plane + (y * self.strides[rank - 2] + xx * self.strides[rank - 1]) * static_cast<int64_t>(element),
                            element);
            });
        }
    }
    StridedTensor result = allocate_output(call, 0, out_sizes, self.dtype);
    copy_into(dense, result);
    return single(std::move(result));
}

// Each patch element added into the image in PyTorch's order, in the input's type (rounding
// every addition for float16 and bfloat16, as PyTorch's kernel does).
template <typename T>
std::vector<compute_t<T>> col2im_sum(const std::vector<compute_t<T>>& columns, int64_t n, int64_t channels,
                                     const Patches& x, int64_t height, int64_t width) {
    using V = compute_t<T>;
    std::vector<V> out(static_cast<size_t>(n * channels * height * width), V(0));
    const int64_t blocks = x.blocks_h * x.blocks_w, per_channel = x.kh * x.kw * blocks;
    for (int64_t b = 0; b < n; ++b) {
        for (int64_t c = 0; c < channels; ++c) {
            const V* in = columns.data() + (b * channels + c) * per_channel;
            V* plane = out.data() + (b * channels + c) * height * width;
            for_each_patch_element(x, height, width, [&](int64_t row, int64_t column, int64_t y, int64_t xx) {
                plane[y * width + xx] = cast<T>(plane[y * width + xx] + in[row * blocks + column]);
            });
        }
    }
    return out;
}

std::vector<RuntimeValue> col2im(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto output_size = per_dim(call, "output_size", 1, 2, {});
    if (self.rank() != 2 && self.rank() != 3) call.fail("expects a 2-d or 3-d input, got shape " + shape_text(self.sizes));
    if (!dtype_is_floating(self.dtype)) call.fail("expects a floating input, got " + std::string(dtype_name(self.dtype)));
    const bool batched = self.rank() == 3;
    const int64_t n = batched ? self.sizes[0] : 1;
    const int64_t rows = self.sizes[self.rank() - 2], columns = self.sizes.back();
    const int64_t height = output_size[0], width = output_size[1];
    if (height <= 0 || width <= 0) call.fail("output_size must be positive");
    const Patches x = patches_of(call, 2, 3, 4, 5, height, width);
    if (rows == 0 || rows % (x.kh * x.kw) != 0) call.fail("expects dim -2 to be a non-zero multiple of the kernel's size");
    if (columns != x.blocks_h * x.blocks_w) {
        call.fail("expects " + std::to_string(x.blocks_h * x.blocks_w) + " blocks in dim -1, got " + std::to_string(columns));
    }
    const int64_t channels = rows / (x.kh * x.kw);
    std::vector<int64_t> out_sizes{channels, height, width};
    if (batched) out_sizes.insert(out_sizes.begin(), n);
    const DType dtype = call.output_meta(0).dtype;
    return visit_floating(self.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        return single(output_of_values<V>(call, 0, col2im_sum<T>(dense_values<V>(self), n, channels, x, height, width), out_sizes, dtype));
    });
}

// ---- shape contracts -----------------------------------------------------------------------

std::optional<std::vector<ExpectedSizes>> one_output(ExpectedSizes sizes) { return std::vector<ExpectedSizes>{std::move(sizes)}; }

// A [N, C, spatial...] or unbatched [C, spatial...] input's sizes before its `spatial` dims.
std::optional<ExpectedSizes> leading_sizes(const ShapeQuery& query, const ExpectedSizes& input, size_t spatial) {
    if (input.size() != spatial + 1 && input.size() != spatial + 2) {
        query.contradiction(fmt::format("its input has {} dims where it takes {} or {}", input.size(), spatial + 1, spatial + 2));
    }
    return ExpectedSizes(input.begin(), input.end() - static_cast<std::ptrdiff_t>(spatial));
}

// The input's leading dims, then output_size; indices the input's sizes.
template <size_t kSpatial>
std::optional<std::vector<ExpectedSizes>> max_unpool_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0), indices = query.sizes("indices", 1);
    const auto output_size = query.ints("output_size", 2);
    if (!self) return std::nullopt;
    if (indices) {
        bool same = indices->size() == self->size();
        for (size_t d = 0; same && d < self->size(); ++d) same = !(*self)[d] || !(*indices)[d] || *(*self)[d] == *(*indices)[d];
        if (!same) query.contradiction("its indices' sizes are not its input's");
    }
    auto out = leading_sizes(query, *self, kSpatial);
    if (!output_size) return std::nullopt;
    if (output_size->size() != kSpatial) query.contradiction(fmt::format("its output_size has {} sizes where it takes {}", output_size->size(), kSpatial));
    out->insert(out->end(), output_size->begin(), output_size->end());
    return one_output(*out);
}

// The stride a pooling's contract reads: the kernel's where it is given empty.
std::optional<std::vector<int64_t>> pool_stride(const ShapeQuery& query, const std::optional<std::vector<int64_t>>& kernel,
                                                size_t spatial) {
    const auto given = query.ints("stride", 2);
    return given && given->empty() ? kernel : ints_per_dim(query, "stride", 2, spatial);
}

// pooling_output_shape per spatial dim (stride empty: the kernel's); the padding at most half the
// kernel, as avg_pool's meta function checks.
template <size_t kSpatial>
std::optional<std::vector<ExpectedSizes>> avg_pool_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto kernel = ints_per_dim(query, "kernel_size", 1, kSpatial);
    const auto stride = pool_stride(query, kernel, kSpatial);
    const auto padding = ints_per_dim(query, "padding", 3, kSpatial);
    const auto ceil_mode = query.int_arg("ceil_mode", 4);
    if (!self) return std::nullopt;
    auto out = leading_sizes(query, *self, kSpatial);
    if (!kernel || !stride || !padding || !ceil_mode) return std::nullopt;
    for (size_t d = 0; d < kSpatial; ++d) {
        const int64_t k = (*kernel)[d], s = (*stride)[d], p = (*padding)[d];
        if (k < 1 || s < 1) query.contradiction(fmt::format("its kernel size {} and stride {} must be positive", k, s));
        if (p < 0 || p > k / 2) query.contradiction(fmt::format("its padding {} is not in [0, half its kernel size {}]", p, k));
        const auto in = (*self)[self->size() - kSpatial + d];
        out->push_back(in ? std::optional<int64_t>(pooled_size(*in, k, p, s, *ceil_mode != 0)) : std::nullopt);
    }
    return one_output(*out);
}

// max_pool{2,3}d_with_indices: pooling_output_shape per spatial dim with its dilation (stride
// empty: the kernel's), for the values and the indices alike.
template <size_t kSpatial>
std::optional<std::vector<ExpectedSizes>> max_pool_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto kernel = ints_per_dim(query, "kernel_size", 1, kSpatial);
    const auto stride = pool_stride(query, kernel, kSpatial);
    const auto padding = ints_per_dim(query, "padding", 3, kSpatial);
    const auto dilation = ints_per_dim(query, "dilation", 4, kSpatial);
    const auto ceil_mode = query.int_arg("ceil_mode", 5);
    if (!self) return std::nullopt;
    auto out = leading_sizes(query, *self, kSpatial);
    if (!kernel || !stride || !padding || !dilation || !ceil_mode) return std::nullopt;
    for (size_t d = 0; d < kSpatial; ++d) {
        const int64_t k = (*kernel)[d], s = (*stride)[d], p = (*padding)[d], l = (*dilation)[d];
        if (k < 1 || s < 1 || l < 1) {
            query.contradiction(fmt::format("its kernel size {}, stride {} and dilation {} must be positive", k, s, l));
        }
        if (k > (int64_t{1} << 30) || s > (int64_t{1} << 30) || l > (int64_t{1} << 30)) {
            query.contradiction("its kernel size, stride and dilation must be below 2**30");
        }
        if (p < 0 || p > k / 2) query.contradiction(fmt::format("its padding {} is not in [0, half its kernel size {}]", p, k));
        const auto in = (*self)[self->size() - kSpatial + d];
        const auto size = in ? std::optional<int64_t>(pooled_size(*in, k, p, s, *ceil_mode != 0, l)) : std::nullopt;
        if (size && *size < 1) query.contradiction(fmt::format("its output would have {} positions along spatial dim {}", *size, d));
        out->push_back(size);
    }
    return one_output(*out);
}

// Adaptive pools: the input's leading dims, then output_size (values and indices alike).
template <size_t kSpatial>
std::optional<std::vector<ExpectedSizes>> adaptive_pool_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto output_size = ints_per_dim(query, "output_size", 1, kSpatial);
    if (!self) return std::nullopt;
    auto out = leading_sizes(query, *self, kSpatial);
    if (!output_size) return std::nullopt;
    for (int64_t size : *output_size) {
        if (size < 0) query.contradiction(fmt::format("its output_size {} is negative", size));
    }
    out->insert(out->end(), output_size->begin(), output_size->end());
    return one_output(*out);
}

// The number of kernel positions over an image of `image` (H, W) sizes; nullopt when a size is
// unknown.
std::optional<int64_t> sliding_blocks(const ShapeQuery& query, const ExpectedSizes& image, const std::vector<int64_t>& kernel,
                                      const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
                                      const std::vector<int64_t>& stride) {
    std::optional<int64_t> blocks = 1;
    for (size_t d = 0; d < 2; ++d) {
        const auto along = sliding_window_size(query, image[d], kernel[d], stride[d], padding[d], dilation[d]);
        if (along && *along < 1) query.contradiction(fmt::format("its kernel fits its image of dim {} no time", d));
        blocks = blocks && along ? std::optional<int64_t>(*blocks * *along) : std::nullopt;
    }
    return blocks;
}

// im2col: [N, C, H, W] (or [C, H, W]) to [N, C kH kW, blocks] (or [C kH kW, blocks]).
std::optional<std::vector<ExpectedSizes>> im2col_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto kernel = ints_per_dim(query, "kernel_size", 1, 2), dilation = ints_per_dim(query, "dilation", 2, 2);
    const auto padding = ints_per_dim(query, "padding", 3, 2), stride = ints_per_dim(query, "stride", 4, 2);
    if (!self) return std::nullopt;
    auto out = leading_sizes(query, *self, 2);
    if (!kernel || !dilation || !padding || !stride) return std::nullopt;
    const auto channels = out->back();
    out->back() = channels ? std::optional<int64_t>(*channels * (*kernel)[0] * (*kernel)[1]) : std::nullopt;
    out->push_back(sliding_blocks(query, ExpectedSizes(self->end() - 2, self->end()), *kernel, *dilation, *padding, *stride));
    return one_output(*out);
}

// col2im: [N, C kH kW, blocks] (or unbatched) to [N, C, output_size...]; the blocks must be the
// kernel's positions over output_size.
std::optional<std::vector<ExpectedSizes>> col2im_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto output_size = ints_per_dim(query, "output_size", 1, 2);
    const auto kernel = ints_per_dim(query, "kernel_size", 2, 2), dilation = ints_per_dim(query, "dilation", 3, 2);
    const auto padding = ints_per_dim(query, "padding", 4, 2), stride = ints_per_dim(query, "stride", 5, 2);
    if (!self) return std::nullopt;
    if (self->size() != 2 && self->size() != 3) query.contradiction(fmt::format("its input has {} dims where it takes 2 or 3", self->size()));
    if (!output_size || !kernel || !dilation || !padding || !stride) return std::nullopt;
    const int64_t patch = (*kernel)[0] * (*kernel)[1];
    const auto columns = (*self)[self->size() - 2], blocks = self->back();
    if (patch < 1) query.contradiction(fmt::format("its kernel size {}x{} is not positive", (*kernel)[0], (*kernel)[1]));
    if (columns && *columns % patch != 0) {
        query.contradiction(fmt::format("its input's {} rows are not a whole number of {}-element patches", *columns, patch));
    }
    const auto expected_blocks = sliding_blocks(query, ExpectedSizes(output_size->begin(), output_size->end()), *kernel, *dilation,
                                                *padding, *stride);
    if (blocks && expected_blocks && *blocks != *expected_blocks) {
        query.contradiction(fmt::format("its input has {} blocks where output_size makes {}", *blocks, *expected_blocks));
    }
    ExpectedSizes out(self->begin(), self->end() - 2);
    out.push_back(columns ? std::optional<int64_t>(*columns / patch) : std::nullopt);
    out.insert(out.end(), output_size->begin(), output_size->end());
    return one_output(out);
}

PT2OV_KERNEL("aten.max_unpool2d.default", [](const KernelCall& c) { return max_unpool(c, 2); }, max_unpool_shape<2>);
PT2OV_KERNEL("aten.max_unpool3d.default", [](const KernelCall& c) { return max_unpool(c, 3); }, max_unpool_shape<3>);
PT2OV_KERNEL("aten.avg_pool2d.default", [](const KernelCall& c) { return avg_pool(c, 2); }, avg_pool_shape<2>);
PT2OV_KERNEL("aten.avg_pool3d.default", [](const KernelCall& c) { return avg_pool(c, 3); }, avg_pool_shape<3>);
PT2OV_KERNEL("aten.max_pool2d_with_indices.default", [](const KernelCall& c) { return max_pool(c, 2); }, max_pool_shape<2>);
PT2OV_KERNEL("aten.max_pool3d_with_indices.default", [](const KernelCall& c) { return max_pool(c, 3); }, max_pool_shape<3>);
PT2OV_KERNEL("aten.adaptive_avg_pool2d.default", [](const KernelCall& c) { return adaptive_pool<false>(c, 2); }, adaptive_pool_shape<2>);
PT2OV_KERNEL("aten._adaptive_avg_pool2d.default", [](const KernelCall& c) { return adaptive_pool<false>(c, 2); }, adaptive_pool_shape<2>);
PT2OV_KERNEL("aten.adaptive_avg_pool3d.default", [](const KernelCall& c) { return adaptive_pool<false>(c, 3); }, adaptive_pool_shape<3>);
PT2OV_KERNEL("aten._adaptive_avg_pool3d.default", [](const KernelCall& c) { return adaptive_pool<false>(c, 3); }, adaptive_pool_shape<3>);
PT2OV_KERNEL("aten.adaptive_max_pool1d.default", [](const KernelCall& c) { return adaptive_pool<true>(c, 1); }, adaptive_pool_shape<1>);
PT2OV_KERNEL("aten.adaptive_max_pool2d.default", [](const KernelCall& c) { return adaptive_pool<true>(c, 2); }, adaptive_pool_shape<2>);
PT2OV_KERNEL("aten.adaptive_max_pool3d.default", [](const KernelCall& c) { return adaptive_pool<true>(c, 3); }, adaptive_pool_shape<3>);
PT2OV_KERNEL("aten.im2col.default", im2col, im2col_shape);
PT2OV_KERNEL("aten.col2im.default", col2im, col2im_shape);

}  // namespace
}  // namespace pt2ov::kernels
