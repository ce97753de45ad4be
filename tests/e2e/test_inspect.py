"""`pt2ov inspect`: the plan as text and as the JSON of the command-line contract

    {"methods": {"forward": {"steps": [{"kind": "openvino"|"cpu",
                                        "nodes": [{"name", "target", "reason"}]}],
                             "constants": {"count", "bytes", "resident_bytes"}}}}
"""
from __future__ import annotations


import pytest
import torch

from conftest import call_function_nodes, describe, inspect_json, run_cli, steps_at_call

# Programs with no tied weights, so "bytes" is a plain sum over the constants.
INSPECTED = [
    ("mlp", "exported"),
    ("mlp", "decomposed"),
    ("params_and_buffers", "exported"),
    ("buffer_mutation", "decomposed"),
    ("buffer_clone_add", "exported"),
    ("attention_block", "decomposed"),
    ("clone_and_sin", "exported"),
    ("example_policy", "exported"),
]


def _steps(doc):
    return doc["methods"]["forward"]["steps"]


def _constant_tensors(ep: torch.export.ExportedProgram) -> list[torch.Tensor]:
    tensors = list(ep.state_dict.values())
    tensors += [c for c in ep.constants.values() if isinstance(c, torch.Tensor)]
    return tensors


def _check_structure(doc):
    assert isinstance(doc, dict) and set(doc) >= {"methods"}, doc
    assert "forward" in doc["methods"], doc["methods"].keys()
    method = doc["methods"]["forward"]
    assert isinstance(method["steps"], list)
    for step in method["steps"]:
        assert step["kind"] in ("openvino", "cpu"), step
        assert isinstance(step["nodes"], list)
        for node in step["nodes"]:
            assert isinstance(node["name"], str) and node["name"], node
            assert isinstance(node["target"], str) and node["target"], node
            assert isinstance(node["reason"], str), node
    constants = method["constants"]
    for key in ("count", "bytes", "resident_bytes"):
        assert isinstance(constants[key], int) and constants[key] >= 0, constants


@pytest.mark.parametrize("name,mode", INSPECTED, ids=[f"{n}-{m}" for n, m in INSPECTED])
def testinspect_json(zoo_programs, name, mode):
    program = zoo_programs.get(name, mode, "dynamic")
    doc = inspect_json(program.path)
    _check_structure(doc)

    graph_nodes = call_function_nodes(program.path)
    listed = [n for step in _steps(doc) for n in step["nodes"]]
    assert listed, "no nodes in any step"
    for node in listed:
        assert node["name"] in graph_nodes, (
            f"step node {node['name']!r} is not a call_function node of the archive's graph "
            f"(those are {sorted(graph_nodes)})")
    names = [n["name"] for n in listed]
    assert len(names) == len(set(names)), f"a node is listed in more than one place: {names}"

    tensors = _constant_tensors(torch.export.load(str(program.path)))
    constants = doc["methods"]["forward"]["constants"]
    assert constants["count"] == len(tensors), constants
    assert constants["bytes"] == sum(t.nbytes for t in tensors), constants
    # E7: held once, whatever runs where
    assert constants["resident_bytes"] <= constants["bytes"], constants


def test_inspect_text(zoo_programs):
    program = zoo_programs.get("example_policy", "exported", "dynamic")
    proc = run_cli(["inspect", program.path])
    assert proc.returncode == 0, describe(proc)
    listed = [n["name"] for step in _steps(inspect_json(program.path)) for n in step["nodes"]]
    missing = [n for n in listed if n not in proc.stdout]
    assert not missing, f"text inspect does not mention {missing}\n{describe(proc)}"


def test_inspect_cpu_op(zoo_programs):
    """--cpu-op puts every node of that op on a CPU step, whatever OpenVINO supports (docs/EXACTNESS.md K9)."""
    program = zoo_programs.get("mlp", "exported", "dynamic")
    relus = {n for n, t in call_function_nodes(program.path).items() if t == "aten.relu.default"}
    assert relus
    doc = inspect_json(program.path, "--cpu-op", "aten.relu")
    on_cpu = {n["name"] for s in _steps(doc) if s["kind"] == "cpu" for n in s["nodes"]}
    on_ov = {n["name"] for s in _steps(doc) if s["kind"] == "openvino" for n in s["nodes"]}
    assert relus <= on_cpu, f"relu nodes {relus - on_cpu} are not on the CPU"
    assert not relus & on_ov


def test_inspect_cpu_node(zoo_programs):
    program = zoo_programs.get("mlp", "exported", "dynamic")
    nodes = call_function_nodes(program.path)
    target_node = sorted(n for n, t in nodes.items() if t == "aten.relu.default")[-1]
    doc = inspect_json(program.path, "--cpu-node", target_node)
    cpu_steps = [s for s in _steps(doc) if s["kind"] == "cpu"]
    assert any(n["name"] == target_node for s in cpu_steps for n in s["nodes"]), doc


def test_inspect_mutated_buffer_constants(zoo_programs):
    """The mutated buffers count among the constants (they are the program's state)."""
    program = zoo_programs.get("buffer_mutation", "exported", "dynamic")
    doc = inspect_json(program.path)
    ep = torch.export.load(str(program.path))
    assert doc["methods"]["forward"]["constants"]["count"] == len(_constant_tensors(ep))


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
@pytest.mark.parametrize("shapes", ["static", "dynamic"])
def test_slice_sentinels_do_not_split_the_program(zoo_programs, mode, shapes):
    """`x[1:]` exports with end 2**63 - 1: clamped to the dim as PyTorch does, the slice has no
    64-bit bound for OpenVINO to cut, so the program is one OpenVINO step."""
    doc = inspect_json(zoo_programs.get("slices_to_the_end", mode, shapes).path)
    kinds = [step["kind"] for step in _steps(doc)]
    assert kinds == ["openvino"], doc


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
@pytest.mark.parametrize("shapes", ["static", "dynamic"])
def test_bounded_int64_arithmetic_stays_on_openvino(zoo_programs, mode, shapes):
    """Positions from arange of a dynamic row count, times 3 plus 1, are bounded within 32 bits
    at load (the dim's range), so OpenVINO computes them exactly; what reads constants only (the
    window's index, arange(5) + 2**40, beyond 32 bits) is computed once at load on the CPU
    kernels, so a call runs no CPU kernel."""
    doc = inspect_json(zoo_programs.get("relative_position_bias", mode, shapes).path)
    at_call = steps_at_call(_steps(doc))
    assert [step["kind"] for step in at_call] == ["openvino"], at_call
    at_load = [n["target"] for step in _steps(doc) for n in step["nodes"] if "computed once at load" in n["reason"]]
    assert "aten.add.Tensor" in at_load, _steps(doc)
    if shapes == "dynamic":
        on_openvino = [n["target"] for n in at_call[0]["nodes"]]
        assert "aten.arange.default" in on_openvino or "aten.arange.start_step" in on_openvino, on_openvino


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
@pytest.mark.parametrize("shapes", ["static", "dynamic"])
def test_slice_scatter_sentinels_do_not_split_the_program(zoo_programs, mode, shapes):
    """`mask[-2:, -2:] = v` decomposes into slice_scatter with end 2**63 - 1: clamped to the dim
    as a slice's bounds are, so the program is one OpenVINO step."""
    doc = inspect_json(zoo_programs.get("slice_scatter_to_the_end", mode, shapes).path)
    kinds = [step["kind"] for step in steps_at_call(_steps(doc))]
    assert kinds == ["openvino"], doc


@pytest.mark.parametrize("mode", ["exported", "decomposed"])
@pytest.mark.parametrize("shapes", ["static", "dynamic"])
def test_bounded_non_negative_division_stays_on_openvino(zoo_programs, mode, shapes):
    """roll's (arange + shift) % n and (positions + 5) // 3 divide non-negative values bounded at
    load, which OpenVINO divides exactly; fmod and remainder of positions - 4 (negative values)
    run on the CPU kernels."""
    doc = inspect_json(zoo_programs.get("roll_index_arithmetic", mode, shapes).path)
    nodes = [node for step in _steps(doc) for node in step["nodes"]]
    divisions = [n for n in nodes if n["target"].split(".")[1] in ("fmod", "remainder", "floor_divide", "div")]
    on_cpu = sorted(n["target"] for n in divisions if "rounding toward -inf" in n["reason"])
    assert on_cpu == ["aten.fmod.Scalar", "aten.remainder.Scalar"], divisions
    assert len(divisions) > len(on_cpu), divisions  # the bounded ones stayed
