"""pt2ov on real architectures (tests/architectures/models.py), both program forms, beside
OpenVINO alone on the same program.

    .venv/bin/python -m tests.architectures.measure [--only NAME ...] [--timeout S]

Each architecture runs in a child process (an export or a plugin that crashes takes down only
its own record): it is built with random weights (seeded), exported with
torch.export.export(strict=False) and, for each form (as exported, and after
run_decompositions()), saved, run by `build/pt2ov run` and compared with eager; then OpenVINO
alone (openvino.convert_model(program) compiled for CPU, f32 hint, in the same child) runs the
same program, so an engine error is told from the plugin's.

Results are JSON lines in build/architectures/results.jsonl keyed by architecture, form and a
hash of the engine: an interrupted run resumes, a rebuilt engine is measured again. The report
(docs/ARCHITECTURES.md) is written at the end (tests/architectures/report.py).

Statuses: pass, wrong (exit 0, values off), refused (exit 2: the first line of stderr), crash
(any other exit, a signal or the timeout), export-failed (torch.export or run_decompositions
raised: not the engine's). Floats compare with rtol 1e-4 and atol 1e-4 times the largest
magnitude of eager's output (at least 1): deep float32 networks add up rounding that a fixed
atol would call wrong, and a wrong kernel is off by far more.
"""
from __future__ import annotations

import argparse
import json
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

OUT_DIR = REPO_ROOT / "build" / "architectures"
RESULTS = OUT_DIR / "results.jsonl"
FORMS = ("exported", "decomposed")
RTOL = 1e-4
ATOL = 1e-4
PT2OV_TIMEOUT_S = 600
CHILD_TIMEOUT_S = 1800


def build_id() -> str:
    from tests.conformance.sweep import build_id as engine_id
    return engine_id()


def first_line(text, limit: int = 400) -> str:
    lines = [line for line in str(text).strip().splitlines() if line.strip()]
    line = lines[0].strip() if lines else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def read_results(path: pathlib.Path = RESULTS) -> list[dict]:
    records = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # cut short by a kill: measured again
    return records


def append(record: dict, path: pathlib.Path = RESULTS) -> None:
    """One line, written by one write of an O_APPEND file: child processes appending at once
    never interleave their records."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(record) + "\n").encode())
    finally:
        os.close(fd)


def flatten_outputs(out) -> list[torch.Tensor]:
    leaves, _ = torch.utils._pytree.tree_flatten(out)
    return [t for t in leaves if isinstance(t, torch.Tensor)]


def compare(actual: list[np.ndarray], expected: list[torch.Tensor]) -> tuple[str, float]:
    """('' or what differs, the largest absolute error over float outputs)."""
    from tests.models.compare import output_differences
    return output_differences(actual, expected, lambda dtype: (RTOL, ATOL), atol_scaled_by_largest=True)


def run_pt2ov(pt2: pathlib.Path, inp: pathlib.Path, out: pathlib.Path) -> tuple[str, str]:
    out.unlink(missing_ok=True)
    cmd = [str(REPO_ROOT / "build" / "pt2ov"), "run", str(pt2), "--inputs", str(inp),
           "--outputs", str(out)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=PT2OV_TIMEOUT_S, cwd=REPO_ROOT)
    except subprocess.TimeoutExpired:
        return "crash", f"timed out after {PT2OV_TIMEOUT_S} s"
    if proc.returncode == 0:
        return "ran", ""
    if proc.returncode == 2:
        return "refused", first_line(proc.stderr)
    how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
    return "crash", f"{how}: {first_line(proc.stderr)}"


def steps_of(pt2: pathlib.Path) -> dict:
    """The step count (and how many run on the CPU) from `pt2ov inspect --json`."""
    cmd = [str(REPO_ROOT / "build" / "pt2ov"), "inspect", str(pt2), "--json"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PT2OV_TIMEOUT_S)
        report = json.loads(proc.stdout)
    except (subprocess.TimeoutExpired, json.JSONDecodeError):
        return {}
    methods = report.get("methods", {})
    steps = methods.get("forward", {}).get("steps", [])
    cpu = [s for s in steps if s.get("kind") == "cpu"]
    # A step of nodes computed once at load (what reads constants only) runs at no call.
    at_load = [s for s in cpu if all("computed once at load" in str(n.get("reason")) for n in s.get("nodes", []))]
    cpu_ops = sorted({str(n.get("target")) for s in cpu if s not in at_load for n in s.get("nodes", [])})
    return {"steps": len(steps), "cpu_steps": len(cpu) - len(at_load), "at_load_steps": len(at_load),
            "cpu_ops": cpu_ops[:12]}


def run_openvino_alone(prog, inputs: tuple) -> tuple[str, str, list]:
    """openvino.convert_model(program), compiled for CPU with the f32 hint pt2ov uses, one
    inference; in this process (a plugin crash ends it: the parent records the crash)."""
    import openvino as ov
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = ov.convert_model(prog)
    except Exception as e:  # noqa: BLE001
        return "refused", f"convert_model: {type(e).__name__}: {first_line(e)}", []
    try:
        compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        result = compiled([t.numpy() for t in inputs])
        return "ran", "", [np.asarray(result[out]) for out in compiled.outputs]
    except Exception as e:  # noqa: BLE001
        return "refused", f"compile or infer: {type(e).__name__}: {first_line(e)}", []


def measure_one(name: str, engine: str) -> None:
    """Child process: every form of one architecture, a record appended for each."""
    from tests.architectures.models import by_name
    from conftest import read_outputs, write_inputs

    work = OUT_DIR / "work" / name.replace("/", "__")
    work.mkdir(parents=True, exist_ok=True)
    base = {"name": name, "build": engine}
    torch.manual_seed(0)
    started = time.time()
    try:
        module, inputs = by_name()[name].build()  # models.py first: it readies torchvision
        module.eval()
        with torch.no_grad():
            expected = flatten_outputs(module(*inputs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ep = torch.export.export(module, inputs, strict=False)
    except Exception as e:  # noqa: BLE001 - not the engine's
        detail = f"{type(e).__name__}: {first_line(e)}"
        for form in FORMS:
            append(dict(base, form=form, status="export-failed", detail=detail))
        traceback.print_exc()
        return
    inp, out = work / "inputs.npz", work / "out.npz"
    write_inputs(inp, inputs)
    export_s = time.time() - started
    for form in FORMS:
        record = dict(base, form=form, export_s=round(export_s, 1))
        started = time.time()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                prog = ep if form == "exported" else ep.run_decompositions()
                pt2 = work / f"{form}.pt2"
                torch.export.save(prog, str(pt2))
        except Exception as e:  # noqa: BLE001
            append(dict(record, status="export-failed",
                        detail=f"{form}: {type(e).__name__}: {first_line(e)}"))
            continue
        record["nodes"] = sum(1 for n in prog.graph.nodes if n.op == "call_function")
        status, detail = run_pt2ov(pt2, inp, out)
        record["pt2ov_s"] = round(time.time() - started, 1)
        if status == "ran":
            try:
                diff, worst = compare(read_outputs(out), expected)
                status, detail = ("wrong" if diff else "pass"), diff
                record["max_err"] = worst
            except Exception as e:  # noqa: BLE001
                status, detail = "crash", f"exit 0 but unreadable outputs: {first_line(e)}"
            record.update(steps_of(pt2))
        record.update(status=status, detail=detail)
        ov_status, ov_detail, ov_outputs = run_openvino_alone(prog, inputs)
        if ov_status == "ran":
            try:
                diff, worst = compare(ov_outputs, expected)
                ov_status, ov_detail = ("wrong" if diff else "pass"), diff
                record["openvino_max_err"] = worst
            except Exception as e:  # noqa: BLE001
                ov_status, ov_detail = "crash", f"unreadable outputs: {first_line(e)}"
        record.update(openvino=ov_status, openvino_detail=ov_detail)
        append(record)
        print(f"{name} {form}: {status} {detail[:200]} | OpenVINO alone: {ov_status}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="architecture names")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child's entry
    parser.add_argument("--timeout", type=int, default=CHILD_TIMEOUT_S)
    parser.add_argument("--no-report", action="store_true")
    parser.add_argument("--only-failing", action="store_true",
                        help="measure again only what did not pass with an earlier engine")
    args = parser.parse_args()
    engine = build_id()
    if args.one:
        measure_one(args.one, engine)
        return 0
    from tests.architectures.models import ARCHITECTURES
    names = [a.name for a in ARCHITECTURES if args.only is None or a.name in args.only]
    records = read_results()
    done = {(r["name"], r["form"]) for r in records if r.get("build") == engine}
    if args.only_failing:
        latest = {(r["name"], r["form"]): r["status"] for r in records}
        done |= {key for key, status in latest.items() if status == "pass"}
    for name in names:
        if all((name, form) in done for form in FORMS):
            continue
        started = time.time()
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        try:
            proc = subprocess.run([sys.executable, "-m", "tests.architectures.measure", "--one", name],
                                  cwd=REPO_ROOT, env=env, timeout=args.timeout,
                                  capture_output=True, text=True, errors="replace")
            outcome = (f"exit {proc.returncode}" if proc.returncode >= 0
                       else f"signal {-proc.returncode}")
            tail = first_line(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "")
            sys.stdout.write(proc.stdout)
        except subprocess.TimeoutExpired:
            outcome, tail = f"timed out after {args.timeout} s", ""
        recorded = {(r["name"], r["form"]) for r in read_results() if r.get("build") == engine}
        for form in FORMS:
            if (name, form) not in recorded:
                append({"name": name, "form": form, "build": engine, "status": "crash",
                        "detail": f"measurement process: {outcome} {tail}".strip()})
        print(f"  {name}: {time.time() - started:.0f} s", flush=True)
    if not args.no_report:
        from tests.architectures.report import write_report
        write_report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
