// Reductions and products of the training IR: var/std and their _mean forms with the correction
// spelled out, aminmax, count_nonzero, nansum, nanmean, isclose, dist, norms, and the matrix and
// vector products (mv, addmv, addr, addbmm, outer, inner, vdot, vecdot, kron, tensordot, cross,
// cosine_similarity, pairwise_distance), as torch._refs and ATen's composites compute them.
#include <cctype>
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/text.h"
#include "graph/decompose/common.h"

namespace pt2ov::graph::decompose {
namespace {

using Kind = Argument::Kind;

// The dims a reduction's `dim` argument names, in [0, rank); every dim for None or [].
std::vector<int64_t> reduced_dims(const Builder& b, const Argument& dim, int64_t rank) {
    std::vector<int64_t> dims;
    if (dim.kind == Kind::Int) {
        dims.push_back(b.dim(dim.int_value, rank));
    } else if (dim.kind == Kind::List && !dim.items.empty()) {
        for (const auto& d : dim.items) dims.push_back(b.dim(d.int_value, rank));
    } else {
        for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
    }
    return dims;
}

Argument correction_of(bool unbiased) { return int_arg(unbiased ? 1 : 0); }

// var/std with `unbiased` (a bool) are the .correction forms with correction 1 or 0.
void variance(Builder& b, const char* core, bool has_dim) {
    const Argument self = b.arg(0, "self");
    const Argument dim = has_dim ? b.arg(1, "dim") : none_arg();
    const bool unbiased = b.arg(has_dim ? 2 : 1, "unbiased").bool_value;
    const Argument keepdim = has_dim ? b.arg(3, "keepdim") : bool_arg(false);
    b.outputs(core, {self, dim}, {{"correction", correction_of(unbiased)}, {"keepdim", keepdim}});
}

// std_mean: the variance's square root beside the mean.
void std_mean(Builder& b, Argument dim, Argument correction, Argument keepdim) {
    const Argument self = b.arg(0, "self");
    const auto parts = b.op_multi("aten.var_mean.correction", {self, std::move(dim)},
                                  {contiguous_like(b.output_meta(0)), contiguous_like(b.output_meta(1))},
                                  {{"correction", std::move(correction)}, {"keepdim", std::move(keepdim)}});
    b.output(0, "aten.sqrt.default", {parts[0]});
    b.output_is(1, parts[1]);
}

// var/std/var_mean, every correction, as PyTorch computes them: the sum of squared deviations from
// the mean over the reduced dims, divided by max(0, N - correction) (ATen's WelfordOps).
//
// Two faults of OpenVINO's own converter make this ours. It reads a float correction that is not
// a whole number (1.5) as 1 and refuses an integer one other than 0 and 1 (measured on 2026.4:
// exit 0, wrong values). And it sums the squares in the input's float32, where PyTorch's CPU
// kernels accumulate in double: the squares of values near 1e-30 underflow to 0 (std 0 for
// eager's 1e-30, and 1 / std inf), those of values near 1e19 overflow to inf. So the values are
// first divided by the largest magnitude along the reduced dims (1 where that is 0, inf or NaN,
// which eager's own arithmetic then carries), their variance taken in [0, 1], and the scale put
// back once: var = v * s * s, std = sqrt(v) * s, mean = mean(x / s) * s. The division rounds each
// value by half an ulp, well inside float32 comparison; a result beyond float32's range
// overflows or underflows as eager's double result does when rounded to float32. float16 and
// bfloat16 inputs are computed in float (PyTorch's accumulation type) and rounded once. N is a
// constant when the reduced dims are static, else counted at run time.
void corrected_variance(Builder& b, bool root, bool with_mean) {
    const Argument self = b.arg(0, "self");
    const Argument correction = b.arg(2, "correction");
    const double c = correction.kind == Kind::None ? 1.0 : number(b, correction);
    const bool keepdim = b.arg(3, "keepdim").bool_value;
    const TensorMeta& in = b.meta(self);
    if (!is_floating(in.dtype)) b.decline();
    const auto dims = reduced_dims(b, b.arg(1, "dim"), b.rank(self));
    const DType out = b.output_meta(0).dtype;
    const DType work = out == DType::Float16 || out == DType::BFloat16 ? DType::Float32 : out;
    const Argument x = to_dtype(b, self, work);
    const TensorMeta kept = reduced_meta(b.meta(x), dims, true, work);

    const Argument magnitude = elementwise(b, "aten.abs.default", {x}, work);
    const Argument largest = b.op("aten.amax.default", {magnitude, ints_arg(dims), bool_arg(true)}, kept);
    const Argument usable = elementwise(b, "aten.logical_and.default",
                                        {elementwise(b, "aten.gt.Scalar", {largest, float_arg(0.0)}, DType::Bool),
                                         elementwise(b, "aten.lt.Scalar", {largest, float_arg(std::numeric_limits<double>::infinity())}, DType::Bool)},
                                        DType::Bool);
    const Argument scale = elementwise(b, "aten.where.self", {usable, largest, float_arg(1.0)}, work);
    const Argument y = elementwise(b, "aten.div.Tensor", {x, scale}, work);

    const Argument mean = b.op("aten.mean.dim", {y, ints_arg(dims), bool_arg(true)}, kept);
    const Argument deviation = elementwise(b, "aten.sub.Tensor", {y, mean}, work);
    const Argument squares = elementwise(b, "aten.mul.Tensor", {deviation, deviation}, work);
    const Argument total = b.op("aten.sum.dim_IntList", {squares, ints_arg(dims), bool_arg(true)}, kept);
    bool static_count = true;
    double n = 1;
    for (int64_t d : dims) {
        if (!in.sizes[static_cast<size_t>(d)].is_static()) static_count = false;
        else n *= static_cast<double>(*in.sizes[static_cast<size_t>(d)].value);
    }
    // The sum is multiplied by 1 / max(0, N - c) rather than divided by it: the CPU plugin
    // computes a reduction divided by a constant wrongly (openvino_facts
    // ReductionOverConstantHalfZero), and a Multiply differs from the division by an ulp at
    // most. 1 / 0 is inf, so a sum over no degrees of freedom is inf, or NaN for 0, as divided.
    Argument reciprocal;
    if (static_count) {
        reciprocal = float_arg(1.0 / std::max(0.0, n - c));
    } else {
        const Argument ones = b.op("aten.ones_like.default", {y}, contiguous_like(b.meta(y)));
        const Argument count = b.op("aten.sum.dim_IntList", {ones, ints_arg(dims), bool_arg(true)}, kept);
        const Argument divisor = b.op("aten.clamp_min.default",
                                      {elementwise(b, "aten.sub.Tensor", {count, float_arg(c)}, work), float_arg(0.0)}, kept);
        reciprocal = b.op("aten.reciprocal.default", {divisor}, kept);
    }
    const Argument scaled_variance = elementwise(b, "aten.mul.Tensor", {total, reciprocal}, work);
    Argument result = root ? elementwise(b, "aten.mul.Tensor", {elementwise(b, "aten.sqrt.default", {scaled_variance}, work), scale}, work)
                           : elementwise(b, "aten.mul.Tensor", {elementwise(b, "aten.mul.Tensor", {scaled_variance, scale}, work), scale}, work);
    auto reduced = [&](Argument kept_dims) {
        if (keepdim || dims.empty()) return kept_dims;
        return b.op("aten.squeeze.dims", {kept_dims, ints_arg(dims)}, reduced_meta(b.meta(x), dims, false, work));
    };
    b.output_is(0, to_dtype(b, reduced(result), out));
    if (with_mean) {
        // ATen takes var_mean's mean by Welford's update, element after element: past an
        // infinity the next update subtracts it from itself, so the mean is NaN unless the only
        // non-finite value is an infinity in the last place, which stays. The last place is the
        // last index along every reduced dim (the order ATen's CPU reduction visits them in).
        Argument last = x;
        std::vector<int64_t> sliced;
        for (int64_t d : dims) {
            sliced.push_back(d);
            last = b.op("aten.slice.Tensor", {last, int_arg(d), int_arg(-1), int_arg(std::numeric_limits<int64_t>::max()), int_arg(1)},
                        reduced_meta(b.meta(x), sliced, true, work));
        }
        const auto nonfinite = [&](const Argument& t) {
            return to_dtype(b, elementwise(b, "aten.logical_not.default", {elementwise(b, "aten.isfinite.default", {t}, DType::Bool)}, DType::Bool),
                            work);
        };
        const Argument nonfinite_count = b.op("aten.sum.dim_IntList", {nonfinite(x), ints_arg(dims), bool_arg(true)}, kept);
        const Argument before_last = elementwise(b, "aten.gt.Scalar",
                                                 {elementwise(b, "aten.sub.Tensor", {nonfinite_count, nonfinite(last)}, work), float_arg(0.0)},
                                                 DType::Bool);
        const Argument m = elementwise(b, "aten.where.self",
                                       {before_last, float_arg(std::numeric_limits<double>::quiet_NaN()),
                                        elementwise(b, "aten.mul.Tensor", {mean, scale}, work)},
                                       work);
        b.output_is(1, to_dtype(b, reduced(m), b.output_meta(1).dtype));
    }
}

// max.dim and min.dim (values and indices) as amax/amin beside argmax/argmin: OpenVINO's conversion
// of max.dim and min.dim takes, over the last dim, another index than the first among tied
// values once the dim has 16 or more elements (a row [0, 0.75 x 15]: index 4 for PyTorch's 1;
// measured on 2026.4.1, exit 0), while argmax and argmin give PyTorch's first index. The values
// are the same either way; so are NaN's (the value NaN, the index of the first NaN).
void max_min_dim(Builder& b, bool is_max) {
    const Argument self = b.arg(0, "self");
    const TensorMeta& in = b.meta(self);
    if (in.dtype == DType::Bool || in.rank() == 0) b.decline();
    const Argument dim = b.arg(1, "dim");
    const Argument keepdim = b.arg(2, "keepdim");
    b.output(0, is_max ? "aten.amax.default" : "aten.amin.default", {self, ints_arg({dim.int_value}), keepdim});
    b.output(1, is_max ? "aten.argmax.default" : "aten.argmin.default", {self, dim, keepdim});
}

void aminmax(Builder& b) {
    const Argument self = b.arg(0, "self");
    const Argument dim = b.arg(1, "dim"), keepdim = b.arg(2, "keepdim");
    const Argument dims = dim.kind == Kind::Int ? ints_arg({dim.int_value}) : ints_arg({});
    b.output(0, "aten.amin.default", {self, dims, keepdim});
    b.output(1, "aten.amax.default", {self, dims, keepdim});
}

Argument as_int_list(const Argument& dim) {
    if (dim.kind == Kind::Int) return ints_arg({dim.int_value});
    return dim;
}

void count_nonzero(Builder& b) {
    const Argument self = b.arg(0, "self");
    const Argument dim = b.arg(1, "dim");
    const auto& m = b.meta(self);
    const Argument nonzero = elementwise(b, "aten.ne.Scalar", {self, int_arg(0)}, DType::Bool);
    const Argument counts = to_dtype(b, nonzero, DType::Int64);
    (void)m;
    b.output(0, "aten.sum.dim_IntList", {counts, dim.kind == Kind::None ? none_arg() : as_int_list(dim)});
}

// x with NaN replaced by 0 (x itself for integers).
Argument nan_as_zero(Builder& b, const Argument& x) {
    const auto& m = b.meta(x);
    if (!is_floating(m.dtype)) return x;
    const Argument nan = elementwise(b, "aten.isnan.default", {x}, DType::Bool);
    return elementwise(b, "aten.where.self", {nan, float_arg(0.0), x}, m.dtype);
}

void nansum(Builder& b) {
    const Argument self = b.arg(0, "self");
    Keywords keywords;
    if (b.arg(3, "dtype").kind == Kind::ScalarType) keywords.push_back({"dtype", b.arg(3, "dtype")});
    b.output(0, "aten.sum.dim_IntList", {nan_as_zero(b, self), b.arg(1, "dim"), b.arg(2, "keepdim")}, std::move(keywords));
}

void nanmean(Builder& b) {
    const Argument self = b.arg(0, "self");
    const Argument dim = b.arg(1, "dim"), keepdim = b.arg(2, "keepdim");
    const TensorMeta& out = b.output_meta();
    const auto dims = reduced_dims(b, dim, b.rank(self));
    const Argument values = to_dtype(b, nan_as_zero(b, self), out.dtype);
    const Argument total = b.op("aten.sum.dim_IntList", {values, dim, keepdim}, contiguous_like(out));
    const Argument present = elementwise(b, "aten.logical_not.default", {elementwise(b, "aten.isnan.default", {self}, DType::Bool)}, DType::Bool);
    const Argument count = b.op("aten.sum.dim_IntList", {to_dtype(b, present, out.dtype), dim, keepdim}, contiguous_like(out));
    (void)dims;
    b.output(0, "aten.div.Tensor", {total, count});
}

// isclose as torch._refs has it: equal, or (equal_nan) both NaN, or a finite difference within
// atol + |rtol * other|.
void isclose(Builder& b) {
    Argument x = b.arg(0, "self"), y = b.arg(1, "other");
    const double rtol = number(b, b.arg(2, "rtol")), atol = number(b, b.arg(3, "atol"));
    const bool equal_nan = b.arg(4, "equal_nan").bool_value;
    const DType dtype = b.meta(x).dtype;
    Argument close = elementwise(b, "aten.eq.Tensor", {x, y}, DType::Bool);
    const bool floating = is_floating(dtype);
    if (equal_nan && floating) {
        const Argument both = elementwise(b, "aten.logical_and.default",
                                          {elementwise(b, "aten.isnan.default", {x}, DType::Bool), elementwise(b, "aten.isnan.default", {y}, DType::Bool)}, DType::Bool);
        close = elementwise(b, "aten.logical_or.default", {close, both}, DType::Bool);
    }
    if (rtol == 0.0 && atol == 0.0) return b.output_is(0, close);
    const DType work = floating ? dtype : DType::Float64;
    x = to_dtype(b, x, work);
    y = to_dtype(b, y, work);
    const Argument allowed = elementwise(b, "aten.add.Tensor", {elementwise(b, "aten.abs.default", {elementwise(b, "aten.mul.Tensor", {y, float_arg(rtol)}, work)}, work), float_arg(atol)}, work);
    const Argument actual = elementwise(b, "aten.abs.default", {elementwise(b, "aten.sub.Tensor", {x, y}, work)}, work);
    const Argument within = elementwise(b, "aten.logical_and.default",
                                        {elementwise(b, "aten.isfinite.default", {actual}, DType::Bool), elementwise(b, "aten.le.Tensor", {actual, allowed}, DType::Bool)}, DType::Bool);
    b.output(0, "aten.logical_or.default", {close, within});
}

void dist(Builder& b) {
    const Argument x = b.arg(0, "self"), y = b.arg(1, "other");
    const Argument difference = elementwise(b, "aten.sub.Tensor", {x, y}, b.output_meta().dtype);
    std::vector<int64_t> all(static_cast<size_t>(b.meta(difference).rank()));
    for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
    b.output(0, "aten.linalg_vector_norm.default", {difference, b.arg(2, "p"), ints_arg(all), bool_arg(false)});
}

// linalg_norm of vectors (ord a number or None over at most one dim, or None over all) and the
// Frobenius norm; matrix norms of other orders are not decomposed.
void linalg_norm(Builder& b, bool ord_is_string) {
    const Argument self = b.arg(0, "self");
    const Argument ord = b.arg(1, "ord"), dim = b.arg(2, "dim"), keepdim = b.arg(3, "keepdim");
    Keywords keywords;
    if (b.arg(4, "dtype").kind == Kind::ScalarType) keywords.push_back({"dtype", b.arg(4, "dtype")});
    const size_t dims = dim.kind == Kind::List ? dim.items.size() : dim.kind == Kind::Int ? 1 : 0;
    if (ord_is_string) {
        if (ord.string_value != "fro" || !(dims == 2 || (dims == 0 && b.rank(self) == 2))) b.refuse("only the Frobenius matrix norm is decomposed");
        return b.output(0, "aten.linalg_vector_norm.default", {self, int_arg(2), dim, keepdim}, std::move(keywords));
    }
    if (ord.kind == Kind::None) {
        if (dim.kind == Kind::None || dims <= 2) {
            return b.output(0, "aten.linalg_vector_norm.default", {self, int_arg(2), dim, keepdim}, std::move(keywords));
        }
    } else if (dims == 1 || (dim.kind == Kind::None && b.rank(self) == 1)) {
        return b.output(0, "aten.linalg_vector_norm.default", {self, ord, dim, keepdim}, std::move(keywords));
    }
    b.refuse("matrix norms other than the Frobenius norm are not decomposed");
}

// linalg_vector_norm where OpenVINO's converter fails: of a 0-d tensor, |x| (or x != 0 for the
// order 0), and the order 0 of any tensor, the count of nonzero elements; both in the result
// dtype. Other orders are left to OpenVINO.
void vector_norm(Builder& b) {
    const Argument self = b.arg(0, "self");
    const Argument ord = b.arg(1, "ord");
    const double order = number(b, ord);
    const DType dtype = b.output_meta().dtype;
    if (order == 0 && b.rank(self) > 0) {
        const std::vector<int64_t> dims = reduced_dims(b, b.arg(2, "dim"), b.rank(self));
        const bool keepdim = b.arg(3, "keepdim").bool_value;
        const Argument nonzero = b.op("aten.ne.Scalar", {self, int_arg(0)}, with_dtype(b.meta(self), DType::Bool));
        const Argument counted = to_dtype(b, nonzero, dtype);
        return b.output(0, "aten.sum.dim_IntList", {counted, ints_arg(dims), bool_arg(keepdim)});
    }
    if (b.rank(self) != 0) {
        // Over dims of size 1 ATen's norm is |x| without squaring (so 1e36 stays 1e36, where
        // sqrt(x * x) overflows to inf in float32, and 1e-30 stays 1e-30): so is pt2ov's.
        const std::vector<int64_t> dims = reduced_dims(b, b.arg(2, "dim"), b.rank(self));
        const auto& sizes = b.meta(self).sizes;
        const bool unit = std::all_of(dims.begin(), dims.end(), [&](int64_t d) {
            return sizes[static_cast<size_t>(d)].is_static() && *sizes[static_cast<size_t>(d)].value == 1;
        });
        if (!unit || !std::isfinite(order) || !is_floating(b.meta(self).dtype)) b.decline();
        Argument magnitude = b.op("aten.abs.default", {self}, contiguous_like(b.meta(self)));
        if (!b.arg(3, "keepdim").bool_value && !dims.empty()) {
            magnitude = b.op("aten.squeeze.dims", {magnitude, ints_arg(dims)}, reduced_meta(b.meta(self), dims, false, b.meta(self).dtype));
        }
        if (b.meta(magnitude).dtype == dtype) return b.output_is(0, magnitude);
        return b.output(0, "aten._to_copy.default", {magnitude}, {{"dtype", dtype_arg(dtype)}});
    }
    if (order == 0) {
        const Argument nonzero = b.op("aten.ne.Scalar", {self, int_arg(0)}, with_dtype(b.meta(self), DType::Bool));
        return b.output(0, "aten._to_copy.default", {nonzero}, {{"dtype", dtype_arg(dtype)}});
    }
    const Argument magnitude = b.op("aten.abs.default", {self}, contiguous_like(b.meta(self)));
    if (b.meta(magnitude).dtype == dtype) return b.output_is(0, magnitude);
    b.output(0, "aten._to_copy.default", {magnitude}, {{"dtype", dtype_arg(dtype)}});
}

// The slices [1:] and [:-1] of x along dim.
std::pair<Argument, Argument> neighbours(Builder& b, const Argument& x, int64_t dim) {
    std::vector<Dim> sizes = b.meta(x).sizes;
    sizes[static_cast<size_t>(dim)] = shrunk(sizes[static_cast<size_t>(dim)], 1);
    const TensorMeta shorter = contiguous_meta(b.meta(x).dtype, sizes);
    const Argument right = b.op("aten.slice.Tensor", {x, int_arg(dim), int_arg(1), int_arg(std::numeric_limits<int64_t>::max()), int_arg(1)}, shorter);
    const Argument left = b.op("aten.slice.Tensor", {x, int_arg(dim), int_arg(0), int_arg(-1), int_arg(1)}, shorter);
    return {right, left};
}

// trapezoid/trapz and cumulative_trapezoid over floating samples, as ATen's Integration.cpp
// computes them: with spacing dx, (sum(y) - (y[0] + y[-1]) / 2) * dx (or the running sum of
// dx / 2 * (y[:-1] + y[1:])); with sample points x (1-d, or broadcast from the right), the
// differences of x times the neighbours' sums, halved.
void trapezoid(Builder& b, bool has_x, bool cumulative) {
    const Argument y = b.arg(0, "y");
    const DType dtype = b.output_meta().dtype;
    if (!is_floating(b.meta(y).dtype) || !is_floating(dtype)) b.refuse("integrates integer samples; convert them to a floating dtype first");
    const int64_t rank = b.rank(y);
    if (rank == 0) b.refuse("needs samples of at least 1 dim");
    const int64_t dim = b.dim(b.arg(2, "dim").int_value, rank);
    const Dim& length = b.meta(y).sizes[static_cast<size_t>(dim)];
    if (!length.is_static()) b.refuse("integrates along a dim of dynamic size");
    if (*length.value == 0) b.refuse("integrates zero samples");
    const auto [right, left] = neighbours(b, y, dim);
    const Argument pair_sum = elementwise(b, "aten.add.Tensor", {right, left}, dtype);
    if (!has_x) {
        const Argument dx = b.arg(1, "dx");
        if (dx.kind == Kind::Tensor) b.refuse("takes dx as a tensor");
        const double spacing = dx.kind == Kind::None ? 1.0 : number(b, dx);
        if (cumulative) {
            const Argument areas = elementwise(b, "aten.mul.Tensor", {pair_sum, scalar_tensor(b, spacing / 2.0, dtype)}, dtype);
            return b.output(0, "aten.cumsum.default", {areas, int_arg(dim)});
        }
        const Argument total = b.op("aten.sum.dim_IntList", {y, ints_arg({dim}), bool_arg(false)}, reduced_meta(b.meta(y), {dim}, false, dtype));
        const Argument first = b.op("aten.select.int", {y, int_arg(dim), int_arg(0)}, squeezed_meta(b.meta(y), dim));
        const Argument last = b.op("aten.select.int", {y, int_arg(dim), int_arg(-1)}, squeezed_meta(b.meta(y), dim));
        const Argument ends = elementwise(b, "aten.add.Tensor", {first, last}, dtype);
        const Argument half_ends = elementwise(b, "aten.mul.Tensor", {ends, scalar_tensor(b, 0.5, dtype)}, dtype);
        const Argument inner = elementwise(b, "aten.sub.Tensor", {total, half_ends}, dtype);
        return b.output(0, "aten.mul.Tensor", {inner, scalar_tensor(b, spacing, dtype)});
    }
    Argument x = b.arg(1, "x");
    if (!is_floating(b.meta(x).dtype)) b.refuse("takes integer sample points; convert them to a floating dtype first");
    const int64_t x_rank = b.rank(x);
    if (x_rank == 1) {
        std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
        shape[static_cast<size_t>(dim)] = -1;
        std::vector<Dim> sizes(static_cast<size_t>(rank), static_dim(1));
        sizes[static_cast<size_t>(dim)] = b.meta(x).sizes[0];
        x = b.op("aten.view.default", {x, ints_arg(shape)}, contiguous_meta(b.meta(x).dtype, sizes));
    } else if (x_rank < rank) {
        std::vector<Dim> sizes(static_cast<size_t>(rank - x_rank), static_dim(1));
        std::vector<int64_t> shape(static_cast<size_t>(rank - x_rank), 1);
        for (const auto& d : b.meta(x).sizes) {
            if (!d.is_static()) b.refuse("takes sample points of dynamic size");
            sizes.push_back(d);
            shape.push_back(*d.value);
        }
        x = b.op("aten.view.default", {x, ints_arg(shape)}, contiguous_meta(b.meta(x).dtype, sizes));
    }
    const auto [x_right, x_left] = neighbours(b, x, dim);
    const Argument dx = elementwise(b, "aten.sub.Tensor", {x_right, x_left}, b.meta(x).dtype);
    const Argument weighted = elementwise(b, "aten.mul.Tensor", {dx, pair_sum}, dtype);
    if (cumulative) {
        const Argument areas = elementwise(b, "aten.div.Tensor", {weighted, scalar_tensor(b, 2.0, dtype)}, dtype);
        return b.output(0, "aten.cumsum.default", {areas, int_arg(dim)});
    }
    const Argument total = b.op("aten.sum.dim_IntList", {weighted, ints_arg({dim}), bool_arg(false)}, reduced_meta(b.meta(weighted), {dim}, false, dtype));
    b.output(0, "aten.div.Tensor", {total, scalar_tensor(b, 2.0, dtype)});
}

// renorm: each slice along dim whose p-norm exceeds maxnorm scaled to maxnorm / (norm + 1e-7),
// as torch._refs.renorm computes it.
void renorm(Builder& b) {
    const Argument self = b.arg(0, "self");
    const DType dtype = b.meta(self).dtype;
    if (!is_floating(dtype)) b.refuse("renormalizes an integer tensor");
    const int64_t rank = b.rank(self);
    if (rank <= 1) b.refuse("needs a tensor of at least 2 dims");
    const int64_t dim = b.dim(b.arg(2, "dim").int_value, rank);
    std::vector<int64_t> others;
    for (int64_t d = 0; d < rank; ++d) {
        if (d != dim) others.push_back(d);
    }
    const double maxnorm = number(b, b.arg(3, "maxnorm"));
    const Argument norm = b.op("aten.linalg_vector_norm.default", {self, b.arg(1, "p"), ints_arg(others), bool_arg(true)},
                               reduced_meta(b.meta(self), others, true, dtype));
    const Argument limit = scalar_tensor(b, maxnorm, dtype);
    const Argument padded = elementwise(b, "aten.add.Tensor", {norm, scalar_tensor(b, 1e-7, dtype)}, dtype);
    const Argument shrink = elementwise(b, "aten.div.Tensor", {limit, padded}, dtype);
    const Argument over = b.op("aten.gt.Tensor", {norm, limit}, with_dtype(b.meta(norm), DType::Bool));
    const Argument factor = elementwise(b, "aten.where.self", {over, shrink, scalar_tensor(b, 1.0, dtype)}, dtype);
    b.output(0, "aten.mul.Tensor", {self, factor});
}

void matmul_output(Builder& b, const Argument& x, const Argument& y) { b.output(0, "aten.matmul.default", {x, y}); }

Argument matmul(Builder& b, const Argument& x, const Argument& y, std::vector<Dim> sizes) {
    return b.op("aten.matmul.default", {x, y}, contiguous_meta(b.meta(x).dtype, std::move(sizes)));
}

// beta * self + alpha * product, with beta == 0 ignoring self (NaN included), as ATen's addmm does.
void scaled_sum(Builder& b, const Argument& self, Argument product) {
    // measured wrong for int32 (addmv) and float16 (addbmm, one rounding too many): refused there
    const DType out = b.output_meta().dtype;
    if (out != DType::Float32 && out != DType::Float64) b.refuse("is decomposed for float32 and float64 only");
    const double beta = number(b, b.arg(3, "beta")), alpha = number(b, b.arg(4, "alpha"));
    const DType dtype = b.output_meta().dtype;
    if (alpha != 1.0) product = elementwise(b, "aten.mul.Tensor", {product, b.arg(4, "alpha")}, dtype);
    if (beta == 0.0) {
        return b.output(0, "aten.expand.default", {product, sizes_arg(b, b.output_meta().sizes, {product, self})});
    }
    const Argument scaled = beta == 1.0 ? self : elementwise(b, "aten.mul.Tensor", {self, b.arg(3, "beta")}, dtype);
    b.output(0, "aten.add.Tensor", {scaled, product});
}

void addmv(Builder& b) {
    const Argument mat = b.arg(1, "mat"), vec = b.arg(2, "vec");
    scaled_sum(b, b.arg(0, "self"), matmul(b, mat, vec, {b.meta(mat).sizes.at(0)}));
}

Argument outer(Builder& b, const Argument& u, const Argument& v) {
    const Argument column = unsqueeze(b, u, 1);
    return elementwise(b, "aten.mul.Tensor", {column, v}, b.meta(u).dtype);
}

void addr(Builder& b) {
    if (!is_floating(b.output_meta().dtype)) b.refuse("is decomposed for floating-point tensors only");
    scaled_sum(b, b.arg(0, "self"), outer(b, b.arg(1, "vec1"), b.arg(2, "vec2")));
}

// addbmm sums the batch's products as ATen does: in float for half types (one rounding at the
// end), in the operands' dtype for integers.
void addbmm(Builder& b) {
    const DType dtype = b.output_meta().dtype;
    const bool half = dtype == DType::Float16 || dtype == DType::BFloat16;
    const DType work = half ? DType::Float32 : dtype;
    const Argument b1 = to_dtype(b, b.arg(1, "batch1"), work), b2 = to_dtype(b, b.arg(2, "batch2"), work);
    const auto& m1 = b.meta(b1);
    const auto& m2 = b.meta(b2);
    const Argument products = b.op("aten.bmm.default", {b1, b2}, contiguous_meta(work, {m1.sizes.at(0), m1.sizes.at(1), m2.sizes.at(2)}));
    Argument total = b.op("aten.sum.dim_IntList", {products, ints_arg({0})}, contiguous_meta(work, {m1.sizes.at(1), m2.sizes.at(2)}),
                          {{"dtype", dtype_arg(work)}});
    total = to_dtype(b, total, dtype);
    scaled_sum(b, b.arg(0, "self"), total);
}

void outer_output(Builder& b) {
    const Argument u = b.arg(0, "self"), v = b.arg(1, "vec2");
    b.output(0, "aten.mul.Tensor", {unsqueeze(b, u, 1), v});
}

// Products over the last dim of both (vdot, vecdot): sum of the elementwise product.
// The sum keeps the operands' dtype (aten.sum alone promotes integers to int64).
void product_sum(Builder& b, const Argument& x, const Argument& y, int64_t dim) {
    const DType dtype = b.output_meta().dtype;
    const Argument product = elementwise(b, "aten.mul.Tensor", {x, y}, dtype);
    b.output(0, "aten.sum.dim_IntList", {product, ints_arg({dim})}, {{"dtype", dtype_arg(dtype)}});
}

std::vector<int64_t> static_sizes_of(const Builder& b, const Argument& x) {
    const auto& m = b.meta(x);
    if (!m.all_static()) b.refuse("needs operands of static sizes");
    return m.static_sizes();
}

std::vector<Dim> dims_of(const std::vector<int64_t>& sizes) {
    std::vector<Dim> dims;
    for (int64_t s : sizes) dims.push_back(static_dim(s));
    return dims;
}

Argument view(Builder& b, const Argument& x, const std::vector<int64_t>& sizes) {
    return b.op("aten.view.default", {x, ints_arg(sizes)}, contiguous_meta(b.meta(x).dtype, dims_of(sizes)));
}

Argument contiguous(Builder& b, const Argument& x) {
    return b.op("aten.clone.default", {x}, contiguous_like(b.meta(x)), {{"memory_format", memory_format_arg(1)}});
}

// tensordot: the contracted dims of x moved last and of y first, both flattened to matrices,
// multiplied, and the free dims restored.
void tensordot_of(Builder& b, const Argument& x, const Argument& y, std::vector<int64_t> dx, std::vector<int64_t> dy) {
    const auto sx = static_sizes_of(b, x), sy = static_sizes_of(b, y);
    const int64_t rx = static_cast<int64_t>(sx.size()), ry = static_cast<int64_t>(sy.size());
    if (dx.size() != dy.size()) b.refuse("contracts different numbers of dims");
    for (auto& d : dx) d = b.dim(d, rx);
    for (auto& d : dy) d = b.dim(d, ry);
    std::vector<int64_t> px, py, free_sizes;
    int64_t free_x = 1, free_y = 1, contracted = 1;
    for (int64_t d = 0; d < rx; ++d) {
        if (std::find(dx.begin(), dx.end(), d) == dx.end()) {
            px.push_back(d);
            free_sizes.push_back(sx[static_cast<size_t>(d)]);
            free_x *= sx[static_cast<size_t>(d)];
        }
    }
    for (size_t k = 0; k < dx.size(); ++k) {
        px.push_back(dx[k]);
        contracted *= sx[static_cast<size_t>(dx[k])];
    }
    for (int64_t d : dy) py.push_back(d);
    for (int64_t d = 0; d < ry; ++d) {
        if (std::find(dy.begin(), dy.end(), d) == dy.end()) {
            py.push_back(d);
            free_sizes.push_back(sy[static_cast<size_t>(d)]);
            free_y *= sy[static_cast<size_t>(d)];
        }
    }
    const Argument mx = view(b, contiguous(b, permute(b, x, px)), {free_x, contracted});
    const Argument my = view(b, contiguous(b, permute(b, y, py)), {contracted, free_y});
    const Argument product = b.op("aten.mm.default", {mx, my}, contiguous_meta(b.output_meta().dtype, {static_dim(free_x), static_dim(free_y)}));
    b.output(0, "aten.view.default", {product, ints_arg(free_sizes)});
}

void tensordot(Builder& b) {
    auto ints = [](const Argument& a) {
        std::vector<int64_t> v;
        for (const auto& i : a.items) v.push_back(i.int_value);
        return v;
    };
    tensordot_of(b, b.arg(0, "self"), b.arg(1, "other"), ints(b.arg(2, "dims_self")), ints(b.arg(3, "dims_other")));
}

void inner(Builder& b) {
    const Argument x = b.arg(0, "self"), y = b.arg(1, "other");
    if (b.rank(x) == 0 || b.rank(y) == 0) return b.output(0, "aten.mul.Tensor", {x, y});
    if (b.rank(x) == 1 && b.rank(y) == 1) return product_sum(b, x, y, 0);
    tensordot_of(b, x, y, {-1}, {-1});
}

// kron: x's dim k and y's dim k interleaved, multiplied by broadcasting, and merged.
void kron(Builder& b) {
    const Argument x = b.arg(0, "self"), y = b.arg(1, "other");
    auto sx = static_sizes_of(b, x), sy = static_sizes_of(b, y);
    const size_t rank = std::max(sx.size(), sy.size());
    sx.insert(sx.begin(), rank - sx.size(), 1);
    sy.insert(sy.begin(), rank - sy.size(), 1);
    std::vector<int64_t> vx, vy, merged;
    for (size_t k = 0; k < rank; ++k) {
        vx.push_back(sx[k]);
        vx.push_back(1);
        vy.push_back(1);
        vy.push_back(sy[k]);
        merged.push_back(sx[k] * sy[k]);
    }
    const Argument product = elementwise(b, "aten.mul.Tensor", {view(b, x, vx), view(b, y, vy)}, b.output_meta().dtype);
    b.output(0, "aten.view.default", {contiguous(b, product), ints_arg(merged)});
}

// cross product along a dim of size 3: roll(x, -1) * roll(y, -2) - roll(x, -2) * roll(y, -1).
void cross_along(Builder& b, const Argument& x, const Argument& y, int64_t dim) {
    const DType dtype = b.output_meta().dtype;
    auto rolled = [&](const Argument& t, int64_t shift) {
        return b.op("aten.roll.default", {t, ints_arg({shift}), ints_arg({dim - b.rank(t)})}, contiguous_like(b.meta(t)));
    };
    const Argument first = elementwise(b, "aten.mul.Tensor", {rolled(x, -1), rolled(y, -2)}, dtype);
    const Argument second = elementwise(b, "aten.mul.Tensor", {rolled(x, -2), rolled(y, -1)}, dtype);
    b.output(0, "aten.sub.Tensor", {first, second});
}

void linalg_cross(Builder& b) {
    const Argument x = b.arg(0, "self"), y = b.arg(1, "other");
    const int64_t rank = static_cast<int64_t>(b.output_meta().rank());
    cross_along(b, x, y, b.dim(b.arg(2, "dim").int_value, rank));
}

// cross without dim: the first dim of size 3.
void cross(Builder& b) {
    const Argument x = b.arg(0, "self"), y = b.arg(1, "other");
    const Argument dim = b.arg(2, "dim");
    const auto& out = b.output_meta();
    const int64_t rank = static_cast<int64_t>(out.rank());
    if (dim.kind == Kind::Int) return cross_along(b, x, y, b.dim(dim.int_value, rank));
    for (int64_t d = 0; d < rank; ++d) {
        const Dim& s = out.sizes[static_cast<size_t>(d)];
        if (s.is_static() && *s.value == 3) return cross_along(b, x, y, d);
    }
    b.refuse("has no dim of size 3");
}

// cosine_similarity as ATen computes it: each operand divided by its norm (at least eps), then
// the product summed.
void cosine_similarity(Builder& b) {
    const DType dtype = b.output_meta().dtype;
    const Argument x = to_dtype(b, b.arg(0, "x1"), dtype), y = to_dtype(b, b.arg(1, "x2"), dtype);
    const std::vector<Dim> sizes = broadcast_sizes(b, {x, y});
    const int64_t rank = static_cast<int64_t>(sizes.size());
    const int64_t dim = b.dim(b.arg(2, "dim").int_value, rank);
    const Argument eps = b.arg(3, "eps");
    auto normalized = [&](const Argument& t) {
        const Argument full = b.op("aten.expand.default", {t, sizes_arg(b, sizes, {x, y})}, contiguous_meta(dtype, sizes));
        const Argument norm = b.op("aten.linalg_vector_norm.default", {full, int_arg(2), ints_arg({dim}), bool_arg(true)},
                                   reduced_meta(b.meta(full), {dim}, true, dtype));
        const Argument at_least = b.op("aten.clamp_min.default", {norm, eps}, b.meta(norm));
        return elementwise(b, "aten.div.Tensor", {full, at_least}, dtype);
    };
    const Argument product = elementwise(b, "aten.mul.Tensor", {normalized(x), normalized(y)}, dtype);
    b.output(0, "aten.sum.dim_IntList", {product, ints_arg({dim})});
}

void pairwise_distance(Builder& b) {
    const Argument x = b.arg(0, "x1"), y = b.arg(1, "x2");
    const DType dtype = b.output_meta().dtype;
    const Argument difference = elementwise(b, "aten.add.Tensor", {elementwise(b, "aten.sub.Tensor", {x, y}, dtype), b.arg(3, "eps")}, dtype);
    const int64_t rank = std::max(b.rank(x), b.rank(y));
    b.output(0, "aten.linalg_vector_norm.default", {difference, b.arg(2, "p"), ints_arg({std::max<int64_t>(rank - 1, 0)}), b.arg(4, "keepdim")});
}


// einsum over operands with static sizes (an ellipsis read as letters of its own, its dims of
// equal sizes across operands): a letter repeated within an operand
// first takes that operand's diagonal; each operand's letters that nothing else needs are
// summed out, then operands are multiplied pairwise, left to right, as batched matrix products
// (batch, free and contracted letters permuted into place and flattened), and the result is
// permuted to the output's order.
struct Lettered {
    Argument tensor;
    std::string letters;
    std::vector<int64_t> sizes;
};

Lettered sum_out(Builder& b, Lettered x, const std::string& keep) {
    std::vector<int64_t> dims;
    Lettered out;
    for (size_t k = 0; k < x.letters.size(); ++k) {
        if (keep.find(x.letters[k]) == std::string::npos) {
            dims.push_back(static_cast<int64_t>(k));
        } else {
            out.letters += x.letters[k];
            out.sizes.push_back(x.sizes[k]);
        }
    }
    if (dims.empty()) return x;
    // ATen's sum of integers (and bools) is int64, as einsum's own result then is ('i->' of int32).
    DType dtype = b.meta(x.tensor).dtype;
    if (!dtype_is_floating(dtype)) dtype = DType::Int64;
    out.tensor = b.op("aten.sum.dim_IntList", {x.tensor, ints_arg(dims)}, contiguous_meta(dtype, dims_of(out.sizes)));
    return out;
}

Lettered permuted_to(Builder& b, const Lettered& x, const std::string& order) {
    if (order == x.letters) return x;
    std::vector<int64_t> perm;
    Lettered out{none_arg(), order, {}};
    for (char c : order) {
        const auto at = x.letters.find(c);
        perm.push_back(static_cast<int64_t>(at));
        out.sizes.push_back(x.sizes[at]);
    }
    out.tensor = permute(b, x.tensor, perm);
    return out;
}

int64_t product_of(const Lettered& x, const std::string& letters) {
    int64_t n = 1;
    for (char c : letters) n *= x.sizes[x.letters.find(c)];
    return n;
}

// The product of two operands, keeping the letters in `keep`.
Lettered contract(Builder& b, Lettered x, Lettered y, const std::string& keep) {
    x = sum_out(b, x, keep + y.letters);
    y = sum_out(b, y, keep + x.letters);
    std::string batch, left, right, summed;
    for (char c : x.letters) {
        const bool in_y = y.letters.find(c) != std::string::npos, kept = keep.find(c) != std::string::npos;
        if (in_y && kept) batch += c;
        else if (in_y) summed += c;
        else left += c;
    }
    for (char c : y.letters) {
        if (x.letters.find(c) == std::string::npos) right += c;
    }
    for (char c : batch + summed) {
        if (x.sizes[x.letters.find(c)] != y.sizes[y.letters.find(c)]) b.refuse("broadcasts a letter between operands");
    }
    const DType dtype = b.meta(x.tensor).dtype;
    const Lettered xp = permuted_to(b, x, batch + left + summed);
    const Lettered yp = permuted_to(b, y, batch + summed + right);
    const int64_t nb = product_of(x, batch), nl = product_of(x, left), ns = product_of(x, summed), nr = product_of(y, right);
    const Argument x3 = view(b, contiguous(b, xp.tensor), {nb, nl, ns});
    const Argument y3 = view(b, contiguous(b, yp.tensor), {nb, ns, nr});
    const Argument z3 = b.op("aten.bmm.default", {x3, y3}, contiguous_meta(dtype, {static_dim(nb), static_dim(nl), static_dim(nr)}));
    Lettered out{none_arg(), batch + left + right, {}};
    for (char c : batch + left) out.sizes.push_back(x.sizes[x.letters.find(c)]);
    for (char c : right) out.sizes.push_back(y.sizes[y.letters.find(c)]);
    out.tensor = view(b, z3, out.sizes);
    return out;
}

// A letter repeated within an operand ("ii->i", "bii->bi") reads that operand's diagonal over
// the two dims, as PyTorch's einsum does (it takes x.diagonal(0, i, j), which moves the
// diagonal last): the operand becomes one without the repeat.
Lettered diagonals_taken(Builder& b, Lettered x) {
    for (;;) {
        size_t first = std::string::npos, second = std::string::npos;
        for (size_t i = 0; i < x.letters.size() && first == std::string::npos; ++i) {
            const auto again = x.letters.find(x.letters[i], i + 1);
            if (again != std::string::npos) first = i, second = again;
        }
        if (first == std::string::npos) return x;
        if (x.sizes[first] != x.sizes[second]) b.refuse("repeats a letter over dims of different sizes");
        Lettered out{none_arg(), {}, {}};
        for (size_t i = 0; i < x.letters.size(); ++i) {
            if (i == first || i == second) continue;
            out.letters += x.letters[i];
            out.sizes.push_back(x.sizes[i]);
        }
        out.letters += x.letters[first];
        out.sizes.push_back(x.sizes[first]);
        out.tensor = b.op("aten.diagonal.default",
                          {x.tensor, int_arg(0), int_arg(static_cast<int64_t>(first)), int_arg(static_cast<int64_t>(second))},
                          contiguous_meta(b.meta(x.tensor).dtype, dims_of(out.sizes)));
        x = std::move(out);
    }
}

void einsum(Builder& b) {
    std::string equation;
    for (char c : b.arg(0, "equation").string_value) {
        if (c != ' ') equation += c;
    }
    const auto arrow = equation.find("->");
    const std::string inputs = equation.substr(0, arrow);
    std::vector<std::string> terms = split(inputs, ',');
    std::string output;
    if (arrow != std::string::npos) {
        output = equation.substr(arrow + 2);
    } else {  // implicit: the ellipsis's dims, then the letters seen once, in alphabetical order
        if (inputs.find("...") != std::string::npos) output = "...";
        for (char c = 'A'; c <= 'z'; ++c) {
            if (std::isalpha(static_cast<unsigned char>(c)) && std::count(inputs.begin(), inputs.end(), c) == 1) output += c;
        }
    }
    const auto tensors = b.arg(1, "tensors").items;
    if (tensors.size() != terms.size()) b.refuse("has " + std::to_string(terms.size()) + " terms for " + std::to_string(tensors.size()) + " operands");
    // An ellipsis stands for the dims its operand has beyond its letters; those dims line up from
    // the right across operands, as they broadcast. Each becomes a letter the equation does not
    // use, so that the rest reads letters only.
    size_t ellipsis_rank = 0;
    std::vector<size_t> ellipsis_of(terms.size(), 0);
    for (size_t k = 0; k < terms.size(); ++k) {
        const size_t at = terms[k].find("...");
        if (at == std::string::npos) continue;
        if (terms[k].find("...", at + 3) != std::string::npos) b.refuse("has two ellipses in one term");
        const size_t rank = b.meta(tensors[k]).rank();
        if (rank + 3 < terms[k].size()) b.refuse("has a term that does not match its operand's rank");
        ellipsis_of[k] = rank + 3 - terms[k].size();
        ellipsis_rank = std::max(ellipsis_rank, ellipsis_of[k]);
    }
    std::string fresh;
    for (char c : std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")) {
        if (fresh.size() == ellipsis_rank) break;
        if (equation.find(c) == std::string::npos) fresh += c;
    }
    if (fresh.size() < ellipsis_rank) b.refuse("leaves no letters for its ellipsis");
    for (size_t k = 0; k < terms.size(); ++k) {
        const size_t at = terms[k].find("...");
        if (at != std::string::npos) terms[k].replace(at, 3, fresh.substr(ellipsis_rank - ellipsis_of[k]));
    }
    if (const size_t at = output.find("..."); at != std::string::npos) output.replace(at, 3, fresh);
    std::vector<Lettered> operands;
    for (size_t k = 0; k < terms.size(); ++k) {
        const auto sizes = static_sizes_of(b, tensors[k]);
        if (sizes.size() != terms[k].size()) b.refuse("has a term that does not match its operand's rank");
        operands.push_back(diagonals_taken(b, {tensors[k], terms[k], sizes}));
    }
    Lettered result = operands[0];
    for (size_t k = 1; k < operands.size(); ++k) {
        std::string later = output;
        for (size_t j = k + 1; j < operands.size(); ++j) later += operands[j].letters;
        result = contract(b, result, operands[k], later);
    }
    result = sum_out(b, result, output);
    if (result.letters.size() != output.size()) b.refuse("has an output letter that no operand has");
    const Lettered final_order = permuted_to(b, result, output);
    // A sum made int64 where eager's einsum took a path without one (and kept int32): the same
    // values modulo 2**32.
    const DType wanted = b.output_meta().dtype;
    b.output_is(0, b.meta(final_order.tensor).dtype == wanted ? final_order.tensor : to_dtype(b, final_order.tensor, wanted));
}

}  // namespace

PT2OV_DECOMPOSITION("aten.einsum.default", einsum);
PT2OV_DECOMPOSITION("aten.linalg_vector_norm.default", vector_norm);
PT2OV_DECOMPOSITION("aten.trapezoid.x", [](Builder& b) { trapezoid(b, true, false); });
PT2OV_DECOMPOSITION("aten.trapezoid.dx", [](Builder& b) { trapezoid(b, false, false); });
PT2OV_DECOMPOSITION("aten.trapz.x", [](Builder& b) { trapezoid(b, true, false); });
PT2OV_DECOMPOSITION("aten.trapz.dx", [](Builder& b) { trapezoid(b, false, false); });
PT2OV_DECOMPOSITION("aten.cumulative_trapezoid.x", [](Builder& b) { trapezoid(b, true, true); });
PT2OV_DECOMPOSITION("aten.cumulative_trapezoid.dx", [](Builder& b) { trapezoid(b, false, true); });
PT2OV_DECOMPOSITION("aten.renorm.default", renorm);
PT2OV_DECOMPOSITION("aten.var.default", [](Builder& b) { variance(b, "aten.var.correction", false); });
PT2OV_DECOMPOSITION("aten.var.dim", [](Builder& b) { variance(b, "aten.var.correction", true); });
PT2OV_DECOMPOSITION("aten.std.default", [](Builder& b) { variance(b, "aten.std.correction", false); });
PT2OV_DECOMPOSITION("aten.var_mean.default", [](Builder& b) { variance(b, "aten.var_mean.correction", false); });
PT2OV_DECOMPOSITION("aten.var_mean.dim", [](Builder& b) { variance(b, "aten.var_mean.correction", true); });
PT2OV_DECOMPOSITION("aten.std_mean.default", [](Builder& b) {
    std_mean(b, none_arg(), correction_of(b.arg(1, "unbiased").bool_value), bool_arg(false));
});
PT2OV_DECOMPOSITION("aten.std_mean.dim", [](Builder& b) {
    std_mean(b, b.arg(1, "dim"), correction_of(b.arg(2, "unbiased").bool_value), b.arg(3, "keepdim"));
});
PT2OV_DECOMPOSITION("aten.std_mean.correction", [](Builder& b) {
    const Argument correction = b.arg(2, "correction");
    std_mean(b, b.arg(1, "dim"), correction.kind == Kind::None ? int_arg(1) : correction, b.arg(3, "keepdim"));
});
PT2OV_DECOMPOSITION("aten.var.correction", [](Builder& b) { corrected_variance(b, false, false); });
PT2OV_DECOMPOSITION("aten.std.correction", [](Builder& b) { corrected_variance(b, true, false); });
PT2OV_DECOMPOSITION("aten.var_mean.correction", [](Builder& b) { corrected_variance(b, false, true); });
PT2OV_DECOMPOSITION("aten.max.dim", [](Builder& b) { max_min_dim(b, true); });
PT2OV_DECOMPOSITION("aten.min.dim", [](Builder& b) { max_min_dim(b, false); });
PT2OV_DECOMPOSITION("aten.aminmax.default", aminmax);
PT2OV_DECOMPOSITION("aten.count_nonzero.default", count_nonzero);
PT2OV_DECOMPOSITION("aten.count_nonzero.dim_IntList", count_nonzero);
PT2OV_DECOMPOSITION("aten.nansum.default", nansum);
PT2OV_DECOMPOSITION("aten.nanmean.default", nanmean);
PT2OV_DECOMPOSITION("aten.isclose.default", isclose);
PT2OV_DECOMPOSITION("aten.dist.default", dist);
PT2OV_DECOMPOSITION("aten.linalg_norm.default", [](Builder& b) { linalg_norm(b, false); });
PT2OV_DECOMPOSITION("aten.linalg_norm.ord_str", [](Builder& b) { linalg_norm(b, true); });
PT2OV_DECOMPOSITION("aten.mv.default", [](Builder& b) { matmul_output(b, b.arg(0, "self"), b.arg(1, "vec")); });
PT2OV_DECOMPOSITION("aten.addmv.default", addmv);
PT2OV_DECOMPOSITION("aten.addr.default", addr);
PT2OV_DECOMPOSITION("aten.addbmm.default", addbmm);
PT2OV_DECOMPOSITION("aten.outer.default", outer_output);
PT2OV_DECOMPOSITION("aten.ger.default", outer_output);
PT2OV_DECOMPOSITION("aten.vdot.default", [](Builder& b) { product_sum(b, b.arg(0, "self"), b.arg(1, "other"), 0); });
PT2OV_DECOMPOSITION("aten.linalg_vecdot.default", [](Builder& b) {
    product_sum(b, b.arg(0, "x"), b.arg(1, "y"), b.arg(2, "dim").int_value);
});
PT2OV_DECOMPOSITION("aten.tensordot.default", tensordot);
PT2OV_DECOMPOSITION("aten.inner.default", inner);
PT2OV_DECOMPOSITION("aten.kron.default", kron);
PT2OV_DECOMPOSITION("aten.cross.default", cross);
PT2OV_DECOMPOSITION("aten.linalg_cross.default", linalg_cross);
PT2OV_DECOMPOSITION("aten.cosine_similarity.default", cosine_similarity);
PT2OV_DECOMPOSITION("aten.pairwise_distance.default", pairwise_distance);

}  // namespace pt2ov::graph::decompose
