"""Programs for tests/e2e/test_exactness.py: copies, views and aliases of inputs and constants,
dim orders, every dtype, precision hints, mutated state and whole programs under --strict
(docs/EXACTNESS.md: the known ways K1-K9 and the contract E1-E7).

These cases are NOT in the zoo's registry: `tests/models/__init__.py` does not import this file,
so tests/e2e/test_zoo.py does not run them (test_exactness.py runs each with its own options,
modes and checks). They live in `CASES`; `register_all()` puts them in the zoo's registry should
the zoo ever want them (importing this file alone registers nothing).

Inputs: besides variant 0 (the export inputs) and variant 1 (another size for the dynamic
dims), every case here has variant 2: the shape of variant 0 with other values, so a static
program's two calls also see different inputs. Every variant holds the values that go wrong
first: -0.0, subnormals (1e-40 in f32), NaN, +-inf, int64 beyond 2**31, uint16 beyond 32767,
values that f16/bf16 would round.
"""
from __future__ import annotations

import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register

CASES: dict[str, ModelCase] = {}

BATCH = (3, 5, 3)  # variant 0, 1 (another size), 2 (variant 0's size, other values)


def _add(case: ModelCase) -> ModelCase:
    if case.name in CASES:
        raise ValueError(f"exactness case {case.name} defined twice")
    CASES[case.name] = case
    return case


def register_all() -> None:
    """Puts every case of this file in the zoo's registry (tests/models/__init__.py)."""
    for case in CASES.values():
        register(case)


def _batch():
    return Dim("batch", min=1, max=16)


# --- tricky values ------------------------------------------------------------------------------
def float_specials(dtype: torch.dtype) -> list[float]:
    """Values reduced precision, flush-to-zero or a 32-bit path would lose."""
    info = torch.finfo(dtype)
    vals = [-0.0, info.tiny / 4, -info.tiny / 4, float("nan"), float("inf"), float("-inf"),
            3.14159265, info.max, info.min, 1.0 / 3.0, info.tiny]
    if dtype in (torch.float32, torch.float64):
        vals += [1e-40, -1e-40, 1e-8, 65519.0, 1.0 + 2.0**-20]  # f16 would flush / overflow / round
    if dtype == torch.float16:
        vals += [2.0**-24, 1.0 + 2.0**-10]  # smallest f16 subnormal; bf16 would round 1 + 2**-10
    if dtype == torch.bfloat16:
        vals += [2.0**-133, 1.0 + 2.0**-7]  # a bf16 subnormal; f16 has no such range
    return vals


def int_specials(dtype: torch.dtype) -> list[int]:
    if dtype == torch.bool:
        return [True, False, True]
    info = torch.iinfo(dtype)
    vals = [info.max, info.min, 0, 1]
    if dtype == torch.int64:
        vals += [2**40 + 7, -(2**40), 2**31, -(2**31) - 1, 2**53 + 1]
    if dtype == torch.uint16:
        vals += [32767, 32768, 40000, 65534]
    if dtype in (torch.int8, torch.int16, torch.int32):
        vals += [-1]
    return vals


def tricky(shape, dtype: torch.dtype, variant: int, seed: int) -> torch.Tensor:
    """Random values of `dtype` with the special values of the dtype written in at an offset
    that depends on the variant (so two calls see them in different places)."""
    g = torch.Generator().manual_seed(seed * 10 + variant)
    if dtype == torch.bool:
        t = torch.rand(shape, generator=g) > 0.5
        specials = torch.tensor(int_specials(dtype), dtype=dtype)
    elif dtype.is_floating_point:
        t = (torch.randn(shape, generator=g) * 4).to(dtype)
        specials = torch.tensor(float_specials(dtype), dtype=torch.float64).to(dtype)
    else:
        hi = 1000 if dtype != torch.uint8 else 200
        lo = 0 if dtype in (torch.uint8, torch.uint16) else -hi
        t = torch.randint(lo, hi, shape, generator=g, dtype=torch.int64).to(dtype)
        specials = torch.tensor(int_specials(dtype), dtype=torch.int64).to(dtype)
    flat = t.reshape(-1)
    k = min(flat.numel(), specials.numel())
    off = variant % max(1, flat.numel() - k + 1)
    flat[off:off + k] = specials[:k]
    return t


def _float_input(seed, n=7):
    def make(variant):
        return (tricky((BATCH[variant], n), torch.float32, variant, seed),)
    return make


# =================================================================================================
# 1. Copies and views of an input (docs/EXACTNESS.md K1)
# =================================================================================================
class CopyAndSin(nn.Module):
    """`y = COPY(x); return y, torch.sin(y)` for one kind of copy."""

    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind

    def forward(self, x):
        if self.kind == "clone":
            y = x.clone()
        elif self.kind == "detach":
            y = x.detach()
        elif self.kind == "full_slice":
            y = x[:, :]
        elif self.kind == "clone_clone":
            y = x.clone().clone()
        else:
            raise ValueError(self.kind)
        return y, torch.sin(y)


for _i, _kind in enumerate(("clone", "detach", "full_slice", "clone_clone")):
    _add(ModelCase(
        name=f"input_{_kind}_and_sin",
        make_module=(lambda k=_kind: CopyAndSin(k).eval()),
        make_inputs=_float_input(100 + _i),
        dynamic_shapes=({0: _batch()},),
        exact_outputs=(0,),
        notes=f"docs/EXACTNESS.md K1: `y = x.{_kind}; return y, torch.sin(y)`: the copy must be bit-exact "
        "and sin must read the right values.",
    ))


class CloneInside(nn.Module):
    def forward(self, x):
        y = x.clone()
        return torch.sin(y)


_add(ModelCase(
    name="input_clone_inside",
    make_module=lambda: CloneInside().eval(),
    make_inputs=_float_input(110),
    dynamic_shapes=({0: _batch()},),
    notes="A copy used only inside a partition: `y = x.clone(); return torch.sin(y)`.",
))


class SameTensorTwice(nn.Module):
    def forward(self, x):
        y = x + 1
        return y, y


_add(ModelCase(
    name="same_tensor_twice",
    make_module=lambda: SameTensorTwice().eval(),
    make_inputs=_float_input(111),
    dynamic_shapes=({0: _batch()},),
    notes="`y = x + 1; return y, y`: one tensor, two results, two equal arrays.",
))


# =================================================================================================
# 2. Copies of constants (docs/EXACTNESS.md K2, K8, E7)
# =================================================================================================
_CONST_VALUES = [3.14159265, 1e-40, -0.0, -1e-40, 1.0 / 3.0, 65519.0, 1e-8]


class ConstCloneAdd(nn.Module):
    """`return self.c.clone(), x + self.c` where c is a buffer, a parameter or a lifted
    constant (a plain tensor attribute)."""

    def __init__(self, kind: str):
        super().__init__()
        value = torch.tensor(_CONST_VALUES, dtype=torch.float32)
        self.kind = kind
        if kind == "buffer":
            self.register_buffer("c", value)
        elif kind == "parameter":
            self.c = nn.Parameter(value)
        elif kind == "constant":
            self.c = value  # lifted by torch.export as a CONSTANT_TENSOR
        else:
            raise ValueError(kind)

    def forward(self, x):
        return self.c.clone(), x + self.c


for _i, _kind in enumerate(("buffer", "parameter", "constant")):
    _add(ModelCase(
        name=f"{_kind}_copy_and_add",
        make_module=(lambda k=_kind: ConstCloneAdd(k).eval()),
        make_inputs=_float_input(120 + _i, n=len(_CONST_VALUES)),
        dynamic_shapes=({0: _batch()},),
        exact_outputs=(0,),
        notes=f"docs/EXACTNESS.md K2: `return self.c.clone(), x + self.c` with c a {_kind} holding "
        "3.14159265, 1e-40, -0.0.",
    ))


class TwoCopiesOfConstant(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.tensor(_CONST_VALUES, dtype=torch.float32))

    def forward(self, x):
        return self.buf.clone(), self.buf.clone(), x + self.buf


_add(ModelCase(
    name="two_copies_of_constant",
    make_module=lambda: TwoCopiesOfConstant().eval(),
    make_inputs=_float_input(123, n=len(_CONST_VALUES)),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0, 1),
    notes="docs/EXACTNESS.md K8: two copies of one constant returned from one program.",
))


def _buffer_4d(seed: int) -> torch.Tensor:
    t = tricky((1, 3, 4, 5), torch.float32, 0, seed)
    return t


class ConstCloneChainChannelsLast(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", _buffer_4d(130))

    def forward(self, x):
        y = self.buf.clone().clone(memory_format=torch.channels_last)
        return y, torch.sin(y), x * 2.0


_add(ModelCase(
    name="constant_clone_chain_channels_last",
    make_module=lambda: ConstCloneChainChannelsLast().eval(),
    make_inputs=_float_input(131, n=3),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0,),
    notes="docs/EXACTNESS.md K8: `y = self.buf.clone().clone(memory_format=torch.channels_last); "
    "return y, torch.sin(y)` with a 4-D buffer (a cycle-prone partition shape).",
))


class ConstReadByCpuAndOv(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", tricky((64, 16), torch.float32, 0, 140))

    def forward(self, x):
        return x * self.buf, x + self.buf, self.buf.clone()


_add(ModelCase(
    name="constant_read_by_cpu_and_ov",
    make_module=lambda: ConstReadByCpuAndOv().eval(),
    make_inputs=lambda v: (tricky((BATCH[v], 64, 16), torch.float32, v, 141),),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(2,),
    notes="E7: one buffer read by aten.mul (forced to the CPU with --cpu-op aten.mul) and by "
    "aten.add on OpenVINO: held once, both readers right.",
))


class ConstOnlyPartition(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", tricky((4, 5), torch.float32, 0, 150))

    def forward(self, x):
        return self.buf * 2 + 1, x.clone()


_add(ModelCase(
    name="constant_only_partition",
    make_module=lambda: ConstOnlyPartition().eval(),
    make_inputs=_float_input(151),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(1,),
    notes="docs/EXACTNESS.md K8: an OpenVINO part that computes only from constants (no inputs): "
    "`return self.buf * 2 + 1, x.clone()`.",
))


# =================================================================================================
# 3. Dim orders (docs/EXACTNESS.md K4, K7, E3)
# =================================================================================================
def _input_4d(seed):
    def make(variant):
        return (tricky((BATCH[variant], 3, 4, 5), torch.float32, variant, seed),)
    return make


class ChannelsLastReturned(nn.Module):
    def forward(self, x):
        y = x.clone(memory_format=torch.channels_last)
        return y, torch.sin(y)


_add(ModelCase(
    name="channels_last_clone_returned",
    make_module=lambda: ChannelsLastReturned().eval(),
    make_inputs=_input_4d(160),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0,),
    notes="docs/EXACTNESS.md K4: `y = x.clone(memory_format=torch.channels_last); return y, sin(y)`.",
))


class ChannelsLastMean(nn.Module):
    def forward(self, x):
        y = x.clone(memory_format=torch.channels_last)
        return y.mean(dim=(2, 3))


_add(ModelCase(
    name="channels_last_clone_mean",
    make_module=lambda: ChannelsLastMean().eval(),
    make_inputs=lambda v: (torch.randn(BATCH[v], 3, 4, 5,
                                       generator=torch.Generator().manual_seed(161 + v)) * 3,),
    dynamic_shapes=({0: _batch()},),
    notes="docs/EXACTNESS.md K4: a channels-last copy reduced inside a partition; run also with "
    "--cpu-op aten.clone so the channels-last tensor crosses a partition edge (E3). Finite "
    "values only: a mean over a NaN would hide a permutation.",
))


class PreserveFormatInput(nn.Module):
    def forward(self, x):
        y = x.clone(memory_format=torch.preserve_format)
        return y, y * 2.0


_add(ModelCase(
    name="preserve_format_clone_input",
    make_module=lambda: PreserveFormatInput().eval(),
    make_inputs=_input_4d(170),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0,),
    notes="docs/EXACTNESS.md K7: `x.clone(memory_format=torch.preserve_format)` of an input.",
))


class PreserveFormatConstants(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", tricky((1, 3, 4, 4), torch.float32, 0, 171)
                             .contiguous(memory_format=torch.channels_last))
        self.register_buffer("c", tricky((1, 3, 4, 4), torch.float32, 1, 172))

    def forward(self, x):
        return (self.b.clone(memory_format=torch.preserve_format),
                self.c.clone(memory_format=torch.preserve_format),
                self.b.clone(memory_format=torch.contiguous_format),
                self.b.clone(),
                x + self.b)


_add(ModelCase(
    name="preserve_format_clone_constants",
    make_module=lambda: PreserveFormatConstants().eval(),
    make_inputs=lambda v: (tricky((BATCH[v], 3, 4, 4), torch.float32, v, 173),),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0, 1, 2, 3),
    notes="docs/EXACTNESS.md K4/K7: preserve_format (and contiguous) clones of a channels_last constant "
    "buffer and of a contiguous one, and the channels_last buffer read by an add.",
))


class PreserveFormatChannelsLastConstant(nn.Module):
    """One copy per constant (two copies of one constant is its own failure, above)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("b", tricky((1, 3, 4, 4), torch.float32, 0, 174)
                             .contiguous(memory_format=torch.channels_last))
        self.register_buffer("c", tricky((1, 3, 4, 4), torch.float32, 1, 175)
                             .contiguous(memory_format=torch.channels_last))

    def forward(self, x):
        return (self.b.clone(memory_format=torch.preserve_format),
                self.c.clone(memory_format=torch.contiguous_format),
                x + self.b)


_add(ModelCase(
    name="preserve_format_clone_channels_last_constant",
    make_module=lambda: PreserveFormatChannelsLastConstant().eval(),
    make_inputs=lambda v: (tricky((BATCH[v], 3, 4, 4), torch.float32, v, 176),),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0, 1),
    notes="docs/EXACTNESS.md K4/K7: a preserve_format copy of a channels_last constant buffer, a "
    "contiguous copy of another, and the first read by an add in OpenVINO.",
))


# =================================================================================================
# 4. Copies of constants in every dtype (E1, E4)
# =================================================================================================
DTYPES = {
    "bool": torch.bool,
    "uint8": torch.uint8,
    "int8": torch.int8,
    "int16": torch.int16,
    "uint16": torch.uint16,
    "int32": torch.int32,
    "int64": torch.int64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}


class ConstCopyOfDtype(nn.Module):
    def __init__(self, dtype: torch.dtype, seed: int):
        super().__init__()
        self.register_buffer("b", tricky((4, 6), dtype, 0, seed))

    def forward(self, x):
        return self.b.clone(), x * 2.0


for _i, (_dname, _dtype) in enumerate(DTYPES.items()):
    _add(ModelCase(
        name=f"constant_copy_{_dname}",
        make_module=(lambda dt=_dtype, s=200 + _i: ConstCopyOfDtype(dt, s).eval()),
        make_inputs=_float_input(220 + _i, n=3),
        dynamic_shapes=({0: _batch()},),
        exact_outputs=(0,),
        notes=f"E1: a {_dname} buffer's copy returned, with the dtype's extremes"
        + (", -0.0, subnormals, NaN, inf." if _dtype.is_floating_point else "."),
    ))


class AllDtypeConstCopies(nn.Module):
    def __init__(self):
        super().__init__()
        for i, (name, dtype) in enumerate(DTYPES.items()):
            self.register_buffer(f"b_{name}", tricky((2, 9), dtype, 0, 240 + i))

    def forward(self, x):
        return tuple(getattr(self, f"b_{name}").clone() for name in DTYPES) + (x + 1.0,)


_add(ModelCase(
    name="constant_copies_all_dtypes",
    make_module=lambda: AllDtypeConstCopies().eval(),
    make_inputs=_float_input(251, n=3),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=tuple(range(len(DTYPES))),
    notes="E1: eleven constants, one of each dtype, copied and returned by one program.",
))


def _int64_input(seed):
    def make(variant):
        return (tricky((BATCH[variant], 6), torch.int64, variant, seed),)
    return make


class Int64Passthrough(nn.Module):
    def forward(self, x):
        return x.clone(), x[:, :]


_add(ModelCase(
    name="int64_passthrough",
    make_module=lambda: Int64Passthrough().eval(),
    make_inputs=_int64_input(260),
    dynamic_shapes=({0: _batch()},),
    expect_exact=True,
    notes="docs/EXACTNESS.md K5, E4: int64 beyond 2**31 (2**40 + 7, -2**40, int64 max/min) copied.",
))


class Int64Compute(nn.Module):
    def forward(self, x):
        return x * 3 + 2**33, x.sum(), x > 2**34


def _int64_compute_input(variant):
    g = torch.Generator().manual_seed(261 + variant)
    x = torch.randint(-2**41, 2**41, (BATCH[variant], 5), generator=g, dtype=torch.int64)
    flat = x.reshape(-1)
    flat[variant:variant + 5] = torch.tensor([2**40 + 7, -(2**40), 2**31, 2**34, 2**34 + 1])
    return (x,)


_add(ModelCase(
    name="int64_compute",
    make_module=lambda: Int64Compute().eval(),
    make_inputs=_int64_compute_input,
    dynamic_shapes=({0: _batch()},),
    notes="docs/EXACTNESS.md K5, E4: `x * 3 + 2**33, x.sum(), x > 2**34` on int64 values up to 2**41.",
))


class Uint16Passthrough(nn.Module):
    def forward(self, x):
        return x.clone(), x.detach()


_add(ModelCase(
    name="uint16_passthrough",
    make_module=lambda: Uint16Passthrough().eval(),
    make_inputs=lambda v: (tricky((BATCH[v], 6), torch.uint16, v, 270),),
    dynamic_shapes=({0: _batch()},),
    expect_exact=True,
    notes="docs/EXACTNESS.md K5: uint16 copies (values 32768, 40000, 65535) failed at run time.",
))


# =================================================================================================
# 5. Precision hints: copies stay bit-exact (docs/EXACTNESS.md K6)
# =================================================================================================
class PrecisionCopies(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b32", torch.tensor([3.14159265, 1e-40, -0.0, 65519.0, 1e-8,
                                                  1.0 + 2.0**-20, -1e-40], dtype=torch.float32))
        self.register_buffer("b16", torch.tensor(float_specials(torch.float16)[:7] + [1.0 + 2.0**-10],
                                                 dtype=torch.float64).to(torch.float16))
        self.register_buffer("bbf", torch.tensor(float_specials(torch.bfloat16)[:7] + [1.0 + 2.0**-7],
                                                 dtype=torch.float64).to(torch.bfloat16))

    def forward(self, x, h):
        return (self.b32.clone(), x.clone(), self.b16.clone(), self.bbf.clone(), h.clone(),
                x + self.b32)


def _precision_inputs(variant):
    x = tricky((BATCH[variant], 7), torch.float32, variant, 280)
    x[0, :3] = torch.tensor([3.14159265, 1e-40, -0.0])
    return (x, tricky((BATCH[variant], 4), torch.float16, variant, 281))


_add(ModelCase(
    name="precision_copies",
    make_module=lambda: PrecisionCopies().eval(),
    make_inputs=_precision_inputs,
    dynamic_shapes=({0: _batch()}, {0: _batch()}),
    exact_outputs=(0, 1, 2, 3, 4),
    notes="docs/EXACTNESS.md K6: copies of f32/f16/bf16 constants and of f32/f16 inputs stay bit-exact "
    "under --precision f16 and bf16 (3.14159265 stays 3.14159265; [1e-40, -0.0] stay).",
))


# =================================================================================================
# 6. Mutated buffers (E2, E6)
# =================================================================================================
class CountAndCopy(nn.Module):
    def __init__(self, start: int, dtype: torch.dtype):
        super().__init__()
        self.register_buffer("count", torch.full((), start, dtype=dtype))

    def forward(self, x):
        self.count.add_(1)
        return self.count.clone(), x + self.count


_add(ModelCase(
    name="mutated_count_copy",
    make_module=lambda: CountAndCopy(0, torch.int64).eval(),
    make_inputs=_float_input(290, n=4),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0,),
    notes="E2/E6: `self.count.add_(1); return self.count.clone(), x + self.count`; the copy "
    "follows the buffer call after call.",
))

_add(ModelCase(
    name="mutated_count_copy_big",
    make_module=lambda: CountAndCopy(2**40, torch.int64).eval(),
    make_inputs=_float_input(291, n=4),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0,),
    notes="E4 with state: an int64 counter starting at 2**40.",
))

_add(ModelCase(
    name="mutated_count_copy_f32",
    make_module=lambda: CountAndCopy(0, torch.float32).eval(),
    make_inputs=_float_input(292, n=4),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0,),
    notes="A float32 counter buffer mutated in place and copied out.",
))


# =================================================================================================
# 7. Whole programs under --strict (docs/EXACTNESS.md K3)
# =================================================================================================
class ReturnClone(nn.Module):
    def forward(self, x):
        return x.clone()


for _i, (_dname, _dtype) in enumerate((("float32", torch.float32), ("int64", torch.int64),
                                       ("bool", torch.bool))):
    _add(ModelCase(
        name=f"strict_clone_{_dname}",
        make_module=lambda: ReturnClone().eval(),
        make_inputs=(lambda v, dt=_dtype, s=300 + _i: (tricky((BATCH[v], 6), dt, v, s),)),
        dynamic_shapes=({0: _batch()},),
        expect_exact=True,
        notes=f"docs/EXACTNESS.md K3: the whole program `return x.clone()` ({_dname}) under --strict.",
    ))


# =================================================================================================
# 8. The smallest programs of the failures these tests found (docs/EXTENDING.md, "Habits": kept forever)
# =================================================================================================
# Before commit 4f76172 ("numeric debug names so one tensor can feed two results") all four, and
# two_copies_of_constant, preserve_format_clone_constants and mutated_count_copy*, stopped at
# load (run and inspect) with "OpenVINO's PyTorch frontend failed: Check 'is_number(name)'
# failed at src/frontends/pytorch/src/translate_session.cpp:434: ... Tensor name is not a
# number: add" (": add:0" after run_decompositions, ": b" for a constant) on OpenVINO 2026.4.1:
# two Results of one partition read one tensor once the frontend turns the copies into nothing
# (docs/EXACTNESS.md, K10: one tensor returned twice). `y = x + 1; return y, y`
# (same_tensor_twice) already ran; adding a copy broke it.
class ResultAndItsCopy(nn.Module):
    def forward(self, x):
        y = x + 1
        return y, y.clone()


_add(ModelCase(
    name="result_and_its_copy",
    make_module=lambda: ResultAndItsCopy().eval(),
    make_inputs=_float_input(400),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(),
    notes="Smallest program of the mutated-buffer-copy failure: `y = x + 1; return y, "
    "y.clone()` (a computed result and its copy both returned) failed to load.",
))


class TwoCopiesOfResult(nn.Module):
    def forward(self, x):
        y = x + 1
        return y.clone(), y.clone()


_add(ModelCase(
    name="two_copies_of_result",
    make_module=lambda: TwoCopiesOfResult().eval(),
    make_inputs=_float_input(401),
    dynamic_shapes=({0: _batch()},),
    notes="`y = x + 1; return y.clone(), y.clone()` failed to load (same cause).",
))


class TwoCopiesOfConstantOnly(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.tensor([3.14159265, 1e-40, -0.0]))

    def forward(self, x):
        return self.buf.clone(), self.buf.clone(), x + 1.0


_add(ModelCase(
    name="two_copies_of_constant_min",
    make_module=lambda: TwoCopiesOfConstantOnly().eval(),
    make_inputs=_float_input(402, n=3),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0, 1),
    notes="Smallest program of the two-copies-of-one-constant failure (docs/EXACTNESS.md K8): `return "
    "self.buf.clone(), self.buf.clone(), x + 1` failed to load ('Tensor name is not a number: "
    "b'); also `self.buf.clone(), self.buf.detach()` and `self.buf.clone(), "
    "self.buf.clone().clone()`.",
))


class MutatedBufferCopy(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x):
        self.count.add_(1)
        return self.count.clone(), x + 1.0


_add(ModelCase(
    name="mutated_buffer_copy_min",
    make_module=lambda: MutatedBufferCopy().eval(),
    make_inputs=_float_input(403, n=3),
    dynamic_shapes=({0: _batch()},),
    exact_outputs=(0,),
    notes="Smallest stateful program of the failure: `self.count.add_(1); return "
    "self.count.clone(), x + 1` (the new buffer value is a result, for the mutation, and its "
    "copy is another) failed to load ('Tensor name is not a number: add').",
))
