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


class NearTieAfterOthers(torch.nn.Module):
    """own 112824 of run 12, the part that matters: argmin over rms_norm results that differ by
    one ulp (OpenVINO's rms_norm rounds the first one the other way: a correct rounding). `other`
    is there only to spend the replay's random draws before rms_norm, so that each size of it
    gives the near tie another arrangement of moves."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.tensor([0.9023534059524536]))

    def forward(self, x, t, w, other):
        spent = other / 3
        y = torch.nn.functional.rms_norm(torch.chunk(torch.lerp(x, t, w), 2, 2)[-1], [1], self.weight, eps=1e-6)
        return torch.argmin(y, 0, keepdim=True), spent


def test_a_near_tie_is_explained_in_every_arrangement_of_moves():
    x = torch.tensor([[[1.1641879081726074, 0.21530219912528992]], [[-0.8351545929908752, 0.46519002318382263]],
                      [[0.4200136661529541, 1.3573070764541626]]])
    t = torch.tensor(-1.3705939054489136)
    w = torch.tensor([[[0.8687281608581543]], [[1.02853262424469]], [[0.11404337733983994]]])
    unexplained = []
    for size in range(24):
        other = torch.ones(size)
        module = NearTieAfterOthers()
        ep = torch.export.export(module, (x, t, w, other))
        expected = [o.detach() for o in module(x, t, w, other)]
        assert expected[0].item() == 1  # eager's answer; OpenVINO's rms_norm makes it 0
        if not harness.moved_by_rounding(ep, [x, t, w, other], expected, "output 0: 1/1 values differ"):
            unexplained.append(size)
    assert unexplained == []


class CancellingDot(torch.nn.Module):
    def forward(self, x, w):
        return 1.0 / torch.nn.functional.linear(x, w), torch.nn.functional.linear(x, w)


def test_a_sum_that_cancels_is_moved_by_its_terms_magnitude():
    # linear of terms near 1 that cancel to about 1e-4 (NNSmith seed 144560): another summation
    # order moves the sum by ulps of the terms, and 1 / sum by far more than its own rounding
    x = torch.tensor([[0.1, 0.2, -0.3, 0.0001]])
    w = torch.ones(1, 4)
    ep = torch.export.export(CancellingDot(), (x, w))
    expected = [t.detach() for t in CancellingDot()(x, w)]
    how = harness.moved_by_rounding(ep, [x, w], expected, "output 0: 1/1 values off; at (0, 0) got 7.9e3")
    assert "outside the comparison" in how
    # a sum that does not cancel stays well inside the comparison
    x2 = x.abs()
    expected2 = [t.detach() for t in CancellingDot()(x2, w)]
    ep2 = torch.export.export(CancellingDot(), (x2, w))
    assert harness.moved_by_rounding(ep2, [x2, w], expected2, "output 0: 1/1 values off; at (0, 0) got 0.3") == ""


class OrderOfSubnormals(torch.nn.Module):
    def forward(self, x):
        return torch.argsort(torch.exp(x), dim=-1, stable=True)


def test_an_order_of_subnormals_is_explained_by_their_flush():
    # exp of about -100 is subnormal; OpenVINO may flush it to 0 (O7), and the stable order of
    # the zeros is their index order (own seed 143701)
    x = torch.tensor([[-99.0, -101.5, -100.25, -102.0]])
    ep = torch.export.export(OrderOfSubnormals(), (x,))
    expected = [OrderOfSubnormals()(x).detach()]
    assert "outside the comparison" in harness.moved_by_rounding(ep, [x], expected, "output 0: 4/4 values differ")
    y = torch.tensor([[-9.0, -11.5, -10.25, -12.0]])  # normal values: no flush reaches the order
    ep2 = torch.export.export(OrderOfSubnormals(), (y,))
    assert harness.moved_by_rounding(ep2, [y], [OrderOfSubnormals()(y).detach()], "output 0: 4/4 values differ") == ""
