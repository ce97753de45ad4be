"""CPU kernels for scans, order statistics, sets and histograms, end to end against PyTorch
eager (the machinery of test_kernels.py): cumulative ops, median / mode / sort / quantile,
masked_select and the nonzero family, unique, isin, searchsorted / bucketize, histograms."""
import math

import pytest
import torch

from test_kernels import Family, Lambda, MODES, sample, check_family, exported_families  # noqa: F401

INTEGERS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def ties(dtype, shape, seed):
    """Few distinct values (so equal elements meet), with NaN and infinities for floats."""
    t = sample(torch.int64, shape, seed, specials=False, low=-3, high=3).to(dtype)
    if dtype.is_floating_point:
        flat = t.flatten()
        flat[1], flat[5], flat[7] = math.nan, math.inf, -math.inf
        flat[-2] = math.nan
        t = flat.reshape(shape)
    return t


# cumulative ops --------------------------------------------------------------------------------
SCAN_DTYPES = FLOATS + INTEGERS + (torch.bool,)


def scans_program(*xs):
    outs = []
    for x in xs:  # [5, 4]; the kernels see it transposed
        t = x.permute(1, 0)
        outs += [torch.cumprod(t, 1), torch.cumprod(t, 0), *torch.cummax(t, 1), *torch.cummin(t, 0),
                 *torch.cummax(t[0, 0], 0), torch.cumprod(t[:, :0], 1)]
        if x.dtype.is_floating_point:
            outs += [torch.logcumsumexp(t, 1), torch.logcumsumexp(t, 0), torch.cumprod(t, 1, dtype=torch.float64)]
        else:
            outs += [torch.cumprod(t, 0, dtype=torch.float32)]
    return tuple(outs)


def scans_inputs():
    xs = [ties(d, (5, 4), 1 + k) for k, d in enumerate(SCAN_DTYPES)]
    xs += [sample(d, (5, 4), 30 + k, low=-2.0, high=2.0) for k, d in enumerate(FLOATS)]
    return tuple(xs)


SCAN_OPS = ("aten.cumprod", "aten.cummax", "aten.cummin", "aten.logcumsumexp", "aten.permute")


# masked_select and the nonzero family -----------------------------------------------------------
def selection_program(*xs):
    outs = []
    for x in xs:  # [3, 4]
        t = x.permute(1, 0)
        mask = t > 0 if x.dtype != torch.bool else t
        outs += [torch.masked_select(t, mask), torch.masked_select(t, mask[0]), torch.masked_select(t[0, 0], mask),
                 torch.argwhere(t), torch.argwhere(t[0, 0]), *torch.nonzero(t, as_tuple=True),
                 *torch.nonzero(t[0, 0], as_tuple=True), torch.nonzero_static(t, size=5),
                 torch.nonzero_static(t, size=20, fill_value=7), torch.masked_select(t[:0], mask[:0])]
    return tuple(outs)


def selection_inputs():
    return tuple(sample(d, (3, 4), 50 + k) for k, d in enumerate(SCAN_DTYPES))


# gt on the CPU too: OpenVINO 2026.4.1 gives NaN > 0 as true.
SELECTION_OPS = ("aten.masked_select", "aten.argwhere", "aten.nonzero_numpy", "aten.nonzero_static", "aten.permute",
                 "aten.gt")
SELECTION_ABSENT = {"decomposed": ("aten.argwhere", "aten.nonzero_numpy")}


FAMILIES = [
    Family("scans", lambda: Lambda(scans_program), scans_inputs, SCAN_OPS),
    Family("masked_select", lambda: Lambda(selection_program), selection_inputs, SELECTION_OPS,
           absent=SELECTION_ABSENT),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_scans_family(family, mode, exported_families, tmp_path):
    check_family(family, mode, exported_families, tmp_path)
