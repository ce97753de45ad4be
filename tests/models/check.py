"""Checks the zoo without the engine: every case builds, exports (static and dynamic), saves,
loads back, and the loaded program (as exported and decomposed) matches eager PyTorch over two
successive calls. Also lists the distinct node targets of the exports.

    .venv/bin/python -m tests.models.check [--only NAME ...] [--targets FILE]
"""
from __future__ import annotations

import argparse
import copy
import pathlib
import sys
import tempfile
import time
import traceback

import torch

from . import all_cases
from .compare import assert_outputs_match, to_numpy
from .export import MODES, SHAPES, call_inputs, eager_outputs, export_case, flatten, for_mode


def graph_targets(ep: torch.export.ExportedProgram) -> set[str]:
    return {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}


def check_case(case, tmp: pathlib.Path, targets: set[str], decomposed_targets: set[str]) -> list[str]:
    failures = []
    shapes = SHAPES if case.has_dynamic else SHAPES[:1]
    for shape in shapes:
        module = case.make_module()
        pristine = copy.deepcopy(module)
        ep = export_case(case, module, shape)
        targets |= graph_targets(ep)
        calls = call_inputs(case, shape)
        expected = eager_outputs(pristine, calls)
        for mode in MODES:
            label = f"{case.name}-{mode}-{shape}"
            try:
                prog = for_mode(ep, mode)
                if mode == "decomposed":
                    decomposed_targets |= graph_targets(prog)
                path = tmp / f"{label}.pt2"
                torch.export.save(prog, str(path))
                loaded = torch.export.load(str(path)).module()
                with torch.no_grad():
                    for i, args in enumerate(calls):
                        got = [to_numpy(t) for t in flatten(loaded(*args))]
                        assert_outputs_match(got, expected[i], case, label=f"{label} call {i}")
            except Exception:
                failures.append(f"{label}:\n{traceback.format_exc()}")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--targets", type=pathlib.Path, help="write the exported targets here")
    args = parser.parse_args()
    cases = [c for c in all_cases() if args.only is None or c.name in args.only]
    targets: set[str] = set()
    decomposed_targets: set[str] = set()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            start = time.time()
            f = check_case(case, pathlib.Path(tmp), targets, decomposed_targets)
            failures += f
            print(f"{'FAIL' if f else 'ok  '} {case.name} ({time.time() - start:.1f}s)", flush=True)
    print(f"\n{len(cases)} cases, {len(failures)} failures")
    for f in failures:
        print(f)
    print("\nnode targets as exported:\n  " + "\n  ".join(sorted(targets)))
    print("\nnode targets after run_decompositions():\n  " + "\n  ".join(sorted(decomposed_targets)))
    if args.targets:
        args.targets.write_text("".join(t + "\n" for t in sorted(targets)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
