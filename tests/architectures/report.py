"""docs/ARCHITECTURES.md from build/architectures/results.jsonl (the newest engine's records)."""
from __future__ import annotations

import collections
import pathlib

from tests.architectures.measure import FORMS, REPO_ROOT, read_results

DOC = REPO_ROOT / "docs" / "ARCHITECTURES.md"
STATUSES = ("pass", "wrong", "refused", "crash", "export-failed")


def _latest(records: list[dict]) -> dict:
    """Each architecture and form's newest record (`--only-failing` measures again only what
    did not pass, so a pass may come from an earlier engine)."""
    latest = {}
    for r in records:
        latest[(r["name"], r["form"])] = r
    return latest


def _cell(text: str, limit: int = 160) -> str:
    text = str(text or "").replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _error(value) -> str:
    return "" if value is None else f"{value:.2g}"


def write_report(path: pathlib.Path = DOC) -> str:
    from tests.architectures.models import ARCHITECTURES
    latest = _latest(read_results())
    order = [a.name for a in ARCHITECTURES]
    counts = {form: collections.Counter() for form in FORMS}
    refusals = collections.Counter()
    lines = ["# Architectures", "",
             "pt2ov on real models of torchvision, timm and transformers (random weights, eval mode, "
             "batch 1, small inputs), both program forms, beside OpenVINO alone "
             "(`openvino.convert_model(program)`, CPU, f32) on the same program. Written by "
             "`make architectures` (tests/architectures/); floats compare with rtol 1e-4 and atol "
             "1e-4 times the largest magnitude of eager's output (at least 1).", ""]
    rows = []
    for name in order:
        for form in FORMS:
            r = latest.get((name, form))
            if r is None:
                continue
            counts[form][r["status"]] += 1
            if r["status"] == "refused":
                refusals[_reason(r["detail"])] += 1
            at_load = f", {r['at_load_steps']} at load" if r.get("at_load_steps") else ""
            steps = "" if "steps" not in r else f"{r['steps']} ({r.get('cpu_steps', 0)} CPU{at_load})"
            ov = r.get("openvino", "")
            if ov and ov != "pass":
                ov += ": " + _cell(r.get("openvino_detail", ""), 100)
            rows.append(f"| {name} | {form} | {r['status']} | {_error(r.get('max_err'))} | "
                        f"{_cell(ov, 120)} | {steps} | {_cell(r.get('detail', ''))} |")
    lines.append("| form | " + " | ".join(STATUSES) + " |")
    lines.append("|---|" + "---|" * len(STATUSES))
    for form in FORMS:
        lines.append(f"| {form} | " + " | ".join(str(counts[form][s]) for s in STATUSES) + " |")
    lines += ["", "Refusals by reason (both forms):", ""]
    for reason, n in refusals.most_common():
        lines.append(f"- {n} × {_cell(reason, 200)}")
    lines += ["", "| model | form | status | max abs error | OpenVINO alone | steps | detail |",
              "|---|---|---|---|---|---|---|"] + rows
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    return text


def _reason(detail: str) -> str:
    """A refusal's message without the node's name, so one cause counts once per model."""
    import re
    return re.sub(r"node '?[%\w.]+'?", "node", detail)


if __name__ == "__main__":
    print(write_report())
