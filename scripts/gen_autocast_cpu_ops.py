#!/usr/bin/env python3
"""Writes src/graph/autocast_cpu_ops.inc: what CPU autocast does to each aten operator of the
installed torch, for inlining `wrap_with_autocast` regions (src/graph/scoping_regions.cpp).

Run it by hand with the pinned torch whenever requirements.txt changes torch, and commit the
result:

    .venv/bin/python scripts/gen_autocast_cpu_ops.py

Two tables:
- every operator with an AutocastCPU kernel, with its cast policy. The dispatcher says which
  operators have such a kernel; it does not say the policy (every CPU kernel is registered from
  one line of autocast_mode.cpp), so the lower-precision and promote lists are written here and
  every other operator with a kernel takes the fp32 policy. The lists are checked two ways before
  anything is written: each listed operator must have an AutocastCPU kernel, and every operator
  of torch's own CPU autocast test lists (torch/testing/_internal/autocast_test_lists.py) is run
  under autocast with its test arguments and must give the dtype its policy here predicts.
- every operator with a CompositeImplicitAutograd kernel and no AutocastCPU kernel: such an
  operator runs as the operators it is made of, and under autocast those may be cast (einsum's
  bmm), so inside an enabled region the inliner refuses it unless it is known to reach no
  operator with a cast policy.
"""

import pathlib
import sys
import types
import unittest

import torch

# torch's test helpers import expecttest, a test-only package the pinned requirements leave out;
# the autocast test lists use nothing of it.
sys.modules.setdefault("expecttest", types.SimpleNamespace(TestCase=unittest.TestCase))
from torch.testing._internal.autocast_test_lists import AutocastCPUTestLists  # noqa: E402

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "src" / "graph" / "autocast_cpu_ops.inc"

# autocast_mode.cpp's CPU lower_precision_fp list: inputs cast to the region's dtype.
LOWER_PRECISION = {
    "aten::_addmm_activation", "aten::_convolution.deprecated", "aten::_native_multi_head_attention",
    "aten::addbmm", "aten::addmm", "aten::baddbmm", "aten::bmm", "aten::conv1d", "aten::conv1d.padding",
    "aten::conv2d", "aten::conv2d.padding", "aten::conv3d", "aten::conv3d.padding", "aten::conv_tbc",
    "aten::conv_transpose1d", "aten::conv_transpose2d.input", "aten::conv_transpose3d.input",
    "aten::linalg_vecdot", "aten::linear", "aten::matmul", "aten::mkldnn_rnn_layer", "aten::mm",
    "aten::prelu", "aten::scaled_dot_product_attention",
}
# Its promote list: inputs cast to the widest floating dtype among them.
PROMOTE = {"aten::cat", "aten::stack", "aten::index_copy"}


def target_of(op_name: str) -> str:
    """aten::conv2d.padding → aten.conv2d.padding; no overload is 'default', as the archive spells it."""
    name, _, overload = op_name.partition(".")
    return name.replace("::", ".") + "." + (overload or "default")


def policy_of(op_name: str) -> str:
    if op_name in LOWER_PRECISION:
        return "LowerPrecision"
    return "Promote" if op_name in PROMOTE else "Float32"


def check_against_torch(with_kernel: set) -> None:
    for listed in sorted(LOWER_PRECISION | PROMOTE):
        if listed not in with_kernel:
            sys.exit(f"gen_autocast_cpu_ops: {listed} is listed but has no AutocastCPU kernel")
    lists = AutocastCPUTestLists("cpu")
    expected = {"LowerPrecision": torch.bfloat16, "Float32": torch.float32, "Promote": torch.float32}
    # Entries are (op, args) or (op, args, kwargs); the promote list's are (op, bf16 args, fp16 args).
    def entries(cases, namespace, with_kwargs=True):
        return [(e[0], e[1], e[2] if with_kwargs and len(e) > 2 else {}, getattr(namespace, e[0])) for e in cases]

    cases = entries(lists.torch_16 + lists.torch_fp32, torch)
    cases += entries(lists.nn_16 + lists.nn_fp32, torch._C._nn)
    cases += entries(lists.torch_need_autocast_promote, torch, with_kwargs=False)
    for op, args, kwargs, fn in cases:
        overloads = [name for name in with_kernel if name == f"aten::{op}" or name.startswith(f"aten::{op}.")]
        if not overloads:
            sys.exit(f"gen_autocast_cpu_ops: torch's autocast test lists {op}, which has no AutocastCPU kernel")
        policies = {policy_of(name) for name in overloads}
        if len(policies) != 1:
            sys.exit(f"gen_autocast_cpu_ops: overloads of {op} have different policies here: {sorted(policies)}")
        policy = policies.pop()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            result = fn(*args, **kwargs)
        result = result[0] if isinstance(result, (tuple, list)) else result
        if result.dtype != expected[policy]:
            sys.exit(f"gen_autocast_cpu_ops: {op} under CPU autocast gives {result.dtype}, "
                     f"but its policy here ({policy}) gives {expected[policy]}")


def main() -> None:
    names = sorted(n for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::"))
    with_kernel = {n for n in names if torch._C._dispatch_has_kernel_for_dispatch_key(n, "AutocastCPU")}
    composite = [n for n in names
                 if n not in with_kernel and torch._C._dispatch_has_kernel_for_dispatch_key(n, "CompositeImplicitAutograd")]
    check_against_torch(with_kernel)
    lines = [
        f"// Generated by scripts/gen_autocast_cpu_ops.py from torch {torch.__version__}; do not edit.",
        "// Operators with an AutocastCPU kernel and their cast policy.",
        "constexpr AutocastCpuOp kAutocastCpuOps[] = {",
    ]
    lines += [f'    {{"{target_of(n)}", CastPolicy::{policy_of(n)}}},' for n in sorted(with_kernel, key=target_of)]
    lines += [
        "};",
        "// Operators run as the operators they are made of (CompositeImplicitAutograd), with no",
        "// AutocastCPU kernel of their own.",
        "constexpr std::string_view kCompositeImplicitOps[] = {",
    ]
    lines += [f'    "{target_of(n)}",' for n in sorted(composite, key=target_of)]
    lines += ["};", ""]
    OUTPUT.write_text("\n".join(lines))
    print(f"wrote {OUTPUT}: {len(with_kernel)} autocast operators, {len(composite)} composite ones")


if __name__ == "__main__":
    main()
