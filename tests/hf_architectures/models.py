"""The transformers model types measured with padded masks, and how each is made tiny.

Types come from transformers' own auto mappings, by family:

- decoder: MODEL_FOR_CAUSAL_LM (less what is also a masked LM, a seq2seq LM or a multimodal
  model), built with AutoModelForCausalLM; the 35 families of issue 43 first.
- encoder: MODEL_FOR_MASKED_LM (less seq2seq), AutoModelForMaskedLM.
- seq2seq: MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM, AutoModelForSeq2SeqLM.
- vision: MODEL_FOR_IMAGE_CLASSIFICATION, AutoModelForImageClassification (no mask: one image
  batch).
- speech: MODEL_FOR_CTC (AutoModelForCTC: raw audio with a right-padded attention_mask) and
  MODEL_FOR_SPEECH_SEQ_2_SEQ (AutoModelForSpeechSeq2Seq: features, decoder ids and a
  left-padded decoder mask).

A type's default config is shrunk generically: every size attribute the config has (hidden
size, layers, heads, key/value heads, feed-forward width, vocabulary, head dim, positions,
experts, ...) is passed to its config class at a small value, with layer_types cut to two
layers keeping both kinds where the default mixes them. A config that stays large (more than
MAX_PARAMS parameters, counted on the meta device) or cannot be built is skipped with the
reason recorded. Weights are random (torch.manual_seed(0)), attn_implementation="sdpa"
(the type's default where it has no SDPA attention: recorded), eval mode, use_cache off.

Inputs (batch 2, sequence 16): each case has variants, every one a call on the same exported
program (the mask is an input, its values are not baked in):

- decoder: left-padded (row 0 starts with 3 pad tokens), padded-row (row 0 left-padded, row 1
  wholly padded), all-ones.
- encoder: right-padded (row 0 ends with 3 pad tokens), padded-row, all-ones.
- seq2seq: the encoder's mask right-padded and the decoder's left-padded (both kinds of
  padding in one call), padded-row (row 1 of both wholly padded), all-ones.
- speech: CTC audio right-padded by a quarter, all-ones; seq2seq speech as seq2seq's decoder.
- vision: one variant, no mask.
"""
from __future__ import annotations

import copy
import dataclasses
import inspect

import torch

import tests.architectures.models  # noqa: F401  (readies torchvision before transformers)

BATCH, SEQ, PAD = 2, 16, 3
VOCAB = 1000
MAX_PARAMS = 20_000_000
FAMILIES = ("decoder", "encoder", "seq2seq", "vision", "speech")

# Issue 43: these returned all-NaN logits with a left-padded mask.
ISSUE_43 = (
    "llama", "qwen2", "qwen3", "mistral", "phi", "phi3", "gemma", "gemma3_text", "gpt2",
    "gpt_neox", "gptj", "opt", "falcon", "stablelm", "starcoder2", "olmo", "olmo2", "granite",
    "cohere", "cohere2", "codegen", "gpt_bigcode", "biogpt", "persimmon", "nemotron", "helium",
    "glm", "smollm3", "exaone4", "arcee", "ministral", "seed_oss", "bitnet", "hunyuan_v1_dense",
    "ctrl",
)

HIDDEN, LAYERS, HEADS, KV_HEADS, FFN, HEAD_DIM, POSITIONS, WINDOW = 64, 2, 4, 2, 128, 16, 128, 8

# attribute -> small value (only attributes the type's default config has are passed)
_SMALL = {
    # widths
    "hidden_size": HIDDEN, "n_embd": HIDDEN, "d_model": HIDDEN, "dim": HIDDEN, "n_embed": HIDDEN,
    "embed_dim": HIDDEN, "embedding_size": HIDDEN, "word_embed_proj_dim": HIDDEN,
    "hidden_dim": FFN, "intermediate_size": FFN, "ffn_dim": FFN, "encoder_ffn_dim": FFN,
    "decoder_ffn_dim": FFN, "d_ff": FFN, "dff": FFN, "n_inner": FFN, "ffn_hidden_size": FFN,
    "inner_hidden_size": FFN, "moe_intermediate_size": 64, "shared_expert_intermediate_size": 64,
    "expert_intermediate_size": 64, "ffn_dim_multiplier": None,
    # depth
    "num_hidden_layers": LAYERS, "n_layer": LAYERS, "n_layers": LAYERS, "num_layers": LAYERS,
    "encoder_layers": LAYERS, "decoder_layers": LAYERS, "num_decoder_layers": LAYERS,
    "num_encoder_layers": LAYERS, "first_k_dense_replace": 1,
    # heads
    "num_attention_heads": HEADS, "n_head": HEADS, "n_heads": HEADS, "num_heads": HEADS,
    "encoder_attention_heads": HEADS, "decoder_attention_heads": HEADS,
    "head_dim": HEAD_DIM, "d_kv": HEAD_DIM, "kv_channels": HEAD_DIM, "attention_head_size": HEAD_DIM,
    "rotary_dim": HEAD_DIM // 2, "rotary_emb_base": None,
    # vocabulary and positions
    "vocab_size": VOCAB, "max_position_embeddings": POSITIONS, "n_positions": POSITIONS,
    "n_ctx": POSITIONS, "max_seq_len": POSITIONS, "seq_length": POSITIONS,
    # mixture of experts
    "num_experts": 4, "num_local_experts": 4, "n_routed_experts": 4, "moe_num_experts": 4,
    "num_experts_per_tok": 2, "moe_topk": 2, "n_shared_experts": 1, "n_group": 1, "topk_group": 1,
    # vision and speech
    "image_size": 32, "patch_size": 8, "num_channels": 3, "num_mel_bins": 16,
    "max_source_positions": 32, "max_target_positions": POSITIONS,
    "conv_dim": (32, 32, 32), "conv_stride": (5, 2, 2), "conv_kernel": (10, 3, 3),
    "num_conv_pos_embeddings": 16, "num_conv_pos_embedding_groups": 4,
    # others' names for the same
    "emb_dim": HIDDEN, "entity_vocab_size": 1000, "entity_emb_size": HIDDEN,
}
# a list per stage or per layer: stage i's small value
_STAGES = {"hidden_sizes": lambda i: 16 * 2 ** i, "depths": lambda i: 1, "embed_dims": lambda i: 16 * 2 ** i}
_TUPLES_AS_IS = ("conv_dim", "conv_stride", "conv_kernel")
_KEY_VALUE_HEADS = ("num_key_value_heads", "num_kv_heads", "n_head_kv", "encoder_num_key_value_heads")
# set where the default leaves them None (models that read them as given)
_EVEN_IF_NONE = ("head_dim",)
# kept as the default makes them unless larger than this
_WINDOWS = ("sliding_window", "attention_window", "attention_chunk_size")


class Skip(Exception):
    """A type this sweep cannot make tiny (or build, or feed): the reason is recorded."""


@dataclasses.dataclass
class Case:
    model_type: str
    family: str
    module: torch.nn.Module
    variants: dict[str, tuple]  # name -> inputs (positional, the wrapper's order)
    attn: str  # the attention implementation the model got
    params: int


def _mappings():
    from transformers.models.auto import modeling_auto as m
    return m


def model_types(family: str) -> list[str]:
    m = _mappings()
    causal = set(m.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)
    masked = set(m.MODEL_FOR_MASKED_LM_MAPPING_NAMES)
    seq2seq = set(m.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES)
    multimodal = set(m.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES) | set(m.MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES)
    speech = set(m.MODEL_FOR_CTC_MAPPING_NAMES) | set(m.MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES)
    if family == "decoder":
        rest = sorted(causal - masked - seq2seq - multimodal - speech - set(ISSUE_43))
        return list(ISSUE_43) + rest
    if family == "encoder":
        return sorted(masked - seq2seq)
    if family == "seq2seq":
        return sorted(seq2seq - speech - multimodal)
    if family == "vision":
        return sorted(m.MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES)
    if family == "speech":
        return sorted(speech)
    raise ValueError(f"unknown family {family!r}")


def _auto_class(family: str, model_type: str):
    import transformers
    m = _mappings()
    if family == "decoder":
        return transformers.AutoModelForCausalLM
    if family == "encoder":
        return transformers.AutoModelForMaskedLM
    if family == "seq2seq":
        return transformers.AutoModelForSeq2SeqLM
    if family == "vision":
        return transformers.AutoModelForImageClassification
    if model_type in m.MODEL_FOR_CTC_MAPPING_NAMES:
        return transformers.AutoModelForCTC
    return transformers.AutoModelForSpeechSeq2Seq


def tiny_config(model_type: str):
    """The type's config with every size attribute it has made small."""
    from transformers import CONFIG_MAPPING
    try:
        config_class = CONFIG_MAPPING[model_type]
    except Exception as e:  # noqa: BLE001
        raise Skip(f"no config class: {type(e).__name__}: {e}") from e
    try:
        default = config_class()
    except Exception as e:  # noqa: BLE001
        raise Skip(f"default config: {type(e).__name__}: {e}") from e
    if getattr(default, "sub_configs", None):
        subs = [k for k in default.sub_configs if getattr(default, k, None) is not None]
        if subs:
            raise Skip(f"composite config ({', '.join(subs)}): not shrunk generically")
    have = default.to_dict()
    try:
        accepted = set(inspect.signature(config_class.__init__).parameters)
    except (TypeError, ValueError):
        accepted = set(have)
    takes_any = any(p.kind == p.VAR_KEYWORD for p in inspect.signature(config_class.__init__).parameters.values())
    kwargs = {}
    layers_default = next((have[k] for k in ("num_hidden_layers", "num_layers", "n_layer", "n_layers")
                           if isinstance(have.get(k), int)), None)
    for key, stage in _STAGES.items():
        old = have.get(key)
        if isinstance(old, (list, tuple)) and old:
            kwargs[key] = [min(v, stage(i)) if isinstance(v, int) else v for i, v in enumerate(old)]

    def put(key, value):
        if key in have and (key in accepted or takes_any):
            kwargs[key] = value

    for key, value in _SMALL.items():
        old = have.get(key)
        if key not in have or isinstance(old, bool) or (old is None and key not in _EVEN_IF_NONE):
            continue
        if value is None:
            continue
        if key in _TUPLES_AS_IS:
            if isinstance(old, (list, tuple)):
                put(key, value)
            continue
        if isinstance(old, (list, tuple)):
            # per layer (as long as the default's layers): one per small layer; else per stage
            per_layer = len(old) == layers_default and len(old) > 1 and "depths" not in have
            put(key, [value] * (LAYERS if per_layer else len(old)))
            continue
        if isinstance(old, (int, float)) and isinstance(value, (int, float)) and old <= value and key not in (
                "head_dim", "d_kv", "kv_channels", "attention_head_size"):
            continue  # already small: the default's value (a ratio, a count of 1) stays
        put(key, value)
    heads = have.get("num_attention_heads") or have.get("n_head") or have.get("num_heads")
    for key in _KEY_VALUE_HEADS:
        old = have.get(key)
        if key in have and old is None:
            put(key, HEADS)  # None: as many as the query heads (some models read it as given)
        elif isinstance(old, int) and not isinstance(old, bool):
            # grouped-query where the default groups, else as many as the query heads
            put(key, 1 if old == 1 else (KV_HEADS if heads and old < heads else HEADS))
    for key in _WINDOWS:
        old = have.get(key)
        if isinstance(old, int) and not isinstance(old, bool) and old > WINDOW:
            put(key, WINDOW)
    types = have.get("layer_types")
    if isinstance(types, list) and types:
        kinds = list(dict.fromkeys(types))
        put("layer_types", (kinds[:LAYERS] + [kinds[-1]] * LAYERS)[:LAYERS])
    # token ids inside the small vocabulary
    vocab = kwargs.get("vocab_size", have.get("vocab_size"))
    if isinstance(vocab, int):
        for key, old in have.items():
            if not key.endswith("token_id"):
                continue
            if isinstance(old, int) and old >= vocab:
                put(key, 1 + len(kwargs) % 3)
            elif isinstance(old, list) and any(isinstance(i, int) and i >= vocab for i in old):
                put(key, [i for i in old if isinstance(i, int) and i < vocab] or [2])
    try:
        config = config_class(**kwargs)
    except Exception as e:  # noqa: BLE001
        raise Skip(f"tiny config: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from e
    if hasattr(config, "use_cache"):
        config.use_cache = False
    return config


def _count_params(auto, config) -> int:
    with torch.device("meta"):
        model = auto.from_config(config)
    return sum(p.numel() for p in model.parameters())


class Forward(torch.nn.Module):
    """The model called with keyword inputs from positional ones; returns its logits (or its
    first tensor), which export and eager flatten alike."""

    def __init__(self, model: torch.nn.Module, names: tuple[str, ...]):
        super().__init__()
        self.model = model
        self.names = names

    def forward(self, *args):
        out = self.model(**dict(zip(self.names, args)))
        logits = getattr(out, "logits", None)
        if isinstance(logits, torch.Tensor):
            return logits
        if isinstance(out, torch.Tensor):
            return out
        return out[0]


def _left_padded(rows_padded: dict[int, int]) -> torch.Tensor:
    mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    for row, n in rows_padded.items():
        mask[row, :n] = 0
    return mask


def _right_padded(rows_padded: dict[int, int]) -> torch.Tensor:
    mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    for row, n in rows_padded.items():
        mask[row, SEQ - n:] = 0
    return mask


def _ids(config, seed: int) -> torch.Tensor:
    vocab = int(getattr(config, "vocab_size", VOCAB) or VOCAB)
    g = torch.Generator().manual_seed(seed)
    # above the usual special ids (pad/bos/eos/unk are small numbers)
    return torch.randint(min(5, vocab - 1), vocab, (BATCH, SEQ), generator=g)


def _text_variants(config, family: str) -> tuple[tuple[str, ...], dict[str, tuple]]:
    ids = _ids(config, 1)
    ones = torch.ones(BATCH, SEQ, dtype=torch.int64)
    if family == "decoder":
        pad = _left_padded
        first = "left-padded"
    else:
        pad = _right_padded
        first = "right-padded"
    padded = pad({0: PAD})
    whole = pad({0: PAD, 1: SEQ})
    if family != "seq2seq":
        names = ("input_ids", "attention_mask")
        return names, {first: (ids, padded), "padded-row": (ids, whole), "all-ones": (ids, ones)}
    decoder_ids = _ids(config, 2)
    names = ("input_ids", "attention_mask", "decoder_input_ids", "decoder_attention_mask")
    return names, {
        "padded": (ids, padded, decoder_ids, _left_padded({0: PAD})),
        "padded-row": (ids, whole, decoder_ids, _left_padded({0: PAD, 1: SEQ})),
        "all-ones": (ids, ones, decoder_ids, ones),
    }


def _speech_variants(config, model_type: str):
    m = _mappings()
    g = torch.Generator().manual_seed(3)
    if model_type in m.MODEL_FOR_CTC_MAPPING_NAMES:
        samples = 1600
        audio = torch.randn(BATCH, samples, generator=g)
        mask = torch.ones(BATCH, samples, dtype=torch.int64)
        mask[0, samples * 3 // 4:] = 0
        names = ("input_values", "attention_mask")
        return names, {"right-padded": (audio, mask), "all-ones": (audio, torch.ones_like(mask))}
    bins = int(getattr(config, "num_mel_bins", 16) or 16)
    frames = 2 * int(getattr(config, "max_source_positions", 32) or 32)
    features = torch.randn(BATCH, bins, frames, generator=g)
    decoder_ids = _ids(config, 2)
    ones = torch.ones(BATCH, SEQ, dtype=torch.int64)
    names = ("input_features", "decoder_input_ids", "decoder_attention_mask")
    return names, {"left-padded": (features, decoder_ids, _left_padded({0: PAD})),
                   "all-ones": (features, decoder_ids, ones)}


def _vision_variants(config):
    g = torch.Generator().manual_seed(4)
    size = getattr(config, "image_size", 32)
    size = size if isinstance(size, int) else 32
    channels = int(getattr(config, "num_channels", 3) or 3)
    return ("pixel_values",), {"image": (torch.randn(BATCH, channels, max(size, 32), max(size, 32), generator=g),)}


def build(model_type: str, family: str) -> Case:
    """The tiny model (random weights, seeded, eval) and its input variants; Skip with a reason."""
    config = tiny_config(model_type)
    auto = _auto_class(family, model_type)
    try:
        params = _count_params(auto, config)
    except Exception as e:  # noqa: BLE001
        raise Skip(f"model: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from e
    if params > MAX_PARAMS:
        raise Skip(f"config not made small: {params / 1e6:.0f} M parameters")
    torch.manual_seed(0)
    attn = "sdpa"
    try:  # a copy: a failed attempt leaves its attention choice in the config it was given
        model = auto.from_config(copy.deepcopy(config), attn_implementation="sdpa")
    except Exception as e:  # noqa: BLE001 - no SDPA attention: the type's default
        if "sdpa" not in str(e).lower() and "attention" not in str(e).lower():
            raise Skip(f"model: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from e
        torch.manual_seed(0)
        try:
            model = auto.from_config(copy.deepcopy(config))
        except Exception as e2:  # noqa: BLE001
            raise Skip(f"model: {type(e2).__name__}: {str(e2).splitlines()[0] if str(e2) else ''}") from e2
        attn = str(getattr(model.config, "_attn_implementation", "default"))
    model.eval()
    if family == "vision":
        names, variants = _vision_variants(config)
    elif family == "speech":
        names, variants = _speech_variants(config, model_type)
    else:
        names, variants = _text_variants(config, family)
    return Case(model_type, family, Forward(model, names), variants, attn, params)
