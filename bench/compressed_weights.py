"""An int4-weight language model: memory and speed of its weights, compressed and not.

A Llama-like decoder (transformers' LlamaForCausalLM, random weights, seeded; 8 layers, hidden
1024, vocabulary 32,000) is compressed by NNCF (`compress_weights`, INT4_ASYM, groups of 128:
the linear layers' weights 4-bit, the embedding and head 8-bit, float16 scales), exported with
torch.export (forward over 32 token ids, no cache) and run, each side in a fresh process:

  pt2ov                  default: each weight decompressed once at load, exactly as eager
                         decompresses it, held as float32 (docs/EXACTNESS.md E9)
  pt2ov compressed       --compressed-weights: the integers stay 4/8-bit in OpenVINO's kernels
  eager                  the NNCF module under torch.inference_mode() (decompresses every call)
  OpenVINO alone         convert_model of the same ExportedProgram, f32 hint
  OpenVINO IR            pt2ov's own OpenVINO model of the program under --compressed-weights,
                         saved as IR and read by OpenVINO alone (its weights mapped from the .bin)

Resident weights = what can hold weights (the process's anonymous resident memory and the
resident pages of the archive's mapping; not the shared libraries' code pages a first call
touches) after load and one call, minus the same before the load (OpenVINO's plugin already
initialized by a small program), over the archive's constant bytes (the compressed size). That
total also holds the activations and the logits (4 MiB at 32 tokens, each time they are made or
copied): --sequence 1 (one token per call, as a decode step) leaves the weights nearly alone.
--mode int4_sym: NNCF's INT4_SYM instead of INT4_ASYM.
Prints a table and writes bench/results-compressed.json.
Run: `make bench-compressed` (quiet machine; the load average goes in the JSON).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
SEQUENCE = 32


def resident_bytes(archive: pathlib.Path | None = None) -> int:
    """What can hold weights: the process's anonymous resident memory, and the resident pages
    of the archive's own mapping (not the pages of shared libraries' code a first call touches)."""
    anonymous = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                anonymous = int(line.split()[1]) * 1024
    mapped, current = 0, ""
    if archive is not None:
        with open("/proc/self/smaps") as f:
            for line in f:
                head = line.split(maxsplit=1)[0]
                if not head.endswith(":"):
                    current = line.strip()
                elif head == "Rss:" and current.endswith(str(archive)):
                    mapped += int(line.split()[1]) * 1024
    return anonymous + mapped


MODES = {"int4_asym": "INT4_ASYM", "int4_sym": "INT4_SYM"}


def make_program(path: pathlib.Path, layers: int, hidden: int, mode: str = "int4_asym", sequence: int = SEQUENCE) -> None:
    import torch
    import nncf

    # transformers imports torchvision, whose CPU ops this torch cannot load: the architectures'
    # models file defines their schemas first.
    sys.path.insert(0, str(ROOT))
    import tests.architectures.models  # noqa: F401
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(2606)
    config = LlamaConfig(vocab_size=32000, hidden_size=hidden, intermediate_size=hidden * 11 // 4, num_hidden_layers=layers,
                         num_attention_heads=hidden // 64, num_key_value_heads=hidden // 64, use_cache=False)
    model = LlamaForCausalLM(config).eval()

    class Logits(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, ids):
            return self.inner(input_ids=ids, use_cache=False).logits

    ids = torch.randint(0, 32000, (1, sequence), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        module = torch.export.export(Logits(model), (ids,)).module()
        compressed = nncf.compress_weights(module, mode=getattr(nncf.CompressWeightsMode, MODES[mode]), group_size=128)
        ep = torch.export.export(compressed, (ids,))
    torch.export.save(ep, path)
    torch.save(ids, path.with_suffix(".ids.pt"))


def side(path: pathlib.Path, which: str, calls: int) -> dict:
    """One side in this (fresh) process: resident bytes added by its load and one call (the
    archive read included: torch.export.load for eager and OpenVINO alone, pt2ov.load for
    pt2ov), and its latency."""
    import gc

    import numpy as np
    import torch
    import torch.ao.quantization.fx._decomposed  # noqa: F401
    import openvino as ov

    ids = torch.load(path.with_suffix(".ids.pt"))
    expected = np.load(path.with_suffix(".expected.npy"))
    # The plugin initialized before the baseline: its code and arenas are not the weights'.
    parameter = ov.opset13.parameter([4], ov.Type.f32)
    warm = ov.Core().compile_model(ov.Model([ov.opset13.relu(parameter)], [parameter]), "CPU")
    warm(np.zeros(4, np.float32))
    gc.collect()
    before = resident_bytes(path.with_suffix(".ir.bin") if which == "openvino IR" else path)
    start = time.perf_counter()
    if which.startswith("pt2ov"):
        import pt2ov

        program = pt2ov.load(str(path), compressed_weights=which == "pt2ov compressed", measure_placement=False)
        call = lambda: program(ids)  # noqa: E731
    elif which == "openvino IR":
        # pt2ov's own OpenVINO model of the program (--compressed-weights), as OpenVINO reads an IR:
        # its weights mapped from the .bin file.
        core = ov.Core()
        model = core.read_model(str(path.with_suffix(".ir.xml")))
        compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                     "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0", "KV_CACHE_PRECISION": "f32"})
        del model
        call = lambda: torch.from_numpy(compiled(ids.numpy())[0])  # noqa: E731
    elif which == "openvino":
        ep = torch.export.load(str(path))
        model = ov.convert_model(ep)
        compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                          "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"})
        del model, ep
        call = lambda: torch.from_numpy(compiled(ids.numpy())[0])  # noqa: E731
    else:
        module = torch.export.load(str(path)).module()

        def call():
            with torch.inference_mode():
                return module(ids)
    out = call()
    load_s = time.perf_counter() - start
    gc.collect()
    resident = resident_bytes(path.with_suffix(".ir.bin") if which == "openvino IR" else path) - before
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    got = (out[0] if isinstance(out, (list, tuple)) else out).numpy()
    return {"resident_bytes": resident, "load_s": load_s, "p50_ms": float(np.median(times) * 1e3),
            "relative_diff": float(np.abs(got.astype(np.float64) - expected).max() / np.abs(expected).max()),
            "exact": bool(np.array_equal(got, expected))}


def prepare(work: pathlib.Path, layers: int, hidden: int, mode: str, sequence: int = SEQUENCE) -> tuple[pathlib.Path, int]:
    """The program (made once, kept in `work`), eager's output and pt2ov's OpenVINO model of it as
    IR; returns the archive's path and its constant bytes (the compressed size)."""
    path = work / (f"llama_{layers}x{hidden}_{mode}.pt2" if sequence == SEQUENCE else f"llama_{layers}x{hidden}_{mode}_s{sequence}.pt2")
    if not path.exists():
        # In a process of its own: NNCF and transformers stay out of the measured ones.
        subprocess.run([sys.executable, "-c", f"import sys, pathlib; sys.path.insert(0, {str(HERE)!r}); "
                        f"import compressed_weights as c; c.make_program(pathlib.Path({str(path)!r}), {layers}, "
                        f"{hidden}, {mode!r}, {sequence})"],
                       check=True)
    import numpy as np
    import torch
    import torch.ao.quantization.fx._decomposed  # noqa: F401

    ep = torch.export.load(str(path))
    if not path.with_suffix(".expected.npy").exists():
        with torch.inference_mode():
            np.save(path.with_suffix(".expected.npy"), ep.module()(torch.load(path.with_suffix(".ids.pt"))).numpy())
    compressed = sum(t.numel() * t.element_size() for t in list(ep.state_dict.values()) + list(ep.constants.values())
                     if isinstance(t, torch.Tensor))
    del ep
    if not path.with_suffix(".ir.xml").exists():
        # pt2ov's OpenVINO model of the program, written by a load with PT2OV_DUMP_OPENVINO: the
        # one step that holds the weights (the largest), for "openvino IR".
        dump = work / f"dump-{path.stem}"
        dump.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-c", f"import pt2ov; pt2ov.load({str(path)!r}, compressed_weights=True, "
                        "measure_placement=False)"], check=True, env={**os.environ, "PT2OV_DUMP_OPENVINO": str(dump)})
        step = max((x for x in dump.glob("step*.xml") if "compiled" not in x.name),
                   key=lambda x: x.with_suffix(".bin").stat().st_size)
        step.replace(path.with_suffix(".ir.xml"))
        step.with_suffix(".bin").replace(path.with_suffix(".ir.bin"))
    return path, compressed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", default=str(ROOT / "build" / "bench-compressed"))
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--mode", choices=sorted(MODES), default="int4_asym")
    parser.add_argument("--sequence", type=int, default=SEQUENCE,
                        help="tokens per call (1: a decode step's activations, next to nothing beside the weights)")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    parser.add_argument("--json", default=str(HERE / "results-compressed.json"))
    args = parser.parse_args()
    if args.side:
        print(json.dumps(side(pathlib.Path(args.path), args.side, args.calls)))
        return 0
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    path, compressed = prepare(work, args.layers, args.hidden, args.mode, args.sequence)
    rows = {}
    for which in ("pt2ov", "pt2ov compressed", "eager", "openvino", "openvino IR"):
        proc = subprocess.run([sys.executable, __file__, "--path", str(path), "--calls", str(args.calls), "--side", which],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            rows[which] = {"error": (proc.stderr.strip().splitlines() or ["?"])[-1][:160]}
        else:
            rows[which] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(which, rows[which], file=sys.stderr, flush=True)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"Llama-like decoder, {args.layers} layers, hidden {args.hidden}, NNCF {MODES[args.mode]} (group 128), "
          f"{args.sequence} tokens; compressed size {compressed / 2**20:.1f} MiB; {cpu}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    print("| side | resident weights (MiB) | / compressed size | load (s) | call p50 (ms) | max diff / max |eager| |")
    print("|---|---:|---:|---:|---:|---|")
    for which, r in rows.items():
        if "error" in r:
            print(f"| {which} | error: {r['error']} | | | | |")
            continue
        diff = "exact" if r["exact"] else f"{r['relative_diff']:.2e}"
        print(f"| {which} | {r['resident_bytes'] / 2**20:.1f} | {r['resident_bytes'] / compressed:.2f}x | "
              f"{r['load_s']:.2f} | {r['p50_ms']:.2f} | {diff} |")
    pathlib.Path(args.json).write_text(json.dumps({
        "model": {"layers": args.layers, "hidden": args.hidden, "mode": args.mode, "sequence": args.sequence,
                  "compressed_bytes": compressed},
        "machine": {"cpu": cpu, "cores": os.cpu_count(), "loadavg": os.getloadavg(), "python": platform.python_version()},
        "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
