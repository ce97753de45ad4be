"""What a Python call costs beside the C++ one: the tiny MLP of bench/models.py run through the
pt2ov module (numpy and torch inputs) and through `pt2ov bench` (Program::run from C++, the
same loop bench/compare uses), in alternating rounds in one run. Prints the p50 of each and the
difference per call.

    PYTHONPATH=build/python .venv/bin/python bench/python_overhead.py [--rounds 3] [--calls 5000]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import models  # noqa: E402
import pt2ov  # noqa: E402


def p50_us(samples: list[float]) -> float:
    return float(np.percentile(np.array(samples) * 1e6, 50))


def time_python(program, inputs, calls: int, warmup: int) -> float:
    for _ in range(warmup):
        program(*inputs)
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        program(*inputs)
        samples.append(time.perf_counter() - start)
    return p50_us(samples)


def time_cpp(archive: pathlib.Path, npz: pathlib.Path, calls: int, warmup: int) -> float:
    out = subprocess.run([str(ROOT / "build" / "pt2ov"), "bench", str(archive), "--inputs", str(npz),
                          "--iterations", str(calls), "--warmup", str(warmup), "--json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["latency"]["p50_ms"] * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--warmup", type=int, default=500)
    args = parser.parse_args()

    case = models.by_name("tiny_mlp")
    module = case.make_module().eval()
    inputs = case.make_inputs()
    with tempfile.TemporaryDirectory() as tmp:
        archive = pathlib.Path(tmp) / "tiny_mlp.pt2"
        npz = pathlib.Path(tmp) / "tiny_mlp_in.npz"
        torch.export.save(torch.export.export(module, inputs), archive)
        np.savez(npz, *[t.numpy() for t in inputs])
        program = pt2ov.load(str(archive))
        numpy_inputs = [t.numpy() for t in inputs]
        rows = []
        for _ in range(args.rounds):
            rows.append((time_cpp(archive, npz, args.calls, args.warmup),
                         time_python(program, numpy_inputs, args.calls, args.warmup),
                         time_python(program, inputs, args.calls, args.warmup)))
    cpp, numpy_call, torch_call = (float(np.median([r[i] for r in rows])) for i in range(3))
    print(f"tiny MLP, p50 per call (median of {args.rounds} rounds of {args.calls} calls), "
          f"load average {os.getloadavg()[0]:.2f}:")
    print(f"  C++ Program::run      {cpp:7.2f} us")
    print(f"  Python, numpy inputs  {numpy_call:7.2f} us  (+{numpy_call - cpp:.2f} us)")
    print(f"  Python, torch inputs  {torch_call:7.2f} us  (+{torch_call - cpp:.2f} us)")


if __name__ == "__main__":
    main()
