"""Known classes of wrong records that are not pt2ov's faults, told apart from new ones in a run's failures by
the ops of the program and what went wrong. A match is a likely attribution for counting, not a
proof: the shrinker (`shrink.py`) gives the certain answer for one program.
"""
from __future__ import annotations

# Only classes that are not pt2ov's to fix, or a documented limit, belong here. A fault of
# pt2ov's, once fixed, leaves this table for its zoo case (tests/models/): a guess left for a
# fixed fault files the next new fault that looks like it under the old name (run 18's
# logical_not of a narrowed int32 was first counted as the fixed `abs-fold`). Removed at stop
# 54 as fixed: interp-size1 (interpolate_to_size_one), prelu-0d (prelu_shapes),
# conv1x1-stride-pad (unit_convolution_strided_padded), ov-conv-segv (DilatedStridedConvPaddedBeyondInputCrash), take-along-dim-segv
# (take_along_dim_buffer_index), einsum-chain (einsum_scores_reused), remainder-large
# (remainder_of_large_floats).
KNOWN_FAULTS = {
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
    "gelu-of-inf": "gelu of +inf: eager gives inf for a tensor of one element and NaN for two or more (its "
    "vectorized loop), so its answer depends on the tensor's length; OpenVINO gives NaN (own seed 164571)",
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
    if verdict == "wrong" and f.get("domain") == "large" and _has(ops, "gelu"):
        return "gelu-of-inf"
    if verdict == "wrong" and placement != "cpu" and _has(ops, "argmax", "argmin") and _has(ops, "div"):
        return "nan-argminmax"
    return None
