"""`boardsim benevolent ...`: seat fairness under a starting-leaves handicap (the commands' bodies:
game_commands.py; here what is Benevolent's own)."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from arena.benevolent.batch import simulate as run_simulation
from arena.units import theta_hash
from simcore.errors import UserError
from simcore.games import BENEVOLENT
from arena.benevolent.trace import record_game

from policies import POLICIES, canonical_policy

from experiments.stats import p_is, pct, seat_fairness, wilson

from .game_commands import GameCommands, add_game_commands, option
from .sensitivity import add_sensitivity

app = typer.Typer(no_args_is_help=True, help="Benevolent (competitive, 2-4 players).")

Players = Annotated[int, typer.Option(help="Number of players, 2 to 4.")]
Leaves = Annotated[Optional[str], typer.Option(help="Starting leaves by seat, e.g. 1,3,4,5 (default: the rulebook's 1,3,4,5).")]
Policy = Annotated[Optional[str], typer.Option(
    help=f"Policy for every seat ({', '.join(POLICIES['benevolent'])}; default random).")]
Policies = Annotated[Optional[str], typer.Option(
    help="One policy per seat, e.g. heuristic,random,random,random (instead of --policy).")]

OPTIONS = [option("players", Players, 4), option("leaves", Leaves, None), option("policy", Policy, None),
           option("policies", Policies, None)]


def seat_policies(policy, policies):
    """--policy and --policies: one or the other (neither: random at every seat), names in any case."""
    if policy is not None and policies is not None:
        raise UserError(f"--policy {policy} and --policies {policies}: give one of them, not both")
    if policies is not None:
        return None, ",".join(canonical_policy(x, "benevolent") for x in policies.split(","))
    return canonical_policy(policy or "random", "benevolent"), None


def setup(o):
    policy, policies = seat_policies(o["policy"], o["policies"])
    names = [policy] * o["players"] if policies is None else [x.strip() for x in policies.split(",")]
    return {**o, "policy": policy, "policies": policies}, names


def simulate(o, names, games, seed, threads, rules, net, keep_records, progress):
    return run_simulation(o["players"], o["leaves"], o["policy"], games, seed, threads, rules, policies=o["policies"],
                          keep_records=keep_records, progress=progress, net=net)


def record(o, seed, game_index, rules, net, model):
    return record_game(o["players"], o["leaves"], o["policy"], seed, game_index, rules, o["policies"],
                       model_net=net, model=model)


def _finite(x):
    """A figure for JSON: None where it is not a number (no game decided)."""
    x = float(x)
    return x if x == x else None


def summary_fields(s, o):
    """Seat fairness is the seats study's (experiments.stats.seat_fairness): each seat's share of the
    decided games with simultaneous Goodman intervals (seat_ci95) and the chi-square against equal seats."""
    rates = [w / s.games for w in s.seat_wins[: s.players]]
    fair = seat_fairness(s.seat_wins[: s.players])
    return {
        "leaves": list(s.leaves),
        "policies": s.policies, "theta_hashes": [theta_hash(t, n) for t, n in zip(s.thetas, s.nets)], "seat_wins": s.seat_wins[: s.players], "seat_win_rates": rates,
        "decided": fair.decided, "seat_shares": [_finite(x) for x in fair.shares],
        "seat_ci95": [[_finite(lo), _finite(hi)] for lo, hi in fair.ci],
        "chi2": _finite(fair.chi2.statistic), "chi2_p": _finite(fair.chi2.pvalue), "seats": fair.verdict,
        "timeouts": s.timeouts, "timeout_ci95": list(wilson(s.timeouts, s.games)),
        "mean_rounds": s.mean_rounds,
    }


def summary_lines(d):
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
              f"mean rounds  {d['mean_rounds']:.2f}"]
    return lines


def ended(end):
    who = f"seat {end['winner'] + 1} wins" if end["outcome"] == "win" else "timeout"
    return f"{who} after {end['turns']} turns"


COMMANDS = GameCommands(
    game=BENEVOLENT, options=OPTIONS, setup=setup, simulate=simulate, record=record,
    fields=summary_fields, lines=summary_lines, ended=ended,
    simulate_help="Play many games and report each seat's share of the decided games (simultaneous 95% intervals) and\n"
                  "whether the seats are equal (chi-square), as the seats study does; timeouts and speed.",
    play_help="Play one game (game GAME_INDEX of `simulate` with this seed) and record its trace.",
    seed_help="Master seed.",
    json_help="Print one JSON object.",
    rules_example="layout-tight,gather_tile=optional; see docs/benevolent.md",
)
add_game_commands(app, COMMANDS)
add_sensitivity(app, "benevolent", default_games=20000)
