"""pt2ov.serve: the model server started from Python (the package's command), answering the
Open Inference Protocol with the in-process Program's bytes, stopped cleanly; a repository that
cannot be served raises pt2ov.Error with the command's message."""
from __future__ import annotations

import json
import socket
import urllib.request

import numpy as np
import pytest
import torch

import pt2ov


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_answers_what_the_program_gives(tmp_path):
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh()).eval()
    path = tmp_path / "repo" / "tiny" / "1" / "model.pt2"
    path.parent.mkdir(parents=True)
    torch.export.save(torch.export.export(module, (torch.randn(2, 4),)), path)
    # the placement rules' plan on both sides: a timed placement could differ between two loads
    (tmp_path / "repo" / "tiny" / "config.json").write_text(json.dumps({"measure_placement": False}))
    program = pt2ov.load(path, measure_placement=False)
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    expected = program(x)[0]
    with pt2ov.serve(tmp_path / "repo", http_port=free_port(), grpc_port=free_port()) as server:
        request = json.dumps({"inputs": [{"name": program.inputs[0].name, "datatype": "FP32", "shape": [2, 4],
                                          "data": x.ravel().tolist()}]}).encode()
        with urllib.request.urlopen(f"{server.http_url}/v2/models/tiny/infer", data=request, timeout=60) as reply:
            output = json.loads(reply.read())["outputs"][0]
        got = np.array(output["data"], dtype=np.float32).reshape(output["shape"])
        assert got.tobytes() == expected.tobytes()
    assert server.stop() == 0


def test_serve_refuses_what_cannot_be_served(tmp_path):
    (tmp_path / "m" / "latest").mkdir(parents=True)
    with pytest.raises(pt2ov.OptionError, match="'latest' is not one"):
        pt2ov.serve(tmp_path, http_port=free_port(), grpc_port=free_port())
