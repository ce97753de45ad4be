"""The model server's throughput beside in-process calls (issue 28's load bar): ResNet-18
(torchvision's architecture, written out here, random weights, batch 1, f32, the throughput hint)
served by `pt2ov serve` to N concurrent clients (one connection and thread each, in
build/serve-client-venv), against the same program called in process from M threads (the pt2ov
module, which releases the GIL), each side for a fixed time after a warm-up.

The clients: `grpc` and `rest` are tritonclient's (gRPC; REST with binary data); `rest_raw`
sends the same REST binary request, its bytes built once, over a bare keep-alive socket and
reads the answer by its Content-Length, so that on a small machine the clients' own Python
(16 threads encoding 600 KB tensors beside the server) does not decide the server's figure.

On 2 cores one measurement is noisy (the in-process rate alone moved 57-71 calls/s between
runs), so the sides run in turn, `--rounds` times, each protocol's ratio taken against the
in-process rate of its own round; the report gives every round and the median ratio.

    .venv/bin/python bench/serve_throughput.py [--clients 16] [--threads 4] [--seconds 20]
        [--rounds 3] [--protocols grpc,rest,rest_raw] [--server BIN]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import torch
from torch import nn

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "build" / "python"))
import pt2ov  # noqa: E402

class BasicBlock(nn.Module):
    def __init__(self, inputs: int, outputs: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.downsample = None
        if stride != 1 or inputs != outputs:
            self.downsample = nn.Sequential(nn.Conv2d(inputs, outputs, 1, stride, bias=False), nn.BatchNorm2d(outputs))

    def forward(self, x):
        out = self.bn2(self.conv2(self.bn1(self.conv1(x)).relu()))
        return (out + (x if self.downsample is None else self.downsample(x))).relu()


class ResNet18(nn.Module):
    """torchvision.models.resnet18's layers (torchvision's own import fails in .venv)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        layers, width = [], 64
        for outputs, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [BasicBlock(width, outputs, stride), BasicBlock(outputs, outputs, 1)]
            width = outputs
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, 1000)

    def forward(self, x):
        return self.fc(self.layers(self.stem(x)).mean((2, 3)))


CLIENT = r"""
import json, sys, threading, time
import numpy as np
import serve_bare_client
url, clients, seconds, x_path, name, protocol = (sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4],
                                                 sys.argv[5], sys.argv[6])
x = np.load(x_path)
def tritonclient_caller(module):
    client = module.InferenceServerClient(url)
    item = module.InferInput(name, list(x.shape), "FP32")
    if protocol == "rest":
        item.set_data_from_numpy(x, binary_data=True)
    else:
        item.set_data_from_numpy(x)
    return lambda: client.infer("resnet18", [item])
def raw_caller():
    call, _ = serve_bare_client.keep_alive_caller(url, serve_bare_client.binary_infer_request(url, "resnet18", name, x))
    return call
def make_caller():
    if protocol == "rest_raw":
        return raw_caller()
    if protocol == "grpc":
        import tritonclient.grpc as module
    else:
        import tritonclient.http as module
    return tritonclient_caller(module)
counts = [0] * clients
failures = []
def work(i, until):
    try:
        call = make_caller()  # in the thread that uses it: tritonclient's HTTP client is gevent's
        while time.perf_counter() < until:
            call()
            counts[i] += 1
    except BaseException as error:  # a thread's failure must fail the measurement, not read as 0 calls
        failures.append(repr(error))
for phase, length in (("warmup", 3.0), ("measure", seconds)):
    counts = [0] * clients
    until = time.perf_counter() + length
    threads = [threading.Thread(target=work, args=(i, until)) for i in range(clients)]
    start = time.perf_counter()
    [t.start() for t in threads]
    [t.join() for t in threads]
    elapsed = time.perf_counter() - start
    if failures:
        raise SystemExit(f"{len(failures)} of {clients} clients failed: {failures[0]}")
print(json.dumps({"requests": sum(counts), "seconds": elapsed}))
"""


def cpu_name() -> str:
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="each side measured this many times, in turn")
    parser.add_argument("--protocols", default="grpc,rest,rest_raw",
                        help="clients to serve, one after the other each round: grpc, rest (tritonclient's), rest_raw")
    parser.add_argument("--server", type=pathlib.Path, default=REPO / "build" / "pt2ov",
                        help="the pt2ov command to serve with (an earlier build's, to compare two)")
    args = parser.parse_args()
    protocols = args.protocols.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        path = tmp / "repo" / "resnet18" / "1" / "model.pt2"
        path.parent.mkdir(parents=True)
        torch.manual_seed(0)
        x = torch.randn(1, 3, 224, 224)
        torch.export.save(torch.export.export(ResNet18().eval(), (x,)), path)
        (path.parent.parent / "config.json").write_text(json.dumps({"performance_hint": "throughput",
                                                                     "measure_placement": False}))
        np.save(tmp / "x.npy", x.numpy())

        program = pt2ov.load(path, performance_hint="throughput", measure_placement=False)
        name = program.inputs[0].name
        inputs = x.numpy()

        def in_process_rate() -> float:
            counts = [0] * args.threads

            def work(i, until):
                while time.perf_counter() < until:
                    program(inputs)
                    counts[i] += 1

            for length in (3.0, args.seconds):
                counts[:] = [0] * args.threads
                until = time.perf_counter() + length
                threads = [threading.Thread(target=work, args=(i, until)) for i in range(args.threads)]
                start = time.perf_counter()
                [t.start() for t in threads]
                [t.join() for t in threads]
                rate = sum(counts) / (time.perf_counter() - start)
            return rate

        ports = [free_port(), free_port()]
        log = open(tmp / "server.log", "w")
        server = subprocess.Popen([str(args.server), "serve", str(tmp / "repo"), "--host", "127.0.0.1",
                                   "--http-port", str(ports[0]), "--grpc-port", str(ports[1])], stderr=log)
        rounds = []
        try:
            while "ready" not in (tmp / "server.log").read_text():
                if server.poll() is not None:
                    raise SystemExit((tmp / "server.log").read_text())
                time.sleep(0.1)
            for _ in range(args.rounds):
                measured_round = {"in_process_per_s": round(in_process_rate(), 2)}
                for protocol in protocols:
                    port = ports[1] if protocol == "grpc" else ports[0]
                    client = subprocess.run([str(REPO / "build" / "serve-client-venv" / "bin" / "python"), "-c", CLIENT,
                                             f"127.0.0.1:{port}", str(args.clients), str(args.seconds),
                                             str(tmp / "x.npy"), name, protocol], capture_output=True, text=True,
                                            env={**os.environ, "PYTHONPATH": str(REPO / "bench")})
                    if client.returncode:
                        raise SystemExit(client.stderr)
                    measured = json.loads(client.stdout)
                    rate = measured["requests"] / measured["seconds"]
                    measured_round[f"{protocol}_per_s"] = round(rate, 2)
                    measured_round[f"{protocol}_ratio"] = round(rate / measured_round["in_process_per_s"], 3)
                rounds.append(measured_round)
                print(json.dumps(measured_round), file=sys.stderr, flush=True)
        finally:
            server.terminate()
            server.wait()
    report = {"in_process_threads": args.threads, "clients": args.clients, "seconds": args.seconds,
              "rounds": rounds}
    for protocol in protocols:
        report[f"{protocol}_median_ratio"] = round(statistics.median(r[f"{protocol}_ratio"] for r in rounds), 3)
    report.update({"cpu": cpu_name(), "cpus": os.cpu_count(), "load_average": os.getloadavg()[0]})
    print(json.dumps(report))


if __name__ == "__main__":
    main()
