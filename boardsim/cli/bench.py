"""`boardsim bench`: the benchmark table, the speed check against a base commit, the baseline."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Annotated, Optional

import pandas as pd
import typer

from benchmarks.ab import ROUNDS as AB_ROUNDS, TOLERANCE as AB_TOLERANCE  # stdlib only: cheap to import

from .errors import fail

COLUMNS = ["id", "threads", "games_per_second", "decisions_per_second", "ratio", "normalized", "vs_baseline",
           "seconds", "compiles", "peak_rss_mb", "ns_per_eval"]
AB_COLUMNS = ["row", "base", "head", "ratio", "pairs", "verdict", "wall ratio", "same outcomes"]


def _num(x: float) -> str:
    """A figure of the bench table: 4 significant digits, never in exponent form (274,600 rather
    than 2.746e+05, beside 3,580 in the same column)."""
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:,.4g}" if x == 0 or abs(x) >= 1e-3 else f"{x:.6f}".rstrip("0")


def _ab_table(results):
    from benchmarks import ab
    lines = []
    for r in results:
        d = r.as_dict()
        if r.new:
            lines.append({"row": r.row.id, "verdict": d["verdict"]})
            continue
        wall = [h / b for h, b in zip(r.head_other, r.base_other)] if r.metric == "cpu" else None
        lines.append({"row": r.row.id, "base": f"{d['base_median']:,.0f}", "head": f"{d['head_median']:,.0f}",
                      "ratio": r.rounds_text, "pairs": f"{d['ab_min']:.2f}-{d['ab_max']:.2f} ({d['pairs']})",
                      "verdict": d["verdict"],
                      "wall ratio": "" if not wall else f"{ab.statistics.median(r.head_other) / ab.statistics.median(r.base_other):.3f}",
                      "same outcomes": "yes" if d["same_outcomes"] else "NO"})
    df = pd.DataFrame(lines)
    return df[[c for c in AB_COLUMNS if c in df.columns]].to_string(index=False, na_rep="")


def bench(
    quick: Annotated[bool, typer.Option(help="Short runs only (about a minute, and 3-8 more with --check): no compile, start-up or memory rows.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per row, one per line.")] = False,
    check: Annotated[bool, typer.Option(help=(
        "Speed check: export the base commit (--base, else \"base_commit\" in the baseline file) with git archive "
        "and time the same rows (every game x policy x 1 and 2 threads, each a whole `simulate --json` process) "
        "with base and with this working tree, pairs interleaved, on this machine; exit 1 if a row's median "
        f"pair ratio head/base (games per CPU second) is below {1 - AB_TOLERANCE:.2f} in each of {AB_ROUNDS} rounds "
        "of pairs (a row is timed again only while it is below), or if the known-good outcomes differ. Absolute and normalised figures decide "
        "nothing. See docs/benchmarks.md."))] = False,
    base: Annotated[Optional[str], typer.Option(
        help="With --check: the commit to compare against (a hash, a branch, HEAD~1; default: \"base_commit\" of the baseline file).")] = None,
    update_baseline: Annotated[bool, typer.Option(help="Rewrite the baseline's known-good outcomes and figures, with a note of the machine.")] = False,
    baseline: Annotated[Optional[Path], typer.Option(help="Baseline file (default: benchmarks/baseline.json).")] = None,
):
    """Benchmark every game and policy: games/s and decisions/s on 1 and 2 threads (also normalised by a calibration kernel, for reading), the reference engine on the same games, compile and start-up times, memory; with --check, compare the speed with a base commit timed side by side on this machine."""
    from benchmarks import ab, suite
    from simcore.errors import UserError

    from arena.outfiles import check_writable
    path = baseline or suite.BASELINE
    if baseline is not None and Path(baseline).is_dir():
        raise fail(f"--baseline {str(baseline)!r} is a folder; give a baseline JSON file (to write one: "
                   "--update-baseline --baseline FILE)")
    if baseline is not None and not update_baseline and not Path(baseline).exists():
        raise fail(f"--baseline {str(baseline)!r}: no such file (to write one: --update-baseline)")
    try:
        known = suite.load_baseline(path)
        if update_baseline:
            check_writable(path, "the baseline")
    except UserError as e:   # a folder, device or pipe, too large, too deeply nested; a folder to write in
        raise fail(str(e)) from None
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError is a ValueError
        raise fail(f"--baseline {str(path)!r} is not a baseline JSON file ({str(e).splitlines()[0]})") from None
    except OSError as e:
        raise fail(f"--baseline {str(path)!r} cannot be read: {e.strerror or e}") from None
    if known is not None and not isinstance(known, dict):
        raise fail(f"--baseline {str(path)!r} is not a baseline JSON file (not an object)")
    if base is not None and not check:
        raise fail(f"--base {base} is only used by --check; add --check")
    if check and known is None:
        raise fail(f"no baseline at {path}; run `boardsim bench --update-baseline` first")
    commit = None
    if check:
        assert known is not None   # raised above
        try:
            commit = ab.resolve_base(base or known.get("base_commit"))
        except ab.ABError as e:
            raise fail(str(e))
    say = lambda m: typer.echo(f"... {m}", err=True)  # noqa: E731
    try:
        rows, expected = suite.run(quick=quick, baseline=None if update_baseline else known, progress=say)
    except suite.WrongResults as e:
        typer.echo(f"WRONG: {e}", err=True)
        raise typer.Exit(code=1)
    except suite.BenchError as e:
        raise fail(str(e))
    suite.compare_to_baseline(rows, known)
    if json_out:
        for r in rows:
            typer.echo(json.dumps(r))
    else:
        df = pd.DataFrame(rows)
        cols = [c for c in COLUMNS if c in df.columns]
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            typer.echo(df[cols].to_string(index=False, float_format=_num, na_rep=""))
    if update_baseline:
        suite.write_baseline(rows, expected, path, previous=known)
        typer.echo(f"baseline written to {path}", err=True)
    if not check:
        return
    t0 = time.perf_counter()
    m = suite.machine_note()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    say(f"this machine: {m['cpu']}, {m['cores']} cores, load average {load} (1, 5, 15 minutes)")
    try:
        commit, results = ab.compare(commit, quick=quick, say=say, allowed=ab.accepted(known, commit))
    except ab.ABError as e:
        raise fail(str(e))
    except ab.HeadError as e:
        typer.echo(f"FAILED: {e}", err=True)
        raise typer.Exit(code=1)
    if json_out:
        for r in results:
            typer.echo(json.dumps({**r.as_dict(), "base_commit": commit}))
    else:
        typer.echo(f"\nspeed of this working tree (head) against base {commit[:12]}, side by side on this machine: "
                   f"base, head = medians of the runs ({ab.CLOCKS[ab.METRIC]}); ratio = the median of the pairs' "
                   f"ratios head/base (confirmation rounds' after 'then'), below {1 - ab.TOLERANCE:.2f} in all {ab.ROUNDS} rounds fails; "
                   f"pairs = lowest-highest single pair (count); wall ratio = the same from the JSON's games/s")
        typer.echo(_ab_table(results))
    failures = ab.decide(results)
    typer.echo(f"the side-by-side comparison took {time.perf_counter() - t0:.0f} s", err=True)
    if not all(r.same_outcomes for r in results if not r.new):
        typer.echo("note: head and base give different outcomes on some rows (the rules changed?): their speeds "
                   "compare different games", err=True)
    if failures:
        for f in failures:
            typer.echo(f"SLOWER: {f}", err=True)
        raise typer.Exit(code=1)
    acc = [f"{r.row.id} {r.allowed:.2f}" for r in results if r.allowed != 1.0]
    accepted = (f"; slowdowns accepted on purpose against this base (benchmarks/baseline.json): "
                f"{', '.join(acc)}, each checked at {1 - ab.TOLERANCE:.2f} x its ratio") if acc else ""
    typer.echo(f"bench check passed: no row slower than base {commit[:12]} by more than {ab.TOLERANCE:.0%}"
               f"{accepted}", err=True)
