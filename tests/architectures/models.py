"""The architectures measured: real models of torchvision, timm and transformers, random weights
(seeded), eval mode, batch 1 and small inputs, each a builder returning (module, inputs).

The packages are pinned in requirements-models.txt. torchvision's PyPI wheel is built for CUDA:
its C++ ops (nms, roi_align, ...) cannot load on the CPU torch, and importing it fails on the
fake-tensor registration of `torchvision::nms`. No model measured here uses those ops, so their
schemas are defined (without kernels) before torchvision is imported.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import torch


@dataclasses.dataclass(frozen=True)
class Architecture:
    name: str  # "library/model"
    build: Callable[[], tuple[torch.nn.Module, tuple]]


_TORCHVISION_SCHEMAS = (
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
)


def _define_torchvision_schemas_if_its_ops_cannot_load():
    """Before torchvision is imported (transformers and timm import it too)."""
    import importlib.util
    import pathlib
    spec = importlib.util.find_spec("torchvision")
    if spec is None or spec.origin is None:
        return None
    try:
        torch.ops.load_library(str(pathlib.Path(spec.origin).parent / "_C.so"))
        return None
    except OSError:
        lib = torch.library.Library("torchvision", "FRAGMENT")
        for schema in _TORCHVISION_SCHEMAS:
            try:
                lib.define(schema)
            except RuntimeError as e:  # defined already by another module of this process
                if "multiple times" not in str(e):
                    raise
        return lib


_torchvision_lib = _define_torchvision_schemas_if_its_ops_cannot_load()


def torchvision():
    import torchvision as tv
    return tv


def image(size: int, channels: int = 3) -> tuple:
    return (torch.randn(1, channels, size, size),)


class FirstTensor(torch.nn.Module):
    """Wraps a module whose output is a dict or ModelOutput: returns its tensors as a tuple (in
    the output's own order), which export and eager flatten alike."""

    def __init__(self, inner: torch.nn.Module, keys: tuple = ()):
        super().__init__()
        self.inner = inner
        self.keys = keys

    def forward(self, *args):
        out = self.inner(*args)
        if isinstance(out, torch.Tensor):
            return out
        if self.keys:
            return tuple(out[k] for k in self.keys)
        if isinstance(out, dict):
            return tuple(v for v in out.values() if isinstance(v, torch.Tensor))
        return out[0]


def _tv(fn_name: str, size: int = 64, *, inputs=None, **kwargs):
    def build():
        tv = torchvision()
        model = getattr(tv.models, fn_name, None) or getattr(tv.models.segmentation, fn_name, None) \
            or getattr(tv.models.optical_flow, fn_name, None) or getattr(tv.models.video, fn_name)
        module = model(weights=None, **kwargs)
        if fn_name.startswith(("fcn_", "deeplabv3", "lraspp")):
            module = FirstTensor(module, ("out",))
        return module, (inputs() if inputs else image(size))
    return Architecture(f"torchvision/{fn_name}", build)


def _timm(name: str, size: int = 64, **kwargs):
    def build():
        import timm
        extra = dict(kwargs)
        if size != 224 and "img_size" not in extra and not extra.pop("no_img_size", False):
            extra["img_size"] = size
        extra.pop("no_img_size", None)
        module = timm.create_model(name, pretrained=False, **extra)
        return module, image(size)
    return Architecture(f"timm/{name}", build)


def _tokens(length: int = 16, vocab: int = 1000) -> tuple:
    return (torch.randint(0, vocab, (1, length)),)


def _hf(label: str, config_name: str, model_name: str, config: dict, inputs=_tokens,
        keys: tuple = ()):
    def build():
        import transformers
        cfg = getattr(transformers, config_name)(**config)
        module = getattr(transformers, model_name)(cfg)
        return FirstTensor(module, keys), inputs()
    return Architecture(f"transformers/{label}", build)


_SMALL = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
              vocab_size=1000)
_DECODER = dict(_SMALL, num_key_value_heads=2, max_position_embeddings=128, use_cache=False)


def _whisper_encoder():
    import transformers
    cfg = transformers.WhisperConfig(d_model=64, encoder_layers=2, decoder_layers=2,
                                     encoder_attention_heads=4, decoder_attention_heads=4,
                                     encoder_ffn_dim=128, decoder_ffn_dim=128, num_mel_bins=16,
                                     max_source_positions=32, vocab_size=1000,
                                     pad_token_id=0, bos_token_id=1, eos_token_id=2,
                                     decoder_start_token_id=1)
    encoder = transformers.WhisperModel(cfg).get_encoder()
    return FirstTensor(encoder), (torch.randn(1, 16, 64),)


def _t5_encoder():
    import transformers
    cfg = transformers.T5Config(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
                                vocab_size=1000)
    return FirstTensor(transformers.T5EncoderModel(cfg)), _tokens()


def _wav2vec2():
    import transformers
    cfg = transformers.Wav2Vec2Config(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                      intermediate_size=128, conv_dim=(32, 32, 32),
                                      conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
                                      num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)
    return FirstTensor(transformers.Wav2Vec2Model(cfg)), (torch.randn(1, 800),)


def _bart():
    import transformers
    cfg = transformers.BartConfig(d_model=64, encoder_layers=2, decoder_layers=2,
                                  encoder_attention_heads=4, decoder_attention_heads=4,
                                  encoder_ffn_dim=128, decoder_ffn_dim=128, vocab_size=1000,
                                  max_position_embeddings=64, use_cache=False)
    return FirstTensor(transformers.BartModel(cfg)), _tokens()


_VISION = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
               image_size=32, patch_size=8)

class _LastFlow(torch.nn.Module):
    """RAFT returns one flow per refinement; the last is its answer. Three refinements keep the
    program small (the default is 12; every refinement is the same block)."""

    def __init__(self, raft: torch.nn.Module):
        super().__init__()
        self.raft = raft

    def forward(self, first, second):
        return self.raft(first, second, num_flow_updates=3)[-1]


def _raft_small():
    tv = torchvision()
    return _LastFlow(tv.models.optical_flow.raft_small(weights=None)), (image(128)[0], image(128)[0])


ARCHITECTURES: list[Architecture] = [
    # torchvision
    _tv("resnet18"),
    _tv("resnet50"),
    _tv("alexnet"),
    _tv("mobilenet_v2"),
    _tv("mobilenet_v3_small"),
    _tv("mobilenet_v3_large"),
    _tv("efficientnet_b0"),
    _tv("efficientnet_v2_s"),
    _tv("convnext_tiny"),
    _tv("regnet_y_400mf"),
    _tv("shufflenet_v2_x0_5"),
    _tv("squeezenet1_1"),
    _tv("densenet121"),
    _tv("googlenet", aux_logits=False, init_weights=True),
    _tv("inception_v3", 96, aux_logits=False, init_weights=True),
    _tv("mnasnet0_5"),
    _tv("vit_b_16", 64, image_size=64),
    _tv("swin_t", 64),
    _tv("swin_v2_t", 64),
    _tv("maxvit_t", 224),
    _tv("deeplabv3_mobilenet_v3_large", weights_backbone=None),
    _tv("fcn_resnet50", weights_backbone=None, aux_loss=False),
    _tv("lraspp_mobilenet_v3_large", weights_backbone=None),
    _tv("r3d_18", inputs=lambda: (torch.randn(1, 3, 4, 32, 32),)),
    Architecture("torchvision/raft_small", lambda: _raft_small()),
    # timm
    _timm("levit_128s", 224),
    _timm("eva02_tiny_patch14_224", 224),
    _timm("deit_tiny_patch16_224"),
    _timm("poolformer_s12", no_img_size=True),
    _timm("convmixer_768_32", no_img_size=True),
    _timm("ghostnetv2_100", no_img_size=True),
    _timm("mobilevit_xxs", no_img_size=True),
    _timm("efficientformer_l1", 224),
    _timm("coatnet_nano_rw_224", 224),
    _timm("resmlp_12_224"),
    _timm("mixer_s16_224"),
    _timm("convnextv2_atto", no_img_size=True),
    _timm("pvt_v2_b0", no_img_size=True),
    _timm("xcit_nano_12_p16_224"),
    _timm("fastvit_t8", no_img_size=True),
    _timm("edgenext_xx_small", no_img_size=True),
    _timm("efficientvit_m0", 224),
    _timm("efficientvit_b0", no_img_size=True),
    _timm("tiny_vit_5m_224", 224),
    _timm("rexnet_100", no_img_size=True),
    _timm("lcnet_050", no_img_size=True),
    _timm("mobileone_s0", no_img_size=True),
    _timm("repvgg_a0", no_img_size=True),
    # transformers, small configs
    _hf("bert", "BertConfig", "BertModel", _SMALL),
    _hf("distilbert", "DistilBertConfig", "DistilBertModel",
        dict(dim=64, n_layers=2, n_heads=4, hidden_dim=128, vocab_size=1000)),
    _hf("roberta", "RobertaConfig", "RobertaModel", _SMALL),
    _hf("albert", "AlbertConfig", "AlbertModel", dict(_SMALL, embedding_size=32)),
    _hf("electra", "ElectraConfig", "ElectraModel", dict(_SMALL, embedding_size=32)),
    _hf("gpt2", "GPT2Config", "GPT2Model",
        dict(n_embd=64, n_layer=2, n_head=4, n_positions=64, vocab_size=1000, use_cache=False)),
    _hf("llama", "LlamaConfig", "LlamaModel", _DECODER),
    _hf("mistral", "MistralConfig", "MistralModel", _DECODER),
    _hf("qwen2", "Qwen2Config", "Qwen2Model", _DECODER),
    _hf("phi", "PhiConfig", "PhiModel", dict(_DECODER, num_key_value_heads=4)),
    _hf("gemma", "GemmaConfig", "GemmaModel", dict(_DECODER, head_dim=16)),
    _hf("opt", "OPTConfig", "OPTModel",
        dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, ffn_dim=128,
             vocab_size=1000, max_position_embeddings=64, word_embed_proj_dim=64,
             use_cache=False)),
    Architecture("transformers/t5_encoder", _t5_encoder),
    Architecture("transformers/bart", _bart),
    Architecture("transformers/whisper_encoder", _whisper_encoder),
    Architecture("transformers/wav2vec2", _wav2vec2),
    _hf("vit", "ViTConfig", "ViTModel", _VISION, inputs=lambda: image(32)),
    _hf("deit", "DeiTConfig", "DeiTModel", _VISION, inputs=lambda: image(32)),
    _hf("convnext", "ConvNextConfig", "ConvNextModel",
        dict(hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1]), inputs=lambda: image(64)),
    _hf("swin", "SwinConfig", "SwinModel",
        dict(image_size=64, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2],
             window_size=4), inputs=lambda: image(64)),
    _hf("clip_vision", "CLIPVisionConfig", "CLIPVisionModel", _VISION, inputs=lambda: image(32)),
]


def by_name() -> dict[str, Architecture]:
    return {a.name: a for a in ARCHITECTURES}
