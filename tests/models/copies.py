"""Copies and views returned as outputs (docs/EXACTNESS.md K1, K3, K4, E1). OpenVINO's frontend turns
copies into nothing, so a partition can return its own input; every output here that is a copy
or view of an input must come back bit-exact, -0.0 and subnormals included."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register

BATCH = (3, 5)


def _batch_dim():
    return Dim("batch", min=1, max=16)


def special_floats(b: int, n: int, dtype=torch.float32) -> torch.Tensor:
    """Random values with the ones that reduced precision or flush-to-zero would lose:
    -0.0, a subnormal, the largest finite, inf and nan."""
    x = torch.randn(b, n).to(dtype)
    tiny = torch.finfo(dtype).tiny  # smallest normal; tiny / 4 is subnormal
    specials = torch.tensor([-0.0, tiny / 4, -tiny / 4, torch.finfo(dtype).max, float("inf"),
                             float("nan"), 1.0 / 3.0], dtype=dtype)
    flat = x.reshape(-1)
    k = min(flat.numel(), specials.numel())
    flat[:k] = specials[:k]
    return x


# ---------------------------------------------------------------------------------------------
class CloneAndSin(nn.Module):
    def forward(self, x):
        return x.clone(), torch.sin(x.clone()), x * 3.0


def _clone_inputs(variant):
    torch.manual_seed(600 + variant)
    return (special_floats(BATCH[variant], 4),)


register(
    ModelCase(
        name="clone_and_sin",
        make_module=lambda: CloneAndSin().eval(),
        make_inputs=_clone_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(0,),
        notes="`return x.clone(), torch.sin(x.clone())`: a partition returning its own input "
        "(docs/EXACTNESS.md K1); x is read again afterwards so an overwritten input shows.",
    )
)


# ---------------------------------------------------------------------------------------------
class SameDtypeConversions(nn.Module):
    """`.to()` its own dtype, returned, beside a computed result: OpenVINO's compile folds the
    no-op Convert, so the result is the step's input; left in the compiled model, the CPU plugin
    kept the first call's input memory as that output's and wrote every later call's input into
    it (the caller's earlier arrays overwritten; a freed intermediate's memory corrupted the heap
    in Qwen3-MoE's routing, whose `.to(hidden_states.dtype)` is one)."""

    def forward(self, x):
        routed = torch.sort(x, dim=-1).values  # a CPU step's output entering the next OpenVINO step
        return x.to(torch.float32), torch.sin(x), routed.to(torch.float32), routed.cumsum(-1)


register(
    ModelCase(
        name="same_dtype_conversions",
        make_module=lambda: SameDtypeConversions().eval(),
        make_inputs=_clone_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(0, 2),
        notes="`x.to(x.dtype)` returned beside `sin(x)`, with a dynamic batch: compiled into a "
        "result that is its input (openvino_facts CompiledResultFoldedIntoInput); kept in the "
        "model, the plugin wrote each call's input into the previous call's input memory.",
    )
)


# ---------------------------------------------------------------------------------------------
class CloneShared(nn.Module):
    def forward(self, x):
        y = x.clone()
        z = x.clone().clone()
        return y, torch.sin(y), z, torch.cos(z)


register(
    ModelCase(
        name="clone_shared",
        make_module=lambda: CloneShared().eval(),
        make_inputs=_clone_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(0, 2),
        notes="docs/EXACTNESS.md K1: `y = x.clone(); return y, torch.sin(y)`, and a chain "
        "x.clone().clone().",
    )
)


# ---------------------------------------------------------------------------------------------
class SameResultTwice(nn.Module):
    def forward(self, x):
        y = x + 1.0
        return y, y, x


register(
    ModelCase(
        name="same_result_twice",
        make_module=lambda: SameResultTwice().eval(),
        make_inputs=_clone_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(2,),
        notes="`y = x + 1; return y, y, x`: two results share one tensor, one result is the "
        "input itself.",
    )
)


# ---------------------------------------------------------------------------------------------
class ViewsOfInput(nn.Module):
    def forward(self, x):
        return x.detach(), x[:, :], x.transpose(0, 1), x[:, 1:3], x.unsqueeze(0), x * 2.0


register(
    ModelCase(
        name="views_of_input",
        make_module=lambda: ViewsOfInput().eval(),
        make_inputs=_clone_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(0, 1, 2, 3, 4),
        notes="detach, a full slice (both alias_copy after decomposition), a transpose, a "
        "narrowing slice and an unsqueeze, each returned.",
    )
)


# ---------------------------------------------------------------------------------------------
class ChannelsLastClone(nn.Module):
    def forward(self, x):
        y = x.clone(memory_format=torch.channels_last)
        return y, y.mean(dim=(2, 3)), x.permute(0, 2, 3, 1) + 0.0


def _channels_last_inputs(variant):
    torch.manual_seed(610 + variant)
    return (torch.randn(BATCH[variant], 3, 4, 5),)


register(
    ModelCase(
        name="channels_last_clone",
        make_module=lambda: ChannelsLastClone().eval(),
        make_inputs=_channels_last_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(0, 2),
        notes="docs/EXACTNESS.md K4: a channels-last copy returned and read by a mean over (2, 3).",
    )
)


# ---------------------------------------------------------------------------------------------
_DTYPES = (
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.uint16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
)


class DtypeCopies(nn.Module):
    def forward(self, b, u8, i8, i16, u16, i32, i64, f16, bf16, f32, f64):
        return tuple(x.clone() for x in (b, u8, i8, i16, u16, i32, i64, f16, bf16, f32, f64))


def _dtype_copies_inputs(variant):
    torch.manual_seed(620 + variant)
    b = BATCH[variant]
    out = []
    for dt in _DTYPES:
        if dt == torch.bool:
            out.append(torch.rand(b, 3) > 0.5)
        elif dt.is_floating_point:
            out.append(special_floats(b, 3, dt))
        else:
            info = torch.iinfo(dt)
            v = torch.randint(0, 1000, (b, 3), dtype=torch.int64).to(dt)
            v[0, 0] = info.max
            v[0, 1] = info.min
            if dt == torch.int64:
                v[0, 2] = 2**40 + 7
            out.append(v)
    return tuple(out)


_dc_batch = Dim("batch", min=1, max=16)
register(
    ModelCase(
        name="dtype_copies",
        make_module=lambda: DtypeCopies().eval(),
        make_inputs=_dtype_copies_inputs,
        dynamic_shapes=tuple({0: _dc_batch} for _ in _DTYPES),
        expect_exact=True,
        notes="x.clone() of every dtype (bool, u8, i8, i16, u16, i32, i64, f16, bf16, f32, "
        "f64) with their extreme values: E1, E4 (int64 beyond 32 bits).",
    )
)
