"""pt2ov's CPU kernels against PyTorch eager's, op by op, on the same float32 shapes.

    .venv/bin/python bench/kernels_vs_eager.py [--ops add,sum_last] [--rounds 3] [--iterations 200]
                                               [--bench build/bench/pt2ov_kernels_bench]

The pt2ov side is bench/kernels_bench.cpp (pt2ov_kernels_bench, `make bench-kernels` builds it):
each kernel called as the runtime calls it, through its node and find_kernel. The eager side
calls the same aten op on tensors of the same shapes with torch.set_num_threads equal to the
threads pt2ov's kernels split over (oneTBB's default: the machine's cores), under
torch.inference_mode(). The two alternate op by op, round by round (pt2ov's calls of one op at
every size, then eager's, `--rounds` times), so load that drifts weighs on both alike; each
figure is the median over rounds of the median time per call in microseconds. Ratios are
pt2ov / eager (above 1: pt2ov is slower). Eager on one thread is shown beside it: on a loaded
machine torch's OpenMP team can wait milliseconds for its second thread to be scheduled (64K
elements, just above torch's grain of 32K, shows it most), which the 1-thread figure does not. The load average is printed with the table: on a
shared machine the figures are indicative.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
# 1K, 64K and 1M elements, [rows, cols] with the reductions, softmax, sort and topk along cols.
SHAPES = [(8, 128), (64, 1024), (1024, 1024)]
OPS = ["add", "mul", "relu", "exp", "sigmoid", "tanh", "where",
       "sum_last", "sum_all", "mean_last", "mean_all", "amax_last", "amax_all",
       "softmax_last", "mm", "addmm", "linear",
       "index_select", "gather", "scatter_add", "sort", "topk",
       "conv3x3", "conv1x1", "conv_depthwise", "conv_transpose"]


def conv_side(r: int, n: int) -> int:
    """The side h of a convolution's [1, 64, h, h] input of about r * n elements (kernels_bench.cpp)."""
    side = 1
    while (side + 1) ** 2 * 64 <= r * n:
        side += 1
    return side


def eager_case(op: str, r: int, n: int):
    """A no-argument callable running the op on fresh random operands, as the C++ case does."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(r, n, generator=g)
    y = torch.randn(r, n, generator=g)
    k = min(n, 256)
    aten = torch.ops.aten
    if op == "add":
        return lambda: torch.add(x, y)
    if op == "mul":
        return lambda: torch.mul(x, y)
    if op == "relu":
        return lambda: torch.relu(x)
    if op == "exp":
        return lambda: torch.exp(x)
    if op == "sigmoid":
        return lambda: torch.sigmoid(x)
    if op == "tanh":
        return lambda: torch.tanh(x)
    if op == "where":
        m = torch.randint(0, 2, (r, n), generator=g).bool()
        return lambda: torch.where(m, x, y)
    if op == "sum_last":
        return lambda: torch.sum(x, -1)
    if op == "sum_all":
        return lambda: torch.sum(x)
    if op == "mean_last":
        return lambda: torch.mean(x, -1)
    if op == "mean_all":
        return lambda: torch.mean(x)
    if op == "amax_last":
        return lambda: torch.amax(x, -1)
    if op == "amax_all":
        return lambda: torch.amax(x)
    if op == "softmax_last":
        return lambda: aten._softmax(x, -1, False)
    if op == "mm":
        a, b = torch.randn(r, k, generator=g), torch.randn(k, n, generator=g)
        return lambda: torch.mm(a, b)
    if op == "addmm":
        bias, a, b = torch.randn(n, generator=g), torch.randn(r, k, generator=g), torch.randn(k, n, generator=g)
        return lambda: torch.addmm(bias, a, b)
    if op == "linear":
        a, w, bias = torch.randn(r, k, generator=g), torch.randn(n, k, generator=g), torch.randn(n, generator=g)
        return lambda: torch.nn.functional.linear(a, w, bias)
    if op == "index_select":
        i = torch.randint(0, r, (r,), generator=g)
        return lambda: torch.index_select(x, 0, i)
    if op == "gather":
        i = torch.randint(0, n, (r, n), generator=g)
        return lambda: torch.gather(x, -1, i)
    if op == "scatter_add":
        i = torch.randint(0, n, (r, n), generator=g)
        return lambda: torch.scatter_add(x, -1, i, y)
    if op.startswith("conv"):
        h = conv_side(r, n)
        x4 = torch.randn(1, 64, h, h, generator=g)
        F = torch.nn.functional
        if op == "conv3x3":
            w, bias = torch.randn(64, 64, 3, 3, generator=g), torch.randn(64, generator=g)
            return lambda: F.conv2d(x4, w, bias, padding=1)
        if op == "conv1x1":
            w, bias = torch.randn(64, 64, 1, 1, generator=g), torch.randn(64, generator=g)
            return lambda: F.conv2d(x4, w, bias)
        if op == "conv_depthwise":
            w, bias = torch.randn(64, 1, 3, 3, generator=g), torch.randn(64, generator=g)
            return lambda: F.conv2d(x4, w, bias, padding=1, groups=64)
        if op == "conv_transpose":
            w, bias = torch.randn(64, 32, 4, 4, generator=g), torch.randn(32, generator=g)
            return lambda: F.conv_transpose2d(x4, w, bias, stride=2, padding=1)
    if op == "sort":
        return lambda: torch.sort(x, -1)
    if op == "topk":
        return lambda: torch.topk(x, 16, -1)
    raise ValueError(op)


def calls_for(iterations: int, elements: int) -> int:
    """The C++ side's number of calls for a case (kernels_bench.cpp)."""
    return max(max(iterations // 4, 10), min(iterations * 1000000 // max(elements, 1) // 4, iterations * 20))


def eager_times(op: str, iterations: int, threads: int) -> dict:
    times = {}
    torch.set_num_threads(threads)
    with torch.inference_mode():
        for r, n in SHAPES:
            fn = eager_case(op, r, n)
            count = calls_for(iterations, r * n)
            for _ in range(min(count // 10 + 1, 10)):
                fn()
            samples = []
            for _ in range(count):
                start = time.perf_counter_ns()
                fn()
                samples.append((time.perf_counter_ns() - start) / 1000)
            times[(r, n)] = statistics.median(samples)
    return times


def pt2ov_times(bench: Path, op: str, iterations: int, library_dir: Path | None = None) -> dict:
    shapes = ",".join(f"{r}x{n}" for r, n in SHAPES)
    env = dict(os.environ)
    if library_dir is not None:  # a saved build: its libpt2ov.so before the one the binary's RUNPATH names
        env["LD_LIBRARY_PATH"] = f"{library_dir}:{env.get('LD_LIBRARY_PATH', '')}"
    out = subprocess.run([str(bench), "--tsv", "--ops", op, "--shapes", shapes, "--layouts", "dense",
                          "--iterations", str(iterations)], check=True, capture_output=True, text=True, env=env).stdout
    times = {}
    for line in out.splitlines()[1:]:
        name, rows, cols, _layout, median, *_ = line.split("\t")
        times[(int(rows), int(cols))] = float(median)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--bench", type=Path, default=ROOT / "build" / "bench" / "pt2ov_kernels_bench")
    parser.add_argument("--before", type=Path, help="a saved folder holding an earlier pt2ov_kernels_bench and its "
                        "libpt2ov.so: its times are taken in the same rounds and shown as a `before` column")
    args = parser.parse_args()
    ops = [op for op in args.ops.split(",") if op]
    load_before = os.getloadavg()
    rows = []
    for op in ops:
        ours, theirs, single, before = {}, {}, {}, {}
        for _ in range(args.rounds):
            if args.before:
                for shape, t in pt2ov_times(args.before / "pt2ov_kernels_bench", op, args.iterations, args.before).items():
                    before.setdefault(shape, []).append(t)
            for shape, t in pt2ov_times(args.bench, op, args.iterations).items():
                ours.setdefault(shape, []).append(t)
            for shape, t in eager_times(op, args.iterations, args.threads).items():
                theirs.setdefault(shape, []).append(t)
            for shape, t in eager_times(op, args.iterations, 1).items():
                single.setdefault(shape, []).append(t)
        for r, n in SHAPES:
            a, b, c = (statistics.median(d[(r, n)]) for d in (ours, theirs, single))
            was = statistics.median(before[(r, n)]) if before else None
            rows.append((op, r * n, f"{r}x{n}", a, b, a / b, c, a / c, was))
            print(f"{op:<13} {r * n:>8} {f'{r}x{n}':<10} {a:>10.1f} {b:>10.1f} {a / b:>6.2f} {c:>10.1f} {a / c:>6.2f}",
                  file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    print(f"torch {torch.__version__}, {args.threads} threads both sides, {args.rounds} rounds; "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after (indicative on a shared machine)")
    print(f"{'op':<13} {'elements':>8} {'shape':<10} {'pt2ov_us':>10} {'eager_us':>10} {'ratio':>6}"
          f" {'eager1t_us':>10} {'ratio1t':>7}" + (f" {'before_us':>10} {'before_ratio':>12}" if args.before else ""))
    over = 0
    for op, elements, shape, a, b, ratio, c, ratio1, was in rows:
        flag = " *" if elements >= 65536 and ratio > 1.5 else ""
        over += bool(flag)
        extra = f" {was:>10.1f} {was / b:>12.2f}" if was is not None else ""
        print(f"{op:<13} {elements:>8} {shape:<10} {a:>10.1f} {b:>10.1f} {ratio:>6.2f} {c:>10.1f} {ratio1:>7.2f}{extra}{flag}")
    print(f"{over} op/size pairs at 64K or more above 1.5x eager (marked *)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
