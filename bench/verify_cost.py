"""What --verify costs at load, on the benchmark models (bench/models.py).

For each model: the load time without --verify, with it (the child process compiles and runs
each OpenVINO step beside the CPU kernels), and with it again from the --cache-dir, plus how
many steps it checked and moved. Loads go through the Python module (build/python), one fresh
load per figure, the median of `--repeat` loads. Not part of `make test`:

    PYTHONPATH=build/python .venv/bin/python bench/verify_cost.py [--models a,b] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "build" / "python"))

import torch  # noqa: E402

import pt2ov  # noqa: E402
from bench.models import MODELS, by_name  # noqa: E402


def cpu_name() -> str:
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def export(model, folder: pathlib.Path) -> pathlib.Path:
    module = model.make_module().eval()
    inputs = model.make_inputs()
    dynamic = model.make_dynamic_shapes() if model.make_dynamic_shapes else None
    ep = torch.export.export(module, inputs, dynamic_shapes=dynamic)
    if model.decomposed:
        ep = ep.run_decompositions()
    path = folder / f"{model.name}.pt2"
    torch.export.save(ep, str(path))
    return path


def timed_load(path, **options) -> tuple[float, pt2ov.Program]:
    start = time.perf_counter()
    program = pt2ov.load(path, measure_placement=False, **options)
    return (time.perf_counter() - start) * 1000, program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="", help="comma-separated names (default: every model that exports here)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    names = [m.name for m in MODELS] if not args.models else args.models.split(",")
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; "
          f"OpenVINO {pt2ov.openvino_version()}")
    print(f"| model | load | load --verify | from the cache | steps checked | moved |")
    print(f"|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for name in names:
            model = by_name(name)
            try:
                path = export(model, folder)
            except Exception as e:  # a model whose packages are not installed here
                print(f"| {name} | not exported here: {type(e).__name__} | | | | |")
                continue
            plain = statistics.median(timed_load(path)[0] for _ in range(args.repeat))
            verified = []
            report = None
            for _ in range(args.repeat):
                ms, program = timed_load(path, verify=True)
                verified.append(ms)
                report = pt2ov.inspect(path, measure_placement=False, verify=True)["methods"]["forward"]["verification"]
            cache = folder / f"cache-{name}"
            cache.mkdir()
            timed_load(path, verify=True, cache_dir=cache)
            cached = statistics.median(timed_load(path, verify=True, cache_dir=cache)[0] for _ in range(args.repeat))
            print(f"| {name} | {plain:.0f} ms | {statistics.median(verified):.0f} ms | {cached:.0f} ms | "
                  f"{report['steps_checked']} | {report['steps_moved']} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
