"""Structured inputs: the same shapes and dtypes as a program's example inputs, with the values
real inputs have and random normal ones never do (issue 43).

Every suite draws random normal inputs, so a fault that shows only on zeros, on a row of equal
values, on a value near the int32 edge or on a padded mask is never seen. `make(domain, inputs)`
turns a pytree of example tensors (a zoo case's variant 0, a random program's inputs) into one
of these domains, deterministically (fixed seeds, no global RNG):

- `zeros`: every input zero (floats, integers and bools); where eager refuses zero integers (a
  division by zero, ...) the integer and bool inputs keep their values (`variants` notes it).
- `constant`: every float element 0.75: zero variance through every norm.
- `large`: float magnitudes about 1e18 (float64 1e150, float16 1e4), the sign of the example's
  value, each magnitude times a seeded factor in [1, 1.5). 1e18 squared is still finite in
  float32; where eager overflows anyway (more non-finite outputs than on the example inputs)
  `variants` tries 1e15, 1e12, 1e9 and, where eager overflows at all of them, skips the domain
  with the reason (never silently).
- `small`: float magnitudes about 1e-30 (float64 1e-300, float16 1e-4): near the subnormals,
  whose products underflow.
- `int_edge`: integer inputs (not bools, not mask-like ones) near the int32 edge: +-(2**31 - 2)
  for int32 and int64, max - 1 and min + 1 (unsigned: max - 1, max - 2) for narrower types,
  signs seeded. Only where the program accepts them: `variants` drops the inputs eager refuses
  at the edge (an index out of range, an allocation beyond a few GB), one by one.
- `nonfinite`: NaN, +inf and -inf at fixed seeded positions of every float input (one element
  in eight, at least one; NaN, +inf, -inf in turn).
- `left_padded`, `right_padded`, `masked_row`: the mask-like inputs (bool, or an integer input
  named like a mask or whose example values are all 0 or 1, of two elements or more) as an
  attention mask of 1 = keep: row r padded with min(r + 1, L - 1) zeros on the left / on the
  right (L the last dim), or row 0 all zeros and the other rows all ones (a 1-D mask: all
  zeros). The other inputs keep their example values.

`variants(inputs, eager)` gives every domain that applies to the inputs, adapted where eager
refuses or overflows as said above, each a `Variant` with its inputs or the reason it is
skipped.
"""
from __future__ import annotations

import contextlib
import dataclasses
import resource
from typing import Any, Callable, Optional, Sequence

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

FLOAT_DOMAINS = ("zeros", "constant", "large", "small")
INT_DOMAINS = ("int_edge",)
MASK_DOMAINS = ("left_padded", "right_padded", "masked_row")
NONFINITE = "nonfinite"
# every domain but nonfinite: compared like any other inputs
DOMAINS = FLOAT_DOMAINS + INT_DOMAINS + MASK_DOMAINS
ALL_DOMAINS = DOMAINS + (NONFINITE,)

CONSTANT = 0.75
LARGE = {torch.float32: 1e18, torch.bfloat16: 1e18, torch.float64: 1e150, torch.float16: 1e4}
# magnitudes tried in turn where eager overflows at the first (float32 and bfloat16; the others
# scale alike by the same factors)
LARGE_STEPS = (1.0, 1e-3, 1e-6, 1e-9)
SMALL = {torch.float32: 1e-30, torch.bfloat16: 1e-30, torch.float64: 1e-300, torch.float16: 1e-4}
NONFINITE_EVERY = 8
# eager calls that check a domain run with their address space capped this far above the
# process's own: an integer at the int32 edge used as a size must fail, not exhaust memory
EAGER_MEMORY_HEADROOM = 4 << 30

_SEEDS = {d: 4300 + 17 * k for k, d in enumerate(ALL_DOMAINS)}


@dataclasses.dataclass(frozen=True)
class Variant:
    domain: str
    inputs: Any = None  # the same pytree as the example inputs; None when skipped
    note: str = ""  # how the domain was adapted for this program
    skip: str = ""  # why the domain is not compared for this program ('' when it is)


def _gen(domain: str, index: int) -> torch.Generator:
    return torch.Generator().manual_seed(_SEEDS[domain] * 1000 + index)


def _is_float(t) -> bool:
    return isinstance(t, torch.Tensor) and t.dtype.is_floating_point and t.numel() > 0


def _is_int(t) -> bool:
    return (isinstance(t, torch.Tensor) and not t.dtype.is_floating_point and not t.dtype.is_complex
            and t.dtype != torch.bool and t.numel() > 0)


def is_mask_like(t, name: str = "") -> bool:
    """A bool input, or an integer one named like a mask or whose values are all 0 or 1; of two
    elements or more (a single 0 or 1 is more often an index or a count)."""
    if not isinstance(t, torch.Tensor) or t.dim() == 0 or t.numel() < 2:
        return False
    if t.dtype == torch.bool:
        return True
    if not _is_int(t):
        return False
    if "mask" in name.lower():
        return True
    if t.dtype == torch.uint64:  # no comparisons for uint64 in eager
        return False
    return bool(((t == 0) | (t == 1)).all())


def input_names(module, inputs) -> Optional[list[str]]:
    """The names of the flattened inputs of `module.forward(*inputs)`: a parameter's name for a
    tensor argument, `name_k` for the leaves of a nested one; None where the signature does not
    say (a *args forward)."""
    import inspect

    try:
        params = list(inspect.signature(module.forward).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params) or len(params) < len(inputs):
        return None
    names = []
    for p, arg in zip(params, inputs):
        leaves, _ = tree_flatten(arg)
        names += [p.name] if len(leaves) == 1 and isinstance(arg, torch.Tensor) else \
            [f"{p.name}_{k}" for k in range(len(leaves))]
    return names


def _names(leaves, names: Optional[Sequence[str]]) -> list[str]:
    if names is None or len(names) != len(leaves):
        return [""] * len(leaves)
    return list(names)


def _scaled(t: torch.Tensor, magnitude: float, gen: torch.Generator) -> torch.Tensor:
    """The sign of `t`'s values (0 counts as +) times magnitude * [1, 1.5), in t's dtype."""
    factor = 1.0 + 0.5 * torch.rand(t.shape, generator=gen, dtype=torch.float64)
    sign = torch.where(t.to(torch.float64) < 0, -1.0, 1.0)
    return (sign * factor * magnitude).to(t.dtype)


def _int_edge(t: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    if t.dtype in (torch.int32, torch.int64):
        hi, lo = 2**31 - 2, -(2**31 - 2)
    else:
        info = torch.iinfo(t.dtype)
        hi = info.max - 1
        lo = info.min + 1 if info.min < 0 else info.max - 2
    pick = torch.rand(t.shape, generator=gen) < 0.5
    return torch.where(pick, torch.tensor(hi, dtype=torch.int64),
                       torch.tensor(lo, dtype=torch.int64)).to(t.dtype)


def _nonfinite(t: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    out = t.detach().clone().contiguous()
    flat = out.view(-1)
    n = flat.numel()
    k = max(1, n // NONFINITE_EVERY)
    positions = torch.randperm(n, generator=gen)[:k]
    values = (float("nan"), float("inf"), float("-inf"))
    for j, p in enumerate(positions.tolist()):
        flat[p] = values[j % 3]
    return out


def _mask(t: torch.Tensor, domain: str) -> torch.Tensor:
    """A mask of 1 = keep in t's dtype and shape (see the module's docstring)."""
    length = t.shape[-1]
    rows = t.numel() // length if length else 0
    m = torch.ones(rows, length, dtype=torch.bool)
    if domain == "masked_row":
        if t.dim() == 1:
            m[:] = False
        else:
            m[0] = False
    else:
        for r in range(rows):
            pad = min(r + 1, length - 1)
            if pad <= 0:
                continue
            if domain == "left_padded":
                m[r, :pad] = False
            else:
                m[r, length - pad:] = False
    return m.reshape(t.shape).to(t.dtype)


def make(domain: str, inputs, names: Optional[Sequence[str]] = None, *, large_step: float = 1.0,
         int_leaves: Optional[set] = None, zero_ints: bool = True):
    """The inputs of `domain` (see the module's docstring), the same pytree as `inputs`.
    `large_step` scales the `large` magnitudes; `int_leaves` restricts `int_edge` to those leaf
    indices; `zero_ints=False` keeps integer and bool inputs in `zeros`."""
    leaves, spec = tree_flatten(inputs)
    names = _names(leaves, names)
    out = []
    for i, (t, name) in enumerate(zip(leaves, names)):
        if not isinstance(t, torch.Tensor):
            out.append(t)
            continue
        new = t
        if domain == "zeros":
            if _is_float(t) or (zero_ints and t.numel() > 0):
                new = torch.zeros_like(t)
        elif domain == "constant" and _is_float(t):
            new = torch.full_like(t, CONSTANT)
        elif domain == "large" and _is_float(t):
            new = _scaled(t, LARGE.get(t.dtype, 1e18) * large_step, _gen(domain, i))
        elif domain == "small" and _is_float(t):
            new = _scaled(t, SMALL.get(t.dtype, 1e-30), _gen(domain, i))
        elif domain == "int_edge" and _is_int(t) and not is_mask_like(t, name):
            if int_leaves is None or i in int_leaves:
                new = _int_edge(t, _gen(domain, i))
        elif domain == NONFINITE and _is_float(t):
            new = _nonfinite(t, _gen(domain, i))
        elif domain in MASK_DOMAINS and is_mask_like(t, name):
            new = _mask(t, domain)
        out.append(new.contiguous() if new is not t else t.clone())
    return tree_unflatten(out, spec)


def applicable(inputs, names: Optional[Sequence[str]] = None, domains=ALL_DOMAINS) -> tuple[str, ...]:
    """The domains that change something in `inputs`: the float domains where a float input is,
    int_edge where a non-mask integer input is, the mask domains where a mask-like input is."""
    leaves, _ = tree_flatten(inputs)
    names = _names(leaves, names)
    has_float = any(_is_float(t) for t in leaves)
    has_int = any(_is_int(t) and not is_mask_like(t, n) for t, n in zip(leaves, names))
    has_mask = any(is_mask_like(t, n) for t, n in zip(leaves, names))
    has_any = any(isinstance(t, torch.Tensor) and t.numel() > 0 for t in leaves)
    out = []
    for d in domains:
        if (d == "zeros" and has_any) or (d in FLOAT_DOMAINS[1:] + (NONFINITE,) and has_float) \
                or (d in INT_DOMAINS and has_int) or (d in MASK_DOMAINS and has_mask):
            out.append(d)
    return tuple(out)


def int_leaf_indices(inputs, names: Optional[Sequence[str]] = None) -> list[int]:
    leaves, _ = tree_flatten(inputs)
    names = _names(leaves, names)
    return [i for i, (t, n) in enumerate(zip(leaves, names)) if _is_int(t) and not is_mask_like(t, n)]


@contextlib.contextmanager
def memory_cap(headroom: int = EAGER_MEMORY_HEADROOM):
    """Caps this process's address space at its present size plus `headroom` for the block (an
    allocation beyond fails with an error instead of exhausting the machine), then restores it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
    except OSError:
        yield
        return
    cap = size + headroom
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _outputs(eager: Callable, tree) -> tuple[Optional[list], str]:
    try:
        with memory_cap():
            out = eager(tree)
        return [t for t in out if isinstance(t, torch.Tensor)], ""
    except Exception as e:  # noqa: BLE001 - eager's refusal of these inputs is the answer
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


def nonfinite_counts(outputs: list) -> list[int]:
    return [int((~torch.isfinite(t)).sum()) if t.dtype.is_floating_point else 0 for t in outputs]


def variants(inputs, eager: Optional[Callable] = None, names: Optional[Sequence[str]] = None,
             domains=ALL_DOMAINS) -> list[Variant]:
    """One Variant per applicable domain of `domains`, in that order. With `eager` (inputs ->
    list of output tensors; raising where eager refuses the inputs; each call on a fresh copy of
    the module) the domains are adapted as the module's docstring says, or skipped with why."""
    result = []
    base_counts = None
    if eager is not None:
        base, why = _outputs(eager, inputs)
        if base is None:
            raise ValueError(f"eager refuses the example inputs themselves: {why}")
        base_counts = nonfinite_counts(base)
    for domain in applicable(inputs, names, domains):
        if eager is None:
            result.append(Variant(domain, make(domain, inputs, names)))
            continue
        if domain == "zeros":
            tree = make(domain, inputs, names)
            _, why = _outputs(eager, tree)
            if not why:
                result.append(Variant(domain, tree))
                continue
            if not any(_is_float(t) for t in tree_flatten(inputs)[0]):
                result.append(Variant(domain, skip=f"eager refuses zero inputs: {why}"))
                continue
            kept = make(domain, inputs, names, zero_ints=False)
            _, why2 = _outputs(eager, kept)
            if why2:
                result.append(Variant(domain, skip=f"eager refuses zero inputs: {why2}"))
            else:
                result.append(Variant(domain, kept, note=f"integer and bool inputs kept: eager "
                                      f"refuses them zero ({why})"))
        elif domain == "large":
            first = None
            for step in LARGE_STEPS:
                tree = make(domain, inputs, names, large_step=step)
                out, why = _outputs(eager, tree)
                if why:
                    result.append(Variant(domain, skip=f"eager refuses large inputs: {why}"))
                    break
                counts = nonfinite_counts(out)
                worse = [(k, c, b) for k, (c, b) in enumerate(zip(counts, base_counts)) if c > b]
                if not worse:
                    note = "" if step == 1.0 else (f"magnitude scaled by {step:g} (float32 1e18 * {step:g}): "
                                                   f"eager overflows at larger ones ({first})")
                    result.append(Variant(domain, tree, note=note))
                    break
                k, c, b = worse[0]
                if first is None:
                    first = f"output {k}: {c} non-finite values, {b} on the example inputs"
            else:
                result.append(Variant(domain, skip=f"eager overflows at every magnitude from float32 "
                                      f"1e18 to 1e9 ({first} at 1e18)"))
        elif domain == "int_edge":
            tree = make(domain, inputs, names)
            _, why = _outputs(eager, tree)
            if not why:
                result.append(Variant(domain, tree))
                continue
            indices = int_leaf_indices(inputs, names)
            accepted, refused = set(), []
            for i in indices:
                _, w = _outputs(eager, make(domain, inputs, names, int_leaves={i}))
                if w:
                    refused.append(f"input {i}: {w}")
                else:
                    accepted.add(i)
            if accepted:
                tree = make(domain, inputs, names, int_leaves=accepted)
                _, w = _outputs(eager, tree)
                if not w:
                    result.append(Variant(domain, tree, note="at the edge: inputs "
                                          f"{sorted(accepted)}; eager refuses " + "; ".join(refused)))
                    continue
                refused.append(f"inputs {sorted(accepted)} together: {w}")
            result.append(Variant(domain, skip="eager refuses every integer input at the int32 edge: "
                                  + "; ".join(refused)))
        else:
            tree = make(domain, inputs, names)
            _, why = _outputs(eager, tree)
            if why:
                result.append(Variant(domain, skip=f"eager refuses these inputs: {why}"))
            else:
                result.append(Variant(domain, tree))
    return result
