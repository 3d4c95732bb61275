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


def estimates(row, metric):
    """The row's ratio head/base by the check's estimator (ratio of medians) for one clock."""
    key = "runs" if metric == row["metric"] else "runs_" + metric
    b, h = row["base_" + key], row["head_" + key]
    return statistics.median(h) / statistics.median(b), [x / y for x, y in zip(h, b)]


def summary(lines, tolerance=ab.TOLERANCE):
    out = []
    for metric in ("cpu", "wall"):
        by_row = {}
        for ln in lines:
            for r in ln["rows"]:
                if r["verdict"] == "new: no base":
                    continue
                by_row.setdefault(r["id"], []).append(estimates(r, metric))
        out.append(f"clock {metric}: ratio head/base per run (median of runs per side), over {len(lines)} runs")
        worst_run = [min(estimates(r, metric)[0] for r in ln["rows"] if r["verdict"] != "new: no base")
                     for ln in lines]
        for rid, ests in by_row.items():
            ratios = [e[0] for e in ests]
            pairs = [p for e in ests for p in e[1]]
            out.append(f"  {rid:<32} ratio median {statistics.median(ratios):.3f}  min {min(ratios):.3f}  "
                       f"max {max(ratios):.3f}  sd {statistics.stdev(ratios) if len(ratios) > 1 else 0:.3f}   "
                       f"single pairs {min(pairs):.2f} to {max(pairs):.2f}")
        fails = sum(w < 1 - tolerance for w in worst_run)
        out.append(f"  lowest row ratio of each run: {', '.join(f'{w:.3f}' for w in worst_run)}; "
                   f"runs failing at tolerance {tolerance:.0%}: {fails} of {len(lines)}")
    secs = [ln["seconds"] for ln in lines]
    out.append(f"seconds per comparison: median {statistics.median(secs):.0f}, min {min(secs):.0f}, max {max(secs):.0f}")
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
              "loadavg_after": os.getloadavg(), "tolerance": ab.TOLERANCE,
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
