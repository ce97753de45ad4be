// The functional writes through a view, as functionalization spells `x[...] = src`:
// slice_scatter, select_scatter and as_strided_scatter. Each returns a copy of self with src
// copied (converted, as copy_ converts) over the view's elements. diagonal_scatter is in
// diagonal.cpp.
#include <algorithm>
#include <limits>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

StridedTensor copy_of_self(const KernelCall& call, const StridedTensor& self) {
    StridedTensor out = allocate_output(call, 0, self.sizes, self.dtype);
    copy_into(self, out);
    return out;
}

void write_over(const KernelCall& call, const StridedTensor& view, const StridedTensor& src, const char* op) {
    if (src.sizes != view.sizes) {
        call.fail(std::string(op) + "(): src of shape " + shape_text(src.sizes) + " does not match the view's shape " +
                  shape_text(view.sizes));
    }
    copy_into(src, view);
}

// slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None,
// SymInt step=1): the slice's bounds clamp as slice's do.
std::vector<RuntimeValue> slice_scatter(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("slice() cannot be applied to a 0-dim tensor");
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 2, 0), static_cast<int64_t>(self.rank()));
    const int64_t size = self.sizes[dim];
    int64_t start = call.int_arg("start", 3, 0);
    int64_t end = call.int_arg("end", 4, std::numeric_limits<int64_t>::max());
    const int64_t step = call.int_arg("step", 5, 1);
    if (step <= 0) call.fail("slice step must be positive, got " + std::to_string(step));
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, start, size);
    StridedTensor out = copy_of_self(call, self);
    std::vector<int64_t> sizes = out.sizes, strides = out.strides;
    // Counted without `end - start + step - 1`, which overflows for a step near INT64_MAX (a
    // negative size, then a view reaching before the data); a dim of one element keeps its
    // stride, as stride * step could overflow and no second element uses it.
    sizes[dim] = end == start ? 0 : (end - start - 1) / step + 1;
    strides[dim] = sizes[dim] > 1 ? out.strides[dim] * step : out.strides[dim];
    write_over(call, out.view(sizes, strides, start * out.strides[dim]), call.tensor("src", 1), "slice_scatter");
    return single(out);
}

// select_scatter(Tensor self, Tensor src, int dim, SymInt index)
std::vector<RuntimeValue> select_scatter(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("select() cannot be applied to a 0-dim tensor");
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 2), static_cast<int64_t>(self.rank()));
    const int64_t size = self.sizes[dim];
    const int64_t index = call.int_arg("index", 3);
    if (index < -size || index >= size) {
        call.fail("select(): index " + std::to_string(index) + " out of range for tensor of size " + shape_text(self.sizes) +
                  " at dimension " + std::to_string(dim));
    }
    StridedTensor out = copy_of_self(call, self);
    std::vector<int64_t> sizes = out.sizes, strides = out.strides;
    sizes.erase(sizes.begin() + dim);
    strides.erase(strides.begin() + dim);
    const int64_t position = index < 0 ? index + size : index;
    write_over(call, out.view(sizes, strides, position * out.strides[dim]), call.tensor("src", 1), "select_scatter");
    return single(out);
}

// as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt?
// storage_offset=None): the view is taken on the storage of self's clone, so its meaning
// depends on how PyTorch laid self out; it is computed for a row-major result (what PyTorch's
// clone of a row-major self is) and refused otherwise.
std::vector<RuntimeValue> as_strided_scatter(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto sizes = call.ints("size", 2);
    const auto strides = call.ints("stride", 3);
    const int64_t offset = call.int_arg("storage_offset", 4, 0);
    const auto& order = call.output_meta(0).dim_order;
    if (!order.empty() && order != contiguous_order(order.size())) {
        call.fail("as_strided_scatter() is only supported on a row-major tensor (the program's tensor is laid out otherwise)");
    }
    if (sizes.size() != strides.size()) {
        call.fail("as_strided_scatter(): " + std::to_string(sizes.size()) + " sizes and " + std::to_string(strides.size()) +
                  " strides");
    }
    if (offset < 0) call.fail("as_strided_scatter(): negative storage offset " + std::to_string(offset));
    // The last element the view reaches must lie inside self's storage.
    int64_t last = offset;
    bool empty = false, overflow = false;
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] < 0 || strides[d] < 0) call.fail("as_strided_scatter(): negative size or stride in " + shape_text(sizes));
        if (sizes[d] == 0) empty = true;
        // Checked arithmetic: a wrapped product (huge sizes or strides from a damaged archive)
        // passed the bound check below and the view wrote far outside self's copy.
        int64_t reach = 0;
        if (sizes[d] > 0 && (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) || __builtin_add_overflow(last, reach, &last))) {
            overflow = true;
        }
    }
    if (!empty && (overflow || last >= self.numel())) {
        call.fail("as_strided_scatter(): the view " + shape_text(sizes) + " with strides " + shape_text(strides) +
                  " and offset " + std::to_string(offset) + " reaches beyond self's " + std::to_string(self.numel()) + " elements");
    }
    StridedTensor out = StridedTensor::allocate(self.dtype, self.sizes);
    copy_into(self, out);
    if (!empty) write_over(call, out.view(sizes, strides, offset), call.tensor("src", 1), "as_strided_scatter");
    else if (call.tensor("src", 1).sizes != sizes) write_over(call, out.view(sizes, strides, 0), call.tensor("src", 1), "as_strided_scatter");
    return single(out);
}

// Shape contracts: self's sizes; as_strided_scatter's src must measure the view it is written over.
std::optional<std::vector<ExpectedSizes>> as_strided_scatter_shape(const ShapeQuery& query) {
    const auto src = query.sizes("src", 1);
    const auto size = size_list(query, "size");
    if (src && size) {
        bool same = src->size() == size->size();
        for (size_t d = 0; same && d < src->size(); ++d) same = !(*src)[d] || !(*size)[d] || *(*src)[d] == *(*size)[d];
        if (!same) query.contradiction("its src has other sizes than the view it writes over");
    }
    return same_as_self(query);
}

PT2OV_KERNEL("aten.slice_scatter.default", slice_scatter, same_as_self);
PT2OV_KERNEL("aten.select_scatter.default", select_scatter, same_as_self);
PT2OV_KERNEL("aten.as_strided_scatter.default", as_strided_scatter, as_strided_scatter_shape);

}  // namespace
}  // namespace pt2ov::kernels
