"""docs/HF_ARCHITECTURES.md from build/hf_architectures/results.jsonl (each model type, form and
variant's newest record)."""
from __future__ import annotations

import collections
import pathlib
import platform

from tests.hf_architectures.measure import FORMS, REPO_ROOT, read_results

DOC = REPO_ROOT / "docs" / "HF_ARCHITECTURES.md"
STATUSES = ("pass", "wrong", "refused", "crash", "export-failed", "eager-nan", "skipped")
# a row's status is its worst variant's, in this order (eager-nan only when no variant counts)
_WORST_FIRST = ("crash", "wrong", "refused", "export-failed", "skipped", "pass", "eager-nan")


def cpu_name() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _cell(text, limit: int = 160) -> str:
    text = str(text or "").replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _error(value) -> str:
    return "" if value is None else f"{value:.2g}"


def _worst(statuses) -> str:
    statuses = list(statuses)
    return min(statuses, key=_WORST_FIRST.index) if statuses else ""


def _rows(records: list[dict]):
    """(family, type, form) -> {variant: newest record}; model type order as first measured."""
    rows: dict[tuple, dict] = {}
    timing: dict[tuple, float] = {}
    for r in records:
        if "+ignore:" in str(r.get("build")):
            continue  # measured with facts ignored (PT2OV_IGNORE_FACTS): an experiment, not the engine
        if "timing" in r:
            timing[(r["family"], r["model_type"])] = r["timing"]
            continue
        key = (r["family"], r["model_type"], r["form"])
        variants = rows.setdefault(key, {})
        if r["variant"] == "*" or "*" in variants:
            variants.clear()  # a whole-type record replaces, and is replaced by, the variants'
        variants[r["variant"]] = r
    return rows, timing


def write_report(path: pathlib.Path = DOC) -> str:
    from tests.hf_architectures.models import FAMILIES
    rows, timing = _rows(read_results())
    counts = collections.defaultdict(collections.Counter)
    ov_counts = collections.defaultdict(collections.Counter)
    engine_nan = collections.Counter()
    engines: dict[str, set] = {}
    table, problems = [], []
    for (family, model_type, form), variants in sorted(
            rows.items(), key=lambda kv: (FAMILIES.index(kv[0][0]), kv[0][1], FORMS.index(kv[0][2]))):
        counting = {v: r for v, r in variants.items() if r["status"] != "eager-nan"}
        status = _worst(r["status"] for r in (counting or variants).values())
        counts[(family, form)][status] += 1
        for r in variants.values():
            if r.get("openvino"):
                ov_counts[(family, form, r["variant"])][r["openvino"] + (" (NaN)" if r.get("openvino_nan") else "")] += 1
                engine_nan[(family, form, r["variant"])] += bool(r.get("nan"))
        grouped: dict[tuple, list[str]] = {}  # variants of one status and detail together
        for v, r in variants.items():
            if r["status"] != "pass":
                grouped.setdefault((r["status"], r.get("detail") or ""), []).append(v)
        detail = "; ".join(
            (f"{', '.join(vs)}: {st}" if vs != ["*"] else st) + (f" ({d})" if d else "")
            for (st, d), vs in grouped.items())
        errors = [r["max_err"] for r in variants.values() if r.get("max_err") is not None]
        nan = any(r.get("nan") for r in variants.values())
        ov = _worst(r["openvino"] for r in variants.values() if r.get("openvino"))
        ov_nan = any(r.get("openvino_nan") for r in variants.values())
        ov_cell = ov + (" (NaN)" if ov_nan else "")
        if ov and ov != "pass":
            first_bad = next(r for r in variants.values() if r.get("openvino") == ov)
            if first_bad.get("openvino_detail") and ov != "wrong":
                ov_cell += ": " + _cell(first_bad["openvino_detail"], 100)
        attn = next((r.get("attn") for r in variants.values() if r.get("attn")), "")
        for r in variants.values():
            engines.setdefault(r["build"], set()).add(family)
        table.append(f"| {family} | {model_type} | {form} | {status} | "
                     f"{_error(max(errors)) if errors else ''} | {'yes' if nan else 'no'} | "
                     f"{_cell(ov_cell, 120)} | {'' if attn in ('', 'sdpa') else attn} | {_cell(detail, 220)} |")
        if status not in ("pass", "skipped", "eager-nan"):
            problems.append(f"- {family}/{model_type} ({form}): {_cell(detail, 300)}")
    present = sorted({f for f, _ in counts}, key=FAMILIES.index)
    seconds = sum(timing.values())
    lines = [
        "# transformers architectures with padded masks", "",
        "Written by `make hf-architectures` (tests/hf_architectures/): transformers' model types, "
        "enumerated from its auto mappings by family, each made tiny generically (2 layers, hidden "
        "size 64, 4 heads, vocabulary 1000, ...), random weights, `attn_implementation=\"sdpa\"`, "
        "exported with `torch.export.export(strict=False)` taking the attention masks as inputs, "
        "both program forms (as exported, and after `run_decompositions()`), run by `build/pt2ov` "
        "on batch 2, sequence 16 with padded masks, beside OpenVINO alone "
        "(`openvino.convert_model(program)`, CPU, f32) on the same program. Variants: decoder LMs "
        "left-padded (row 0 with 3 pad tokens), a wholly padded row, all ones; encoders the same "
        "right-padded; seq2seq the encoder's mask right-padded and the decoder's left-padded; CTC "
        "speech right-padded audio; vision one image batch without a mask.", "",
        "Floats compare with rtol 1e-4 and atol 1e-4 times the largest magnitude of eager's output "
        "(at least 1), NaN only where eager has NaN; a variant whose eager output is not finite is "
        "`eager-nan` and does not count. A row's status is its worst variant's; NaN says whether "
        "pt2ov's output held NaN in any variant.", "",
        f"CPU: {cpu_name()} ({len(rows)} model type × form rows; {seconds / 60:.0f} min of "
        f"measurement in the child processes). Engine builds (a hash of build/pt2ov and "
        f"libpt2ov.so): " + "; ".join(f"{b} ({', '.join(sorted(fs, key=FAMILIES.index))})"
                                      for b, fs in engines.items()) + ".", "",
        "| family | form | " + " | ".join(STATUSES) + " |",
        "|---|---|" + "---|" * len(STATUSES),
    ]
    for family in present:
        for form in FORMS:
            c = counts[(family, form)]
            lines.append(f"| {family} | {form} | " + " | ".join(str(c[s]) for s in STATUSES) + " |")
    lines += ["", "OpenVINO alone on the same programs, by input variant (model types; NaN: its output "
              "held NaN), beside how many of pt2ov's outputs held NaN:", "",
              "| family | form | variant | OpenVINO alone | pt2ov with NaN |", "|---|---|---|---|---|"]
    for (family, form, variant), c in sorted(ov_counts.items(), key=lambda kv: (
            FAMILIES.index(kv[0][0]), FORMS.index(kv[0][1]), kv[0][2])):
        lines.append(f"| {family} | {form} | {variant} | "
                     + ", ".join(f"{n} {st}" for st, n in sorted(c.items())) + f" | {engine_nan[(family, form, variant)]} |")
    lines += ["", "Not passing (skipped and eager-nan aside):", ""] + (problems or ["- none"])
    lines += ["", "| family | model type | form | status | max abs diff | NaN | OpenVINO alone | "
              "attention | detail |", "|---|---|---|---|---|---|---|---|---|"] + table
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    return text


if __name__ == "__main__":
    print(write_report())
