"""The smallest programs of transformers' static-cache export wrapper
(`TorchExportableModuleWithStaticCache`, examples/make_llm.py) the engine refused or got wrong,
as exported (training IR). Each call starts by copying the input position into a cache-length
buffer, then advances that buffer in place by the call's sequence length."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register


class CacheLengthFromPosition(nn.Module):
    """`length.copy_(cache_position[0])`, then `length.add_(seq)`: the copy_ source is a view of a
    user input, and the in-place add on the copy_'s result writes the buffer, never the input."""

    def __init__(self):
        super().__init__()
        self.register_buffer("length", torch.zeros((), dtype=torch.int64), persistent=False)

    def forward(self, x, cache_position):
        self.length.copy_(cache_position[0])
        self.length.add_(x.shape[0])
        return x * self.length, self.length + 0, cache_position + 0


def _position_inputs(variant):
    torch.manual_seed(1300 + variant)
    seq = (2, 3)[variant]
    return (torch.randn(seq, 4), torch.arange(seq, dtype=torch.int64) + 5 * variant + 1)


_seq = Dim("seq", min=1, max=16)

register(
    ModelCase(
        name="cache_length_from_position",
        make_module=lambda: CacheLengthFromPosition().eval(),
        make_inputs=_position_inputs,
        dynamic_shapes=({0: _seq}, {0: _seq}),
        notes="copy_ from a select of an input into a 0-d buffer, then add_ into the copy_'s result.",
    )
)


class CacheLengthThroughConversion(nn.Module):
    """`length.to(device, int64)` that changes nothing is the buffer itself (PyTorch returns self):
    the add_ on it advances the buffer, as the static cache's `cumulative_length` does."""

    def __init__(self):
        super().__init__()
        self.register_buffer("length", torch.zeros((), dtype=torch.int64), persistent=False)
        self.register_buffer("scale", torch.ones(4), persistent=False)

    def forward(self, x, cache_position):
        self.length.copy_(cache_position[0])
        start = self.length.to(device=x.device, dtype=torch.int64)
        start.add_(x.shape[0])
        scale = self.scale.to(torch.float32)
        scale.mul_(1.5)
        return x * self.length + scale, start + 0, self.scale + 0


register(
    ModelCase(
        name="cache_length_through_conversion",
        make_module=lambda: CacheLengthThroughConversion().eval(),
        make_inputs=_position_inputs,
        dynamic_shapes=({0: _seq}, {0: _seq}),
        notes="add_ into to(dtype=int64) of an int64 buffer and mul_ into to(float32) of a float32 "
        "buffer: both results alias their buffer.",
    )
)
