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
