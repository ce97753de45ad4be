"""The x86-64 level of pt2ov's CPU kernels (src/kernels/isa/, PT2OV_CPU_ISA): a matrix-product
program on the CPU kernels gives eager's results at the baseline level and at the widest level
this CPU has; inspect reports the level; the variable refuses junk; libpt2ov.so itself holds no
AVX instruction (the wider code lives in the libpt2ov_isa_<level>.so objects only)."""
from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest
import torch

from conftest import REPO_ROOT, cpu_flags, describe, inspect_json, run_cli, run_engine_in, to_numpy

MATMUL_OPS = ("aten.mm", "aten.bmm", "aten.addmm", "aten.matmul", "aten.linear", "aten.t", "aten.transpose",
              "aten.permute", "aten.view", "aten._unsafe_view", "aten.unsqueeze", "aten.expand", "aten.clone")


class ProductsProgram(torch.nn.Module):
    """Products big enough to be split over threads, with transposed operands, addmm's beta and
    alpha, an empty inner dim, and float64."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.linear = torch.nn.Linear(96, 80)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g))

    def forward(self, a, b, bias, batch, empty_k, wide):
        return (torch.mm(a, b), torch.mm(b.t(), a.t()), torch.addmm(bias, a, b, beta=0.5, alpha=-1.5),
                self.linear(a), torch.bmm(batch, batch.transpose(1, 2)), a @ b[:, 0],
                torch.mm(empty_k, empty_k.t()), torch.mm(wide, wide.t()))


def products_inputs():
    g = torch.Generator().manual_seed(4)
    return (torch.randn(300, 96, generator=g), torch.randn(96, 160, generator=g), torch.randn(160, generator=g),
            torch.randn(3, 70, 50, generator=g), torch.zeros(5, 0), torch.randn(130, 200, generator=g,
                                                                                dtype=torch.float64))


def cpu_op_args():
    return [arg for op in MATMUL_OPS for arg in ("--cpu-op", op)]


LEVELS = ["baseline", "x86-64-v3", "x86-64-v4"]  # narrowest first


def built_levels() -> list[str]:
    """The levels this build has kernels for: the baseline and those src/kernels/isa/isa.cmake
    lists in PT2OV_ISA_LEVELS (each must have its object beside libpt2ov.so)."""
    text = (REPO_ROOT / "src" / "kernels" / "isa" / "isa.cmake").read_text()
    listed = re.search(r"^set\(PT2OV_ISA_LEVELS ([^)]*)\)", text, re.MULTILINE)
    assert listed, "isa.cmake sets no PT2OV_ISA_LEVELS"
    return ["baseline", *listed.group(1).split()]


def cpu_levels() -> list[str]:
    """The levels this CPU runs, from /proc/cpuinfo's flags (the psABI's x86-64-v3 and v4
    feature lists), independently of the engine's own detection."""
    flags = cpu_flags()
    v3 = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}
    v4 = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}
    return ["baseline"] + (["x86-64-v3"] if v3 <= flags else []) + (["x86-64-v4"] if v3 | v4 <= flags else [])


def widest_level_here() -> str:
    """The widest level this build has and this CPU runs: the one pt2ov takes by default."""
    return [level for level in LEVELS if level in built_levels() and level in cpu_levels()][-1]


@pytest.fixture(scope="module")
def products_program(tmp_path_factory):
    path = tmp_path_factory.mktemp("isa") / "products.pt2"
    torch.export.save(torch.export.export(ProductsProgram().eval(), products_inputs()), str(path))
    return path


@pytest.mark.parametrize("level", ["baseline", "widest"])
def test_products_match_eager_at_each_level(level, products_program, tmp_path, monkeypatch):
    level = widest_level_here() if level == "widest" else level
    monkeypatch.setenv("PT2OV_CPU_ISA", level)
    report = inspect_json(products_program, *cpu_op_args())
    assert report["methods"]["forward"]["cpu_isa"] == level
    steps = report["methods"]["forward"]["steps"]
    products_on_cpu = [n["target"] for s in steps if s["kind"] == "cpu" for n in s["nodes"]
                       if n["target"].split(".")[1] in ("mm", "addmm", "linear", "bmm", "matmul")]
    assert len(products_on_cpu) >= 6, steps
    (actual,) = run_engine_in(tmp_path, products_program, [products_inputs()], cpu_op_args())
    with torch.no_grad():
        expected = ProductsProgram().eval()(*products_inputs())
    assert len(actual) == len(expected)
    for i, (got, want) in enumerate(zip(actual, expected)):
        assert got.dtype == to_numpy(want).dtype and got.shape == tuple(want.shape), f"output {i}"
        np.testing.assert_allclose(got, to_numpy(want), rtol=1e-4, atol=1e-5, err_msg=f"{level} output {i}")


def test_unset_variable_takes_the_widest_level(products_program, monkeypatch):
    monkeypatch.delenv("PT2OV_CPU_ISA", raising=False)
    assert inspect_json(products_program)["methods"]["forward"]["cpu_isa"] == widest_level_here()


@pytest.mark.parametrize("junk", ["avx2", "x86-64-v9", "BASELINE"])
def test_variable_refuses_junk(junk, products_program, tmp_path, monkeypatch):
    monkeypatch.setenv("PT2OV_CPU_ISA", junk)
    np.savez(tmp_path / "in.npz", *[to_numpy(t) for t in products_inputs()])
    proc = run_cli(["run", products_program, "--inputs", tmp_path / "in.npz", "--outputs", tmp_path / "out.npz"])
    assert proc.returncode == 2, describe(proc)
    assert f"PT2OV_CPU_ISA={junk}" in proc.stderr, describe(proc)
    assert "use one of " + ", ".join(built_levels()) + "," in proc.stderr, describe(proc)
    assert not (tmp_path / "out.npz").exists()


@pytest.mark.parametrize("level", LEVELS[1:])
def test_variable_refuses_a_level_this_build_or_cpu_lacks(level, products_program, monkeypatch):
    if level in built_levels() and level in cpu_levels():
        pytest.skip(f"{level} runs here")
    monkeypatch.setenv("PT2OV_CPU_ISA", level)
    proc = run_cli(["inspect", products_program])
    why = "this build of pt2ov has no" if level not in built_levels() else "this CPU lacks"
    assert proc.returncode == 2 and f"PT2OV_CPU_ISA={level} cannot be used: {why}" in proc.stderr, describe(proc)


# --- no AVX in libpt2ov.so ---------------------------------------------------------------------
# Any VEX- or EVEX-encoded instruction (AVX and later: every such mnemonic starts with "v") or
# any ymm, zmm or mask register. Baseline x86-64 has none; the one legacy instruction that starts
# with "v" (verr/verw) is not user code.
_AVX = re.compile(r"^\s*[0-9a-f]+:\s+(v[a-z0-9]+)\b|%[yz]mm\d|%k[0-7]\b")


def avx_instructions(library: pathlib.Path) -> list[str]:
    objdump = shutil.which("objdump")
    if objdump is None:
        pytest.fail("objdump (binutils) is needed: it comes with g++")
    proc = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(library)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stdout.splitlines() if _AVX.search(line)]


def test_baseline_library_has_no_avx_instructions():
    library = REPO_ROOT / "build" / "libpt2ov.so"
    found = avx_instructions(library)
    assert not found, f"{library} holds {len(found)} AVX instruction(s), e.g.:\n" + "\n".join(found[:20])


def test_the_x86_64_v3_object_does_hold_avx_instructions():
    # The check above finds what it looks for: the x86-64-v3 object is full of it.
    found = avx_instructions(REPO_ROOT / "build" / "libpt2ov_isa_x86-64-v3.so")
    assert any("%ymm" in line for line in found) and any("vfmadd" in line for line in found)


# --- the objects beside an installed library ---------------------------------------------------
def installed_inspect(prefix: pathlib.Path, program: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(prefix / "bin" / "pt2ov"), "inspect", "--no-measure-placement", "--json", str(program)],
                          capture_output=True, text=True)


def test_install_puts_the_objects_beside_the_library_and_a_missing_one_falls_back(products_program, tmp_path,
                                                                                  monkeypatch):
    monkeypatch.delenv("PT2OV_CPU_ISA", raising=False)
    prefix = tmp_path / "prefix"
    proc = subprocess.run(["cmake", "--install", str(REPO_ROOT / "build"), "--prefix", str(prefix)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lib = prefix / "lib"
    objects = {level: lib / f"libpt2ov_isa_{level}.so" for level in built_levels()[1:]}
    assert (lib / "libpt2ov.so").is_file() and all(o.is_file() for o in objects.values()), sorted(lib.iterdir())

    def level_in_use():
        proc = installed_inspect(prefix, products_program)
        assert proc.returncode == 0, describe(proc)
        return json.loads(proc.stdout)["methods"]["forward"]["cpu_isa"]

    widest = widest_level_here()
    assert level_in_use() == widest
    # Without the widest level's object, the next narrower one that runs here; at last the baseline.
    runnable = [level for level in built_levels() if level in cpu_levels()]
    while len(runnable) > 1:
        objects[runnable.pop()].unlink()
        assert level_in_use() == runnable[-1]
    # Asked for by the variable, a level whose object is missing is an error naming it.
    if widest != "baseline":
        monkeypatch.setenv("PT2OV_CPU_ISA", widest)
        proc = installed_inspect(prefix, products_program)
        assert proc.returncode == 2 and f"PT2OV_CPU_ISA={widest}" in proc.stderr and "cannot load" in proc.stderr, (
            describe(proc))
