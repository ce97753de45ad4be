// slice and select: views of part of one dim (PyTorch's index clamping rules), and their
// functional *_copy forms (row-major copies).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)
StridedTensor sliced(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("slice() cannot be applied to a 0-dim tensor");
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1, 0), static_cast<int64_t>(self.rank()));
    const int64_t size = self.sizes[dim];
    int64_t start = call.int_arg("start", 2, 0);
    int64_t end = call.int_arg("end", 3, std::numeric_limits<int64_t>::max());
    const int64_t step = call.int_arg("step", 4, 1);
    if (step <= 0) call.fail("slice step must be positive, got " + std::to_string(step));
    // Negative bounds count from the end; then both are clamped into [0, size], end >= start.
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, start, size);
    std::vector<int64_t> sizes = self.sizes;
    std::vector<int64_t> strides = self.strides;
    // Counted without `end - start + step - 1`, which overflows for a step near INT64_MAX (a
    // negative size, then a view reaching before the data); a dim of one element keeps its
    // stride, as stride * step could overflow and no second element uses it.
    sizes[dim] = end == start ? 0 : (end - start - 1) / step + 1;
    strides[dim] = sizes[dim] > 1 ? self.strides[dim] * step : self.strides[dim];
    return self.view(sizes, strides, start * self.strides[dim]);
}

// select.int(Tensor(a) self, int dim, SymInt index)
StridedTensor selected(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("select() cannot be applied to a 0-dim tensor");
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()));
    const int64_t size = self.sizes[dim];
    const int64_t index = call.int_arg("index", 2);
    if (index < -size || index >= size) {
        call.fail("select(): index " + std::to_string(index) + " out of range for tensor of size " +
                  shape_text(self.sizes) + " at dimension " + std::to_string(dim));
    }
    const int64_t position = index < 0 ? index + size : index;
    std::vector<int64_t> sizes = self.sizes;
    std::vector<int64_t> strides = self.strides;
    sizes.erase(sizes.begin() + dim);
    strides.erase(strides.begin() + dim);
    return self.view(sizes, strides, position * self.strides[dim]);
}

std::vector<RuntimeValue> copied(StridedTensor v) {
    StridedTensor out = StridedTensor::allocate(v.dtype, v.sizes);
    copy_into(v, out);
    return single(out);
}

// Shape contracts.
// A SymInt? argument: `fallback` when None, nullopt when symbolic.
std::optional<int64_t> int_or(const ShapeQuery& query, ArgName name, int64_t fallback) {
    const auto at = query.node().schema->position_of(name.id());
    if (query.node().arg(*at).kind == graph::Argument::Kind::None) return fallback;
    return query.int_arg(name, *at);
}

std::optional<std::vector<ExpectedSizes>> slice_shape(const ShapeQuery& query) {
    auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 1);
    if (!self || !dim) return std::nullopt;
    if (self->empty()) query.contradiction("it slices a 0-dim tensor");
    const auto d = static_cast<size_t>(wrap_dim(query, *dim, static_cast<int64_t>(self->size())));
    const auto step = query.int_arg("step", 4);
    if (step && *step <= 0) query.contradiction("its step " + std::to_string(*step) + " is not positive");
    auto start = int_or(query, "start", 0);
    auto end = int_or(query, "end", std::numeric_limits<int64_t>::max());
    const auto size = (*self)[d];
    if (!size || !start || !end || !step) {
        (*self)[d] = std::nullopt;
        return std::vector<ExpectedSizes>{*self};
    }
    // slice_forward's clamping: negative bounds count from the end, then both into [0, size]
    // with end >= start.
    if (*start < 0) *start += *size;
    if (*end < 0) *end += *size;
    *start = std::clamp<int64_t>(*start, 0, *size);
    *end = std::clamp<int64_t>(*end, *start, *size);
    (*self)[d] = *end == *start ? 0 : (*end - *start - 1) / *step + 1;
    return std::vector<ExpectedSizes>{*self};
}

std::optional<std::vector<ExpectedSizes>> select_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 1);
    if (!self || !dim) return std::nullopt;
    if (self->empty()) query.contradiction("it selects from a 0-dim tensor");
    const int64_t d = wrap_dim(query, *dim, static_cast<int64_t>(self->size()));
    const auto size = (*self)[static_cast<size_t>(d)];
    const auto index = query.int_arg("index", 2);
    if (size && index && (*index < -*size || *index >= *size)) {
        query.contradiction(fmt::format("its index {} is out of range for dim {} of size {}", *index, *dim, *size));
    }
    return std::vector<ExpectedSizes>{without_dim(*self, d)};
}

PT2OV_KERNEL("aten.slice.Tensor", [](const KernelCall& c) { return single(sliced(c)); }, slice_shape);
PT2OV_KERNEL("aten.slice_copy.Tensor", [](const KernelCall& c) { return copied(sliced(c)); }, slice_shape);
PT2OV_KERNEL("aten.select.int", [](const KernelCall& c) { return single(selected(c)); }, select_shape);
PT2OV_KERNEL("aten.select_copy.int", [](const KernelCall& c) { return copied(selected(c)); }, select_shape);

}  // namespace
}  // namespace pt2ov::kernels
