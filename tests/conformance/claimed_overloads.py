"""The overloads pt2ov claims (a CPU kernel, a decomposition or a rewrite) that no test runs or
names, each with why: `scripts/list_claimed_overloads.py` fails on a claimed overload that is
neither tested nor listed here, and docs/CONFORMANCE.md lists these (report.py). Empty: every
claimed overload has a test."""

REFUSED: dict[str, str] = {
}
