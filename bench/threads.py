"""Throughput of one pt2ov Program shared by 1, 2 and 4 threads (loaded with the latency and
with the throughput hint), beside OpenVINO alone with
PERFORMANCE_HINT=THROUGHPUT (f32, as pt2ov) and its async infer requests (AsyncInferQueue of the compiled
model's optimal number of requests) on the same exported program (OpenVINO's own conversion of
it). Each configuration runs for --seconds; prints calls/s and the load average (a shared
machine's numbers move with it).

    PYTHONPATH=build/python .venv/bin/python bench/threads.py [--models resnet18,bert_encoder] [--seconds 5]
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import threading
import time

import numpy as np
import openvino as ov
import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import models  # noqa: E402
import pt2ov  # noqa: E402


def pt2ov_throughput(program, inputs, threads: int, seconds: float) -> float:
    for _ in range(2):
        program(*inputs)
    counts = [0] * threads
    stop = threading.Event()

    def work(t: int) -> None:
        while not stop.is_set():
            program(*inputs)
            counts[t] += 1

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    time.sleep(seconds)
    stop.set()
    for w in workers:
        w.join()
    return sum(counts) / (time.perf_counter() - start)


def openvino_throughput(exported, inputs, seconds: float) -> tuple[float, int]:
    core = ov.Core()
    # f32 as pt2ov compiles (its default precision): the CPU plugin would otherwise pick bf16
    # where the processor has it.
    config = {"PERFORMANCE_HINT": "THROUGHPUT", "INFERENCE_PRECISION_HINT": "f32"}
    compiled = core.compile_model(ov.convert_model(exported), "CPU", config)
    requests = compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")
    queue = ov.AsyncInferQueue(compiled, requests)
    feed = [t.numpy() for t in inputs]
    for _ in range(requests):
        queue.start_async(feed)
    queue.wait_all()
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        queue.start_async(feed)  # blocks while every request is busy
        done += 1
    queue.wait_all()
    return done / (time.perf_counter() - start), requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="resnet18,bert_encoder")
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    by_name = {m.name: m for m in models.MODELS}
    print(f"{os.cpu_count()} cores; load average at start {os.getloadavg()[0]:.2f} (a shared machine)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            bench = by_name[name]
            module = bench.make_module().eval()
            inputs = bench.make_inputs()
            exported = torch.export.export(module, inputs)
            archive = pathlib.Path(tmp) / f"{name}.pt2"
            torch.export.save(exported, archive)
            print(f"{bench.title}")
            for hint in ("latency", "throughput"):
                program = pt2ov.load(str(archive), performance_hint=hint)
                for threads in (1, 2, 4):
                    rate = pt2ov_throughput(program, inputs, threads, args.seconds)
                    print(f"  pt2ov, one Program, {hint} hint, {threads} thread(s): {rate:8.1f} calls/s   "
                          f"(load average {os.getloadavg()[0]:.2f})")
                del program
            rate, requests = openvino_throughput(exported, inputs, args.seconds)
            print(f"  OpenVINO alone, THROUGHPUT hint, f32, {requests} async requests: {rate:8.1f} calls/s   "
                  f"(load average {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
