"""Delta debugging over a failing program: the smallest program that still fails the same way.

    python -m tests.random_programs.shrink own:123 --form decomposed --placement cpu
    python -m tests.random_programs.shrink nnsmith:45 --form exported --placement openvino

A program of our own generator is reduced by (until nothing more goes): keeping one output,
dropping an output, cutting a node's inputs off (its value becomes a new input, so everything
above it goes), bypassing a node (its users read its operand of the same shape and dtype
instead), and cutting leading elements of an input's values is not tried: values are drawn
with the program. An NNSmith program is reduced by its outputs (what no kept output needs
goes). "The same way" is the same verdict (wrong, crash or internal) in the same form and
placement.
"""
from __future__ import annotations

import argparse
import copy
import json
import pathlib
import sys

import torch

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.random_programs import harness  # noqa: E402
from tests.random_programs.own_gen import INPUT, Leaf, Node, Program, prune  # noqa: E402

OUT_DIR = REPO_ROOT / "build" / "random_programs"


def verdict(prog, form: str, placement: str, runner) -> tuple[str, str]:
    v, why, e32 = harness.screen(prog)
    if v != "ok":
        return v, why
    eps = harness.export_forms(prog, (form,))
    if isinstance(eps[form], Exception):
        return "not exportable", str(eps[form])[:200]
    recs = harness.run_program(prog, e32, eps, runner, OUT_DIR / "shrink", "shrink",
                               (placement,), openvino=False)
    return recs[0]["verdict"], recs[0].get("detail", "")


def node_values(prog: Program) -> list[torch.Tensor]:
    m = prog.module()
    vals = []
    full = Program(prog.seed, prog.leaves, prog.nodes, [["n", i] for i in range(len(prog.nodes))])
    with torch.no_grad():
        vals = list(full.module()(*prog.inputs()))
    del m
    return vals


def _replace_refs(prog: Program, old, new) -> Program:
    def sub(ref):
        return list(new) if list(ref) == list(old) else list(ref)
    nodes = [Node(n.op, [sub(a) for a in n.args], n.attrs) for n in prog.nodes]
    outs = []
    for o in prog.outputs:
        s = sub(o)
        if s not in outs:
            outs.append(s)
    return Program(prog.seed, list(prog.leaves), nodes, outs)


def candidates(prog: Program):
    outs = prog.outputs
    if len(outs) > 1:
        for o in outs:
            yield "keep output " + str(o), prune(Program(prog.seed, prog.leaves, prog.nodes, [o]))
        for o in outs:
            yield "drop output " + str(o), prune(Program(prog.seed, prog.leaves, prog.nodes,
                                                         [x for x in outs if x != o]))
    try:
        vals = node_values(prog)
    except Exception:  # noqa: BLE001
        vals = None
    for i, n in enumerate(prog.nodes):
        # bypass: users of node i read an operand of the same shape and dtype
        if vals is not None:
            for a in n.args:
                av = prog.leaves[a[1]].value if a[0] == "l" else vals[a[1]]
                if av.shape == vals[i].shape and av.dtype == vals[i].dtype:
                    p = _replace_refs(prog, ["n", i], a)
                    if ["n", i] not in p.outputs:
                        yield f"bypass v{i} ({n.op})", prune(p)
                    break
    if vals is not None:
        for i, n in enumerate(prog.nodes):
            if all(a[0] == "l" and prog.leaves[a[1]].kind == INPUT for a in n.args):
                continue
            leaves = list(prog.leaves) + [Leaf(INPUT, vals[i].detach().clone())]
            p = _replace_refs(Program(prog.seed, leaves, prog.nodes, prog.outputs), ["n", i],
                              ["l", len(leaves) - 1])
            yield f"cut above v{i} ({n.op})", prune(p)
    # parameters and buffers become inputs (fewer kinds of leaf)
    for i, l in enumerate(prog.leaves):
        if l.kind != INPUT:
            leaves = list(prog.leaves)
            leaves[i] = Leaf(INPUT, l.value)
            yield f"leaf {i} as input", Program(prog.seed, leaves, prog.nodes, prog.outputs)


def shrink_own(prog: Program, form: str, placement: str, runner, want: str, log=print) -> Program:
    progress = True
    while progress:
        progress = False
        for what, cand in candidates(prog):
            if len(cand.nodes) == 0 or not any(l.kind == INPUT for l in cand.leaves):
                continue
            if len(cand.nodes) > len(prog.nodes):
                continue
            v, _ = verdict(cand, form, placement, runner)
            if v == want:
                log(f"  {what}: still {v} ({len(cand.nodes)} nodes)")
                prog = cand
                progress = True
                break
    return prog


def shrink_nnsmith(prog, form, placement, runner, want, log=print):
    progress = True
    while progress and len(prog.outputs) > 1:
        progress = False
        options = [[o] for o in prog.outputs] + [[x for x in prog.outputs if x != o] for o in prog.outputs]
        for outs in options:
            cand = prog.with_outputs(outs)
            v, _ = verdict(cand, form, placement, runner)
            if v == want:
                log(f"  outputs {outs}: still {v} ({len(cand.ops())} ops)")
                prog = cand
                progress = True
                break
    return prog


def main() -> None:
    from tests.random_programs.runner import Runner

    ap = argparse.ArgumentParser()
    ap.add_argument("program", help="GENERATOR:SEED")
    ap.add_argument("--form", required=True)
    ap.add_argument("--placement", required=True)
    args = ap.parse_args()
    torch.set_num_threads(1)
    gen, seed = args.program.split(":")
    prog = harness.generate(gen, int(seed))
    runner = Runner(timeout_s=120)
    try:
        want, detail = verdict(prog, args.form, args.placement, runner)
        print(f"{args.program} {args.form} {args.placement}: {want} {detail[:300]}")
        if want not in ("wrong", "crash", "internal"):
            return
        shrink = shrink_own if gen == "own" else shrink_nnsmith
        small = shrink(prog, args.form, args.placement, runner, want)
        v, detail = verdict(small, args.form, args.placement, runner)
        print(small.pretty())
        print(f"-> {v}: {detail[:600]}")
        for alone in ("openvino-alone",):
            v2, _, e32 = harness.screen(small)
            eps = harness.export_forms(small, (args.form,))
            rec = harness.run_program(small, e32, eps, runner, OUT_DIR / "shrink", "alone", (),
                                      openvino=True)
            print(f"OpenVINO alone: {rec[0]['verdict']} {rec[0].get('detail', '')[:300]}")
        if gen == "own":
            for i, l in enumerate(small.leaves):
                print(f"leaf {i} ({l.kind}) = {l.value.tolist()}")
    finally:
        runner.close()


if __name__ == "__main__":
    main()
