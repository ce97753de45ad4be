"""transformers architectures with padded attention masks through pt2ov, both program forms,
beside OpenVINO alone on the same program.

    .venv/bin/python -m tests.hf_architectures.measure [--family decoder|encoder|seq2seq|vision|speech|all]
        [--only TYPE ...] [--timeout S] [--no-report] [--only-failing]

A package of its own beside tests/architectures/ (whose machinery it reuses: the engine's
build id, running `build/pt2ov`, the comparison and its tolerances, OpenVINO alone): that
sweep runs a hand-picked list of models, batch 1, without a mask; this one enumerates
transformers' model types from its auto mappings, makes each tiny generically
(tests/hf_architectures/models.py) and feeds padded masks, where issue 43 found 35 decoder-LM
families returning all-NaN logits (OpenVINO's attention gives NaN for a query row whose mask
keeps no key, PyTorch 0).

Each model type runs in a child process (an export or a plugin that crashes takes down only
its own records): built tiny with random weights (seeded), exported once with
torch.export.export(strict=False) taking the masks as inputs, and for each form (as exported,
and after run_decompositions()) saved and run by one `build/pt2ov run` with one
--inputs/--outputs pair per input variant (left-padded, a wholly padded row, all ones, ...:
models.py), each compared with eager; then OpenVINO alone (openvino.convert_model(program),
CPU, f32 hint, in the same child) runs every variant of the same program, so an engine error
is told from the plugin's. The exported program itself (ep.module()) is checked against eager
on every variant first: a program that baked a mask's values in is export-failed, not the
engine's.

Results are JSON lines in build/hf_architectures/results.jsonl, one per model type, form and
variant, keyed by a hash of the engine (and PT2OV_IGNORE_FACTS, when set): an interrupted run
resumes, a rebuilt engine is measured again. The sweep runs a copy of the engine taken at its
start under the build lock (build/hf_architectures/engine/ID/): others rebuild build/ while a
sweep of an hour runs. The report (docs/HF_ARCHITECTURES.md) is written
at the end (tests/hf_architectures/report.py).

Statuses: pass, wrong (exit 0, values off; NaN where eager has none is wrong), refused (exit
2), crash (another exit, a signal, the timeout), export-failed (torch.export or
run_decompositions raised, or the exported program differs from eager), eager-nan (eager's own
output is not finite: the variant does not count), skipped (the type's config cannot be made
small, or the model not built or called: the reason is recorded). Tolerances are
tests/architectures/measure.py's: rtol 1e-4, atol 1e-4 times the largest magnitude of eager's
output (at least 1); NaN positions must match. Every record says whether pt2ov's output held
NaN (`nan`).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import time
import traceback
import warnings

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "tests" / "e2e"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from tests.architectures.measure import (  # noqa: E402
    PT2OV_TIMEOUT_S, compare, first_line, flatten_outputs)
from tests.architectures.measure import append as append_to  # noqa: E402
from tests.architectures.measure import read_results as read_results_at  # noqa: E402
from tests.architectures.measure import build_id as engine_build_id  # noqa: E402

OUT_DIR = REPO_ROOT / "build" / "hf_architectures"
RESULTS = OUT_DIR / "results.jsonl"
FORMS = ("exported", "decomposed")
CHILD_TIMEOUT_S = 900


ENGINE_FILES = ("pt2ov", "libpt2ov.so", "libpt2ov_isa_x86-64-v3.so", "libpt2ov_isa_x86-64-v4.so",
                "pt2ov-verify-worker")
BUILD_LOCK = pathlib.Path("/tmp/pt2ov-build.lock")  # what `flock ... cmake --build` holds


def build_id() -> str:
    ignored = os.environ.get("PT2OV_IGNORE_FACTS", "")
    return engine_build_id() + (f"+ignore:{ignored}" if ignored else "")


def snapshot_engine() -> tuple[str, pathlib.Path]:
    """A copy of build/'s engine (the command, the library and its ISA objects, which it finds
    beside itself) taken under the build lock, and its id: others rebuild build/ while a sweep
    runs, and one sweep should measure one engine, never a half-linked library."""
    import fcntl
    import shutil
    with open(BUILD_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            engine = build_id()
            folder = OUT_DIR / "engine" / engine
            if not (folder / "pt2ov").exists():
                tmp = folder.with_name(folder.name + ".tmp")
                shutil.rmtree(tmp, ignore_errors=True)
                tmp.mkdir(parents=True)
                for name in ENGINE_FILES:
                    if (REPO_ROOT / "build" / name).exists():
                        shutil.copy2(REPO_ROOT / "build" / name, tmp / name)
                shutil.rmtree(folder, ignore_errors=True)
                tmp.rename(folder)
            os.utime(folder)
            # older copies (20-40 MB each) but the newest two go
            copies = sorted((p for p in folder.parent.iterdir() if p.is_dir()),
                            key=lambda p: p.stat().st_mtime, reverse=True)
            for old in copies[2:]:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return engine, folder


def read_results() -> list[dict]:
    return read_results_at(RESULTS)


def append(record: dict) -> None:
    append_to(record, RESULTS)


def _message(e: BaseException) -> str:
    return f"{type(e).__name__}: {first_line(e)}"


def _has_nan(arrays) -> bool:
    return any(np.asarray(a).dtype.kind == "f" and bool(np.isnan(np.asarray(a)).any()) for a in arrays)


def _finite(tensors: list[torch.Tensor]) -> bool:
    return all(not t.is_floating_point() or bool(torch.isfinite(t).all()) for t in tensors)


def run_pt2ov_calls(pt2: pathlib.Path, pairs: list[tuple[pathlib.Path, pathlib.Path]]) -> tuple[str, str]:
    """One `pt2ov run` of the program with an --inputs/--outputs pair per variant (one load,
    successive calls)."""
    folder = pathlib.Path(os.environ.get("PT2OV_HF_ENGINE", REPO_ROOT / "build"))
    cmd = [str(folder / "pt2ov"), "run", str(pt2)]
    for inp, out in pairs:
        out.unlink(missing_ok=True)
        cmd += ["--inputs", str(inp), "--outputs", str(out)]
    # the snapshot's library before build/'s (the command's RUNPATH names build/)
    env = dict(os.environ, LD_LIBRARY_PATH=":".join(
        p for p in (str(folder), os.environ.get("LD_LIBRARY_PATH", "")) if p))
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=PT2OV_TIMEOUT_S, cwd=REPO_ROOT, env=env)
    except subprocess.TimeoutExpired:
        return "crash", f"timed out after {PT2OV_TIMEOUT_S} s"
    if proc.returncode == 0:
        return "ran", ""
    if proc.returncode == 2:
        return "refused", first_line(proc.stderr)
    how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
    return "crash", f"{how}: {first_line(proc.stderr)}"


def run_openvino_alone(prog, variants: dict[str, tuple]) -> dict[str, tuple[str, str, list]]:
    """openvino.convert_model(program), compiled once for CPU with the f32 hint pt2ov uses,
    one inference per variant; in this process (a plugin crash ends it: the parent records
    the crash)."""
    import openvino as ov
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = ov.convert_model(prog)
        compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    except Exception as e:  # noqa: BLE001
        return {v: ("refused", f"convert or compile: {_message(e)}", []) for v in variants}
    results = {}
    for name, inputs in variants.items():
        try:
            result = compiled([t.numpy() for t in inputs])
            results[name] = ("ran", "", [np.asarray(result[out]) for out in compiled.outputs])
        except Exception as e:  # noqa: BLE001
            results[name] = ("refused", f"infer: {_message(e)}", [])
    return results


def _judge(outputs: list[np.ndarray], expected: list[torch.Tensor]) -> dict:
    """status pass or wrong, what differs, the largest error, NaN in the outputs."""
    diff, worst = compare(outputs, expected)
    return {"status": "wrong" if diff else "pass", "detail": diff, "max_err": worst,
            "nan": _has_nan(outputs)}


def measure_one(family: str, model_type: str, engine: str) -> None:
    """Child process: every form and variant of one model type, records appended per form."""
    from tests.hf_architectures import models
    from conftest import read_outputs, write_inputs

    work = OUT_DIR / "work" / family / model_type
    work.mkdir(parents=True, exist_ok=True)
    base = {"family": family, "model_type": model_type, "build": engine}
    started = time.time()

    def all_forms(status: str, detail: str, variants=("*",), **extra) -> None:
        for form in FORMS:
            for v in variants:
                append(dict(base, form=form, variant=v, status=status, detail=detail, **extra))

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            case = models.build(model_type, family)
        except models.Skip as e:
            all_forms("skipped", str(e))
            return
        except Exception as e:  # noqa: BLE001
            all_forms("skipped", f"model: {_message(e)}")
            traceback.print_exc()
            return
    base.update(attn=case.attn, params=case.params)
    expected = {}
    try:
        with torch.no_grad():
            for name, inputs in case.variants.items():
                expected[name] = flatten_outputs(case.module(*inputs))
    except Exception as e:  # noqa: BLE001
        all_forms("skipped", f"eager: {_message(e)}", tuple(case.variants))
        traceback.print_exc()
        return
    eager_nan = {name: not _finite(out) for name, out in expected.items()}
    first = next(iter(case.variants.values()))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ep = torch.export.export(case.module, first, strict=False)
    except Exception as e:  # noqa: BLE001 - not the engine's
        all_forms("export-failed", f"export: {_message(e)}", tuple(case.variants))
        traceback.print_exc()
        return
    export_s = round(time.time() - started, 1)
    # the exported program on each variant, in PyTorch: a mask's values baked in show here
    program_differs = {}
    for name, inputs in case.variants.items():
        try:
            with torch.no_grad():
                got = [t.detach().numpy() for t in flatten_outputs(ep.module()(*inputs))]
            diff, _ = compare(got, expected[name])
        except Exception as e:  # noqa: BLE001
            diff = _message(e)
        if diff and not eager_nan[name]:
            program_differs[name] = f"the exported program itself differs from eager: {diff}"
    pairs = {}
    for name, inputs in case.variants.items():
        inp = work / f"{name}.inputs.npz"
        write_inputs(inp, inputs)
        pairs[name] = (inp, work / f"{name}.out.npz")
    for form in FORMS:
        started = time.time()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                prog = ep if form == "exported" else ep.run_decompositions()
                pt2 = work / f"{form}.pt2"
                torch.export.save(prog, str(pt2))
        except Exception as e:  # noqa: BLE001
            for name in case.variants:
                append(dict(base, form=form, variant=name, status="export-failed",
                            detail=f"{form}: {_message(e)}"))
            print(f"{family}/{model_type} {form}: export-failed {_message(e)[:160]}", flush=True)
            continue
        nodes = sum(1 for n in prog.graph.nodes if n.op == "call_function")
        status, detail = run_pt2ov_calls(pt2, list(pairs.values()))
        pt2ov_s = round(time.time() - started, 1)
        ov = run_openvino_alone(prog, case.variants)
        statuses = []
        for name in case.variants:
            record = dict(base, form=form, variant=name, nodes=nodes, export_s=export_s,
                          pt2ov_s=pt2ov_s, eager_nan=eager_nan[name])
            if status == "ran":
                try:
                    record.update(_judge(read_outputs(pairs[name][1]), expected[name]))
                except Exception as e:  # noqa: BLE001
                    record.update(status="crash", detail=f"exit 0 but unreadable outputs: {first_line(e)}")
            else:
                record.update(status=status, detail=detail)
            ov_status, ov_detail, ov_outputs = ov[name]
            if ov_status == "ran":
                try:
                    judged = _judge(ov_outputs, expected[name])
                    record.update(openvino=judged["status"], openvino_detail=judged["detail"],
                                  openvino_max_err=judged["max_err"], openvino_nan=judged["nan"])
                except Exception as e:  # noqa: BLE001
                    record.update(openvino="crash", openvino_detail=f"unreadable outputs: {first_line(e)}")
            else:
                record.update(openvino=ov_status, openvino_detail=ov_detail)
            if eager_nan[name]:
                record.update(status="eager-nan", engine_status=record["status"],
                              detail="eager's output is not finite; " + str(record.get("detail", "")))
            elif name in program_differs and record["status"] != "pass":
                record.update(status="export-failed", engine_status=record["status"],
                              detail=program_differs[name])
            append(record)
            statuses.append(record["status"])
            print(f"{family}/{model_type} {form} {name}: {record['status']} "
                  f"{'NaN ' if record.get('nan') else ''}{str(record.get('detail', ''))[:160]} "
                  f"| OpenVINO alone: {record.get('openvino')}", flush=True)
        if all(st == "pass" for st in statuses):
            pt2.unlink(missing_ok=True)  # kept only where something is to be looked into


def selected_types(family: str, only) -> list[tuple[str, str]]:
    from tests.hf_architectures.models import FAMILIES, model_types
    families = FAMILIES if family == "all" else (family,)
    chosen = []
    for fam in families:
        for t in model_types(fam):
            if only is None or t in only:
                chosen.append((fam, t))
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", default="all",
                        choices=("all", "decoder", "encoder", "seq2seq", "vision", "speech"))
    parser.add_argument("--only", nargs="*", default=None, help="model types (transformers' model_type)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child's entry: FAMILY:TYPE
    parser.add_argument("--build-id", help=argparse.SUPPRESS)  # the child's: the parent's engine
    parser.add_argument("--timeout", type=int, default=CHILD_TIMEOUT_S)
    parser.add_argument("--no-report", action="store_true")
    parser.add_argument("--only-failing", action="store_true",
                        help="measure again only what did not pass with an earlier engine")
    args = parser.parse_args()
    if args.one:
        family, model_type = args.one.split(":", 1)
        measure_one(family, model_type, args.build_id or build_id())
        return 0
    engine, folder = snapshot_engine()
    print(f"engine {engine} (a copy in {folder.relative_to(REPO_ROOT)})", flush=True)
    chosen = selected_types(args.family, args.only)
    records = read_results()
    done = {(r["family"], r["model_type"], r["form"]) for r in records
            if r.get("build") == engine and "form" in r}
    if args.only_failing:
        latest = {}
        for r in records:
            if "form" not in r:
                continue  # a timing record
            key = (r["family"], r["model_type"], r["form"])
            latest.setdefault(key, {})[r["variant"]] = r["status"]
        done |= {key for key, statuses in latest.items()
                 if all(s in ("pass", "eager-nan", "skipped") for s in statuses.values())}
    total = time.time()
    for family, model_type in chosen:
        if all((family, model_type, form) in done for form in FORMS):
            continue
        started = time.time()
        env = dict(os.environ, PYTHONUNBUFFERED="1", PT2OV_HF_ENGINE=str(folder))
        try:
            proc = subprocess.run([sys.executable, "-m", "tests.hf_architectures.measure",
                                   "--one", f"{family}:{model_type}", "--build-id", engine],
                                  cwd=REPO_ROOT, env=env, timeout=args.timeout,
                                  capture_output=True, text=True, errors="replace")
            outcome = (f"exit {proc.returncode}" if proc.returncode >= 0
                       else f"signal {-proc.returncode}")
            tail = first_line(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "")
            sys.stdout.write(proc.stdout)
        except subprocess.TimeoutExpired:
            outcome, tail = f"timed out after {args.timeout} s", ""
        recorded = {(r["family"], r["model_type"], r["form"]) for r in read_results()
                    if r.get("build") == engine and "form" in r}
        seconds = round(time.time() - started, 1)
        for form in FORMS:
            if (family, model_type, form) not in recorded:
                append({"family": family, "model_type": model_type, "form": form, "variant": "*",
                        "build": engine, "status": "crash",
                        "detail": f"measurement process: {outcome} {tail}".strip()})
        append({"family": family, "model_type": model_type, "build": engine, "timing": seconds})
        print(f"  {family}/{model_type}: {seconds:.0f} s", flush=True)
    print(f"measured in {time.time() - total:.0f} s", flush=True)
    if not args.no_report:
        from tests.hf_architectures.report import write_report
        write_report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
