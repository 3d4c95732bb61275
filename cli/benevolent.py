"""`boardsim benevolent ...`: seat fairness under a starting-leaves handicap."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.benevolent.batch import simulate as run_simulation
from arena.runner import check_game_index
from arena.units import theta_hash
from simcore.errors import UserError
from simcore.benevolent.rules import load_rules
from arena.trace import write_trace
from arena.benevolent.trace import record_game

from policies import POLICIES, canonical_policy

from arena.outfiles import check_not_input, check_writable, write_csv
from experiments.progress import ProgressBar

from experiments.stats import p_is, pct, seat_fairness, wilson

from .errors import user_errors
from .models import ModelFile, model_thetas
from .sensitivity import add_sensitivity

app = typer.Typer(no_args_is_help=True, help="Benevolent (competitive, 2-4 players).")

Players = Annotated[int, typer.Option(help="Number of players, 2 to 4.")]
Leaves = Annotated[Optional[str], typer.Option(help="Starting leaves by seat, e.g. 1,3,4,5 (default: the rulebook's 1,3,4,5).")]
Policy = Annotated[Optional[str], typer.Option(
    help=f"Policy for every seat ({', '.join(POLICIES['benevolent'])}; default random).")]
Policies = Annotated[Optional[str], typer.Option(
    help="One policy per seat, e.g. heuristic,random,random,random (instead of --policy).")]
RulesFile = Annotated[Optional[str], typer.Option("--rules", metavar="FILE|NAMES", help=(
    "TOML rules file overriding the assumptions, or shipped rules by name: alternative data tables and "
    "switch=value settings, comma-separated (e.g. layout-tight,gather_tile=optional; see docs/benevolent.md)."))]


def seat_policies(policy, policies):
    """--policy and --policies: one or the other (neither: random at every seat), names in any case."""
    if policy is not None and policies is not None:
        raise UserError(f"--policy {policy} and --policies {policies}: give one of them, not both")
    if policies is not None:
        return None, ",".join(canonical_policy(x, "benevolent") for x in policies.split(","))
    return canonical_policy(policy or "random", "benevolent"), None


def _finite(x):
    """A figure for JSON: None where it is not a number (no game decided)."""
    x = float(x)
    return x if x == x else None


def summary_dict(s, rules):
    """The run as one JSON-able dict. Seat fairness is the seats study's (experiments.stats.
    seat_fairness): each seat's share of the decided games with simultaneous Goodman intervals
    (seat_ci95) and the chi-square against equal seats."""
    rates = [w / s.games for w in s.seat_wins[: s.players]]
    fair = seat_fairness(s.seat_wins[: s.players])
    return {
        "game": "benevolent", "games": s.games, "players": s.players, "leaves": list(s.leaves),
        "policies": s.policies, "theta_hashes": [theta_hash(t) for t in s.thetas], "seat_wins": s.seat_wins[: s.players], "seat_win_rates": rates,
        "decided": fair.decided, "seat_shares": [_finite(x) for x in fair.shares],
        "seat_ci95": [[_finite(lo), _finite(hi)] for lo, hi in fair.ci],
        "chi2": _finite(fair.chi2.statistic), "chi2_p": _finite(fair.chi2.pvalue), "seats": fair.verdict,
        "timeouts": s.timeouts, "timeout_ci95": list(wilson(s.timeouts, s.games)),
        "mean_rounds": s.mean_rounds, "games_per_second": s.games_per_second,
        "decisions_per_second": s.decisions_per_second, "seconds": s.seconds, "threads": s.threads,
        "seed": s.seed, "rules": rules.source,
    }


def summary_text(d):
    decided = d["decided"]
    # a timed-out game is won by no seat: equal seats each win 1/players of the decided games
    fair = 1 / d["players"]
    share = (f"a fair share is {pct(fair)} per seat" if not d["timeouts"] else
             f"a fair share is {pct(fair)} per seat of the {decided:,} decided games")
    lines = [f"Benevolent: {d['players']} players, starting leaves {','.join(map(str, d['leaves']))}, "
             f"policies {','.join(d['policies'])}, seed {d['seed']}, rules {d['rules']}",
             f"games        {d['games']:,}   ({share})"]
    for q, (w, r, (lo, hi)) in enumerate(zip(d["seat_wins"], d["seat_shares"], d["seat_ci95"])):
        ci = f"  (95% CI {pct(lo)} to {pct(hi)})" if decided else ""
        lines.append(f"seat {q + 1} ({d['leaves'][q]} {'leaf' if d['leaves'][q] == 1 else 'leaves'})  wins {w:,}  "
                     f"{pct(r) if decided else 'n/a'}{ci}")
    if decided:
        lines.append(f"seats        {d['seats']} (chi-square {p_is(d['chi2_p'])}; simultaneous 95% "
                     "intervals, as in the seats study)")
    else:
        lines.append(f"seats        {d['seats']}")
    lo, hi = d["timeout_ci95"]
    lines += [f"timeouts     {d['timeouts']:,}  {pct(d['timeouts'] / d['games'])}  (95% CI {pct(lo)} to {pct(hi)})",
              f"mean rounds  {d['mean_rounds']:.2f}",
              f"speed        {d['games_per_second']:,.0f} games/s, {d['decisions_per_second']:,.0f} decisions/s "
              f"on {d['threads']} thread{'s' if d['threads'] != 1 else ''} ({d['seconds']:.2f} s)"]
    if d.get("model"):
        lines.append(f"model        {d['model']}")
    return "\n".join(lines)


@app.command()
@user_errors
def simulate(
    players: Players = 4,
    leaves: Leaves = None,
    policy: Policy = None,
    policies: Policies = None,
    games: Annotated[int, typer.Option(help="Number of games.")] = 100_000,
    seed: Annotated[int, typer.Option(help="Master seed.")] = 7,
    threads: Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")] = None,
    rules: RulesFile = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    records: Annotated[Optional[Path], typer.Option(help="Also write one row per game to this CSV file.")] = None,
    model: ModelFile = None,
):
    """Play many games and report each seat's share of the decided games (simultaneous 95% intervals) and
    whether the seats are equal (chi-square), as the seats study does; timeouts and speed."""
    policy, policies = seat_policies(policy, policies)
    names = [policy] * players if policies is None else [x.strip() for x in policies.split(",")]
    thetas, label = model_thetas("benevolent", model, names)
    r = load_rules(rules)
    if records is not None:
        check_not_input({"the records": records}, {"the rules file": rules, "the model file": model})
        check_writable(records, "the records")
    s = run_simulation(players, leaves, policy, games, seed, threads, r, policies=policies,
                       keep_records=records is not None, progress=ProgressBar(),
                       thetas=[thetas.get(n) for n in names] if thetas else None)
    d = summary_dict(s, r)
    d["model"] = None if label is None else f"{label} ({model})"
    if records is not None:
        write_csv(s.records, records)
    typer.echo(json.dumps(d) if json_out else summary_text(d))


@app.command()
@user_errors
def play(
    players: Players = 4,
    leaves: Leaves = None,
    policy: Policy = None,
    policies: Policies = None,
    seed: Annotated[int, typer.Option(help="Master seed.")] = 7,
    game_index: Annotated[int, typer.Option(help="Which game of the run with this seed to play.")] = 0,
    rules: RulesFile = None,
    trace: Annotated[Path, typer.Option(help="Write the game's trace (JSON Lines) here.")] = Path("game.jsonl"),
    model: ModelFile = None,
):
    """Play one game (game GAME_INDEX of `simulate` with this seed) and record its trace."""
    check_game_index(game_index, seed)
    policy, policies = seat_policies(policy, policies)
    names = [policy] * players if policies is None else policies.split(",")
    thetas, label = model_thetas("benevolent", model, names)
    r = load_rules(rules)
    check_not_input({"the trace": trace}, {"the rules file": rules, "the model file": model})
    check_writable(trace, "the trace")
    lines = record_game(players, leaves, policy, seed, game_index, r, policies, model_thetas=thetas,
                        model=None if label is None else f"{label} ({model})")
    write_trace(lines, trace)
    end = lines[-1]
    who = f"seat {end['winner'] + 1} wins" if end["outcome"] == "win" else "timeout"
    typer.echo(f"{who} after {end['turns']} turns; {len(lines)} trace lines written to {trace}")


add_sensitivity(app, "benevolent", default_games=20000)
