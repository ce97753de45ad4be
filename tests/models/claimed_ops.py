"""Ops and overloads pt2ov claims that it once refused: each as the smallest program that uses
it, in the overloads PyTorch records for it (Tensor_Scalar, Scalar_Tensor, Tensor; an int or a
float correction; repeats as a constant and as an input). test_zoo runs each as exported and
decomposed, static and, where a dim can vary, dynamic."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register


class _Fn(nn.Module):
    """A function of one tensor as a module (a named argument, so a dynamic dim can be given)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class _Fn2(_Fn):
    def forward(self, x, y):
        return self.fn(x, y)


def _batch():
    return Dim("batch", min=2, max=8)


def _randn(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


# --- var/std with a correction other than 0 and 1 --------------------------------------------
# OpenVINO's converter refuses an integer correction other than 0 or 1 and reads a float one
# (1.5) as 1 (wrong values, exit 0): such nodes are decomposed (src/graph/decompose/reductions.cpp).
def _corrections(x):
    return (
        torch.std(x, (0, 2), correction=2, keepdim=True),
        torch.var(x, 1, correction=1.5),
        *torch.var_mean(x, (0, 2), correction=3),
        *torch.std_mean(x, -1, correction=0.5, keepdim=True),
        torch.var(x, correction=2),
        torch.std(x, 0, correction=6),  # more correction than samples: max(0, N - c) is 0, inf
        torch.std(x, (0, 2), correction=0, keepdim=True), torch.var(x, 1, correction=1),
    )


register(ModelCase(
    "var_std_correction", lambda: _Fn(_corrections).eval(),
    lambda variant: (_randn(900 + variant, 3 + variant, 4, 5) * 3 + 1,),
    dynamic_shapes=({0: _batch()},),
    notes="torch.std(x, (0, 2), correction=2, keepdim=True) was refused in both forms; var with a "
    "float correction converted wrongly on plain OpenVINO.",
))


def _half_correction(x):
    return torch.std(x, (0, 2), correction=2, keepdim=True), torch.var_mean(x, 1, correction=2)


register(ModelCase(
    "var_std_correction_f16", lambda: _Fn(_half_correction).eval(),
    lambda variant: ((_randn(910 + variant, 3, 4, 5) * 3 + 1).half(),),
    rtol=1e-2, atol=1e-3,
    why="float16 results: PyTorch computes in float and rounds once, as the decomposition does; "
    "the mean rounded to float16 may differ by one ulp",
))


# --- bit shifts ------------------------------------------------------------------------------
def _shifts(x, s):
    return (
        torch.bitwise_left_shift(x, 2), torch.bitwise_right_shift(x, 3),  # Tensor_Scalar
        torch.bitwise_left_shift(7, s), torch.bitwise_right_shift(-1000, s),  # Scalar_Tensor
        torch.bitwise_left_shift(x, s), torch.bitwise_right_shift(x, s),  # Tensor
        x << 5, x >> 1, x << s, x >> s,  # __lshift__, __rshift__
        torch.bitwise_left_shift(x, 40), torch.bitwise_right_shift(x, 40),  # past the width
    )


def _shift_inputs(dtype, seed):
    def make(variant):
        g = torch.Generator().manual_seed(seed + variant)
        n = 4 + variant
        x = torch.randint(-(2 ** 20), 2 ** 20, (n, 6), generator=g, dtype=dtype)
        x[0, 0] = torch.iinfo(dtype).min
        x[0, 1] = torch.iinfo(dtype).max
        # shift counts in [-3, 70): negative and past the width included (PyTorch gives 0 to the
        # left and the sign to the right there)
        s = torch.randint(-3, 70, (n, 6), generator=g, dtype=dtype)
        return x, s
    return make


register(ModelCase("bit_shifts_int32", lambda: _Fn2(_shifts).eval(), _shift_inputs(torch.int32, 920),
                   dynamic_shapes=({0: _batch()}, {0: _batch()})))
register(ModelCase("bit_shifts_int64", lambda: _Fn2(_shifts).eval(), _shift_inputs(torch.int64, 930)))


def _shifts_mixed(x, s):
    # int8 values shifted by int64 counts: the result is int64 (PyTorch's promotion)
    return torch.bitwise_left_shift(x, s), x >> s, torch.bitwise_left_shift(x, 3), x >> 9


register(ModelCase(
    "bit_shifts_mixed", lambda: _Fn2(_shifts_mixed).eval(),
    lambda variant: (torch.randint(-128, 128, (3, 4), dtype=torch.int8, generator=torch.Generator().manual_seed(940 + variant)),
                     torch.randint(-2, 12, (3, 4), generator=torch.Generator().manual_seed(941 + variant))),
))


# --- repeat_interleave with a tensor of repeats ----------------------------------------------
class RepeatInterleaveConstant(nn.Module):
    def forward(self, x):
        return torch.repeat_interleave(x, torch.tensor([1, 0, 2]), dim=0), torch.repeat_interleave(x, torch.tensor([2, 1, 3, 0]), dim=1)


register(ModelCase(
    "repeat_interleave_constant_repeats", lambda: RepeatInterleaveConstant().eval(),
    lambda variant: (_randn(950 + variant, 3, 4, 2 + variant),),
    dynamic_shapes=({2: Dim("d", min=2, max=8)},),
    notes="the repeats are a constant tensor of the program; the output's size depends on their values",
))


class RepeatInterleaveInput(nn.Module):
    def forward(self, x, repeats):
        return torch.repeat_interleave(x, repeats, dim=0), torch.repeat_interleave(repeats)


register(ModelCase(
    "repeat_interleave_input_repeats", lambda: RepeatInterleaveInput().eval(),
    lambda variant: (_randn(960 + variant, 3, 4), torch.tensor([1, 0, 2]) + variant),
    notes="the repeats are an input: the output's size is known only at run time",
))


# --- as exported: tile, unbind, einsum with a repeated letter ---------------------------------
def _tile_unbind(x):
    return (x.tile((2, 1, 1, 2)), x.tile((2,)), x.tile((1, 3, 1)), *torch.unbind(x, 1), *x.unbind(-1))


register(ModelCase(
    "tile_and_unbind", lambda: _Fn(_tile_unbind).eval(),
    lambda variant: (_randn(970 + variant, 2 + variant, 3, 2),),
    dynamic_shapes=({0: _batch()},),
))


def _einsum_diagonals(x, y):
    return (
        torch.einsum("ii->i", x), torch.einsum("ii", x), torch.einsum("ii,ij->ij", x, y),
        torch.einsum("bii->bi", y.view(1, 4, 4).expand(2, 4, 4) * 2), torch.einsum("iji->j", y.view(4, 1, 4)),
    )


register(ModelCase(
    "einsum_diagonals", lambda: _Fn2(_einsum_diagonals).eval(),
    lambda variant: (_randn(980 + variant, 4, 4), _randn(981 + variant, 4, 4)),
))


# --- other spellings of ops pt2ov claims (aliases torch.export records as they are written) ----
def _elementwise_spellings(x, i):
    u = x.clamp(0.05, 0.95)  # in (0, 1): every inverse and logit defined
    return (
        torch.arccos(u), torch.arccosh(x + 1), torch.acosh(x + 1.5), torch.arcsin(u), torch.arcsinh(x), torch.asinh(x),
        torch.arctan2(x, x - 0.5), torch.arctanh(u * 0.9), torch.atanh(u * 0.5), torch.absolute(x - 0.5),
        torch.fix(x * 3), torch.frac(x * 3), torch.log10(x + 1), torch.sgn(x - 0.5), torch.positive(x), torch.isfinite(x / (x - x.min())),
        nn.functional.mish(x), torch.special.digamma(x + 1), torch.special.erf(x), torch.special.erfc(x),
        torch.special.erfinv(u - 0.5), torch.special.exp2(x), torch.special.expm1(x), torch.special.gammaln(x + 1),
        torch.special.i0(x), torch.special.log1p(x), torch.special.logit(u), torch.special.round(x * 7),
        torch.special.sinc(x), torch.special.xlogy(x, u),
        torch.clamp_max(x, 0.5), torch.clamp_min(x, 0.5), torch.clip(x, 0.2, 0.7), torch.clip(x, x * 0.5, x * 0.75 + 0.1),
        torch.float_power(x, 2), torch.float_power(2, x), torch.float_power(x, x),
        torch.greater(x, u), torch.greater(x, 0.5), torch.greater_equal(x, 0.5), torch.greater_equal(x, u),
        torch.less(x, 0.3), torch.less(x, u), torch.less_equal(x, u), torch.less_equal(x, 0.2),
        torch.not_equal(x, 0.5), torch.not_equal(x, u),
        torch.divide(x, u), torch.divide(x, 2), torch.divide(x, 2, rounding_mode="floor"), torch.true_divide(x, 2),
        torch.multiply(x, 2), torch.multiply(x, u), torch.subtract(x, 2), torch.subtract(x, u, alpha=2), torch.rsub(x, u),
        torch.remainder(5, i), torch.floor_divide(i, 2), torch.div(i, 2, rounding_mode="trunc"), i ^ 3,
        x.resolve_conj(), x.resolve_neg(), torch.conj_physical(x), x.type_as(i),
        torch.all(x > 0.2, dim=(0, 1)), torch.count_nonzero(i > 4, dim=(0,)),
    )


register(ModelCase(
    "elementwise_spellings", lambda: _Fn2(_elementwise_spellings).eval(),
    lambda variant: (torch.rand(3 + variant, 4, generator=torch.Generator().manual_seed(990 + variant)) + 0.01,
                     torch.randint(1, 9, (3 + variant, 4), generator=torch.Generator().manual_seed(991 + variant))),
    dynamic_shapes=({0: _batch()}, {0: _batch()}),
    notes="aliases (arccos, greater, divide, special_*, ...) are recorded as written: each needs the kernel "
    "or rewrite of its own name",
))


def _shape_spellings(x):
    return (
        torch.atleast_1d(x[0, 0]), *torch.atleast_1d([x[0, 0], x[0]]), *torch.atleast_2d([x[0], x]),
        *torch.atleast_3d([x[0], x]), x.adjoint(), x.mH, *torch.meshgrid(x[0], x[1], indexing="ij"),
        torch.moveaxis(x, (0, 1), (1, 0)), torch.moveaxis(x, 0, 1), torch.movedim(x, 0, 1), torch.row_stack([x, x]),
        torch.swapdims(x, 0, 1), *torch.tensor_split(x, [1, 2], 1), *torch.dsplit(x.view(3, 2, 2), 2),
        *torch.dsplit(x.view(3, 2, 2), [1]), *torch.hsplit(x, 2), *torch.vsplit(x, 3), *torch.vsplit(x, [1]),
        *x.unsafe_chunk(2, 1), *x.unsafe_split(2, 1), torch.ger(x[0], x[1]), torch.trapz(x, x),
        torch.squeeze_copy(x.view(3, 1, 4), 1), torch.squeeze_copy(x.view(3, 1, 4), (1,)),
    )


register(ModelCase(
    "shape_spellings", lambda: _Fn(_shape_spellings).eval(),
    lambda variant: (_randn(1000 + variant, 3, 4),),
))


def _tolerance_tensors(x):
    return (torch.linalg.matrix_rank(x, tol=torch.tensor(0.1)), torch.linalg.pinv(x, rcond=torch.tensor(0.01)),
            torch.linalg.matrix_rank(x), torch.linalg.pinv(x))


register(ModelCase(
    "linalg_tolerance_tensors", lambda: _Fn(_tolerance_tensors).eval(),
    lambda variant: (_randn(1010 + variant, 3, 4) + torch.eye(3, 4) * 3,),
))


def _pads_and_losses(x):
    return (
        nn.functional.pad(x.view(1, 3, 4), (1, 2), mode="circular"),
        nn.functional.pad(x.view(1, 3, 4), (1, 1), mode="replicate"),
        nn.functional.pad(x.view(1, 1, 3, 4), (1, 1, 2, 0), mode="replicate"),
        nn.functional.pad(x.view(1, 1, 1, 3, 4), (1, 1, 1, 0, 1, 1), mode="replicate"),
        nn.functional.nll_loss(x.log_softmax(1), torch.tensor([0, 1, 2])),
        *nn.functional.embedding_bag(torch.tensor([0, 1, 2, 1]), x, torch.tensor([0, 2])).unbind(0),
        nn.functional.conv3d(x.view(1, 1, 1, 3, 4), x.view(1, 1, 1, 3, 4)[..., :2, :2] * 1.0, padding="same"),
    )


register(ModelCase(
    "pads_and_losses", lambda: _Fn(_pads_and_losses).eval(),
    lambda variant: (_randn(1020 + variant, 3, 4),),
))


# --- overloads Python's own spellings never record, called by their ATen names ---------------------
# (torch.export records exactly the overload a program calls; a model calling torch.ops.aten
# directly, or code traced from another front end, gives these)
aten = torch.ops.aten


def _direct_overloads(x, i):
    v = x.view(1, 3, 4)
    return (
        aten.replication_pad1d.default(v, [1, 2]), aten.replication_pad2d.default(v.view(1, 1, 3, 4), [1, 0, 2, 1]),
        aten.replication_pad3d.default(v.view(1, 1, 1, 3, 4), [1, 1, 0, 1, 1, 0]),
        aten._pad_circular.default(v, [1, 2]), aten.matrix_H.default(x), *aten.meshgrid.default([x[0], x[1]]),
        aten.nll_loss.default(x.log_softmax(1), torch.tensor([0, 1, 2])),
        aten.std.default(x), aten.std.default(x, False), aten.var.default(x), *aten.std_mean.default(x, False),
        *aten.std_mean.dim(x, [1], True, True), *aten.var_mean.default(x),
        aten.divide.Scalar(x, 4.0), aten.multiply.Scalar(x, 3), aten.subtract.Scalar(x, 2, 3), aten.true_divide.Scalar(x, 2),
        aten.div.Scalar_mode(x * 5, 2, rounding_mode="floor"), aten.div.Scalar_mode(i, -3, rounding_mode="trunc"),
        aten.floor_divide.Scalar(i, -2),
        aten.linalg_matrix_rank.default(x, 0.5, False), aten.linalg_pinv.default(x, 0.01, False),
        aten.embedding_bag.default(x, torch.tensor([0, 1, 2, 1]), torch.tensor([0, 2]))[0],
        aten._embedding_bag.default(x, torch.tensor([0, 1, 2, 1]), torch.tensor([0, 2]), False, 1)[0],
        aten.dropout.default(x, 0.5, False), aten.feature_dropout.default(v, 0.5, False),
        aten.alpha_dropout.default(x, 0.5, False), aten.feature_alpha_dropout.default(v, 0.5, False),
        torch.empty_like(x).fill_(2.0) + x, x.new_empty((2, 4)).copy_(x[:2]) * 2,
    )


register(ModelCase(
    "direct_overloads", lambda: _Fn2(_direct_overloads).eval(),
    lambda variant: (_randn(1030 + variant, 3, 4) + torch.eye(3, 4) * 3,
                     torch.randint(-9, 9, (3, 4), generator=torch.Generator().manual_seed(1031 + variant))),
))
