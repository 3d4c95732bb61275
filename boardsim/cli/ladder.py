"""`boardsim ladder GAME`: the skill ladder (experiments/ladder.py), its options and its table."""
from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer

from experiments.ladder import BV_BUDGETS, BW_BUDGETS, ladder_benevolent, ladder_bethel_woods, ladder_table
from arena.bethel_woods.batch import MAX_BUDGET
from experiments.progress import ProgressBar
from simcore.errors import UserError

from .errors import fail
from .models import MODEL_POLICIES, ModelFile, model_net

LADDER_GAMES = ("bethel-woods", "benevolent")
MIN_LADDER_GAMES = 2   # a paired difference (each rung against the one below) needs two games


def _parse_budgets(budgets, default):
    if budgets is None:
        return tuple(default)
    try:
        bl = tuple(int(x) for x in budgets.split(","))
    except ValueError:
        raise UserError(f"--budgets {budgets!r}: give whole numbers separated by commas, e.g. 4,8,16") from None
    if not bl or any(not 0 <= b <= MAX_BUDGET for b in bl):
        raise UserError(f"--budgets {budgets!r}: budgets must be 0 to {MAX_BUDGET:,} rollouts per decision (the "
                        "bound of `simulate --budget`; the ladder's defaults are 4 to 16)")
    if len(set(bl)) != len(bl):
        raise UserError(f"--budgets {budgets!r}: give each budget once")
    return bl


def ladder(
    game: Annotated[str, typer.Argument(help="bethel-woods or benevolent.")],
    players: Annotated[Optional[int], typer.Option(help='Players (Bethel Woods 2-4, default 3; Benevolent 2).')] = None,
    spies: Annotated[int, typer.Option(help='Bethel Woods: spies at setup, 0 to 5.')] = 0,
    games: Annotated[int, typer.Option(help='Games per rung (Benevolent: deals per pair, each played twice).')] = 500,
    seed: Annotated[int, typer.Option(help='Master seed: every rung plays the same seeds.')] = 7,
    budgets: Annotated[Optional[str], typer.Option(help=f'The search budgets (rollouts per decision), comma-separated (default: Bethel Woods {",".join(map(str, BW_BUDGETS))}, Benevolent {",".join(map(str, BV_BUDGETS))}).')] = None,
    threads: Annotated[Optional[int], typer.Option(help='Worker threads (default: all cores).')] = None,
    json_out: Annotated[bool, typer.Option('--json', help='Print one JSON object per rung.')] = False,
    model: ModelFile = None,
):
    """The skill ladder: every policy on the same seeds, each rung against the rung below (paired 95% interval and p-value)."""
    try:
        if game not in LADDER_GAMES:
            raise UserError(f"unknown game {game!r}; allowed: {', '.join(LADDER_GAMES)}")
        say = (lambda m: typer.echo(m, err=True)) if sys.stderr.isatty() or not json_out else None
        if games < MIN_LADDER_GAMES:
            raise UserError(f"--games {games}: the ladder's paired intervals need {MIN_LADDER_GAMES} games at least")
        gname = game.replace("-", "_")
        if game == "bethel-woods":
            bl = _parse_budgets(budgets, BW_BUDGETS)
            net, label = model_net(gname, model, MODEL_POLICIES)
            rows = ladder_bethel_woods(3 if players is None else players, spies, games, seed, threads, bl,
                                       progress_factory=ProgressBar, say=say, net=net)
        else:
            if spies:
                raise UserError(f"--spies {spies}: Benevolent has no spies; allowed: 0 (leave --spies out)")
            bl = _parse_budgets(budgets, BV_BUDGETS)
            net, label = model_net(gname, model, MODEL_POLICIES)
            rows = ladder_benevolent(2 if players is None else players, games, seed, threads, bl, say=say,
                                     progress_factory=ProgressBar, net=net)
    except UserError as e:
        raise fail(str(e).splitlines()[0]) from None
    if label is not None:
        for r in rows:
            r["model"] = f"{label} ({model})" if r["name"] in MODEL_POLICIES else None
    if json_out:
        for r in rows:
            typer.echo(json.dumps(r))
    else:
        typer.echo(ladder_table(rows, "benevolent" if game == "benevolent" else "bethel_woods"))
        if label is not None:
            typer.echo(f"learned and expert: {label} ({model})")
