"""`boardsim calibrate PLAYTESTS.csv`: place a playtest group on the skill dial and predict its win
rate at every setup (experiments/calibrate.py)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from simcore.errors import UserError

from .errors import user_errors

MAX_GAMES = 100_000   # games per setup and temperature of the curves (10 temperatures x 18 setups)


@user_errors
def calibrate(
    playtests: Annotated[Path, typer.Argument(help="A CSV of Bethel Woods playtests: players, spies, won (a row per game).")],
    games: Annotated[int, typer.Option(help="Games per setup and dial temperature of the bots' curves.")] = 400,
    seed: Annotated[int, typer.Option(help="Seed of the bots' games.")] = 61,
    threads: Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object instead of lines.")] = False,
):
    """Place a group of people on the skill dial from their playtests (the likelihood of their wins,
    with a 95% interval), predict their win rate at every player count and difficulty with
    intervals, and say how many more playtests would narrow it (docs/studies.md, "Calibrating a
    group")."""
    from experiments.calibrate import calibrate as run, describe, read_playtests
    if not 20 <= games <= MAX_GAMES:
        raise UserError(f"games {games}: allowed 20 to {MAX_GAMES:,} per setup and temperature")
    if not 0 <= seed <= 2 ** 63 - 1:
        raise UserError(f"seed {seed}: allowed 0 to 2**63 - 1")
    table = read_playtests(playtests)
    from arena.runner import check_threads
    check_threads(threads)
    from experiments.progress import StudyProgress
    with StudyProgress("calibrate") as bar:   # the bots' curves: a bar on a terminal
        res = run(table, games=games, seed=seed, threads=threads, progress=bar)
    if as_json:
        f = res["fit"]
        typer.echo(json.dumps({"dial": {"temperature": f.t_hat, "low": f.t_low, "high": f.t_high,
                                        "strong_end": f.at_strong_end, "weak_end": f.at_weak_end},
                               "predictions": res["predictions"].to_dict(orient="records"),
                               "more_games": res["more_games"], "more_at": list(res["more_at"]),
                               "sim_games": res["sim_games"], "seed": res["seed"], "grid": res["grid"]}))
        return
    for line in describe(res):
        typer.echo(line)
