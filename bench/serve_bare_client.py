"""The serve benches' REST client that costs next to nothing: an inference request with binary
data, its bytes built once, sent over one keep-alive socket, each answer read by its
Content-Length. What tritonclient's own Python adds is the difference between its rows and these.
Imported by the client scripts of bench/serve_latency.py and bench/serve_throughput.py, which run
in build/serve-client-venv with this folder on PYTHONPATH (standard library and numpy only)."""
from __future__ import annotations

import json
import socket

import numpy as np


def binary_infer_request(host_port: str, model: str, name: str, x: np.ndarray, outputs=()) -> bytes:
    """The whole HTTP request inferring `model` on `x` (FP32) as input `name`, the named
    `outputs` asked for as binary data (none named: every output, as JSON)."""
    tensor = x.astype(np.float32).tobytes()
    document = {"inputs": [{"name": name, "shape": list(x.shape), "datatype": "FP32",
                            "parameters": {"binary_data_size": len(tensor)}}]}
    if outputs:
        document["outputs"] = [{"name": output, "parameters": {"binary_data": True}} for output in outputs]
    header = json.dumps(document).encode()
    return (f"POST /v2/models/{model}/infer HTTP/1.1\r\nHost: {host_port}\r\nContent-Type: application/octet-stream\r\n"
            f"Inference-Header-Content-Length: {len(header)}\r\nContent-Length: {len(header) + len(tensor)}\r\n\r\n"
            ).encode() + header + tensor


def keep_alive_caller(host_port: str, request: bytes):
    """(call, close): call() sends `request` on one connection and reads its answer whole,
    failing on any status but 200."""
    host, port = host_port.split(":")
    sock = socket.create_connection((host, int(port)))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def call() -> None:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head.decode(errors="replace"))
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        while len(body) < length:
            body += sock.recv(65536)

    return call, sock.close
