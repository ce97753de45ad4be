"""A small causal LM exported the way ExecuTorch users export one, for examples/llm_decode.cpp.

transformers' own torch.export wrapper (`TorchExportableModuleWithStaticCache`, what
`convert_and_export_with_cache` and optimum-executorch use) holds a static KV cache as buffers
the program mutates (`key_cache_<i>`, `value_cache_<i>`, `cumulative_length_<i>`); a call takes
`input_ids` (1, seq) and `cache_position` (seq,) and returns the logits (1, seq, vocab). The
sequence length is exported dynamic (1..MAX_CACHE_LEN), so one program runs the prompt in one
call (prefill) and then one token per call (decode).

The model is a Llama of a small config with random weights (seeded): nothing is downloaded.

    .venv/bin/python examples/make_llm.py [--out examples/llm.pt2] [--decomposed]
                                          [--prompt-len 8] [--steps 32]

writes the archive and `<out>.npz` beside it: the prompt, and eager PyTorch's greedy tokens
and logits for the prompt and each decode step (what llm_decode prints them against).
Requires transformers (requirements-models.txt).
"""
from __future__ import annotations

import argparse
import pathlib

import numpy as np
import torch

MAX_CACHE_LEN = 64
VOCAB = 256


def _define_torchvision_schemas_if_its_ops_cannot_load():
    """transformers imports torchvision when it is installed. The pinned torchvision wheel is a
    CUDA build whose C++ ops do not load on the CPU torch, and its import then fails on the
    fake-tensor registration of `torchvision::nms`: define those schemas (without kernels)
    first. No language model uses them."""
    import importlib.util
    spec = importlib.util.find_spec("torchvision")
    if spec is None or spec.origin is None:
        return None
    try:
        torch.ops.load_library(str(pathlib.Path(spec.origin).parent / "_C.so"))
        return None
    except OSError:
        lib = torch.library.Library("torchvision", "FRAGMENT")
        for schema in ("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
                       "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor"):
            try:
                lib.define(schema)
            except RuntimeError as e:  # defined already by another module of this process
                if "multiple times" not in str(e):
                    raise
        return lib


_torchvision_lib = _define_torchvision_schemas_if_its_ops_cannot_load()


def make_model(seed: int = 0, layers: int = 2, hidden: int = 64, vocab: int = VOCAB,
               max_cache_len: int = MAX_CACHE_LEN):
    """A LlamaForCausalLM with random weights, set up for a static cache of `max_cache_len`."""
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=max_cache_len,
        tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config).eval()
    model.generation_config = GenerationConfig(
        use_cache=True,
        cache_implementation="static",
        max_length=max_cache_len,
        cache_config={"batch_size": 1, "max_cache_len": max_cache_len},
    )
    return model


def make_wrapper(model, max_cache_len: int = MAX_CACHE_LEN):
    """transformers' export wrapper: the static cache as the module's (non-persistent) buffers."""
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

    return TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=max_cache_len).eval()


def export(wrapper, max_cache_len: int = MAX_CACHE_LEN, decomposed: bool = False):
    """torch.export of the wrapper as convert_and_export_with_cache does it (strict), with the
    sequence dim dynamic so one program serves the prompt and each decode step."""
    seq = torch.export.Dim("seq_len", min=1, max=max_cache_len)
    input_ids = torch.zeros(1, 2, dtype=torch.long)
    cache_position = torch.arange(2, dtype=torch.long)
    with torch.no_grad():
        ep = torch.export.export(
            wrapper,
            args=(),
            kwargs={"input_ids": input_ids, "cache_position": cache_position},
            dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}},
            strict=True,
        )
    # Exporting traced the wrapper's forward, which wrote into its cache: start it from zeros
    # again, in the module and in the program's buffers alike.
    reset_cache(wrapper)
    for name, buffer in ep.named_buffers():
        if "cache" in name or "cumulative_length" in name:
            buffer.zero_()
    if decomposed:
        ep = ep.run_decompositions()
    return ep


def reset_cache(wrapper) -> None:
    for name, buffer in wrapper.named_buffers():
        if "cache" in name or "cumulative_length" in name:
            buffer.zero_()


def example_prompt(prompt_len: int = 8, seed: int = 1, vocab: int = VOCAB) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (1, prompt_len), generator=generator, dtype=torch.long)


def greedy_eager(wrapper, prompt: torch.Tensor, steps: int):
    """Eager PyTorch on the wrapper itself (the same static cache): the prompt in one call, then
    `steps` greedy tokens one call each. Returns (tokens generated, logits of each call: the
    prompt's (1, len, vocab) first, then one (1, 1, vocab) per step)."""
    reset_cache(wrapper)
    logits_per_call = []
    tokens = []
    with torch.no_grad():
        logits = wrapper(input_ids=prompt, cache_position=torch.arange(prompt.shape[1]))
        logits_per_call.append(logits.clone())
        position = prompt.shape[1]
        for _ in range(steps):
            token = int(torch.argmax(logits[0, -1]))
            tokens.append(token)
            logits = wrapper(input_ids=torch.tensor([[token]]), cache_position=torch.tensor([position]))
            logits_per_call.append(logits.clone())
            position += 1
    return tokens, logits_per_call


def main() -> None:
    here = pathlib.Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(here / "llm.pt2"))
    parser.add_argument("--decomposed", action="store_true", help="save ep.run_decompositions()")
    parser.add_argument("--prompt-len", type=int, default=8)
    parser.add_argument("--steps", type=int, default=32)
    args = parser.parse_args()

    wrapper = make_wrapper(make_model())
    ep = export(wrapper, decomposed=args.decomposed)
    out = pathlib.Path(args.out)
    torch.export.save(ep, str(out))

    prompt = example_prompt(args.prompt_len)
    tokens, logits = greedy_eager(wrapper, prompt, args.steps)
    reference = out.with_suffix(".npz")
    np.savez(reference, prompt=prompt.numpy(), tokens=np.array(tokens, dtype=np.int64),
             **{f"logits_{i}": t.numpy() for i, t in enumerate(logits)})
    mutated = [spec.target for spec in ep.graph_signature.output_specs if spec.kind.name == "BUFFER_MUTATION"]
    print(f"wrote {out} ({out.stat().st_size} bytes; {len(mutated)} mutated buffers) and {reference}")
    print("eager tokens:", tokens)


if __name__ == "__main__":
    main()
