"""The per-call cost of the check that sends a call with NaN or inf to the CPU kernels
(LoadOptions::nonfinite_inputs, docs/EXACTNESS.md O8), on the tiny MLP under the placement rules
(one OpenVINO step: the engine's own cost shows) and on ResNet-18 (150,528 input floats).

    .venv/bin/python bench/nonfinite_check.py [--rounds 40] [--scale 1.0]

Each model is loaded twice in one process of the C++ runner (build/bench/pt2ov_bench_runner
nonfinite-check): checked ("exact", the default) and not ("openvino"); blocks of calls on the
same finite inputs alternate, who goes first swapping every round. The row gives both sides'
median call and their difference. Targets (issue 43): <= 0.2 us on the tiny MLP, <= 1 % on
ResNet-18. Writes bench/results-nonfinite.json. Publish figures from a quiet machine only.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
from bench import models  # noqa: E402

BUILD = ROOT / os.environ.get("PT2OV_BUILD_DIR", "build")
RUNNER = BUILD / "bench" / "pt2ov_bench_runner"
CASES = (("tiny_mlp_openvino", 20000, 0.2, "us"), ("resnet18", 200, 1.0, "%"))


def cpu_name() -> str:
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every model's iterations")
    args = parser.parse_args()
    if not RUNNER.exists():
        subprocess.run(["cmake", "-S", str(HERE), "-B", str(BUILD / "bench"), "-DCMAKE_BUILD_TYPE=Release",
                        f"-DPT2OV_BUILD_DIR={BUILD.resolve()}",
                        "-DOpenVINO_DIR=" + subprocess.check_output([sys.executable, "-c", "import openvino.utils as u; "
                                                                     "print(u.get_cmake_path())"], text=True).strip()],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", str(BUILD / "bench"), "-j", "2", "--target", "pt2ov_bench_runner"], check=True)
    work = BUILD / "bench" / "nonfinite"
    work.mkdir(parents=True, exist_ok=True)
    by_name = {m.name: m for m in models.MODELS}
    rows = []
    for name, iterations, target, unit in CASES:
        model = by_name[name]
        module, inputs = model.make_module(), model.make_inputs()
        path = work / f"{name}.pt2"
        torch.export.save(torch.export.export(module, inputs), str(path))
        npz = work / f"{name}_inputs.npz"
        np.savez(npz, *[t.numpy() for t in inputs])
        count = max(1, int(iterations * args.scale))
        command = [str(RUNNER), "nonfinite-check", str(path), str(npz), "--iterations", str(count),
                   "--warmup", str(max(1, count // 10)), "--rounds", str(args.rounds)]
        if not model.measure_placement:
            command.append("--no-measure-placement")
        result = json.loads(subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout)
        exact = result["exact"]["latency"]["p50_ms"] * 1000
        plain = result["openvino"]["latency"]["p50_ms"] * 1000
        cost = exact - plain
        measured = cost if unit == "us" else 100 * cost / plain
        rows.append({"model": name, "calls_per_side": count, "rounds": args.rounds, "exact_p50_us": exact,
                     "unchecked_p50_us": plain, "check_us": cost, "measured": measured, "unit": unit,
                     "target": target, "within_target": measured <= target})
    report = {"cpu": cpu_name(), "load_average": list(os.getloadavg()), "torch": torch.__version__, "rows": rows}
    (HERE / "results-nonfinite.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"CPU: {report['cpu']}  load average: {' '.join(f'{v:.2f}' for v in report['load_average'])}")
    print(f"{'model':20} {'checked p50':>12} {'unchecked p50':>14} {'check':>10} {'target':>10}")
    for r in rows:
        shown = f"{r['measured']:.3f} {r['unit']}"
        print(f"{r['model']:20} {r['exact_p50_us']:10.2f}us {r['unchecked_p50_us']:12.2f}us {shown:>10} "
              f"{'<= ' + str(r['target']) + ' ' + r['unit']:>10} {'ok' if r['within_target'] else 'OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
