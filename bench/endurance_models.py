"""The programs bench/endurance runs many times: one all on OpenVINO, one all on the CPU
kernels, and mixed ones that go back and forth between the two on every call. Writes, into the
folder given, NAME.pt2 and NAME_in.npz for each and programs.txt: one line per program,
"NAME CPU_OP,CPU_OP,..." (the ops pt2ov is told to keep on the CPU; "-" for none).

    .venv/bin/python bench/endurance_models.py build/endurance
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np
import torch
from torch import nn

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import models  # noqa: E402


class ConvReluConv(nn.Module):
    """Convolutions on OpenVINO with a relu and a masked_fill/where between them on the CPU."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.conv3 = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        y = self.conv2(y)
        y = y.masked_fill(y > 1.0, 1.0)
        y = torch.where(y < -1.0, torch.zeros_like(y), y)
        return self.conv3(y), y.sum()


class MixedMLP(nn.Module):
    """An MLP with its relu on the CPU: OpenVINO, CPU, OpenVINO, two outputs. Wide enough
    (64 x 256 hidden values) that placement keeps its linears on OpenVINO."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 256)
        self.fc2 = nn.Linear(256, 8)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(h), h


def programs():
    tiny = models.by_name("tiny_mlp")
    torch.manual_seed(0)
    yield "openvino_mlp", tiny.make_module().eval(), tiny.make_inputs(), ()
    yield "cpu_mlp", tiny.make_module().eval(), tiny.make_inputs(), ("aten.linear", "aten.relu")
    yield "mixed_mlp", MixedMLP().eval(), (torch.randn(64, 16),), ("aten.relu",)
    yield ("mixed_conv", ConvReluConv().eval(), (torch.randn(1, 3, 16, 16),),
           ("aten.relu", "aten.masked_fill", "aten.where"))


def main() -> None:
    folder = pathlib.Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for name, module, inputs, cpu_ops in programs():
        with torch.no_grad():
            torch.export.save(torch.export.export(module, inputs), folder / f"{name}.pt2")
        np.savez(folder / f"{name}_in.npz", *[t.numpy() for t in inputs])
        lines.append(f"{name} {','.join(cpu_ops) or '-'}")
    (folder / "programs.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
