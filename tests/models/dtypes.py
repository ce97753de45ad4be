"""Programs computing in dtypes other than float32: f16, bf16, int64 beyond 32 bits."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register

BATCH = (2, 5)


def _batch_dim():
    return Dim("batch", min=1, max=16)


# ---------------------------------------------------------------------------------------------
class HalfCompute(nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.lin = nn.Linear(8, 8).to(dtype)
        self.register_buffer("bias2", torch.randn(8).to(dtype))

    def forward(self, x):
        y = torch.relu(self.lin(x)) + self.bias2
        return y, torch.sin(x) * 0.5 + x, y.sum(dim=-1), x.clone()


def _make_f16():
    torch.manual_seed(40)
    return HalfCompute(torch.float16).eval()


def _f16_inputs(variant):
    torch.manual_seed(700 + variant)
    return (torch.randn(BATCH[variant], 8).to(torch.float16),)


register(
    ModelCase(
        name="f16_compute",
        make_module=_make_f16,
        make_inputs=_f16_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        rtol=5e-3,
        atol=5e-3,
        why="float16 has an 11-bit significand (eps 9.8e-4). PyTorch eager rounds every op's "
        "result to f16 while OpenVINO may keep intermediates in f32 and round once, so results "
        "differ by a few f16 ulps.",
        exact_outputs=(3,),
        notes="f16 inputs, weights and outputs; the copy of the input is still bit-exact.",
    )
)


# ---------------------------------------------------------------------------------------------
def _make_bf16():
    torch.manual_seed(41)
    return HalfCompute(torch.bfloat16).eval()


def _bf16_inputs(variant):
    torch.manual_seed(710 + variant)
    return (torch.randn(BATCH[variant], 8).to(torch.bfloat16),)


register(
    ModelCase(
        name="bf16_compute",
        make_module=_make_bf16,
        make_inputs=_bf16_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        rtol=4e-2,
        atol=4e-2,
        why="bfloat16 has an 8-bit significand (eps 7.8e-3); eager rounds after every op, "
        "OpenVINO may round once, so results differ by a few bf16 ulps.",
        exact_outputs=(3,),
        notes="bf16 inputs and outputs travel through .npz as float32 (exact).",
    )
)


# ---------------------------------------------------------------------------------------------
class Int64Big(nn.Module):
    def forward(self, idx):
        big = idx * 3 + 2**33
        return (
            big,
            big - idx,
            big.sum(dim=-1),
            big > 2**34,
            torch.div(big, 7, rounding_mode="floor"),
            big.amax(dim=0),
        )


def _int64_inputs(variant):
    torch.manual_seed(720 + variant)
    idx = torch.randint(-1000, 1000, (BATCH[variant], 4), dtype=torch.int64)
    idx[0, 0] = 2**32 + 1  # beyond 32 bits already on input
    idx[-1, -1] = -(2**31) - 5
    return (idx,)


register(
    ModelCase(
        name="int64_big",
        make_module=lambda: Int64Big().eval(),
        make_inputs=_int64_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        expect_exact=True,
        notes="`idx * 3 + 2**33` and friends: int64 values beyond 2**31 (docs/EXACTNESS.md K5, E4). "
        "Either exact or a clear error naming the tensor; never truncated.",
    )
)
