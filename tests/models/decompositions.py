"""Training-IR ops that pt2ov decomposes into core ATen (src/graph/decompose/), as
`torch.export.export` leaves them: one case per family, and blocks of the real architectures
that use them (PoolFormer, ConvMixer, a Wav2Vec2-style feature encoder, a T5-style gated
feed-forward). test_zoo runs each as exported (the decompositions) and decomposed (PyTorch's
own), static and, where a case has dynamic dims, with another batch size."""
import torch
from torch import nn
from torch.export import Dim
import torch.nn.functional as F

from . import ModelCase, register


def _batch():
    return Dim("batch", min=1, max=8)


class _Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _seeded(seed, *shapes, specials=False):
    def make(variant):
        torch.manual_seed(seed + variant)
        out = []
        for shape in shapes:
            shape = tuple((3 if variant else 2) if s == "B" else s for s in shape)
            t = torch.randn(shape) * 2
            if specials and t.numel() >= 4:
                flat = t.view(-1)
                flat[0], flat[1], flat[2], flat[3] = float("nan"), float("inf"), -float("inf"), 0.0
            out.append(t)
        return tuple(out)
    return make


def _shapes(x):
    return (
        torch.broadcast_to(x[:, :1], (x.shape[0], 4, 5)) + 1,
        x.unflatten(2, (5, 1)).swapaxes(0, 1),
        torch.movedim(x, (0, 1), (2, 0)),
        x.mT, x[0].T, x[0].mH,
        torch.atleast_3d(x[0, 0]), torch.atleast_2d(x[0, 0, 0]),
        torch.hstack([x, x]), torch.vstack([x[0, 0], x[1, 1]]), torch.dstack([x[0], x[1]]),
        torch.column_stack([x[0, 0], x[1, 1]]),
        *torch.tensor_split(x, 3, dim=1), *torch.hsplit(x, [1, 3]), *torch.split(x, 3, dim=1),
        *torch.meshgrid(x[0, 0], x[0, 1, :3], indexing="xy"),
        torch.diff(x, dim=2), torch.diff(x, n=2, dim=1, prepend=x[:, :1]),
        torch.flipud(x[0]), torch.fliplr(x[0]), x.ravel(),
    )


register(ModelCase("decompose_shapes", lambda: _Fn(_shapes).eval(), _seeded(700, (2, 4, 5))))


def _dynamic_views(x, y):
    # sizes read at run time (aten.sym_size.int) for the dynamic batch
    return (
        y.expand_as(x) * x,
        x.view_as(x * 2) + 1, (x * 3).transpose(0, 1).reshape_as(x.t()),
        x.unflatten(1, (2, 3)),
        *torch.broadcast_tensors(x, y),
    )


class _DynamicViews(nn.Module):
    def forward(self, x, y):
        return _dynamic_views(x, y)


register(ModelCase("decompose_dynamic_views", lambda: _DynamicViews().eval(), _seeded(710, ("B", 6), (1, 6)),
                   dynamic_shapes=({0: _batch()}, None)))


def _elementwise(x, y):
    return (
        F.softplus(x), F.softplus(x, beta=2, threshold=3), F.selu(x), F.logsigmoid(x),
        F.hardshrink(x, 0.7), F.softshrink(x, 0.6), F.threshold(x, 0.3, -2.0),
        F.prelu(x, torch.tensor([0.25, 0.5, 1.0, -1.0])), torch.logit(x.sigmoid()),
        torch.deg2rad(x), torch.rad2deg(x), torch.nan_to_num(x), torch.nan_to_num(x, 1.0, 2.0, -3.0),
        torch.square(x), torch.xlogy(x, y.abs()), torch.special.xlog1py(x, y.abs()), torch.sinc(y),
        torch.lerp(x, y, 0.3), torch.lerp(x, y, 0.8), torch.lerp(x, y, y.sigmoid()),
        torch.float_power(x.abs(), 2.5), torch.logaddexp2(x, y), torch.addcdiv(x, y, y.abs() + 1, value=0.5),
        torch.subtract(x, y, alpha=2), torch.multiply(x, y), torch.true_divide(x, 2), torch.negative(x),
        torch.arctan(x), torch.max(x, y), torch.min(x, y), torch.special.expit(x),
    )


# NaN and infinities only where OpenVINO is known to propagate them (docs/EXACTNESS.md, O8).
register(ModelCase("decompose_elementwise", lambda: _Fn(_elementwise).eval(), _seeded(720, (3, 4, 5), (3, 4, 5))))


def _nan_aware(x, y):
    return (torch.nan_to_num(x), torch.nansum(x, 1), torch.nanmean(x, (0, 2), keepdim=True),
            torch.isclose(x, y, rtol=0.5, atol=0.5), torch.isclose(x, x, equal_nan=True), torch.xlogy(x, y.abs()))


register(ModelCase("decompose_nan_aware", lambda: _Fn(_nan_aware).eval(), _seeded(725, (3, 4, 5), (3, 4, 5), specials=True)))


def _reductions(x, y):
    m, v = x[0], x[0, 0]
    return (
        torch.var(x), torch.var(x, 1), torch.var(x, [0, 2], unbiased=False, keepdim=True), torch.std(x),
        *torch.var_mean(x, 1, keepdim=True), *torch.std_mean(x), *torch.std_mean(x, 0, correction=0),
        *torch.aminmax(x, dim=1), torch.count_nonzero(x > 0, 1),
        torch.dist(x, y), torch.dist(x, y, 1), torch.linalg.norm(x), torch.linalg.norm(x, 3, dim=2), torch.linalg.norm(m, "fro"),
        torch.mv(m, v), torch.addmv(m[:, 0], m, v, beta=0.5, alpha=2), torch.addr(m, m[:, 0], v), torch.outer(v, v),
        torch.inner(m, m), torch.inner(v, v), torch.vdot(v, v), torch.linalg.vecdot(m, m),
        torch.addbmm(m[:, :4], x[:, :, :3], y[:, :3, :4], beta=0.5), torch.kron(m, m[:2, :3]),
        torch.tensordot(x, y, dims=([1, 2], [1, 2])), torch.cross(x[:, :3], y[:, :3], dim=1), torch.linalg.cross(x[..., :3], y[..., :3]),
        F.cosine_similarity(x, y), F.pairwise_distance(x, y), F.pairwise_distance(x, y, p=1, keepdim=True),
    )


register(ModelCase("decompose_reductions", lambda: _Fn(_reductions).eval(), _seeded(730, (3, 4, 5), (3, 4, 5))))


def _losses(x, t, s, logits, target):
    p = t.sigmoid()
    return (
        F.mse_loss(x, t), F.l1_loss(x, t, reduction="sum"), F.smooth_l1_loss(x, t, beta=0.5), F.huber_loss(x, t, delta=0.7, reduction="none"),
        F.kl_div(x, p), F.kl_div(x, p.log(), log_target=True, reduction="sum"), F.soft_margin_loss(x, s), F.poisson_nll_loss(x, p),
        F.poisson_nll_loss(p, x.abs(), log_input=False, full=True), F.binary_cross_entropy(p, p.flip(0)),
        F.binary_cross_entropy_with_logits(x, p), F.binary_cross_entropy_with_logits(x, p, pos_weight=torch.arange(5.0)),
        F.margin_ranking_loss(x, t, s), F.hinge_embedding_loss(x, s), F.cosine_embedding_loss(x, t, s[:, 0]),
        F.triplet_margin_loss(x, t, t.flip(0)), F.triplet_margin_loss(x, t, t.flip(0), swap=True, p=1),
        F.cross_entropy(logits, target), F.cross_entropy(logits, target, weight=torch.arange(1.0, 6.0)),
        F.cross_entropy(logits, target, ignore_index=2, reduction="sum"), F.nll_loss(logits.log_softmax(1), target),
        F.cross_entropy(logits, logits.softmax(1)),
    )


def _loss_inputs(variant):
    torch.manual_seed(740 + variant)
    x, t = torch.randn(4, 5), torch.randn(4, 5)
    s = torch.sign(torch.randn(4, 5))
    return x, t, s, torch.randn(4, 5), torch.tensor([0, 4, 2, 1])


register(ModelCase("decompose_losses", lambda: _Fn(_losses).eval(), _loss_inputs))


def _pads_and_pools(x, x4):
    return (
        F.pad(x, (1, 2)), F.pad(x, (-1, 2), value=2.0), F.pad(x, (1, 2), mode="reflect"), F.pad(x4, (1, 2, 2, 1), mode="reflect"),
        F.pad(x, (1, 2), mode="replicate"), F.pad(x4, (1, 2, 0, 3), mode="replicate"), F.pad(x4, (1, 2, 2, 1), mode="circular"),
        F.avg_pool1d(x, 2), F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), F.max_pool1d(x, 2),
        *F.max_pool1d(x, 3, 1, 1, return_indices=True), F.adaptive_avg_pool1d(x, 4), F.max_pool3d(x4.unsqueeze(0), 2),
        F.group_norm(x4, 3, torch.arange(3.0), torch.ones(3)), F.group_norm(x, 1),
    )


register(ModelCase("decompose_pads_and_pools", lambda: _Fn(_pads_and_pools).eval(), _seeded(750, (2, 3, 8), (2, 3, 6, 7))))


class _PoolFormerBlock(nn.Module):
    """PoolFormer's token mixer and MLP (timm poolformer_s12): GroupNorm(1), avg pool minus input."""

    def __init__(self, dim=8):
        super().__init__()
        self.norm1, self.norm2 = nn.GroupNorm(1, dim), nn.GroupNorm(1, dim)
        self.pool = nn.AvgPool2d(3, 1, 1, count_include_pad=False)
        self.fc1, self.fc2 = nn.Conv2d(dim, 4 * dim, 1), nn.Conv2d(4 * dim, dim, 1)

    def forward(self, x):
        y = self.norm1(x)
        x = x + (self.pool(y) - y)
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class _ConvMixerBlock(nn.Module):
    """ConvMixer's depthwise conv with padding='same' and the residual."""

    def __init__(self, dim=8):
        super().__init__()
        self.depthwise = nn.Conv2d(dim, dim, 4, groups=dim, padding="same")
        self.bn1, self.bn2 = nn.BatchNorm2d(dim), nn.BatchNorm2d(dim)
        self.pointwise = nn.Conv2d(dim, dim, 1)

    def forward(self, x):
        x = x + self.bn1(F.gelu(self.depthwise(x)))
        return self.bn2(F.gelu(self.pointwise(x)))


class _Wav2Vec2Features(nn.Module):
    """Wav2Vec2's feature encoder start and positional conv: conv1d, GroupNorm over channels,
    a weight-normed grouped conv with padding, and the trimmed last frame."""

    def __init__(self):
        super().__init__()
        self.conv0 = nn.Conv1d(1, 8, 10, stride=5, bias=False)
        self.norm = nn.GroupNorm(8, 8)
        self.pos = nn.utils.parametrizations.weight_norm(nn.Conv1d(8, 8, 4, padding=2, groups=2), dim=2)
        self.layer_norm = nn.LayerNorm(8)

    def forward(self, audio):
        x = F.gelu(self.norm(self.conv0(audio[:, None])))
        x = x + F.gelu(self.pos(x)[:, :, :-1])
        return self.layer_norm(x.transpose(1, 2))


class _GatedFeedForward(nn.Module):
    """T5's gated-GELU feed-forward with its RMS norm (var over the last dim, no mean)."""

    def __init__(self, dim=8):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)
        self.wi0, self.wi1, self.wo = nn.Linear(dim, 16, bias=False), nn.Linear(dim, 16, bias=False), nn.Linear(16, dim, bias=False)

    def forward(self, x):
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight
        return x + self.wo(F.gelu(self.wi0(h), approximate="tanh") * self.wi1(h))


def _seeded_module(cls, seed):
    def make():
        torch.manual_seed(seed)
        m = cls()
        for bn in m.modules():
            if isinstance(bn, nn.BatchNorm2d):
                with torch.no_grad():
                    bn.running_mean.uniform_(-0.5, 0.5)
                    bn.running_var.uniform_(0.5, 1.5)
        return m.eval()
    return make


register(ModelCase("poolformer_block", _seeded_module(_PoolFormerBlock, 760), _seeded(761, ("B", 8, 7, 7)),
                   dynamic_shapes=({0: _batch()},)))
register(ModelCase("convmixer_block", _seeded_module(_ConvMixerBlock, 770), _seeded(771, ("B", 8, 9, 9)),
                   dynamic_shapes=({0: _batch()},)))
register(ModelCase("wav2vec2_features", _seeded_module(_Wav2Vec2Features, 780), _seeded(781, ("B", 160)),
                   dynamic_shapes=({0: _batch()},)))
register(ModelCase("t5_gated_feed_forward", _seeded_module(_GatedFeedForward, 790), _seeded(791, ("B", 5, 8)),
                   dynamic_shapes=({0: _batch()},)))


def _einsum(a, b, m, v, q, k):
    return (
        torch.einsum("bij,bjk->bik", a, b), torch.einsum("ij->ji", m), torch.einsum("ij->", m), torch.einsum("i,i->", v, v),
        torch.einsum("i,j->ij", v, v), torch.einsum("bhqd,bhkd->bhqk", q, k), torch.einsum("ij,jk,kl->il", m, m, m),
        torch.einsum("bij, bjk", a, b), torch.einsum("ijk->kj", a), torch.einsum("bij,k->bik", a, v),
    )


register(ModelCase("decompose_einsum", lambda: _Fn(_einsum).eval(),
                   _seeded(800, (2, 3, 4), (2, 4, 5), (4, 4), (4,), (2, 2, 3, 4), (2, 2, 5, 4))))


def _composites(x, y, v, w):
    # composites torch.export keeps whole in the training IR: block matrices, products of sets,
    # integration, shifts, size reductions, renormalization, backward ops of programs of gradients
    soft = torch.softmax(x[0], 1)
    return (
        torch.block_diag(x[0], v, v[0], w), torch.cartesian_prod(v, w[0]), torch.cartesian_prod(v),
        torch.trapezoid(x, dim=1), torch.trapezoid(x, v[:4] * 0.5 + 1, dim=1), torch.trapz(x, dx=0.3),
        torch.cumulative_trapezoid(x, dim=2), torch.cumulative_trapezoid(x, y[0, 0], dim=2),
        torch.fft.fftshift(x), torch.fft.ifftshift(x, dim=(1, 2)), torch.fft.fftshift(x[0, 0]),
        x.sum_to_size(1, 4, 1), y.sum_to_size(4, 5), torch.msort(x), torch.renorm(x, 2, 1, 1.5),
        torch.renorm(x, 1, 0, 3.0), *torch.chunk(x, 3, dim=1), *torch.chunk(x, 2, dim=2),
        torch.linalg.vector_norm(x, 0), torch.linalg.vector_norm(x, 0, dim=1, keepdim=True),
        torch.linalg.vector_norm(x[0, 0, 0], 3), torch.linalg.vector_norm(x[0, 0, 0], 0),
        F.pad(x, (-2, 3), mode="replicate"), F.pad(x, (1, -1, -5, 6), mode="replicate"),
        torch.ops.aten._softmax_backward_data(y[0], soft, 1, torch.float32),
        torch.ops.aten.native_dropout_backward(y[0], x > 0, 2.0),
    )


register(ModelCase("decompose_composites", lambda: _Fn(_composites).eval(),
                   _seeded(810, (2, 4, 5), (2, 4, 5), (5,), (2, 3), specials=False)))


def _transposed_convolutions(x1, x2, w1, w2):
    # unbatched inputs of conv_transpose1d/2d get a batch of one
    return (
        F.conv_transpose1d(x1, w1, stride=2, padding=1, output_padding=1),
        F.conv_transpose2d(x2, w2, stride=(2, 1), padding=(1, 0), dilation=(1, 2)),
        F.conv_transpose1d(x1[None], w1, groups=1),
    )


register(ModelCase("decompose_transposed_convolutions", lambda: _Fn(_transposed_convolutions).eval(),
                   _seeded(820, (3, 6), (3, 5, 4), (3, 2, 3), (3, 2, 3, 3))))


def _integer_einsum_sums(x, y):
    # 'i->' is a sum, int64 in eager for int32 operands; 'ij,jk->ik' a product, int32
    return torch.einsum("i->", x[0]), torch.einsum("ij->j", x), torch.einsum("ij,jk->ik", x, y), torch.einsum("ij,ij->", x, x)


def _integer_einsum_inputs(variant):
    g = torch.Generator().manual_seed(790 + variant)
    return (torch.randint(-2**20, 2**20, (3, 4), generator=g, dtype=torch.int32),
            torch.randint(-50, 50, (4, 2), generator=g, dtype=torch.int32))


register(ModelCase(
    "integer_einsum_sums", lambda: _Fn(_integer_einsum_sums).eval(), _integer_einsum_inputs,
    notes="einsum of int32 operands whose result is a sum: int64 in eager (ATen's sum promotes), where "
    "pt2ov's decomposition summed in int32 and the output guard refused the program (OpInfo einsum int32)."))
