"""The exactness contract (docs/EXACTNESS.md, E1-E7) on the programs that break it first: copies, views and
aliases of inputs and constants, dim orders, every dtype, precision hints, mutated state, and
whole programs under --strict. The programs are in tests/models/exactness.py (not in the zoo's
registry: these tests run them with their own options and checks).

Every run makes THREE calls on one loaded program: variant 0, then other inputs (variant 1, of
another size, for a dynamic program; variant 2, same size and other values, for a static one),
then variant 0 again. Each call is compared with a deep copy of the eager module called the
same way (so mutated buffers advance alike), and after the run:
  - E1: every output that is a copy or view is bit-exact (bits compared, so -0.0, subnormals
    and NaN payloads count; the sign bit is checked again on its own);
  - E5: computed floats within rtol 1e-4 / atol 1e-5, integers and bools exactly, dtypes equal
    (bf16 travels as float32);
  - E2: the input .npz files hold exactly what was written;
  - E6: for a program without state, the third call returns the first call's outputs, bit for
    bit.
"""
from __future__ import annotations

import dataclasses
import hashlib
import pathlib

import numpy as np
import pytest
import torch

from conftest import ProgramCache, call_function_nodes, describe, inspect_json, read_outputs, run_cli, write_inputs
from tests.models import ModelCase
from tests.models.compare import assert_output_matches, assert_outputs_match, to_numpy
from tests.models.exactness import CASES, DTYPES
from tests.models.export import MODES, SHAPES, eager_outputs

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# --- programs, exported once per session ------------------------------------------------------
@dataclasses.dataclass
class Program:
    case: ModelCase
    mode: str
    shape: str
    path: pathlib.Path
    ep: torch.export.ExportedProgram
    module: torch.nn.Module  # the module before export, for eager references

    @property
    def stateful(self) -> bool:
        """Mutates a buffer: declared in the signature (after run_decompositions) or done by an
        in-place op in the graph (as exported, `add_` stays in the graph)."""
        if self.ep.graph_signature.buffers_to_mutate:
            return True
        return any(n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
                   and n.target._schema.is_mutable for n in self.ep.graph.nodes)

    def calls(self) -> list[tuple]:
        """Three calls: variant 0, other inputs, variant 0 again (E6)."""
        other = 1 if self.shape == "dynamic" else 2
        return [self.case.make_inputs(0), self.case.make_inputs(other), self.case.make_inputs(0)]

    @property
    def label(self) -> str:
        return f"{self.case.name}-{self.mode}-{self.shape}"


class Programs:
    """The exactness programs, exported and saved once each (the zoo's cache over CASES)."""

    def __init__(self, root: pathlib.Path):
        self._cache = ProgramCache(root, lookup=CASES.__getitem__)

    def get(self, name: str, mode: str, shape: str) -> Program:
        saved = self._cache.get(name, mode, shape)
        return Program(CASES[name], mode, shape, saved.path, saved.ep, saved.module)


@pytest.fixture(scope="session")
def programs(tmp_path_factory) -> Programs:
    return Programs(tmp_path_factory.mktemp("exactness-pt2"))


# --- running the engine, with the E2 check on the input files -----------------------------------
def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(_UINT[a.dtype.itemsize]) if a.dtype.kind == "f" else a


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(_bits(a), _bits(b))


@dataclasses.dataclass
class Run:
    proc: object
    outputs: list  # list (per call) of lists of arrays; empty when the run failed


def run_program(workdir: pathlib.Path, prog: Program, calls: list, options=(), tag="run",
                expect_ok: bool = True) -> Run:
    """`pt2ov run` with one --inputs/--outputs pair per call on one load; then checks that
    every input file still holds exactly what was written (E2)."""
    workdir.mkdir(parents=True, exist_ok=True)
    args = ["run", prog.path]
    written, digests, ins, outs = [], [], [], []
    for i, call in enumerate(calls):
        inp, out = workdir / f"{tag}{i}_in.npz", workdir / f"{tag}{i}_out.npz"
        write_inputs(inp, call)
        with np.load(inp, allow_pickle=False) as npz:
            written.append({k: npz[k].copy() for k in npz.files})
        digests.append(hashlib.sha256(inp.read_bytes()).hexdigest())
        args += ["--inputs", inp, "--outputs", out]
        ins.append(inp)
        outs.append(out)
    args += list(options)
    proc = run_cli(args)
    for i, inp in enumerate(ins):  # E2, whatever the exit status
        assert hashlib.sha256(inp.read_bytes()).hexdigest() == digests[i], (
            f"E2: {inp} changed on disk during the run\n{describe(proc)}")
        with np.load(inp, allow_pickle=False) as npz:
            for k, want in written[i].items():
                assert _same_bits(npz[k], want), f"E2: input {k} of call {i} changed"
    if not expect_ok:
        return Run(proc, [])
    assert proc.returncode == 0, describe(proc)
    for out in outs:
        assert out.is_file(), f"exit 0 but {out} was not written\n{describe(proc)}"
    return Run(proc, [read_outputs(out) for out in outs])


def exact_indices(case: ModelCase, n: int) -> list[int]:
    return list(range(n)) if case.expect_exact else [i for i in case.exact_outputs if i < n]


def assert_copy_exact(got: np.ndarray, want: torch.Tensor, label: str) -> None:
    """E1: bit-exact, dtype and shape equal; for floats also NaN where NaN and the sign bit
    (-0.0) checked on their own, so a failure says which of them broke."""
    assert_output_matches(got, want, rtol=0.0, atol=0.0, exact=True, label=label)
    w = to_numpy(want)
    if w.dtype.kind == "f":
        assert np.array_equal(got, w, equal_nan=True), f"{label}: values differ"
        assert np.array_equal(np.signbit(got), np.signbit(w)), f"{label}: sign bits differ (-0.0)"


def check_run(prog: Program, run: Run, calls: list, options=()) -> None:
    """Every call against eager (E1, E5), then E6 for a program without state."""
    case = prog.case
    expected = eager_outputs(prog.module, calls)
    where = f"{prog.label}{(' ' + ' '.join(options)) if options else ''}"
    problems = []
    for i, (got, want) in enumerate(zip(run.outputs, expected)):
        try:
            assert_outputs_match(got, want, case, label=f"{where} call {i}")
            for j in exact_indices(case, len(want)):
                assert_copy_exact(got[j], want[j], f"{where} call {i} output {j}")
        except AssertionError as e:
            problems.append(str(e))
    assert not problems, "\n".join(problems)
    if not prog.stateful:  # E6: the third call repeats the first
        for j, (a, b) in enumerate(zip(run.outputs[0], run.outputs[2])):
            assert _same_bits(a, b), (
                f"E6: {where} output {j}: the third call (variant 0 again) differs from the first")


# =================================================================================================
# E1, E2, E5, E6 on every program, static and dynamic, as exported and decomposed
# =================================================================================================
STRICT = {n for n in CASES if n.startswith("strict_")}

# (case, CLI options): programs also run with work forced onto the CPU kernels.
OPTION_RUNS = [
    # a constant read on the CPU (mul) and in OpenVINO (add); held once (E7)
    ("constant_read_by_cpu_and_ov", ("--cpu-op", "aten.mul")),
    # the channels-last copy made on the CPU, then crossing into the partition that reduces it
    ("channels_last_clone_mean", ("--cpu-op", "aten.clone")),
    ("channels_last_clone_returned", ("--cpu-op", "aten.clone")),
    ("channels_last_clone_returned", ("--cpu-op", "aten.sin")),
    ("input_clone_and_sin", ("--cpu-op", "aten.sin")),
    ("constant_clone_chain_channels_last", ("--cpu-op", "aten.sin")),
    ("constant_only_partition", ("--cpu-op", "aten.clone")),
    # --strict keeps `self.buf * 2 + 1` on OpenVINO: a step with no inputs
    ("constant_only_partition", ("--strict",)),
]


# Outputs that must come back as equal arrays: one tensor returned twice, a tensor and its copy,
# two copies of one tensor.
EQUAL_OUTPUTS = {
    "same_tensor_twice": [(0, 1)],
    "result_and_its_copy": [(0, 1)],
    "two_copies_of_result": [(0, 1)],
    "two_copies_of_constant": [(0, 1)],
    "two_copies_of_constant_min": [(0, 1)],
    "preserve_format_clone_constants": [(0, 2), (0, 3)],
}


def _params():
    params = []
    runs = [(n, ()) for n in CASES if n not in STRICT] + OPTION_RUNS
    for name, options in runs:
        for mode in MODES:
            for shape in SHAPES:
                tid = f"{name}-{mode}-{shape}" + "".join(
                    f"-{o.lstrip('-')}" for o in options)
                params.append(pytest.param(name, mode, shape, options, id=tid))
    return params


@pytest.mark.parametrize("name,mode,shape,options", _params())
def test_exact(programs, tmp_path, name, mode, shape, options):
    prog = programs.get(name, mode, shape)
    calls = prog.calls()
    run = run_program(tmp_path, prog, calls, options)
    check_run(prog, run, calls, options)
    for a, b in EQUAL_OUTPUTS.get(name, ()):
        for i, outs in enumerate(run.outputs):
            assert _same_bits(outs[a], outs[b]), (
                f"call {i}: outputs {a} and {b} are one tensor (or its copy) in PyTorch but came "
                "back as two different arrays")


# =================================================================================================
# Precision hints: copies stay bit-exact (docs/EXACTNESS.md K6, E1)
# =================================================================================================
PRECISION_CASES = [
    "precision_copies",
    "input_clone_and_sin",
    "input_clone_clone_and_sin",
    "buffer_copy_and_add",
    "parameter_copy_and_add",
    "constant_copy_and_add",
    "two_copies_of_constant",
    "constant_copies_all_dtypes",
    "channels_last_clone_returned",
    "preserve_format_clone_constants",
    "preserve_format_clone_channels_last_constant",
    "mutated_count_copy_f32",
]


def _precision_params():
    params = []
    for precision in ("f16", "bf16"):
        for name in PRECISION_CASES:
            for mode in MODES:
                for shape in (SHAPES if name == "precision_copies" else ("dynamic",)):
                    params.append(pytest.param(name, mode, shape, precision,
                                               id=f"{name}-{mode}-{shape}-{precision}"))
    return params


@pytest.mark.parametrize("name,mode,shape,precision", _precision_params())
def test_copies_exact_under_precision(programs, tmp_path, name, mode, shape, precision):
    prog = programs.get(name, mode, shape)
    calls = prog.calls()
    run = run_program(tmp_path, prog, calls, ["--precision", precision])
    expected = eager_outputs(prog.module, calls)
    problems = []
    for i, (got, want) in enumerate(zip(run.outputs, expected)):
        assert len(got) == len(want), f"call {i}: {len(got)} outputs, PyTorch has {len(want)}"
        for j, (g, w) in enumerate(zip(got, want)):
            w_np = to_numpy(w)
            if g.dtype != w_np.dtype or g.shape != w_np.shape:
                problems.append(f"call {i} output {j}: {g.dtype}{g.shape}, expected "
                                f"{w_np.dtype}{w_np.shape}")
        for j in exact_indices(prog.case, len(want)):
            try:
                assert_copy_exact(got[j], want[j],
                                  f"{prog.label} --precision {precision} call {i} output {j}")
            except AssertionError as e:
                problems.append(str(e))
    assert not problems, "\n".join(problems)


def test_pi_and_subnormals_survive_f16_hint(programs, tmp_path):
    """The numbers of docs/EXACTNESS.md K6: 3.14159265 stays 3.14159265 in f32, [1e-40, -0.0] stay."""
    prog = programs.get("precision_copies", "exported", "static")
    calls = prog.calls()[:1]
    for precision in ("f16", "bf16"):
        run = run_program(tmp_path / precision, prog, calls, ["--precision", precision])
        b32 = run.outputs[0][0]
        assert b32[0] == np.float32(3.14159265), f"--precision {precision}: pi came back {b32[0]!r}"
        assert b32[1] == np.float32(1e-40), f"--precision {precision}: 1e-40 came back {b32[1]!r}"
        assert b32[2] == 0 and np.signbit(b32[2]), f"--precision {precision}: -0.0 came back {b32[2]!r}"
        x = run.outputs[0][1]
        assert x[0, 0] == np.float32(3.14159265) and x[0, 1] == np.float32(1e-40) and np.signbit(x[0, 2]), (
            f"--precision {precision}: input copy came back {x[0, :3]!r}")


# =================================================================================================
# Whole programs under --strict (docs/EXACTNESS.md K3, E4)
# =================================================================================================
def _strict_params():
    return [pytest.param(name, mode, shape, id=f"{name}-{mode}-{shape}")
            for name in sorted(STRICT) for mode in MODES for shape in SHAPES]


@pytest.mark.parametrize("name,mode,shape", _strict_params())
def test_strict_whole_program_clone(programs, tmp_path, name, mode, shape):
    prog = programs.get(name, mode, shape)
    calls = prog.calls()
    # The copy is made by pt2ov from the input, so it is exact for every dtype, int64 beyond
    # 32 bits included, with no CPU fallback needed (issue: "exact on any OpenVINO").
    run = run_program(tmp_path, prog, calls, ["--strict"], expect_ok=False)
    proc = run.proc
    assert proc.returncode == 0, describe(proc)
    run.outputs = [read_outputs(tmp_path / f"run{i}_out.npz") for i in range(len(calls))]
    check_run(prog, run, calls, ["--strict"])


# =================================================================================================
# E2 and E6 spelled out on the programs that return their input's copy
# =================================================================================================
@pytest.mark.parametrize("name", ["input_clone_and_sin", "int64_passthrough", "strict_clone_bool",
                                  "same_tensor_twice", "constant_only_partition"])
def test_inputs_unchanged_and_repeatable(programs, tmp_path, name):
    """E2: the input files are unchanged (checked in run_program) and the arrays each call
    returns as a copy of its input equal what was passed in; E6: call 3 == call 1."""
    prog = programs.get(name, "exported", "dynamic")
    calls = prog.calls()
    run = run_program(tmp_path, prog, calls)
    check_run(prog, run, calls)
    if name in ("input_clone_and_sin", "int64_passthrough", "strict_clone_bool"):
        for i, call in enumerate(calls):
            assert _same_bits(run.outputs[i][0], to_numpy(call[0])), (
                f"call {i}: the copy of the input is not the input that was passed")
    # a fresh load of the first call's inputs gives the same outputs as the loaded one did
    fresh = run_program(tmp_path / "fresh", prog, calls[:1])
    for j, (a, b) in enumerate(zip(run.outputs[0], fresh.outputs[0])):
        assert _same_bits(a, b), f"E6: output {j} differs between a fresh load and call 1"


# =================================================================================================
# Placement: inspect --json (every node once, copies placed with a reason, constants held once)
# =================================================================================================
_COPY_TARGETS = ("aten.clone", "aten.alias", "aten.detach", "aten.slice", "aten._to_copy",
                 "aten.copy", "aten.lift_fresh_copy", "_clone_dim_order")


def _inspect_params():
    runs = [(n, ()) for n in CASES] + OPTION_RUNS
    return [pytest.param(name, mode, options,
                         id=f"{name}-{mode}" + "".join(f"-{o.lstrip('-')}" for o in options))
            for name, options in runs for mode in MODES]


@pytest.mark.parametrize("name,mode,options", _inspect_params())
def test_inspect_placement(programs, name, mode, options):
    prog = programs.get(name, mode, "dynamic")
    doc = inspect_json(prog.path, *options)
    method = doc["methods"]["forward"]
    graph_nodes = call_function_nodes(prog.path)
    listed = [(s["kind"], n) for s in method["steps"] for n in s["nodes"]]
    names = [n["name"] for _, n in listed]
    dupes = sorted({n for n in names if names.count(n) > 1})
    assert not dupes, f"nodes listed more than once: {dupes}"
    assert set(names) == set(graph_nodes), (
        f"missing from the steps: {sorted(set(graph_nodes) - set(names))}; "
        f"not in the graph: {sorted(set(names) - set(graph_nodes))}")
    for kind, node in listed:
        assert kind in ("openvino", "cpu"), kind
        assert node["target"] == graph_nodes[node["name"]].replace("torch.ops.", "", 1) or \
            node["target"] in graph_nodes[node["name"]], (node, graph_nodes[node["name"]])
        if any(t in node["target"] for t in _COPY_TARGETS):
            assert isinstance(node["reason"], str) and node["reason"].strip(), (
                f"copy {node['name']} ({node['target']}) has no reason: {node}")
    # E7: constants held once, whatever runs where
    ep = torch.export.load(str(prog.path))
    tensors = list(ep.state_dict.values()) + [c for c in ep.constants.values()
                                              if isinstance(c, torch.Tensor)]
    constants = method["constants"]
    assert constants["count"] == len(tensors), constants
    assert constants["bytes"] == sum(t.nbytes for t in tensors), constants
    assert constants["resident_bytes"] == constants["bytes"], f"E7: {constants}"
    on = {n["name"]: kind for kind, n in listed}
    for i in range(0, len(options), 2):
        if options[i] == "--cpu-op":
            op = options[i + 1]
            forced = [n for n, t in graph_nodes.items()
                      if t.replace("torch.ops.", "", 1) == op
                      or t.replace("torch.ops.", "", 1).startswith(op + ".")]
            assert forced, f"{op} is not in the graph"
            assert all(on[n] == "cpu" for n in forced), (
                f"--cpu-op {op}: {[n for n in forced if on[n] != 'cpu']} not on the CPU")
    if name == "constant_only_partition" and options in ((), ("--strict",)):
        # by default constants' arithmetic is computed once at load on the CPU kernels; --strict
        # keeps it an OpenVINO part with no inputs, the case K8 is there for
        work = [n for n, t in graph_nodes.items() if "aten.mul" in t or "aten.add" in t]
        where = "openvino" if options else "cpu"
        assert work and all(on[n] == where for n in work), (
            f"`self.buf * 2 + 1` does not run on {where}: {[(n, on[n]) for n in work]}")
    if name == "channels_last_clone_mean" and options:
        # the channels-last copy made on the CPU must cross into the partition that reduces it
        means = [n for n, t in graph_nodes.items() if "aten.mean" in t]
        assert means and all(on[n] == "openvino" for n in means), (
            f"the mean is not in OpenVINO: {[(n, on[n]) for n in means]}")
    if name == "constant_read_by_cpu_and_ov" and options:
        adds = [n for n, t in graph_nodes.items() if "aten.add" in t]
        assert adds and all(on[n] == "openvino" for n in adds), (
            f"aten.add should read the buffer in OpenVINO: {[(n, on[n]) for n in adds]}")


# =================================================================================================
# Every dtype of constant copy, its dtype checked by name (bf16 travels as float32)
# =================================================================================================
@pytest.mark.parametrize("dname", list(DTYPES))
def test_constant_copy_dtype_travels(programs, tmp_path, dname):
    prog = programs.get(f"constant_copy_{dname}", "exported", "static")
    run = run_program(tmp_path, prog, prog.calls()[:1])
    got = run.outputs[0][0]
    buf = prog.module.b
    want = np.dtype("float32") if buf.dtype == torch.bfloat16 else to_numpy(buf).dtype
    assert got.dtype == want, f"{dname} copy came back as {got.dtype}"
    assert_copy_exact(got, buf, f"constant_copy_{dname}")
