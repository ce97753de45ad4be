"""The archives tests/cpp/runtime/test_concurrency.cpp shares between threads: an MLP (OpenVINO
only), where/masked_fill with a dynamic batch (run mixed, with masked_fill on the CPU, and fully
on the CPU), and a call counter held in a mutated buffer (int64, updated on the CPU; float32, on OpenVINO).

Usage: make_concurrency_fixtures.py OUT_DIR (writes OUT_DIR/<name>.pt2 and OUT_DIR/ready)."""
import pathlib
import sys

import torch
from torch.export import Dim


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = torch.nn.Linear(32, 64)
        self.fc2 = torch.nn.Linear(64, 16)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class WhereMaskedFill(torch.nn.Module):
    def forward(self, x, y, mask):
        a = torch.where(x > 0, x, y)
        b = x.masked_fill(mask, -1e9)
        c = torch.where(mask, x, 0.0) * y
        return a, torch.sin(b) + a, c


class Counter(torch.nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.register_buffer("count", torch.zeros((), dtype=dtype))

    def forward(self, x):
        self.count.add_(1)
        return x + self.count, self.count * 1


def main(out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.export.save(torch.export.export(Mlp().eval(), (torch.randn(8, 32),)), out / "mlp.pt2")
    batch = Dim("batch", min=1, max=16)
    x = torch.randn(4, 6)
    where = torch.export.export(
        WhereMaskedFill().eval(), (x, torch.randn(4, 6), x > 0.5), dynamic_shapes=({0: batch}, {0: batch}, {0: batch})
    )
    torch.export.save(where, out / "where_masked_fill.pt2")
    # int64 arithmetic runs on pt2ov's CPU kernels (E4), float32 on OpenVINO.
    torch.export.save(torch.export.export(Counter(torch.int64), (torch.randn(3),)), out / "counter.pt2")
    torch.export.save(torch.export.export(Counter(torch.float32), (torch.randn(3),)), out / "float_counter.pt2")
    (out / "ready").write_text("ok\n")


if __name__ == "__main__":
    main(sys.argv[1])
