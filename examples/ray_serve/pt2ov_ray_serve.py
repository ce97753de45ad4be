"""pt2ov programs in Ray Serve replicas: Ray places the replicas on a Ray cluster's nodes, routes
requests among them and restarts them; each replica loads the program once with the pt2ov
module and answers the Open Inference Protocol's REST JSON requests (health, model metadata,
infer with JSON "data"; the binary-data extension and gRPC are `pt2ov serve`'s, docs/SERVING.md).
No routing or scheduling of ours: that is Ray's.

    # on a Ray cluster (ray start --head; ray start --address HEAD:6379 on each other node)
    python examples/ray_serve/pt2ov_ray_serve.py MODEL.pt2 --name policy --replicas 2 --port 8000
    curl -s localhost:8000/v2/models/policy/infer -d '{"inputs": [...]}'

Each answer carries the replica's host and process id in its "parameters", to see the spread.
Needs ray[serve] (requirements-ray.txt, `make ray-venv`) and the pt2ov module (the wheel, or
build/python on PYTHONPATH).
"""
from __future__ import annotations

import argparse
import os
import socket
import time

import numpy as np
from ray import serve
from starlette.requests import Request
from starlette.responses import JSONResponse

import pt2ov

# The protocol's datatypes of the dtypes JSON can carry (bfloat16 has no JSON form).
DATATYPES = {"bool": "BOOL", "uint8": "UINT8", "int8": "INT8", "int16": "INT16", "uint16": "UINT16",
             "int32": "INT32", "int64": "INT64", "float16": "FP16", "float32": "FP32", "float64": "FP64"}
NUMPY = {datatype: np.dtype(dtype) for dtype, datatype in DATATYPES.items()}


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


@serve.deployment
class Pt2ovModel:
    def __init__(self, path: str, name: str, load_options: dict):
        self.name = name
        self.program = pt2ov.load(path, **load_options)
        self.replica = {"host": socket.gethostname(), "pid": os.getpid()}

    def metadata(self) -> dict:
        def tensors(infos):
            return [{"name": i.name, "datatype": DATATYPES.get(i.dtype, i.dtype.upper()),
                     "shape": [-1 if d is None else d for d in i.shape]} for i in infos]
        return {"name": self.name, "versions": ["1"], "platform": "pt2ov",
                "inputs": tensors(self.program.inputs), "outputs": tensors(self.program.outputs)}

    async def __call__(self, request: Request):
        path = request.url.path.rstrip("/")
        if path in ("/v2/health/live", "/v2/health/ready"):
            return {"live": True, "ready": True}
        model_path = f"/v2/models/{self.name}"
        if path == model_path:
            return self.metadata()
        if path == f"{model_path}/ready":
            return {"name": self.name, "ready": True}
        if path != f"{model_path}/infer" or request.method != "POST":
            return error(404, f"no endpoint {request.method} {path}")
        try:
            body = await request.json()
            given = {tensor["name"]: tensor for tensor in body["inputs"]}
            arrays = []
            for info in self.program.inputs:
                tensor = given.pop(info.name, None)
                if tensor is None:
                    return error(400, f"model '{self.name}' input '{info.name}' is missing")
                if tensor["datatype"] not in NUMPY:
                    return error(400, f"input '{info.name}': datatype {tensor['datatype']} has no JSON form here")
                arrays.append(np.array(tensor["data"], dtype=NUMPY[tensor["datatype"]]).reshape(tensor["shape"]))
            if given:
                return error(400, f"model '{self.name}' has no input '{next(iter(given))}'")
        except (KeyError, TypeError, ValueError) as e:
            return error(400, f"a malformed request: {e}")
        try:
            outputs = self.program(*arrays)
        except pt2ov.InternalError as e:
            return error(500, str(e))
        except pt2ov.Error as e:
            return error(400, f"model '{self.name}': {e}")
        return {"model_name": self.name, "model_version": "1", "id": body.get("id", ""),
                "parameters": {"replica_host": self.replica["host"], "replica_pid": self.replica["pid"]},
                "outputs": [{"name": info.name, "datatype": DATATYPES[str(out.dtype)], "shape": list(out.shape),
                             "data": out.ravel().tolist()} for info, out in zip(self.program.outputs, outputs)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="the .pt2 archive, at the same path on every node")
    parser.add_argument("--name", default=None, help="the model's name (default: the file's stem)")
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--cpus-per-replica", type=float, default=1)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--address", default="auto", help="the Ray cluster (ray.init's address)")
    args = parser.parse_args()
    import ray
    ray.init(address=args.address)
    serve.start(http_options={"host": args.host, "port": args.port})
    name = args.name or os.path.splitext(os.path.basename(args.model))[0]
    app = Pt2ovModel.options(num_replicas=args.replicas, ray_actor_options={"num_cpus": args.cpus_per_replica}).bind(
        os.path.abspath(args.model), name, {})
    serve.run(app, name=name, route_prefix="/")
    print(f"serving {name} on http://{args.host}:{args.port} with {args.replicas} replicas", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
