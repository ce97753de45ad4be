"""Kernels of composite ops end to end (src/kernels/shuffle_pad.cpp; glu, logaddexp and addcmul in
binary.cpp; rms_norm and batch norm without running statistics in normalization.cpp; baddbmm and
dot in matmul.cpp): each op forced onto pt2ov's CPU kernels with `--cpu-op`, compared with
PyTorch eager (see tests/e2e/test_kernels.py), on random values and, in a second call on the same
loaded program, on inputs holding NaN, +-inf, -0.0, zeros and the type's extremes. Most of these
ops leave the program under ep.run_decompositions(), so their families run as exported only; batch
norm without statistics stays (as _native_batch_norm_legit.no_stats) and runs in both forms.

test_nonfinite_call_is_not_refused: unforced, the same programs take a call with NaN and inf,
which pt2ov's default `--nonfinite-inputs exact` runs wholly on the CPU kernels."""
from __future__ import annotations

import math

import pytest
import torch

from test_kernels import Family, Lambda, MODES, sample, check_family, exported_families  # noqa: F401

F = torch.nn.functional
a = torch.ops.aten
LAYOUT = ("aten.transpose", "aten.permute")


def with_specials(t: torch.Tensor, seed: int) -> torch.Tensor:
    """A floating `t` with zeros, NaN, +inf and -inf at scattered places, beside the specials
    sample() puts first."""
    g = torch.Generator().manual_seed(seed)
    flat = t.clone().flatten()
    where = torch.randperm(flat.numel(), generator=g)[:8]
    flat[where[:2]] = 0.0
    flat[where[2:4]] = math.nan
    flat[where[4:6]] = math.inf
    flat[where[6:]] = -math.inf
    return flat.reshape(t.shape)


def inputs_of(shapes, dtypes, seed, specials, **kw):
    """One input per (shape, dtype); floating ones with specials when asked."""
    out = []
    for k, (shape, dtype) in enumerate(zip(shapes, dtypes)):
        if dtype.is_floating_point:
            t = sample(dtype, shape, seed + k, specials=specials, **kw)
            out.append(with_specials(t, seed + 50 + k) if specials else t)
        else:
            out.append(sample(dtype, shape, seed + k, specials=specials))
    return tuple(out)


def family(name, program, shapes, dtypes, seed, ops, *, compare="tolerance", modes=("exported",), absent=None, **kw):
    return Family(name, lambda: Lambda(program), lambda: inputs_of(shapes, dtypes, seed, False, **kw), ops, compare=compare,
                  absent=absent or {}, more_calls=lambda: [inputs_of(shapes, dtypes, seed + 100, True, **kw)], modes=modes)


# reflection and replication padding ------------------------------------------------------------
def pad_program(x1, x2, x3):
    """x1 [2, 3, 6], x2 [2, 3, 5, 6], x3 [1, 2, 4, 5, 6]. F.pad(mode='reflect') reaches
    reflection_pad{1,2,3}d; replication_pad with a negative pad (a crop) stays as itself (the
    engine's decomposition takes non-negative pads only)."""
    return (F.pad(x1, (2, 3), mode="reflect"), F.pad(x1.transpose(1, 2), (1, 2), mode="reflect"),
            F.pad(x1[0], (5, 1), mode="reflect"), F.pad(x2, (2, 1, 3, 0), mode="reflect"),
            F.pad(x2.transpose(2, 3), (1, 2, 2, 1), mode="reflect"), F.pad(x2[0], (0, 5, 4, 4), mode="reflect"),
            F.pad(x3, (1, 2, 0, 3, 2, 1), mode="reflect"), F.pad(x3.transpose(2, 4), (3, 0, 4, 1, 0, 5), mode="reflect"),
            a.reflection_pad1d(x1, [-1, 2]), a.reflection_pad2d(x2, [-2, 1, 1, -1]),
            a.reflection_pad3d(x3, [2, -1, -1, 1, 0, 2]),
            a.replication_pad1d(x1, [-1, 3]), a.replication_pad1d(x1.transpose(1, 2), [4, -2]),
            a.replication_pad2d(x2, [2, -1, -2, 3]), a.replication_pad2d(x2[0], [-3, 0, 0, 2]),
            a.replication_pad3d(x3, [1, -1, 2, 0, -1, 2]), a.replication_pad3d(x3[0], [-2, 3, 1, -1, 0, 1]))


PAD_SHAPES = ((2, 3, 6), (2, 3, 5, 6), (1, 2, 4, 5, 6))
PAD_OPS = ("aten.pad", "aten.reflection_pad1d", "aten.reflection_pad2d", "aten.reflection_pad3d", "aten.replication_pad1d",
           "aten.replication_pad2d", "aten.replication_pad3d") + LAYOUT
PAD_ABSENT = {"exported": ("aten.permute",)}


# pixel_shuffle, pixel_unshuffle, channel_shuffle, repeat_interleave ------------------------------
def shuffle_program(x, y, z):
    """x [2, 8, 2, 3], y [2, 2, 4, 6], z [2, 6, 2, 3]."""
    return (F.pixel_shuffle(x, 2), F.pixel_shuffle(x.transpose(2, 3), 2), F.pixel_shuffle(x[0], 2), F.pixel_shuffle(x, 1),
            F.pixel_unshuffle(y, 2), F.pixel_unshuffle(y.transpose(2, 3), 2), F.pixel_unshuffle(y[0], 2),
            F.pixel_unshuffle(y.permute(0, 2, 3, 1).permute(0, 3, 1, 2), 2),
            F.channel_shuffle(z, 3), F.channel_shuffle(z, 2), F.channel_shuffle(z.transpose(2, 3), 6), F.channel_shuffle(z[0], 2),
            F.channel_shuffle(z.permute(0, 2, 3, 1).permute(0, 3, 1, 2), 3))


SHUFFLE_SHAPES = ((2, 8, 2, 3), (2, 2, 4, 6), (2, 6, 2, 3))
SHUFFLE_OPS = ("aten.pixel_shuffle", "aten.pixel_unshuffle", "aten.channel_shuffle") + LAYOUT


def repeat_program(x, s):
    """x [2, 3, 4], s [3]."""
    return (x.repeat_interleave(2, dim=1), x.repeat_interleave(3), x.transpose(0, 2).repeat_interleave(2, dim=-1),
            torch.repeat_interleave(x, 1, dim=0), x.repeat_interleave(2, dim=0, output_size=4),
            x.transpose(1, 2).repeat_interleave(3, dim=1), x.repeat_interleave(0, dim=2), s.repeat_interleave(4))


def repeat_nonzero_program(x, s):
    """repeat_program without the repeats of 0: OpenVINO's CPU plugin dies of SIGFPE on
    repeat_interleave(x, 0) (an empty result) when the node is left to it."""
    return (x.repeat_interleave(2, dim=1), x.repeat_interleave(3), x.transpose(0, 2).repeat_interleave(2, dim=-1),
            s.repeat_interleave(4))


REPEAT_SHAPES = ((2, 3, 4), (3,))
REPEAT_OPS = ("aten.repeat_interleave",) + LAYOUT


# glu, logaddexp, addcmul -------------------------------------------------------------------------
def pointwise_program(x, y, v):
    """x, y [3, 4, 6], v [4, 6]."""
    return (F.glu(x), F.glu(x, 1), F.glu(x.transpose(1, 2), 1), F.glu(v, 0),
            torch.logaddexp(x, y), torch.logaddexp(x, v), torch.logaddexp(x.transpose(1, 2), y.transpose(1, 2)),
            torch.logaddexp(v, v),
            torch.addcmul(x, y, v), torch.addcmul(x, y, v, value=0.5), torch.addcmul(v, x, y, value=-3),
            torch.addcmul(x.transpose(1, 2), y.transpose(1, 2), v.t(), value=2.5))


POINTWISE_SHAPES = ((3, 4, 6), (3, 4, 6), (4, 6))
POINTWISE_OPS = ("aten.glu", "aten.logaddexp", "aten.addcmul") + LAYOUT


def int_addcmul_program(x, y, v):
    return (torch.addcmul(x, y, v), torch.addcmul(x, y, v, value=-7),
            torch.addcmul(v.t(), x.transpose(1, 2), y.transpose(1, 2)))


# rms_norm, batch norm without running statistics -------------------------------------------------
def rms_program(x, w1, w2):
    """x [3, 4, 6], w1 [6], w2 [4, 6]."""
    return (F.rms_norm(x, (6,)), F.rms_norm(x, (6,), w1), F.rms_norm(x, (4, 6), w2, eps=1e-3),
            F.rms_norm(x.transpose(1, 2), (4,), eps=0.5), F.rms_norm(x, (3, 4, 6)), F.rms_norm(x[0], (6,), w1, eps=1e-6))


RMS_SHAPES = ((3, 4, 6), (6,), (4, 6))


def batch_norm_program(x, w, b, x2):
    """x [2, 3, 4, 5], w and b [3], x2 [4, 3]."""
    outs = [F.batch_norm(x, None, None, training=True), F.batch_norm(x, None, None, w, b, training=True, eps=1e-3),
            F.batch_norm(x.transpose(2, 3), None, None, w, None, training=True),
            F.batch_norm(x2, None, None, None, b, training=True)]
    outs += list(a._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5))
    outs += list(a._native_batch_norm_legit.no_stats(x2, None, None, True, 0.1, 0.5))
    return tuple(outs)


BN_SHAPES = ((2, 3, 4, 5), (3,), (3,), (4, 3))
BN_OPS = ("aten.batch_norm", "aten._native_batch_norm_legit") + LAYOUT
BN_ABSENT = {"exported": ("aten.permute",), "decomposed": ("aten.batch_norm", "aten.transpose")}


# baddbmm, dot ------------------------------------------------------------------------------------
def products_program(s, b1, b2, row, u, v):
    """s [2, 3, 4], b1 [2, 3, 5], b2 [2, 5, 4], row [4], u and v [7]."""
    return (torch.baddbmm(s, b1, b2), torch.baddbmm(s, b1, b2, beta=0.5, alpha=2),
            torch.baddbmm(s, b1, b2, beta=0),  # self ignored, NaN in it included
            torch.baddbmm(row, b1, b2, alpha=-1),
            torch.baddbmm(s.transpose(1, 2).transpose(1, 2), b1, b2.transpose(1, 2).transpose(1, 2), beta=2),
            torch.dot(u, v), torch.dot(u, u), torch.dot(b1[0, 0], b2[0, :, 1]))


PRODUCTS_SHAPES = ((2, 3, 4), (2, 3, 5), (2, 5, 4), (4,), (7,), (7,))
PRODUCTS_OPS = ("aten.baddbmm", "aten.dot")


def int_products_program(s, b1, b2, row, u, v):
    return (torch.baddbmm(s, b1, b2), torch.baddbmm(s, b1, b2, beta=3, alpha=-2), torch.baddbmm(row, b1, b2, beta=0),
            torch.dot(u, v))


def dtypes(dtype, count):
    return (dtype,) * count


FAMILIES = [
    family("pad_f32", pad_program, PAD_SHAPES, dtypes(torch.float32, 3), 10, PAD_OPS, compare="bits", absent=PAD_ABSENT),
    family("pad_f16", pad_program, PAD_SHAPES, dtypes(torch.float16, 3), 20, PAD_OPS, compare="bits", absent=PAD_ABSENT),
    family("pad_f64", pad_program, PAD_SHAPES, dtypes(torch.float64, 3), 30, PAD_OPS, compare="bits", absent=PAD_ABSENT),
    family("shuffle_f32", shuffle_program, SHUFFLE_SHAPES, dtypes(torch.float32, 3), 40, SHUFFLE_OPS, compare="bits"),
    family("shuffle_mixed", shuffle_program, SHUFFLE_SHAPES, (torch.bfloat16, torch.int64, torch.float16), 50, SHUFFLE_OPS,
           compare="bits"),
    family("repeat_interleave_f32", repeat_program, REPEAT_SHAPES, dtypes(torch.float32, 2), 60, REPEAT_OPS, compare="bits",
           absent={"exported": ("aten.permute",)}),
    family("repeat_interleave_nonzero_f32", repeat_nonzero_program, REPEAT_SHAPES, dtypes(torch.float32, 2), 65, REPEAT_OPS,
           compare="bits", absent={"exported": ("aten.permute",)}),
    family("repeat_interleave_mixed", repeat_program, REPEAT_SHAPES, (torch.float16, torch.int32), 70, REPEAT_OPS, compare="bits",
           absent={"exported": ("aten.permute",)}),
    family("pointwise_f32", pointwise_program, POINTWISE_SHAPES, dtypes(torch.float32, 3), 80, POINTWISE_OPS,
           absent={"exported": ("aten.permute",)}),
    family("pointwise_f64", pointwise_program, POINTWISE_SHAPES, dtypes(torch.float64, 3), 90, POINTWISE_OPS,
           absent={"exported": ("aten.permute",)}),
    family("pointwise_f16", pointwise_program, POINTWISE_SHAPES, dtypes(torch.float16, 3), 100, POINTWISE_OPS,
           absent={"exported": ("aten.permute",)}),
    family("pointwise_bf16", pointwise_program, POINTWISE_SHAPES, dtypes(torch.bfloat16, 3), 110, POINTWISE_OPS,
           absent={"exported": ("aten.permute",)}),
    family("addcmul_int64", int_addcmul_program, POINTWISE_SHAPES, dtypes(torch.int64, 3), 120, ("aten.addcmul",) + LAYOUT,
           compare="bits", absent={"exported": ("aten.permute",)}),
    family("rms_norm_f32", rms_program, RMS_SHAPES, dtypes(torch.float32, 3), 130, ("aten.rms_norm",) + LAYOUT,
           absent={"exported": ("aten.permute",)}),
    family("rms_norm_f64", rms_program, RMS_SHAPES, dtypes(torch.float64, 3), 140, ("aten.rms_norm",) + LAYOUT,
           absent={"exported": ("aten.permute",)}),
    family("rms_norm_f16", rms_program, RMS_SHAPES, dtypes(torch.float16, 3), 150, ("aten.rms_norm",) + LAYOUT,
           absent={"exported": ("aten.permute",)}),
    family("rms_norm_bf16", rms_program, RMS_SHAPES, dtypes(torch.bfloat16, 3), 160, ("aten.rms_norm",) + LAYOUT,
           absent={"exported": ("aten.permute",)}),
    family("batch_norm_no_stats_f32", batch_norm_program, BN_SHAPES, dtypes(torch.float32, 4), 170, BN_OPS, modes=MODES,
           absent=BN_ABSENT),
    family("batch_norm_no_stats_f64", batch_norm_program, BN_SHAPES, dtypes(torch.float64, 4), 180, BN_OPS, modes=MODES,
           absent=BN_ABSENT),
    family("products_f32", products_program, PRODUCTS_SHAPES, dtypes(torch.float32, 6), 190, PRODUCTS_OPS),
    family("products_f64", products_program, PRODUCTS_SHAPES, dtypes(torch.float64, 6), 200, PRODUCTS_OPS),
    family("products_int64", int_products_program, PRODUCTS_SHAPES, dtypes(torch.int64, 6), 210, PRODUCTS_OPS, compare="bits"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_composite_family(family, mode, exported_families, tmp_path):
    if mode not in family.modes:
        pytest.skip(f"{family.name} does not run {mode}")
    check_family(family, mode, exported_families, tmp_path)


# --- a call with NaN and inf, unforced: routed to the CPU kernels, no longer refused ---------------
NONFINITE = [f for f in FAMILIES if f.name.endswith("_f32") and f.name != "repeat_interleave_f32"]


@pytest.mark.parametrize("family", NONFINITE, ids=[f.name for f in NONFINITE])
def test_nonfinite_call_is_not_refused(family, exported_families, tmp_path):
    from conftest import run_engine_in
    from test_kernels import compare_outputs, flatten_outputs

    program = exported_families(family, "exported")
    call = family.more_calls()[0]
    assert any(torch.isnan(t).any() for t in call if t.is_floating_point())
    (actual,) = run_engine_in(tmp_path, program.path, [call])
    with torch.no_grad():
        expected = flatten_outputs(program.module(*[t.clone() for t in call]))
    compare_outputs(family, actual, expected, f"{family.name} unforced, NaN inputs")
