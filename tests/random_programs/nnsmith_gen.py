"""Programs from NNSmith 0.1.0: its symbolic graph generator (z3) over its PyTorch operator
set, with its ops run in a plain `nn.Module` (not its SymbolNet, which carries training and
proxy-gradient machinery export does not need).

A seed always gives the same program: each generation gets a fresh z3 context (z3's global
context otherwise keeps state from earlier solves), Python's `random` (which NNSmith draws
from) is seeded, and the weights and inputs are drawn from torch generators seeded by it.
"""
from __future__ import annotations

import dataclasses
import logging
import random
import warnings

import torch
from torch import nn

_OPSET = None
# the dtypes pt2ov programs carry; NNSmith's complex and float16/64 paths are not what we test
DTYPES = ["float32", "int32", "int64", "bool"]
# known faults another helper fixes, kept out so the runs find new ones (docs/CONFORMANCE.md)
EXCLUDE = set()


def _quiet():
    for name in ("nnsmith", "gen", "smt", "mgen", "exec", "viz", "fuzz", "core", "dtest"):
        logging.getLogger(name).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module="nnsmith")


def opset():
    global _OPSET
    if _OPSET is None:
        _quiet()
        import contextlib
        import io

        from nnsmith.materialize import Model
        from nnsmith.narrow_spec import auto_opset

        model_type = Model.init("torch", backend_target="cpu")
        # auto_opset prints a line per dtype combination it rejects
        with contextlib.redirect_stdout(io.StringIO()):
            ops = auto_opset(model_type, None, vulops=False)
        # a list in a fixed order: NNSmith draws from it with `random`
        _OPSET = sorted((op for op in ops if op.__name__ not in EXCLUDE), key=lambda op: op.__name__)
    return _OPSET


@dataclasses.dataclass
class NNSmithProgram:
    seed: object
    ir: object  # nnsmith.gir.GraphIR
    outputs: list  # variable names returned
    input_specs: list  # (shape, torch dtype) in forward's order

    def module(self, float_dtype: torch.dtype = torch.float32) -> nn.Module:
        torch.manual_seed(_weight_seed(self.seed))
        m = NNSmithModule(self.ir, self.outputs)
        m.requires_grad_(False)
        if float_dtype != torch.float32:
            m = m.to(float_dtype)
        return m.eval()

    def inputs(self, float_dtype: torch.dtype = torch.float32) -> tuple:
        gen = torch.Generator().manual_seed(_weight_seed(self.seed) + 1)
        out = []
        for shape, dtype in self.input_specs:
            if dtype.is_floating_point:
                t = torch.randn(shape, generator=gen) * 1.5
                out.append(t.to(float_dtype))
            elif dtype == torch.bool:
                out.append(torch.rand(shape, generator=gen) > 0.5)
            else:
                out.append(torch.randint(-4, 6, shape, generator=gen).to(dtype))
        return tuple(out)

    def ops(self) -> list[str]:
        from nnsmith.abstract.op import Input
        return [type(i.iexpr.op).__name__ for i in self.ir.insts
                if not isinstance(i.iexpr.op, Input)]

    def pretty(self) -> str:
        return self.ir.pretty() + "\nreturn " + ", ".join(self.outputs)

    def with_outputs(self, outputs: list) -> "NNSmithProgram":
        return NNSmithProgram(self.seed, self.ir, list(outputs), self.input_specs)


def _weight_seed(seed) -> int:
    return (hash(("nnsmith-weights", int(seed))) & 0x7FFFFFFF) if not isinstance(seed, int) else (seed * 7919 + 17) & 0x7FFFFFFF


class NNSmithModule(nn.Module):
    def __init__(self, ir, outputs):
        super().__init__()
        from nnsmith.abstract.op import Input
        from nnsmith.materialize.torch.forward import forward_fn

        self.mlist = nn.ModuleList()
        self.instructions = []
        needed = _needed_insts(ir, outputs)
        for inst in ir.insts:
            if isinstance(inst.iexpr.op, Input) or id(inst) not in needed:
                continue
            fn = forward_fn(inst.iexpr.op)
            if isinstance(fn, nn.Module):
                self.mlist.append(fn)
            self.instructions.append((fn, list(inst.iexpr.args), list(inst.retvals())))
        self.input_keys = list(ir.input_var())
        self.output_keys = list(outputs)

    def forward(self, *args):
        values = dict(zip(self.input_keys, args))
        for fn, ins, outs in self.instructions:
            result = fn(*[values[k] for k in ins])
            if not isinstance(result, (list, tuple)):
                result = [result]
            for k, v in zip(outs, result):
                values[k] = v
        return tuple(values[k] for k in self.output_keys)


def _needed_insts(ir, outputs) -> set:
    producer = {}
    for inst in ir.insts:
        for rv in inst.retvals():
            producer[rv] = inst
    needed, stack = set(), list(outputs)
    while stack:
        inst = producer.get(stack.pop())
        if inst is None or id(inst) in needed:
            continue
        needed.add(id(inst))
        stack.extend(inst.iexpr.args)
    return needed


def generate(seed: int, max_nodes: int = 10) -> NNSmithProgram:
    import z3

    from nnsmith.graph_gen import model_gen

    ops = opset()
    z3.z3._main_ctx = None  # a fresh z3 context: the same seed gives the same program
    random.seed(seed)
    r = random.Random(f"nnsmith-outputs:{seed}")
    gen = model_gen(opset=ops, method="symbolic-cinit", seed=seed,
                    max_nodes=r.randint(3, max_nodes), timeout_ms=60000,
                    max_elem_per_tensor=2 ** 12, dtype_choices=DTYPES)
    ir = gen.make_concrete()
    outputs = list(ir.leaf_var())
    # sometimes an intermediate that is also consumed is returned too
    consumed = [v for inst in ir.insts for v in inst.retvals() if v not in outputs
                and v not in ir.input_var()]
    if consumed and r.random() < 0.5:
        outputs.append(r.choice(consumed))
    specs = [(list(ir.vars[k].shape), ir.vars[k].dtype.torch()) for k in ir.input_var()]
    return NNSmithProgram(seed, ir, outputs, specs)
