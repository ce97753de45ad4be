"""A fixed 200 random programs through pt2ov (`make test-random`, part of `make test`):
NNSmith seeds 0-99 and our own generator's seeds 0-99, both forms, each form in one placement
(OpenVINO where it can, or every op on the CPU kernels, in turn: each program runs in both),
compared with eager. The default placement is left to the full run: it times the program at
load and picks one of those two, so which one a run gets depends on the machine's load, and
a suite with strict expectations must not.
Any wrong output, crash or internal error fails its program's test, naming the seed; a clean
refusal passes. The full run with every placement and OpenVINO alone is
`make random-programs`.

Programs that show a known fault being fixed are strict xfails (KNOWN below): they fail the
suite the day they pass, so the entry is removed with the fix.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

N, SEED = 100, 0
PROGRAMS = [(g, s) for s in range(SEED, SEED + N) for g in ("nnsmith", "own")]

# (generator, seed) -> the known fault it shows (docs/CONFORMANCE.md, "Random programs"; the
# keys of tests/random_programs/known.py)
KNOWN: dict[tuple[str, int], str] = {}


@pytest.fixture(scope="session")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("random") / "results.jsonl"
    build = pathlib.Path(os.environ.get("PT2OV_BUILD", REPO_ROOT / "build"))
    if not (build / "python").is_dir():
        pytest.fail(f"{build}/python does not exist: run `make build` first", pytrace=False)
    cmd = [sys.executable, "-m", "tests.random_programs.run", "--n", str(N), "--seed", str(SEED),
           "--generator", "both", "--forms", "exported,decomposed", "--spread",
           "--placements", "openvino,cpu", "--openvino", "never",
           "--workers", "2", "--timeout", "120", "--results", str(out)]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=1800)
    print(proc.stdout[-4000:])
    assert proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stderr[-3000:]}"
    recs = {}
    for line in out.read_text().splitlines():
        r = json.loads(line)
        recs[(r["generator"], r["seed"])] = r
    return recs


def test_most_programs_run(results):
    """The screen must leave most programs to run: a generator that stops making valid
    programs would otherwise make the suite pass on nothing."""
    ran = [k for k, r in results.items() if r["status"] == "ran"]
    assert len(results) == len(PROGRAMS), f"{len(PROGRAMS) - len(results)} programs have no result"
    for gen in ("nnsmith", "own"):
        mine = [k for k in ran if k[0] == gen]
        assert len(mine) >= 60, f"only {len(mine)} of {N} {gen} programs ran"
    passes = sum(rec["verdict"] == "pass" for r in results.values() for rec in r["records"])
    assert passes >= 200, f"only {passes} runs passed"


@pytest.mark.parametrize("program", [pytest.param(
    p, id=f"{p[0]}:{p[1]}",
    marks=[pytest.mark.xfail(strict=True, reason=KNOWN[p])] if p in KNOWN else [])
    for p in PROGRAMS])
def test_program(results, program):
    r = results.get(program)
    assert r is not None, f"{program[0]}:{program[1]}: no result"
    assert r["status"] != "generator failed", f"{program[0]}:{program[1]}: {r.get('detail')}"
    bad = [rec for rec in r["records"] if rec["verdict"] in ("wrong", "crash", "internal")]
    assert not bad, (
        f"{program[0]}:{program[1]} (replay: python -m tests.random_programs.run --replay "
        f"{program[0]}:{program[1]}):\n" + "\n".join(
            f"  {rec['form']} {rec['placement']}: {rec['verdict']}: {rec.get('detail', '')[:400]}"
            for rec in bad))
