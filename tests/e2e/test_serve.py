"""`pt2ov serve` against clients nobody here wrote: tritonclient's HTTP and gRPC clients (in
their own venv, build/serve-client-venv, driven through tests/e2e/serve_client.py) and raw
HTTP for what a client library would never send. Programs are exported here; every output the
server returns must equal the in-process Program's (the pt2ov module from build/python) bit for
bit, and eager PyTorch's within the exactness contract. Every bad request is answered with the
protocol's error naming the model and input, and is followed by a valid request that succeeds.
"""
from __future__ import annotations

import base64
import http.client
import io
import json
import os
import pathlib
import select
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from conftest import REPO_ROOT, pt2ov_binary
from tests.models import DEFAULT_ATOL, DEFAULT_RTOL

sys.path.insert(0, str(REPO_ROOT / "build" / "python"))
import pt2ov  # noqa: E402

CLIENT_PYTHON = REPO_ROOT / "build" / "serve-client-venv" / "bin" / "python"
MAX_BODY_BYTES = 1 << 20
MAX_JSON_BYTES = 1 << 18
START_TIMEOUT_S = 120
REPLY_TIMEOUT_S = 60
PROTOCOLS = ["http", "grpc"]
# How a request's tensors travel: REST JSON "data", REST binary data, gRPC raw contents.
ENCODINGS = ["http-json", "http-binary", "grpc"]


# --- programs ---------------------------------------------------------------------------------
class Mlp(torch.nn.Module):
    def __init__(self, seed: int):
        super().__init__()
        torch.manual_seed(seed)
        self.first = torch.nn.Linear(8, 16)
        self.second = torch.nn.Linear(16, 4)

    def forward(self, x):
        y = self.second(self.first(x).relu())
        return y, y.argmax(-1)


class Dtypes(torch.nn.Module):
    """One input and one output of each dtype the protocol and pt2ov share (uint16 aside: torch
    computes nearly nothing on it)."""

    def forward(self, i64, i32, i16, i8, u8, flags, f16, f64, bf16, f32):
        return (i64 * 3 - 1, i32 + 7, i16 * 2, i8 - 1, u8 // 2, ~flags, f16 * 2 + 1, f64.sin(), bf16 * 2,
                f32.exp())


DTYPE_INPUTS = {
    "i64": torch.tensor([[-(2 ** 40), 5, 7]], dtype=torch.int64),
    "i32": torch.tensor([[100000, -3, 0]], dtype=torch.int32),
    "i16": torch.tensor([[1000, -2, 3]], dtype=torch.int16),
    "i8": torch.tensor([[100, -100, 0]], dtype=torch.int8),
    "u8": torch.tensor([[255, 1, 8]], dtype=torch.uint8),
    "flags": torch.tensor([[True, False, True]]),
    "f16": torch.tensor([[0.5, -1.25, 3.0]], dtype=torch.float16),
    "f64": torch.tensor([[0.1, 2.5, -7.0]], dtype=torch.float64),
    "bf16": torch.tensor([[1.5, -0.25, 96.0]], dtype=torch.bfloat16),
    "f32": torch.tensor([[0.1, -2.0, 1.0]], dtype=torch.float32),
}
DATATYPE = {torch.int64: "INT64", torch.int32: "INT32", torch.int16: "INT16", torch.int8: "INT8",
            torch.uint8: "UINT8", torch.bool: "BOOL", torch.float16: "FP16", torch.float64: "FP64",
            torch.bfloat16: "BF16", torch.float32: "FP32"}


class MaskedAttention(torch.nn.Module):
    """Attention over a padded batch, then a ReLU (which OpenVINO's plugin fuses and through
    which it loses NaN): the inputs people send, served (docs/EXACTNESS.md O8)."""

    def forward(self, q, k, v, mask):
        return (torch.relu(torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)),)


class Heavy(torch.nn.Module):
    """Milliseconds a run (three 512-wide layers over 64 rows): a call the server hands to a
    worker rather than answering on the thread that read it."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(44)
        self.layers = torch.nn.Sequential(*(torch.nn.Linear(512, 512) for _ in range(3)))

    def forward(self, x):
        return (self.layers(x).tanh(),)


def heavy_input(seed: int = 0) -> torch.Tensor:
    return torch.randn(64, 512, generator=torch.Generator().manual_seed(seed))


def attention_inputs(seed: int = 0) -> dict:
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(2, 2, 6, 8, generator=g) for _ in range(3))
    mask = torch.ones(2, 1, 6, 6, dtype=torch.bool).tril()
    return {"q": q, "k": k, "v": v, "mask": mask}


def mlp_input(batch: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(batch, 8, generator=torch.Generator().manual_seed(seed))


def export(module: torch.nn.Module, args, path: pathlib.Path, dynamic_shapes=None) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.export.save(torch.export.export(module.eval(), args, dynamic_shapes=dynamic_shapes), path)
    return path


@pytest.fixture(scope="module")
def repository(tmp_path_factory):
    """REPO/mlp/{1,2}/model.pt2 (two weights, a dynamic batch), REPO/dtypes/1/model.pt2; the
    placement rules decide (no timing), as for the in-process programs compared with."""
    root = tmp_path_factory.mktemp("serve") / "repo"
    batch = torch.export.Dim("batch", min=1, max=32)
    modules = {}
    for version, seed in ((1, 11), (2, 22)):
        modules[("mlp", version)] = Mlp(seed)
        export(modules[("mlp", version)], (mlp_input(2),), root / "mlp" / str(version) / "model.pt2",
               dynamic_shapes=({0: batch},))
    modules[("dtypes", 1)] = Dtypes()
    export(modules[("dtypes", 1)], tuple(DTYPE_INPUTS.values()), root / "dtypes" / "1" / "model.pt2")
    modules[("batched", 1)] = Mlp(33)
    export(modules[("batched", 1)], (mlp_input(2),), root / "batched" / "1" / "model.pt2", dynamic_shapes=({0: batch},))
    modules[("attention", 1)] = MaskedAttention()
    export(modules[("attention", 1)], tuple(attention_inputs().values()), root / "attention" / "1" / "model.pt2")
    modules[("heavy", 1)] = Heavy()
    export(modules[("heavy", 1)], (heavy_input(),), root / "heavy" / "1" / "model.pt2")
    for name in ("mlp", "dtypes", "attention", "heavy"):
        (root / name / "config.json").write_text(json.dumps({"measure_placement": False}))
    # Requests within 1 s joined into batches of up to 8 rows: the window is wide so that the
    # test's concurrent requests surely meet (with 200 ms the batching test failed once in five
    # runs on a 2-core machine at load 5).
    (root / "batched" / "config.json").write_text(json.dumps(
        {"measure_placement": False, "dynamic_batching": {"max_batch_size": 8, "window_us": 1000000}}))
    programs = {key: pt2ov.load(root / key[0] / str(key[1]) / "model.pt2", measure_placement=False) for key in modules}
    return root, modules, programs


# --- the server and the client ----------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, target: pathlib.Path, *extra: str):
        self.http_port, self.grpc_port = free_port(), free_port()
        self.log = open(target.parent / f"serve-{self.http_port}.log", "w+")
        self.process = subprocess.Popen(
            [str(pt2ov_binary()), "serve", str(target), "--host", "127.0.0.1", "--http-port", str(self.http_port),
             "--grpc-port", str(self.grpc_port), "--max-body-bytes", str(MAX_BODY_BYTES),
             "--max-json-bytes", str(MAX_JSON_BYTES), *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                pytest.fail(f"pt2ov serve exited {self.process.returncode} at start:\n{self.output()}", pytrace=False)
            try:
                if self.http("GET", "/v2/health/ready")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"pt2ov serve not ready within {START_TIMEOUT_S} s:\n{self.output()}", pytrace=False)
            time.sleep(0.1)

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def http(self, method: str, path: str, body: bytes = b"", headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.http_port, timeout=REPLY_TIMEOUT_S)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read(), dict(response.getheaders())
        finally:
            connection.close()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> int:
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def encode_array(array: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode()


def decode_array(text: str) -> np.ndarray:
    return np.load(io.BytesIO(base64.b64decode(text)), allow_pickle=False)


class Client:
    """tritonclient in its own venv, one JSON request and reply a line."""

    def __init__(self, server: Server):
        if not CLIENT_PYTHON.exists():
            pytest.fail(f"{CLIENT_PYTHON} is missing: run `make serve-client-venv` (make test-e2e does)", pytrace=False)
        self.process = subprocess.Popen(
            [str(CLIENT_PYTHON), str(REPO_ROOT / "tests" / "e2e" / "serve_client.py"),
             f"127.0.0.1:{server.http_port}", f"127.0.0.1:{server.grpc_port}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, request: dict) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], REPLY_TIMEOUT_S)
        assert ready, f"no reply within {REPLY_TIMEOUT_S} s to {request.get('op')} {request.get('method', '')}"
        line = self.process.stdout.readline()
        assert line, f"the client exited {self.process.poll()} on {request}"
        return json.loads(line)

    def call(self, protocol: str, method: str, *args):
        reply = self.ask({"op": "call", "protocol": protocol, "method": method, "args": list(args)})
        assert "error" not in reply, f"{protocol} {method}{args}: {reply}"
        return reply["result"]

    def infer(self, encoding: str, model: str, inputs: dict, version: str = "", outputs=None, shapes=None):
        """inputs: name -> numpy array (bf16 as float32). Returns (name -> array, the response's
        JSON) or raises AssertionError with the error when the server refused."""
        reply = self.try_infer(encoding, model, inputs, version, outputs, shapes)
        assert "error" not in reply, f"{encoding} infer {model}: {reply}"
        return ({name: decode_array(text) for name, text in reply["result"]["outputs"].items()},
                reply["result"]["response"])

    def try_infer(self, encoding, model, inputs, version="", outputs=None, shapes=None, datatypes=None):
        protocol = encoding.split("-")[0]
        specs = []
        for name, array in inputs.items():
            datatype = (datatypes or {}).get(name) or datatype_of(name, array)
            specs.append({"name": name, "datatype": datatype, "array": encode_array(array),
                          # BF16 has no JSON form: binary whatever the encoding
                          "binary": encoding != "http-json" or datatype == "BF16"})
            if shapes and name in shapes:
                specs[-1]["shape"] = shapes[name]
        wanted = None if outputs is None else [{"name": n, "binary": encoding != "http-json"} for n in outputs]
        return self.ask({"op": "infer", "protocol": protocol, "model": model, "version": version, "inputs": specs,
                         "outputs": wanted})

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def datatype_of(name: str, array: np.ndarray) -> str:
    if name == "bf16":
        return "BF16"
    return {np.dtype(np.int64): "INT64", np.dtype(np.int32): "INT32", np.dtype(np.int16): "INT16",
            np.dtype(np.int8): "INT8", np.dtype(np.uint8): "UINT8", np.dtype(np.bool_): "BOOL",
            np.dtype(np.float16): "FP16", np.dtype(np.float64): "FP64", np.dtype(np.float32): "FP32"}[array.dtype]


@pytest.fixture(scope="module")
def server(repository):
    root, _, _ = repository
    running = Server(root)
    yield running
    assert running.alive(), f"the server died during the tests:\n{running.output()}"
    assert running.stop() == 0, f"the server did not stop cleanly on SIGTERM:\n{running.output()}"


@pytest.fixture(scope="module")
def client(server):
    driver = Client(server)
    yield driver
    driver.close()


# --- comparisons ------------------------------------------------------------------------------
def as_numpy(t: torch.Tensor) -> np.ndarray:
    """What tritonclient hands back for a tensor: bf16 as float32 (exact), others as themselves."""
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).contiguous().numpy()


def same_bits(actual: np.ndarray, expected: np.ndarray, label: str):
    assert actual.dtype == expected.dtype, f"{label}: dtype {actual.dtype}, expected {expected.dtype}"
    assert actual.shape == expected.shape, f"{label}: shape {actual.shape}, expected {expected.shape}"
    assert actual.tobytes() == expected.tobytes(), f"{label}: not bit for bit the in-process result:\n{actual}\n{expected}"


def check_against_program_and_eager(actual: dict, program, module, args, label: str):
    """`actual` (output name -> array) equals the in-process Program's outputs bit for bit and
    eager's within E5 (integers and bools exactly)."""
    expected = program(*args)
    eager = module(*args)
    names = [info.name for info in program.outputs]
    assert sorted(actual) == sorted(names), f"{label}: outputs {sorted(actual)}, the program's {sorted(names)}"
    for name, mine, theirs in zip(names, expected, eager):
        same_bits(actual[name], as_numpy(mine), f"{label} output {name}")
        want = as_numpy(theirs)
        if want.dtype.kind == "f":
            np.testing.assert_allclose(actual[name], want, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL, err_msg=label)
        else:
            np.testing.assert_array_equal(actual[name], want, err_msg=label)


def mlp_request(client, encoding, repository, batch, version="", seed=0):
    _, modules, programs = repository
    x = mlp_input(batch, seed)
    actual, response = client.infer(encoding, "mlp", {"x": x.numpy()}, version=version)
    chosen = int(version or 2)
    check_against_program_and_eager(actual, programs[("mlp", chosen)], modules[("mlp", chosen)], (x,),
                                    f"{encoding} mlp v{chosen} batch {batch}")
    return response


# --- endpoints --------------------------------------------------------------------------------
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_health_and_metadata(client, repository, protocol):
    _, _, programs = repository
    assert client.call(protocol, "is_server_live") is True
    assert client.call(protocol, "is_server_ready") is True
    assert client.call(protocol, "is_model_ready", "mlp") is True
    assert client.call(protocol, "is_model_ready", "mlp", "1") is True
    server_metadata = client.call(protocol, "get_server_metadata")
    assert server_metadata["name"] == "pt2ov" and "binary_tensor_data" in server_metadata["extensions"]
    for name, version in (("mlp", ""), ("mlp", "1"), ("dtypes", "")):
        metadata = client.call(protocol, "get_model_metadata", name, version)
        assert metadata["name"] == name
        assert metadata["versions"] == (["1", "2"] if name == "mlp" else ["1"])
        program = programs[(name, int(version or metadata["versions"][-1]))]
        for kind, infos in (("inputs", program.inputs), ("outputs", program.outputs)):
            want = [{"name": info.name, "datatype": DATATYPE[getattr(torch, info.dtype)],
                     "shape": [-1 if d is None else d for d in info.shape]} for info in infos]
            got = [{"name": t["name"], "datatype": t["datatype"], "shape": [int(d) for d in t["shape"]]}
                   for t in metadata[kind]]
            assert got == want, f"{protocol} {name} {kind}"
    assert programs[("mlp", 2)].inputs[0].shape[0] is None  # the dynamic batch shows as -1 above


def test_rest_paths_answer_as_the_protocol_says(server):
    for path in ("/v2/health/live", "/v2/health/ready", "/v2", "/v2/models/mlp", "/v2/models/mlp/versions/1",
                 "/v2/models/mlp/ready", "/v2/models/mlp/versions/2/ready"):
        status, body, headers = server.http("GET", path)
        assert status == 200, f"GET {path}: {status} {body!r}"
        assert headers["Content-Type"] == "application/json"
        json.loads(body)
    status, body, _ = server.http("GET", "/v2/models/mlp/versions/1")
    assert json.loads(body)["versions"] == ["1", "2"]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_infer_equals_the_in_process_program(client, repository, encoding):
    for batch in (1, 5, 32):  # the dynamic batch, up to its maximum
        response = mlp_request(client, encoding, repository, batch, seed=batch)
        assert response["model_name"] == "mlp" and response["model_version"] == "2"
        assert [int(d) for d in response["outputs"][0]["shape"]] == [batch, 4]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_versions_route_to_their_own_program(client, repository, encoding):
    first = mlp_request(client, encoding, repository, 3, version="1")
    assert first["model_version"] == "1"
    mlp_request(client, encoding, repository, 3, version="2")
    _, _, programs = repository
    x = mlp_input(3)
    assert not torch.equal(programs[("mlp", 1)](x)[0], programs[("mlp", 2)](x)[0])  # two different programs


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_datatype(client, repository, encoding):
    _, modules, programs = repository
    inputs = {name: as_numpy(t) for name, t in DTYPE_INPUTS.items()}
    actual, response = client.infer(encoding, "dtypes", inputs)
    check_against_program_and_eager(actual, programs[("dtypes", 1)], modules[("dtypes", 1)],
                                    tuple(DTYPE_INPUTS.values()), f"{encoding} dtypes")
    datatypes = {output["name"]: output["datatype"] for output in response["outputs"]}
    assert sorted(datatypes.values()) == sorted(DATATYPE[t.dtype] for t in DTYPE_INPUTS.values())


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_requested_outputs_only(client, repository, encoding):
    _, _, programs = repository
    program = programs[("mlp", 2)]
    wanted = program.outputs[1].name
    x = mlp_input(4)
    actual, response = client.infer(encoding, "mlp", {"x": x.numpy()}, outputs=[wanted])
    assert list(actual) == [wanted] and len(response["outputs"]) == 1
    same_bits(actual[wanted], as_numpy(program(x)[1]), f"{encoding} {wanted}")


def test_rest_nested_json_data(server, repository):
    _, _, programs = repository
    x = mlp_input(2)
    body = json.dumps({"id": "nested", "inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 8],
                                                   "data": x.tolist()}]})
    status, reply, _ = server.http("POST", "/v2/models/mlp/infer", body.encode())
    assert status == 200, reply
    reply = json.loads(reply)
    assert reply["id"] == "nested"
    expected = programs[("mlp", 2)](x)
    for output, want in zip(reply["outputs"], expected):
        same_bits(np.array(output["data"], dtype=as_numpy(want).dtype).reshape(output["shape"]), as_numpy(want),
                  f"nested {output['name']}")


# --- the inputs people send --------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["http-binary", "grpc"])
def test_padded_masks_and_nan_inputs_served_as_pytorch_computes_them(client, repository, encoding):
    """A left-padded batch, a wholly padded sequence (every query row keeps no key) and a NaN in
    one sequence's query, each through the server: bit for bit the in-process program, and
    eager's zeros and NaN pattern (OpenVINO alone gives NaN for the masked rows and loses the
    NaN through the ReLU)."""
    _, modules, programs = repository
    module, program = modules[("attention", 1)], programs[("attention", 1)]
    cases = {}
    padded = attention_inputs(1)
    padded["mask"][0, ..., :2] = False  # sequence 0 left-padded by 2: its first 2 query rows keep no key
    cases["left-padded"] = padded
    blank = attention_inputs(2)
    blank["mask"][1] = False  # sequence 1 wholly padded
    cases["wholly padded row"] = blank
    poisoned = attention_inputs(3)
    poisoned["q"][1, 0, 2, 3] = float("nan")
    cases["NaN in sequence 1"] = poisoned
    for label, inputs in cases.items():
        actual, _ = client.infer(encoding, "attention", {name: t.numpy() for name, t in inputs.items()})
        args = tuple(inputs.values())
        check_against_program_and_eager(actual, program, module, args, f"{encoding} {label}")
        (got,) = actual.values()
        with torch.no_grad():
            eager = module(*args)[0].numpy()
        assert np.array_equal(np.isnan(got), np.isnan(eager)), f"{encoding} {label}: NaN pattern differs"
    assert np.isnan(got[1]).any() and not np.isnan(got[0]).any()


# --- bad requests -----------------------------------------------------------------------------
def metrics(server) -> dict:
    status, body, _ = server.http("GET", "/metrics")
    assert status == 200
    values = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            values[key] = float(value)
    return values


def http_infer(server, model: str, document: dict | bytes, binary: bytes = b"", json_length=None):
    header = document if isinstance(document, bytes) else json.dumps(document).encode()
    headers = {}
    if binary or json_length is not None:
        headers["Inference-Header-Content-Length"] = str(len(header) if json_length is None else json_length)
    return server.http("POST", f"/v2/models/{model}/infer", header + binary, headers)


def fp32_input(shape, data=None, name="x", datatype="FP32"):
    return {"name": name, "datatype": datatype, "shape": shape,
            "data": data if data is not None else [0.5] * int(np.prod(shape))}


# Raw REST requests a client library would not send: (label, model, body, binary, expected status,
# what the error must say).
RAW_REST_ERRORS = [
    ("malformed JSON", "mlp", b'{"inputs": [', b"", 400, "not valid JSON"),
    ("not an object", "mlp", b"[1, 2]", b"", 400, "JSON object"),
    ("no inputs", "mlp", {"outputs": []}, b"", 400, '"inputs"'),
    ("wrong datatype", "mlp", {"inputs": [fp32_input([1, 8], [1] * 8, datatype="INT64")]}, b"", 400,
     "model 'mlp' input 'x': datatype INT64, but the model takes FP32"),
    ("unknown datatype", "mlp", {"inputs": [fp32_input([1, 8], datatype="STRING")]}, b"", 400,
     "input 'x': datatype 'STRING'"),
    ("wrong shape", "mlp", {"inputs": [fp32_input([1, 7])]}, b"", 400,
     "model 'mlp' input 'x': shape [1, 7], but the model takes [-1, 8]"),
    ("batch beyond its range", "mlp", {"inputs": [fp32_input([33, 8])]}, b"", 400, "dim 0 within [1, 32]"),
    ("data not matching shape", "mlp", {"inputs": [fp32_input([2, 8], [0.5] * 15)]}, b"", 400,
     "input 'x': \"data\" holds 15 values, but shape [2, 8] needs 16"),
    ("a string for a number", "mlp", {"inputs": [fp32_input([1, 8], ["a"] * 8)]}, b"", 400, "is not a number"),
    ("missing input", "mlp", {"inputs": []}, b"", 400, "model 'mlp' input 'x' is missing"),
    ("extra input", "mlp", {"inputs": [fp32_input([1, 8]), fp32_input([1], name="y")]}, b"", 400,
     "model 'mlp' has no input 'y' (its inputs: x)"),
    ("input twice", "mlp", {"inputs": [fp32_input([1, 8]), fp32_input([1, 8])]}, b"", 400, "given twice"),
    ("unknown output", "mlp", {"inputs": [fp32_input([1, 8])], "outputs": [{"name": "nope"}]}, b"", 400,
     "model 'mlp' has no output 'nope'"),
    ("binary bytes not matching shape", "mlp",
     {"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 8], "parameters": {"binary_data_size": 28}}]},
     b"\0" * 28, 400, "input 'x': 28 bytes of data, but FP32 of shape [1, 8] takes 32 bytes"),
    ("binary size beyond the body", "mlp",
     {"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 8], "parameters": {"binary_data_size": 32}}]},
     b"\0" * 16, 400, "more than the 16 bytes"),
    ("bytes left over", "mlp",
     {"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 8], "parameters": {"binary_data_size": 32}}]},
     b"\0" * 40, 400, "8 bytes of binary data after"),
    ("BF16 as JSON", "dtypes", {"inputs": [fp32_input([1, 3], name="bf16", datatype="BF16")]}, b"", 400,
     "BF16 has no JSON form"),
    ("integer out of range", "dtypes", {"inputs": [fp32_input([1, 3], [1, 2, 300], name="u8", datatype="UINT8")]},
     b"", 400, "input 'u8': element 2 (300) is out of range for UINT8"),
    ("a fraction for an integer", "dtypes", {"inputs": [fp32_input([1, 3], [1, 2.5, 3], name="i64",
                                                                   datatype="INT64")]},
     b"", 400, "is not an integer"),
    ("unknown model", "nope", {"inputs": [fp32_input([1, 8])]}, b"", 404,
     "unknown model 'nope' (this server has: attention, batched, dtypes, heavy, mlp)"),
    # (a million deep, beyond this server's JSON limit: tests/e2e/test_serve_attacks.py)
    ("a shape nested 100,000 deep", "mlp",
     b'{"inputs":[{"name":"x","datatype":"FP32","shape":' + b"[" * 10**5 + b"1" + b"]" * 10**5 + b',"data":[0]}]}',
     b"", 400, "the request's JSON is nested 100003 deep"),
    ("a data element nested 20,000 deep", "mlp",
     b'{"inputs":[{"name":"x","datatype":"FP32","shape":[1,8],"data":[' + b'{"a":' * 20000 + b"1" + b"}" * 20000
     + b"]}]}", b"", 400, "the request's JSON is nested 20004 deep"),
    ("data nested 4x6 for shape [3, 8]", "mlp", {"inputs": [fp32_input([3, 8], [[0.5] * 6] * 4)]}, b"", 400,
     "input 'x': \"data\" holds 4 items, but shape [3, 8] needs 3 at this level"),
    ("ragged data", "mlp", {"inputs": [fp32_input([3, 8], [[0.5] * 8, [0.5] * 7, [0.5] * 9])]}, b"", 400,
     "\"data\"[1] holds 7 items, but shape [3, 8] needs 8"),
    ("FP32 beyond its range", "mlp", {"inputs": [fp32_input([1, 8], [1e39] + [0.5] * 7)]}, b"", 400,
     "input 'x': element 0 (1e+39) is out of range for FP32"),
    ("oversized body", "mlp",
     {"inputs": [{"name": "x", "datatype": "FP32", "shape": [MAX_BODY_BYTES // 32, 8],
                  "parameters": {"binary_data_size": MAX_BODY_BYTES}}]}, b"\0" * MAX_BODY_BYTES, 413,
     f"the request body is over the server's limit of {MAX_BODY_BYTES} bytes"),
    ("oversized JSON", "mlp", {"inputs": [fp32_input([1, 8], [0.5] * (MAX_JSON_BYTES // 4))]}, b"", 413,
     f"over the server's limit of {MAX_JSON_BYTES} bytes for JSON (pt2ov serve --max-json-bytes)"),
]


@pytest.mark.parametrize("case", RAW_REST_ERRORS, ids=[case[0] for case in RAW_REST_ERRORS])
def test_rest_bad_request_then_a_good_one(server, client, repository, case):
    label, model, document, binary, expected_status, message = case
    before = metrics(server)
    status, body, headers = http_infer(server, model, document, binary)
    assert status == expected_status, f"{label}: status {status}, body {body[:300]!r}"
    assert headers["Content-Type"] == "application/json", label
    error = json.loads(body)["error"]
    assert message in error, f"{label}: {error!r}"
    assert server.alive()
    mlp_request(client, "http-json", repository, 2)
    after = metrics(server)
    known = model in ("mlp", "dtypes") and expected_status != 413  # these reach the model's counters
    key = f'{{model="{model}",version="{2 if model == "mlp" else 1}"}}'
    if known:
        assert after[f"pt2ov_inference_failures_total{key}"] == before[f"pt2ov_inference_failures_total{key}"] + 1
    mlp_key = 'pt2ov_inference_requests_total{model="mlp",version="2"}'
    assert after[mlp_key] == before[mlp_key] + 1 + (model == "mlp" and known)


def test_compressed_and_chunked_bodies_are_refused_before_they_are_read(server, client, repository):
    """A gzip body of 200 KB that inflates past the body limit, and a chunked body past it: both
    would be read whole by the HTTP and gRPC libraries before the limit applies, so both are
    refused outright, and the server's memory stays where it was."""
    import gzip
    padding = b'"' + b"a" * (MAX_BODY_BYTES * 64) + b'"'
    bomb = gzip.compress(b'{"inputs": [], "pad": ' + padding + b"}")
    assert len(bomb) < MAX_BODY_BYTES
    before = peak_rss_kb(server)
    status, body, _ = server.http("POST", "/v2/models/mlp/infer", bomb, {"Content-Encoding": "gzip"})
    assert status == 415 and "takes uncompressed bodies only" in json.loads(body)["error"]
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=REPLY_TIMEOUT_S)
    connection.request("POST", "/v2/models/mlp/infer", body=iter([b"x" * 65536] * (MAX_BODY_BYTES // 65536 + 2)),
                       encode_chunked=True)
    response = connection.getresponse()
    assert response.status == 411 and "declared Content-Length" in json.loads(response.read())["error"]
    connection.close()
    reply = client.ask({"op": "grpc_raw", "gzip": True, "pad_id": MAX_BODY_BYTES * 64,
                        "request": {"model_name": "mlp", "inputs": []}})
    assert reply.get("status") == "StatusCode.UNIMPLEMENTED" and "gzip" in reply["error"], reply
    assert peak_rss_kb(server) - before < 16 * 1024, "the refused bodies were read into memory"
    mlp_request(client, "http-json", repository, 1)
    mlp_request(client, "grpc", repository, 1)


def peak_rss_kb(server) -> int:
    for line in pathlib.Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_rest_unknown_version_and_path(server, client, repository):
    status, body, _ = http_infer(server, "mlp/versions/9", {"inputs": [fp32_input([1, 8])]})
    assert status == 404 and "model 'mlp' has no version '9' (its versions: 1, 2)" in json.loads(body)["error"]
    status, body, _ = server.http("GET", "/v2/models/mlp/versions/x/ready")
    assert status == 404 and "no version 'x'" in json.loads(body)["error"]
    status, body, _ = server.http("GET", "/v1/models")
    assert status == 404 and "no endpoint GET /v1/models" in json.loads(body)["error"]
    status, body, _ = http_infer(server, "mlp", {"inputs": [fp32_input([1, 8])]}, json_length=10 ** 9)
    assert status == 400 and "Inference-Header-Content-Length" in json.loads(body)["error"]
    mlp_request(client, "http-binary", repository, 1)


# tritonclient requests the server must refuse: (label, model, inputs, shapes, datatypes, version,
# expected HTTP status, expected gRPC code, what the error must say)
CLIENT_ERRORS = [
    ("wrong datatype", "mlp", {"x": np.ones((1, 8), np.float64)}, None, None, "", 400,
     "StatusCode.INVALID_ARGUMENT", "model 'mlp' input 'x': datatype FP64, but the model takes FP32"),
    ("wrong shape", "mlp", {"x": np.ones((2, 3), np.float32)}, None, None, "", 400, "StatusCode.INVALID_ARGUMENT",
     "model 'mlp' input 'x': shape [2, 3], but the model takes [-1, 8]"),
    ("missing input", "dtypes", {"i64": np.ones((1, 3), np.int64)}, None, None, "", 400,
     "StatusCode.INVALID_ARGUMENT", "model 'dtypes' input 'i32' is missing"),
    ("extra input", "mlp", {"x": np.ones((1, 8), np.float32), "z": np.ones(2, np.float32)}, None, None, "", 400,
     "StatusCode.INVALID_ARGUMENT", "model 'mlp' has no input 'z'"),
    ("unknown model", "nope", {"x": np.ones((1, 8), np.float32)}, None, None, "", 404, "StatusCode.NOT_FOUND",
     "unknown model 'nope'"),
    ("unknown version", "mlp", {"x": np.ones((1, 8), np.float32)}, None, None, "3", 404, "StatusCode.NOT_FOUND",
     "model 'mlp' has no version '3' (its versions: 1, 2)"),
    ("oversized", "mlp", {"x": np.ones((MAX_BODY_BYTES // 32 + 1, 8), np.float32)}, None, None, "", 413,
     "StatusCode.RESOURCE_EXHAUSTED", ""),
]


@pytest.mark.parametrize("encoding", ["http-binary", "grpc"])
@pytest.mark.parametrize("case", CLIENT_ERRORS, ids=[case[0] for case in CLIENT_ERRORS])
def test_client_bad_request_then_a_good_one(client, server, repository, encoding, case):
    label, model, inputs, shapes, datatypes, version, http_status, grpc_code, message = case
    reply = client.try_infer(encoding, model, inputs, version=version, shapes=shapes, datatypes=datatypes)
    assert "error" in reply, f"{label}: answered {reply}"
    assert reply["status"] == (str(http_status) if encoding.startswith("http") else grpc_code), f"{label}: {reply}"
    assert message in reply["error"], f"{label}: {reply['error']!r}"
    assert server.alive()
    mlp_request(client, encoding, repository, 2)


def grpc_raw(client, inputs, raw=None, model="mlp"):
    request = {"model_name": model, "inputs": inputs}
    if raw is not None:
        request["raw_input_contents"] = [base64.b64encode(b).decode() for b in raw]
    return client.ask({"op": "grpc_raw", "request": request})


@pytest.mark.parametrize("label,inputs,raw,message", [
    ("raw bytes not matching shape", [{"name": "x", "datatype": "FP32", "shape": [1, 8]}], [b"\0" * 31],
     "input 'x': 31 bytes of data, but FP32 of shape [1, 8] takes 32 bytes"),
    ("fewer raw contents than inputs", [{"name": "x", "datatype": "FP32", "shape": [1, 8]},
                                        {"name": "y", "datatype": "FP32", "shape": [1]}], [b"\0" * 32],
     "raw_input_contents holds 1 tensors for 2 inputs"),
    ("typed contents of the wrong count", [{"name": "x", "datatype": "FP32", "shape": [1, 8],
                                            "contents": {"fp32_contents": [1.0] * 7}}], None,
     "contents.fp32_contents holds 7 values, but shape [1, 8] needs 8"),
    ("negative dim", [{"name": "x", "datatype": "FP32", "shape": [-1, 8]}], [b""], "negative"),
    ("unknown datatype", [{"name": "x", "datatype": "BYTES", "shape": [1]}], [b"ab"], "datatype 'BYTES'"),
])
def test_grpc_malformed_message_then_a_good_one(client, server, repository, label, inputs, raw, message):
    reply = grpc_raw(client, inputs, raw)
    assert reply.get("status") == "StatusCode.INVALID_ARGUMENT", f"{label}: {reply}"
    assert message in reply["error"], f"{label}: {reply['error']!r}"
    mlp_request(client, "grpc", repository, 1)


@pytest.mark.parametrize("label,model,input_name,code,start", [
    ("a model name of 20 KB", "m" * 20000, "x", "StatusCode.NOT_FOUND", "unknown model 'mmmm"),
    ("an input name of 20 KB", "mlp", "i" * 20000, "StatusCode.INVALID_ARGUMENT", "model 'mlp'"),
    ("a model name of 5,000 multi-byte characters", "\u00e9" * 5000, "x", "StatusCode.NOT_FOUND", "unknown model"),
])
def test_grpc_errors_quoting_long_names_reach_the_client(client, server, repository, label, model, input_name, code, start):
    """An error quotes what the client sent; gRPC clients refuse a status trailer over 8 KB, so the
    message is cut to a size any client takes, and the client gets the code, not its own refusal."""
    reply = grpc_raw(client, [{"name": input_name, "datatype": "FP32", "shape": [1, 8]}], [b"\0" * 32], model=model)
    assert reply.get("status") == code, f"{label}: {reply}"
    assert reply["error"].startswith(start) or start in reply["error"][:200], f"{label}: {reply['error'][:200]!r}"
    assert "bytes more)" in reply["error"] and len(reply["error"].encode()) <= 2048, f"{label}: {len(reply['error'])}"
    mlp_request(client, "grpc", repository, 1)


def test_grpc_typed_contents_equal_raw(client, repository):
    _, _, programs = repository
    x = mlp_input(1)
    reply = grpc_raw(client, [{"name": "x", "datatype": "FP32", "shape": [1, 8],
                               "contents": {"fp32_contents": x.flatten().tolist()}}])
    assert reply == {"result": {"outputs": 2}}, reply
    mlp_request(client, "grpc", repository, 1)


def concurrent_grpc_calls(client, model, input_sets, threads, calls, timeout=None):
    sets = [[{"name": name, "datatype": datatype_of(name, array), "array": encode_array(array)}
             for name, array in inputs.items()] for inputs in input_sets]
    reply = client.ask({"op": "grpc_concurrent", "model": model, "input_sets": sets, "threads": threads,
                        "calls": calls, "timeout": timeout})
    assert "error" not in reply, reply
    answers = [[{name: decode_array(text) for name, text in answer.items()} for answer in distinct]
               for distinct in reply["result"]["answers"]]
    return answers, reply["result"]["errors"]


@pytest.mark.parametrize("model", ["mlp", "heavy"])
def test_grpc_concurrent_calls_each_get_their_own_answer(client, repository, model):
    """16 clients at once, 4 inputs among them: every call is answered, with the in-process
    program's bytes for its own input. The MLP's calls are answered on the threads that read them,
    the heavy model's on workers."""
    _, modules, programs = repository
    inputs = [mlp_input(3, seed) if model == "mlp" else heavy_input(seed) for seed in range(4)]
    calls = 40 if model == "mlp" else 6
    answers, errors = concurrent_grpc_calls(client, model, [{"x": x.numpy()} for x in inputs], 16, calls)
    assert errors == {}, errors
    version = 2 if model == "mlp" else 1
    for x, distinct in zip(inputs, answers):
        assert len(distinct) == 1, f"{model}: {len(distinct)} different answers to one input"
        check_against_program_and_eager(distinct[0], programs[(model, version)], modules[(model, version)], (x,),
                                        f"{model} concurrent over gRPC")


def test_grpc_calls_past_their_deadline_leave_the_server_serving(client, server, repository):
    """Calls whose client gives up after 1 ms (the heavy model takes longer): each ends with
    DEADLINE_EXCEEDED at the client while the server finishes it; the next calls are answered."""
    answers, errors = concurrent_grpc_calls(client, "heavy", [{"x": heavy_input().numpy()}], 8, 5, timeout=0.001)
    assert sum(errors.values()) > 0 and set(errors) <= {"StatusCode.DEADLINE_EXCEEDED"}, errors
    assert server.alive(), server.output()
    mlp_request(client, "grpc", repository, 2)
    answers, errors = concurrent_grpc_calls(client, "heavy", [{"x": heavy_input(1).numpy()}], 4, 2)
    assert errors == {} and len(answers[0]) == 1, errors


@pytest.mark.parametrize("method", ["load_model", "unload_model"])
def test_grpc_model_control_is_refused(client, method):
    reply = client.ask({"op": "call", "protocol": "grpc", "method": method, "args": ["mlp"]})
    assert reply.get("status") == "StatusCode.UNIMPLEMENTED", reply
    assert "reads its repository once" in reply["error"], reply


def test_the_server_stops_on_sigterm_with_calls_in_flight(repository):
    """SIGTERM while 8 clients keep the heavy model busy over gRPC (and one over REST): the
    calls in flight finish or are cut, and the server exits 0 within the fixture's 30 s."""
    root, _, _ = repository
    running = Server(root)
    driver = Client(running)
    try:
        x = heavy_input().numpy()
        sets = [[{"name": "x", "datatype": "FP32", "array": encode_array(x)}]]
        driver.process.stdin.write(json.dumps({"op": "grpc_concurrent", "model": "heavy", "input_sets": sets,
                                               "threads": 8, "calls": 1000, "timeout": None}) + "\n")
        driver.process.stdin.flush()
        time.sleep(2)
        assert running.alive(), running.output()
        started = time.monotonic()
        assert running.stop() == 0, f"exit {running.process.returncode} on SIGTERM:\n{running.output()}"
        assert time.monotonic() - started < 20, "the server took too long to stop"
    finally:
        driver.process.kill()
        driver.process.wait()
        running.stop()


HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HTTP2_EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # length 0, type SETTINGS, no flags, stream 0


def test_idle_and_half_sent_connections_do_not_hold_the_server_past_sigterm(repository):
    """A gRPC connection that said its preface and nothing more, and a REST request half sent:
    SIGTERM still ends the server, with 0, within its grace for calls in flight (5 s). Before,
    gRPC's shutdown waited for that connection for ever (a client's bug, or an attack, kept a
    server from stopping)."""
    root, _, _ = repository
    running = Server(root)
    held = []
    try:
        grpc_socket = socket.create_connection(("127.0.0.1", running.grpc_port))
        grpc_socket.sendall(HTTP2_PREFACE + HTTP2_EMPTY_SETTINGS)
        held.append(grpc_socket)
        rest_socket = socket.create_connection(("127.0.0.1", running.http_port))
        rest_socket.sendall(b"POST /v2/models/mlp/infer HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        held.append(rest_socket)
        time.sleep(0.5)
        started = time.monotonic()
        running.process.send_signal(signal.SIGTERM)
        try:
            code = running.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"pt2ov serve still running 20 s after SIGTERM:\n{running.output()}", pytrace=False)
        assert code == 0, running.output()
        assert time.monotonic() - started < 15
    finally:
        for sock in held:
            sock.close()
        running.stop()


# --- dynamic batching -------------------------------------------------------------------------
def test_dynamic_batching_gives_each_request_its_own_result(server, repository):
    """Concurrent requests of 1 to 3 rows to a model with dynamic batching: each gets the bytes
    the in-process program gives its rows alone, and the program ran fewer times than requests."""
    import threading
    _, modules, programs = repository
    program = programs[("batched", 1)]
    sizes = [1, 2, 1, 3, 1, 2]  # 10 rows: at least two batches of at most 8
    inputs = [mlp_input(rows, seed=100 + i) for i, rows in enumerate(sizes)]
    replies = [None] * len(sizes)
    start = threading.Barrier(len(sizes))

    def send(i):
        document = {"inputs": [{"name": "x", "datatype": "FP32", "shape": list(inputs[i].shape),
                                "data": inputs[i].flatten().tolist()}]}
        start.wait()
        replies[i] = http_infer(server, "batched", document)

    before = metrics(server)
    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(sizes))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after = metrics(server)
    for i, (status, body, _) in enumerate(replies):
        assert status == 200, body
        outputs = {o["name"]: np.array(o["data"], dtype=np.int64 if o["datatype"] == "INT64" else np.float32)
                   .reshape(o["shape"]) for o in json.loads(body)["outputs"]}
        check_against_program_and_eager(outputs, program, modules[("batched", 1)], (inputs[i],),
                                        f"batched request {i} of {sizes[i]} rows")
    key = '{model="batched",version="1"}'
    requests = after[f"pt2ov_inference_requests_total{key}"] - before.get(f"pt2ov_inference_requests_total{key}", 0)
    runs = after[f"pt2ov_program_runs_total{key}"] - before.get(f"pt2ov_program_runs_total{key}", 0)
    assert requests == len(sizes) and 2 <= runs < len(sizes), f"{requests} requests in {runs} runs"


def test_dynamic_batching_refused_where_it_cannot_apply(repository, tmp_path):
    root, _, _ = repository
    (tmp_path / "static" / "1").mkdir(parents=True)
    (tmp_path / "static" / "1" / "model.pt2").write_bytes((root / "dtypes" / "1" / "model.pt2").read_bytes())
    (tmp_path / "static" / "config.json").write_text(json.dumps({"dynamic_batching": {"max_batch_size": 4}}))
    proc = subprocess.run([str(pt2ov_binary()), "serve", str(tmp_path), "--http-port", str(free_port()),
                           "--grpc-port", str(free_port())], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert ("model 'static' version 1: dynamic_batching cannot apply: 'i64' has no dynamic dim 0 to batch along"
            in proc.stderr), proc.stderr


# --- metrics, start-up, shutdown ---------------------------------------------------------------
def test_metrics_count_requests_and_time(server, client, repository):
    before = metrics(server)
    for batch in (1, 2, 3):
        mlp_request(client, "grpc", repository, batch, version="1")
    client.try_infer("grpc", "mlp", {"x": np.ones((1, 3), np.float32)}, version="1")
    after = metrics(server)
    key = '{model="mlp",version="1"}'
    assert after[f"pt2ov_inference_requests_total{key}"] - before[f"pt2ov_inference_requests_total{key}"] == 4
    assert after[f"pt2ov_inference_failures_total{key}"] - before[f"pt2ov_inference_failures_total{key}"] == 1
    assert after[f"pt2ov_inference_compute_seconds_total{key}"] > before[f"pt2ov_inference_compute_seconds_total{key}"]
    assert f"pt2ov_inference_queue_seconds_total{key}" in after
    status, body, headers = server.http("GET", "/metrics")
    assert headers["Content-Type"].startswith("text/plain") and b"# TYPE pt2ov_inference_requests_total counter" in body


def test_one_pt2_file_is_served_under_its_stem(repository, tmp_path):
    root, modules, programs = repository
    single = tmp_path / "policy.pt2"
    single.write_bytes((root / "mlp" / "1" / "model.pt2").read_bytes())
    running = Server(single)
    try:
        status, body, _ = running.http("GET", "/v2/models/policy")
        assert status == 200 and json.loads(body)["versions"] == ["1"]
        x = mlp_input(2)
        document = {"inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 8], "data": x.flatten().tolist()}],
                    "outputs": [{"name": programs[("mlp", 1)].outputs[1].name}]}
        status, body, _ = http_infer(running, "policy", document)
        assert status == 200, body
        output = json.loads(body)["outputs"][0]
        same_bits(np.array(output["data"], dtype=np.int64), as_numpy(modules[("mlp", 1)](x)[1]), "policy argmax")
    finally:
        assert running.stop() == 0


@pytest.mark.parametrize("layout,message", [
    ({"m/config.json": '{"precison": "f16"}', "m/1/model.pt2": ""}, 'unknown key "precison"'),
    ({"m/latest/model.pt2": ""}, "'latest' is not one"),
    ({}, "no models"),
])
def test_a_bad_repository_is_refused_at_start(tmp_path, layout, message):
    root = tmp_path / "repo"
    root.mkdir()
    for relative, text in layout.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    proc = subprocess.run([str(pt2ov_binary()), "serve", str(root), "--http-port", str(free_port()),
                           "--grpc-port", str(free_port())], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and proc.stderr.count("\n") <= 2, proc.stderr


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_port_in_use_is_refused(repository, server, protocol):
    root, _, _ = repository
    ports = {"http": "0", "grpc": "0"}
    ports[protocol] = str(getattr(server, f"{protocol}_port"))
    proc = subprocess.run([str(pt2ov_binary()), "serve", str(root / "mlp" / "1" / "model.pt2"), "--host", "127.0.0.1",
                           "--http-port", ports["http"], "--grpc-port", ports["grpc"]],
                          capture_output=True, text=True, timeout=120)
    expected = f"cannot listen for {'HTTP' if protocol == 'http' else 'gRPC'} on 127.0.0.1:{ports[protocol]}"
    assert proc.returncode == 2 and expected in proc.stderr, proc.stderr
    # One line says it: no line of gRPC's own internals before it (the progress line aside).
    said = [line for line in proc.stderr.splitlines() if not line.startswith("pt2ov serve: ")]
    assert len(said) == 1 and expected in said[0], proc.stderr
