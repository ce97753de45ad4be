"""Slices as torch.export writes them: `x[1:]` ends at 2**63 - 1, `x[-2**40:]` starts far before
the dim. Their bounds are clamped as PyTorch clamps them, so they fit in 32 bits and the
slices stay on OpenVINO instead of splitting the program for a sentinel."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register


class SlicesToTheEnd(nn.Module):
    def forward(self, x):
        return torch.sin(torch.relu(x)[:, ::2, 1:] * 2) + 1, x[-2**40:, : 2**35], x[:, -1:, -(2**33):]


def _slices_inputs(variant):
    torch.manual_seed(900 + variant)
    return (torch.randn((4, 5)[variant], 6, 5),)


register(
    ModelCase(
        name="slices_to_the_end",
        make_module=lambda: SlicesToTheEnd().eval(),
        make_inputs=_slices_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=64)},),
        notes="`sin(relu(x)[:, ::2, 1:] * 2) + 1` and slices with bounds beyond 32 bits: one OpenVINO step.",
        exact_outputs=(1, 2),
    )
)


class RelativePositionBias(nn.Module):
    """Swin's relative position index computed in forward from arange (int64 arithmetic on small
    positions), picking a bias table; and one int64 sum that does leave 32 bits."""

    def __init__(self, window=4):
        super().__init__()
        self.window = window
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, 2, generator=torch.Generator().manual_seed(910)))
        self.register_buffer("far", torch.tensor([2**40 + 3]))

    def forward(self, x):
        w = self.window
        coords = torch.stack(torch.meshgrid(torch.arange(w), torch.arange(w), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0)
        index = (rel[..., 0] + w - 1) * (2 * w - 1) + rel[..., 1] + w - 1
        bias = self.table[index.flatten()].view(w * w, w * w, 2)
        positions = torch.arange(x.shape[1]) * 3 + 1
        return x @ bias[..., 0] + bias[..., 1].sum(0), positions, index.sum(), torch.arange(5) + self.far


register(
    ModelCase(
        name="relative_position_bias",
        make_module=lambda: RelativePositionBias().eval(),
        make_inputs=lambda variant: (torch.randn((3, 5)[variant], (16, 9)[variant], 16,
                                                 generator=torch.Generator().manual_seed(911 + variant)),),
        dynamic_shapes=({0: Dim("batch", min=1, max=64), 1: Dim("rows", min=2, max=64)},),
        notes="int64 index arithmetic bounded within 32 bits at load stays on OpenVINO (the positions of a "
        "dynamic row count); what reads constants only (the window's index, arange(5) + 2**40) is computed "
        "once at load on the CPU kernels.",
        exact_outputs=(1, 2, 3),
    )
)


class SliceScatterToTheEnd(nn.Module):
    """Swin's shifted-window mask, written into slices: after decomposition each write is a
    slice_scatter, those to the end with end 2**63 - 1; and a write into `y[1:]` over the dynamic
    batch dim."""

    def forward(self, x):
        mask = x.new_zeros(x.shape[1], x.shape[2])
        count = 0
        for h in (slice(0, -4), slice(-4, -2), slice(-2, None)):
            for w in (slice(0, -4), slice(-4, -2), slice(-2, None)):
                mask[h, w] = count
                count += 1
        y = x.clone()
        y[1:, :, -3:] = 0.5
        return mask, y


register(
    ModelCase(
        name="slice_scatter_to_the_end",
        make_module=lambda: SliceScatterToTheEnd().eval(),
        make_inputs=lambda variant: (torch.randn((3, 5)[variant], 7, 9, generator=torch.Generator().manual_seed(920 + variant)),),
        # (from 3: `y[1:]` of a batch of 2 would be a batch of 1, which export specializes)
        dynamic_shapes=({0: Dim("batch", min=3, max=64)},),
        notes="slice_scatter bounds beyond 32 bits clamped as slice's are: one OpenVINO step.",
        expect_exact=True,
    )
)


class RollIndexArithmetic(nn.Module):
    """Swin's cyclic shift: torch.roll, which decomposes into index_select at
    (arange(n) + shift) % n (int64 fmod of non-negative values); a floor division of arange
    positions; and an fmod of negative positions, which floor and truncation round apart."""

    def forward(self, x):
        rolled = torch.roll(x, shifts=(-3, 2), dims=(1, 2))
        positions = torch.arange(x.shape[1])
        return rolled * 2, (positions + 5) // 3, torch.fmod(positions - 4, 3), torch.remainder(positions - 4, 3)


register(
    ModelCase(
        name="roll_index_arithmetic",
        make_module=lambda: RollIndexArithmetic().eval(),
        make_inputs=lambda variant: (torch.randn((2, 4)[variant], 7, 7, 8, generator=torch.Generator().manual_seed(930 + variant)),),
        dynamic_shapes=({0: Dim("batch", min=1, max=64)},),
        notes="integer division of non-negative index values bounded at load stays on OpenVINO; fmod and "
        "remainder of negative values run on the CPU kernels.",
        exact_outputs=(1, 2, 3),
    )
)
