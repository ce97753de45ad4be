"""The Python module pt2ov against eager PyTorch. Imports pt2ov from build/python (`make
test-python` sets PYTHONPATH), or from wherever it is installed."""
from __future__ import annotations

import pathlib
import sys
import warnings

import pytest
import torch

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

try:
    import pt2ov  # noqa: F401
except ImportError as e:  # a failure, never a skip
    raise ImportError(f"cannot import pt2ov ({e}): run `make build` and set PYTHONPATH={REPO_ROOT}/build/python "
                      "(or run `make test-python`)") from e

from tests.models import get_case  # noqa: E402
from tests.models.export import export_case  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("filterwarnings", "ignore:.*LeafSpec.*:FutureWarning")


class Exported:
    """Each zoo case exported and saved once per session."""

    def __init__(self, root: pathlib.Path):
        self.root = root
        self._paths: dict[str, pathlib.Path] = {}

    def path(self, name: str) -> pathlib.Path:
        if name not in self._paths:
            case = get_case(name)
            ep = export_case(case, case.make_module(), "dynamic" if case.has_dynamic else "static")
            path = self.root / f"{name}.pt2"
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="No complete tensor found")
                torch.export.save(ep, str(path))
            self._paths[name] = path
        return self._paths[name]


@pytest.fixture(scope="session")
def exported(tmp_path_factory) -> Exported:
    return Exported(tmp_path_factory.mktemp("pt2"))


@pytest.fixture(scope="session")
def save(tmp_path_factory):
    """save(module, inputs, name, dynamic_shapes=None) -> the path of the exported .pt2."""
    root = tmp_path_factory.mktemp("own")

    def save(module, inputs, name, dynamic_shapes=None):
        ep = torch.export.export(module.eval(), tuple(inputs), dynamic_shapes=dynamic_shapes)
        path = root / f"{name}.pt2"
        torch.export.save(ep, str(path))
        return path

    return save
