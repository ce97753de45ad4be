"""The state conformance matrix: buffers mutated the ways people write it, over ranks, dtypes,
archive forms and placements (tests/e2e/test_state_matrix.py runs it; `make test-state` runs
every cell, `make test` the cells marked fast).

A pattern is a module factory over one buffer's (dtype, shape) and an input maker per call;
each cell is (pattern, dtype, rank) x (exported | decomposed) x (openvino | cpu | split), run
for 4 calls on one load and compared bit-exact with eager called the same way. Inputs are
small integers (also in float dtypes), so every computed value is exact in every dtype and
any difference is a bug, not rounding.

These cases are not in the zoo's registry (they would multiply tests/e2e/test_zoo.py); they
have their own, `CELLS`.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import torch
from torch import nn

from . import ModelCase

CALLS = 4

# Buffer shapes by rank name; "4cl" is rank 4 held channels-last.
SHAPES = {"0": (), "1": (6,), "2": (3, 4), "4": (2, 3, 2, 2), "4cl": (2, 3, 2, 2)}
DTYPES = {
    "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "int64": torch.int64, "int32": torch.int32, "bool": torch.bool,
}
FLOATS = ("float32", "float16", "bfloat16")
NUMERIC = FLOATS + ("int64", "int32")
ALL_DTYPES = NUMERIC + ("bool",)


def _buffer(rank: str, dtype: torch.dtype, fill: int = 1) -> torch.Tensor:
    t = torch.full(SHAPES[rank], fill, dtype=torch.int64).to(dtype)
    if rank == "4cl":
        t = t.contiguous(memory_format=torch.channels_last)
    return t


def _values(shape, dtype: torch.dtype, seed: int, low: int = -3, high: int = 4) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    return torch.randint(low, high, shape, generator=g).to(dtype)


class _StateModule(nn.Module):
    def __init__(self, rank: str, dtype: torch.dtype, fill: int = 1):
        super().__init__()
        self.register_buffer("b", _buffer(rank, dtype, fill))


# --- the patterns -------------------------------------------------------------------------------
class IAdd(_StateModule):
    def forward(self, x):
        self.b += x
        return self.b.clone()


class MulInPlace(_StateModule):
    def forward(self, x):
        self.b.mul_(x)
        return self.b.clone()


class ClampInPlace(_StateModule):
    def forward(self, x):
        self.b += x
        self.b.clamp_(-2, 3)
        return self.b.clone()


class CopyComputed(_StateModule):
    def forward(self, x):
        prev = self.b.clone()
        self.b.copy_(x * 2 + 1)
        return prev, self.b.clone()


class CopyBool(_StateModule):
    def forward(self, x):
        prev = self.b.clone()
        self.b.copy_(x & ~prev)
        return prev, self.b.clone()


class OrInPlace(_StateModule):
    def forward(self, x):
        self.b |= x
        return self.b.clone()


class FillFromInput(_StateModule):
    def forward(self, x):
        out = self.b + x if self.b.dtype != torch.bool else self.b ^ x
        self.b.fill_(x.max())
        return out, self.b.clone()


class ZeroThenAdd(_StateModule):
    def forward(self, x):
        prev = self.b.clone()
        self.b.zero_()
        self.b += x
        return prev, self.b.clone()


class IndexPutTensor(_StateModule):
    """self.b[idx] = v, idx a tensor input (indices into dim 0)."""

    def forward(self, x, idx):
        self.b[idx] = x[idx]
        return self.b.clone()


class IndexPutInt(_StateModule):
    """self.b[1] = v: a write through select."""

    def forward(self, x):
        self.b[1] = x[1]
        return self.b.clone()


class SelectAdd(_StateModule):
    def forward(self, x):
        self.b.select(0, 0).add_(x[0])
        return self.b.clone()


class SliceAdd(_StateModule):
    def forward(self, x):
        self.b[:, 1:3] += x[:, 1:3]
        return self.b.clone()


class NarrowMul(_StateModule):
    def forward(self, x):
        self.b.narrow(0, 1, 1).mul_(x.narrow(0, 1, 1))
        self.b += 1
        return self.b.clone()


class ViewAdd(_StateModule):
    def forward(self, x):
        self.b.view(-1)[1:3] += x.reshape(-1)[1:3]
        return self.b.clone()


class RingRoll(_StateModule):
    """The newest row in front, the oldest dropped: roll then write row 0."""

    def forward(self, x):
        self.b.copy_(torch.roll(self.b, 1, 0))
        self.b[0] = x[0]
        return self.b.clone()


class RingStep(nn.Module):
    """A ring written at step % n with index_copy_, the step a counter buffer."""

    def __init__(self, rank: str, dtype: torch.dtype):
        super().__init__()
        self.register_buffer("b", _buffer(rank, dtype, 0))
        self.register_buffer("step", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        n = self.b.shape[0]
        pos = torch.remainder(self.step, n).reshape(1)
        self.b.index_copy_(0, pos, x[:1])
        self.step += 1
        return self.b.clone(), self.step.clone()


class KVIndexCopy(_StateModule):
    """A KV cache (dim 0 is the sequence) written at a position input with index_copy_."""

    def forward(self, kv, pos):
        self.b.index_copy_(0, pos, kv)
        return self.b.clone(), self.b.sum(0) if self.b.dtype != torch.bool else self.b.any(0)


class KVIndexPut(_StateModule):
    """The same cache written with self.b[pos] = kv."""

    def forward(self, kv, pos):
        self.b[pos] = kv
        return self.b.clone()


class KVSliceScatter(_StateModule):
    """The cache rebuilt with slice_scatter at a fixed position, shifted each call."""

    def forward(self, kv):
        shifted = torch.roll(self.b, -1, 0)
        self.b.copy_(torch.slice_scatter(shifted, kv, 0, self.b.shape[0] - 1, self.b.shape[0]))
        return self.b.clone()


class TwoMutations(_StateModule):
    def forward(self, x):
        self.b.add_(x)
        self.b.mul_(2)
        return self.b.clone()


class ReadAfterMutation(_StateModule):
    def forward(self, x):
        before = self.b * 3
        self.b.add_(x)
        after = self.b * 3
        return before, after


class Chained(nn.Module):
    """Two buffers: a is updated from the input, then b from the new a."""

    def __init__(self, rank: str, dtype: torch.dtype):
        super().__init__()
        self.register_buffer("a", _buffer(rank, dtype, 1))
        self.register_buffer("b", _buffer(rank, dtype, 2))

    def forward(self, x):
        self.a.add_(x)
        self.b.add_(self.a)
        return self.a.clone(), self.b.clone()


class CopyOther(nn.Module):
    """b takes a's new value with copy_ (one buffer's state feeds another's)."""

    def __init__(self, rank: str, dtype: torch.dtype):
        super().__init__()
        self.register_buffer("a", _buffer(rank, dtype, 1))
        self.register_buffer("b", _buffer(rank, dtype, 0))

    def forward(self, x):
        prev = self.b.clone()
        self.b.copy_(self.a)
        self.a.add_(x)
        return prev, self.a.clone(), self.b.clone()


class ConditionalShape(_StateModule):
    """Mutated only when a shape condition holds (fixed at export: data-independent)."""

    def forward(self, x):
        if x.dim() > 0 and x.shape[0] > 100:
            self.b.add_(100)
        else:
            self.b.add_(x)
        return self.b.clone()


class EveryOtherCall(nn.Module):
    """Updated on even calls only, by torch.where on a step counter."""

    def __init__(self, rank: str, dtype: torch.dtype):
        super().__init__()
        self.register_buffer("b", _buffer(rank, dtype, 1))
        self.register_buffer("step", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        even = torch.remainder(self.step, 2) == 0
        self.b.copy_(torch.where(even, self.b + x, self.b))
        self.step.add_(1)
        return self.b.clone()


class CopyBroadcast(_StateModule):
    """copy_ from a tensor of another dtype (float64) and, but for rank 0, another shape
    (a 0-d sum broadcast over the buffer)."""

    def forward(self, x):
        self.b.copy_(x.sum().to(torch.float64) + self.b)
        return self.b.clone()


# --- the patterns' inputs -----------------------------------------------------------------------
def _same(shape, dtype, call):
    return (_values(shape, dtype, 1000 + call),)


def _positive(shape, dtype, call):  # for mul_: values in {-1, 1, 2}, no growth beyond 2**4
    g = torch.Generator().manual_seed(2000 + call)
    return (torch.tensor([-1, 1, 2])[torch.randint(0, 3, shape, generator=g)].to(dtype),)


def _with_index(shape, dtype, call):
    g = torch.Generator().manual_seed(3000 + call)
    idx = torch.randperm(shape[0], generator=g)[:2]
    return (_values(shape, dtype, 1100 + call), idx)


def _kv(shape, dtype, call):
    pos = torch.tensor([call % shape[0]])
    return (_values((1,) + shape[1:], dtype, 1200 + call), pos)


def _kv_row(shape, dtype, call):
    return (_values((1,) + shape[1:], dtype, 1300 + call),)


@dataclasses.dataclass(frozen=True)
class Pattern:
    name: str
    module: Callable  # (rank, dtype) -> nn.Module
    inputs: Callable  # (buffer shape, dtype, call) -> tuple
    ranks: tuple      # the ranks it applies to
    dtypes: tuple     # the dtypes it applies to (float32 always runs over every rank)
    cpu_ops: tuple    # the mutating ops, as exported and decomposed name them (--cpu-op)
    split_ops: tuple = ()  # a part of cpu_ops: the mutation split between CPU and OpenVINO


ALL_RANKS = ("0", "1", "2", "4", "4cl")
R1 = ("1", "2", "4", "4cl")
R2 = ("2", "4", "4cl")

PATTERNS = [
    Pattern("iadd", IAdd, _same, ALL_RANKS, NUMERIC, ("aten.add_", "aten.add")),
    Pattern("mul", MulInPlace, _positive, ALL_RANKS, NUMERIC, ("aten.mul_", "aten.mul")),
    Pattern("clamp", ClampInPlace, _same, ALL_RANKS, NUMERIC, ("aten.add_", "aten.add", "aten.clamp_", "aten.clamp"),
            ("aten.clamp_", "aten.clamp")),
    Pattern("copy", CopyComputed, _same, ALL_RANKS, NUMERIC, ("aten.copy_", "aten.copy", "aten.add", "aten.mul")),
    Pattern("copy_bool", CopyBool, _same, ALL_RANKS, ("bool",), ("aten.copy_", "aten.bitwise_and", "aten.bitwise_not")),
    Pattern("or", OrInPlace, _same, ALL_RANKS, ("bool", "int64", "int32"), ("aten.bitwise_or_", "aten.bitwise_or")),
    Pattern("fill", FillFromInput, _same, ALL_RANKS, ALL_DTYPES, ("aten.fill_", "aten.fill")),
    Pattern("zero", ZeroThenAdd, _same, ALL_RANKS, NUMERIC, ("aten.zero_", "aten.zero", "aten.add_", "aten.add"),
            ("aten.zero_", "aten.zero")),
    Pattern("index_put", IndexPutTensor, _with_index, R1, ALL_DTYPES, ("aten.index_put_", "aten.index_put")),
    Pattern("setitem_int", IndexPutInt, _same, R1, ALL_DTYPES, ("aten.copy_", "aten.select_scatter", "aten.select")),
    Pattern("select_add", SelectAdd, _same, R1, NUMERIC, ("aten.add_", "aten.add", "aten.select_scatter")),
    Pattern("slice_add", SliceAdd, _same, R2, NUMERIC, ("aten.add_", "aten.add", "aten.slice_scatter")),
    Pattern("narrow_mul", NarrowMul, _positive, R1, NUMERIC, ("aten.mul_", "aten.mul", "aten.add_", "aten.add"),
            ("aten.mul_", "aten.mul")),
    Pattern("view_add", ViewAdd, _same, ("1", "2", "4"), NUMERIC, ("aten.add_", "aten.add")),  # view(-1): not of channels-last
    Pattern("ring_roll", RingRoll, _same, R1, NUMERIC, ("aten.roll", "aten.copy_", "aten.select_scatter")),
    Pattern("ring_step", RingStep, _same, R1, NUMERIC, ("aten.index_copy_", "aten.index_copy", "aten.add_", "aten.add"),
            ("aten.add_", "aten.add")),
    Pattern("kv_index_copy", KVIndexCopy, _kv, R1, NUMERIC, ("aten.index_copy_", "aten.index_copy")),
    Pattern("kv_index_put", KVIndexPut, _kv, R1, ALL_DTYPES, ("aten.index_put_", "aten.index_put")),
    Pattern("kv_slice_scatter", KVSliceScatter, _kv_row, R1, NUMERIC, ("aten.slice_scatter", "aten.roll", "aten.copy_")),
    Pattern("two_mutations", TwoMutations, _same, ALL_RANKS, NUMERIC, ("aten.add_", "aten.add", "aten.mul_", "aten.mul"),
            ("aten.mul_", "aten.mul")),
    Pattern("read_after", ReadAfterMutation, _same, ALL_RANKS, NUMERIC, ("aten.add_", "aten.add")),
    Pattern("chained", Chained, _same, ALL_RANKS, NUMERIC, ("aten.add_", "aten.add")),
    Pattern("copy_other", CopyOther, _same, ALL_RANKS, NUMERIC, ("aten.copy_", "aten.add_", "aten.add"),
            ("aten.add_", "aten.add")),
    Pattern("conditional", ConditionalShape, _same, ALL_RANKS, ("float32", "int64"), ("aten.add_", "aten.add")),
    Pattern("every_other", EveryOtherCall, _same, ALL_RANKS, NUMERIC, ("aten.where", "aten.copy_", "aten.add_", "aten.add"),
            ("aten.where",)),
    Pattern("copy_broadcast", CopyBroadcast, lambda s, d, c: _same((3,) + s, torch.int32, c), ALL_RANKS, ("float32", "float16"),
            ("aten.copy_", "aten.sum", "aten._to_copy", "aten.expand")),
]
PATTERN_BY_NAME = {p.name: p for p in PATTERNS}

FORMS = ("exported", "decomposed")
PLACEMENTS = ("openvino", "cpu", "split")


def _dtype_ranks(pattern: Pattern, dtype: str) -> tuple:
    """float32 over every rank the pattern applies to; other dtypes over two ranks (the
    smallest and a rank-2 or rank-1 one)."""
    if dtype == "float32":
        return pattern.ranks
    picks = [r for r in ("0", "2") if r in pattern.ranks] or list(pattern.ranks[:2])
    if "0" not in pattern.ranks and "1" in pattern.ranks:
        picks = ["1", "2"]
    return tuple(dict.fromkeys(picks))


@dataclasses.dataclass(frozen=True)
class Cell:
    pattern: str
    dtype: str
    rank: str
    form: str
    placement: str

    @property
    def program(self) -> str:  # the exported program's key: one export per (pattern, dtype, rank)
        return f"{self.pattern}-{self.dtype}-r{self.rank}"

    @property
    def id(self) -> str:
        return f"{self.program}-{self.form}-{self.placement}"

    def cpu_options(self) -> list[str]:
        p = PATTERN_BY_NAME[self.pattern]
        ops = {"openvino": (), "cpu": p.cpu_ops, "split": p.split_ops}[self.placement]
        return [a for op in ops for a in ("--cpu-op", op)]


def _cells() -> list[Cell]:
    cells = []
    for p in PATTERNS:
        for dtype in p.dtypes:
            for rank in _dtype_ranks(p, dtype):
                for form in FORMS:
                    for placement in PLACEMENTS:
                        if placement == "split" and not p.split_ops:
                            continue
                        # CPU and split placements: float32 on its first rank and channels-last,
                        # other dtypes on their first rank
                        keep = {_dtype_ranks(p, dtype)[0]} | ({"4cl"} if dtype == "float32" else set())
                        if placement != "openvino" and rank not in keep:
                            continue
                        cells.append(Cell(p.name, dtype, rank, form, placement))
    return cells


CELLS = _cells()

# The slice `make test` runs: every pattern once (float32, its first rank, both forms, on
# OpenVINO), the 0-d counter shapes in every dtype, and each placement on a few patterns.
FAST = {
    c.id for c in CELLS
    if (c.dtype == "float32" and c.rank == PATTERN_BY_NAME[c.pattern].ranks[0] and c.placement == "openvino")
    or (c.pattern == "iadd" and c.rank == "0" and c.placement == "openvino")
    or (c.pattern in ("iadd", "two_mutations", "kv_index_copy") and c.dtype == "float32" and c.rank in ("0", "1")
        and c.form == "exported")
}


def case_for(program: str) -> ModelCase:
    """The ModelCase of one exported program of the matrix (`pattern-dtype-rR`)."""
    pattern_name, dtype_name, rank = program.rsplit("-", 2)
    pattern, dtype, rank = PATTERN_BY_NAME[pattern_name], DTYPES[dtype_name], rank[1:]
    shape = SHAPES[rank]
    return ModelCase(
        name=program,
        make_module=lambda: pattern.module(rank, dtype).eval(),
        make_inputs=lambda call: pattern.inputs(shape, dtype, call),
        expect_exact=True,
        notes=f"state matrix: {pattern_name} on a {dtype_name} buffer of shape {shape}",
    )


# {"glob over cell ids": "why pt2ov refuses it"}.
# As exported, the mutating op forced off OpenVINO has no CPU kernel; after
# run_decompositions() some of these ops are spelled otherwise (zero_ as zeros_like, index_copy
# as index_put, ...), so --cpu-op of the exported name moves nothing and the cell runs.
REFUSED: dict[str, str] = {
    "view_add-*-exported-*": "an in-place write into a view of a view (b.view(-1)[1:3] += ...) as exported; "
                             "the decomposed form runs",
    # torch 2.13's run_decompositions() makes a program that contradicts its own signature:
    # fill_(0-d tensor) on a buffer loses the expand (the new value is 0-d), copy_ from float64
    # into a 0-d float buffer loses the conversion; the decomposed program run by torch itself
    # returns other shapes or dtypes than eager. pt2ov refuses such a buffer mutation.
    "fill-*-r[124]*-decomposed-*": "run_decompositions() gives the buffer a 0-d new value",
    "copy_broadcast-*-r0-decomposed-*": "run_decompositions() gives the buffer a float64 new value",
}
