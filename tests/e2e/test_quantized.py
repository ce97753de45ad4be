"""Quantized programs as PT2E's convert_pt2e writes them: PyTorch's reference quantization ops
(torch.ops.quantized_decomposed, which ship with torch) around float ops, an int8 weight folded
into the program and dequantized per channel, activations quantized per tensor to uint8.

pt2ov decomposes each quantization op into the core ATen ops of its reference implementation,
so the quantized integers are eager's exactly and every dequantized value is eager's bit for
bit on the CPU kernels and under --quantized-reference; by default a quantize-dequantize pair
of one per-tensor scale runs on OpenVINO as FakeQuantize, on its int8 kernels, within one step
of eager's (docs/EXACTNESS.md E8). Schemes pt2ov does not run yet are refused with one line
naming them.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  registers torch.ops.quantized_decomposed

from conftest import cpu_flags, describe, inspect_json, run_cli, run_engine_in, steps_at_call
from tests.models.compare import to_numpy


def _int8_products_saturate() -> bool:
    """openvino_facts Int8ProductsSaturateWithoutVnni: on a CPU without VNNI the plugin's int8
    kernels saturate, so pt2ov's default there is the reference arithmetic (no FakeQuantize)."""
    return not {"avx512_vnni", "avx_vnni"} & cpu_flags()


INT8_PRODUCTS_SATURATE = _int8_products_saturate()

qd = torch.ops.quantized_decomposed


def _int8_per_channel(weight: torch.Tensor, axis: int = 0):
    """Symmetric int8 per-channel weight quantization, as PT2E's default weight observer makes it."""
    reduce = [d for d in range(weight.dim()) if d != axis]
    scales = weight.abs().amax(dim=reduce) / 127.0
    zero_points = torch.zeros_like(scales, dtype=torch.int64)
    q = qd.quantize_per_channel(weight, scales, zero_points, axis, -128, 127, torch.int8)
    return q, scales, zero_points


class QuantizedLinear(torch.nn.Module):
    """quantize/dequantize uint8 activations → linear with a folded int8 per-channel weight →
    relu → quantize again. Returns the float result, the quantized activations and the
    dequantized weight, so each can be checked."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        weight = torch.randn(24, 16)
        q, scales, zero_points = _int8_per_channel(weight)
        self.register_buffer("weight_q", q)
        self.register_buffer("weight_scales", scales)
        self.register_buffer("weight_zero_points", zero_points)
        self.bias = torch.nn.Parameter(torch.randn(24))

    def forward(self, x):
        xq = qd.quantize_per_tensor(x, 0.017096083611249924, 147, 0, 255, torch.uint8)
        xd = qd.dequantize_per_tensor(xq, 0.017096083611249924, 147, 0, 255, torch.uint8)
        w = qd.dequantize_per_channel(self.weight_q, self.weight_scales, self.weight_zero_points, 0, -128, 127,
                                      torch.int8)
        y = torch.relu(torch.nn.functional.linear(xd, w, self.bias))
        yq = qd.quantize_per_tensor(y, 0.035, 0, 0, 255, torch.uint8)
        return qd.dequantize_per_tensor(yq, 0.035, 0, 0, 255, torch.uint8), xq, yq, w


class QuantizedConv(torch.nn.Module):
    """A convolution whose int8 weight is dequantized along axis 0, its input quantized per
    tensor with the .tensor overloads (scale a float64 buffer, zero point an int64 one, as
    dynamic and NNCF programs hold them), its output per channel along dim 1."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        weight = torch.randn(6, 3, 3, 3) * 0.3
        q, scales, zero_points = _int8_per_channel(weight)
        self.register_buffer("weight_q", q)
        self.register_buffer("weight_scales", scales)
        self.register_buffer("weight_zero_points", zero_points)
        self.register_buffer("x_scale", torch.tensor(0.0213, dtype=torch.float64))
        self.register_buffer("x_zero_point", torch.tensor(-3, dtype=torch.int64))
        self.register_buffer("y_scales", torch.linspace(0.01, 0.06, 6))
        self.register_buffer("y_zero_points", torch.arange(6, dtype=torch.int64) - 2)

    def forward(self, x):
        xq = qd.quantize_per_tensor.tensor(x, self.x_scale, self.x_zero_point, -128, 127, torch.int8)
        xd = qd.dequantize_per_tensor.tensor(xq, self.x_scale, self.x_zero_point, -128, 127, torch.int8)
        w = qd.dequantize_per_channel(self.weight_q, self.weight_scales, self.weight_zero_points, 0, -128, 127,
                                      torch.int8)
        y = torch.nn.functional.conv2d(xd, w, padding=1)
        yq = qd.quantize_per_channel(y, self.y_scales, self.y_zero_points, 1, -128, 127, torch.int8)
        return qd.dequantize_per_channel(yq, self.y_scales, self.y_zero_points, 1, -128, 127, torch.int8), xq, yq


# name: (module, input, {output index: the largest quantization step of a requantized output}).
# The other outputs (quantized inputs, dequantized weights) depend on the input and constants
# only and must be eager's bit for bit; a requantized output quantizes a float result that the
# float contract lets differ by a few ulps, so where that result lies within those ulps of a
# rounding boundary its integer may be one off (one step of its scale).
PROGRAMS = {
    "linear": (QuantizedLinear, lambda: torch.randn(5, 16) * 1.5, {0: 0.035, 2: 1}),
    "conv": (QuantizedConv, lambda: torch.randn(2, 3, 8, 8), {0: 0.06, 2: 1}),
}


def _export(tmp_path, name, mode):
    module_type, make_input, _ = PROGRAMS[name]
    module = module_type().eval()
    torch.manual_seed(7)
    x = make_input()
    with torch.no_grad():
        ep = torch.export.export(module, (x,))
    if mode == "decomposed":
        ep = ep.run_decompositions()
    pt2 = tmp_path / f"{name}.pt2"
    torch.export.save(ep, pt2)
    with torch.no_grad():
        expected = module(x)
    return pt2, x, expected


def _targets(pt2) -> list[str]:
    return [node["target"] for step in inspect_json(pt2)["methods"]["forward"]["steps"] for node in step["nodes"]]


def _all_ops_on_cpu(pt2) -> list[str]:
    targets = set(_targets(pt2))
    return [arg for target in sorted(targets) for arg in ("--cpu-op", target)]


def _check(name, actual, expected):
    """Quantized inputs and dequantized weights bit for bit; requantized results within one
    quantization step, and most of them exactly."""
    steps = PROGRAMS[name][2]
    assert len(actual) == len(expected)
    for i, (got, want) in enumerate(zip(actual, expected)):
        want = to_numpy(want)
        assert got.dtype == want.dtype and got.shape == want.shape, (name, i, got.dtype, want.dtype, got.shape, want.shape)
        if i not in steps:
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (name, i, np.argwhere(got != want)[:5])
            continue
        off = np.abs(got.astype(np.float64) - want.astype(np.float64))
        assert off.max() <= steps[i] * (1 + 1e-6), (name, i, off.max())
        # A FakeQuantize computes a level's value by its own formula, a few ulps from eager's
        # (q - zero_point) * scale; a level apart is what E8 bounds.
        levels_apart = np.count_nonzero(off > steps[i] / 2) if isinstance(steps[i], float) else np.count_nonzero(off)
        assert levels_apart <= max(1, got.size // 100), (name, i, levels_apart, got.size)


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("placement", ["default", "reference", "cpu"])
def test_quantized_values_are_eager_within_one_step(tmp_path, name, mode, placement):
    """default: int8 kernels; reference: --quantized-reference; cpu: every op on the CPU kernels."""
    pt2, x, expected = _export(tmp_path, name, mode)
    extra = {"default": [], "reference": ["--quantized-reference"], "cpu": _all_ops_on_cpu(pt2)}[placement]
    (actual,) = run_engine_in(tmp_path, pt2, [(x,)], extra_args=extra)
    _check(name, actual, expected)


class QuantizedConvNet(torch.nn.Module):
    """PT2E's form of a small CNN: activations quantized per tensor to uint8 (.default, Python
    float scales), int8 weights folded and dequantized per channel, two convolutions, a pooled
    linear head. Returns the requantized features and the float logits."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(2603)
        for name, shape in (("c1", (16, 3, 3, 3)), ("c2", (32, 16, 3, 3)), ("fc", (10, 32))):
            q, scales, zero_points = _int8_per_channel(torch.randn(*shape, generator=g) * 0.2)
            self.register_buffer(f"{name}_q", q)
            self.register_buffer(f"{name}_s", scales)
            self.register_buffer(f"{name}_z", zero_points)
            self.register_buffer(f"{name}_b", torch.randn(shape[0], generator=g) * 0.1)

    def _weight(self, name):
        return qd.dequantize_per_channel(getattr(self, f"{name}_q"), getattr(self, f"{name}_s"), getattr(self, f"{name}_z"),
                                         0, -128, 127, torch.int8)

    @staticmethod
    def _qdq(x, scale, zero_point):
        return qd.dequantize_per_tensor(qd.quantize_per_tensor(x, scale, zero_point, 0, 255, torch.uint8),
                                        scale, zero_point, 0, 255, torch.uint8)

    def forward(self, x):
        x = self._qdq(x, 0.0231, 128)
        h = self._qdq(torch.relu(torch.nn.functional.conv2d(x, self._weight("c1"), self.c1_b, padding=1)), 0.0123, 0)
        h = self._qdq(torch.relu(torch.nn.functional.conv2d(h, self._weight("c2"), self.c2_b, stride=2)), 0.0157, 0)
        pooled = self._qdq(h.mean(dim=(2, 3)), 0.0041, 0)
        return h, torch.nn.functional.linear(pooled, self._weight("fc"), self.fc_b)


def _export_conv_net(tmp_path, mode):
    module = QuantizedConvNet().eval()
    torch.manual_seed(17)
    x = torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        ep = torch.export.export(module, (x,))
        expected = [to_numpy(t) for t in module(x)]
    if mode == "decomposed":
        ep = ep.run_decompositions()
    pt2 = tmp_path / "conv_net.pt2"
    torch.export.save(ep, pt2)
    return pt2, x, expected


def _compiled_layer_precisions(folder) -> dict[str, set[str]]:
    """Layer type -> the runtime precisions the plugin chose, from PT2OV_DUMP_OPENVINO's dumps."""
    import re

    found: dict[str, set[str]] = {}
    for xml in sorted(folder.glob("step*.compiled.xml")):
        for layer_type, precision in re.findall(r'type="(\w+)">\s*<data [^>]*runtimePrecision="(\w+)"', xml.read_text()):
            found.setdefault(layer_type, set()).add(precision.lower())
    return found


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_convolutions_and_matmuls_run_on_int8_kernels(tmp_path, mode, monkeypatch):
    """By default (on a CPU with VNNI) every convolution and the linear head run on the plugin's int8 kernels, and the
    outputs stay within E8's bound: the requantized features within one step of their scale
    (0.0157) and almost all exact, the float logits within one step of the head's input
    carried through its weights."""
    pt2, x, expected = _export_conv_net(tmp_path, mode)
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    monkeypatch.setenv("PT2OV_DUMP_OPENVINO", str(dumps))
    (actual,) = run_engine_in(tmp_path, pt2, [(x,)])
    precisions = _compiled_layer_precisions(dumps)
    if INT8_PRODUCTS_SATURATE:
        # This CPU's int8 kernels saturate: the default is the reference arithmetic, in float.
        assert precisions.get("Convolution") == {"f32"}, precisions
    else:
        assert precisions.get("Convolution") and precisions["Convolution"] <= {"i8", "u8"}, precisions
        assert precisions.get("FullyConnected") and precisions["FullyConnected"] <= {"i8", "u8"}, precisions
    features, logits = actual
    off = np.abs(features.astype(np.float64) - expected[0])
    assert off.max() <= 0.0157 * (1 + 1e-5), off.max()
    assert np.count_nonzero(off) <= features.size // 100, (np.count_nonzero(off), features.size)
    # One step (0.0041) of one pooled input moves a logit by at most 0.0041 * max|w|; allow one
    # step on every input (the pooled features are eager's within one step each).
    head = QuantizedConvNet()._weight("fc").abs().sum(dim=1).max().item()
    assert np.abs(logits - expected[1]).max() <= 0.0041 * head, (np.abs(logits - expected[1]).max(), 0.0041 * head)


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_quantized_reference_keeps_eager_arithmetic(tmp_path, mode, monkeypatch):
    """--quantized-reference: no FakeQuantize anywhere, no int8 kernel, and the report says
    which pairs run as FakeQuantize by default."""
    pt2, x, expected = _export_conv_net(tmp_path, mode)
    reasons = [node["reason"] for step in inspect_json(pt2)["methods"]["forward"]["steps"] for node in step["nodes"]]
    assert sum("FakeQuantize" in r for r in reasons) == (0 if INT8_PRODUCTS_SATURATE else 4), reasons
    reasons = [node["reason"] for step in inspect_json(pt2, "--quantized-reference")["methods"]["forward"]["steps"]
               for node in step["nodes"]]
    assert not any("FakeQuantize" in r for r in reasons), reasons
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    monkeypatch.setenv("PT2OV_DUMP_OPENVINO", str(dumps))
    (actual,) = run_engine_in(tmp_path, pt2, [(x,)], extra_args=["--quantized-reference"])
    precisions = _compiled_layer_precisions(dumps)
    assert precisions.get("Convolution") == {"f32"}, precisions
    assert "FakeQuantize" not in "".join(p.read_text() for p in dumps.glob("step*.xml") if "compiled" not in p.name)
    off = np.abs(actual[0].astype(np.float64) - expected[0])
    assert off.max() <= 0.0157 * (1 + 1e-5) and np.count_nonzero(off) <= actual[0].size // 100


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_the_quantized_program_is_one_openvino_step(tmp_path, mode):
    """PT2E's form (Python float scales per tensor, per-channel weights) converts like any float
    program: the int8 weight minus its int64 zero points stays on OpenVINO (an int8 operand
    bounds the difference to 32 bits), so nothing splits the program. (A float64 scale tensor,
    as in the conv program, is inverted in float64 on the CPU kernels, as eager's .item() does.)"""
    pt2, _, _ = _export(tmp_path, "linear", mode)
    steps = inspect_json(pt2)["methods"]["forward"]["steps"]
    assert [step["kind"] for step in steps] == ["openvino"], [(s["kind"], s["nodes"]) for s in steps]


class PerToken(torch.nn.Module):
    """Dynamic per-token quantization as ExecuTorch's 8da4w and torchao's dynamic activations
    write it: parameters chosen from each token's range, quantized, dequantized."""

    def forward(self, x):
        scales, zero_points = qd.choose_qparams_per_token_asymmetric(x, torch.int8)
        q = qd.quantize_per_token(x, scales, zero_points, -128, 127, torch.int8)
        return qd.dequantize_per_token(q, scales, zero_points, -128, 127, torch.int8, torch.float32), q, scales, zero_points


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
@pytest.mark.parametrize("placement", ["default", "cpu"])
def test_per_token_quantization_is_eager_exactly(tmp_path, mode, placement):
    g = torch.Generator().manual_seed(2607)
    x = torch.randn(2, 5, 24, generator=g) * torch.linspace(0.1, 4.0, 5).view(1, 5, 1)
    x[0, 1] = x[0, 1].abs()  # a token with no negative value: the range widened to 0
    x[1, 2] = 0.0            # a token of zeros: the scale clamped to float32's epsilon
    ep = torch.export.export(PerToken(), (x,))
    if mode == "decomposed":
        ep = ep.run_decompositions()
    pt2 = tmp_path / "per_token.pt2"
    torch.export.save(ep, pt2)
    expected = PerToken()(x)
    extra = _all_ops_on_cpu(pt2) if placement == "cpu" else []
    (actual,) = run_engine_in(tmp_path, pt2, [(x,)], extra_args=extra)
    for i, (got, want) in enumerate(zip(actual, expected)):
        want = to_numpy(want)
        assert got.dtype == want.dtype and got.shape == want.shape, (i, got.dtype, want.dtype)
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (i, np.argwhere(got != want)[:5])


class PerGroup(torch.nn.Module):
    def forward(self, w):
        scales = torch.ones(4, dtype=torch.float32)
        zero_points = torch.zeros(4, dtype=torch.int32)
        return qd.quantize_per_channel_group(w, scales, zero_points, -8, 7, torch.int8, 8)


def test_a_scheme_not_run_yet_is_refused_by_name(tmp_path):
    w = torch.randn(2, 16)
    pt2 = tmp_path / "per_group.pt2"
    torch.export.save(torch.export.export(PerGroup(), (w,)), pt2)
    proc = run_cli(["inspect", pt2])
    assert proc.returncode == 2, describe(proc)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "per-group quantization (quantize_per_channel_group) is not supported yet" in lines[0], \
        describe(proc)


class CompressedWeights(torch.nn.Module):
    """NNCF's compress_weights as it exports: an int8 weight (symmetric) converted to float16 and
    multiplied by a float16 scale, and an int4 one (asymmetric, groups of 8) packed two to a byte,
    unpacked with shifts and masks, its zero point subtracted, scaled in float16; each weight
    converted to float32 for a linear layer. Eager rounds the float16 products; OpenVINO's CPU
    plugin computed them in float32 without rounding (HalfConstantArithmeticInFloat,
    HalfIntermediatesKeptInFloat)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(2602)
        self.register_buffer("w8", torch.randint(-127, 128, (32, 16), generator=g, dtype=torch.int8))
        self.register_buffer("s8", (torch.rand(32, 1, generator=g) * 0.02 + 0.001).half())
        self.register_buffer("w4", torch.randint(0, 256, (16, 2, 4), generator=g, dtype=torch.uint8))
        self.register_buffer("z4", torch.randint(0, 16, (16, 2, 1), generator=g, dtype=torch.uint8))
        self.register_buffer("s4", (torch.rand(16, 2, 1, generator=g) * 0.05 + 0.001).half())

    def forward(self, x):
        w8 = (self.w8.to(torch.float16) * self.s8).to(torch.float32)
        h = torch.nn.functional.linear(x, w8)
        unpacked = torch.stack([self.w4 & 15, self.w4 >> 4], dim=-1).reshape(16, 2, 8)
        centred = unpacked.to(torch.int8) - self.z4.to(torch.int8)
        w4 = (centred.to(torch.float16) * self.s4).reshape(16, 16).to(torch.float32)
        return torch.nn.functional.linear(h[:, :16], w4)


def _assert_float32_matmul_of_eager(actual: np.ndarray, expected: np.ndarray) -> None:
    """The weights are eager's bit for bit; the float32 matmul over them sums in the plugin's
    order, which is the CPU's: eager's on an AVX-512 Xeon (bit for bit there), MLAS's on an
    AVX2-only CPU (AMD Zen 3: up to 7 ulps apart). Within a few ulps either way, far inside E5."""
    np.testing.assert_allclose(actual, expected, rtol=4e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_compressed_weights_are_eager_exactly(tmp_path, mode):
    torch.manual_seed(11)
    x = torch.randn(3, 16)
    module = CompressedWeights().eval()
    with torch.no_grad():
        ep = torch.export.export(module, (x,))
        expected = module(x)
    if mode == "decomposed":
        ep = ep.run_decompositions()
    pt2 = tmp_path / "compressed.pt2"
    torch.export.save(ep, pt2)
    (actual,) = run_engine_in(tmp_path, pt2, [(x,)])
    _assert_float32_matmul_of_eager(actual[0], to_numpy(expected))


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_a_weight_is_decompressed_once_at_load(tmp_path, mode):
    """Every node that reads constants only (the unpacking, the float16 arithmetic, the
    conversions) is computed once at load in a CPU step of its own; the one OpenVINO step reads
    the float32 weights as Constants, so a call runs nothing but that step."""
    torch.manual_seed(11)
    x = torch.randn(3, 16)
    with torch.no_grad():
        ep = torch.export.export(CompressedWeights().eval(), (x,))
    if mode == "decomposed":
        ep = ep.run_decompositions()
    pt2 = tmp_path / "compressed.pt2"
    torch.export.save(ep, pt2)
    steps = inspect_json(pt2)["methods"]["forward"]["steps"]
    assert [step["kind"] for step in steps] == ["cpu", "openvino"], [(s["kind"], s["nodes"]) for s in steps]
    assert all("computed once at load" in node["reason"] for node in steps[0]["nodes"]), steps[0]["nodes"]
    assert [step["at_load"] for step in steps] == [True, False]
    text = run_cli(["inspect", pt2])
    assert text.returncode == 0 and "step 1: cpu, computed once at load (" in text.stdout, describe(text)


class Int4Weights(torch.nn.Module):
    """NNCF's two int4 forms, as compress_weights exports them: symmetric (the unpacked nibbles
    as int8 minus 8, reshaped into groups of 8, times a float16 scale per group) and asymmetric (the nibbles and packed
    zero points converted to float16 and subtracted, times the scale), each weight reshaped and
    converted to float32 for a linear layer."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(2606)
        self.register_buffer("w_sym", torch.randint(0, 256, (32, 4, 4), generator=g, dtype=torch.uint8))
        self.register_buffer("s_sym", (torch.rand(32, 4, 1, generator=g) * 0.05 + 0.001).half())
        self.register_buffer("w_asym", torch.randint(0, 256, (16, 4, 4), generator=g, dtype=torch.uint8))
        self.register_buffer("z_asym", torch.randint(0, 256, (16, 2, 1), generator=g, dtype=torch.uint8))
        self.register_buffer("s_asym", (torch.rand(16, 4, 1, generator=g) * 0.05 + 0.001).half())

    @staticmethod
    def unpack(packed, *shape):
        return torch.stack([packed & 15, packed >> 4], dim=-1).reshape(*shape)

    def weights(self, rounded=True):
        """The float weights as eager computes them (float16 products), or (rounded=False) as
        (q - zero point) * scale in float64, as OpenVINO's kernels compute them (E9)."""
        dtype = torch.float16 if rounded else torch.float64
        # In NNCF's order: the nibbles made int8 and 8 taken off before the reshape into groups
        # (the plugin would saturate that int8 subtraction, so it is pt2ov's, once at load).
        nibbles = torch.stack([self.w_sym & 15, self.w_sym >> 4], dim=-1)
        sym = (nibbles.to(torch.int8) - 8).reshape(32, 4, 8).to(dtype) * self.s_sym.to(dtype)
        asym = (self.unpack(self.w_asym, 16, 4, 8).to(dtype) - self.unpack(self.z_asym, 16, 4, 1).to(dtype)) \
            * self.s_asym.to(dtype)
        return sym.reshape(32, 32), asym.reshape(16, 32)

    def forward(self, x):
        sym, asym = self.weights()
        h = torch.nn.functional.linear(x, sym.to(torch.float32))
        return torch.nn.functional.linear(torch.relu(h), asym.to(torch.float32))


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_compressed_weights_stay_four_bits_on_openvino(tmp_path, mode, monkeypatch):
    """--compressed-weights: the nibbles enter OpenVINO as u4/i4 Constants (4 bits each in
    memory), the plugin's matmuls read them compressed, and the outputs are what the float32
    decompression (q - z) * s gives: within E5 of it, and from eager (which rounds each weight
    to float16) within the bound E9 states, sum_k |x_k| * |w_eager - w_exact| per output. The
    default's weights stay eager's bit for bit (its matmul within a few ulps)."""
    module = Int4Weights().eval()
    torch.manual_seed(12)
    x = torch.randn(5, 32)
    with torch.no_grad():
        ep = torch.export.export(module, (x,))
        expected = module(x).numpy()
    if mode == "decomposed":
        ep = ep.run_decompositions()
    pt2 = tmp_path / "int4.pt2"
    torch.export.save(ep, pt2)
    (default,) = run_engine_in(tmp_path, pt2, [(x,)], tag="default")
    _assert_float32_matmul_of_eager(default[0], expected)

    compressed_steps = inspect_json(pt2, "--compressed-weights")["methods"]["forward"]["steps"]
    reasons = [n["reason"] for step in compressed_steps for n in step["nodes"]]
    assert any("--compressed-weights" in r for r in reasons), reasons
    # A call runs one OpenVINO step: the symmetric form's int8 `q - 8` (which the plugin would
    # saturate, so it goes to the CPU kernels) is computed once at load, not at every call.
    at_call = steps_at_call(compressed_steps)
    assert [s["kind"] for s in at_call] == ["openvino"], [(s["kind"], [n["name"] for n in s["nodes"]]) for s in at_call]
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    monkeypatch.setenv("PT2OV_DUMP_OPENVINO", str(dumps))
    (actual,) = run_engine_in(tmp_path, pt2, [(x,)], extra_args=["--compressed-weights"], tag="compressed")
    models = "".join(p.read_text() for p in dumps.glob("step*.xml") if "compiled" not in p.name)
    # Both weights as u4 Constants over the archive's packed bytes: the symmetric one's `q - 8`
    # as a Subtract of 8 after its Convert (OpenVINO's zero-point form), no int8 or i4 copy.
    assert models.count('element_type="u4"') >= 2 and 'element_type="i4"' not in models, models[:2000]
    assert "less_8" in models, models[:2000]
    compiled = "".join(p.read_text() for p in dumps.glob("step*.compiled.xml"))
    matmuls = re.findall(r'type="FullyConnected">\s*<data [^>]*runtimePrecision="(\w+)"', compiled)
    assert matmuls == ["u4", "u4"], matmuls

    sym, asym = module.weights(rounded=False)
    sym_eager, asym_eager = (w.to(torch.float64) for w in module.weights())
    x64 = x.to(torch.float64)
    h_exact = torch.relu(x64 @ sym.T)
    exact = (h_exact @ asym.T).numpy()
    assert np.allclose(actual[0], exact, rtol=1e-4, atol=1e-5), np.abs(actual[0] - exact).max()
    # E9's bound from eager: each weight's float16 rounding carried through both layers.
    h_bound = x64.abs() @ (sym - sym_eager).abs().T
    bound = (h_bound @ asym_eager.abs().T + h_exact.abs() @ (asym - asym_eager).abs().T).numpy()
    off = np.abs(actual[0].astype(np.float64) - expected)
    assert (off <= bound * (1 + 1e-3) + 1e-5).all(), (off.max(), bound.max())
    assert off.max() > 0, "the float16 rounding of eager's weights should show"


class IntMatmul(torch.nn.Module):
    """torch._int_mm as torchao's dynamic int8 linear calls it (int8 x int8 -> int32), with an
    inner dim past 1,024 (summed in exact slices) and one within it."""

    def forward(self, a, b, c, d):
        return torch._int_mm(a, b), torch._int_mm(c, d)


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_int8_matmul_is_exact(tmp_path, mode):
    g = torch.Generator().manual_seed(2604)
    def int8(*shape):
        return torch.randint(-128, 128, shape, generator=g, dtype=torch.int8)
    args = (int8(17, 2100), int8(2100, 24), int8(32, 64), int8(64, 16))
    # the largest sums int8 products reach: every product -128 * -128
    args[0][0].fill_(-128)
    args[1][:, 0].fill_(-128)
    ep = torch.export.export(IntMatmul(), args)
    if mode == "decomposed":
        ep = ep.run_decompositions()
    pt2 = tmp_path / "int_mm.pt2"
    torch.export.save(ep, pt2)
    expected = IntMatmul()(*args)
    (actual,) = run_engine_in(tmp_path, pt2, [args])
    for got, want in zip(actual, expected):
        assert got.dtype == np.int32 and np.array_equal(got, to_numpy(want)), np.abs(got.astype(np.int64) - to_numpy(want)).max()
    assert actual[0][0, 0] == 2100 * 128 * 128


class BiasAddedInPlace(torch.nn.Module):
    """torchao's quantized linear as torch.export.export records it: the bias added in place
    into a reshape of the product, a tensor nothing else reads."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8, 6))
        self.bias = torch.nn.Parameter(torch.randn(8))

    def forward(self, x):
        product = torch.mm(x.reshape(-1, 6), self.weight.t()) * 2.0
        out = product.reshape(2, 7, 8)
        out.add_(self.bias)
        return out


def test_a_write_into_a_view_of_a_private_product_runs(tmp_path):
    torch.manual_seed(5)
    x = torch.randn(2, 7, 6)
    module = BiasAddedInPlace().eval()
    with torch.no_grad():
        ep = torch.export.export(module, (x,))
        expected = module(x)
    assert any("add_" in str(n.target) for n in ep.graph.nodes)
    pt2 = tmp_path / "bias_in_place.pt2"
    torch.export.save(ep, pt2)
    (actual,) = run_engine_in(tmp_path, pt2, [(x,)])
    np.testing.assert_allclose(actual[0], to_numpy(expected), rtol=1e-5, atol=1e-6)


class ViewWrittenAndBaseRead(torch.nn.Module):
    """The same write where the product is read again afterwards: it must see the write (a view
    pt2ov cannot write back is still refused, never silently dropped)."""

    def forward(self, x):
        product = x * 2.0
        out = product.reshape(-1)
        out.add_(1.0)
        return product + 0.0


def test_a_write_into_a_view_whose_base_is_read_later_sees_the_write_or_is_refused(tmp_path):
    x = torch.randn(3, 4)
    with torch.no_grad():
        ep = torch.export.export(ViewWrittenAndBaseRead(), (x,))
        expected = ViewWrittenAndBaseRead()(x)
    pt2 = tmp_path / "view_base_read.pt2"
    torch.export.save(ep, pt2)
    proc = run_cli(["run", pt2, "--inputs", _write_npz(tmp_path, x), "--outputs", tmp_path / "out.npz"])
    if proc.returncode == 0:
        with np.load(tmp_path / "out.npz") as out:
            np.testing.assert_allclose(out["arr_0"], to_numpy(expected))
    else:
        assert proc.returncode == 2 and "writes in place into a view" in proc.stderr, describe(proc)


def _write_npz(tmp_path, *arrays):
    path = tmp_path / "in.npz"
    np.savez(path, *[to_numpy(a) for a in arrays])
    return path
