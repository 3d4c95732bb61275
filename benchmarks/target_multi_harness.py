"""Planted several-knob problems for the target search (issue 41, part 3): synthetic win rates over
two or three whole-number knobs with known answers, the tuner (experiments.target_search.
find_target_multi) and a TAG-style several-knob baseline at the same total game budget, side by side.

    python -m benchmarks.target_multi_harness            # 200 replications per problem
    python -m benchmarks.target_multi_harness --reps 50  # quicker
    python -m benchmarks.target_multi_harness --budget 10000 --confirm 1000  # a smaller budget

A problem's rate is logistic(logit(base) + sum of step[k] * (setting[k] - default[k])); each game
is a Bernoulli draw u < p(setting) with u from the call's seed, so the same seed gives the same
games at any setting (common random numbers), like the games' `measure`. The two- and three-knob
problems are tests/test_target_multi.py's TWO and THREE (copied here).

Per replication the tuner's named answer is its `smallest` (the fewest-changes Pareto point whose
fresh games get there), or the closest confirmed Pareto point when it names none. The baseline
plays as many games as the tuner did in that replication (search + every confirmation), spread
round-robin over the whole grid, one game per evaluation (a setting's n evaluations played as one
call of n games on one fresh seed, the same distribution, as `tag_baseline` does), and reports the
setting whose own average is closest to the target with that average and its Wilson 95% interval.

Columns: "within 2 pp": the named setting's TRUE rate is within 2 pp of the target. "fewest": the
named setting is the planted answer: within 2 pp and changing the fewest rules that any setting
within 2 pp changes (when no setting is within 2 pp: the setting whose true rate is closest).
"none named": the tuner said no Pareto point gets there. "cover named": the named setting's
reported 95% interval holds its true rate. "cover points": the same pooled over every confirmed
Pareto point and the alternative (the tuner only; the points of one replication share one
confirmation seed, so they are correlated). "changes": mean rules changed by the named setting.
"""
from __future__ import annotations

import argparse
import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from benchmarks.target_harness import logistic, logit
from experiments.target_search import MultiMeasure, find_target_multi, tag_baseline

TARGET = 0.40   # the example: "3 players Normal win rate 40%"
CONFIRM = 2000  # fresh games per confirmed setting
GAMES_PER_TRIAL = 500
REPS = 200      # replications per problem (the setting)
WITHIN = 0.02   # "gets there": the true rate within 2 pp of the target


@dataclass(frozen=True)
class Problem:
    """A planted problem: p(s) = logistic(logit(base) + sum steps[k] (s[k] - default[k]))."""
    name: str
    steps: dict[str, float]
    knobs: dict[str, tuple[int, int, int]]   # name: (lo, hi, default)
    base: float                              # the defaults' rate
    budget: int                              # the tuner's search budget in games
    settings: tuple[dict[str, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        grid = itertools.product(*(range(lo, hi + 1) for lo, hi, _ in self.knobs.values()))
        object.__setattr__(self, "settings", tuple(dict(zip(self.knobs, s)) for s in grid))

    def p(self, s: dict[str, int]) -> float:
        return logistic(logit(self.base) + sum(self.steps[k] * (s[k] - self.knobs[k][2]) for k in s))

    def changes(self, s: dict[str, int]) -> int:
        return sum(s[k] != self.knobs[k][2] for k in self.knobs)

    def reachable(self, target: float = TARGET) -> bool:
        return any(abs(self.p(s) - target) <= WITHIN for s in self.settings)

    def closest(self, target: float = TARGET) -> dict[str, int]:
        return min(self.settings, key=lambda s: abs(self.p(s) - target))

    def fewest(self, target: float = TARGET) -> int:
        """The planted answer's rules changed: the fewest of any setting within 2 pp, else the closest's."""
        if not self.reachable(target):
            return self.changes(self.closest(target))
        return min(self.changes(s) for s in self.settings if abs(self.p(s) - target) <= WITHIN)

    def is_answer(self, s: dict[str, int], target: float = TARGET) -> bool:
        """Whether s is a planted answer: within 2 pp with the fewest changes (else the closest setting)."""
        if not self.reachable(target):
            return s == self.closest(target)
        return abs(self.p(s) - target) <= WITHIN and self.changes(s) == self.fewest(target)

    def measure(self) -> MultiMeasure:
        """Successes of `games` Bernoulli(p(s)) games; the same seed gives the same games at any s."""
        def measure(s: dict[str, int], games: int, seed: int) -> int:
            return int(np.count_nonzero(np.random.default_rng(seed).random(games) < self.p(s)))
        return measure


# tests/test_target_multi.py's TWO and THREE: from 28%, the smallest change within 2 pp is two knobs
# (a 2->3 with b 2->1: 40.0%); every one-knob change is at least 5.6 pp away; c moves ~0.7 pp a step.
TWO = ({"a": 0.84, "b": 0.3}, {"a": (0, 4, 2), "b": (0, 3, 2)})
THREE = ({"a": 0.84, "b": 0.3, "c": 0.03}, {"a": (0, 4, 2), "b": (0, 3, 2), "c": (0, 3, 1)})

PROBLEMS = (
    Problem("two knobs, 20 settings", *TWO, base=0.28, budget=20000),
    Problem("three knobs, 80 settings", *THREE, base=0.28, budget=30000),
    # the printed rules already give 39.5%: the right answer is no change; c moves ~1.2 pp a step,
    # so the one-knob changes of c are within 2 pp too (but change a rule)
    Problem("no change needed, 80 settings", {"a": 0.5, "b": 0.3, "c": 0.05},
            {"a": (0, 4, 2), "b": (0, 3, 2), "c": (0, 3, 1)}, base=0.395, budget=30000),
    # from 28%, the most the knobs reach is 36.5% (a 2->4 with b 2->3): none within 2 pp; the next
    # closest settings (a 2->4 alone, a 2->3 with b 2->3) give 33.5%
    Problem("out of reach (best 36.5%), 20 settings", {"a": 0.13, "b": 0.13},
            {"a": (0, 4, 2), "b": (0, 3, 2)}, base=0.28, budget=20000),
)


@dataclass(frozen=True)
class MultiRep:
    """One replication of one method on one problem."""
    setting: tuple[tuple[str, int], ...]   # the named setting
    true_rate: float
    reported: float                        # the rate the method reports for it
    low: float
    high: float
    changes: int
    is_answer: bool
    named_none: bool                       # the tuner said no point gets there (always False for the baseline)
    games: int
    points: tuple[tuple[float, float, float], ...] = ()   # every confirmed point: (true, low, high)

    @property
    def within(self) -> bool:
        return abs(self.true_rate - TARGET) <= WITHIN

    @property
    def covered(self) -> bool:
        return self.low <= self.true_rate <= self.high


def rep_seed(problem: Problem, rep: int) -> int:
    """The replication's seed: its own per problem, so the problems do not share games."""
    return 1000 * PROBLEMS.index(problem) + rep if problem in PROBLEMS else rep


def run_tuner(problem: Problem, seed: int, target: float = TARGET, budget: int | None = None,
              confirm: int = CONFIRM, games_per_trial: int = GAMES_PER_TRIAL) -> MultiRep:
    r = find_target_multi(problem.measure(), target, problem.knobs,
                          budget_games=problem.budget if budget is None else budget,
                          games_per_trial=games_per_trial, confirm_games=confirm, seed=seed)
    named = r.smallest if r.smallest is not None else min(r.pareto, key=lambda q: q.confirmed.distance)
    confirmed = list(r.pareto) + ([r.alternative] if r.alternative is not None and r.alternative not in r.pareto
                                  else [])
    c = named.confirmed
    return MultiRep(tuple(named.setting.items()), problem.p(named.setting), c.rate, c.low, c.high,
                    problem.changes(named.setting), problem.is_answer(named.setting, target), r.smallest is None,
                    r.search_games + r.confirm_games,
                    tuple((problem.p(q.setting), q.confirmed.low, q.confirmed.high) for q in confirmed))


def run_baseline(problem: Problem, seed: int, budget: int, target: float = TARGET) -> MultiRep:
    """The TAG-style baseline over the whole grid with `budget` games in all (tag_baseline on the
    settings' indices, round-robin)."""
    settings = problem.settings
    measure = problem.measure()
    r = tag_baseline(lambda i, games, sd: int(measure(settings[int(i)], games, sd)), target,  # type: ignore[arg-type]
                     list(range(len(settings))), budget, seed=seed)
    s = settings[int(r.recommendation)]
    return MultiRep(tuple(s.items()), problem.p(s), r.rate, r.low, r.high, problem.changes(s),
                    problem.is_answer(s, target), False, r.games)


def run_problem(problem: Problem, reps: int, budget: int | None = None, confirm: int = CONFIRM,
                games_per_trial: int = GAMES_PER_TRIAL) -> tuple[list[MultiRep], list[MultiRep]]:
    """`reps` replications of the tuner and of the baseline at the tuner's total games, rep by rep."""
    tuner, base = [], []
    for rep in range(reps):
        seed = rep_seed(problem, rep)
        t = run_tuner(problem, seed, budget=budget, confirm=confirm, games_per_trial=games_per_trial)
        tuner.append(t)
        base.append(run_baseline(problem, seed + 10**6, t.games))
    return tuner, base


def summarise(reps: list[MultiRep], target: float = TARGET) -> dict[str, float]:
    points = [lo <= true <= hi for r in reps for true, lo, hi in r.points]
    return {
        "within 2 pp": float(np.mean([r.within for r in reps])),
        "fewest": float(np.mean([r.is_answer for r in reps])),
        "none named": float(np.mean([r.named_none for r in reps])),
        "cover named": float(np.mean([r.covered for r in reps])),
        "cover points": float(np.mean(points)) if points else math.nan,
        "points": float(len(points)),
        "changes": float(np.mean([r.changes for r in reps])),
        "mean |true - target| pp": 100 * float(np.mean([abs(r.true_rate - target) for r in reps])),
        "mean |reported - target| pp": 100 * float(np.mean([abs(r.reported - target) for r in reps])),
        "mean games": float(np.mean([r.games for r in reps])),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--reps", type=int, default=REPS, help="replications per problem")
    ap.add_argument("--budget", type=int, default=None,
                    help="the tuner's search budget in games (default: each problem's own, 20000 or 30000)")
    ap.add_argument("--confirm", type=int, default=CONFIRM, help="fresh games per confirmed setting")
    ap.add_argument("--games-per-trial", type=int, default=GAMES_PER_TRIAL, help="games per search trial")
    args = ap.parse_args(argv)
    print(f"target {TARGET:.0%}; {args.reps} replications per problem (seeds 1000 i + 0..{args.reps - 1} for "
          f"problem i); tuner: find_target_multi, {args.games_per_trial} games per trial, search budget "
          f"{'per problem' if args.budget is None else args.budget}, {args.confirm} fresh games per confirmed "
          f"setting; baseline: the tuner's total games of the same replication, one per evaluation, "
          f"round-robin over every setting")
    head = (f"{'problem':<39} {'planted':>7} {'best':>6} | {'method':<9} {'within 2 pp':>11} {'fewest':>6} "
            f"{'none named':>10} {'cover named':>11} {'cover points':>17} {'changes':>7} "
            f"{'mean |true-target| pp':>21} {'mean |reported-target| pp':>25} {'mean games':>10}")
    print(head)
    t0 = time.perf_counter()
    for pr in PROBLEMS:
        tuner, base = run_problem(pr, args.reps, args.budget, args.confirm, args.games_per_trial)
        best = pr.p(pr.closest())
        for name, reps in (("tuner", tuner), ("TAG-style", base)):
            s = summarise(reps)
            points = "-" if math.isnan(s["cover points"]) else f"{s['cover points']:.3f} of {s['points']:.0f}"
            none = f"{s['none named']:.3f}" if name == "tuner" else "-"
            print(f"{pr.name:<39} {pr.fewest():>7} {best:>6.3f} | {name:<9} {s['within 2 pp']:>11.3f} "
                  f"{s['fewest']:>6.3f} {none:>10} {s['cover named']:>11.3f} {points:>17} {s['changes']:>7.2f} "
                  f"{s['mean |true - target| pp']:>21.2f} {s['mean |reported - target| pp']:>25.2f} "
                  f"{s['mean games']:>10.0f}")
    print(f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
