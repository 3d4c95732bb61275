"""`boardsim experiment run FILE` and `boardsim report`."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .errors import user_errors

app = typer.Typer(no_args_is_help=True, help="Balance studies from study files (docs/studies.md).")

Out = Annotated[Optional[Path], typer.Option(help="Folder to write (created; its parent must exist).")]
Quick = Annotated[bool, typer.Option("--quick", help="Use the study files' \\[quick] sizes: minutes, not hours.")]
Seed = Annotated[Optional[int], typer.Option(help="Override the study files' seeds.")]
Threads = Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")]


def _progress_wanted() -> bool:
    return sys.stderr.isatty()


@app.command()
@user_errors
def run(file: Annotated[Path, typer.Argument(help="A study file (TOML), e.g. experiments/studies/seats.toml.")],
        out: Out = None, quick: Quick = False, seed: Seed = None, threads: Threads = None):
    """Run one study file: tables (CSV, Parquet), charts, report.md and report.html in --out."""
    from .report import run_studies
    from .study import load_study
    st = load_study(file, quick=quick, seed=seed)
    out = out or Path(f"study-{st.name}")
    command = f"boardsim experiment run {file}" + (" --quick" if quick else "") + (
        f" --seed {seed}" if seed is not None else "")
    info = run_studies([st], out, threads=threads, show_progress=_progress_wanted(),
                       title=st.title, command=command)
    typer.echo(f"{st.name}: {info['studies'][0]['games']:,} games in {info['seconds']:.0f} s; "
               f"wrote {out}/report.md, {out}/report.html, {out}/tables, {out}/charts")


@user_errors
def report(out: Out = None, quick: Quick = False, seed: Seed = None, threads: Threads = None):
    """Run the five standard studies and write report.md and a self-contained report.html."""
    from .report import run_studies, standard_studies
    studies = standard_studies(quick=quick, seed=seed)
    out = out or Path("report-quick" if quick else "report")
    info = run_studies(studies, out, threads=threads, show_progress=_progress_wanted(),
                       title="boardsim balance report" + (" (quick)" if quick else ""),
                       command="boardsim report" + (" --quick" if quick else "") + (
                           f" --seed {seed}" if seed is not None else ""))
    games = sum(s["games"] for s in info["studies"])
    typer.echo(f"{games:,} games in {info['seconds']:.0f} s; wrote {out}/report.md and "
               f"{out}/report.html (tables in {out}/tables, charts in {out}/charts)")
