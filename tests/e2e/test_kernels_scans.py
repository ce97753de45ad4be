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


# unique, isin, searchsorted, bucketize ----------------------------------------------------------
SET_DTYPES = FLOATS + INTEGERS + (torch.bool,)


def unique_program(*xs):
    outs = []
    for x in xs:  # [4, 6]
        t = x.permute(1, 0)
        outs += [torch.unique(t), *torch.unique(t, return_inverse=True, return_counts=True),
                 *torch.unique(t, sorted=False, return_counts=True), *torch.unique(t, dim=1, return_inverse=True),
                 *torch.unique(t[:, :2], dim=0, return_counts=True),
                 *torch.unique_consecutive(t, return_inverse=True, return_counts=True),
                 torch.unique_consecutive(t[0]), *torch.unique_consecutive(t, dim=0, return_counts=True),
                 *torch.unique(t[0, 0], return_inverse=True), *torch.unique(t[:0], return_inverse=True)]
    return tuple(outs)


def unique_inputs():
    xs = []
    for k, d in enumerate(SET_DTYPES):
        x = sample(torch.int64, (4, 6), 100 + k, specials=False, low=0, high=2).to(d)
        x[:, 3] = x[:, 1]  # equal slices for unique(dim=...)
        if d.is_floating_point:
            x[0, 0], x[2, 5], x[1, 1] = math.nan, math.nan, -0.0
        xs.append(x)
    return tuple(xs)


UNIQUE_OPS = ("aten._unique2", "aten.unique_dim", "aten.unique_consecutive", "aten.permute")


def search_program(b32, v32, b64, v64, bi, vi, b2, v2, sorter_input, bf16, vf16):
    outs = []
    for b, v in ((b32, v32), (b64, v64), (bi, vi), (bf16, vf16), (bi, v32), (b32, vi)):
        vt = v.permute(1, 0)
        outs += [torch.searchsorted(b, vt), torch.searchsorted(b, vt, right=True),
                 torch.searchsorted(b, vt, side="right", out_int32=True), torch.searchsorted(b, 1),
                 torch.searchsorted(b, 0.5, right=True), torch.bucketize(vt, b), torch.bucketize(vt, b, right=True),
                 torch.bucketize(vt, b, out_int32=True), torch.bucketize(2, b), torch.searchsorted(b, vt[0, 0])]
    order = torch.argsort(sorter_input)
    outs += [torch.searchsorted(sorter_input, v32, sorter=order), torch.searchsorted(sorter_input, v32, sorter=order, right=True),
             torch.searchsorted(b2.permute(1, 0), v2.permute(1, 0)),
             torch.searchsorted(b2.permute(1, 0), v2.permute(1, 0), side="right"),
             torch.searchsorted(b32[:0], v32)]
    return tuple(outs)


def search_inputs():
    b32 = torch.tensor([-2.0, -0.5, -0.0, 0.0, 0.5, 0.5, 1.0, 3.0, math.inf, math.nan])
    v32 = sample(torch.float32, (3, 5), 110, low=-3.0, high=3.5)
    v32[1, 1], v32[2, 2] = 0.5, 1.0
    bi = torch.tensor([-3, -1, 0, 0, 2, 5, 9])
    vi = sample(torch.int64, (3, 5), 111, specials=False, low=-5, high=10)
    b2 = torch.sort(sample(torch.float32, (6, 3), 112, specials=False), 0).values  # rows sorted once transposed
    v2 = sample(torch.float32, (4, 3), 113)
    return (b32, v32, b32.double(), v32.double(), bi, vi, b2, v2, sample(torch.float32, (8,), 114, specials=False),
            b32.to(torch.bfloat16), v32.to(torch.float16))


# argsort on the CPU too: the sorter's order must be PyTorch's.
SEARCH_OPS = ("aten.searchsorted", "aten.bucketize", "aten.argsort", "aten.sort", "aten.permute")
SEARCH_ABSENT = {"exported": ("aten.sort",), "decomposed": ("aten.argsort",)}


def isin_program(a, b, i, j, h, small):
    return (torch.isin(a.permute(1, 0), b), torch.isin(a, b, invert=True), torch.isin(a, 0.5), torch.isin(2.0, b),
            torch.isin(i, j), torch.isin(i.permute(1, 0), j[:3], invert=True), torch.isin(i, 3), torch.isin(5, j),
            torch.isin(i, b), torch.isin(a, j), torch.isin(h, a), torch.isin(small, j), torch.isin(i, j[:0]),
            torch.isin(a[0, 0], b))


def isin_inputs():
    a = sample(torch.float32, (4, 3), 120, specials=False, low=-2.0, high=2.0).round()
    a[0, 0], a[1, 1], a[2, 2] = math.nan, -0.0, 0.5
    b = torch.tensor([0.0, 1.0, math.nan, 0.5, -2.0])
    i = sample(torch.int64, (4, 3), 121, specials=False, low=-3, high=3)
    return a, b, i, torch.tensor([1, -2, 3, 0, 0]), a.to(torch.float16), i.to(torch.int8)


ISIN_OPS = ("aten.isin", "aten.permute")


# histograms --------------------------------------------------------------------------------------
def histogram_program(x, w, edges, h, b16, x64, w64, points, pw):
    t = x.permute(1, 0)  # [6, 5]
    outs = [torch.histc(t, 7), torch.histc(t, 4, min=-1.0, max=1.0), torch.histc(t[0, 0], 3), torch.histc(h, 5),
            torch.histc(b16, 6, min=-2, max=3), torch.histc(x64.permute(1, 0), 9, min=-3.0, max=3.0),
            *torch.histogram(t, 6), *torch.histogram(t, 5, range=(-1.0, 2.0), weight=w.permute(1, 0)),
            *torch.histogram(t, 4, density=True), *torch.histogram(t, edges), *torch.histogram(t, edges, density=True),
            *torch.histogram(x64, 8, weight=w64, density=True), *torch.histogram(t[:0], 3),
            *torch.histogramdd(points, [3, 4]), *torch.histogramdd(points, 2, range=[-1.0, 1.0, 0.0, 2.0], weight=pw),
            *torch.histogramdd(points, [edges, edges[1:]], density=True), *torch.histogramdd(points, [2, 3], density=True)]
    return tuple(outs)


def histogram_inputs():
    x = sample(torch.float32, (5, 6), 130, specials=False, low=-2.0, high=2.0)
    x[0, 0], x[1, 1] = 2.0, -2.0  # the outer edges themselves
    x[2, 2] = 0.5
    w = sample(torch.float32, (5, 6), 131, specials=False, low=0.0, high=3.0)
    edges = torch.tensor([-2.0, -0.5, 0.0, 0.5, 1.5, 2.0])
    h = sample(torch.float16, (4, 5), 132, specials=False, low=-1.0, high=1.0)
    b16 = sample(torch.bfloat16, (4, 5), 133, specials=False, low=-3.0, high=4.0)
    b16[0, 0], b16[0, 1] = math.nan, math.inf  # outside any range given: skipped
    x64 = sample(torch.float64, (4, 5), 134, specials=False, low=-3.0, high=3.0)
    w64 = sample(torch.float64, (4, 5), 135, specials=False, low=0.0, high=1.0)
    points = sample(torch.float32, (12, 2), 136, specials=False, low=-1.0, high=2.0)
    pw = sample(torch.float32, (12,), 137, specials=False, low=0.0, high=2.0)
    return x, w, edges, h, b16, x64, w64, points, pw


HISTOGRAM_OPS = ("aten.histc", "aten.histogram", "aten.histogramdd", "aten._histogramdd_bin_edges",
                 "aten._histogramdd_from_bin_cts", "aten._histogramdd_from_bin_tensors", "aten.permute")
HISTOGRAM_ABSENT = {"exported": ("aten._histogramdd_bin_edges", "aten._histogramdd_from_bin_cts",
                                 "aten._histogramdd_from_bin_tensors"),
                    "decomposed": ("aten.histogramdd",)}


# torch.export traces combinations only for r <= 1 (r >= 2: tests/cpp/kernels/test_set_kernels.cpp).
def combinations_program(x, i, flag):
    outs = []
    for v in (x, i, flag):
        s = v[::2]  # strided
        outs += [torch.combinations(s, 1), torch.combinations(s, 1, with_replacement=True), torch.combinations(s, 0)]
    return tuple(outs)


COMBINATIONS_OPS = ("aten.combinations", "aten.slice")
COMBINATIONS_ABSENT = {"decomposed": ("aten.combinations",)}


FAMILIES = [
    Family("scans", lambda: Lambda(scans_program), scans_inputs, SCAN_OPS),
    Family("masked_select", lambda: Lambda(selection_program), selection_inputs, SELECTION_OPS,
           absent=SELECTION_ABSENT),
    Family("sort", lambda: Lambda(sort_program), sort_inputs, SORT_OPS, absent=SORT_ABSENT),
    Family("median", lambda: Lambda(median_program), median_inputs, MEDIAN_OPS),
    Family("mode_bool", lambda: Lambda(mode_bool_program), lambda: (sample(torch.bool, (5, 7), 90),),
           ("aten.mode", "aten.permute")),
    Family("quantile", lambda: Lambda(quantile_program), quantile_inputs, QUANTILE_OPS, absent=QUANTILE_ABSENT),
    Family("unique", lambda: Lambda(unique_program), unique_inputs, UNIQUE_OPS),
    Family("searchsorted", lambda: Lambda(search_program), search_inputs, SEARCH_OPS, absent=SEARCH_ABSENT),
    # Decomposed, isin is eq and any over a broadcast (OpenVINO's ops); exported it is the kernel.
    Family("isin", lambda: Lambda(isin_program), isin_inputs, ISIN_OPS, absent={"decomposed": ("aten.isin",)}),
    Family("histogram", lambda: Lambda(histogram_program), histogram_inputs, HISTOGRAM_OPS, absent=HISTOGRAM_ABSENT),
    Family("combinations", lambda: Lambda(combinations_program),
           lambda: (sample(torch.float32, (10,), 140), sample(torch.int64, (10,), 141), sample(torch.bool, (10,), 142)),
           COMBINATIONS_OPS, absent=COMBINATIONS_ABSENT),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_scans_family(family, mode, exported_families, tmp_path):
    check_family(family, mode, exported_families, tmp_path)
