"""State as a user sees it: the running counter of issue 12 over many calls, `pt2ov run
--state-in/--state-out` (set buffers before the first call, write them after the last), and
`pt2ov inspect` listing each mutated buffer.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from conftest import ProgramCache, describe, inspect_json, run_cli, run_engine_in, write_inputs
from tests.models import ModelCase
from tests.models.export import eager_outputs
from tests.models.regressions import ZeroDimCounter  # the running counter of issue 12


class TwoBuffers(torch.nn.Module):
    """A float counter and a bf16 history row, both carried."""

    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))
        self.register_buffer("hist", torch.zeros(2, 3, dtype=torch.bfloat16))
        self.register_buffer("fixed", torch.ones(3))  # read, never written: not state

    def forward(self, x):
        self.count += 1
        self.hist.copy_(torch.roll(self.hist, 1, 0))
        self.hist[0] = x.to(torch.bfloat16)
        return self.count.clone(), self.hist.sum(0).float() + self.fixed


_CASES = {
    "counter": ModelCase("counter", lambda: ZeroDimCounter().eval(), lambda v: (torch.ones(3),)),
    "two_buffers": ModelCase("two_buffers", lambda: TwoBuffers().eval(),
                             lambda v: (torch.arange(3.0) + v,)),
}


@pytest.fixture(scope="session")
def programs(tmp_path_factory) -> ProgramCache:
    return ProgramCache(tmp_path_factory.mktemp("state-api"), lookup=_CASES.__getitem__)


@pytest.mark.parametrize("form", ["exported", "decomposed"])
def test_counter_counts_over_four_calls(programs, tmp_path, form):
    program = programs.get("counter", form, "static")
    calls = [(torch.ones(3),)] * 4
    expected = eager_outputs(program.module, calls)
    assert [float(e[0]) for e in expected] == [3.0, 6.0, 9.0, 12.0]
    got = run_engine_in(tmp_path, program.path, calls)
    assert [float(g[0]) for g in got] == [3.0, 6.0, 9.0, 12.0]
    for g, e in zip(got, expected):
        assert g[0].dtype == np.float32 and g[0].shape == ()
        assert g[0].tobytes() == e[0].numpy().tobytes()


def _run(tmp_path, pt2, n_calls, *extra):
    args = ["run", pt2]
    for i in range(n_calls):
        write_inputs(tmp_path / f"in{i}.npz", (torch.ones(3),))
        args += ["--inputs", tmp_path / f"in{i}.npz", "--outputs", tmp_path / f"out{i}.npz"]
    return run_cli(args + list(extra))


@pytest.mark.parametrize("form", ["exported", "decomposed"])
def test_state_out_then_state_in_carries_on(programs, tmp_path, form):
    """Two runs of 2 calls, the state handed over by file, give what one run of 4 calls gives."""
    program = programs.get("counter", form, "static")
    state = tmp_path / "state.npz"
    proc = _run(tmp_path, program.path, 2, "--state-out", state)
    assert proc.returncode == 0, describe(proc)
    with np.load(state) as npz:
        assert list(npz.files) == ["count"]
        assert npz["count"].dtype == np.float32 and npz["count"].shape == () and float(npz["count"]) == 6.0
    proc = _run(tmp_path, program.path, 2, "--state-in", state)
    assert proc.returncode == 0, describe(proc)
    with np.load(tmp_path / "out1.npz") as npz:
        assert float(npz["arr_0"]) == 12.0


def test_state_in_sets_before_the_first_call(programs, tmp_path):
    program = programs.get("counter", "exported", "static")
    state = tmp_path / "start.npz"
    np.savez(state, count=np.array(100.0, dtype=np.float32))
    proc = _run(tmp_path, program.path, 1, "--state-in", state, "--state-out", tmp_path / "end.npz")
    assert proc.returncode == 0, describe(proc)
    with np.load(tmp_path / "out0.npz") as npz:
        assert float(npz["arr_0"]) == 103.0
    with np.load(tmp_path / "end.npz") as npz:
        assert float(npz["count"]) == 103.0


def test_several_buffers_bf16_state_files(programs, tmp_path):
    """Only mutated buffers are state; a bf16 buffer travels as float32, exactly."""
    program = programs.get("two_buffers", "exported", "static")
    calls = [(torch.arange(3.0) + v,) for v in range(3)]
    state = tmp_path / "state.npz"
    got = run_engine_in(tmp_path, program.path, calls, ["--state-out", state])
    expected = eager_outputs(program.module, calls)
    for g, e in zip(got, expected):
        assert np.array_equal(g[0], e[0].numpy()) and np.array_equal(g[1], e[1].numpy())
    eager = copy.deepcopy(program.module)  # the cache's module stays pristine
    with torch.no_grad():
        for args in calls:
            eager(*args)
    with np.load(state) as npz:
        assert sorted(npz.files) == ["count", "hist"]
        assert npz["hist"].dtype == np.float32
        assert np.array_equal(npz["hist"], eager.hist.float().numpy())
        assert float(npz["count"]) == 3.0


@pytest.mark.parametrize("content,message", [
    ({"nope": np.zeros((), np.float32)}, "array 'nope' is not a buffer the program mutates (its state: count)"),
    ({"count": np.zeros((1,), np.float32)}, "state 'count' is float32 of shape (); the value given is float32 of shape (1,)"),
    ({"count": np.zeros((), np.float64)}, "state 'count' is float32 of shape (); the value given is float64 of shape ()"),
])
def test_state_in_errors_name_the_buffer(programs, tmp_path, content, message):
    program = programs.get("counter", "exported", "static")
    state = tmp_path / "bad.npz"
    np.savez(state, **content)
    proc = _run(tmp_path, program.path, 1, "--state-in", state)
    assert proc.returncode == 2, describe(proc)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], describe(proc)
    assert not (tmp_path / "out0.npz").exists(), "a refused state file must stop the run before any call"


def test_state_options_in_help():
    proc = run_cli(["run", "--help"])
    assert proc.returncode == 0, describe(proc)
    assert "--state-in" in proc.stdout and "--state-out" in proc.stdout


@pytest.mark.parametrize("options,update,carried", [
    ((), "openvino", "two buffers held by pt2ov, used in turn"),
    (("--cpu-op", "aten.add_"), "cpu", "a new tensor per call"),
])
def test_inspect_lists_the_state(programs, options, update, carried):
    program = programs.get("counter", "exported", "static")
    doc = inspect_json(program.path, *options)
    state = doc["methods"]["forward"]["state"]
    assert len(state) == 1, state
    assert state[0]["name"] == "count" and state[0]["dtype"] == "float32" and state[0]["shape"] == []
    assert state[0]["update"] == update and carried in state[0]["carried"], state
    assert state[0]["step"] >= 1 and state[0]["node"], state
    proc = run_cli(["inspect", program.path, *options])
    assert proc.returncode == 0, describe(proc)
    assert f"state count: float32 (), updated on {update}" in proc.stdout, proc.stdout
