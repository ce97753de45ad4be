"""A fixed subset of the OpInfo conformance sweep (tests/conformance/sweep.py), run by
`make test`: every (op, dtype, form) the sweep found wrong or crashing, as a strict expected
failure, and a sample of passing ops across families. A fix shows up as XPASS: move the case
to PASSING. Eager's outputs are computed here, never copied in.

    .venv/bin/python -m pytest tests/conformance -q

Each case runs the same samples as the sweep (the first SAMPLES of the op's sample_inputs
under a fixed seed) and fails when any sample that runs is not a pass.
"""
from __future__ import annotations

import pathlib
import sys

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.conformance import cases  # noqa: E402

SAMPLES = 2
OPENVINO = "OpenVINO 2026.4.1"

# (op, dtype, form) that pass today, a few of each family
PASSING = [
]

# (op, dtype, form) -> what is wrong, as measured
KNOWN_FAILING = {
}


@pytest.fixture(scope="module")
def ops_by_key() -> dict:
    return {cases.op_key(op): op for op in cases.load_op_db()}


# (op, dtype, sample) -> (Prepared, ExportedProgram or skip reason): both forms of a case share
# one export, the slow part
_EXPORTED: dict = {}


def _exported(opinfo, op: str, dtype: str) -> list:
    result = []
    samples = None
    for index in range(SAMPLES):
        key = (op, dtype, index)
        if key not in _EXPORTED:
            if samples is None:
                samples = cases.first_samples(opinfo, dtype, SAMPLES)
            if index >= len(samples):
                break
            prepared = cases.prepare(opinfo, samples[index])
            ep, why = (None, prepared.skip) if prepared.skip else cases.export_or_skip(prepared)
            _EXPORTED[key] = (prepared, ep, why)
        result.append(_EXPORTED[key])
    return result


def _params():
    for op, dtype, form in PASSING:
        yield pytest.param(op, dtype, form, id=f"{op}-{dtype}-{form}")
    for (op, dtype, form), why in KNOWN_FAILING.items():
        yield pytest.param(op, dtype, form, id=f"{op}-{dtype}-{form}", marks=pytest.mark.xfail(
            strict=True, reason=f"{why} (measured on {OPENVINO})"))


@pytest.mark.parametrize("op, dtype, form", list(_params()))
def test_opinfo_case(ops_by_key, op, dtype, form, tmp_path):
    assert op in ops_by_key, f"{op} is no longer in op_db"
    problems, ran = [], 0
    for index, (prepared, ep, why) in enumerate(_exported(ops_by_key[op], op, dtype)):
        if why:
            continue
        outcome = cases.run_form(prepared, ep, form, tmp_path / f"sample{index}")
        if outcome.status == cases.SKIP:
            continue
        ran += 1
        if outcome.status != cases.PASS:
            problems.append(f"sample {index}: {outcome.status}: {outcome.detail}")
    assert ran, f"{op} {dtype}: every sample was skipped; the case tests nothing"
    assert not problems, "\n".join(problems)
