"""`boardsim bethel-woods ...`: simulate many games, or play and record one (the commands' bodies:
game_commands.py; here what is Bethel Woods' own)."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from arena.bethel_woods.batch import BUDGETS, SEARCH_POLICIES, policy_label, simulate as run_simulation
from arena.units import theta_hash
from arena.bethel_woods.trace import record_game
from simcore.games import BETHEL_WOODS

from policies import POLICIES, canonical_policy

from experiments.stats import pct, spies_label, wilson

from .game_commands import GameCommands, add_game_commands, option
from .sensitivity import add_sensitivity

app = typer.Typer(no_args_is_help=True, help="Bethel Woods (cooperative, 2-4 players).")

Players = Annotated[int, typer.Option(help="Number of players, 2 to 4.")]
Spies = Annotated[int, typer.Option(help="Spies added at setup (difficulty), 0 to 5.")]
Characters = Annotated[Optional[str], typer.Option(
    help="Comma-separated characters, one per seat (Nova, Harris, Junas, Linny, Violet, Fenn, Rone, Fare); "
         "default: each game's characters dealt at random from its seed.")]
Policy = Annotated[str, typer.Option(help=f"Policy for every seat ({', '.join(POLICIES['bethel_woods'])})." )]
Budget = Annotated[Optional[int], typer.Option(
    help="Rollouts per decision of policies search (default 8; 0 or 1: the heuristic's own plan) and expert "
         "(default 16; 0: the learned player's own choice); for those two only.")]

OPTIONS = [option("players", Players, 3), option("spies", Spies, 0), option("characters", Characters, None),
           option("policy", Policy, "random"), option("budget", Budget, None)]


def setup(o):
    """The policy name in any case as the known name; every seat plays it."""
    o = {**o, "policy": canonical_policy(o["policy"], "bethel_woods")}
    return o, [o["policy"]]


def simulate(o, names, games, seed, threads, rules, net, keep_records, progress):
    return run_simulation(o["players"], o["spies"], o["characters"], o["policy"], games, seed, threads, rules,
                          keep_records=keep_records, progress=progress, budget=o["budget"], net=net)


def record(o, seed, game_index, rules, net, model):
    return record_game(o["players"], o["spies"], o["characters"], o["policy"], seed, game_index, rules,
                       budget=o["budget"], net=net, model=model)


def summary_fields(s, o):
    lo, hi = wilson(s.wins, s.games)
    return {
        "spies": s.spies, "characters": s.characters or "random", "policy": s.policy,
        "policy_label": policy_label(s.policy, o["budget"]), "theta_hash": theta_hash(s.theta, s.net),
        "budget": (int(s.theta[BUDGETS[s.policy][0]]) if s.policy in SEARCH_POLICIES else None),
        "wins": s.wins, "win_rate": s.win_rate, "ci95": [lo, hi],
        "losses": dict(s.losses),
        "loss_ci95": {r: list(wilson(n, s.games)) for r, n in s.losses.items()},
        "mean_turns": s.mean_turns, "mean_daydreamer_built": s.built / s.games,
        "mean_spies_uncovered": s.uncovered / s.games, "mean_malfunctions_fixed": s.fixed / s.games,
    }


def summary_lines(d):
    chars = d["characters"] if d["characters"] == "random" else ",".join(d["characters"])
    lines = [
        f"Bethel Woods: {d['players']} players, {spies_label(d['spies'])}, characters {chars}, "
        f"policy {d['policy_label']} (theta {d['theta_hash']}), seed {d['seed']}, rules {d['rules']}",
        f"games        {d['games']:,}",
        f"wins         {d['wins']:,}   win rate {pct(d['win_rate'])}  "
        f"(95% CI {pct(d['ci95'][0])} to {pct(d['ci95'][1])})",
    ]
    for r, n in d["losses"].items():
        lo, hi = d["loss_ci95"][r]
        lines.append(f"lost: {r:<14} {n:,}   {pct(n / d['games'])}  (95% CI {pct(lo)} to {pct(hi)})")
    lines.append(
        f"mean turns   {d['mean_turns']:.2f}   (Daydreamer pieces {d['mean_daydreamer_built']:.2f}, "
        f"spies uncovered {d['mean_spies_uncovered']:.2f}, malfunctions fixed {d['mean_malfunctions_fixed']:.2f})")
    return lines


def ended(end):
    return f"{end['outcome']} after {end['turns']} turns, {end['daydreamer_built']} Daydreamer pieces"


COMMANDS = GameCommands(
    game=BETHEL_WOODS, options=OPTIONS, setup=setup, simulate=simulate, record=record,
    fields=summary_fields, lines=summary_lines, ended=ended,
    simulate_help="Play many games and report the win rate (95% Wilson interval), losses by reason and speed.",
    play_help="Play one game (the same as game GAME_INDEX of `simulate` with this seed) and record its trace.",
    seed_help="Master seed: the same seed gives the same games.",
    json_help="Print one JSON object instead of the table.",
    rules_example="machines-b,four_critical=immediate; see the game's docs",
)
add_game_commands(app, COMMANDS)
add_sensitivity(app, "bethel_woods", default_games=2000)
