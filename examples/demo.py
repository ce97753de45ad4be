"""What `make demo` runs: inspects and runs examples/policy.pt2 with build/pt2ov and checks its
outputs against PyTorch's (examples/policy_expected.npz, from examples/make_example.py).

Needs only numpy and the built command; no torch at run time. Run from the repository root.
"""
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
PT2OV = ROOT / "build" / "pt2ov"
EXAMPLES = ROOT / "examples"
MODEL = EXAMPLES / "policy.pt2"
INPUTS = EXAMPLES / "policy_inputs.npz"
EXPECTED = EXAMPLES / "policy_expected.npz"
OUTPUT_NAMES = ("action", "state")  # what the policy returns, in order
RTOL, ATOL = 1e-4, 1e-5


def run(*args: str) -> subprocess.CompletedProcess:
    cmd = [str(PT2OV), *args]
    print("$ " + " ".join(str(a) for a in cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(f"demo: pt2ov exited {proc.returncode}")
    return proc


def main() -> int:
    if not PT2OV.is_file():
        sys.exit(f"demo: {PT2OV} not found; run `make` first")

    run("inspect", str(MODEL.relative_to(ROOT)))
    print()

    with tempfile.TemporaryDirectory() as tmp:
        out_path = pathlib.Path(tmp) / "out.npz"
        run("run", str(MODEL.relative_to(ROOT)), "--inputs", str(INPUTS.relative_to(ROOT)),
            "--outputs", str(out_path))
        with np.load(out_path) as got_npz, np.load(EXPECTED) as want_npz:
            got = {k: got_npz[k] for k in got_npz.files}
            want = {k: want_npz[k] for k in want_npz.files}

    print()
    ok = True
    if sorted(got) != sorted(want):
        print(f"outputs {sorted(got)}, expected {sorted(want)}")
        ok = False
    for i in range(len(want)):
        key = f"arr_{i}"
        label = f"{key} ({OUTPUT_NAMES[i]})" if i < len(OUTPUT_NAMES) else key
        if key not in got:
            continue
        g, w = got[key], want[key]
        if g.shape != w.shape or g.dtype != w.dtype:
            print(f"{label}: shape {g.shape} dtype {g.dtype}, expected shape {w.shape} dtype {w.dtype}")
            ok = False
            continue
        diff = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))) if g.size else 0.0
        close = bool(np.allclose(g, w, rtol=RTOL, atol=ATOL))
        print(f"{label}: shape {tuple(g.shape)} dtype {g.dtype} max |diff| {diff:.3g}"
              f"{'' if close else '  <-- outside tolerance'}")
        ok &= close

    if not ok:
        print(f"FAILED: outputs differ from PyTorch beyond rtol {RTOL} / atol {ATOL}")
        return 1
    print(f"within tolerance (rtol {RTOL}, atol {ATOL}) of PyTorch eager")
    return 0


if __name__ == "__main__":
    sys.exit(main())
