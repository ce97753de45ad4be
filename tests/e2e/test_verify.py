"""--verify (runtime/verify.h): each OpenVINO step run at load beside pt2ov's CPU kernels in a
child process; a step that disagrees or kills the child runs on the CPU kernels.

Faults are injected by switching their facts off (PT2OV_IGNORE_FACTS): each program below
comes back wrong (or kills the process) without its fact, and right with --verify alone.
"""
from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest

from conftest import REPO_ROOT, describe, pt2ov_binary, read_outputs, write_inputs
from tests.models import get_case
from tests.models.export import call_inputs, eager_outputs

# (zoo case, the fact switched off). UnitConvolutionStridedPaddedShape is not among them: its
# compiled model declares the wrong shape, which load sees without --verify
# (test_output_guard.py); nor AbsOfFoldedConstantRankOne: the constants' arithmetic it needs is
# computed once at load on the CPU kernels, so its fault does not reach OpenVINO.
FAULTS = [
    ("abs_of_concat", "AbsOfConcatRankOne"),
    ("interpolate_to_size_one", "InterpolateToSizeOneAtOrigin"),
    ("dilated_unit_kernel_convolution", "DilatedUnitKernelCrash"),
]


def _pt2ov(args, env=None, timeout=600):
    cmd = [str(pt2ov_binary()), *[str(a) for a in args]]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT,
                          env={**os.environ, **(env or {})}, errors="replace")


def _run(tmp_path, pt2, call, *options, env=None):
    inputs, outputs = tmp_path / "in.npz", tmp_path / "out.npz"
    outputs.unlink(missing_ok=True)
    write_inputs(inputs, call)
    proc = _pt2ov(["run", pt2, "--inputs", inputs, "--outputs", outputs, "--no-measure-placement", *options], env)
    return proc, (read_outputs(outputs) if proc.returncode == 0 and outputs.exists() else None)


def _matches(got, want, case) -> bool:
    rtol, atol = case.tolerance
    flat = [w for w in (want if isinstance(want, (tuple, list)) else [want])]
    if got is None or len(got) != len(flat):
        return False
    return all(g.shape == tuple(w.shape) and np.allclose(g, w.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)
               for g, w in zip(got, flat))


@pytest.mark.parametrize("name,fact", FAULTS, ids=[f for _, f in FAULTS])
def test_verify_catches_a_fault_with_its_fact_off(tmp_path, zoo_programs, name, fact):
    case = get_case(name)
    program = zoo_programs.get(name, "exported", "static")
    call = call_inputs(case, "static")[0]
    (expected,) = eager_outputs(program.module, [call])
    off = {"PT2OV_IGNORE_FACTS": fact}

    # Without the fact and without --verify, the fault shows: a wrong answer, an error or a crash.
    proc, got = _run(tmp_path, program.path, call, env=off)
    assert not _matches(got, expected, case), f"{fact} off, no --verify: expected the fault to show\n{describe(proc)}"

    # With --verify, the faulty step moves to the CPU kernels and the answer is PyTorch's.
    proc, got = _run(tmp_path, program.path, call, "--verify", env=off)
    assert proc.returncode == 0, describe(proc)
    assert _matches(got, expected, case), (got, expected)

    proc = _pt2ov(["inspect", program.path, "--json", "--verify", "--no-measure-placement"], env=off)
    assert proc.returncode == 0, describe(proc)
    verification = json.loads(proc.stdout)["methods"]["forward"]["verification"]
    assert verification["steps_moved"] >= 1, verification
    reasons = [node["reason"] for step in json.loads(proc.stdout)["methods"]["forward"]["steps"]
               for node in step["nodes"] if "verified at load" in node["reason"]]
    assert reasons, proc.stdout


def test_verify_moves_nothing_on_a_right_program(tmp_path, zoo_programs):
    case = get_case("mlp")
    program = zoo_programs.get("mlp", "exported", "static")
    call = call_inputs(case, "static")[0]
    (expected,) = eager_outputs(program.module, [call])
    proc, got = _run(tmp_path, program.path, call, "--verify")
    assert proc.returncode == 0, describe(proc)
    assert _matches(got, expected, case)
    proc = _pt2ov(["inspect", program.path, "--verify", "--no-measure-placement"])
    assert proc.returncode == 0, describe(proc)
    assert "verified at load: 1 OpenVINO step(s) run beside the CPU kernels, 0 moved" in proc.stdout, proc.stdout


def test_verify_outcome_is_kept_in_the_cache_dir(tmp_path, zoo_programs):
    program = zoo_programs.get("abs_of_concat", "exported", "static")
    cache = tmp_path / "cache"
    cache.mkdir()
    off = {"PT2OV_IGNORE_FACTS": "AbsOfConcatRankOne"}
    args = ["inspect", program.path, "--json", "--verify", "--no-measure-placement", "--cache-dir", cache]
    first = _pt2ov(args, env=off)
    assert first.returncode == 0, describe(first)
    assert list(cache.glob("pt2ov-verify-*.txt")), list(cache.iterdir())
    second = _pt2ov(args, env=off)
    assert second.returncode == 0, describe(second)
    one, two = (json.loads(p.stdout)["methods"]["forward"] for p in (first, second))
    assert not one["verification"]["from_cache"] and two["verification"]["from_cache"]
    assert one["steps"] == two["steps"]


def test_verify_names_a_missing_worker(tmp_path, zoo_programs):
    program = zoo_programs.get("mlp", "exported", "static")
    proc = _pt2ov(["inspect", program.path, "--verify"], env={"PT2OV_VERIFY_WORKER": str(tmp_path / "nothing-here")})
    assert proc.returncode != 0, describe(proc)
    assert "nothing-here" in proc.stderr or "pt2ov-verify-worker" in proc.stderr, describe(proc)
