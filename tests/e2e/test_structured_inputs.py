"""The zoo on structured inputs (tests/models/structured_inputs.py; issue 43): every case's
static program, in both forms, called on zeros, a constant, large and small magnitudes,
integers at the int32 edge and padded masks instead of random normal values, each compared
with eager PyTorch called on the same inputs here, at the case's tolerance (NaN where eager has
NaN, +-inf exactly; docs/EXACTNESS.md E5).

The domains of one program run as successive calls of ONE `pt2ov run` (one --inputs/--outputs
pair each), compared with one copy of the eager module called in the same order, so a mutated
buffer advances alike; where that run fails, each domain runs alone to say which. A domain
eager refuses (an index at the int32 edge) or overflows at every magnitude (`large`) is skipped
with the reason eager gave.

`nonfinite` (NaN and +-inf in the float inputs) is a test of its own, one run per program: pt2ov
computes such a call on its CPU kernels or refuses it (exit 2, one line naming the non-finite
inputs, where the program cannot run there wholly); a refusal passes, a wrong value fails.

`make test` runs the cases in FAST; `make test-structured` (PT2OV_STRUCTURED=all) runs every
case, nonfinite included.
"""
from __future__ import annotations

import copy
import os
import re
import warnings

import pytest
import torch

from conftest import (assert_outputs_match, describe, flatten, read_outputs, run_cli,
                      write_inputs)
from tests.models import all_cases, get_case
from tests.models import structured_inputs as si
from tests.models.export import MODES, eager_outputs

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
KNOWN: dict[str, str] = {}

_REFUSAL = re.compile(r"non-?finite", re.IGNORECASE)


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


def first_nan_inside(ep, inputs) -> str:
    """The first node whose eager value holds a NaN while no input does, or ''."""
    leaves = flatten(inputs)
    if any(isinstance(t, torch.Tensor) and t.is_floating_point() and bool(torch.isnan(t).any()) for t in leaves):
        return ""
    found = []

    class Watch(torch.fx.Interpreter):
        def run_node(self, n):
            value = super().run_node(n)
            if not found and n.op == "call_function":
                for leaf in torch.utils._pytree.tree_leaves(value):
                    if isinstance(leaf, torch.Tensor) and leaf.is_floating_point() and bool(torch.isnan(leaf).any()):
                        found.append(f"{n.name} ({n.target})")
                        break
            return value

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            Watch(copy.deepcopy(ep).module()).run(*leaves)
        except Exception:  # noqa: BLE001 - not telling is not a NaN
            return ""
    return found[0] if found else ""


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
            return  # a clean refusal of non-finite inputs: acceptable
        pytest.fail(f"{name}-{mode} on {domain} inputs: {text}", pytrace=False)
    _, got, want, label = result
    try:
        assert_outputs_match(got, want, case, label=f"{name}-{mode} {label}"
                             + (f" [{v.note}]" if v.note else ""))
    except AssertionError as e:
        nan_at = "" if domain == si.NONFINITE else first_nan_inside(program.ep, v.inputs)
        if nan_at:
            raise AssertionError(f"{e}\n(eager makes a NaN inside the program at {nan_at}, "
                                 "from inputs that hold none: the NaN limit, docs/EXACTNESS.md O8)") from None
        raise


@pytest.mark.parametrize("name,mode,domain", _params(si.DOMAINS))
def test_structured(zoo_programs, tmp_path_factory, name, mode, domain):
    batch, program = _batch(zoo_programs, tmp_path_factory, name, mode, si.DOMAINS)
    _check(batch, program, get_case(name), name, mode, domain)


if RUN_ALL:
    @pytest.mark.parametrize("name,mode,domain", _params((si.NONFINITE,)))
    def test_nonfinite(zoo_programs, tmp_path_factory, name, mode, domain):
        """NaN and +-inf in the float inputs: eager's values, or a refusal (exit 2) naming them."""
        batch, program = _batch(zoo_programs, tmp_path_factory, name, mode, (si.NONFINITE,))
        _check(batch, program, get_case(name), name, mode, domain, refusal_ok=True)
