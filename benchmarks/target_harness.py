"""Planted problems for the target search (issue 41, part 3): synthetic win-rate curves with known
answers, the tuner (experiments.target_search.find_target) and a TAG-style baseline at the same
game budget, side by side.

    python -m benchmarks.target_harness            # 200 replications per curve, the issue's setting
    python -m benchmarks.target_harness --reps 50  # quicker
    python -m benchmarks.target_harness --budget 1500 --confirm 500  # a smaller budget

Each game is a Bernoulli draw u < p(x) with u from the batch's seed, so the same seed gives the
same games at any x (common random numbers), like the games' `measure`.
"""
from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from experiments.target_search import Measure, find_target, tag_baseline

TARGET = 0.40  # the example: "3 players Normal win rate 40%"
BUDGET = 6000  # games in the tuner's search
CONFIRM = 2000  # fresh games for the recommendation, as many for the alternative
REPS = 200  # replications per curve (the setting)


def logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def logit(p: float) -> float:
    return math.log(p / (1.0 - p))


@dataclass(frozen=True)
class Curve:
    """A planted problem: rate p(x) over the knob's range; `integer` for the grid lo..hi."""
    name: str
    p: Callable[[float], float]
    lo: float
    hi: float
    integer: bool

    def answer_rate(self, target: float) -> float:
        """The best reachable rate: the grid value's closest to the target, or the target itself."""
        if not self.integer:
            return target
        return min((self.p(x) for x in range(int(self.lo), int(self.hi) + 1)), key=lambda r: abs(r - target))


def through(x0: float, rate: float, slope: float) -> Callable[[float], float]:
    """A logistic curve with rate `rate` at x0 and logit slope `slope` per unit of x."""
    a = logit(rate)
    return lambda x: logistic(a + slope * (x - x0))


CURVES = (
    Curve("logistic up, grid 0..10", through(4, 0.405, 0.5), 0, 10, True),
    Curve("logistic down, grid 0..10", through(7, 0.392, -0.4), 0, 10, True),
    Curve("flat-ish up, grid 0..10", through(3, 0.41, 0.1), 0, 10, True),
    Curve("steep down, grid 0..10", through(6, 0.395, -1.5), 0, 10, True),
    Curve("between values, grid 0..10", through(3, 0.36, 0.8), 0, 10, True),
    Curve("logistic up, range [0, 10]", through(3.3, TARGET, 0.6), 0.0, 10.0, False),
    Curve("flat-ish down, range [0, 10]", through(6.1, TARGET, -0.15), 0.0, 10.0, False),
)


def synthetic_measure(p: Callable[[float], float]) -> Measure:
    """Successes of `games` Bernoulli(p(x)) games; the same seed gives the same games at any x."""
    def measure(x: float, games: int, seed: int) -> int:
        u = np.random.default_rng(seed).random(games)
        return int(np.count_nonzero(u < p(x)))
    return measure


@dataclass(frozen=True)
class Rep:
    """One replication: the recommendation's true rate, whether its reported interval covers it."""
    true_rate: float
    covered: bool
    games: int
    reported: float  # the rate the method reports for it


def run_tuner(curve: Curve, seed: int, target: float = TARGET, budget: int = BUDGET,
              confirm: int = CONFIRM) -> Rep:
    r = find_target(synthetic_measure(curve.p), target, curve.lo, curve.hi, integer=curve.integer,
                    budget_games=budget, confirm_games=confirm, seed=seed)
    true = curve.p(r.recommendation)
    return Rep(true, r.confirmed.low <= true <= r.confirmed.high, r.search_games + r.confirm_games,
               r.confirmed.rate)


def baseline_values(curve: Curve) -> list[float]:
    """The baseline's values: the integer grid, or 11 evenly spaced points of a continuous range."""
    if curve.integer:
        return list(range(int(curve.lo), int(curve.hi) + 1))
    return [float(v) for v in np.linspace(curve.lo, curve.hi, 11)]


def run_baseline(curve: Curve, seed: int, target: float = TARGET, budget: int = BUDGET + 2 * CONFIRM) -> Rep:
    r = tag_baseline(synthetic_measure(curve.p), target, baseline_values(curve), budget, seed=seed)
    true = curve.p(r.recommendation)
    return Rep(true, r.low <= true <= r.high, r.games, r.rate)


def rep_seed(curve: Curve, rep: int) -> int:
    """The replication's seed: its own per curve, so the curves do not share games."""
    return 1000 * CURVES.index(curve) + rep if curve in CURVES else rep


def summarise(reps: list[Rep], curve: Curve, target: float = TARGET) -> dict[str, float]:
    best = curve.answer_rate(target)
    return {
        "within 2 pp": sum(abs(r.true_rate - target) <= 0.02 for r in reps) / len(reps),
        "at best": sum(abs(r.true_rate - best) < 1e-12 for r in reps) / len(reps) if curve.integer else math.nan,
        "coverage": sum(r.covered for r in reps) / len(reps),
        "mean |true - target| pp": 100 * float(np.mean([abs(r.true_rate - target) for r in reps])),
        "mean |reported - target| pp": 100 * float(np.mean([abs(r.reported - target) for r in reps])),
        "mean games": float(np.mean([r.games for r in reps])),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=REPS, help="replications per curve")
    ap.add_argument("--budget", type=int, default=BUDGET, help="the tuner's search budget in games")
    ap.add_argument("--confirm", type=int, default=CONFIRM, help="fresh games per confirmed value")
    args = ap.parse_args(argv)
    total = args.budget + 2 * args.confirm
    print(f"target {TARGET:.0%}; {args.reps} replications per curve (seeds 1000 c + 0..{args.reps - 1} for "
          f"curve c); tuner: search budget {args.budget} games + {args.confirm} fresh games for the "
          f"recommendation and as many for the alternative; baseline: {total} games, one per evaluation, "
          f"round-robin")
    print(f"{'curve':<30} {'best reachable':>14} | {'method':<9} {'within 2 pp':>11} {'at best':>7} {'coverage':>9} "
          f"{'mean |true-target| pp':>21} {'mean |reported-target| pp':>25} {'mean games':>10}")
    t0 = time.perf_counter()
    runs: tuple[tuple[str, Callable[[Curve, int], Rep]], ...] = (
        ("tuner", lambda c, seed: run_tuner(c, seed, budget=args.budget, confirm=args.confirm)),
        ("TAG-style", lambda c, seed: run_baseline(c, seed, budget=total)))
    for c in CURVES:
        for name, run in runs:
            s = summarise([run(c, rep_seed(c, rep)) for rep in range(args.reps)], c)
            at_best = "-" if math.isnan(s["at best"]) else f"{s['at best']:.3f}"
            print(f"{c.name:<30} {c.answer_rate(TARGET):>14.3f} | {name:<9} {s['within 2 pp']:>11.3f} {at_best:>7} "
                  f"{s['coverage']:>9.3f} {s['mean |true - target| pp']:>21.2f} {s['mean |reported - target| pp']:>25.2f} "
                  f"{s['mean games']:>10.0f}")
    print(f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
