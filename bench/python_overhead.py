"""What a Python call costs beside the C++ one: the tiny MLP of bench/models.py and the example
policy (examples/policy.pt2) run through the pt2ov module (numpy and torch inputs) and through
Program::run called from C++ in the same process (_Program._time_runs), in interleaved rounds.
Prints the p50 of each (the median over rounds) and the median of the rounds' differences, with
the load average, since a loaded machine moves every figure.

Torch tensors are timed through both of the binding's routes: DLPack's C exchange API (what a
call uses where torch has it) and the legacy capsule functions torch._C._to_dlpack/_from_dlpack.

Two C++ calls are timed: run(inputs), whose outputs own new memory as a Python call's must (the
same call), and run(inputs, outputs) writing static-shape outputs into buffers kept across
calls, which is what `pt2ov bench` and bench/compare time (--cli adds the command itself).

    PYTHONPATH=build/python .venv/bin/python bench/python_overhead.py [--rounds 5] [--calls 5000]
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

COMMAND = pathlib.Path(pt2ov.__file__).resolve().parent / "bin" / "pt2ov"


def p50_us(samples: list[float]) -> float:
    return float(np.percentile(np.array(samples) * 1e6, 50))


def time_python(program, inputs, calls: int, warmup: int) -> float:
    for _ in range(warmup):
        program(*inputs)
    samples = []
    clock = time.perf_counter
    for _ in range(calls):
        start = clock()
        program(*inputs)
        samples.append(clock() - start)
    return p50_us(samples)


def time_cpp(archive: pathlib.Path, npz: pathlib.Path, calls: int, warmup: int, threads: int) -> float:
    out = subprocess.run([str(COMMAND), "bench", str(archive), "--inputs", str(npz),
                          "--iterations", str(calls), "--warmup", str(warmup), "--num-threads", str(threads), "--json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["latency"]["p50_ms"] * 1000.0


def tiny_mlp(folder: pathlib.Path) -> tuple[str, pathlib.Path, pathlib.Path, list]:
    case = models.by_name("tiny_mlp")
    inputs = case.make_inputs()
    archive, npz = folder / "tiny_mlp.pt2", folder / "tiny_mlp_in.npz"
    torch.export.save(torch.export.export(case.make_module().eval(), inputs), archive)
    np.savez(npz, *[t.numpy() for t in inputs])
    return "tiny MLP", archive, npz, list(inputs)


def policy(folder: pathlib.Path) -> tuple[str, pathlib.Path, pathlib.Path, list]:
    npz = ROOT / "examples" / "policy_inputs.npz"
    with np.load(npz) as data:
        inputs = [torch.from_numpy(data[k].copy()) for k in sorted(data.files, key=lambda k: int(k.split("_")[1]))]
    return "example policy", ROOT / "examples" / "policy.pt2", npz, inputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=5000, help="calls per round for the tiny MLP")
    parser.add_argument("--policy-calls", type=int, default=1000, help="calls per round for the policy")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenVINO's inference threads (1: no wait on a descheduled worker on a loaded machine)")
    parser.add_argument("--cli", action="store_true", help="time `pt2ov bench` in its own process too")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()

    report = {"module": str(pathlib.Path(pt2ov.__file__).parent), "threads": args.threads, "models": {}}
    has_exchange_api = pt2ov._pt2ov._use_torch_exchange_api(True)
    with tempfile.TemporaryDirectory() as tmp:
        for make, calls in ((tiny_mlp, args.calls), (policy, args.policy_calls)):
            title, archive, npz, inputs = make(pathlib.Path(tmp))
            program = pt2ov.load(str(archive), num_threads=args.threads)
            numpy_inputs = [t.numpy() for t in inputs]
            rows = []
            for _ in range(args.rounds):
                row = {
                    "cpp_owned": p50_us([ns * 1e-9 for ns in program._time_runs(calls + args.warmup, False, *inputs)
                                         [args.warmup:]]),
                    "numpy": time_python(program, numpy_inputs, calls, args.warmup),
                    "cpp_reused": p50_us([ns * 1e-9 for ns in program._time_runs(calls + args.warmup, True, *inputs)
                                          [args.warmup:]]),
                    "torch": time_python(program, inputs, calls, args.warmup),
                }
                if has_exchange_api:
                    pt2ov._pt2ov._use_torch_exchange_api(False)
                    row["torch_legacy"] = time_python(program, inputs, calls, args.warmup)
                    pt2ov._pt2ov._use_torch_exchange_api(True)
                if args.cli:
                    row["cli"] = time_cpp(archive, npz, calls, args.warmup, args.threads)
                rows.append(row)
            figures = {k: float(np.median([r[k] for r in rows])) for k in rows[0]}
            kinds = [k for k in ("numpy", "torch", "torch_legacy") if k in rows[0]]
            for kind in kinds:
                for base in ("cpp_owned", "cpp_reused"):
                    figures[f"{kind}_over_{base}"] = float(np.median([r[kind] - r[base] for r in rows]))
            report["models"][title] = figures
            print(f"{title}, p50 per call (median of {args.rounds} rounds of {calls} calls), "
                  f"load average {os.getloadavg()[0]:.2f}:")
            print(f"  C++ run(inputs), owned outputs   {figures['cpp_owned']:8.2f} us")
            print(f"  C++ run(inputs, reused outputs)  {figures['cpp_reused']:8.2f} us")
            if args.cli:
                print(f"  pt2ov bench (its own process)    {figures['cli']:8.2f} us")
            labels = {"numpy": "numpy inputs         ", "torch": "torch inputs         ",
                      "torch_legacy": "torch, legacy capsule"}
            for kind in kinds:
                print(f"  Python, {labels[kind]}   {figures[kind]:8.2f} us  "
                      f"(+{figures[kind + '_over_cpp_owned']:.2f} us over owned, "
                      f"+{figures[kind + '_over_cpp_reused']:.2f} us over reused)")
    report["load_average"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(report))


if __name__ == "__main__":
    main()
