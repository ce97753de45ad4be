"""The model zoo: small PyTorch programs the engine must run exactly as PyTorch does.

Each model file registers one or more `ModelCase`s. A case knows how to build its module (eval
mode, seeded weights), how to make example inputs (variant 0 is what the program is exported
with; variant 1 is another valid size for the dynamic dims), and the dynamic-shape spec for
`torch.export.export`. tests/e2e/test_zoo.py runs every case through the engine.

Adding a case: write the module in the file of its family (or a new file listed in
`_MODEL_FILES`), call `register(ModelCase(...))`, and run `python -m tests.models.check` from
the repository root: it builds, exports and saves every case and checks the exported program
against eager PyTorch, without the engine. Every bug found in the engine gets the smallest
program that shows it here, kept forever (docs/EXTENDING.md, "Habits").

Tolerances: floats compare with rtol 1e-4 / atol 1e-5 (docs/EXACTNESS.md E5) unless a case sets `rtol` /
`atol` and says `why`. Integers and bools always compare exactly. `expect_exact=True` makes
every output bit-exact; `exact_outputs` lists the (flattened) outputs that are copies or views
of an input, parameter, buffer or constant and must be bit-exact (docs/EXACTNESS.md E1).
"""
from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Callable, Optional

import torch

DEFAULT_RTOL = 1e-4
DEFAULT_ATOL = 1e-5


@dataclasses.dataclass(frozen=True)
class ModelCase:
    name: str
    make_module: Callable[[], torch.nn.Module]
    # variant 0: the export inputs; variant 1: another valid size for every dynamic dim.
    make_inputs: Callable[[int], tuple]
    # A spec for torch.export.export(dynamic_shapes=...), or None: the case runs static only.
    dynamic_shapes: Any = None
    rtol: Optional[float] = None
    atol: Optional[float] = None
    why: str = ""  # required whenever rtol/atol is set: why this case needs more than E5
    notes: str = ""
    expect_exact: bool = False  # every output bit-exact
    exact_outputs: tuple = ()  # indices of flattened outputs that must be bit-exact (copies)

    def __post_init__(self):
        if (self.rtol is not None or self.atol is not None) and not self.why:
            raise ValueError(f"model case {self.name}: a tolerance override needs a `why`")

    @property
    def tolerance(self) -> tuple[float, float]:
        rtol = DEFAULT_RTOL if self.rtol is None else self.rtol
        atol = DEFAULT_ATOL if self.atol is None else self.atol
        return rtol, atol

    @property
    def has_dynamic(self) -> bool:
        return self.dynamic_shapes is not None


_REGISTRY: dict[str, ModelCase] = {}


def register(case: ModelCase) -> ModelCase:
    if case.name in _REGISTRY:
        raise ValueError(f"model case {case.name} registered twice")
    _REGISTRY[case.name] = case
    return case


def randomize_batchnorm(bn: torch.nn.modules.batchnorm._BatchNorm) -> None:
    """Give a BatchNorm non-trivial affine parameters and running statistics (seeded by the
    caller), so an eval-mode BN is not the identity."""
    with torch.no_grad():
        n = bn.num_features
        bn.weight.copy_(torch.rand(n) + 0.5)
        bn.bias.copy_(torch.randn(n) * 0.1)
        bn.running_mean.copy_(torch.randn(n) * 0.1)
        bn.running_var.copy_(torch.rand(n) + 0.5)


_MODEL_FILES = (
    "basic",
    "conv",
    "sequence",
    "state",
    "copies",
    "dtypes",
    "structure",
    "policy",
    "regressions",
    "slicing",
    "converter_faults",
    "decompositions",
    "architectures_blocks",
    "static_cache",
    "scoping_regions",
    "claimed_ops",
    "nonfinite",
    "long_tail",
)

for _file in _MODEL_FILES:
    importlib.import_module(f"{__name__}.{_file}")


def all_cases() -> list[ModelCase]:
    return list(_REGISTRY.values())


def get_case(name: str) -> ModelCase:
    return _REGISTRY[name]
