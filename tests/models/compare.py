"""Comparing an engine's outputs (numpy arrays from OUT.npz) with PyTorch's (tensors)."""
from __future__ import annotations

import numpy as np
import torch

from . import ModelCase

_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """What a tensor looks like in an .npz: bf16 travels as float32 (exact), every other dtype
    as itself, always C-contiguous."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    # np.array, not np.ascontiguousarray: the latter turns a 0-d tensor into shape (1,)
    return np.array(t.contiguous().numpy(), order="C", copy=True)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(_UINT_OF_SIZE[a.dtype.itemsize]) if a.dtype.kind == "f" else a


def _describe_diff(actual: np.ndarray, expected: np.ndarray) -> str:
    if actual.size == 0:
        return ""
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - e)
    diff = np.where((np.isnan(a) & np.isnan(e)) | (a == e), 0.0, diff)
    diff = np.where(np.isnan(diff), np.inf, diff)
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
    return (f"max abs diff {float(diff.max()):.6g} at index {tuple(int(i) for i in worst)}: "
            f"got {actual[worst]!r}, expected {expected[worst]!r}")


def assert_output_matches(actual: np.ndarray, expected: torch.Tensor, *, rtol: float, atol: float,
                          exact: bool, label: str) -> None:
    want = to_numpy(expected)
    assert isinstance(actual, np.ndarray), f"{label}: not an array: {type(actual)}"
    assert actual.dtype == want.dtype, (
        f"{label}: dtype {actual.dtype}, expected {want.dtype}"
        + (" (bf16 travels as float32)" if expected.dtype == torch.bfloat16 else ""))
    assert actual.shape == want.shape, f"{label}: shape {actual.shape}, expected {want.shape}"
    if want.dtype.kind == "f":
        if exact:
            ok = np.array_equal(_bits(actual), _bits(want))
            assert ok, f"{label}: not bit-exact; {_describe_diff(actual, want)}"
            return
        close = np.isclose(actual, want, rtol=rtol, atol=atol, equal_nan=True)
        # an infinity must match exactly (isclose already treats inf == inf); count NaN mismatches
        if not close.all():
            bad = int((~close).sum())
            raise AssertionError(
                f"{label}: {bad} of {want.size} values outside rtol={rtol} atol={atol}; "
                f"{_describe_diff(actual, want)}")
    else:
        if not np.array_equal(actual, want):
            bad = int((actual != want).sum())
            where = np.argwhere(actual != want)[0] if actual.ndim else ()
            where = tuple(int(i) for i in where)
            raise AssertionError(
                f"{label}: {bad} of {want.size} values differ (integers and bools compare "
                f"exactly); first at {where}: got {actual[where]!r}, expected {want[where]!r}")


def assert_outputs_match(actual: list[np.ndarray], expected: list[torch.Tensor], case: ModelCase,
                         label: str = "") -> None:
    """Every output: same dtype and shape; floats within the case's tolerance (or bit-exact
    where the case says so); integers and bools exactly."""
    assert len(actual) == len(expected), (
        f"{label}: {len(actual)} outputs, PyTorch returns {len(expected)}")
    rtol, atol = case.tolerance
    problems = []  # every output's mismatch, not only the first: the pattern tells more
    for i, (a, e) in enumerate(zip(actual, expected)):
        try:
            assert_output_matches(
                a, e, rtol=rtol, atol=atol, exact=case.expect_exact or i in case.exact_outputs,
                label=f"{label} output {i}".strip())
        except AssertionError as err:
            problems.append(str(err))
    if problems:
        raise AssertionError("\n".join(problems))


def _value_errors(actual: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str:
    """'' when close; otherwise how many values differ and the worst absolute and relative
    error among them (NaN where only one side has NaN is counted apart)."""
    close = np.isclose(actual, want, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return ""
    nan_mismatch = int((np.isnan(actual) != np.isnan(want)).sum())
    a, e = actual.astype(np.float64), want.astype(np.float64)
    finite = ~close & ~np.isnan(a) & ~np.isnan(e)
    parts = [f"{int((~close).sum())} of {want.size} values outside rtol={rtol:g} atol={atol:g}"]
    if finite.any():
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            abs_err = np.abs(a - e)[finite]
            abs_err = np.where(np.isnan(abs_err), np.inf, abs_err)  # inf - inf
            scale = np.abs(e[finite])
            # relative to eager's value; where eager has 0 only the absolute error means anything
            rel_err = abs_err[scale > 0] / scale[scale > 0]
        text = f"max abs err {float(abs_err.max()):.3g}"
        if rel_err.size:
            worst = np.nan_to_num(rel_err, nan=np.inf, posinf=np.inf).max()
            text += f", max rel err {float(worst):.3g}"
        parts.append(text)
    if nan_mismatch:
        parts.append(f"NaN mismatch at {nan_mismatch}")
    return "; ".join(parts)


def _largest_error(actual: np.ndarray, want: np.ndarray) -> float:
    """The largest absolute difference, NaN on both sides counting as equal, NaN on one side
    as infinite."""
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(actual.astype(np.float64) - want.astype(np.float64))
    err = np.where(np.isnan(actual) & np.isnan(want), 0.0, err)
    return float(np.where(np.isnan(err), np.inf, err).max())


def output_differences(actual: list[np.ndarray], expected: list[torch.Tensor], tolerance,
                       *, atol_scaled_by_largest: bool = False) -> tuple[str, float]:
    """What differs between an engine's outputs and eager's, without raising: ('' when every
    output matches, the largest absolute error over float outputs). Dtype and shape must be
    equal; floats within `tolerance(dtype) -> (rtol, atol)` with NaN where and only where eager
    has NaN; integers and bools exactly. With `atol_scaled_by_largest` the atol is multiplied by
    the largest finite magnitude of that output (at least 1): deep float32 networks add up
    rounding in proportion to their values."""
    if len(actual) != len(expected):
        return f"{len(actual)} outputs, eager returns {len(expected)}", float("nan")
    problems, worst = [], 0.0
    for i, (got, exp) in enumerate(zip(actual, expected)):
        want = to_numpy(exp)
        label = f"output {i}" if len(expected) > 1 else "output"
        if got.dtype != want.dtype:
            problems.append(f"{label}: dtype {got.dtype}, eager {want.dtype}")
            continue
        if got.shape != want.shape:
            problems.append(f"{label}: shape {list(got.shape)}, eager {list(want.shape)}")
            continue
        if want.size == 0:
            continue
        if want.dtype.kind == "f":
            rtol, atol = tolerance(exp.dtype)
            if atol_scaled_by_largest:
                finite = want[np.isfinite(want)]
                atol *= max(1.0, float(np.abs(finite).max())) if finite.size else 1.0
            worst = max(worst, _largest_error(got, want))
            diff = _value_errors(got, want, rtol, atol)
        elif not np.array_equal(got, want):
            diff = f"{int((got != want).sum())} of {want.size} values differ (exact compare)"
        else:
            diff = ""
        if diff:
            problems.append(f"{label}: {diff}")
    return "; ".join(problems), worst
