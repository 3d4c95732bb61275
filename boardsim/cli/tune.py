"""`boardsim tune GAME`: tune the heuristic's weights (experiments/tune.py), write the record,
install a confirmed vector."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.outfiles import check_writable, write_text
from experiments.tune import tune_benevolent, tune_bethel_woods
from simcore.errors import UserError

from .errors import user_errors

TUNE_GAMES = ("bethel-woods", "benevolent")

MAX_TUNE_SEED = (2 ** 63 - 1 - 999) // 1000  # the confirmation plays seed * 1000 + 999


@user_errors
def tune(
    game: Annotated[str, typer.Argument(help="bethel-woods or benevolent.")],
    players: Annotated[Optional[int], typer.Option(help="Players, 2 to 4 (default: Bethel Woods 3, Benevolent 2).")] = None,
    spies: Annotated[int, typer.Option(help="Bethel Woods: spies at setup, 0 to 5.")] = 0,
    budget_games: Annotated[int, typer.Option(help="Games to spend on the tuning (confirmation not counted).")] = 100_000,
    games_per_candidate: Annotated[Optional[int], typer.Option(help="Games each candidate plays per generation (default: Bethel Woods 500; Benevolent 1000, a multiple of the players: each deal once with the candidate in every seat).")] = None,
    popsize: Annotated[Optional[int], typer.Option(help="CMA-ES population (default: the package's, 4 + 3 ln(weights): 13 for Bethel Woods' 24, 11 for Benevolent's 13).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the tuning (generation g plays seed*1000+g; confirmation seed*1000+999).")] = 1,
    confirm_games: Annotated[int, typer.Option(help="Games of the confirmation on fresh seeds (Benevolent: a multiple of the players).")] = 20_000,
    sigma0: Annotated[float, typer.Option(help="CMA-ES's initial step, as a fraction of every weight's bound width.")] = 0.03,
    threads: Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")] = None,
    record: Annotated[Path, typer.Option(help="Write the run's record (JSON) here.")] = Path("tune_record.json"),
    install: Annotated[bool, typer.Option(help="Write a confirmed vector into the package (policies/<game>/tuned.json).")] = True,
):
    """Tune the heuristic's weights for win rate with CMA-ES (common random numbers), confirm on fresh seeds, install if confirmed.

    Bethel Woods: the team's win rate. Benevolent: the candidate against the default heuristic in
    the other seats, seats rotated over the same deals."""

    say = lambda m: typer.echo(m, err=True)  # noqa: E731
    if game not in TUNE_GAMES:
        raise UserError(f"unknown game {game!r} for tune; allowed: {', '.join(TUNE_GAMES)}")
    if budget_games < 1:
        raise UserError(f"budget-games {budget_games}: allowed 1 or more")
    if confirm_games < 2:
        raise UserError(f"confirm-games {confirm_games}: allowed 2 or more")
    if not 0 < sigma0 <= 0.5:
        raise UserError(f"sigma0 {sigma0}: allowed above 0 and at most 0.5")
    if popsize is not None and popsize < 2:
        raise UserError(f"popsize {popsize}: allowed 2 or more")
    if not 0 <= seed <= MAX_TUNE_SEED:  # generation g plays seed*1000+g, the confirmation seed*1000+999
        raise UserError(f"seed {seed} is not allowed; tune takes 0 to {MAX_TUNE_SEED:,}")
    if game == "bethel-woods":
        from simcore.bethel_woods.face import check_setup_args
        players = 3 if players is None else players
        check_setup_args(players, spies)
        check_writable(record, "the record")
        rec = tune_bethel_woods(players, spies, budget_games, 500 if games_per_candidate is None else games_per_candidate, popsize, seed, sigma0,
                                confirm_games=confirm_games, threads=threads, say=say)
    else:
        from simcore.benevolent.face import check_players
        if spies:
            raise UserError(f"spies {spies}: Benevolent has no spies; allowed: 0 (leave --spies out)")
        players = 2 if players is None else players
        check_players(players)
        check_writable(record, "the record")
        rec = tune_benevolent(players, budget_games, 1000 if games_per_candidate is None else games_per_candidate, popsize, seed, sigma0,
                              confirm_games=confirm_games, threads=threads, say=say)
    write_text(record, json.dumps(rec, indent=1) + "\n", "the record")
    typer.echo(f"record written to {record}")
    if install and rec["confirmed"]:
        from policies.tuned import tuned_path
        write_text(tuned_path(game), json.dumps(rec, indent=1) + "\n", "the tuned weights")
        typer.echo(f"confirmed: installed as {tuned_path(game)} (--policy tuned)")
    elif not rec["confirmed"]:
        typer.echo("not confirmed on fresh seeds: nothing installed")
