"""The state conformance matrix (tests/models/state_matrix.py): each cell is one mutation
pattern on one buffer (dtype, rank), in one archive form, with the mutation on OpenVINO, on
pt2ov's CPU kernels or split between them. Four calls on one load, each compared bit-exact
with eager called the same way (inputs differ per call).

`make test` runs the cells in `FAST`; `make test-state` (PT2OV_STATE_MATRIX=all) runs every
cell. A cell pt2ov refuses must be listed in REFUSED with why, and must be refused with exit 2
and one line on stderr; a listed cell that runs fails, so the list stays true.
"""
from __future__ import annotations

import fnmatch
import os

import pytest

from conftest import ProgramCache, assert_outputs_match, describe, run_cli, write_inputs
from tests.models.export import eager_outputs
from tests.models.state_matrix import CALLS, CELLS, FAST, REFUSED, case_for

RUN_ALL = os.environ.get("PT2OV_STATE_MATRIX") == "all"


def _refusal(cell_id: str) -> str | None:
    for pattern, why in REFUSED.items():
        if fnmatch.fnmatchcase(cell_id, pattern):
            return why
    return None


def _params():
    params = []
    for cell in CELLS:
        if not RUN_ALL and cell.id not in FAST:
            continue
        params.append(pytest.param(cell, id=cell.id))
    return params


@pytest.fixture(scope="session")
def state_programs(tmp_path_factory) -> ProgramCache:
    return ProgramCache(tmp_path_factory.mktemp("state-pt2"), lookup=case_for)


@pytest.mark.parametrize("cell", _params())
def test_state_cell(state_programs, tmp_path, cell):
    case = case_for(cell.program)
    program = state_programs.get(cell.program, cell.form, "static")
    calls = [case.make_inputs(i) for i in range(CALLS)]
    expected = eager_outputs(program.module, calls)
    args = ["run", program.path]
    for i, call in enumerate(calls):
        write_inputs(tmp_path / f"in{i}.npz", call)
        args += ["--inputs", tmp_path / f"in{i}.npz", "--outputs", tmp_path / f"out{i}.npz"]
    proc = run_cli(args + cell.cpu_options())
    why = _refusal(cell.id)
    if why is not None:
        assert proc.returncode == 2, f"listed as refused ({why}) but:\n{describe(proc)}"
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, f"a refusal is one line on stderr:\n{describe(proc)}"
        return
    assert proc.returncode == 0, describe(proc)
    from conftest import read_outputs
    for i, want in enumerate(expected):
        got = read_outputs(tmp_path / f"out{i}.npz")
        assert_outputs_match(got, want, case, label=f"{cell.id} call {i}")
