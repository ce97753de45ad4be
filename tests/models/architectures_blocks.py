"""The smallest programs of the blocks real architectures (tests/architectures/) were refused or
failed on, as exported (training IR): each in-place write PyTorch traces there."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, register


class InPlaceDropoutHead(nn.Module):
    """torchvision's efficientnet / mobilenet_v3 / mnasnet heads: nn.Dropout(inplace=True) in eval,
    traced as dropout_(x, p, train=False), on a flatten view (efficientnet) or on a fresh tensor."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)
        self.drop = nn.Dropout(p=0.2, inplace=True)

    def forward(self, x):
        pooled = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        hidden = torch.relu(self.fc(self.drop(pooled)))
        return self.drop(hidden) + 1


def _dropout_inputs(variant):
    torch.manual_seed(1100 + variant)
    return (torch.randn((2, 3)[variant], 6, 5, 4),)


register(
    ModelCase(
        name="in_place_dropout_in_eval",
        make_module=lambda: InPlaceDropoutHead().eval(),
        make_inputs=_dropout_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=64)},),
        notes="dropout_(train=False) on a flatten view and on a linear's output: the identity.",
    )
)


class AddIntoAliasOfCat(nn.Module):
    """timm's ghostnetv2 shortcut: `out = torch.cat(...)`, then `out += shortcut` where the traced
    program reads `out` through an alias: add_ into an alias of a fresh tensor."""

    def forward(self, x, y):
        out = torch.cat([x, y], dim=1)
        view = torch.ops.aten.alias.default(out)
        view.add_(torch.sigmoid(torch.cat([y, x], dim=1)))
        return view * 2, out - 1


def _alias_inputs(variant):
    torch.manual_seed(1200 + variant)
    return (torch.randn((2, 3)[variant], 2, 4), torch.randn((2, 3)[variant], 3, 4))


register(
    ModelCase(
        name="add_into_alias_of_cat",
        make_module=lambda: AddIntoAliasOfCat().eval(),
        make_inputs=_alias_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=64)}, {0: Dim("batch", min=1, max=64)}),
        notes="add_ on an alias of a cat: the new value of the alias is the cat's new value.",
    )
)


class FillSlicesOfSlices(nn.Module):
    """torchvision's swin_t / swin_v2_t shifted-window mask: `mask[h0:h1, w0:w1] = count` on a
    fresh zeros tensor, traced as fill_ on a slice of a slice."""

    def forward(self, x):
        mask = x.new_zeros((6, 5))
        count = 0
        for rows in (slice(0, -3), slice(-3, -1), slice(-1, None)):
            for cols in (slice(0, -2), slice(-2, None)):
                mask[rows, cols] = count
                count += 1
        return x + mask, mask


def _fill_inputs(variant):
    torch.manual_seed(1300 + variant)
    return (torch.randn(6, 5),)


register(
    ModelCase(
        name="fill_slices_of_slices",
        make_module=lambda: FillSlicesOfSlices().eval(),
        make_inputs=_fill_inputs,
        notes="fill_ into slices of slices of new_zeros: written back level by level.",
    )
)
