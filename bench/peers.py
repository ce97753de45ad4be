"""The Python sides of bench/compare, each run in a process of its own so that each one's
threads, memory and peak RSS are its own. Each writes one JSON object to DIR/NAME.SIDE.json
(an "error" key where it failed); what the libraries print goes to the terminal.

    python bench/peers.py prepare NAME DIR   export NAME (bench/models.py) to DIR/NAME.pt2, its
                                             inputs to DIR/NAME.npz, PyTorch's outputs to
                                             DIR/NAME.expected.npz, OpenVINO's IR to DIR/NAME.xml
                                             (timing convert_model and compile_model) and ONNX
                                             to DIR/NAME.onnx
    python bench/peers.py torch NAME DIR     PyTorch eager under torch.inference_mode()
    python bench/peers.py onnxruntime NAME DIR   ONNX Runtime, CPU execution provider

Common flags: --threads N (2), --iterations N, --warmup N (defaults from bench/models.py).
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import resource
import sys
import time
import traceback
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import models  # noqa: E402


def latency_stats(samples_ns: list[int]) -> dict:
    """As runtime::latency_stats in C++: nearest-rank percentiles, ms."""
    s = sorted(samples_ns)
    n = len(s)
    if n == 0:
        return {"count": 0}
    mean = sum(s) / n

    def pct(p):
        return s[min(max(1, math.ceil(p / 100 * n)), n) - 1] / 1e6

    return {"count": n, "mean_ms": mean / 1e6, "p50_ms": pct(50), "p90_ms": pct(90), "p99_ms": pct(99),
            "min_ms": s[0] / 1e6, "max_ms": s[-1] / 1e6,
            "stddev_ms": math.sqrt(sum((x - mean) ** 2 for x in s) / n) / 1e6}


def peak_rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def time_calls(call, warmup: int, iterations: int) -> list[int]:
    for _ in range(warmup):
        call()
    samples = []
    clock = time.perf_counter_ns
    for _ in range(iterations):
        start = clock()
        call()
        samples.append(clock() - start)
    return samples


def load_inputs(directory: pathlib.Path, name: str) -> list[np.ndarray]:
    with np.load(directory / f"{name}.npz") as arrays:
        return [arrays[f"arr_{i}"] for i in range(len(arrays.files))]


def max_abs_diff(outputs, directory: pathlib.Path, name: str) -> float:
    with np.load(directory / f"{name}.expected.npz") as expected:
        return max(float(np.max(np.abs(np.asarray(o, dtype=np.float64) - expected[f"arr_{i}"])))
                   for i, o in enumerate(outputs))


def _flat(outputs) -> list:
    return list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]


# --- prepare ----------------------------------------------------------------------------------
def _export_shapes(ep, inputs):
    """Per user input, the OpenVINO partial shape of the exported program: static dims as they
    are, a dynamic dim with the range torch.export gave it. convert_model(ep) leaves every dim
    dynamic, which would make OpenVINO alone slower than the program pt2ov compiles."""
    import openvino as ov
    user = [s.arg.name for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    nodes = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    shapes = []
    for name, tensor in zip(user, inputs):
        dims = []
        for d in nodes[name].meta["val"].shape:
            if isinstance(d, int):
                dims.append(ov.Dimension(d))
            else:
                r = ep.range_constraints.get(d.node.expr)
                upper = int(r.upper) if r is not None and r.upper.is_finite else -1
                dims.append(ov.Dimension(int(r.lower) if r is not None else 0, upper))
        shapes.append(ov.PartialShape(dims))
    return shapes


def _stateful_openvino_model(ep, inputs):
    """(model, description) for a static-shape program with mutated buffers, else None. Also None
    when a buffer is one OpenVINO's CPU plugin cannot keep as state (int64 or float64: "does not
    support i64 for use with oneDNN"): it would have to be fed from outside, and the runner binds
    user inputs only."""
    import torch
    import openvino as ov
    from openvino._offline_transformations import apply_make_stateful_transformation
    from torch.export.graph_signature import InputKind, OutputKind

    # torch.export.export keeps in-place ops in its graph; an empty decomposition table makes the
    # program functional, its buffer writes outputs (BUFFER_MUTATION), and changes nothing else.
    ep = ep.run_decompositions({})
    signature = ep.graph_signature
    new_value = {s.target: i for i, s in enumerate(signature.output_specs) if s.kind == OutputKind.BUFFER_MUTATION}
    if not new_value or any(not isinstance(d, int) for t in inputs for d in t.shape):
        return None
    user_outputs = [i for i, s in enumerate(signature.output_specs) if s.kind == OutputKind.USER_OUTPUT]
    state_names = [s.target for s in signature.input_specs if s.kind == InputKind.BUFFER and s.target in new_value]

    def stored(target):
        return ep.state_dict[target] if target in ep.state_dict else ep.constants[target]

    graph_module = ep.graph_module
    user_count = len(inputs)

    class Functional(torch.nn.Module):
        def forward(self, *args):
            users, by_name = iter(args[:user_count]), dict(zip(state_names, args[user_count:]))
            flat = [next(users) if spec.kind == InputKind.USER_INPUT
                    else by_name[spec.target] if spec.target in by_name else stored(spec.target)
                    for spec in signature.input_specs]
            outputs = graph_module(*flat)
            return (*[outputs[i] for i in user_outputs], *[outputs[new_value[n]] for n in state_names])

    initial = [stored(n).clone() for n in state_names]
    if any(value.dtype in (torch.int64, torch.float64) for value in initial):
        return None
    with torch.no_grad():
        functional = torch.export.export(Functional(), (*inputs, *initial), strict=False)
    model = ov.convert_model(functional)
    parameters, results = model.get_parameters(), model.get_results()
    for parameter, value in zip(parameters, [*inputs, *initial]):
        parameter.set_partial_shape(ov.PartialShape(list(value.shape)))
    model.validate_nodes_and_infer_types()
    apply_make_stateful_transformation(
        model, [(parameters[user_count + i], results[len(user_outputs) + i]) for i in range(len(initial))])
    return model, f"{len(initial)} mutated buffers as OpenVINO state (ReadValue/Assign)"


def prepare(name: str, directory: pathlib.Path, threads: int) -> dict:
    import torch
    import openvino as ov

    model = models.by_name(name)
    module, inputs = model.make_module(), model.make_inputs()
    dynamic = model.make_dynamic_shapes() if model.make_dynamic_shapes else None
    result: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        ep = torch.export.export(module, inputs, dynamic_shapes=dynamic)
        float_ep = ep
        if model.quantized:
            quantized_start = time.perf_counter()
            module = models.quantize_int8(model, ep)
            with torch.no_grad():
                ep = torch.export.export(module, inputs, dynamic_shapes=dynamic)
            result["quantize_ms"] = (time.perf_counter() - quantized_start) * 1e3
        if model.decomposed:
            ep = ep.run_decompositions()
        result["torch_export_ms"] = (time.perf_counter() - start) * 1e3
        torch.export.save(ep, str(directory / f"{name}.pt2"))
    np.savez(directory / f"{name}.npz", *[t.numpy() for t in inputs])
    with torch.inference_mode():
        expected = _flat((module if model.quantized else model.make_module())(*inputs))
    np.savez(directory / f"{name}.expected.npz", *[t.numpy() for t in expected])

    # OpenVINO alone: its own converter on the same ExportedProgram, then the IR for the C++ side.
    try:
        # The first convert_model of a process also loads OpenVINO's PyTorch frontend (as a
        # user's first call does); the second, of the same program, is the conversion alone.
        start = time.perf_counter()
        ov_model = ov.convert_model(ep)
        convert_first_ms = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        ov_model = ov.convert_model(ep)
        convert_ms = (time.perf_counter() - start) * 1e3
        ov_model.reshape(dict(zip(ov_model.inputs, _export_shapes(ep, inputs))))
        # A program that mutates buffers (a KV cache): convert_model(ep) freezes them as
        # constants, so that peer would never update its cache. The peer is then OpenVINO's own
        # stateful form of the same program, as optimum-intel runs LLMs: the mutated buffers as
        # inputs and outputs of a functional program, made ReadValue/Assign state.
        stateful = _stateful_openvino_model(ep, inputs)
        if stateful is not None:
            ov_model, result["openvino_state"] = stateful
        ov.save_model(ov_model, str(directory / f"{name}.xml"), compress_to_fp16=False)
        core = ov.Core()
        start = time.perf_counter()
        compiled = core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY",
                                                        "INFERENCE_NUM_THREADS": threads})
        compile_ms = (time.perf_counter() - start) * 1e3
        result["openvino"] = {"convert_first_ms": convert_first_ms, "convert_ms": convert_ms, "compile_ms": compile_ms,
                              "inputs": [str(i.get_partial_shape()) for i in ov_model.inputs],
                              "outputs": len(ov_model.outputs)}
        # What pt2ov's load leaves in force (it sets only the f32 precision hint): OpenVINO's
        # defaults on this machine, read back from a model compiled that way.
        if name == models.MODELS[0].name:
            defaults = core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            result["openvino"]["defaults_with_f32_only"] = {
                k: str(defaults.get_property(k)) for k in ("INFERENCE_NUM_THREADS", "NUM_STREAMS", "PERFORMANCE_HINT")}
        del compiled
    except Exception as e:  # recorded, the other sides still run
        result["openvino"] = {"error": f"{type(e).__name__}: {e}"}

    try:
        import logging
        logging.disable(logging.WARNING)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            onnx_path = directory / f"{name}.onnx"
            torch.onnx.export(float_ep if model.quantized else ep, (), str(onnx_path), dynamo=True,
                              external_data=False, verbose=False)
            result["onnx_export_ms"] = (time.perf_counter() - start) * 1e3
            if model.quantized:
                result["onnx_quantize_ms"] = _onnxruntime_int8(model, onnx_path)
    except Exception as e:
        result["onnx_error"] = f"{type(e).__name__}: {str(e)[:2000]}"
    return result


def _onnxruntime_int8(model, onnx_path: pathlib.Path) -> float:
    """The float ONNX model quantized by ONNX Runtime's own static int8 quantization (QDQ,
    per-channel int8 weights, uint8 activations), calibrated on the same random inputs as NNCF,
    written over the float one."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    import torch

    generator = torch.Generator().manual_seed(2026)
    examples = model.make_inputs()
    names = [i.name for i in onnx.load(str(onnx_path)).graph.input]
    samples = []
    for _ in range(8):
        samples.append({n: (torch.randint(0, int(t.max()) + 1, t.shape, generator=generator, dtype=t.dtype)
                            if not t.is_floating_point() else torch.rand(t.shape, generator=generator)).numpy()
                        for n, t in zip(names, examples)})

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.left = iter(samples)

        def get_next(self):
            return next(self.left, None)

    start = time.perf_counter()
    prepared = onnx_path.with_suffix(".pre.onnx")
    quant_pre_process(str(onnx_path), str(prepared))
    quantize_static(str(prepared), str(onnx_path), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    prepared.unlink()
    return (time.perf_counter() - start) * 1e3


# --- peers ------------------------------------------------------------------------------------
def run_torch(name: str, directory: pathlib.Path, threads: int, warmup: int, iterations: int) -> dict:
    import torch
    import torch.ao.quantization.fx._decomposed  # noqa: F401  a quantized row's program holds these ops
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    model = models.by_name(name)
    start = time.perf_counter()
    # A quantized row's eager module is the quantized program's (NNCF's module, exported).
    module = torch.export.load(str(directory / f"{name}.pt2")).module() if model.quantized else model.make_module()
    load_ms = (time.perf_counter() - start) * 1e3
    inputs = [torch.from_numpy(a) for a in load_inputs(directory, name)]
    with torch.inference_mode():
        diff = max_abs_diff([t.numpy() for t in _flat(module(*inputs))], directory, name)
        samples = time_calls(lambda: module(*inputs), warmup, iterations)
    return {"latency": latency_stats(samples), "warmup": warmup, "iterations": iterations, "load_ms": load_ms,
            "max_abs_diff": diff, "threads": torch.get_num_threads(), "peak_rss_bytes": peak_rss_bytes(),
            "version": torch.__version__, "samples_ns": samples}


def run_onnxruntime(name: str, directory: pathlib.Path, threads: int, warmup: int, iterations: int) -> dict:
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    start = time.perf_counter()
    session = ort.InferenceSession(str(directory / f"{name}.onnx"), options, providers=["CPUExecutionProvider"])
    load_ms = (time.perf_counter() - start) * 1e3
    arrays = load_inputs(directory, name)
    # I/O binding: inputs bound once in place, outputs left to ORT, the least per-call work
    # ORT's Python API allows.
    binding = session.io_binding()
    for info, array in zip(session.get_inputs(), arrays):
        binding.bind_cpu_input(info.name, array)
    for info in session.get_outputs():
        binding.bind_output(info.name)
    session.run_with_iobinding(binding)
    diff = max_abs_diff(binding.copy_outputs_to_cpu(), directory, name)
    samples = time_calls(lambda: session.run_with_iobinding(binding), warmup, iterations)
    return {"latency": latency_stats(samples), "warmup": warmup, "iterations": iterations, "load_ms": load_ms,
            "max_abs_diff": diff, "threads": threads, "peak_rss_bytes": peak_rss_bytes(), "version": ort.__version__,
            "samples_ns": samples}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("side", choices=["prepare", "torch", "onnxruntime"])
    parser.add_argument("name")
    parser.add_argument("directory", type=pathlib.Path)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--warmup", type=int)
    args = parser.parse_args()
    model = models.by_name(args.name)
    iterations = args.iterations or model.iterations
    warmup = model.warmup if args.warmup is None else args.warmup
    try:
        if args.side == "prepare":
            result = prepare(args.name, args.directory, args.threads)
        elif args.side == "torch":
            result = run_torch(args.name, args.directory, args.threads, warmup, iterations)
        else:
            result = run_onnxruntime(args.name, args.directory, args.threads, warmup, iterations)
    except Exception as e:
        traceback.print_exc(file=sys.stderr)
        result = {"error": f"{type(e).__name__}: {str(e)[:2000]}"}
    (args.directory / f"{args.name}.{args.side}.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
