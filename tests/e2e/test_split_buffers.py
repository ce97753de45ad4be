"""A stacked cache (one buffer for every layer, written and read through per-layer views,
tests/models/state.py `stacked_cache`) runs as one buffer per layer (graph/split_buffers.cpp),
and the user sees the stacked buffer as before: its state name, `--state-in`/`--state-out` of
the whole tensor, inspect's report (which says it was split, into how many). A buffer with a use
that is not a pick of one constant layer stays whole, and the program stays right.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from conftest import (ProgramCache, assert_outputs_match, describe, inspect_json, run_cli, run_engine_in,
                      write_inputs)
from tests.models import get_case
from tests.models.export import eager_outputs

FORMS = ["exported", "decomposed"]
CALLS = 8
# zoo case → how each of its buffers runs: split into this many, or 0 (kept whole)
SPLITS = {
    "stacked_cache": {"k_cache": 3, "v_cache": 3},
    "stacked_cache_whole": {"k_cache": 0, "v_cache": 3},  # k_cache.sum() reads it whole
    "stacked_cache_dynamic_row": {"k_cache": 3, "v_cache": 0},  # index_select by a tensor
    "stacked_cache_other_dim": {"k_cache": 0, "v_cache": 3},  # k_cache.select(1, 0)
}


@pytest.fixture(scope="session")
def programs(tmp_path_factory) -> ProgramCache:
    return ProgramCache(tmp_path_factory.mktemp("split-buffers"))


def _calls(name: str, count: int) -> list[tuple]:
    """Each call writes another position with other values, so every layer's rows change."""
    case = get_case(name)
    calls = []
    for k in range(count):
        x, _, layer = case.make_inputs(k % 2)
        calls.append((x * (k + 1), torch.tensor([(2 * k + 1) % 5]), (layer + k) % 3))
    return calls


def _eager_state(module: torch.nn.Module, calls: list[tuple]) -> dict[str, np.ndarray]:
    eager = copy.deepcopy(module)
    with torch.no_grad():
        for args in calls:
            eager(*args)
    return {name: buffer.numpy() for name, buffer in eager.named_buffers()}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", list(SPLITS))
def test_inspect_says_which_buffers_are_split(programs, name, form):
    program = programs.get(name, form, "static")
    state = {s["name"]: s for s in inspect_json(program.path)["methods"]["forward"]["state"]}
    assert {n: s["split_into"] for n, s in state.items()} == SPLITS[name]
    for buffer, parts in SPLITS[name].items():
        assert state[buffer]["shape"] == [3, 2, 5, 4] and state[buffer]["dtype"] == "float32"
        assert ("split into 3 buffers" in state[buffer]["carried"]) == (parts > 0), state[buffer]


@pytest.mark.parametrize("options", [(), ("--no-openvino-state",)], ids=["openvino-state", "pt2ov-state"])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", list(SPLITS))
def test_many_calls_match_eager_and_state_is_bit_exact(programs, tmp_path, name, form, options):
    program = programs.get(name, form, "static")
    calls = _calls(name, CALLS)
    state = tmp_path / "state.npz"
    got = run_engine_in(tmp_path, program.path, calls, [*options, "--state-out", state])
    expected = eager_outputs(program.module, calls)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert_outputs_match(g, e, get_case(name), label=f"{name}-{form} call {i}")
    eager_state = _eager_state(program.module, calls)
    with np.load(state) as npz:
        assert sorted(npz.files) == ["k_cache", "v_cache"]
        for buffer in npz.files:
            assert npz[buffer].shape == (3, 2, 5, 4)
            assert npz[buffer].tobytes() == eager_state[buffer].tobytes(), buffer


@pytest.mark.parametrize("form", FORMS)
def test_state_out_then_state_in_carries_on(programs, tmp_path, form):
    """Two runs of 3 calls, the whole stacked buffers handed over by file, give what one run of 6
    calls gives, bit for bit; a state file written by hand sets every layer."""
    program = programs.get("stacked_cache", form, "static")
    calls = _calls("stacked_cache", 6)

    def run(part, *extra):
        args = ["run", program.path]
        for i, call in enumerate(part):
            write_inputs(tmp_path / f"in{i}.npz", call)
            args += ["--inputs", tmp_path / f"in{i}.npz", "--outputs", tmp_path / f"out{i}.npz"]
        proc = run_cli(args + list(extra))
        assert proc.returncode == 0, describe(proc)

    run(calls[:3], "--state-out", tmp_path / "half.npz")
    run(calls[3:], "--state-in", tmp_path / "half.npz", "--state-out", tmp_path / "end.npz")
    eager_state = _eager_state(program.module, calls)
    with np.load(tmp_path / "end.npz") as npz:
        for buffer in ("k_cache", "v_cache"):
            assert npz[buffer].tobytes() == eager_state[buffer].tobytes(), buffer

    # Every layer's part is set from its row of the file: the state comes back as written, but
    # for the position the call writes in each layer.
    start = {b: np.random.default_rng(7 + i).standard_normal((3, 2, 5, 4)).astype(np.float32)
             for i, b in enumerate(("k_cache", "v_cache"))}
    np.savez(tmp_path / "start.npz", **start)
    run(calls[:1], "--state-in", tmp_path / "start.npz", "--state-out", tmp_path / "after.npz")
    eager = copy.deepcopy(program.module)
    for b, value in start.items():
        getattr(eager, b).copy_(torch.from_numpy(value))
    with torch.no_grad():
        expected = eager(*calls[0])
    with np.load(tmp_path / "after.npz") as npz:
        for b in start:
            assert npz[b].tobytes() == getattr(eager, b).numpy().tobytes(), b
    with np.load(tmp_path / "out0.npz") as npz:
        assert npz["arr_1"].tobytes() == expected[1].numpy().tobytes()  # k_cache[2] * 2, exact


def test_state_in_of_a_wrong_shape_names_the_stacked_buffer(programs, tmp_path):
    program = programs.get("stacked_cache", "exported", "static")
    np.savez(tmp_path / "bad.npz", k_cache=np.zeros((2, 5, 4), np.float32))
    write_inputs(tmp_path / "in.npz", _calls("stacked_cache", 1)[0])
    proc = run_cli(["run", program.path, "--inputs", tmp_path / "in.npz", "--outputs", tmp_path / "out.npz",
                    "--state-in", tmp_path / "bad.npz"])
    assert proc.returncode == 2, describe(proc)
    assert "state 'k_cache' is float32 of shape (3, 2, 5, 4); the value given is float32 of shape (2, 5, 4)" in proc.stderr
