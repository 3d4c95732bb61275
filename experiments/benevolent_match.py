"""Benevolent: two policies against each other with seats rotated over the same deals.

Every deal (game index i of the seed: the same forest, Secret tiles and policy keys) is played
once with policy A in seat 1 and once with A in seat 2 (2 players), so seat luck and deal luck
cancel in pairs. Reported: A's wins over all games with a Wilson interval, and the interval of A's
win rate by deal (the two games of a deal are one unit: a t interval of the per-deal win rates,
statsmodels DescrStatsW), which is the honest one when the two games of a deal are correlated;
when every deal has the same win rate, stats.constant_mean_interval instead of a point. A timed
out game is a game A did not win (before 2026-12-01 the by-deal interval was for A's score, a
timeout counting half, while the text called it the win rate's).

    python -m experiments.benevolent_match --a heuristic --b random --deals 2000
    python -m experiments.benevolent_match --a search --b heuristic --deals 200 --set budget=64
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from arena.benevolent.batch import parse_policies, simulate
from arena.runner import check_threads
from policies import policy_id
from policies.benevolent.decide import THETA_NAMES
from simcore.benevolent import GAME
from simcore.errors import UserError

from .stats import constant_mean_interval, wilson

LEAVES = (1, 3)   # the printed starting leaves of seats 1 and 2


@dataclass
class Match:
    a: str
    b: str
    deals: int
    games: int
    wins_a: int
    wins_b: int
    timeouts: int
    rate_a: float
    ci95: tuple
    deal_ci95: tuple
    mean_rounds: float
    seconds: float
    games_per_second: float
    seed: int
    threads: int
    cpu_seconds: float = 0.0   # the process's CPU time while the games ran (all threads)

    @property
    def games_per_cpu_second(self):
        return self.games / self.cpu_seconds if self.cpu_seconds > 0 else float("nan")

    def text(self):
        return (f"{self.a} vs {self.b}, 2 players, seats rotated over {self.deals:,} deals (seed {self.seed}): "
                f"{self.games:,} games, {self.a} wins {self.wins_a:,} ({self.rate_a:.3%}, 95% CI "
                f"{self.ci95[0]:.3%} to {self.ci95[1]:.3%}; by deal {self.deal_ci95[0]:.3%} to "
                f"{self.deal_ci95[1]:.3%}), {self.b} wins {self.wins_b:,}, timeouts {self.timeouts:,}; "
                f"mean rounds {self.mean_rounds:.1f}; {self.games_per_second:,.1f} games/s on {self.threads} "
                f"thread{'s' if self.threads != 1 else ''} ({self.seconds:.1f} s), {self.games_per_cpu_second:,.1f} games per CPU second")


def theta_with(name, overrides):
    """The default theta of policy `name` with `overrides` ({parameter name: value}) applied."""
    _, _, thetas = parse_policies(name, None, 1)
    theta = thetas[0].copy()
    names = THETA_NAMES[policy_id(name, GAME)]
    for k, v in (overrides or {}).items():
        if k not in names:
            raise UserError(f"--set {k}: not a parameter of {name}; allowed: {', '.join(names) or 'none'}")
        theta[names.index(k)] = float(v)
    return theta


def match(a, b, deals, seed=1, threads=None, theta_a=None, theta_b=None, rules=None) -> Match:
    """A against B in 2 players, each deal with A in seat 1 and then in seat 2 (the arena's
    ``simulate``, the one way the command line plays games, once per seating)."""
    if deals < 2:
        raise UserError(f"--deals {deals}: at least 2")
    threads = check_threads(threads)
    won = np.zeros(deals, np.int64)   # A's wins per deal (0, 1 or 2)
    wb = to = turns = 0
    secs = 0.0
    c0 = time.process_time()
    for seat_a in (0, 1):
        names = [a, b] if seat_a == 0 else [b, a]
        seat_thetas = [theta_a, theta_b] if seat_a == 0 else [theta_b, theta_a]
        s = simulate(2, LEAVES, games=deals, seed=seed, threads=threads, rules=rules, policies=names,
                     keep_records=True, thetas=seat_thetas)
        assert s.records is not None   # keep_records=True
        w = s.records["winner"].to_numpy()
        won += w == seat_a
        wb += int((w == 1 - seat_a).sum())
        to += int((w < 0).sum())
        turns += int(s.records["turns"].sum())
        secs += s.seconds
    cpu = time.process_time() - c0
    from statsmodels.stats.weightstats import DescrStatsW
    per_deal = won / 2
    if np.all(won == won[0]):
        lo, hi = constant_mean_interval(float(per_deal[0]), deals, 0.0, 1.0)  # a t interval would be a point
    else:
        lo, hi = DescrStatsW(per_deal).tconfint_mean(alpha=0.05)
    games = 2 * deals
    lo, hi = max(float(lo), 0.0), min(float(hi), 1.0)
    wa = int(won.sum())
    return Match(a, b, deals, games, wa, wb, to, wa / games, tuple(wilson(wa, games)), (lo, hi),
                 turns / games / 2, secs, games / secs, seed, threads, cpu)


def _overrides(items):
    out = {}
    for it in items or []:
        k, _, v = it.partition("=")
        try:
            out[k.strip()] = float(v)
        except ValueError:
            raise UserError(f"--set {it!r}: expected name=number") from None
    return out


def main(argv=None) -> int:
    """The script: bad input (an unknown policy, --deals 1, a bad --set) is a one-line error on
    stderr with exit code 2, as on the boardsim command line; argparse's own errors are too."""
    import sys
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="heuristic")
    ap.add_argument("--b", default="random")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--set", action="append", help="a parameter of A, e.g. budget=64 (repeatable)")
    ap.add_argument("--set-b", action="append", help="a parameter of B")
    x = ap.parse_args(argv)
    try:
        for name in (x.a, x.b):
            policy_id(name, GAME)
        ta = theta_with(x.a, _overrides(x.set)) if x.set else None
        tb = theta_with(x.b, _overrides(x.set_b)) if x.set_b else None
        print(match(x.a, x.b, x.deals, x.seed, x.threads, ta, tb).text())
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
