"""Calls whose inputs hold NaN or inf (LoadOptions::nonfinite_inputs, docs/EXACTNESS.md O8).

OpenVINO's CPU plugin loses NaN through relu, exp, max and clamp and through the ops it fuses
them into. By default a call whose floating inputs (or state) hold NaN or inf runs on pt2ov's
CPU kernels, which follow PyTorch; finite calls keep OpenVINO. A program with a node that has no
CPU kernel refuses such a call with one line; `--nonfinite-inputs openvino` runs it as it is.
The zoo's `nonfinite_*` cases (tests/models/nonfinite.py) check the values of every such program
in both forms; these tests check the routing itself.
"""
from __future__ import annotations

import copy
import sys

import numpy as np
import pytest
import torch

from conftest import REPO_ROOT, describe, read_outputs, run_cli, write_inputs
from tests.models import get_case
from tests.models.compare import assert_outputs_match
from tests.models.export import flatten

sys.path.insert(0, str(REPO_ROOT / "build" / "python"))
import pt2ov  # noqa: E402

NAN = float("nan")


def _eager(program, args):
    with torch.no_grad():
        return flatten(copy.deepcopy(program.module)(*args))


def test_nan_call_runs_on_cpu_kernels_and_finite_calls_on_openvino(zoo_programs):
    """Linear + ReLU (the plugin fuses the ReLU and gives 0 for NaN): a NaN call gives eager's NaN
    and spends no time in OpenVINO; the finite calls before and after run on OpenVINO."""
    case = get_case("nonfinite_linear_relu")
    program = zoo_programs.get(case.name, "exported", "dynamic")
    loaded = pt2ov.load(program.path, measure_placement=False)
    torch.manual_seed(5)
    finite = torch.randn(4, 8)
    poisoned = finite.clone()
    poisoned[2, 3] = NAN
    poisoned[3, 0] = float("inf")
    for args, routed in (((finite,), False), ((poisoned,), True), ((finite,), False)):
        got = [np.asarray(o) for o in loaded(*args)]
        assert_outputs_match(got, _eager(program, args), case, "routed" if routed else "finite")
        if routed:
            assert loaded.last_openvino_ns == 0, "a call with NaN inputs ran on OpenVINO"
            assert np.isnan(got[0][2]).all() and not np.isnan(got[0][:2]).any()
        else:
            assert loaded.last_openvino_ns > 0, "a finite call did not run on OpenVINO"


def test_nan_state_keeps_later_calls_on_cpu_kernels_until_reset(zoo_programs):
    case = get_case("nonfinite_into_state")
    program = zoo_programs.get(case.name, "exported", "dynamic")
    loaded = pt2ov.load(program.path)
    module = copy.deepcopy(program.module)
    finite = (torch.randn(3, 4),)
    poisoned = (torch.tensor([[1.0, NAN, 2.0, 3.0]]),)
    for args in (finite, poisoned, finite, finite):
        got = [np.asarray(o) for o in loaded(*args)]
        with torch.no_grad():
            assert_outputs_match(got, flatten(module(*args)), case)
    assert np.isnan(got[0]).any(), "the poisoned state should make every later output NaN, as eager's"
    loaded.reset_state()
    module = copy.deepcopy(program.module)
    got = [np.asarray(o) for o in loaded(*finite)]
    with torch.no_grad():
        assert_outputs_match(got, flatten(module(*finite)), case, "after reset")
    assert loaded.last_openvino_ns > 0, "after reset_state a finite call should run on OpenVINO again"


class RandomizedLeakyRelu(torch.nn.Module):
    """rrelu (in eval mode a leaky relu of slope (lower + upper) / 2) has no CPU kernel; OpenVINO
    runs it."""

    def forward(self, x):
        return torch.nn.functional.rrelu(x)


def test_program_without_cpu_kernels_refuses_nan_call_in_one_line(tmp_path):
    """A program with a node that has no CPU kernel: a NaN call is refused (exit 2, one line naming
    the input and the node), a finite call runs, and --nonfinite-inputs openvino runs the NaN call
    on OpenVINO as it is."""
    x = torch.randn(1, 8, 3, 3)
    ep = torch.export.export(RandomizedLeakyRelu(), (x,))
    assert any("rrelu" in str(n.target) for n in ep.graph.nodes), "the export no longer keeps rrelu"
    path = tmp_path / "rrelu.pt2"
    torch.export.save(ep, path)
    bad = x.clone()
    bad[0, 5, 1, 2] = NAN
    write_inputs(tmp_path / "finite.npz", (x,))
    write_inputs(tmp_path / "nan.npz", (bad,))
    proc = run_cli(["run", path, "--inputs", tmp_path / "finite.npz", "--outputs", tmp_path / "out.npz"])
    assert proc.returncode == 0, describe(proc)
    np.testing.assert_allclose(read_outputs(tmp_path / "out.npz")[0], RandomizedLeakyRelu()(x).numpy(), rtol=1e-6)
    proc = run_cli(["run", path, "--inputs", tmp_path / "nan.npz", "--outputs", tmp_path / "out.npz"])
    assert proc.returncode == 2, describe(proc)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, describe(proc)
    assert "'x' holds NaN or inf" in lines[0] and "rrelu" in lines[0], describe(proc)
    assert "--nonfinite-inputs openvino" in lines[0], describe(proc)
    proc = run_cli(["run", path, "--inputs", tmp_path / "nan.npz", "--outputs", tmp_path / "out.npz",
                    "--nonfinite-inputs", "openvino"])
    assert proc.returncode == 0, describe(proc)
    assert read_outputs(tmp_path / "out.npz")[0].shape == (1, 8, 3, 3)


def test_attention_as_exported_follows_pytorch_on_nan(zoo_programs):
    """scaled_dot_product_attention as exported runs on its CPU kernel for a NaN call: the
    positions that attend to the NaN token are NaN, the rest finite, as eager's."""
    case = get_case("sdpa_left_padded_mask")
    program = zoo_programs.get(case.name, "exported", "dynamic")
    loaded = pt2ov.load(program.path)
    x, mask = case.make_inputs(1)
    x[1, 2, 3] = NAN
    got = [np.asarray(o) for o in loaded(x, mask)]
    expected = _eager(program, (x, mask))
    assert_outputs_match(got, expected, case, "NaN in sequence 1")
    assert np.isnan(got[0][1]).any() and not np.isnan(got[0][0]).any()
    assert loaded.last_openvino_ns == 0


def test_unknown_nonfinite_inputs_value_is_refused(zoo_programs):
    program = zoo_programs.get("nonfinite_linear_relu", "exported", "static")
    with pytest.raises(pt2ov.Error, match="nonfinite_inputs 'sometimes'"):
        pt2ov.load(program.path, nonfinite_inputs="sometimes")


class _MaskedAttention(torch.nn.Module):
    def forward(self, q, k, v, mask):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def _run_cli_with(tmp_path, pt2, args, *options, env=None):
    import os
    import subprocess

    from conftest import pt2ov_binary
    inputs, outputs = tmp_path / "in.npz", tmp_path / "out.npz"
    write_inputs(inputs, args)
    cmd = [str(pt2ov_binary()), "run", str(pt2), "--inputs", str(inputs), "--outputs", str(outputs),
           "--no-measure-placement", *options]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
                          env={**os.environ, **(env or {})})
    assert proc.returncode == 0, describe(proc)
    return read_outputs(outputs)[0]


def test_nan_made_by_openvino_from_finite_inputs_is_decided_by_the_cpu_kernels(tmp_path):
    """The output check: a stateless program whose finite inputs come out of OpenVINO as NaN runs
    the call again on the CPU kernels. The fault is injected by switching AttentionMaskedRowsNaN
    off (OpenVINO's attention then gives NaN for a query row whose mask keeps no key, PyTorch 0):
    the check alone makes the answer eager's, and with --nonfinite-inputs openvino the NaN shows."""
    torch.manual_seed(3)
    q, k, v = (torch.randn(1, 2, 4, 8) for _ in range(3))
    mask = torch.ones(1, 1, 4, 4, dtype=torch.bool).tril()
    mask[..., 0] = False  # key 0 is padding: query row 0 keeps no key
    pt2 = tmp_path / "masked.pt2"
    torch.export.save(torch.export.export(_MaskedAttention(), (q, k, v, mask)), pt2)
    expected = _MaskedAttention()(q, k, v, mask).numpy()
    assert not np.isnan(expected).any()
    fault = {"PT2OV_IGNORE_FACTS": "AttentionMaskedRowsNaN"}
    unchecked = _run_cli_with(tmp_path, pt2, (q, k, v, mask), "--nonfinite-inputs", "openvino", env=fault)
    assert np.isnan(unchecked).any(), "the injected fault no longer gives NaN: the test shows nothing"
    got = _run_cli_with(tmp_path, pt2, (q, k, v, mask), env=fault)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


class _LogOfInput(torch.nn.Module):
    def forward(self, x):
        return torch.log(x) * 2.0 + 1.0


def test_nan_eager_makes_from_finite_inputs_is_checked_on_the_cpu_kernels(tmp_path):
    """log of a negative input is NaN in eager and on OpenVINO: the call with a NaN output is run
    again on the CPU kernels (last_openvino_ns 0) and gives eager's pattern; a call with positive
    inputs stays on OpenVINO."""
    x = torch.rand(4, 8) + 0.5
    pt2 = tmp_path / "log.pt2"
    torch.export.save(torch.export.export(_LogOfInput(), (x,)), pt2)
    loaded = pt2ov.load(str(pt2), measure_placement=False)
    negative = x.clone()
    negative[1, 2] = -1.0
    for args, routed in (((x,), False), ((negative,), True), ((x,), False)):
        got = np.asarray(loaded(*args)[0])
        np.testing.assert_allclose(got, _LogOfInput()(*args).numpy(), rtol=1e-5, atol=1e-6)
        assert (loaded.last_openvino_ns == 0) == routed, f"routed={routed}, last_openvino_ns={loaded.last_openvino_ns}"
        assert np.isnan(got).any() == routed
