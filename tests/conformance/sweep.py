"""The OpInfo conformance sweep: every op_db entry, each chosen dtype the op supports on CPU,
its first N samples, both program forms (as exported and decomposed), through `build/pt2ov run`
and compared with eager; then docs/CONFORMANCE.md is written from the results.

    make conformance                                   # float32, 2 samples, both forms
    make conformance CONFORMANCE_DTYPES=float32,int64,bool CONFORMANCE_OPS=abs,sort
    python -m tests.conformance.sweep --dtypes float32 --samples 1 --workers 2
    python -m tests.conformance.sweep --report-only    # rewrite the report from the results

Results go to build/conformance/results.jsonl, one JSON line per case keyed by op, dtype,
sample and form, and by a hash of the pt2ov binary and library: an interrupted sweep picks up
where it stopped, and a rebuilt engine is measured again. Each case's `pt2ov run` has a
timeout; the Python work (sampling, eager, export) runs in worker processes that a supervisor
restarts when one dies or stops making progress, recording the case it was on as skipped.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

OUT_DIR = REPO_ROOT / "build" / "conformance"
RESULTS = OUT_DIR / "results.jsonl"
REPORT = REPO_ROOT / "docs" / "CONFORMANCE.md"
FORMS = ("exported", "decomposed")
# export of a single op takes seconds; a worker silent this long is stuck in Python (pt2ov
# runs have their own, shorter timeout)
STALL_S = 300


def build_id() -> str:
    """Results are only reused for the engine that produced them."""
    h = hashlib.sha1()
    for name in ("pt2ov", "libpt2ov.so"):
        path = REPO_ROOT / "build" / name
        if path.exists():
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


def read_results(path: pathlib.Path = RESULTS) -> list[dict]:
    records = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a line cut short by a kill; its case runs again
    return records


def append(record: dict) -> None:
    # one write of one line with O_APPEND: lines from two workers never interleave
    fd = os.open(RESULTS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(record) + "\n").encode())
    finally:
        os.close(fd)


def case_key(r: dict) -> tuple:
    return (r["op"], r["dtype"], r["sample"], r["form"])


# --- the worker: does the cases of its share of the ops ------------------------------------------
def work(args) -> None:
    import torch
    from tests.conformance import cases

    torch.set_num_threads(1)
    build = build_id()
    done, finished = set(), {}
    for r in read_results():
        if r.get("build") != build:
            continue
        if r["kind"] == "case":
            done.add(case_key(r))
        elif r["kind"] == "op_done":
            finished[(r["op"], r["dtype"])] = max(finished.get((r["op"], r["dtype"]), 0),
                                                  r["samples"])
    progress = OUT_DIR / f"worker-{args.worker}.current"
    workdir = OUT_DIR / f"work-{args.worker}"
    dtypes = args.dtypes.split(",")

    def at(stage: str, op: str = "", dtype: str = "", sample: int = -1) -> None:
        progress.write_text(json.dumps(
            {"op": op, "dtype": dtype, "sample": sample, "stage": stage}))

    def record(op, dtype, sample, form, outcome, seconds=0.0):
        append({"kind": "case", "build": build, "op": op, "dtype": dtype, "sample": sample,
                "form": form, "status": outcome.status, "detail": outcome.detail,
                "seconds": round(seconds, 2)})

    for op in selected_ops(cases.load_op_db(), args.ops)[args.worker::args.workers]:
        name = cases.op_key(op)
        for dtype in cases.op_dtypes(op, dtypes):
            if finished.get((name, dtype), 0) >= args.samples:
                continue
            at("sampling", name, dtype)
            try:
                samples = cases.first_samples(op, dtype, args.samples)
            except Exception as e:  # noqa: BLE001 - OpInfo's own sample generator failed
                samples = []
                for form in FORMS:
                    if (name, dtype, 0, form) not in done:
                        record(name, dtype, 0, form, cases.Outcome(
                            cases.SKIP, f"sample_inputs raised {type(e).__name__}"))
            for index, sample in enumerate(samples):
                todo = [f for f in FORMS if (name, dtype, index, f) not in done]
                if not todo:
                    continue
                start = time.monotonic()
                stage = "eager"
                try:
                    at(stage, name, dtype, index)
                    prepared = cases.prepare(op, sample)
                    ep = None
                    if not prepared.skip:
                        stage = "export"
                        at(stage, name, dtype, index)
                        ep, why = cases.export_or_skip(prepared)
                        prepared.skip = why or None
                    for form in todo:
                        if prepared.skip:
                            record(name, dtype, index, form,
                                   cases.Outcome(cases.SKIP, prepared.skip))
                            done.add((name, dtype, index, form))
                            continue
                        stage = f"run {form}"
                        at(stage, name, dtype, index)
                        outcome = cases.run_form(prepared, ep, form, workdir,
                                                 threads=args.threads)
                        record(name, dtype, index, form, outcome, time.monotonic() - start)
                        done.add((name, dtype, index, form))
                        start = time.monotonic()
                except Exception as e:  # noqa: BLE001 - the harness's own failure on odd samples
                    for form in todo:
                        if (name, dtype, index, form) not in done:
                            record(name, dtype, index, form, cases.Outcome(
                                cases.SKIP, f"harness: {stage} raised {type(e).__name__}"))
            append({"kind": "op_done", "build": build, "op": name, "dtype": dtype,
                    "samples": args.samples})
    at("finished")


def selected_ops(op_db: list, ops: str) -> list:
    from tests.conformance.cases import op_key

    if not ops:
        return list(op_db)
    wanted = set(ops.split(","))
    # an op's name selects all its variants; `name.variant` selects one
    return [op for op in op_db if op.name in wanted or op_key(op) in wanted]


# --- the supervisor: starts the workers, restarts the ones that die or stall ----------------------
def supervise(args) -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    build = build_id()
    base = [sys.executable, "-m", "tests.conformance.sweep", "--dtypes", args.dtypes,
            "--samples", str(args.samples), "--ops", args.ops, "--workers", str(args.workers)]
    if args.threads:
        base += ["--threads", str(args.threads)]
    procs: dict[int, subprocess.Popen] = {}

    def start(k: int) -> None:
        (OUT_DIR / f"worker-{k}.current").unlink(missing_ok=True)
        log = open(OUT_DIR / f"worker-{k}.log", "a")
        procs[k] = subprocess.Popen(base + ["--worker", str(k)], cwd=REPO_ROOT, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)

    def give_up_on_current(k: int, why: str) -> None:
        """Records the case worker k was on as skipped, so its restart moves past it."""
        try:
            cur = json.loads((OUT_DIR / f"worker-{k}.current").read_text())
        except (OSError, json.JSONDecodeError):
            return
        if not cur.get("op"):
            return
        detail = f"harness: Python worker {why} during {cur['stage']}"
        done = {case_key(r) for r in read_results()
                if r.get("build") == build and r["kind"] == "case"}
        for form in FORMS:
            key = (cur["op"], cur["dtype"], max(cur["sample"], 0), form)
            if key not in done:
                append({"kind": "case", "build": build, "op": key[0], "dtype": key[1],
                        "sample": key[2], "form": form, "status": "skip", "detail": detail,
                        "seconds": 0})
        if cur["stage"] == "sampling":
            append({"kind": "op_done", "build": build, "op": cur["op"], "dtype": cur["dtype"],
                    "samples": args.samples})
        print(f"worker {k}: {cur['op']} {cur['dtype']} sample {cur['sample']}: {detail}",
              flush=True)

    began = time.monotonic()
    for k in range(args.workers):
        start(k)
    try:
        while procs:
            time.sleep(2)
            for k, proc in list(procs.items()):
                rc = proc.poll()
                if rc == 0:
                    del procs[k]
                    continue
                progress = OUT_DIR / f"worker-{k}.current"
                stalled = (progress.exists()
                           and time.time() - progress.stat().st_mtime > STALL_S)
                if rc is None and not stalled:
                    continue
                if rc is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    give_up_on_current(k, f"made no progress for {STALL_S} s")
                else:
                    how = f"killed by signal {-rc}" if rc < 0 else f"exited {rc}"
                    give_up_on_current(k, how)
                start(k)
    except KeyboardInterrupt:
        for proc in procs.values():
            os.killpg(proc.pid, signal.SIGKILL)
        raise
    seconds = time.monotonic() - began
    append({"kind": "sweep", "build": build, "dtypes": args.dtypes, "ops": args.ops,
            "samples": args.samples, "workers": args.workers, "seconds": round(seconds)})
    print(f"sweep finished in {seconds:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dtypes", default="float32",
                        help="comma-separated: float32,float16,int32,int64,bool")
    parser.add_argument("--ops", default="", help="comma-separated op names (default: all)")
    parser.add_argument("--samples", type=int, default=2, help="samples per op and dtype")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (at most 2 "
                        "on a shared 2-core machine)")
    parser.add_argument("--threads", type=int, default=1,
                        help="pt2ov --threads per run (one per worker keeps cores unshared)")
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--report-only", action="store_true",
                        help="only rewrite docs/CONFORMANCE.md from the results")
    args = parser.parse_args()
    from tests.conformance import cases

    unknown = [d for d in args.dtypes.split(",") if d not in cases.DTYPES]
    if unknown:
        parser.error(f"unknown dtype(s) {', '.join(unknown)}; choose from {', '.join(cases.DTYPES)}")
    if args.worker is not None:
        work(args)
        return
    if not args.report_only:
        supervise(args)
    from tests.conformance import report

    report.write(read_results(), build_id(), samples=args.samples, path=REPORT)
    print(f"wrote {REPORT.relative_to(REPO_ROOT)}")


if __name__ == "__main__":
    main()
