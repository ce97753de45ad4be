"""`pt2ov serve` against KServe's own clients (kserve 0.21.0's InferenceRESTClient and
InferenceGRPCClient, in build/kserve-venv: `make test-serve-kserve`, not in `make test`, as
kserve's venv is large). Outputs must equal the in-process Program's bit for bit over REST
JSON, REST binary data and gRPC; health and readiness must answer; a wrong datatype must come
back as the client's error carrying the server's message."""
from __future__ import annotations

import json
import pathlib
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest
import torch

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "build" / "python"))
import pt2ov  # noqa: E402

KSERVE_PYTHON = REPO_ROOT / "build" / "kserve-venv" / "bin" / "python"


class Mixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.linear = torch.nn.Linear(6, 3)

    def forward(self, x, ids, flags):
        y = self.linear(x)
        return y, y.argmax(-1) + ids, ~flags, x.to(torch.float64) * 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_kserve_clients(tmp_path):
    if not KSERVE_PYTHON.exists():
        pytest.fail(f"{KSERVE_PYTHON} is missing: run `make test-serve-kserve`", pytrace=False)
    path = tmp_path / "repo" / "mixed" / "1" / "model.pt2"
    path.parent.mkdir(parents=True)
    batch = torch.export.Dim("batch", min=1, max=16)
    args = (torch.randn(3, 6), torch.tensor([1, 2, 3]), torch.tensor([True, False, True]))
    torch.export.save(torch.export.export(Mixed().eval(), args, dynamic_shapes=({0: batch}, {0: batch}, {0: batch})),
                      path)
    (path.parent.parent / "config.json").write_text(json.dumps({"measure_placement": False}))
    program = pt2ov.load(path, measure_placement=False)
    names = [info.name for info in program.inputs]
    np.savez(tmp_path / "inputs.npz", **{name: a.numpy() for name, a in zip(names, args)})
    expected = {info.name: out.numpy() for info, out in zip(program.outputs, program(*args))}

    http_port, grpc_port = free_port(), free_port()
    log = open(tmp_path / "serve.log", "w+")
    server = subprocess.Popen([str(REPO_ROOT / "build" / "pt2ov"), "serve", str(tmp_path / "repo"), "--host",
                               "127.0.0.1", "--http-port", str(http_port), "--grpc-port", str(grpc_port)],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{http_port}/v2/health/ready", timeout=5)
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "serve.log").read_text()
                time.sleep(0.1)
        client = subprocess.run([str(KSERVE_PYTHON), str(pathlib.Path(__file__).with_name("kserve_client.py")),
                                 f"http://127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}", "mixed",
                                 str(tmp_path / "inputs.npz"), str(tmp_path)], capture_output=True, text=True,
                                timeout=300)
        assert client.returncode == 0, client.stderr
        assert server.poll() is None, "the server died"
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    assert json.loads((tmp_path / "health.json").read_text()) == {
        key: True for key in ("rest_live", "rest_ready", "rest_model_ready", "grpc_live", "grpc_ready",
                              "grpc_model_ready")}
    for encoding in ("rest_json", "rest_binary", "grpc"):
        got = dict(np.load(tmp_path / f"{encoding}.npz"))
        assert sorted(got) == sorted(expected), encoding
        for name, want in expected.items():
            assert got[name].dtype == want.dtype and got[name].shape == want.shape, f"{encoding} {name}"
            assert got[name].tobytes() == want.tobytes(), f"{encoding} {name}: not the in-process bytes"
    errors = json.loads((tmp_path / "errors.json").read_text())
    message = f"model 'mixed' input '{names[0]}': datatype FP64, but the model takes FP32"
    assert message in errors["rest"] and "400" in errors["rest"], errors
    assert message in errors["grpc"] and "INVALID_ARGUMENT" in errors["grpc"], errors
