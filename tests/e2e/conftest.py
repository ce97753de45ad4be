"""Shared fixtures for the end-to-end tests: the `build/pt2ov` command, running it on .npz
files, and the zoo's exported programs (each exported once per session).

The command-line contract these tests rely on is in README.md ("The command line").
Set PT2OV_BIN to test another binary than build/pt2ov.
"""
from __future__ import annotations

import copy
import dataclasses
import json
import logging
import os
import pathlib
import re
import subprocess
import sys
import warnings
from typing import Iterable, Sequence

import numpy as np
import pytest
import torch

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.models import get_case  # noqa: E402
from tests.models.compare import assert_outputs_match, to_numpy  # noqa: E402,F401
from tests.models.export import export_case, flatten, for_mode  # noqa: E402,F401

CLI_TIMEOUT_S = 300


def pytest_configure(config):
    # torch's own deprecation noise from deep-copying exported programs; not ours to fix
    config.addinivalue_line("filterwarnings", "ignore:.*LeafSpec.*:FutureWarning")
    # torch.export logs every traced op at DEBUG; a failing test's report should show ours
    logging.getLogger("torch.__trace").setLevel(logging.INFO)


# --- the command ------------------------------------------------------------------------------
def pt2ov_binary() -> pathlib.Path:
    """build/pt2ov (or $PT2OV_BIN). Missing is a failure, never a skip: run `make` first."""
    path = pathlib.Path(os.environ.get("PT2OV_BIN", REPO_ROOT / "build" / "pt2ov"))
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"{path} does not exist or is not executable: run `make` in {REPO_ROOT} "
                    "to build it (or set PT2OV_BIN)", pytrace=False)
    return path


# Placement by measurement (LoadOptions::measure_placement) would move a small program to the
# CPU kernels or not by the machine's timing of the moment; the tests check the placement
# rules' plan, which is deterministic, and time placement only where they say so
# (measure_placement=True; tests/e2e/test_placement_timing.py).
PLACEMENT_COMMANDS = {"run", "inspect", "bench"}


def run_cli(args: Sequence[str | os.PathLike], timeout: float = CLI_TIMEOUT_S,
            measure_placement: bool = False) -> subprocess.CompletedProcess:
    """Runs `pt2ov ARGS...`, capturing stdout and stderr as text."""
    args = [str(a) for a in args]
    if not measure_placement and args and args[0] in PLACEMENT_COMMANDS:
        args.insert(1, "--no-measure-placement")
    cmd = [str(pt2ov_binary())] + args
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              errors="replace", cwd=REPO_ROOT)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"`{' '.join(cmd)}` did not finish within {timeout}s; stderr so far:\n"
                    f"{e.stderr}", pytrace=False)


def cpu_flags() -> set[str]:
    """This CPU's feature flags as /proc/cpuinfo lists them (avx2, avx512_vnni, amx_bf16, ...),
    independently of the engine's own detection."""
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def describe(proc: subprocess.CompletedProcess) -> str:
    return (f"`{' '.join(proc.args)}` exited {proc.returncode}\n--- stdout ---\n{proc.stdout}"
            f"\n--- stderr ---\n{proc.stderr}")


# --- .npz files -------------------------------------------------------------------------------
def write_inputs(path: pathlib.Path, args) -> None:
    """The flattened user inputs of one call, as np.savez(path, *inputs) names them."""
    arrays = [to_numpy(t) if isinstance(t, torch.Tensor) else np.asarray(t) for t in flatten(args)]
    np.savez(path, *arrays)


_ARR = re.compile(r"arr_(\d+)")


def read_outputs(path: pathlib.Path) -> list[np.ndarray]:
    """arr_0, arr_1, ... in numeric order; any other name is a contract violation."""
    with np.load(path, allow_pickle=False) as npz:
        names = list(npz.files)
        numbers = []
        for name in names:
            m = _ARR.fullmatch(name)
            assert m, f"{path}: array {name!r} is not named arr_N (contract: np.savez order)"
            numbers.append(int(m.group(1)))
        assert sorted(numbers) == list(range(len(numbers))), (
            f"{path}: arrays {sorted(names)} are not arr_0..arr_{len(names) - 1}")
        return [npz[f"arr_{i}"] for i in range(len(numbers))]


def run_engine_in(workdir: pathlib.Path, pt2: os.PathLike, calls: Iterable, extra_args=(),
                  tag: str = "call", measure_placement: bool = False) -> list[list[np.ndarray]]:
    """Runs `pt2ov run PT2` once with one --inputs/--outputs pair per entry of `calls` (each a
    tuple of example args, a pytree) — successive calls on ONE loaded program — asserts exit 0
    and returns each call's outputs."""
    workdir.mkdir(parents=True, exist_ok=True)
    args = ["run", pt2]
    outs = []
    for i, call in enumerate(calls):
        inp = workdir / f"{tag}{i}_in.npz"
        out = workdir / f"{tag}{i}_out.npz"
        write_inputs(inp, call)
        args += ["--inputs", inp, "--outputs", out]
        outs.append(out)
    args += list(extra_args)
    proc = run_cli(args, measure_placement=measure_placement)
    assert proc.returncode == 0, describe(proc)
    for out in outs:
        assert out.is_file(), f"exit 0 but {out} was not written\n{describe(proc)}"
    return [read_outputs(out) for out in outs]


@pytest.fixture
def run_engine(tmp_path):
    """run_engine(pt2, list_of_input_tuples, extra_args=()) -> list of output lists."""
    counter = iter(range(1_000_000))

    def run(pt2, calls, extra_args=()):
        return run_engine_in(tmp_path, pt2, calls, extra_args, tag=f"run{next(counter)}_")

    return run


# --- the zoo's programs, exported once per session ----------------------------------------------
@dataclasses.dataclass
class Program:
    path: pathlib.Path  # the saved .pt2
    ep: torch.export.ExportedProgram  # what was saved
    module: torch.nn.Module  # the module as it was before export, for eager references


class ProgramCache:
    """Exports each case once per (case, shape) and saves each (case, mode, shape) once.
    `lookup` finds a case by name: the zoo's registry unless a suite has cases of its own."""

    def __init__(self, root: pathlib.Path, lookup=None):
        self.root = root
        self._lookup = lookup or get_case
        self._exported: dict[tuple[str, str], tuple[torch.export.ExportedProgram, torch.nn.Module]] = {}
        self._programs: dict[tuple[str, str, str], Program] = {}

    def get(self, name: str, mode: str = "exported", shape: str = "dynamic") -> Program:
        key = (name, mode, shape)
        if key not in self._programs:
            case = self._lookup(name)
            if (name, shape) not in self._exported:
                module = case.make_module()
                pristine = copy.deepcopy(module)
                self._exported[(name, shape)] = (export_case(case, module, shape), pristine)
            ep, pristine = self._exported[(name, shape)]
            prog = for_mode(ep, mode)
            path = self.root / f"{name}-{mode}-{shape}.pt2"
            with warnings.catch_warnings():
                # torch's archive writer warns about a channels_last weight ("No complete
                # tensor found in the group"); it still saves it whole
                warnings.filterwarnings("ignore", message="No complete tensor found")
                torch.export.save(prog, str(path))
            self._programs[key] = Program(path, prog, pristine)
        return self._programs[key]


@pytest.fixture(scope="session")
def zoo_programs(tmp_path_factory) -> ProgramCache:
    return ProgramCache(tmp_path_factory.mktemp("pt2"))


def inspect_json(pt2, *options, measure_placement: bool = False) -> dict:
    """`pt2ov inspect PT2 --json [options]`, parsed; fails the test on a bad exit or bad JSON."""
    proc = run_cli(["inspect", pt2, "--json", *options], measure_placement=measure_placement)
    assert proc.returncode == 0, describe(proc)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        pytest.fail(f"inspect --json did not print valid JSON ({e})\n{describe(proc)}")


def steps_at_call(steps: list[dict]) -> list[dict]:
    """inspect's steps without the nodes computed once at load (what reads constants only): the
    steps a call runs, neighbours of one kind merged."""
    kept: list[dict] = []
    for step in steps:
        nodes = [n for n in step["nodes"] if "computed once at load" not in n["reason"]]
        if not nodes:
            continue
        if kept and kept[-1]["kind"] == step["kind"]:
            kept[-1]["nodes"] = kept[-1]["nodes"] + nodes
        else:
            kept.append({**step, "nodes": nodes})
    return kept


def call_function_nodes(pt2: os.PathLike) -> dict[str, str]:
    """name -> str(target) of every call_function node of the program saved at `pt2`."""
    ep = torch.export.load(str(pt2))
    return {n.name: str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
