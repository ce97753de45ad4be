"""Regions torch.export keeps as higher-order ops that only scope (src/graph/scoping_regions.cpp),
beyond the zoo's cases (tests/models/scoping_regions.py):

- `with torch.set_grad_enabled(False)` leaves an empty region with no results beside the one
  holding the block; torch.export.load refuses such a program, so the zoo cannot hold it, but
  the engine runs it as eager does;
- a composite op in an enabled CPU autocast region, whose parts autocast may cast one by one, is
  refused at load naming the node and what to do; its run_decompositions() form runs.
"""
from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.export import Dim

from conftest import ProgramCache, describe, run_cli, write_inputs
from tests.models import ModelCase
from tests.models.compare import assert_outputs_match
from tests.models.export import call_inputs, eager_outputs


class SetGradEnabledBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 6)

    def forward(self, x):
        with torch.set_grad_enabled(False):
            y = self.lin(x).sin()
        return y * x, y


class EinsumUnderAutocast(nn.Module):
    def forward(self, x, w):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = torch.einsum("bi,ij->bj", x, w)
        return y


def _inputs(seed, *shapes):
    def make(variant):
        torch.manual_seed(seed + variant)
        return tuple(torch.randn(*((3, 5)[variant] if s is None else s for s in shape)) for shape in shapes)

    return make


CASES = {
    case.name: case
    for case in (
        ModelCase(
            name="set_grad_enabled_block",
            make_module=lambda: SetGradEnabledBlock().eval(),
            make_inputs=_inputs(1600, (None, 6)),
            dynamic_shapes=({0: Dim("batch", min=1, max=16)},),
        ),
        ModelCase(
            name="einsum_under_autocast",
            make_module=lambda: EinsumUnderAutocast().eval(),
            make_inputs=_inputs(1610, (None, 4), (4, 3)),
            dynamic_shapes=({0: Dim("batch", min=1, max=16)}, None),
            rtol=4e-2,
            atol=4e-2,
            why="the einsum runs as a bfloat16 bmm (8-bit significand), a few bf16 ulps apart",
        ),
    )
}


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    return ProgramCache(tmp_path_factory.mktemp("regions"), lookup=CASES.__getitem__)


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_set_grad_enabled_block(programs, run_engine, mode):
    case = CASES["set_grad_enabled_block"]
    program = programs.get(case.name, mode, "dynamic")
    calls = call_inputs(case, "dynamic")
    expected = eager_outputs(program.module, calls)
    for i, (got, want) in enumerate(zip(run_engine(program.path, calls), expected)):
        assert_outputs_match(got, want, case, label=f"{case.name}-{mode} call {i}")


def test_composite_under_autocast_is_refused(programs, tmp_path):
    program = programs.get("einsum_under_autocast", "exported", "dynamic")
    inputs = tmp_path / "in.npz"
    write_inputs(inputs, CASES["einsum_under_autocast"].make_inputs(0))
    proc = run_cli(["run", program.path, "--inputs", inputs, "--outputs", tmp_path / "out.npz"])
    assert proc.returncode == 2, describe(proc)
    for expected in ("aten.einsum.default", "autocast region", "run_decompositions()"):
        assert expected in proc.stderr, describe(proc)
    assert not (tmp_path / "out.npz").exists()


def test_composite_under_autocast_runs_decomposed(programs, run_engine):
    case = CASES["einsum_under_autocast"]
    program = programs.get(case.name, "decomposed", "dynamic")
    calls = call_inputs(case, "dynamic")
    expected = eager_outputs(program.module, calls)
    for i, (got, want) in enumerate(zip(run_engine(program.path, calls), expected)):
        assert_outputs_match(got, want, case, label=f"{case.name}-decomposed call {i}")
