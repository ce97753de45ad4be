"""--int64-input-limit N (LoadOptions::int64_input_limit): a promise that every int64 user input
lies within [-N, N]. Each call checks it; index arithmetic on such inputs that then fits 32 bits
stays on OpenVINO (which computes int64 in 32 bits), where without the promise it runs on the
CPU kernels. The shape of transformers' static KV cache: a length counter set from
cache_position (`copy_`; `copy` once decomposed) and advanced by the number of new tokens, and
the cache written at those positions."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from conftest import describe, inspect_json, run_cli, run_engine_in, steps_at_call, write_inputs

TOKENS_PER_CALL = 2
CACHE_LEN = 16


class StaticCacheStep(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("length", torch.zeros((), dtype=torch.int64))
        self.register_buffer("cache", torch.zeros(CACHE_LEN, 4))
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x, cache_position):
        # as transformers' export wrapper and StaticLayer do it
        self.length.copy_(cache_position[0])
        positions = torch.arange(x.shape[0]) + self.length
        self.cache.index_copy_(0, positions, self.proj(x))
        self.length.add_(x.shape[0])
        mask = (torch.arange(CACHE_LEN) < self.length).to(x.dtype)
        return (self.cache * mask[:, None]).sum(0), self.length + 0


def _calls():
    torch.manual_seed(3)
    return [(torch.randn(TOKENS_PER_CALL, 4), torch.arange(start, start + TOKENS_PER_CALL))
            for start in range(0, 3 * TOKENS_PER_CALL, TOKENS_PER_CALL)]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    torch.manual_seed(0)
    module = StaticCacheStep().eval()
    reference = copy.deepcopy(module)
    folder = tmp_path_factory.mktemp("limit")
    ep = torch.export.export(module, _calls()[0])
    paths = {"exported": folder / "exported.pt2", "decomposed": folder / "decomposed.pt2"}
    torch.export.save(ep, paths["exported"])
    torch.export.save(ep.run_decompositions(), paths["decomposed"])
    with torch.no_grad():
        expected = [reference(*call) for call in _calls()]
    return paths, expected


def _run(tmp_path, pt2, calls, *options):
    args = ["run", pt2]
    outputs = []
    for i, call in enumerate(calls):
        inp, out = tmp_path / f"in{i}.npz", tmp_path / f"out{i}.npz"
        write_inputs(inp, call)
        args += ["--inputs", inp, "--outputs", out]
        outputs.append(out)
    return run_cli(args + list(options)), outputs


@pytest.mark.parametrize("form", ["exported", "decomposed"])
def test_the_promise_keeps_index_arithmetic_on_openvino_exactly(saved, form, tmp_path):
    paths, expected = saved
    without = [step["kind"] for step in steps_at_call(inspect_json(paths[form])["methods"]["forward"]["steps"])]
    assert "cpu" in without, f"{form}: without the promise the int64 arithmetic should run on the CPU kernels"
    promised = steps_at_call(inspect_json(paths[form], "--int64-input-limit", "64")["methods"]["forward"]["steps"])
    assert [step["kind"] for step in promised] == ["openvino"], promised
    for k, options in enumerate(([], ["--int64-input-limit", "64"])):
        outputs = run_engine_in(tmp_path, paths[form], _calls(), extra_args=options, tag=f"promise{k}_")
        for i, (got, (total, seen)) in enumerate(zip(outputs, expected)):
            np.testing.assert_allclose(got[0], total.numpy(), rtol=1e-4, atol=1e-5, err_msg=f"{form} {options} call {i}")
            assert got[1].dtype == np.int64 and int(got[1]) == int(seen), (form, options, i)


def test_an_input_beyond_the_promise_is_refused_naming_it(saved, tmp_path):
    paths, _ = saved
    calls = _calls()
    calls[1] = (calls[1][0], torch.tensor([65, 66]))
    proc, outputs = _run(tmp_path, paths["decomposed"], calls, "--int64-input-limit", "64")
    assert proc.returncode == 2, describe(proc)
    assert "cache_position" in proc.stderr and "64" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not any(out.exists() for out in outputs[1:]), "no output of the refused call or after it"
