"""Plain tensor programs: MLPs, shape ops, reductions, arithmetic, masks, several outputs."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register

# Batch sizes per input variant: 0 is the export size, 1 another size inside the range.
BATCH = (2, 5)


def _batch_dim():
    return Dim("batch", min=1, max=16)


# ---------------------------------------------------------------------------------------------
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 8)
        )

    def forward(self, features):
        return self.net(features)


def _make_mlp():
    torch.manual_seed(0)
    return MLP().eval()


def _mlp_inputs(variant):
    torch.manual_seed(100 + variant)
    return (torch.randn(BATCH[variant], 16),)


register(
    ModelCase(
        name="mlp",
        make_module=_make_mlp,
        make_inputs=_mlp_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="Linear/ReLU stack; its input is named `features` (tests/e2e/test_errors.py uses it).",
    )
)


# ---------------------------------------------------------------------------------------------
class MultiOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, x):
        h = self.proj(x)
        return h, h.sum(dim=-1), torch.sigmoid(h) * 2.0, h.argmax(dim=-1), x.abs().max()


def _make_multi_output():
    torch.manual_seed(1)
    return MultiOutput().eval()


def _multi_output_inputs(variant):
    torch.manual_seed(110 + variant)
    return (torch.randn(BATCH[variant], 8),)


register(
    ModelCase(
        name="multi_output",
        make_module=_make_multi_output,
        make_inputs=_multi_output_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="Five outputs of different shapes and dtypes (f32 2-D, 1-D, int64, 0-d).",
    )
)


# ---------------------------------------------------------------------------------------------
class ParamsAndBuffers(nn.Module):
    """A parameter, a persistent buffer, a non-persistent buffer and a lifted tensor constant."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.rand(12) + 0.5)
        self.lin = nn.Linear(12, 12)
        self.register_buffer("offset", torch.randn(12))
        self.register_buffer("gate", (torch.rand(12) > 0.3).float(), persistent=False)
        self.table = torch.linspace(-1.0, 1.0, 12)  # a plain attribute: a lifted constant

    def forward(self, x):
        y = self.lin(x * self.scale + self.offset)
        return y * self.gate + self.table


def _make_params_and_buffers():
    torch.manual_seed(2)
    return ParamsAndBuffers().eval()


def _params_and_buffers_inputs(variant):
    torch.manual_seed(120 + variant)
    return (torch.randn(BATCH[variant], 12),)


register(
    ModelCase(
        name="params_and_buffers",
        make_module=_make_params_and_buffers,
        make_inputs=_params_and_buffers_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="Every kind of constant: PARAMETER, BUFFER (persistent and not), CONSTANT_TENSOR.",
    )
)


# ---------------------------------------------------------------------------------------------
class ParamCopy(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(6, 4))

    def forward(self, x):
        return self.weight.clone(), x @ self.weight


def _make_param_copy():
    torch.manual_seed(3)
    return ParamCopy().eval()


def _param_copy_inputs(variant):
    torch.manual_seed(130 + variant)
    return (torch.randn(BATCH[variant], 6),)


register(
    ModelCase(
        name="param_copy",
        make_module=_make_param_copy,
        make_inputs=_param_copy_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(0,),
        notes="A returned copy of a parameter (docs/EXACTNESS.md K2): a Constant feeding a Result.",
    )
)


# ---------------------------------------------------------------------------------------------
class ShapeOps(nn.Module):
    def forward(self, x, y):
        # x: [B, 4, 6], y: [B, 4, 6]
        b = x.shape[0]
        flat = x.reshape(b, -1)  # [B, 24]
        perm = x.permute(0, 2, 1)  # [B, 6, 4]
        sliced = x[:, 1:3, ::2]  # [B, 2, 3]
        tail = y[:, -1]  # [B, 6]
        cat = torch.cat([x, y * 2.0], dim=1)  # [B, 8, 6]
        stacked = torch.stack([x, y], dim=1)  # [B, 2, 4, 6]
        a, c = torch.split(y, [1, 3], dim=1)
        unsq = tail.unsqueeze(1).expand(b, 3, 6) + 1.0
        return flat + 0.5, perm * 1.5, sliced - 1.0, cat, stacked.sum(dim=2), a + c.mean(1, True), unsq


def _shape_ops_inputs(variant):
    torch.manual_seed(140 + variant)
    b = BATCH[variant]
    return (torch.randn(b, 4, 6), torch.randn(b, 4, 6))


_shape_batch = Dim("batch", min=1, max=16)
register(
    ModelCase(
        name="shape_ops",
        make_module=lambda: ShapeOps().eval(),
        make_inputs=_shape_ops_inputs,
        dynamic_shapes=({0: _shape_batch}, {0: _shape_batch}),
        notes="reshape, permute, slice with step, negative index, cat, stack, split, expand.",
    )
)


# ---------------------------------------------------------------------------------------------
class Reductions(nn.Module):
    def forward(self, x):
        # x: [B, 5, 7]; values near 1 so prod stays well conditioned
        return (
            x.sum(dim=1),
            x.mean(dim=(1, 2), keepdim=True),
            x.amax(dim=-1),
            x.amin(dim=(0, 2)),
            x.prod(dim=2, keepdim=True),
            x.sum(),
            x.max(dim=1).values,
            x.min(dim=1).indices,
            x.std(dim=2),
        )


def _reductions_inputs(variant):
    torch.manual_seed(150 + variant)
    return (1.0 + 0.2 * torch.randn(BATCH[variant], 5, 7),)


register(
    ModelCase(
        name="reductions",
        make_module=lambda: Reductions().eval(),
        make_inputs=_reductions_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="sum/mean/amax/amin/prod over one and several dims, keepdim, full sum, max/min "
        "with indices, std.",
    )
)


# ---------------------------------------------------------------------------------------------
class BroadcastArith(nn.Module):
    def forward(self, x, i, row):
        # x: f32 [B, 4], i: int64 [B, 4], row: f32 [4]
        mixed = x + i  # int64 promoted to float
        scaled = i * 3 - 7  # stays int64
        true_div = i / 4  # int / int -> float
        floor_div = torch.div(i, 3, rounding_mode="floor")
        rem = torch.remainder(i, 5)
        bcast = x * row - row.unsqueeze(0) / 2.0  # [B, 4] with [4]
        col = x.sum(dim=1, keepdim=True)  # [B, 1] broadcast back against [B, 4]
        return mixed, scaled, true_div, floor_div, rem, bcast, x - col, x * 2 + 1, torch.pow(x, 2)


def _broadcast_inputs(variant):
    torch.manual_seed(160 + variant)
    b = BATCH[variant]
    return (torch.randn(b, 4), torch.randint(-50, 50, (b, 4)), torch.randn(4))


_bc_batch = Dim("batch", min=1, max=16)
register(
    ModelCase(
        name="broadcast_arith",
        make_module=lambda: BroadcastArith().eval(),
        make_inputs=_broadcast_inputs,
        dynamic_shapes=({0: _bc_batch}, {0: _bc_batch}, None),
        notes="Broadcasting and int/float mixing: promotion, true and floor division of "
        "negative ints, remainder, python scalars.",
    )
)


# ---------------------------------------------------------------------------------------------
class WhereMaskedFill(nn.Module):
    def forward(self, x, y, mask):
        a = torch.where(x > 0, x, y)
        b = x.masked_fill(mask, -1e9)
        c = torch.where(mask, x, 0.0)
        d = torch.softmax(x.masked_fill(~mask, float("-inf")), dim=-1)
        return a, b, c, d


def _where_inputs(variant):
    torch.manual_seed(170 + variant)
    b = BATCH[variant]
    mask = torch.rand(b, 6) > 0.5
    mask[:, 0] = True  # every softmax row keeps at least one finite value
    return (torch.randn(b, 6), torch.randn(b, 6), mask)


_wm_batch = Dim("batch", min=1, max=16)
register(
    ModelCase(
        name="where_masked_fill",
        make_module=lambda: WhereMaskedFill().eval(),
        make_inputs=_where_inputs,
        dynamic_shapes=({0: _wm_batch}, {0: _wm_batch}, {0: _wm_batch}),
        notes="where with tensor and scalar branches, masked_fill, a masked softmax (-inf).",
    )
)


# ---------------------------------------------------------------------------------------------
class ArangeDynamic(nn.Module):
    def forward(self, x):
        n = x.shape[0]
        pos = torch.arange(n)  # int64 [n]
        ramp = torch.arange(n, dtype=torch.float32) * 0.5
        return pos, x + ramp.unsqueeze(1), pos * 2 + 1


def _arange_inputs(variant):
    torch.manual_seed(180 + variant)
    return (torch.randn((3, 7)[variant], 4),)


register(
    ModelCase(
        name="arange_dynamic",
        make_module=lambda: ArangeDynamic().eval(),
        make_inputs=_arange_inputs,
        dynamic_shapes=({0: Dim("n", min=1, max=32)},),
        notes="torch.arange of a dynamic size (int64 and float32).",
    )
)


# ---------------------------------------------------------------------------------------------
class BoolIntOutputs(nn.Module):
    def forward(self, x, y):
        gt = x > y
        eq = x.round() == y.round()
        any_pos = (x > 0).any(dim=-1)
        count = (x > y).sum(dim=-1)  # int64
        arg = torch.argmax(x, dim=-1)  # int64
        as_int = (x * 10).to(torch.int32)  # truncation toward zero
        both = torch.logical_and(gt, x > 0.5)
        return gt, eq, any_pos, count, arg, as_int, both, ~gt


def _bool_int_inputs(variant):
    torch.manual_seed(190 + variant)
    b = BATCH[variant]
    # x is an odd multiple of 1/16 and y a multiple of 1/8: x never equals y, x never rounds
    # from a tie, while y has exact .5 ties (round half to even, as PyTorch does)
    x = torch.randint(-40, 40, (b, 9)).float() / 8 + 1 / 16
    y = torch.randint(-40, 40, (b, 9)).float() / 8
    return (x, y)


_bi_batch = Dim("batch", min=1, max=16)
register(
    ModelCase(
        name="bool_int_outputs",
        make_module=lambda: BoolIntOutputs().eval(),
        make_inputs=_bool_int_inputs,
        dynamic_shapes=({0: _bi_batch}, {0: _bi_batch}),
        notes="Bool outputs (comparisons, any, logical ops) and int outputs (sum of bools, "
        "argmax, a float->int32 cast, round with .5 ties). No x == y ties, so results are well "
        "defined.",
    )
)


# ---------------------------------------------------------------------------------------------
class Activations(nn.Module):
    def forward(self, x):
        return (
            torch.nn.functional.gelu(x),
            torch.nn.functional.silu(x),
            torch.sigmoid(x),
            torch.tanh(x),
            torch.log_softmax(x, dim=-1),
            torch.nn.functional.leaky_relu(x, 0.1),
            torch.nn.functional.hardswish(x),
            torch.nn.functional.elu(x),
            x.clamp(-0.5, 0.5),
            torch.exp(x) + torch.log1p(x.abs()) + torch.sqrt(x.abs() + 1),
        )


def _activations_inputs(variant):
    torch.manual_seed(200 + variant)
    return (torch.randn(BATCH[variant], 10) * 2,)


register(
    ModelCase(
        name="activations",
        make_module=lambda: Activations().eval(),
        make_inputs=_activations_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="Elementwise activations and math functions.",
    )
)


# ---------------------------------------------------------------------------------------------
class IntFloorDiv(nn.Module):
    def forward(self, i, j):
        return torch.div(i, 3, rounding_mode="floor"), i // j, torch.div(i, j, rounding_mode="trunc"), i % j


def _int_floor_div_inputs(variant):
    b = BATCH[variant]
    i = torch.arange(-4 * b, 4 * b, 2, dtype=torch.int64).reshape(b, 4)
    j = torch.tensor([3, -3, 4, -5], dtype=torch.int64).expand(b, 4).contiguous()
    return (i, j)


_fd_batch = Dim("batch", min=1, max=16)
register(
    ModelCase(
        name="int_floor_div",
        make_module=lambda: IntFloorDiv().eval(),
        make_inputs=_int_floor_div_inputs,
        dynamic_shapes=({0: _fd_batch}, {0: _fd_batch}),
        notes="Integer floor division and remainder of negative values (rounds toward -inf, "
        "Python's sign rules), next to trunc division.",
    )
)


# ---------------------------------------------------------------------------------------------
class NonFinite(nn.Module):
    def forward(self, x):
        return torch.exp(x), torch.relu(x), x.amax(dim=-1), torch.sigmoid(x), x.clamp(-1.0, 1.0), x + 1.0


def _nonfinite_inputs(variant):
    torch.manual_seed(210 + variant)
    x = torch.randn(BATCH[variant], 6)
    x[0] = torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0, 100.0, -100.0])
    return (x,)


register(
    ModelCase(
        name="nonfinite_math",
        make_module=lambda: NonFinite().eval(),
        make_inputs=_nonfinite_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="NaN and +-inf through computed ops: PyTorch propagates NaN through exp, relu, "
        "amax, sigmoid and clamp; exp(100) overflows to inf.",
    )
)
