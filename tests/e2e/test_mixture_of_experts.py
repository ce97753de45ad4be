"""Mixture-of-experts programs as transformers 5 exports them (issue 44): its experts run through
an opaque torch.library op, transformers::grouped_mm_fallback(input, weight, offs), which pt2ov
runs on a CPU kernel (src/kernels/matmul.cpp) with the semantics of transformers' own loop: rows
offs[e-1]..offs[e] of the tokens (sorted by expert) times weight[e], rows past the last offset 0.

The kernel is checked against transformers' implementation on the op alone (experts with no
token, trailing rows no expert takes, int32 and int64 offsets, a transposed weight, float32 and
float64), and a tiny Mixtral end to end in both forms with a left-padded mask.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from conftest import run_engine_in
from tests.models.compare import output_differences

transformers_moe = pytest.importorskip("transformers.integrations.moe")


class GroupedProduct(torch.nn.Module):
    def __init__(self, experts, k, n, dtype, transposed):
        super().__init__()
        g = torch.Generator().manual_seed(3)
        shape = (experts, n, k) if transposed else (experts, k, n)
        self.weight = torch.nn.Parameter(torch.randn(*shape, generator=g, dtype=dtype))
        self.transposed = transposed

    def forward(self, x, offs):
        weight = self.weight.transpose(-2, -1) if self.transposed else self.weight
        return (torch.ops.transformers.grouped_mm_fallback(x, weight, offs),)


CASES = [
    # label, rows, offs, dtype, offs dtype, transposed weight
    ("every expert", 10, [2, 5, 7, 10], torch.float32, torch.int32, False),
    ("empty experts and rows left over", 12, [0, 4, 4, 9], torch.float32, torch.int64, True),
    ("one expert takes all", 7, [0, 0, 7, 7], torch.float64, torch.int32, True),
    ("no rows taken", 5, [0, 0, 0, 0], torch.float32, torch.int32, False),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_grouped_product_matches_transformers(case, tmp_path):
    label, rows, offs, dtype, offs_dtype, transposed = case
    module = GroupedProduct(4, 8, 6, dtype, transposed).eval()
    x = torch.randn(rows, 8, generator=torch.Generator().manual_seed(rows), dtype=dtype)
    offsets = torch.tensor(offs, dtype=offs_dtype)
    with torch.no_grad():
        expected = [module(x, offsets)[0]]
    ep = torch.export.export(module, (x, offsets))
    assert any("grouped_mm_fallback" in str(n.target) for n in ep.graph.nodes)
    pt2 = tmp_path / "grouped.pt2"
    torch.export.save(ep, str(pt2))
    (got,) = run_engine_in(tmp_path, pt2, [(x, offsets)], tag="grouped")
    diff, _ = output_differences(got, expected, lambda _: (1e-5, 1e-6))
    assert not diff, f"{label}: {diff}"
    assert np.all(np.asarray(got[0])[offs[-1]:] == 0), f"{label}: rows no expert takes must stay 0"


def test_offsets_beyond_the_rows_are_refused_naming_the_node(tmp_path):
    import sys

    from conftest import REPO_ROOT
    sys.path.insert(0, str(REPO_ROOT / "build" / "python"))
    import pt2ov

    module = GroupedProduct(4, 8, 6, torch.float32, False).eval()
    x = torch.randn(6, 8)
    ep = torch.export.export(module, (x, torch.tensor([1, 2, 3, 6], dtype=torch.int32)))
    pt2 = tmp_path / "grouped.pt2"
    torch.export.save(ep, str(pt2))
    program = pt2ov.load(str(pt2), measure_placement=False)
    with pytest.raises(pt2ov.Error, match=r"offs must count up to at most the 6 input rows, but offs\[3\] is 9"):
        program(x, torch.tensor([1, 2, 3, 9], dtype=torch.int32))


@pytest.mark.parametrize("form", ["exported", "decomposed"])
def test_tiny_mixtral_matches_eager_with_padded_masks(form, tmp_path):
    from tests.hf_architectures.models import build

    case = build("mixtral", "decoder")
    variants = [case.variants[v] for v in ("left-padded", "padded-row", "all-ones")]
    with torch.no_grad():
        expected = [[case.module(*inputs)] for inputs in variants]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(case.module, variants[0], strict=False)
        if form == "decomposed":
            ep = ep.run_decompositions()
    assert any("grouped_mm_fallback" in str(n.target) for n in ep.graph.nodes), "transformers no longer exports the op"
    pt2 = tmp_path / f"mixtral_{form}.pt2"
    torch.export.save(ep, str(pt2))
    outputs = run_engine_in(tmp_path, pt2, variants, tag=f"mixtral_{form}")
    for got, want in zip(outputs, expected):
        assert not np.isnan(got[0]).any()
        diff, _ = output_differences(got, want, lambda _: (1e-4, 1e-4), atol_scaled_by_largest=True)
        assert not diff, diff


@pytest.mark.parametrize("form", ["exported", "decomposed"])
def test_experts_run_on_openvino_where_their_offsets_rise(form, tmp_path):
    """transformers computes the grouped product's offsets as a cumsum of histc's counts, which rise:
    such a product goes to OpenVINO (its GroupedMatMul, which the CPU plugin runs as GatherMatmul,
    only the chosen experts' weights read), with its offsets bounded to the rows and the rows past
    the last one 0 (openvino_facts GroupedMatMulRowsPastLastOffsetRefused), and returns eager's
    values for one token and for many."""
    import sys

    from conftest import REPO_ROOT
    sys.path.insert(0, str(REPO_ROOT / "build" / "python"))
    import pt2ov
    import tests.architectures.models  # noqa: F401  (readies torchvision before transformers)
    from transformers import Qwen3MoeConfig
    from transformers.models.qwen3_moe.modeling_qwen3_moe import Qwen3MoeSparseMoeBlock

    torch.manual_seed(5)
    config = Qwen3MoeConfig(hidden_size=32, moe_intermediate_size=16, num_experts=6, num_experts_per_tok=2,
                            norm_topk_prob=True)
    # As a whole model's config sets it for its layers (on the CPU in float32 transformers then
    # calls its grouped_mm_fallback op); a block made alone has none.
    config._experts_implementation = "grouped_mm"
    block = Qwen3MoeSparseMoeBlock(config).eval()
    with torch.no_grad():
        for parameter in block.parameters():
            parameter.normal_(0.0, 0.3)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = block

        def forward(self, x):
            out = self.block(x)
            return out[0] if isinstance(out, tuple) else out

    module = Block().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(module, (torch.randn(1, 5, 32),),
                                 dynamic_shapes=({1: torch.export.Dim("tokens", min=1, max=64)},))
        if form == "decomposed":
            ep = ep.run_decompositions()
    targets = [str(n.target) for n in ep.graph.nodes]
    assert any("grouped_mm_fallback" in t for t in targets) and any("histc" in t for t in targets), targets
    pt2 = tmp_path / f"experts_{form}.pt2"
    torch.export.save(ep, str(pt2))
    program = pt2ov.load(str(pt2), measure_placement=False)
    on_openvino = [n["target"] for s in program.report["steps"] if s["kind"] == "openvino" for n in s["nodes"]
                   if "grouped_mm" in n["target"]]
    assert len(on_openvino) == 2, program.report["steps"]
    for tokens in (1, 2, 7, 33):
        x = torch.randn(1, tokens, 32, generator=torch.Generator().manual_seed(tokens))
        with torch.no_grad():
            expected = module(x)
        (got,) = program(x)
        np.testing.assert_allclose(np.asarray(got), expected.numpy(), rtol=1e-4, atol=1e-5 * float(expected.abs().max()))
