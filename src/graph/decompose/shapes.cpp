// Shape ops of the training IR: views spelled another way (expand_as, unflatten, swapaxes,
// movedim, mT, atleast_nd, ...), stacking and splitting (hstack, tensor_split, meshgrid, ...),
// each into view, permute, expand, slice, cat or split_with_sizes as torch._refs has them.
#include <algorithm>
#include <limits>
#include <numeric>

#include "graph/decompose/common.h"

namespace pt2ov::graph::decompose {
namespace {

using Kind = Argument::Kind;

std::vector<Argument> tensor_list(const Builder& b, const Argument& list) {
    if (list.kind != Kind::List) b.refuse("expected a list of tensors");
    return list.items;
}

void expand_to_output(Builder& b, size_t index, const Argument& x, const std::vector<Argument>& sources) {
    b.output(index, "aten.expand.default", {x, sizes_arg(b, b.output_meta(index).sizes, sources)});
}

void expand_as(Builder& b) {
    const Argument self = b.arg(0, "self"), other = b.arg(1, "other");
    b.output(0, "aten.expand.default", {self, b.sizes(other)});
}

void broadcast_to(Builder& b) { b.output(0, "aten.expand.default", {b.arg(0, "self"), b.arg(1, "size")}); }

void broadcast_tensors(Builder& b) {
    const auto tensors = tensor_list(b, b.arg(0, "tensors"));
    for (size_t k = 0; k < tensors.size(); ++k) expand_to_output(b, k, tensors[k], tensors);
}

void view_as(Builder& b) { b.output(0, "aten.view.default", {b.arg(0, "self"), b.sizes(b.arg(1, "other"))}); }
void reshape_as(Builder& b) { b.output(0, "aten.reshape.default", {b.arg(0, "self"), b.sizes(b.arg(1, "other"))}); }
void ravel(Builder& b) { b.output(0, "aten.reshape.default", {b.arg(0, "self"), ints_arg({-1})}); }

void unflatten(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t rank = b.rank(self);
    const int64_t d = b.dim(b.arg(1, "dim").int_value, rank);
    std::vector<Argument> sizes;
    for (int64_t k = 0; k < d; ++k) sizes.push_back(b.size(self, k));
    for (const auto& s : b.arg(2, "sizes").items) sizes.push_back(s);
    for (int64_t k = d + 1; k < rank; ++k) sizes.push_back(b.size(self, k));
    b.output(0, "aten.view.default", {self, list_arg(std::move(sizes), Kind::Int)});
}

std::vector<int64_t> identity_perm(int64_t rank) {
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    return perm;
}

void output_permuted(Builder& b, const Argument& self, const std::vector<int64_t>& perm) {
    b.output(0, "aten.permute.default", {self, ints_arg(perm)});
}

void swap_dims(Builder& b, ArgName first, ArgName second) {
    const Argument self = b.arg(0, "self");
    const int64_t rank = b.rank(self);
    auto perm = identity_perm(rank);
    if (rank == 0) return b.output_is(0, self);
    std::swap(perm[static_cast<size_t>(b.dim(b.arg(1, first).int_value, rank))],
              perm[static_cast<size_t>(b.dim(b.arg(2, second).int_value, rank))]);
    output_permuted(b, self, perm);
}

std::vector<int64_t> as_ints(const Argument& arg) {
    if (arg.kind == Kind::Int) return {arg.int_value};
    std::vector<int64_t> values;
    for (const auto& item : arg.items) values.push_back(item.int_value);
    return values;
}

// torch.movedim: the moved dims go to their destinations, the others keep their order.
void movedim(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t rank = b.rank(self);
    if (rank == 0) return b.output_is(0, self);
    auto source = as_ints(b.arg(1, "source")), destination = as_ints(b.arg(2, "destination"));
    if (source.size() != destination.size()) b.refuse("source and destination have different lengths");
    std::vector<int64_t> perm(static_cast<size_t>(rank), -1);
    std::vector<bool> moved(static_cast<size_t>(rank), false);
    for (size_t k = 0; k < source.size(); ++k) {
        const int64_t s = b.dim(source[k], rank), d = b.dim(destination[k], rank);
        perm[static_cast<size_t>(d)] = s;
        moved[static_cast<size_t>(s)] = true;
    }
    int64_t next = 0;
    for (auto& p : perm) {
        if (p >= 0) continue;
        while (moved[static_cast<size_t>(next)]) ++next;
        p = next++;
    }
    output_permuted(b, self, perm);
}

// mT, mH, matrix_H (real tensors: the conjugate is the tensor itself): the last two dims swapped.
void matrix_transpose(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t rank = b.rank(self);
    if (rank < 2) b.refuse("needs a tensor of at least 2 dims");
    auto perm = identity_perm(rank);
    std::swap(perm[static_cast<size_t>(rank - 1)], perm[static_cast<size_t>(rank - 2)]);
    output_permuted(b, self, perm);
}

void numpy_transpose(Builder& b) {
    const Argument self = b.arg(0, "self");
    auto perm = identity_perm(b.rank(self));
    std::reverse(perm.begin(), perm.end());
    if (perm.size() < 2) return b.output_is(0, self);
    output_permuted(b, self, perm);
}

// atleast_1d/2d/3d of one tensor, as torch._refs has them.
Argument at_least(Builder& b, const Argument& x, int n, std::optional<size_t> output_index) {
    const int64_t rank = b.rank(x);
    auto finish = [&](const std::string& target, std::vector<Argument> args, const TensorMeta& meta) {
        if (output_index) {
            b.output(*output_index, target, std::move(args));
            return none_arg();
        }
        return b.op(target, std::move(args), meta);
    };
    if (rank >= n) {
        if (output_index) {
            b.output_is(*output_index, x);
            return none_arg();
        }
        return x;
    }
    const auto& m = b.meta(x);
    if (rank == 0) {
        std::vector<Dim> ones(static_cast<size_t>(n), static_dim(1));
        return finish("aten.view.default", {x, ints_arg(std::vector<int64_t>(static_cast<size_t>(n), 1))},
                      contiguous_meta(m.dtype, ones));
    }
    if (n == 2 || (n == 3 && rank == 2)) {  // [k] → [1, k]; [a, b] → [a, b, 1]
        const int64_t d = n == 2 ? 0 : 2;
        return finish("aten.unsqueeze.default", {x, int_arg(d)}, unsqueezed_meta(m, d));
    }
    // n == 3, rank 1: [k] → [1, k, 1]
    const Argument row = unsqueeze(b, x, 0);
    return finish("aten.unsqueeze.default", {row, int_arg(2)}, unsqueezed_meta(b.meta(row), 2));
}

template <int N>
void at_least_one(Builder& b) {
    at_least(b, b.arg(0, "self"), N, 0);
}

template <int N>
void at_least_sequence(Builder& b) {
    const auto tensors = tensor_list(b, b.arg(0, "tensors"));
    for (size_t k = 0; k < tensors.size(); ++k) at_least(b, tensors[k], N, k);
}

void cat_output(Builder& b, std::vector<Argument> tensors, int64_t dim) {
    b.output(0, "aten.cat.default", {list_arg(std::move(tensors)), int_arg(dim)});
}

// cat's own output metadata is torch's; the pieces are the inputs made at least n-d.
template <int N, int64_t Dim>
void stack_along(Builder& b) {
    std::vector<Argument> pieces;
    for (const auto& t : tensor_list(b, b.arg(0, "tensors"))) pieces.push_back(at_least(b, t, N, std::nullopt));
    cat_output(b, std::move(pieces), Dim);
}

void hstack(Builder& b) {
    std::vector<Argument> pieces;
    for (const auto& t : tensor_list(b, b.arg(0, "tensors"))) pieces.push_back(at_least(b, t, 1, std::nullopt));
    const int64_t dim = !pieces.empty() && b.rank(pieces[0]) == 1 ? 0 : 1;
    cat_output(b, std::move(pieces), dim);
}

void column_stack(Builder& b) {
    std::vector<Argument> pieces;
    for (const auto& t : tensor_list(b, b.arg(0, "tensors"))) {
        const int64_t rank = b.rank(t);
        if (rank == 0) {
            pieces.push_back(b.op("aten.view.default", {t, ints_arg({1, 1})},
                                  contiguous_meta(b.meta(t).dtype, {static_dim(1), static_dim(1)})));
        } else if (rank == 1) {
            pieces.push_back(unsqueeze(b, t, 1));
        } else {
            pieces.push_back(t);
        }
    }
    cat_output(b, std::move(pieces), 1);
}

// tensor_split by indices: piece k is self[indices[k-1]:indices[k]] along dim.
void split_at(Builder& b, const Argument& self, int64_t dim, const std::vector<int64_t>& indices) {
    int64_t start = 0;
    for (size_t k = 0; k <= indices.size(); ++k) {
        const int64_t end = k < indices.size() ? indices[k] : std::numeric_limits<int64_t>::max();
        b.output(k, "aten.slice.Tensor", {self, int_arg(dim), int_arg(start), int_arg(std::max(start, end)), int_arg(1)});
        if (k < indices.size()) start = std::max(start, indices[k]);
    }
}

int64_t static_size(const Builder& b, const Argument& x, int64_t dim) {
    const Dim& size = b.meta(x).sizes.at(static_cast<size_t>(dim));
    if (!size.is_static()) b.refuse("splits a dim of dynamic size");
    return *size.value;
}

// tensor_split into n sections: the first size % n pieces are one longer.
void split_sections(Builder& b, const Argument& self, int64_t dim, int64_t sections, bool must_divide) {
    if (sections <= 0) b.refuse("needs a positive number of sections");
    const int64_t size = static_size(b, self, dim);
    if (must_divide && size % sections != 0) b.refuse("splits a dim whose size is not a multiple of the sections");
    std::vector<int64_t> indices;
    int64_t at = 0;
    for (int64_t k = 0; k + 1 < sections; ++k) {
        at += size / sections + (k < size % sections ? 1 : 0);
        indices.push_back(at);
    }
    split_at(b, self, dim, indices);
}

void tensor_split_sections(Builder& b) {
    const Argument self = b.arg(0, "self");
    const Argument sections = b.arg(1, "sections");
    if (sections.kind != Kind::Int) b.refuse("splits into a symbolic number of sections");
    split_sections(b, self, b.dim(b.arg(2, "dim").int_value, b.rank(self)), sections.int_value, false);
}

void tensor_split_indices(Builder& b) {
    const Argument self = b.arg(0, "self");
    const Argument indices = b.arg(1, "indices");
    for (const auto& item : indices.items) {
        if (item.kind != Kind::Int) b.refuse("splits at symbolic indices");
    }
    const int64_t dim = b.dim(b.arg(2, "dim").int_value, b.rank(self));
    std::vector<int64_t> at = as_ints(indices);
    for (auto& i : at) {
        if (i < 0) i += static_size(b, self, dim);
    }
    split_at(b, self, dim, at);
}

// hsplit/vsplit/dsplit: dim 1 (0 for a 1-d hsplit), 0, 2.
template <int64_t Dim>
void directional_split_int(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t dim = Dim == 1 && b.rank(self) == 1 ? 0 : Dim;
    if (b.rank(self) <= dim) b.refuse("needs a tensor with more dims");
    split_sections(b, self, dim, b.arg(1, "sections").int_value, true);
}

template <int64_t Dim>
void directional_split_array(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t dim = Dim == 1 && b.rank(self) == 1 ? 0 : Dim;
    if (b.rank(self) <= dim) b.refuse("needs a tensor with more dims");
    std::vector<int64_t> at = as_ints(b.arg(1, "indices"));
    for (auto& i : at) {
        if (i < 0) i += static_size(b, self, dim);
    }
    split_at(b, self, dim, at);
}

// split(size) is split_with_sizes with the sizes spelled out (the last piece shorter).
void split_tensor(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t dim = b.dim(b.arg(2, "dim").int_value, b.rank(self));
    const Argument split = b.arg(1, "split_size");
    if (split.kind != Kind::Int || split.int_value <= 0) b.refuse("splits by a symbolic or non-positive size");
    const int64_t size = static_size(b, self, dim);
    std::vector<int64_t> indices;
    for (int64_t at = split.int_value; at < size; at += split.int_value) indices.push_back(at);
    split_at(b, self, dim, indices);
}

void chunk(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t dim = b.dim(b.arg(2, "dim").int_value, b.rank(self));
    const int64_t chunks = b.arg(1, "chunks").int_value;
    if (chunks <= 0) b.refuse("needs a positive number of chunks");
    const int64_t size = static_size(b, self, dim);
    const int64_t step = (size + chunks - 1) / chunks;
    std::vector<int64_t> indices;
    for (int64_t at = step; step > 0 && at < size; at += step) indices.push_back(at);
    split_at(b, self, dim, indices);
}

// meshgrid: input k viewed with its length at dim k, expanded to the grid; "xy" swaps the first two.
void meshgrid_with(Builder& b, const std::string& indexing) {
    auto tensors = tensor_list(b, b.arg(0, "tensors"));
    if (indexing != "ij" && indexing != "xy") b.refuse("indexing must be 'ij' or 'xy'");
    const bool swap = indexing == "xy" && tensors.size() >= 2;
    if (swap) std::swap(tensors[0], tensors[1]);
    const size_t n = tensors.size();
    for (size_t k = 0; k < n; ++k) {
        if (b.rank(tensors[k]) > 1) b.refuse("takes 0-d or 1-d tensors");
        std::vector<int64_t> shape(n, 1);
        shape[k] = -1;
        std::vector<Dim> dims(n, static_dim(1));
        dims[k] = b.rank(tensors[k]) == 1 ? b.meta(tensors[k]).sizes[0] : static_dim(1);
        const Argument line = b.op("aten.view.default", {tensors[k], ints_arg(shape)}, contiguous_meta(b.meta(tensors[k]).dtype, dims));
        const size_t out = swap && k < 2 ? 1 - k : k;
        expand_to_output(b, out, line, tensors);
    }
}

void meshgrid(Builder& b) { meshgrid_with(b, "ij"); }
void meshgrid_indexing(Builder& b) {
    meshgrid_with(b, b.arg(1, "indexing").string_value);
}

// diff: n times, x[1:] - x[:-1] along dim (xor for bools), after prepend and append.
void diff(Builder& b) {
    Argument x = b.arg(0, "self");
    const int64_t n = b.arg(1, "n").int_value;
    const int64_t rank = b.rank(x);
    if (rank == 0) b.refuse("needs a tensor of at least 1 dim");
    const int64_t dim = b.dim(b.arg(2, "dim").int_value, rank);
    const Argument prepend = b.arg(3, "prepend"), append = b.arg(4, "append");
    if (prepend.kind == Kind::Tensor || append.kind == Kind::Tensor) {
        std::vector<Argument> parts;
        if (prepend.kind == Kind::Tensor) parts.push_back(prepend);
        parts.push_back(x);
        if (append.kind == Kind::Tensor) parts.push_back(append);
        std::vector<Dim> sizes = b.meta(x).sizes;
        Dim total = static_dim(0);
        for (const auto& p : parts) {
            const Dim& s = b.meta(p).sizes.at(static_cast<size_t>(dim));
            total = total.is_static() && s.is_static() ? static_dim(*total.value + *s.value) : shrunk(Dim{}, 0);
        }
        sizes[static_cast<size_t>(dim)] = total;
        x = b.op("aten.cat.default", {list_arg(parts), int_arg(dim)}, contiguous_meta(b.output_meta().dtype, sizes));
    }
    if (n <= 0) return b.output_is(0, x);
    const bool boolean = b.meta(x).dtype == DType::Bool;
    const std::string subtract = boolean ? "aten.logical_xor.default" : "aten.sub.Tensor";
    for (int64_t k = 0; k < n; ++k) {
        std::vector<Dim> sizes = b.meta(x).sizes;
        sizes[static_cast<size_t>(dim)] = shrunk(sizes[static_cast<size_t>(dim)], 1);
        const TensorMeta shorter = contiguous_meta(b.meta(x).dtype, sizes);
        const Argument upper = b.op("aten.slice.Tensor", {x, int_arg(dim), int_arg(1), int_arg(std::numeric_limits<int64_t>::max()), int_arg(1)}, shorter);
        const Argument lower = b.op("aten.slice.Tensor", {x, int_arg(dim), int_arg(0), int_arg(-1), int_arg(1)}, shorter);
        if (k + 1 == n) return b.output(0, subtract, {upper, lower});
        x = b.op(subtract, {upper, lower}, shorter);
    }
}

// block_diag: each input (a 0-d one as 1x1, a 1-d one as one row) in the promoted dtype, padded
// with zeros to the full width at its column offset; the rows concatenated.
void block_diag(Builder& b) {
    const auto tensors = tensor_list(b, b.arg(0, "tensors"));
    if (tensors.empty()) b.refuse("needs at least one tensor");
    const DType dtype = b.output_meta().dtype;
    std::vector<std::pair<int64_t, int64_t>> shapes;
    int64_t width = 0;
    for (const auto& t : tensors) {
        const auto& m = b.meta(t);
        if (m.rank() > 2) b.refuse("takes tensors of at most 2 dims");
        for (const auto& d : m.sizes) {
            if (!d.is_static()) b.refuse("takes tensors of static sizes");
        }
        const int64_t rows = m.rank() == 2 ? *m.sizes[0].value : 1;
        const int64_t cols = m.rank() == 0 ? 1 : *m.sizes[m.rank() - 1].value;
        shapes.emplace_back(rows, cols);
        width += cols;
    }
    std::vector<Argument> rows;
    int64_t left = 0;
    for (size_t k = 0; k < tensors.size(); ++k) {
        const auto [height, cols] = shapes[k];
        Argument x = to_dtype(b, tensors[k], dtype);
        if (b.rank(x) < 2) {
            x = b.op("aten.view.default", {x, ints_arg({height, cols})}, contiguous_meta(dtype, {static_dim(height), static_dim(cols)}));
        }
        rows.push_back(b.op("aten.constant_pad_nd.default", {x, ints_arg({left, width - left - cols}), float_arg(0.0)},
                            contiguous_meta(dtype, {static_dim(height), static_dim(width)})));
        left += cols;
    }
    cat_output(b, std::move(rows), 0);
}

// cartesian_prod: the meshgrid ('ij') of the 1-d inputs, each flattened, stacked as columns; one
// input is returned as it is.
void cartesian_prod(Builder& b) {
    const auto tensors = tensor_list(b, b.arg(0, "tensors"));
    if (tensors.empty()) b.refuse("needs at least one tensor");
    if (tensors.size() == 1) return b.output_is(0, tensors[0]);
    std::vector<Dim> grid;
    int64_t count = 1;
    for (const auto& t : tensors) {
        if (b.rank(t) != 1) b.refuse("takes 1-d tensors");
        const Dim& n = b.meta(t).sizes[0];
        if (!n.is_static()) b.refuse("takes tensors of static sizes");
        grid.push_back(n);
        count *= *n.value;
    }
    std::vector<Argument> columns;
    for (size_t k = 0; k < tensors.size(); ++k) {
        const DType dtype = b.meta(tensors[k]).dtype;
        std::vector<int64_t> shape(tensors.size(), 1);
        shape[k] = -1;
        std::vector<Dim> line_sizes(tensors.size(), static_dim(1));
        line_sizes[k] = grid[k];
        const Argument line = b.op("aten.view.default", {tensors[k], ints_arg(shape)}, contiguous_meta(dtype, line_sizes));
        const Argument full = b.op("aten.expand.default", {line, sizes_arg(b, grid, tensors)}, contiguous_meta(dtype, grid));
        columns.push_back(b.op("aten.reshape.default", {full, ints_arg({-1})}, contiguous_meta(dtype, {static_dim(count)})));
    }
    b.output(0, "aten.stack.default", {list_arg(std::move(columns)), int_arg(1)});
}

// fftshift/ifftshift: a roll by half of each dim's size (rounded down, or up for the inverse).
void fft_shift(Builder& b, bool inverse) {
    const Argument self = b.arg(0, "self");
    const int64_t rank = b.rank(self);
    const Argument dim = b.arg(1, "dim");
    std::vector<int64_t> dims;
    if (dim.kind == Kind::None) {
        for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
    } else if (dim.kind == Kind::Int) {
        dims.push_back(b.dim(dim.int_value, rank));
    } else {
        for (const auto& d : dim.items) dims.push_back(b.dim(d.int_value, rank));
    }
    if (dims.empty()) return b.output(0, "aten.clone.default", {self});
    std::vector<int64_t> shifts;
    for (int64_t d : dims) {
        const int64_t n = static_size(b, self, d);
        shifts.push_back(inverse ? (n + 1) / 2 : n / 2);
    }
    b.output(0, "aten.roll.default", {self, ints_arg(shifts), ints_arg(dims)});
}

// sum_to_size: the leading dims summed away, and every dim the size makes 1 summed keeping it.
void sum_to_size(Builder& b) {
    const Argument self = b.arg(0, "self");
    const auto& m = b.meta(self);
    const Argument size = b.arg(1, "size");
    std::vector<int64_t> target;
    for (const auto& item : size.items) {
        if (item.kind != Kind::Int) b.refuse("sums to a symbolic size");
        target.push_back(item.int_value);
    }
    const int64_t rank = b.rank(self), leading = rank - static_cast<int64_t>(target.size());
    if (leading < 0) b.refuse("sums to a size of more dims than the tensor's");
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d) {
        if (d < leading) {
            dims.push_back(d);
            continue;
        }
        const Dim& have = m.sizes[static_cast<size_t>(d)];
        if (target[static_cast<size_t>(d - leading)] == 1 && !(have.is_static() && *have.value == 1)) dims.push_back(d);
    }
    // Nothing to sum, yet eager's sum_to_size of a 0-d integer tensor still promotes it to int64
    // as a sum would: the node's recorded dtype says which.
    if (dims.empty()) return b.output_is(0, to_dtype(b, self, b.output_meta().dtype));
    const Argument summed = b.op("aten.sum.dim_IntList", {self, ints_arg(dims), bool_arg(true)},
                                 reduced_meta(m, dims, true, b.output_meta().dtype));
    if (leading == 0) return b.output_is(0, summed);
    b.output(0, "aten.view.default", {summed, ints_arg(target)});
}

// msort: the values of a sort along dim 0.
void msort(Builder& b) {
    const Argument self = b.arg(0, "self");
    const auto parts = b.op_multi("aten.sort.default", {self, int_arg(0), bool_arg(false)},
                                  {contiguous_like(b.meta(self)), with_dtype(b.meta(self), DType::Int64)});
    b.output_is(0, parts[0]);
}

// nonzero_numpy: the columns of nonzero, one tensor per dim.
void nonzero_numpy(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t rank = b.rank(self);
    const Dim count = b.output_meta(0).sizes.at(0);
    // A 0-d tensor gives one index tensor, as its one-element view does.
    const Argument input = rank > 0 ? self : unsqueeze(b, self, 0);
    const Argument indices = b.op("aten.nonzero.default", {input}, contiguous_meta(DType::Int64, {count, static_dim(std::max<int64_t>(rank, 1))}));
    for (int64_t d = 0; d < std::max<int64_t>(rank, 1); ++d) b.output(static_cast<size_t>(d), "aten.select.int", {indices, int_arg(1), int_arg(d)});
}

// repeat_interleave(self, repeats: Tensor, dim=None): an index_select along dim (of the
// flattened tensor when dim is None) by the indices repeat_interleave(repeats) makes, a repeats
// tensor of one element serving every index, as PyTorch's decomposition has it. The result's
// size depends on the repeats' values (torch.export names it by an unbacked symbol): the indices
// come from pt2ov's CPU kernel, which OpenVINO's FX op table lacks.
void repeat_interleave_by_tensor(Builder& b) {
    Argument self = b.arg(0, "self");
    Argument repeats = b.arg(1, "repeats");
    const Argument dim = b.arg(2, "dim");
    const TensorMeta& out = b.output_meta();
    int64_t d = 0;
    if (dim.kind == Kind::None) {
        const TensorMeta& m = b.meta(self);
        if (!m.all_static()) b.refuse("repeats the elements of a tensor of dynamic size (no dim): give a dim");
        int64_t numel = 1;
        for (int64_t size : m.static_sizes()) numel *= size;
        if (m.rank() != 1) self = b.op("aten.reshape.default", {self, ints_arg({numel})}, contiguous_meta(m.dtype, {static_dim(numel)}));
    } else {
        d = b.dim(dim.int_value, b.rank(self));
    }
    const TensorMeta& r = b.meta(repeats);
    if (r.rank() > 1) b.refuse("has repeats of " + std::to_string(r.rank()) + " dims; PyTorch takes a 0-d or 1-d tensor");
    const bool one = r.rank() == 0 || (r.sizes[0].is_static() && *r.sizes[0].value == 1);
    const Dim along = b.meta(self).sizes[static_cast<size_t>(d)];
    if (one && !(along.is_static() && *along.value == 1)) {
        repeats = b.op("aten.expand.default", {repeats, list_arg({b.size(self, d)}, Kind::Int)}, contiguous_meta(r.dtype, {along}));
    } else if (r.rank() == 0) {
        repeats = unsqueeze(b, repeats, 0);
    }
    Keywords keywords;
    if (b.arg(3, "output_size").kind == Kind::Int) keywords.push_back({"output_size", b.arg(3, "output_size")});
    const Argument indices = b.op("aten.repeat_interleave.Tensor", {repeats}, contiguous_meta(r.dtype, {out.sizes.at(static_cast<size_t>(d))}),
                                  std::move(keywords));
    b.output(0, "aten.index_select.default", {self, int_arg(d), indices});
}

// tile(self, dims): repeat with dims padded by leading 1s to the tensor's rank, as torch._refs
// has it (OpenVINO's FX op table lacks tile).
void tile(Builder& b) {
    const Argument self = b.arg(0, "self");
    const Argument dims = b.arg(1, "dims");
    if (dims.kind != Kind::List) b.refuse("expected a list of repeats");
    std::vector<Argument> repeats;
    for (int64_t k = static_cast<int64_t>(dims.items.size()); k < b.rank(self); ++k) repeats.push_back(int_arg(1));
    repeats.insert(repeats.end(), dims.items.begin(), dims.items.end());
    b.output(0, "aten.repeat.default", {self, list_arg(std::move(repeats), Kind::Int)});
}

// unbind(self, dim): one select per index of dim (OpenVINO's FX op table lacks unbind).
void unbind(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t d = b.dim(b.arg(1, "dim").int_value, b.rank(self));
    const Dim& size = b.meta(self).sizes[static_cast<size_t>(d)];
    if (!size.is_static() || *size.value != static_cast<int64_t>(b.output_count())) {
        b.refuse("unbinds a dim whose size is not the number of its outputs");
    }
    for (size_t k = 0; k < b.output_count(); ++k) {
        if (b.output_used(k)) b.output(k, "aten.select.int", {self, int_arg(d), int_arg(static_cast<int64_t>(k))});
    }
}

void alias(Builder& b) { b.output_is(0, b.arg(0, "self")); }
void clone_self(Builder& b) { b.output(0, "aten.clone.default", {b.arg(0, "self")}); }

void flip_dim(Builder& b, int64_t dim) {
    const Argument self = b.arg(0, "self");
    if (b.rank(self) <= dim) b.refuse("needs a tensor of at least " + std::to_string(dim + 1) + " dims");
    b.output(0, "aten.flip.default", {self, ints_arg({dim})});
}

// empty_permuted: uninitialized memory of `size` laid out in another dim order; every element is
// written before it is read, so its layout is not the program's business.
void empty_permuted(Builder& b) {
    Keywords keywords;
    if (b.arg(2, "dtype").kind == Kind::ScalarType) keywords.push_back({"dtype", b.arg(2, "dtype")});
    b.output(0, "aten.empty.memory_format", {b.arg(0, "size")}, std::move(keywords));
}

}  // namespace

PT2OV_DECOMPOSITION("aten.empty_permuted.default", empty_permuted);
PT2OV_DECOMPOSITION("aten.expand_as.default", expand_as);
PT2OV_DECOMPOSITION("aten.broadcast_to.default", broadcast_to);
PT2OV_DECOMPOSITION("aten.broadcast_tensors.default", broadcast_tensors);
PT2OV_DECOMPOSITION("aten.view_as.default", view_as);
PT2OV_DECOMPOSITION("aten.reshape_as.default", reshape_as);
PT2OV_DECOMPOSITION("aten.ravel.default", ravel);
PT2OV_DECOMPOSITION("aten.unflatten.int", unflatten);
PT2OV_DECOMPOSITION("aten.swapaxes.default", [](Builder& b) { swap_dims(b, "axis0", "axis1"); });
PT2OV_DECOMPOSITION("aten.swapdims.default", [](Builder& b) { swap_dims(b, "dim0", "dim1"); });
PT2OV_DECOMPOSITION("aten.movedim.int", movedim);
PT2OV_DECOMPOSITION("aten.movedim.intlist", movedim);
PT2OV_DECOMPOSITION("aten.moveaxis.int", movedim);
PT2OV_DECOMPOSITION("aten.moveaxis.intlist", movedim);
PT2OV_DECOMPOSITION("aten.mT.default", matrix_transpose);
PT2OV_DECOMPOSITION("aten.mH.default", matrix_transpose);
PT2OV_DECOMPOSITION("aten.matrix_H.default", matrix_transpose);
PT2OV_DECOMPOSITION("aten.adjoint.default", matrix_transpose);
PT2OV_DECOMPOSITION("aten.numpy_T.default", numpy_transpose);
PT2OV_DECOMPOSITION("aten.atleast_1d.default", at_least_one<1>);
PT2OV_DECOMPOSITION("aten.atleast_2d.default", at_least_one<2>);
PT2OV_DECOMPOSITION("aten.atleast_3d.default", at_least_one<3>);
PT2OV_DECOMPOSITION("aten.atleast_1d.Sequence", at_least_sequence<1>);
PT2OV_DECOMPOSITION("aten.atleast_2d.Sequence", at_least_sequence<2>);
PT2OV_DECOMPOSITION("aten.atleast_3d.Sequence", at_least_sequence<3>);
PT2OV_DECOMPOSITION("aten.hstack.default", hstack);
PT2OV_DECOMPOSITION("aten.vstack.default", (stack_along<2, 0>));
PT2OV_DECOMPOSITION("aten.row_stack.default", (stack_along<2, 0>));
PT2OV_DECOMPOSITION("aten.dstack.default", (stack_along<3, 2>));
PT2OV_DECOMPOSITION("aten.column_stack.default", column_stack);
PT2OV_DECOMPOSITION("aten.tensor_split.sections", tensor_split_sections);
PT2OV_DECOMPOSITION("aten.tensor_split.indices", tensor_split_indices);
PT2OV_DECOMPOSITION("aten.hsplit.int", directional_split_int<1>);
PT2OV_DECOMPOSITION("aten.vsplit.int", directional_split_int<0>);
PT2OV_DECOMPOSITION("aten.dsplit.int", directional_split_int<2>);
PT2OV_DECOMPOSITION("aten.hsplit.array", directional_split_array<1>);
PT2OV_DECOMPOSITION("aten.vsplit.array", directional_split_array<0>);
PT2OV_DECOMPOSITION("aten.dsplit.array", directional_split_array<2>);
PT2OV_DECOMPOSITION("aten.split.Tensor", split_tensor);
PT2OV_DECOMPOSITION("aten.unsafe_split.Tensor", split_tensor);
PT2OV_DECOMPOSITION("aten.unsafe_chunk.default", chunk);
PT2OV_DECOMPOSITION("aten.chunk.default", chunk);
PT2OV_DECOMPOSITION("aten.block_diag.default", block_diag);
PT2OV_DECOMPOSITION("aten.cartesian_prod.default", cartesian_prod);
PT2OV_DECOMPOSITION("aten.fft_fftshift.default", [](Builder& b) { fft_shift(b, false); });
PT2OV_DECOMPOSITION("aten.fft_ifftshift.default", [](Builder& b) { fft_shift(b, true); });
PT2OV_DECOMPOSITION("aten.sum_to_size.default", sum_to_size);
PT2OV_DECOMPOSITION("aten.msort.default", msort);
PT2OV_DECOMPOSITION("aten.nonzero_numpy.default", nonzero_numpy);
PT2OV_DECOMPOSITION("aten.meshgrid.default", meshgrid);
PT2OV_DECOMPOSITION("aten.meshgrid.indexing", meshgrid_indexing);
PT2OV_DECOMPOSITION("aten.diff.default", diff);
PT2OV_DECOMPOSITION("aten.positive.default", alias);
PT2OV_DECOMPOSITION("aten.resolve_neg.default", alias);
PT2OV_DECOMPOSITION("aten.resolve_conj.default", alias);
PT2OV_DECOMPOSITION("aten.conj_physical.default", clone_self);
PT2OV_DECOMPOSITION("aten.flipud.default", [](Builder& b) { flip_dim(b, 0); });
PT2OV_DECOMPOSITION("aten.fliplr.default", [](Builder& b) { flip_dim(b, 1); });
PT2OV_DECOMPOSITION("aten.repeat_interleave.self_Tensor", repeat_interleave_by_tensor);
PT2OV_DECOMPOSITION("aten.tile.default", tile);
PT2OV_DECOMPOSITION("aten.unbind.int", unbind);

}  // namespace pt2ov::graph::decompose
