"""The zoo on structured inputs (tests/models/structured_inputs.py; issue 43): every case's
static program, in both forms, called on zeros, a constant, large and small magnitudes,
integers at the int32 edge and padded masks instead of random normal values, each compared
with eager PyTorch called on the same inputs here, at the case's tolerance (NaN where eager has
NaN, +-inf exactly; docs/EXACTNESS.md E5). Under `large` the atol is scaled by each output's
largest magnitude: values of 1e18 that cancel leave roundings of their size.

The domains of one program run as successive calls of ONE `pt2ov run` (one --inputs/--outputs
pair each), compared with one copy of the eager module called in the same order, so a mutated
buffer advances alike; where that run fails, each domain runs alone to say which. A domain
eager refuses (an index at the int32 edge) or overflows at every magnitude (`large`) is skipped
with the reason eager gave. A difference eager itself does not decide is skipped with why, never
passed: where eager's float32 answer is itself outside the tolerance of its float64 one
(ill-conditioned), or where the program's own eager (ExportedProgram.module(): torch's
decompositions) gives pt2ov's values. `pytest -rs` lists them.

`nonfinite` (NaN and +-inf in the float inputs) is a test of its own, one run per program: pt2ov
computes such a call on its CPU kernels or refuses it (exit 2, one line naming the non-finite
inputs, where the program cannot run there wholly); a refusal passes (the run lists them at its
end), a wrong value fails.

`make test` runs the cases in FAST; `make test-structured` (PT2OV_STRUCTURED=all) runs every
case.
"""
from __future__ import annotations

import copy
import os
import re
import warnings

import numpy as np
import pytest
import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from conftest import describe, flatten, read_outputs, run_cli, to_numpy, write_inputs
from tests.models import all_cases, get_case
from tests.models import structured_inputs as si
from tests.models.compare import assert_output_matches
from tests.models.export import MODES, eager_outputs
from tests.random_programs.harness import first_nan_inside

RUN_ALL = os.environ.get("PT2OV_STRUCTURED") == "all"

# A fixed, representative slice for `make test`: linear and conv layers, norms (zero variance
# under `constant`), attention with a padded mask, a bool mask, integer arithmetic at the edge,
# a mutated buffer, a recurrent network, reductions to a scalar.
FAST = (
    "mlp",
    "conv_bn_relu",
    "attention_block",
    "rms_norm_fused",
    "norm_of_equal_values",
    "sdpa_left_padded_mask",
    "where_masked_fill",
    "broadcast_arith",
    "int32_floor_div",
    "buffer_mutation",
    "gru",
    "constant_over_full_reduction",
)

# {"case-mode-domain": why}: known differences, strict xfails (a fix makes them fail loudly).
KNOWN: dict[str, str] = {
    "linspace_dtypes-exported-int_edge": "linspace(-1, 1, 7)[3]: eager's kernel computes 1 - step * 3 with an FMA "
    "(-2.98e-8, its AVX2 build), pt2ov's at load without (0, as the decomposed program's own eager): 64 against "
    "0 once multiplied by 2**31",
}

REFUSED: list[str] = []  # programs that refused their nonfinite call (listed at the end of the run)


@pytest.fixture(scope="module", autouse=True)
def _list_refusals(request):
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if REFUSED and reporter is not None:
        reporter.write_line(f"\nnonfinite: {len(REFUSED)} program(s) refused their call (exit 2), as allowed: "
                            + ", ".join(REFUSED))


_REFUSAL = re.compile(r"non-?finite|NaN or inf", re.IGNORECASE)


def _cases() -> list[str]:
    return [c.name for c in all_cases()] if RUN_ALL else list(FAST)


def _names(case, module=None):
    module = module if module is not None else case.make_module()
    return si.input_names(module, case.make_inputs(0))


def _params(domains):
    params = []
    for name in _cases():
        case = get_case(name)
        inputs = case.make_inputs(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            names = _names(case)
        for mode in MODES:
            for domain in si.applicable(inputs, names, domains):
                test_id = f"{name}-{mode}-{domain}"
                marks = [pytest.mark.xfail(reason=KNOWN[test_id], strict=True)] if test_id in KNOWN else []
                params.append(pytest.param(name, mode, domain, id=test_id, marks=marks))
    return params


def _fresh_eager(module):
    def eager(tree):
        return eager_outputs(module, [tree])[0]
    return eager


_variants: dict[tuple[str, tuple], list] = {}


def _case_variants(name: str, module, domains) -> list:
    """The case's variants (eager-checked once per case, whichever form asks first)."""
    key = (name, tuple(domains))
    if key not in _variants:
        case = get_case(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _variants[key] = si.variants(case.make_inputs(0), _fresh_eager(module),
                                         si.input_names(module, case.make_inputs(0)), domains)
    return _variants[key]


class Batch:
    """One program's domains: the engine's outputs (or its failure) and eager's, per domain."""

    def __init__(self, program, variants, workdir):
        self.variants = {v.domain: v for v in variants}
        self.results: dict[str, tuple] = {}  # domain -> ("ok", got, want, label) | ("error", text)
        runnable = [v for v in variants if not v.skip]
        if not runnable:
            return
        if not self._run(program, runnable, workdir, "batch"):
            for v in runnable:  # say which domain the failing run was about
                self._run(program, [v], workdir, v.domain, alone=True)

    def _run(self, program, variants, workdir, tag, alone=False) -> bool:
        workdir.mkdir(parents=True, exist_ok=True)
        args = ["run", program.path]
        outs = []
        for i, v in enumerate(variants):
            inp, out = workdir / f"{tag}{i}_in.npz", workdir / f"{tag}{i}_out.npz"
            write_inputs(inp, v.inputs)
            args += ["--inputs", inp, "--outputs", out]
            outs.append(out)
        proc = run_cli(args)
        if proc.returncode != 0:
            if alone:
                self.results[variants[0].domain] = ("error", describe(proc))
            return False
        expected = eager_outputs(program.module, [v.inputs for v in variants])
        order = " -> ".join(v.domain for v in variants)
        for i, (v, out, want) in enumerate(zip(variants, outs, expected)):
            label = f"{v.domain} (call {i} of {order})" if len(variants) > 1 else v.domain
            self.results[v.domain] = ("ok", read_outputs(out), want, label)
        return True


_batches: dict[tuple[str, str, tuple], Batch] = {}


def _batch(zoo_programs, tmp_path_factory, name, mode, domains) -> tuple:
    key = (name, mode, tuple(domains))
    if key not in _batches:
        _batches.clear()  # one program's results at a time: tests run program by program
        program = zoo_programs.get(name, mode, "static")
        variants = _case_variants(name, program.module, domains)
        workdir = tmp_path_factory.mktemp(f"structured-{name}-{mode}")
        _batches[key] = (Batch(program, variants, workdir), program)
    return _batches[key]


def _tolerances(case, domain, want) -> list[tuple[float, float]]:
    """(rtol, atol) per output: the case's; under `large` the atol is multiplied by the output's
    largest finite magnitude (at least 1), as for deep float32 networks
    (tests/models/compare.py, atol_scaled_by_largest): values of 1e18 that cancel leave
    roundings of 1e18 * 2**-24 in whatever order they are summed."""
    rtol, atol = case.tolerance
    out = []
    for w in want:
        scale = 1.0
        if domain == "large" and w.dtype.is_floating_point and w.numel():
            finite = w[torch.isfinite(w)]
            scale = max(1.0, float(finite.abs().max())) if finite.numel() else 1.0
        out.append((rtol, atol * scale))
    return out


def _compare(got, want, case, domain, label):
    """assert_outputs_match at _tolerances: every mismatch, not only the first."""
    if len(got) != len(want):
        raise AssertionError(f"{label}: {len(got)} outputs, PyTorch returns {len(want)}")
    problems = []
    for i, (g, w, (rtol, atol)) in enumerate(zip(got, want, _tolerances(case, domain, want))):
        try:
            assert_output_matches(g, w, rtol=rtol, atol=atol, exact=case.expect_exact or i in case.exact_outputs,
                                  label=f"{label} output {i}")
        except AssertionError as err:
            problems.append(str(err))
    if problems:
        raise AssertionError("\n".join(problems))


def _outside(got, want, case, domain) -> list[tuple[int, np.ndarray]]:
    """(output index, mask of the values outside the tolerance) of every float output that has
    any; None where a non-float output, a dtype or a shape differs."""
    found = []
    for i, (g, w, (rtol, atol)) in enumerate(zip(got, want, _tolerances(case, domain, want))):
        w = to_numpy(w)
        if g.dtype != w.dtype or g.shape != w.shape:
            return None
        if w.dtype.kind != "f":
            if not np.array_equal(g, w):
                return None
            continue
        close = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
        if not close.all():
            found.append((i, ~close))
    return found


def _worst(got, want, outside) -> str:
    """The first value outside the tolerance of each output (the failure's own message names
    the largest difference, which may be a value within it)."""
    parts = []
    for i, bad in outside:
        k = tuple(int(j) for j in np.argwhere(bad)[0]) if bad.ndim else ()
        parts.append(f"output {i} first outside the tolerance at {k}: got {got[i][k]!r}, "
                     f"eager {to_numpy(want[i])[k]!r}")
    return "; ".join(parts)


def _float64_eager(module, inputs):
    """Eager in float64 (parameters, buffers and float inputs widened), or None where the
    module does not run so."""
    try:
        wide = copy.deepcopy(module).double()
        leaves, spec = tree_flatten(inputs)
        leaves = [t.double() if isinstance(t, torch.Tensor) and t.dtype in (torch.float32, torch.float16,
                                                                           torch.bfloat16) else t
                  for t in leaves]
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [t.detach() for t in flatten(wide(*tree_unflatten(leaves, spec)))]
    except Exception:  # noqa: BLE001 - no float64 answer to compare with
        return None


def _ill_conditioned(module, inputs, got, want, outside, case, domain) -> str:
    """Why the difference is float32's own where it is: at every value outside the tolerance,
    eager's float32 value is itself outside the tolerance of eager's float64 one (the answer
    turns on float32 rounding there, as the random programs' screen asks), else ''."""
    wide = _float64_eager(module, inputs)
    if wide is None or len(wide) != len(want):
        return ""
    tolerances = _tolerances(case, domain, want)
    for i, bad in outside:
        rtol, atol = tolerances[i]
        w32 = to_numpy(want[i]).astype(np.float64)
        w64 = wide[i].numpy().astype(np.float64)
        if w64.shape != w32.shape:
            return ""
        own = np.isclose(w32, w64, rtol=rtol, atol=atol, equal_nan=True)
        if (own & bad).any():
            return ""
    return (f"ill-conditioned: where pt2ov differs, eager's float32 answer is itself outside the "
            f"tolerance of its float64 one ({_worst(got, want, outside)})")


def _check(batch, program, case, name, mode, domain, refusal_ok=False):
    v = batch.variants.get(domain)
    if v is None:
        pytest.fail(f"{domain} does not apply to {name}'s inputs")
    if v.skip:
        pytest.skip(f"{domain}: {v.skip}")
    result = batch.results[domain]
    if result[0] == "error":
        text = result[1]
        m = re.search(r"exited (-?\d+)", text)
        if refusal_ok and m and m.group(1) == "2" and _REFUSAL.search(text.split("--- stderr ---", 1)[-1]):
            REFUSED.append(f"{name}-{mode}")  # a clean refusal of non-finite inputs: acceptable
            return
        pytest.fail(f"{name}-{mode} on {domain} inputs: {text}", pytrace=False)
    _, got, want, label = result
    try:
        _compare(got, want, case, domain, f"{name}-{mode} {label}" + (f" [{v.note}]" if v.note else ""))
    except AssertionError as e:
        outside = _outside(got, want, case, domain)
        if outside and not program.ep.graph_signature.buffers_to_mutate:
            # a difference eager itself does not decide: float32 rounding, or torch's own program
            # (run_decompositions) computing another answer than the module
            why = _ill_conditioned(program.module, v.inputs, got, want, outside, case, domain)
            if why:
                pytest.skip(f"{domain}: {why}")
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                own = [t.detach() for t in flatten(copy.deepcopy(program.ep).module()(*flatten(v.inputs)))]
            try:
                _compare(got, own, case, domain, "")
                pytest.skip(f"{domain}: the {mode} program's own eager (ExportedProgram.module()) gives "
                            f"pt2ov's values, the module's eager others ({_worst(got, want, outside)})")
            except AssertionError:
                pass
        detail = f"\n{_worst(got, want, outside)}" if outside else ""
        nan_at = "" if domain == si.NONFINITE else first_nan_inside(copy.deepcopy(program.ep), flatten(v.inputs))
        if nan_at:
            detail += (f"\n(eager makes a NaN inside the program at {nan_at}, from inputs that hold "
                       "none: the NaN limit, docs/EXACTNESS.md O8)")
        raise AssertionError(f"{e}{detail}") from None


@pytest.mark.parametrize("name,mode,domain", _params(si.DOMAINS))
def test_structured(zoo_programs, tmp_path_factory, name, mode, domain):
    batch, program = _batch(zoo_programs, tmp_path_factory, name, mode, si.DOMAINS)
    _check(batch, program, get_case(name), name, mode, domain)


@pytest.mark.parametrize("name,mode,domain", _params((si.NONFINITE,)))
def test_nonfinite(zoo_programs, tmp_path_factory, name, mode, domain):
    """NaN and +-inf in the float inputs: eager's values, or a refusal (exit 2) naming them."""
    batch, program = _batch(zoo_programs, tmp_path_factory, name, mode, (si.NONFINITE,))
    _check(batch, program, get_case(name), name, mode, domain, refusal_ok=True)
