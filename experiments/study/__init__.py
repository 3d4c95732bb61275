"""Balance studies: a declarative TOML file names what to play; this package checks it
(``spec``), plays it through experiments.run.execute, and turns the counts into tables (pandas),
charts and findings, one module per kind of study, registered in ``RUNNERS``:

- ``difficulty``  Bethel Woods win rate by spies added (0-5) x players x policy; losses by reason,
                  game length, Daydreamer pieces and spies uncovered in lost games.
- ``characters``  Bethel Woods: every character set of each player count on common deals (one
                  seed for every set); logistic regression of win on characters, spies, players;
                  sets that differ from the rest flagged after Holm's correction.
- ``seats``       Benevolent seat win rates with the printed and equal leaves: simultaneous
                  (Goodman) intervals, chi-square against equal seats, Balance, first-seat edge.
- ``handicap``    Benevolent: every non-decreasing starting-leaves vector up to max_leaves played
                  on common random numbers; the fairest few, the smallest change and the printed
                  one confirmed on fresh seeds; the challenger against the printed one on
                  holdout seeds, which decide (adopt it, or keep the printed handicap).
- ``variants``    any rules file(s) against the default rules on the same seeds: paired difference
                  of the win rate with its interval and McNemar's test.
- ``sensitivity`` experiments/sensitivity.py's readings and assumed data as a study.
- ``skill``       either game: the headline setups played by every rung of skill (random to
                  expert) on the same seeds: the answers as a range over skill, the target
                  bands, playtests to notice, first-turn losses (skill_axis.py).
- ``target``      either game: rules knobs tuned until an outcome hits a target (a rate, a gap, a
                  bound or a band), confirmed on fresh games (target_kind.py; experiments/target.py).
- ``targets``     Bethel Woods: the report's "to reach the targets": each designer band at its
                  difficulty and each player count, the smallest rules change into it (targets.py).

What the kinds share is in ``common``. A new kind is a module with a runner
``run_<kind>(st, threads, progress, chart_dir, backend) -> Result``, its keys and defaults in
``spec.KEYS``/``spec.DEFAULTS``/``spec.KINDS``, and a line in ``RUNNERS``.

Every cell is an arena.units.Cell and every table row carries the counts it rests on.
"""
from __future__ import annotations

from pathlib import Path

from .spec import KINDS, Study, load_study, study_from_dict
from .common import Result, study_games
from .difficulty import run_difficulty
from .characters import run_characters
from .seats import run_seats
from .handicap import run_handicap
from .variants import run_variants
from .sensitivity import run_sensitivity
from .skill_axis import run_skill
from .target_kind import run_target_study
from .targets import run_targets


# the registry: each kind's runner (its module: experiments/study/<kind>.py)
RUNNERS = {"difficulty": run_difficulty, "characters": run_characters, "seats": run_seats,
           "handicap": run_handicap, "variants": run_variants, "sensitivity": run_sensitivity,
           "skill": run_skill, "target": run_target_study, "targets": run_targets}

assert set(RUNNERS) == set(KINDS)

__all__ = ["KINDS", "RUNNERS", "Result", "Study", "load_study", "run_study", "save_tables", "study_from_dict"]


def run_study(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    """Play a study. backend: execute's store=/client=/workers=/scheduler= keywords, passed
    to every execute call of the study (a results store; a Dask client opened once)."""
    res = RUNNERS[st.kind](st, threads=threads, progress=progress,
                           chart_dir=Path(chart_dir) if chart_dir is not None else None,
                           backend=backend)
    for a in res.answers:   # a study player's answer says whose it is (a row across skill is every rung's)
        if not a.first and not a.player:
            a.player = st.policies[0]
    res.meta = {"study": st.name, "kind": st.kind, "policy": ",".join(st.policies),
                "seed": st.opts["seed"], "games per cell": study_games(st)}
    return res


def save_tables(res: Result, out_dir) -> list[Path]:
    """Every table as CSV and Parquet: out_dir/<study>_<table>.csv/.parquet."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, df in res.tables.items():
        stem = out / f"{res.study.name}_{name}"
        df.to_csv(stem.with_suffix(".csv"), index=False)
        df.to_parquet(stem.with_suffix(".parquet"), index=False)
        paths += [stem.with_suffix(".csv"), stem.with_suffix(".parquet")]
    return paths
