"""Faults already known (being fixed elsewhere), told apart from new ones in a run's failures by
the ops of the program and what went wrong. A match is a likely attribution for counting, not a
proof: the shrinker (`shrink.py`) gives the certain answer for one program.
"""
from __future__ import annotations

KNOWN_FAULTS = {
    "interp-size1": "F.interpolate to output size 1, linear modes, align_corners=False",
    "prelu-0d": "nn.PReLU of a 0-d tensor returns shape [1]",
    "conv1x1-stride-pad": "1x1 Conv2d with stride>1 and padding>0 after an activation: wrong shape",
    "ov-conv-segv": "SIGSEGV in the OpenVINO CPU plugin on a strided, dilated Conv2d",
    "take-along-dim-segv": "SIGSEGV in pt2ov's take_along_dim kernel",
    "einsum-chain": "einsum 'bhqd,bhkd->bhqk' fed to another einsum: wrong shape",
    "remainder-large": "float remainder of values beyond 2**24 on OpenVINO (FloorMod in float32: remainder(1.094e18, 3) "
    "gave -6.87e10; regressions.py remainder_of_large_floats; own seeds 106, 138 on `large` inputs)",
    # Not faults of pt2ov: eager's own result depends on more than the values (docs/CONFORMANCE.md).
    "softshrink-zero-sign": "eager's softshrink gives +0.0 in its vectorized loop and x * 0 (-0.0 for a "
    "negative x) in its scalar tail, so a signbit, atan2 or copysign after it depends on the element's "
    "position (own seeds 13027, 32026)",
    "nan-sign": "the sign bit of a NaN read by signbit or copysign: PyTorch's vectorized kernels make x86's "
    "default NaN (sign set) where its scalar loops and pt2ov's CPU kernels pass the operand's NaN on; not part "
    "of the contract (docs/EXACTNESS.md E5; own seed 141793, clamp(x, lo, hi) of NaN bounds)",
    "norm-of-equal-values-compared": "a group/layer/instance/batch norm of equal values (the zeros and constant "
    "domains) is exactly 0 in pt2ov and OpenVINO and a rounding residue near 1e-8 in eager (its mean of equal "
    "values rounds), which an eq, ne or sign after it tells apart; the exact answer is pt2ov's (own seed 142027)",
    "norm-affine-cancels-in-eager": "batch/instance/group norm with a weight of the `large` domain (1e15-1e18, a "
    "weight given as an input): eager's fused affine x * (w * rstd) + (b - mean * w * rstd) cancels to 0 at that "
    "magnitude, in float64 too; pt2ov and OpenVINO give the exact value (the bias; own seeds 140789, 142919)",
    "nan-argminmax": "NaN made by 0/0 or x/0 reaching argmax/argmin on OpenVINO, which skips it where "
    "PyTorch picks it (the NaN limit, EXACTNESS O8; NNSmith seeds 12041, 30143)",
}


def _has(ops, *names) -> bool:
    low = [o.lower() for o in ops]
    return any(any(n in o for o in low) for n in names)


def classify(f: dict) -> str | None:
    """The key of the known fault a failure record most likely is, or None."""
    ops, detail, verdict = f.get("ops", []), f.get("detail", ""), f["verdict"]
    placement = f["placement"]
    if verdict in ("wrong", "nan") and placement != "cpu" and f.get("domain") == "large" and _has(ops, "remainder"):
        return "remainder-large"
    if verdict == "crash" and _has(ops, "take_along_dim"):
        return "take-along-dim-segv"
    if verdict == "crash" and placement != "cpu" and _has(ops, "conv"):
        return "ov-conv-segv"
    if verdict == "wrong" and "shape [1]," in detail and _has(ops, "prelu"):
        return "prelu-0d"
    if verdict == "wrong" and "shape" in detail and _has(ops, "einsum"):
        return "einsum-chain"
    if verdict == "wrong" and "shape" in detail and _has(ops, "conv"):
        return "conv1x1-stride-pad"
    if verdict == "wrong" and _has(ops, "interp"):
        return "interp-size1"
    if verdict == "wrong" and _has(ops, "softshrink") and _has(ops, "signbit", "atan2", "copysign"):
        return "softshrink-zero-sign"
    if (verdict == "wrong" and f.get("domain") == "large" and _has(ops, "instance_norm", "batch_norm", "group_norm")
            and "eager np.float32(0.0)" in detail):
        return "norm-affine-cancels-in-eager"
    if verdict == "wrong" and f.get("domain") == "nonfinite" and _has(ops, "signbit", "copysign"):
        return "nan-sign"
    if (verdict == "wrong" and f.get("domain") in ("zeros", "constant") and _has(ops, "_norm", "norm")
            and _has(ops, "eq", "ne", "sgn", "sign", "signbit", "lt", "gt", "le", "ge")):
        return "norm-of-equal-values-compared"
    if verdict == "wrong" and placement != "cpu" and _has(ops, "argmax", "argmin") and _has(ops, "div"):
        return "nan-argminmax"
    return None
