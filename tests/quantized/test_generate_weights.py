"""Text generation with NNCF-compressed weights (examples/export_llm.py --weights int8|int4):
by default pt2ov decompresses each weight at load exactly as eager does (E7/E9), so greedy
generation gives eager's tokens, token for token, with each step's logits within E5 of the
compressed module's own; under --compressed-weights each step's logits stay within 1 % of their
range of eager's (E9's bound, measured at 0.05 % by `make quantized`'s flows). Run by
`make quantized` (NNCF from requirements-quant.txt)."""
from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  registers torch.ops.quantized_decomposed

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "build" / "python"))
import export_llm  # noqa: E402
import pt2ov  # noqa: E402

CACHE = 96
NEW_TOKENS = 64
RTOL, ATOL = 1e-4, 1e-5  # E5


@pytest.fixture(scope="module", params=[(f, w) for f in ("llama", "qwen2") for w in ("int8", "int4")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def compressed(request, tmp_path_factory):
    family, weights = request.param
    model = export_llm.make_model(family, "small", seed=1, max_cache_len=CACHE)
    ep = export_llm.export(export_llm.make_wrapper(model, CACHE), CACHE, weights)
    path = tmp_path_factory.mktemp(f"{family}-{weights}") / "model.pt2"
    torch.export.save(ep, str(path))
    prompt = torch.randint(2, model.config.vocab_size, (1, 8), generator=torch.Generator().manual_seed(1))
    tokens, logits = export_llm.greedy_eager(ep.module(), prompt, NEW_TOKENS)
    return path, prompt[0].tolist(), tokens, [t.numpy() for t in logits]


def test_default_generation_is_eager_token_for_token(compressed):
    path, prompt, tokens, logits = compressed
    assert len(set(tokens)) > 3, "the random model decodes too few distinct tokens to test anything"
    result = pt2ov.Generator.load(path).generate(prompt, max_new_tokens=NEW_TOKENS, output_logits=True)
    for step, (have, want) in enumerate(zip(result.logits, logits)):
        np.testing.assert_allclose(have, want, rtol=RTOL, atol=ATOL, err_msg=f"step {step}")
    assert result.tokens == tokens


def test_compressed_weights_stay_within_e9(compressed):
    path, prompt, tokens, logits = compressed
    result = pt2ov.Generator.load(path, compressed_weights=True).generate(prompt, max_new_tokens=1, output_logits=True)
    have, want = result.logits[0], logits[0]
    span = float(want.max() - want.min())
    assert np.abs(have - want).max() <= 0.01 * span, (np.abs(have - want).max(), span)
