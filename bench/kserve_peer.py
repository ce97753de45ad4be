"""The alternative to `pt2ov serve` that docs/SERVING.md weighs: KServe's Python ModelServer
(kserve 0.21.0) over the pt2ov Python module, serving one .pt2 as model "mlp" over the same
Open Inference Protocol. bench/serve_latency.py --kserve runs it with build/kserve-venv's python
(`make kserve-venv`, requirements-kserve.txt: kserve pins its own protobuf and grpcio, so it has
a venv of its own) and the pt2ov module from build/python:

    PYTHONPATH=build/python build/kserve-venv/bin/python bench/kserve_peer.py MODEL.pt2 HTTP_PORT GRPC_PORT
"""
from __future__ import annotations

import logging
import sys

import kserve
import numpy as np
import pt2ov
from kserve import InferOutput, InferRequest, InferResponse

DATATYPE = {np.dtype(np.float32): "FP32", np.dtype(np.int64): "INT64", np.dtype(np.float64): "FP64",
            np.dtype(np.int32): "INT32", np.dtype(np.bool_): "BOOL"}


class Pt2ovModel(kserve.Model):
    def __init__(self, name: str, path: str):
        super().__init__(name)
        self.path = path
        self.load()

    def load(self) -> bool:
        self.program = pt2ov.load(self.path, measure_placement=False)
        self.ready = True
        return self.ready

    def predict(self, payload: InferRequest, headers=None, response_headers=None) -> InferResponse:
        outputs = self.program(*[tensor.as_numpy() for tensor in payload.inputs])
        infer_outputs = []
        for info, array in zip(self.program.outputs, outputs):
            output = InferOutput(name=info.name, shape=list(array.shape), datatype=DATATYPE[array.dtype])
            # gRPC: raw_output_contents, which tritonclient reads; REST: as the request asks
            output.set_data_from_numpy(array, binary_data=payload.from_grpc or _wants_binary(payload))
            infer_outputs.append(output)
        return InferResponse(model_name=self.name, infer_outputs=infer_outputs, response_id=payload.id,
                             use_binary_outputs=_wants_binary(payload))


def _wants_binary(payload: InferRequest) -> bool:
    for output in payload.request_outputs or []:
        if (output.parameters or {}).get("binary_data"):
            return True
    return bool((payload.parameters or {}).get("binary_data_output"))


if __name__ == "__main__":
    path, http_port, grpc_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    server = kserve.ModelServer(http_port=http_port, grpc_port=grpc_port, workers=1, enable_latency_logging=False)
    # A line per request would be the peer's cost, not the protocol's: off, as pt2ov serve has none.
    logging.getLogger("uvicorn.access").disabled = True
    server.start([Pt2ovModel("mlp", path)])
