"""One random program from generation to verdicts: the conditioning screen, export in both
forms, pt2ov in each placement and OpenVINO alone, each compared with eager.

Each pt2ov run calls the loaded program twice on the same inputs; both calls are compared.
Verdicts of a run: "pass"; "wrong" (exit 0, outputs differ from eager: dtype, shape or values
beyond rtol 1e-4 / atol 1e-5, integers and bools exactly, NaN where eager has NaN);
"refused" (a clean pt2ov error); "internal" (pt2ov.InternalError: a bug pt2ov noticed);
"crash" (the child died by a signal or abort, or hung); "nan" (outputs differ, and eager itself
makes a NaN inside the program from inputs that hold none: 0/0, inf - inf, ...; pt2ov does not
promise where such a NaN goes on OpenVINO: docs/EXACTNESS.md O8, the known limit. Counted apart
from "wrong", never silently: the run's table has its own column); "rounding" (values differ, and
moving every value an op rounds by a few ulps moves eager's own answer outside the comparison
too: an exact tie into argmin, a pole of tan; see moved_by_rounding. Its own column as well).
Programs the screen drops: "ill-conditioned" (float32 and float64 eager disagree beyond
rtol 1e-5 / atol 1e-6, ten times tighter than the comparison, or differ in an integer, a bool
or a NaN position) and "not exportable" (eager, torch.export or run_decompositions fails).
"""
from __future__ import annotations

import dataclasses
import pathlib
import re
import time
import warnings

import numpy as np
import torch

from . import nnsmith_gen, own_gen

FORMS = ("exported", "decomposed")
PLACEMENTS = ("default", "openvino", "cpu")
RTOL, ATOL = 1e-4, 1e-5  # docs/EXACTNESS.md E5
SCREEN_RTOL, SCREEN_ATOL = 1e-5, 1e-6
GENERATORS = ("nnsmith", "own")


def generate(generator: str, seed: int):
    if generator == "own":
        return own_gen.generate(seed)
    if generator == "nnsmith":
        return nnsmith_gen.generate(seed)
    raise ValueError(generator)


def _flat(out) -> list:
    if isinstance(out, torch.Tensor):
        return [out]
    return [t for t in out]


def eager(prog, float_dtype=torch.float32) -> list[torch.Tensor]:
    module = prog.module(float_dtype)
    with torch.no_grad():
        return [t.detach().clone() for t in _flat(module(*prog.inputs(float_dtype)))]


def screen(prog) -> tuple[str, str, list]:
    """('ok', '', eager float32 outputs) or (verdict, why, [])."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            e32 = eager(prog, torch.float32)
        except Exception as e:  # noqa: BLE001 - eager itself refuses the program
            return "not exportable", f"eager: {type(e).__name__}: {str(e)[:200]}", []
        if not e32:
            return "not exportable", "no outputs", []
        try:
            e64 = eager(prog, torch.float64)
        except Exception as e:  # noqa: BLE001
            return "ill-conditioned", f"float64 eager: {type(e).__name__}: {str(e)[:200]}", []
    why = conditioning(e32, e64)
    return ("ill-conditioned", why, []) if why else ("ok", "", e32)


def conditioning(e32: list, e64: list) -> str:
    """'' when float32 and float64 eager agree closely (SCREEN_RTOL, SCREEN_ATOL; integers,
    bools and NaN positions exactly), else how they differ."""
    for i, (a, b) in enumerate(zip(e32, e64)):
        if a.shape != b.shape:
            return f"output {i}: shape differs in float64"
        if a.dtype.is_floating_point != b.dtype.is_floating_point:
            return f"output {i}: dtype kind differs in float64"
        if not a.dtype.is_floating_point:
            if a.dtype != b.dtype or not torch.equal(a, b):
                return f"output {i}: integers differ in float64"
            continue
        if a.dtype != torch.float32:
            return f"output {i}: {a.dtype} output"
        x, y = a.double(), b.double()
        if not torch.equal(torch.isnan(x), torch.isnan(y)):
            return f"output {i}: NaN positions differ in float64"
        if not torch.allclose(x, y, rtol=SCREEN_RTOL, atol=SCREEN_ATOL, equal_nan=True):
            err = float(((x - y).abs() / (y.abs() + 1e-30)).nan_to_num(0).max())
            return f"output {i}: float32 vs float64 rel err {err:.3g}"
    return ""


def export_forms(prog, forms=FORMS) -> dict:
    """form -> ExportedProgram, or form -> Exception when that form fails."""
    module = prog.module(torch.float32)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ep = torch.export.export(module, prog.inputs(torch.float32))
        except Exception as e:  # noqa: BLE001
            return {f: e for f in forms}
        for f in forms:
            if f == "exported":
                out[f] = ep
            else:
                try:
                    out[f] = ep.run_decompositions()
                except Exception as e:  # noqa: BLE001
                    out[f] = e
    return out


def targets(ep) -> list[str]:
    """Every call_function target of the program as `--cpu-op` names them."""
    names = set()
    for node in ep.graph.nodes:
        if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
            names.add(str(node.target))
    return sorted(names)


def first_nan_inside(ep, inputs) -> str:
    """The first node of `ep` whose eager value holds a NaN (its name and op), or ''. The
    inputs hold no NaN (the generators draw finite values), so a NaN is made inside."""
    if any(t.is_floating_point() and bool(torch.isnan(t).any()) for t in inputs):
        return "an input"
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
            Watch(ep.module()).run(*inputs)
        except Exception:  # noqa: BLE001 - not telling is not a NaN
            return ""
    return found[0] if found else ""


# A near tie of two values flips only when the two move apart the right way: a quarter of the
# trials. 8 trials missed one in ten (own 112824, run 12: argmin of two rms_norm results one ulp
# apart, OpenVINO's a correct rounding of its own); 32 miss one in 10,000.
ROUNDING_TRIALS = 32
ROUNDING_STEP = 2.0 ** -22  # about 4 units in the last place of a float32 result
SMALLEST_NORMAL = torch.finfo(torch.float32).tiny
# Ops that sum products (or values): two correct kernels summing in other orders differ by a few
# ulps of the terms' magnitudes, which a result the terms cancel to may be far below. The replay
# moves such a result by ROUNDING_STEP times the same op of the operands' magnitudes.
ACCUMULATING = ("aten.mm.", "aten.bmm.", "aten.matmul.", "aten.linear.", "aten.addmm.", "aten.baddbmm.",
                "aten.addbmm.", "aten.mv.", "aten.addmv.", "aten.dot.", "aten.vdot.", "aten.einsum.",
                "aten.convolution.", "aten.conv1d.", "aten.conv2d.", "aten.conv3d.", "aten.conv_transpose",
                "aten.sum.", "aten.mean.", "aten.cumsum.", "aten.tensordot.", "aten.inner.", "aten.outer.")
# The sign of a zero an op computes is not kept alike by every correct kernel: PyTorch's own mm
# gives -0.0 for [[-1], [2]] @ [[0, 0]] as [4, 1] @ [1, 2] and +0.0 as [22, 1] @ [1, 33] (its
# native and BLAS paths), and OpenVINO's CPU plugin gives +0.0 for PyTorch's -0.0 from relu,
# clamp, maximum/minimum with 0, prelu, elu/selu/celu, expm1, log1p, a product or sum with a
# constant (it fuses them as x * a + b), cumsum, fmod, lerp and more (docs/EXACTNESS.md O7).
# Equal as numbers; only an op that reads the sign (atan2, copysign, a division by the zero)
# tells them apart, at a discontinuity. Ops that move values without computing them keep the
# sign bit for bit (O1), so their zeros are never flipped.
SIGN_KEEPING = ("aten.view.", "aten._unsafe_view.", "aten.reshape.", "aten.permute.", "aten.transpose.",
                "aten.t.", "aten.squeeze.", "aten.unsqueeze.", "aten.expand.", "aten.slice.", "aten.select.",
                "aten.narrow.", "aten.cat.", "aten.stack.", "aten.clone.", "aten.alias.", "aten.contiguous.",
                "aten.flatten.", "aten.unflatten.", "aten.index_select.", "aten.gather.", "aten.index.",
                "aten.take_along_dim.", "aten.flip.", "aten.roll.", "aten.repeat.", "aten.tile.", "aten.split",
                "aten.chunk.", "aten.unbind.", "aten.movedim.", "aten.diagonal.", "aten.as_strided.",
                "aten.constant_pad_nd.", "aten.pad.", "aten.neg.", "aten.abs.", "aten.copysign.")


def _float64_value(target, args, kwargs):
    """`target` computed from the same arguments with every float32 tensor widened to float64:
    the exact value (nearly) of what a float32 op must round, or None when the op refuses."""
    def widen(v):
        return v.double() if isinstance(v, torch.Tensor) and v.dtype == torch.float32 else v
    try:
        return target(*torch.utils._pytree.tree_map(widen, args), **torch.utils._pytree.tree_map(widen, kwargs))
    except Exception:  # noqa: BLE001 - an op without a float64 form is not perturbed
        return None


def _failing_outputs(detail: str) -> set[int] | None:
    """The outputs whose values a verdict's detail says differ, or None when it says anything
    else differs (a count, dtype or shape, an unreadable file): rounding explains only values."""
    text = detail.replace("second call: ", "")
    # compare() joins its problems with "; ", and a problem of values goes on with "; at ...".
    problems = re.split(r"; (?=output \d+:)", text)
    found = set()
    for p in problems:
        m = re.match(r"output (\d+): \d+/\d+ values (off|differ)", p.strip())
        if not m:
            return None
        found.add(int(m.group(1)))
    return found or None


def moved_by_rounding(ep, inputs, expected: list[torch.Tensor], detail: str) -> str:
    """Whether rounding alone explains a wrong verdict: '' when it does not, else how. The
    program is replayed in float32 ROUNDING_TRIALS times; in each, every element an op must
    round (its float64 value is not a float32) is moved by ROUNDING_STEP of itself, up or down
    at random, as another correct kernel's rounding may move it, and a zero an op computes
    (any op but those that move values, SIGN_KEEPING) gets either sign, a sum of products (ACCUMULATING)
    moves by that step of its terms' magnitudes instead of its own, and in every other run a
    subnormal such an op computes is flushed to zero, as OpenVINO's CPU plugin may (docs/EXACTNESS.md
    O7). When those runs put every output
    pt2ov got wrong outside the comparison too (values, not shapes or dtypes), the program's
    answer is not decided by values within a few ulps: an exact tie into argmin, a pole of tan,
    a division by (or an atan2 of) a zero whose sign correct kernels compute differently.
    Counted as "rounding", apart from "wrong" and never as a pass."""
    failing = _failing_outputs(detail)
    if failing is None:
        return ""
    moved: set[int] = set()
    for trial in range(ROUNDING_TRIALS):
        g = torch.Generator().manual_seed(trial)

        class Perturb(torch.fx.Interpreter):
            def run_node(self, n):
                value = super().run_node(n)
                if n.op != "call_function" or not isinstance(n.target, torch._ops.OpOverload):
                    return value
                leaves = torch.utils._pytree.tree_leaves(value)
                if not any(isinstance(v, torch.Tensor) and v.dtype == torch.float32 for v in leaves):
                    return value
                args, kwargs = self.fetch_args_kwargs_from_env(n)
                exact = _float64_value(n.target, args, kwargs)
                flat, spec = torch.utils._pytree.tree_flatten(value)
                exact_flat = torch.utils._pytree.tree_leaves(exact) if exact is not None else []
                if len(exact_flat) != len(flat):
                    return value
                magnitude_flat = [None] * len(flat)
                if str(n.target).startswith(ACCUMULATING):
                    magnitude = _float64_value(n.target, *torch.utils._pytree.tree_map(
                        lambda t: t.abs() if isinstance(t, torch.Tensor) and t.is_floating_point() else t, (args, kwargs)))
                    leaves = torch.utils._pytree.tree_leaves(magnitude) if magnitude is not None else []
                    if len(leaves) == len(flat):
                        magnitude_flat = leaves
                out = []
                for v, e, m in zip(flat, exact_flat, magnitude_flat):
                    if (isinstance(v, torch.Tensor) and v.dtype == torch.float32 and isinstance(e, torch.Tensor)
                            and e.dtype == torch.float64 and e.shape == v.shape):
                        rounds = torch.isfinite(e) & (e.float().double() != e)
                        sign = torch.randint(0, 2, v.shape, generator=g).double() * 2 - 1
                        if isinstance(m, torch.Tensor) and m.shape == v.shape:
                            # A sum's rounding is relative to its terms, not to a result they cancel
                            # to, and its partial sums round even where the exact result is a float32.
                            moved = v.double() + ROUNDING_STEP * sign * m.abs()
                            v = torch.where(torch.isfinite(e) & torch.isfinite(moved), moved.float(), v)
                        else:
                            v = torch.where(rounds, (v.double() * (1 + ROUNDING_STEP * sign)).float(), v)
                        if not str(n.target).startswith(SIGN_KEEPING):
                            v = torch.where(v == 0, v * sign.float(), v)  # either sign of a computed zero
                            if trial % 2:  # a subnormal result flushed to zero (OpenVINO's denormals optimisation, O7)
                                v = torch.where(v.abs() < SMALLEST_NORMAL, v * 0, v)
                    out.append(v)
                return torch.utils._pytree.tree_unflatten(out, spec)

        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                got = Perturb(ep.module()).run(*inputs)
            except Exception:  # noqa: BLE001 - not telling is not an explanation
                return ""
        got = [t.detach().contiguous().numpy() for t in _flat(got)]
        moved |= _failing_outputs(compare(got, expected)) or set()
        if failing <= moved:
            return (f"moving each rounded value by {ROUNDING_STEP:.2g} of itself puts output(s) "
                    f"{sorted(failing)} outside the comparison too")
    return ""


def compare(actual: list, expected: list[torch.Tensor]) -> str:
    """'' when pt2ov's outputs are eager's; otherwise what differs."""
    if len(actual) != len(expected):
        return f"{len(actual)} outputs, eager returns {len(expected)}"
    problems = []
    for i, (a, e) in enumerate(zip(actual, expected)):
        want = e.detach().contiguous().numpy()
        if a.dtype != want.dtype:
            problems.append(f"output {i}: dtype {a.dtype}, eager {want.dtype}")
            continue
        if a.shape != want.shape:
            problems.append(f"output {i}: shape {list(a.shape)}, eager {list(want.shape)}")
            continue
        if want.dtype.kind == "f":
            close = np.isclose(a, want, rtol=RTOL, atol=ATOL, equal_nan=True)
            if not close.all():
                with np.errstate(invalid="ignore"):
                    d = np.abs(a.astype(np.float64) - want.astype(np.float64))
                d = np.where(close, 0, np.nan_to_num(d, nan=np.inf))
                k = np.unravel_index(int(np.argmax(d)), d.shape) if d.ndim else ()
                problems.append(f"output {i}: {int((~close).sum())}/{want.size} values off; "
                                f"at {tuple(int(j) for j in k)} got {a[k]!r}, eager {want[k]!r}")
        elif not np.array_equal(a, want):
            problems.append(f"output {i}: {int((a != want).sum())}/{want.size} values differ")
    return "; ".join(problems)


def _read(path) -> list[np.ndarray]:
    with np.load(path, allow_pickle=False) as npz:
        return [npz[f"arr_{i}"] for i in range(len(npz.files))]


@dataclasses.dataclass
class Domain:
    """The inputs of one structured domain (tests/models/structured_inputs.py) and eager's
    float32 outputs on them."""
    name: str
    inputs: tuple
    eager: list


def _classify(ep, records: list[dict], inputs: list, eager_out: list, nonfinite: bool) -> None:
    """Turns the wrong verdicts of one form on one set of inputs into "nan" (eager makes a NaN
    inside from inputs that hold none) or "rounding" where that explains them."""
    if not any(r["verdict"] == "wrong" for r in records):
        return
    nan_at = "" if nonfinite else first_nan_inside(ep, inputs)
    for rec in records:
        if nan_at and rec["verdict"] == "wrong":
            rec["verdict"] = "nan"
            rec["detail"] += f" (eager makes a NaN at {nan_at}: the known NaN limit, O8)"
    for rec in records:
        if rec["verdict"] == "wrong" and rec["placement"] != "openvino-alone":
            how = moved_by_rounding(ep, inputs, eager_out, rec["detail"])
            if how:
                rec["verdict"] = "rounding"
                rec["detail"] += f" ({how})"


def _verdict(rec: dict, res: dict, out: pathlib.Path, eager_out: list, again=None) -> dict:
    """Fills rec's verdict and detail from a runner answer (`res`: status and error)."""
    if res["status"] == "ok":
        try:
            why = compare(_read(out), eager_out)
            if not why and again is not None:
                second = compare(_read(again), eager_out)
                why = f"second call: {second}" if second else ""
        except Exception as e:  # noqa: BLE001 - an unreadable output file is wrong
            why = f"outputs unreadable: {e}"
        rec["verdict"] = "wrong" if why else "pass"
        rec["detail"] = why
    else:
        rec["verdict"] = res["status"]
        rec["detail"] = res.get("error", "")[:600]
    return rec


def run_program(prog, eager_out, eps: dict, runner, workdir: pathlib.Path, tag: str,
                placements=PLACEMENTS, openvino=True, domains: list = ()) -> list[dict]:
    """Runs each exported form through pt2ov in each placement (and OpenVINO alone); one
    record per (form, placement). `placements`: a tuple for every form, or form -> tuple.
    `openvino`: run OpenVINO alone "always", only on a form pt2ov failed ("failures"), or
    "never" (True and False are always and never). `domains` (Domain): more calls on the same
    load after the two on the generated inputs, one record each with its "domain"; where the
    run dies, each domain runs alone to tell whose the crash is. OpenVINO alone runs a domain
    where pt2ov failed it ("failures") or always."""
    openvino = {True: "always", False: "never"}.get(openvino, openvino)
    workdir.mkdir(parents=True, exist_ok=True)
    inputs = workdir / f"{tag}_in.npz"
    np.savez(inputs, *[t.contiguous().numpy() for t in prog.inputs(torch.float32)])
    domain_inputs = {}
    for d in domains:
        domain_inputs[d.name] = workdir / f"{tag}_{d.name}_in.npz"
        np.savez(domain_inputs[d.name], *[t.contiguous().numpy() for t in d.inputs])
    failing = ("wrong", "crash", "internal")
    records = []
    for form, ep in eps.items():
        if isinstance(ep, Exception):
            records.append({"form": form, "placement": "-", "verdict": "not exportable",
                            "detail": f"{type(ep).__name__}: {str(ep)[:300]}"})
            continue
        pt2 = workdir / f"{tag}_{form}.pt2"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.export.save(ep, pt2)
        ops = targets(ep)
        chosen = placements[form] if isinstance(placements, dict) else placements
        runs = list(chosen) + ["openvino-alone"]
        for placement in runs:
            base = {"pt2": str(pt2), "measure": placement == "default",
                    "cpu_ops": ops if placement == "cpu" else []}
            stem = workdir / f"{tag}_{form}_{placement}"
            if placement == "openvino-alone":
                mine = [r for r in records if r["form"] == form and r["placement"] != "openvino-alone"]
                wanted = [None] + [d.name for d in domains]
                if openvino == "failures":
                    wanted = [w for w in wanted if any(r["verdict"] in failing and r.get("domain") == w for r in mine)]
                elif openvino == "never":
                    wanted = []
                for w in wanted:
                    out = pathlib.Path(f"{stem}_{w or 'normal'}_out.npz")
                    out.unlink(missing_ok=True)
                    t0 = time.monotonic()
                    res = runner.run({**base, "kind": "openvino", "outputs": str(out),
                                      "inputs": str(domain_inputs[w] if w else inputs)})
                    rec = {"form": form, "placement": placement, "seconds": round(time.monotonic() - t0, 3)}
                    if w:
                        rec["domain"] = w
                    want = eager_out if w is None else next(d.eager for d in domains if d.name == w)
                    records.append(_verdict(rec, res, out, want))
                    out.unlink(missing_ok=True)
                continue
            out, again = pathlib.Path(f"{stem}_out.npz"), pathlib.Path(f"{stem}_again.npz")
            outs = {d.name: pathlib.Path(f"{stem}_{d.name}_out.npz") for d in domains}
            for p in [out, again, *outs.values()]:
                p.unlink(missing_ok=True)
            job = {**base, "kind": "pt2ov", "inputs": str(inputs), "outputs": str(out),
                   "outputs_again": str(again)}
            if domains:
                job["calls"] = [{"inputs": str(domain_inputs[d.name]), "outputs": str(outs[d.name])}
                                for d in domains]
            t0 = time.monotonic()
            res = runner.run(job)
            seconds = round(time.monotonic() - t0, 3)
            if domains and res["status"] in ("crash", "internal"):
                # whose is it: the generated inputs alone, then each domain alone
                job.pop("calls")
                t0 = time.monotonic()
                res = runner.run(job)
                seconds = round(time.monotonic() - t0, 3)
                calls = []
                for d in domains:
                    calls.append(runner.run({**base, "kind": "pt2ov", "inputs": str(domain_inputs[d.name]),
                                             "outputs": str(outs[d.name])}))
            else:
                calls = res.get("calls") or [res] * len(domains)
            records.append(_verdict({"form": form, "placement": placement, "seconds": seconds},
                                    res, out, eager_out, again))
            for d, call in zip(domains, calls):
                records.append(_verdict({"form": form, "placement": placement, "domain": d.name},
                                        call, outs[d.name], d.eager))
            for p in [out, again, *outs.values()]:
                p.unlink(missing_ok=True)
        form_records = [r for r in records if r["form"] == form]
        _classify(ep, [r for r in form_records if "domain" not in r],
                  list(prog.inputs(torch.float32)), eager_out, nonfinite=False)
        for d in domains:
            _classify(ep, [r for r in form_records if r.get("domain") == d.name], list(d.inputs),
                      d.eager, nonfinite=d.name == "nonfinite")
        pt2.unlink(missing_ok=True)
    inputs.unlink(missing_ok=True)
    for p in domain_inputs.values():
        p.unlink(missing_ok=True)
    return records


STRUCTURED_DOMAINS = ("zeros", "constant", "large", "small", "nonfinite")


def structured_domains(prog, names=STRUCTURED_DOMAINS) -> tuple[list[Domain], dict]:
    """The structured domains of `prog`'s inputs that are compared (Domain each, eager's float32
    outputs on them) and what happened to every domain: "ran", "skipped: why" (eager refuses
    the inputs, overflows at every magnitude) or "ill-conditioned: why" (float32 and float64
    eager disagree on them, as `screen` asks of the generated inputs)."""
    from tests.models import structured_inputs as si

    module = prog.module(torch.float32)
    wide = prog.module(torch.float64)

    def run(m, tree):
        with torch.no_grad():
            return [t.detach().clone() for t in _flat(m(*tree))]

    out, status = [], {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        variants = si.variants(prog.inputs(torch.float32), lambda tree: run(module, tree), None, names)
        for v in variants:
            if v.skip:
                status[v.domain] = f"skipped: {v.skip}"
                continue
            e32 = run(module, v.inputs)
            try:
                e64 = run(wide, [t.double() if t.is_floating_point() else t for t in v.inputs])
                why = conditioning(e32, e64)
            except Exception as e:  # noqa: BLE001
                why = f"float64 eager: {type(e).__name__}: {str(e)[:200]}"
            if why:
                status[v.domain] = f"ill-conditioned: {why}"
                continue
            status[v.domain] = "ran" + (f" ({v.note})" if v.note else "")
            out.append(Domain(v.domain, tuple(v.inputs), e32))
    return out, status


def check(generator: str, seed: int, runner, workdir: pathlib.Path, forms=FORMS,
          placements=PLACEMENTS, openvino=True, prog=None, inputs: str = "normal") -> dict:
    """Everything about one program: {"generator", "seed", "status", "ops", "records"}; with
    inputs="structured" also "domains" (what structured_domains says of each) and a record per
    structured domain, form and placement."""
    t0 = time.monotonic()
    res = {"generator": generator, "seed": seed, "records": []}
    try:
        if prog is None:
            prog = generate(generator, seed)
    except Exception as e:  # noqa: BLE001 - the generator's own failure
        res.update(status="generator failed", detail=f"{type(e).__name__}: {str(e)[:300]}")
        return res
    res["ops"] = prog.ops()
    verdict, why, e32 = screen(prog)
    if verdict != "ok":
        res.update(status=verdict, detail=why, seconds=round(time.monotonic() - t0, 2))
        return res
    eps = export_forms(prog, forms)
    if all(isinstance(ep, Exception) for ep in eps.values()):
        ep = next(iter(eps.values()))
        res.update(status="not exportable", detail=f"{type(ep).__name__}: {str(ep)[:300]}",
                   seconds=round(time.monotonic() - t0, 2))
        return res
    res["status"] = "ran"
    domains = []
    if inputs == "structured":
        domains, res["domains"] = structured_domains(prog)
    elif inputs != "normal":
        raise ValueError(inputs)
    res["records"] = run_program(prog, e32, eps, runner, workdir, f"{generator}{seed}",
                                 placements, openvino, domains)
    res["seconds"] = round(time.monotonic() - t0, 2)
    return res
