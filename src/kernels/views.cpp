// Views: results that share the input's memory (through `owner`) with new sizes and strides,
// and their functional *_copy forms, which return row-major copies as PyTorch's do.
// view/reshape on strides that cannot be viewed copy, as reshape does.
#include <algorithm>
#include <functional>
#include <numeric>

#include <fmt/format.h>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

// A view op as a function from the call to the view; the *_copy form copies its result.
using ViewFn = StridedTensor (*)(const KernelCall&);

std::vector<RuntimeValue> as_copy(const KernelCall& call, ViewFn view) {
    const StridedTensor v = view(call);
    StridedTensor out = StridedTensor::allocate(v.dtype, v.sizes);
    copy_into(v, out);
    return single(out);
}

StridedTensor same_view(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    return self.view(self.sizes, self.strides);
}

// view(Tensor(a) self, SymInt[] size); reshape names it `shape`. A layout that cannot be
// viewed with the new sizes is copied to row-major first (reshape's rule; view would refuse,
// but a CPU step may receive a tensor in another layout than PyTorch had).
StridedTensor reshaped(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto requested = call.has("size", 1) ? call.ints("size", 1) : call.ints("shape", 1);
    const auto sizes = infer_view_sizes(call, requested, self.numel());
    if (auto strides = view_strides(self, sizes)) return self.view(sizes, *strides);
    const StridedTensor dense = contiguous_as(self, self.dtype);
    return dense.view(sizes, contiguous_strides(sizes));
}

// flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1)
StridedTensor flattened(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto rank = static_cast<int64_t>(self.rank());
    const int64_t start = normalize_dim(call, call.int_arg("start_dim", 1, 0), rank);
    const int64_t end = normalize_dim(call, call.int_arg("end_dim", 2, -1), rank);
    if (start > end) call.fail("flatten() has start_dim " + std::to_string(start) + " after end_dim " + std::to_string(end));
    std::vector<int64_t> sizes(self.sizes.begin(), self.sizes.begin() + std::min(start, rank));
    int64_t merged = 1;
    for (int64_t d = start; d <= end && d < rank; ++d) merged *= self.sizes[d];
    sizes.push_back(merged);
    for (int64_t d = end + 1; d < rank; ++d) sizes.push_back(self.sizes[d]);
    if (auto strides = view_strides(self, sizes)) return self.view(sizes, *strides);
    const StridedTensor dense = contiguous_as(self, self.dtype);
    return dense.view(sizes, contiguous_strides(sizes));
}

// permute(Tensor(a) self, int[] dims)
StridedTensor permuted(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto rank = static_cast<int64_t>(self.rank());
    const auto dims = normalize_dims(call, call.ints("dims", 1), rank);
    if (static_cast<int64_t>(dims.size()) != rank) {
        call.fail("permute() got " + std::to_string(dims.size()) + " dims for a tensor of rank " + std::to_string(rank));
    }
    std::vector<int64_t> sizes, strides;
    for (int64_t d : dims) {
        sizes.push_back(self.sizes[d]);
        strides.push_back(self.strides[d]);
    }
    return self.view(sizes, strides);
}

// transpose.int(Tensor(a) self, int dim0, int dim1)
StridedTensor transposed(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto rank = static_cast<int64_t>(self.rank());
    const int64_t a = normalize_dim(call, call.int_arg("dim0", 1), rank);
    const int64_t b = normalize_dim(call, call.int_arg("dim1", 2), rank);
    StridedTensor v = self.view(self.sizes, self.strides);
    if (rank > 0) {
        std::swap(v.sizes[a], v.sizes[b]);
        std::swap(v.strides[a], v.strides[b]);
    }
    return v;
}

// t(Tensor(a) self): transposes a matrix; a vector or a number is returned as is.
StridedTensor matrix_transposed(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() > 2) call.fail("t() expects a tensor of rank 2 or less, got rank " + std::to_string(self.rank()));
    StridedTensor v = self.view(self.sizes, self.strides);
    std::reverse(v.sizes.begin(), v.sizes.end());
    std::reverse(v.strides.begin(), v.strides.end());
    return v;
}

// unsqueeze(Tensor(a) self, int dim): dim in [-rank-1, rank].
StridedTensor unsqueezed(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto rank = static_cast<int64_t>(self.rank());
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), rank + 1);
    std::vector<int64_t> sizes = self.sizes;
    std::vector<int64_t> strides = self.strides;
    // PyTorch's stride for the new dim: what stepping over dim `dim` would take.
    const int64_t stride = dim >= rank ? 1 : sizes[dim] * strides[dim];
    sizes.insert(sizes.begin() + dim, 1);
    strides.insert(strides.begin() + dim, stride);
    return self.view(sizes, strides);
}

// squeeze.dim / squeeze.dims / squeeze.default: drops the listed (or every) dim of size 1; a
// listed dim of another size stays.
StridedTensor squeezed(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const auto rank = static_cast<int64_t>(self.rank());
    std::vector<int64_t> dims;
    if (call.has("dim", 1)) {
        dims = normalize_dims(call, call.ints("dim", 1), rank);
    } else {
        dims.resize(self.rank());
        std::iota(dims.begin(), dims.end(), 0);
    }
    std::vector<int64_t> sizes, strides;
    for (int64_t d = 0; d < rank; ++d) {
        const bool drop = self.sizes[d] == 1 && std::find(dims.begin(), dims.end(), d) != dims.end();
        if (drop) continue;
        sizes.push_back(self.sizes[d]);
        strides.push_back(self.strides[d]);
    }
    return self.view(sizes, strides);
}

// expand(Tensor(a) self, SymInt[] size, *, bool implicit=False): -1 keeps a dim; new leading
// dims get stride 0, as do expanded size-1 dims.
StridedTensor expanded(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    std::vector<int64_t> sizes = call.ints("size", 1);
    if (sizes.size() < self.rank()) {
        call.fail("expand() got " + std::to_string(sizes.size()) + " sizes for a tensor of rank " +
                  std::to_string(self.rank()));
    }
    const size_t lead = sizes.size() - self.rank();
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] < -1) call.fail("expand() got the negative size " + std::to_string(sizes[i]) + " in dim " + std::to_string(i));
        if (sizes[i] != -1) continue;
        if (i < lead) call.fail("expand() cannot infer (-1) the new leading dim " + std::to_string(i));
        sizes[i] = self.sizes[i - lead];
    }
    return broadcast_to(call, self, sizes);
}

// flatten.using_ints: dims start_dim..end_dim merged into one (a 0-dim self becomes [1]).
std::optional<std::vector<ExpectedSizes>> flattened_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto start_dim = query.int_arg("start_dim", 1), end_dim = query.int_arg("end_dim", 2);
    if (!self || !start_dim || !end_dim) return std::nullopt;
    const auto rank = static_cast<int64_t>(self->size());
    const int64_t start = wrap_dim(query, *start_dim, rank), end = wrap_dim(query, *end_dim, rank);
    if (start > end) query.contradiction(fmt::format("its start_dim {} comes after its end_dim {}", *start_dim, *end_dim));
    if (rank == 0) return std::vector<ExpectedSizes>{{1}};
    ExpectedSizes out(self->begin(), self->begin() + start);
    out.push_back(element_count(ExpectedSizes(self->begin() + start, self->begin() + end + 1)));
    out.insert(out.end(), self->begin() + end + 1, self->end());
    return std::vector<ExpectedSizes>{out};
}

// squeeze: the listed dims (every dim without a dim argument) that have size 1 are dropped, the
// others stay; a symbolic one leaves the result's rank unknown.
std::optional<std::vector<ExpectedSizes>> squeezed_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    const auto rank = static_cast<int64_t>(self->size());
    const bool every_dim = query.node().op == graph::op_id("aten.squeeze.default") || query.node().op == graph::op_id("aten.squeeze_copy.default");
    std::vector<bool> listed(self->size(), every_dim);
    if (!every_dim) {
        const auto dims = query.ints("dim", 1);
        if (!dims) return std::nullopt;
        for (int64_t d : *dims) {
            const int64_t at = wrap_dim(query, d, rank);
            if (rank > 0) listed[static_cast<size_t>(at)] = true;
        }
    }
    ExpectedSizes out;
    for (size_t d = 0; d < self->size(); ++d) {
        if (!listed[d]) {
            out.push_back((*self)[d]);
            continue;
        }
        if (!(*self)[d]) return std::nullopt;
        if (*(*self)[d] != 1) out.push_back((*self)[d]);
    }
    return std::vector<ExpectedSizes>{out};
}

// The lengths split.Tensor (`piece` each, the last what remains), split_with_sizes (`lengths`
// as given, summing to the dim) and chunk (`chunks` pieces of ceil(n / chunks), fewer where
// they cover the dim sooner) cut a dim of `n` into, as PyTorch cuts it. An empty dim gives one
// empty piece.
enum class SplitBy { Piece, Lengths, Chunks };

std::vector<int64_t> split_lengths(int64_t n, SplitBy by, const std::vector<int64_t>& given,
                                   const std::function<void(const std::string&)>& fail) {
    if (by == SplitBy::Lengths) {
        int64_t total = 0;
        for (int64_t length : given) {
            if (length < 0) fail("split_with_sizes expects non-negative sizes, got " + shape_text(given));
            total += length;
        }
        if (total != n) fail(fmt::format("split_with_sizes expects sizes that sum to the dim's {}, got {}", n, shape_text(given)));
        return given;
    }
    int64_t piece = given.at(0);
    if (by == SplitBy::Chunks) {
        if (piece <= 0) fail(fmt::format("chunk expects a positive number of chunks, got {}", piece));
        piece = (n + piece - 1) / piece;
    }
    if (piece < 0 || (piece == 0 && n > 0)) fail(fmt::format("split expects a positive split size for a dim of {}, got {}", n, piece));
    if (n == 0) return {0};
    std::vector<int64_t> lengths;
    for (int64_t start = 0; start < n; start += piece) lengths.push_back(std::min(piece, n - start));
    return lengths;
}

// The pieces of `self` along `dim`, views of its memory (`copy`: row-major copies).
std::vector<RuntimeValue> split_pieces(const KernelCall& call, SplitBy by, ArgName name, bool copy) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.rank() == 0) call.fail("split() cannot be applied to a 0-dim tensor");
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 2, 0), static_cast<int64_t>(self.rank()));
    const std::vector<int64_t> given = by == SplitBy::Lengths ? call.ints(name, 1) : std::vector<int64_t>{call.int_arg(name, 1)};
    const auto lengths = split_lengths(self.sizes[static_cast<size_t>(dim)], by, given, [&](const std::string& m) { call.fail(m); });
    std::vector<RuntimeValue> outputs;
    int64_t start = 0;
    for (int64_t length : lengths) {
        std::vector<int64_t> sizes = self.sizes;
        sizes[static_cast<size_t>(dim)] = length;
        StridedTensor piece = self.view(sizes, self.strides, start * self.strides[static_cast<size_t>(dim)]);
        if (copy) {
            StridedTensor out = StridedTensor::allocate(self.dtype, sizes);
            copy_into(piece, out);
            piece = std::move(out);
        }
        outputs.push_back(RuntimeValue::of(std::move(piece)));
        start += length;
    }
    return outputs;
}

// Each piece's sizes, where the dim and the split are known at load.
template <SplitBy By>
std::optional<std::vector<ExpectedSizes>> split_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 2);
    if (!self || self->empty()) return std::nullopt;
    const int64_t d = wrap_dim(query, dim.value_or(0), static_cast<int64_t>(self->size()));
    const auto n = (*self)[static_cast<size_t>(d)];
    std::optional<std::vector<int64_t>> given;
    if constexpr (By == SplitBy::Lengths) {
        given = query.ints("split_sizes", 1);
    } else {
        const auto one = query.int_arg(By == SplitBy::Chunks ? "chunks" : "split_size", 1);
        if (one) given = std::vector<int64_t>{*one};
    }
    if (!n || !given) return std::nullopt;
    const auto lengths = split_lengths(*n, By, *given, [&](const std::string& m) { query.contradiction(m); });
    std::vector<ExpectedSizes> pieces;
    for (int64_t length : lengths) {
        ExpectedSizes sizes = *self;
        sizes[static_cast<size_t>(d)] = length;
        pieces.push_back(sizes);
    }
    return pieces;
}

PT2OV_KERNEL("aten.alias.default", [](const KernelCall& c) { return single(same_view(c)); }, same_as_self);
PT2OV_KERNEL("aten.detach.default", [](const KernelCall& c) { return single(same_view(c)); }, same_as_self);
PT2OV_KERNEL("aten.view.default", [](const KernelCall& c) { return single(reshaped(c)); }, reshaped_shape);
PT2OV_KERNEL("aten._unsafe_view.default", [](const KernelCall& c) { return single(reshaped(c)); }, reshaped_shape);
PT2OV_KERNEL("aten.reshape.default", [](const KernelCall& c) { return single(reshaped(c)); }, reshaped_shape);
PT2OV_KERNEL("aten.view_copy.default", [](const KernelCall& c) { return as_copy(c, reshaped); }, reshaped_shape);
PT2OV_KERNEL("aten.flatten.using_ints", [](const KernelCall& c) { return single(flattened(c)); }, flattened_shape);
PT2OV_KERNEL("aten.permute.default", [](const KernelCall& c) { return single(permuted(c)); }, permuted_shape);
PT2OV_KERNEL("aten.permute_copy.default", [](const KernelCall& c) { return as_copy(c, permuted); }, permuted_shape);
PT2OV_KERNEL("aten.transpose.int", [](const KernelCall& c) { return single(transposed(c)); }, transposed_shape);
PT2OV_KERNEL("aten.transpose_copy.int", [](const KernelCall& c) { return as_copy(c, transposed); }, transposed_shape);
PT2OV_KERNEL("aten.t.default", [](const KernelCall& c) { return single(matrix_transposed(c)); }, transposed_shape);
PT2OV_KERNEL("aten.t_copy.default", [](const KernelCall& c) { return as_copy(c, matrix_transposed); }, transposed_shape);
PT2OV_KERNEL("aten.unsqueeze.default", [](const KernelCall& c) { return single(unsqueezed(c)); }, unsqueezed_shape);
PT2OV_KERNEL("aten.unsqueeze_copy.default", [](const KernelCall& c) { return as_copy(c, unsqueezed); }, unsqueezed_shape);
PT2OV_KERNEL("aten.squeeze.dim", [](const KernelCall& c) { return single(squeezed(c)); }, squeezed_shape);
PT2OV_KERNEL("aten.squeeze.dims", [](const KernelCall& c) { return single(squeezed(c)); }, squeezed_shape);
PT2OV_KERNEL("aten.squeeze.default", [](const KernelCall& c) { return single(squeezed(c)); }, squeezed_shape);
PT2OV_KERNEL("aten.squeeze_copy.dim", [](const KernelCall& c) { return as_copy(c, squeezed); }, squeezed_shape);
PT2OV_KERNEL("aten.squeeze_copy.dims", [](const KernelCall& c) { return as_copy(c, squeezed); }, squeezed_shape);
PT2OV_KERNEL("aten.squeeze_copy.default", [](const KernelCall& c) { return as_copy(c, squeezed); }, squeezed_shape);
PT2OV_KERNEL("aten.expand.default", [](const KernelCall& c) { return single(expanded(c)); }, expanded_shape);
PT2OV_KERNEL("aten.split.Tensor", [](const KernelCall& c) { return split_pieces(c, SplitBy::Piece, "split_size", false); },
             split_shape<SplitBy::Piece>);
PT2OV_KERNEL("aten.split_copy.Tensor", [](const KernelCall& c) { return split_pieces(c, SplitBy::Piece, "split_size", true); },
             split_shape<SplitBy::Piece>);
PT2OV_KERNEL("aten.split_with_sizes.default",
             [](const KernelCall& c) { return split_pieces(c, SplitBy::Lengths, "split_sizes", false); }, split_shape<SplitBy::Lengths>);
PT2OV_KERNEL("aten.split_with_sizes_copy.default",
             [](const KernelCall& c) { return split_pieces(c, SplitBy::Lengths, "split_sizes", true); }, split_shape<SplitBy::Lengths>);
PT2OV_KERNEL("aten.chunk.default", [](const KernelCall& c) { return split_pieces(c, SplitBy::Chunks, "chunks", false); },
             split_shape<SplitBy::Chunks>);
PT2OV_KERNEL("aten.expand_copy.default", [](const KernelCall& c) { return as_copy(c, expanded); }, expanded_shape);

}  // namespace
}  // namespace pt2ov::kernels
