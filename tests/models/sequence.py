"""Sequence programs: attention, embeddings, recurrent layers."""
import math

import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register

# (batch, sequence) per input variant
SIZES = ((2, 6), (3, 11))


def _batch_seq_dims():
    return Dim("batch", min=1, max=8), Dim("seq", min=2, max=32)


# ---------------------------------------------------------------------------------------------
class AttentionBlock(nn.Module):
    """A pre-norm transformer block written out by hand: layernorm, qkv projection, heads by
    reshape/transpose, scaled scores by matmul, softmax, output projection, GELU MLP."""

    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q = q.reshape(b, t, h, d // h).transpose(1, 2)
        k = k.reshape(b, t, h, d // h).transpose(1, 2)
        v = v.reshape(b, t, h, d // h).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d // h)
        attn = torch.softmax(scores, dim=-1)
        y = torch.matmul(attn, v).transpose(1, 2).reshape(b, t, d)
        x = x + self.out(y)
        return x + self.mlp(self.norm2(x))


def _make_attention():
    torch.manual_seed(20)
    return AttentionBlock().eval()


def _attention_inputs(variant):
    torch.manual_seed(400 + variant)
    b, t = SIZES[variant]
    return (torch.randn(b, t, 32),)


_att_b, _att_t = _batch_seq_dims()
register(
    ModelCase(
        name="attention_block",
        make_module=_make_attention,
        make_inputs=_attention_inputs,
        dynamic_shapes=({0: _att_b, 1: _att_t},),
        notes="Hand-written multi-head self-attention block; batch and sequence dynamic.",
    )
)


# ---------------------------------------------------------------------------------------------
class SdpaBlock(nn.Module):
    """Causal attention through F.scaled_dot_product_attention."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q = self.q(x).view(b, t, h, d // h).transpose(1, 2)
        k = self.k(x).view(b, t, h, d // h).transpose(1, 2)
        v = self.v(x).view(b, t, h, d // h).transpose(1, 2)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return y.transpose(1, 2).reshape(b, t, d)


def _make_sdpa():
    torch.manual_seed(21)
    return SdpaBlock().eval()


def _sdpa_inputs(variant):
    torch.manual_seed(410 + variant)
    b, t = SIZES[variant]
    return (torch.randn(b, t, 16),)


_sdpa_b, _sdpa_t = _batch_seq_dims()
register(
    ModelCase(
        name="sdpa_causal",
        make_module=_make_sdpa,
        make_inputs=_sdpa_inputs,
        dynamic_shapes=({0: _sdpa_b, 1: _sdpa_t},),
        notes="F.scaled_dot_product_attention(is_causal=True); batch and sequence dynamic.",
    )
)


# ---------------------------------------------------------------------------------------------
class GroupedQuerySdpa(nn.Module):
    """Grouped-query attention through F.scaled_dot_product_attention(enable_gqa=True): 4 query
    heads over 2 key/value heads, once with a boolean causal mask and once causal by the flag.
    OpenVINO 2026.4.1's PyTorch frontend drops enable_gqa, and the step then failed to compile:
    pt2ov refused the program naming an unrelated node."""

    def __init__(self, dim=16, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.width = heads, kv_heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.width)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q = self.q(x).view(b, t, self.heads, self.width).transpose(1, 2)
        k, v = self.kv(x).view(b, t, 2 * self.kv_heads, self.width).transpose(1, 2).chunk(2, dim=1)
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        masked = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
        causal = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return self.out((masked + causal).transpose(1, 2).reshape(b, t, d))


def _make_grouped_query_sdpa():
    torch.manual_seed(23)
    return GroupedQuerySdpa().eval()


def _grouped_query_sdpa_inputs(variant):
    torch.manual_seed(430 + variant)
    b, t = SIZES[variant]
    return (torch.randn(b, t, 16),)


_gqa_b, _gqa_t = _batch_seq_dims()
register(
    ModelCase(
        name="sdpa_grouped_query",
        make_module=_make_grouped_query_sdpa,
        make_inputs=_grouped_query_sdpa_inputs,
        dynamic_shapes=({0: _gqa_b, 1: _gqa_t},),
        notes="F.scaled_dot_product_attention(enable_gqa=True), 4 query heads on 2 key/value heads; batch and "
              "sequence dynamic.",
    )
)


# ---------------------------------------------------------------------------------------------
class PowerMeanNorm(nn.Module):
    """transformers' RMSNorm (x * rsqrt(mean(x^2, -1) + eps) * w, in float32) with the power as a
    parameter: with 2 the CPU plugin fuses it into one RMS node (pt2ov leaves its reduction
    without the ReduceFusedArithmeticWrong barrier for that and checks the compiled model); with
    4 the same form is not an RMS norm, the plugin does not fuse it, and the load compiles the
    step again with the barrier."""

    def __init__(self, power, dim=32):
        super().__init__()
        self.power = power
        self.weight = nn.Parameter(torch.linspace(0.5, 1.5, dim))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        variance = h.pow(self.power).mean(-1, keepdim=True)
        return self.weight * (h * torch.rsqrt(variance + 1e-6))


def _power_mean_norm_inputs(variant):
    torch.manual_seed(470 + variant)
    b, t = SIZES[variant]
    return (torch.randn(b, t, 32),)


for _power, _name in ((2, "rms_norm_fused"), (4, "power_mean_norm_unfused")):
    _pm_b, _pm_t = _batch_seq_dims()
    register(
        ModelCase(
            name=_name,
            make_module=lambda power=_power: (torch.manual_seed(24), PowerMeanNorm(power).eval())[1],
            make_inputs=_power_mean_norm_inputs,
            dynamic_shapes=({0: _pm_b, 1: _pm_t},),
            notes=f"transformers' RMSNorm form with x.pow({_power}); batch and sequence dynamic. "
                  + ("The plugin fuses it into one RMS node (checked on the compiled model)." if _power == 2 else
                     "Marked for the RMS fusion by its form, not fused by the plugin: the step is compiled again "
                     "with the ReduceFusedArithmeticWrong barrier."),
        )
    )


# ---------------------------------------------------------------------------------------------
class EmbeddingModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(100, 16, padding_idx=0)
        self.pos = nn.Embedding(32, 16)
        self.head = nn.Linear(16, 5)

    def forward(self, idx):
        t = idx.shape[1]
        e = self.tok(idx) + self.pos(torch.arange(t)).unsqueeze(0)
        keep = (idx != 0).unsqueeze(-1).float()
        pooled = (e * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1.0)
        return self.head(pooled), e


def _make_embedding():
    torch.manual_seed(22)
    return EmbeddingModel().eval()


def _embedding_inputs(variant):
    torch.manual_seed(420 + variant)
    b, t = SIZES[variant]
    idx = torch.randint(0, 100, (b, t), dtype=torch.int64)
    idx[0, -1] = 0  # a padding token
    idx[-1, 0] = 99  # the last row of the table
    return (idx,)


_emb_b, _emb_t = _batch_seq_dims()
register(
    ModelCase(
        name="embedding",
        make_module=_make_embedding,
        make_inputs=_embedding_inputs,
        dynamic_shapes=({0: _emb_b, 1: _emb_t},),
        notes="Token and position embeddings gathered by int64 indices (incl. the padding "
        "index and the last row), masked mean pooling.",
    )
)


# ---------------------------------------------------------------------------------------------
class LSTMModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return self.head(y), h, c


def _make_lstm():
    torch.manual_seed(23)
    return LSTMModel().eval()


def _rnn_inputs(variant):
    torch.manual_seed(430 + variant)
    return (torch.randn((2, 4)[variant], 7, 8),)


register(
    ModelCase(
        name="lstm",
        make_module=_make_lstm,
        make_inputs=_rnn_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        notes="Two-layer nn.LSTM(batch_first=True) returning outputs and final (h, c). The "
        "sequence length is static: torch.export specializes it for aten.lstm.",
    )
)


# ---------------------------------------------------------------------------------------------
class GRUModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 12, batch_first=True)
        self.head = nn.Linear(12, 3)

    def forward(self, x, h0):
        y, h = self.gru(x, h0)
        return self.head(y[:, -1]), h


def _make_gru():
    torch.manual_seed(24)
    return GRUModel().eval()


def _gru_inputs(variant):
    (x,) = _rnn_inputs(variant)
    torch.manual_seed(440 + variant)
    return (x, torch.randn(1, x.shape[0], 12))


_gru_b = Dim("batch", min=1, max=8)
register(
    ModelCase(
        name="gru",
        make_module=_make_gru,
        make_inputs=_gru_inputs,
        dynamic_shapes=({0: _gru_b}, {1: _gru_b}),
        notes="nn.GRU(batch_first=True) with a given initial hidden state.",
    )
)
