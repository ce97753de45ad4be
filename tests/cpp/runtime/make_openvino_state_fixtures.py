"""The archives tests/cpp/runtime/test_openvino_state.cpp loads with and without OpenVINO state:
a 0-d float32 counter with a float32 cache written by index_copy_, a 0-d int32 counter, a
program whose OpenVINO step computes nothing but the state, and 0-d and 1-d int64 buffers
(which OpenVINO's CPU plugin cannot hold as state), two layers' caches stacked in one
buffer written through per-layer views (split into a buffer per layer, graph/split_buffers.cpp),
and programs that return their buffer's new value (float32 and int64).

Usage: make_openvino_state_fixtures.py OUT_DIR (writes OUT_DIR/<name>.pt2 and OUT_DIR/ready)."""
import pathlib
import sys

import torch


class CounterAndCache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))
        self.register_buffer("cache", torch.zeros(8, 4))

    def forward(self, x, pos):
        self.count += 1
        self.cache.index_copy_(0, pos, x * self.count)
        return self.cache.sum(0) + self.count


class IntCounter(torch.nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.register_buffer("count", torch.zeros((), dtype=dtype))

    def forward(self, x):
        self.count += 3
        return x * 2 + self.count


class OnlyState(torch.nn.Module):
    """The OpenVINO step's only result is the buffer's new value."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))

    def forward(self, x):
        self.total += x
        return x.clone()


class Int64Cache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("ids", torch.zeros(6, dtype=torch.int64))

    def forward(self, token, pos):
        self.ids.index_copy_(0, pos, token)
        return (self.ids.float() * 2.0).sum()


class StackedCache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(2, 8, 4))

    def forward(self, x, pos):
        out = x
        for i in range(2):
            self.cache[i].index_copy_(0, pos, out * (i + 2))
            out = self.cache[i].sum(0, keepdim=True) * 0.125
        return out


class ReturnsItsState(torch.nn.Module):
    """The buffer's new value is also the output: one value, two destinations."""

    def __init__(self, dtype, shape):
        super().__init__()
        self.register_buffer("total", torch.zeros(shape, dtype=dtype))

    def forward(self, x):
        self.total += x
        return self.total


def save(module, args, path):
    torch.export.save(torch.export.export(module.eval(), args), path)


def main(out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    save(CounterAndCache(), (torch.randn(1, 4), torch.tensor([2])), out / "counter_and_cache.pt2")
    save(IntCounter(torch.int32), (torch.arange(3, dtype=torch.int32),), out / "int32_counter.pt2")
    save(IntCounter(torch.int64), (torch.arange(3),), out / "int64_counter.pt2")
    save(OnlyState(), (torch.randn(4),), out / "only_state.pt2")
    save(Int64Cache(), (torch.tensor([5]), torch.tensor([1])), out / "int64_cache.pt2")
    save(StackedCache(), (torch.randn(1, 4), torch.tensor([2])), out / "stacked_cache.pt2")
    save(ReturnsItsState(torch.float32, (4,)), (torch.randn(4),), out / "returns_float_state.pt2")
    save(ReturnsItsState(torch.int64, ()), (torch.tensor(3),), out / "returns_int64_state.pt2")
    (out / "ready").write_text("ok\n")


if __name__ == "__main__":
    main(sys.argv[1])
