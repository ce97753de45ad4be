"""One OpInfo conformance case: an entry of PyTorch's own operator test database
(`torch.testing._internal.common_methods_invocations.op_db`), one dtype, one of its sample
inputs, one program form — exported, run through `build/pt2ov run`, compared with eager.

A sample becomes a `torch.nn.Module` whose forward takes the sample's tensors (wherever they
sit in its input, args and kwargs, lists and tuples included) as inputs; every other argument
is baked into the module. The module is exported once with `torch.export.export` and run in
both forms: as exported (training IR) and after `ep.run_decompositions()`.

Used by `tests/conformance/sweep.py` (the full sweep, `make conformance`) and by
`tests/conformance/test_conformance_subset.py` (the fixed subset in `make test`). Not a
command of its own.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import subprocess
import sys
import types
import unittest
import warnings
from typing import Callable, Optional

import numpy as np
import torch
from torch.utils._pytree import tree_flatten

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.e2e.conftest import read_outputs, write_inputs  # noqa: E402
from tests.models.compare import output_differences, to_numpy  # noqa: E402
from tests.models.export import MODES as FORMS, for_mode  # noqa: E402,F401

DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int32": torch.int32,
    "int64": torch.int64,
    "bool": torch.bool,
}
# (rtol, atol) by the dtype of the output; integers and bools compare exactly
HALF_TOLERANCE = (1e-2, 1e-3)
FLOAT_TOLERANCE = (1e-4, 1e-5)
SAMPLE_SEED = 0
PT2OV_TIMEOUT_S = 60

PASS, WRONG, REFUSED, CRASH, SKIP = "pass", "wrong", "refused", "crash", "skip"
STATUSES = (PASS, WRONG, REFUSED, CRASH, SKIP)


def pt2ov_binary() -> pathlib.Path:
    return pathlib.Path(os.environ.get("PT2OV_BIN", REPO_ROOT / "build" / "pt2ov"))


def load_op_db() -> list:
    """op_db, importable without the `expecttest` package: torch.testing._internal imports it
    only for a TestCase base class, which unittest's serves as well here."""
    if "expecttest" not in sys.modules:
        try:
            import expecttest  # noqa: F401
        except ImportError:
            stub = types.ModuleType("expecttest")
            stub.TestCase = unittest.TestCase
            sys.modules["expecttest"] = stub
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def op_key(op) -> str:
    """`name` or `name.variant`: what the results and the report call an op_db entry."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def op_dtypes(op, wanted: list[str]) -> list[str]:
    """The dtypes of `wanted` the op supports on CPU."""
    supported = op.supported_dtypes("cpu")
    return [d for d in wanted if DTYPES[d] in supported]


def first_samples(op, dtype: str, count: int) -> list:
    """The first `count` samples of the op for `dtype`, under a fixed seed so every run (and
    the subset test) sees the same tensors."""
    torch.manual_seed(SAMPLE_SEED)
    samples = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        generator = op.sample_inputs("cpu", DTYPES[dtype], requires_grad=False)
        for sample in generator:
            samples.append(sample)
            if len(samples) == count:
                break
        # closed now: left to the garbage collector, some generators' no_grad exit runs inside
        # a later export's tracer and fails there
        if hasattr(generator, "close"):
            generator.close()
    return samples


class SampleModule(torch.nn.Module):
    """Calls `fn(input, *args, **kwargs)` of one sample with its tensors taken from forward's
    inputs (in pytree order) and every other leaf as the sample had it."""

    def __init__(self, fn: Callable, leaves: list, spec, tensor_slots: list[int]):
        super().__init__()
        self.fn = fn
        # the non-tensor leaves only: a tensor kept here would become a constant of the program
        self.leaves = [None if i in set(tensor_slots) else leaf for i, leaf in enumerate(leaves)]
        self.spec = spec
        self.tensor_slots = tensor_slots

    def forward(self, *tensors):
        leaves = list(self.leaves)
        for slot, t in zip(self.tensor_slots, tensors):
            leaves[slot] = t
        inp, args, kwargs = self.spec.unflatten(leaves)
        out = self.fn(inp, *args, **kwargs)
        # torch.return_types (sort, kthvalue, ...) are named tuples torch.export.save cannot
        # serialize; their fields in order are what the caller gets
        return tuple(out) if isinstance(out, tuple) else out


@dataclasses.dataclass
class Prepared:
    """A sample ready to export and run, or the reason it is skipped."""
    module: Optional[SampleModule] = None
    inputs: tuple = ()
    expected: list = dataclasses.field(default_factory=list)
    skip: Optional[str] = None


def _clones(tensors) -> tuple:
    return tuple(t.clone() for t in tensors)


def _first_line(text: str, limit: int = 300) -> str:
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def _same(a: list, b: list) -> bool:
    return all(x.dtype == y.dtype and x.shape == y.shape and torch.equal(
        torch.nan_to_num(x, nan=0.0) if x.is_floating_point() else x,
        torch.nan_to_num(y, nan=0.0) if y.is_floating_point() else y) and
        (not x.is_floating_point() or torch.equal(x.isnan(), y.isnan()))
        for x, y in zip(a, b))


def prepare(op, sample) -> Prepared:
    """Wraps the sample in a module and computes eager's outputs, or says why it is skipped:
    no tensor input, complex tensors, non-tensor outputs, eager raising, or outputs that differ
    between two eager calls (random ops: nothing to compare with)."""
    leaves, spec = tree_flatten((sample.input, sample.args, sample.kwargs))
    slots = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
    if not slots:
        return Prepared(skip="no tensor input")
    inputs = tuple(leaves[i].detach() for i in slots)
    if any(t.is_complex() for t in inputs):
        return Prepared(skip="complex input")
    if any(t.layout != torch.strided for t in inputs):
        return Prepared(skip="sparse input")
    module = SampleModule(op.op, leaves, spec, slots)
    calls = []
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(2):
                out = module(*_clones(inputs))
                calls.append(tree_flatten(out)[0])
    except Exception as e:  # noqa: BLE001 - any eager failure makes the sample unusable
        return Prepared(skip=f"eager raised {type(e).__name__}: {_first_line(e)}")
    first, second = calls
    if not first:
        return Prepared(skip="no outputs")
    if not all(isinstance(t, torch.Tensor) for t in first):
        kinds = sorted({type(t).__name__ for t in first if not isinstance(t, torch.Tensor)})
        return Prepared(skip=f"non-tensor output ({', '.join(kinds)})")
    if any(t.is_complex() for t in first):
        return Prepared(skip="complex output")
    if any(t.layout != torch.strided for t in first):
        return Prepared(skip="sparse output")
    first = [t.detach().clone() for t in first]
    if not _same(first, second):
        return Prepared(skip="random output (two eager calls differ)")
    return Prepared(module=module, inputs=inputs, expected=first)


def random_nodes(ep: torch.export.ExportedProgram) -> list[str]:
    """The program's ops that draw random numbers. OpInfo reseeds some of them on every eager
    call (so eager looks deterministic), but that reseeding is not in the exported program."""
    found = []
    for node in ep.graph.nodes:
        tags = getattr(node.target, "tags", ())
        if (node.op == "call_function" and torch.Tag.nondeterministic_seeded in tags
                and not _draws_nothing(node)):
            found.append(str(node.target))
    return sorted(set(found))


# ops tagged random because they may drop out, which they do only with these arguments: the
# dropout probability is 0, or training is off
_DROPOUT_ARGUMENTS = {"dropout": ("p", "train"), "feature_dropout": ("p", "train"),
                      "alpha_dropout": ("p", "train"), "feature_alpha_dropout": ("p", "train"),
                      "native_dropout": ("p", "train"),
                      "scaled_dot_product_attention": ("dropout_p", None)}


def _draws_nothing(node) -> bool:
    schema = getattr(node.target, "_schema", None)
    names = _DROPOUT_ARGUMENTS.get(getattr(schema, "name", "").split("::")[-1])
    if names is None:
        return False
    values = {arg.name: arg.default_value for arg in schema.arguments}
    values.update({arg.name: value for arg, value in zip(schema.arguments, node.args)})
    values.update(node.kwargs)
    probability, train = names
    return values.get(probability) == 0 or (train is not None and values.get(train) is False)


# ops whose result is memory never written: eager can return anything, twice the same by chance
_UNINITIALIZED = {"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided",
                  "empty_permuted"}


def uninitialized_outputs(ep: torch.export.ExportedProgram) -> list[str]:
    """The program's outputs that come straight from an op returning uninitialized memory."""
    found = []
    for node in ep.graph.nodes:
        if node.op != "output":
            continue
        for value in tree_flatten(node.args)[0]:
            schema = getattr(getattr(value, "target", None), "_schema", None)
            if schema is not None and schema.name.split("::")[-1] in _UNINITIALIZED:
                found.append(str(value.target))
    return sorted(set(found))


def export(prepared: Prepared) -> torch.export.ExportedProgram:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.export.export(prepared.module, _clones(prepared.inputs))


def in_form(ep: torch.export.ExportedProgram, form: str) -> torch.export.ExportedProgram:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return for_mode(ep, form)


def save(ep: torch.export.ExportedProgram, path: pathlib.Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.export.save(ep, str(path))


@dataclasses.dataclass
class Outcome:
    status: str
    detail: str = ""


def run_pt2ov(pt2: pathlib.Path, inputs: tuple, workdir: pathlib.Path,
              threads: Optional[int] = None) -> tuple[Optional[list[np.ndarray]], Outcome]:
    """`pt2ov run` on one call. Returns (outputs, outcome): outputs only on exit 0; exit 2 is a
    refusal with its one-line message; any other exit, a signal or the timeout is a crash."""
    inp, out = workdir / "in.npz", workdir / "out.npz"
    out.unlink(missing_ok=True)
    write_inputs(inp, inputs)
    # The placement rules' plan, not a timed one: a sample is a small program, which load would
    # otherwise time and perhaps move to the CPU kernels, leaving OpenVINO's converters untested.
    cmd = [str(pt2ov_binary()), "run", "--no-measure-placement", str(pt2), "--inputs", str(inp), "--outputs", str(out)]
    if threads:
        cmd += ["--num-threads", str(threads)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=PT2OV_TIMEOUT_S, cwd=REPO_ROOT)
    except subprocess.TimeoutExpired:
        return None, Outcome(CRASH, f"timed out after {PT2OV_TIMEOUT_S} s")
    if proc.returncode == 2:
        return None, Outcome(REFUSED, _first_line(proc.stderr, 500))
    if proc.returncode != 0:
        how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
               else f"exit {proc.returncode}")
        message = _first_line(proc.stderr)
        return None, Outcome(CRASH, f"{how}: {message}" if message else how)
    try:
        return read_outputs(out), Outcome(PASS)
    except (OSError, AssertionError, ValueError) as e:
        return None, Outcome(CRASH, f"exit 0 but unreadable outputs: {_first_line(e)}")


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    return HALF_TOLERANCE if dtype in (torch.float16, torch.bfloat16) else FLOAT_TOLERANCE


def compare(actual: list[np.ndarray], expected: list[torch.Tensor]) -> str:
    """'' when every output matches eager's within the dtype's tolerance (tests/models/compare.py
    output_differences); otherwise what differed, output by output."""
    return output_differences(actual, expected, tolerance)[0]


def run_form(prepared: Prepared, ep: torch.export.ExportedProgram, form: str,
             workdir: pathlib.Path, threads: Optional[int] = None) -> Outcome:
    """One case end to end from an exported program: the form, saved, run, compared."""
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        prog = in_form(ep, form)
    except Exception as e:  # noqa: BLE001 - a torch failure is not the engine's
        return Outcome(SKIP, f"run_decompositions raised {type(e).__name__}: {_first_line(e)}")
    drawn = random_nodes(prog)
    if drawn:
        return Outcome(SKIP, f"random op ({', '.join(drawn)})")
    empty = uninitialized_outputs(prog)
    if empty:
        return Outcome(SKIP, f"uninitialized output ({', '.join(empty)})")
    pt2 = workdir / f"{form}.pt2"
    try:
        save(prog, pt2)
    except Exception as e:  # noqa: BLE001
        return Outcome(SKIP, f"torch.export.save raised {type(e).__name__}: {_first_line(e)}")
    outputs, outcome = run_pt2ov(pt2, prepared.inputs, workdir, threads)
    if outputs is None:
        return outcome
    diff = compare(outputs, prepared.expected)
    if not diff:
        return Outcome(PASS)
    differs = program_differs_from_eager(prog, prepared, outputs)
    return Outcome(SKIP, differs) if differs else Outcome(WRONG, diff)


def program_differs_from_eager(prog: torch.export.ExportedProgram, prepared: Prepared,
                               outputs: list[np.ndarray]) -> str:
    """Where pt2ov's outputs differ from eager's: whether the program torch handed over itself
    computes otherwise than eager (a decomposition that computes a float16 op in float32, say)
    while pt2ov returns what that program returns when PyTorch runs it. Then the difference is
    torch's, and the case is skipped with both differences named; '' otherwise (pt2ov's own)."""
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            own = tree_flatten(prog.module()(*_clones(prepared.inputs)))[0]
    except Exception:  # noqa: BLE001 - a program PyTorch cannot run says nothing either way
        return ""
    if len(own) != len(outputs) or not all(isinstance(t, torch.Tensor) for t in own):
        return ""
    if compare(outputs, own):
        return ""  # pt2ov differs from the program as well: its own error
    versus_eager = compare([to_numpy(t.detach()) for t in own], prepared.expected)
    if not versus_eager:
        return ""
    return ("torch's exported program itself differs from eager, and pt2ov returns what the program "
            f"returns under PyTorch: the program against eager, {_first_line(versus_eager, 200)}")


def export_or_skip(prepared: Prepared) -> tuple[Optional[torch.export.ExportedProgram], str]:
    try:
        ep = export(prepared)
    except Exception as e:  # noqa: BLE001 - export failures are skips, not engine results
        return None, f"export raised {type(e).__name__}: {_first_line(e)}"
    empty = uninitialized_outputs(ep)
    if empty:
        return None, f"uninitialized output ({', '.join(empty)})"
    drawn = random_nodes(ep)
    # a random node of the training IR skips both forms; run_form checks the decomposed one
    return (None, f"random op ({', '.join(drawn)})") if drawn else (ep, "")
