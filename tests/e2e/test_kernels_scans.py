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


# sort and order statistics ------------------------------------------------------------------------
ORDER_DTYPES = FLOATS + INTEGERS


def sort_program(*xs):
    outs = []
    for x in xs:  # [4, 20]: rows longer than 16, where std::sort stops being an insertion sort
        t = x.permute(1, 0)
        outs += [*torch.sort(t, 0), *torch.sort(t, 0, descending=True), *torch.sort(t, dim=0, stable=True),
                 *torch.sort(t, dim=0, stable=True, descending=True), *torch.sort(t[:5], 1),
                 torch.argsort(t, 0), torch.argsort(t, dim=0, stable=True, descending=True), torch.msort(t),
                 *torch.sort(t[0, 0])]
    return tuple(outs)


def sort_inputs():
    return tuple(ties(d, (4, 20), 60 + k) for k, d in enumerate(ORDER_DTYPES + (torch.bool,)))


SORT_OPS = ("aten.sort", "aten.argsort", "aten.msort", "aten.permute")
SORT_ABSENT = {"decomposed": ("aten.argsort", "aten.msort")}


def median_program(*xs):
    outs = []
    for x in xs:  # [5, 6]
        t = x.permute(1, 0)
        outs += [t.median(), t.nanmedian(), *t.median(1), *t.median(0, keepdim=True), *t.nanmedian(1),
                 *t.nanmedian(0), *torch.mode(t, 1), *torch.mode(t, 0, keepdim=True), *torch.mode(t[0, 0]),
                 t[0, 0].median(), *t[:, :0].median(0), t[:0].median()]
    return tuple(outs)


def median_inputs():
    xs = [ties(d, (5, 6), 70 + k) for k, d in enumerate(ORDER_DTYPES)]
    nan_rows = torch.full((5, 6), math.nan)  # rows of NaN only: nanmedian's index among NaNs
    nan_rows[:, 4] = 1.0
    return tuple(xs) + (nan_rows, torch.full((5, 40), math.nan))


MEDIAN_OPS = ("aten.median", "aten.nanmedian", "aten.mode", "aten.permute")


def mode_bool_program(x):
    return (*torch.mode(x.permute(1, 0), 1), *torch.mode(x, 0))


QUANTILE_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile_program(x, q, x64, q64):
    outs = []
    for a, qs in ((x, q), (x64, q64)):
        t = a.permute(1, 0)  # [6, 5]
        for how in QUANTILE_MODES:
            outs += [torch.quantile(t, 0.3, interpolation=how), torch.quantile(t, qs, dim=1, interpolation=how),
                     torch.quantile(t, qs[1], dim=0, keepdim=True, interpolation=how),
                     torch.nanquantile(t, 0.75, dim=1, interpolation=how), torch.nanquantile(t, qs, interpolation=how),
                     torch.nanquantile(t, qs, dim=0, keepdim=True, interpolation=how),
                     torch.quantile(t[0, 0], qs, interpolation=how)]
    return tuple(outs)


def quantile_inputs():
    x = sample(torch.float32, (5, 6), 80, specials=False)
    x[1, 2] = math.nan
    x[3, :] = math.nan
    x[4, 4] = math.inf
    q = torch.tensor([0.0, 0.25, 0.5, 0.9, 1.0])
    x64 = sample(torch.float64, (5, 6), 81, specials=False)
    x64[0, 0] = math.nan
    return x, q, x64, q.double()


# Decomposed, quantile is a sort and arithmetic: the sort runs on the CPU kernel.
QUANTILE_OPS = ("aten.quantile", "aten.nanquantile", "aten.sort", "aten.permute")
QUANTILE_ABSENT = {"exported": ("aten.sort",), "decomposed": ("aten.quantile", "aten.nanquantile")}


FAMILIES = [
    Family("scans", lambda: Lambda(scans_program), scans_inputs, SCAN_OPS),
    Family("masked_select", lambda: Lambda(selection_program), selection_inputs, SELECTION_OPS,
           absent=SELECTION_ABSENT),
    Family("sort", lambda: Lambda(sort_program), sort_inputs, SORT_OPS, absent=SORT_ABSENT),
    Family("median", lambda: Lambda(median_program), median_inputs, MEDIAN_OPS),
    Family("mode_bool", lambda: Lambda(mode_bool_program), lambda: (sample(torch.bool, (5, 7), 90),),
           ("aten.mode", "aten.permute")),
    Family("quantile", lambda: Lambda(quantile_program), quantile_inputs, QUANTILE_OPS, absent=QUANTILE_ABSENT),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_scans_family(family, mode, exported_families, tmp_path):
    check_family(family, mode, exported_families, tmp_path)
