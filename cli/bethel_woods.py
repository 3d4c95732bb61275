"""`boardsim bethel-woods ...`: simulate many games, or play and record one."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.bethel_woods.batch import BUDGETS, SEARCH_POLICIES, policy_label, simulate as run_simulation
from arena.runner import check_game_index
from arena.units import theta_hash
from simcore.bethel_woods.rules import load_rules
from arena.bethel_woods.trace import record_game
from arena.trace import write_trace

from policies import POLICIES, canonical_policy

from arena.outfiles import check_not_input, check_writable, write_csv
from experiments.progress import ProgressBar

from experiments.stats import pct, spies_label, wilson

from .errors import user_errors
from .models import ModelFile, model_thetas
from .sensitivity import add_sensitivity

app = typer.Typer(no_args_is_help=True, help="Bethel Woods (cooperative, 2-4 players).")

Players = Annotated[int, typer.Option(help="Number of players, 2 to 4.")]
Spies = Annotated[int, typer.Option(help="Spies added at setup (difficulty), 0 to 5.")]
Characters = Annotated[Optional[str], typer.Option(
    help="Comma-separated characters, one per seat (Nova, Harris, Junas, Linny, Violet, Fenn, Rone, Fare); "
         "default: each game's characters dealt at random from its seed.")]
Policy = Annotated[str, typer.Option(help=f"Policy for every seat ({', '.join(POLICIES['bethel_woods'])})." )]
Seed = Annotated[int, typer.Option(help="Master seed: the same seed gives the same games.")]
Budget = Annotated[Optional[int], typer.Option(
    help="Rollouts per decision of policies search (default 8; 0 or 1: the heuristic's own plan) and expert "
         "(default 16; 0: the learned player's own choice); for those two only.")]
RulesFile = Annotated[Optional[str], typer.Option("--rules", metavar="FILE|NAMES", help=(
    "TOML rules file overriding the assumptions, or shipped rules by name: alternative data tables and "
    "switch=value settings, comma-separated (e.g. machines-b,four_critical=immediate; see the game's docs)."))]


def summary_dict(s, rules, budget=None):
    lo, hi = wilson(s.wins, s.games)
    return {
        "game": "bethel_woods", "games": s.games, "players": s.players, "spies": s.spies,
        "characters": s.characters or "random", "policy": s.policy,
        "policy_label": policy_label(s.policy, budget), "theta_hash": theta_hash(s.theta),
        "budget": (int(s.theta[BUDGETS[s.policy][0]]) if s.policy in SEARCH_POLICIES else None),
        "wins": s.wins, "win_rate": s.win_rate, "ci95": [lo, hi],
        "losses": dict(s.losses),
        "loss_ci95": {r: list(wilson(n, s.games)) for r, n in s.losses.items()},
        "mean_turns": s.mean_turns, "mean_daydreamer_built": s.built / s.games,
        "mean_spies_uncovered": s.uncovered / s.games, "mean_malfunctions_fixed": s.fixed / s.games,
        "games_per_second": s.games_per_second, "decisions_per_second": s.decisions_per_second,
        "seconds": s.seconds, "threads": s.threads, "seed": s.seed, "rules": rules.source,
    }


def summary_text(d):
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
    lines += [
        f"mean turns   {d['mean_turns']:.2f}   (Daydreamer pieces {d['mean_daydreamer_built']:.2f}, "
        f"spies uncovered {d['mean_spies_uncovered']:.2f}, malfunctions fixed {d['mean_malfunctions_fixed']:.2f})",
        f"speed        {d['games_per_second']:,.0f} games/s, {d['decisions_per_second']:,.0f} decisions/s "
        f"on {d['threads']} thread{'s' if d['threads'] != 1 else ''} ({d['seconds']:.2f} s)",
    ]
    if d.get("model"):
        lines.append(f"model        {d['model']}")
    return "\n".join(lines)


@app.command()
@user_errors
def simulate(
    players: Players = 3,
    spies: Spies = 0,
    characters: Characters = None,
    policy: Policy = "random",
    budget: Budget = None,
    games: Annotated[int, typer.Option(help="Number of games.")] = 100_000,
    seed: Seed = 7,
    threads: Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")] = None,
    rules: RulesFile = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")] = False,
    records: Annotated[Optional[Path], typer.Option(help="Also write one row per game to this CSV file.")] = None,
    model: ModelFile = None,
):
    """Play many games and report the win rate (95% Wilson interval), losses by reason and speed."""
    policy = canonical_policy(policy, "bethel_woods")
    thetas, label = model_thetas("bethel_woods", model, [policy])
    r = load_rules(rules)
    if records is not None:
        check_not_input({"the records": records}, {"the rules file": rules, "the model file": model})
        check_writable(records, "the records")
    s = run_simulation(players, spies, characters, policy, games, seed, threads, r,
                       keep_records=records is not None, progress=ProgressBar(), budget=budget,
                       theta=thetas.get(policy))
    d = summary_dict(s, r, budget)
    d["model"] = None if label is None else f"{label} ({model})"
    if records is not None:
        write_csv(s.records, records)
    typer.echo(json.dumps(d) if json_out else summary_text(d))


@app.command()
@user_errors
def play(
    players: Players = 3,
    spies: Spies = 0,
    characters: Characters = None,
    policy: Policy = "random",
    budget: Budget = None,
    seed: Seed = 7,
    game_index: Annotated[int, typer.Option(help="Which game of the run with this seed to play.")] = 0,
    rules: RulesFile = None,
    trace: Annotated[Path, typer.Option(help="Write the game's trace (JSON Lines) here.")] = Path("game.jsonl"),
    model: ModelFile = None,
):
    """Play one game (the same as game GAME_INDEX of `simulate` with this seed) and record its trace."""
    check_game_index(game_index, seed)
    policy = canonical_policy(policy, "bethel_woods")
    thetas, label = model_thetas("bethel_woods", model, [policy])
    r = load_rules(rules)
    check_not_input({"the trace": trace}, {"the rules file": rules, "the model file": model})
    check_writable(trace, "the trace")
    lines = record_game(players, spies, characters, policy, seed, game_index, r, budget=budget,
                        theta=thetas.get(policy), model=None if label is None else f"{label} ({model})")
    write_trace(lines, trace)
    end = lines[-1]
    typer.echo(f"{end['outcome']} after {end['turns']} turns, {end['daydreamer_built']} Daydreamer pieces; "
               f"{len(lines)} trace lines written to {trace}")


add_sensitivity(app, "bethel_woods", default_games=2000)
