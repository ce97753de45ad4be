"""The model server under a long stream of requests: bad ones (each of fuzz/corpus/serve_request's
REST seeds mutated at random: bytes flipped, cut, spliced, a header length out of place) between
valid ones, over one keep-alive connection; every valid request must get the in-process
program's bytes, every bad one an error status with {"error": ...}, the server must stay up, and
its resident memory (VmRSS) is read at the start of the stream and at its end.

    .venv/bin/python bench/serve_endurance.py [--requests 100000] [--bad-every 2] [--seed 0]

--protocol grpc: the same over gRPC, ModelInfer calls on one channel, the bad ones the corpus's
gRPC seeds mutated the same way (bench/serve_grpc_endurance_client.py, run in
build/serve-client-venv: `make serve-client-venv`); the resident memory is read after 1,000
calls of warm-up and at the end. A bad call must get an error code other than INTERNAL, UNKNOWN
or UNAVAILABLE (the server alive), a valid one the in-process program's bytes.
"""
from __future__ import annotations

import argparse
import http.client
import json
import pathlib
import random
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "build" / "python"))
import pt2ov  # noqa: E402


def rss_kb(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def mutated(rng: random.Random, seeds: list[bytes]) -> tuple[bytes, dict]:
    body = bytearray(rng.choice(seeds))
    for _ in range(rng.randint(1, 8)):
        kind = rng.randrange(4)
        if kind == 0 and body:
            body[rng.randrange(len(body))] = rng.randrange(256)
        elif kind == 1 and body:
            del body[rng.randrange(len(body)):]
        elif kind == 2:
            other = rng.choice(seeds)
            at = rng.randrange(len(other) + 1)
            body[rng.randrange(len(body) + 1):] = other[at:]
        else:
            body[rng.randrange(len(body) + 1):rng.randrange(len(body) + 1)] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    headers = {}
    if rng.random() < 0.3:
        headers["Inference-Header-Content-Length"] = str(rng.randint(0, len(body) + 8))
    return bytes(body), headers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def served_model(tmp: pathlib.Path):
    """The model both protocols serve (a small MLP with a dynamic batch, as model 'm' of a
    repository under `tmp`), its example input and the program loaded in process."""
    path = tmp / "repo" / "m" / "1" / "model.pt2"
    path.parent.mkdir(parents=True)
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
    x = torch.randn(2, 8)
    torch.export.save(torch.export.export(module, (x,), dynamic_shapes=({0: torch.export.Dim("b", min=1, max=32)},)), path)
    (path.parent.parent / "config.json").write_text(json.dumps({"measure_placement": False}))
    return x, pt2ov.load(path, measure_placement=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--bad-every", type=int, default=2, help="one bad request every N (2: every other)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--protocol", choices=("rest", "grpc"), default="rest")
    parser.add_argument("--server", type=pathlib.Path, default=REPO / "build" / "pt2ov",
                        help="the pt2ov command to serve with (build-asan/pt2ov: the live-server fuzz under "
                        "AddressSanitizer, `make fuzz-serve-live`)")
    args = parser.parse_args()
    if args.protocol == "grpc":
        return grpc_endurance(args)
    rng = random.Random(args.seed)
    # The REST seeds, as the server receives them (the target's first byte and header length dropped).
    seeds = []
    for path in sorted((REPO / "fuzz" / "corpus" / "serve_request").iterdir()):
        data = path.read_bytes()
        if data[0] & 1:
            continue
        seeds.append(data[3:] if data[0] & 2 else data[1:])
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        x, program = served_model(tmp)
        input_name = program.inputs[0].name
        expected = program(x.numpy())[0]
        port = free_port()
        server = subprocess.Popen([str(args.server), "serve", str(tmp / "repo"), "--host", "127.0.0.1",
                                   "--http-port", str(port), "--grpc-port", "0"], stderr=subprocess.DEVNULL)
        try:
            good = json.dumps({"inputs": [{"name": input_name, "datatype": "FP32", "shape": [2, 8],
                                           "data": x.flatten().tolist()}]}).encode()
            connection = None
            for _ in range(600):
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    connection.request("GET", "/v2/health/ready")
                    if connection.getresponse().read() is not None:
                        break
                except OSError:
                    time.sleep(0.1)
            counts = {"good": 0, "bad": 0, "bad_accepted": 0, "reconnects": 0}
            rss = {}
            start = time.perf_counter()
            for i in range(args.requests):
                if i == 1000:
                    rss["at_1000"] = rss_kb(server.pid)
                if i and i % 100_000 == 0:  # a long run stopped early still says how far it got
                    print(json.dumps({"requests_so_far": i, **counts}), file=sys.stderr, flush=True)
                bad = i % args.bad_every == 0
                body, headers = mutated(rng, seeds) if bad else (good, {})
                try:
                    connection.request("POST", "/v2/models/m/infer", body=body, headers=headers)
                    response = connection.getresponse()
                    reply = response.read()
                except (OSError, http.client.HTTPException):
                    # the server may close a connection after a malformed request line or length
                    if server.poll() is not None:
                        raise SystemExit(f"the server died at request {i}")
                    counts["reconnects"] += 1
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    continue
                if bad:
                    counts["bad"] += 1
                    if response.status == 200:
                        counts["bad_accepted"] += 1  # a mutation that is still a valid request
                    else:
                        assert "error" in json.loads(reply), reply[:200]
                else:
                    counts["good"] += 1
                    assert response.status == 200, reply[:300]
                    got = np.array(json.loads(reply)["outputs"][0]["data"], dtype=np.float32).reshape(2, 4)
                    assert got.tobytes() == expected.tobytes(), f"request {i}: not the in-process bytes"
            rss["at_end"] = rss_kb(server.pid)
            elapsed = time.perf_counter() - start
            assert server.poll() is None, "the server died"
        finally:
            server.terminate()
            server.wait()
    print(json.dumps({"requests": args.requests, "seconds": round(elapsed, 1), **counts,
                      "rss_kb_at_1000": rss["at_1000"], "rss_kb_at_end": rss["at_end"],
                      "rss_growth_kb": rss["at_end"] - rss["at_1000"]}))


def grpc_endurance(args) -> None:
    client_python = REPO / "build" / "serve-client-venv" / "bin" / "python"
    if not client_python.exists():
        raise SystemExit(f"{client_python} is missing: run `make serve-client-venv` first")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        x, program = served_model(tmp)
        expected = np.ascontiguousarray(program(x.numpy())[0]).tobytes()
        port = free_port()
        server = subprocess.Popen([str(args.server), "serve", str(tmp / "repo"), "--host", "127.0.0.1",
                                   "--http-port", "0", "--grpc-port", str(port)], stderr=subprocess.DEVNULL)
        try:
            def client(requests: int, seed: int) -> dict:
                config = tmp / f"client-{seed}.json"
                config.write_text(json.dumps({
                    "port": port, "model": "m", "input_name": program.inputs[0].name, "input": x.tolist(),
                    "expected_hex": expected.hex(), "requests": requests, "bad_every": args.bad_every, "seed": seed,
                    "corpus": str(REPO / "fuzz" / "corpus" / "serve_request")}))
                # The client's stderr (its progress, and why it stopped) passes through.
                done = subprocess.run([str(client_python), str(REPO / "bench" / "serve_grpc_endurance_client.py"), str(config)],
                                      stdout=subprocess.PIPE, text=True)
                if done.returncode != 0 or server.poll() is not None:
                    raise SystemExit(f"the gRPC client stopped (server {'dead' if server.poll() is not None else 'up'}): "
                                     f"{done.stdout[-500:]} (its stderr is above)")
                return json.loads(done.stdout.strip().splitlines()[-1])
            client(1000, args.seed + 1)
            at_warm = rss_kb(server.pid)
            result = client(args.requests, args.seed)
            at_end = rss_kb(server.pid)
            assert server.poll() is None, "the server died"
        finally:
            server.terminate()
            server.wait()
    print(json.dumps({"protocol": "grpc", "requests": args.requests, **result, "rss_kb_after_warm_up": at_warm,
                      "rss_kb_at_end": at_end, "rss_growth_kb": at_end - at_warm}))


if __name__ == "__main__":
    main()
