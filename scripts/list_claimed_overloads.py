#!/usr/bin/env python3
"""Lists every op overload pt2ov claims and checks that each has a test or a stated reason.

pt2ov claims an overload when it has a CPU kernel for it (`PT2OV_KERNEL` in src/kernels/), a
decomposition (`PT2OV_DECOMPOSITION` in src/graph/decompose/) or a one-node rewrite
(`rewrites["..."]` in src/graph/rewrite.cpp). A kernel registered under an op name without
overload ("aten.clone") serves every overload of that op without a kernel of its own, so it
claims each of them in the op schema table (src/graph/op_schemas.inc), out= and in-place
overloads aside (torch.export never records them; the rewrites make in-place ops functional).

An overload is covered when
  - a program of the tests records it: a zoo case (tests/models/, as exported and decomposed) or
    a kernel family of tests/e2e/test_kernels*.py (both forms), exported here; or
  - a test names it: its full target ("aten.add.Tensor") appears in a test source (the C++
    kernel tests call kernels by target; other e2e tests build one-node programs); or
  - it is listed in `REFUSED` of tests/conformance/claimed_overloads.py with the reason it is
    refused or not tested (docs/CONFORMANCE.md, "Claimed overloads without a test").

    .venv/bin/python scripts/list_claimed_overloads.py            # the summary; exit 1 if any is uncovered
    .venv/bin/python scripts/list_claimed_overloads.py --list     # every claimed overload and how it is covered
    .venv/bin/python scripts/list_claimed_overloads.py --no-export  # test sources only (fast)

Exporting every program takes a few minutes; the targets are kept in
build/claimed_overloads_targets.json and reused while no file of tests/ is newer (--fresh
exports again).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "claimed_overloads_targets.json"

_KERNEL = re.compile(r'PT2OV_KERNEL\("([^"]+)"')
_DECOMPOSITION = re.compile(r'PT2OV_DECOMPOSITION\("([^"]+)"')
_REWRITE = re.compile(r'rewrites\["([^"]+)"\]')
_DEFINE = re.compile(r"#define\s+(\w+)\((\w+)[^)]*\)(.*)")
_SCHEMA = re.compile(r'^"(\w+)::(\w+)(?:\.(\w+))?\(')
_TARGET_TEXT = re.compile(r"\b((?:aten|prims)\.\w+\.\w+|_operator\.\w+)\b")


def schema_overloads() -> dict[str, list[str]]:
    """op ("aten.add") -> its overload targets ("aten.add.Tensor", ...) in the schema table."""
    table: dict[str, list[str]] = {}
    for line in (ROOT / "src/graph/op_schemas.inc").read_text().splitlines():
        m = _SCHEMA.match(line)
        if m:
            ns, name, overload = m.group(1), m.group(2), m.group(3) or "default"
            table.setdefault(f"{ns}.{name}", []).append(f"{ns}.{name}.{overload}")
    return table


def _recordable(target: str) -> bool:
    """An overload torch.export can record: not out= and not in-place."""
    ns, name, overload = target.split(".", 2)
    if overload == "out" or overload.endswith("_out") or overload.startswith("out_"):
        return False
    return not (name.endswith("_") and not name.startswith("__")) and not re.fullmatch(r"__i\w+__", name)


def claimed() -> dict[str, set[str]]:
    """target -> how pt2ov claims it ({"kernel", "decomposition", "rewrite"})."""
    found: dict[str, set[str]] = {}
    kernel_names = set()
    for path in sorted((ROOT / "src/kernels").rglob("*.cpp")):
        text = path.read_text()
        # a prefix literal of a macro's body ("aten." op) is no op name
        kernel_names.update(name for name in _KERNEL.findall(text) if not name.endswith("."))
        # kernels registered through a macro of the file: PT2OV_KERNEL(target, ...) or
        # PT2OV_KERNEL("aten." op, ...) in its body, the op given by each use
        for line in text.replace("\\\n", " ").splitlines():
            m = _DEFINE.match(line.strip())
            if not m or "PT2OV_KERNEL" not in m.group(3):
                continue
            use = re.search(rf'PT2OV_KERNEL\((?:"([^"]*)"\s*)?{m.group(2)}\b', m.group(3))
            if use:
                prefix = use.group(1) or ""
                kernel_names.update(prefix + op for op in re.findall(rf'\b{m.group(1)}\("([^"]+)"', text))
    overloads = schema_overloads()
    for name in kernel_names:
        if name.count(".") >= 2 or name not in overloads:  # an overload, or a Python operator (_operator.add)
            found.setdefault(name, set()).add("kernel")
        else:  # an op without overload: every overload without a kernel of its own
            for target in overloads[name]:
                if _recordable(target) and target not in kernel_names:
                    found.setdefault(target, set()).add("kernel")
    for path in sorted((ROOT / "src/graph/decompose").glob("*.cpp")):
        for target in _DECOMPOSITION.findall(path.read_text()):
            found.setdefault(target, set()).add("decomposition")
    for target in _REWRITE.findall((ROOT / "src/graph/rewrite.cpp").read_text()):
        found.setdefault(target, set()).add("rewrite")
    return found


def named_in_tests() -> dict[str, str]:
    """target -> the first test source that names it."""
    named: dict[str, str] = {}
    for path in sorted((ROOT / "tests").rglob("*")):
        if path.suffix not in (".py", ".cpp", ".h") or "claimed_overloads" in path.name:
            continue
        for target in _TARGET_TEXT.findall(path.read_text(errors="replace")):
            named.setdefault(target, str(path.relative_to(ROOT)))
    return named


def _serialized_target(target) -> str | None:
    """The target as the archive spells it: aten.add.Tensor, _operator.add."""
    import torch
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    module = getattr(target, "__module__", None)
    if module in ("_operator", "operator"):
        return f"_operator.{target.__name__}"
    return None


def _targets_of(ep) -> set[str]:
    return {t for n in ep.graph.nodes if n.op == "call_function" and (t := _serialized_target(n.target))}


def exported_targets() -> dict[str, str]:
    """target -> the first test program (zoo case or kernel family) that records it."""
    import torch
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "e2e")]
    warnings.simplefilter("ignore")
    found: dict[str, str] = {}

    def record(ep, label):
        for form, program in (("exported", ep), ("decomposed", ep.run_decompositions())):
            for target in _targets_of(program):
                found.setdefault(target, f"{label} ({form})")

    from tests.models import all_cases
    from tests.models.export import export_case
    for case in all_cases():
        try:
            record(export_case(case, case.make_module(), "static"), f"zoo {case.name}")
        except Exception as e:  # a case the check of the zoo reports; not this script's concern
            print(f"  (zoo {case.name}: {type(e).__name__}: {e})", file=sys.stderr)
    import importlib
    for path in sorted((ROOT / "tests" / "e2e").glob("test_kernels*.py")):
        module = importlib.import_module(path.stem)
        for family in getattr(module, "FAMILIES", []):
            try:
                dynamic = family.dynamic_shapes() if family.dynamic_shapes else None
                ep = torch.export.export(family.module().eval(), family.inputs(), dynamic_shapes=dynamic)
                record(ep, f"{path.stem} {family.name}")
            except Exception as e:
                print(f"  ({path.stem} {family.name}: {type(e).__name__}: {e})", file=sys.stderr)
    return found


def cached_exported_targets(fresh: bool) -> dict[str, str]:
    newest = max(p.stat().st_mtime for p in (ROOT / "tests").rglob("*.py"))
    if not fresh and CACHE.exists() and CACHE.stat().st_mtime > newest:
        return json.loads(CACHE.read_text())
    found = exported_targets()
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    CACHE.write_text(json.dumps(found, indent=0, sort_keys=True))
    return found


def coverage(export: bool, fresh: bool = False) -> tuple[dict[str, set[str]], dict[str, str], dict[str, str]]:
    """(claimed targets, target -> where covered, target -> reason it is refused or untested)."""
    sys.path.insert(0, str(ROOT))
    from tests.conformance.claimed_overloads import REFUSED
    claims = claimed()
    where = dict(named_in_tests())
    if export:
        for target, label in cached_exported_targets(fresh).items():
            where[target] = label  # a program that runs it beats a mention
    return claims, {t: where[t] for t in claims if t in where}, {t: REFUSED[t] for t in claims if t in REFUSED}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="every claimed overload and how it is covered")
    parser.add_argument("--no-export", action="store_true", help="test sources only; export no program")
    parser.add_argument("--fresh", action="store_true", help="export every program again")
    args = parser.parse_args()
    claims, covered, refused = coverage(not args.no_export, args.fresh)
    from tests.conformance.claimed_overloads import REFUSED
    stale = sorted(t for t in REFUSED if t not in claims)
    uncovered = sorted(t for t in claims if t not in covered and t not in refused)
    if args.list:
        for target in sorted(claims):
            how = covered.get(target) or (f"refused: {refused[target]}" if target in refused else "UNCOVERED")
            print(f"{target:55s} {'+'.join(sorted(claims[target])):25s} {how}")
    print(f"{len(claims)} claimed overloads: {len(covered)} tested, "
          f"{len([t for t in refused if t not in covered])} listed with a reason, {len(uncovered)} uncovered")
    for target in uncovered:
        print(f"  uncovered: {target} ({'+'.join(sorted(claims[target]))})")
    for target in stale:
        print(f"  listed in REFUSED but not claimed: {target}")
    return 1 if uncovered or stale else 0


if __name__ == "__main__":
    sys.exit(main())
