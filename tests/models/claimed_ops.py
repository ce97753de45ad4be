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
