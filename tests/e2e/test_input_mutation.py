"""Programs that write into their inputs (issue 44): as in PyTorch, the caller's tensor holds the
new value after the call. pt2ov writes it into the caller's memory (the C++ API's input tensors,
the Python module's numpy arrays and torch tensors, read in place); an input it cannot write (a
read-only array, or one it would have to copy) is refused at call time, before the call runs.
Gemma 2's static cache writes its cache_position input through an alias (`.to()` of its own
dtype); examples/export_llm.py's gemma2 family generates through it (tests/e2e/test_generate.py).
"""
from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "build" / "python"))
import pt2ov  # noqa: E402


class AddsInPlace(torch.nn.Module):
    def forward(self, x, steps):
        x.add_(1.5)
        alias = steps.to(torch.int64)  # the same tensor: its own dtype
        alias.mul_(2)
        return x * 2.0, steps + 1


def _export(tmp_path, form):
    x, steps = torch.randn(3, 4), torch.arange(5)
    ep = torch.export.export(AddsInPlace(), (x.clone(), steps.clone()))
    if form == "decomposed":
        ep = ep.run_decompositions()
    path = tmp_path / f"adds_{form}.pt2"
    torch.export.save(ep, str(path))
    return path, x, steps


@pytest.mark.parametrize("form", ["exported", "decomposed"])
def test_written_inputs_hold_the_new_value_as_in_pytorch(tmp_path, form):
    path, x, steps = _export(tmp_path, form)
    program = pt2ov.load(str(path), measure_placement=False)
    assert [info.written for info in program.inputs] == [True, True]
    assert not any(info.written for info in program.outputs)
    eager_x, eager_steps = x.clone(), steps.clone()
    with torch.no_grad():
        expected = AddsInPlace()(eager_x, eager_steps)
    # numpy arrays, twice: each call writes again, as eager's would.
    mine_x, mine_steps = x.numpy().copy(), steps.numpy().copy()
    got = program(mine_x, mine_steps)
    np.testing.assert_allclose(got[0], expected[0].numpy(), rtol=1e-6)
    np.testing.assert_array_equal(got[1], expected[1].numpy())
    np.testing.assert_allclose(mine_x, eager_x.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(mine_steps, eager_steps.numpy())
    program(mine_x, mine_steps)
    with torch.no_grad():
        AddsInPlace()(eager_x, eager_steps)
    np.testing.assert_allclose(mine_x, eager_x.numpy(), rtol=1e-6)
    # torch tensors, read in place through DLPack.
    torch_x, torch_steps = x.clone(), steps.clone()
    program(torch_x, torch_steps)
    np.testing.assert_allclose(torch_x.numpy(), (x + 1.5).numpy(), rtol=1e-6)
    np.testing.assert_array_equal(torch_steps.numpy(), (steps * 2).numpy())


def test_an_input_that_cannot_be_written_is_refused_before_the_call(tmp_path):
    path, x, steps = _export(tmp_path, "exported")
    program = pt2ov.load(str(path), measure_placement=False)
    frozen = x.numpy().copy()
    frozen.flags.writeable = False
    with pytest.raises(pt2ov.InputError, match="input 'x' is written by the program in place.*is read-only"):
        program(frozen, steps.numpy().copy())
    assert np.array_equal(frozen, x.numpy()), "a refused call wrote the array"
    strided = np.asfortranarray(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))
    before = strided.copy()
    with pytest.raises(pt2ov.InputError, match="is not C-contiguous"):
        program(strided, steps.numpy().copy())
    assert np.array_equal(strided, before)


@pytest.mark.parametrize("form", ["exported", "decomposed"])
def test_the_command_line_writes_the_inputs_back_with_inputs_out(tmp_path, form):
    """`pt2ov run --inputs-out`: each call's inputs as the call left them, named after the
    inputs, so the file is the next call's --inputs (two calls chained, as eager's would run)."""
    from conftest import describe, run_cli

    path, x, steps = _export(tmp_path, form)
    first = tmp_path / "in0.npz"
    np.savez(first, x.numpy(), steps.numpy())
    eager_x, eager_steps = x.clone(), steps.clone()
    outs, ins = [], []
    current = first
    for call in range(2):
        out, written = tmp_path / f"out{call}.npz", tmp_path / f"in{call + 1}.npz"
        proc = run_cli(["run", str(path), "--inputs", str(current), "--outputs", str(out), "--inputs-out", str(written)])
        assert proc.returncode == 0, describe(proc)
        with torch.no_grad():
            expected = AddsInPlace()(eager_x, eager_steps)
        with np.load(out) as got:
            np.testing.assert_allclose(got["arr_0"], expected[0].numpy(), rtol=1e-6)
            np.testing.assert_array_equal(got["arr_1"], expected[1].numpy())
        program = pt2ov.load(str(path), measure_placement=False)
        names = [info.name for info in program.inputs]
        with np.load(written) as left:
            assert sorted(left.files) == sorted(names)
            np.testing.assert_allclose(left[names[0]], eager_x.numpy(), rtol=1e-6)
            np.testing.assert_array_equal(left[names[1]], eager_steps.numpy())
        current = written
    # one --inputs-out per --inputs, and never over an input file
    proc = run_cli(["run", str(path), "--inputs", str(first), "--outputs", str(tmp_path / "o.npz"),
                    "--inputs-out", str(first)])
    assert proc.returncode == 2 and "--inputs-out" in proc.stderr and "destroy" in proc.stderr, describe(proc)
    proc = run_cli(["run", str(path), "--inputs", str(first), "--outputs", str(tmp_path / "a.npz"), "--inputs", str(first),
                    "--outputs", str(tmp_path / "b.npz"), "--inputs-out", str(tmp_path / "c.npz")])
    assert proc.returncode == 2 and "one --inputs-out file per --inputs file" in proc.stderr, describe(proc)
