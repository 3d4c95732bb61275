"""`boardsim report` and `boardsim experiment run`: play studies and write their folder.

A folder holds tables/<study>_<table>.csv and .parquet (one row per cell with its counts),
charts/*.png and .svg, report.md and a self-contained report.html, and run.json (what ran, how
long, on how many threads). Every study file is checked before anything is played or written,
and the files are written into a hidden folder inside it, moved into place only when every study
has finished: a run stopped by an error or Ctrl-C leaves the folder as it was.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

from simcore.errors import UserError

from .progress import StudyProgress
from .render import Section, write_report
from .study import load_study, run_study, save_tables
from .study.handicap import adopted_handicaps
from .study.skill_axis import with_adopted

STUDIES_DIR = Path(__file__).resolve().parent / "studies"
STANDARD = ("difficulty", "characters", "seats", "handicap", "variants", "sensitivity_bethel_woods",
            "sensitivity_benevolent", "targets_bethel_woods", "skill_bethel_woods", "skill_benevolent")


def check_out(out: Path) -> None:
    """UserError unless the folder `out` can be written (made if missing): checked before anything
    is played, so a long run is not lost to a folder it cannot write. A symbolic link is followed
    to a folder; a link that loops or leads nowhere, and a folder that cannot be entered, are
    one-line errors."""
    from arena.outfiles import takes_a_file
    shown = repr(str(out))
    if os.path.islink(out):
        try:
            os.stat(out)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise UserError(f"cannot write {shown}: it is a symbolic link that loops; give a folder") from None
            if e.errno == errno.ENOENT:
                raise UserError(f"cannot write {shown}: it is a symbolic link to {os.readlink(out)!r}, which "
                                "does not exist; give a folder") from None
            raise UserError(f"cannot write {shown}: {e.strerror or e}") from None
    try:
        real = Path(os.path.realpath(out))
        parent = real.parent
        if not parent.is_dir():
            raise UserError(f"cannot write {shown}: the folder {str(parent)!r} does not exist")
        if real.exists() and not real.is_dir():
            raise UserError(f"cannot write {shown}: it is a file, not a folder")
        if real.is_dir():
            os.listdir(real)    # a folder that cannot be read or entered
    except OSError as e:
        raise UserError(f"cannot write {shown}: {e.strerror or e}") from None
    takes_a_file(real if real.is_dir() else parent, shown)


def run_studies(studies, out, threads=None, show_progress=True, title="boardsim balance report",
                command="", backend=None, say=None, replay=None, inputs=(), models=None) -> dict:
    """Play checked studies and write the folder `out`; returns run.json's content.

    say: called with one line as each study finishes (its games and seconds), for a log where
    no bar is drawn (``boardsim report`` with stderr not a terminal).

    backend: execute's store=/client= keywords for every study (``boardsim experiment run``:
    a results store, so games recorded before are read back, not replayed, and a Dask client).
    A study's "games" in run.json are the games it holds; "played" those played in this run.

    models: {game: label} of a user's model (``--model``: backend["model"] plays it), named
    beside the players on the first screen, in the run's details and in run.json.

    replay: called once every study has played, before anything is written, with the number of
    threads; it returns what it found (``experiments.run.store.Replayed``: units of the results store
    played again and compared), which run.json ("replayed") and the report's run table state.
    A unit that replays to other counts raises a UserError there, and nothing is written.

    Files of killed runs (`.partial-*` folders left in `out` with a run's marker) are removed
    first (``_stage``), never one that holds a file of ``inputs`` (the study, rules and variants
    files; the studies' own files are added)."""
    out = Path(out)
    check_out(out)
    from arena.runner import check_threads
    nthreads = check_threads(threads)
    made = not out.exists()
    out.mkdir(exist_ok=True)
    inputs = [*inputs, *(f for st in studies for f in getattr(st, 'files', ()))]
    with _stage(out, inputs) as stage:
        try:
            info = _run_into(studies, stage, nthreads, show_progress, title, command, backend, say, replay, models)
            _move_into(stage, out)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            if made:   # the folder this run made, if nothing else (a results store) is in it
                with contextlib.suppress(OSError):
                    out.rmdir()
            raise
        stage.rmdir()
    return info


STAGE_PREFIX = ".partial-"     # the folder a run writes into, moved into place when it has finished
STARTING_PREFIX = ".starting-"  # the same folder before its lock is taken (a few microseconds)
MARKER = ".boardsim-run"        # the file in such a folder that shows a boardsim run made it
MARKER_TEXT = "a folder that a boardsim run made for its files; a later run removes it if that run was killed\n"


@contextlib.contextmanager
def _stage(out: Path, inputs=()):
    """A new, locked `.partial-*` folder in `out` for this run's files, after removing those that
    earlier runs left when they were killed (SIGKILL, power loss: no `finally` ran). A run holds an
    exclusive flock on its folder while it lives, and the kernel drops it when the process dies,
    so a folder whose lock can be taken is a leftover, and one whose lock is held belongs to a
    run still going (in another shell) and is left alone. The folder is made under another prefix
    and renamed once locked, so no run ever sees an unlocked `.partial-*` folder of a live run.
    Its first file is the marker (MARKER) that proves a run made it: a folder without one is the
    user's, whatever its name, and is never removed (``remove_leftovers``)."""
    import fcntl
    remove_leftovers(out, inputs)
    made = Path(tempfile.mkdtemp(prefix=STARTING_PREFIX, dir=out))
    fd = os.open(made, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        (made / MARKER).write_text(MARKER_TEXT)
        stage = out / (STAGE_PREFIX + made.name[len(STARTING_PREFIX):])
        os.rename(made, stage)
        yield stage
    finally:
        os.close(fd)   # drops the lock (the folder is gone by now, or was removed on an error)
        with contextlib.suppress(OSError):
            (made / MARKER).unlink()
            made.rmdir()


def _made_by_a_run(p: Path) -> bool:
    """p holds the marker a run writes first (a regular file with MARKER_TEXT, not a link)."""
    m = p / MARKER
    try:
        return m.is_file() and not m.is_symlink() and m.read_text() == MARKER_TEXT
    except (OSError, UnicodeDecodeError):
        return False


def _holds_an_input(p: Path, inputs) -> bool:
    """One of the run's input files (through links) lies under the folder p."""
    real = Path(os.path.realpath(p))
    for f in inputs:
        if f is None:
            continue
        for q in {Path(os.path.abspath(f)), Path(os.path.realpath(f))}:
            if q == real or real in q.parents or Path(os.path.abspath(p)) in q.parents:
                return True
    return False


def remove_leftovers(out: Path, inputs=()) -> list[Path]:
    """Remove the `.partial-*` folders of killed runs in `out` (those whose flock can be taken,
    see ``_stage``) and `.starting-*` folders older than a minute. Only a folder that holds the
    marker of a run (``_made_by_a_run``) is removed, and never one that holds an input of this run
    (``inputs``: the study, rules and variants files): a folder of the user's that happens to be
    named so, or a run's folder into which the user put a file this run reads, is left alone.
    Returns what was removed."""
    import fcntl
    gone = []
    for p in sorted(out.glob(STAGE_PREFIX + "*")) + sorted(out.glob(STARTING_PREFIX + "*")):
        if not p.is_dir() or p.is_symlink() or not _made_by_a_run(p) or _holds_an_input(p, inputs):
            continue
        try:
            if p.name.startswith(STARTING_PREFIX):
                if time.time() - p.stat().st_mtime < 60:
                    continue
                shutil.rmtree(p)
                gone.append(p)
                continue
            fd = os.open(p, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue                      # a run is writing there now
            else:
                shutil.rmtree(p)
                gone.append(p)
            finally:
                os.close(fd)
        except FileNotFoundError:
            continue                          # its own run finished meanwhile
    return gone


def _move_into(src: Path, dst: Path) -> None:
    """Every file under `src` to the same place under `dst`, replacing a file of the same name
    (files of earlier runs that this one did not write stay, as when the run wrote in place)."""
    for p in sorted(src.iterdir()):
        if p.name == MARKER and p.parent.name.startswith(STAGE_PREFIX):
            p.unlink()                        # the run's own marker (``_stage``) is not one of its files
            continue
        target = dst / p.name
        if p.is_dir():
            target.mkdir(exist_ok=True)
            _move_into(p, target)
            p.rmdir()
        else:
            os.replace(p, target)


def _run_into(studies, out: Path, nthreads, show_progress, title, command, backend, say=None, replay=None,
              models=None) -> dict:
    sections, runs, answers = [], [], []
    t_all = time.perf_counter()
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    adopted: dict = {}   # the handicaps a handicap study adopted: the Benevolent skill study plays them at every rung
    for i, st in enumerate(studies):
        t0 = time.perf_counter()
        st = with_adopted(st, adopted)
        if backend and backend.get("store") is not None:
            backend["store"].study = st.name   # the store notes what each study asked (`experiment status`)
        with StudyProgress(st.name, enabled=show_progress, say=None if show_progress else say) as bar:
            res = run_study(st, threads=nthreads, progress=bar, chart_dir=out / "charts",
                            backend=backend)
        if st.kind == "handicap":
            adopted.update(adopted_handicaps(res))
        seconds = time.perf_counter() - t0
        save_tables(res, out / "tables")
        sections.append(res.section)
        answers += res.answers
        runs.append({**res.meta, "games": bar.games, "played": bar.played, "seconds": round(seconds, 1),
                     "games_per_second": round(bar.played / seconds) if seconds > 0 else None})
        if say is not None:
            say(f"study {i + 1} of {len(studies)}, {st.name}: {bar.games:,} games in {seconds:.0f} s")
    checked = replay(nthreads) if replay is not None else None
    seconds = time.perf_counter() - t_all
    info = {"command": command, "studies": runs, "seconds": round(seconds, 1),
            "threads": nthreads, "cpus": os.cpu_count(), "load_at_start": load0,
            "load_at_end": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
            "python": platform.python_version()}
    if models:
        info["models"] = dict(models)
    meta = {"command": command or "boardsim report", "studies": ", ".join(s.name for s in studies),
            "games": f"{sum(r['games'] for r in runs):,}",
            "time": f"{seconds:.0f} s on {nthreads} thread{'s' if nthreads != 1 else ''} (load {load0:.1f} at start)"
            if load0 is not None else f"{seconds:.0f} s on {nthreads} thread{'s' if nthreads != 1 else ''}",
            "seeds": ", ".join(f"{r['study']} {r['seed']}" for r in runs),
            "players": players_text(studies) + "".join(
                f"; {g}: learned and expert with {lab} (--model)" for g, lab in (models or {}).items()),
            "tables": "tables/<study>_<table>.csv and .parquet: one row per cell with its counts"}
    if checked is not None:
        info["replayed"] = checked.as_dict()
        meta["replayed"] = replayed_text(checked)
    front = front_page(answers, studies, models)
    lede = (f"{sum(r['games'] for r in runs):,} games, {len(studies)} studies. {players_line(studies, models)}. "
            "Methods: docs/studies.md.")
    sections.append(glossary_section(studies, sections))
    write_report(sections, out, title, meta, front=front, lede=lede)
    (out / "run.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


def front_page(answers, studies, models=None) -> Section:
    """The report's first screen: one table per game of the studies' plain answers (question,
    answer with its interval, verdict, and the answer across skill), each question linking
    to its section; under them what the verdicts mean and which answers this run cannot give."""
    from .answers import VERDICT_NOTE, cannot_say, front_tables
    from .render import Link, slug
    tables = front_tables(answers, skill_players(studies, models), lambda t, a: Link(t, "#" + slug(a)))
    return Section("Answers", "", tables=tables, anchor="answers",
                   after="\n\n".join(x for x in (cannot_say(answers), VERDICT_NOTE) if x))


def skill_players(studies, models=None) -> dict:
    """Per game: "played by X (across skill: W → X → Y)" from the studies (the weaker rung, the
    study player and the stronger one of the skill checks), and the user's model when one was
    played (models: {game: label}, ``--model``)."""
    from .study.common import skill_plan, weaker_rung
    out = {}
    for st in studies:
        games = [st.game]
        plan = skill_plan(st)
        rungs = " → ".join(x for x in (weaker_rung(st), st.policies[0], plan[1] if plan else None) if x)
        for g in games:
            if g in out:
                continue
            out[g] = f"played by {st.policies[0]}" + (f" (across skill: {rungs})" if plan else "")
            if (models or {}).get(g):
                out[g] += f"; learned and expert with {models[g]} (--model)"
    return out


def players_line(studies, models=None) -> str:
    from .glossary import GAME_NAMES
    sp = skill_players(studies, models)
    return "; ".join(f"{GAME_NAMES[g]}: {t.replace('played by ', '')}" for g, t in sp.items())


def glossary_section(studies, sections) -> Section:
    """What the report's words mean: the difficulty levels, the seats, and every rules reading,
    assumed table and rules file it names in plain words, with the code name a study file or the
    CSV tables use."""
    import pandas as pd

    from .glossary import GLOSSARY, rules_file_title
    rows = []
    for st in studies:
        if st.kind == "sensitivity":
            from .sensitivity import variants
            only = st.opts.get("only")
            for name, kind, _ in variants(st.game):
                if only is None or name in only:
                    short, meaning = GLOSSARY.get(name, (name, ""))
                    rows.append({"in the report": short, "code name": name,
                                 "what it means": meaning or "(no plain name yet)"})
        for f in st.files:
            rows.append({"in the report": rules_file_title(f), "code name": f.stem,
                         "what it means": f"the rules file {f.name} of the {st.name} study"})
    seen, uniq = set(), []
    for r in rows:
        if r["code name"] not in seen:
            seen.add(r["code name"])
            uniq.append(r)
    text = ("Bethel Woods difficulty levels are the rulebook's for 1-2 spies added (Hard), 3-4 (Insane) and 5 "
            "(Impossible); the rulebook names no level for the base game, 0 spies, which this report calls Normal. "
            "Seats are numbered from the first player (seat 1 moves first). Benevolent shares are of the decided "
            "games, the games some seat won; a game that reaches the round limit (a timeout) is won by no seat and "
            "counts in completion. pp: percentage points. The rules readings and assumed data tables the report "
            "names, with the code names study files and the CSV tables use:")
    return Section("Glossary", text, tables=[("Plain names and code names", pd.DataFrame(uniq))] if uniq else [],
                   anchor="glossary")


def players_text(studies) -> str:
    """The policies the studies played, per game, the learned player named with its model (the
    study player: policies.STUDY_PLAYER; docs/policies.md)."""
    from policies.registry import modules

    from .glossary import GAME_NAMES
    by_game: dict = {}
    for st in studies:
        games = [st.game] if st.game in GAME_NAMES else list(GAME_NAMES)
        for g in games:
            for pol in st.policies:
                if pol not in by_game.setdefault(g, []):
                    by_game[g].append(pol)
    parts = []
    for g, pols in by_game.items():
        names = []
        for pol in pols:
            if pol == "learned":
                mod = modules(g).learned
                names.append(f"learned (the heuristic's best plans chosen by a learned value; {mod.model_label()})")
            else:
                names.append(pol)
        parts.append(f"{GAME_NAMES[g]}: {', '.join(names)}")
    return "; ".join(parts)


def replayed_text(r) -> str:
    """The report's line for the units a run replayed from its results store."""
    if not r.units:
        return "no units in the results store to replay (a sensitivity study keeps none)"
    return (f"{r.replayed:,} of the {r.units:,} units of the results store played again at random after the run "
            f"and compared: {r.matched:,} matched (`boardsim experiment verify` replays more)")


def standard_studies(quick=False, seed=None, bands=None):
    """The standard studies' files, checked; `bands` (``spec.parse_bands``) replaces the target
    bands of the skill studies (their words and shading), and in the targets study (which plays
    them) the bands its levels name: a band the levels do not name has no difficulty to play at."""
    studies = [load_study(STUDIES_DIR / f"{name}.toml", quick=quick, seed=seed) for name in STANDARD]
    if bands:
        for st in studies:
            if "levels" in st.opts:
                st.opts["bands"] = {**st.opts["bands"], **{k: v for k, v in bands.items() if k in st.opts["levels"]}}
            elif "bands" in st.opts:
                st.opts["bands"] = dict(bands)
    return studies
