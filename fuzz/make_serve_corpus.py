"""Writes fuzz_serve_request's seeds (fuzz/corpus/serve_request/, committed): REST bodies (JSON
flat and nested, every datatype, the binary-data extension) and gRPC ModelInferRequests (raw
and typed contents), each behind the target's first byte (bit 0: gRPC; bit 1: a header length
in the next two bytes, little-endian).

Usage (from the repository root, in the model server's client venv, which has protobuf and
tritonclient's copy of the protocol's messages):
    build/serve-client-venv/bin/python fuzz/make_serve_corpus.py
"""
import json
import pathlib
import struct

import numpy as np
from tritonclient.grpc import service_pb2

OUT = pathlib.Path(__file__).resolve().parent / "corpus" / "serve_request"


def rest(name: str, document: dict, binary: bytes = b"") -> None:
    header = json.dumps(document).encode()
    if binary:
        (OUT / name).write_bytes(b"\x02" + struct.pack("<H", len(header)) + header + binary)
    else:
        (OUT / name).write_bytes(b"\x00" + header)


def grpc(name: str, message) -> None:
    (OUT / name).write_bytes(b"\x01" + message.SerializeToString())


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8)
    rest("json_flat", {"id": "1", "inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 8], "data": x.ravel().tolist()}],
                       "outputs": [{"name": "y", "parameters": {"binary_data": True}}]})
    rest("json_nested", {"inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 8], "data": x.tolist()},
                                    {"name": "ids", "datatype": "INT64", "shape": [2], "data": [-(2 ** 40), 7]},
                                    {"name": "mask", "datatype": "BOOL", "shape": [1, 2], "data": [[True, False]]},
                                    {"name": "h", "datatype": "FP16", "shape": [3], "data": [0.5, -1e-7, 65504]},
                                    {"name": "u", "datatype": "UINT8", "shape": [1], "data": [255]}],
                         "parameters": {"binary_data_output": True}})
    rest("json_every_datatype", {"inputs": [
        {"name": t.lower(), "datatype": t, "shape": [2], "data": v} for t, v in
        (("BOOL", [True, False]), ("UINT8", [0, 255]), ("UINT16", [0, 65535]), ("INT8", [-128, 127]),
         ("INT16", [-32768, 32767]), ("INT32", [-2 ** 31, 2 ** 31 - 1]), ("INT64", [-2 ** 63, 2 ** 63 - 1]),
         ("FP16", [1.5, -0.0]), ("FP32", [1e-45, 3.4e38]), ("FP64", [5e-324, 1.7e308]))]})
    b = np.array([0x3FC0, 0xC000], np.uint16).tobytes()
    rest("binary", {"inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 8], "parameters": {"binary_data_size": 64}},
                               {"name": "b", "datatype": "BF16", "shape": [2], "parameters": {"binary_data_size": 4}},
                               {"name": "ids", "datatype": "INT64", "shape": [2], "data": [1, 2]}]},
         x.tobytes() + b)
    message = service_pb2.ModelInferRequest(model_name="m", id="7")
    for name, datatype, shape, array in (("x", "FP32", [2, 8], x), ("h", "FP16", [3], np.ones(3, np.float16)),
                                         ("mask", "BOOL", [2, 2], np.eye(2, dtype=bool))):
        tensor = message.inputs.add(name=name, datatype=datatype)
        tensor.shape.extend(shape)
        message.raw_input_contents.append(array.tobytes())
    message.outputs.add(name="y")
    grpc("grpc_raw", message)
    typed = service_pb2.ModelInferRequest(model_name="m")
    for name, datatype, field, values in (("x", "FP32", "fp32_contents", x.ravel().tolist()),
                                          ("ids", "INT64", "int64_contents", [3, -4]),
                                          ("i16", "INT16", "int_contents", [-5, 6]),
                                          ("u", "UINT8", "uint_contents", [200]),
                                          ("mask", "BOOL", "bool_contents", [True]),
                                          ("d", "FP64", "fp64_contents", [0.1])):
        tensor = typed.inputs.add(name=name, datatype=datatype)
        tensor.shape.extend([len(values)])
        getattr(tensor.contents, field).extend(values)
    grpc("grpc_typed", typed)


if __name__ == "__main__":
    main()
