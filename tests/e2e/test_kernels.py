"""The engine's CPU kernels end to end: small PyTorch programs, one per kernel family, whose ops
are kept off OpenVINO with `--cpu-op`, run through `pt2ov run` and compared with PyTorch eager.

Every family runs as exported (training IR) and after `ep.run_decompositions()` (core ATen),
over the dtypes its kernels claim, with inputs made non-contiguous inside the program
(transposed, channels-last, sliced, expanded), whose layout ops are kept on the CPU too so the
kernels really receive those strides. `pt2ov inspect --json` must list every node of the
forced ops in a step of kind "cpu".

Comparisons: integers and bools exactly; copies and conversions bit for bit (NaN payloads
aside for conversions); float32/float64 results within rtol 1e-4, atol 1e-5; float16 and
bfloat16 results within one unit in the last place of their type (rtol 2**-10, 2**-7), since
PyTorch computes those in float and rounds once, and a transcendental's last float bit may
round the other way.
"""
from __future__ import annotations

import dataclasses
import json
import math
import pathlib
import warnings
from typing import Callable

import numpy as np
import pytest
import torch

from conftest import cpu_flags, describe, run_cli, run_engine_in
from tests.models.compare import assert_output_matches, to_numpy

MODES = ("exported", "decomposed")

TOLERANCE = {
    torch.float32: (1e-4, 1e-5),
    torch.float64: (1e-4, 1e-5),
    torch.float16: (2.0**-10, 1e-5),
    torch.bfloat16: (2.0**-7, 1e-5),
}

ALL_DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.uint16, torch.int32, torch.int64,
              torch.float16, torch.bfloat16, torch.float32, torch.float64)
FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


# --- inputs -----------------------------------------------------------------------------------
def sample(dtype: torch.dtype, shape, seed: int, *, specials: bool = True, low=None, high=None) -> torch.Tensor:
    """Deterministic values of `dtype`; with `specials`, the first elements are the values that
    break careless code (-0.0, NaN, inf, subnormals, the type's extremes, int64 beyond 2**31)."""
    g = torch.Generator().manual_seed(seed)
    n = math.prod(shape)
    if dtype == torch.bool:
        return (torch.rand(shape, generator=g) > 0.5)
    if dtype.is_floating_point:
        lo, hi = (-4.0 if low is None else low), (4.0 if high is None else high)
        t = (torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
        if specials:
            info = torch.finfo(dtype)
            extra = [-0.0, math.nan, math.inf, -math.inf, info.smallest_normal / 4, -info.tiny, info.max, 1e-3]
            flat = t.flatten()
            flat[: min(n, len(extra))] = torch.tensor(extra[:n], dtype=torch.float64).to(dtype)
            t = flat.reshape(shape)
        return t
    info = torch.iinfo(dtype)
    lo = max(info.min, -100) if low is None else low
    hi = min(info.max, 100) if high is None else high
    t = torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(dtype)
    if specials:
        extra = [info.min, info.max, 0, 1]
        if dtype == torch.int64:
            extra += [2**40 + 1, -(2**40) - 3, 2**31, -(2**31) - 1]
        flat = t.flatten()
        flat[: min(n, len(extra))] = torch.tensor(extra[:n], dtype=torch.int64).to(dtype)
        t = flat.reshape(shape)
    return t


# --- families ---------------------------------------------------------------------------------
@dataclasses.dataclass
class Family:
    name: str
    module: Callable[[], torch.nn.Module]
    inputs: Callable[[], tuple]
    cpu_ops: tuple[str, ...]  # passed as --cpu-op; also the ops inspect must show on the CPU
    compare: str = "tolerance"  # "tolerance", "bits" (copies) or "values" (conversions: NaN payloads aside)
    absent: dict = dataclasses.field(default_factory=dict)  # mode -> cpu_ops that mode's graph lacks
    dynamic_shapes: Callable[[], object] | None = None
    more_calls: Callable[[], list[tuple]] | None = None  # inputs of further calls on one loaded program
    modes: tuple[str, ...] = MODES


class Lambda(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def flat(*parts):
    """Outputs as one flat tuple (lists and tuples inside are spread)."""
    out = []
    for p in parts:
        out.extend(p if isinstance(p, (list, tuple)) else [p])
    return tuple(out)


# copies: every dtype, bit for bit, in every layout ------------------------------------------
def copies_program(*xs):
    outs = []
    for x in xs:  # [2, 3, 2, 2]
        cl = x.clone(memory_format=torch.channels_last)
        outs += [cl, cl.clone(), x.transpose(1, 3).clone(), x.transpose(0, 1).contiguous(),
                 torch.ops.aten.alias_copy(x.transpose(2, 3)), torch.ops.aten.detach_copy(x), x.detach(), x[:, :],
                 torch.ops.aten.lift_fresh_copy(x), torch.ops.aten.copy(x, x[0, :, :1, :].transpose(1, 2)),
                 x.clone(memory_format=torch.contiguous_format), cl[:, :, ::2].clone()]
    return tuple(outs)


# conversions: every dtype to every other ---------------------------------------------------
def conversions_program(*xs):
    outs = []
    for x in xs:
        outs += [x.to(d) for d in ALL_DTYPES if d != x.dtype]
        outs.append(x.to(torch.float64, memory_format=torch.channels_last))
        outs.append(torch.ops.aten.copy(x, xs[-1]))  # float64 values into x's dtype
    return tuple(outs)


def conversion_inputs():
    # Values every conversion must get right: ties, out-of-range floats (PyTorch's x86
    # truncation rules), int64 beyond float precision.
    floats = torch.tensor([0.5, -0.5, 1.5, 2.5, -2.5, 255.9, 256.0, -129.7, 70000.2, 3e9, -3e9, 1e20, 65519.99,
                           1 + 2**-11 + 2**-40, 1 + 2**-8 + 2**-40, 2049.0, -0.0, math.nan, math.inf, -math.inf,
                           1e-8, 6e-8, 2147483649.0, 33554436.0], dtype=torch.float64)
    xs = []
    for i, d in enumerate(ALL_DTYPES):
        if d.is_floating_point:
            xs.append(floats.to(d).reshape(2, 3, 2, 2))
        elif d == torch.bool:
            xs.append((torch.arange(24) % 3 == 0).reshape(2, 3, 2, 2))
        else:
            xs.append(sample(d, (2, 3, 2, 2), 100 + i))
    return tuple(xs[:-1]) + (floats.reshape(2, 3, 2, 2),)


# views ---------------------------------------------------------------------------------------
def views_program(x):  # [2, 3, 4, 5]
    a = torch.ops.aten
    t = x.transpose(1, 2)
    return (x.view(6, 20), x.reshape(-1), t.reshape(2, -1), x.permute(3, 2, 1, 0), x[0, 0].t(), x.unsqueeze(1),
            x[:, :1].squeeze(1), x[:1].squeeze(), x[:1, :, :1].squeeze((0, 2)), x[:, 1:, -3:100:2], x[:, :, 10:],
            x.select(1, -1), x.flatten(1), t.flatten(), x[..., None].expand(-1, -1, -1, -1, 3), x.expand(2, 3, 4, 5),
            a.permute_copy(t, [1, 0, 2, 3]), a.expand_copy(x[:, :1], [2, 3, 4, 5]), a.view_copy(x, [6, 20]),
            a._unsafe_view(x, [2, 60]), a.unsqueeze_copy(t, 0), a.slice_copy(t, 3, 1, 4), a.select_copy(t, 2, 1),
            a.t_copy(x[0, 0]), a.transpose_copy(x, 0, 3), a.squeeze_copy(x[:1]), t.view(-1, 4, 3, 5)[0] + 0,
            a.alias(t), x.detach().transpose(0, 1))


# What run_decompositions() turns into other ops (copies become clone + view, and so on).
VIEWS_ABSENT = {"exported": ("aten.clone",),
                "decomposed": ("aten.reshape", "aten.transpose", "aten.t", "aten.flatten", "aten.expand_copy",
                               "aten._unsafe_view", "aten.unsqueeze_copy", "aten.t_copy", "aten.transpose_copy",
                               "aten.squeeze_copy", "aten.detach")}

VIEW_OPS = ("aten.view", "aten.reshape", "aten.permute", "aten.transpose", "aten.t", "aten.unsqueeze", "aten.squeeze",
            "aten.slice", "aten.select", "aten.flatten", "aten.expand", "aten.permute_copy", "aten.expand_copy",
            "aten.view_copy", "aten._unsafe_view", "aten.unsqueeze_copy", "aten.slice_copy", "aten.select_copy",
            "aten.t_copy", "aten.transpose_copy", "aten.squeeze_copy", "aten.alias", "aten.detach", "aten.clone")


# cat, stack ---------------------------------------------------------------------------------
def join_program(a, b, c, h, i32, flag):
    return (torch.cat([a, b.transpose(0, 1)], 0), torch.cat([a, c], -1), torch.cat([a, b.t(), c.expand(-1, 3)]),
            torch.cat([h, h.transpose(0, 1)[:, :4]], 1), torch.cat([flag, flag.t()[:4]]),
            torch.stack([a, b.t(), a * 0], -1), torch.stack([i32, i32.t()[:3]]), torch.stack([flag]),
            torch.cat([a[:, :0], a], 1))


# index, index_select ------------------------------------------------------------------------
def index_program(x, i, j, m, k32, data_i64, data_bool):
    xt = x.transpose(0, 1)  # [4, 3, 5], non-contiguous
    return (x[i], x[:, i], x[i, :, j], xt[m], x[:, m[:, 0]], x[i[:, None], i], torch.index_select(xt, 2, k32),
            torch.index_select(x, 0, k32.to(torch.int64)[1:3]), data_i64[i], data_bool[:, j], xt[..., j], x[k32[1:3]],
            xt[i[:2], 1:, j[:2]])


# unary ---------------------------------------------------------------------------------------
FLOAT_UNARY = ("exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan", "atan", "asin", "acos", "sinh", "cosh", "tanh",
               "sigmoid", "erf", "reciprocal", "log1p", "expm1", "log2")
POSITIVE_ONLY = {"log", "sqrt", "rsqrt", "log1p", "log2"}
UNIT_ONLY = {"asin", "acos"}


def unary_program(*xs):
    """xs: per float dtype a general [3, 4] input, a positive one and one in (-1, 1); then an
    int32 and an int64 input."""
    outs = []
    floats, ints = xs[:-2], xs[-2:]
    for g, p, u in zip(floats[0::3], floats[1::3], floats[2::3]):
        g, p, u = g.t(), p.t(), u.t()  # the kernels see transposed inputs
        for name in FLOAT_UNARY:
            arg = p if name in POSITIVE_ONLY else u if name in UNIT_ONLY else g
            outs.append(getattr(torch, name)(arg))
        f = torch.nn.functional
        outs += [torch.neg(g), torch.abs(g), torch.sign(g), torch.relu(g), torch.floor(g), torch.ceil(g),
                 torch.round(g), torch.trunc(g), f.hardtanh(g), f.hardtanh(g, -0.5, 2.0), torch.clamp(g, -1, 1),
                 torch.clamp(g, min=0.25), torch.clamp(g, max=-0.5), f.leaky_relu(g), f.leaky_relu(g, 0.2),
                 f.hardswish(g), f.gelu(g), f.gelu(g, approximate="tanh"), f.silu(g), f.relu6(g),
                 torch.logical_not(g), f.elu(g), f.hardsigmoid(g), torch.round(g, decimals=1),
                 torch.round(g * 100, decimals=-1), torch.clamp(g, min=u, max=p), torch.clamp(g, max=u[0])]
    for n in ints:
        n = n.t()
        outs += [torch.neg(n), torch.abs(n), torch.sign(n), torch.relu(n), torch.clamp(n, -5, 5),
                 torch.clamp(n, min=0.5), torch.bitwise_not(n), torch.logical_not(n), torch.sin(n), torch.sqrt(n.abs()),
                 torch.floor(n), torch.round(n), f.hardtanh(n, -3, 3), ~(n > 0)]
    return tuple(outs)


def unary_inputs():
    xs = []
    for k, d in enumerate(FLOATS):
        xs += [sample(d, (4, 3), 10 + k), sample(d, (4, 3), 20 + k, specials=False, low=0.05, high=5.0),
               sample(d, (4, 3), 30 + k, specials=False, low=-0.95, high=0.95)]
    xs += [sample(torch.int32, (4, 3), 40), sample(torch.int64, (4, 3), 41, specials=False)]
    return tuple(xs)


UNARY_OPS = tuple(f"aten.{n}" for n in FLOAT_UNARY) + (
    "aten.neg", "aten.abs", "aten.sign", "aten.relu", "aten.floor", "aten.ceil", "aten.round", "aten.trunc",
    "aten.hardtanh", "aten.clamp", "aten.leaky_relu", "aten.hardswish", "aten.gelu", "aten.silu", "aten.relu6",
    "aten.logical_not", "aten.bitwise_not", "aten.elu", "aten.hardsigmoid", "aten.t", "aten.permute")


# binary --------------------------------------------------------------------------------------
def arithmetic(a, b):
    """The arithmetic every numeric dtype supports, on a [3, 4] pair (b non-zero)."""
    bt = b.t().t()
    return [a + b, a + bt[0], torch.add(a, b, alpha=2), a - b, torch.sub(a, b[:, :1], alpha=3), a * b, a * 3,
            torch.maximum(a, b), torch.minimum(a, b.t().t()), a + 2, a - 1]


def binary_program(f32a, f32b, f64a, f64b, f16a, f16b, bf16a, bf16b, i64a, i64b, i32a, i32b, i8a, i8b, u8a, u8b,
                   boola, boolb, pos32):
    outs = []
    for a, b in ((f32a, f32b), (f64a, f64b), (f16a, f16b), (bf16a, bf16b)):
        a, b = a.t(), b.t()
        outs += arithmetic(a, b)
        outs += [a / b, a / 3, 1 - a, a * 0.1, torch.div(a, b, rounding_mode="trunc"),
                 torch.div(a, b, rounding_mode="floor"), a // b, a % b, torch.fmod(a, b), a ** 2, a ** 3, a ** -1,
                 torch.atan2(a, b), a + 0.1, torch.remainder(a, 2.5), torch.fmod(a, -1.5), 2 - a * b]
    p = pos32.t()
    outs += [p ** 0.5, p ** -0.5, p ** 1.7, p ** p, 2 ** p, 1.5 ** f32a.t()]
    for a, b in ((i64a, i64b), (i32a, i32b), (i8a, i8b), (u8a, u8b)):
        a, b = a.t(), b.t()
        outs += arithmetic(a, b)
        outs += [a / b, torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"), a // b,
                 a // 3, a % b, a % -4, torch.fmod(a, b), a & b, a | b, a ^ b, a & 6, a | 1, torch.bitwise_xor(a, 3),
                 a * 2.5, a + 0.5, torch.logical_and(a, b), torch.logical_or(a, a - 1), torch.logical_xor(a, b),
                 (a % 5) ** 2, a ** (b.abs() % 4), 1 - a]
    a, b = boola.t(), boolb.t()
    outs += [a + b, a * b, torch.maximum(a, b), torch.minimum(a, b), a & b, a | b, a ^ b, torch.logical_xor(a, b),
             a + 1, a * 2.5, torch.logical_and(a, f32a.t())]
    return tuple(outs)


def binary_inputs():
    out = []
    for k, d in enumerate((torch.float32, torch.float64, torch.float16, torch.bfloat16)):
        a = sample(d, (4, 3), 50 + k)
        b = sample(d, (4, 3), 60 + k, specials=False, low=0.5, high=3.0) * torch.tensor([1.0, -1.0, 1.0], dtype=d)
        out += [a, b]
    for k, d in enumerate((torch.int64, torch.int32, torch.int8, torch.uint8)):
        a = sample(d, (4, 3), 70 + k)
        b = sample(d, (4, 3), 80 + k, specials=False, low=1, high=9)
        if d != torch.uint8:
            b = b * torch.tensor([1, -1, 1], dtype=d)
        out += [a, b]
    out += [sample(torch.bool, (4, 3), 90), sample(torch.bool, (4, 3), 91),
            sample(torch.float32, (4, 3), 92, specials=False, low=0.1, high=3.0)]
    return tuple(out)


BINARY_OPS = ("aten.add", "aten.sub", "aten.rsub", "aten.mul", "aten.div", "aten.floor_divide", "aten.remainder",
              "aten.fmod", "aten.pow", "aten.maximum", "aten.minimum", "aten.bitwise_and", "aten.bitwise_or",
              "aten.bitwise_xor", "aten.__and__", "aten.__or__", "aten.__xor__", "aten.logical_and", "aten.logical_or",
              "aten.logical_xor", "aten.atan2", "aten.t", "aten.permute")


# comparisons ---------------------------------------------------------------------------------
def compare_program(f, g, h, i, j, b):
    ft, it = f.t(), i.t()
    outs = []
    for x, y in ((ft, g.t()), (it, j.t()), (ft, it), (h.t(), ft), (b.t(), it)):
        outs += [x == y, x != y, x < y, x <= y, x > y, x >= y]
    outs += [ft == 1, ft != 0.5, ft < 0, it <= 2, it > 2.5, h.t() >= 0.1, h.t() < 0.1, b.t() == 1, it == 2**40 + 1,
             ft > it[0], torch.eq(it, torch.tensor(3))]
    return tuple(outs)


COMPARE_OPS = ("aten.eq", "aten.ne", "aten.lt", "aten.le", "aten.gt", "aten.ge", "aten.t", "aten.permute")


# where, masked_fill --------------------------------------------------------------------------
def where_program(c, x, y, n, h):
    ct, xt = c.t(), x.t()
    return (torch.where(ct, xt, y.t()), torch.where(ct, xt, 0.0), torch.where(ct, 1.0, xt), torch.where(ct, 1, 0),
            torch.where(ct, n.t(), xt), torch.where(ct[:, :1], n.t(), -1), torch.where(ct, h.t(), 0.1),
            xt.masked_fill(ct, -1.5), xt.masked_fill(ct[0], torch.tensor(2.0)), n.t().masked_fill(ct, 7),
            h.t().masked_fill(ct, 0.1), c.masked_fill(c, False))


# reductions ----------------------------------------------------------------------------------
def reduce_program(x, d, h, n, flags, u8):
    cl = x.contiguous(memory_format=torch.channels_last)  # [2, 3, 4, 5]
    t = x.transpose(1, 3)
    outs = [cl.sum(), cl.sum((2, 3)), cl.sum(1, keepdim=True), t.sum(-1), cl.sum(dtype=torch.float64),
            cl.mean(), cl.mean((0, 2)), t.mean(1, keepdim=True), cl.prod(1), cl.amax((1, 3)), t.amin(0),
            cl.amax(), cl.max(), t.min(), cl.argmax(), t.argmin(2), cl.argmax(1, keepdim=True),
            *cl.max(2), *t.min(1, keepdim=True), d.t().sum(0), d.t().prod(), d.t().amax(1), h.t().sum(1),
            h.t().mean(), h.t().amax(0), *h.t().max(1), n.t().sum(0), n.t().sum(), n.t().prod(1), n.t().amax(0),
            n.t().argmax(0), *n.t().min(1), n.t().mean(0, dtype=torch.float64), n.t().sum(1, dtype=torch.int32),
            flags.t().any(), flags.t().all(), flags.t().any(1), flags.t().all(0, keepdim=True), flags.t().sum(),
            u8.t().any(0), u8.t().all(), torch.any(flags.t(), dim=(0, 1)), n.t().to(torch.bool).all(1)]
    return tuple(outs)


REDUCE_OPS = ("aten.sum", "aten.mean", "aten.prod", "aten.amax", "aten.amin", "aten.max", "aten.min",
              "aten.argmax", "aten.argmin", "aten.any", "aten.all", "aten.t", "aten.permute", "aten.transpose",
              "aten.clone")


# matmul --------------------------------------------------------------------------------------
class MatmulProgram(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(5)
        self.linear = torch.nn.Linear(4, 5)
        self.plain = torch.nn.Linear(4, 3, bias=False)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g))

    def forward(self, a, b, c, v, n, m, d, h, g):
        at = a.t()  # [4, 3] transposed view
        return (torch.mm(at.t(), b), torch.mm(at, a), torch.bmm(c, c.transpose(1, 2)),
                torch.addmm(b[0], at.t(), b, beta=0.5, alpha=2.0), torch.addmm(b[:, 0:1].t(), a, b),
                a @ b, v @ b, b @ v, v @ v, c @ b, c @ v, c.unsqueeze(0) @ c.transpose(1, 2), a @ c,
                self.linear(a), self.plain(c), self.linear(v),
                torch.mm(n, m), n @ m.t().t(), torch.bmm(n.unsqueeze(0), m.unsqueeze(0)), d @ d.t(),
                h @ h.t(), torch.mm(g.t(), g), torch.addmm(g[0], g, g.t().t()[:, :3]),
                # addends that broadcast: a 0-d one and a column
                torch.addmm(b[0, 0], a, b), torch.addmm(a[:, 0:1], a, b, beta=-1.5))


MATMUL_OPS = ("aten.mm", "aten.bmm", "aten.addmm", "aten.matmul", "aten.linear", "aten.t", "aten.transpose",
              "aten.permute", "aten.view", "aten._unsafe_view", "aten.unsqueeze", "aten.squeeze", "aten.expand",
              "aten.clone")


# softmax -------------------------------------------------------------------------------------
def softmax_program(x, h, d, b):
    cl = x.contiguous(memory_format=torch.channels_last)
    return (torch.softmax(cl, 1), torch.log_softmax(cl, -1), torch.softmax(x.transpose(0, 2), 0),
            torch.log_softmax(h.t(), 1), torch.log_softmax(h.t(), 0), torch.softmax(h.t(), 0), torch.softmax(h, 1),
            torch.softmax(d, 0), torch.log_softmax(d, 1), torch.softmax(x * 1000, 2), torch.log_softmax(b.t(), -1),
            torch.softmax(b.t(), -1), torch.log_softmax(b, 0))


SOFTMAX_OPS = ("aten.softmax", "aten._softmax", "aten.log_softmax", "aten._log_softmax", "aten.clone", "aten.t",
               "aten.transpose", "aten.permute")


def softmax_dtype_program(x, h):
    # softmax(dtype=...) converts first; the training IR keeps it in softmax.int, whose
    # CPU kernel handles the dtype (the graph rewrite to core ATen must not refuse it when
    # the node runs on the CPU).
    return torch.softmax(x.t(), 1, dtype=torch.float64), torch.log_softmax(h, 0, dtype=torch.float32)


# dense float32: the vectorized loops of the ISA table ----------------------------------------
def dense_float32_program(x, y, z):
    """Dense float32 inputs of 3 x 30001 elements (split over threads, a partial last vector):
    x spans exp's range with the values where results change regime, y and z are plain."""
    return (torch.exp(x), torch.sigmoid(x), torch.tanh(x), x * z, x + z, torch.softmax(y, -1),
            torch.softmax(y * 30, 1), torch.softmax(x, -1), y.sum(-1), y.sum(), y.mean(-1), y.mean(), y.amax(-1),
            y.amax(), x.amax(-1), y * z, y + z)


def dense_float32_inputs():
    x = sample(torch.float32, (3, 30001), 60, specials=False, low=-110.0, high=110.0)
    edges = [88.72283, 88.7229, 88.8, -87.33, -88.72, -88.8, -95.0, -103.9, -104.0, -200.0, 16.6, 17.0, 9.01, -9.02,
             0.625, -0.6249, 1e-30, -1e-30, 0.0, -0.0, math.inf, -math.inf, math.nan]
    x[0, :len(edges)] = torch.tensor(edges, dtype=torch.float32)  # row 0's softmax is NaN, as in PyTorch
    return (x, sample(torch.float32, (3, 30001), 61, specials=False, low=-8.0, high=8.0),
            sample(torch.float32, (3, 30001), 62, specials=False))


# factories and numbers (dynamic shapes) ------------------------------------------------------
def factory_program(x, k):
    n = x.shape[0]
    return (torch.arange(n), torch.arange(1, n, 2), torch.arange(0, n, 0.5), torch.arange(n * 2 - 1, dtype=torch.float16),
            torch.full((n, 2), 1.5), torch.zeros(n), torch.ones(n, dtype=torch.int64), torch.zeros_like(x),
            torch.ones_like(x.t()), torch.full_like(x, 7), torch.full_like(k, -2), x.new_zeros(n), x.new_ones(2),
            x.new_full((n // 2,), 3), torch.zeros(n // 2, n + 1), torch.arange(-n, n, 3), torch.full((2,), n % 3),
            torch.full((n, n), True), torch.full((2,), 2**40, dtype=torch.int64) + n, torch.full((1,), -n),
            torch.scalar_tensor(1.5) * x.sum(), torch.zeros(n, 2, dtype=torch.bool), torch.full((2,), n / 2),
            torch.ones(x.numel()), torch.full((1,), x.numel() // 3))


FACTORY_OPS = ("aten.arange", "aten.full", "aten.zeros", "aten.ones", "aten.zeros_like", "aten.ones_like",
               "aten.full_like", "aten.new_zeros", "aten.new_ones", "aten.new_full", "aten.scalar_tensor",
               "aten.sym_size", "aten.sym_numel", "_operator.mul", "_operator.sub", "_operator.floordiv",
               "_operator.mod", "_operator.add", "_operator.neg", "_operator.truediv")


# ExecuTorch's dim order copies, defined here as ExecuTorch defines them ---------------------
_DIM_ORDER_LIB = None


def define_dim_order_ops():
    global _DIM_ORDER_LIB
    if _DIM_ORDER_LIB is not None or hasattr(torch.ops.dim_order_ops, "_clone_dim_order"):
        return  # defined already (here, or by an installed ExecuTorch)
    lib = torch.library.Library("dim_order_ops", "DEF")
    lib.define("_clone_dim_order(Tensor self, *, bool non_blocking=False, int[]? dim_order=None) -> Tensor")
    lib.define("_to_dim_order_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
               "bool? pin_memory=None, bool non_blocking=False, int[]? dim_order=None) -> Tensor")

    def memory_format(dim_order):
        if dim_order is None:
            return torch.preserve_format
        if list(dim_order) == list(range(len(dim_order))):
            return torch.contiguous_format
        if list(dim_order) == [0, 2, 3, 1]:
            return torch.channels_last
        raise AssertionError(dim_order)

    def clone_dim_order(self, *, non_blocking=False, dim_order=None):
        return self.clone(memory_format=memory_format(dim_order))

    def to_dim_order_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
                          dim_order=None):
        return self.to(dtype=dtype or self.dtype, memory_format=memory_format(dim_order), copy=True)

    lib.impl("_clone_dim_order", clone_dim_order, "CompositeExplicitAutograd")
    lib.impl("_to_dim_order_copy", to_dim_order_copy, "CompositeExplicitAutograd")
    _DIM_ORDER_LIB = lib


def dim_order_program(*xs):
    ops = torch.ops.dim_order_ops
    outs = []
    for x in xs:
        outs += [ops._clone_dim_order(x, dim_order=[0, 2, 3, 1]), ops._clone_dim_order(x.transpose(1, 2)),
                 ops._clone_dim_order(x.transpose(1, 2), dim_order=[0, 1, 2, 3]),
                 ops._to_dim_order_copy(x, dtype=torch.float64, dim_order=[0, 2, 3, 1]),
                 ops._to_dim_order_copy(x.transpose(0, 3), dtype=torch.int64), ops._to_dim_order_copy(x)]
    return tuple(outs)


# fmax / fmin ---------------------------------------------------------------------------------
def nan_ignoring_extremum_program(*pairs):
    outs = []
    for k in range(0, len(pairs), 2):
        a, b = pairs[k].t(), pairs[k + 1].t()
        outs += [torch.fmax(a, b), torch.fmin(a, b), torch.fmax(a, b[0]), torch.fmin(b[:, :1], a), torch.fmax(a, a)]
    outs += [torch.fmax(pairs[0].t(), pairs[8].t()), torch.fmin(pairs[10].t(), pairs[2].t())]
    return tuple(outs)


def nan_ignoring_extremum_inputs():
    dtypes = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int8,
              torch.uint8)
    out = []
    for k, d in enumerate(dtypes):
        out += [sample(d, (4, 3), 200 + k), sample(d, (4, 3), 300 + k)]
    return tuple(out)


# ---------------------------------------------------------------------------------------------
def per_dtype(shape, dtypes=ALL_DTYPES, seed=0):
    return tuple(sample(d, shape, seed + k) for k, d in enumerate(dtypes))


FAMILIES = [
    Family("fmax_fmin", lambda: Lambda(nan_ignoring_extremum_program), nan_ignoring_extremum_inputs,
           ("aten.fmax", "aten.fmin", "aten.t", "aten.permute", "aten.select", "aten.slice"),
           absent={"exported": ("aten.permute",), "decomposed": ("aten.t",)}),
    Family("copies", lambda: Lambda(copies_program), lambda: per_dtype((2, 3, 2, 2)),
           ("aten.clone", "aten.alias_copy", "aten.detach_copy", "aten.lift_fresh_copy", "aten.contiguous", "aten.copy",
            "aten.transpose", "aten.permute", "aten.alias", "aten.detach", "aten.slice", "aten.select"),
           compare="bits",
           absent={"exported": ("aten.permute",),
                   "decomposed": ("aten.alias_copy", "aten.lift_fresh_copy", "aten.contiguous", "aten.transpose",
                                  "aten.detach")}),
    Family("conversions", lambda: Lambda(conversions_program), conversion_inputs,
           ("aten.to", "aten._to_copy", "aten.copy"), compare="values",
           absent={"exported": ("aten._to_copy",), "decomposed": ("aten.to",)}),
    Family("views", lambda: Lambda(views_program),
           lambda: (sample(torch.float32, (2, 3, 4, 5), 1),), VIEW_OPS, compare="bits",
           absent=VIEWS_ABSENT),
    Family("views_int64", lambda: Lambda(views_program),
           lambda: (sample(torch.int64, (2, 3, 4, 5), 2),), VIEW_OPS, compare="bits",
           absent=VIEWS_ABSENT),
    Family("join", lambda: Lambda(join_program),
           lambda: (sample(torch.float32, (2, 3), 3), sample(torch.float32, (3, 2), 4), sample(torch.int64, (2, 1), 5),
                    sample(torch.float16, (4, 4), 6), sample(torch.int32, (3, 3), 7), sample(torch.bool, (4, 4), 8)),
           ("aten.cat", "aten.stack", "aten.t", "aten.transpose", "aten.permute", "aten.slice"),
           absent={"exported": ("aten.permute",), "decomposed": ("aten.stack", "aten.t", "aten.transpose")}),
    Family("index", lambda: Lambda(index_program),
           lambda: (sample(torch.float32, (3, 4, 5), 9), torch.tensor([0, -1, 2, 1]), torch.tensor([4, -5, 0, 2]),
                    sample(torch.bool, (4, 3), 10), torch.tensor([4, 0, 1, 3], dtype=torch.int32),
                    sample(torch.int64, (3, 2), 11), sample(torch.bool, (3, 5), 12)),
           ("aten.index", "aten.index_select", "aten.transpose", "aten.permute", "aten.select", "aten.slice",
            "aten.unsqueeze"),
           absent={"exported": ("aten.permute",), "decomposed": ("aten.transpose",)}),
    Family("unary", lambda: Lambda(unary_program), unary_inputs, UNARY_OPS,
           absent={"exported": ("aten.permute",),
                   "decomposed": ("aten.hardswish", "aten.silu", "aten.relu6", "aten.hardsigmoid", "aten.t")}),
    Family("binary", lambda: Lambda(binary_program), binary_inputs, BINARY_OPS,
           absent={"exported": ("aten.bitwise_and", "aten.bitwise_or", "aten.permute"),
                   "decomposed": ("aten.rsub", "aten.floor_divide", "aten.__and__", "aten.__or__", "aten.__xor__",
                                  "aten.t")}),
    Family("compare", lambda: Lambda(compare_program),
           lambda: (sample(torch.float32, (4, 3), 13), sample(torch.float32, (4, 3), 14), sample(torch.float16, (4, 3), 15),
                    sample(torch.int64, (4, 3), 16), sample(torch.int64, (4, 3), 17), sample(torch.bool, (4, 3), 18)),
           COMPARE_OPS, absent={"exported": ("aten.permute",), "decomposed": ("aten.t",)}),
    Family("where", lambda: Lambda(where_program),
           lambda: (sample(torch.bool, (4, 3), 19), sample(torch.float32, (4, 3), 20), sample(torch.float32, (4, 3), 21),
                    sample(torch.int64, (4, 3), 22), sample(torch.float16, (4, 3), 23)),
           ("aten.where", "aten.masked_fill", "aten.t", "aten.permute", "aten.select", "aten.slice"),
           absent={"exported": ("aten.permute",), "decomposed": ("aten.t", "aten.masked_fill")}),
    Family("reduce", lambda: Lambda(reduce_program),
           lambda: (sample(torch.float32, (2, 3, 4, 5), 24, specials=False), sample(torch.float64, (4, 3), 25, specials=False),
                    sample(torch.float16, (4, 3), 26, specials=False), sample(torch.int64, (4, 3), 27),
                    sample(torch.bool, (4, 3), 28), sample(torch.uint8, (4, 3), 29, low=0, high=2)),
           REDUCE_OPS, absent={"exported": ("aten.permute", "aten.clone"), "decomposed": ("aten.all", "aten.t", "aten.transpose")}),
    Family("reduce_nan", lambda: Lambda(lambda x: (x.t().amax(0), x.t().max(1)[0], x.t().argmax(1), x.t().argmin(0),
                                                   x.t().sum(1), x.t().min(), x.t().amin(1))),
           lambda: (torch.tensor([[1.0, math.nan, 3.0], [math.nan, 2.0, 2.0], [-math.inf, 0.0, math.nan]]),),
           ("aten.amax", "aten.amin", "aten.max", "aten.min", "aten.argmax", "aten.argmin", "aten.sum", "aten.t",
            "aten.permute"),
           absent={"exported": ("aten.permute",), "decomposed": ("aten.t",)}),
    Family("matmul", MatmulProgram,
           lambda: (sample(torch.float32, (3, 4), 30, specials=False), sample(torch.float32, (4, 4), 31, specials=False),
                    sample(torch.float32, (2, 4, 4), 32, specials=False), sample(torch.float32, (4,), 33, specials=False),
                    sample(torch.int64, (3, 4), 34, specials=False, low=-2**20, high=2**20),
                    sample(torch.int64, (4, 2), 35, specials=False, low=-2**20, high=2**20),
                    sample(torch.float64, (3, 5), 36, specials=False), sample(torch.float16, (3, 6), 48, specials=False),
                    sample(torch.bfloat16, (3, 3), 49, specials=False)),
           MATMUL_OPS,
           absent={"exported": ("aten.permute", "aten.view", "aten._unsafe_view", "aten.squeeze", "aten.expand",
                                "aten.clone"),
                   "decomposed": ("aten.matmul", "aten.linear", "aten.t", "aten.transpose", "aten._unsafe_view",
                                  "aten.clone")}),
    Family("softmax", lambda: Lambda(softmax_program),
           lambda: (sample(torch.float32, (2, 3, 4, 5), 37, specials=False), sample(torch.float16, (4, 7), 38, specials=False),
                    sample(torch.float64, (3, 4), 39, specials=False), sample(torch.bfloat16, (5, 6), 45, specials=False)),
           SOFTMAX_OPS,
           absent={"exported": ("aten._softmax", "aten._log_softmax", "aten.clone", "aten.permute"),
                   "decomposed": ("aten.softmax", "aten.log_softmax", "aten.t", "aten.transpose")}),
    Family("softmax_dtype", lambda: Lambda(softmax_dtype_program),
           lambda: (sample(torch.float32, (3, 4), 46, specials=False), sample(torch.float16, (3, 4), 47, specials=False)),
           ("aten.softmax", "aten._softmax", "aten.log_softmax", "aten._log_softmax", "aten.t", "aten.permute",
            "aten._to_copy"),
           absent={"exported": ("aten._softmax", "aten._log_softmax", "aten.permute", "aten._to_copy"),
                   "decomposed": ("aten.softmax", "aten.log_softmax", "aten.t")}),
    Family("dense_float32", lambda: Lambda(dense_float32_program), dense_float32_inputs,
           ("aten.exp", "aten.sigmoid", "aten.tanh", "aten.mul", "aten.add", "aten.softmax", "aten._softmax",
            "aten.sum", "aten.mean", "aten.amax"),
           absent={"exported": ("aten._softmax",), "decomposed": ("aten.softmax",)}),
    Family("factory", lambda: Lambda(factory_program),
           lambda: (sample(torch.float32, (4, 3), 40), sample(torch.int32, (2,), 41)),
           FACTORY_OPS,
           dynamic_shapes=lambda: (({0: torch.export.Dim("n", min=4, max=16)}, None),),
           more_calls=lambda: [(sample(torch.float32, (7, 3), 42), sample(torch.int32, (2,), 43))],
           absent={"decomposed": ("aten.zeros", "aten.ones", "aten.zeros_like", "aten.ones_like", "aten.new_zeros",
                                  "aten.new_ones", "aten.new_full", "aten.sym_numel")}),
    Family("dim_order", lambda: (define_dim_order_ops(), Lambda(dim_order_program))[1],
           lambda: per_dtype((2, 3, 2, 2), (torch.float32, torch.int64, torch.float16, torch.bool, torch.uint16), 44),
           ("dim_order_ops._clone_dim_order", "dim_order_ops._to_dim_order_copy", "aten.transpose", "aten.permute"),
           compare="bits", absent={"exported": ("aten.permute",), "decomposed": ("aten.transpose",)}),
]


# --- running ----------------------------------------------------------------------------------
def op_matches(op: str, target: str) -> bool:
    """As the engine matches --cpu-op: the full target, or the op without its overload."""
    return op == target or (target.startswith(op + ".") and "." not in target[len(op) + 1:])


def cpu_op_args(family: Family) -> list[str]:
    return [arg for op in family.cpu_ops for arg in ("--cpu-op", op)]


@dataclasses.dataclass
class Exported:
    path: pathlib.Path
    module: torch.nn.Module


@pytest.fixture(scope="session")
def exported_families(tmp_path_factory):
    """(family name, mode) -> the saved program and the module it came from; each family is
    exported once per session and decomposed once."""
    root = tmp_path_factory.mktemp("kernels")
    cache: dict[tuple[str, str], Exported] = {}
    by_family: dict[str, tuple[torch.export.ExportedProgram, torch.nn.Module]] = {}

    def get(family: Family, mode: str) -> Exported:
        key = (family.name, mode)
        if key not in cache:
            if family.name not in by_family:
                module = family.module().eval()
                dynamic = family.dynamic_shapes() if family.dynamic_shapes else None
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    by_family[family.name] = (torch.export.export(module, family.inputs(), dynamic_shapes=dynamic), module)
            ep, module = by_family[family.name]
            if mode == "decomposed":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ep = ep.run_decompositions()
            path = root / f"{family.name}-{mode}.pt2"
            torch.export.save(ep, str(path))
            cache[key] = Exported(path, module)
        return cache[key]

    return get


def flatten_outputs(out) -> list[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out]
    result = []
    for item in out:
        result.extend(flatten_outputs(item))
    return result


def assert_same_values(actual: np.ndarray, expected: torch.Tensor, label: str) -> None:
    """Equal values and dtypes; floats bit for bit except that any NaN matches any NaN."""
    want = to_numpy(expected)
    assert actual.dtype == want.dtype, f"{label}: dtype {actual.dtype}, expected {want.dtype}"
    assert actual.shape == want.shape, f"{label}: shape {actual.shape}, expected {want.shape}"
    if want.dtype.kind != "f":
        assert np.array_equal(actual, want), f"{label}: got {actual.ravel()}, expected {want.ravel()}"
        return
    nan_a, nan_e = np.isnan(actual), np.isnan(want)
    assert np.array_equal(nan_a, nan_e), f"{label}: NaN at {np.argwhere(nan_a != nan_e)[:5].tolist()}"
    uint = {2: np.uint16, 4: np.uint32, 8: np.uint64}[actual.dtype.itemsize]
    same = actual.view(uint)[~nan_a] == want.view(uint)[~nan_e]
    if not same.all():
        where = np.argwhere(~nan_a)[~same][:5].tolist()
        raise AssertionError(f"{label}: values differ at {where}: got {actual[~nan_a][~same][:5]}, "
                             f"expected {want[~nan_e][~same][:5]}")


def compare_outputs(family: Family, actual: list[np.ndarray], expected: list[torch.Tensor], label: str) -> None:
    assert len(actual) == len(expected), f"{label}: {len(actual)} outputs, PyTorch returns {len(expected)}"
    for i, (a, e) in enumerate(zip(actual, expected)):
        where = f"{label} output {i}"
        if family.compare == "values":
            assert_same_values(a, e, where)
            continue
        rtol, atol = TOLERANCE.get(e.dtype, (0.0, 0.0))
        assert_output_matches(a, e, rtol=rtol, atol=atol, exact=family.compare == "bits", label=where)


def placement(path: pathlib.Path, family: Family) -> list[dict]:
    proc = run_cli(["inspect", path, "--json", *cpu_op_args(family)])
    assert proc.returncode == 0, describe(proc)
    doc = json.loads(proc.stdout)
    return doc["methods"]["forward"]["steps"]


def assert_forced_ops_on_cpu(path: pathlib.Path, family: Family, mode: str) -> None:
    """Every node of a --cpu-op op is in a "cpu" step, and every op the family forces is in
    the program (unless the family says this mode's graph lacks it)."""
    seen = set()
    for step in placement(path, family):
        for node in step["nodes"]:
            for op in family.cpu_ops:
                if op_matches(op, node["target"]):
                    assert step["kind"] == "cpu", (
                        f"node {node['name']} ({node['target']}) is in a {step['kind']} step despite --cpu-op {op}")
                    seen.add(op)
    expected = set(family.cpu_ops) - set(family.absent.get(mode, ()))
    assert expected <= seen, f"{mode} program has no node of {sorted(expected - seen)} (it has {sorted(seen)})"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_kernel_family(family: Family, mode: str, exported_families, tmp_path):
    check_family(family, mode, exported_families, tmp_path)


def check_family(family: Family, mode: str, exported_families, tmp_path) -> None:
    """Runs one family in one mode: its forced ops on the CPU, every call equal to eager.
    Kernel families kept in files of their own (tests/e2e/test_kernels_*.py) import this, the
    `exported_families` fixture and `sample`, and parametrize their own test over MODES."""
    program = exported_families(family, mode)
    assert_forced_ops_on_cpu(program.path, family, mode)
    calls = [family.inputs()] + (family.more_calls() if family.more_calls else [])
    results = run_engine_in(tmp_path, program.path, calls, cpu_op_args(family))
    with torch.no_grad():
        for k, (args, actual) in enumerate(zip(calls, results)):
            expected = flatten_outputs(program.module(*[a.clone() for a in args]))
            compare_outputs(family, actual, expected, f"{family.name} ({mode}) call {k}")


# --- errors the kernels raise -----------------------------------------------------------------
ERROR_CASES = [
    ("int_floor_divide_by_zero", lambda a, b: a // b, (torch.tensor([1, 2, 3]), torch.tensor([1, 0, 1])),
     ("aten.floor_divide", "aten.div"), "ZeroDivisionError"),
    ("int_remainder_by_zero", lambda a, b: a % b, (torch.tensor([1, 2, 3]), torch.tensor([1, 0, 1])),
     ("aten.remainder",), "ZeroDivisionError"),
    ("index_out_of_bounds", lambda x, i: x[i], (torch.randn(3, 2), torch.tensor([0, 1])),
     ("aten.index",), "out of bounds"),
]


@pytest.mark.parametrize("name,fn,inputs,ops,message", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_kernel_errors_name_the_node(name, fn, inputs, ops, message, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(Lambda(fn), inputs)
    path = tmp_path / f"{name}.pt2"
    torch.export.save(ep, str(path))
    bad = list(inputs)
    if name == "index_out_of_bounds":
        bad[1] = torch.tensor([0, 3])
    np.savez(tmp_path / "in.npz", *[to_numpy(t) for t in bad])
    args = ["run", path, "--inputs", tmp_path / "in.npz", "--outputs", tmp_path / "out.npz"]
    proc = run_cli(args + [a for op in ops for a in ("--cpu-op", op)])
    assert proc.returncode == 2, describe(proc)
    assert message in proc.stderr, describe(proc)
    assert "node " in proc.stderr, describe(proc)
