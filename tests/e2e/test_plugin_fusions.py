"""Fusions of the CPU plugin that pt2ov counts on, checked on the compiled model at load.

An RMS norm's reduction gets no ReduceFusedArithmeticWrong barrier, so that the plugin fuses the
whole norm into one RMS node; the load checks the compiled model and, where the norm was not
fused, compiles the step again with the barrier (docs/EXACTNESS.md). The zoo's
`rms_norm_fused` (x.pow(2)) fuses; `power_mean_norm_unfused` (x.pow(4), the same form) is marked
by its form but not fused, and must come back with the barrier. Both give eager's values.
`PT2OV_DUMP_OPENVINO` shows the model before compile and the compiled one."""
from __future__ import annotations

import pytest

from conftest import assert_outputs_match, run_engine_in
from tests.models import get_case
from tests.models.export import call_inputs, eager_outputs


@pytest.mark.parametrize("name, fused", [("rms_norm_fused", True), ("power_mean_norm_unfused", False)])
def test_rms_norms_are_left_to_the_plugins_fusion_and_checked(zoo_programs, tmp_path, monkeypatch, name, fused):
    case = get_case(name)
    program = zoo_programs.get(name, "exported", "dynamic")
    dump = tmp_path / "dump"
    monkeypatch.setenv("PT2OV_DUMP_OPENVINO", str(dump))
    calls = call_inputs(case, "dynamic")
    got = run_engine_in(tmp_path / "run", program.path, calls)
    for i, (outputs, want) in enumerate(zip(got, eager_outputs(program.module, calls))):
        assert_outputs_match(outputs, want, case, label=f"{name} call {i}")
    models = sorted(p for p in dump.glob("step*.xml") if not p.name.endswith(".compiled.xml"))
    assert len(models) == 1, models
    compiled = models[0].with_name(models[0].stem + ".compiled.xml").read_text()
    # Before compile the reduction is bare (marked); after, the RMS node or the barrier.
    assert "/unfused" not in models[0].read_text()
    assert ('type="RMS"' in compiled) == fused
    assert ("/unfused" in compiled) == (not fused)
