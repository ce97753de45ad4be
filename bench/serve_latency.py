"""The model server's added latency: one client, one request at a time, on a tiny MLP (batch 1,
16 -> 32 -> 4), p50 and p90 per request over tritonclient HTTP (binary data and JSON) and gRPC,
beside the same program called in process through the pt2ov module. Run from the repository
with .venv's python after `make build serve-client-venv`:

    .venv/bin/python bench/serve_latency.py [--requests 2000] [--json OUT.json]

The server (build/pt2ov serve) is started here on free ports, latency hint, the placement
rules' plan; the clients run in build/serve-client-venv, a process of their own, one request
in flight. "added" is the server's p50 minus the in-process call's p50: what HTTP or gRPC,
decoding, checking and encoding cost per request on this machine, the Python client's own work
included. The *_live rows (GET /v2/health/live, ServerLive: no tensor, no inference) are the
floor of one round trip through the same client, so an infer row minus its live row is about
what decoding, inference and encoding add. The rest_raw_* rows send the same REST requests
(health, and the binary-data inference tritonclient sends) from a client that costs next to
nothing (the bytes built once, one keep-alive socket): the server's own share, without
tritonclient's Python.

--attack IDLE,SLOW: the same rows while IDLE connections sit idle on the REST port and SLOW more
send their head a byte every 250 ms (slowloris), opened from this process; the server's RSS per
open connection is reported beside (docs/SERVING.md, Limits).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import torch

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "build" / "python"))
import pt2ov  # noqa: E402

CLIENT = r"""
import json, sys, time
import numpy as np
import tritonclient.http as httpclient, tritonclient.grpc as grpcclient
import serve_bare_client
http_url, grpc_url, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
x = np.load(sys.argv[4])
def timed(call):
    # 200 calls of warm-up, then n timed one by one: seconds per call.
    for _ in range(200):
        call()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times
def measure(module, client, binary):
    item = module.InferInput("x", list(x.shape), "FP32")
    if module is httpclient:
        item.set_data_from_numpy(x, binary_data=binary)
        wanted = [module.InferRequestedOutput(name, binary_data=binary) for name in OUTPUTS]
    else:
        item.set_data_from_numpy(x)
        wanted = [module.InferRequestedOutput(name) for name in OUTPUTS]
    return timed(lambda: client.infer("mlp", [item], outputs=wanted))
def measure_live(client):
    return timed(client.is_server_live)
def measure_raw(request):
    call, close = serve_bare_client.keep_alive_caller(http_url, request)
    times = timed(call)
    close()
    return times
OUTPUTS = sys.argv[5].split(",")
ROWS = sys.argv[6].split(",")
result = {}
http = httpclient.InferenceServerClient(http_url)
grpc = grpcclient.InferenceServerClient(grpc_url)
if "rest_live" in ROWS:
    result["rest_live"] = measure_live(http)
if "grpc_live" in ROWS:
    result["grpc_live"] = measure_live(grpc)
for label, module, client, binary in (("rest_binary", httpclient, http, True), ("rest_json", httpclient, http, False),
                                       ("grpc", grpcclient, grpc, True)):
    if label in ROWS:
        result[label] = measure(module, client, binary)
if "rest_raw_live" in ROWS:
    result["rest_raw_live"] = measure_raw(f"GET /v2/health/live HTTP/1.1\r\nHost: {http_url}\r\n\r\n".encode())
if "rest_raw_binary" in ROWS:
    result["rest_raw_binary"] = measure_raw(serve_bare_client.binary_infer_request(http_url, "mlp", "x", x, OUTPUTS))
print(json.dumps(result))
"""


class TinyMlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first = torch.nn.Linear(16, 32)
        self.second = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.second(self.first(x).relu())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Attack:
    """Idle and slowloris connections held open on the REST port while the rows are measured."""

    def __init__(self, idle: int, slow: int):
        self.idle, self.slow = idle, slow
        self.sockets = []
        self.stop = threading.Event()
        self.thread = None
        self.rss_kb_per_connection = None

    def start(self, port: int, pid: int):
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, self.idle + self.slow + 512)), hard))
        before = rss_kb(pid)
        self.sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(self.idle + self.slow)]
        slow = self.sockets[self.idle:]

        def trickle():
            head = b"POST /v2/models/mlp/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\nX-Pad: " + b"a" * 10**6
            at = 0
            while not self.stop.wait(0.25):
                for sock in slow:
                    try:
                        sock.send(head[at:at + 1])
                    except OSError:
                        pass
                at += 1

        self.thread = threading.Thread(target=trickle, daemon=True)
        self.thread.start()
        time.sleep(1)
        self.rss_kb_per_connection = (rss_kb(pid) - before) / len(self.sockets)

    def end(self):
        self.stop.set()
        if self.thread:
            self.thread.join()
        for sock in self.sockets:
            sock.close()


def rss_kb(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def measure_server(start, ready_text: str, requests: int, x_path, outputs: str, rows: str, attack=None) -> dict:
    """Starts a server (start(http_port, grpc_port, log) -> Popen writing its stderr to log),
    waits for `ready_text` in its log, runs the client rows against it, stops it."""
    http_port, grpc_port = free_port(), free_port()
    log_path = pathlib.Path(x_path).parent / f"server-{http_port}.log"
    log = open(log_path, "w")
    server = start(http_port, grpc_port, log)
    try:
        while ready_text not in log_path.read_text():
            if server.poll() is not None:
                raise SystemExit(f"{server.args[0]} exited {server.returncode}:\n{log_path.read_text()}")
            time.sleep(0.1)
        time.sleep(1)  # the gRPC server may come up after the REST one
        if attack:
            attack.start(http_port, server.pid)
        client = subprocess.run([str(REPO / "build" / "serve-client-venv" / "bin" / "python"), "-c", CLIENT,
                                 f"127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}", str(requests), str(x_path),
                                 outputs, rows], capture_output=True, text=True,
                                env={**os.environ, "PYTHONPATH": str(REPO / "bench")})
        if client.returncode != 0:
            raise SystemExit(f"the client failed:\n{client.stderr}")
        return json.loads(client.stdout)
    finally:
        if attack:
            attack.end()
        server.terminate()
        server.wait()


def cpu_name() -> str:
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def percentiles(seconds) -> dict:
    us = np.array(seconds) * 1e6
    return {"p50_us": float(np.percentile(us, 50)), "p90_us": float(np.percentile(us, 90)),
            "p99_us": float(np.percentile(us, 99)), "n": len(us)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--kserve", action="store_true",
                        help="also KServe's Python ModelServer over the pt2ov module (bench/kserve_peer.py, in "
                             "build/kserve-venv: make kserve-venv)")
    parser.add_argument("--attack", help="IDLE,SLOW: connections held idle and slowloris on the REST port meanwhile "
                        "(2000,200 as issue 46 asks)")
    parser.add_argument("--server", type=pathlib.Path, default=REPO / "build" / "pt2ov",
                        help="the pt2ov command to serve with (an earlier build's, to compare two; it loads the "
                             "libpt2ov.so its folder holds when LD_LIBRARY_PATH names that folder)")
    parser.add_argument("--server-arg", action="append", default=[],
                        help="one more argument to `pt2ov serve` (repeat it: --server-arg=--busy-poll-us "
                             "--server-arg=0)")
    args = parser.parse_args()
    attack = Attack(*map(int, args.attack.split(","))) if args.attack else None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        path = tmp / "repo" / "mlp" / "1" / "model.pt2"
        path.parent.mkdir(parents=True)
        x = torch.randn(1, 16, generator=torch.Generator().manual_seed(1))
        torch.export.save(torch.export.export(TinyMlp().eval(), (x,)), path)
        (path.parent.parent / "config.json").write_text(json.dumps({"measure_placement": False}))
        np.save(tmp / "x.npy", x.numpy())

        program = pt2ov.load(path, measure_placement=False)
        inputs = x.numpy()
        for _ in range(200):
            program(inputs)
        in_process = []
        for _ in range(args.requests):
            start = time.perf_counter()
            program(inputs)
            in_process.append(time.perf_counter() - start)
        outputs = ",".join(info.name for info in program.outputs)
        del program

        measured = measure_server(
            lambda http_port, grpc_port, log: subprocess.Popen(
                [str(args.server), "serve", str(tmp / "repo"), "--host", "127.0.0.1", "--http-port",
                 str(http_port), "--grpc-port", str(grpc_port), *args.server_arg], stderr=log),
            "ready", args.requests, tmp / "x.npy", outputs,
            "rest_live,grpc_live,rest_binary,rest_json,grpc,rest_raw_live,rest_raw_binary", attack)
        if args.kserve:
            # tritonclient's JSON request is refused by KServe 0.21 (it wants the binary header), so
            # binary REST and gRPC only.
            kserve = measure_server(
                lambda http_port, grpc_port, log: subprocess.Popen(
                    [str(REPO / "build" / "kserve-venv" / "bin" / "python"), str(REPO / "bench" / "kserve_peer.py"),
                     str(path), str(http_port), str(grpc_port)], stderr=log,
                    env={**os.environ, "PYTHONPATH": str(REPO / "build" / "python")}),
                "Uvicorn running", args.requests, tmp / "x.npy", outputs, "rest_live,grpc_live,rest_binary,grpc")
            measured.update({f"kserve_{label}": seconds for label, seconds in kserve.items()})
    base = percentiles(in_process)
    report = {"in_process": base, "machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg(),
                                                "platform": platform.platform(), "cpu": cpu_name()}}
    if attack:
        report["attack"] = {"idle": attack.idle, "slow": attack.slow,
                            "server_rss_kb_per_connection": attack.rss_kb_per_connection}
        print(f"with {attack.idle} idle and {attack.slow} slowloris connections open: "
              f"server RSS +{attack.rss_kb_per_connection:.1f} KB a connection")
    print(f"{'side':<20} {'p50 us':>9} {'p90 us':>9} {'p99 us':>9} {'added p50 us':>13}")
    print(f"{'in-process':<20} {base['p50_us']:9.1f} {base['p90_us']:9.1f} {base['p99_us']:9.1f} {'':>13}")
    for label, seconds in measured.items():
        figures = percentiles(seconds)
        if not label.endswith("_live"):
            figures["added_p50_us"] = figures["p50_us"] - base["p50_us"]
        report[label] = figures
        added = "" if label.endswith("_live") else f"{figures['added_p50_us']:13.1f}"
        print(f"{label:<20} {figures['p50_us']:9.1f} {figures['p90_us']:9.1f} {figures['p99_us']:9.1f} {added:>13}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
