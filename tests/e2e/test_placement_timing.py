"""Placement by measurement (LoadOptions::measure_placement, on by default; --no-measure-placement):
a small program is timed at load through the placement rules' plan and wholly on pt2ov's CPU
kernels, the faster kept, the figures in the report's "measurement", the choice kept in
--cache-dir. Both sides must return what eager returns; which side wins is the machine's, so
the tests that depend on the choice set it through the cache file."""
from __future__ import annotations

import itertools
import pathlib

import numpy as np
import pytest
import torch

from conftest import inspect_json, run_engine_in


class TinyMLP(torch.nn.Module):
    def __init__(self, width_in=16, hidden=32, width_out=8):
        super().__init__()
        self.fc1 = torch.nn.Linear(width_in, hidden)
        self.fc2 = torch.nn.Linear(hidden, width_out)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(4))

    def forward(self, x):
        self.count.add_(1)
        return torch.relu(x) + self.count


def _save(tmp_path: pathlib.Path, module, args, name, dynamic_shapes=None) -> pathlib.Path:
    torch.manual_seed(0)
    ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
    path = tmp_path / f"{name}.pt2"
    torch.export.save(ep, path)
    return path


@pytest.fixture
def tiny_mlp(tmp_path):
    torch.manual_seed(0)
    module = TinyMLP().eval()
    x = torch.randn(1, 16)
    return _save(tmp_path, module, (x,), "tiny_mlp"), module, x


def _inspect(pt2, *options, measure=True) -> dict:
    return inspect_json(pt2, *options, measure_placement=measure)["methods"]["forward"]


_RUNS = itertools.count()


def _run(tmp_path, pt2, x, *options) -> list[np.ndarray]:
    # a tag of its own per run, so that no earlier run's output file can stand in for this one's
    return run_engine_in(tmp_path, pt2, [(x,)], extra_args=options, tag=f"run{next(_RUNS)}_",
                         measure_placement=True)[0]


def _assert_eager(expected: torch.Tensor, outputs: list[np.ndarray]) -> None:
    """E5's tolerance (docs/EXACTNESS.md): the CPU kernels and OpenVINO both keep within it."""
    assert len(outputs) == 1
    np.testing.assert_allclose(outputs[0], expected.numpy(), rtol=1e-4, atol=1e-5)
    assert outputs[0].dtype == np.float32 and outputs[0].shape == tuple(expected.shape)


def _kinds(method: dict) -> list[str]:
    return [step["kind"] for step in method["steps"]]


def test_a_small_program_is_timed_and_the_faster_kept(tiny_mlp, tmp_path):
    pt2, module, x = tiny_mlp
    method = _inspect(pt2)
    measurement = method["measurement"]
    assert measurement["openvino_us"] > 0 and measurement["cpu_us"] > 0, measurement
    assert measurement["calls"] >= 30 and measurement["from_cache"] is False, measurement
    # The CPU kernels replace the rules' plan only when clearly faster (by 10 %).
    expected = "cpu" if measurement["cpu_us"] < 0.9 * measurement["openvino_us"] else "openvino"
    assert measurement["chosen"] == expected, measurement
    if expected == "cpu":
        assert _kinds(method) == ["cpu"], method
        for node in method["steps"][0]["nodes"]:
            assert "timed at load" in node["reason"], node
    else:
        assert _kinds(method) == ["openvino"], method
    with torch.no_grad():
        _assert_eager(module(x), _run(tmp_path, pt2, x))


def test_no_measure_placement_keeps_the_rules_plan(tiny_mlp):
    pt2, _, _ = tiny_mlp
    method = _inspect(pt2, measure=False)
    assert "measurement" not in method, method
    assert _kinds(method) == ["openvino"], method


def _cache_file(cache: pathlib.Path) -> pathlib.Path:
    files = sorted(cache.glob("pt2ov-placement-*.txt"))
    assert len(files) == 1, [f.name for f in cache.iterdir()]
    return files[0]


def test_the_choice_is_kept_in_the_cache_dir_and_followed(tiny_mlp, tmp_path):
    pt2, module, x = tiny_mlp
    cache = tmp_path / "cache"
    first = _inspect(pt2, "--cache-dir", cache)["measurement"]
    entry = _cache_file(cache)
    assert entry.read_text().startswith(f"pt2ov placement 1 chosen={first['chosen']} "), entry.read_text()
    again = _inspect(pt2, "--cache-dir", cache)["measurement"]
    assert again["from_cache"] is True and again["chosen"] == first["chosen"], again
    assert again["openvino_us"] == pytest.approx(first["openvino_us"], abs=1e-3)

    with torch.no_grad():
        expected = module(x)
    # The cache decides, whatever this machine would time: both choices run and return eager's.
    entry.write_text("pt2ov placement 1 chosen=cpu openvino_us=100.000 cpu_us=1.000 calls=7\n")
    method = _inspect(pt2, "--cache-dir", cache)
    assert _kinds(method) == ["cpu"] and method["measurement"]["from_cache"] is True, method
    assert "read from the cache" in method["steps"][0]["nodes"][0]["reason"], method
    _assert_eager(expected, _run(tmp_path, pt2, x, "--cache-dir", cache))

    entry.write_text("pt2ov placement 1 chosen=openvino openvino_us=1.000 cpu_us=100.000 calls=7\n")
    method = _inspect(pt2, "--cache-dir", cache)
    assert _kinds(method) == ["openvino"] and method["measurement"]["chosen"] == "openvino", method
    _assert_eager(expected, _run(tmp_path, pt2, x, "--cache-dir", cache))

    # A damaged entry is timed again and rewritten.
    entry.write_text("pt2ov placement 1 chosen=gpu\n")
    measurement = _inspect(pt2, "--cache-dir", cache)["measurement"]
    assert measurement["from_cache"] is False, measurement
    assert entry.read_text().startswith(f"pt2ov placement 1 chosen={measurement['chosen']} ")


def test_other_options_are_another_cache_entry(tiny_mlp, tmp_path):
    pt2, _, _ = tiny_mlp
    cache = tmp_path / "cache"
    _inspect(pt2, "--cache-dir", cache)
    _inspect(pt2, "--cache-dir", cache, "--num-threads", "1")
    assert len(list(cache.glob("pt2ov-placement-*.txt"))) == 2


def test_programs_that_are_not_timed(tmp_path):
    torch.manual_seed(0)
    x = torch.randn(2, 16)
    not_timed = {
        # a dynamic batch: the timing's zero inputs would fix one shape
        "dynamic": _save(tmp_path, TinyMLP().eval(), (x,), "dynamic",
                         dynamic_shapes=({0: torch.export.Dim("batch", max=64)},)),
        # a mutated buffer: timing calls would advance the state
        "state": _save(tmp_path, Counter(), (torch.randn(4),), "state"),
        # beyond the size at which OpenVINO's per-call cost dominates
        "large": _save(tmp_path, TinyMLP(256, 512, 256).eval(), (torch.randn(4, 256),), "large"),
    }
    for name, pt2 in not_timed.items():
        method = _inspect(pt2)
        assert "measurement" not in method, (name, method)
    small = _save(tmp_path, TinyMLP().eval(), (x,), "small")
    assert "measurement" not in _inspect(small, "--strict"), "--strict allows no CPU step"
    assert "measurement" in _inspect(small)


class TinyConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.up = torch.nn.ConvTranspose2d(8, 4, 2, stride=2)

    def forward(self, x):
        return self.up(torch.relu(self.conv(x)))


def test_a_small_convolution_network_is_timed(tmp_path):
    """Every node of a small conv net has a CPU kernel (the convolution kernel among them), so
    its placement is timed, and whichever plan is kept returns eager's values."""
    torch.manual_seed(0)
    module = TinyConvNet().eval()
    x = torch.randn(1, 3, 8, 8)
    pt2 = _save(tmp_path, module, (x,), "tiny_conv")
    method = _inspect(pt2)
    measurement = method["measurement"]
    assert measurement["openvino_us"] > 0 and measurement["cpu_us"] > 0, measurement
    with torch.no_grad():
        _assert_eager(module(x), _run(tmp_path, pt2, x))
