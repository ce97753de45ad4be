"""Programs with state: buffers mutated in place (they must carry over between calls on one
loaded program, docs/EXACTNESS.md E2/E6) and copies of buffers (docs/EXACTNESS.md K2, K8)."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register

BATCH = (2, 3)


def _batch_dim():
    return Dim("batch", min=1, max=8)


# ---------------------------------------------------------------------------------------------
class RunningStats(nn.Module):
    """A call counter and an exponential running mean, both updated in place every call."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))
        self.register_buffer("running_mean", torch.zeros(8))

    def forward(self, x):
        self.count.add_(1)
        self.running_mean.mul_(0.9).add_(0.1 * x.mean(dim=0))
        y = self.lin(x - self.running_mean)
        return y * self.count, self.count * 10, self.running_mean + 0.0


def _make_running_stats():
    torch.manual_seed(30)
    return RunningStats().eval()


def _running_stats_inputs(variant):
    torch.manual_seed(500 + variant)
    return (torch.randn(BATCH[variant], 8) + 1.0,)


register(
    ModelCase(
        name="buffer_mutation",
        make_module=_make_running_stats,
        make_inputs=_running_stats_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="count.add_(1) and running_mean.mul_().add_(); outputs depend on the updated "
        "buffers, so the second call differs from the first.",
    )
)


# ---------------------------------------------------------------------------------------------
class History(nn.Module):
    """A ring of the last 4 batch means, shifted with copy_, and the counter itself returned."""

    def __init__(self):
        super().__init__()
        self.register_buffer("hist", torch.zeros(4, 6))
        self.register_buffer("steps", torch.zeros(1, dtype=torch.int64))

    def forward(self, x):
        self.hist.copy_(torch.cat([self.hist[1:], x.mean(dim=0, keepdim=True)], dim=0))
        self.steps.add_(1)
        return self.hist.sum(dim=0) + x, self.steps


def _history_inputs(variant):
    torch.manual_seed(510 + variant)
    return (torch.randn(BATCH[variant], 6),)


register(
    ModelCase(
        name="buffer_history",
        make_module=lambda: History().eval(),
        make_inputs=_history_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="copy_ into a buffer from a slice of itself; the mutated counter buffer is also a "
        "user output (one tensor, two roles).",
    )
)


# ---------------------------------------------------------------------------------------------
class BufferCloneAdd(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.randn(64, 1024))  # 256 KiB

    def forward(self, x):
        return self.buf.clone(), x + self.buf


def _make_buffer_clone_add():
    torch.manual_seed(31)
    return BufferCloneAdd().eval()


def _buffer_clone_add_inputs(variant):
    torch.manual_seed(520 + variant)
    return (torch.randn(BATCH[variant], 64, 1024),)


register(
    ModelCase(
        name="buffer_clone_add",
        make_module=_make_buffer_clone_add,
        make_inputs=_buffer_clone_add_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(0,),
        notes="`return self.buf.clone(), x + self.buf` with a 256 KiB buffer (docs/EXACTNESS.md K2, E7: "
        "held once).",
    )
)


# ---------------------------------------------------------------------------------------------
class BufferCloneChain(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.randn(1, 3, 4, 5))

    def forward(self, x):
        y = self.buf.clone().clone(memory_format=torch.channels_last)
        return y, torch.sin(y), x * 2.0


def _make_buffer_clone_chain():
    torch.manual_seed(32)
    return BufferCloneChain().eval()


def _buffer_clone_chain_inputs(variant):
    torch.manual_seed(530 + variant)
    return (torch.randn(BATCH[variant], 3),)


register(
    ModelCase(
        name="buffer_clone_chain",
        make_module=_make_buffer_clone_chain,
        make_inputs=_buffer_clone_chain_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        exact_outputs=(0,),
        notes="docs/EXACTNESS.md K8: `y = self.buf.clone().clone(memory_format=torch.channels_last); "
        "return y, torch.sin(y)` (a cycle-prone partition shape, a channels-last copy).",
    )
)


# ---------------------------------------------------------------------------------------------
class StackedCache(nn.Module):
    """Hugging Face's StaticCache and ExecuTorch exports keep every layer's key (and value) cache
    in one buffer, written through a per-layer view: `k_cache[i].index_copy_(...)`,
    `v_cache[i][:, pos] = v`, then `k_cache[i]` read. Every use picks one constant layer, so
    pt2ov runs each layer's cache as a buffer of its own (graph/split_buffers.cpp). `use` adds a
    use that keeps the buffer whole: the whole cache read ("whole"), a layer picked by a tensor
    known only at run time ("dynamic_row"), a pick along another dim ("other_dim")."""

    LAYERS, HEADS, MAX_LEN, D = 3, 2, 5, 4

    def __init__(self, use=None):
        super().__init__()
        self.use = use
        shape = (self.LAYERS, self.HEADS, self.MAX_LEN, self.D)
        self.register_buffer("k_cache", torch.arange(float(torch.Size(shape).numel())).reshape(shape) / 8)
        self.register_buffer("v_cache", torch.zeros(shape))

    def forward(self, x, pos, layer):
        # x: (HEADS, 1, D); pos: (1,) int64, the position written; layer: () int64
        # What is written is exact (a product by a small integer, a difference), so the state is
        # bit for bit eager's; what is read from the caches is computed, within E5.
        out = x
        for i in range(self.LAYERS):
            k_cache, v_cache = self.k_cache[i], self.v_cache[i]
            k_cache.index_copy_(1, pos, x * (i + 2))
            v_cache[:, pos] = x - i
            out = out + (k_cache * v_cache).sum(1, keepdim=True) / 16
        extra = torch.zeros(())
        if self.use == "whole":
            extra = self.k_cache.sum()
        elif self.use == "dynamic_row":
            extra = torch.index_select(self.v_cache, 0, layer.view(1)).sum()
        elif self.use == "other_dim":
            extra = self.k_cache.select(1, 0).sum()
        return out, self.k_cache[2] * 2, extra


def _stacked_cache_inputs(variant):
    generator = torch.Generator().manual_seed(540 + variant)
    x = torch.randn(StackedCache.HEADS, 1, StackedCache.D, generator=generator)
    return (x, torch.tensor([(3 * variant + 1) % StackedCache.MAX_LEN]), torch.tensor(variant % StackedCache.LAYERS))


for _use in (None, "whole", "dynamic_row", "other_dim"):
    register(
        ModelCase(
            name="stacked_cache" + (f"_{_use}" if _use else ""),
            make_module=lambda use=_use: StackedCache(use).eval(),
            make_inputs=_stacked_cache_inputs,
            exact_outputs=(1,),
            notes="one key and one value buffer for 3 layers, written through per-layer views; "
            + ("split into a buffer per layer" if _use is None else f"kept whole: {_use.replace('_', ' ')} use"),
        )
    )
