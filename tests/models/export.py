"""Exporting zoo cases and computing their eager reference, shared by tests/e2e and
`python -m tests.models.check`."""
from __future__ import annotations

import copy
import warnings

import torch
from torch.utils._pytree import tree_flatten

from . import ModelCase

MODES = ("exported", "decomposed")
SHAPES = ("static", "dynamic")


def flatten(tree) -> list:
    """The leaves of a pytree in torch.export's order (the order of the .npz arrays)."""
    leaves, _ = tree_flatten(tree)
    return leaves


def export_case(case: ModelCase, module: torch.nn.Module, shape: str) -> torch.export.ExportedProgram:
    """torch.export.export of `module` with variant-0 inputs; dynamic shapes only for
    shape == "dynamic"."""
    if shape not in SHAPES:
        raise ValueError(shape)
    if shape == "dynamic" and not case.has_dynamic:
        raise ValueError(f"model case {case.name} has no dynamic shapes")
    dynamic_shapes = case.dynamic_shapes if shape == "dynamic" else None
    with warnings.catch_warnings():
        # nn.LSTM/GRU warn that _flat_weights are assigned during export; harmless here
        warnings.simplefilter("ignore", UserWarning)
        return torch.export.export(module, case.make_inputs(0), dynamic_shapes=dynamic_shapes)


def for_mode(ep: torch.export.ExportedProgram, mode: str) -> torch.export.ExportedProgram:
    if mode == "exported":
        return ep
    if mode == "decomposed":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return ep.run_decompositions()
    raise ValueError(mode)


def call_inputs(case: ModelCase, shape: str) -> list[tuple]:
    """The inputs of the two calls a test makes on one loaded program: variant 0 then 1 for a
    dynamic program, variant 0 twice for a static one."""
    return [case.make_inputs(0), case.make_inputs(1 if shape == "dynamic" else 0)]


def _clone_tree(tree):
    leaves, spec = tree_flatten(tree)
    leaves = [x.clone() if isinstance(x, torch.Tensor) else x for x in leaves]
    return spec.unflatten(leaves)


def eager_outputs(module: torch.nn.Module, calls: list[tuple]) -> list[list[torch.Tensor]]:
    """Calls a deep copy of `module` once per entry of `calls`, in order (so mutated buffers
    advance as they do in the engine), and returns each call's flattened outputs, cloned at
    once (an output may be a buffer the next call mutates)."""
    module = copy.deepcopy(module)
    results = []
    with torch.no_grad():
        for args in calls:
            out = module(*_clone_tree(args))
            results.append([t.detach().clone() for t in flatten(out)])
    return results
