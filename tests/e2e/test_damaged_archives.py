"""Damaged archives that load and execute: metadata that contradict their own program, and
arguments a kernel cannot take, are one clear refusal (exit 2 naming the node), never heap
corruption, a crash or an internal error.

Each case edits models/model.json of a small LSTM program exported here; the last test runs a
seeded batch of fuzz/mutate_archives.py (the graph-level mutations `make fuzz-mutations` runs
by the thousand) and requires every mutant to run or be refused cleanly.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import REPO_ROOT, describe, pt2ov_binary, run_cli
from test_errors import _rewrite_archive, assert_user_error


class Recurrent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(8, 16, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0] * 2


@pytest.fixture(scope="module")
def lstm(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lstm")
    torch.manual_seed(0)
    x = torch.randn(2, 5, 8)
    module = Recurrent().eval()
    with torch.no_grad():
        exported = torch.export.export(module, (x,))
    torch.export.save(exported, folder / "lstm.pt2")
    np.savez(folder / "in.npz", x.numpy())
    return folder / "lstm.pt2", folder / "in.npz"


def _graph(model):
    return model["graph_module"]["graph"]


def _node(model, target):
    return next(n for n in _graph(model)["nodes"] if n["target"].endswith(target))


def _run(tmp_path, pt2, inputs, *extra):
    return run_cli(["run", pt2, "--inputs", inputs, "--outputs", tmp_path / "out.npz", *extra])


def _zeros_size_true(model):
    _node(model, "aten.zeros.default")["inputs"][0]["arg"] = {"as_bool": True}
    return model


def _zeros_size_true_with_its_metadata(model):
    _zeros_size_true(model)
    name = _node(model, "aten.zeros.default")["outputs"][0]["as_tensor"]["name"]
    _graph(model)["tensor_values"][name]["sizes"] = [{"as_int": 1}]
    _graph(model)["tensor_values"][name]["strides"] = [{"as_int": 1}]
    return model


def _mul_recorded_with_another_size(model):
    name = _node(model, "aten.mul.Tensor")["outputs"][0]["as_tensor"]["name"]
    _graph(model)["tensor_values"][name]["sizes"][1] = {"as_int": 7}
    return model


def test_the_unedited_program_runs(tmp_path, lstm):
    pt2, inputs = lstm
    for extra in ([], ["--cpu-op", "aten.lstm", "--cpu-op", "aten.zeros", "--cpu-op", "aten.mul"]):
        proc = _run(tmp_path, pt2, inputs, *extra)
        assert proc.returncode == 0, describe(proc)


@pytest.mark.parametrize("cpu", [False, True], ids=["default", "cpu-kernels"])
def test_kernel_output_contradicting_the_metadata_is_refused(tmp_path, lstm, cpu):
    """zeros(size=True) makes [1] where the archive records [1, 2, 16]: the kernel's result is
    checked before the LSTM kernel reads it as its hidden state (heap corruption before)."""
    pt2, inputs = lstm
    bad = tmp_path / "zeros_size_true.pt2"
    _rewrite_archive(pt2, bad, _zeros_size_true)
    extra = ["--cpu-op", "aten.zeros", "--cpu-op", "aten.lstm"] if cpu else ["--cpu-op", "aten.zeros"]
    assert_user_error(_run(tmp_path, bad, inputs, *extra), r"node zeros \(aten\.zeros\.default\)",
                      r"metadata contradict", r"\[1\]")


def test_hidden_state_of_the_wrong_shape_is_refused(tmp_path, lstm):
    """The metadata agree with the damaged zeros: the LSTM's shape contract (and, were it to run,
    its kernel) checks hx against the input and weights."""
    pt2, inputs = lstm
    bad = tmp_path / "zeros_and_metadata.pt2"
    _rewrite_archive(pt2, bad, _zeros_size_true_with_its_metadata)
    for extra in ([], ["--cpu-op", "aten.lstm", "--cpu-op", "aten.zeros"]):
        assert_user_error(_run(tmp_path, bad, inputs, *extra), r"node lstm \(aten\.lstm\.input\)", r"hx\[0\]",
                          r"\[1, 2, 16\]")


def test_converted_shape_contradicting_the_metadata_is_refused(tmp_path, zoo_programs):
    """The zoo's mlp with its output recorded as [2, 7] for [2, 8]: the conversion's shape check
    sends the node to the CPU kernels, whose result is then refused naming it."""
    mlp = zoo_programs.get("mlp", "exported", "static").path

    def output_size_7(model):
        name = model["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"]["as_tensor"]["name"]
        _graph(model)["tensor_values"][name]["sizes"][1] = {"as_int": 7}
        return model

    bad = tmp_path / "mlp.pt2"
    _rewrite_archive(mlp, bad, output_size_7)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, np.zeros((2, 16), np.float32))
    assert_user_error(_run(tmp_path, bad, inputs), r"node linear_2 \(aten\.linear\.default\)", r"\[2, 7\]",
                      r"metadata contradict")


class Sum(torch.nn.Module):
    def forward(self, x):
        return (x * 3).sum(1)


def test_openvino_dtype_contradicting_the_metadata_is_seen_at_load(tmp_path):
    """A sum recorded as int8: OpenVINO's compiled model gives float32 from the float input. Load
    sees it and moves the sum to the CPU kernels, which compute in the dtype the archive records
    (there is no right answer to a damaged archive; there must be no internal error or crash);
    under --strict it is refused naming the value."""
    good = tmp_path / "sum.pt2"
    torch.export.save(torch.export.export(Sum(), (torch.randn(2, 3),)), good)

    def sum_as_int8(model):
        name = _node(model, "aten.sum.dim_IntList")["outputs"][0]["as_tensor"]["name"]
        _graph(model)["tensor_values"][name]["dtype"] = 2  # int8
        return model

    bad = tmp_path / "sum_int8.pt2"
    _rewrite_archive(good, bad, sum_as_int8)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, np.ones((2, 3), np.float32))
    assert _run(tmp_path, good, inputs).returncode == 0
    proc = _run(tmp_path, bad, inputs)
    assert proc.returncode == 0, describe(proc)
    assert np.load(tmp_path / "out.npz")["arr_0"].tolist() == [9, 9]
    assert_user_error(_run(tmp_path, bad, inputs, "--strict"), r"sum", r"step 1",
                      r"float32 where PyTorch records int8")


@pytest.mark.parametrize("cpu", [False, True], ids=["default", "cpu-kernels"])
def test_cpu_result_contradicting_the_metadata_is_refused(tmp_path, lstm, cpu):
    pt2, inputs = lstm
    bad = tmp_path / "mul_size.pt2"
    _rewrite_archive(pt2, bad, _mul_recorded_with_another_size)
    proc = _run(tmp_path, bad, inputs, "--cpu-op", "aten.mul", *(["--cpu-op", "aten.lstm"] if cpu else []))
    assert_user_error(proc, r"node mul \(aten\.mul\.Tensor\)", r"metadata contradict")


def test_seeded_graph_mutations_run_or_are_refused(tmp_path):
    """40 mutants of the five programs of fuzz/mutate_archives.py, each run on the CPU kernels
    and on the default placement: no internal error, crash, hang or unclear refusal."""
    proc = subprocess.run([sys.executable, "-m", "fuzz.mutate_archives", "--n", "40", "--seed", "11", "--workers", "2",
                           "--bin", str(pt2ov_binary()), "--folder", str(tmp_path / "mutations")],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]


def test_a_shape_contract_contradiction_is_refused_at_load(tmp_path, lstm):
    """The mul's recorded sizes contradict the sizes its arguments make (its kernel's shape
    contract, kernels/contracts.h): refused while loading, before anything is compiled or run,
    so `inspect` refuses it too."""
    pt2, _ = lstm
    bad = tmp_path / "mul_size.pt2"
    _rewrite_archive(pt2, bad, _mul_recorded_with_another_size)
    proc = run_cli(["inspect", bad])
    assert_user_error(proc, r"node mul \(aten\.mul\.Tensor\) records 'mul' as \[2, 7, 16\] where its arguments make it "
                            r"\[2, 5, 16\]", r"metadata contradict")
