"""The full run (`make random-programs`): N programs per generator from SEED on, each form in
each placement and OpenVINO alone; prints the table form x placement and writes the failures
with their seeds as JSON.

    python -m tests.random_programs.run --n 300 --seed 0 --generator both \
        --forms exported,decomposed --workers 2
    python -m tests.random_programs.run --replay own:123     # one program, verbose
    python -m tests.random_programs.run --n 100 --inputs structured --placements default
        # each program also on zeros, a constant, large and small magnitudes, NaN and +-inf
        # (tests/models/structured_inputs.py), as more calls on the same load: a table per domain

Results go to build/random_programs/results.jsonl (one line per program; --resume keeps
what is there and runs the rest), the failures to build/random_programs/failures.json.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import time

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

OUT_DIR = REPO_ROOT / "build" / "random_programs"
VERDICTS = ("pass", "wrong", "nan", "rounding", "refused", "crash", "internal")


def items(args) -> list[tuple[str, int]]:
    gens = ["nnsmith", "own"] if args.generator == "both" else args.generator.split(",")
    return [(g, s) for s in range(args.seed, args.seed + args.n) for g in gens]


def worker(args) -> None:
    import torch

    from tests.random_programs import harness
    from tests.random_programs.runner import Runner

    torch.set_num_threads(1)
    results = pathlib.Path(args.results)
    done = set()
    if results.exists():
        for line in results.read_text().splitlines():
            try:
                r = json.loads(line)
                done.add((r["generator"], r["seed"]))
            except (json.JSONDecodeError, KeyError):
                pass
    runner = Runner(timeout_s=args.timeout)
    workdir = OUT_DIR / f"work-{args.worker}"
    forms = tuple(args.forms.split(","))
    placements = tuple(args.placements.split(","))
    try:
        todo = list(enumerate(items(args)))[args.worker::args.workers]
        for index, (gen, seed) in todo:
            if (gen, seed) in done:
                continue
            # Read by the parent when this process dies: eager PyTorch itself can kill it (an
            # int32 division by zero of the `zeros` domain raises SIGFPE in ATen's kernel).
            (OUT_DIR / f"worker-{args.worker}.current").write_text(json.dumps([gen, seed]))
            chosen = placements
            if args.spread:  # one placement per form, turn by turn
                chosen = {form: (placements[(index + k) % len(placements)],)
                          for k, form in enumerate(forms)}
            res = harness.check(gen, seed, runner, workdir, forms, chosen,
                                openvino=args.openvino, inputs=args.inputs)
            fd = os.open(results, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, (json.dumps(res) + "\n").encode())
            finally:
                os.close(fd)
    finally:
        runner.close()


def summarize(records: list[dict], forms, placements, wall: float) -> tuple[str, list]:
    status = collections.Counter(r["status"] for r in records)
    cells = collections.defaultdict(collections.Counter)
    seconds = collections.defaultdict(float)
    by_domain = collections.defaultdict(collections.Counter)  # (domain, form) -> verdicts
    domain_status = collections.defaultdict(collections.Counter)  # domain -> ran/skipped/ill-conditioned
    failures = []
    for r in records:
        for domain, what in r.get("domains", {}).items():
            domain_status[domain][what.split(":")[0].split(" (")[0]] += 1
        by_form = {}
        for rec in r.get("records", []):
            by_form.setdefault((rec["form"], rec.get("domain", "normal")), {})[rec["placement"]] = rec
        for (form, domain), recs in by_form.items():
            alone = recs.get("openvino-alone", {}).get("verdict", "-")
            for placement, rec in recs.items():
                if domain == "normal":
                    key = (form, placement)
                    cells[key][rec["verdict"]] += 1
                    seconds[key] += rec.get("seconds", 0.0)
                elif placement != "openvino-alone":
                    by_domain[(domain, form)][rec["verdict"]] += 1
                if placement != "openvino-alone" and rec["verdict"] in ("wrong", "crash", "internal"):
                    failures.append({"generator": r["generator"], "seed": r["seed"], "form": form,
                                     "placement": placement, "domain": domain, "verdict": rec["verdict"],
                                     "detail": rec.get("detail", ""), "openvino_alone": alone,
                                     "openvino_alone_detail": recs.get("openvino-alone", {}).get("detail", ""),
                                     "ops": r.get("ops", [])})
    lines = [f"programs: {len(records)}; " + ", ".join(f"{k} {v}" for k, v in sorted(status.items())),
             f"{'form':<11} {'placement':<15} " + " ".join(f"{v:>8}" for v in VERDICTS) + f" {'time s':>8}"]
    for form in forms:
        for placement in list(placements) + ["openvino-alone"]:
            c = cells.get((form, placement))
            if not c:
                continue
            lines.append(f"{form:<11} {placement:<15} " + " ".join(f"{c[v]:>8}" for v in VERDICTS)
                         + f" {seconds[(form, placement)]:>8.1f}")
    if by_domain or domain_status:
        lines.append("structured inputs (pt2ov's placements; per domain: programs compared, skipped, "
                     "ill-conditioned):")
        lines.append(f"{'domain':<11} {'form':<11} " + " ".join(f"{v:>8}" for v in VERDICTS))
        for domain in sorted(domain_status, key=lambda d: STRUCTURED_ORDER.index(d) if d in STRUCTURED_ORDER else 99):
            st = domain_status[domain]
            lines.append(f"{domain:<11} ran {st['ran']}, skipped {st['skipped']}, ill-conditioned {st['ill-conditioned']}")
            for form in forms:
                c = by_domain.get((domain, form))
                if c:
                    lines.append(f"{domain:<11} {form:<11} " + " ".join(f"{c[v]:>8}" for v in VERDICTS))
    lines.append(f"wall time {wall:.0f} s")
    return "\n".join(lines), failures


STRUCTURED_ORDER = ("zeros", "constant", "large", "small", "nonfinite")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100, help="programs per generator")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--generator", default="both", help="nnsmith, own or both")
    ap.add_argument("--forms", default="exported,decomposed")
    ap.add_argument("--placements", default="default,openvino,cpu")
    ap.add_argument("--openvino", default="failures", choices=("always", "failures", "never"),
                    help="run OpenVINO alone on every form, on the forms pt2ov failed, or never")
    ap.add_argument("--spread", action="store_true",
                    help="each program runs one placement per form, the placements in turn")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    ap.add_argument("--results", default="")
    ap.add_argument("--resume", action="store_true",
                    help="keep the programs already in --results (same engine build!)")
    ap.add_argument("--inputs", default="normal", choices=("normal", "structured"),
                    help="structured: each program also runs on its inputs' structured domains "
                    "(tests/models/structured_inputs.py: zeros, constant, large, small, nonfinite), "
                    "as more calls on the same load")
    ap.add_argument("--worker", type=int, default=-1)
    ap.add_argument("--replay", default="", help="GENERATOR:SEED: one program, verbose")
    args = ap.parse_args()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    if not args.results:
        args.results = str(OUT_DIR / "results.jsonl")
    if args.replay:
        replay(args)
        return
    if args.worker >= 0:
        worker(args)
        return
    if not args.resume:
        pathlib.Path(args.results).unlink(missing_ok=True)
    start = time.monotonic()
    base = [sys.executable, "-m", "tests.random_programs.run", "--n", str(args.n), "--seed",
            str(args.seed), "--generator", args.generator, "--forms", args.forms,
            "--placements", args.placements, "--workers", str(args.workers),
            "--timeout", str(args.timeout), "--results", args.results]
    base += ["--openvino", args.openvino, "--inputs", args.inputs]
    if args.spread:
        base.append("--spread")
    def start_worker(k: int) -> subprocess.Popen:
        (OUT_DIR / f"worker-{k}.current").unlink(missing_ok=True)
        log = open(OUT_DIR / f"worker-{k}.log", "a")
        return subprocess.Popen(base + ["--worker", str(k)], cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT)

    OUT_DIR.mkdir(parents=True, exist_ok=True)
    procs = {k: start_worker(k) for k in range(args.workers)}
    while procs:
        for k, p in list(procs.items()):
            rc = p.poll()
            if rc is None:
                continue
            del procs[k]
            current = OUT_DIR / f"worker-{k}.current"
            if rc == 0 or not current.exists():
                continue
            # The worker died on a program in its own process (eager, export): that program is
            # recorded as such, and a new worker goes on with the rest.
            gen, seed = json.loads(current.read_text())
            line = {"generator": gen, "seed": seed, "status": "eager-died",
                    "detail": f"the worker process died (exit {rc}) in eager PyTorch or the export", "records": []}
            with open(args.results, "a") as out:
                out.write(json.dumps(line) + "\n")
            print(f"worker {k} died (exit {rc}) on {gen}:{seed}; recorded, and a new worker goes on", flush=True)
            procs[k] = start_worker(k)
        time.sleep(0.5)
    wanted = set(items(args))
    records = {}
    for line in pathlib.Path(args.results).read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if (r["generator"], r["seed"]) in wanted:
            records[(r["generator"], r["seed"])] = r
    missing = wanted - set(records)
    table, failures = summarize(list(records.values()), args.forms.split(","),
                                args.placements.split(","), time.monotonic() - start)
    print(table)
    if missing:
        print(f"{len(missing)} programs have no result (a worker died): see {OUT_DIR}/worker-*.log")
    from tests.random_programs.known import classify

    for f in failures:
        f["known"] = classify(f)
    out = OUT_DIR / "failures.json"
    out.write_text(json.dumps(failures, indent=1))
    known = collections.Counter(f["known"] for f in failures if f["known"])
    print(f"{len(failures)} failures written to {out}; likely known faults: "
          + (", ".join(f"{k} {v}" for k, v in known.most_common()) or "none"))
    for f in failures:
        if f["known"]:
            continue
        domain = "" if f["domain"] == "normal" else f" [{f['domain']}]"
        print(f"  {f['generator']}:{f['seed']} {f['form']} {f['placement']}{domain}: {f['verdict']} "
              f"(OpenVINO alone: {f['openvino_alone']}) {f['detail'][:160]}")


def replay(args) -> None:
    import torch

    from tests.random_programs import harness
    from tests.random_programs.runner import Runner

    torch.set_num_threads(1)
    gen, seed = args.replay.split(":")
    prog = harness.generate(gen, int(seed))
    print(prog.pretty())
    runner = Runner(timeout_s=args.timeout)
    try:
        res = harness.check(gen, int(seed), runner, OUT_DIR / "replay", tuple(args.forms.split(",")),
                            tuple(args.placements.split(",")), args.openvino, prog=prog, inputs=args.inputs)
    finally:
        runner.close()
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
