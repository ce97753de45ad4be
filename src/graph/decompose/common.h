// What several decomposition families share: metadata of the usual shape ops, and the one-line
// nodes they make.
#pragma once

#include <vector>

#include "graph/decompose/decompose.h"

namespace pt2ov::graph::decompose {

// Sizes of `meta` permuted by `perm`.
TensorMeta permuted_meta(const TensorMeta& meta, const std::vector<int64_t>& perm);
// `meta` with a size-1 dim inserted at `d` (in [0, rank]).
TensorMeta unsqueezed_meta(const TensorMeta& meta, int64_t d);
// `meta` without dim `d`.
TensorMeta squeezed_meta(const TensorMeta& meta, int64_t d);
// A dim of `size - amount` (symbolic sizes keep a hint only).
Dim shrunk(const Dim& size, int64_t amount);

// A single int (or a one-element list) as `n` ints, as conv and pool arguments allow; any other
// argument as it is.
Argument expand_ints(Argument arg, size_t n);

// A Scalar argument's value (Int, Float or Bool); refused for any other kind.
double number(const Builder& b, const Argument& arg);

// The nodes.
Argument permute(Builder& b, const Argument& x, const std::vector<int64_t>& perm);
Argument unsqueeze(Builder& b, const Argument& x, int64_t d);
Argument squeeze_dim(Builder& b, const Argument& x, int64_t d);
Argument scalar_tensor(Builder& b, double value, DType dtype);  // a 0-d tensor holding `value`
Argument to_dtype(Builder& b, const Argument& x, DType dtype);  // x itself when already dtype
// Elementwise: the result has the broadcast sizes of the operands (tensors or numbers) and `dtype`.
Argument elementwise(Builder& b, const std::string& target, std::vector<Argument> operands, DType dtype);
// The broadcast sizes of tensors (and numbers, which take no dims).
std::vector<Dim> broadcast_sizes(const Builder& b, const std::vector<Argument>& operands);
// Sizes as an argument, each static size an int and each symbolic one read at run time from
// whichever of `sources` has a dim of the same expression (refused when none has).
Argument sizes_arg(Builder& b, const std::vector<Dim>& sizes, const std::vector<Argument>& sources);

}  // namespace pt2ov::graph::decompose
