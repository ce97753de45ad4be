"""KServe's own clients (kserve 0.21.0: InferenceRESTClient and InferenceGRPCClient, both
asyncio) against `pt2ov serve`, run in build/kserve-venv by test_kserve_client.py:

    kserve_client.py HTTP_URL GRPC_URL MODEL INPUTS.npz OUT_DIR

INPUTS.npz holds the model's inputs by name. Writes OUT_DIR/health.json and, per encoding (REST
JSON, REST binary data, gRPC), OUT_DIR/<encoding>.npz with the outputs by name.
"""
import asyncio
import json
import pathlib
import sys

import numpy as np
from kserve import InferenceGRPCClient, InferenceRESTClient, InferInput, InferRequest, RESTConfig

DATATYPE = {np.dtype(np.float32): "FP32", np.dtype(np.float64): "FP64", np.dtype(np.float16): "FP16",
            np.dtype(np.int64): "INT64", np.dtype(np.int32): "INT32", np.dtype(np.int16): "INT16",
            np.dtype(np.int8): "INT8", np.dtype(np.uint8): "UINT8", np.dtype(np.bool_): "BOOL"}


def request(model: str, arrays: dict, binary: bool) -> InferRequest:
    inputs = []
    for name, array in arrays.items():
        item = InferInput(name=name, shape=list(array.shape), datatype=DATATYPE[array.dtype])
        item.set_data_from_numpy(array, binary_data=binary)
        inputs.append(item)
    return InferRequest(model_name=model, infer_inputs=inputs)


async def main() -> None:
    http_url, grpc_url, model, inputs_path, out_dir = sys.argv[1:6]
    out = pathlib.Path(out_dir)
    arrays = dict(np.load(inputs_path))
    rest = InferenceRESTClient(RESTConfig(protocol="v2", retries=1))
    grpc = InferenceGRPCClient(grpc_url, retries=2)
    health = {
        "rest_live": await rest.is_server_live(http_url),
        "rest_ready": await rest.is_server_ready(http_url),
        "rest_model_ready": await rest.is_model_ready(http_url, model),
        "grpc_live": await grpc.is_server_live(),
        "grpc_ready": await grpc.is_server_ready(),
        "grpc_model_ready": await grpc.is_model_ready(model),
    }
    (out / "health.json").write_text(json.dumps(health))
    for encoding, call in (("rest_json", lambda: rest.infer(http_url, request(model, arrays, False), model_name=model)),
                           ("rest_binary", lambda: rest.infer(http_url, request(model, arrays, True), model_name=model)),
                           ("grpc", lambda: grpc.infer(request(model, arrays, True)))):
        response = await call()
        np.savez(out / f"{encoding}.npz", **{output.name: output.as_numpy() for output in response.outputs})
    # A request the server refuses: KServe's client raises with the server's message.
    wrong = {name: array.astype(np.float64) if array.dtype == np.float32 else array for name, array in arrays.items()}
    errors = {}
    try:
        await rest.infer(http_url, request(model, wrong, True), model_name=model)
    except Exception as e:  # httpx.HTTPStatusError
        errors["rest"] = str(e)
    try:
        await grpc.infer(request(model, wrong, True))
    except Exception as e:  # grpc.RpcError
        errors["grpc"] = f"{e.code()} {e.details()}"
    (out / "errors.json").write_text(json.dumps(errors))
    await rest.close()
    await grpc.close()


if __name__ == "__main__":
    asyncio.run(main())
