"""The overloads pt2ov claims (a CPU kernel, a decomposition or a rewrite) that no test runs or
names, each with why: `scripts/list_claimed_overloads.py` fails on a claimed overload that is
neither tested nor listed here, and docs/CONFORMANCE.md lists these (report.py)."""

_SYMBOLIC = ("a Python operator on symbolic sizes: torch.export writes it into runtime assertions, which "
             "pt2ov drops (docs/ARCHITECTURE.md stage 3), and into size arithmetic, where no test program "
             "makes this one; its kernel computes on plain integers")

REFUSED: dict[str, str] = {
    "_operator.and_": _SYMBOLIC,
    "_operator.or_": _SYMBOLIC,
    "_operator.eq": _SYMBOLIC,
    "_operator.ne": _SYMBOLIC,
    "_operator.lt": _SYMBOLIC,
    "_operator.gt": _SYMBOLIC,
    "_operator.pow": _SYMBOLIC,
}
