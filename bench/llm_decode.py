"""Prefill and per-token decode latency of a static-cache causal LM (examples/make_llm.py):
pt2ov (the Python module and examples/llm_decode.cpp, both program forms) beside PyTorch eager
running the same wrapper with the same static cache, and OpenVINO alone on a stateful model of
the same program (the decomposed program made functional, `openvino.convert_model`, then
OpenVINO's make-stateful transformation: the KV cache as ReadValue/Assign state in the request).

    .venv/bin/python bench/llm_decode.py [--steps 32] [--sequences 5] [--threads 0] [--layers 2]
                                          [--hidden 64] [--json out.json]

Prints a table (median ms; decode is per token) and checks that every side decodes eager's tokens
with logits within E5 of eager's. Timings on a loaded machine are indicative: the load average
is printed with them. Needs transformers (requirements-models.txt) and build/ (make build).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "build" / "python"))
import make_llm  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5  # docs/EXACTNESS.md E5


def greedy(call, prompt: np.ndarray, steps: int, reset) -> tuple[list[int], list[np.ndarray], float, list[float]]:
    """One sequence through `call(input_ids, cache_position) -> logits`: the prompt in one call,
    then `steps` greedy tokens. Returns tokens, logits per call, prefill ms, decode ms per token."""
    reset()
    start = time.perf_counter()
    logits = call(prompt, np.arange(prompt.shape[1], dtype=np.int64))
    prefill_ms = (time.perf_counter() - start) * 1e3
    all_logits = [logits]
    tokens, decode_ms = [], []
    position = prompt.shape[1]
    for _ in range(steps):
        token = int(np.argmax(logits[0, -1]))
        tokens.append(token)
        ids = np.array([[token]], dtype=np.int64)
        pos = np.array([position], dtype=np.int64)
        start = time.perf_counter()
        logits = call(ids, pos)
        decode_ms.append((time.perf_counter() - start) * 1e3)
        all_logits.append(logits)
        position += 1
    return tokens, all_logits, prefill_ms, decode_ms


def functional_program(ep_decomposed):
    """The decomposed program with its mutated buffers as inputs and their new values as outputs:
    (input_ids, cache_position, *cache) -> (logits, *new cache), every other weight a constant."""
    from torch.export.graph_signature import InputKind, OutputKind

    signature = ep_decomposed.graph_signature
    new_value = {s.target: i for i, s in enumerate(signature.output_specs) if s.kind == OutputKind.BUFFER_MUTATION}
    user_output = [i for i, s in enumerate(signature.output_specs) if s.kind == OutputKind.USER_OUTPUT]
    state_names = [s.target for s in signature.input_specs if s.kind == InputKind.BUFFER and s.target in new_value]
    fixed = {}
    for spec in signature.input_specs:
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR) and spec.target not in new_value:
            fixed[spec.target] = (ep_decomposed.state_dict.get(spec.target) if spec.target in ep_decomposed.state_dict
                                  else ep_decomposed.constants[spec.target])
    graph_module = ep_decomposed.graph_module

    class Functional(torch.nn.Module):
        def forward(self, input_ids, cache_position, *state):
            by_name = dict(zip(state_names, state))
            users = iter((input_ids, cache_position))
            args = []
            for spec in signature.input_specs:
                if spec.kind == InputKind.USER_INPUT:
                    args.append(next(users))
                elif spec.target in by_name:
                    args.append(by_name[spec.target])
                else:
                    args.append(fixed[spec.target])
            outputs = graph_module(*args)
            return (outputs[user_output[0]], *[outputs[new_value[name]] for name in state_names])

    initial = [(ep_decomposed.state_dict.get(n) if n in ep_decomposed.state_dict else ep_decomposed.constants[n]).clone()
               for n in state_names]
    seq = torch.export.Dim("seq_len", min=1, max=make_llm.MAX_CACHE_LEN)
    example = (torch.zeros(1, 2, dtype=torch.long), torch.arange(2, dtype=torch.long), *initial)
    dynamic = ({1: seq}, {0: seq}, tuple(None for _ in initial))  # *state is one tuple
    with torch.no_grad():
        ep = torch.export.export(Functional(), example, dynamic_shapes=dynamic, strict=False)
    return ep, state_names, initial


def openvino_stateful(ep_decomposed, threads: int):
    """OpenVINO alone: convert_model of the functional program, the KV cache made state. The
    int64 cache lengths stay inputs and outputs (the CPU plugin refuses an i64 Assign: "does not
    support i64 for use with oneDNN"); the wrapper overwrites them from cache_position each call,
    so they are fed their initial value."""
    import openvino as ov
    from openvino._offline_transformations import apply_make_stateful_transformation

    ep, state_names, initial = functional_program(ep_decomposed)
    model = ov.convert_model(ep)
    parameters, results = model.get_parameters(), model.get_results()
    assert len(parameters) == 2 + len(state_names) and len(results) == 1 + len(state_names), (parameters, results)
    # convert_model leaves the state inputs' shapes dynamic; a state of dynamic shape starts empty
    for parameter, value in zip(parameters[2:], initial):
        parameter.set_partial_shape(ov.PartialShape(list(value.shape)))
    model.validate_nodes_and_infer_types()
    floating = [i for i, value in enumerate(initial) if value.is_floating_point()]
    apply_make_stateful_transformation(model, [(parameters[2 + i], results[1 + i]) for i in floating])
    config = {"INFERENCE_PRECISION_HINT": "f32"}  # what pt2ov's load sets
    if threads:
        config["INFERENCE_NUM_THREADS"] = threads
    compiled = ov.Core().compile_model(model, "CPU", config)
    request = compiled.create_infer_request()
    fed = {2 + k: initial[i].numpy() for k, i in enumerate(i for i in range(len(initial)) if i not in floating)}

    def call(ids, pos):
        request.infer({0: ids, 1: pos, **fed})
        return request.get_output_tensor(0).data.copy()

    return call, request.reset_state, len(request.query_state())


def llm_decode_cpp(path: pathlib.Path, prompt: np.ndarray, steps: int, sequences: int, threads: int,
                   int64_input_limit: int = 0) -> dict:
    binary = ROOT / "build" / "examples" / "llm_decode"
    proc = subprocess.run([str(binary), str(path), "--prompt", ",".join(str(int(t)) for t in prompt[0]), "--steps",
                           str(steps), "--sequences", str(sequences), "--threads", str(threads),
                           "--int64-input-limit", str(int64_input_limit), "--quiet"],
                          capture_output=True, text=True, check=True)
    match = re.search(r"median ([0-9.]+) ms; decode: median ([0-9.]+) ms", proc.stdout)
    tokens = [line.split()[1:] for line in proc.stdout.splitlines() if line.startswith("tokens:")][0]
    return {"prefill_ms": float(match.group(1)), "decode_ms": float(match.group(2)), "tokens": [int(t) for t in tokens]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--sequences", type=int, default=5, help="timed sequences per side (after one warm-up)")
    parser.add_argument("--prompt-len", type=int, default=8)
    parser.add_argument("--threads", type=int, default=0, help="0: each runtime's default")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.threads:
        torch.set_num_threads(args.threads)

    import pt2ov

    wrapper = make_llm.make_wrapper(make_llm.make_model(layers=args.layers, hidden=args.hidden))
    ep = make_llm.export(wrapper)
    ep_decomposed = ep.run_decompositions()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="llm_bench_"))
    paths = {"exported": folder / "llm.pt2", "decomposed": folder / "llm_decomposed.pt2"}
    torch.export.save(ep, str(paths["exported"]))
    torch.export.save(ep_decomposed, str(paths["decomposed"]))
    prompt = make_llm.example_prompt(args.prompt_len).numpy()

    def eager_call(ids, pos):
        with torch.no_grad():
            return wrapper(input_ids=torch.from_numpy(ids), cache_position=torch.from_numpy(pos)).numpy()

    sides = {"PyTorch eager (same static cache)": (eager_call, lambda: make_llm.reset_cache(wrapper))}
    # With the promise an LLM can give (token ids below the vocabulary, positions below the cache
    # length), pt2ov keeps the position arithmetic, and so the whole step, on OpenVINO.
    limit = max(make_llm.VOCAB, make_llm.MAX_CACHE_LEN)
    for form, path in paths.items():
        for promise in (0, limit):
            program = pt2ov.load(path, num_threads=args.threads, int64_input_limit=promise)
            label = f", int64_input_limit={promise}" if promise else ""
            sides[f"pt2ov, {form} (Python module{label})"] = (
                lambda ids, pos, program=program: program(ids, pos)[0], program.reset_state)
    ov_call, ov_reset, ov_states = openvino_stateful(ep_decomposed, args.threads)
    sides[f"OpenVINO alone, stateful ({ov_states} states)"] = (ov_call, ov_reset)

    reference_tokens, reference_logits, _, _ = greedy(eager_call, prompt, args.steps, lambda: make_llm.reset_cache(wrapper))
    rows = []
    for name, (call, reset) in sides.items():
        greedy(call, prompt, args.steps, reset)  # warm-up
        prefill, decode, exact = [], [], True
        for _ in range(args.sequences):
            tokens, logits, prefill_ms, decode_ms = greedy(call, prompt, args.steps, reset)
            prefill.append(prefill_ms)
            decode.extend(decode_ms)
            exact &= tokens == reference_tokens and all(
                np.allclose(a, b, rtol=RTOL, atol=ATOL) for a, b in zip(logits, reference_logits))
        rows.append({"side": name, "prefill_ms": statistics.median(prefill), "decode_ms": statistics.median(decode),
                     "matches_eager": bool(exact)})
    for form, path in paths.items():
        for promise in (0, limit):
            cpp = llm_decode_cpp(path, prompt, args.steps, args.sequences + 1, args.threads, promise)
            label = f", --int64-input-limit {promise}" if promise else ""
            rows.append({"side": f"pt2ov, {form} (examples/llm_decode, C++{label})", "prefill_ms": cpp["prefill_ms"],
                         "decode_ms": cpp["decode_ms"], "matches_eager": cpp["tokens"] == reference_tokens})

    load = os.getloadavg()
    ov_decode = next(r["decode_ms"] for r in rows if r["side"].startswith("OpenVINO alone"))
    eager_decode = rows[0]["decode_ms"]
    print(f"Llama, {args.layers} layers, hidden {args.hidden}, vocab {make_llm.VOCAB}, static cache "
          f"{make_llm.MAX_CACHE_LEN}; prompt {args.prompt_len} tokens, {args.steps} decode steps, "
          f"{args.sequences} timed sequences; threads {args.threads or 'default'}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"| side | prefill ms | decode ms/token | × OpenVINO alone | eager ÷ this | matches eager |")
    print("|---|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['side']} | {r['prefill_ms']:.3f} | {r['decode_ms']:.3f} | {r['decode_ms'] / ov_decode:.2f}× | "
              f"{eager_decode / r['decode_ms']:.2f}× | {'yes' if r['matches_eager'] else 'NO'} |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"load_average": load, "rows": rows}, indent=2))
    return 0 if all(r["matches_eager"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
