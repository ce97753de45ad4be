"""The child process that runs programs: pt2ov (the Python module from build/python, or
$PT2OV_BUILD/python) or
OpenVINO alone. It reads one JSON job per line on stdin and answers one JSON line on the file
descriptor given as its argument (stdout is left to the libraries' own printing). A crash of
the child is seen by the parent (`Runner`), which records it and starts a new child.

Job: {"kind": "pt2ov"|"openvino", "pt2", "inputs" (.npz), "outputs" (.npz),
      "measure": bool, "cpu_ops": [...], "outputs_again": (.npz) of a second call (pt2ov only),
      "calls": [{"inputs", "outputs"}, ...] more calls on the same load after those (pt2ov only)}
Answer: {"status": "ok", "calls": [{"status": ..., "error": ...}, ...]} or
        {"status": "refused"|"internal", "error": "..."}
"""
from __future__ import annotations

import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import re
import time

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _np_inputs(path):
    import numpy as np

    with np.load(path, allow_pickle=False) as npz:
        return [npz[f"arr_{i}"] for i in range(len(npz.files))]


# The CPU placement asks for every op of the program on the CPU kernels; an op without a kernel
# stays on OpenVINO (as pt2ov's own all-on-CPU plan leaves it), so a refusal there means the
# program, not a missing kernel.
_NO_KERNEL = re.compile(r"kept off OpenVINO by --cpu-op (\S+), and pt2ov has no CPU kernel")


def _load_with_kernels(pt2ov, job):
    cpu_ops = list(job.get("cpu_ops", ()))
    while True:
        try:
            return pt2ov.load(job["pt2"], cpu_ops=cpu_ops, num_threads=1, measure_placement=job.get("measure", False))
        except pt2ov.InternalError:
            raise
        except pt2ov.Error as e:
            without = set(_NO_KERNEL.findall(str(e)))
            if not without or not without & set(cpu_ops):
                raise
            cpu_ops = [op for op in cpu_ops if op not in without]


def _run_pt2ov(job):
    import numpy as np
    import pt2ov

    try:
        program = _load_with_kernels(pt2ov, job)
        inputs = _np_inputs(job["inputs"])
        outs = [np.array(o, copy=True) for o in program(*inputs)]
        # A second call on the same inputs: a program whose state leaks from call to call (a
        # constant the plugin overwrote) is right the first time only.
        again = [np.array(o, copy=True) for o in program(*inputs)] if job.get("outputs_again") else None
    except pt2ov.InternalError as e:
        return {"status": "internal", "error": str(e)[:2000]}
    except pt2ov.Error as e:
        # A program torch.export made holds metadata true to itself: a CPU kernel that computes
        # another shape or dtype than they record is pt2ov's bug, whatever the error's kind.
        if "metadata contradict its own program" in str(e):
            return {"status": "internal", "error": str(e)[:2000]}
        return {"status": "refused", "error": str(e)[:2000]}
    np.savez(job["outputs"], *outs)
    if again is not None:
        np.savez(job["outputs_again"], *again)
    calls = []
    # More calls on the same loaded program (structured inputs): each answers for itself, so a
    # refused call (non-finite inputs) leaves the others theirs.
    for call in job.get("calls", ()):
        try:
            outs = [np.array(o, copy=True) for o in program(*_np_inputs(call["inputs"]))]
        except pt2ov.InternalError as e:
            calls.append({"status": "internal", "error": str(e)[:2000]})
            continue
        except pt2ov.Error as e:
            status = "internal" if "metadata contradict its own program" in str(e) else "refused"
            calls.append({"status": status, "error": str(e)[:2000]})
            continue
        np.savez(call["outputs"], *outs)
        calls.append({"status": "ok"})
    return {"status": "ok", "calls": calls}


def _run_openvino(job):
    import numpy as np
    import openvino as ov
    import torch

    try:
        ep = torch.export.load(job["pt2"])
        model = ov.convert_model(ep)
        core = _run_openvino.core = getattr(_run_openvino, "core", None) or ov.Core()
        compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                     "INFERENCE_NUM_THREADS": 1})
        result = compiled(_np_inputs(job["inputs"]))
        outs = [np.asarray(result[o]) for o in compiled.outputs]
    except Exception as e:  # noqa: BLE001 - any failure of OpenVINO's is a refusal here
        return {"status": "refused", "error": f"{type(e).__name__}: {str(e)[:1500]}"}
    np.savez(job["outputs"], *outs)
    return {"status": "ok"}


def child_main(fd: int) -> None:
    import torch

    torch.set_num_threads(1)
    answer = os.fdopen(fd, "w", buffering=1)
    for line in sys.stdin:
        job = json.loads(line)
        try:
            result = _run_pt2ov(job) if job["kind"] == "pt2ov" else _run_openvino(job)
        except ImportError as e:  # no build: the harness cannot run at all
            result = {"status": "harness", "error": f"{type(e).__name__}: {e}"}
        except Exception as e:  # noqa: BLE001 - pt2ov raising something else than its errors
            result = {"status": "internal", "error": f"unexpected {type(e).__name__}: {e}"[:2000]}
        answer.write(json.dumps(result) + "\n")


class Runner:
    """Parent side: sends jobs to a child, restarting it after a crash or a timeout."""

    def __init__(self, timeout_s: float = 120.0):
        self.timeout_s = timeout_s
        self.proc = None

    def _start(self):
        r, w = os.pipe()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(pathlib.Path(os.environ.get("PT2OV_BUILD", REPO_ROOT / "build")) / "python"),
             str(REPO_ROOT)] + [env.get("PYTHONPATH", "")])
        env.setdefault("OMP_NUM_THREADS", "1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.random_programs.runner", str(w)], cwd=REPO_ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            pass_fds=(w,), env=env, text=True, start_new_session=True)
        os.close(w)
        self.answers = os.fdopen(r, "r")
        self.stderr_fd = self.proc.stderr.fileno()
        os.set_blocking(self.stderr_fd, False)

    def _drain_stderr(self) -> str:
        chunks = []
        try:
            while True:
                b = os.read(self.stderr_fd, 65536)
                if not b:
                    break
                chunks.append(b.decode(errors="replace"))
        except (BlockingIOError, OSError):
            pass
        return "".join(chunks)

    def run(self, job: dict) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        start = time.monotonic()
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = start + self.timeout_s
        while True:
            ready, _, _ = select.select([self.answers], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                line = self.answers.readline()
                if line:
                    self._drain_stderr()
                    result = json.loads(line)
                    if result["status"] == "harness":
                        raise RuntimeError(f"the runner cannot run pt2ov: {result['error']}")
                    result["seconds"] = time.monotonic() - start
                    return result
                # EOF: the child died
                rc = self.proc.wait()
                tail = self._drain_stderr()[-1500:]
                self.proc = None
                sig = -rc if rc < 0 else None
                name = signal.Signals(sig).name if sig else f"exit {rc}"
                return {"status": "crash", "error": f"child died ({name}); stderr: {tail}",
                        "seconds": time.monotonic() - start}
            if time.monotonic() >= deadline:
                self.close(kill=True)
                return {"status": "crash", "error": f"timeout after {self.timeout_s}s (hang)",
                        "seconds": time.monotonic() - start}

    def close(self, kill: bool = False):
        if self.proc is not None:
            if kill:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            else:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            self.proc = None


if __name__ == "__main__":
    child_main(int(sys.argv[1]))
