"""Smallest programs of OpenVINO converter faults: nodes OpenVINO 2026.4.1 converts and runs, but
wrongly (or crashes on), found by PyTorch's OpInfo samples. Each case's notes name the fault and
the `openvino_facts` entry (or the pt2ov fix) that handles it (docs/EXACTNESS.md, O9-).

Each case mixes the faulty spelling with correct spellings of the same op, so placement that
routes too much or too little shows up: the correct ones keep running on OpenVINO.
"""
import torch
from torch import nn
from torch.nn import functional as F
from torch.export import Dim

from tests.models import ModelCase, register


class ExpandZeroDimToEmpty(nn.Module):
    def forward(self, x, i, b, h):
        return x.expand([]), i.expand([]), b.expand([]), h.expand([]), x.expand([3]) * 2


def _zero_dim_inputs(variant):
    return (torch.tensor(2.5 + variant), torch.tensor(-7, dtype=torch.int32), torch.tensor(True),
            torch.tensor(1.5, dtype=torch.float16))


register(
    ModelCase(
        name="expand_zero_dim_to_empty",
        make_module=lambda: ExpandZeroDimToEmpty().eval(),
        make_inputs=_zero_dim_inputs,
        exact_outputs=(0, 1, 2, 3),
        notes="expand of a 0-d tensor to [] (f32, int32, bool, f16) crashed OpenVINO 2026.4.1 (segfault); "
        "an expand to its input's own sizes is now a copy of its input (graph/canonical_forms.cpp).",
    )
)


class ExpandToOwnSymbolicSizes(nn.Module):
    def forward(self, x):
        return x.expand(x.shape[0], 3), x.expand(-1, -1).sin(), x.expand(2, x.shape[0], 3)


def _own_sizes_inputs(variant):
    torch.manual_seed(905 + variant)
    return (torch.randn((4, 6)[variant], 3),)


register(
    ModelCase(
        name="expand_to_own_symbolic_sizes",
        make_module=lambda: ExpandToOwnSymbolicSizes().eval(),
        make_inputs=_own_sizes_inputs,
        dynamic_shapes=({0: Dim("batch", min=2, max=16)},),
        exact_outputs=(0,),
        notes="An expand to its input's own (symbolic) sizes is an identity, made a copy like the 0-d case "
        "(graph/canonical_forms.cpp); an expand adding a dim stays an expand.",
    )
)


class RepeatZeroDimEmpty(nn.Module):
    def forward(self, x, v):
        return x.repeat(()), torch.tile(x, ()), v.repeat(2, 1), torch.tile(v, (1,))


def _repeat_inputs(variant):
    torch.manual_seed(900 + variant)
    return (torch.tensor(3.25), torch.randn(3))


register(
    ModelCase(
        name="repeat_zero_dim_empty",
        make_module=lambda: RepeatZeroDimEmpty().eval(),
        make_inputs=_repeat_inputs,
        exact_outputs=(0, 1, 2, 3),
        notes="repeat / tile with repeats () of a 0-d tensor came back uninitialised from OpenVINO 2026.4.1; "
        "a repeat by all ones with no new dims is now a copy of its input (graph/canonical_forms.cpp).",
    )
)


class SqueezeNoDims(nn.Module):
    def forward(self, x):
        return torch.squeeze(x, ()), torch.squeeze(x, (0,)), torch.squeeze(x, ()).sin()


def _squeeze_inputs(variant):
    torch.manual_seed(910 + variant)
    return (torch.randn(1, (3, 5)[variant], 1),)


register(
    ModelCase(
        name="squeeze_no_dims",
        make_module=lambda: SqueezeNoDims().eval(),
        make_inputs=_squeeze_inputs,
        dynamic_shapes=({1: Dim("width", min=2, max=16)},),
        exact_outputs=(0, 1),
        notes="squeeze.dims with dims=() is the identity in PyTorch; OpenVINO 2026.4.1 dropped every size-1 "
        "dim ([1, 3, 1] became [3]); it is now a copy of its input (graph/canonical_forms.cpp).",
    )
)


class VarianceCorrections(nn.Module):
    def forward(self, x):
        v, m = torch.var_mean(x)
        v1, m1 = torch.var_mean(x, 1, correction=1)
        v0, m0 = torch.var_mean(x, 0, correction=0)
        return (torch.var(x), torch.var(x, 1, correction=0), torch.var(x, 1, correction=1, keepdim=True), v, m, v1, m1,
                v0, m0, torch.std(x), torch.std(x, 1, correction=0))


def _variance_inputs(variant):
    torch.manual_seed(920 + variant)
    return (torch.randn((5, 7)[variant], 6),)


register(
    ModelCase(
        name="variance_corrections",
        make_module=lambda: VarianceCorrections().eval(),
        make_inputs=_variance_inputs,
        dynamic_shapes=({0: Dim("rows", min=2, max=16)},),
        notes="var / var_mean / std with correction left at its default (None, meaning 1): OpenVINO's FX "
        "converter reads an absent correction as 0 and divided by N instead of N - 1; a correction "
        "written out was right. pt2ov now writes the default out (graph/canonical_forms.cpp).",
    )
)


class Kthvalue(nn.Module):
    def forward(self, x):
        v, i = torch.kthvalue(x, 2, 1, True)
        w, j = torch.kthvalue(x, 3)
        return v, i, w, j


def _kthvalue_inputs(variant):
    torch.manual_seed(930 + variant)
    return (torch.randn((5, 2)[variant], 6),)


register(
    ModelCase(
        name="kthvalue_rows",
        make_module=lambda: Kthvalue().eval(),
        make_inputs=_kthvalue_inputs,
        dynamic_shapes=({0: Dim("rows", min=1, max=16)},),
        notes="kthvalue: OpenVINO 2026.4.1 gave values of the wrong shape ([1] for [5, 1]) and float32 indices "
        "(openvino_facts KthvalueConvertedWrongly); it runs on pt2ov's CPU kernel.",
    )
)


class TiedSelections(nn.Module):
    """topk and kthvalue where values tie and NaN appears: which index of equal values comes back is
    PyTorch's algorithms' choice (a partial sort when k is at most 1/64 of the dim, nth_element
    otherwise; a quickselect for kthvalue)."""

    def forward(self, ints, longs, floats, wide):
        outs = []
        for x in (ints, longs, floats):
            outs += list(torch.topk(x, 3))
            outs += list(torch.topk(x, 4, dim=0, largest=False))
            outs += list(torch.topk(x, 5, sorted=False))
            outs += list(torch.kthvalue(x, 4))
            outs += list(torch.kthvalue(x, 2, 0, True))
        outs += list(torch.topk(wide, 2))  # the partial-sort path
        outs += list(torch.topk(wide, 1, largest=False))
        return tuple(outs)


def _tied_selection_inputs(variant):
    g = torch.Generator().manual_seed(940 + variant)
    rows = (6, 3)[variant]
    ints = torch.randint(0, 4, (rows, 17), generator=g, dtype=torch.int32)
    floats = torch.randint(-2, 3, (rows, 17), generator=g).float()
    floats[0, 3] = floats[1, 9] = float("nan")
    wide = torch.randint(0, 3, (rows, 200), generator=g).float()
    wide[1, 150] = float("nan")
    return ints, ints.to(torch.int64) * 3, floats, wide


register(
    ModelCase(
        name="tied_selections",
        make_module=lambda: TiedSelections().eval(),
        make_inputs=_tied_selection_inputs,
        expect_exact=True,
        notes="topk: OpenVINO 2026.4.1's TopK returns other indices among equal values and does not take NaN as "
        "the largest (openvino_facts TopkOrderNotPyTorchs); kthvalue's CPU kernel took the first of equal "
        "values where PyTorch's quickselect picks another. Both run PyTorch's own algorithms on pt2ov's CPU "
        "kernels.",
    )
)


class HalfOverflow(nn.Module):
    """float16 chains whose middle overflows float16 in eager (inf) but not in float32."""

    def forward(self, x, y):
        # (soft_margin_loss is this first line in eager; torch's decomposition of it computes in
        # float32, so its decomposed program itself differs from eager)
        return (torch.log1p(torch.exp(-x * y)),
                x.pow(3) / 100,
                torch.sinh(x) - torch.cosh(x),
                torch.expm1(x) * 0.5)


def _half_overflow_inputs(variant):
    g = torch.Generator().manual_seed(950 + variant)
    x = (torch.rand(3 + variant, 5, generator=g) * 90 - 45).to(torch.float16)
    x[0, 0], x[1, 1] = 12.0, -12.0  # exp(12) overflows float16 in eager, 41^3 does too
    y = torch.where(torch.rand(3 + variant, 5, generator=g) > 0.5, 1.0, -1.0).to(torch.float16)
    return x, y


register(
    ModelCase(
        name="half_overflow",
        make_module=lambda: HalfOverflow().eval(),
        make_inputs=_half_overflow_inputs,
        rtol=1e-2,
        atol=1e-3,
        why="float16 has an 11-bit significand: eager rounds after every op, OpenVINO once per step",
        notes="OpenVINO 2026.4.1 computes float16 in float32 inside a step (openvino_facts "
        "HalfIntermediatesKeptInFloat): exp(12) was 162754.8 where eager's float16 is inf, so log1p(exp(12)) "
        "came back 12 (wrong, exit 0). The exp family runs on pt2ov's CPU kernel in float16.",
    )
)


class NonzeroZeroDim(nn.Module):
    def forward(self, zero, seven, v):
        return torch.nonzero(zero), torch.nonzero(seven), torch.nonzero(v)


def _nonzero_inputs(variant):
    return (torch.tensor(0.0), torch.tensor(7, dtype=torch.int32), torch.tensor([0.0, 1.5, 0.0, -2.0]))


register(
    ModelCase(
        name="nonzero_zero_dim",
        make_module=lambda: NonzeroZeroDim().eval(),
        make_inputs=_nonzero_inputs,
        notes="nonzero of a 0-d tensor: OpenVINO 2026.4.1 gave shape (n, 1), PyTorch (n, 0) "
        "(openvino_facts NonzeroOfZeroDimHasAColumn); the 1-d nonzero stays on OpenVINO.",
    )
)


class CdistNorms(nn.Module):
    def forward(self, a, b):
        return (torch.cdist(a, b, p=0), torch.cdist(a, b, p=1), torch.cdist(a, b, p=2), torch.cdist(a, b, p=3),
                torch.cdist(a, b, p=float("inf")))


def _cdist_inputs(variant):
    torch.manual_seed(940 + variant)
    a = torch.randn(2, 3, 4)
    b = torch.randn(2, 5, 4)
    b[0, 0] = a[0, 0]  # a zero distance: p = 0 counts differing coordinates
    return (a, b)


register(
    ModelCase(
        name="cdist_norms",
        make_module=lambda: CdistNorms().eval(),
        make_inputs=_cdist_inputs,
        notes="_cdist_forward: OpenVINO 2026.4.1 is right only for p = 2 (p = 0 gave inf, p = 1 and 3 NaN, "
        "p = inf a wrong maximum; openvino_facts CdistOnlyEuclidean); the others run on pt2ov's CPU kernel.",
    )
)


class Erfinv(nn.Module):
    def forward(self, y):
        return torch.erfinv(y)


def _erfinv_inputs(variant):
    return (torch.tensor([-0.99999, -0.9999, -0.999, -0.9, -0.5, 0.0, 0.3, 0.99, 0.999, 0.9999, 0.99999]),)


register(
    ModelCase(
        name="erfinv_near_one",
        make_module=lambda: Erfinv().eval(),
        make_inputs=_erfinv_inputs,
        notes="erfinv near +-1: OpenVINO 2026.4.1 was off by 5e-3 (openvino_facts ErfinvImprecise); it runs "
        "on pt2ov's CPU kernel, in float64.",
    )
)


class SafeSoftmax(nn.Module):
    def forward(self, x):
        # Alone: next to a softmax of a slice of x, OpenVINO 2026.4.1 happened to give the right zeros.
        return torch.ops.aten._safe_softmax(x, -1)


def _safe_softmax_inputs(variant):
    torch.manual_seed(950 + variant)
    x = torch.randn(3, 4)
    x[0] = float("-inf")
    x[2, 1] = float("-inf")
    return (x,)


register(
    ModelCase(
        name="safe_softmax_masked_rows",
        make_module=lambda: SafeSoftmax().eval(),
        make_inputs=_safe_softmax_inputs,
        notes="_safe_softmax of a fully masked row (all -inf): OpenVINO 2026.4.1 gave NaN, PyTorch 0 "
        "(openvino_facts SafeSoftmaxMaskedRowsNaN); it runs on pt2ov's CPU kernel.",
    )
)


class InstanceNormRunningStats(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(960)
        self.register_buffer("running_mean", torch.randn(3))
        self.register_buffer("running_var", torch.rand(3) + 0.5)
        self.weight = nn.Parameter(torch.rand(3) + 0.5)
        self.bias = nn.Parameter(torch.randn(3))

    def forward(self, x):
        return (torch.nn.functional.instance_norm(x, self.running_mean.clone(), self.running_var.clone(),
                                                  self.weight, self.bias, use_input_stats=True),
                torch.nn.functional.instance_norm(x, weight=self.weight, bias=self.bias))


def _instance_norm_inputs(variant):
    torch.manual_seed(961 + variant)
    return (torch.randn(2, 3, 5),)


register(
    ModelCase(
        name="instance_norm_running_stats",
        make_module=lambda: InstanceNormRunningStats().eval(),
        make_inputs=_instance_norm_inputs,
        notes="instance_norm with running statistics and use_input_stats=True: OpenVINO 2026.4.1 normalised "
        "with the running statistics (openvino_facts InstanceNormRunningStatsUsed); it runs on pt2ov's CPU "
        "kernel. Without running statistics it stays on OpenVINO.",
    )
)


class IntegerPromotions(nn.Module):
    def forward(self, i, b, f):
        return (torch.atan2(i, i.flip(0)), torch.cumsum(i, 1), torch.cumsum(b, 0), torch.prod(i), torch.prod(i, 1),
                torch.logsumexp(i, 1), torch.cumsum(i, 1, dtype=torch.int32), torch.atan2(i, f))


def _promotion_inputs(variant):
    i = torch.tensor([[3, -2, 5], [0, 4, -1]], dtype=torch.int32) + variant
    return (i, torch.tensor([True, False, True]), torch.tensor([[0.5, -1.0, 2.0], [1.0, 1.0, -3.0]]))


register(
    ModelCase(
        name="integer_result_promotions",
        make_module=lambda: IntegerPromotions().eval(),
        make_inputs=_promotion_inputs,
        notes="atan2, cumsum, prod and logsumexp of integer tensors: OpenVINO 2026.4.1 kept the input's dtype "
        "where PyTorch promotes (openvino_facts IntegerResultDtypeKept); cumsum with dtype= and atan2 with a "
        "float operand were right and stay on OpenVINO.",
    )
)


class Gcd(nn.Module):
    def forward(self, a, b, s, t):
        return torch.gcd(a, b), torch.gcd(s, t)


def _gcd_inputs(variant):
    # int32: int64 operands would run on the CPU anyway (Int64BeyondThirtyTwoBits).
    i32 = torch.int32
    return (torch.tensor([0, -9, -4, 12, 0], dtype=i32), torch.tensor([-5, 0, 6, -18, 0], dtype=i32),
            torch.tensor(0, dtype=i32), torch.tensor(-7, dtype=i32))


register(
    ModelCase(
        name="gcd_signs",
        make_module=lambda: Gcd().eval(),
        make_inputs=_gcd_inputs,
        notes="gcd with a zero and a negative operand: OpenVINO 2026.4.1 gave gcd(0, -5) = -5, PyTorch 5 "
        "(openvino_facts GcdSignWithZero); gcd runs on pt2ov's CPU kernel.",
    )
)


class LinspaceDtypes(nn.Module):
    def forward(self, x):
        return (x + torch.linspace(-3, 5, 7, dtype=torch.int32), torch.linspace(0, 10, 7, dtype=torch.int64),
                torch.linspace(0, 1, 7, dtype=torch.float64), x.float() * torch.linspace(-1, 1, 7))


def _linspace_inputs(variant):
    return (torch.arange(7, dtype=torch.int32) * (1 + variant),)


register(
    ModelCase(
        name="linspace_dtypes",
        make_module=lambda: LinspaceDtypes().eval(),
        make_inputs=_linspace_inputs,
        notes="linspace(dtype=torch.int32) came back float32 from OpenVINO 2026.4.1 (openvino_facts "
        "LinspaceDtypeIgnored); int64, float32 and float64 were kept and stay on OpenVINO. (float16 too is "
        "routed; its decomposed form, made of other ops, can differ from eager by one f16 ulp.)",
    )
)


class ConvolutionOfNoChannels(nn.Module):
    def forward(self, empty, w_empty, bias, x, w):
        return torch.nn.functional.conv2d(empty, w_empty, bias), torch.nn.functional.conv2d(x, w, bias, padding=1)


def _no_channel_inputs(variant):
    g = torch.Generator().manual_seed(variant)
    return (torch.zeros(2, 0, 5, 5), torch.zeros(4, 0, 3, 3), torch.randn(4, generator=g),
            torch.randn(2, 3, 5, 5, generator=g), torch.randn(4, 3, 3, 3, generator=g))


register(
    ModelCase(
        name="convolution_of_no_channels",
        make_module=lambda: ConvolutionOfNoChannels().eval(),
        make_inputs=_no_channel_inputs,
        notes="conv2d of an input with no channels: PyTorch returns no channels ([2, 0, 3, 3]), OpenVINO 2026.4.1 "
        "returned the weight's four ([2, 4, 3, 3]) with exit 0 (openvino_facts ConvolutionOfNoChannels); such a "
        "convolution runs on pt2ov's CPU kernel, the one with channels stays on OpenVINO.",
    )
)


# ---- Faults found by random programs (issue of composed programs), each re-measured on OpenVINO
# alone by its fact's test. ----


class AbsOfFoldedConstant(nn.Module):
    """|p * 2| + x and |sin(p)| + x for a buffer p: the plugin folds the constant part and lost
    the rank-1 abs; the rank-2 one beside it was right."""

    def __init__(self):
        super().__init__()
        self.register_buffer("p", torch.tensor([-0.5, 2.0, -3.0]))
        self.register_buffer("q", torch.tensor([[-0.5, 2.0, -3.0], [1.0, -1.0, 2.0]]))

    def forward(self, x):
        return ((self.p * 2).abs() + x, torch.sin(self.p).abs() + x, torch.nn.functional.gelu(self.p).abs() * x,
                (self.q * 2).abs() + x)


def _abs_folded_inputs(variant):
    return (torch.zeros(3) if variant == 0 else torch.tensor([0.5, -1.0, 2.0]),)


register(
    ModelCase(
        name="abs_of_folded_constant",
        make_module=lambda: AbsOfFoldedConstant().eval(),
        make_inputs=_abs_folded_inputs,
        notes="(p * 2).abs() + x at x = 0 for a buffer p = [-0.5, 2, -3] came back [-1, 4, -6] from OpenVINO 2026.4.1 "
        "(openvino_facts AbsOfFoldedConstantRankOne): a rank-1 Abs of a folded constant expression lost its abs; "
        "every rank-1 Abs is now computed at rank 2 in the converted model (lower/plugin_workarounds.cpp). Since "
        "constants' arithmetic is computed once at load on the CPU kernels, `p * 2` no longer reaches OpenVINO "
        "(except under --strict, where the rewrite still holds).",
    )
)


class AbsOfConcat(nn.Module):
    """A rank-1 cat read by abs and by other users, and logsigmoid of a cat (whose conversion
    holds an Abs)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("c", torch.tensor([0.5, -0.25]))

    def forward(self, x):
        y = torch.cat([x, self.c])
        return y + 1, y.abs(), torch.nn.functional.logsigmoid(torch.cat([x, x])), y


def _abs_concat_inputs(variant):
    # 4,096 values: a step this size stays on OpenVINO beside the CPU kernels' log1p (a smaller
    # one would run on the CPU kernels, cheaper there, and the fault never show).
    return (torch.full((4096,), 0.7) if variant == 0 else torch.linspace(-1.3, 1.1, 4096),)


register(
    ModelCase(
        name="abs_of_concat",
        make_module=lambda: AbsOfConcat().eval(),
        make_inputs=_abs_concat_inputs,
        notes="y = cat([x, c]); y + 1 came back [1.7, 1.5, 1.25] for [1.7, 1.5, 0.75] beside y.abs(), and "
        "logsigmoid(cat([x, x])) as logsigmoid(|x|), from OpenVINO 2026.4.1 (openvino_facts AbsOfConcatRankOne): "
        "the rank-1 Abs wrote into the Concat's memory; every rank-1 Abs is now computed at rank 2.",
    )
)


class InterpolateToSizeOne(nn.Module):
    def forward(self, x1, x2, x3):
        f = torch.nn.functional.interpolate
        return (f(x1, size=1, mode="linear", align_corners=False),
                f(x2, size=(1, 1), mode="bilinear", align_corners=False),
                f(x2, size=(1, 8), mode="bicubic", align_corners=False),
                f(x3, size=(1, 1, 2), mode="trilinear", align_corners=False),
                f(x2, size=(8, 2), mode="bilinear", align_corners=False),
                f(x2, scale_factor=0.5, mode="bilinear", align_corners=False))


# Sizes whose ratios are powers of two: the resizes stay on OpenVINO (a ratio of another kind
# runs on the CPU kernel: LinearInterpolateCoordinateRounded, interpolate_of_large_neighbours).
def _interpolate_one_inputs(variant):
    g = torch.Generator().manual_seed(40 + variant)
    return (torch.randn(2, 3, 4, generator=g), torch.randn(1, 2, 4, 4, generator=g),
            torch.randn(1, 1, 2, 4, 4, generator=g))


register(
    ModelCase(
        name="interpolate_to_size_one",
        make_module=lambda: InterpolateToSizeOne().eval(),
        make_inputs=_interpolate_one_inputs,
        notes="interpolate to an output size of 1 in linear, bilinear, bicubic and trilinear modes "
        "(align_corners=False) sampled the first input position in OpenVINO 2026.4.1, where PyTorch samples the "
        "middle ([1, 2] gave 1.0 for 1.5; openvino_facts InterpolateToSizeOneAtOrigin); such Interpolates now use "
        "half-pixel coordinates, which agree with PyTorch's at every length. The larger sizes beside check that "
        "nothing else moved.",
    )
)


class UnitConvolutionStridedPadded(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1, stride=2, padding=1)
        self.conv_1d = nn.Conv1d(3, 2, 1, stride=3, padding=2)
        self.unpadded = nn.Conv2d(4, 4, 1, stride=2)

    def forward(self, x, s):
        return self.conv(torch.relu(x)), self.conv_1d(torch.sigmoid(s)), self.unpadded(torch.relu(x))


def _unit_conv_inputs(variant):
    g = torch.Generator().manual_seed(60 + variant)
    return (torch.randn(1, 4, 5, 5, generator=g), torch.randn(2, 3, 7, generator=g))


register(
    ModelCase(
        name="unit_convolution_strided_padded",
        make_module=lambda: (torch.manual_seed(61), UnitConvolutionStridedPadded().eval())[1],
        make_inputs=_unit_conv_inputs,
        notes="Conv2d(4, 4, 1, stride=2, padding=1)(relu(x)) on [1, 4, 5, 5] came back [1, 4, 5, 5] for "
        "[1, 4, 4, 4] from OpenVINO 2026.4.1 (openvino_facts UnitConvolutionStridedPaddedShape); such a "
        "convolution runs on pt2ov's kernel, the unpadded one stays on OpenVINO.",
    )
)


class DilatedUnitKernel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(6, 2, (3, 1), stride=2, padding=1, dilation=(1, 2))

    def forward(self, x):
        return self.conv(x)


def _dilated_unit_inputs(variant):
    g = torch.Generator().manual_seed(70 + variant)
    return (torch.randn(2, 6, 1, 1, generator=g),)


register(
    ModelCase(
        name="dilated_unit_kernel_convolution",
        make_module=lambda: (torch.manual_seed(71), DilatedUnitKernel().eval())[1],
        make_inputs=_dilated_unit_inputs,
        notes="Conv2d(6, 2, (3, 1), stride=2, padding=1, dilation=(1, 2)) with its bias on [2, 6, 1, 1] killed the "
        "process (SIGSEGV) in OpenVINO 2026.4.1's CPU plugin (openvino_facts DilatedUnitKernelCrash); the dilation "
        "along the kernel dim of size 1, which moves no tap, is now set to 1 in the converted model.",
    )
)


class GroupNormMeetsComputed(nn.Module):
    """group_norm whose result meets other computed tensors (found by our generator, seed 30371)."""

    def __init__(self):
        super().__init__()
        self.norm = nn.GroupNorm(6, 6)
        self.wide = nn.GroupNorm(2, 8)

    def forward(self, x, y, z):
        first = torch.addcdiv(self.norm(y), y, x)
        second = self.wide(z) + torch.sigmoid(z)
        return first, second


def _group_norm_meets_computed_inputs(variant):
    g = torch.Generator().manual_seed(80 + variant)
    return (torch.randn(2, 6, 5, generator=g) + 3.0, torch.randn(2, 6, 5, generator=g), torch.randn(1, 8, 4, 4, generator=g))


def _group_norm_meets_computed_module():
    torch.manual_seed(81)
    module = GroupNormMeetsComputed().eval()
    with torch.no_grad():
        for norm in (module.norm, module.wide):
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-1.0, 1.0)
    return module


register(
    ModelCase(
        name="group_norm_meets_computed",
        make_module=_group_norm_meets_computed_module,
        make_inputs=_group_norm_meets_computed_inputs,
        notes="addcdiv(group_norm(y), y, x), and group_norm(z) + sigmoid(z): OpenVINO 2026.4.1's CPU plugin killed the "
        "process (SIGSEGV) whenever a GroupNormalization's result met another computed tensor in a binary op "
        "(openvino_facts GroupNormWithComputedOperandCrashes); every GroupNormalization is now written as a reshape, "
        "an MVN and the per-channel scale and shift.",
    )
)


class IntegerReduceOfRankThree(nn.Module):
    """Integer reductions of rank-3 inputs that leave out dim 0, then arithmetic on the result
    (found by NNSmith, seed 20516: max over a dim of size 1, neg, cat)."""

    def forward(self, x, n):
        peak = x.amax(1).neg()
        total = x.sum((1, 2), dtype=torch.int32) * 3
        low = torch.min(x, 2).values - 1
        ones = n.max(dim=1).values.neg()
        return peak, total, low, torch.cat([ones, ones], 1), ones.float().minimum(ones.float())


def _integer_reduce_inputs(variant):
    g = torch.Generator().manual_seed(90 + variant)
    return (torch.randint(-50, 50, (5, 3, 4), generator=g, dtype=torch.int32),
            torch.randint(-9, 9, (34, 1, 1), generator=g, dtype=torch.int32))


register(
    ModelCase(
        name="integer_reduce_of_rank_three",
        make_module=lambda: IntegerReduceOfRankThree().eval(),
        make_inputs=_integer_reduce_inputs,
        notes="OpenVINO 2026.4.1's CPU plugin fuses an Add/Subtract/Multiply by a constant into an integer "
        "reduction of a rank-3 input over dims that leave out dim 0, and then gives zeros past the first rows "
        "(openvino_facts ReduceFusedArithmeticWrong): wrong, exit 0. The converted model reaches such ops through "
        "Maximum(r, r), which the plugin does not fuse.",
    )
)


class RepeatToHigherRank(nn.Module):
    """x.repeat with more repeats than x has dims (found by our generator, seed 40032)."""

    def forward(self, x, y):
        return x.repeat(1, 1, 2, 2, 2), y.repeat(2, 1, 2, 1, 2, 2) + 1


def _repeat_higher_rank_inputs(variant):
    g = torch.Generator().manual_seed(100 + variant)
    return (torch.randn(2, 3, 2, 5, generator=g), torch.randn(2, 1, 3, 2, 2, generator=g))


register(
    ModelCase(
        name="repeat_to_higher_rank",
        make_module=lambda: RepeatToHigherRank().eval(),
        make_inputs=_repeat_higher_rank_inputs,
        notes="x.repeat(1, 1, 2, 2, 2) of a [2, 3, 2, 5] x: OpenVINO 2026.4.1's Tile raising rank 4 or 5 with three "
        "or more dims repeated gave garbage for every value (openvino_facts TileRaisingRankUninitialised), OpenVINO alone "
        "too; the Tile's data now gets its leading dims of 1 explicitly.",
    )
)


class ConstantOpTimesInput(nn.Module):
    """avg_pool2d, conv2d or fmod of parameters alone, then arithmetic with the input (found by
    NNSmith, seed 41573: the second call onward returned zeros). One output each: with several,
    the plugin happened to keep the values."""

    def __init__(self, which):
        super().__init__()
        generator = torch.Generator().manual_seed(41573)
        self.p = nn.Parameter(torch.randn(4, 1, 1, 12, generator=generator), requires_grad=False)
        self.w = nn.Parameter(torch.randn(3, 2, 3, 3, generator=generator), requires_grad=False)
        self.q = nn.Parameter(torch.randn(1, 2, 6, 6, generator=generator), requires_grad=False)
        self.which = which

    def forward(self, x):
        if self.which == "avg_pool2d":
            return torch.nn.functional.avg_pool2d(self.p, [1, 5], [1, 1]).reshape(-1, 1) * x
        if self.which == "conv2d":
            return torch.nn.functional.conv2d(self.q, self.w) + x
        return torch.fmod(self.q, 0.7) * x


for _which in ("avg_pool2d", "conv2d", "fmod"):
    register(
        ModelCase(
            name=f"{_which}_of_parameters_then_input",
            make_module=lambda which=_which: ConstantOpTimesInput(which).eval(),
            make_inputs=lambda variant: (torch.tensor([0.7 + variant]),),
            notes="OpenVINO 2026.4.1 computes an op of constants alone that it cannot fold (AvgPool, Convolution, "
            "Mod, ...) once, and an elementwise op fused after it writes into that memory: the second call returned "
            "other values (zeros in the random program, exit 0; openvino_facts ConstantOpWithoutEvaluateDrifts). "
            "pt2ov computes such ops at load and gives the model their values as constants.",
        )
    )


class ByteMatrixProducts(nn.Module):
    """Matrix products of uint8 and int8 tensors, whose sums wrap in PyTorch (found by NNSmith,
    seed 50694: a bmm of a uint8 cat)."""

    def forward(self, a, b, c):
        return torch.bmm(a, a.transpose(1, 2)), a[0] @ b, torch.mm(c, c.t())


def _byte_product_inputs(variant):
    g = torch.Generator().manual_seed(50694 + variant)
    return (torch.randint(0, 255, (3, 4, 5), generator=g, dtype=torch.uint8),
            torch.randint(0, 255, (5, 2), generator=g, dtype=torch.uint8),
            torch.randint(-128, 127, (4, 6), generator=g, dtype=torch.int8))


register(
    ModelCase(
        name="byte_matrix_products",
        make_module=lambda: ByteMatrixProducts().eval(),
        make_inputs=_byte_product_inputs,
        notes="8-bit MatMul saturates on OpenVINO 2026.4.1 where PyTorch wraps modulo 256 (uint8 [[200, 100, 3]] x "
        "[[2], [2], [1]] gave 255, PyTorch 91; openvino_facts ByteArithmeticSaturates), wrong with exit 0; 8-bit "
        "matrix products run on pt2ov's CPU kernels.",
    )
)


class Int32MatrixProducts(nn.Module):
    """Matrix products of int32 and int16 tensors, whose sums wrap in PyTorch (found by the `large`
    structured inputs, NNSmith seed 140735: a float cast to int32, flattened and multiplied by
    itself; every value -2**31, the sum 0 in PyTorch, 2147483520 through OpenVINO)."""

    def forward(self, a, b, v, h):
        return a @ b, torch.matmul(v, v), torch.bmm(a[None], b[None]), torch.mm(h, h)


def _int32_product_inputs(variant):
    return (torch.tensor([[46341, 2], [3, 16777217 + variant]], dtype=torch.int32),
            torch.tensor([[46341, 1], [1, 3]], dtype=torch.int32),
            torch.full((5 + variant,), -2**31, dtype=torch.int32),
            torch.tensor([[181, 2], [300, -32000]], dtype=torch.int16))


register(
    ModelCase(
        name="int32_matrix_products",
        make_module=lambda: Int32MatrixProducts().eval(),
        make_inputs=_int32_product_inputs,
        notes="int16/int32 MatMul is computed in float32 on OpenVINO 2026.4.1 and converted back saturating: "
        "[[46341, 2]] @ [[46341], [1]] gave 2147483520 (PyTorch -2147479013, wrapped), the dot of five -2**31 "
        "2147483520 (PyTorch 0); openvino_facts IntegerProductsInFloat, wrong with exit 0; these products run on "
        "pt2ov's CPU kernels.",
    )
)


class FloorDivisionOfRoundedQuotient(nn.Module):
    """Floating floor division whose rounded quotient is an integer the exact one is below (found
    by the `small` structured inputs, own seed 140687: a tiny value floor-divided by a huge one)."""

    def forward(self, a, b):
        return torch.div(a * 1.0, b, rounding_mode="floor"), (a + 0.0) // 0.1


def _floor_division_inputs(variant):
    return (torch.tensor([1.0, -1e-30, 1e-30, 7.0, -7.0, 0.3, 2.0 + variant]),
            torch.tensor([0.1, 1e30, -1e30, 2.0, 2.0, 0.1, 0.2]))


register(
    ModelCase(
        name="floor_division_of_rounded_quotient",
        make_module=lambda: FloorDivisionOfRoundedQuotient().eval(),
        make_inputs=_floor_division_inputs,
        notes="float floor division on OpenVINO 2026.4.1 is floor(a / b) of the rounded quotient: 1 // 0.1 gave 10 "
        "(PyTorch 9, as Python), -1e-30 // 1e30 gave 0 (PyTorch -1); openvino_facts FloorDivisionOfRoundedQuotient, "
        "wrong with exit 0; floating floor division runs on pt2ov's CPU kernels.",
    )
)


class RepeatInterleaveOfZero(nn.Module):
    def forward(self, x):
        return x.repeat_interleave(0, dim=2), x.repeat_interleave(2, dim=1) * 2.0, x + 1.0


register(
    ModelCase(
        name="repeat_interleave_of_zero",
        make_module=lambda: RepeatInterleaveOfZero().eval(),
        make_inputs=lambda variant: (torch.randn(2, 3, 4 + variant, generator=torch.Generator().manual_seed(80 + variant)),),
        notes="x.repeat_interleave(0, dim=2) killed the process with SIGFPE inside OpenVINO 2026.4.1's CPU plugin at "
        "load (openvino_facts RepeatInterleaveOfZeroCrashes; found while adding its CPU kernel); it runs on pt2ov's "
        "CPU kernel, other repeat counts stay on OpenVINO.",
    )
)


class ConvolutionOfZerosLike(nn.Module):
    """A grouped conv2d of zeros_like(x) plus a bias input (found by our random programs, seed
    50822: the second call returned twice the bias)."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(12, 1, 3, 1, generator=torch.Generator().manual_seed(50822)),
                                   requires_grad=False)

    def forward(self, bias, x):
        return torch.nn.functional.conv2d(torch.zeros_like(x), self.weight, bias, stride=[2, 1], padding=[2, 0],
                                          dilation=[2, 1], groups=3)


register(
    ModelCase(
        name="convolution_of_zeros_like",
        make_module=lambda: ConvolutionOfZerosLike().eval(),
        make_inputs=lambda variant: (torch.randn(12, generator=torch.Generator().manual_seed(60 + variant)),
                                     torch.randn(2, 3, 6, 14, generator=torch.Generator().manual_seed(61 + variant))),
        notes="zeros_like(x) is Broadcast(0, ShapeOf(x)), a constant once x's shape is static: the plugin computed the "
        "convolution of it once and the bias Add fused after it accumulated into it, twice the bias on the second "
        "call (openvino_facts ConstantOpWithoutEvaluateDrifts); pt2ov's precompute now takes the shape of a static "
        "value as a constant too.",
    )
)


class NormOfEqualValues(nn.Module):
    """layer_norm (and group_norm) of rows whose values are all equal, beside ordinary rows (found
    by our random programs, seeds 50839 and 51161: a tile and a cummax made such rows)."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(6)
        self.groups = nn.GroupNorm(2, 4)
        with torch.no_grad():
            self.norm.weight.copy_(torch.linspace(0.5, 1.5, 6))
            self.norm.bias.copy_(torch.linspace(-0.2, 0.3, 6))

    def forward(self, x, y):
        return self.norm(x), self.groups(y)


def _equal_rows_inputs(variant):
    g = torch.Generator().manual_seed(50839 + variant)
    x = torch.randn(5, 4, 6, generator=g)
    x[:, 1, :] = x[:, 1, :1]  # rows of one value
    y = torch.randn(2, 4, 3, generator=g)
    y[:, :2, :] = -0.6059330105781555
    return (x, y)


register(
    ModelCase(
        name="norm_of_equal_values",
        make_module=lambda: NormOfEqualValues().eval(),
        make_inputs=_equal_rows_inputs,
        notes="OpenVINO 2026.4.1's MVN rounds the mean of a row of equal values, which the division by "
        "sqrt(var + eps) magnifies beyond E5 (5.6e-5 off in the random program, exit 0; PyTorch gives the bias "
        "exactly; openvino_facts MeanOfEqualValuesRounded); each row is now shifted by its first element first.",
    )
)


class ErfcOfLargeValues(nn.Module):
    """logical_not of erfc of values from 4 on, where erfc is tiny but not 0 (found by our random
    programs, seed 52497)."""

    def forward(self, x):
        e = torch.special.erfc(x)
        return torch.logical_not(e), e


register(
    ModelCase(
        name="erfc_of_large_values",
        make_module=lambda: ErfcOfLargeValues().eval(),
        make_inputs=lambda variant: (torch.tensor([[4.46, 5.82, 0.5], [-1.0, 3.1, 8.0 + variant]]),),
        notes="OpenVINO 2026.4.1 computes erfc as 1 - erf(x), 0 in float32 from x = 4 on (PyTorch erfc(4.46) is "
        "2.8e-10); logical_not after it gave True for False, exit 0 (openvino_facts ErfcOfLargeValuesZero); every "
        "floating erfc runs on pt2ov's CPU kernel.",
    )
)


class SqueezeEveryDimThenIndexCopy(nn.Module):
    """gather, squeeze() of every dim (some not of size 1), then index_copy (found by our random
    programs, seed 53255: its decomposed form killed the process in OpenVINO's frontend)."""

    def forward(self, x, idx, j, src):
        v = torch.gather(x, 2, idx).squeeze()
        return v.index_copy(1, j, src), torch.argsort(v, dim=1, stable=True)


register(
    ModelCase(
        name="squeeze_every_dim_then_index_copy",
        make_module=lambda: SqueezeEveryDimThenIndexCopy().eval(),
        make_inputs=lambda variant: (torch.randn(1, 3, 1, 6, generator=torch.Generator().manual_seed(53255 + variant)),
                                     torch.zeros(1, 1, 4, 6, dtype=torch.int64), torch.tensor([1]),
                                     torch.randn(4, 1, generator=torch.Generator().manual_seed(53256 + variant))),
        notes="squeeze.dims(x, [0, 1, 2, 3]) of a [1, 1, 4, 6] x before an index_put (the decomposed index_copy) killed "
        "the process (SIGSEGV) in OpenVINO 2026.4.1's FrontEnd::normalize, OpenVINO alone too; pt2ov now lists only "
        "the dims of size 1 (graph/canonical_forms), the same squeeze.",
    )
)


class ReducedTransposeOfUnitDims(nn.Module):
    """max over dim 0 then a transpose that moves a dim of size 1 (found by NNSmith, seed 10076)."""

    def forward(self, x):
        g = torch.nn.functional.gelu(x)
        return x.sin(), g, g.max(dim=0).values.transpose(0, 1), x.sum(0).transpose(0, 1) * 2


def _reduced_transpose_inputs(variant):
    g = torch.Generator().manual_seed(80 + variant)
    return (torch.randn(3, 7, 1, 15, 4, generator=g),)


register(
    ModelCase(
        name="reduced_transpose_of_unit_dims",
        make_module=lambda: ReducedTransposeOfUnitDims().eval(),
        make_inputs=_reduced_transpose_inputs,
        notes="x.max(dim=0).values.transpose(0, 1) for a [3, 7, 1, 15, 4] input: OpenVINO 2026.4.1 returned [7, 1, 15, 4] "
        "for [1, 7, 15, 4] (openvino_facts TransposeOfUnitDimsAfterReduce; the output guard refused it, exit 3); a "
        "transpose that moves only dims of size 1 is now a Reshape in the converted model.",
    )
)


class ReshapedBroadcastToHigherRank(nn.Module):
    """flatten, then a minimum against a [1, 1, 1, 1] buffer (found by NNSmith, seed 10121)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("bound", torch.full((1, 1, 1, 1), 3, dtype=torch.int32))
        self.register_buffer("offset", torch.ones(1, 1))

    def forward(self, i, x):
        return torch.min(torch.abs(i).flatten(), self.bound), x.flatten() + self.offset


def _reshaped_broadcast_inputs(variant):
    g = torch.Generator().manual_seed(90 + variant)
    return (torch.randint(-8, 8, (1, 7, 1, 32), generator=g, dtype=torch.int32), torch.randn(2, 3, 4, generator=g))


register(
    ModelCase(
        name="reshaped_broadcast_to_higher_rank",
        make_module=lambda: ReshapedBroadcastToHigherRank().eval(),
        make_inputs=_reshaped_broadcast_inputs,
        notes="min(flatten(i), bound) with a [1, 1, 1, 1] buffer: OpenVINO 2026.4.1 returned [224] for [1, 1, 1, 224] "
        "(openvino_facts ReshapeBroadcastRankLost; the output guard refused it, exit 3); the lower-rank operand of an "
        "elementwise op now gets its leading dims of 1 explicitly in the converted model.",
    )
)


class Atan2OfNegativeZero(nn.Module):
    """atan2 of a truncated division that gives -0.0, over a negative x (found by our random
    programs, seed 10735)."""

    def forward(self, a, b, x):
        q = torch.div(a, b, rounding_mode="trunc")
        return torch.atan2(q, x), torch.atan2(a * 0, x), torch.copysign(torch.ones_like(q), q), q


def _atan2_zero_inputs(variant):
    return (torch.tensor([-0.3, 0.3, -2.5, 2.5]) * (1 + variant), torch.tensor(2.0), -torch.ones(4))


register(
    ModelCase(
        name="atan2_of_negative_zero",
        make_module=lambda: Atan2OfNegativeZero().eval(),
        make_inputs=_atan2_zero_inputs,
        notes="atan2(-0.0, -1) gave +pi for PyTorch's -pi in OpenVINO 2026.4.1 (openvino_facts Atan2OfNegativeZero), "
        "and a trunc division gave +0.0 for -0.0 (TruncDivisionLosesSignOfZero), which the atan2 and copysign after it "
        "read: a wrong answer with exit 0 in a random program; both run on pt2ov's CPU kernels.",
    )
)


class ShiftCounts(nn.Module):
    def forward(self, x, counts):
        return torch.bitwise_left_shift(x, counts)


register(
    ModelCase(
        name="shift_counts",
        make_module=lambda: ShiftCounts().eval(),
        make_inputs=lambda variant: (torch.tensor([5, -5, 5, 3, 1, 7], dtype=torch.int32) + variant,
                                     torch.tensor([2, 40, -1, 31, 32, 0], dtype=torch.int32)),
        notes="OpenVINO's BitwiseLeftShift takes the count modulo 32 (5 << 40 gave 1280, PyTorch 0; "
        "openvino_facts ShiftCountWraps): every shift runs on pt2ov's CPU kernel.",
    )
)


class NearestDownscale(nn.Module):
    """A nearest resize that shrinks 56 columns to 2, feeding a bicubic one, beside a nearest
    enlargement (found by NNSmith, seed 11103)."""

    def forward(self, x, y):
        f = torch.nn.functional.interpolate
        shrunk = f(y, size=(55, 2), mode="nearest")
        return shrunk, f(shrunk, size=(1, 110), mode="bicubic", align_corners=False), f(x, scale_factor=2.0, mode="nearest")


def _nearest_downscale_inputs(variant):
    g = torch.Generator().manual_seed(100 + variant)
    return (torch.randn(1, 2, 3, 4, generator=g), torch.randn(2, 1, 1, 56, generator=g))


register(
    ModelCase(
        name="nearest_downscale",
        make_module=lambda: NearestDownscale().eval(),
        make_inputs=_nearest_downscale_inputs,
        notes="interpolate(y, size=(55, 2), mode='nearest') of 56 columns took column 27 for PyTorch's 28 in OpenVINO "
        "2026.4.1 (openvino_facts NearestDownscaleIndexRoundsDown), wrong with exit 0 (off by 2.7 after the bicubic); "
        "a nearest resize that shrinks a dim runs on pt2ov's CPU kernel, the 2x enlargement stays on OpenVINO.",
    )
)


class FmodOfParameter(nn.Module):
    """fmod of a parameter, then layer_norm (the random run's own seed 13218, reduced)."""

    def __init__(self):
        super().__init__()
        generator = torch.Generator().manual_seed(13218)
        self.p = nn.Parameter(torch.randn(2, 4, 1, 3, generator=generator))
        self.weight = nn.Parameter(torch.randn(1, 3, generator=generator))

    def forward(self, bias):
        return nn.functional.layer_norm(torch.fmod(self.p, -2.5), [1, 3], self.weight, bias)


register(
    ModelCase(
        name="fmod_of_parameter",
        make_module=lambda: FmodOfParameter().eval(),
        make_inputs=lambda variant: (torch.randn(1, 3, generator=torch.Generator().manual_seed(40 + variant)),),
        notes="OpenVINO 2026.4.1's Mod of a Constant dividend changed the constant on every call (openvino_facts "
        "FmodOfConstantDrifts): the first call was right, the second gave other values (-1e11 for -1.5 in the "
        "random program, exit 0); every floating fmod runs on pt2ov's CPU kernel.",
    )
)


class TransposedNormOfLeadingDims(nn.Module):
    """The transpose of a norm over the leading dims, beside the norm itself (found by our random
    programs, seed 12309)."""

    def forward(self, x):
        n = torch.linalg.vector_norm(x, 2, dim=[0, 1])
        return n.t(), x.sum(dim=(0, 1)).reshape(4, 1), torch.nn.functional.softshrink(n)


def _transposed_norm_inputs(variant):
    g = torch.Generator().manual_seed(12309 + variant)
    return (torch.randn(3, 3, 1, 4, generator=g),)


register(
    ModelCase(
        name="transposed_norm_of_leading_dims",
        make_module=lambda: TransposedNormOfLeadingDims().eval(),
        make_inputs=_transposed_norm_inputs,
        notes="vector_norm(x, dim=[0, 1]).t() of [3, 3, 1, 4]: OpenVINO 2026.4.1 returned [1, 4] for [4, 1] "
        "(openvino_facts ReshapeAfterReduceLost; the output guard refused it, exit 3), a Reshape in place of the "
        "Transpose alike; a Reduce whose result is reshaped is now computed with keep_dims in the converted model.",
    )
)


class ByteArithmetic(nn.Module):
    """uint8 arithmetic that wraps, beside the same in int32 (found by NNSmith, seed 12251)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("base", torch.tensor([254, 0, 3, 9], dtype=torch.uint8))

    def forward(self, x, y, i):
        d = self.base - x
        return d, y * d, (d + 200).argmax(), i - 7 * i


def _byte_inputs(variant):
    return (torch.tensor([1, 4, 3, 2], dtype=torch.uint8) + variant, torch.tensor([4], dtype=torch.uint8),
            torch.tensor([5, -5, 1 << 20, 0], dtype=torch.int32))


register(
    ModelCase(
        name="byte_arithmetic",
        make_module=lambda: ByteArithmetic().eval(),
        make_inputs=_byte_inputs,
        notes="uint8 sub, mul and add wrap in PyTorch and saturated in OpenVINO 2026.4.1 (0 - 1 gave 0 for 255; "
        "openvino_facts ByteArithmeticSaturates), wrong with exit 0 in a random program; 8-bit add/sub/mul run on "
        "pt2ov's CPU kernels, the int32 ones stay on OpenVINO.",
    )
)


class SortedSoftplus(nn.Module):
    """The order of softplus values of very negative inputs (found by our random programs, seed
    12899)."""

    def forward(self, x):
        soft = torch.nn.functional.softplus(x, beta=2.0, threshold=5.0)
        return torch.sort(soft, dim=0, stable=True)[1], soft


def _sorted_softplus_inputs(variant):
    # Neighbours differ by 0.04 %: one float32 step of 1 + exp(2x) (0.6 % here) holds three of them.
    # 1024 columns: a step large enough to stay on OpenVINO (placement's small-step rule).
    column = torch.tensor([-5.1, -5.1002, -5.1004, -5.1006, -5.1008, -5.101, -5.102, -5.103]) - 0.01 * variant
    return (column[:, None].expand(8, 1024).contiguous(),)


register(
    ModelCase(
        name="sorted_softplus",
        make_module=lambda: SortedSoftplus().eval(),
        make_inputs=_sorted_softplus_inputs,
        notes="log1p (and softplus, decomposed to log1p(exp(x))) computes Log(1 + x) in float32 on OpenVINO 2026.4.1: "
        "log1p(1e-7) gave 1.19e-07 (openvino_facts Log1pCancelsNearZero); a sort after a softplus of very negative "
        "values returned indices in another order with exit 0; every floating log1p runs on pt2ov's CPU kernel.",
    )
)


class ReduceOfUnsqueezedNegativeDims(nn.Module):
    """amin over negative dims of an unsqueezed tensor, beside the same with dims >= 0 (found by
    our random programs, seed 30256)."""

    def forward(self, x):
        return torch.amin(x.unsqueeze(-1), dim=(-3, -2)), torch.sum(x.unsqueeze(2), dim=-3), torch.amax(x.unsqueeze(1), dim=(0, 2))


def _unsqueezed_reduce_inputs(variant):
    g = torch.Generator().manual_seed(30256 + variant)
    return (torch.randn(2, 3, 4, generator=g),)


register(
    ModelCase(
        name="reduce_of_unsqueezed_negative_dims",
        make_module=lambda: ReduceOfUnsqueezedNegativeDims().eval(),
        make_inputs=_unsqueezed_reduce_inputs,
        notes="amin(x.unsqueeze(-1), dim=(-3, -2)) of [2, 3, 4]: OpenVINO 2026.4.1 returned [4, 1] for [2, 1] "
        "(openvino_facts ReduceAxesNegativeAfterUnsqueeze: its PullReshapeThroughReduce keeps negative axes of the "
        "higher rank; the output guard refused it, exit 3); a Reduce's negative axes are now written >= 0 in the "
        "converted model.",
    )
)


class ClampOfExpandedToHigherRank(nn.Module):
    """clip of an expand that adds leading dims, float and int32 (found by NNSmith, seeds 32587 and
    20941), and the same with [1, 1] tensor bounds."""

    def __init__(self):
        super().__init__()
        self.register_buffer("low", torch.full((1, 1), -0.25))
        self.register_buffer("high", torch.full((1, 1), 0.75))

    def forward(self, x, i, y):
        return (x.expand(1, 56).clip(-1.5, 1.5), i.expand(1, 1, 1, 59).clip(-1, 1), x.clip(-0.5, 0.5),
                y.expand(1, 56).clamp(self.low, self.high))


def _expanded_clamp_inputs(variant):
    g = torch.Generator().manual_seed(32587 + variant)
    return (torch.randn(56, generator=g), torch.randint(-3, 4, (59,), generator=g, dtype=torch.int32),
            torch.randn(56, generator=g))


class ReduceThenArithmetic(nn.Module):
    """Arithmetic right after a reduction, which OpenVINO's CPU plugin fuses into it (found by
    NNSmith, seed 31491, and our random programs, seed 32074)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor([True, False, False, True]))

    def forward(self, i, x):
        return -torch.amin(i, dim=2), x.sum(dim=2) * self.mask, x.sum(dim=2) * 2.0


def _reduce_then_arithmetic_inputs(variant):
    g = torch.Generator().manual_seed(31491 + variant)
    return (torch.randint(-5, 6, (30, 2, 3), generator=g, dtype=torch.int32), torch.randn(2, 4, 4, generator=g))


register(
    ModelCase(
        name="clamp_of_expanded_to_higher_rank",
        make_module=lambda: ClampOfExpandedToHigherRank().eval(),
        make_inputs=_expanded_clamp_inputs,
        notes="x.expand(1, 56).clip(-1.5, 1.5): OpenVINO 2026.4.1 returned [56] for [1, 56] (openvino_facts "
        "ClampOfBroadcastRankLost; the output guard refused it, exit 3): the ReshapeBroadcastRankLost rewrite had "
        "made clamp's scalar bounds [1, 1] constants, and Minimum(Maximum(Broadcast(x), c), c) with such bounds loses "
        "the Broadcast's rank; operands computed from constants alone are no longer raised, and Maximum/Minimum "
        "bounds of dims 1 are given as scalars.",
    )
)


register(
    ModelCase(
        name="reduce_then_arithmetic",
        make_module=lambda: ReduceThenArithmetic().eval(),
        make_inputs=_reduce_then_arithmetic_inputs,
        notes="neg(amin(i, 2)) of int32 [30, 2, 3] gave 0 for most values, and sum(x, 2) * mask of float32 [2, 4, 4] "
        "the unmasked sums, on OpenVINO 2026.4.1 with exit 0: the plugin fuses the op after a Reduce into it "
        "wrongly (openvino_facts ReduceFusedArithmeticWrong); the converted model now reaches such ops through "
        "Maximum(r, r), which it does not fuse. The product by one number is left as it was.",
    )
)


class TileRaisingRank(nn.Module):
    """tile with more repeats than dims, repeating four of them (found by our random programs,
    seed 31685), beside a tile of as many repeats as dims."""

    def forward(self, x):
        return x.tile([1, 2, 2, 2, 2]), x.tile([2, 1, 1, 2])


def _tile_inputs(variant):
    g = torch.Generator().manual_seed(31685 + variant)
    return (torch.randn(5, 5, 2, 1, generator=g),)


class FloatToInt64(nn.Module):
    """Float values beyond 32 bits and infinities cast to int64 (found by NNSmith, seed 30589)."""

    def forward(self, x, y):
        q = x / y
        return q.to(torch.int64), (x * 0.5).to(torch.int64)


def _float_to_int64_inputs(variant):
    x = torch.tensor([3e9, -3e9, 2.5, -7.5, 1e12, 4.0]) * (1 + variant)
    return (x, torch.tensor([1.0, 1.0, 1.0, 2.0, 1.0, 0.0]))


register(
    ModelCase(
        name="float_to_int64",
        make_module=lambda: FloatToInt64().eval(),
        make_inputs=_float_to_int64_inputs,
        notes="Convert from float32 to int64 goes through int32 on OpenVINO 2026.4.1: 3e9 gave -2**31, x / 0 (inf) "
        "-2**31 for PyTorch's -2**63, exit 0 (openvino_facts FloatToInt64CutTo32Bits); every cast from a floating "
        "dtype to int64 runs on pt2ov's CPU kernel.",
    )
)


class ByteNegation(nn.Module):
    """The minimum of an uint8 input and the negation of an uint8 parameter (found by NNSmith,
    seed 32596)."""

    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.tensor([[0, 1, 255, 128, 2]], dtype=torch.uint8), requires_grad=False)

    def forward(self, x):
        return torch.min(x, -self.p), -x


def _byte_negation_inputs(variant):
    return (torch.tensor([[253], [4], [0], [1]], dtype=torch.uint8) + variant,)


register(
    ModelCase(
        name="tile_raising_rank",
        make_module=lambda: TileRaisingRank().eval(),
        make_inputs=_tile_inputs,
        exact_outputs=(0, 1),
        notes="x.tile([1, 2, 2, 2, 2]) of [5, 5, 2, 1]: OpenVINO 2026.4.1 left the result unwritten (NaN, 1e37; 2.4e38 "
        "for 1.42 in the random program, exit 0; openvino_facts TileRaisingRankUninitialised); the Tile's input now "
        "gets its leading dims of 1 explicitly in the converted model.",
    )
)


class MaxOfMinusInfinity(nn.Module):
    """max_pool2d, amax and amin of rows that are all infinite, as x / 0 makes them (found by
    NNSmith, seed 20374), beside a max_pool2d after a relu."""

    def forward(self, x, d):
        q = x / d
        return (torch.nn.functional.max_pool2d(q, [1, 2], [1, 1], [0, 1]), q.amax(dim=-1), q.amin(dim=-1),
                torch.nn.functional.max_pool2d(torch.relu(q), [1, 2]))


def _minus_infinity_inputs(variant):
    x = torch.tensor([[-1.0, -2.0, -3.0, -0.5], [1.0, 2.0, 3.0, 0.5], [2.0, -1.0, 4.0, 8.0 + variant]])
    return (x.reshape(1, 1, 3, 4), torch.tensor([[0.0], [0.0], [1.0]]))


register(
    ModelCase(
        name="max_of_minus_infinity",
        make_module=lambda: MaxOfMinusInfinity().eval(),
        make_inputs=_minus_infinity_inputs,
        notes="max_pool2d, amax of rows of -inf (amin of +inf): OpenVINO 2026.4.1 gave -3.4e38 for -inf (3.4e38 for "
        "inf; openvino_facts MaxOfAllInfinite), exit 0; the converted model now selects the infinity where the same "
        "op of an indicator is 0 (not after a relu, which cannot give -inf).",
    )
)


register(
    ModelCase(
        name="byte_negation",
        make_module=lambda: ByteNegation().eval(),
        make_inputs=_byte_negation_inputs,
        notes="uint8 neg converts to a Multiply by -1 that saturates on OpenVINO 2026.4.1 (-255 gave 255 for "
        "PyTorch's 1; openvino_facts ByteArithmeticSaturates), wrong with exit 0; an 8-bit neg runs on pt2ov's "
        "CPU kernel.",
    )
)


class IntegerPower(nn.Module):
    """Fourth powers of int32 values above 2**24 (found by our random programs, seed 60017:
    pow(stack(x, x), 4)), a power of an integer base by an integer tensor, and a float power."""

    def forward(self, x, e):
        return torch.pow(torch.stack([x, x], dim=1), 4), torch.pow(3, e), torch.pow(x.float(), 2)


def _integer_power_inputs(variant):
    return (torch.tensor([83, -89, 69, 3, 71 + variant], dtype=torch.int32),
            torch.tensor([0, 1, 15, 19, 20], dtype=torch.int32))


register(
    ModelCase(
        name="integer_power",
        make_module=lambda: IntegerPower().eval(),
        make_inputs=_integer_power_inputs,
        notes="int32 pow is computed in float32 on OpenVINO 2026.4.1: 83 ** 4 gave 47458320 for 47458321 "
        "(openvino_facts IntegerPowerComputedInFloat), wrong with exit 0 in a random program; integer pow runs on "
        "pt2ov's CPU kernel, the float one stays on OpenVINO.",
    )
)


class InterpolateOfConstants(nn.Module):
    """Trilinear and bilinear resizes to size 1 of values computed from parameters alone (found
    by NNSmith, seed 70759: upsample_trilinear3d of tan(parameter) to (1, 1, 1)), beside the same
    of a user input."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.volume = nn.Parameter(torch.randn(1, 5, 1, 4, 3, generator=g))
        self.image = nn.Parameter(torch.randn(1, 2, 3, 4, generator=g))

    def forward(self, x):
        f = nn.functional
        return (f.interpolate(torch.tan(self.volume), size=(1, 1, 1), mode="trilinear"),
                f.interpolate(self.image * 1.5, size=(1, 3), mode="bilinear"),
                f.interpolate(x, size=(1, 3), mode="bilinear") + self.image.sum())


register(
    ModelCase(
        name="interpolate_of_constants_to_size_one",
        make_module=lambda: InterpolateOfConstants().eval(),
        make_inputs=lambda variant: (torch.randn(1, 2, 3, 4, generator=torch.Generator().manual_seed(variant)),),
        notes="OpenVINO 2026.4.1's frontend folds an Interpolate of constants while converting, sampling source "
        "coordinate 0 for an output of size 1 (openvino_facts InterpolateOfConstantsFoldedAtOrigin): tan(parameter) "
        "to size (1, 1, 1) gave 0.36 for -42.3, wrong with exit 0 in a random program; such a resize runs on pt2ov's "
        "CPU kernel, the one of a user input stays on OpenVINO with the half-pixel rewrite.",
    )
)


class SaturatedHardSigmoid(nn.Module):
    """hardsigmoid of values of 3 and more, then a remainder and a bool that read its exact 1
    (found by our random programs, seed 81905)."""

    def forward(self, x):
        h = nn.functional.hardsigmoid(x * 4)
        return torch.remainder(h, 0.25), torch.remainder(h, 0.25).bool(), h


register(
    ModelCase(
        name="saturated_hardsigmoid",
        make_module=lambda: SaturatedHardSigmoid().eval(),
        make_inputs=lambda variant: (torch.tensor([[1.0, 2.5, -2.0, 0.25], [0.75 + variant, -0.75, 3.0, 0.0]]),),
        notes="OpenVINO 2026.4.1's HSigmoid of 3 and more gives 0.99999994 for PyTorch's 1 (openvino_facts "
        "HardSigmoidSaturatesBelowOne): remainder(hardsigmoid(n), 0.25) gave 0.25 for 0, its bool True, wrong with "
        "exit 0 in a random program; every HSigmoid is written as Clamp((x + 3) / 6, 0, 1).",
    )
)


class ConstantOverReduction(nn.Module):
    """1 // std(x) and ones_like(s) / s of a full reduction s, through scalar arithmetic (found by
    our random programs, seed 81133)."""

    def forward(self, x):
        s = x.abs().sum() * 0.1
        return torch.div(torch.ones_like(x.std()), x.std(), rounding_mode="floor"), torch.ones_like(s) / s


register(
    ModelCase(
        name="constant_over_full_reduction",
        make_module=lambda: ConstantOverReduction().eval(),
        make_inputs=lambda variant: (torch.tensor([[0.5, 0.8, 0.9, 0.3], [0.3, 0.7, 0.4 + variant, 0.6]]),),
        notes="OpenVINO 2026.4.1 fuses a constant divided by a full reduction (or by scalar arithmetic after it) "
        "as the reduction divided by the constant: 1 / (sum(|x|) * 0.1) gave sum(|x|) * 0.1 (openvino_facts "
        "ReduceFusedArithmeticWrong), wrong with exit 0 in a random program; such a reduction reaches its users "
        "through Maximum(r, r).",
    )
)


class SquareRootOfTinyErf(nn.Module):
    """sqrt(erf(x * x)) where x * x is tiny (found by our random programs, seed 85058)."""

    def forward(self, x):
        return torch.sqrt(torch.erf(x * x)), torch.erf(x)


register(
    ModelCase(
        name="square_root_of_tiny_erf",
        make_module=lambda: SquareRootOfTinyErf().eval(),
        make_inputs=lambda variant: (torch.tensor([2.9e-4, -1e-3, 0.02, 0.5 + variant, -1.5, 3e-5]),),
        notes="OpenVINO 2026.4.1's Erf of small inputs is inexact (erf(8.5e-8) gave 0; openvino_facts "
        "ErfOfTinyValuesInexact): sqrt(erf(x * x)) gave 0 for 3.3e-4, wrong with exit 0 in a random program; "
        "every floating erf runs on pt2ov's CPU kernel.",
    )
)


class InterpolateOfLargeNeighbours(nn.Module):
    """Bicubic and bilinear resizes by ratios that are not powers of two, of rows whose neighbours
    are far larger than the sample taken (found by our random programs, NNSmith seeds 82977, 84621)."""

    def forward(self, x):
        return (F.interpolate(x, size=(1, 1), mode="bicubic"),
                F.interpolate(x, size=(3, 2), mode="bilinear"),
                F.interpolate(x, scale_factor=3.0, mode="bicubic"),
                F.interpolate(x, scale_factor=2.0, mode="bilinear"))


def _large_neighbours_inputs(variant):
    row = torch.tensor([-10.322441, 0.29778433, -207.12128, 0.18397684, 13.651574, 5.2138462, 9.6687593])
    x = torch.stack([row, row.flip(0) * (1 + variant), row * -3]).reshape(1, 1, 3, 7)
    return (x,)


register(
    ModelCase(
        name="interpolate_of_large_neighbours",
        make_module=lambda: InterpolateOfLargeNeighbours().eval(),
        make_inputs=_large_neighbours_inputs,
        notes="OpenVINO 2026.4.1's linear and cubic Interpolate divide by the float32 ratio out/in where PyTorch "
        "multiplies by in/out (openvino_facts LinearInterpolateCoordinateRounded): a coordinate PyTorch hits "
        "exactly lands an ulp off and mixes in neighbours of -207 with weights near 1e-7 (0.183925 for 0.183977, "
        "wrong with exit 0 in a random program); a resize by a ratio that is not a power of two runs on pt2ov's "
        "CPU kernel.",
    )
)


class OneChannelConvolutionToOneColumn(nn.Module):
    """Convolutions of one input channel whose last dim comes out of length 1 with a stride
    above 1 (found by our random programs, own seed 93712), beside one with stride 1."""

    def __init__(self):
        super().__init__()
        self.strided = nn.Conv2d(1, 4, (1, 3), stride=(1, 2))
        self.unstrided = nn.Conv2d(1, 4, (1, 3))
        self.volume = nn.Conv3d(1, 2, (1, 1, 3), stride=(1, 1, 2))

    def forward(self, x, v):
        return self.strided(x), self.unstrided(x), self.volume(v)


def _one_channel_inputs(variant):
    g = torch.Generator().manual_seed(93712 + variant)
    return torch.randn(3, 1, 11, 3, generator=g), torch.randn(3, 1, 2, 11, 3, generator=g)


register(
    ModelCase(
        name="one_channel_convolution_to_one_column",
        make_module=lambda: OneChannelConvolutionToOneColumn().eval(),
        make_inputs=_one_channel_inputs,
        notes="OpenVINO 2026.4.1's CPU plugin computes a 2-d or 3-d convolution of one input channel whose last "
        "dim comes out of length 1 with a stride above 1 there wrongly ([3, 1, 11, 3] by [4, 1, 1, 3], stride "
        "(1, 2): off by up to 7.4, exit 0 in a random program; openvino_facts "
        "OneChannelConvolutionToOneColumnWrong); such a convolution runs on pt2ov's CPU kernel.",
    )
)



class AddcdivOfAdaptiveMean(nn.Module):
    """addcdiv(x, adaptive_avg_pool1d(x, 1), b) with a 0-d buffer b (found by our random programs,
    own seed 95145): decomposed, the mean is Unsqueeze, ReduceMean over (-1, -2), Squeeze."""

    def __init__(self):
        super().__init__()
        self.register_buffer("b", torch.tensor(-0.7563398480415344))

    def forward(self, x):
        return torch.addcdiv(x, F.adaptive_avg_pool1d(x, 1), self.b)


register(
    ModelCase(
        name="addcdiv_of_adaptive_mean",
        make_module=lambda: AddcdivOfAdaptiveMean().eval(),
        make_inputs=lambda variant: (torch.tensor([[0.024, 0.799, 0.251], [1.203, 0.466, -0.268],
                                                   [0.608, 0.495, 0.225], [-1.535, -0.394, 1.699 + variant]]),),
        notes="Decomposed, OpenVINO 2026.4.1 returned x unchanged in every row but the first (the term "
        "mean / b lost; OpenVINO alone too). Plain OpenVINO: x + Squeeze(ReduceMean(Unsqueeze(x, 1), [2, 1], "
        "keep), 1) / c is wrong when the Divide carries the frontend's nonconvertable_divide_0 mark (a true "
        "division); openvino_facts ReduceFusedArithmeticWrong now puts the Maximum(r, r) barrier before it.",
    )
)


class Atan2OfElu(nn.Module):
    """atan2(elu(x), y) where x holds -0.0 (found by our random programs, own seed 96631)."""

    def forward(self, x, y):
        e = F.elu(x)
        return torch.atan2(e, y), torch.atan2(e.view(-1), y.view(-1)), F.elu(x) + 1


def _atan2_of_elu_inputs(variant):
    # Large enough that the elu's step stays on OpenVINO beside atan2's CPU step.
    g = torch.Generator().manual_seed(96631 + variant)
    x = torch.randn(96, 96, generator=g)
    x.view(-1)[::7] = -0.0
    x.view(-1)[3::7] = 0.0
    return x, -torch.rand(96, 96, generator=g) - 0.1


register(
    ModelCase(
        name="atan2_of_elu",
        make_module=lambda: Atan2OfElu().eval(),
        make_inputs=_atan2_of_elu_inputs,
        notes="OpenVINO 2026.4.1's Elu of -0.0 is +0.0 where PyTorch's is -0.0, so atan2 after it gave pi for -pi, "
        "exit 0 in a random program (openvino_facts EluOfNegativeZeroPositive); an elu whose value reaches a "
        "reader of the sign of zero runs on pt2ov's CPU kernel.",
    )
)


class ExpandIntoChannelConcat(torch.nn.Module):
    """NNSmith seed 100031, reduced: an expand to rank 4 read by a cat along dim 1 and by a
    comparison; beside it an expand read by the cat alone, which stays on OpenVINO."""

    def forward(self, x, y):
        c = torch.minimum(y, x.transpose(0, 1)).clip(-1, 1)
        e = c.expand(1, 1, 1, 16)
        alone = (c * 2).expand(1, 1, 1, 16)
        return torch.cat([e, e], 1), torch.logical_xor(e < c, e < c), torch.cat([alone, alone], 1) + 1


def _expand_into_channel_concat_inputs(variant):
    g = torch.Generator().manual_seed(100031 + variant)
    return torch.randint(-5, 10, (16, 1), generator=g, dtype=torch.int32), torch.tensor(2 + variant, dtype=torch.int32)


register(
    ModelCase(
        name="expand_into_channel_concat",
        make_module=lambda: ExpandIntoChannelConcat().eval(),
        make_inputs=_expand_into_channel_concat_inputs,
        notes="OpenVINO 2026.4.1's CPU plugin gave a wrong Concat along dim 1 of a Broadcast to rank 4 that another op "
        "also reads (values of other elements, exit 0 in a random program; OpenVINO alone too in the form without the "
        "transpose; openvino_facts BroadcastConcatAlongChannelsWrong); such an expand runs on pt2ov's CPU kernel.",
    )
)


class MishOfLargeNegatives(torch.nn.Module):
    """own seed 114033 of random programs, reduced: mish of values far below zero (rad2deg makes
    them -17 to -130). OpenVINO's Mish gives -0.0 for all of them, where PyTorch gives tiny
    negative values; the random program sorted them (stable sort's indices, 8 of 60 wrong), here
    their logarithm shows it on OpenVINO's side (-inf for -17.4)."""

    def forward(self, x):
        y = torch.nn.functional.mish(torch.rad2deg(x))
        return torch.log(-y), y


def _mish_of_large_negatives_inputs(variant):
    g = torch.Generator().manual_seed(114033 + variant)
    return (torch.rand(5, 2, 6, generator=g) * -2.0 - 0.3,)


register(
    ModelCase(
        name="mish_of_large_negatives",
        make_module=lambda: MishOfLargeNegatives().eval(),
        make_inputs=_mish_of_large_negatives_inputs,
        notes="OpenVINO 2026.4.1's Mish flushes its negative tail to -0.0 (PyTorch -4.1e-8 at -20), so a sort of "
        "those values gave other indices, exit 0 in a random program (openvino_facts MishNegativeTailFlushed); "
        "mish is decomposed into x * tanh(softplus(x)) before conversion, as run_decompositions() writes it.",
    )
)


class Conv1dPaddedBeyondInput(torch.nn.Module):
    """NNSmith seed 114787, reduced: a 1-d convolution dilated 4, stride 2, padded 65 on an input of
    length 1 (NNSmith's reflect pad had made it so), beside one padded within its input."""

    def __init__(self):
        super().__init__()
        self.beyond = torch.nn.Conv1d(64, 1, 2, stride=2, padding=65, dilation=4)
        self.within = torch.nn.Conv1d(64, 1, 2, stride=2, padding=1, dilation=2)

    def forward(self, x, y):
        return self.beyond(x.floor()) * 2, self.within(y.relu())


def _conv1d_padded_beyond_input_inputs(variant):
    g = torch.Generator().manual_seed(114787 + variant)
    return torch.randn(22, 64, 1, generator=g) * 4, torch.randn(2, 64, 8, generator=g)


register(
    ModelCase(
        name="conv1d_padded_beyond_input",
        make_module=lambda: Conv1dPaddedBeyondInput().eval(),
        make_inputs=_conv1d_padded_beyond_input_inputs,
        notes="OpenVINO 2026.4.1's CPU plugin dies (SIGSEGV) on a 1-d convolution with bias whose dilation and stride "
        "are above 1 and whose padding is far beyond its input's length (a crash in a random program; openvino_facts "
        "DilatedStridedConvPaddedBeyondInputCrash); such a convolution runs on pt2ov's CPU kernel.",
    )
)


class Conv2dPaddedBeyondInput(torch.nn.Module):
    """NNSmith seed 147693, reduced: a 2-d convolution with kernel (1, 2), stride 38, padding 255 and
    dilation (1, 56) on a [20, 4, 14, 3] input (its width 3, padded 255 on each side)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 1, (1, 2), stride=38, padding=255, dilation=(1, 56))

    def forward(self, x):
        return self.conv(x).abs()


def _conv2d_padded_beyond_input_inputs(variant):
    g = torch.Generator().manual_seed(147693 + variant)
    return (torch.randn(20, 4, 14, 3, generator=g),)


register(
    ModelCase(
        name="conv2d_padded_beyond_input",
        make_module=lambda: Conv2dPaddedBeyondInput().eval(),
        make_inputs=_conv2d_padded_beyond_input_inputs,
        notes="OpenVINO 2026.4.1's CPU plugin dies (SIGSEGV) on this 2-d convolution with bias, padding 255 beyond "
        "a width of 3 (a crash in a random program, and in OpenVINO alone; openvino_facts "
        "DilatedStridedConvPaddedBeyondInputCrash); it runs on pt2ov's CPU kernel.",
    )
)


class NarrowingConversionsInARow(nn.Module):
    """Two casts in a row, the first narrowing to an integer type (found by the `large` structured
    inputs, NNSmith seeds 147184, 147556, 148882, 148950: a float cast to int32, then to bool)."""

    def forward(self, x, y):
        return y.to(torch.int16).to(torch.int32), x.to(torch.int32).to(torch.bool), x.to(torch.int16).to(torch.float32)


def _narrowing_inputs(variant):
    return (torch.tensor([1e10, -5.3, 70000.0 + variant, -3e9]),
            torch.tensor([70000, -5, 40000 + variant, -200], dtype=torch.int32))


register(
    ModelCase(
        name="narrowing_conversions_in_a_row",
        make_module=lambda: NarrowingConversionsInARow().eval(),
        make_inputs=_narrowing_inputs,
        notes="x.to(int16).to(int32) of 70000 gave 70000 on OpenVINO 2026.4.1 (PyTorch wraps it to 4464), and "
        "(1e10).to(int32).to(bool) gave False (PyTorch's int32 is -2**31: True): the CPU plugin folds the two "
        "Converts into one; openvino_facts NarrowingConversionFolded, wrong with exit 0; the second cast runs on "
        "pt2ov's CPU kernels.",
    )
)


class NarrowedValuesReadByOtherOps(nn.Module):
    """A value narrowed to int32 read by a logical op (own seed 153432: logical_not of x.to(int32) on
    the `large` domain), and a value narrowed to int16 read by arithmetic in another dtype."""

    def forward(self, x):
        as_int32, as_int16 = x.to(torch.int32), x.to(torch.int16)
        return (torch.logical_not(as_int32), torch.logical_or(as_int32, x < -1e30), as_int16 * 0.5,
                torch.logical_xor(as_int16, x < 0), as_int16 * torch.ones_like(x, dtype=torch.int32))


register(
    ModelCase(
        name="narrowed_values_read_by_other_ops",
        make_module=lambda: NarrowedValuesReadByOtherOps().eval(),
        make_inputs=lambda variant: (torch.tensor([1e10, -3e9, 70000.5 + variant, 65536.0, -5.3]),),
        notes="On OpenVINO 2026.4.1 logical_not of (1e10).to(int32) gave True (PyTorch's int32 is -2**31: False; "
        "the logical op's Convert to bool is folded into the cast), and x.to(int16) * 0.5 of 70000 gave 35000 "
        "(PyTorch 2232: the CPU plugin holds int16 as int32, so the wrap comes only at the step's end); wrong with "
        "exit 0; openvino_facts NarrowingConversionFolded routes the int16 conversion and the logical ops to "
        "pt2ov's CPU kernels.",
    )
)
