"""The gRPC side of bench/serve_endurance.py (--protocol grpc), run in build/serve-client-venv
(grpcio and tritonclient's copy of the protocol's messages): ModelInfer calls over one channel,
every --bad-every-th one the wire bytes of a gRPC seed of fuzz/corpus/serve_request mutated at
random (half of them bytes flipped, cut, spliced, inserted; half field by field, so that they
still parse: shapes, datatypes, names, contents, parameters), the others a valid request whose output must be
the in-process program's bytes. Prints one JSON line of counts; exits non-zero at the first
valid request answered wrongly or a bad one answered with an internal error.

    serve-client-venv/bin/python bench/serve_grpc_endurance_client.py CONFIG.json
"""
from __future__ import annotations

import collections
import json
import pathlib
import random
import sys
import time

import grpc
import numpy as np
from tritonclient.grpc import service_pb2

METHOD = "/inference.GRPCInferenceService/ModelInfer"


def mutated(rng: random.Random, seeds: list[bytes]) -> bytes:
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
            at = rng.randrange(len(body) + 1)
            body[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return bytes(body)


DATATYPES = ("BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64", "FP16", "FP32", "FP64",
             "BF16", "BYTES", "", "fp32", "FP8", "\x00")
EXTREMES = (0, -1, 1, 2, 7, 8, 16, 2**31 - 1, 2**31, 2**62, -(2**63))


def mutated_fields(rng: random.Random, seeds: list[bytes]) -> bytes:
    """A seed parsed and changed field by field, so that it still parses and reaches the
    server's own checks: shapes, datatypes, names, contents, raw bytes, parameters."""
    message = service_pb2.ModelInferRequest.FromString(rng.choice(seeds))
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(7)
        if kind == 0 and message.inputs:
            tensor = rng.choice(message.inputs)
            del tensor.shape[:]
            tensor.shape.extend(rng.choice(EXTREMES) for _ in range(rng.randint(0, 5)))
        elif kind == 1 and message.inputs:
            rng.choice(message.inputs).datatype = rng.choice(DATATYPES)
        elif kind == 2 and message.inputs:
            rng.choice(message.inputs).name = rng.choice(("x", "", "y", "input", "\xff", "x" * 300))
        elif kind == 3 and message.raw_input_contents:
            i = rng.randrange(len(message.raw_input_contents))
            raw = message.raw_input_contents[i]
            message.raw_input_contents[i] = raw[:rng.randrange(len(raw) + 1)] + bytes(rng.randrange(8) * 4)
        elif kind == 4:
            if rng.random() < 0.5 and message.raw_input_contents:
                del message.raw_input_contents[-1]
            else:
                message.raw_input_contents.append(bytes(rng.randrange(64)))
        elif kind == 5 and message.inputs:
            tensor = rng.choice(message.inputs)
            tensor.contents.fp32_contents.extend([float("nan"), 1e38][: rng.randint(1, 2)])
            tensor.contents.int64_contents.append(rng.choice(EXTREMES))
        else:
            message.parameters[rng.choice(("binary_data_output", "sequence_id", "x"))].int64_param = rng.choice(EXTREMES)
            if message.outputs and rng.random() < 0.5:
                message.outputs[0].name = rng.choice(("", "nope", "y"))
    return message.SerializeToString()


def parses(message: bytes) -> bool:
    try:
        service_pb2.ModelInferRequest.FromString(message)
        return True
    except Exception:  # noqa: BLE001 - protobuf's DecodeError, or a recursion limit
        return False


def main() -> None:
    config = json.loads(pathlib.Path(sys.argv[1]).read_text())
    rng = random.Random(config["seed"])
    seeds = []
    for path in sorted(pathlib.Path(config["corpus"]).iterdir()):
        data = path.read_bytes()
        if data[0] & 1:  # the fuzz target's first byte: bit 0 set for a gRPC message
            seeds.append(data[1:])
    x = np.array(config["input"], dtype=np.float32)
    good = service_pb2.ModelInferRequest(model_name=config["model"])
    tensor = good.inputs.add(name=config["input_name"], datatype="FP32")
    tensor.shape.extend(x.shape)
    good.raw_input_contents.append(x.tobytes())
    good_bytes = good.SerializeToString()
    expected = bytes.fromhex(config["expected_hex"])

    channel = grpc.insecure_channel(f"127.0.0.1:{config['port']}")
    grpc.channel_ready_future(channel).result(timeout=120)
    call = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=None)
    counts = collections.Counter()
    start = time.perf_counter()
    for i in range(config["requests"]):
        if i and i % 100_000 == 0:  # progress, as the REST half prints it
            print(json.dumps({"requests_so_far": i, **counts}), file=sys.stderr, flush=True)
        bad = i % config["bad_every"] == 0
        message = (mutated_fields(rng, seeds) if rng.random() < 0.5 else mutated(rng, seeds)) if bad else good_bytes
        try:
            reply = call(message, timeout=30)
        except grpc.RpcError as e:
            code = e.code()
            if not bad:
                raise SystemExit(f"request {i}: a valid request failed: {code} {e.details()}")
            if code == grpc.StatusCode.INTERNAL and not parses(message):
                # gRPC's own answer to bytes that are no ModelInferRequest, before the server's
                # handler sees them (as every gRPC implementation answers them)
                counts["bad"] += 1
                counts["bad_unparseable"] += 1
                continue
            if code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.UNAVAILABLE):
                raise SystemExit(f"request {i}: a bad request got {code}: {e.details()}")
            counts["bad"] += 1
            counts[f"bad_{code.name}"] += 1
            continue
        if bad:
            counts["bad"] += 1
            counts["bad_accepted"] += 1  # a mutation that is still a valid request
            continue
        response = service_pb2.ModelInferResponse.FromString(reply)
        if response.raw_output_contents[0] != expected:
            raise SystemExit(f"request {i}: not the in-process bytes")
        counts["good"] += 1
    print(json.dumps({"seconds": round(time.perf_counter() - start, 1), **counts}))


if __name__ == "__main__":
    main()
