"""`boardsim experiment run FILE`, `boardsim experiment status FILE` and `boardsim report`."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from simcore.errors import UserError

from .errors import user_errors

app = typer.Typer(no_args_is_help=True, help="Balance studies from study files (docs/studies.md).")

Quick = Annotated[bool, typer.Option("--quick", help="Use the study files' \\[quick] sizes: minutes, not hours.")]
Seed = Annotated[Optional[int], typer.Option(help="Override the study files' seeds.")]
Threads = Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")]


def _progress_wanted() -> bool:
    return sys.stderr.isatty()


Fresh = Annotated[bool, typer.Option("--fresh", help="Delete the study's results store first and "
                                      "play every game again (default: resume, replaying nothing recorded).")]
Workers = Annotated[Optional[int], typer.Option(help="Play on a new local Dask cluster of N worker processes.")]
Scheduler = Annotated[Optional[str], typer.Option(help="Play on the Dask cluster at this address, "
                                                  "e.g. tcp://HOST:8786.")]
STORE_NAME = "results.sqlite"


def store_path(out: Path) -> Path:
    """Where `experiment run` keeps a study's results store: in its --out folder."""
    return Path(out) / STORE_NAME


@app.command()
@user_errors
def run(file: Annotated[Path, typer.Argument(help="A study file (TOML), e.g. experiments/studies/seats.toml.")],
        out: Annotated[Optional[Path], typer.Option(
            help="Folder to write (created; its parent must exist); default: study-NAME, NAME the "
                 "study file's name.")] = None, quick: Quick = False, seed: Seed = None, threads: Threads = None,
        fresh: Fresh = False, workers: Workers = None, scheduler: Scheduler = None):
    """Run one study file: tables (CSV, Parquet), charts, report.md and report.html in --out.

    Every finished unit of games is recorded in --out/results.sqlite: run the same command again
    after a crash (or Ctrl-C) to resume, or after the end to rebuild the report without playing."""
    import contextlib

    from .cluster import check_options, dask_client
    from .report import _check_out, run_studies
    from .store import Store
    from .study import load_study
    from arena.runner import check_threads
    check_options(workers, scheduler)
    if threads is not None:
        check_threads(threads)
    st = load_study(file, quick=quick, seed=seed)
    if st.kind == "sensitivity" and (workers is not None or scheduler is not None):
        raise UserError(f"{'--workers' if workers is not None else '--scheduler'}: a sensitivity study "
                        "plays in this process (its paired intervals need every game's outcome, which "
                        "the results store and the cluster do not return); leave it out")
    out = out or Path(f"study-{st.name}")
    _check_out(out)
    command = f"boardsim experiment run {file}" + (" --quick" if quick else "") + (
        f" --seed {seed}" if seed is not None else "")
    with contextlib.ExitStack() as stack:
        backend = {}
        if workers is not None or scheduler is not None:  # first: a cluster that fails writes nothing
            client, per_worker = stack.enter_context(dask_client(workers, scheduler, threads))
            backend["client"] = client
            threads = threads or per_worker
        backend["store"] = stack.enter_context(Store(store_path(out), fresh=fresh))
        info = run_studies([st], out, threads=threads, show_progress=_progress_wanted(),
                           title=st.title, command=command, backend=backend)
    s = info["studies"][0]
    if s["played"] == s["games"]:
        where = "all played now"
    elif s["played"] == 0:
        where = f"all read from {store_path(out)}"
    else:
        where = f"{s['played']:,} played now, the rest read from {store_path(out)}"
    typer.echo(f"{st.name}: {s['games']:,} games ({where}) in {info['seconds']:.0f} s; wrote "
               f"{out}/report.md, {out}/report.html, {out}/tables, {out}/charts")


@app.command()
@user_errors
def status(file: Annotated[Path, typer.Argument(help="The study file given to `experiment run`.")],
           out: Annotated[Optional[Path], typer.Option(
               help="The folder given to `experiment run` (default: study-NAME); only read.")] = None):
    """How far a study is: per cell, the games recorded of the games asked so far (reads only,
    so it works while the study runs)."""
    from .runwork import study_status
    from .study import load_study
    st = load_study(file)
    out = out or Path(f"study-{st.name}")
    path = store_path(out)
    if not path.exists():
        raise UserError(f"no results store at {str(path)!r}: run `boardsim experiment run {file}` first "
                        "(with the same --out)")
    typer.echo(f"{st.name}: {path}")
    typer.echo(study_status(path))


@user_errors
def report(out: Annotated[Optional[Path], typer.Option(
               help="Folder to write (created; its parent must exist); default: report, or "
                    "report-quick with --quick.")] = None, quick: Quick = False, seed: Seed = None, threads: Threads = None):
    """Run the seven standard studies and write report.md and a self-contained report.html."""
    from .report import run_studies, standard_studies
    studies = standard_studies(quick=quick, seed=seed)
    out = out or Path("report-quick" if quick else "report")
    bar = _progress_wanted()   # a bar per study on a terminal; in a log, a line as each study finishes
    info = run_studies(studies, out, threads=threads, show_progress=bar,
                       say=None if bar else (lambda line: typer.echo(line, err=True)),
                       title="boardsim balance report" + (" (quick)" if quick else ""),
                       command="boardsim report" + (" --quick" if quick else "") + (
                           f" --seed {seed}" if seed is not None else ""))
    games = sum(s["games"] for s in info["studies"])
    typer.echo(f"{games:,} games in {info['seconds']:.0f} s; wrote {out}/report.md and "
               f"{out}/report.html (tables in {out}/tables, charts in {out}/charts)")
