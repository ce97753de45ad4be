"""pt2ov against its peers on the benchmark set (bench/models.py); run through bench/compare.

For each model, with the same inputs, f32 and 2 threads on every side:
  pt2ov        its C++ API in process (build/bench/pt2ov_bench_runner pair), interleaved in
               alternating blocks of calls with
  OpenVINO     alone: the IR of OpenVINO's Python convert_model(ExportedProgram), compiled and
               run from C++ with the same hints (the limit);
  PyTorch      eager under torch.inference_mode() (bench/peers.py torch);
  ONNX Runtime CPU execution provider on torch's ONNX export (bench/peers.py onnxruntime).
Prints a table of ratios (pt2ov / each peer) with absolute times, checks every target, writes
bench/results.json and draws bench/results.png.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import models  # noqa: E402
from peers import latency_stats  # noqa: E402

BUILD = ROOT / os.environ.get("PT2OV_BUILD_DIR", "build")  # bench/compare sets it
RUNNER = BUILD / "bench" / "pt2ov_bench_runner"
PY = sys.executable

TARGETS = {
    "vs_openvino": 1.03,     # pt2ov p50 / OpenVINO-alone p50, fully delegated models
    "overhead_us": 2.0,      # mean (time in Program::run - time in infer()), tiny MLP on OpenVINO
    "vs_eager": 1.5,         # eager p50 / pt2ov p50, ResNet-18 and the encoder
    "vs_onnxruntime": 1.0,   # pt2ov p50 / ORT p50: not slower
    "resident": 1.0,         # resident_bytes / constant_bytes
    "load": 1.0,             # pt2ov load / (OpenVINO convert_model + compile)
    "int8_vs_openvino": 1.05,  # int8 rows: pt2ov p50 / OpenVINO-alone p50 on the same quantized program
    "int8_vs_f32": 0.25,       # ResNet-18 int8: pt2ov p50 / pt2ov's own f32 p50 (when both rows run)
    # int8 rows: max |pt2ov - eager| / max |eager| within 5 %, or within twice what pt2ov's
    # --quantized-reference (eager's arithmetic in another summation order) differs by (E8)
    "int8_accuracy": 0.05,
}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_json(command: list[str], result_file: pathlib.Path | None = None, timeout: float = 900) -> dict:
    """Runs a side; its JSON comes on stdout (runner) or in `result_file` (peers.py)."""
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s: {' '.join(command)}"}
    seconds = time.perf_counter() - started
    try:
        if result_file is not None:
            result = json.loads(result_file.read_text())
        else:
            result = json.loads(done.stdout)
    except (OSError, ValueError):
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        return {"error": f"exit {done.returncode}: " + " | ".join(tail)}
    result["wall_s"] = seconds
    return result


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


SIDES = ("pt2ov", "openvino", "torch", "onnxruntime")


def measure(model: models.BenchModel, cache: pathlib.Path, scale: float, rounds: int) -> dict:
    """Exports the model, then runs `rounds` rounds of [pt2ov + OpenVINO alone interleaved in one
    process, PyTorch eager, ONNX Runtime], each with iterations/rounds calls, so that the load of
    a shared machine drifting over minutes weighs on every side alike; samples are pooled."""
    iterations = max(rounds, int(model.iterations * scale))
    warmup = max(1, int(model.warmup * min(1.0, scale)))
    entry: dict = {"name": model.name, "title": model.title, "notes": model.notes, "cpu_ops": list(model.cpu_ops),
                   "iterations": iterations, "warmup": warmup, "rounds": rounds, "loadavg_before": loadavg()}
    log(f"[{model.name}] export: torch.export, OpenVINO convert_model, ONNX")
    for stale in cache.glob(f"{model.name}.*"):
        stale.unlink()
    prepare = run_json([PY, str(HERE / "peers.py"), "prepare", model.name, str(cache)],
                       cache / f"{model.name}.prepare.json")
    entry["prepare"] = prepare
    if "error" in prepare:
        for side in SIDES:
            entry[side] = {"error": "export failed: " + prepare["error"]}
        return entry
    if "error" in prepare.get("openvino", {}):
        entry["openvino"] = {"error": "convert_model failed: " + prepare["openvino"]["error"]}
    if "onnx_error" in prepare:
        entry["onnxruntime"] = {"error": "ONNX export failed: " + prepare["onnx_error"]}

    pt2, xml, npz = (str(cache / f"{model.name}.{ext}") for ext in ("pt2", "xml", "npz"))
    runs: dict[str, list[dict]] = {side: [] for side in SIDES}
    for r in range(rounds):
        n = iterations // rounds + (1 if r < iterations % rounds else 0)
        loop = ["--iterations", str(n), "--warmup", str(warmup)]
        cpu_ops = [a for op in model.cpu_ops for a in ("--cpu-op", op)]
        if not model.measure_placement:
            cpu_ops.append("--no-measure-placement")
        log(f"[{model.name}] round {r + 1}/{rounds}: pt2ov and OpenVINO alone interleaved, {n} calls each")
        if "openvino" in entry:  # no IR: pt2ov alone
            runs["pt2ov"].append(run_json([str(RUNNER), "pt2ov", pt2, npz, *loop, *cpu_ops]))
        else:
            pair = run_json([str(RUNNER), "pair", pt2, xml, npz, "--threads", "2", *loop, *cpu_ops])
            for side in ("pt2ov", "openvino"):
                runs[side].append(pair.get(side, pair if "error" in pair else {"error": "no result"}))
            if "pt2ov_peak_rss_bytes" in pair:
                runs["pt2ov"][-1]["peak_rss_bytes"] = pair["pt2ov_peak_rss_bytes"]
        log(f"[{model.name}] round {r + 1}/{rounds}: PyTorch eager")
        runs["torch"].append(run_json([PY, str(HERE / "peers.py"), "torch", model.name, str(cache), *loop],
                                      cache / f"{model.name}.torch.json"))
        if "onnxruntime" not in entry:
            log(f"[{model.name}] round {r + 1}/{rounds}: ONNX Runtime")
            runs["onnxruntime"].append(run_json([PY, str(HERE / "peers.py"), "onnxruntime", model.name, str(cache),
                                                 *loop], cache / f"{model.name}.onnxruntime.json"))
    for side in SIDES:
        if side not in entry:
            entry[side] = pool(runs[side])
    if "error" not in entry["pt2ov"]:
        entry["pt2ov"]["max_abs_diff"] = pt2ov_accuracy(model, cache)
        if model.quantized and isinstance(entry["pt2ov"]["max_abs_diff"], float):
            import numpy as np
            with np.load(cache / f"{model.name}.expected.npz") as expected:
                largest = max(float(np.max(np.abs(expected[k]))) for k in expected.files)
            entry["pt2ov"]["relative_diff"] = entry["pt2ov"]["max_abs_diff"] / largest if largest else 0.0
            # The same program under --quantized-reference: eager's own arithmetic, in another
            # summation order, shows how far this network's outputs move from one-step differences.
            reference = pt2ov_accuracy(model, cache, "--quantized-reference")
            if isinstance(reference, float) and largest:
                entry["pt2ov"]["reference_relative_diff"] = reference / largest
    entry["loadavg_after"] = loadavg()
    return entry


def pool(runs: list[dict]) -> dict:
    """One side's rounds as one: latency over every sample; load, accuracy and the rest from the
    first round; the engine overhead averaged over rounds (each has as many calls); peak RSS the
    highest."""
    failed = [r for r in runs if "error" in r]
    if failed or not runs:
        return failed[0] if failed else {"error": "not run"}
    pooled = dict(runs[0])
    samples = [s for r in runs for s in r.get("samples_ns", [])]
    pooled["latency"] = latency_stats(samples)
    pooled["iterations"] = len(samples)
    if "openvino_samples_ns" in runs[0]:  # pt2ov: OpenVINO's share of each call, and the rest
        inside = [s for r in runs for s in r["openvino_samples_ns"]]
        pooled["openvino"] = latency_stats(inside)
        overhead = latency_stats([total - ov for total, ov in zip(samples, inside)])
        pooled["overhead_us"] = {"mean": overhead["mean_ms"] * 1e3, "p50": overhead["p50_ms"] * 1e3}
        pooled.pop("openvino_samples_ns", None)
    pooled["peak_rss_bytes"] = max(r.get("peak_rss_bytes", 0) for r in runs)
    pooled["load_ms_rounds"] = [r.get("load_ms") for r in runs]
    pooled.pop("samples_ns", None)
    return pooled


def pt2ov_accuracy(model: models.BenchModel, cache: pathlib.Path, *extra: str):
    """pt2ov's outputs for the benchmark inputs against PyTorch's (pt2ov run), so a fast wrong
    answer cannot pass unseen."""
    import numpy as np
    out = cache / f"{model.name}.pt2ov_out.npz"
    command = [str(BUILD / "pt2ov"), "run", str(cache / f"{model.name}.pt2"), "--inputs",
               str(cache / f"{model.name}.npz"), "--outputs", str(out), *extra]
    for op in model.cpu_ops:
        command += ["--cpu-op", op]
    if not model.measure_placement:
        command.append("--no-measure-placement")
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return f"pt2ov run failed: {done.stderr.strip()}"
    with np.load(out) as got, np.load(cache / f"{model.name}.expected.npz") as expected:
        return max(float(np.max(np.abs(got[k].astype(np.float64) - expected[k]))) for k in expected.files)


# --- ratios and targets ------------------------------------------------------------------------
def lat(side: dict, key: str = "p50_ms"):
    return side.get("latency", {}).get(key) if "error" not in side else None


def analyse(entry: dict) -> None:
    p, o, t, r = (entry[s] for s in ("pt2ov", "openvino", "torch", "onnxruntime"))
    ratios = {}
    for peer, side in (("openvino", o), ("torch", t), ("onnxruntime", r)):
        for key in ("p50_ms", "mean_ms", "min_ms"):
            a, b = lat(p, key), lat(side, key)
            ratios[f"{peer}_{key[:-3]}"] = a / b if a and b else None
    entry["ratios"] = ratios  # pt2ov / peer: below 1 is pt2ov faster
    checks = {}
    if "error" not in p:
        delegated = p["steps"]["cpu"] == 0 and not entry["cpu_ops"]
        if delegated and not models.by_name(entry["name"]).quantized and ratios["openvino_p50"] is not None:
            checks["vs_openvino"] = check(ratios["openvino_p50"], "<=", TARGETS["vs_openvino"])
        if ratios["onnxruntime_p50"] is not None:
            checks["vs_onnxruntime"] = check(ratios["onnxruntime_p50"], "<=", TARGETS["vs_onnxruntime"])
        if models.by_name(entry["name"]).vs_eager_target and ratios["torch_p50"]:
            checks["vs_eager"] = check(1 / ratios["torch_p50"], ">=", TARGETS["vs_eager"])
        if models.by_name(entry["name"]).quantized:
            if ratios["openvino_p50"] is not None:
                checks["int8_vs_openvino"] = check(ratios["openvino_p50"], "<=", TARGETS["int8_vs_openvino"])
            if "relative_diff" in p:
                bound = max(TARGETS["int8_accuracy"], 2 * p.get("reference_relative_diff", 0.0))
                checks["int8_accuracy"] = check(p["relative_diff"], "<=", bound)
        if entry["name"] == "tiny_mlp_openvino":
            checks["overhead_us"] = check(p["overhead_us"]["mean"], "<=", TARGETS["overhead_us"])
        constants = p["constants"]
        resident = constants["resident_bytes"] / constants["bytes"] if constants["bytes"] else 1.0
        entry["resident_ratio"] = resident
        checks["resident"] = check(resident, "<=", TARGETS["resident"])
        ov = entry["prepare"].get("openvino", {})
        if "compile_ms" in ov:
            entry["load_ratio"] = p["load_ms"]["total"] / (ov["convert_ms"] + ov["compile_ms"])
            checks["load"] = check(entry["load_ratio"], "<=", TARGETS["load"])
    entry["targets"] = checks


def compare_with_float_rows(entries: list[dict]) -> None:
    """Each int8 row against pt2ov on its float row, when both ran: the speed-up int8 brings."""
    by_name = {e["name"]: e for e in entries}
    for e in entries:
        row = models.by_name(e["name"])
        base = by_name.get(row.float_row) if row.float_row else None
        if base is None or "error" in e["pt2ov"] or "error" in base["pt2ov"]:
            continue
        e["vs_own_f32"] = lat(e["pt2ov"]) / lat(base["pt2ov"])
        if row.float_row == "resnet18":
            e.setdefault("targets", {})["int8_vs_f32"] = check(e["vs_own_f32"], "<=", TARGETS["int8_vs_f32"])


def check(value: float, op: str, target: float) -> dict:
    met = value <= target if op == "<=" else value >= target
    return {"value": value, "target": f"{op} {target}", "met": bool(met)}


# --- output ---------------------------------------------------------------------------------------
def fmt_ms(side: dict) -> str:
    if "error" in side:
        return "FAILED"
    s = side["latency"]
    return f"{s['p50_ms']:.3f} / {s['mean_ms']:.3f}"


def fmt_ratio(value) -> str:
    return "-" if value is None else f"{value:.2f}x"


def table(entries: list[dict]) -> str:
    lines = []
    head = (f"{'model':<20} {'pt2ov p50/mean ms':>20} {'OpenVINO alone':>20} {'÷OV':>7} {'PyTorch eager':>20} "
            f"{'÷eager':>7} {'ONNX Runtime':>20} {'÷ORT':>7} {'ovh µs':>7}")
    lines += [head, "-" * len(head)]
    for e in entries:
        r = e.get("ratios", {})
        overhead = e["pt2ov"].get("overhead_us", {}).get("mean") if "error" not in e["pt2ov"] else None
        split = "error" not in e["pt2ov"] and (e["pt2ov"]["steps"]["cpu"] > 0 or e["cpu_ops"])
        lines.append(f"{e['name']:<20} {fmt_ms(e['pt2ov']):>20} {fmt_ms(e['openvino']):>20} "
                     f"{fmt_ratio(r.get('openvino_p50')) + ('*' if split else ''):>7} {fmt_ms(e['torch']):>20} {fmt_ratio(r.get('torch_p50')):>7} "
                     f"{fmt_ms(e['onnxruntime']):>20} {fmt_ratio(r.get('onnxruntime_p50')):>7} "
                     f"{'-' if overhead is None else f'{overhead:.1f}':>7}")
    lines.append("ratios: pt2ov p50 / peer p50 (below 1.00x: pt2ov is faster); ovh: mean engine time per call "
                 "outside OpenVINO's infer(); *: pt2ov runs a CPU step in this program (not fully delegated)")
    quantized = [e for e in entries if models.by_name(e["name"]).quantized]
    if quantized:
        lines.append("int8 rows (NNCF static int8; ONNX Runtime: its own quantize_static QDQ of the float model; eager: "
                     "the quantized module's fake-quantized float arithmetic):")
        for e in quantized:
            relative = e["pt2ov"].get("relative_diff") if "error" not in e["pt2ov"] else None
            own = e.get("vs_own_f32")
            reference = e["pt2ov"].get("reference_relative_diff") if "error" not in e["pt2ov"] else None
            lines.append(f"  {e['name']:<20} pt2ov int8 / pt2ov f32 {fmt_ratio(own)}; max |pt2ov - eager| "
                         f"{'-' if relative is None else f'{relative:.2%}'} of the output's range "
                         f"(--quantized-reference: {'-' if reference is None else f'{reference:.2%}'})")
    lines.append("")
    head = (f"{'model':<20} {'pt2ov load ms (archive+convert+compile)':>42} {'OV convert+compile ms':>22} "
            f"{'÷':>6} {'resident':>9} {'RSS MiB pt2ov/eager/ORT':>24}")
    lines += [head, "-" * len(head)]
    for e in entries:
        p, ov = e["pt2ov"], e["prepare"].get("openvino", {})
        if "error" in p:
            load = "FAILED"
        else:
            l = p["load_ms"]
            load = f"{l['total']:.0f} ({l['archive']:.0f}+{l['convert']:.0f}+{l['compile']:.0f})"
        ov_load = (f"{ov['convert_ms'] + ov['compile_ms']:.0f} ({ov['convert_ms']:.0f}+{ov['compile_ms']:.0f})"
                   if "compile_ms" in ov else "FAILED")
        rss = "/".join("-" if "error" in e[s] or "peak_rss_bytes" not in e[s] else f"{e[s]['peak_rss_bytes'] / 2**20:.0f}"
                       for s in ("pt2ov", "torch", "onnxruntime"))
        lines.append(f"{e['name']:<20} {load:>42} {ov_load:>22} {fmt_ratio(e.get('load_ratio')):>6} "
                     f"{fmt_ratio(e.get('resident_ratio')):>9} {rss:>24}")
    lines.append("OV convert+compile: openvino.convert_model(ExportedProgram), second call in its process, "
                 "plus compile_model; pt2ov: Program::load from the .pt2 file")
    return "\n".join(lines)


def errors(entries: list[dict]) -> str:
    lines = []
    for e in entries:
        for side in ("pt2ov", "openvino", "torch", "onnxruntime"):
            if "error" in e[side]:
                lines.append(f"  {e['name']} / {side}: {e[side]['error']}")
        diff = e["pt2ov"].get("max_abs_diff")
        if models.by_name(e["name"]).quantized and not isinstance(diff, str):
            relative = e["pt2ov"].get("relative_diff")
            bound = max(TARGETS["int8_accuracy"], 2 * e["pt2ov"].get("reference_relative_diff", 0.0))
            if relative is not None and relative > bound:
                lines.append(f"  {e['name']} / pt2ov: outputs differ from PyTorch's by {relative:.2%} of their range")
            continue
        if isinstance(diff, str) or (diff is not None and diff > 1e-3):
            lines.append(f"  {e['name']} / pt2ov: outputs differ from PyTorch's: {diff}")
    return ("failures:\n" + "\n".join(lines)) if lines else ""


def targets_summary(entries: list[dict]) -> tuple[str, dict]:
    names = {"vs_openvino": "latency <= 1.03x OpenVINO alone (fully delegated)",
             "overhead_us": "engine overhead <= 2 us per call (tiny MLP on OpenVINO, mean)",
             "vs_eager": ">= 1.5x faster than PyTorch eager",
             "vs_onnxruntime": "not slower than ONNX Runtime",
             "resident": "constants resident 1.0x",
             "load": "load <= OpenVINO convert_model + compile",
             "int8_vs_openvino": "int8: latency <= 1.05x OpenVINO alone",
             "int8_vs_f32": "int8: ResNet-18 <= 0.25x pt2ov's own f32",
             "int8_accuracy": "int8: outputs within 5 % of range (or 2x the reference's own)"}
    summary, lines = {}, ["targets:"]
    for key, title in names.items():
        rows = [(e["name"], e["targets"][key]) for e in entries if key in e.get("targets", {})]
        missed = [f"{n} ({c['value']:.3g})" for n, c in rows if not c["met"]]
        summary[key] = {"title": title, "checked": [n for n, _ in rows], "missed": missed}
        verdict = "met" if rows and not missed else ("not measured" if not rows else "MISSED: " + ", ".join(missed))
        lines.append(f"  {title:<52} {verdict}")
    return "\n".join(lines), summary


def chart(entries: list[dict], path: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    import numpy as np

    names = [e["name"] for e in entries]
    sides = [("pt2ov", "pt2ov", "#1f77b4"), ("openvino", "OpenVINO alone", "#7f7f7f"),
             ("torch", "PyTorch eager", "#ff7f0e"), ("onnxruntime", "ONNX Runtime", "#2ca02c")]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(12, 9), gridspec_kw={"height_ratios": [3, 2]})
    x = np.arange(len(names))
    width = 0.2
    for i, (side, label, color) in enumerate(sides):
        values = []
        for e in entries:
            base, own = lat(e["openvino"]), lat(e[side])
            values.append(own / base if own and base else np.nan)
        bars = top.bar(x + (i - 1.5) * width, values, width, label=label, color=color)
        if side == "pt2ov":
            for bar, e in zip(bars, entries):
                ms = lat(e["pt2ov"])
                if ms:
                    top.annotate(f"{ms:.3g} ms", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                                 ha="center", va="bottom", fontsize=7, rotation=90, xytext=(0, 2),
                                 textcoords="offset points")
                else:
                    top.annotate("failed", (bar.get_x() + bar.get_width() / 2, 1), ha="center", fontsize=7,
                                 rotation=90, color="red")
    top.axhline(1.0, color="black", linewidth=0.8)
    top.axhline(TARGETS["vs_openvino"], color="#1f77b4", linewidth=0.8, linestyle="--", label="1.03x target")
    top.set_yscale("log")
    ratio_label = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x")
    top.yaxis.set_major_formatter(ratio_label)
    top.yaxis.set_minor_formatter(ratio_label)
    top.tick_params(axis="y", which="minor", labelsize=7)
    top.set_ylabel("p50 latency / OpenVINO alone (log)")
    top.set_title("Latency relative to OpenVINO alone (lower is faster); f32, 2 threads, one synchronous request")
    top.set_xticks(x, names, rotation=15)
    top.legend(fontsize=8, ncols=5)

    pt2ov_load = [e["pt2ov"]["load_ms"]["total"] if "error" not in e["pt2ov"] else np.nan for e in entries]
    ov_load = [e["prepare"]["openvino"]["convert_ms"] + e["prepare"]["openvino"]["compile_ms"]
               if "compile_ms" in e["prepare"].get("openvino", {}) else np.nan for e in entries]
    bottom.bar(x - 0.2, pt2ov_load, 0.4, label="pt2ov Program::load", color="#1f77b4")
    bottom.bar(x + 0.2, ov_load, 0.4, label="OpenVINO convert_model + compile_model", color="#7f7f7f")
    bottom.set_yscale("log")
    bottom.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    bottom.set_ylabel("load time, ms (log)")
    bottom.set_xticks(x, names, rotation=15)
    bottom.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def environment() -> dict:
    import numpy
    info = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(), "python": platform.python_version(),
            "numpy": numpy.__version__, "date": datetime.datetime.now().isoformat(timespec="seconds")}
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    for module in ("torch", "openvino", "onnxruntime", "onnxscript"):
        try:
            info[module] = __import__(module).__version__
        except Exception as e:  # noqa: BLE001
            info[module] = f"not importable: {e}"
    return info


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", help="comma-separated subset of: " + ", ".join(m.name for m in models.MODELS))
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every model's call count (default 1)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="rounds of [pt2ov+OpenVINO, eager, ORT] per model, samples pooled (default 2)")
    parser.add_argument("--out", type=pathlib.Path, default=HERE / "results.json")
    parser.add_argument("--chart", type=pathlib.Path, default=HERE / "results.png")
    args = parser.parse_args()
    if not RUNNER.exists():
        log(f"bench/compare: {RUNNER} is missing; run bench/compare (the shell script), which builds it")
        return 2
    chosen = [models.by_name(n) for n in args.models.split(",")] if args.models else models.MODELS
    cache = HERE / ".cache"
    cache.mkdir(exist_ok=True)
    started = time.perf_counter()
    entries = []
    for model in chosen:
        entry = measure(model, cache, args.scale, args.rounds)
        analyse(entry)
        entries.append(entry)
    compare_with_float_rows(entries)
    text = table(entries)
    summary_text, summary = targets_summary(entries)
    failures = errors(entries)
    runtime_s = time.perf_counter() - started
    print(text)
    print()
    print(summary_text)
    if failures:
        print()
        print(failures)
    results = {"environment": environment(),
               "settings": {"precision": "f32", "threads": 2, "request": "one synchronous request",
                            "openvino_alone_hints": {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY",
                                                     "INFERENCE_NUM_THREADS": 2},
                            "pt2ov_threads": "OpenVINO's default (pt2ov has no thread option); see "
                                             "models[0].prepare.openvino.defaults_with_f32_only",
                            "ratios": "pt2ov / peer, p50 and mean; below 1 is pt2ov faster",
                            "percentiles": "nearest rank"},
               "targets": TARGETS, "summary": summary, "models": entries, "runtime_s": runtime_s}
    # Paths relative to the repository, so results from any clone read alike.
    args.out.write_text(json.dumps(results, indent=1).replace(str(ROOT) + "/", "") + "\n")
    try:
        chart(entries, args.chart)
        print(f"\nwrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out} and {args.chart.name}"
              f" in {runtime_s / 60:.1f} min")
    except Exception as e:  # noqa: BLE001
        print(f"\nwrote {args.out}; the chart failed: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
