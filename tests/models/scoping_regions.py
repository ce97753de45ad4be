"""Programs whose forward opens `with torch.autocast(...)` or `with torch.no_grad()` /
`torch.set_grad_enabled(...)` blocks: torch.export.export keeps each block as a
`wrap_with_autocast` or `wrap_with_set_grad_enabled` node with its body as a graph, which the
engine inlines (src/graph/scoping_regions.cpp); run_decompositions() inlines them too, with
autocast's casts spelled out.
"""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register

BATCH = (3, 5)


def _batch_dim():
    return Dim("batch", min=1, max=16)


def _inputs(seed, features=8):
    def make(variant):
        torch.manual_seed(seed + variant)
        return (torch.randn(BATCH[variant], features),)

    return make


_BF16_WHY = ("the region computes in bfloat16 (8-bit significand, eps 7.8e-3) as eager does; "
             "OpenVINO may keep a product's partial sums in float32 and round once where eager "
             "rounds otherwise, a few bf16 ulps apart")


# ---------------------------------------------------------------------------------------------
class AutocastDisabled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 6)

    def forward(self, x):
        y = x * 2
        with torch.autocast("cpu", enabled=False):
            z = self.lin(y)
            s = torch.sin(z)
        return s + z, z


def _make_disabled():
    torch.manual_seed(1100)
    return AutocastDisabled().eval()


register(
    ModelCase(
        name="autocast_disabled",
        make_module=_make_disabled,
        make_inputs=_inputs(1110),
        dynamic_shapes=({0: _batch_dim()},),
        notes="torch.autocast('cpu', enabled=False): the region is inlined as it is; its two "
        "results are read by a node after it and returned.",
    )
)


# ---------------------------------------------------------------------------------------------
class AutocastOtherDevice(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 4)

    def forward(self, x):
        with torch.autocast("cuda", dtype=torch.float16):
            y = self.lin(x) @ x[:, :4].t()
        return y.relu()


def _make_other_device():
    torch.manual_seed(1200)
    return AutocastOtherDevice().eval()


register(
    ModelCase(
        name="autocast_cuda_on_cpu",
        make_module=_make_other_device,
        make_inputs=_inputs(1210),
        dynamic_shapes=({0: _batch_dim()},),
        notes="A 'cuda' autocast region in a CPU program: eager on CPU tensors ignores it, and "
        "the engine inlines it as it is.",
    )
)


# ---------------------------------------------------------------------------------------------
class AutocastBf16(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 6)
        self.proj = nn.Linear(6, 6, bias=False)

    def forward(self, x):
        y = x * 2
        with torch.autocast("cpu", dtype=torch.bfloat16):
            z = self.lin(y)                 # lower precision: input, weight and bias cast
            w = torch.matmul(z, z.t())      # already bf16: no cast
            r = torch.relu(z)               # no policy: runs on bf16 as it is
            c = torch.cat([r, y[:, :6]])    # promote: bf16 and f32 operands meet in f32
            p = self.proj(c)                # f32 operand cast back to bf16
        return w.float() + 1, z, c, p


def _make_bf16():
    torch.manual_seed(1300)
    return AutocastBf16().eval()


register(
    ModelCase(
        name="autocast_cpu_bf16",
        make_module=_make_bf16,
        make_inputs=_inputs(1310),
        dynamic_shapes=({0: _batch_dim()},),
        rtol=4e-2,
        atol=4e-2,
        why=_BF16_WHY,
        notes="A bfloat16 CPU autocast region: linear and matmul cast their operands to bf16, cat "
        "promotes to f32, relu runs as it is; four results, one read after the region.",
    )
)


# ---------------------------------------------------------------------------------------------
class AutocastNested(nn.Module):
    def forward(self, x, w):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            a = x @ w
            with torch.autocast("cpu", enabled=False):
                b = x @ w                   # autocast off: float32
            c = torch.cat([a, b])           # promote: float32
            with torch.autocast("cpu", dtype=torch.float16):
                d = x @ w                   # the inner region's dtype: float16
            e = a @ w                       # the outer one's again: bfloat16
        return a, b, c, d, e


def _nested_inputs(variant):
    torch.manual_seed(1410 + variant)
    return (torch.randn(BATCH[variant], 4), torch.randn(4, 4))


register(
    ModelCase(
        name="autocast_nested",
        make_module=lambda: AutocastNested().eval(),
        make_inputs=_nested_inputs,
        dynamic_shapes=({0: _batch_dim()}, None),
        rtol=4e-2,
        atol=4e-2,
        why=_BF16_WHY,
        notes="Regions nested three ways: autocast off inside bf16, f16 inside bf16, and the "
        "outer bf16 region going on after them.",
    )
)


# ---------------------------------------------------------------------------------------------
class GradModeRegions(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        with torch.no_grad():
            y = torch.sin(x)
            z = self.lin(y)
        with torch.no_grad():
            u = z * y
            v = u
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
                t = torch.tanh(u)
        return y + z, x, v, u, t


def _make_grad_mode():
    torch.manual_seed(1500)
    return GradModeRegions().eval()


register(
    ModelCase(
        name="grad_mode_regions",
        make_module=_make_grad_mode,
        make_inputs=_inputs(1510),
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(1,),
        notes="torch.no_grad() regions (wrap_with_set_grad_enabled) inlined as they are, the "
        "second reading the first's result, with a disabled autocast region nested inside. "
        "(`with torch.set_grad_enabled(False)` also leaves an empty region with no results, "
        "which torch.export.load itself refuses: tests/e2e/test_scoping_regions.py runs it.)",
    )
)
