"""tritonclient, driven over stdin and stdout: the client side of tests/e2e/test_serve.py.

It runs in build/serve-client-venv (requirements-serve.txt: tritonclient pins a protobuf the
project's .venv does not have), so the test talks to it as to a child process: one JSON object a
line in, one a line out. Arrays cross as base64 of numpy's .npy bytes (dtype and shape exact; BF16 as float32, exact).

Requests (each returns {"result": ...} or {"error": "...", "status": "..."}):
  {"op": "call", "protocol": "http"|"grpc", "method": NAME, "args": [...]}   a client method
  {"op": "infer", "protocol": ..., "model": M, "version": V, "inputs": [{"name", "datatype",
   "array", "binary"}], "outputs": [{"name", "binary"}] | null}              -> {"outputs": {name: array}}
  {"op": "grpc_raw", "request": {ModelInferRequest as JSON}, "gzip": bool, "pad_id": N}
                                                                             the stub, unchecked
  {"op": "grpc_concurrent", "model": M, "input_sets": [[{"name", "datatype", "array"}], ...],
   "threads": T, "calls": C, "timeout": S | null}
      T threads, each with a client of its own, make C ModelInfer calls each, thread i sending
      input set i % len (client_timeout S when given) -> {"answers": [per set: distinct answers,
      each {name: array}], "errors": {status: count}}
"""
from __future__ import annotations

import base64
import io
import json
import sys

import ml_dtypes
import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from google.protobuf import json_format
from tritonclient.grpc import service_pb2, service_pb2_grpc
from tritonclient.utils import InferenceServerException


def decode_array(text: str) -> np.ndarray:
    return np.load(io.BytesIO(base64.b64decode(text)), allow_pickle=False)


def encode_array(array: np.ndarray) -> str:
    # bfloat16 (ml_dtypes', as tritonclient gives BF16) crosses as float32, which holds it exactly
    if array.dtype == ml_dtypes.bfloat16:
        array = array.astype(np.float32)
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode()


GRPC_URL = [""]  # the server's gRPC address, for the clients concurrent_calls makes


def main() -> None:
    http_url, grpc_url = sys.argv[1], sys.argv[2]
    GRPC_URL[0] = grpc_url
    clients = {"http": httpclient.InferenceServerClient(http_url),
               "grpc": grpcclient.InferenceServerClient(grpc_url)}
    modules = {"http": httpclient, "grpc": grpcclient}
    import grpc
    channel = grpc.insecure_channel(grpc_url, options=[("grpc.max_send_message_length", -1)])
    stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            result = handle(request, clients, modules, stub)
            reply = {"result": result}
        except InferenceServerException as e:
            reply = {"error": e.message(), "status": str(e.status())}
        except grpc.RpcError as e:
            reply = {"error": e.details(), "status": str(e.code())}
        print(json.dumps(reply), flush=True)


def handle(request, clients, modules, stub):
    op = request["op"]
    if op == "call":
        client = clients[request["protocol"]]
        method = getattr(client, request["method"])
        args = request.get("args", [])
        if request["protocol"] == "grpc" and request["method"].startswith("get_"):
            return method(*args, as_json=True)
        return method(*args)
    if op == "infer":
        module = modules[request["protocol"]]
        inputs = []
        for spec in request["inputs"]:
            array = decode_array(spec["array"])
            if spec["datatype"] == "BF16" and array.dtype == np.float32:
                array = array.astype(ml_dtypes.bfloat16)  # exact: the test sends bf16 values
            item = module.InferInput(spec["name"], list(spec.get("shape", array.shape)), spec["datatype"])
            if request["protocol"] == "http":
                item.set_data_from_numpy(array, binary_data=spec.get("binary", True))
            else:
                item.set_data_from_numpy(array)
            inputs.append(item)
        outputs = None
        if request.get("outputs") is not None:
            outputs = []
            for spec in request["outputs"]:
                if request["protocol"] == "http":
                    outputs.append(module.InferRequestedOutput(spec["name"], binary_data=spec.get("binary", True)))
                else:
                    outputs.append(module.InferRequestedOutput(spec["name"]))
        response = clients[request["protocol"]].infer(request["model"], inputs, model_version=request.get("version", ""),
                                                       outputs=outputs, request_id=request.get("id", ""))
        if request["protocol"] == "http":
            described = response.get_response()
        else:
            described = json.loads(json_format.MessageToJson(response.get_response(), preserving_proto_field_name=True))
            described.pop("raw_output_contents", None)
        names = [output["name"] for output in described["outputs"]]
        return {"outputs": {name: encode_array(response.as_numpy(name)) for name in names}, "response": described}
    if op == "grpc_raw":
        import grpc
        message = service_pb2.ModelInferRequest()
        json_format.ParseDict(request["request"], message)
        if "pad_id" in request:  # a message that compresses well: an id of that many bytes
            message.id = "a" * request["pad_id"]
        compression = grpc.Compression.Gzip if request.get("gzip") else None
        response = stub.ModelInfer(message, compression=compression)
        return {"outputs": len(response.outputs)}
    if op == "grpc_concurrent":
        return concurrent_calls(request, GRPC_URL[0])
    raise ValueError(f"unknown op {op}")


def concurrent_calls(request, url):
    import threading
    sets = []
    for specs in request["input_sets"]:
        arrays = [(spec["name"], spec["datatype"], decode_array(spec["array"])) for spec in specs]
        sets.append(arrays)
    answers = [dict() for _ in sets]  # per set: the answer's bytes -> the answer
    errors = {}
    lock = threading.Lock()

    def work(index):
        client = grpcclient.InferenceServerClient(url)
        arrays = sets[index % len(sets)]
        for _ in range(request["calls"]):
            inputs = []
            for name, datatype, array in arrays:
                item = grpcclient.InferInput(name, list(array.shape), datatype)
                item.set_data_from_numpy(array)
                inputs.append(item)
            try:
                response = client.infer(request["model"], inputs, client_timeout=request.get("timeout"))
            except InferenceServerException as e:
                with lock:
                    errors[str(e.status())] = errors.get(str(e.status()), 0) + 1
                continue
            names = [output.name for output in response.get_response().outputs]
            got = {name: response.as_numpy(name) for name in names}
            key = b"".join(name.encode() + got[name].tobytes() for name in sorted(got))
            with lock:
                answers[index % len(sets)].setdefault(key, got)
        client.close()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(request["threads"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"answers": [[{name: encode_array(array) for name, array in got.items()} for got in distinct.values()]
                        for distinct in answers],
            "errors": errors}


if __name__ == "__main__":
    main()
