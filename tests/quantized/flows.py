"""Quantized programs as people make them, through pt2ov and through OpenVINO alone, against
eager's quantized module (docs/EXACTNESS.md E8): `make quantized`.

Flows: torchao's PT2E (prepare_pt2e / convert_pt2e with X86InductorQuantizer, folded and not),
NNCF's static int8 quantization (nncf.quantize) and NNCF's weight compression (compress_weights,
int8 and int4, symmetric and asymmetric), each exported with torch.export in both program forms.
The larger models (ResNet-18, MobileNetV3-small and a 2-layer BERT-like encoder of
bench/models.py, random weights, NNCF static int8) run by default on OpenVINO's int8 kernels and
again under --quantized-reference.
A flow's verdict: `exact` (bit for bit eager's), `E5` (within rtol 1e-4 / atol 1e-5: float
arithmetic between quantization ops), `E8` (beyond that but within 5 % of the output's largest
magnitude, or twice what --quantized-reference differs by: one-step differences of requantized
values carried through a network, E8), `WRONG`
(exit 0 beyond that), `refused` or `error`; the last column gives the largest difference as a
fraction of that magnitude. Weight-compression flows also run under --compressed-weights
(E9: within 1 % of the output's largest magnitude). Prints one table; exits 1 when pt2ov is
WRONG anywhere.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  registers quantized_decomposed, to load

RTOL, ATOL = 1e-4, 1e-5
E8_OF_RANGE = 0.05  # docs/EXACTNESS.md E8: a network's outputs, as a fraction of their largest magnitude
E9_OF_RANGE = 0.01  # E9, --compressed-weights: each weight's float16 rounding carried through a network


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(16, 32), torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c, self.d = torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.Conv2d(8, 4, 3)
        self.head = torch.nn.Linear(4 * 6 * 6, 10)

    def forward(self, x):
        return self.head(torch.relu(self.d(torch.relu(self.c(x)))).flatten(1))


class TinyLM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(100, 64)
        self.up, self.down, self.head = torch.nn.Linear(64, 128), torch.nn.Linear(128, 64), torch.nn.Linear(64, 100)

    def forward(self, ids):
        return self.head(self.down(torch.relu(self.up(self.embed(ids)))))


def _pt2e(model, example, fold):
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as xiq

    quantizer = xiq.X86InductorQuantizer()
    quantizer.set_global(xiq.get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(torch.export.export(model, (example,)).module(), quantizer)
    prepared(example)
    return convert_pt2e(prepared, fold_quantize=fold)


def _larger_models():
    """bench/models.py's ResNet-18, MobileNetV3-small and a 2-layer BERT-like encoder, seeded."""
    import pathlib

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
    import models as bench

    g = torch.Generator().manual_seed(2605)
    image = torch.rand(1, 3, 224, 224, generator=g)
    ids = torch.randint(0, 30522, (1, 64), generator=g)

    return [("ResNet-18", lambda: (torch.manual_seed(2), bench._randomize_batchnorms(bench.ResNet18()).eval())[1], image),
            ("MobileNetV3-small", lambda: (torch.manual_seed(3), bench._randomize_batchnorms(bench.MobileNetV3Small()).eval())[1],
             image),
            ("BERT-like encoder, 2 layers", lambda: (torch.manual_seed(4), bench.BertEncoder(layers=2).eval())[1], ids)]


def _nncf_static(model, example):
    import nncf

    def like(t):
        return torch.randint_like(t, 0, int(t.max()) + 1) if not t.is_floating_point() else torch.randn_like(t)

    calibration = nncf.Dataset([like(example) for _ in range(4)])
    return nncf.quantize(torch.export.export(model, (example,)).module(), calibration)


def _nncf_weights(model, example, mode, group_size=32, ratio=1.0):
    import nncf

    options = {} if mode.startswith("INT8") else {"group_size": group_size, "ratio": ratio}
    return nncf.compress_weights(torch.export.export(model, (example,)).module(),
                                 mode=getattr(nncf.CompressWeightsMode, mode), **options)


class DecoderLM(torch.nn.Module):
    """transformers' LlamaForCausalLM (2 layers, hidden 128, vocabulary 1,000, random weights,
    seeded): logits of a forward over the token ids, no cache."""

    def __init__(self):
        super().__init__()
        import pathlib

        # transformers imports torchvision, whose CPU ops this torch cannot load: the
        # architectures' models file defines their schemas first.
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
        import tests.architectures.models  # noqa: F401
        from transformers import LlamaConfig, LlamaForCausalLM

        torch.manual_seed(5)
        config = LlamaConfig(vocab_size=1000, hidden_size=128, intermediate_size=384, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, use_cache=False)
        self.inner = LlamaForCausalLM(config).eval()

    def forward(self, ids):
        return self.inner(input_ids=ids, use_cache=False).logits


def _torchao(model, config_name):
    from torchao.quantization import (Int8DynamicActivationInt8WeightConfig, Int8DynamicActivationIntxWeightConfig,
                                      Int8WeightOnlyConfig, IntxWeightOnlyConfig, quantize_)

    config = {"Int8WeightOnly": Int8WeightOnlyConfig, "Int8DynamicActivationInt8Weight": Int8DynamicActivationInt8WeightConfig,
              "IntxWeightOnly": IntxWeightOnlyConfig, "Int8DynamicActivationIntxWeight": Int8DynamicActivationIntxWeightConfig}
    quantize_(model, config[config_name]())
    return model


def flows():
    torch.manual_seed(0)
    x_mlp, x_conv, ids = torch.randn(4, 16), torch.randn(2, 3, 8, 8), torch.randint(0, 100, (2, 7))
    yield "PT2E folded", "MLP", lambda: _pt2e(MLP().eval(), x_mlp, True), x_mlp
    yield "PT2E folded", "ConvNet", lambda: _pt2e(ConvNet().eval(), x_conv, True), x_conv
    yield "PT2E not folded", "MLP", lambda: _pt2e(MLP().eval(), x_mlp, False), x_mlp
    yield "PT2E not folded", "ConvNet", lambda: _pt2e(ConvNet().eval(), x_conv, False), x_conv
    yield "NNCF static int8", "ConvNet", lambda: _nncf_static(ConvNet().eval(), x_conv), x_conv
    for mode in ("INT8_SYM", "INT8_ASYM", "INT4_SYM", "INT4_ASYM"):
        yield f"NNCF weights {mode}", "TinyLM", (lambda mode=mode: _nncf_weights(TinyLM().eval(), ids, mode)), ids
    lm_ids = torch.randint(0, 1000, (1, 24), generator=torch.Generator().manual_seed(6))
    for mode, group_size, ratio in (("INT8_ASYM", 0, 1.0), ("INT4_SYM", 32, 1.0), ("INT4_ASYM", 64, 1.0),
                                    ("INT4_ASYM", 32, 0.6)):
        flow = f"NNCF weights {mode}" + (f" g{group_size}" if group_size else "") + (f" ratio {ratio}" if ratio < 1 else "")
        yield flow, "decoder LM", (lambda mode=mode, g=group_size, r=ratio: _nncf_weights(DecoderLM().eval(), lm_ids, mode, g, r)), lm_ids
    for name, make, example in _larger_models():
        yield "NNCF static int8", name, (lambda make=make, example=example: _nncf_static(make(), example)), example
    # torchao's tensor subclasses: the exported form keeps them pickled (pt2ov refuses it, naming
    # run_decompositions()); the decomposed form holds their inner tensors and plain ATen ops.
    for config in ("Int8WeightOnly", "Int8DynamicActivationInt8Weight", "IntxWeightOnly", "Int8DynamicActivationIntxWeight"):
        yield f"torchao {config}", "TinyLM", (lambda config=config: _torchao(TinyLM().eval(), config)), ids


def verdict(got: np.ndarray, want: np.ndarray, activations_quantized: bool = True,
            reference_of_range: float = 0.0) -> tuple[str, float, float]:
    """E8's network bound applies where activations are quantized: within 5 % of the output's
    range, or twice what --quantized-reference (eager's arithmetic in another summation order)
    differs by; a weight-only program is a float program (its weights dequantized in the graph)
    under E5."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return "WRONG", float("nan"), float("nan")
    off = float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max()) if got.size else 0.0
    largest = float(np.abs(want.astype(np.float64)).max()) if want.size else 0.0
    of_range = off / largest if largest else 0.0
    if np.array_equal(got.view(np.uint8), want.view(np.uint8)):
        return "exact", off, of_range
    if np.allclose(got, want, rtol=RTOL, atol=ATOL):
        return "E5", off, of_range
    if activations_quantized and of_range <= max(E8_OF_RANGE, 2 * reference_of_range):
        return "E8", off, of_range
    return "WRONG", off, of_range


def compressed_verdict(got: np.ndarray, want: np.ndarray) -> tuple[str, float, float]:
    """--compressed-weights (docs/EXACTNESS.md E9): each weight within half a float16 step of
    eager's, carried through the network: `E9` within 1 % of the output's largest magnitude
    (a lost zero point or a nibble read in the wrong order moves outputs by their whole range)."""
    status, off, of_range = verdict(got, want, activations_quantized=False)
    if status == "WRONG" and off == off and of_range <= E9_OF_RANGE:
        return "E9", off, of_range
    return status, off, of_range


def run_pt2ov(path, example, **options):
    import pt2ov

    try:
        program = pt2ov.load(str(path), **options)
    except Exception as error:  # noqa: BLE001  a refusal is a verdict
        return "refused", str(error).splitlines()[0][:120], None
    out = program(example)
    out = out[0] if isinstance(out, (list, tuple)) else out
    steps = [s.kind for s in program.steps] if hasattr(program, "steps") else []
    return "ok", out.numpy() if isinstance(out, torch.Tensor) else np.asarray(out), steps


def run_openvino(ep, example):
    import openvino as ov

    try:
        model = ov.convert_model(ep)
        compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                          "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"})
        return "ok", compiled(example.numpy())[0]
    except Exception as error:  # noqa: BLE001
        return "error", str(error).splitlines()[0][:120]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", default="build/quantized", help="folder for the exported programs")
    parser.add_argument("--only", default="", help="run only the flows whose model name contains this text")
    args = parser.parse_args()
    import pathlib

    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows, wrong = [], 0
    nan = float("nan")
    for flow, model_name, make, example in flows():
        if args.only and args.only not in model_name:
            continue
        start = time.time()
        try:
            quantized = make()
            with torch.no_grad():
                expected = quantized(example)
                exported = torch.export.export(quantized, (example,))
        except Exception as error:  # noqa: BLE001  the quantizer's own failure is a row too
            rows.append((flow, model_name, "-", ("quantizer failed: " + str(error).splitlines()[0][:80], nan, nan),
                         ("-", nan, nan), ("-", nan, nan), ("-", nan, nan)))
            continue
        activations_quantized = not (flow.startswith("NNCF weights") or "WeightOnly" in flow)
        for form in ("exported", "decomposed"):
            ep = exported if form == "exported" else exported.run_decompositions()
            path = work / f"{flow.replace(' ', '_')}_{model_name.replace(' ', '_').replace(',', '')}_{form}.pt2"
            torch.export.save(ep, path)
            verdicts = []
            for options in ({"quantized_reference": True}, {}):
                status, value, _ = run_pt2ov(path, example, **options)
                reference = verdicts[0][2] if verdicts and verdicts[0][2] == verdicts[0][2] else 0.0
                verdicts.append((status, nan, nan) if status != "ok" else
                                verdict(value, expected.numpy(), activations_quantized, reference))
            verdicts.reverse()  # the default first
            wrong += sum(v[0] == "WRONG" for v in verdicts)
            compressed = ("-", nan, nan)
            if flow.startswith("NNCF weights"):
                status, value, _ = run_pt2ov(path, example, compressed_weights=True)
                compressed = (status, nan, nan) if status != "ok" else compressed_verdict(value, expected.numpy())
                wrong += compressed[0] == "WRONG"
            alone_status, alone_value = run_openvino(ep, example)
            alone = ((alone_status, nan, nan) if alone_status != "ok" else
                     verdict(alone_value, expected.numpy(), activations_quantized, verdicts[1][2]))
            rows.append((flow, model_name, form, verdicts[0], verdicts[1], compressed, alone))
            print(f"{flow} / {model_name} / {form}: {verdicts[0][0]} (reference {verdicts[1][0]}, compressed "
                  f"{compressed[0]}, OpenVINO alone {alone[0]}) in {time.time() - start:.0f} s", file=sys.stderr, flush=True)
    print("| flow | model | form | pt2ov | max abs diff (of range) | pt2ov --quantized-reference | max abs diff (of range) "
          "| pt2ov --compressed-weights | max abs diff (of range) | OpenVINO alone | max abs diff (of range) |")
    print("|---|---|---|---|---:|---|---:|---|---:|---|---:|")
    for flow, model_name, form, ours, reference, compressed, alone in rows:
        cells = [f"{v[0]} | {v[1]:.2g} ({v[2]:.2%})" for v in (ours, reference, compressed, alone)]
        print(f"| {flow} | {model_name} | {form} | " + " | ".join(cells) + " |")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
