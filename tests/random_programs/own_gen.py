"""Our own generator: random DAGs of 3-15 ops from `ops.OPS` over inputs, parameters and
buffers, with several outputs (every unused value, and sometimes an intermediate that is also
consumed).

A program is plain data (`Program`): leaves (each a concrete tensor and its kind) and nodes
(an op name, operand references and attributes); `Program.module()` makes the `nn.Module` that
runs it. The generator runs every op on the actual values as it adds it, so shapes, dtypes and
value domains are always those of the run, and a seed always gives the same program.
"""
from __future__ import annotations

import dataclasses
import random
from typing import Optional

import torch
from torch import nn

from .ops import OPS, kind_of

INPUT, PARAM, BUFFER = "input", "param", "buffer"


@dataclasses.dataclass
class Leaf:
    kind: str  # input / param / buffer
    value: torch.Tensor  # float32 for float leaves


@dataclasses.dataclass
class Node:
    op: str
    args: list  # references: ("l", i) a leaf, ("n", i) a node's value
    attrs: dict


@dataclasses.dataclass
class Program:
    seed: object
    leaves: list
    nodes: list
    outputs: list  # references

    # --- the module ---
    def module(self, float_dtype: torch.dtype = torch.float32) -> nn.Module:
        return ProgramModule(self, float_dtype)

    def inputs(self, float_dtype: torch.dtype = torch.float32) -> tuple:
        return tuple(_as(l.value, float_dtype).clone() for l in self.leaves if l.kind == INPUT)

    def ops(self) -> list[str]:
        return [n.op for n in self.nodes]

    def pretty(self) -> str:
        names = {}
        lines = []
        k = 0
        for i, l in enumerate(self.leaves):
            names[("l", i)] = f"{l.kind[0]}{i}"
            lines.append(f"{l.kind[0]}{i}: {l.kind} {l.value.dtype} {list(l.value.shape)}")
        for i, n in enumerate(self.nodes):
            names[("n", i)] = f"v{i}"
            args = ", ".join(names[tuple(a)] for a in n.args)
            lines.append(f"v{i} = {n.op}({args}) {n.attrs}")
            k += 1
        lines.append("return " + ", ".join(names[tuple(o)] for o in self.outputs))
        return "\n".join(lines)


def _as(t: torch.Tensor, float_dtype: torch.dtype) -> torch.Tensor:
    return t.to(float_dtype) if t.dtype.is_floating_point else t


class ProgramModule(nn.Module):
    def __init__(self, prog: Program, float_dtype: torch.dtype = torch.float32):
        super().__init__()
        self.prog = prog
        self.float_dtype = float_dtype
        self.input_slots = []
        for i, l in enumerate(prog.leaves):
            v = _as(l.value, float_dtype).clone()
            if l.kind == PARAM:
                self.register_parameter(f"p{i}", nn.Parameter(v, requires_grad=False))
            elif l.kind == BUFFER:
                self.register_buffer(f"b{i}", v)
            else:
                self.input_slots.append(i)

    def forward(self, *inputs):
        leaf = {}
        for slot, x in zip(self.input_slots, inputs):
            leaf[slot] = x
        for i, l in enumerate(self.prog.leaves):
            if l.kind == PARAM:
                leaf[i] = getattr(self, f"p{i}")
            elif l.kind == BUFFER:
                leaf[i] = getattr(self, f"b{i}")
        vals = []

        def get(ref):
            return leaf[ref[1]] if ref[0] == "l" else vals[ref[1]]

        for n in self.prog.nodes:
            a = dict(n.attrs, _f=self.float_dtype)
            vals.append(OPS[n.op].fn(a, *[get(r) for r in n.args]))
        return tuple(get(r) for r in self.prog.outputs)


# --- generation ---------------------------------------------------------------------------------
_FLOAT, _INTS, _BOOL = torch.float32, (torch.int64, torch.int32), torch.bool


class Gen:
    """The generator context the ops' `make` functions use."""

    def __init__(self, r: random.Random):
        self.r = r
        self.leaves: list[Leaf] = []
        self.nodes: list[Node] = []
        self.values: dict = {}  # ref -> concrete float32 tensor
        self.pending: list[Leaf] = []  # leaves a make() created; dropped if the op is not added

    def val(self, ref) -> torch.Tensor:
        return self.values[tuple(ref)]

    def refs(self):
        return list(self.values)

    # values
    def _tensor(self, shape, dtype, fill="randn", scale=1.0, hi=None) -> torch.Tensor:
        gen = torch.Generator().manual_seed(self.r.getrandbits(31))
        if dtype.is_floating_point:
            if fill == "pos":
                return (torch.rand(shape, generator=gen) + 0.5).to(dtype)
            return (torch.randn(shape, generator=gen) * scale).to(dtype)
        if dtype == torch.bool:
            return torch.rand(shape, generator=gen) > 0.5
        if hi is not None:
            return torch.randint(0, hi, shape, generator=gen, dtype=dtype)
        return torch.randint(-6, 7, shape, generator=gen, dtype=dtype)

    def _add_leaf(self, t: torch.Tensor, kind: Optional[str] = None):
        if kind is None:
            x = self.r.random()
            kind = INPUT if x < 0.6 else (BUFFER if x < 0.8 or not t.dtype.is_floating_point else PARAM)
        self.leaves.append(Leaf(kind, t))
        ref = ("l", len(self.leaves) - 1)
        self.values[ref] = t
        self.pending.append(ref)
        return ref

    def leaf_new(self, shape, dtype, param=None, fill="randn", scale=1.0):
        """A new weight-like leaf (a parameter or buffer; sometimes an input)."""
        kind = None
        if param is True:
            kind = PARAM if self.r.random() < 0.8 else INPUT
        elif param is False:
            kind = BUFFER if self.r.random() < 0.8 else INPUT
        return self._add_leaf(self._tensor(list(shape), dtype, fill, scale), kind)

    def index_leaf(self, shape, hi):
        t = self._tensor(list(shape), torch.int64, hi=hi)
        if self.r.random() < 0.3:
            t = t - hi * (t % 2)  # some negative indices where the op allows (most do not)
            t = t + hi * (t < 0)
        return self._add_leaf(t, BUFFER if self.r.random() < 0.5 else INPUT)

    def perm_index_leaf(self, shape, d, hi):
        """Indices distinct along d (a scatter without duplicates is defined)."""
        gen = torch.Generator().manual_seed(self.r.getrandbits(31))
        n = shape[d]
        moved = [s for i, s in enumerate(shape) if i != d]
        count = 1
        for s in moved:
            count *= s
        rows = torch.stack([torch.randperm(hi, generator=gen)[:n] for _ in range(count)])
        t = rows.reshape(moved + [n]).movedim(-1, d).contiguous()
        return self._add_leaf(t, BUFFER if self.r.random() < 0.5 else INPUT)

    def value_like(self, shape, dtype, prefer=0.5):
        """An existing value of exactly this shape and dtype (with probability `prefer` when
        there is one), else a new leaf."""
        same = [ref for ref, v in self.values.items()
                if list(v.shape) == list(shape) and v.dtype == dtype]
        if same and self.r.random() < prefer:
            return self.r.choice(same)
        return self._add_leaf(self._tensor(list(shape), dtype))

    def partner(self, x, dtype, pred=None):
        """A second operand broadcastable with x: x's shape, or with dims set to 1, or fewer
        leading dims; an existing value when one fits."""
        v = self.val(x)
        shape = list(v.shape)
        r = self.r
        if r.random() < 0.4 and shape:
            shape = [1 if r.random() < 0.4 else s for s in shape]
            if r.random() < 0.3:
                shape = shape[r.randint(1, len(shape)):]
        elif r.random() < 0.1:
            shape = []
        cands = [ref for ref, w in self.values.items()
                 if ref != tuple(x) and list(w.shape) == shape and w.dtype == dtype
                 and (pred is None or (w.numel() and bool(pred(w.double()).all())))]
        if cands and r.random() < 0.6:
            return r.choice(cands)
        for _ in range(4):
            t = self._tensor(shape, dtype)
            if pred is None or t.numel() == 0 or bool(pred(t.double()).all()):
                return self._add_leaf(t)
            if dtype.is_floating_point:
                t = t.sign() * (t.abs() + 0.5)
                if bool(pred(t.double()).all()):
                    return self._add_leaf(t)
            else:
                t = torch.where(t == 0, torch.ones_like(t), t)
                if bool(pred(t.double()).all()):
                    return self._add_leaf(t)
        return None


def _first_input(g: Gen):
    r = g.r
    rank = r.choice([1, 2, 2, 3, 3, 4, 4, 4, 0])
    shape = [r.randint(1, 6) for _ in range(rank)]
    if r.random() < 0.3:  # image- or sequence-like, for convolutions, pooling, resizing
        shape = [r.randint(1, 2), r.randint(1, 4)] + [r.randint(2, 8) for _ in range(r.choice([1, 2, 2]))]
    x = r.random()
    dtype = _FLOAT if x < 0.75 else (r.choice(_INTS) if x < 0.92 else _BOOL)
    g.pending = []
    return g._add_leaf(g._tensor(shape, dtype), INPUT)


def generate(seed: int, max_nodes: int = 15) -> Program:
    r = random.Random(f"own:{seed}")
    g = Gen(r)
    _first_input(g)
    if r.random() < 0.4:
        _first_input(g)
    target = r.randint(3, max_nodes)
    names = sorted(OPS)
    used = set()  # values consumed by some node
    attempts = 0
    while len(g.nodes) < target and attempts < 400:
        attempts += 1
        # operand: prefer recent values (chains), sometimes any value
        refs = g.refs()
        node_refs = [ref for ref in refs if ref[0] == "n"]
        x = r.choice(node_refs[-3:]) if node_refs and r.random() < 0.7 else r.choice(refs)
        v = g.val(x)
        if v.numel() > 4096:
            continue
        kind = kind_of(v)
        op = OPS[r.choice(names)]
        if kind not in op.kinds:
            continue
        g.pending = []
        leaves_before = len(g.leaves)
        try:
            made = op.make(r, g, x)
        except (ValueError, RuntimeError, IndexError):
            made = None
        if made is None:
            _drop_pending(g, leaves_before)
            continue
        args, attrs = made
        try:
            with torch.no_grad():
                out = op.fn(dict(attrs, _f=torch.float32), *[g.val(a) for a in args])
        except (RuntimeError, ValueError, IndexError, TypeError, KeyError):
            _drop_pending(g, leaves_before)
            continue
        if (not isinstance(out, torch.Tensor) or out.numel() > 4096 or out.numel() == 0
                or out.dtype not in (torch.float32, torch.int64, torch.int32, torch.bool)):
            _drop_pending(g, leaves_before)
            continue
        if out.dtype.is_floating_point and not bool(torch.isfinite(out).all()):
            _drop_pending(g, leaves_before)
            continue
        g.nodes.append(Node(op.name, [list(a) for a in args], attrs))
        ref = ("n", len(g.nodes) - 1)
        g.values[ref] = out.detach().clone()
        used.update(tuple(a) for a in args)
    return _finish(g, seed, used, r)


def _drop_pending(g: Gen, leaves_before: int) -> None:
    for ref in g.pending:
        g.values.pop(ref, None)
    del g.leaves[leaves_before:]
    g.pending = []


def _finish(g: Gen, seed, used, r) -> Program:
    outputs = [("n", i) for i in range(len(g.nodes)) if ("n", i) not in used]
    consumed = [("n", i) for i in range(len(g.nodes)) if ("n", i) in used]
    for ref in r.sample(consumed, min(len(consumed), r.randint(0, 2))):
        outputs.append(ref)
    outputs = outputs[-6:] if outputs else []
    prog = prune(Program(seed, g.leaves, g.nodes, [list(o) for o in outputs]))
    if prog.leaves and not any(l.kind == INPUT for l in prog.leaves):
        prog.leaves[0].kind = INPUT  # a program with no user input is not what we test
    return prog


def prune(prog: Program) -> Program:
    """Drops nodes and leaves no output depends on (renumbering references); an input that is
    no longer used goes too."""
    need_nodes, need_leaves = set(), set()
    stack = [tuple(o) for o in prog.outputs]
    while stack:
        kind, i = stack.pop()
        if kind == "l":
            need_leaves.add(i)
        elif i not in need_nodes:
            need_nodes.add(i)
            stack.extend(tuple(a) for a in prog.nodes[i].args)
    leaf_map = {old: new for new, old in enumerate(sorted(need_leaves))}
    node_map = {old: new for new, old in enumerate(sorted(need_nodes))}

    def remap(ref):
        return ["l", leaf_map[ref[1]]] if ref[0] == "l" else ["n", node_map[ref[1]]]

    leaves = [prog.leaves[i] for i in sorted(need_leaves)]
    nodes = [Node(prog.nodes[i].op, [remap(a) for a in prog.nodes[i].args], prog.nodes[i].attrs)
             for i in sorted(need_nodes)]
    outputs = []
    for o in prog.outputs:
        m = remap(o)
        if m not in outputs:
            outputs.append(m)
    return Program(prog.seed, leaves, nodes, outputs)
