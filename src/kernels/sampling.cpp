// Sampling layers: grid_sampler (2-d and 3-d; bilinear, nearest, bicubic; zeros, border and
// reflection padding), nearest-exact upsampling (1-d to 3-d), antialiased bilinear upsampling,
// and nearest, linear, bilinear, bicubic and trilinear upsampling (so a step holding them can be
// re-planned onto the CPU). Coordinates are computed in the input's compute type (float
// for float32, float16 and bfloat16; double for float64) with PyTorch's formulas
// (ATen/native/GridSampler.h, UpSample.h), so a coordinate on a rounding tie falls as it does
// in PyTorch; the result is rounded once into the input's dtype.
#include <fmt/format.h>

#include <cmath>

#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/cpu_isa.h"
#include "kernels/dense_paths.h"
#include "kernels/layer_common.h"

namespace pt2ov::kernels {
namespace {

// ---- grid_sampler --------------------------------------------------------------------------

enum class Interpolation { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class Padding { Zeros = 0, Border = 1, Reflection = 2 };

template <typename V>
V unnormalize(V coord, int64_t size, bool align_corners) {
    if (align_corners) return ((coord + 1) / 2) * static_cast<V>(size - 1);
    return ((coord + 1) * static_cast<V>(size) - 1) / 2;
}

// PyTorch's 2-d CPU kernel is vectorized, and its max(NaN, 0) is 0 (clipping NaN to the first
// index); the 3-d kernel's std::max keeps NaN and std::min then gives the last index.
template <typename V>
V clip_coordinates(V in, int64_t clip_limit, bool vectorized) {
    if (vectorized && std::isnan(in)) return V(0);
    return std::min(static_cast<V>(clip_limit - 1), std::max(in, static_cast<V>(0)));
}

template <typename V>
V reflect_coordinates(V in, int64_t twice_low, int64_t twice_high) {
    if (twice_low == twice_high) return 0;
    const V min = static_cast<V>(twice_low) / 2;
    const V span = static_cast<V>(twice_high - twice_low) / 2;
    in = std::fabs(in - min);
    const V extra = std::fmod(in, span);
    const V flips = std::floor(in / span);
    return std::fmod(flips, V(2)) == 0 ? extra + min : span - extra + min;
}

template <typename V>
V padded_coordinate(V coord, int64_t size, Padding padding, bool align_corners, bool vectorized) {
    if (padding == Padding::Border) {
        coord = clip_coordinates(coord, size, vectorized);
    } else if (padding == Padding::Reflection) {
        coord = align_corners ? reflect_coordinates(coord, 0, 2 * (size - 1)) : reflect_coordinates(coord, -1, 2 * size - 1);
        coord = clip_coordinates(coord, size, vectorized);
    }
    return coord;
}

// A whole-number coordinate as an index; NaN, infinities and values far outside become an
// index that stays out of bounds after a step of a few taps.
constexpr int64_t kFarOutside = -(int64_t{1} << 40);
template <typename V>
int64_t to_index(V value) {
    if (!(value > V(-1e9) && value < V(1e12))) return kFarOutside;
    return static_cast<int64_t>(value);
}

template <typename V>
V cubic_convolution1(V x, V a) {
    return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <typename V>
V cubic_convolution2(V x, V a) {
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}
template <typename V>
V cubic_interp1d(V x0, V x1, V x2, V x3, V t) {
    const V a = V(-0.75);
    const V c0 = cubic_convolution2<V>(t + 1, a), c1 = cubic_convolution1<V>(t, a);
    const V c2 = cubic_convolution1<V>(1 - t, a), c3 = cubic_convolution2<V>(2 - t, a);
    return x0 * c0 + x1 * c1 + x2 * c2 + x3 * c3;
}

struct GridShape {
    int64_t batch = 0, channels = 0;
    std::vector<int64_t> in;   // spatial sizes of the input (D, H, W or H, W)
    std::vector<int64_t> out;  // spatial sizes of the grid
};

// The input as [N, C, spatial...] values, the grid as [N, out..., S] with coordinate k
// addressing spatial dim S-1-k (x is the width).
template <typename V>
std::vector<V> grid_sample(const GridShape& shape, const std::vector<V>& input, const std::vector<V>& grid,
                           Interpolation mode, Padding padding, bool align_corners) {
    const size_t rank = shape.in.size();
    const bool vectorized = rank == 2;
    const int64_t in_plane = product(shape.in), out_plane = product(shape.out);
    std::vector<int64_t> in_strides(rank, 1);
    for (size_t d = rank - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * shape.in[d];
    std::vector<V> out(static_cast<size_t>(shape.batch * shape.channels * out_plane), V(0));
    std::vector<V> source(rank);
    for (int64_t n = 0; n < shape.batch; ++n) {
        const V* in_n = input.data() + n * shape.channels * in_plane;
        V* out_n = out.data() + n * shape.channels * out_plane;
        for (int64_t p = 0; p < out_plane; ++p) {
            const V* g = grid.data() + (n * out_plane + p) * static_cast<int64_t>(rank);
            for (size_t d = 0; d < rank; ++d) {
                const V coord = unnormalize(g[rank - 1 - d], shape.in[d], align_corners);
                source[d] = mode == Interpolation::Bicubic ? coord : padded_coordinate(coord, shape.in[d], padding, align_corners, vectorized);
            }
            auto in_bounds = [&](const std::vector<int64_t>& index) {
                for (size_t d = 0; d < rank; ++d) {
                    if (index[d] < 0 || index[d] >= shape.in[d]) return false;
                }
                return true;
            };
            auto value_at = [&](int64_t c, const std::vector<int64_t>& index) -> V {
                int64_t offset = 0;
                for (size_t d = 0; d < rank; ++d) {
                    if (index[d] < 0 || index[d] >= shape.in[d]) return V(0);
                    offset += index[d] * in_strides[d];
                }
                return in_n[c * in_plane + offset];
            };
            if (mode == Interpolation::Nearest) {
                std::vector<int64_t> index(rank);
                for (size_t d = 0; d < rank; ++d) index[d] = to_index(std::nearbyint(source[d]));
                for (int64_t c = 0; c < shape.channels; ++c) out_n[c * out_plane + p] = value_at(c, index);
            } else if (mode == Interpolation::Bilinear) {
                std::vector<int64_t> low(rank), index(rank);
                std::vector<V> frac(rank);
                for (size_t d = 0; d < rank; ++d) {
                    const V floor = std::floor(source[d]);
                    low[d] = to_index(floor);
                    frac[d] = source[d] - floor;
                }
                for (int64_t corner = 0; corner < (int64_t{1} << rank); ++corner) {
                    V weight = 1;
                    for (size_t d = 0; d < rank; ++d) {
                        const bool high = (corner >> (rank - 1 - d)) & 1;
                        index[d] = low[d] + (high ? 1 : 0);
                        weight *= high ? frac[d] : 1 - frac[d];
                    }
                    // The vectorized 2-d kernel adds every corner, a corner outside as 0, so a NaN
                    // weight (a NaN or infinite coordinate) makes NaN; the 3-d one skips them.
                    if (!vectorized && !in_bounds(index)) continue;
                    for (int64_t c = 0; c < shape.channels; ++c) out_n[c * out_plane + p] += value_at(c, index) * weight;
                }
            } else {  // bicubic, 2-d only: 4x4 taps, each tap's coordinate padded on its own
                const V x = source[1], y = source[0];
                const V x0 = std::floor(x), y0 = std::floor(y);
                const V tx = x - x0, ty = y - y0;
                auto tap = [&](int64_t c, V tap_x, V tap_y) -> V {
                    const V px = padded_coordinate(tap_x, shape.in[1], padding, align_corners, vectorized);
                    const V py = padded_coordinate(tap_y, shape.in[0], padding, align_corners, vectorized);
                    return value_at(c, {to_index(py), to_index(px)});
                };
                for (int64_t c = 0; c < shape.channels; ++c) {
                    V rows[4];
                    for (int i = 0; i < 4; ++i) {
                        const V ty_i = y0 - 1 + V(i);
                        rows[i] = cubic_interp1d(tap(c, x0 - 1, ty_i), tap(c, x0, ty_i), tap(c, x0 + 1, ty_i),
                                                 tap(c, x0 + 2, ty_i), tx);
                    }
                    out_n[c * out_plane + p] = cubic_interp1d(rows[0], rows[1], rows[2], rows[3], ty);
                }
            }
        }
    }
    return out;
}

std::vector<RuntimeValue> grid_sampler(const KernelCall& call) {
    const StridedTensor& input = call.tensor("input", 0);
    const StridedTensor& grid = call.tensor("grid", 1);
    const int64_t mode = call.int_arg("interpolation_mode", 2);
    const int64_t padding = call.int_arg("padding_mode", 3);
    const bool align_corners = call.bool_arg("align_corners", 4, false);
    if (input.rank() != 4 && input.rank() != 5) call.fail("expects a 4-d or 5-d input, got rank " + std::to_string(input.rank()));
    const size_t rank = input.rank() - 2;
    const graph::OpId op = call.node().op;
    if (graph::op_family("aten.grid_sampler_2d").contains(op) && rank != 2) call.fail("grid_sampler_2d expects a 4-d input");
    if (graph::op_family("aten.grid_sampler_3d").contains(op) && rank != 3) call.fail("grid_sampler_3d expects a 5-d input");
    if (dtype_is_reduced_float(input.dtype)) {
        // PyTorch's CPU kernels compute these in the 16-bit type itself, rounding after every
        // operation; a float computation differs from it by several units in the last place.
        call.fail("does not sample " + std::string(dtype_name(input.dtype)) +
                  " inputs (PyTorch rounds every step to 16 bits); convert the input and grid to float32");
    }
    if (!dtype_is_floating(input.dtype) || grid.dtype != input.dtype) {
        call.fail("expects a floating input and a grid of the same dtype, got " + std::string(dtype_name(input.dtype)) +
                  " and " + std::string(dtype_name(grid.dtype)));
    }
    if (grid.rank() != input.rank() || grid.sizes[0] != input.sizes[0] || grid.sizes.back() != static_cast<int64_t>(rank)) {
        call.fail("expects a grid of shape (N, " + std::string(rank == 2 ? "H, W, 2" : "D, H, W, 3") + ") for an input of shape " +
                  shape_text(input.sizes) + ", got " + shape_text(grid.sizes));
    }
    if (mode < 0 || mode > 2) call.fail("unknown interpolation_mode " + std::to_string(mode));
    if (padding < 0 || padding > 2) call.fail("unknown padding_mode " + std::to_string(padding));
    if (mode == 2 && rank != 2) call.fail("bicubic interpolation needs a 4-d input");
    for (size_t d = 2; d < input.rank(); ++d) {
        if (input.sizes[d] == 0) call.fail("expects non-empty spatial dims, got input of shape " + shape_text(input.sizes));
    }
    GridShape shape{input.sizes[0], input.sizes[1], {input.sizes.begin() + 2, input.sizes.end()},
                    {grid.sizes.begin() + 1, grid.sizes.end() - 1}};
    std::vector<int64_t> out_sizes{shape.batch, shape.channels};
    out_sizes.insert(out_sizes.end(), shape.out.begin(), shape.out.end());
    const DType dtype = call.output_meta(0).dtype;
    return visit_floating(input.dtype, [&]<typename T>() {
        using V = compute_t<T>;
        const auto out = grid_sample<V>(shape, dense_values<V>(input), dense_values<V>(grid), static_cast<Interpolation>(mode),
                                        static_cast<Padding>(padding), align_corners);
        return single(output_of_values<V>(call, 0, out, out_sizes, dtype));
    });
}

// ---- upsampling ----------------------------------------------------------------------------

// Output spatial sizes: given, or the input's sizes times the scale factors (floored), as
// upsample's compute_output_size does. `scales` are the factors to compute the source
// indices with (empty entries: derive them from the sizes).
struct UpsamplePlan {
    std::vector<int64_t> out;
    std::vector<std::optional<double>> scales;
};

UpsamplePlan plan_upsample(const KernelCall& call, const StridedTensor& input, size_t spatial, bool vec_overload,
                           size_t first_scale_position) {
    if (input.rank() != spatial + 2) {
        call.fail("expects a " + std::to_string(spatial + 2) + "-d input, got rank " + std::to_string(input.rank()));
    }
    UpsamplePlan plan;
    plan.scales.assign(spatial, std::nullopt);
    const auto sizes = call.ints("output_size", 1, {});
    if (vec_overload) {
        const auto factors = float_list(call, "scale_factors", first_scale_position);
        if (sizes.empty() == factors.empty()) call.fail("needs exactly one of output_size and scale_factors");
        if (!factors.empty()) {
            if (factors.size() != spatial) call.fail("needs one scale factor per spatial dim");
            for (double f : factors) {
                if (!(f > 0) || !std::isfinite(f)) call.fail("expects positive finite scale factors, got " + std::to_string(f));
            }
            for (size_t d = 0; d < spatial; ++d) {
                const double size = std::floor(static_cast<double>(input.sizes[d + 2]) * factors[d]);
                if (!(size < 9.0e15)) call.fail("scale factor " + std::to_string(factors[d]) + " makes an output too large");
                plan.out.push_back(static_cast<int64_t>(size));
                plan.scales[d] = factors[d];
            }
        }
    } else {
        static constexpr ArgName names[3][3] = {{"scales", "scales", "scales"}, {"scales_h", "scales_w", "scales_w"}, {"scales_d", "scales_h", "scales_w"}};  // [spatial - 1][d], d < spatial
        for (size_t d = 0; d < spatial; ++d) plan.scales[d] = optional_float(call, names[spatial - 1][d], first_scale_position + d);
    }
    if (plan.out.empty()) plan.out = sizes;
    if (plan.out.size() != spatial) call.fail("needs one output size per spatial dim");
    for (size_t d = 0; d < spatial; ++d) {
        if (plan.out[d] > (int64_t{1} << 31)) call.fail("output size " + std::to_string(plan.out[d]) + " is larger than pt2ov computes");
        if (plan.out[d] <= 0 || input.sizes[d + 2] <= 0) {
            call.fail("expects non-empty input and output spatial sizes, got input " + shape_text(input.sizes) +
                      " and output " + shape_text(plan.out));
        }
    }
    return plan;
}

// compute_scales_value: 1/scale when a positive scale is given, else input/output.
template <typename V>
V scale_of(std::optional<double> scale, int64_t in, int64_t out) {
    return scale && *scale > 0 ? static_cast<V>(1.0 / *scale) : static_cast<V>(in) / static_cast<V>(out);
}

std::vector<RuntimeValue> upsample_nearest_exact(const KernelCall& call, size_t spatial) {
    const bool vec = call.node().target.ends_with(".vec");
    const StridedTensor& input = call.tensor(vec ? ArgName("input") : ArgName("self"), 0);
    const UpsamplePlan plan = plan_upsample(call, input, spatial, vec, 2);
    // Per output dim, the source index: min(floor((i + 0.5) * scale), in - 1), in float.
    std::vector<std::vector<int64_t>> source(spatial);
    for (size_t d = 0; d < spatial; ++d) {
        const int64_t in = input.sizes[d + 2];
        const float scale = scale_of<float>(plan.scales[d], in, plan.out[d]);
        for (int64_t i = 0; i < plan.out[d]; ++i) {
            const float at = std::floor(static_cast<float>((static_cast<double>(i) + 0.5) * scale));
            // Compared as a float before the conversion: a tiny scales_* argument makes 1/scale
            // infinite, whose conversion to int64 is undefined (x86 gives INT64_MIN, a read
            // before the input); it is clamped to the last index, as every index past it is.
            source[d].push_back(at < static_cast<float>(in - 1) ? static_cast<int64_t>(at) : in - 1);
        }
    }
    std::vector<int64_t> out_sizes{input.sizes[0], input.sizes[1]};
    out_sizes.insert(out_sizes.end(), plan.out.begin(), plan.out.end());
    StridedTensor out = allocate_output(call, 0, out_sizes, input.dtype);
    const size_t element = input.element_size();
    // The output walked in its own strides; each element copied from the source index.
    std::vector<int64_t> index(out_sizes.size(), 0);
    const int64_t total = product(out_sizes);
    for (int64_t k = 0; k < total; ++k) {
        int64_t rest = k, in_offset = 0, out_offset = 0;
        for (size_t d = out_sizes.size(); d-- > 0;) {
            index[d] = rest % out_sizes[d];
            rest /= out_sizes[d];
            const int64_t source_index = d < 2 ? index[d] : source[d - 2][static_cast<size_t>(index[d])];
            in_offset += source_index * input.strides[d];
            out_offset += index[d] * out.strides[d];
        }
        std::memcpy(out.data + out_offset * static_cast<int64_t>(element), input.data + in_offset * static_cast<int64_t>(element),
                    element);
    }
    return single(std::move(out));
}

// Antialiased bilinear (PIL's triangle filter widened by the downscale factor), separable:
// the width first, then the height, in double.
struct AntialiasTaps {
    std::vector<int64_t> start;
    std::vector<std::vector<double>> weights;
};

AntialiasTaps antialias_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale_arg) {
    double scale;
    if (align_corners) {
        scale = out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
    } else {
        scale = scale_of<double>(scale_arg, in, out);
    }
    const double support = scale >= 1.0 ? 1.0 * scale : 1.0;
    const double inv_scale = scale >= 1.0 ? 1.0 / scale : 1.0;
    AntialiasTaps taps;
    for (int64_t i = 0; i < out; ++i) {
        const double center = scale * (static_cast<double>(i) + 0.5);
        const int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
        const int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
        std::vector<double> w;
        double total = 0;
        for (int64_t j = lo; j < hi; ++j) {
            const double x = std::fabs((static_cast<double>(j) - center + 0.5) * inv_scale);
            w.push_back(x < 1.0 ? 1.0 - x : 0.0);
            total += w.back();
        }
        if (total != 0) {
            for (auto& v : w) v /= total;
        }
        taps.start.push_back(lo);
        taps.weights.push_back(std::move(w));
    }
    return taps;
}

std::vector<RuntimeValue> upsample_bilinear2d_aa(const KernelCall& call) {
    const bool vec = call.node().target.ends_with(".vec");
    const StridedTensor& input = call.tensor(vec ? ArgName("input") : ArgName("self"), 0);
    if (!dtype_is_floating(input.dtype)) call.fail("expects a floating input, got " + std::string(dtype_name(input.dtype)));
    const bool align_corners = call.bool_arg("align_corners", 2, false);
    const UpsamplePlan plan = plan_upsample(call, input, 2, vec, 3);
    const int64_t planes = input.sizes[0] * input.sizes[1], h = input.sizes[2], w = input.sizes[3];
    const int64_t oh = plan.out[0], ow = plan.out[1];
    const AntialiasTaps rows = antialias_taps(h, oh, align_corners, plan.scales[0]);
    const AntialiasTaps cols = antialias_taps(w, ow, align_corners, plan.scales[1]);
    const auto values = dense_values<double>(input);
    std::vector<double> across(static_cast<size_t>(planes * h * ow), 0.0), out(static_cast<size_t>(planes * oh * ow), 0.0);
    for (int64_t p = 0; p < planes * h; ++p) {
        for (int64_t j = 0; j < ow; ++j) {
            double sum = 0;
            const auto& wt = cols.weights[static_cast<size_t>(j)];
            for (size_t t = 0; t < wt.size(); ++t) sum += wt[t] * values[static_cast<size_t>(p * w + cols.start[j] + static_cast<int64_t>(t))];
            across[static_cast<size_t>(p * ow + j)] = sum;
        }
    }
    // PyTorch's CPU kernel (2.x) gives every row of a plane the first row's value when the
    // output is one column wide and the height is resized; pt2ov returns what PyTorch returns.
    const bool first_row_only = ow == 1 && oh != h;
    for (int64_t p = 0; p < planes; ++p) {
        for (int64_t i = 0; i < oh; ++i) {
            const int64_t taps = first_row_only ? 0 : i;
            const auto& wt = rows.weights[static_cast<size_t>(taps)];
            for (int64_t j = 0; j < ow; ++j) {
                double sum = 0;
                for (size_t t = 0; t < wt.size(); ++t) {
                    sum += wt[t] * across[static_cast<size_t>((p * h + rows.start[taps] + static_cast<int64_t>(t)) * ow + j)];
                }
                out[static_cast<size_t>((p * oh + i) * ow + j)] = sum;
            }
        }
    }
    return single(output_of_values<double>(call, 0, out, {input.sizes[0], input.sizes[1], oh, ow}, call.output_meta(0).dtype));
}

// ---- nearest, linear and cubic upsampling ----------------------------------------------------
// PyTorch's CPU kernels (ATen/native/cpu/UpSampleKernel.cpp) take one of two loops:
// - the generic one (upsample_generic_Nd_kernel_impl): per axis, source indices and weights
//   computed once (the weights stored in the input's dtype, so a float16 weight is rounded to
//   float16), then each output element summed axis by axis, the first axis outermost;
// - the channels-last one (cpu_upsample_linear_channels_last, cpu_upsample_nearest_channels_last)
//   for bilinear and nearest 2-d when the input is channels-last with more than 3 channels or the
//   output is small (height + width <= 128), and for trilinear and nearest 3-d when the input is
//   channels-last-3d with more than 3 channels: unrounded weights multiplied across the axes, and
//   the corners summed in one expression, right to left over the channels its vectors cover and
//   left to right over the rest.
// PyTorch compiles these loops for AVX2 and AVX-512 with floating-point contraction, so where the
// CPU has FMA (the level PyTorch dispatches to) a product added to a sum is one fused operation,
// the first product of a pair fused, as the compiler does; the sums here spell out those fusions.
// Everything is computed in the input's compute type (float for float32, float16, bfloat16 and
// uint8 indices; double for float64) and rounded once into the output.

enum class UpsampleMode { Nearest, Linear, Cubic };

// What PyTorch's dispatch picks on this CPU: FMA with AVX2 and up; vectors of 64 bytes with
// AVX-512, else 32 (its scalar fallback build keeps 32-byte vectors too).
bool upsample_fuses() {
    static const bool fuses = cpu_has(CpuIsa::X86_64_V3);
    return fuses;
}
int64_t upsample_vector_bytes() {
    static const int64_t bytes = cpu_has(CpuIsa::X86_64_V4) ? 64 : 32;
    return bytes;
}

// a * b + c, fused or rounded twice. (This file is built for the baseline x86-64, which has no
// FMA instruction, so the compiler never fuses the unfused spelling on its own.)
template <typename V>
V mul_add(V a, V b, V c, bool fused) {
    return fused ? std::fma(a, b, c) : a * b + c;
}

// area_pixel_compute_scale.
template <typename V>
V area_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
    if (align_corners) return out > 1 ? static_cast<V>(in - 1) / static_cast<V>(out - 1) : V(0);
    return scale_of<V>(scale, in, out);
}

// area_pixel_compute_source_index: linear modes clamp a negative index to 0, cubic does not.
template <typename V>
V area_source_index(V scale, int64_t i, bool align_corners, bool cubic, bool fused) {
    if (align_corners) return scale * static_cast<V>(i);
    const V src = mul_add(scale, static_cast<V>(i) + V(0.5), V(-0.5), fused);
    return !cubic && src < V(0) ? V(0) : src;
}

// min(floorf(real), in - 1), floored as a float even for double (PyTorch calls floorf). A NaN or
// huge index (from a scales_* argument so small that its inverse overflows) is out of PyTorch's
// defined behaviour (an unguarded conversion to int64); it is taken as the last index here, so no
// read leaves the input.
template <typename V>
int64_t floor_index(V real, int64_t in) {
    const float f = std::floor(static_cast<float>(real));
    if (!(f < static_cast<float>(in - 1))) return in - 1;
    return f > -4.0f ? static_cast<int64_t>(f) : -4;
}

// Cubic convolution with A = -0.75 (upsample's get_cubic_upsample_coefficients), the constants
// folded as the compiler folds them: A + 2 = 1.25, A + 3 = 2.25, -5A = 3.75, 8A = -6, -4A = 3.
// PyTorch's build fuses the inner steps but not the last one (measured against eager: every
// coefficient of bicubic on one-hot inputs matches only this way).
template <typename V>
V cubic_near(V x, bool fused) {  // |x| <= 1
    const V p = mul_add(V(1.25), x, V(-2.25), fused) * x;
    return p * x + V(1);
}
template <typename V>
V cubic_far(V x, bool fused) {  // 1 < |x| < 2
    const V p = mul_add(mul_add(V(-0.75), x, V(3.75), fused), x, V(-6), fused) * x;
    return p + V(3);
}

// One spatial axis: for output index i, `taps` source indices (in [0, in)) and their weights.
template <typename V>
struct UpsampleAxis {
    int taps = 1;
    std::vector<int64_t> index;
    std::vector<V> weight;
};

// Per-axis indices and weights. `T` is the element type the generic loop stores the weights in
// (their rounding); the channels-last loop keeps them unrounded (T = V).
template <typename T, typename V>
UpsampleAxis<V> upsample_axis(UpsampleMode mode, int64_t in, int64_t out, bool align_corners, std::optional<double> scale_arg,
                              bool nearest_shortcuts, bool fused) {
    UpsampleAxis<V> axis;
    axis.taps = mode == UpsampleMode::Nearest ? 1 : mode == UpsampleMode::Linear ? 2 : 4;
    auto round = [](V w) -> V { return static_cast<V>(cast<T>(w)); };
    if (mode == UpsampleMode::Nearest) {
        if (nearest_shortcuts) {  // nearest_idx: the same size copies, twice the size halves, in float
            const float scale = scale_of<float>(scale_arg, in, out);
            for (int64_t i = 0; i < out; ++i) {
                axis.index.push_back(out == in ? i : out == 2 * in ? i >> 1 : floor_index(static_cast<float>(i) * scale, in));
            }
        } else {  // HelperInterpNearest: floor(scale * i)
            const V scale = scale_of<V>(scale_arg, in, out);
            for (int64_t i = 0; i < out; ++i) axis.index.push_back(floor_index(scale * static_cast<V>(i), in));
        }
        return axis;
    }
    const V scale = area_scale<V>(in, out, align_corners, scale_arg);
    for (int64_t i = 0; i < out; ++i) {
        if (mode == UpsampleMode::Linear) {
            if (out == in) {  // compute_source_index_and_lambda copies at the same size
                axis.index.insert(axis.index.end(), {i, i});
                axis.weight.insert(axis.weight.end(), {V(1), V(0)});
                continue;
            }
            const V real = area_source_index(scale, i, align_corners, false, fused);
            const int64_t i0 = floor_index(real, in);
            const V l1 = round(std::min(std::max(real - static_cast<V>(i0), V(0)), V(1)));
            axis.index.insert(axis.index.end(), {i0, i0 + (i0 < in - 1 ? 1 : 0)});
            axis.weight.insert(axis.weight.end(), {round(V(1) - l1), l1});
        } else {
            const V real = area_source_index(scale, i, align_corners, true, fused);
            const int64_t i0 = floor_index(real, in);
            const V t = std::min(std::max(real - static_cast<V>(i0), V(0)), V(1));
            const V rest = V(1) - t;
            const V coeffs[4] = {cubic_far(t + V(1), fused), cubic_near(t, fused), cubic_near(rest, fused),
                                 cubic_far(rest + V(1), fused)};
            for (int64_t j = 0; j < 4; ++j) {
                axis.index.push_back(std::clamp<int64_t>(i0 + j - 1, 0, in - 1));  // upsample_get_value_bounded
                axis.weight.push_back(round(coeffs[j]));
            }
        }
    }
    return axis;
}

// The generic loop's value at one output element: axis d's taps summed over the value of the
// axes after it; a pair as fma(t0, w0, t1 * w1), four taps as that pair then each next tap fused.
template <typename T, typename V>
V upsample_value(const std::byte* at, size_t d, const std::vector<UpsampleAxis<V>>& axes,
                 const std::vector<std::vector<int64_t>>& offsets, const int64_t* o, bool fused) {
    const UpsampleAxis<V>& axis = axes[d];
    const size_t row = static_cast<size_t>(o[d]) * static_cast<size_t>(axis.taps);
    auto tap = [&](int j) -> V {
        const std::byte* p = at + offsets[d][row + static_cast<size_t>(j)];
        return d + 1 == axes.size() ? load<T>(p) : upsample_value<T, V>(p, d + 1, axes, offsets, o, fused);
    };
    if (axis.taps == 1) return tap(0);
    const V* w = axis.weight.data() + row;
    V sum = mul_add(tap(0), w[0], tap(1) * w[1], fused);
    for (int j = 2; j < axis.taps; ++j) sum = mul_add(tap(j), w[j], sum, fused);
    return sum;
}

// Whether eager's input was channels-last contiguous (Tensor.is_contiguous(channels_last)):
// channels, then the spatial dims innermost first, then the batch, size-1 dims skipped. The
// layout torch.export recorded for the input, else the runtime one.
bool channels_last_contiguous(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    std::vector<size_t> order{1};
    for (size_t d = sizes.size(); d-- > 2;) order.push_back(d);
    order.push_back(0);
    int64_t expected = 1;
    for (size_t d : order) {
        if (sizes[d] == 1) continue;
        if (strides[d] != expected) return false;
        expected *= sizes[d];
    }
    return true;
}

bool eager_channels_last(const KernelCall& call, ArgName name, const StridedTensor& t) {
    const graph::Argument* a = call.arg(name, 0);
    if (a && a->kind == graph::Argument::Kind::Tensor) {
        const graph::TensorMeta& meta = call.graph().value(a->name).meta;
        std::vector<int64_t> sizes, strides;
        for (const auto& d : meta.sizes) {
            if (d.is_static()) sizes.push_back(*d.value);
            else if (d.hint >= 0) sizes.push_back(d.hint);
        }
        for (const auto& d : meta.strides) {
            if (d.is_static()) strides.push_back(*d.value);
            else if (d.hint >= 0) strides.push_back(d.hint);
        }
        if (sizes.size() == t.rank() && strides.size() == t.rank()) return channels_last_contiguous(sizes, strides);
    }
    return channels_last_contiguous(t.sizes, t.strides);
}

std::vector<RuntimeValue> upsample_interpolate(const KernelCall& call, UpsampleMode mode, size_t spatial) {
    const bool vec = call.node().target.ends_with(".vec");
    const ArgName input_name = vec ? ArgName("input") : ArgName("self");
    const StridedTensor& input = call.tensor(input_name, 0);
    if (mode == UpsampleMode::Nearest ? !(dtype_is_floating(input.dtype) || input.dtype == DType::UInt8)
                                      : !dtype_is_floating(input.dtype)) {
        call.fail("expects a floating" + std::string(mode == UpsampleMode::Nearest ? " or uint8" : "") + " input, got " +
                  std::string(dtype_name(input.dtype)) +
                  (input.dtype == DType::UInt8 ? " (PyTorch interpolates uint8 in 16-bit fixed point; convert it to float32)" : ""));
    }
    const bool align_corners = mode != UpsampleMode::Nearest && call.bool_arg("align_corners", 2, false);
    const UpsamplePlan plan = plan_upsample(call, input, spatial, vec, mode == UpsampleMode::Nearest ? 2 : 3);
    for (size_t d = 1; d < input.rank(); ++d) {
        if (input.sizes[d] == 0) call.fail("expects a non-empty input apart from its batch, got shape " + shape_text(input.sizes));
    }
    std::vector<int64_t> out_sizes{input.sizes[0], input.sizes[1]};
    out_sizes.insert(out_sizes.end(), plan.out.begin(), plan.out.end());
    StridedTensor out = allocate_output_for_overwrite(call, 0, out_sizes, input.dtype);
    if (input.sizes[0] == 0) return single(std::move(out));

    // PyTorch's choice of loop (upsample_*_kernel_impl); PyTorch also takes the channels-last
    // loop for bilinear with 3 channels when it runs on one thread, which a kernel cannot know.
    const bool channels_last_input = spatial >= 2 && input.sizes[1] > 3 && eager_channels_last(call, input_name, input);
    const bool small_2d = spatial == 2 && plan.out[0] + plan.out[1] <= 128;
    const bool channels_last_loop = mode != UpsampleMode::Cubic && (channels_last_input || small_2d);
    const bool fused = upsample_fuses();
    const size_t rank = out_sizes.size();
    const int64_t element = static_cast<int64_t>(input.element_size());
    const DType compute = input.dtype == DType::UInt8 ? DType::Float32 : input.dtype;

    visit_floating(compute, [&]<typename C>() {
        using V = compute_t<C>;
        visit_dtype(input.dtype, [&]<typename T>() {
            if constexpr (std::is_same_v<T, C> || (std::is_same_v<T, uint8_t> && std::is_same_v<C, float>)) {
                std::vector<UpsampleAxis<V>> axes;
                std::vector<std::vector<int64_t>> offsets;  // byte offsets of each axis's taps
                for (size_t d = 0; d < spatial; ++d) {
                    axes.push_back(channels_last_loop
                                       ? upsample_axis<V, V>(mode, input.sizes[d + 2], plan.out[d], align_corners, plan.scales[d], true, fused)
                                       : upsample_axis<C, V>(mode, input.sizes[d + 2], plan.out[d], align_corners, plan.scales[d], false, fused));
                    offsets.emplace_back();
                    for (int64_t k : axes.back().index) offsets.back().push_back(k * input.strides[d + 2] * element);
                }
                const int64_t total = product(out_sizes);
                // Every output element on its own (no sums across elements), so any split over
                // threads gives the same result.
                for_dense_ranges(total, [&](int64_t begin, int64_t end) {
                    std::vector<int64_t> index(rank, 0);
                    int64_t rest = begin;
                    for (size_t d = rank; d-- > 0;) {
                        index[d] = rest % out_sizes[d];
                        rest /= out_sizes[d];
                    }
                    for (int64_t k = begin; k < end; ++k) {
                        const std::byte* at = input.data + (index[0] * input.strides[0] + index[1] * input.strides[1]) * element;
                        int64_t out_offset = 0;
                        for (size_t d = 0; d < rank; ++d) out_offset += index[d] * out.strides[d];
                        std::byte* dst = out.data + out_offset * element;
                        if (mode == UpsampleMode::Nearest) {
                            for (size_t d = 0; d < spatial; ++d) at += offsets[d][static_cast<size_t>(index[d + 2])];
                            std::memcpy(dst, at, static_cast<size_t>(element));
                        } else if (!channels_last_loop) {
                            store<T>(dst, static_cast<compute_t<T>>(upsample_value<T, V>(at, 0, axes, offsets, index.data() + 2, fused)));
                        } else {
                            // The corners in PyTorch's order (the last axis's taps innermost), each
                            // weight the product of the axes' weights, first axis first.
                            V terms[8][2];
                            const int corners = 1 << spatial;
                            for (int corner = 0; corner < corners; ++corner) {
                                const std::byte* p = at;
                                V weight = 1;
                                for (size_t d = 0; d < spatial; ++d) {
                                    const int bit = (corner >> (spatial - 1 - d)) & 1;
                                    const size_t tap = static_cast<size_t>(index[d + 2]) * 2 + static_cast<size_t>(bit);
                                    p += offsets[d][tap];
                                    weight = d == 0 ? axes[d].weight[tap] : weight * axes[d].weight[tap];
                                }
                                terms[corner][0] = load<T>(p);
                                terms[corner][1] = weight;
                            }
                            const int64_t lanes = upsample_vector_bytes() / static_cast<int64_t>(sizeof(T));
                            const int64_t channels = input.sizes[1];
                            V sum;
                            if (index[1] < channels - channels % lanes) {  // a vector: right to left
                                sum = terms[corners - 1][0] * terms[corners - 1][1];
                                for (int j = corners - 2; j >= 0; --j) sum = mul_add(terms[j][0], terms[j][1], sum, fused);
                            } else {  // the scalar tail: left to right
                                sum = mul_add(terms[0][0], terms[0][1], terms[1][0] * terms[1][1], fused);
                                for (int j = 2; j < corners; ++j) sum = mul_add(terms[j][0], terms[j][1], sum, fused);
                            }
                            store<T>(dst, static_cast<compute_t<T>>(sum));
                        }
                        for (size_t d = rank; d-- > 0;) {  // odometer
                            if (++index[d] < out_sizes[d]) break;
                            index[d] = 0;
                        }
                    }
                });
            }
        });
    });
    return single(std::move(out));
}

// ---- shape contracts -----------------------------------------------------------------------

// input [N, C, spatial...] and grid [N, spatial out..., S]: [N, C, spatial out...].
std::optional<std::vector<ExpectedSizes>> grid_sampler_shape(const ShapeQuery& query) {
    const auto input = query.sizes("input", 0), grid = query.sizes("grid", 1);
    if (!input || !grid) return std::nullopt;
    if ((input->size() != 4 && input->size() != 5) || grid->size() != input->size()) {
        query.contradiction(fmt::format("its input of rank {} and grid of rank {} are not both 4-d or both 5-d", input->size(),
                                        grid->size()));
    }
    const auto batch = (*input)[0], grid_batch = (*grid)[0], coordinates = grid->back();
    if (batch && grid_batch && *batch != *grid_batch) {
        query.contradiction(fmt::format("its input's batch of {} and grid's of {} differ", *batch, *grid_batch));
    }
    if (coordinates && *coordinates != static_cast<int64_t>(input->size()) - 2) {
        query.contradiction(fmt::format("its grid's last size is {} where a {}-d sampling takes {}", *coordinates, input->size() - 2,
                                        input->size() - 2));
    }
    ExpectedSizes out{(*input)[0], (*input)[1]};
    out.insert(out.end(), grid->begin() + 1, grid->end() - 1);
    return std::vector<ExpectedSizes>{out};
}

// The argument named `name` as it is recorded; nullptr when the overload has none or it is None.
const graph::Argument* recorded_arg(const ShapeQuery& query, ArgName name) {
    const graph::OpSchema* schema = query.node().schema;
    const auto at = schema ? schema->position_of(name.id()) : std::nullopt;
    if (!at) return nullptr;
    const graph::Argument& arg = query.node().arg(*at);
    return arg.kind == graph::Argument::Kind::None ? nullptr : &arg;
}

// [N, C] then output_size, or (the .vec overloads without one) each spatial size times its scale
// factor, truncated as upsample_compute_output_size does; a symbolic size or factor is unknown.
template <size_t kSpatial>
std::optional<std::vector<ExpectedSizes>> upsample_shape(const ShapeQuery& query) {
    const bool vec = recorded_arg(query, "input") != nullptr;  // the .vec overloads name it input, the others self
    const auto input = vec ? query.sizes("input", 0) : query.sizes("self", 0);
    if (!input || input->size() != kSpatial + 2) return std::nullopt;
    ExpectedSizes out{(*input)[0], (*input)[1]};
    const graph::Argument* output_size = recorded_arg(query, "output_size");
    const graph::Argument* scale_factors = vec ? recorded_arg(query, "scale_factors") : nullptr;
    if (output_size && scale_factors) query.contradiction("it gives both output_size and scale_factors");
    if (output_size) {
        const auto sizes = query.ints("output_size", 1);
        if (sizes && sizes->size() != kSpatial) {
            query.contradiction(fmt::format("its output_size has {} sizes for {} spatial dims", sizes->size(), kSpatial));
        }
        for (size_t d = 0; d < kSpatial; ++d) out.push_back(sizes ? std::optional<int64_t>((*sizes)[d]) : std::nullopt);
        return std::vector<ExpectedSizes>{out};
    }
    if (!scale_factors) query.contradiction("it gives neither output_size nor scale_factors");
    if (scale_factors->kind != graph::Argument::Kind::List) return std::nullopt;
    if (scale_factors->items.size() != kSpatial) {
        query.contradiction(fmt::format("its scale_factors has {} factors for {} spatial dims", scale_factors->items.size(), kSpatial));
    }
    for (size_t d = 0; d < kSpatial; ++d) {
        const graph::Argument& factor = scale_factors->items[d];
        const auto in = (*input)[2 + d];
        if (!in || (factor.kind != graph::Argument::Kind::Float && factor.kind != graph::Argument::Kind::Int)) {
            out.push_back(std::nullopt);
            continue;
        }
        const double scale = factor.kind == graph::Argument::Kind::Float ? factor.float_value : static_cast<double>(factor.int_value);
        const bool whole = scale == std::trunc(scale);
        out.push_back(whole ? *in * static_cast<int64_t>(scale) : static_cast<int64_t>(static_cast<double>(*in) * scale));
    }
    return std::vector<ExpectedSizes>{out};
}

PT2OV_KERNEL("aten.grid_sampler.default", grid_sampler, grid_sampler_shape);
PT2OV_KERNEL("aten.grid_sampler_2d.default", grid_sampler, grid_sampler_shape);
PT2OV_KERNEL("aten.grid_sampler_3d.default", grid_sampler, grid_sampler_shape);
PT2OV_KERNEL("aten._upsample_nearest_exact1d", [](const KernelCall& c) { return upsample_nearest_exact(c, 1); }, upsample_shape<1>);
PT2OV_KERNEL("aten._upsample_nearest_exact2d", [](const KernelCall& c) { return upsample_nearest_exact(c, 2); }, upsample_shape<2>);
PT2OV_KERNEL("aten._upsample_nearest_exact3d", [](const KernelCall& c) { return upsample_nearest_exact(c, 3); }, upsample_shape<3>);
PT2OV_KERNEL("aten._upsample_bilinear2d_aa", upsample_bilinear2d_aa, upsample_shape<2>);
PT2OV_KERNEL("aten.upsample_nearest1d", [](const KernelCall& c) { return upsample_interpolate(c, UpsampleMode::Nearest, 1); },
             upsample_shape<1>);
PT2OV_KERNEL("aten.upsample_nearest2d", [](const KernelCall& c) { return upsample_interpolate(c, UpsampleMode::Nearest, 2); },
             upsample_shape<2>);
PT2OV_KERNEL("aten.upsample_nearest3d", [](const KernelCall& c) { return upsample_interpolate(c, UpsampleMode::Nearest, 3); },
             upsample_shape<3>);
PT2OV_KERNEL("aten.upsample_linear1d", [](const KernelCall& c) { return upsample_interpolate(c, UpsampleMode::Linear, 1); },
             upsample_shape<1>);
PT2OV_KERNEL("aten.upsample_bilinear2d", [](const KernelCall& c) { return upsample_interpolate(c, UpsampleMode::Linear, 2); },
             upsample_shape<2>);
PT2OV_KERNEL("aten.upsample_trilinear3d", [](const KernelCall& c) { return upsample_interpolate(c, UpsampleMode::Linear, 3); },
             upsample_shape<3>);
PT2OV_KERNEL("aten.upsample_bicubic2d", [](const KernelCall& c) { return upsample_interpolate(c, UpsampleMode::Cubic, 2); },
             upsample_shape<2>);

}  // namespace
}  // namespace pt2ov::kernels
