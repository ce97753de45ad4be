"""The long tail of models people bring (issue 44): computations real models make that pt2ov
refused, each the smallest program that showed it."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from tests.models import ModelCase, register


class WeightStandardizedConv(nn.Module):
    """BiT's StdConv2d: its weights normalized by batch_norm in training mode without running
    statistics, in an eval-mode model (nothing is updated: a pure function of the weight)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(440)
        self.weight = nn.Parameter(torch.randn(8, 4, 3, 3) * 0.3 + 0.1)

    def forward(self, x):
        w = F.batch_norm(self.weight.reshape(1, 8, -1), None, None, training=True, momentum=0.0, eps=1e-6)
        return F.conv2d(x, w.reshape_as(self.weight), padding=1)


def _standardized_inputs(variant):
    torch.manual_seed(441 + variant)
    return (torch.randn((2, 3)[variant], 4, 8, 8),)


register(
    ModelCase(
        name="batch_norm_without_running_statistics",
        make_module=lambda: WeightStandardizedConv().eval(),
        make_inputs=_standardized_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        notes="batch_norm(training=True) with no running statistics (BiT's weight standardization) "
        "was refused as training mode; it updates nothing and is computed as the core op "
        "_native_batch_norm_legit.no_stats.",
    )
)


class Identities(nn.Module):
    """torch.eye, square and not, of float, int and bool (XLNet's and Qwen3-Next's masks)."""

    def forward(self, x):
        square = x @ torch.eye(x.shape[-1])
        wide = torch.eye(x.shape[0], x.shape[-1] + 2, dtype=torch.int64)[:, : x.shape[-1]]
        return square + wide, torch.eye(3, dtype=torch.bool) | (x[:3, :3] > 0)


def _identities_inputs(variant):
    torch.manual_seed(442 + variant)
    return (torch.randn(3 + variant, 5),)


register(
    ModelCase(
        name="eye_of_every_dtype",
        make_module=lambda: Identities().eval(),
        make_inputs=_identities_inputs,
        notes="aten.eye had no kernel and no converter.",
    )
)


class RowsWrittenIntoZeros(nn.Module):
    """RWKV's and RecurrentGemma's scan: rows written one by one into a zeros_like buffer, which
    pt2ov spells as select_scatter; a pass of OpenVINO's frontend (ReversepropResolver) threw on
    it, failing the whole load with a plain Error."""

    def forward(self, x, y):
        out = torch.zeros_like(x)
        for i in range(x.shape[1]):
            out[:, i] = (y * i).to(torch.float32)
        return out


def _rows_inputs(variant):
    torch.manual_seed(443 + variant)
    return (torch.randn(2, 4, 8), torch.randn(2, 8, dtype=torch.float64))


register(
    ModelCase(
        name="rows_written_into_zeros",
        make_module=lambda: RowsWrittenIntoZeros().eval(),
        make_inputs=_rows_inputs,
        notes="An exception of OpenVINO's frontend on one node (select_scatter, named in its message as "
        "'select/aten.select_scatter.default') now moves that node to the CPU kernels and converts the rest.",
    )
)


class EinsumWithEllipsis(nn.Module):
    """einsum with an ellipsis (LongT5's attention, batched matrix patterns): refused until
    the decomposition read an ellipsis as letters of its own."""

    def forward(self, a, b, c):
        return (
            torch.einsum("...ij,...jk->...ik", a, b),
            torch.einsum("...ij,...jk", a, b),
            torch.einsum("b...d,b...d->b...", a, a),
            torch.einsum("...d,d->...", c, b[0, 0, :, 0]),
            torch.einsum("bh...,bh...->bh", a, a),
        )


def _einsum_inputs(variant):
    torch.manual_seed(444 + variant)
    return (torch.randn(2, 3, 4, 5), torch.randn(2, 3, 5, 6), torch.randn(2, 7, 5))


register(
    ModelCase(
        name="einsum_with_ellipsis",
        make_module=lambda: EinsumWithEllipsis().eval(),
        make_inputs=_einsum_inputs,
        notes="einsum equations with an ellipsis were refused when decomposing.",
    )
)


class UnsignedIntMatmul(nn.Module):
    """torchao's Int8DynamicActivationInt8Weight on CPU: activations quantized to uint8 times
    int8 weights through _int_mm (pt2ov took int8 x int8 only)."""

    def forward(self, a, w):
        return torch._int_mm(a, w)


def _unsigned_int_mm_inputs(variant):
    torch.manual_seed(445 + variant)
    a = torch.randint(0, 256, (17, 600), dtype=torch.uint8)
    w = torch.randint(-128, 128, (600, 24), dtype=torch.int8)
    a[0], w[:, 0] = 255, -128  # the extreme products, 600 of them: beyond float32's exact range in one sum
    return (a, w)


register(
    ModelCase(
        name="unsigned_int_mm",
        make_module=lambda: UnsignedIntMatmul().eval(),
        make_inputs=_unsigned_int_mm_inputs,
        expect_exact=True,
        notes="_int_mm of uint8 x int8, exact: summed in float32 slices of 512 (each exact), added in int32.",
    )
)


class ExpMinusOneNearZero(nn.Module):
    """ExpMinusOneCancelsNearZero: OpenVINO's Elu (selu, celu) and expm1 compute exp(x) - 1 in
    float32, 0 for -1e-10 and 1.3 % off at -1e-6; a sign after it read 0 for -1."""

    def forward(self, x):
        return (torch.sign(F.selu(x)), F.elu(x), F.celu(x, alpha=0.5), torch.expm1(x), torch.floor(F.elu(x)))


def _expm1_inputs(variant):
    torch.manual_seed(446 + variant)
    scale = torch.tensor([1e-30, 1e-20, 1e-10, 1e-6, 1e-3, 0.5])
    return ((torch.rand(2, 6) * 2 - 1) * scale,)


register(
    ModelCase(
        name="exp_minus_one_near_zero",
        make_module=lambda: ExpMinusOneNearZero().eval(),
        make_inputs=_expm1_inputs,
        rtol=1e-6,
        atol=0.0,
        why="the values are near 1e-30: only a relative tolerance shows a cancellation (E5's absolute 1e-5 "
        "would pass 0 for -1e-10)",
        notes="elu/selu/celu/expm1 of tiny negative values: 0 (and a sign of 0) on OpenVINO, eager's values on "
        "pt2ov's CPU kernel (ExpMinusOneCancelsNearZero).",
    )
)


class ItemOfReduction(nn.Module):
    """Tensor.item() as the training IR spells it (aten.item), a number the program reads at run
    time; run_decompositions() spells it _local_scalar_dense, which ran; aten.item was refused
    (jetmoe's router)."""

    def forward(self, x, n):
        k = n.max().item()
        torch._check(k >= 0)
        torch._check(k <= 8)
        return x * k, x.sum() + k, x[:, :1] * n.float().mean().item()


register(
    ModelCase(
        name="item_of_reduction",
        make_module=lambda: ItemOfReduction().eval(),
        make_inputs=lambda variant: (torch.randn(8, 3, generator=torch.Generator().manual_seed(47 + variant)),
                                     torch.tensor([3, 5]) if variant == 0 else torch.tensor([1, 7])),
        notes="aten.item.default (x.item() in the training IR) had no converter and no kernel: refused; it is "
        "now the _local_scalar_dense run_decompositions() gives, a value read at run time.",
    )
)
