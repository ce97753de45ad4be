"""The kernels the non-finite route needs beyond the rest (src/kernels/attention.cpp, views.cpp's
split, chunk and unbind, unfold.cpp's repeat, diagonal.cpp's tril and triu): each forced onto
pt2ov's CPU kernels with `--cpu-op`, in both program forms, compared with PyTorch eager (see
tests/e2e/test_kernels.py). Inputs carry NaN and inf among their values, and strided layouts."""
from __future__ import annotations

import math

import pytest
import torch

from test_kernels import Family, Lambda, MODES, sample, check_family, exported_families  # noqa: F401

from torch.nn.attention import SDPBackend, sdpa_kernel

F = torch.nn.functional


# pieces and triangles: every dtype, bit for bit --------------------------------------------
def pieces_program(x):
    xt = x.transpose(0, 2)  # [4, 3, 6]: strided
    outs = list(torch.split(x, 2, dim=2)) + list(torch.split(xt, [1, 3], dim=0))
    outs += list(torch.chunk(x, 4, dim=2)) + list(x.unbind(1))
    outs += [xt.repeat(2, 1, 3), x.repeat(1, 2, 1, 1), x[:, :1].repeat(2, 0, 1)]
    outs += [torch.tril(x), torch.tril(xt, -1), torch.triu(x, 2), torch.triu(xt, -5), torch.tril(x, 9)]
    outs += [torch.constant_pad_nd(xt, (1, 2, -1, 0), 2.5 if x.dtype.is_floating_point else 7),
             torch.constant_pad_nd(x, (0, 0, 2, 1, -2, -3))]
    return tuple(o * 1 if o.dtype.is_floating_point else o.clone() for o in outs)


PIECES_OPS = ("aten.split", "aten.split_with_sizes", "aten.chunk", "aten.unbind", "aten.repeat", "aten.tril",
              "aten.triu", "aten.constant_pad_nd")


def pieces_inputs(dtype=torch.float32):
    return (sample(dtype, (6, 3, 4), 7),)


# attention -----------------------------------------------------------------------------------
def attention_program(q, k, v, k2, v2, keep, added):
    """Every spelling of scaled_dot_product_attention: no mask, boolean and additive masks that
    blank whole rows, causal (also with fewer queries than keys), a given scale, grouped-query
    heads, a transposed (strided) query. Eager computes it with PyTorch's math reference, the
    kernel's contract: eager's fused float32 CPU kernel gives 0 for a query row of NaN where
    the reference (and every other path of eager's: masks, float64, other ranks) gives NaN
    (docs/EXACTNESS.md O8)."""
    with sdpa_kernel(SDPBackend.MATH):
        return _attention_spellings(q, k, v, k2, v2, keep, added)


def _attention_spellings(q, k, v, k2, v2, keep, added):
    return (
        F.scaled_dot_product_attention(q, k, v),
        F.scaled_dot_product_attention(q, k, v, attn_mask=keep),
        F.scaled_dot_product_attention(q, k, v, attn_mask=added),
        F.scaled_dot_product_attention(q, k, v, is_causal=True),
        F.scaled_dot_product_attention(q[:, :, :3], k, v, is_causal=True),
        F.scaled_dot_product_attention(q, k, v, attn_mask=keep[0, 0], scale=0.3),
        F.scaled_dot_product_attention(q, k2, v2, attn_mask=keep, enable_gqa=True),
        F.scaled_dot_product_attention(q.transpose(2, 3).transpose(2, 3).contiguous().transpose(1, 2).transpose(1, 2), k, v),
    )


def attention_inputs(specials=False):
    q, k, v = (sample(torch.float32, (2, 4, 5, 8), 30 + i, specials=False, low=-2, high=2) for i in range(3))
    k2, v2 = (sample(torch.float32, (2, 2, 5, 8), 40 + i, specials=False, low=-2, high=2) for i in range(2))
    keep = torch.ones(2, 1, 5, 5, dtype=torch.bool).tril()
    keep[0, ..., :2] = False  # batch 0: two pad keys on the left, so rows 0 and 1 keep no key
    keep[1, 0, 3] = False  # batch 1: one row fully masked
    added = torch.zeros(keep.shape).masked_fill(~keep, -math.inf)
    added[1, 0, 4, :2] = -1e9  # large, finite
    if specials:
        q[0, 1, 2, 3] = math.nan
        k[1, 2, 4, 0] = math.inf
    return q, k, v, k2, v2, keep, added


ATTENTION_OPS = ("aten.scaled_dot_product_attention",)

FAMILIES = [
    Family("pieces_float32", lambda: Lambda(pieces_program), pieces_inputs, PIECES_OPS, compare="bits",
           absent={"exported": ("aten.split_with_sizes", "aten.chunk"),
                   "decomposed": ("aten.split", "aten.chunk", "aten.unbind", "aten.repeat", "aten.tril", "aten.triu")}),
    Family("pieces_int64", lambda: Lambda(pieces_program), lambda: pieces_inputs(torch.int64), PIECES_OPS, compare="bits",
           absent={"exported": ("aten.split_with_sizes", "aten.chunk"),
                   "decomposed": ("aten.split", "aten.chunk", "aten.unbind", "aten.repeat", "aten.tril", "aten.triu")}),
    Family("attention", lambda: Lambda(attention_program), attention_inputs, ATTENTION_OPS,
           more_calls=lambda: [attention_inputs(specials=True)], modes=("exported",)),
]


# run_decompositions() spells the attention as products and a softmax, which
# tests/e2e/test_kernels.py and test_kernels_nn.py cover: the attention family runs as exported.
@pytest.mark.parametrize("family,mode", [pytest.param(f, m, id=f"{m}-{f.name}") for f in FAMILIES for m in f.modes])
def test_attention_and_pieces_kernels(family, mode, exported_families, tmp_path):
    check_family(family, mode, exported_families, tmp_path)
