"""`boardsim target GAME`: one knob tuned until an outcome hits a designer's target
(experiments/target.py, docs/target.md)."""
from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from .errors import user_errors


@user_errors
def target(
    game: Annotated[str, typer.Argument(help="bethel-woods or benevolent.")],
    knob: Annotated[list[str], typer.Option(help="The knob: a whole-number rules key (Bethel Woods knowledge_limit, "
                                                 "critical_knowledge_limit, malfunctions_per_turn; Benevolent "
                                                 "timeout_rounds), Bethel Woods' spies, or Benevolent's seatK_leaves. "
                                                 "Repeat with --range for several knobs at once.")],
    range_: Annotated[list[str], typer.Option("--range", help="The knob's values to search, LO-HI (whole numbers), "
                                                              "e.g. 4-9; for a switch or component table, all or "
                                                              "names with commas; one per --knob, in order.")],
    rate: Annotated[Optional[float], typer.Option("--target", help="The outcome's target value, e.g. 0.40 (a rate "
                                                                   "strictly between 0 and 1).")] = None,
    at_most: Annotated[Optional[float], typer.Option("--at-most", help="Instead of --target: a bound the outcome "
                                                                      "must not exceed, e.g. 0.03 for a gap.")] = None,
    band: Annotated[Optional[str], typer.Option(help="Instead of --target: a band of rates to land in, LOW-HIGH in "
                                                     "percent, e.g. 30-40 (aims at the middle).")] = None,
    keep_rate: Annotated[Optional[str], typer.Option(help="With a gap or edge outcome: keep the first rate (at "
                                                          "--players, --seat's, or the teams with the character) "
                                                          "in LOW-HIGH percent while the gap closes, e.g. 30-60 "
                                                          "(a gap also closes when nobody wins).")] = None,
    outcome: Annotated[Optional[str], typer.Option(help="Bethel Woods: win (default), gap:Q, the gap between the "
                                                        "win rates at --players and at Q players, or edge:CHARACTER, "
                                                        "the win rate of teams with the character minus teams "
                                                        "without (e.g. edge:Violet); Benevolent: "
                                                        "seat-win (default) or seat-gap:J, the gap between --seat's "
                                                        "and seat J's win rates.")] = None,
    players: Annotated[str, typer.Option(help="Players, 2 to 4; several, comma-separated (e.g. 2,3,4): one change "
                                              "for all of them, the rate getting there at each.")] = "3",
    spies: Annotated[int, typer.Option(help="Bethel Woods: spies at setup, 0 to 5 (when the knob is not spies).")] = 0,
    seat: Annotated[int, typer.Option(help="Benevolent: the seat whose win rate is the outcome (1 = first).")] = 1,
    player: Annotated[Optional[str], typer.Option(help="The player in every seat (default: the study player, learned).")] = None,
    budget_games: Annotated[Optional[int], typer.Option(help="Games the search may spend (the confirmation not counted); "
                                                             "default 6000 for one knob, 20000 for several.")] = None,
    confirm_games: Annotated[int, typer.Option(help="Fresh games that confirm the recommendation (and as many the "
                                                    "alternative; several knobs: each Pareto point).")] = 2000,
    games_per_trial: Annotated[int, typer.Option(help="Several knobs: games per trial of the search.")] = 500,
    seed: Annotated[int, typer.Option(help="Seed of the search and of the confirmation's fresh seeds.")] = 1,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the text.")] = False,
):
    """Find the knob value whose outcome is closest to the target (bisection with batched games and
    sequential intervals), then confirm it, and the nearest value on the other side, on fresh games.
    With several knobs (--knob K --range LO-HI, repeated): an Optuna search, the Pareto set of
    distance to the target against rules changed, each point confirmed on fresh games, the smallest
    change that gets there and a different one."""
    from dataclasses import asdict

    from experiments.target import is_categorical, knob_range, problem, result_text, run_target
    from policies import STUDY_PLAYER
    from simcore.errors import UserError
    from simcore.games import game as game_of
    g = game_of(game)
    if seed < 0 or seed >= 2 ** 63:
        raise UserError(f"seed {seed} is not allowed; use 0 to 2**63-1")
    if len(knob) != len(range_):
        raise UserError(f"{len(knob)} --knob and {len(range_)} --range: give one --range per --knob, in order")
    if sum(x is not None for x in (rate, at_most, band)) != 1:
        raise UserError("give exactly one of --target (a value to hit), --at-most (a bound) and --band (LOW-HIGH)")
    bounds = _percent_range(band, "band", "30-40")
    keep = _percent_range(keep_rate, "keep-rate", "30-60")
    counts = _player_counts(players)
    if (len(knob) > 1 or outcome is not None or at_most is not None or bounds is not None
            or any(is_categorical(g, k) for k in knob) or keep is not None or len(counts) > 1):
        return _several(g, knob, range_, rate if at_most is None else at_most, at_most is not None, outcome,
                        counts if len(counts) > 1 else counts[0], spies, seat, player or STUDY_PLAYER[g.name],
                        20000 if budget_games is None else budget_games, confirm_games, games_per_trial, seed,
                        json_out, bounds, keep)
    assert rate is not None
    pr = problem(g, knob[0], counts[0], player or STUDY_PLAYER[g.name], spies=spies, seat=seat)
    lo, hi = knob_range(g, knob[0], range_[0])
    res = run_target(pr, lo, hi, rate, 6000 if budget_games is None else budget_games, confirm_games, seed)
    if json_out:
        typer.echo(json.dumps({"game": g.name, "knob": knob[0], "range": [lo, hi], "outcome": pr.outcome,
                               "player": pr.player, "players": counts[0], "seed": seed, **asdict(res)}))
    else:
        typer.echo(result_text(pr, res, g.title))


def _player_counts(text: str) -> tuple[int, ...]:
    """'3' -> (3,), '2,3,4' -> (2, 3, 4); a one-line UserError for anything else (the counts
    themselves are checked by the game)."""
    from simcore.errors import UserError
    try:
        return tuple(int(x) for x in str(text).split(","))
    except ValueError:
        raise UserError(f"--players {text!r}: give a player count, or several comma-separated, e.g. 2,3,4") from None


def _percent_range(text, what: str, example: str):
    """'LOW-HIGH' in percent as (low, high) rates; None for None; a one-line UserError otherwise."""
    from simcore.errors import UserError
    if text is None:
        return None
    try:
        lo_s, _, hi_s = text.partition("-")
        return float(lo_s) / 100, float(hi_s) / 100
    except ValueError:
        raise UserError(f"{what} {text!r}: give LOW-HIGH in percent, e.g. {example}") from None


def _several(g, knobs, ranges, rate, at_most, outcome, players, spies, seat, player, budget_games, confirm_games,
             games_per_trial, seed, json_out, band=None, keep=None):
    """`boardsim target` with several knobs (or a categorical one, or an outcome that is not one
    rate to hit): the Pareto set, the smallest change, an alternative."""
    from dataclasses import asdict

    from experiments.target import check_spans, knob_span, problem_multi, result_text_multi, run_target_multi
    from simcore.errors import UserError
    pr = problem_multi(g, list(knobs), players, player, spies=spies, seat=seat, outcome=outcome, at_most=at_most,
                       keep=keep)
    spans = {k: knob_span(g, k, r, check=False) for k, r in zip(knobs, ranges)}
    check_spans(g, spans)
    if band is not None and pr.search_outcome.kind not in ("rate", "rates"):
        raise UserError(f"--band is for a rate; outcome {outcome!r} takes --target or --at-most")
    res = run_target_multi(pr, spans, 0.5 if rate is None else rate, budget_games, games_per_trial, confirm_games,
                           seed, band=band)
    if json_out:
        d = asdict(res)
        for p in list(d["pareto"]) + ([d["smallest"]] if d["smallest"] else []) + ([d["alternative"]] if d["alternative"] else []):
            p["setting_names"] = {k: pr.label(k, v) for k, v in p["setting"].items()}
        d["search_outcome"] = d.pop("outcome")    # the search's Outcome; "outcome" is the words
        typer.echo(json.dumps({"game": g.name, "knobs": {k: list(v) for k, v in spans.items()},
                               "labels": pr.labels or {}, "outcome": pr.outcome, "player": pr.player,
                               "players": players, "seed": seed, **d}))
    else:
        typer.echo(result_text_multi(pr, res, g.title))
