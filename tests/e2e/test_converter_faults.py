"""Converter faults (docs/EXACTNESS.md O9): placement routes exactly the faulty spellings.

The zoo (tests/models/converter_faults.py, run by test_zoo.py) checks the values; this checks
the plan: each node meeting a fault's condition runs on the CPU with a reason naming the fact,
the same op outside the condition is not routed by a fact, and --strict refuses it naming it.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from conftest import describe, inspect_json, run_cli, run_engine_in
from tests.models.compare import to_numpy

# (case, mode): {fact: (op, nodes of that op the fact routes, nodes of that op it leaves)}
ROUTED = {
    ("kthvalue_rows", "exported"): ("KthvalueConvertedWrongly", "aten.kthvalue.default", 2, 0),
    ("half_overflow", "decomposed"): ("HalfIntermediatesKeptInFloat", "aten.exp.default", 1, 0),
    ("tied_selections", "decomposed"): ("TopkOrderNotPyTorchs", "aten.topk.default", 11, 0),
    ("nonzero_zero_dim", "decomposed"): ("NonzeroOfZeroDimHasAColumn", "aten.nonzero.default", 2, 1),
    ("cdist_norms", "decomposed"): ("CdistOnlyEuclidean", "aten._cdist_forward.default", 4, 1),
    ("interpolate_of_large_neighbours", "exported"): ("LinearInterpolateCoordinateRounded",
                                                       "aten.upsample_bilinear2d.vec", 1, 1),
    ("one_channel_convolution_to_one_column", "exported"): ("OneChannelConvolutionToOneColumnWrong",
                                                            "aten.conv2d.default", 1, 1),
    ("one_channel_convolution_to_one_column", "decomposed"): ("OneChannelConvolutionToOneColumnWrong",
                                                              "aten.convolution.default", 2, 1),
    # Every floating elu runs on the CPU kernels since ExpMinusOneCancelsNearZero (it took EluOfNegativeZeroPositive's place).
    ("atan2_of_elu", "exported"): ("ExpMinusOneCancelsNearZero", "aten.elu.default", 2, 0),
    ("expand_into_channel_concat", "exported"): ("BroadcastConcatAlongChannelsWrong", "aten.expand.default", 1, 1),
    ("expand_into_channel_concat", "decomposed"): ("BroadcastConcatAlongChannelsWrong", "aten.expand.default", 1, 1),
    ("conv1d_padded_beyond_input", "exported"): ("DilatedStridedConvPaddedBeyondInputCrash", "aten.conv1d.default", 1, 1),
    ("conv1d_padded_beyond_input", "decomposed"): ("DilatedStridedConvPaddedBeyondInputCrash", "aten.convolution.default", 1, 1),
    ("conv2d_padded_beyond_input", "exported"): ("DilatedStridedConvPaddedBeyondInputCrash", "aten.conv2d.default", 1, 0),
    ("conv2d_padded_beyond_input", "decomposed"): ("DilatedStridedConvPaddedBeyondInputCrash", "aten.convolution.default", 1, 0),
    ("erfinv_near_one", "exported"): ("ErfinvImprecise", "aten.erfinv.default", 1, 0),
    ("safe_softmax_masked_rows", "exported"): ("SafeSoftmaxMaskedRowsNaN", "aten._safe_softmax.default", 1, 0),
    ("instance_norm_running_stats", "exported"): ("InstanceNormRunningStatsUsed", "aten.instance_norm.default", 1, 1),
    ("integer_result_promotions", "exported"): ("IntegerResultDtypeKept", "aten.cumsum.default", 2, 1),
    ("gcd_signs", "decomposed"): ("GcdSignWithZero", "aten.gcd.default", 2, 0),
    ("linspace_dtypes", "exported"): ("LinspaceDtypeIgnored", "aten.linspace.default", 1, 3),
    ("convolution_of_no_channels", "exported"): ("ConvolutionOfNoChannels", "aten.conv2d.default", 1, 1),
    ("convolution_of_no_channels", "decomposed"): ("ConvolutionOfNoChannels", "aten.convolution.default", 1, 1),
    ("unit_convolution_strided_padded", "exported"): ("UnitConvolutionStridedPaddedShape", "aten.conv2d.default", 1, 1),
    ("unit_convolution_strided_padded", "decomposed"): ("UnitConvolutionStridedPaddedShape", "aten.convolution.default",
                                                        2, 1),
    ("shift_counts", "exported"): ("ShiftCountWraps", "aten.bitwise_left_shift.Tensor", 1, 0),
    ("shift_counts", "decomposed"): ("ShiftCountWraps", "aten.bitwise_left_shift.Tensor", 1, 0),
    ("byte_arithmetic", "exported"): ("ByteArithmeticSaturates", "aten.sub.Tensor", 1, 1),
    ("byte_arithmetic", "decomposed"): ("ByteArithmeticSaturates", "aten.sub.Tensor", 1, 1),
    ("byte_negation", "exported"): ("ByteArithmeticSaturates", "aten.neg.default", 2, 0),
    ("byte_negation", "decomposed"): ("ByteArithmeticSaturates", "aten.neg.default", 2, 0),
    ("float_to_int64", "exported"): ("FloatToInt64CutTo32Bits", "aten.to.dtype", 2, 0),
    ("float_to_int64", "decomposed"): ("FloatToInt64CutTo32Bits", "aten._to_copy.default", 2, 0),
    ("int32_matrix_products", "exported"): ("IntegerProductsInFloat", "aten.matmul.default", 2, 0),
    ("int32_matrix_products", "decomposed"): ("IntegerProductsInFloat", "aten.mm.default", 2, 0),
    ("floor_division_of_rounded_quotient", "exported"): ("FloorDivisionOfRoundedQuotient", "aten.div.Tensor_mode", 1, 0),
    ("floor_division_of_rounded_quotient", "decomposed"): ("FloorDivisionOfRoundedQuotient", "aten.div.Tensor_mode", 2, 0),
    # the second casts and the two conversions to int16 (the plugin holds int16 as int32)
    ("narrowing_conversions_in_a_row", "exported"): ("NarrowingConversionFolded", "aten.to.dtype", 5, 1),
    ("narrowing_conversions_in_a_row", "decomposed"): ("NarrowingConversionFolded", "aten._to_copy.default", 5, 1),
    # the conversion to int16 is routed, the one to int32 is not (the logical ops reading it are: the zoo's values)
    ("narrowed_values_read_by_other_ops", "exported"): ("NarrowingConversionFolded", "aten.to.dtype", 1, 1),
    ("narrowed_values_read_by_other_ops", "decomposed"): ("NarrowingConversionFolded", "aten._to_copy.default", 1, 1),
}


def _nodes(doc):
    for step in doc["methods"]["forward"]["steps"]:
        for node in step["nodes"]:
            yield step["kind"], node


@pytest.mark.parametrize("name,mode", list(ROUTED), ids=[f"{n}-{m}" for n, m in ROUTED])
def test_faulty_spellings_and_only_they_are_routed(zoo_programs, name, mode):
    fact, op, routed, left = ROUTED[(name, mode)]
    doc = inspect_json(zoo_programs.get(name, mode, "static").path)
    by_fact, others = [], []
    for kind, node in _nodes(doc):
        if node["target"] != op:
            continue
        if f"(openvino_facts {fact})" in node["reason"]:
            assert kind == "cpu", node
            assert "converts it wrongly" in node["reason"], node
            by_fact.append(node)
        else:
            assert "openvino_facts" not in node["reason"], node
            others.append(node)
    assert (len(by_fact), len(others)) == (routed, left), doc


@pytest.mark.parametrize("name,mode", [("erfinv_near_one", "exported"), ("cdist_norms", "decomposed")])
def test_strict_refuses_naming_the_fact(zoo_programs, name, mode):
    fact = ROUTED[(name, mode)][0]
    proc = run_cli(["inspect", zoo_programs.get(name, mode, "static").path, "--strict"])
    assert proc.returncode != 0, describe(proc)
    assert "converts it wrongly" in proc.stderr and f"openvino_facts {fact}" in proc.stderr, describe(proc)


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_variance_with_its_default_correction_stays_on_openvino(zoo_programs, mode):
    doc = inspect_json(zoo_programs.get("variance_corrections", mode, "static").path)
    variance = [(kind, node) for kind, node in _nodes(doc) if re.match(r"aten\.(var|var_mean|std)\.", node["target"])]
    assert variance, doc
    # torch.var(x) and var_mean(x)[0] are one computation: the second output is a copy of the first
    assert all(kind == "openvino" or "made by pt2ov from another output" in node["reason"] for kind, node in variance), variance


class _TransposedConvolution(torch.nn.Module):
    def __init__(self, dims, in_channels, output_padding):
        super().__init__()
        kind = (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d, torch.nn.ConvTranspose3d)[dims - 1]
        if output_padding:  # dilation 3 allows an output_padding of 2, which reaches the stride
            self.conv = kind(in_channels, 3, 3, stride=2, padding=1, output_padding=2, dilation=3)
        else:
            self.conv = kind(in_channels, 3, 3, stride=2, padding=1)

    def forward(self, x):
        return self.conv(x)


def _spacing(values: torch.Tensor, dtype) -> torch.Tensor:
    """The distance from each value to the next one of `dtype` away from zero (its ulp)."""
    finfo = torch.finfo(dtype)
    magnitude = values.float().abs().clamp(min=finfo.tiny)
    return finfo.eps * torch.exp2(torch.floor(torch.log2(magnitude)))


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("mode", ["exported", "decomposed"])
@pytest.mark.parametrize("path", ["col2im", "any"])
def test_half_transposed_convolution_runs_on_the_cpu_kernel(tmp_path, dims, dtype, mode, path):
    """PyTorch's CPU kernel adds a 16-bit transposed convolution's overlapping contributions in
    16 bits (col2im) where it does not hand it to oneDNN; OpenVINO sums in float32
    (HalfTransposedConvolutionInFloat). The 16-bit node runs on pt2ov's convolution kernel, its
    reason naming the fact; float32 stays on OpenVINO.

    "col2im": an output_padding that reaches the stride keeps eager on col2im on every CPU, and
    with one input channel each column is a single product, exact in float: the result is
    eager's bit for bit (the overlaps added in 16 bits in eager's order).
    "any": four input channels, where eager goes to oneDNN on a CPU with its 16-bit support
    (float sums in oneDNN's own order, rounded once) and to col2im elsewhere: each value is
    within one 16-bit ulp of eager's, never the OpenVINO error of up to 0.125 near 100."""
    torch.manual_seed(1000 * dims + 7)
    in_channels = 1 if path == "col2im" else 4
    module = _TransposedConvolution(dims, in_channels, output_padding=path == "col2im").to(dtype).eval()
    x = (torch.randn((2, in_channels) + (5,) * dims) * 4).to(dtype)
    ep = torch.export.export(module, (x,))
    if mode == "decomposed":
        ep = ep.run_decompositions()
    pt2 = tmp_path / "model.pt2"
    torch.export.save(ep, pt2)
    doc = inspect_json(pt2)
    convs = [(kind, node) for kind, node in _nodes(doc) if "conv" in node["target"]]
    assert len(convs) == 1, doc
    kind, node = convs[0]
    if dtype == torch.float32:
        assert kind == "openvino", node
        return
    assert kind == "cpu" and "(openvino_facts HalfTransposedConvolutionInFloat)" in node["reason"], node
    (actual,), = run_engine_in(tmp_path, pt2, [(x,)])
    with torch.no_grad():
        expected = module(x)
    if path == "col2im":
        assert np.array_equal(actual.view(np.uint16), to_numpy(expected).view(np.uint16)), (actual, expected)
    else:
        got = torch.from_numpy(np.asarray(actual, dtype=np.float32))
        off = (got - expected.float()).abs() / _spacing(expected, dtype)
        assert off.max().item() <= 1.0, (off.max(), actual, expected)
