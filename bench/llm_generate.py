"""Text generation beside OpenVINO GenAI: the same random weights, f32, int8 and int4.

A decoder of Qwen2.5-0.5B's shape (transformers' Qwen2, 24 layers, hidden 896, vocabulary
151,936, tied head; random weights, seeded) is saved once as a Hugging Face folder, then for each
weight format:

  pt2ov C++        examples/export_llm.py (the program with its static cache; int8/int4 by NNCF's
                   compress_weights: INT8_ASYM, INT4_ASYM groups of 128 with the embedding and
                   head int8), run by `build/pt2ov generate` (int8/int4 with --compressed-weights;
                   its default --int64-input-limit, 2^24)
  pt2ov Python     the same program through pt2ov.Generator.load (the same options)
  GenAI            optimum-intel's export of the same folder (`optimum-cli export openvino
                   --weight-format fp32|int8|int4`, its defaults: asymmetric, groups of 128) run by
                   openvino_genai.LLMPipeline, twice: as shipped (the CPU plugin's defaults,
                   which quantize activations and the KV cache of compressed models to 8 bits on
                   the fly), and at pt2ov's precision (f32 inference, no dynamic quantization, an
                   f32 KV cache)
  eager            the exported program's module in PyTorch eager (f32 only: eager decompresses
                   NNCF's weights at every call)

each in a fresh process: a 128-token prompt (token ids, the same for all), 128 new tokens,
greedy, end of sequence ignored. Measured: load (pt2ov: the archive read, converted, compiled and
the generator's first-inference warm-up; GenAI: LLMPipeline's construction; eager: torch.export.load),
time to first token (prompt in, first token chosen), ms per later token (mean), peak RSS of the
process (ru_maxrss). Every side runs --rounds times (3), in turn, the order reversed every other
round; a row is the run of median ms per token. The peer runs in a venv of its
own (optimum-intel 2.2.0 needs transformers < 5.6): build/llm-peer-venv, made from
requirements-llm-peer.txt by `make bench-llm`.

Then, in one process (--pairs N, 8; 0 skips it): pt2ov Python, GenAI at pt2ov's precision and a
second GenAI pipeline on the same export (the control) loaded side by side in the peer's venv
(one OpenVINO library: both pin 2026.4.1, which the script checks), generating in turn N times
each, the order changing every round. Fresh processes run minutes apart, and on a shared 2-core
VM the memory bandwidth a decode token needs moves by 10-30 % over minutes (seen on both
machines here); a round runs within seconds, so the ratio within each round is far steadier
than the ratio of two medians. The row gives the median of the rounds' ratios, pt2ov's to
GenAI's and the control's to GenAI's: two equal sides in one process are not equal to the
measurement (each packs its weights into other memory), and the control says by how much.
Python's per-token time is C++'s within 1 % (the rows above).

    .venv/bin/python bench/llm_generate.py [--weights f32,int8,int4] [--size qwen2.5-0.5b]
                                           [--prompt 128] [--new 128] [--rounds 3] [--pairs 8]
                                           [--json bench/results-llm.json]

A quiet machine only (the load average goes with the figures).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import resource
import subprocess
import sys
import textwrap
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
PT2OV = ROOT / "build" / "pt2ov"


def run_measured(command: list[str], env: dict | None = None, timeout: int = 3600) -> dict:
    """Runs one side in a fresh process (which prints one JSON object last, its own peak RSS in
    it) and returns that object, or {"error": ...}."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return {"error": f"timed out after {timeout} s"}
    if proc.returncode != 0:
        return {"error": (err.strip().splitlines() or ["?"])[-1][:200]}
    result = json.loads(out.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - start
    return result


def peak_rss_of_children() -> int:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024


def side(args) -> dict:
    """One side, in this process (a fresh one): measures and prints one JSON object."""
    ids = [int(t) for t in args.prompt_ids.split(",")]
    new = args.new
    if args.side == "pt2ov-cpp":
        command = [str(PT2OV), "generate", args.model, "--prompt-ids", args.prompt_ids, "--max-new-tokens", str(new),
                   "--json"] + (["--compressed-weights"] if args.compressed else [])
        proc = subprocess.run(command, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr.strip())
        out = json.loads(proc.stdout)
        return {"load_ms": out["load_ms"], "ttft_ms": out["time_to_first_token_ms"], "tpot_ms": out["ms_per_token"],
                "tokens": out["tokens"], "peak_rss": peak_rss_of_children()}
    if args.side == "pt2ov-python":
        sys.path.insert(0, str(ROOT / "build" / "python"))
        import pt2ov

        start = time.perf_counter()
        generator = pt2ov.Generator.load(args.model, compressed_weights=args.compressed)
        load_ms = (time.perf_counter() - start) * 1e3
        result = generator.generate(ids, max_new_tokens=new)
        return {"load_ms": load_ms, "ttft_ms": result.time_to_first_token_ms, "tpot_ms": result.ms_per_token, "tokens": result.tokens,
                "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    if args.side == "eager":
        import numpy as np  # noqa: F401
        import torch

        sys.path.insert(0, str(ROOT / "examples"))
        import make_llm  # noqa: F401
        import torch.ao.quantization.fx._decomposed  # noqa: F401

        start = time.perf_counter()
        module = torch.export.load(args.model).module()
        load_ms = (time.perf_counter() - start) * 1e3
        torch.set_num_threads(os.cpu_count() or 1)
        tokens, times = [], []
        with torch.inference_mode():
            start = time.perf_counter()
            logits = module(input_ids=torch.tensor([ids]), cache_position=torch.arange(len(ids)))
            position = len(ids)
            for step in range(new):
                token = int(torch.argmax(logits[0, -1]))
                tokens.append(token)
                times.append(time.perf_counter() - start)
                if step + 1 == new:
                    break
                start = time.perf_counter()
                logits = module(input_ids=torch.tensor([[token]]), cache_position=torch.tensor([position]))
                position += 1
        return {"load_ms": load_ms, "ttft_ms": times[0] * 1e3, "tpot_ms": sum(times[1:]) / max(len(times) - 1, 1) * 1e3, "tokens": tokens,
                "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    raise SystemExit(f"unknown side {args.side}")


# Runs in the peer's venv: OpenVINO GenAI's LLMPipeline on optimum-intel's export.
GENAI_SIDE = textwrap.dedent("""
    import json, resource, sys, time
    import numpy as np
    import openvino as ov
    import openvino_genai
    folder, prompt, new, same_precision = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
    properties = {}
    if same_precision:
        properties = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0",
                      "KV_CACHE_PRECISION": "f32"}
    start = time.perf_counter()
    pipe = openvino_genai.LLMPipeline(folder, "CPU", **properties)
    load_ms = (time.perf_counter() - start) * 1e3
    config = openvino_genai.GenerationConfig()
    config.max_new_tokens = new
    config.min_new_tokens = new
    config.ignore_eos = True
    config.do_sample = False
    ids = np.array([[int(t) for t in prompt.split(",")]], dtype=np.int64)
    inputs = openvino_genai.TokenizedInputs(ov.Tensor(ids), ov.Tensor(np.ones_like(ids)))
    result = pipe.generate(inputs, config)
    metrics = result.perf_metrics
    tokens = [int(t) for t in result.tokens[0]]
    print(json.dumps({"load_ms": load_ms, "ttft_ms": metrics.get_ttft().mean, "tpot_ms": metrics.get_tpot().mean, "tokens": tokens,
                      "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
""")

# Runs in the peer's venv with pt2ov's module on the path: pt2ov.Generator and GenAI's
# LLMPipeline at pt2ov's precision in one process, generating in turn.
PAIRED_SIDES = textwrap.dedent("""
    import itertools, json, statistics, sys
    import numpy as np
    import openvino as ov
    import openvino_genai
    import pt2ov
    program, folder, prompt, new, pairs, compressed = (sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]),
                                                       int(sys.argv[5]), sys.argv[6] == "1")
    # One OpenVINO library serves both (the first loaded): they must be one release.
    if not ov.get_version().startswith(pt2ov.openvino_version().split("-")[0]):
        raise SystemExit(f"the peer's OpenVINO {ov.get_version()} is not pt2ov's {pt2ov.openvino_version()}")
    ids = [int(t) for t in prompt.split(",")]

    def at_pt2ovs_precision():
        return openvino_genai.LLMPipeline(folder, "CPU", INFERENCE_PRECISION_HINT="f32",
                                          DYNAMIC_QUANTIZATION_GROUP_SIZE="0", KV_CACHE_PRECISION="f32")

    pipe = at_pt2ovs_precision()
    config = openvino_genai.GenerationConfig()
    config.max_new_tokens = new
    config.min_new_tokens = new
    config.ignore_eos = True
    config.do_sample = False
    tensor = np.array([ids], dtype=np.int64)
    inputs = openvino_genai.TokenizedInputs(ov.Tensor(tensor), ov.Tensor(np.ones_like(tensor)))
    generator = pt2ov.Generator.load(program, compressed_weights=compressed)

    def generating_with(pipeline):
        def generate():
            result = pipeline.generate(inputs, config)
            return result.perf_metrics.get_tpot().mean, [int(t) for t in result.tokens[0]]
        return generate

    def ours():
        generator.reset()
        result = generator.generate(ids, max_new_tokens=new)
        return result.ms_per_token, list(result.tokens)

    # The control: a second pipeline on the same export. Its ratio to the first is what the
    # measurement itself makes of two equal sides (their weights packed into other memory).
    sides = {"pt2ov": ours, "genai": generating_with(pipe), "control": generating_with(at_pt2ovs_precision())}
    for run in sides.values():
        run()
    orders = list(itertools.permutations(sides))
    runs = []
    for p in range(pairs):
        got = {name: sides[name]() for name in orders[p % len(orders)]}
        runs.append({"pt2ov_ms": got["pt2ov"][0], "genai_ms": got["genai"][0], "control_ms": got["control"][0],
                     "same_tokens": got["pt2ov"][1] == got["genai"][1] == got["control"][1]})
        print(f"round {p + 1}: pt2ov {runs[-1]['pt2ov_ms']:.2f}, GenAI {runs[-1]['genai_ms']:.2f}, GenAI again "
              f"{runs[-1]['control_ms']:.2f} ms a token", file=sys.stderr, flush=True)
    ratios = [r["pt2ov_ms"] / r["genai_ms"] for r in runs]
    control_ratios = [r["control_ms"] / r["genai_ms"] for r in runs]
    print(json.dumps({"pt2ov_ms": statistics.median(r["pt2ov_ms"] for r in runs),
                      "genai_ms": statistics.median(r["genai_ms"] for r in runs), "ratio": statistics.median(ratios),
                      "ratios": ratios, "control_ratio": statistics.median(control_ratios), "control_ratios": control_ratios,
                      "same_tokens": all(r["same_tokens"] for r in runs), "pairs": runs}))
""")


# Runs in the peer's venv: optimum-intel's export of the Hugging Face folder.
def optimum_export(peer_python: pathlib.Path, model: pathlib.Path, weights: str, out: pathlib.Path) -> None:
    if (out / "openvino_model.xml").exists():
        return
    fmt = {"f32": "fp32", "int8": "int8", "int4": "int4"}[weights]
    command = [str(peer_python), "-m", "optimum.commands.optimum_cli", "export", "openvino", "--model", str(model),
               "--task", "text-generation-with-past", "--weight-format", fmt]
    if weights == "int4":
        command += ["--group-size", "128", "--ratio", "1.0"]
    subprocess.run(command + [str(out)], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weights", default="f32,int8,int4")
    parser.add_argument("--family", default="qwen2")
    parser.add_argument("--size", default="qwen2.5-0.5b")
    parser.add_argument("--prompt", type=int, default=128)
    parser.add_argument("--new", type=int, default=128)
    parser.add_argument("--work", default=str(ROOT / "build" / "bench-llm"))
    parser.add_argument("--peer-venv", default=str(ROOT / "build" / "llm-peer-venv"))
    parser.add_argument("--json", default=str(HERE / "results-llm.json"))
    parser.add_argument("--sides", default="pt2ov-cpp,pt2ov-python,genai,genai-same-precision,eager")
    parser.add_argument("--rounds", type=int, default=3,
                        help="runs of every side, in turn (the order reversed every other round); each row is the "
                             "run of median ms per token, the others kept in the JSON (per-token times move by "
                             "several %% between runs on a small machine)")
    parser.add_argument("--pairs", type=int, default=8,
                        help="then pt2ov Python, GenAI at pt2ov's precision and a second GenAI pipeline (the control) in "
                             "one process, generating in turn this many times each; ratios are medians of the rounds' "
                             "(0: skip)")
    parser.add_argument("--prepare-only", action="store_true",
                        help="make the programs and the peer's exports, measure nothing (exports need no quiet machine)")
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--prompt-ids", help=argparse.SUPPRESS)
    parser.add_argument("--compressed", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        print(json.dumps(side(args)))
        return 0

    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    peer_python = pathlib.Path(args.peer_venv) / "bin" / "python"
    cache = args.prompt + args.new + 16
    hf = work / f"hf-{args.family}-{args.size}"
    if not (hf / "config.json").exists():
        # The random model and its tokenizer, as a Hugging Face folder both exporters read.
        subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
            import sys; sys.path.insert(0, {str(ROOT / 'examples')!r})
            import export_llm
            model = export_llm.make_model({args.family!r}, {args.size!r}, seed=0, max_cache_len={cache})
            model.save_pretrained({str(hf)!r})
            export_llm.train_tokenizer(model.config.vocab_size).save_pretrained({str(hf)!r})
        """)], check=True)
    import random
    rng = random.Random(2612)
    vocab = json.loads((hf / "config.json").read_text())["vocab_size"]
    prompt_ids = ",".join(str(rng.randrange(2, vocab)) for _ in range(args.prompt))
    sides = args.sides.split(",")
    results = {}
    for weights in args.weights.split(","):
        program_dir = work / f"pt2ov-{args.family}-{args.size}-{weights}"
        if not (program_dir / "model.pt2").exists():
            subprocess.run([sys.executable, str(ROOT / "examples" / "export_llm.py"), "--model", str(hf), "--weights", weights,
                            "--max-cache-len", str(cache), "--out", str(program_dir)], check=True)
        compressed = weights in ("int8", "int4")
        if args.prepare_only:
            if peer_python.exists():
                optimum_export(peer_python, hf, weights, work / f"optimum-{args.family}-{args.size}-{weights}")
            continue
        runs = {which: [] for which in sides}
        for round_ in range(args.rounds):
            for which in (sides if round_ % 2 == 0 else list(reversed(sides))):
                if which == "eager" and weights != "f32":
                    continue
                if which.startswith("genai"):
                    if not peer_python.exists():
                        runs[which].append({"error": f"no peer venv at {args.peer_venv} (make bench-llm makes it)"})
                        continue
                    ov_dir = work / f"optimum-{args.family}-{args.size}-{weights}"
                    optimum_export(peer_python, hf, weights, ov_dir)
                    run = run_measured([str(peer_python), "-c", GENAI_SIDE, str(ov_dir), prompt_ids, str(args.new),
                                        "1" if which == "genai-same-precision" else "0"])
                else:
                    command = [sys.executable, __file__, "--side", which, "--model", str(program_dir / "model.pt2"),
                               "--prompt-ids", prompt_ids, "--new", str(args.new)] + (["--compressed"] if compressed else [])
                    run = run_measured(command, env={"PYTHONPATH": str(ROOT / "build" / "python")})
                runs[which].append(run)
                print(weights, which, round_ + 1, {k: v for k, v in run.items() if k != "tokens"}, file=sys.stderr, flush=True)
        rows = {}
        for which, made in runs.items():
            if not made:
                continue
            good = sorted((r for r in made if "error" not in r), key=lambda r: r["tpot_ms"])
            if not good:
                rows[which] = made[0]
                continue
            rows[which] = dict(good[(len(good) - 1) // 2])
            rows[which]["tpot_runs_ms"] = [r["tpot_ms"] for r in made if "error" not in r]
            rows[which]["ttft_runs_ms"] = [r["ttft_ms"] for r in made if "error" not in r]
        if args.pairs > 0 and peer_python.exists():
            ov_dir = work / f"optimum-{args.family}-{args.size}-{weights}"
            optimum_export(peer_python, hf, weights, ov_dir)
            rows["paired"] = run_measured([str(peer_python), "-c", PAIRED_SIDES, str(program_dir / "model.pt2"), str(ov_dir),
                                           prompt_ids, str(args.new), str(args.pairs), "1" if compressed else "0"],
                                          env={"PYTHONPATH": str(ROOT / "build" / "python")})
            print(weights, "paired", {k: v for k, v in rows["paired"].items() if k != "pairs"}, file=sys.stderr, flush=True)
        results[weights] = rows
    if args.prepare_only:
        return 0
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"{args.family} of {args.size}'s shape, random weights; prompt {args.prompt} tokens, {args.new} new, greedy; "
          f"{cpu}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"each row: the median of {args.rounds} run(s) by ms per token, the sides run in turn")
    print("| weights | side | load (ms) | first token (ms) | per token (ms) | per token, every run | peak RSS (MiB) | tokens as pt2ov C++ |")
    print("|---|---|---:|---:|---:|---|---:|---|")
    for weights, rows in results.items():
        reference = rows.get("pt2ov-cpp", {}).get("tokens")
        for which, r in rows.items():
            if which == "paired":
                continue
            if "error" in r:
                print(f"| {weights} | {which} | error: {r['error']} | | | | | |")
                continue
            same = "-" if reference is None or which == "pt2ov-cpp" else (
                "all" if r["tokens"] == reference else
                f"first {next((i for i, (a, b) in enumerate(zip(r['tokens'], reference)) if a != b), len(reference))}")
            every = " ".join(f"{t:.2f}" for t in r["tpot_runs_ms"])
            print(f"| {weights} | {which} | {r['load_ms']:.0f} | {r['ttft_ms']:.1f} | {r['tpot_ms']:.2f} | {every} | "
                  f"{r['peak_rss'] / 2**20:.0f} | {same} |")
    paired = {weights: rows["paired"] for weights, rows in results.items() if "paired" in rows}
    if paired:
        print(f"\nin one process: pt2ov Python, GenAI at pt2ov's precision and GenAI again (a second pipeline on the same "
              f"export, the control), {args.pairs} generations each in turn")
        print("| weights | pt2ov (ms a token) | GenAI (ms a token) | pt2ov / GenAI, median | every round | GenAI again / GenAI, median | every round | same tokens |")
        print("|---|---:|---:|---:|---|---:|---|---|")
        for weights, r in paired.items():
            if "error" in r:
                print(f"| {weights} | error: {r['error']} | | | | | | |")
                continue
            every = " ".join(f"{x:.3f}" for x in r["ratios"])
            every_control = " ".join(f"{x:.3f}" for x in r["control_ratios"])
            print(f"| {weights} | {r['pt2ov_ms']:.2f} | {r['genai_ms']:.2f} | {r['ratio']:.3f} | {every} | "
                  f"{r['control_ratio']:.3f} | {every_control} | {'all' if r['same_tokens'] else 'no'} |")
    pathlib.Path(args.json).write_text(json.dumps({
        "model": {"family": args.family, "size": args.size, "prompt": args.prompt, "new": args.new, "rounds": args.rounds,
                  "pairs": args.pairs},
        "machine": {"cpu": cpu, "cores": os.cpu_count(), "loadavg": os.getloadavg(), "python": platform.python_version()},
        "results": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
