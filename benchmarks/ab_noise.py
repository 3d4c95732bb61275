"""Measure the noise of the speed check: run the A/B comparison of benchmarks/ab.py several times
and write every run's raw figures (both clocks, every pair) as one JSON line, then summarise.

    python -m benchmarks.ab_noise --runs 12 --base HEAD --out aa.jsonl   # A/A: base = head
    python -m benchmarks.ab_noise --summary aa.jsonl                     # the table only

With --base HEAD on a clean tree the two sides run the same code (A/A), so every ratio away from 1
is noise; docs/benchmarks.md sets the tolerance from it.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from . import ab


def first_round(row, clock):
    """(base, head) figures of the row's first round for a clock ("cpu" or "wall")."""
    key = "runs" if clock == row["metric"] else "runs_" + clock
    n = row["rounds"][0] if row.get("rounds") else len(row["base_" + key])
    return row["base_" + key][:n], row["head_" + key][:n]


ESTIMATORS = {
    "median of pair ratios": lambda b, h: statistics.median([y / x for x, y in zip(b, h)]),
    "median(head)/median(base)": lambda b, h: statistics.median(h) / statistics.median(b),
}


def summary(lines, tolerance=None):
    tolerance = ab.TOLERANCE if tolerance is None else tolerance
    out = [f"{len(lines)} runs; first round of each row only; tolerance {tolerance:.0%} (row below "
           f"{1 - tolerance:.2f})"]
    for clock in ("cpu", "wall"):
        for name, est in ESTIMATORS.items():
            out.append(f"clock {clock}, figure = {name}:")
            by_row, every, worst = {}, [], []
            for ln in lines:
                figs = []
                for r in ln["rows"]:
                    if r["verdict"] == "new: no base":
                        continue
                    f = est(*first_round(r, clock))
                    by_row.setdefault(r["id"], []).append(f)
                    figs.append(f)
                every += figs
                worst.append(min(figs))
            for rid, v in by_row.items():
                out.append(f"  {rid:<28} median {statistics.median(v):.3f}  min {min(v):.3f}  max {max(v):.3f}  "
                           f"sd {statistics.stdev(v) if len(v) > 1 else 0:.3f}")
            out.append(f"  all rows: sd {statistics.stdev(every):.3f}, lowest {min(every):.3f}; rows below "
                       f"{1 - tolerance:.2f}: {sum(f < 1 - tolerance for f in every)} of {len(every)}; runs with a row "
                       f"below: {sum(w < 1 - tolerance for w in worst)} of {len(lines)}")
    secs = [ln["seconds"] for ln in lines]
    out.append(f"seconds per comparison: median {statistics.median(secs):.0f}, min {min(secs):.0f}, "
               f"max {max(secs):.0f}")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--base", default="HEAD")
    ap.add_argument("--out", default=None, help="append one JSON line per run here")
    ap.add_argument("--full", action="store_true", help="the full run's sizes instead of --quick's")
    ap.add_argument("--summary", default=None, help="only summarise this JSON Lines file")
    a = ap.parse_args(argv)
    if a.summary:
        with open(a.summary) as f:
            print(summary([json.loads(x) for x in f if x.strip()]))
        return 0
    lines = []
    for i in range(a.runs):
        t0 = time.time()
        load0 = os.getloadavg()
        commit, results = ab.compare(a.base, quick=not a.full)
        ln = {"run": i, "base": commit, "seconds": time.time() - t0, "loadavg_before": load0,
              "loadavg_after": os.getloadavg(), "tolerance": ab.TOLERANCE, "rounds_rule": ab.ROUNDS,
              "rows": [r.as_dict() for r in results]}
        lines.append(ln)
        if a.out:
            with open(a.out, "a") as f:
                f.write(json.dumps(ln) + "\n")
        print(f"run {i + 1}/{a.runs}: " + ", ".join(f"{r.row.id} {r.ratio:.3f}" for r in results if r.ratio),
              file=sys.stderr, flush=True)
    print(summary(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
