"""examples/ray_serve on a local Ray cluster of two nodes with two replicas (`make
test-serve-ray`, not in `make test`: Ray's venv is large and its start slow): every answer equals
the in-process Program's bytes, both replicas answer, a bad request gets an error and the next
one an answer."""
from __future__ import annotations

import http.client
import json
import os
import pathlib
import select
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "build" / "python"))
import pt2ov  # noqa: E402

RAY_PYTHON = REPO_ROOT / "build" / "ray-venv" / "bin" / "python"


def post(port: int, path: str, document: dict):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", path, body=json.dumps(document), headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_two_replicas_on_a_two_node_cluster(tmp_path):
    if not RAY_PYTHON.exists():
        pytest.fail(f"{RAY_PYTHON} is missing: run `make test-serve-ray`", pytrace=False)
    torch.manual_seed(3)
    module = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
    path = tmp_path / "mlp.pt2"
    torch.export.save(torch.export.export(module, (torch.randn(2, 8),),
                                          dynamic_shapes=({0: torch.export.Dim("b", min=1, max=16)},)), path)
    program = pt2ov.load(path, measure_placement=False)
    name = program.inputs[0].name
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    driver = subprocess.Popen([str(RAY_PYTHON), str(pathlib.Path(__file__).with_name("ray_cluster_driver.py")),
                               str(path), "mlp", str(port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=open(tmp_path / "ray.log", "w"), text=True,
                              # the replicas (Ray's worker processes) import the example and pt2ov too
                              env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0",
                                   "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "build" / "python"),
                                                                  str(REPO_ROOT / "examples" / "ray_serve")])})
    try:
        # Ray may print its own lines on the driver's stdout first.
        line, deadline = "", time.monotonic() + 300
        while not line.startswith("ready") and time.monotonic() < deadline:
            ready, _, _ = select.select([driver.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = driver.stdout.readline() if ready else ""
            if ready and not line:
                break  # the driver ended
        assert line.startswith("ready 2 nodes"), f"{line!r}\n{(tmp_path / 'ray.log').read_text()[-3000:]}"
        replicas = set()
        for i in range(40):
            x = torch.randn(1 + i % 3, 8, generator=torch.Generator().manual_seed(i))
            status, reply = post(port, "/v2/models/mlp/infer",
                                 {"inputs": [{"name": name, "datatype": "FP32", "shape": list(x.shape),
                                              "data": x.flatten().tolist()}]})
            assert status == 200, reply
            got = np.array(reply["outputs"][0]["data"], dtype=np.float32).reshape(reply["outputs"][0]["shape"])
            assert got.tobytes() == program(x.numpy())[0].tobytes(), f"request {i}: not the in-process bytes"
            replicas.add((reply["parameters"]["replica_host"], reply["parameters"]["replica_pid"]))
        assert len(replicas) == 2, f"answers came from {replicas}"
        status, reply = post(port, "/v2/models/mlp/infer", {"inputs": [{"name": name, "datatype": "FP32",
                                                                        "shape": [1, 7], "data": [0.0] * 7}]})
        assert status == 400 and "model 'mlp'" in reply["error"], reply
        status, reply = post(port, "/v2/models/mlp/infer", {"inputs": [{"name": name, "datatype": "FP32",
                                                                        "shape": [1, 8], "data": [0.0] * 8}]})
        assert status == 200, reply
    finally:
        driver.stdin.close()
        try:
            driver.wait(timeout=120)
        except subprocess.TimeoutExpired:
            driver.kill()
            driver.wait()
