"""A causal LM exported with transformers' static-cache wrapper (examples/make_llm.py), decoded
greedily by examples/llm_decode.cpp through pt2ov: the prompt in one call, then 32 tokens one call
each, the KV cache carried as mutated buffers. Every call's logits are compared with eager
PyTorch running the same wrapper (E5), as exported and after run_decompositions(); a second
sequence after reset_state must decode the same (E6: the cache starts again from the archive).

Needs transformers (requirements-models.txt; `make test-llm` installs it)."""
from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import REPO_ROOT
from tests.models import DEFAULT_ATOL, DEFAULT_RTOL

pytest.importorskip("transformers", reason="transformers is not installed (pip install -r requirements-models.txt)")

sys.path.insert(0, str(REPO_ROOT / "examples"))
import make_llm  # noqa: E402

STEPS = 32
PROMPT_LEN = 8
LLM_DECODE = REPO_ROOT / "build" / "examples" / "llm_decode"


@pytest.fixture(scope="module")
def llm(tmp_path_factory):
    """The archives (as exported, decomposed) and eager's greedy run of the wrapper itself."""
    if not LLM_DECODE.exists():
        pytest.fail(f"{LLM_DECODE} is missing: run `make build` first", pytrace=False)
    folder = tmp_path_factory.mktemp("llm")
    wrapper = make_llm.make_wrapper(make_llm.make_model())
    ep = make_llm.export(wrapper)
    paths = {"exported": folder / "llm.pt2", "decomposed": folder / "llm_decomposed.pt2"}
    torch.export.save(ep, str(paths["exported"]))
    torch.export.save(ep.run_decompositions(), str(paths["decomposed"]))
    prompt = make_llm.example_prompt(PROMPT_LEN)
    tokens, logits = make_llm.greedy_eager(wrapper, prompt, STEPS)
    return paths, prompt, tokens, [t.numpy() for t in logits]


def _decode(path: pathlib.Path, prompt: torch.Tensor, out: pathlib.Path, sequences: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LLM_DECODE), str(path), "--prompt", ",".join(str(int(t)) for t in prompt[0]), "--steps", str(STEPS),
         "--sequences", str(sequences), "--logits-out", str(out), "--quiet"],
        capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
def test_llm_decode_matches_eager(llm, mode, tmp_path):
    paths, prompt, tokens, expected = llm
    assert len(set(tokens)) > 4, "the random model decodes too few distinct tokens to test anything"
    out = tmp_path / "logits.f32"
    proc = _decode(paths[mode], prompt, out, sequences=2)
    assert proc.returncode == 0, f"llm_decode exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    decoded = [line.split()[1:] for line in proc.stdout.splitlines() if line.startswith("tokens:")]
    assert decoded == [[str(t) for t in tokens]] * 2, proc.stdout

    vocab = expected[0].shape[-1]
    got = np.fromfile(out, dtype=np.float32)
    per_sequence = (PROMPT_LEN + STEPS) * vocab
    assert got.size == 2 * per_sequence
    rtol, atol = DEFAULT_RTOL, DEFAULT_ATOL
    for sequence in range(2):
        flat = got[sequence * per_sequence:(sequence + 1) * per_sequence]
        calls = [flat[:PROMPT_LEN * vocab].reshape(expected[0].shape)]
        calls += [flat[(PROMPT_LEN + i) * vocab:(PROMPT_LEN + i + 1) * vocab].reshape(expected[i + 1].shape)
                  for i in range(STEPS)]
        for call, (have, want) in enumerate(zip(calls, expected)):
            np.testing.assert_allclose(have, want, rtol=rtol, atol=atol,
                                       err_msg=f"{mode} sequence {sequence + 1} call {call} (0: the prompt)")
        if sequence == 1:
            # the same bits as the first sequence: reset_state gave back the archive's cache
            first = got[:per_sequence]
            assert np.array_equal(flat, first), "the sequence after reset_state differs from the first"
