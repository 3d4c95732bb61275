"""`boardsim bench`: the benchmark table, the regression check and the baseline."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import pandas as pd
import typer

from .errors import fail

COLUMNS = ["id", "threads", "games_per_second", "decisions_per_second", "ratio", "normalized", "vs_baseline",
           "seconds", "peak_rss_mb"]


def bench(
    quick: Annotated[bool, typer.Option(help="Short runs only (about a minute): no compile, start-up or memory rows.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per row, one per line.")] = False,
    check: Annotated[bool, typer.Option(help="Exit 1 naming every normalised figure more than 25% below the baseline.")] = False,
    update_baseline: Annotated[bool, typer.Option(help="Rewrite the baseline with these figures and a note of the machine.")] = False,
    baseline: Annotated[Optional[Path], typer.Option(help="Baseline file (default: benchmarks/baseline.json).")] = None,
):
    """Benchmark every game and policy: games/s and decisions/s on 1 and 2 threads (each also normalised by a calibration kernel), the reference engine on the same games, compile and start-up times, memory."""
    from benchmarks import suite
    path = baseline or suite.BASELINE
    base = suite.load_baseline(path)
    if check and base is None:
        raise fail(f"no baseline at {path}; run `boardsim bench --update-baseline` first")
    try:
        rows, expected = suite.run(quick=quick, baseline=None if update_baseline else base,
                                   progress=lambda m: typer.echo(f"... {m}", err=True))
    except suite.BenchError as e:
        raise fail(str(e))
    failures = suite.check(rows, base) if base is not None else []
    if json_out:
        for r in rows:
            typer.echo(json.dumps(r))
    else:
        df = pd.DataFrame(rows)
        cols = [c for c in COLUMNS if c in df.columns]
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            typer.echo(df[cols].to_string(index=False, float_format=lambda x: f"{x:,.4g}", na_rep=""))
    if update_baseline:
        suite.write_baseline(rows, expected, path, previous=base)
        typer.echo(f"baseline written to {path}", err=True)
    if check:
        if failures:
            for f in failures:
                typer.echo(f"SLOWER: {f}", err=True)
            raise typer.Exit(code=1)
        typer.echo(f"bench check passed: every normalised figure within {suite.TOLERANCE:.0%} of the baseline",
                   err=True)
