"""pt2ov: run PyTorch ``torch.export`` programs (``.pt2`` archives) on OpenVINO, exactly.

    import pt2ov
    program = pt2ov.load("policy.pt2")                 # or pt2ov.compile(module, (x, y))
    actions, = program(image, state)                   # torch in, torch out; numpy in, numpy out
    program.inputs, program.outputs, program.report    # names, dtypes, shapes; the placement
    pt2ov.inspect("policy.pt2")                        # what `pt2ov inspect --json` prints
    pt2ov.Generator(program, pt2ov.Tokenizer(dir))     # text generation (pt2ov.generate's docs)
    with pt2ov.serve("models/", http_port=8000):       # `pt2ov serve`: the Open Inference Protocol
        ...                                            # over REST and gRPC (docs/SERVING.md)

Errors are ``pt2ov.Error`` and its subclasses ``ArchiveError``, ``UnsupportedError``,
``InputError``, ``OptionError``, ``ResourceError``, ``OpenVINOError`` and ``InternalError`` (a bug
in pt2ov), with the command line's one-line messages. ``python -m pt2ov run|inspect|bench``
is the ``pt2ov`` command.
"""
from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import warnings
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from . import _pt2ov
from ._pt2ov import (ArchiveError, Error, InputError, InternalError, OpenVINOError, OptionError, ResourceError,
                     UnsupportedError)
from .generate import GenerationResult, Generator, Tokenizer

__all__ = [
    "ArchiveError", "Error", "GenerationResult", "Generator", "IOInfo", "InputError", "InternalError", "OpenVINOError",
    "OptionError", "Program", "ResourceError", "Server", "Tokenizer", "UnsupportedError", "compile", "inspect", "load", "methods", "openvino_version", "serve",
]
__version__ = "0.1.0"


@dataclasses.dataclass(frozen=True)
class IOInfo:
    """One user input or output of a program."""

    name: str
    dtype: str  # PyTorch's spelling: "float32", "int64", "bool", ...
    shape: tuple  # ints, None where the dim is dynamic
    dim_ranges: tuple  # per dim: (min, max) allowed
    # An input the program writes in place: after a call the caller's array holds the new value, as
    # in PyTorch (so it must be writable and C-contiguous). Always False for an output.
    written: bool = False


def _io(entries) -> tuple:
    return tuple(IOInfo(name, dtype, tuple(shape), tuple(ranges), bool(written))
                 for name, dtype, shape, ranges, written in entries)


def _as_array(x, torch, index=0):
    """What the binding prepares in Python, for the few inputs it does not take directly: a
    conjugate or negative torch view (resolved), a tensor off the CPU (refused), big-endian
    numpy data (swapped to native order), and objects that are neither arrays nor tensors
    (made arrays by numpy). The binding then reads the result as it reads any array."""
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.detach()
        if x.device.type != "cpu":
            raise InputError(f"input {index}: a tensor on {x.device}: pt2ov reads CPU tensors (use .cpu())")
        if x.is_conj() or x.is_neg():
            x = x.resolve_conj().resolve_neg()
        return x
    if not isinstance(x, np.ndarray):
        x = np.asarray(x)
    if not x.dtype.isnative:  # big-endian data: the engine reads native order
        x = x.astype(x.dtype.newbyteorder("="))
    return x


class Program(_pt2ov._Program):
    """A method of a ``.pt2`` archive, loaded and compiled for one device (see :func:`load`).

    Call it with the flattened user inputs, torch tensors or numpy arrays in any mix:
    ``program(*inputs)`` returns a tuple of outputs of the kind of the first input (torch
    tensors for a torch tensor, numpy arrays otherwise), each owning its memory. Contiguous
    inputs are read in place, never copied or written; non-contiguous ones are copied to
    contiguous order first. bfloat16 travels as itself in torch; numpy, which has no bfloat16,
    gets such an output as float32 (exact). Buffers the program mutates carry over from call to
    call, as in PyTorch: ``state_names`` lists them by state-dict name, ``read_state(name)``
    returns a copy (numpy, or torch with ``as_torch=True``), ``write_state(name, value)`` sets
    one for the next call (same dtype and shape), ``reset_state()`` returns every one to the
    archive's values (a KV cache between sequences).

    Thread safety: any number of Python threads may call one Program at once; the GIL is
    released during a call, and calls run in parallel (a program whose buffers are mutated
    serializes its own calls).
    """

    # __call__ is the binding's _Program.__call__ itself: the inputs are read, run and the
    # outputs made in C++, with no Python frame in between.

    def __init__(self, path: str, options: dict):
        super().__init__(path, options)
        self._inputs = _io(self.input_infos)
        self._outputs = _io(self.output_infos)

    @property
    def inputs(self) -> tuple[IOInfo, ...]:
        """The user inputs, in call order: name, dtype ("float32", ...), shape (None: dynamic)."""
        return self._inputs

    @property
    def outputs(self) -> tuple[IOInfo, ...]:
        """The user outputs, in return order."""
        return self._outputs

    @property
    def method(self) -> str:
        return super().method

    @property
    def report(self) -> dict:
        """The placement, as ``pt2ov inspect --json`` gives it for this method:
        ``{"steps": [{"kind", "own_thread", "nodes": [{"name", "target", "reason"}]}], "constants": {...},
        "openvino_version", "cpu_isa"}`` (``cpu_isa``: the x86-64 level pt2ov's CPU kernels run)."""
        return json.loads(self.report_json)["methods"][self.method]

    @property
    def timings(self) -> dict:
        """Load-time costs in ms: archive_ms, convert_ms, compile_ms."""
        return super().timings

    @property
    def last_openvino_ns(self) -> int:
        """Time spent inside OpenVINO's infer() during the last call, in nanoseconds."""
        return super().last_openvino_ns

    def __repr__(self) -> str:
        ins = ", ".join(f"{i.name}: {i.dtype}{list(i.shape)}" for i in self._inputs)
        return f"<pt2ov.Program {self.method}({ins})>"


def _options(method="forward", device="CPU", precision="f32", cache_dir=None, cpu_ops=(), cpu_nodes=(),
             strict=False, num_threads=0, performance_hint="latency", int64_input_limit=0, openvino_state=True,
             appending_positions="", measure_placement=True, verify=False, quantized_reference=False,
             compressed_weights=False, nonfinite_inputs="exact", hint=None) -> dict:
    """Every load option by its name in the engine's load option table, of its type (the
    engine refuses a name it does not know). ``hint`` is ``performance_hint``'s spelling before
    the options had one name each, kept for one release."""
    def names(value, what):
        if isinstance(value, str):
            return [value]
        value = list(value)
        if not all(isinstance(v, str) for v in value):
            raise TypeError(f"{what}: a sequence of strings is expected, got {value!r}")
        return value

    if hint is not None:
        warnings.warn("pt2ov: hint= is deprecated and will be removed: use performance_hint=", DeprecationWarning,
                      stacklevel=3)
        performance_hint = hint
    return {"method": str(method), "device": str(device), "precision": str(precision),
            "cache_dir": "" if cache_dir is None else os.fspath(cache_dir), "cpu_ops": names(cpu_ops, "cpu_ops"),
            "cpu_nodes": names(cpu_nodes, "cpu_nodes"), "strict": bool(strict), "num_threads": int(num_threads),
            "performance_hint": str(performance_hint), "int64_input_limit": int(int64_input_limit),
            "openvino_state": bool(openvino_state), "appending_positions": str(appending_positions),
            "measure_placement": bool(measure_placement), "verify": bool(verify),
            "quantized_reference": bool(quantized_reference), "compressed_weights": bool(compressed_weights),
            "nonfinite_inputs": str(nonfinite_inputs)}


def load(path: str | os.PathLike, *, method: str = "forward", device: str = "CPU", precision: str = "f32",
         cache_dir: Optional[str | os.PathLike] = None, cpu_ops: Iterable[str] = (), cpu_nodes: Iterable[str] = (),
         strict: bool = False, num_threads: int = 0, performance_hint: str = "latency", int64_input_limit: int = 0,
         openvino_state: bool = True, appending_positions: str = "", measure_placement: bool = True,
         verify: bool = False, quantized_reference: bool = False, compressed_weights: bool = False,
         nonfinite_inputs: str = "exact", hint: Optional[str] = None) -> Program:
    """Reads the archive at ``path``, places and converts ``method`` and compiles it on ``device``.

    The options are the command line's: ``precision`` is OpenVINO's inference precision hint
    (f32, f16 or bf16), ``cache_dir`` OpenVINO's model cache, ``cpu_ops`` ("aten.atan" or
    "aten.atan.default") and ``cpu_nodes`` keep nodes off OpenVINO, ``strict`` refuses any CPU
    step, ``num_threads`` sets OpenVINO's inference threads (0: its default),
    ``openvino_state=False`` carries every mutated buffer in pt2ov instead of OpenVINO state,
    ``int64_input_limit=N`` promises every int64 user input within [-N, N] (checked on each
    call) so index arithmetic on them may stay on OpenVINO, ``performance_hint="throughput"`` lets calls from
    many threads on one Program run on OpenVINO's parallel streams ("latency", the default, is
    fastest for one call at a time), ``measure_placement=False`` lets the placement rules alone
    decide (by default a small program is timed at load on OpenVINO and on pt2ov's CPU kernels and
    the faster kept; the report's "measurement" gives the figures), ``verify=True`` runs each OpenVINO
    step at load on synthetic inputs beside pt2ov's CPU kernels in a child process and moves a step
    that disagrees or crashes onto the CPU kernels (the report's "verification"),
    ``quantized_reference=True`` computes a quantized program's quantize and dequantize ops with
    PyTorch's reference arithmetic in float32 (eager's integers exactly, float speed) instead of
    OpenVINO's int8 kernels (within one quantization step, docs/EXACTNESS.md E8),
    ``compressed_weights=True`` keeps a quantized program's integer weights (NNCF's int8/int4
    weight compression) compressed in memory and decompressed by OpenVINO's kernels, each weight
    within half a float16 step of eager's (docs/EXACTNESS.md E9; by default they are decompressed
    once at load exactly as eager does and held as float32), ``appending_positions="cache_position"``
    promises that this rank-1 int64 input holds the KV-cache positions each call writes, running
    on without a gap from 0 after load or ``reset_state`` (checked on each call), so that a static
    cache grows in OpenVINO by each call's positions instead of being copied whole every call
    (:class:`Generator` loads with it), ``nonfinite_inputs="exact"`` (the default) runs a call whose
    floating inputs hold NaN or inf on pt2ov's CPU kernels, which follow PyTorch on them (refused
    where a node has none; finite calls stay on OpenVINO, and a stateless program's call whose outputs come
    out of OpenVINO as NaN or inf runs again on the CPU kernels), ``"openvino"`` runs every call on the
    placement as it is (OpenVINO loses NaN through relu, exp, max, clamp: docs/EXACTNESS.md O8). Raises
    :class:`Error` (ArchiveError, UnsupportedError, ...) with a message saying what to do."""
    options = _options(method=method, device=device, precision=precision, cache_dir=cache_dir, cpu_ops=cpu_ops,
                       cpu_nodes=cpu_nodes, strict=strict, num_threads=num_threads, performance_hint=performance_hint,
                       int64_input_limit=int64_input_limit, openvino_state=openvino_state,
                       appending_positions=appending_positions, measure_placement=measure_placement, verify=verify,
                       quantized_reference=quantized_reference, compressed_weights=compressed_weights,
                       nonfinite_inputs=nonfinite_inputs, hint=hint)
    return Program(os.fspath(path), options)


def inspect(path: str | os.PathLike, **options) -> dict:
    """The placement, as ``pt2ov inspect --json`` prints it (a small program that load would time
    is loaded and timed; the others compile nothing):
    ``{"methods": {name: {"steps": [...], "constants": {...}, "openvino_version": ..., "cpu_isa": ...}}}`` (every
    method unless ``method`` names another than "forward"). Takes :func:`load`'s options."""
    return json.loads(_pt2ov.inspect_json(os.fspath(path), _options(**options)))


def methods(path: str | os.PathLike) -> list[str]:
    """The method names stored in an archive ("forward" for torch.export.save's)."""
    return list(_pt2ov.methods(os.fspath(path)))


def openvino_version() -> str:
    """The OpenVINO pt2ov runs on, e.g. "2026.4.1-..."."""
    return _pt2ov.openvino_version()


def compile(model: Any, example_inputs: Optional[Sequence] = None, *, dynamic_shapes: Any = None,
            **load_options) -> Program:
    """Exports ``model`` (an ``nn.Module``, with ``example_inputs``; or an ``ExportedProgram`` as
    it is) with ``torch.export.export``, saves it to a temporary archive and loads it with
    :func:`load`'s options. The temporary archive is removed once loaded."""
    import torch

    if isinstance(model, torch.export.ExportedProgram):
        ep, name = model, "exported_program"
    else:
        name = type(model).__name__
        if example_inputs is None:
            raise TypeError("pt2ov.compile: example_inputs are needed to export a module")
        if not isinstance(example_inputs, tuple):
            example_inputs = tuple(example_inputs) if isinstance(example_inputs, list) else (example_inputs,)
        ep = torch.export.export(model, example_inputs, dynamic_shapes=dynamic_shapes)
    with tempfile.TemporaryDirectory(prefix="pt2ov-") as folder:
        path = os.path.join(folder, f"{name}.pt2")  # errors name the file: the class
        torch.export.save(ep, path)
        return load(path, **load_options)



class Server:
    """A running ``pt2ov serve`` process, as :func:`serve` starts it; a context manager that stops
    it on exit."""

    def __init__(self, process, host: str, http_port: int, grpc_port: int):
        self.process = process
        self.host, self.http_port, self.grpc_port = host, http_port, grpc_port

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.http_port}"

    @property
    def grpc_url(self) -> str:
        return f"{self.host}:{self.grpc_port}"

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then the exit status (0: stopped cleanly)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except Exception:
                self.process.kill()
                self.process.wait()
        if self.process.stderr:
            self.process.stderr.close()
        return self.process.returncode

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def serve(repository: str | os.PathLike, *, host: str = "127.0.0.1", http_port: int = 8000, grpc_port: int = 8001,
          arguments: Sequence[str] = (), ready_timeout: float = 300.0) -> Server:
    """Starts ``pt2ov serve REPOSITORY`` (a model repository folder or one ``.pt2``; docs/SERVING.md)
    in a process of its own, the package's command, and returns once every model is loaded and it
    answers (REST's ``/v2/health/ready``, or the command's "ready" line when REST is off).
    ``arguments`` are more of the command's flags (``["--performance-hint", "throughput"]``). Raises
    :class:`OptionError` with the command's message when it cannot start with what it was given (a
    bad repository, a model that does not load, a port in use: its exit status 2),
    :class:`InternalError` when it ended on a bug of pt2ov's (exit status 3), and
    :class:`ResourceError` when it does not answer within ``ready_timeout`` seconds."""
    import subprocess
    import time
    import urllib.request

    from .__main__ import command

    process = subprocess.Popen([command(), "serve", os.fspath(repository), "--host", host, "--http-port",
                                str(http_port), "--grpc-port", str(grpc_port), *arguments],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    server = Server(process, host, http_port, grpc_port)
    deadline = time.monotonic() + ready_timeout
    while True:
        if process.poll() is not None:
            message = process.stderr.read().strip().splitlines()
            server.stop()
            text = message[-1] if message else f"pt2ov serve exited {process.returncode}"
            raise (InternalError if process.returncode == 3 else OptionError)(text)
        if http_port:
            try:
                with urllib.request.urlopen(f"{server.http_url}/v2/health/ready", timeout=5) as response:
                    if response.status == 200:
                        return server
            except OSError:
                pass
        elif "ready" in process.stderr.readline():
            return server
        if time.monotonic() > deadline:
            server.stop()
            raise ResourceError(f"pt2ov serve did not answer within {ready_timeout} s")
        time.sleep(0.05)
