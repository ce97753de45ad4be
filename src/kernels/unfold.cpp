// Reshuffles of a tensor's elements: unfold (a view of sliding windows) and unfold_copy,
// narrow_copy, unbind and unbind_copy, repeat, constant_pad_nd, roll and flip; and the functional fills (fill.Scalar, fill.Tensor,
// zero), which return a new tensor shaped and laid out like self.
#include <algorithm>

#include <fmt/format.h>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// unfold(Tensor(a) self, int dimension, int size, int step): dim `dimension` becomes the
// window count, and a last dim of `size` walks each window (a 0-dim self gives [size]).
StridedTensor unfolded(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto rank = static_cast<int64_t>(self.rank());
    const int64_t dim = normalize_dim(call, call.int_arg("dimension", 1), rank);
    const int64_t size = call.int_arg("size", 2);
    const int64_t step = call.int_arg("step", 3);
    const int64_t extent = rank == 0 ? 1 : self.sizes[dim];
    if (size < 0 || size > extent) {
        call.fail("unfold(): the maximum size for dimension " + std::to_string(dim) + " is " + std::to_string(extent) +
                  ", got size " + std::to_string(size));
    }
    if (step <= 0) call.fail("unfold(): step must be positive, got " + std::to_string(step));
    std::vector<int64_t> sizes = self.sizes, strides = self.strides;
    sizes.push_back(size);
    strides.push_back(rank == 0 ? 1 : self.strides[dim]);
    if (rank > 0) {
        sizes[dim] = (self.sizes[dim] - size) / step + 1;
        // PyTorch's product wraps, and its view then refuses the negative stride it makes.
        if (__builtin_mul_overflow(step, self.strides[dim], &strides[dim])) {
            call.fail("unfold(): step " + std::to_string(step) + " times the stride " + std::to_string(self.strides[dim]) +
                      " of dimension " + std::to_string(dim) + " is beyond 64 bits");
        }
    }
    return self.view(sizes, strides);
}

// narrow_copy(Tensor self, int dim, SymInt start, SymInt length): start may count from the end.
StridedTensor narrowed(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("narrow() cannot be applied to a 0-dim tensor");
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()));
    const int64_t size = self.sizes[dim];
    int64_t start = call.int_arg("start", 2);
    const int64_t length = call.int_arg("length", 3);
    if (start < -size || start > size) {
        call.fail("narrow(): start " + std::to_string(start) + " is out of range for dimension " + std::to_string(dim) +
                  " of size " + std::to_string(size));
    }
    if (start < 0) start += size;
    if (length < 0 || start > size - length) {
        call.fail("narrow(): start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                  ") exceeds dimension size (" + std::to_string(size) + ")");
    }
    std::vector<int64_t> sizes = self.sizes;
    sizes[dim] = length;
    return self.view(sizes, self.strides, start * self.strides[dim]);
}

std::vector<RuntimeValue> copied(const KernelCall& call, const StridedTensor& view) {
    StridedTensor out = allocate_output(call, 0, view.sizes, view.dtype);
    copy_into(view, out);
    return single(out);
}

// unbind.int(Tensor self, int dim=0) -> Tensor[]: one view per index along dim, without that
// dim; unbind_copy.int: a row-major copy of each.
std::vector<RuntimeValue> unbind(const KernelCall& call, bool copy) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("unbind() cannot be applied to a 0-dim tensor");
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1, 0), static_cast<int64_t>(self.rank()));
    std::vector<int64_t> sizes = self.sizes, strides = self.strides;
    sizes.erase(sizes.begin() + dim);
    strides.erase(strides.begin() + dim);
    std::vector<RuntimeValue> outputs;
    for (int64_t i = 0; i < self.sizes[dim]; ++i) {
        StridedTensor piece = self.view(sizes, strides, i * self.strides[dim]);
        if (copy) {
            StridedTensor out = StridedTensor::allocate(self.dtype, sizes);
            copy_into(piece, out);
            piece = std::move(out);
        }
        outputs.push_back(RuntimeValue::of(std::move(piece)));
    }
    return outputs;
}

// `source` rolled by `shift` (in [0, size)) along dim into `target`: target[(i + shift) % n] = source[i].
void roll_dim(const StridedTensor& source, const StridedTensor& target, size_t dim, int64_t shift) {
    const int64_t n = source.sizes[dim];
    auto part = [&](const StridedTensor& t, int64_t start, int64_t length) {
        std::vector<int64_t> sizes = t.sizes;
        sizes[dim] = length;
        return t.view(sizes, t.strides, start * t.strides[dim]);
    };
    copy_into(part(source, 0, n - shift), part(target, shift, n - shift));
    if (shift > 0) copy_into(part(source, n - shift, shift), part(target, 0, shift));
}

// roll(Tensor self, SymInt[1] shifts, int[1] dims=[]): without dims, the row-major elements
// roll as one vector; a dim listed twice rolls twice.
std::vector<RuntimeValue> roll(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto shifts = call.ints("shifts", 1);
    const auto dims_arg = call.ints("dims", 2, {});
    StridedTensor out = allocate_output(call, 0, self.sizes, self.dtype);
    if (self.numel() == 0) return single(out);
    if (dims_arg.empty()) {
        if (shifts.size() != 1) call.fail("roll() without dims takes one shift, got " + std::to_string(shifts.size()));
        const StridedTensor flat = contiguous_as(self, self.dtype);
        StridedTensor rolled = StridedTensor::allocate(self.dtype, {self.numel()});
        const int64_t n = self.numel();
        roll_dim(flat.view({n}, {1}), rolled, 0, ((shifts[0] % n) + n) % n);
        copy_into(rolled.view(self.sizes, contiguous_strides(self.sizes)), out);
        return single(out);
    }
    if (shifts.size() != dims_arg.size()) {
        call.fail("roll(): shifts (" + std::to_string(shifts.size()) + ") and dims (" + std::to_string(dims_arg.size()) +
                  ") must align");
    }
    if (self.rank() == 0) {  // dims 0 and -1 name the one element: it stays where it is
        for (int64_t dim : dims_arg) normalize_dim(call, dim, 0);
        copy_into(self, out);
        return single(out);
    }
    std::vector<int64_t> total(self.rank(), 0);
    for (size_t k = 0; k < dims_arg.size(); ++k) {
        const int64_t dim = normalize_dim(call, dims_arg[k], static_cast<int64_t>(self.rank()));
        const int64_t n = self.sizes[dim];
        total[dim] = (total[dim] + shifts[k] % n + n) % n;
    }
    StridedTensor current = self;
    for (size_t d = 0; d < self.rank(); ++d) {
        if (total[d] == 0) continue;
        StridedTensor next = StridedTensor::allocate(self.dtype, self.sizes);
        roll_dim(current, next, d, total[d]);
        current = next;
    }
    copy_into(current, out);
    return single(out);
}

// flip(Tensor self, int[] dims): each listed dim reversed.
std::vector<RuntimeValue> flip(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto dims = normalize_dims(call, call.ints("dims", 1), static_cast<int64_t>(self.rank()));
    std::vector<int64_t> strides = self.strides;
    int64_t offset = 0;
    for (int64_t d : dims) {
        if (self.rank() == 0 || self.sizes[d] == 0) continue;
        offset += (self.sizes[d] - 1) * self.strides[d];
        strides[d] = -self.strides[d];
    }
    return copied(call, self.view(self.sizes, strides, offset));
}

// fill.Scalar(Tensor self, Scalar value) / fill.Tensor(Tensor self, Tensor value) / zero(Tensor
// self): a new tensor like self holding one value, converted to self's dtype.
std::vector<RuntimeValue> filled(const KernelCall& call, const StridedTensor& value) {
    const StridedTensor& self = call.tensor("self", 0);
    StridedTensor out = allocate_output(call, 0, self.sizes, self.dtype);
    copy_into(value.view(self.sizes, std::vector<int64_t>(self.rank(), 0)), out);
    return single(out);
}

std::vector<RuntimeValue> fill_tensor(const KernelCall& call) {
    const StridedTensor& value = call.tensor("value", 1);
    if (value.rank() != 0) call.fail("fill() only supports a 0-dim value tensor, got shape " + shape_text(value.sizes));
    StridedTensor converted = StridedTensor::allocate(call.tensor("self", 0).dtype, {});
    copy_into(value, converted);
    return filled(call, converted);
}

// Shape contracts. roll, flip and the fills keep self's sizes.
std::optional<std::vector<ExpectedSizes>> unfold_shape(const ShapeQuery& query) {
    auto self = query.sizes("self", 0);
    const auto dimension = query.int_arg("dimension", 1), size = query.int_arg("size", 2), step = query.int_arg("step", 3);
    if (!self || !dimension || !size || !step) return std::nullopt;
    const auto rank = static_cast<int64_t>(self->size());
    const auto d = static_cast<size_t>(wrap_dim(query, *dimension, rank));
    const std::optional<int64_t> extent = rank == 0 ? std::optional<int64_t>(1) : (*self)[d];
    if (*size < 0 || (extent && *size > *extent)) {
        query.contradiction(fmt::format("its window size {} does not fit dim {} of size {}", *size, *dimension,
                                        extent ? std::to_string(*extent) : "?"));
    }
    if (*step <= 0) query.contradiction("its step " + std::to_string(*step) + " is not positive");
    if (rank > 0) (*self)[d] = extent ? std::optional<int64_t>((*extent - *size) / *step + 1) : std::nullopt;
    self->push_back(*size);
    return std::vector<ExpectedSizes>{*self};
}

std::optional<std::vector<ExpectedSizes>> narrow_shape(const ShapeQuery& query) {
    auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 1);
    if (!self || !dim) return std::nullopt;
    if (self->empty()) query.contradiction("it narrows a 0-dim tensor");
    const auto d = static_cast<size_t>(wrap_dim(query, *dim, static_cast<int64_t>(self->size())));
    const auto size = (*self)[d];
    auto start = query.int_arg("start", 2);
    const auto length = query.int_arg("length", 3);
    if (length && *length < 0) query.contradiction("its length " + std::to_string(*length) + " is negative");
    if (size && start) {
        if (*start < -*size || *start > *size) {
            query.contradiction(fmt::format("its start {} is out of range for dim {} of size {}", *start, *dim, *size));
        }
        if (*start < 0) *start += *size;
        if (length && *start > *size - *length) {
            query.contradiction(fmt::format("its start {} and length {} reach beyond dim {} of size {}", *start, *length, *dim, *size));
        }
    }
    (*self)[d] = length;
    return std::vector<ExpectedSizes>{*self};
}

// unbind, unbind_copy: every one of its list of tensors is self without dim `dim`.
std::optional<std::vector<ExpectedSizes>> unbind_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 1);
    if (!self || !dim) return std::nullopt;
    if (self->empty()) query.contradiction("it unbinds a 0-dim tensor");
    return std::vector<ExpectedSizes>{without_dim(*self, wrap_dim(query, *dim, static_cast<int64_t>(self->size())))};
}

std::optional<std::vector<ExpectedSizes>> flip_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto dims = query.ints("dims", 1);
    if (!self) return std::nullopt;
    if (dims) {
        std::vector<bool> seen(std::max<size_t>(self->size(), 1), false);
        for (int64_t d : *dims) {
            const auto at = static_cast<size_t>(wrap_dim(query, d, static_cast<int64_t>(self->size())));
            if (seen[at]) query.contradiction("it flips dim " + std::to_string(d) + " twice");
            seen[at] = true;
        }
    }
    return std::vector<ExpectedSizes>{*self};
}

// fill.Tensor: the value must be 0-dim.
std::optional<std::vector<ExpectedSizes>> fill_tensor_shape(const ShapeQuery& query) {
    const auto value = query.sizes("value", 1);
    if (value && !value->empty()) query.contradiction("it fills with a value of rank " + std::to_string(value->size()) + " (0-dim expected)");
    return same_as_self(query);
}

PT2OV_KERNEL("aten.unfold.default", [](const KernelCall& c) { return single(unfolded(c)); }, unfold_shape);
PT2OV_KERNEL("aten.unfold_copy.default", [](const KernelCall& c) { return copied(c, unfolded(c)); }, unfold_shape);
PT2OV_KERNEL("aten.narrow_copy.default", [](const KernelCall& c) { return copied(c, narrowed(c)); }, narrow_shape);
// repeat(Tensor self, SymInt[] repeats): `self` tiled repeats[d] times along each dim d, its
// sizes first given leading 1s up to the length of `repeats`. Read as the view of sizes
// (r0, s0, r1, s1, ...) whose repeat dims have stride 0, copied row-major: that copy is the
// result of sizes (r0 * s0, r1 * s1, ...).
std::vector<RuntimeValue> repeat(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const std::vector<int64_t> repeats = call.ints("repeats", 1);
    if (repeats.size() < self.rank()) {
        call.fail(fmt::format("repeat() needs at least as many repeats as the tensor has dims: {} for shape {}",
                              shape_text(repeats), shape_text(self.sizes)));
    }
    const size_t lead = repeats.size() - self.rank();
    std::vector<int64_t> wide_sizes, wide_strides, sizes;
    for (size_t d = 0; d < repeats.size(); ++d) {
        if (repeats[d] < 0) call.fail("repeat() expects non-negative repeats, got " + shape_text(repeats));
        const int64_t size = d < lead ? 1 : self.sizes[d - lead];
        const int64_t stride = d < lead ? 0 : self.strides[d - lead];
        wide_sizes.insert(wide_sizes.end(), {repeats[d], size});
        wide_strides.insert(wide_strides.end(), {0, stride});
        sizes.push_back(repeats[d] * size);
    }
    StridedTensor out = StridedTensor::allocate(self.dtype, sizes);
    if (out.numel() > 0) copy_into(self.view(wide_sizes, wide_strides), out.view(wide_sizes, contiguous_strides(wide_sizes)));
    return single(out);
}

std::optional<std::vector<ExpectedSizes>> repeat_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto repeats = query.ints("repeats", 1);
    if (!self || !repeats) return std::nullopt;
    if (repeats->size() < self->size()) query.contradiction("it has fewer repeats than dims");
    const size_t lead = repeats->size() - self->size();
    ExpectedSizes out;
    for (size_t d = 0; d < repeats->size(); ++d) {
        const std::optional<int64_t> size = d < lead ? std::optional<int64_t>(1) : (*self)[d - lead];
        out.push_back(size ? std::optional<int64_t>((*repeats)[d] * *size) : std::nullopt);
    }
    return std::vector<ExpectedSizes>{out};
}

// constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0): `pad` holds (before, after) pairs
// from the last dim backwards; a negative one crops. The result holds `value` (converted to
// self's dtype) around the part of self that remains.
std::vector<RuntimeValue> constant_pad(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const std::vector<int64_t> pad = call.ints("pad", 1);
    if (pad.size() % 2 != 0 || pad.size() / 2 > self.rank()) {
        call.fail(fmt::format("constant_pad_nd needs pairs of pads for at most {} dims, got {}", self.rank(), shape_text(pad)));
    }
    std::vector<int64_t> sizes = self.sizes, source_start(self.rank(), 0), target_start(self.rank(), 0), kept = self.sizes;
    for (size_t k = 0; k < pad.size() / 2; ++k) {
        const size_t d = self.rank() - 1 - k;
        const int64_t before = pad[2 * k], after = pad[2 * k + 1];
        sizes[d] = self.sizes[d] + before + after;
        if (sizes[d] < 0) call.fail(fmt::format("constant_pad_nd pads dim {} of size {} to {}", d, self.sizes[d], sizes[d]));
        source_start[d] = std::max<int64_t>(0, -before);
        target_start[d] = std::max<int64_t>(0, before);
        kept[d] = std::max<int64_t>(0, self.sizes[d] - source_start[d] - std::max<int64_t>(0, -after));
    }
    const StridedTensor value = scalar_tensor_as(call.has("value", 2) ? call.scalar("value", 2) : Scalar{int64_t{0}}, self.dtype);
    StridedTensor out = StridedTensor::allocate(self.dtype, sizes);
    copy_into(value.view(sizes, std::vector<int64_t>(sizes.size(), 0)), out);
    int64_t source_offset = 0, target_offset = 0;
    bool empty = false;
    for (size_t d = 0; d < self.rank(); ++d) {
        source_offset += source_start[d] * self.strides[d];
        target_offset += target_start[d] * out.strides[d];
        empty = empty || kept[d] == 0;
    }
    if (!empty) copy_into(self.view(kept, self.strides, source_offset), out.view(kept, out.strides, target_offset));
    return single(out);
}

std::optional<std::vector<ExpectedSizes>> constant_pad_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto pad = query.ints("pad", 1);
    if (!self || !pad) return std::nullopt;
    if (pad->size() % 2 != 0 || pad->size() / 2 > self->size()) query.contradiction("its pads are not pairs for its dims");
    ExpectedSizes out = *self;
    for (size_t k = 0; k < pad->size() / 2; ++k) {
        auto& size = out[out.size() - 1 - k];
        if (size) size = *size + (*pad)[2 * k] + (*pad)[2 * k + 1];
    }
    return std::vector<ExpectedSizes>{out};
}

PT2OV_KERNEL("aten.unbind_copy.int", [](const KernelCall& c) { return unbind(c, true); }, unbind_shape);
PT2OV_KERNEL("aten.unbind.int", [](const KernelCall& c) { return unbind(c, false); }, unbind_shape);
PT2OV_KERNEL("aten.repeat.default", repeat, repeat_shape);
PT2OV_KERNEL("aten.constant_pad_nd.default", constant_pad, constant_pad_shape);
PT2OV_KERNEL("aten.roll.default", roll, same_as_self);
PT2OV_KERNEL("aten.flip.default", flip, flip_shape);
PT2OV_KERNEL("aten.fill.Scalar", [](const KernelCall& c) {
    return filled(c, scalar_tensor_as(c.scalar("value", 1), c.tensor("self", 0).dtype));
}, same_as_self);
PT2OV_KERNEL("aten.fill.Tensor", fill_tensor, fill_tensor_shape);
PT2OV_KERNEL("aten.zero.default", [](const KernelCall& c) {
    return filled(c, StridedTensor::allocate(c.tensor("self", 0).dtype, {}));
}, same_as_self);

}  // namespace
}  // namespace pt2ov::kernels
