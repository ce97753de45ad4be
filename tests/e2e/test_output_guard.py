"""The output guard (runtime/output_guard.h): a value of the wrong shape or dtype never leaves a
step or the program as a result. A compiled OpenVINO step whose declared result contradicts the
program is seen at load, and the node that makes it runs on the CPU kernels (refused under
--strict).

The fault is injected by switching a fact off (PT2OV_IGNORE_FACTS): with
UnitConvolutionStridedPaddedShape off, OpenVINO's CPU plugin computes a 1x1 convolution with
stride 2 and padding 1 after an activation with the wrong shape (re-measured on OpenVINO alone
by tests/cpp/lower/test_openvino_facts.cpp).
"""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest
import torch

from conftest import REPO_ROOT, describe, pt2ov_binary, read_outputs, write_inputs


class _UnitConvolution(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.conv = torch.nn.Conv2d(4, 4, 1, stride=2, padding=1)

    def forward(self, x):
        return self.conv(torch.relu(x))


def _run(tmp_path, pt2, x, *options, env=None):
    inputs, outputs = tmp_path / "in.npz", tmp_path / "out.npz"
    write_inputs(inputs, (x,))
    cmd = [str(pt2ov_binary()), "run", str(pt2), "--inputs", str(inputs), "--outputs", str(outputs),
           "--no-measure-placement", *options]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
                          env={**os.environ, **(env or {})})
    return proc, outputs


@pytest.fixture(scope="module")
def unit_convolution(tmp_path_factory):
    module = _UnitConvolution().eval()
    x = torch.randn(1, 4, 5, 5)
    pt2 = tmp_path_factory.mktemp("guard") / "unit_conv.pt2"
    torch.export.save(torch.export.export(module, (x,)), pt2)
    return module, x, pt2


def test_a_compiled_shape_contradicting_the_program_moves_its_node_to_the_cpu(tmp_path, unit_convolution):
    """Without its fact, the plugin compiles the convolution into a model that declares [1, 4, 5, 5]
    for PyTorch's [1, 4, 4, 4]: load sees it and runs that node alone on the CPU kernels."""
    module, x, pt2 = unit_convolution
    proc, outputs = _run(tmp_path, pt2, x, env={"PT2OV_IGNORE_FACTS": "UnitConvolutionStridedPaddedShape"})
    assert proc.returncode == 0, describe(proc)
    with torch.no_grad():
        expected = module(x)
    (got,) = read_outputs(outputs)
    assert got.shape == (1, 4, 4, 4)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-4, atol=1e-5)


def test_under_strict_a_compiled_shape_contradicting_the_program_is_refused(tmp_path, unit_convolution):
    _, x, pt2 = unit_convolution
    proc, outputs = _run(tmp_path, pt2, x, "--strict", env={"PT2OV_IGNORE_FACTS": "UnitConvolutionStridedPaddedShape"})
    assert proc.returncode == 2, describe(proc)
    assert not outputs.exists(), "no output may be written when load refuses"
    message = proc.stderr
    # Which value, which step, and what PyTorch records for it.
    assert "conv2d" in message and "step 1" in message, message
    assert "size 5 in dim 2 where PyTorch records 4" in message, message


def test_with_its_fact_the_same_program_runs_right(tmp_path, unit_convolution):
    module, x, pt2 = unit_convolution
    proc, outputs = _run(tmp_path, pt2, x)
    assert proc.returncode == 0, describe(proc)
    with torch.no_grad():
        expected = module(x)
    (got,) = read_outputs(outputs)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-4, atol=1e-5)


def test_an_unknown_fact_name_is_refused(tmp_path, unit_convolution):
    _, x, pt2 = unit_convolution
    proc, _ = _run(tmp_path, pt2, x, env={"PT2OV_IGNORE_FACTS": "NoSuchFact"})
    assert proc.returncode != 0, describe(proc)
    assert "NoSuchFact" in proc.stderr, describe(proc)


class _Dynamic(torch.nn.Module):
    """Sizes that are expressions of a symbol (2*s0, s0 + 1, (s0 - 1)//2 + 1), checked call by
    call without a false alarm, and a data-dependent size (nonzero)."""

    def forward(self, x):
        doubled = torch.cat([x, x])
        padded = torch.nn.functional.pad(x, (0, 0, 1, 0))
        strided = x[::2]
        return doubled.sin(), padded * 2, strided + 1, torch.nonzero(x > 0)


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_symbolic_sizes_pass_the_guard(tmp_path, mode):
    module = _Dynamic().eval()
    batch = torch.export.Dim("batch", min=3, max=64)
    ep = torch.export.export(module, (torch.randn(5, 3),), dynamic_shapes=({0: batch},))
    if mode == "decomposed":
        ep = ep.run_decompositions()
    pt2 = tmp_path / "dynamic.pt2"
    torch.export.save(ep, pt2)
    for rows in (3, 6, 9):
        x = torch.randn(rows, 3)
        proc, outputs = _run(tmp_path, pt2, x)
        assert proc.returncode == 0, describe(proc)
        with torch.no_grad():
            expected = module(x)
        for got, want in zip(read_outputs(outputs), expected):
            assert got.shape == tuple(want.shape)
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)
