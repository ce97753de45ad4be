"""The benchmark set: real architectures with random (seeded) weights, defined here so nothing
is downloaded (torchvision does not import on this machine, so ResNet-18 and the MobileNetV3
are written out).

Each `BenchModel` knows how to build its module (eval mode), its example inputs, the dynamic
shapes it is exported with (None: static), the ops pt2ov is told to keep on the CPU (the
partitioned program), how many timed calls it gets, and whether the speed-up over PyTorch eager
is a target for it. (The 1.03x-of-OpenVINO target applies where pt2ov runs every node on
OpenVINO, which bench/compare reads from pt2ov's own placement.)
`bench/compare` exports each one and runs it on every side with the same inputs; the rows marked
`decomposed` (real architectures from tests/architectures/models.py, which need
requirements-models.txt) are saved after `ep.run_decompositions()`, and OpenVINO alone converts
that same decomposed program.
"""
from __future__ import annotations

import dataclasses
import pathlib
import sys
from typing import Any, Callable

import torch
import torch.nn.functional as F
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parent.parent


@dataclasses.dataclass(frozen=True)
class BenchModel:
    name: str
    title: str
    make_module: Callable[[], nn.Module]
    make_inputs: Callable[[], tuple]
    make_dynamic_shapes: Callable[[], Any] | None = None  # for torch.export; None: static
    cpu_ops: tuple = ()           # pt2ov only: ops kept off OpenVINO (the partitioned program)
    measure_placement: bool = True  # pt2ov only: False = the placement rules alone (--no-measure-placement)
    iterations: int = 100
    warmup: int = 10
    vs_eager_target: float = 0.0  # required speed-up over PyTorch eager (0: none)
    notes: str = ""
    decomposed: bool = False      # every side runs the program after ep.run_decompositions()
    # "int8": the module quantized by NNCF (nncf.quantize on the exported program, static int8,
    # calibrated on `calibration` random inputs of the example's shape), which every side runs:
    # pt2ov and OpenVINO alone the exported quantized program, PyTorch eager its module, ONNX
    # Runtime the float model's ONNX quantized by its own quantize_static (QDQ, per channel).
    quantized: str = ""
    float_row: str = ""           # the float row of the same model, for the int8 / f32 ratio


def _seeded(seed: int, build: Callable[[], nn.Module]) -> Callable[[], nn.Module]:
    def make() -> nn.Module:
        torch.manual_seed(seed)
        return build().eval()
    return make


def _randomize_batchnorms(module: nn.Module) -> nn.Module:
    """Non-trivial BN statistics, so eval-mode BN is a real affine op (and activations stay in
    a normal range: no denormals to skew one side's timings)."""
    with torch.no_grad():
        for bn in module.modules():
            if isinstance(bn, nn.BatchNorm2d):
                n = bn.num_features
                bn.weight.copy_(torch.rand(n) * 0.5 + 0.5)
                bn.bias.copy_(torch.randn(n) * 0.1)
                bn.running_mean.copy_(torch.randn(n) * 0.1)
                bn.running_var.copy_(torch.rand(n) + 0.5)
    return module


# --- tiny MLP: the engine's own cost per call -------------------------------------------------
class TinyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))

    def forward(self, x):
        return self.net(x)


# --- ResNet-18 ----------------------------------------------------------------------------------
class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    def __init__(self, classes: int = 1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        blocks, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# --- MobileNetV3-small-like ------------------------------------------------------------------------
def _divisible(v: float, divisor: int = 8) -> int:
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * v else new


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        squeeze = _divisible(channels // 4)
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))


class InvertedResidual(nn.Module):
    def __init__(self, cin, kernel, expanded, cout, se, hardswish, stride):
        super().__init__()
        act = nn.Hardswish if hardswish else nn.ReLU
        layers = []
        if expanded != cin:
            layers += [nn.Conv2d(cin, expanded, 1, bias=False), nn.BatchNorm2d(expanded), act()]
        layers += [nn.Conv2d(expanded, expanded, kernel, stride, kernel // 2, groups=expanded, bias=False),
                   nn.BatchNorm2d(expanded), act()]
        if se:
            layers.append(SqueezeExcite(expanded))
        layers += [nn.Conv2d(expanded, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.block(x)
        return x + y if self.residual else y


class MobileNetV3Small(nn.Module):
    # in, kernel, expanded, out, squeeze-excite, hardswish, stride: torchvision's table
    CONFIG = [(16, 3, 16, 16, True, False, 2), (16, 3, 72, 24, False, False, 2), (24, 3, 88, 24, False, False, 1),
              (24, 5, 96, 40, True, True, 2), (40, 5, 240, 40, True, True, 1), (40, 5, 240, 40, True, True, 1),
              (40, 5, 120, 48, True, True, 1), (48, 5, 144, 48, True, True, 1), (48, 5, 288, 96, True, True, 2),
              (96, 5, 576, 96, True, True, 1), (96, 5, 576, 96, True, True, 1)]

    def __init__(self, classes: int = 1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.blocks = nn.Sequential(*[InvertedResidual(*c) for c in self.CONFIG])
        self.last = nn.Sequential(nn.Conv2d(96, 576, 1, bias=False), nn.BatchNorm2d(576), nn.Hardswish())
        self.head = nn.Sequential(nn.Linear(576, 1024), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(1024, classes))

    def forward(self, x):
        x = self.last(self.blocks(self.stem(x)))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# --- BERT-base-like encoder -------------------------------------------------------------------------
class EncoderLayer(nn.Module):
    def __init__(self, hidden: int, heads: int, ffn: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.ln1 = nn.LayerNorm(hidden, eps=1e-12)
        self.ff1 = nn.Linear(hidden, ffn)
        self.ff2 = nn.Linear(ffn, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v)
        x = self.ln1(x + self.out(a.transpose(1, 2).reshape(b, s, h)))  # post-LN, as BERT
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class BertEncoder(nn.Module):
    def __init__(self, vocab=30522, hidden=768, heads=12, layers=6, ffn=3072, max_positions=512):
        super().__init__()
        self.words = nn.Embedding(vocab, hidden)
        self.positions = nn.Embedding(max_positions, hidden)
        self.ln = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, input_ids):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.ln(self.words(input_ids) + self.positions(positions))
        for layer in self.layers:
            x = layer(x)
        return x


# --- one decoder step with a KV cache (a buffer mutated in place) ------------------------------------
class DecoderStep(nn.Module):
    """One token through a pre-LN decoder with a static KV cache, as Hugging Face's StaticCache
    keeps it: one key and one value buffer per layer, registered, written in place every step
    (index_copy_ for keys, slice assignment for values) at the step's position; attention reads
    the whole cache under a mask of the positions written so far. With stacked=True the caches
    of all layers are one buffer each for keys and values, written through per-layer views."""

    def __init__(self, vocab=8000, hidden=512, heads=8, layers=4, max_len=256, stacked=False):
        super().__init__()
        self.heads, self.layers_count, self.max_len = heads, layers, max_len
        self.embed = nn.Embedding(vocab, hidden)
        self.pos_embed = nn.Embedding(max_len, hidden)
        self.ln1 = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(layers))
        self.qkv = nn.ModuleList(nn.Linear(hidden, 3 * hidden) for _ in range(layers))
        self.out = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers))
        self.ln2 = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(layers))
        self.ff1 = nn.ModuleList(nn.Linear(hidden, 4 * hidden) for _ in range(layers))
        self.ff2 = nn.ModuleList(nn.Linear(4 * hidden, hidden) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.stacked = stacked
        if stacked:  # one buffer for every layer, written through a view per layer
            self.register_buffer("k_cache", torch.zeros(layers, 1, heads, max_len, hidden // heads))
            self.register_buffer("v_cache", torch.zeros(layers, 1, heads, max_len, hidden // heads))
        else:
            for i in range(layers):
                self.register_buffer(f"k_cache_{i}", torch.zeros(1, heads, max_len, hidden // heads))
                self.register_buffer(f"v_cache_{i}", torch.zeros(1, heads, max_len, hidden // heads))

    def forward(self, token, pos):
        # token: (1, 1) int64; pos: (1,) int64, the position this step writes
        x = self.embed(token) + self.pos_embed(pos).unsqueeze(0)
        mask = (torch.arange(self.max_len) <= pos).view(1, 1, 1, self.max_len)
        d = x.shape[-1] // self.heads
        for i in range(self.layers_count):
            q, k, v = self.qkv[i](self.ln1[i](x)).view(1, 1, 3, self.heads, d).permute(2, 0, 3, 1, 4)
            if self.stacked:
                k_cache, v_cache = self.k_cache[i], self.v_cache[i]
            else:
                k_cache, v_cache = getattr(self, f"k_cache_{i}"), getattr(self, f"v_cache_{i}")
            k_cache.index_copy_(2, pos, k)
            v_cache[:, :, pos] = v
            a = F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=mask)
            x = x + self.out[i](a.transpose(1, 2).reshape(1, 1, -1))
            x = x + self.ff2[i](F.gelu(self.ff1[i](self.ln2[i](x))))
        return self.lm_head(self.ln_f(x))


# --- a conv net cut in two by one op on the CPU: the cost of an edge ---------------------------------
class EdgeNet(nn.Module):
    """Convolutions with GELU, and one ReLU in the middle that pt2ov is told to run on the CPU
    (--cpu-op aten.relu): OpenVINO -> CPU -> OpenVINO, with a 1x32x56x56 tensor on each edge."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, 2, 1)
        self.conv1 = nn.Conv2d(32, 32, 3, 1, 1)
        self.conv2 = nn.Conv2d(32, 32, 3, 1, 1)
        self.conv3 = nn.Conv2d(32, 64, 3, 2, 1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = F.gelu(self.conv1(F.gelu(self.stem(x))))
        x = torch.relu(x)  # the node forced onto the CPU
        x = F.gelu(self.conv3(F.gelu(self.conv2(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# --- the example robot policy ---------------------------------------------------------------------
def _policy_module():
    sys.path.insert(0, str(ROOT / "examples"))
    import policy  # noqa: E402 (examples/policy.py)
    return policy


def _inputs(seed: int, *makers: Callable[[torch.Generator], torch.Tensor]) -> Callable[[], tuple]:
    def make() -> tuple:
        generator = torch.Generator().manual_seed(seed)
        return tuple(m(generator) for m in makers)
    return make


def _architecture(name: str) -> tuple[Callable[[], nn.Module], Callable[[], tuple]]:
    """A real architecture of tests/architectures/models.py (its packages are pinned in
    requirements-models.txt), built once per process as `make architectures` builds it: seed 0,
    random weights, eval mode, its own example input."""
    built: dict[str, tuple] = {}

    def build() -> tuple:
        if name not in built:
            sys.path.insert(0, str(ROOT))
            from tests.architectures.models import by_name as architecture  # readies torchvision first
            torch.manual_seed(0)
            module, inputs = architecture()[name].build()
            built[name] = (module.eval(), inputs)
        return built[name]

    return (lambda: build()[0]), (lambda: build()[1])


def _image(*shape):
    return lambda g: torch.rand(*shape, generator=g)


MODELS: list[BenchModel] = [
    BenchModel("tiny_mlp", "tiny MLP 16-32-8 (placement timed at load)", _seeded(1, TinyMLP),
               _inputs(11, lambda g: torch.randn(1, 16, generator=g)), iterations=3000, warmup=200,
               notes="small enough that pt2ov times it on OpenVINO and on its CPU kernels at load and keeps the faster"),
    BenchModel("tiny_mlp_openvino", "tiny MLP 16-32-8 on OpenVINO (engine overhead)", _seeded(1, TinyMLP),
               _inputs(11, lambda g: torch.randn(1, 16, generator=g)), iterations=3000, warmup=200,
               measure_placement=False,
               notes="the same program under the placement rules alone (--no-measure-placement): one OpenVINO step, "
                     "so the time outside OpenVINO's infer() is the engine's own"),
    BenchModel("resnet18", "ResNet-18, 1x3x224x224", _seeded(2, lambda: _randomize_batchnorms(ResNet18())),
               _inputs(12, _image(1, 3, 224, 224)), iterations=100, warmup=5, vs_eager_target=1.5),
    BenchModel("mobilenet_v3_small", "MobileNetV3-small-like, 1x3x224x224",
               _seeded(3, lambda: _randomize_batchnorms(MobileNetV3Small())), _inputs(13, _image(1, 3, 224, 224)),
               iterations=300, warmup=10),
    BenchModel("bert_encoder", "BERT-base-like encoder, 6 layers, seq 128", _seeded(4, BertEncoder),
               _inputs(14, lambda g: torch.randint(0, 30522, (1, 128), generator=g)), iterations=40, warmup=3,
               vs_eager_target=1.5),
    BenchModel("decoder_kv_step", "decoder step, 4 layers, KV-cache buffer mutated in place", _seeded(5, DecoderStep),
               _inputs(15, lambda g: torch.randint(0, 8000, (1, 1), generator=g), lambda g: torch.tensor([7])),
               iterations=500, warmup=20,
               notes="the same step (position 7) is repeated; the cache buffers are written every call"),
    BenchModel("decoder_kv_stacked", "the same decoder step, one stacked cache buffer written through views",
               _seeded(5, lambda: DecoderStep(stacked=True)),
               _inputs(15, lambda g: torch.randint(0, 8000, (1, 1), generator=g), lambda g: torch.tensor([7])),
               iterations=200, warmup=20,
               notes="in-place writes into views of a buffer (k_cache[i].index_copy_), as exported"),
    BenchModel("policy", "example robot policy (examples/policy.py), batch 2, dynamic batch",
               lambda: _policy_module().make_policy(seed=0),
               lambda: _policy_module().example_inputs(batch=2, seed=1),
               make_dynamic_shapes=lambda: _policy_module().dynamic_shapes(max_batch=32),
               iterations=1000, warmup=50),
    BenchModel("edge_convnet", "conv net, aten.relu forced to the CPU (one partition edge each way)",
               _seeded(7, EdgeNet), _inputs(17, _image(1, 3, 112, 112)), cpu_ops=("aten.relu",),
               iterations=400, warmup=20,
               notes="pt2ov runs OpenVINO -> CPU relu -> OpenVINO; the peers run it whole"),
    # The same models quantized to int8 as people do it for speed on Intel CPUs (NNCF, static).
    BenchModel("resnet18_int8", "ResNet-18 NNCF int8, 1x3x224x224", _seeded(2, lambda: _randomize_batchnorms(ResNet18())),
               _inputs(12, _image(1, 3, 224, 224)), iterations=200, warmup=10, quantized="int8", float_row="resnet18"),
    BenchModel("mobilenet_v3_int8", "MobileNetV3-small-like NNCF int8, 1x3x224x224",
               _seeded(3, lambda: _randomize_batchnorms(MobileNetV3Small())), _inputs(13, _image(1, 3, 224, 224)),
               iterations=300, warmup=10, quantized="int8", float_row="mobilenet_v3_small"),
    BenchModel("bert_encoder_int8", "BERT-base-like encoder NNCF int8, 6 layers, seq 128", _seeded(4, BertEncoder),
               _inputs(14, lambda g: torch.randint(0, 30522, (1, 128), generator=g)), iterations=60, warmup=3,
               quantized="int8", float_row="bert_encoder"),
    # Real architectures as `ep.run_decompositions()` gives them (torchvision, timm), where index
    # arithmetic and slice writes decompose into int64 ops that pt2ov must keep exact.
    BenchModel("swin_t_decomposed", "torchvision swin_t, 1x3x64x64, decomposed",
               *_architecture("torchvision/swin_t"), iterations=60, warmup=5, decomposed=True,
               notes="shifted windows: roll as index_select at (arange + shift) % n, the mask as slice_scatter"),
    BenchModel("levit_128s_decomposed", "timm levit_128s, 1x3x224x224, decomposed",
               *_architecture("timm/levit_128s"), iterations=100, warmup=5, decomposed=True,
               notes="attention biases picked by an int64 index buffer"),
    BenchModel("eva02_tiny_decomposed", "timm eva02_tiny_patch14_224, 1x3x224x224, decomposed",
               *_architecture("timm/eva02_tiny_patch14_224"), iterations=30, warmup=3, decomposed=True,
               notes="rotary position embedding"),
]


def quantize_int8(model: BenchModel, ep: torch.export.ExportedProgram, calibration: int = 8) -> nn.Module:
    """NNCF's static int8 quantization of the exported program's module, calibrated on random
    inputs drawn like the example's (seeded), as bench/models.py's "int8" rows are made."""
    import nncf

    generator = torch.Generator().manual_seed(2026)
    examples = model.make_inputs()
    samples = []
    for _ in range(calibration):
        samples.append(tuple(torch.randint(0, int(t.max()) + 1, t.shape, generator=generator, dtype=t.dtype)
                             if not t.is_floating_point() else torch.rand(t.shape, generator=generator)
                             for t in examples))
    return nncf.quantize(ep.module(), nncf.Dataset(samples, lambda s: s), subset_size=calibration)


def by_name(name: str) -> BenchModel:
    for model in MODELS:
        if model.name == name:
            return model
    raise KeyError(f"no benchmark model '{name}'; known: {', '.join(m.name for m in MODELS)}")
