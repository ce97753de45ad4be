"""The CPU kernel of linalg_vector_norm, forced off OpenVINO and compared with PyTorch eager:
every order PyTorch takes (2, 1, inf, -inf, 0, fractional, negative), dims, keepdim, dtype=,
NaN and infinities, non-contiguous and empty inputs. float64 norms run on the kernel without
being forced (OpenVINO computes float64 in float32): they are checked at float64 precision."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from conftest import run_engine_in
from test_kernels import Family, Lambda, MODES, sample, check_family, exported_families  # noqa: F401

ORDERS = (2, 1, math.inf, -math.inf, 0, 3, 0.5, -1.5)


def norms_program(f32, f64, f16, bf16, empty):
    outs = []
    for x in (f32, f64, f16, bf16):
        t = x.t()  # not contiguous inside the program
        for ord in ORDERS:
            outs += [torch.linalg.vector_norm(t, ord), torch.linalg.vector_norm(t, ord, dim=1),
                     torch.linalg.vector_norm(x, ord, dim=(0, 1), keepdim=True)]
        outs.append(torch.linalg.vector_norm(t, 2, dim=0, dtype=torch.float64))
    outs += [torch.linalg.vector_norm(empty), torch.linalg.vector_norm(empty, 1, dim=0),
             torch.linalg.vector_norm(empty, 0), torch.linalg.vector_norm(f32[0, 0])]
    return tuple(outs)


def norms_inputs():
    # specials: NaN, ±inf, -0.0 and the extremes in the first rows; the last rows plain values.
    return (sample(torch.float32, (6, 5), 1), sample(torch.float64, (6, 5), 2), sample(torch.float16, (6, 5), 3),
            sample(torch.bfloat16, (6, 5), 4), torch.zeros(0, 3))


FAMILIES = [
    Family("vector_norm", lambda: Lambda(norms_program), norms_inputs, cpu_ops=("aten.linalg_vector_norm",)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_norms_family(family, mode, exported_families, tmp_path):
    check_family(family, mode, exported_families, tmp_path)


class Float64Norms(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.vector_norm(x, 1), torch.linalg.vector_norm(x, 2, dim=1), torch.linalg.vector_norm(x, 3.5)


@pytest.mark.parametrize("decomposed", (False, True), ids=("exported", "decomposed"))
def test_float64_norm_keeps_float64_precision(decomposed, tmp_path):
    """OpenVINO alone gave 1.64842117 for 1.64842113 and float32's largest value for inf."""
    x = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    x[1, 2] = math.inf
    ep = torch.export.export(Float64Norms(), (x,))
    if decomposed:
        ep = ep.run_decompositions()
    path = tmp_path / "norms.pt2"
    torch.export.save(ep, str(path))
    got = run_engine_in(tmp_path, path, [(x,)])[0]
    want = Float64Norms()(x)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == np.float64
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-13, atol=0)
