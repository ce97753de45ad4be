"""NaN and infinities in the inputs, through the ops OpenVINO's CPU plugin loses them in (relu,
exp, max, clamp and what it fuses them into: docs/EXACTNESS.md O8). A call whose floating inputs
hold one runs on pt2ov's CPU kernels (LoadOptions::nonfinite_inputs), so each case must give
PyTorch's NaN and inf pattern exactly: a NaN from a failed sensor comes out as NaN, not as a
plausible action."""
import torch
from torch import nn
from torch.export import Dim

from tests.models import ModelCase, randomize_batchnorm, register

NAN, INF = float("nan"), float("inf")
BATCH = (3, 5)


def _batch():
    return Dim("batch", min=1, max=16)


def _sprinkle(x: torch.Tensor, seed: int) -> torch.Tensor:
    """x with NaN, +inf and -inf at fixed places of its first rows (the other rows finite)."""
    flat = x.view(x.shape[0], -1)
    generator = torch.Generator().manual_seed(seed)
    width = flat.shape[1]
    for row, value in ((0, NAN), (1, INF), (1, -INF)):
        flat[row, int(torch.randint(width, (1,), generator=generator))] = value
    return x


class LinearRelu(nn.Module):
    """A robot policy's head: Linear then ReLU (the plugin fuses the ReLU into the product and gave
    0 for a NaN input)."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4), nn.Tanh())

    def forward(self, x):
        return self.net(x)


def _linear_relu_inputs(variant):
    torch.manual_seed(1100 + variant)
    return (_sprinkle(torch.randn(BATCH[variant], 8), 1100 + variant),)


def _make_linear_relu():
    torch.manual_seed(1101)
    return LinearRelu().eval()


register(ModelCase(
    name="nonfinite_linear_relu",
    make_module=_make_linear_relu,
    make_inputs=_linear_relu_inputs,
    dynamic_shapes=({0: _batch()},),
    notes="nn.Sequential(Linear, ReLU, Linear, Tanh) given NaN and inf in its input: OpenVINO gave 0 "
    "(and then finite actions) where eager gives NaN.",
))


class ConvRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        randomize_batchnorm(self.bn)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn(self.conv(x))))
        return y, y.amax(dim=(2, 3)), torch.clamp(y, max=1.0)


def _conv_relu_inputs(variant):
    torch.manual_seed(1110 + variant)
    return (_sprinkle(torch.randn(BATCH[variant], 3, 8, 8), 1110 + variant),)


def _make_conv_relu():
    torch.manual_seed(1111)
    return ConvRelu().eval()


register(ModelCase(
    name="nonfinite_conv_relu",
    make_module=_make_conv_relu,
    make_inputs=_conv_relu_inputs,
    dynamic_shapes=({0: _batch()},),
    notes="Conv, BatchNorm, ReLU, MaxPool, amax and clamp given a NaN and an inf pixel: the NaN must "
    "spread through the window and the channel as eager's does.",
))


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.LayerNorm(12)
        self.group = nn.GroupNorm(2, 4)

    def forward(self, x):
        return self.layer(x), self.group(x.view(x.shape[0], 4, 3)), nn.functional.normalize(x, dim=-1), x.softmax(-1)


def _norms_inputs(variant):
    torch.manual_seed(1120 + variant)
    return (_sprinkle(torch.randn(BATCH[variant], 12), 1120 + variant),)


register(ModelCase(
    name="nonfinite_norms",
    make_module=lambda: Norms().eval(),
    make_inputs=_norms_inputs,
    dynamic_shapes=({0: _batch()},),
    notes="layer_norm, group_norm, normalize and softmax of rows holding NaN, +inf and -inf.",
))


class Attention(nn.Module):
    """Attention spelt as products and a softmax (as most exported encoders are), a NaN in one query."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads, self.width = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (p.view(b, t, self.heads, self.width).transpose(1, 2) for p in self.qkv(x).chunk(3, -1))
        scores = (q @ k.transpose(-1, -2)) * self.width ** -0.5
        h = scores.softmax(-1) @ v
        return self.out(torch.relu(h.transpose(1, 2).reshape(b, t, d)))


def _attention_inputs(variant):
    torch.manual_seed(1130 + variant)
    x = torch.randn(BATCH[variant], 4, 16)
    x[0, 2, 5] = NAN
    return (x,)


def _make_attention():
    torch.manual_seed(1131)
    return Attention().eval()


register(ModelCase(
    name="nonfinite_attention",
    make_module=_make_attention,
    make_inputs=_attention_inputs,
    dynamic_shapes=({0: _batch()},),
    notes="A NaN in one token of one sequence: eager's attention makes that whole sequence NaN and "
    "leaves the others finite.",
))


class NanIntoState(nn.Module):
    """A running total kept in a buffer: a NaN input poisons it, and every later call returns NaN,
    finite inputs too (the state, not only the inputs, decides where a call runs)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))

    def forward(self, x):
        self.total.add_(torch.relu(x).sum(0))
        return torch.relu(self.total) + x.amax(0)


def _state_inputs(variant):
    torch.manual_seed(1140 + variant)
    x = torch.randn(BATCH[variant], 4)
    if variant == 0:
        x[1, 2] = NAN
    return (x,)


register(ModelCase(
    name="nonfinite_into_state",
    make_module=lambda: NanIntoState().eval(),
    make_inputs=_state_inputs,
    dynamic_shapes=({0: _batch()},),
    notes="A NaN input accumulated into a mutated buffer: the next call's inputs are finite but the "
    "state is not, and eager returns NaN from it.",
))


class MatmulOfEveryRank(nn.Module):
    """torch.matmul of a batch by a vector, a vector by a matrix, two vectors and broadcasting
    batches, and the products pt2ov decomposes into a matmul (addmv, inner). A NaN call runs on
    the CPU kernels; pt2ov spelled every matmul as mm, and the mm kernel refused an addmv's
    matrix-vector product ("mm() expects two matrices")."""

    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.randn(6, 5))
        self.register_buffer("v", torch.randn(6))
        self.register_buffer("batched", torch.randn(1, 2, 6, 3))

    def forward(self, x):
        return (x @ self.v, self.v @ self.w, self.v @ x[0, 0], x @ self.w, x[:, None] @ self.batched,
                torch.addmv(self.w[0], self.w.t(), x[0, 0], beta=0.5), torch.inner(x[0], self.v))


def _matmul_inputs(variant):
    torch.manual_seed(1150 + variant)
    return (_sprinkle(torch.randn(BATCH[variant], 4, 6), 1150 + variant),)


def _make_matmul():
    torch.manual_seed(1151)
    return MatmulOfEveryRank().eval()


register(ModelCase(
    name="nonfinite_matmul_of_every_rank",
    make_module=_make_matmul,
    make_inputs=_matmul_inputs,
    dynamic_shapes=({0: _batch()},),
    notes="torch.matmul of vectors and broadcasting batches given NaN and inf: the call runs on the "
    "CPU kernels, which must take matmul's ranks (pt2ov spelled every matmul as mm, and the NaN call "
    "failed with \"mm() expects two matrices\").",
))


class NormsThatOverflow(nn.Module):
    """Norms of rows whose squares overflow or underflow float32 beside a row holding NaN: the
    NaN call runs on the CPU kernels, whose norm accumulated in double (2.8e19 for [2e19, 2e19],
    where PyTorch's float accumulation gives inf, and F.normalize of a row with 3.4e38 gave 1
    where eager gives 0)."""

    def forward(self, x):
        return (torch.linalg.vector_norm(x, dim=1), torch.linalg.vector_norm(x, ord=1, dim=1),
                torch.linalg.vector_norm(x, ord=3, dim=1), nn.functional.normalize(x, dim=1), x[:, :1].norm(dim=1))


def _overflow_inputs(variant):
    x = torch.tensor([[NAN, 1.0, 2.0, 3.0], [2e19, 2e19, 1.0, 0.0], [1e-20, 1e-20, 0.0, 0.0],
                      [3.4e38, 1.0, -2.0, 0.5], [1e36, 0.0, 0.0, 0.0]])
    return (torch.cat([x, torch.randn(BATCH[variant], 4, generator=torch.Generator().manual_seed(1160))]),)


register(ModelCase(
    name="nonfinite_norms_that_overflow",
    make_module=lambda: NormsThatOverflow().eval(),
    make_inputs=_overflow_inputs,
    dynamic_shapes=({0: Dim("rows", min=2, max=32)},),
    notes="vector_norm (ord 2, 1, 3) and F.normalize of rows whose squares overflow or underflow float32, in a "
    "call with NaN (run on the CPU kernels): PyTorch accumulates float32 norms in float (inf for [2e19, 2e19], "
    "0 for [1e-20, 1e-20]) and takes a one-element norm as |x|; the kernel must do the same.",
))
