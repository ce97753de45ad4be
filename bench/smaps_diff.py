"""Which mappings' resident memory changed between two copies of /proc/PID/smaps (as
bench/endurance.cpp --smaps-dir writes them): mappings matched by start address, each change
named by the mapping's path (or by the nearest named mapping before it, for anonymous ones).

    .venv/bin/python bench/smaps_diff.py BEFORE.txt AFTER.txt [--min-kb 4]
"""
from __future__ import annotations

import argparse
import re

HEADER = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")


def read(path: str) -> dict[int, dict]:
    maps: dict[int, dict] = {}
    current = None
    for line in open(path):
        m = HEADER.match(line)
        if m:
            start, end = int(m.group(1), 16), int(m.group(2), 16)
            current = {"start": start, "end": end, "perms": m.group(3), "name": m.group(4).strip(), "rss": 0}
            maps[start] = current
        elif current is not None and line.startswith("Rss:"):
            current["rss"] = int(line.split()[1])
    return maps


def label(maps: dict[int, dict], start: int) -> str:
    entry = maps[start]
    if entry["name"]:
        return entry["name"]
    before = [s for s in maps if s < start and maps[s]["name"] and not maps[s]["name"].startswith("[")]
    near = maps[max(before)]["name"].rsplit("/", 1)[-1] if before else "?"
    return f"anon {entry['perms']} {(entry['end'] - entry['start']) // 1024} kB (after {near})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--min-kb", type=int, default=4)
    args = parser.parse_args()
    a, b = read(args.before), read(args.after)
    total = 0
    rows = []
    for start in sorted(set(a) | set(b)):
        ra = a.get(start, {}).get("rss", 0)
        rb = b.get(start, {}).get("rss", 0)
        if ra == rb:
            continue
        total += rb - ra
        where = label(b, start) if start in b else label(a, start) + " (gone)"
        if start not in a:
            where += " (new)"
        rows.append((rb - ra, f"{start:x}", where))
    for delta, start, where in sorted(rows, key=lambda r: -abs(r[0])):
        if abs(delta) >= args.min_kb:
            print(f"{delta:+8d} kB  {start}  {where}")
    print(f"{total:+8d} kB in all; mappings {len(a)} -> {len(b)}")


if __name__ == "__main__":
    main()
