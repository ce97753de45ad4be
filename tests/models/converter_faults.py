"""Smallest programs of OpenVINO converter faults: nodes OpenVINO 2026.4.1 converts and runs, but
wrongly (or crashes on), found by PyTorch's OpInfo samples. Each case's notes name the fault and
the `openvino_facts` entry (or the pt2ov fix) that handles it (docs/EXACTNESS.md, O9-).

Each case mixes the faulty spelling with correct spellings of the same op, so placement that
routes too much or too little shows up: the correct ones keep running on OpenVINO.
"""
import torch
from torch import nn

from tests.models import ModelCase, register


class ExpandZeroDimToEmpty(nn.Module):
    def forward(self, x, i, b, h):
        return x.expand([]), i.expand([]), b.expand([]), h.expand([]), x.expand([3]) * 2


def _zero_dim_inputs(variant):
    return (torch.tensor(2.5 + variant), torch.tensor(-7, dtype=torch.int32), torch.tensor(True),
            torch.tensor(1.5, dtype=torch.float16))


register(
    ModelCase(
        name="expand_zero_dim_to_empty",
        make_module=lambda: ExpandZeroDimToEmpty().eval(),
        make_inputs=_zero_dim_inputs,
        exact_outputs=(0, 1, 2, 3),
        notes="expand of a 0-d tensor to [] (f32, int32, bool, f16) crashed OpenVINO 2026.4.1 (segfault); "
        "an expand to its input's own sizes is now a copy of its input (graph/canonical_forms.cpp).",
    )
)


class RepeatZeroDimEmpty(nn.Module):
    def forward(self, x, v):
        return x.repeat(()), torch.tile(x, ()), v.repeat(2, 1), torch.tile(v, (1,))


def _repeat_inputs(variant):
    torch.manual_seed(900 + variant)
    return (torch.tensor(3.25), torch.randn(3))


register(
    ModelCase(
        name="repeat_zero_dim_empty",
        make_module=lambda: RepeatZeroDimEmpty().eval(),
        make_inputs=_repeat_inputs,
        exact_outputs=(0, 1, 2, 3),
        notes="repeat / tile with repeats () of a 0-d tensor came back uninitialised from OpenVINO 2026.4.1; "
        "a repeat by all ones with no new dims is now a copy of its input (graph/canonical_forms.cpp).",
    )
)


class SqueezeNoDims(nn.Module):
    def forward(self, x):
        return torch.squeeze(x, ()), torch.squeeze(x, (0,)), torch.squeeze(x, ()).sin()


def _squeeze_inputs(variant):
    torch.manual_seed(910 + variant)
    return (torch.randn(1, 3, 1),)


register(
    ModelCase(
        name="squeeze_no_dims",
        make_module=lambda: SqueezeNoDims().eval(),
        make_inputs=_squeeze_inputs,
        exact_outputs=(0, 1),
        notes="squeeze.dims with dims=() is the identity in PyTorch; OpenVINO 2026.4.1 dropped every size-1 "
        "dim ([1, 3, 1] became [3]); it is now a copy of its input (graph/canonical_forms.cpp).",
    )
)


class VarianceCorrections(nn.Module):
    def forward(self, x):
        v, m = torch.var_mean(x)
        v1, m1 = torch.var_mean(x, 1, correction=1)
        v0, m0 = torch.var_mean(x, 0, correction=0)
        return (torch.var(x), torch.var(x, 1, correction=0), torch.var(x, 1, correction=1, keepdim=True), v, m, v1, m1,
                v0, m0, torch.std(x), torch.std(x, 1, correction=0))


def _variance_inputs(variant):
    torch.manual_seed(920 + variant)
    return (torch.randn(5, 6),)


register(
    ModelCase(
        name="variance_corrections",
        make_module=lambda: VarianceCorrections().eval(),
        make_inputs=_variance_inputs,
        notes="var / var_mean / std with correction left at its default (None, meaning 1): OpenVINO's FX "
        "converter reads an absent correction as 0 and divided by N instead of N - 1; a correction "
        "written out was right. pt2ov now writes the default out (graph/canonical_forms.cpp).",
    )
)
