"""Programs whose inputs and outputs are nested containers: the .npz files hold them flattened
in torch.utils._pytree order."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register

BATCH = (2, 4)


class NestedTuple(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 6)

    def forward(self, pair: tuple[torch.Tensor, torch.Tensor], z: torch.Tensor):
        a, b = pair
        s = self.lin(a) + b
        return s, (s * z, (a - z, b.sum(dim=-1)))


def _make_nested_tuple():
    torch.manual_seed(50)
    return NestedTuple().eval()


def _nested_tuple_inputs(variant):
    torch.manual_seed(800 + variant)
    b = BATCH[variant]
    return ((torch.randn(b, 6), torch.randn(b, 6)), torch.randn(b, 6))


_nt_batch = Dim("batch", min=1, max=16)
register(
    ModelCase(
        name="nested_tuple_io",
        make_module=_make_nested_tuple,
        make_inputs=_nested_tuple_inputs,
        dynamic_shapes=(({0: _nt_batch}, {0: _nt_batch}), {0: _nt_batch}),
        notes="forward(pair: tuple[Tensor, Tensor], z) returning (s, (s*z, (a-z, b.sum)))",
    )
)


class DictIO(nn.Module):
    def forward(self, inputs: dict[str, torch.Tensor]):
        img, state = inputs["image"], inputs["state"]
        feat = img.mean(dim=(1, 2))
        return {"feat": feat, "mixed": feat.unsqueeze(1) * state, "state": state + 1.0}


def _dict_inputs(variant):
    torch.manual_seed(810 + variant)
    b = BATCH[variant]
    return ({"image": torch.randn(b, 5, 5), "state": torch.randn(b, 3)},)


_d_batch = Dim("batch", min=1, max=16)
register(
    ModelCase(
        name="dict_io",
        make_module=lambda: DictIO().eval(),
        make_inputs=_dict_inputs,
        dynamic_shapes=({"image": {0: _d_batch}, "state": {0: _d_batch}},),
        notes="A dict input and a dict output, flattened in pytree (insertion) order.",
    )
)
