"""Export a transformers decoder language model with a static KV cache, for `pt2ov generate`.

    .venv/bin/python examples/export_llm.py --family qwen2 --size qwen2.5-0.5b --weights int4 --out qwen/
    build/pt2ov generate qwen/model.pt2 --tokenizer qwen/ --prompt "Once upon a time"

From a config with random weights (seeded; nothing is downloaded), or a Hugging Face model you
have (`--model FOLDER`, its own tokenizer with it). Writes to `--out`:

  model.pt2            the program: takes input_ids (1, seq) and cache_position (seq,) int64 and
                       returns the last position's logits (1, 1, vocab) in float32, the cache in its buffers
                       (transformers' StaticCache, as its ExecuTorch export wrapper holds it);
                       seq is dynamic up to --max-cache-len, so one program prefills and decodes
  model_decomposed.pt2 with --decomposed: the same after ep.run_decompositions()
  openvino_tokenizer.xml, openvino_detokenizer.xml (+ .bin)
                       the tokenizer as openvino-tokenizers converts it, what pt2ov::Tokenizer runs
  tokenizer.json, ...  the Hugging Face tokenizer (a small byte-level BPE trained here on a
                       multilingual text when the model is random)

Weights (--weights): f32; bf16 (the model in bfloat16, its cache too); int8 and int4 by NNCF's
weight compression of the exported module (INT8_ASYM; INT4_ASYM in groups of 128, the embedding
and head int8), run with pt2ov's --compressed-weights to keep them compressed in memory.

Only the last position's logits leave the program (transformers' logits_to_keep=1: the head runs
on that position alone), so a 128-token prompt does not make 128 x vocabulary floats.
Requires transformers (requirements-models.txt), nncf for int8/int4 (requirements-quant.txt).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_llm  # noqa: E402,F401  (defines torchvision's schemas before transformers imports it)

# Each family's transformers classes, and how its config spells the common sizes.
FAMILIES = {
    "llama": "Llama",
    "qwen2": "Qwen2",
    "qwen3": "Qwen3",
    "phi3": "Phi3",
    "gemma": "Gemma",
    "gemma2": "Gemma2",
    "mistral": "Mistral",
    "gpt2": "GPT2",
    # mixtures of experts (transformers' grouped_mm_fallback op routes the tokens)
    "qwen2_moe": "Qwen2Moe",
    "qwen3_moe": "Qwen3Moe",
    "mixtral": "Mixtral",
    "olmoe": "Olmoe",
    # Gemma 3's text model: sliding-window and full-attention layers in turn
    "gemma3": "Gemma3",
    "phi": "Phi",
    "falcon": "Falcon",
    "stablelm": "StableLm",
    "starcoder2": "Starcoder2",
    "olmo": "Olmo",
    "olmo2": "Olmo2",
    "granite": "Granite",
    "cohere": "Cohere",
}

# What each family's config needs beyond the common sizes (tiny experts; a sliding window
# shorter than the tests' 136 tokens, so that it slides).
_EXTRA_FIELDS = {
    "qwen2_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64, shared_expert_intermediate_size=64,
                      decoder_sparse_step=1),
    "qwen3_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64, decoder_sparse_step=1),
    "mixtral": dict(num_local_experts=4, num_experts_per_tok=2),
    "olmoe": dict(num_experts=4, num_experts_per_tok=2),
    "gemma3": dict(sliding_window=16),
}

# Sizes by name: a tiny one for tests, one whose weights pass 64 MiB (pt2ov's OpenVINO step then
# infers on OpenVINO's own thread), and Qwen2.5-0.5B's shape (24 layers, hidden 896).
SIZES = {
    "tiny": dict(layers=2, hidden=64, intermediate=128, heads=4, kv_heads=2, vocab=512),
    "medium": dict(layers=2, hidden=512, intermediate=1536, heads=8, kv_heads=4, vocab=32768),
    "small": dict(layers=4, hidden=256, intermediate=768, heads=4, kv_heads=2, vocab=4096),
    "qwen2.5-0.5b": dict(layers=24, hidden=896, intermediate=4864, heads=14, kv_heads=2, vocab=151936),
    # Qwen3-30B-A3B's proportions at a size this machine holds: its vocabulary, grouped-query
    # heads, 64 experts of which 8 a token, narrow experts (the real one: 48 layers, hidden 2048,
    # 128 experts of 768).
    "qwen3-moe-small": dict(layers=8, hidden=1024, intermediate=3072, heads=16, kv_heads=4, vocab=151936,
                            experts=dict(num_experts=64, num_experts_per_tok=8, moe_intermediate_size=256,
                                         norm_topk_prob=True)),
}

# A text in several scripts: the tokenizer a random model gets is trained on it, and the tests
# round-trip it.
MULTILINGUAL_TEXT = (
    "The quick brown fox jumps over the lazy dog. Größe, naïve café, déjà vu!\n"
    "Быстрая коричневая лиса прыгает через ленивую собаку.\n"
    "敏捷的棕色狐狸跳过了懒狗。素早い茶色の狐がのろまな犬を飛び越える。\n"
    "빠른 갈색 여우가 게으른 개를 뛰어넘는다. Ο γρήγορος καφέ αλεπού. \u05d4\u05e9\u05d5\u05e2\u05dc \u05d4\u05de\u05d4\u05d9\u05e8. "
    "तेज़ भूरी लोमड़ी। 🦊🐶 ∑x² = 42, tab\there, spaces   and\r\nnew lines.\n"
)


def make_config(family: str, size: str, max_cache_len: int):
    import transformers

    s = SIZES[size]
    prefix = FAMILIES[family]
    config_class = getattr(transformers, "Gemma3TextConfig" if family == "gemma3" else f"{prefix}Config")
    # Random weights with a head tied to the embedding mostly choose the input token again (the
    # hidden state stays close to its embedding): the small sizes get a head of their own, so that
    # greedy decoding wanders as a trained model's does. Qwen2.5-0.5B ties them, as the real one.
    tied = size in ("qwen2.5-0.5b", "qwen3-moe-small")
    # The special tokens of the tokenizer trained here (<s> 0, </s> 1), not the family's defaults,
    # which may lie beyond a small vocabulary.
    special = dict(bos_token_id=0, eos_token_id=1, pad_token_id=None, tie_word_embeddings=tied)
    if family == "gpt2":
        return config_class(vocab_size=s["vocab"], n_positions=max(max_cache_len, 64), n_embd=s["hidden"],
                            n_layer=s["layers"], n_head=s["heads"], n_inner=s["intermediate"], **special)
    fields = dict(vocab_size=s["vocab"], hidden_size=s["hidden"], intermediate_size=s["intermediate"],
                  num_hidden_layers=s["layers"], num_attention_heads=s["heads"], num_key_value_heads=s["kv_heads"],
                  max_position_embeddings=max(max_cache_len, 64), **special)
    if family == "falcon":
        # Falcon's grouped-query layout (the 40B/180B one) and its own spelling of the sizes.
        del fields["intermediate_size"], fields["num_key_value_heads"]
        fields.update(new_decoder_architecture=True, num_kv_heads=s["kv_heads"], ffn_hidden_size=s["intermediate"])
    if family in ("gemma", "gemma2", "gemma3", "qwen3", "qwen3_moe"):
        fields["head_dim"] = s["hidden"] // s["heads"]
    if family in ("mistral", "qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "mixtral", "starcoder2"):
        fields["sliding_window"] = None
    fields.update(_EXTRA_FIELDS.get(family, {}))
    fields.update(s.get("experts", {}))  # a mixture-of-experts size's own experts
    if size in ("qwen2.5-0.5b", "qwen3-moe-small"):
        fields["rope_theta"] = 1000000.0
    return config_class(**fields)


def make_model(family: str, size: str = "tiny", seed: int = 0, max_cache_len: int = 128, model_path: str | None = None,
               dtype: torch.dtype = torch.float32):
    """The model in eval mode, set up for a static cache of `max_cache_len` positions."""
    import transformers
    from transformers import GenerationConfig

    if model_path:
        model = transformers.AutoModelForCausalLM.from_pretrained(model_path, torch_dtype=dtype)
    else:
        config = make_config(family, size, max_cache_len)
        torch.manual_seed(seed)
        model = getattr(transformers, f"{FAMILIES[family]}ForCausalLM" if family != "gpt2" else "GPT2LMHeadModel")(config)
        model = model.to(dtype)
    model.eval()
    model.generation_config = GenerationConfig(use_cache=True, cache_implementation="static", max_length=max_cache_len,
                                               cache_config={"batch_size": 1, "max_cache_len": max_cache_len})
    return model


def make_wrapper(model, max_cache_len: int = 128):
    """transformers' export wrapper (the static cache as its buffers), returning only the last
    position's logits."""
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

    class LastLogits(TorchExportableModuleWithStaticCache):
        def forward(self, input_ids, cache_position):
            # As the wrapper's own forward: the cache's length is where this call's tokens go.
            for layer in self.static_cache.layers:
                layer.cumulative_length.copy_(cache_position[0])
            out = self.model(input_ids=input_ids, attention_mask=None, cache=self.static_cache, use_cache=True,
                             logits_to_keep=1)
            return out.logits.float()  # a bfloat16 model's too: the generator reads float32 logits

    return LastLogits(model, batch_size=1, max_cache_len=max_cache_len).eval()


def reset_cache(module) -> None:
    for name, buffer in module.named_buffers():
        if "cache" in name or "cumulative_length" in name:
            buffer.zero_()


def export(wrapper, max_cache_len: int = 128, weights: str = "f32", max_tokens_per_call: int | None = None):
    """torch.export with the sequence dynamic (1..max_tokens_per_call, by default the cache's
    length); int8/int4: NNCF's weight compression of the exported module, exported again."""
    seq = torch.export.Dim("seq_len", min=1, max=max_tokens_per_call or max_cache_len)
    kwargs = {"input_ids": torch.zeros(1, 2, dtype=torch.long), "cache_position": torch.arange(2, dtype=torch.long)}
    dynamic = {"input_ids": {1: seq}, "cache_position": {0: seq}}
    with torch.no_grad():
        ep = torch.export.export(wrapper, args=(), kwargs=kwargs, dynamic_shapes=dynamic, strict=True)
        if weights in ("int8", "int4"):
            import nncf

            module = ep.module()
            reset_cache(module)
            mode = nncf.CompressWeightsMode.INT8_ASYM if weights == "int8" else nncf.CompressWeightsMode.INT4_ASYM
            # Groups of 128, or the largest size that divides a layer's inputs where 128 does not
            # (a small model's), as NNCF adjusts them.
            options = {} if weights == "int8" else {
                "group_size": 128,
                "advanced_parameters": nncf.AdvancedCompressionParameters(
                    group_size_fallback_mode=nncf.GroupSizeFallbackMode.ADJUST)}
            compressed = nncf.compress_weights(module, mode=mode, **options)
            ep = torch.export.export(compressed, args=(), kwargs=kwargs, dynamic_shapes=dynamic, strict=True)
    # Exporting ran forward, which wrote into the cache: zeros again, in the module and the program.
    reset_cache(wrapper)
    for name, buffer in ep.named_buffers():
        if "cache" in name or "cumulative_length" in name:
            buffer.zero_()
    return ep


def train_tokenizer(vocab: int):
    """A byte-level BPE of at most `vocab` tokens trained on MULTILINGUAL_TEXT, as a transformers
    tokenizer with <s> (BOS, added) and </s> (EOS)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=min(vocab, 1024), special_tokens=["<s>", "</s>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator([MULTILINGUAL_TEXT] * 4, trainer)
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 0)])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>")


def save_tokenizer(tokenizer, out: pathlib.Path) -> None:
    """The Hugging Face tokenizer, and openvino-tokenizers' conversion of it (what pt2ov runs)."""
    import openvino as ov
    from openvino_tokenizers import convert_tokenizer

    tokenizer.save_pretrained(out)
    encoder, decoder = convert_tokenizer(tokenizer, with_detokenizer=True)
    ov.save_model(encoder, out / "openvino_tokenizer.xml")
    ov.save_model(decoder, out / "openvino_detokenizer.xml")


def greedy_eager(wrapper, prompt: torch.Tensor, steps: int):
    """Eager PyTorch on the wrapper itself: the prompt in one call, then `steps` greedy tokens one
    call each. Returns (the tokens, the last position's logits of each call as float32)."""
    reset_cache(wrapper)
    tokens, logits_per_call = [], []
    with torch.no_grad():
        logits = wrapper(input_ids=prompt, cache_position=torch.arange(prompt.shape[1]))
        position = prompt.shape[1]
        for _ in range(steps):
            logits_per_call.append(logits[0, -1].float().clone())
            token = int(torch.argmax(logits[0, -1]))
            tokens.append(token)
            logits = wrapper(input_ids=torch.tensor([[token]]), cache_position=torch.tensor([position]))
            position += 1
    reset_cache(wrapper)
    return tokens, logits_per_call


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", choices=sorted(FAMILIES), default="llama")
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny")
    parser.add_argument("--model", help="a Hugging Face model folder (its weights and tokenizer) instead of a random one")
    parser.add_argument("--weights", choices=["f32", "bf16", "int8", "int4"], default="f32")
    parser.add_argument("--max-cache-len", type=int, default=256, help="positions the cache holds (prompt and reply)")
    parser.add_argument("--max-tokens-per-call", type=int, help="the most prompt tokens one call takes "
                        "(default: the cache's length); a longer prompt goes in several calls")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--decomposed", action="store_true", help="also write model_decomposed.pt2")
    parser.add_argument("--out", required=True, help="output folder")
    args = parser.parse_args()

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dtype = torch.bfloat16 if args.weights == "bf16" else torch.float32
    model = make_model(args.family, args.size, args.seed, args.max_cache_len, args.model, dtype)
    wrapper = make_wrapper(model, args.max_cache_len)
    ep = export(wrapper, args.max_cache_len, args.weights, args.max_tokens_per_call)
    torch.export.save(ep, str(out / "model.pt2"))
    if args.decomposed:
        torch.export.save(ep.run_decompositions(), str(out / "model_decomposed.pt2"))
    if args.model:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(args.model)
    else:
        tokenizer = train_tokenizer(model.config.vocab_size)
    save_tokenizer(tokenizer, out)
    (out / "pt2ov_export.json").write_text(json.dumps(
        {"family": args.family, "size": args.size, "model": args.model, "weights": args.weights,
         "max_cache_len": args.max_cache_len, "seed": args.seed, "vocab_size": model.config.vocab_size,
         "compressed_weights": args.weights in ("int8", "int4")}, indent=2) + "\n")
    print(f"wrote {out / 'model.pt2'} ({(out / 'model.pt2').stat().st_size / 2**20:.1f} MiB) and the tokenizer in {out}")
    if args.weights in ("int8", "int4"):
        print("run it with --compressed-weights to keep the weights compressed in memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
