"""The installed CMake package: `cmake --install build --prefix P`, then a program outside the
build (tests/package/) does find_package(pt2ov), links pt2ov::pt2ov, and runs the example
policy; its action is compared with PyTorch eager computed here."""
from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import torch

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "examples"))
import policy  # noqa: E402

BUILD = REPO_ROOT / "build"


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_installed_package_builds_and_runs_a_consumer(tmp_path):
    prefix = tmp_path / "prefix"
    _run(["cmake", "--install", BUILD, "--prefix", prefix])
    config = prefix / "lib" / "cmake" / "pt2ov"
    assert (config / "pt2ovConfig.cmake").is_file() and (config / "pt2ovConfigVersion.cmake").is_file()
    assert (prefix / "include" / "pt2ov" / "pt2ov.h").is_file()
    assert (prefix / "bin" / "pt2ov").is_file()

    import openvino.utils
    consumer_build = tmp_path / "consumer"
    _run(["cmake", "-S", REPO_ROOT / "tests" / "package", "-B", consumer_build, "-DCMAKE_BUILD_TYPE=Release",
          f"-DCMAKE_PREFIX_PATH={prefix}", f"-DOpenVINO_DIR={openvino.utils.get_cmake_path()}"])
    _run(["cmake", "--build", consumer_build])

    model = policy.make_policy(seed=0)
    image, state = policy.example_inputs(batch=3, seed=5)
    ep = torch.export.export(model, (image, state), dynamic_shapes=policy.dynamic_shapes())
    archive = tmp_path / "policy.pt2"
    torch.export.save(ep, archive)
    image.numpy().tofile(tmp_path / "image.f32")
    state.numpy().tofile(tmp_path / "state.f32")
    _run([consumer_build / "consumer", archive, 3, tmp_path / "image.f32", tmp_path / "state.f32",
          tmp_path / "action.f32"])
    action = np.fromfile(tmp_path / "action.f32", dtype=np.float32).reshape(3, policy.ACTION_SIZE)
    with torch.no_grad():
        expected = model(image, state)[0].numpy()
    np.testing.assert_allclose(action, expected, rtol=1e-4, atol=1e-5)


def test_installed_command_runs(tmp_path):
    prefix = tmp_path / "prefix"
    _run(["cmake", "--install", BUILD, "--prefix", prefix])
    proc = _run([prefix / "bin" / "pt2ov", "inspect", REPO_ROOT / "examples" / "policy.pt2"])
    assert "step 1" in proc.stdout
