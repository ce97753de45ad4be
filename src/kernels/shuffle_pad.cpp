// Kernels that move elements without computing on them: reflection and replication padding of
// the last 1 to 3 dims, pixel_shuffle, pixel_unshuffle, channel_shuffle and repeat_interleave by
// an int. Elements are moved as bits (NaN payloads, -0.0 kept), so every dtype is served.
// Padding reads each output index's source through PyTorch's index functions (ATen
// PaddingKernel.cpp, ReflectionPad and ReplicationPad), negative pads (crops) included; the
// shuffles are views of the input copied into views of the output, as PyTorch's own
// decompositions (view, permute, clone) make them.
#include <fmt/format.h>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// out[i0, ..., in] = self[source[0][i0], ..., source[n][in]]: each dim's source index by a table
// (an empty table: the same index). `out` has its own sizes and any strides.
void gather_by_dims(const StridedTensor& self, const StridedTensor& out, const std::vector<std::vector<int64_t>>& source) {
    if (out.numel() == 0) return;
    const size_t rank = out.rank();
    const auto element = static_cast<int64_t>(self.element_size());
    if (rank == 0) {
        std::memcpy(out.data, self.data, static_cast<size_t>(element));
        return;
    }
    // Byte offsets of every index of every dim, in the input and in the output.
    std::vector<std::vector<int64_t>> from(rank), to(rank);
    for (size_t d = 0; d < rank; ++d) {
        for (int64_t j = 0; j < out.sizes[d]; ++j) {
            const int64_t s = source[d].empty() ? j : source[d][static_cast<size_t>(j)];
            from[d].push_back(s * self.strides[d] * element);
            to[d].push_back(j * out.strides[d] * element);
        }
    }
    visit_bits(self.element_size(), [&]<typename Bits>() {
        const size_t last = rank - 1;
        const int64_t inner = out.sizes[last];
        std::vector<int64_t> index(rank, 0);
        for (;;) {
            const std::byte* in_base = self.data;
            std::byte* out_base = out.data;
            for (size_t d = 0; d < last; ++d) {
                in_base += from[d][static_cast<size_t>(index[d])];
                out_base += to[d][static_cast<size_t>(index[d])];
            }
            for (int64_t j = 0; j < inner; ++j) {
                Bits bits;
                std::memcpy(&bits, in_base + from[last][static_cast<size_t>(j)], sizeof(Bits));
                std::memcpy(out_base + to[last][static_cast<size_t>(j)], &bits, sizeof(Bits));
            }
            size_t d = last;
            for (;;) {  // carry into the outer dims, odometer style
                if (d == 0) return;
                --d;
                if (++index[d] < out.sizes[d]) break;
                index[d] = 0;
            }
        }
    });
}

// ---- reflection_pad{1,2,3}d, replication_pad{1,2,3}d ----------------------------------------

enum class PadMode { Reflect, Replicate };

// PyTorch's index of the input read by output index j of a dim of `size` padded by `before`
// (ReflectionPad::index / ReplicationPad::index), shifted for a negative pad as its loops do.
int64_t pad_source(PadMode mode, int64_t j, int64_t size, int64_t before) {
    int64_t i;
    if (j < before) {
        i = mode == PadMode::Reflect ? before * 2 - j : before;
    } else if (j < size + before) {
        i = j;
    } else {
        i = mode == PadMode::Reflect ? (size + before - 1) * 2 - j : size + before - 1;
    }
    return i - std::max<int64_t>(0, before) + std::max<int64_t>(0, -before);
}

template <PadMode Mode, int Dims>
std::vector<RuntimeValue> pad(const KernelCall& call) {
    const char* name = Mode == PadMode::Reflect ? "reflection_pad" : "replication_pad";
    const StridedTensor& self = call.tensor("self", 0);
    const std::vector<int64_t> padding = call.ints("padding", 1);
    if (padding.size() != 2 * Dims) {
        call.fail(fmt::format("{}{}d expects {} padding values, got {}", name, Dims, 2 * Dims, shape_text(padding)));
    }
    if (self.rank() != Dims + 1 && self.rank() != Dims + 2) {
        call.fail(fmt::format("{}{}d expects a {}-d or {}-d (batch mode) input, got shape {}", name, Dims, Dims + 1, Dims + 2,
                              shape_text(self.sizes)));
    }
    for (size_t d = self.rank() == Dims + 2 ? 1 : 0; d < self.rank(); ++d) {
        if (self.sizes[d] == 0) {
            call.fail(fmt::format("{}{}d expects an input with non-zero sizes but for the batch dim, got shape {}", name, Dims,
                                  shape_text(self.sizes)));
        }
    }
    std::vector<int64_t> sizes = self.sizes;
    std::vector<std::vector<int64_t>> source(self.rank());
    for (int k = 0; k < Dims; ++k) {
        const size_t d = self.rank() - 1 - static_cast<size_t>(k);
        const int64_t size = self.sizes[d], before = padding[2 * k], after = padding[2 * k + 1];
        if (Mode == PadMode::Reflect && (before >= size || after >= size)) {
            call.fail(fmt::format("{}{}d: padding size should be less than the corresponding input dimension, but got padding "
                                  "({}, {}) at dimension {} of input shape {}",
                                  name, Dims, before, after, d, shape_text(self.sizes)));
        }
        sizes[d] = size + before + after;
        if (sizes[d] < 1) {
            call.fail(fmt::format("{}{}d: input size {} of dim {} padded by ({}, {}) gives {}, which is too small", name, Dims, size, d,
                                  before, after, sizes[d]));
        }
        for (int64_t j = 0; j < sizes[d]; ++j) source[d].push_back(pad_source(Mode, j, size, before));
    }
    StridedTensor out = allocate_output_for_overwrite(call, 0, sizes, self.dtype);
    gather_by_dims(self, out, source);
    return single(std::move(out));
}

// The input's sizes, each of the last padded dims grown by its pair.
std::optional<std::vector<ExpectedSizes>> pad_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto padding = query.ints("padding", 1);
    if (!self || !padding) return std::nullopt;
    const size_t pairs = padding->size() / 2;
    if (padding->size() % 2 != 0 || pairs > self->size()) query.contradiction("its padding is not pairs for its last dims");
    ExpectedSizes out = *self;
    for (size_t k = 0; k < pairs; ++k) {
        auto& size = out[out.size() - 1 - k];
        if (size) size = *size + (*padding)[2 * k] + (*padding)[2 * k + 1];
    }
    return std::vector<ExpectedSizes>{out};
}

// ---- pixel_shuffle, pixel_unshuffle, channel_shuffle ----------------------------------------

// `t` with dim `d` split into `parts` (sizes, outermost first), any strides.
StridedTensor split_dim(const StridedTensor& t, size_t d, const std::vector<int64_t>& parts) {
    std::vector<int64_t> sizes(t.sizes.begin(), t.sizes.begin() + static_cast<std::ptrdiff_t>(d));
    std::vector<int64_t> strides(t.strides.begin(), t.strides.begin() + static_cast<std::ptrdiff_t>(d));
    int64_t inner = 1;
    std::vector<int64_t> part_strides(parts.size());
    for (size_t k = parts.size(); k-- > 0;) {
        part_strides[k] = t.strides[d] * inner;
        inner *= parts[k];
    }
    sizes.insert(sizes.end(), parts.begin(), parts.end());
    strides.insert(strides.end(), part_strides.begin(), part_strides.end());
    sizes.insert(sizes.end(), t.sizes.begin() + static_cast<std::ptrdiff_t>(d) + 1, t.sizes.end());
    strides.insert(strides.end(), t.strides.begin() + static_cast<std::ptrdiff_t>(d) + 1, t.strides.end());
    return t.view(sizes, strides);
}

// `t`'s last `order.size()` dims reordered: new dim k is old dim order[k] (counted from the first
// of them).
StridedTensor permute_tail(const StridedTensor& t, const std::vector<size_t>& order) {
    const size_t lead = t.rank() - order.size();
    std::vector<int64_t> sizes(t.sizes.begin(), t.sizes.begin() + static_cast<std::ptrdiff_t>(lead));
    std::vector<int64_t> strides(t.strides.begin(), t.strides.begin() + static_cast<std::ptrdiff_t>(lead));
    for (size_t k : order) {
        sizes.push_back(t.sizes[lead + k]);
        strides.push_back(t.strides[lead + k]);
    }
    return t.view(sizes, strides);
}

// pixel_shuffle(self [..., C r r, H, W], r) -> [..., C, H r, W r]; pixel_unshuffle the inverse.
template <bool Shuffle>
std::vector<RuntimeValue> pixel_shuffle(const KernelCall& call) {
    const char* name = Shuffle ? "pixel_shuffle" : "pixel_unshuffle";
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t r = call.int_arg(Shuffle ? ArgName("upscale_factor") : ArgName("downscale_factor"), 1);
    if (self.rank() < 3) call.fail(fmt::format("{} expects an input of 3 or more dims, got shape {}", name, shape_text(self.sizes)));
    if (r <= 0) call.fail(fmt::format("{} expects a positive factor, got {}", name, r));
    const size_t c = self.rank() - 3, h = self.rank() - 2, w = self.rank() - 1;
    std::vector<int64_t> sizes = self.sizes;
    if (Shuffle) {
        if (self.sizes[c] % (r * r) != 0) {
            call.fail(fmt::format("pixel_shuffle expects its input's channels ({}) to be divisible by the square of "
                                  "upscale_factor ({})", self.sizes[c], r * r));
        }
        sizes[c] /= r * r;
        sizes[h] *= r;
        sizes[w] *= r;
    } else {
        if (self.sizes[h] % r != 0 || self.sizes[w] % r != 0) {
            call.fail(fmt::format("pixel_unshuffle expects its input's height and width ({}, {}) to be divisible by "
                                  "downscale_factor ({})", self.sizes[h], self.sizes[w], r));
        }
        sizes[c] *= r * r;
        sizes[h] /= r;
        sizes[w] /= r;
    }
    StridedTensor out = allocate_output_for_overwrite(call, 0, sizes, self.dtype);
    if (out.numel() == 0) return single(std::move(out));
    // The small tensor seen as [..., C, r, r, H, W], the large one as [..., C, H, r, W, r].
    const StridedTensor& small = Shuffle ? self : out;
    const StridedTensor& large = Shuffle ? out : self;
    const int64_t channels = small.sizes[c] / (r * r);
    StridedTensor small6 = split_dim(small, c, {channels, r, r});
    StridedTensor large6 = split_dim(split_dim(large, w, {large.sizes[w] / r, r}), h, {large.sizes[h] / r, r});
    // [C, r1, r2, H, W] -> [C, H, r1, W, r2]
    const StridedTensor small_as_large = permute_tail(small6, {0, 3, 1, 4, 2});
    if (Shuffle) copy_into(small_as_large, large6);
    else copy_into(large6, small_as_large);
    return single(std::move(out));
}

// channel_shuffle(self [N, C, ...], groups): channel g * (C / groups) + k goes to k * groups + g.
std::vector<RuntimeValue> channel_shuffle(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t groups = call.int_arg("groups", 1);
    if (self.rank() < 3) call.fail("channel_shuffle expects an input of 3 or more dims, got shape " + shape_text(self.sizes));
    if (groups <= 0) call.fail(fmt::format("channel_shuffle expects a positive number of groups, got {}", groups));
    if (self.sizes[1] % groups != 0) {
        call.fail(fmt::format("channel_shuffle expects the number of channels ({}) to be divisible by groups ({})", self.sizes[1], groups));
    }
    StridedTensor out = allocate_output_for_overwrite(call, 0, self.sizes, self.dtype);
    if (out.numel() == 0) return single(std::move(out));
    const int64_t per_group = self.sizes[1] / groups;
    StridedTensor in = split_dim(self, 1, {groups, per_group});
    std::swap(in.sizes[1], in.sizes[2]);
    std::swap(in.strides[1], in.strides[2]);
    copy_into(in, split_dim(out, 1, {per_group, groups}));
    return single(std::move(out));
}

// The input's sizes; the shuffles keep the channel count, the pixel shuffles trade r*r channels
// for r times the height and width.
template <int Kind>  // 1 pixel_shuffle, -1 pixel_unshuffle, 0 channel_shuffle
std::optional<std::vector<ExpectedSizes>> shuffle_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    if (self->size() < 3) query.contradiction(fmt::format("its input has {} dims where a shuffle needs 3 or more", self->size()));
    if (Kind == 0) return std::vector<ExpectedSizes>{*self};
    const auto r = query.int_arg(Kind > 0 ? ArgName("upscale_factor") : ArgName("downscale_factor"), 1);
    ExpectedSizes out = *self;
    const size_t c = out.size() - 3, h = out.size() - 2, w = out.size() - 1;
    if (!r || *r <= 0) return std::vector<ExpectedSizes>{ExpectedSizes(out.size())};
    const auto scale = [](std::optional<int64_t>& size, int64_t by, bool up) {
        if (size) size = up ? *size * by : *size / by;
    };
    scale(out[c], *r * *r, Kind < 0);
    scale(out[h], *r, Kind > 0);
    scale(out[w], *r, Kind > 0);
    return std::vector<ExpectedSizes>{out};
}

// ---- repeat_interleave.self_int -------------------------------------------------------------

// repeat_interleave(self, repeats: int, dim=None, *, output_size=None): each element (of the
// flattened tensor when dim is None) `repeats` times in a row along dim.
std::vector<RuntimeValue> repeat_interleave(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t repeats = call.int_arg("repeats", 1);
    if (repeats < 0) call.fail(fmt::format("repeat_interleave: repeats can not be negative, got {}", repeats));
    const bool flatten = !call.has("dim", 2);
    StridedTensor input = self;
    if (flatten) {
        const StridedTensor dense = contiguous_as(self, self.dtype);
        input = dense.view({dense.numel()}, {1});
    }
    const int64_t dim = flatten ? 0 : normalize_dim(call, call.int_arg("dim", 2), static_cast<int64_t>(self.rank()));
    if (input.rank() == 0) input = input.view({1}, {0});  // a 0-d tensor with a dim of 0 or -1 repeats as [1]
    std::vector<int64_t> sizes = input.sizes;
    sizes[static_cast<size_t>(dim)] *= repeats;
    if (call.has("output_size", kKeywordOnly)) {
        const int64_t expected = call.int_arg("output_size", kKeywordOnly);
        if (expected != sizes[static_cast<size_t>(dim)]) {
            call.fail(fmt::format("repeat_interleave: allocated size ({}) does not match required size ({})", expected,
                                  sizes[static_cast<size_t>(dim)]));
        }
    }
    StridedTensor out = allocate_output_for_overwrite(call, 0, sizes, self.dtype);
    std::vector<std::vector<int64_t>> source(sizes.size());
    for (int64_t j = 0; j < sizes[static_cast<size_t>(dim)]; ++j) source[static_cast<size_t>(dim)].push_back(j / repeats);
    gather_by_dims(input, out, source);
    return single(std::move(out));
}

std::optional<std::vector<ExpectedSizes>> repeat_interleave_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto repeats = query.int_arg("repeats", 1);
    if (!self) return std::nullopt;
    const auto dim = query.int_arg("dim", 2);
    if (!dim) {
        const auto count = element_count(*self);
        return std::vector<ExpectedSizes>{{count && repeats ? std::optional<int64_t>(*count * *repeats) : std::nullopt}};
    }
    ExpectedSizes out = self->empty() ? ExpectedSizes{1} : *self;
    auto& size = out[static_cast<size_t>(wrap_dim(query, *dim, static_cast<int64_t>(out.size())))];
    size = size && repeats ? std::optional<int64_t>(*size * *repeats) : std::nullopt;
    return std::vector<ExpectedSizes>{out};
}

PT2OV_KERNEL("aten.reflection_pad1d.default", (pad<PadMode::Reflect, 1>), pad_shape);
PT2OV_KERNEL("aten.reflection_pad2d.default", (pad<PadMode::Reflect, 2>), pad_shape);
PT2OV_KERNEL("aten.reflection_pad3d.default", (pad<PadMode::Reflect, 3>), pad_shape);
PT2OV_KERNEL("aten.replication_pad1d.default", (pad<PadMode::Replicate, 1>), pad_shape);
PT2OV_KERNEL("aten.replication_pad2d.default", (pad<PadMode::Replicate, 2>), pad_shape);
PT2OV_KERNEL("aten.replication_pad3d.default", (pad<PadMode::Replicate, 3>), pad_shape);
PT2OV_KERNEL("aten.pixel_shuffle.default", pixel_shuffle<true>, shuffle_shape<1>);
PT2OV_KERNEL("aten.pixel_unshuffle.default", pixel_shuffle<false>, shuffle_shape<-1>);
PT2OV_KERNEL("aten.channel_shuffle.default", channel_shuffle, shuffle_shape<0>);
PT2OV_KERNEL("aten.repeat_interleave.self_int", repeat_interleave, repeat_interleave_shape);

}  // namespace
}  // namespace pt2ov::kernels
