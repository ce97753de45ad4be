"""The harness's rounding check (harness.moved_by_rounding): it explains a difference by rounding
only where moving each rounded value by a few ulps moves eager's own answer as far, and never a
difference of shape, dtype or a value no rounding reaches."""
from __future__ import annotations

import torch

from tests.random_programs import harness


class TiedArgmin(torch.nn.Module):
    def forward(self, x):
        return torch.argmin(x / 3, dim=1), x.abs()


def _exported(x):
    return torch.export.export(TiedArgmin(), (x,))


def test_an_exact_tie_is_explained_by_rounding():
    x = torch.full((2, 6), 1.0)  # 1 / 3 rounds: each element may round either way
    ep = _exported(x)
    expected = [t.detach() for t in TiedArgmin()(x)]
    how = harness.moved_by_rounding(ep, [x], expected, "output 0: 2/2 values differ")
    assert "outside the comparison" in how


def test_a_difference_rounding_does_not_reach_is_wrong():
    x = torch.tensor([[0.3, -0.7, 1.5, 0.2, -2.0, 0.9], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
    ep = _exported(x)
    expected = [t.detach() for t in TiedArgmin()(x)]
    # no tie: argmin and |x| (exact) stay where eager has them however ops round
    assert harness.moved_by_rounding(ep, [x], expected, "output 0: 1/2 values differ") == ""
    assert harness.moved_by_rounding(ep, [x], expected, "output 1: 3/12 values off; at (0, 1) got 0.7") == ""


def test_shapes_and_dtypes_are_never_rounding():
    x = torch.full((2, 6), 1.0)
    ep = _exported(x)
    expected = [t.detach() for t in TiedArgmin()(x)]
    assert harness.moved_by_rounding(ep, [x], expected, "output 0: shape [2, 1], eager [2]") == ""
    assert harness.moved_by_rounding(ep, [x], expected,
                                     "output 0: 2/2 values differ; output 1: dtype float64, eager float32") == ""


class DividedByAnOuterProduct(torch.nn.Module):
    def forward(self, x, y, z):
        return x / (y @ z)


def test_a_division_by_a_zero_sum_is_explained_by_its_sign():
    # [-1] * 0 is -0.0 in one product, +0.0 in a sum that starts from +0.0: x / it is -inf or +inf
    x, y, z = torch.ones(2, 2), torch.tensor([[-1.0], [2.0]]), torch.zeros(1, 2)
    ep = torch.export.export(DividedByAnOuterProduct(), (x, y, z))
    expected = [DividedByAnOuterProduct()(x, y, z)]
    detail = "output 0: 2/4 values off; at (0, 0) got np.float32(inf), eager np.float32(-inf)"  # as compare() says it
    assert "outside the comparison" in harness.moved_by_rounding(ep, [x, y, z], expected, detail)
    # a division by a nonzero product does not move
    z = torch.full((1, 2), 0.5)
    expected = [DividedByAnOuterProduct()(x, y, z)]
    assert harness.moved_by_rounding(ep, [x, y, z], expected, detail) == ""


class Atan2OfRelu(torch.nn.Module):
    def forward(self, x, y):
        return torch.atan2(torch.relu(x), y), torch.atan2(x.view(-1), y)


def test_an_atan2_of_a_computed_zero_is_explained_by_its_sign():
    # relu(-0.0) is -0.0 in PyTorch, +0.0 on OpenVINO's CPU plugin: atan2(., -1) is -pi or pi
    x, y = torch.tensor([-0.0, 0.5]), torch.tensor([-1.0, -1.0])
    ep = torch.export.export(Atan2OfRelu(), (x, y))
    expected = [t.detach() for t in Atan2OfRelu()(x, y)]
    detail = "output 0: 1/2 values off; at (0,) got np.float32(3.1415927), eager np.float32(-3.1415927)"
    assert "outside the comparison" in harness.moved_by_rounding(ep, [x, y], expected, detail)


def test_the_sign_of_a_zero_only_moved_is_never_rounding():
    # x.view(-1) copies the input's -0.0 bit for bit: an atan2 of it that differs is wrong
    x, y = torch.tensor([-0.0, 0.5]), torch.tensor([-1.0, -1.0])
    ep = torch.export.export(Atan2OfRelu(), (x, y))
    expected = [t.detach() for t in Atan2OfRelu()(x, y)]
    detail = "output 1: 1/2 values off; at (0,) got np.float32(3.1415927), eager np.float32(-3.1415927)"
    assert harness.moved_by_rounding(ep, [x, y], expected, detail) == ""
