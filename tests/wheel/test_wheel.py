"""The wheel (`make test-wheel`, slow, not in `make test`): `pip wheel .` builds it into dist/;
it is installed into a fresh venv (build/wheel-venv: no system site-packages, not this
checkout's) with the pinned torch and numpy, where the example policy runs through the module,
the `pt2ov` command the wheel installs and `python -m pt2ov`; the outputs are compared with
what eager PyTorch computes here, in the main venv.

The wheel is built without build isolation here (`--no-build-isolation`, from the main venv's
pinned scikit-build-core, nanobind and openvino) so that build/wheel/ is reused and a rebuild is
incremental; `pip wheel . -w dist` with isolation builds the same wheel from scratch.
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import zipfile

import numpy as np
import torch

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
DIST = REPO_ROOT / "dist"
VENV = REPO_ROOT / "build" / "wheel-venv"
PINS = ["torch==2.13.0", "numpy==2.4.6"]

RUN_IN_VENV = r"""
import json, sys, numpy as np, torch, pt2ov
pt2, inputs, out = sys.argv[1:4]
with np.load(inputs) as d:
    arrays = [d[k] for k in d.files]
program = pt2ov.load(pt2, num_threads=1)
as_numpy = program(*arrays)
as_torch = program(*[torch.from_numpy(a) for a in arrays])
assert all(isinstance(t, torch.Tensor) for t in as_torch)
np.savez(out, *as_numpy, *[t.numpy() for t in as_torch])

# one line from a module to pt2ov, compared with eager here (the venv's own torch)
torch.manual_seed(0)
small = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.GELU(), torch.nn.Linear(5, 2)).eval()
x = torch.randn(3, 6)
compiled = pt2ov.compile(small, (x,))
(got,) = compiled(x)
with torch.no_grad():
    want = small(x)
torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
print(json.dumps({"file": pt2ov.__file__, "openvino": pt2ov.openvino_version(),
                  "cpu_isa": program.report["cpu_isa"],
                  "inputs": [[i.name, i.dtype, list(i.shape)] for i in program.inputs],
                  "compiled_matches_eager": True}))
"""


def sh(args, **kw):
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{' '.join(map(str, args))} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def clean_env():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PT2OV_BIN")}
    env["PATH"] = f"{VENV / 'bin'}:{env.get('PATH', '')}"
    return env


def test_wheel_installs_into_a_fresh_venv_and_runs_the_policy(tmp_path):
    # 1. the wheel
    start = time.monotonic()
    for old in DIST.glob("pt2ov-*.whl"):
        old.unlink()
    env = dict(os.environ)
    if shutil.which("ccache"):
        env["CMAKE_ARGS"] = "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache " + env.get("CMAKE_ARGS", "")
    sh([sys.executable, "-m", "pip", "wheel", REPO_ROOT, "-w", DIST, "--no-deps", "--no-build-isolation"],
       env=env, cwd=REPO_ROOT, timeout=3600)
    (wheel,) = DIST.glob("pt2ov-0.1.0-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for want in ("pt2ov/__init__.py", "pt2ov/__main__.py", "pt2ov/__init__.pyi", "pt2ov/py.typed",
                 "pt2ov/libpt2ov.so", "pt2ov/libpt2ov_isa_x86-64-v3.so", "pt2ov/libpt2ov_isa_x86-64-v4.so",
                 "pt2ov/bin/pt2ov"):
        assert want in names, f"{wheel.name} lacks {want}: {sorted(names)}"
    assert any(n.startswith("pt2ov/_pt2ov.") and n.endswith(".so") for n in names)
    print(f"wheel {wheel.name} ({wheel.stat().st_size / 2**20:.1f} MiB) built in {time.monotonic() - start:.0f}s")

    # 2. a fresh venv with the wheel and the pinned torch and numpy (openvino comes pinned with it)
    start = time.monotonic()
    shutil.rmtree(VENV, ignore_errors=True)
    sh([sys.executable, "-m", "venv", VENV])
    py = VENV / "bin" / "python"
    sh([py, "-m", "pip", "install", "-q", wheel, *PINS], timeout=1800)
    cfg = (VENV / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in cfg
    print(f"venv made in {time.monotonic() - start:.0f}s")

    # 3. the policy there, through the module (numpy and torch inputs)
    pt2 = REPO_ROOT / "examples" / "policy.pt2"
    inputs = REPO_ROOT / "examples" / "policy_inputs.npz"
    out = tmp_path / "out.npz"
    script = tmp_path / "run.py"
    script.write_text(RUN_IN_VENV)
    proc = sh([py, script, pt2, inputs, out], env=clean_env(), cwd=tmp_path)
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    assert info["file"].startswith(str(VENV)), info  # the installed package, not this checkout
    assert info["openvino"].startswith("2026.4.1")
    assert info["compiled_matches_eager"], info  # pt2ov.compile of a small module, checked in the venv
    # The wheel's libpt2ov.so finds the AVX2 and AVX-512 kernels' objects beside it (src/kernels/isa/).
    cpu_flags = set(next(line for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
                         if line.startswith("flags")).split(":", 1)[1].split())
    v3 = {"avx2", "fma", "bmi2", "movbe"} <= cpu_flags
    v4 = v3 and {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"} <= cpu_flags
    assert info["cpu_isa"] == ("x86-64-v4" if v4 else "x86-64-v3" if v3 else "baseline"), info
    site = pathlib.Path(info["file"]).parent
    for binary in (site / "libpt2ov.so", site / "bin" / "pt2ov", *site.glob("_pt2ov.*.so")):
        rpath = sh(["readelf", "-d", binary]).stdout
        assert "$ORIGIN" in rpath and "openvino/libs" in rpath and str(REPO_ROOT) not in rpath, (binary, rpath)

    # 4. eager, here
    sys.path.insert(0, str(REPO_ROOT / "examples"))
    import policy

    model = policy.make_policy(seed=0)
    with np.load(inputs) as d:
        tensors = [torch.from_numpy(d[k]) for k in d.files]
    with torch.no_grad():
        want = [t.numpy() for t in model(*tensors)]
    with np.load(out) as got:
        arrays = [got[f"arr_{i}"] for i in range(len(got.files))]
    assert len(arrays) == 2 * len(want)
    for i, a in enumerate(arrays):
        np.testing.assert_allclose(a, want[i % len(want)], rtol=1e-4, atol=1e-5, err_msg=f"output {i}")

    # 5. the command the wheel installs, and python -m pt2ov
    proc = sh([VENV / "bin" / "pt2ov", "inspect", pt2, "--json"], env=clean_env(), cwd=tmp_path)
    assert list(json.loads(proc.stdout)["methods"]) == ["forward"]
    cli_out = tmp_path / "cli.npz"
    sh([py, "-m", "pt2ov", "run", pt2, "--inputs", inputs, "--outputs", cli_out, "--num-threads", "1"],
       env=clean_env(), cwd=tmp_path)
    with np.load(cli_out) as got:
        for i, w in enumerate(want):
            np.testing.assert_allclose(got[f"arr_{i}"], w, rtol=1e-4, atol=1e-5)
