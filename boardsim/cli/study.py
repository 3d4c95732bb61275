"""`boardsim experiment run FILE`, `boardsim experiment status FILE` and `boardsim report`."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from simcore.errors import UserError

from .errors import user_errors
from .models import ModelFiles

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
ConnectTimeout = Annotated[Optional[float], typer.Option(
    help="With --scheduler: seconds to connect and complete Dask's handshake before giving up "
         "(default 15).")]
Allow = Annotated[Optional[list[Path]], typer.Option(
    "--allow", help="A file or folder outside the study file's folder that the study file may name "
                    "(rules, variants); repeat for more. Without it such a path is refused.")]
STORE_NAME = "results.sqlite"
RUN_REPLAY_SAMPLE = 2   # units of the store that `experiment run` plays again after a run (docs/scaling.md)
VERIFY_SAMPLE = 10      # units `experiment verify` plays again by default


def store_path(out: Path) -> Path:
    """Where `experiment run` keeps a study's results store: in its --out folder."""
    return Path(out) / STORE_NAME


STORE_SIDE = ("-wal", "-shm", "-journal")   # the files SQLite keeps beside a store


def _written_by_the_run(out: Path, src: Path) -> bool:
    """src (a file the run reads) is a file that a run into `out` writes, replaces or removes: the
    report, run.json, a file under tables/ or charts/, the results store or a file SQLite keeps
    beside it, a store half-made by a killed run, or a file under a hidden `.partial-*` or
    `.starting-*` folder (a run's working folder). Compared through links (symbolic and hard)."""
    from arena.outfiles import same_file
    from experiments.report import STAGE_PREFIX, STARTING_PREFIX
    written = [out / "report.md", out / "report.html", out / "run.json", out / STORE_NAME,
               *(out / (STORE_NAME + side) for side in STORE_SIDE)]
    if any(same_file(w, src) for w in written):
        return True
    real_out = Path(os.path.realpath(out))
    for q in {Path(os.path.abspath(src)), Path(os.path.realpath(src))}:
        for top in (Path(os.path.abspath(out)), real_out):
            if top not in q.parents:
                continue
            first = q.relative_to(top).parts[0]
            if first in ("tables", "charts") or first.startswith((STAGE_PREFIX, STARTING_PREFIX, f".{STORE_NAME}.")):
                return True
    return False


def check_inputs(st, file, out: Path) -> None:
    """UserError if a file the run writes in `out` (report, run.json, tables, charts, its results
    store and SQLite's files beside it, its working folders) is one of its inputs (the study file,
    a rules or variants file it names): the run would replace or remove it. Checked before
    anything plays."""
    for what, src in [("the study file", Path(file)), *(("the rules file", p) for p in st.files)]:
        if _written_by_the_run(out, src):
            raise UserError(f"{what} {str(src)!r} is among the files the run writes in {str(out)!r} (report, "
                            "run.json, tables/, charts/, results store and its -wal/-shm files, .partial-* "
                            "folders): it would be replaced; give another --out or move the file")


def _models(paths, studies, out: Path) -> tuple[dict, dict]:
    """--model files for the studies (``boardsim.cli.models.run_models``), checked before anything plays
    (a model file among the files the run writes in `out` is refused: it would be replaced)."""
    if not paths:
        return {}, {}
    for m in paths:
        if _written_by_the_run(out, Path(m)):
            raise UserError(f"the model file {str(m)!r} is among the files the run writes in {str(out)!r}: it would "
                            "be replaced; give another --out or move the file")
    from experiments.study.common import study_players

    from .models import run_models
    plays: dict = {}
    for st in studies:
        plays.setdefault(st.game, [])
        plays[st.game] += [p for p in study_players(st) if p not in plays[st.game]]
    return run_models(paths, plays)


def _store_and_cluster(stack, out: Path, fresh: bool, workers, scheduler, threads, connect_timeout,
                       study: str | None = None):
    """What `experiment run` and `report` play through, entered on `stack`: a Dask client when
    --workers or --scheduler is given (first: a cluster that fails writes nothing), the results
    store in `out`, and the replay check run after the studies (``run_studies(replay=...)``; a
    unit that replays to other counts is a one-line error and nothing is written). Returns
    (backend, threads, replay)."""
    from experiments.run.cluster import dask_client
    from experiments.run.store import Store
    backend = {}
    if workers is not None or scheduler is not None:
        client, per_worker = stack.enter_context(dask_client(workers, scheduler, threads, connect_timeout))
        backend["client"] = client
        threads = threads or per_worker
    store = backend["store"] = stack.enter_context(Store(store_path(out), fresh=fresh, study=study))

    def replay(nthreads):
        r = store.replay_sample(RUN_REPLAY_SAMPLE, study=study, threads=nthreads, avoid_played=True)
        if r.differ:
            raise UserError(f"results store {str(store.path)!r}: {r.differ[0]}: the store was changed "
                            f"outside boardsim; `boardsim experiment verify --out {out} --sample all` finds "
                            "every such unit, --fresh starts over (no report was written)")
        return r
    return backend, threads, replay


@app.command()
@user_errors
def run(file: Annotated[Path, typer.Argument(help="A study file (TOML), e.g. experiments/studies/seats.toml.")],
        out: Annotated[Optional[Path], typer.Option(
            help="Folder to write (created; its parent must exist); default: study-NAME, NAME the "
                 "study file's name.")] = None, quick: Quick = False, seed: Seed = None, threads: Threads = None,
        fresh: Fresh = False, workers: Workers = None, scheduler: Scheduler = None,
        connect_timeout: ConnectTimeout = None, allow: Allow = None, model: ModelFiles = None):
    """Run one study file: tables (CSV, Parquet), charts, report.md and report.html in --out.

    Every finished unit of games is recorded in --out/results.sqlite: run the same command again
    after a crash (or Ctrl-C) to resume, or after the end to rebuild the report without playing.
    After the run, a few units of the store are played again and compared (the report says how
    many matched); `boardsim experiment verify` replays more."""
    import contextlib

    from arena.outfiles import folder_lock
    from experiments.run.cluster import check_options
    from experiments.report import check_out, run_studies
    from experiments.study import load_study
    from arena.runner import check_threads
    check_options(workers, scheduler, connect_timeout=connect_timeout)
    if connect_timeout is not None and scheduler is None:
        raise UserError(f"--connect-timeout {connect_timeout:g} is only used with --scheduler; add --scheduler")
    if threads is not None:
        check_threads(threads)
    st = load_study(file, quick=quick, seed=seed, allow=allow or ())
    out = out or Path(f"study-{st.name}")
    check_out(out)
    check_inputs(st, file, out)
    thetas, labels = _models(model, [st], out)
    command = f"boardsim experiment run {file}" + (" --quick" if quick else "") + (
        f" --seed {seed}" if seed is not None else "") + "".join(f" --model {m}" for m in model or ())
    with contextlib.ExitStack() as stack:
        stack.enter_context(folder_lock(out))   # one run writes into a folder at a time (refused, not queued)
        backend, threads, replay = _store_and_cluster(stack, out, fresh, workers, scheduler, threads,
                                                      connect_timeout, study=st.name)
        if thetas:
            backend["model"] = thetas
        info = run_studies([st], out, threads=threads, show_progress=_progress_wanted(),
                           title=st.title, command=command, backend=backend, replay=replay,
                           inputs=[file, *(model or ())], models=labels)
    s = info["studies"][0]
    if s["played"] == s["games"]:
        where = "all played now"
    elif s["played"] == 0:
        where = f"all read from {store_path(out)}"
    else:
        where = f"{s['played']:,} played now, the rest read from {store_path(out)}"
    r = info["replayed"]
    typer.echo(f"{st.name}: {s['games']:,} games ({where}) in {info['seconds']:.0f} s; {r['matched']} of "
               f"{r['replayed']} units replayed from the store matched; wrote "
               f"{out}/report.md, {out}/report.html, {out}/tables, {out}/charts")


@app.command()
@user_errors
def status(file: Annotated[Path, typer.Argument(help="The study file given to `experiment run`.")],
           out: Annotated[Optional[Path], typer.Option(
               help="The folder given to `experiment run` (default: study-NAME); only read.")] = None,
           allow: Allow = None):
    """How far a study is: per cell, the games recorded of the games asked so far (reads only,
    so it works while the study runs)."""
    from experiments.run.runwork import study_status
    from experiments.study import load_study
    st = load_study(file, allow=allow or ())
    out = out or Path(f"study-{st.name}")
    path = store_path(out)
    if not path.exists() and not path.is_symlink():
        raise UserError(f"no results store at {str(path)!r}: run `boardsim experiment run {file}` first "
                        "(with the same --out)")
    text = study_status(path, study=st.name)
    typer.echo(f"{st.name}: {path}")
    typer.echo(text)


@app.command()
@user_errors
def verify(out: Annotated[Path, typer.Option(help="The folder given to `experiment run`; only read.")],
           sample: Annotated[str, typer.Option(
               help=f"How many units to play again, chosen at random, or 'all' (default {VERIFY_SAMPLE}).")]
           = str(VERIFY_SAMPLE), threads: Threads = None):
    """Check a study's results store: every row against its checksum and the cells' totals, then
    play units again and compare their counts (a unit is a pure function of its key, so any
    difference means the store was changed). Names every unit that fails; exit 1 if one does."""
    from arena.runner import check_threads

    from experiments.run.store import Store
    if sample == "all":
        k = None
    else:
        try:
            k = int(sample)
        except ValueError:
            k = -1
        if k < 1:
            raise UserError(f"--sample {sample}: must be a whole number, 1 or more, or 'all'")
    nthreads = check_threads(threads)
    path = store_path(out)
    if not path.exists() and not path.is_symlink():
        raise UserError(f"no results store at {str(path)!r}: give the --out folder of `boardsim experiment run`")
    with Store(path, readonly=True, check=False) as s:
        problems = s.problems()
        r = s.replay_sample(k, threads=nthreads)
        st = s.stats()
    for line in problems + r.differ:
        typer.echo(f"FAILED: {line}")
    found = f"{len(problems):,} problem{'s' if len(problems) != 1 else ''}" if problems else "no problem"
    how = "all" if k is None or k >= r.units else "chosen at random"
    typer.echo(f"{path}: {st['units']:,} units of {st['cells']:,} cells checked against their checksums and "
               f"totals: {found}; {r.replayed:,} units played again ({how}): {r.matched:,} matched"
               + (f"; {len(r.differ):,} failed" if r.differ else ""))
    if problems or r.differ:
        raise typer.Exit(code=1)


@user_errors
def report(out: Annotated[Optional[Path], typer.Option(
               help="Folder to write (created; its parent must exist); default: report, or "
                    "report-quick with --quick.")] = None, quick: Quick = False, seed: Seed = None,
           threads: Threads = None, fresh: Fresh = False, workers: Workers = None, scheduler: Scheduler = None,
           connect_timeout: ConnectTimeout = None, model: ModelFiles = None,
           bands: Annotated[Optional[str], typer.Option(
               help="The designer's target win-rate bands the skill study places each difficulty in, "
                    "comma-separated name=LOW-HIGH in percent (default easy=55-65,standard=30-40,hard=10-20; "
                    "docs/studies.md, \"The skill axis\"). Only the words and the chart's shading change: no game "
                    "is played again.")] = None):
    """Run the nine standard studies and write report.md and a self-contained report.html.

    Every finished unit of games is recorded in --out/results.sqlite, as `experiment run` does: run
    the same command again after a crash, a kill or Ctrl-C to play only what is missing, or after
    the end to rebuild the report without playing. `boardsim experiment status STUDY.toml --out
    FOLDER` and `experiment verify --out FOLDER` read it."""
    import contextlib

    from arena.outfiles import folder_lock
    from arena.runner import check_threads
    from experiments.report import check_out, run_studies, standard_studies
    from experiments.run.cluster import check_options
    check_options(workers, scheduler, connect_timeout=connect_timeout)
    if connect_timeout is not None and scheduler is None:
        raise UserError(f"--connect-timeout {connect_timeout:g} is only used with --scheduler; add --scheduler")
    if threads is not None:
        check_threads(threads)
    from experiments.study.spec import parse_bands
    target = parse_bands(bands) if bands is not None else None
    studies = standard_studies(quick=quick, seed=seed, bands=target)
    out = out or Path("report-quick" if quick else "report")
    check_out(out)
    thetas, labels = _models(model, studies, out)
    bar = _progress_wanted()   # a bar per study on a terminal; in a log, a line as each study finishes
    command = ("boardsim report" + (" --quick" if quick else "") + (f" --seed {seed}" if seed is not None else "")
               + (f" --bands {bands}" if bands is not None else "") + "".join(f" --model {m}" for m in model or ()))
    with contextlib.ExitStack() as stack:
        stack.enter_context(folder_lock(out))      # one run writes into a folder at a time (refused, not queued)
        backend, threads, replay = _store_and_cluster(stack, out, fresh, workers, scheduler, threads,
                                                      connect_timeout)
        if thetas:
            backend["model"] = thetas
        if scheduler is None:   # a first run: each game's play loop compiled in its own process, in parallel
            from arena.warm import warm_cache
            warm_cache({st.game for st in studies}, say=lambda line: typer.echo(line, err=True), processes=threads)
        info = run_studies(studies, out, threads=threads, show_progress=bar,
                           say=None if bar else (lambda line: typer.echo(line, err=True)),
                           title="boardsim balance report" + (" (quick)" if quick else ""),
                           command=command, backend=backend, replay=replay, models=labels,
                           inputs=list(model or ()))
    games = sum(s["games"] for s in info["studies"])
    played = sum(s["played"] for s in info["studies"])
    typer.echo(f"{games:,} games ({played:,} played now, the rest read from {store_path(out)}) in "
               f"{info['seconds']:.0f} s; wrote {out}/report.md and {out}/report.html (tables in {out}/tables, "
               f"charts in {out}/charts)")
