"""Damaged archives that execute: graph-level mutations of small .pt2 programs, each loaded and
run by the pt2ov command line on the CPU kernels and on the default placement.

The byte-level fuzz targets (fuzz_archive, fuzz_program_json) stop before execution; this one
changes one thing a hand-edited or corrupted model.json could hold (an argument's value, a
tensor argument swapped for another value, a value's recorded sizes or dtype, a renamed input)
and runs the result. Every outcome must be a success or one clear refusal (exit 2): an internal
error (exit 3), a signal (heap corruption, SIGSEGV), a sanitizer report or a hang is a finding.

    python -m fuzz.mutate_archives --n 3000 --seed 0 [--bin build/pt2ov] [--workers 2]

Findings are kept in build/mutations/findings/ (the archive, its inputs, what happened), and
`--replay FILE.pt2` runs one again.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# ---- The programs mutated ------------------------------------------------------------------


def make_seed_programs(folder: Path) -> list[tuple[Path, Path]]:
    """Exports a few small programs that reach many CPU kernels (recurrent, convolution,
    normalization, indexing, reductions) and saves each with its inputs."""
    import numpy as np
    import torch
    from torch import nn

    class Recurrent(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(4, 6, batch_first=True)
            self.gru = nn.GRU(6, 5, batch_first=True)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.gru(y)[0]

    class Convolutional(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.norm = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.deconv = nn.ConvTranspose2d(4, 2, 2, stride=2)

        def forward(self, x):
            y = self.pool(torch.relu(self.norm(self.conv(x))))
            return nn.functional.interpolate(self.deconv(y), scale_factor=0.5, mode="bilinear"), y.mean((2, 3))

    class Indexing(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4)
            self.register_buffer("idx", torch.tensor([2, 0, 1]))

        def forward(self, tokens, x):
            e = self.emb(tokens)
            g = torch.gather(x, 1, self.idx.expand(x.shape[0], 3))
            s = torch.zeros(4, 5).index_add(0, self.idx, x[:3])
            c = torch.cumsum(x, 1)
            return e.sum(1), g, s, torch.topk(c, 2, dim=1)[0], torch.sort(x, 1)[1]

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(8)
            self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
            self.gn = nn.GroupNorm(2, 4)

        def forward(self, x, img):
            y = self.ln(x)
            a, _ = self.attn(y, y, y)
            return torch.softmax(a, -1), self.gn(img), torch.nn.functional.pad(img, (1, 2)).amax(-1)

    class Shapes(nn.Module):
        def forward(self, x, y):
            z = torch.cat([x, y], 0).reshape(2, 3, 4).permute(2, 0, 1)
            w = torch.stack([x, y]).flip(0).repeat(1, 2, 1)
            return z.contiguous(), w.narrow(2, 1, 2), torch.where(x > 0, x, y).cumprod(1), torch.tril(x @ y.t())

    g = torch.Generator().manual_seed(0)
    programs = [
        ("recurrent", Recurrent(), (torch.randn(2, 5, 4, generator=g),)),
        ("convolutional", Convolutional().eval(), (torch.randn(1, 3, 8, 8, generator=g),)),
        ("indexing", Indexing(), (torch.tensor([[1, 2], [3, 9]]), torch.randn(4, 5, generator=g))),
        ("attention", Attention().eval(), (torch.randn(2, 3, 8, generator=g), torch.randn(1, 4, 3, 5, generator=g))),
        ("shapes", Shapes(), (torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g))),
    ]
    made = []
    for name, module, inputs in programs:
        pt2, npz = folder / f"{name}.pt2", folder / f"{name}_inputs.npz"
        if not pt2.exists():
            with torch.no_grad():
                exported = torch.export.export(module, inputs)
            torch.export.save(exported, str(pt2))
            np.savez(npz, *[t.numpy() for t in inputs])
        made.append((pt2, npz))
    return made


# ---- Mutations of model.json -----------------------------------------------------------------

ODD_INTS = [0, 1, -1, 2, 3, 7, -5, 64, 1 << 20, -(1 << 31), (1 << 40)]


def _model_json_name(archive: zipfile.ZipFile) -> str:
    return next(n for n in archive.namelist() if n.endswith("models/model.json"))


def _tensor_names(arg: dict) -> list[str]:
    if "as_tensor" in arg:
        return [arg["as_tensor"]["name"]]
    if "as_tensors" in arg:
        return [t["name"] for t in arg["as_tensors"]]
    if "as_optional_tensors" in arg:
        return [t["as_tensor"]["name"] for t in arg["as_optional_tensors"] if "as_tensor" in t]
    return []


def mutate(program: dict, rng: random.Random) -> str:
    """Changes one thing of the program in place; returns what it did."""
    graph = program["graph_module"]["graph"]
    nodes = graph["nodes"]
    values = graph["tensor_values"]
    kinds = ["int", "ints", "swap", "other_tensor", "sizes", "dtype", "rename_input", "float", "bool", "drop"]
    for _ in range(50):
        kind = rng.choice(kinds)
        node = rng.choice(nodes) if nodes else None
        if kind == "int" and node:
            args = [a for a in node["inputs"] if "as_int" in a["arg"]]
            if args:
                a = rng.choice(args)
                new = rng.choice(ODD_INTS + [True, False])
                a["arg"] = {"as_bool": new} if isinstance(new, bool) else {"as_int": new}
                return f"int {node['name']}.{a['name']} = {new}"
        elif kind == "ints" and node:
            args = [a for a in node["inputs"] if "as_ints" in a["arg"]]
            if args:
                a = rng.choice(args)
                items = a["arg"]["as_ints"]
                how = rng.choice(["set", "drop", "add", "bool"])
                if how == "set" and items:
                    items[rng.randrange(len(items))] = rng.choice(ODD_INTS)
                elif how == "drop" and items:
                    items.pop(rng.randrange(len(items)))
                elif how == "add":
                    items.insert(rng.randrange(len(items) + 1), rng.choice(ODD_INTS))
                else:
                    a["arg"] = {"as_bool": True}
                return f"ints {node['name']}.{a['name']} {how} -> {a['arg']}"
        elif kind == "swap" and node:
            args = [a for a in node["inputs"] if _tensor_names(a["arg"]) or "as_int" in a["arg"] or "as_ints" in a["arg"]]
            if len(args) >= 2:
                a, b = rng.sample(args, 2)
                a["arg"], b["arg"] = b["arg"], a["arg"]
                return f"swap-arg {node['name']}: {a['name']} <-> {b['name']}"
        elif kind == "other_tensor" and node:
            index = nodes.index(node)
            defined = [i["as_tensor"]["name"] for i in graph["inputs"] if "as_tensor" in i]
            for earlier in nodes[:index]:
                for out in earlier["outputs"]:
                    if "as_tensor" in out:
                        defined.append(out["as_tensor"]["name"])
            args = [a for a in node["inputs"] if "as_tensor" in a["arg"]]
            if args and defined:
                a = rng.choice(args)
                new = rng.choice(defined)
                a["arg"] = {"as_tensor": {"name": new}}
                return f"other-tensor {node['name']}.{a['name']} = {new}"
        elif kind == "sizes" and values:
            name = rng.choice(sorted(values))
            sizes = values[name]["sizes"]
            how = rng.choice(["set", "drop", "add"])
            if how == "set" and sizes:
                sizes[rng.randrange(len(sizes))] = {"as_int": rng.choice([0, 1, 2, 3, 5, 9])}
            elif how == "drop" and sizes:
                sizes.pop(rng.randrange(len(sizes)))
                values[name]["strides"] = values[name]["strides"][: len(sizes)]
            else:
                sizes.append({"as_int": rng.choice([1, 2, 3])})
                values[name]["strides"].append({"as_int": 1})
            return f"sizes {name} {how} -> {[s.get('as_int', s) for s in sizes]}"
        elif kind == "dtype" and values:
            name = rng.choice(sorted(values))
            new = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 12, 13])
            values[name]["dtype"] = new
            return f"dtype {name} = {new}"
        elif kind == "rename_input":
            specs = program["graph_module"]["signature"]["input_specs"]
            names = list(values)
            if specs and names:
                spec = rng.choice(specs)
                body = next(iter(spec.values()))
                new = rng.choice(names)
                where = rng.choice(["graph", "signature", "both"])
                arg = body["arg"]
                old = arg["as_tensor"]["name"] if "as_tensor" in arg else arg.get("name")
                if old is None:
                    continue
                if where in ("signature", "both"):
                    if "as_tensor" in arg:
                        arg["as_tensor"]["name"] = new
                    else:
                        arg["name"] = new
                if where in ("graph", "both"):
                    for i in graph["inputs"]:
                        if i.get("as_tensor", {}).get("name") == old:
                            i["as_tensor"]["name"] = new
                return f"rename-input {old} -> {new} ({where})"
        elif kind == "float" and node:
            args = [a for a in node["inputs"] if "as_float" in a["arg"]]
            if args:
                a = rng.choice(args)
                new = rng.choice([0.0, -1.0, 1e30, "NaN", "Infinity", "-Infinity", 2.5])
                a["arg"] = {"as_float": new}
                return f"float {node['name']}.{a['name']} = {new}"
        elif kind == "bool" and node:
            args = [a for a in node["inputs"] if "as_bool" in a["arg"]]
            if args:
                a = rng.choice(args)
                a["arg"] = {"as_bool": not a["arg"]["as_bool"]}
                return f"bool {node['name']}.{a['name']} flipped"
        elif kind == "drop" and node and node["inputs"]:
            a = node["inputs"].pop(rng.randrange(len(node["inputs"])))
            return f"drop-arg {node['name']}.{a['name']}"
    return "none"


def write_mutant(source: Path, target: Path, rng: random.Random) -> str:
    with zipfile.ZipFile(source) as archive:
        json_name = _model_json_name(archive)
        program = json.loads(archive.read(json_name))
        what = mutate(program, rng)
        with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as out:
            for item in archive.infolist():
                data = json.dumps(program).encode() if item.filename == json_name else archive.read(item.filename)
                out.writestr(item, data)
    return what


# ---- Running them --------------------------------------------------------------------------


def cpu_ops(pt2: Path) -> list[str]:
    """Every op of the program's nodes: --cpu-op for each keeps the whole program on the kernels."""
    with zipfile.ZipFile(pt2) as archive:
        program = json.loads(archive.read(_model_json_name(archive)))
    ops = set()
    for node in program["graph_module"]["graph"]["nodes"]:
        target = node["target"]
        if target.startswith("torch.ops."):
            ops.add(target[len("torch.ops."):].rsplit(".", 1)[0])
    return sorted(ops)


def run_one(binary: str, pt2: Path, npz: Path, cpu: list[str], timeout: float) -> tuple[str, str]:
    """Runs the program; returns (verdict, detail): ok, refused, or a finding. An op of `cpu`
    without a CPU kernel is left to OpenVINO (the refusal names it) and the run made again."""
    cpu = list(cpu)
    for _ in range(8):
        verdict, detail = _run_once(binary, pt2, npz, cpu, timeout)
        missing = re.findall(r"has no CPU kernel for ([a-z_0-9]+(?:\.[A-Za-z_0-9]+)+)", detail) if verdict == "refused" else []
        dropped = [op for op in cpu if any(m.startswith(op + ".") for m in missing)]
        if not dropped:
            return verdict, detail
        cpu = [op for op in cpu if op not in dropped]
    return verdict, detail


def _run_once(binary: str, pt2: Path, npz: Path, cpu: list[str], timeout: float) -> tuple[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        command = [binary, "run", str(pt2), "--inputs", str(npz), "--outputs", os.path.join(folder, "out.npz")]
        for op in cpu:
            command += ["--cpu-op", op]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "hang", f"no answer in {timeout:.0f} s"
    err = done.stderr.strip()
    if done.returncode == 0:
        return "ok", ""
    if done.returncode == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        if len(lines) != 1:
            return "unclear", err[-2000:]
        return "refused", lines[0]
    if done.returncode == 3:
        return "internal", err[-2000:]
    return f"crash({done.returncode})", err[-2000:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300, help="mutants to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bin", default=str(ROOT / "build" / "pt2ov"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--folder", default=str(ROOT / "build" / "mutations"))
    parser.add_argument("--replay", help="one mutated .pt2 (its program's inputs are found by name)")
    args = parser.parse_args()

    folder = Path(args.folder)
    seeds_folder = folder / "programs"
    seeds_folder.mkdir(parents=True, exist_ok=True)
    programs = make_seed_programs(seeds_folder)
    findings = folder / "findings"
    findings.mkdir(exist_ok=True)

    if args.replay:
        pt2 = Path(args.replay)
        npz = next(n for p, n in programs if pt2.name.startswith(p.stem))
        for placement, cpu in (("cpu kernels", cpu_ops(pt2)), ("default", [])):
            print(placement, *run_one(args.bin, pt2, npz, cpu, args.timeout))
        return 0

    work = folder / "work"
    work.mkdir(exist_ok=True)

    def one(i: int):
        rng = random.Random(args.seed * 1_000_003 + i)
        source, npz = programs[i % len(programs)]
        mutant = work / f"{source.stem}-{args.seed}-{i}.pt2"
        what = write_mutant(source, mutant, rng)
        results = []
        for placement, cpu in (("cpu", cpu_ops(source)), ("default", [])):
            verdict, detail = run_one(args.bin, mutant, npz, cpu, args.timeout)
            results.append((placement, verdict, detail))
        bad = [r for r in results if r[1] not in ("ok", "refused")]
        if bad:
            kept = findings / mutant.name
            shutil.copy(mutant, kept)
            (findings / (mutant.stem + ".txt")).write_text(
                what + "\n" + "\n".join(f"{p}: {v}\n{d}" for p, v, d in bad) + "\n")
        mutant.unlink()
        return what, results

    counts: dict[str, int] = {}
    with ThreadPoolExecutor(args.workers) as pool:
        for i, (what, results) in enumerate(pool.map(one, range(args.n))):
            for placement, verdict, detail in results:
                counts[verdict] = counts.get(verdict, 0) + 1
                if verdict not in ("ok", "refused"):
                    print(f"[{i}] {placement}: {verdict}: {what}\n    {detail.splitlines()[-1] if detail else ''}", flush=True)
    print(json.dumps(counts, sort_keys=True))
    return 1 if any(k not in ("ok", "refused") for k in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
