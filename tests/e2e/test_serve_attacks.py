"""`pt2ov serve` against hostile clients (raw sockets): JSON nested a million deep in every field,
2,000 idle and 200 slowloris connections while valid requests are served, a 64 MB header,
pipelined requests, half-closed and reset connections. Each attack is followed by valid requests
that must be answered with the in-process program's bytes, and the server must stay up.

The latencies measured here are printed, not asserted beyond "answered at all, within seconds"
(a stall is what is tested); bench/serve_attacks.py measures them on a quiet machine.
"""
from __future__ import annotations

import json
import pathlib
import resource
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import torch

from conftest import REPO_ROOT, pt2ov_binary

sys.path.insert(0, str(REPO_ROOT / "build" / "python"))
import pt2ov  # noqa: E402

START_TIMEOUT_S = 120
REQUEST_TIMEOUT_MS = 2000
IDLE_CONNECTIONS = 2000
SLOW_CONNECTIONS = 200


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(7)
        self.first = torch.nn.Linear(8, 16)
        self.second = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.second(self.first(x).relu())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raise_file_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = IDLE_CONNECTIONS + SLOW_CONNECTIONS + 512
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(wanted, soft)), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Served:
    """The server on one model, default limits but a short request timeout."""

    def __init__(self, root: pathlib.Path):
        self.port = free_port()
        self.log = open(root / "serve.log", "w+")
        self.process = subprocess.Popen(
            [str(pt2ov_binary()), "serve", str(root / "repo"), "--host", "127.0.0.1", "--http-port", str(self.port),
             "--grpc-port", "0", "--request-timeout-ms", str(REQUEST_TIMEOUT_MS)],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert self.process.poll() is None, f"the server exited at start:\n{self.output()}"
            try:
                if request(self.port, "GET", "/v2/health/ready")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"not ready:\n{self.output()}"
            time.sleep(0.1)

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def status(self, key: str) -> int:
        for line in pathlib.Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        raise AssertionError(key)

    def alive(self) -> bool:
        return self.process.poll() is None


def read_response(sock: socket.socket, pending: bytearray) -> tuple[int, bytes]:
    """One response (by Content-Length) from `sock`, bytes already read kept in `pending`."""
    while b"\r\n\r\n" not in pending:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed after {bytes(pending[:200])!r}")
        pending += chunk
    head_end = pending.index(b"\r\n\r\n")
    head = pending[:head_end].decode("latin-1")
    status = int(head.split(" ", 2)[1])
    length = 0
    for line in head.split("\r\n")[1:]:
        key, _, value = line.partition(":")
        if key.strip().lower() == "content-length":
            length = int(value)
    end = head_end + 4 + length
    while len(pending) < end:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed mid-body")
        pending += chunk
    body = bytes(pending[head_end + 4:end])
    del pending[:end]
    return status, body


def infer_bytes(x: np.ndarray) -> bytes:
    body = json.dumps({"inputs": [{"name": "x", "datatype": "FP32", "shape": list(x.shape),
                                   "data": x.reshape(-1).tolist()}]}).encode()
    return (f"POST /v2/models/mlp/infer HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def request(port: int, method: str, path: str, body: bytes = b"", timeout: float = 30) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: t\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        return read_response(sock, bytearray())


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("attacks")
    path = root / "repo" / "mlp" / "1" / "model.pt2"
    path.parent.mkdir(parents=True)
    module = Mlp().eval()
    batch = torch.export.Dim("batch", min=1, max=64)
    torch.export.save(torch.export.export(module, (torch.randn(2, 8),), dynamic_shapes=({0: batch},)), path)
    (root / "repo" / "mlp" / "config.json").write_text(json.dumps({"measure_placement": False}))
    raise_file_limit()
    server = Served(root)
    program = pt2ov.load(path, measure_placement=False)
    yield server, module, program
    assert server.alive(), f"the server died during the attacks:\n{server.output()}"
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=30) == 0, server.output()


def valid_request(served, seed: int = 0, sock: socket.socket | None = None) -> float:
    """One infer request, checked against the in-process program bit for bit; its latency in s."""
    server, module, program = served
    x = np.random.default_rng(seed).standard_normal((3, 8)).astype(np.float32)
    start = time.perf_counter()
    if sock is None:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as own:
            own.sendall(infer_bytes(x))
            status, body = read_response(own, bytearray())
    else:
        sock.sendall(infer_bytes(x))
        status, body = read_response(sock, bytearray())
    elapsed = time.perf_counter() - start
    assert status == 200, body[:300]
    (output,) = json.loads(body)["outputs"]
    got = np.array(output["data"], dtype=np.float32).reshape(output["shape"])
    assert got.tobytes() == np.asarray(program(torch.from_numpy(x))[0]).tobytes()
    return elapsed


def deep(kind: str, depth: int) -> bytes:
    return (b"[" * depth + b"1" + b"]" * depth) if kind == "array" else (b'{"a":' * depth + b"1" + b"}" * depth)


MILLION = 10**6
# Where a million levels go in an infer request: (label, body).
DEEP_BODIES = [
    ("shape", b'{"inputs":[{"name":"x","datatype":"FP32","shape":' + deep("array", MILLION) + b',"data":[0]}]}'),
    ("data", b'{"inputs":[{"name":"x","datatype":"FP32","shape":[1,8],"data":' + deep("array", MILLION) + b"}]}"),
    ("an element of data",
     b'{"inputs":[{"name":"x","datatype":"FP32","shape":[1,8],"data":[' + deep("object", MILLION) + b"]}]}"),
    ("an input's parameters", b'{"inputs":[{"name":"x","datatype":"FP32","shape":[1,8],"data":[0,0,0,0,0,0,0,0],'
     b'"parameters":' + deep("object", MILLION) + b"}]}"),
    ("outputs", b'{"inputs":[],"outputs":' + deep("array", MILLION) + b"}"),
    ("id", b'{"id":' + deep("object", MILLION) + b',"inputs":[]}'),
    ("the request's parameters", b'{"inputs":[],"parameters":' + deep("array", MILLION) + b"}"),
]


@pytest.mark.parametrize("label,body", DEEP_BODIES, ids=[label for label, _ in DEEP_BODIES])
def test_json_nested_a_million_deep_is_refused_in_every_field(served, label, body):
    server = served[0]
    status, reply = request(server.port, "POST", "/v2/models/mlp/infer", body)
    assert status == 400, f"{label}: {status} {reply[:300]!r}"
    assert "nested" in json.loads(reply)["error"], reply[:300]
    assert server.alive(), server.output()
    valid_request(served)


def test_idle_and_slow_connections_do_not_stall_requests(served):
    """2,000 idle connections and 200 sending their head a byte at a time: valid requests are
    still answered (each on a fresh connection, and on one kept alive), the slow ones are closed
    within the request timeout, and an idle connection costs the server little memory."""
    server = served[0]
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < IDLE_CONNECTIONS + SLOW_CONNECTIONS + 256:
        pytest.fail("the test process cannot open 2,200 sockets (RLIMIT_NOFILE)", pytrace=False)
    kept = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    valid_request(served, sock=kept)
    rss_before = server.status("VmRSS")
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=30) for _ in range(IDLE_CONNECTIONS)]
    slow = [socket.create_connection(("127.0.0.1", server.port), timeout=30) for _ in range(SLOW_CONNECTIONS)]
    stop = threading.Event()
    closed = set()

    def trickle():
        head = b"POST /v2/models/mlp/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n"
        at = 0
        while not stop.is_set() and at < len(head):
            for i, sock in enumerate(slow):
                if i in closed:
                    continue
                try:
                    sock.send(head[at:at + 1])
                except OSError:
                    closed.add(i)
            at += 1
            stop.wait(0.25)

    trickler = threading.Thread(target=trickle)
    trickler.start()
    try:
        time.sleep(0.5)
        rss_idle = server.status("VmRSS")
        latencies = [valid_request(served, seed=i) for i in range(40)]
        latencies += [valid_request(served, seed=i, sock=kept) for i in range(40)]
        latencies.sort()
        p50, p99 = latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99) - 1]
        print(f"\nwith {IDLE_CONNECTIONS} idle and {SLOW_CONNECTIONS} slow connections: REST p50 {p50 * 1e3:.2f} ms, "
              f"p99 {p99 * 1e3:.2f} ms; server RSS +{(rss_idle - rss_before) / IDLE_CONNECTIONS:.1f} KB a connection")
        assert latencies[-1] < 5.0, f"a request waited {latencies[-1]:.1f} s behind idle and slow connections"
        per_connection_kb = (rss_idle - rss_before) / (IDLE_CONNECTIONS + SLOW_CONNECTIONS)
        assert per_connection_kb <= 64, f"{per_connection_kb:.1f} KB of server memory a connection"
        # The slow ones are closed by the request timeout, with a 408.
        deadline = time.monotonic() + REQUEST_TIMEOUT_MS / 1000 + 5
        answered = 0
        for sock in slow[:20]:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            answered += data.startswith(b"HTTP/1.1 408")
        assert answered == 20, f"{answered} of 20 slow connections were answered 408 and closed"
    finally:
        stop.set()
        trickler.join()
        for sock in idle + slow:
            sock.close()
        kept.close()
    assert server.alive(), server.output()
    valid_request(served)


def test_a_64_mb_header_is_refused_without_being_read(served):
    server = served[0]
    peak_before = server.status("VmHWM")
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.sendall(b"GET /v2/health/live HTTP/1.1\r\nHost: t\r\nX-Big: ")
    piece = b"a" * (1 << 20)
    sent = 0
    try:
        while sent < 64 << 20:
            sock.sendall(piece)
            sent += len(piece)
    except OSError:
        pass  # the server closed the connection: what is tested
    try:
        sock.settimeout(5)
        reply = sock.recv(4096)
    except OSError:
        reply = b""
    sock.close()
    assert sent < 64 << 20 or reply.startswith(b"HTTP/1.1 431"), f"64 MB of header taken: {reply[:100]!r}"
    assert server.status("VmHWM") - peak_before <= 1024, "the header was read into memory"
    assert server.alive(), server.output()
    valid_request(served)


def test_pipelined_requests_are_each_answered_in_order(served):
    server, _, program = served
    xs = [np.full((1, 8), value, np.float32) for value in (0.5, -1.0, 2.0)]
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(b"".join(infer_bytes(x) for x in xs))
        pending = bytearray()
        for x in xs:
            status, body = read_response(sock, pending)
            assert status == 200, body[:200]
            (output,) = json.loads(body)["outputs"]
            got = np.array(output["data"], dtype=np.float32)
            assert got.tobytes() == np.asarray(program(torch.from_numpy(x))[0]).reshape(-1).tobytes()


def test_head_is_answered_as_get_without_a_body(served):
    """HEAD gets GET's head (status, Content-Length) and no body (RFC 9110 9.3.2): a body would be
    read as the start of the next answer on the connection."""
    server = served[0]
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(b"HEAD /v2/health/live HTTP/1.1\r\nHost: t\r\n\r\nGET /v2/health/live HTTP/1.1\r\nHost: t\r\n\r\n")
        pending = bytearray()
        while pending.count(b"\r\n\r\n") < 2 or not pending.endswith(b"}"):
            chunk = sock.recv(65536)
            assert chunk, f"closed after {bytes(pending)!r}"
            pending += chunk
        head, _, rest = bytes(pending).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
        assert rest.startswith(b"HTTP/1.1 200"), f"HEAD's answer carried a body: {rest[:100]!r}"
        status, body = read_response(sock, bytearray(rest))
        assert status == 200 and len(body) == length and json.loads(body) == {"live": True}
    valid_request(served)


def test_half_closed_and_reset_connections_leave_the_server_serving(served):
    server = served[0]
    x = np.ones((2, 8), np.float32)
    # Half-closed after the request: the answer still comes.
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(infer_bytes(x))
        sock.shutdown(socket.SHUT_WR)
        status, _ = read_response(sock, bytearray())
        assert status == 200
    # Reset in the middle of a body, and right after the head.
    for sent in (b"POST /v2/models/mlp/infer HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" + b"[" * 500,
                 b"POST /v2/models/mlp/infer HTTP/1.1\r\nContent-Length: 100\r\n\r\n"):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        sock.sendall(sent)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.close()
    time.sleep(0.2)
    assert server.alive(), server.output()
    valid_request(served)
