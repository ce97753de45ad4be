"""The load options have one home (include/pt2ov/load_options.h): every field of LoadOptions is a
row of the table, and every front end offers every row by its one name: the command line's
`run` and `inspect` flags, serve's config.json keys, the Python module's `load` keywords. The
cache key and the verify worker's request are made from the table too (tests/cpp/runtime/
test_cache_file.cpp checks the key). The spellings from before the options had one name each
(`--hint`, `--threads`, `hint=`) still work for one release, with a deprecation note."""
from __future__ import annotations

import inspect
import json
import re
import sys
import warnings

import numpy as np
import pytest
import torch

from conftest import REPO_ROOT, run_cli

sys.path.insert(0, str(REPO_ROOT / "build" / "python"))
import pt2ov  # noqa: E402
from pt2ov import _pt2ov  # noqa: E402

TABLE = _pt2ov._load_option_table()
NAMES = [name for name, _, _ in TABLE]


def load_options_fields() -> list[str]:
    """The fields of `struct LoadOptions` in the public header, in their order."""
    header = (REPO_ROOT / "include" / "pt2ov" / "pt2ov.h").read_text()
    body = re.search(r"struct LoadOptions \{(.*?)\n\};", header, re.S).group(1)
    fields = []
    for line in body.splitlines():
        code = line.split("//")[0].strip()
        found = re.match(r"[\w:<>, ]+?\s+(\w+)\s*(=[^;]*)?;$", code)
        if found:
            fields.append(found.group(1))
    return fields


def test_every_field_is_a_row_of_the_table():
    fields = load_options_fields()
    assert len(fields) >= 17, fields
    assert sorted(fields) == sorted(NAMES), (f"fields without a row: {sorted(set(fields) - set(NAMES))}; "
                                             f"rows without a field: {sorted(set(NAMES) - set(fields))}")


@pytest.mark.parametrize("command", ["run", "inspect"])
def test_the_command_line_has_every_option(command):
    proc = run_cli([command, "--help"])
    assert proc.returncode == 0, proc.stderr
    for name, flag, _ in TABLE:
        assert re.search(rf"(^|[ ,]){re.escape(flag)}\b", proc.stdout, re.M), f"{command} --help lacks {flag} ({name})"


def test_the_python_module_has_every_option():
    keywords = [p for p in inspect.signature(pt2ov.load).parameters if p not in ("path", "hint")]
    assert sorted(keywords) == sorted(NAMES)
    assert sorted(pt2ov._options()) == sorted(NAMES)  # what reaches the engine, every one by name


def test_serve_config_has_every_option(tmp_path):
    folder = tmp_path / "repo" / "m"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"no_such_option": 1}))
    proc = run_cli(["serve", tmp_path / "repo", "--http-port", "0", "--grpc-port", "0"])
    assert proc.returncode == 2, proc.stderr
    listed = re.search(r"the keys: ([^)]*)\)", proc.stderr).group(1).split(", ")
    assert set(NAMES) <= set(listed), f"config.json does not take {sorted(set(NAMES) - set(listed))}"


def test_serve_config_checks_an_integer_option_as_the_command_line_does(tmp_path):
    folder = tmp_path / "repo" / "m"
    folder.mkdir(parents=True)
    for value, said in ((5000, "5000"), (-1, "-1"), (2.5, "2.5"), ("2", '"2"')):
        (folder / "config.json").write_text(json.dumps({"num_threads": value}))
        proc = run_cli(["serve", tmp_path / "repo", "--http-port", "0", "--grpc-port", "0"])
        assert proc.returncode == 2, proc.stderr
        assert re.search(r'"num_threads" must be an integer from 0 to 4096, not ' + re.escape(said), proc.stderr), \
            proc.stderr


@pytest.fixture(scope="module")
def mlp(tmp_path_factory):
    folder = tmp_path_factory.mktemp("options")
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU()).eval()
    x = torch.randn(2, 4)
    path = folder / "mlp.pt2"
    torch.export.save(torch.export.export(module, (x,)), path)
    np.savez(folder / "x.npz", x.numpy())
    return path, folder, module(x).detach().numpy()


def test_the_old_command_line_spellings_still_work_with_a_note(mlp):
    path, folder, want = mlp
    proc = run_cli(["run", path, "--inputs", folder / "x.npz", "--outputs", folder / "old.npz", "--hint", "throughput",
                    "--threads", "1", "--no-measure-placement"])
    assert proc.returncode == 0, proc.stderr
    assert "--hint is deprecated" in proc.stderr and "use --performance-hint" in proc.stderr
    assert "--threads is deprecated" in proc.stderr and "use --num-threads" in proc.stderr
    np.testing.assert_allclose(np.load(folder / "old.npz")["arr_0"], want, rtol=1e-5, atol=1e-6)
    proc = run_cli(["run", path, "--inputs", folder / "x.npz", "--outputs", folder / "bad.npz", "--hint", "fastest"])
    assert proc.returncode == 2 and "fastest" in proc.stderr, proc.stderr
    proc = run_cli(["run", path, "--inputs", folder / "x.npz", "--outputs", folder / "new.npz", "--performance-hint",
                    "throughput", "--num-threads", "1", "--no-measure-placement"])
    assert proc.returncode == 0 and "deprecated" not in proc.stderr, proc.stderr


def test_the_old_python_keyword_still_works_with_a_warning(mlp):
    path, _, _ = mlp
    with pytest.warns(DeprecationWarning, match="use performance_hint="):
        pt2ov.load(path, hint="throughput", measure_placement=False)
    # the old keyword's value reaches the engine's check
    with pytest.warns(DeprecationWarning), pytest.raises(pt2ov.Error, match="fastest"):
        pt2ov.load(path, hint="fastest", measure_placement=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pt2ov.load(path, performance_hint="throughput", measure_placement=False)
    with pytest.raises(TypeError, match="unknown load option 'no_such_option'"):
        _pt2ov._Program(str(path), {"no_such_option": 1})
    with pytest.raises(TypeError, match="load option 'num_threads'"):
        _pt2ov._Program(str(path), {"num_threads": "many"})
