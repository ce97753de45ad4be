"""The convolution kernel end to end (src/kernels/convolution.cpp): conv1d/2d/3d and
conv_transpose1d/2d/3d over a grid of strides, paddings, dilations, groups, output paddings,
bias or none, batch 0, empty channels, unbatched inputs and strided and channels-last inputs,
forced onto pt2ov's CPU kernel with `--cpu-op` in both program forms and compared with PyTorch
eager (see tests/e2e/test_kernels.py); float16 transposed convolutions also unforced, where
placement sends them to the kernel (HalfTransposedConvolutionInFloat)."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch

from test_kernels import Family, Lambda, MODES, sample, check_family, exported_families  # noqa: F401

F = torch.nn.functional
CONV_NAMES = ("aten.conv1d", "aten.conv2d", "aten.conv3d", "aten.conv_transpose1d", "aten.conv_transpose2d",
              "aten.conv_transpose3d")
# Kept on the CPU too when a program has them, so the kernel receives their strides.
LAYOUT_OPS = ("aten.permute", "aten.transpose", "aten.clone", "aten.contiguous", "aten.slice", "aten.select")


def conv_family(name, module, inputs, exported_ops):
    """A family forcing every convolution onto the kernel: `exported_ops` are the conv ops of the
    exported program, which the decomposed one spells aten.convolution."""
    cpu_ops = ("aten.convolution",) + CONV_NAMES + LAYOUT_OPS
    absent = {"exported": tuple(op for op in cpu_ops if op not in exported_ops),
              "decomposed": CONV_NAMES + LAYOUT_OPS}
    return Family(name, module, inputs, cpu_ops, absent=absent)

FORWARD = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
TRANSPOSED = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}

# (dims, in channels, out channels, kernel, stride, padding, dilation, groups, bias)
FORWARD_GRID = [
    (1, 3, 4, 3, 1, 0, 1, 1, True), (1, 4, 6, 2, 2, 1, 2, 2, False), (1, 6, 6, 5, 3, 2, 1, 6, True),
    (1, 3, 5, 1, 1, 0, 1, 1, True),
    (2, 3, 4, 3, 1, 1, 1, 1, True), (2, 4, 6, (2, 3), (2, 1), (1, 0), (1, 2), 2, False),
    (2, 6, 6, 3, 2, 1, 1, 6, True), (2, 4, 8, 1, 1, 0, 1, 1, True), (2, 4, 8, 1, 2, 0, 1, 2, False),
    (2, 5, 3, (1, 4), 1, (0, 2), (1, 2), 1, True), (2, 2, 4, 3, 3, 2, 2, 2, True),
    (3, 2, 4, 3, 1, 1, 1, 1, True), (3, 4, 4, (1, 2, 3), (2, 1, 2), (0, 1, 1), (2, 1, 1), 2, False),
    (3, 3, 6, 1, 1, 0, 1, 3, True),
]
# (dims, in channels, out channels, kernel, stride, padding, output_padding, dilation, groups, bias)
TRANSPOSED_GRID = [
    (1, 3, 4, 3, 1, 0, 0, 1, 1, True), (1, 4, 6, 3, 2, 1, 1, 1, 2, False), (1, 2, 4, 2, 3, 0, 2, 1, 1, True),
    (1, 3, 2, 3, 1, 1, 1, 2, 1, True),
    (2, 3, 4, 3, 2, 1, 1, 1, 1, True), (2, 4, 6, (2, 3), (2, 1), (1, 0), (0, 0), (1, 2), 2, False),
    (2, 4, 4, 3, 2, 0, 0, 1, 4, True), (2, 4, 8, 1, 1, 0, 0, 1, 1, True), (2, 3, 3, 4, 3, 1, (2, 1), 1, 1, True),
    (3, 2, 4, 3, 2, 1, 1, 1, 1, True), (3, 4, 4, (1, 2, 3), (2, 1, 2), (0, 1, 1), (1, 0, 0), (1, 1, 2), 2, False),
]
SPATIAL = {1: (9,), 2: (7, 6), 3: (5, 4, 6)}


def _tuple(v, dims):
    return v if isinstance(v, tuple) else (v,) * dims


def grid_weights(dtype):
    """Each grid entry's weight, then its bias when it has one."""
    out = []
    for k, (dims, cin, cout, kernel, *_rest, groups, bias) in enumerate(FORWARD_GRID):
        out.append(sample(dtype, (cout, cin // groups) + _tuple(kernel, dims), 300 + 2 * k, specials=False, low=-1, high=1))
        if bias:
            out.append(sample(dtype, (cout,), 301 + 2 * k, specials=False))
    for k, (dims, cin, cout, kernel, *_rest, groups, bias) in enumerate(TRANSPOSED_GRID):
        out.append(sample(dtype, (cin, cout // groups) + _tuple(kernel, dims), 500 + 2 * k, specials=False, low=-1, high=1))
        if bias:
            out.append(sample(dtype, (cout,), 501 + 2 * k, specials=False))
    return out


def grid_keys():
    """The (dims, channels) of the inputs the grid reads."""
    return sorted({(g[0], g[1]) for g in FORWARD_GRID} | {(g[0], g[1]) for g in TRANSPOSED_GRID})


def grid_program(*flat):
    """Every grid entry on a contiguous input, and (2-d and 3-d) on a strided one: its last two
    dims transposed."""
    keys = grid_keys()
    xs = dict(zip(keys, flat[:len(keys)]))
    params = iter(flat[len(keys):])
    outs = []
    for dims, cin, cout, kernel, stride, padding, dilation, groups, bias in FORWARD_GRID:
        x, w = xs[(dims, cin)], next(params)
        b = next(params) if bias else None
        outs.append(FORWARD[dims](x, w, b, stride, padding, dilation, groups))
        if dims > 1:
            outs.append(FORWARD[dims](x.transpose(-1, -2), w, b, stride, padding, dilation, groups))
    for dims, cin, cout, kernel, stride, padding, out_pad, dilation, groups, bias in TRANSPOSED_GRID:
        x, w = xs[(dims, cin)], next(params)
        b = next(params) if bias else None
        outs.append(TRANSPOSED[dims](x, w, b, stride, padding, out_pad, groups, dilation))
        if dims > 1:
            outs.append(TRANSPOSED[dims](x.transpose(-1, -2), w, b, stride, padding, out_pad, groups, dilation))
    return tuple(outs)


def grid_inputs(dtype):
    xs = [sample(dtype, (2, cin) + SPATIAL[dims], 100 + 7 * dims + cin, specials=False, low=-2, high=2)
          for dims, cin in grid_keys()]
    return tuple(xs + grid_weights(dtype))


def grid_family(dtype):
    name = f"conv_grid_{str(dtype).split('.')[-1]}"
    return conv_family(name, lambda: Lambda(grid_program), lambda: grid_inputs(dtype), CONV_NAMES)


# Layouts and edge cases ------------------------------------------------------------------------
def layout_program(x, w3, w1, wd, b, x3, w3d, wt, xe, we, x0):
    cl = x.contiguous(memory_format=torch.channels_last)
    cl3 = x3.contiguous(memory_format=torch.channels_last_3d)
    return (F.conv2d(cl, w3, b, padding=1), F.conv2d(cl, w1, b), F.conv2d(cl, wd, None, 2, 1, 1, 4),
            F.conv2d(x.permute(0, 1, 3, 2), w1), F.conv2d(x[:, :, ::2, 1:], w3, b, stride=(1, 2)),
            F.conv3d(cl3, w3d, None, 1, 1), F.conv_transpose2d(cl, wt, None, 2, 1, 1),
            F.conv2d(x[0], w3, b), F.conv_transpose2d(x[0], wt, None, 2),  # unbatched
            F.conv2d(xe, we, None), F.conv2d(xe, we, b),  # no input channels: zeros, then the bias
            F.conv2d(x0, w3, b, padding=1), F.conv_transpose2d(x0, wt))  # batch 0


def layout_inputs(dtype):
    return (sample(dtype, (2, 4, 6, 7), 1, specials=False), sample(dtype, (4, 4, 3, 3), 2, specials=False, low=-1, high=1),
            sample(dtype, (4, 4, 1, 1), 3, specials=False), sample(dtype, (4, 1, 3, 3), 4, specials=False),
            sample(dtype, (4,), 5, specials=False), sample(dtype, (1, 3, 4, 5, 3), 6, specials=False),
            sample(dtype, (2, 3, 3, 3, 3), 7, specials=False, low=-1, high=1),
            sample(dtype, (4, 3, 3, 3), 8, specials=False, low=-1, high=1),
            torch.zeros((2, 0, 5, 5), dtype=dtype), torch.zeros((4, 0, 3, 3), dtype=dtype),
            torch.zeros((0, 4, 6, 7), dtype=dtype))


def layout_family(dtype):
    name = f"conv_layouts_{str(dtype).split('.')[-1]}"
    return conv_family(name, lambda: Lambda(layout_program), lambda: layout_inputs(dtype),
                       ("aten.conv2d", "aten.conv3d", "aten.conv_transpose2d"))


# Sizes that split over threads: the blocks each thread computes are fixed by the shapes.
def big_program(x, w, b, wd, wt, x1, w1):
    return (F.conv2d(x, w, b, padding=1), F.conv2d(x, wd, None, padding=1, groups=32),
            F.conv_transpose2d(x, wt, b[:16], stride=2, padding=1, output_padding=1), F.conv2d(x1, w1, b))


def big_inputs():
    f = torch.float32
    return (sample(f, (2, 32, 33, 31), 11, specials=False), sample(f, (64, 32, 3, 3), 12, specials=False, low=-0.2, high=0.2),
            sample(f, (64,), 13, specials=False), sample(f, (32, 1, 3, 3), 14, specials=False),
            sample(f, (32, 16, 3, 3), 15, specials=False, low=-0.2, high=0.2),
            sample(f, (3, 64, 40, 40), 16, specials=False), sample(f, (64, 64, 1, 1), 17, specials=False, low=-0.2, high=0.2))


def special_program(x, w, b):
    return F.conv2d(x, w, b, padding=1), F.conv_transpose2d(x, w.transpose(0, 1), b, stride=2)


# Integers: eager's forward CPU kernels take every integer dtype and wrap; its transposed kernel
# takes int64 only.
def integer_program(a, wa, b, wb, c, wc, d, wd, t, wt):
    return (F.conv2d(a, wa, None, 1, 1), F.conv1d(b, wb, None, 2), F.conv3d(c, wc), F.conv2d(d, wd, None, 1, 1, 1, 2),
            F.conv_transpose2d(t, wt, None, 2, 1, 1))


def integer_inputs():
    out = []
    for k, (dtype, x, w) in enumerate([(torch.int64, (2, 3, 5, 4), (4, 3, 3, 3)), (torch.int32, (1, 2, 9), (3, 2, 3)),
                                       (torch.int8, (1, 2, 3, 4, 3), (2, 2, 2, 2, 2)), (torch.uint8, (1, 4, 4, 4), (2, 2, 3, 3)),
                                       (torch.int64, (1, 2, 4, 3), (2, 3, 3, 3))]):
        out += [sample(dtype, x, 40 + 2 * k), sample(dtype, w, 41 + 2 * k, specials=False, low=0 if dtype == torch.uint8 else -5, high=5)]
    return tuple(out)


FAMILIES = ([grid_family(d) for d in (torch.float32, torch.float64, torch.float16, torch.bfloat16)]
            + [layout_family(d) for d in (torch.float32, torch.float64, torch.float16, torch.bfloat16)]
            + [conv_family("conv_threads", lambda: Lambda(big_program), big_inputs, ("aten.conv2d", "aten.conv_transpose2d")),
               conv_family("conv_specials", lambda: Lambda(special_program),
                           lambda: (sample(torch.float32, (1, 2, 5, 5), 21), sample(torch.float32, (3, 2, 3, 3), 22, specials=False),
                                    sample(torch.float32, (3,), 23, specials=False)), ("aten.conv2d", "aten.conv_transpose2d")),
               conv_family("conv_integers", lambda: Lambda(integer_program), integer_inputs, CONV_NAMES[:3] + ("aten.conv_transpose2d",))])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_conv_family(family, mode, exported_families, tmp_path):
    check_family(family, mode, exported_families, tmp_path)
