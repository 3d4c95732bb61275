"""Which value of one rules knob makes an outcome hit a designer's target (issue 41, part 2's core).

The game layer supplies `measure(x, games, seed) -> successes`: `games` Bernoulli games at knob
value `x`, whose success probability is a monotone function of `x`; the same seed gives the same
games at any `x` (common random numbers). This module imports no game code.

The method: bisection with batched games and a sequential interval at each point.
- At each bisection point, batches are played (each doubling the games there, so few looks) until
  a Wilson interval excludes the target (the point is above or below it: halve the bracket), or
  lies inside target +- `tol` (the point is near it). The interval at the j-th look uses
  alpha_j = 6 alpha / (pi^2 j^2), so over all looks of one point the error is at most alpha (an
  anytime-valid interval by a union bound). One point may spend at most half the budget left.
- Integer knob: the answer is the grid value whose rate is closest to the target. A point that is
  near, or still undecided at its cap, is paired with its neighbour toward the target; a bisection
  that runs to two adjacent values gives the pair too. With a < b either side of the target, a is
  closer exactly when (p(a) + p(b)) / 2 > target: that midpoint is estimated (the less-played value
  gets the next batch) until its interval, spent the same way, excludes the target or the budget
  runs out.
- Continuous knob: the next point is where a monotone (isotonic) fit of every played point,
  weighted by games, crosses the target, kept a quarter of the bracket from its ends (a
  safeguarded regula falsi: plain halving spent the last steps on points with few games); a point
  undecided at its cap goes by its average (a wrong turn happens only where the rate is already
  close to the target); the answer is where the final fit crosses the target.
- Every batch gets its own seed (but for the two end batches that tell the rate's direction,
  which share one): the decisions compare one point with the target, or the sum of two points,
  where shared games would add variance instead of removing it.
Why not probabilistic bisection (Waeber, Frazier & Henderson 2013): it needs the chance that one
noisy sign is right, which falls to 1/2 near the root and is unknown; rules knobs are short
integer grids (knowledge limit 4-9, spies 0-5, leaves 0-6), where a few bisection steps and one
paired decision are enough, and the batched tests give intervals a designer can read.

The recommendation is then played again on fresh seeds (`confirm_games`, games that did not
choose it) and reported with a Wilson 95% interval; so is the nearest value on the other side of
the target (the diverse alternative).

`find_target_multi` is the several-knob search (an Optuna sampler, a Pareto set of distance to the
target against rules changed, each point confirmed on fresh seeds); its method is in its docstring.

`tag_baseline` is the comparison the issue asks for: a TAG-style tuner that plays one game per
evaluation, round-robin over the values, and reports its winner by the same average that chose it.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import isotonic_regression
from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint

from simcore.errors import UserError

Measure = Callable[[float, int, int], int]

CONFIRM_ALPHA = 0.05  # the confirmation interval is a Wilson 95% interval
SEED_HIGH = 2**63  # batch seeds are drawn uniformly below this


@dataclass(frozen=True)
class Step:
    """One batch of the search: `wins` out of `games` at knob value `value`."""
    value: float
    wins: int
    games: int


@dataclass(frozen=True)
class Confirmation:
    """A value played on fresh seeds: its rate with a Wilson 95% interval."""
    value: float
    wins: int
    games: int
    rate: float
    low: float
    high: float
    covers_target: bool


@dataclass(frozen=True)
class TargetResult:
    """What `find_target` found: the recommendation confirmed, an alternative, the search's path."""
    target: float
    recommendation: float
    confirmed: Confirmation
    alternative: Confirmation | None
    search_games: int
    confirm_games: int
    increasing: bool
    stopped: str  # why the search stopped: "pair decided", "near target", "budget", "width", "one value"
    path: tuple[Step, ...]
    printed: Confirmation | None = None  # the printed value on the same fresh games (None: not given)
    keep_printed: bool = False  # the answer: keep the printed value (it gets there, or is no farther)
    tol: float = 0.01
    not_monotone: bool = False  # the fresh games move against the direction the search assumed

    @property
    def answer(self) -> Confirmation:
        """The value a designer should play: the printed one when its fresh games get there (its
        95% interval holds the target, or its rate is within `tol`) or are no farther from the
        target than the recommendation's (the same games), else the recommendation."""
        return self.printed if self.keep_printed and self.printed is not None else self.confirmed


@dataclass(frozen=True)
class BaselineResult:
    """What `tag_baseline` found: the winner reported by its own (selection-biased) average."""
    target: float
    recommendation: float
    wins: int
    games_at_recommendation: int
    rate: float
    low: float
    high: float
    games: int
    tally: tuple[Step, ...]  # every value's games and wins, in the order of `values`


def _check(target: float, lo: float, hi: float, budget_games: int, confirm_games: int, batch: int,
           integer: bool) -> None:
    if not (isinstance(target, (int, float)) and 0.0 < target < 1.0):
        raise UserError(f"target {target!r} is not allowed: give a rate strictly between 0 and 1")
    if integer and (lo != int(lo) or hi != int(hi)):
        raise UserError(f"knob range {lo}..{hi} is not allowed for an integer knob: give whole numbers")
    if lo > hi or (not integer and lo == hi):
        raise UserError(f"knob range {lo}..{hi} is empty: lo must be {'<=' if integer else '<'} hi")
    for name, v in (("budget_games", budget_games), ("confirm_games", confirm_games), ("batch", batch)):
        if v < 1:
            raise UserError(f"{name} {v} is not allowed: give at least 1 game")


@lru_cache(maxsize=None)
def _z(look: int, alpha: float) -> float:
    """Two-sided normal quantile for the look-th look of an interval spent as 6 alpha / (pi^2 j^2)."""
    return float(norm.ppf(1.0 - 3.0 * alpha / (math.pi ** 2 * look ** 2)))


def _wilson(k: int, n: int, z: float) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


class _Tally:
    """The games played so far, per value, within a budget."""

    def __init__(self, measure: Measure, budget: int, batch: int, rng: np.random.Generator):
        self.measure, self.budget, self.batch, self.rng = measure, budget, batch, rng
        self.wins: dict[float, int] = {}
        self.games: dict[float, int] = {}
        self.spent = 0
        self.path: list[Step] = []

    def play(self, x: float, seed: int | None = None, games: int | None = None) -> bool:
        """One batch at x (`games`, by default `batch`); False when the budget is spent."""
        n = min(self.batch if games is None else games, self.budget - self.spent)
        if n <= 0:
            return False
        if seed is None:
            seed = int(self.rng.integers(SEED_HIGH))
        k = int(self.measure(x, n, seed))
        if not 0 <= k <= n:
            raise ValueError(f"measure returned {k} successes out of {n} games at {x}")
        self.wins[x] = self.wins.get(x, 0) + k
        self.games[x] = self.games.get(x, 0) + n
        self.spent += n
        self.path.append(Step(x, k, n))
        return True

    def rate(self, x: float) -> float:
        return self.wins[x] / self.games[x]

    def test(self, x: float, target: float, up: bool, alpha: float, tol: float) -> str:
        """Play at x until its rate is shown "above" or "below" the target, or "near" it.

        "above" means the crossing lies at smaller x when the rate rises with x (up), at larger x
        otherwise. Each batch doubles the games at x (so few looks spend the interval's alpha); a
        test may spend at most half the budget left when it starts, then says "cap" ("budget" when
        none is left)."""
        cap = self.spent + max(self.batch, (self.budget - self.spent) // 2)
        start, look = self.games.get(x, 0), 0
        while True:
            if self.games.get(x, 0) > 0:
                look += 1
                lo, hi = _wilson(self.wins[x], self.games[x], _z(look, alpha))
                if lo > target:
                    return "above" if up else "below"
                if hi < target:
                    return "below" if up else "above"
                if lo > target - tol and hi < target + tol:
                    return "near"
            if self.spent >= self.budget:
                return "budget"
            if self.spent >= cap:
                return "cap"
            self.play(x, games=min(max(self.batch, self.games.get(x, 0) - start), cap - self.spent))

    def closer(self, a: float, b: float, target: float, alpha: float) -> float:
        """The one of a, b (rate(a) <= target <= rate(b)) whose rate is closer to the target."""
        look = 0
        while True:
            na, nb = self.games.get(a, 0), self.games.get(b, 0)
            if na and nb:
                look += 1
                pa, pb = self.rate(a), self.rate(b)
                d = (pa + pb) / 2 - target
                se = math.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb) / 2
                if abs(d) > _z(look, alpha) * se:
                    break
            if not self.play(a if na <= nb else b):
                break
        if not self.games.get(a) or not self.games.get(b):
            return a if self.games.get(a) else b
        return a if (self.rate(a) + self.rate(b)) / 2 > target else b


def _confirm(measure: Measure, x: float, games: int, seed: int, target: float) -> Confirmation:
    k = int(measure(x, games, seed))
    low, high = proportion_confint(k, games, alpha=CONFIRM_ALPHA, method="wilson")
    return Confirmation(x, k, games, k / games, float(low), float(high), bool(low <= target <= high))


def find_target(measure: Measure, target: float, lo: float, hi: float, *, integer: bool = True,
                budget_games: int = 6000, confirm_games: int = 2000, batch: int = 200,
                increasing: bool | None = None, alpha: float = 0.05, tol: float = 0.01,
                xtol: float | None = None, seed: int = 0, printed: float | None = None) -> TargetResult:
    """The knob value in lo..hi whose rate is closest to `target`, confirmed on fresh games.

    integer: the knob takes the whole numbers lo..hi, else any value in [lo, hi] (bisection stops
    when the bracket is narrower than xtol, by default (hi - lo) / 1000). increasing: the rate's
    direction in x; None plays one batch at each end on the same seed to tell. At most
    `budget_games` games in the search, then `confirm_games` fresh games for the recommendation,
    as many for the alternative and, when `printed` (the knob's value in the printed game) is
    given, as many for it: all three on one fresh seed, so their comparison is paired. The answer
    keeps the printed value when its fresh games get there (their 95% interval holds the target,
    or their rate is within `tol`), or are no farther from the target than the recommendation's:
    the printed value was fixed before any game, so its fresh figures are not selected, and "keep
    what is printed" is the smallest change. `not_monotone` flags fresh games that move against the
    direction the search assumed by more than 1 pp (the bisection's premise is then in doubt)."""
    _check(target, lo, hi, budget_games, confirm_games, batch, integer)
    search_seq, confirm_seq = np.random.SeedSequence(seed).spawn(2)
    tally = _Tally(measure, budget_games, batch, np.random.default_rng(search_seq))
    if integer:
        lo, hi = int(lo), int(hi)
    if increasing is None:
        if lo == hi:
            increasing = True
        else:
            shared = int(tally.rng.integers(SEED_HIGH))
            tally.play(lo, shared)
            tally.play(hi, shared)
            played = tally.games.get(lo) and tally.games.get(hi)  # else the budget ran out: say rising
            increasing = not played or tally.rate(hi) >= tally.rate(lo)
    rec: float
    if integer:
        rec, stopped = _search_grid(tally, int(lo), int(hi), target, increasing, alpha, tol)
    else:
        rec, stopped = _search_range(tally, lo, hi, target, increasing, alpha, tol,
                                     (hi - lo) / 1000 if xtol is None else xtol)
    confirm_seed = int(np.random.default_rng(confirm_seq).integers(SEED_HIGH))  # one, shared: paired
    confirmed = _confirm(measure, rec, confirm_games, confirm_seed, target)
    alt = _alternative(tally, rec, confirmed.rate >= target, target, increasing, integer, lo, hi)
    alternative = None if alt is None else _confirm(measure, alt, confirm_games, confirm_seed, target)
    done = {c.value: c for c in (confirmed, alternative) if c is not None}
    printed_c = None
    if printed is not None:
        printed_c = done.get(printed) or _confirm(measure, printed, confirm_games, confirm_seed, target)
    keep = printed_c is not None and (printed_c.covers_target or abs(printed_c.rate - target) <= tol
                                      or abs(printed_c.rate - target) <= abs(confirmed.rate - target))
    # the fresh games (one seed for all) against the direction the search assumed, by more than 1 pp
    fresh = sorted([*done.values(), *([printed_c] if printed_c and printed not in done else [])],
                   key=lambda c: c.value)
    not_monotone = any((b.rate - a.rate) * (1 if increasing else -1) < -0.01 for a, b in zip(fresh, fresh[1:]))
    n_confirmed = len(done) + (printed_c is not None and printed not in done)
    return TargetResult(target, rec, confirmed, alternative, tally.spent, confirm_games * n_confirmed,
                        increasing, stopped, tuple(tally.path), printed_c, keep, tol, not_monotone)


def _search_grid(tally: _Tally, lo: int, hi: int, target: float, up: bool, alpha: float,
                 tol: float) -> tuple[int, str]:
    grid = list(range(lo, hi + 1)) if up else list(range(hi, lo - 1, -1))  # rate rises along grid
    if len(grid) == 1:
        return grid[0], "one value"
    a, b = 0, len(grid) - 1  # the target's crossing lies between grid[a] and grid[b]
    while b - a > 1:
        m = (a + b) // 2
        r = tally.test(grid[m], target, True, alpha, tol)
        if r == "above":
            b = m
        elif r == "below":
            a = m
        elif r == "cap":  # undecided at its cap: go by its average (only where the rate is already near)
            if tally.rate(grid[m]) < target:
                a = m
            else:
                b = m
        elif r == "near":  # m is close: the pair is m and its neighbour toward the target
            a, b = (m, m + 1) if tally.rate(grid[m]) < target else (m - 1, m)
            break
        else:
            return int(grid[m]), "budget"
    best = tally.closer(grid[a], grid[b], target, alpha)
    return int(best), "budget" if tally.spent >= tally.budget else "pair decided"


def _search_range(tally: _Tally, lo: float, hi: float, target: float, up: bool, alpha: float,
                  tol: float, xtol: float) -> tuple[float, str]:
    """Bracketing; a test that reaches its cap goes by its average (a wrong turn there happens only
    where the rate is already close to the target). The answer: where the monotone fit of every
    played point crosses the target."""
    a, b = float(lo), float(hi)
    stopped = "width"
    while b - a > xtol:
        # the next point: where the monotone fit so far crosses the target, kept a quarter of the
        # bracket away from its ends (a safeguarded regula falsi; the midpoint before any crossing)
        m = min(max(_crossing(tally, up, target, (a + b) / 2), a + (b - a) / 4), b - (b - a) / 4)
        r = tally.test(m, target, up, alpha, tol)
        if r == "cap":
            r = "above" if (tally.rate(m) > target) == up else "below"
        if r == "above":
            b = m
        elif r == "below":
            a = m
        elif r == "near":
            return m, "near target"
        else:
            stopped = "budget"
            break
    return _crossing(tally, up, target, (a + b) / 2), stopped


def _crossing(tally: _Tally, up: bool, target: float, fallback: float) -> float:
    """Where the monotone (isotonic, weighted by games) fit of every played value's rate crosses
    the target, by linear interpolation between the two fitted values either side; `fallback`
    when the fit does not cross it."""
    xs = sorted(tally.games)
    if len(xs) < 2:
        return fallback
    fit = isotonic_regression([tally.rate(x) for x in xs], weights=[tally.games[x] for x in xs],
                              increasing=up).x
    for i in range(len(xs) - 1):
        f0, f1 = fit[i], fit[i + 1]
        if min(f0, f1) <= target <= max(f0, f1) and f0 != f1:
            return float(xs[i] + (target - f0) / (f1 - f0) * (xs[i + 1] - xs[i]))
    return fallback


def _alternative(tally: _Tally, rec: float, rec_above: bool, target: float, up: bool,
                 integer: bool, lo: float, hi: float) -> float | None:
    """The nearest value on the other side of the target from the recommendation, or None."""
    if integer:
        step = -1 if rec_above == up else 1  # toward lower rates when rec is above the target
        alt = int(rec) + step
        return alt if lo <= alt <= hi else None
    other = [x for x in tally.games if x != rec and (tally.rate(x) < target) == rec_above]
    return min(other, key=lambda x: abs(x - rec)) if other else None


def tag_baseline(measure: Measure, target: float, values: Sequence[float], budget_games: int,
                 seed: int = 0) -> BaselineResult:
    """A TAG-style tuner: one game per evaluation, values visited round-robin, the winner the value
    whose own average is closest to the target, reported with that same average and its Wilson
    interval. Round-robin does not adapt, so a value's n one-game evaluations are played as one
    call of n games on one fresh seed (the same distribution, far fewer calls)."""
    if not values:
        raise UserError("values is empty: give at least one knob value")
    _check(target, 0, 1, budget_games, 1, 1, False)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    n = [budget_games // len(values) + (i < budget_games % len(values)) for i in range(len(values))]
    wins = [int(measure(x, k, int(rng.integers(SEED_HIGH)))) if k else 0 for x, k in zip(values, n)]
    played = [i for i in range(len(values)) if n[i]]
    best = min(played, key=lambda i: abs(wins[i] / n[i] - target))
    low, high = proportion_confint(wins[best], n[best], alpha=CONFIRM_ALPHA, method="wilson")
    return BaselineResult(target, values[best], wins[best], n[best], wins[best] / n[best],
                          float(low), float(high), budget_games,
                          tuple(Step(x, w, k) for x, w, k in zip(values, wins, n)))


# ---------------------------------------------------------------------------------------------
# Several knobs at once (issue 41, part 2): an Optuna search, a Pareto set, confirmation.

MultiMeasure = Callable[[dict[str, int], int, int], "int | tuple[int, ...]"]
MULTI_TOL = 0.01  # a confirmed rate within 1 pp of the target "gets there", as does an interval holding it


class Infeasible(UserError):
    """Raised by a several-knob measure for a setting the rules do not allow (e.g. a critical
    knowledge limit above the knowledge limit): the search skips it (no games spent; Optuna is told
    it is as far as can be), and a one-knob search reports it as a one-line error."""


@dataclass(frozen=True)
class Outcome:
    """What the several-knob search measures, and what getting there means.

    A measure returns the trial's success counts (one int, or a tuple), each out of the trial's
    games; counts are pooled over trials by adding.
    - ``kind="rate"``: one count k, the value k / n, a Wilson 95% interval.
    - ``kind="difference"``: two counts (k1, k2), the value k1/n - k2/n. ``paired``: both from the
      same games, exclusive outcomes (seat K's wins and seat J's wins): a Wald interval with the
      multinomial variance (p1 + p2 - d^2) / n; else two cells on the same seeds: Newcombe's hybrid
      score interval for two independent proportions (statsmodels; conservative when common random
      numbers correlate the two, as they do here). ``absolute``: the value is |d| (a gap), its
      interval the image of d's ([0, max] when d's interval holds 0).
    - ``goal="at"``: the target is a value to hit: distance |v - target|; a setting gets there when
      its confirmation interval holds the target or its value is within `tol`. ``goal="at most"``:
      the target is a bound: distance max(0, v - target); a setting gets there when its confirmed
      value is at most the bound. ``goal="band"``: the target is a band's middle and `tol` its
      half-width: distance |v - target| (the search aims at the middle); a setting gets there when
      its confirmed value lies in the band.
    - ``keep=(low, high)``: a second condition on the first count's rate k1 / n (a gap's rate at the
      players asked, or seat K's): it must stay in [low, high]. Its excess outside the range is
      added to the distance, and a setting gets there only when its confirmed rate lies in it, so a
      gap is not closed by making the game unwinnable.
    - ``kind="rates"``: `k` counts, one rate each (one change for several player counts): the goal
      holds for every rate; the distance is the farthest rate's, the value and interval reported
      the farthest rate's, and a setting gets there when every rate does.
    """
    kind: str = "rate"
    paired: bool = False
    absolute: bool = False
    goal: str = "at"
    keep: tuple[float, float] | None = None
    k: int = 1               # kind "rates": how many rates

    def width(self) -> int:
        return {"rate": 1, "rates": self.k}.get(self.kind, 2)

    def worst(self, counts: Sequence[int], n: int, target: float) -> int:
        """kind "rates": the index of the rate farthest from the target (the first of ties); else 0."""
        if self.kind != "rates":
            return 0
        d = [self.distance(c / n, target) for c in counts]
        return d.index(max(d))

    def distance_of(self, counts: Sequence[int], n: int, target: float) -> float:
        """The counts' distance to the target, the kept rate's excess added (kind "rates": the
        farthest rate's)."""
        if self.kind == "rates":
            return max(self.distance(c / n, target) for c in counts)
        return self.distance(self.value(counts, n), target) + self.excess(counts, n)

    def optimistic(self, counts: Sequence[int], n: int, target: float) -> float:
        """The smallest distance to the target within the counts' 95% interval (and the kept rate's
        excess, by its estimate); kind "rates": the largest of the rates' optimistic distances."""
        if self.kind == "rates":
            one = Outcome(goal=self.goal)
            return max(one.optimistic((c,), n, target) for c in counts)
        lo, hi = self.interval(counts, n)
        extra = self.excess(counts, n)
        if self.goal == "at most":
            return max(0.0, lo - target) + extra
        return (0.0 if lo <= target <= hi else min(abs(lo - target), abs(hi - target))) + extra

    def confirm(self, counts: Sequence[int], n: int, target: float, tol: float) -> tuple:
        """(value, low, high, distance, gets there) of a confirmation: a setting gets there by the
        goal (an interval holding the target or within tol; at most the bound; in the band) with
        its kept rate inside the range; kind "rates": the farthest rate's figures, and every rate
        gets there."""
        if self.kind == "rates":
            one = Outcome(goal=self.goal)
            each = [one.confirm((c,), n, target, tol) for c in counts]
            return each[self.worst(counts, n, target)][:4] + (all(e[4] for e in each),)
        v = self.value(counts, n)
        low, high = self.interval(counts, n)
        extra = self.excess(counts, n)
        dist = self.distance(v, target) + extra
        gets = extra == 0.0 and {"at most": v <= target, "band": dist <= tol}.get(
            self.goal, low <= target <= high or dist <= tol)
        return v, low, high, dist, bool(gets)

    def value(self, counts: Sequence[int], n: int) -> float:
        """The value of a rate or a difference (kind "rates": the first rate; ``confirm`` and
        ``distance_of`` take the farthest)."""
        if self.kind in ("rate", "rates"):
            return counts[0] / n
        d = (counts[0] - counts[1]) / n
        return abs(d) if self.absolute else d

    def interval(self, counts: Sequence[int], n: int) -> tuple[float, float]:
        if self.kind in ("rate", "rates"):
            lo, hi = proportion_confint(counts[0], n, alpha=CONFIRM_ALPHA, method="wilson")
            return float(lo), float(hi)
        if self.paired:
            p1, p2 = counts[0] / n, counts[1] / n
            d = p1 - p2
            half = float(norm.ppf(1 - CONFIRM_ALPHA / 2)) * math.sqrt(max(p1 + p2 - d * d, 0.0) / n)
            lo, hi = d - half, d + half
        else:
            from statsmodels.stats.proportion import confint_proportions_2indep
            lo, hi = (float(v) for v in confint_proportions_2indep(counts[0], n, counts[1], n, method="newcomb"))
        if not self.absolute:
            return lo, hi
        return (0.0 if lo <= 0.0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))

    def distance(self, v: float, target: float) -> float:
        return max(0.0, v - target) if self.goal == "at most" else abs(v - target)

    def excess(self, counts: Sequence[int], n: int) -> float:
        """How far the first count's rate lies outside ``keep`` (0 inside it, or with no keep)."""
        if self.keep is None:
            return 0.0
        r = counts[0] / n
        return max(0.0, self.keep[0] - r, r - self.keep[1])

    def check(self, target) -> None:
        if self.kind not in ("rate", "rates", "difference") or self.goal not in ("at", "at most", "band"):
            raise UserError(f"outcome {self.kind!r} with goal {self.goal!r} is not allowed; allowed: rate, rates or "
                            f"difference, at, at most or band")
        if self.kind == "rates" and (self.k < 1 or self.keep is not None):
            raise UserError(f"outcome rates: {self.k} rates{' and a kept rate' if self.keep else ''}; allowed: at "
                            "least one rate, no kept rate")
        low = 0.0 if (self.kind in ("rate", "rates") or self.absolute) else -1.0
        ok = isinstance(target, (int, float)) and (low <= target < 1.0 if self.goal == "at most" or low < 0
                                                   else low < target < 1.0)
        if not ok:
            what = "a rate strictly between 0 and 1" if low == 0.0 and self.goal == "at" else \
                f"a value from {low:g} up to (not including) 1"
            raise UserError(f"target {target!r} is not allowed: give {what}")


RATE = Outcome()


@dataclass(frozen=True)
class Trial:
    """One trial of the several-knob search: `wins` of `games` at `setting`, on the visit-th seed
    (`counts`: every count the measure returned, `wins` the first)."""
    setting: dict[str, int]
    wins: int
    games: int
    visit: int  # 0 for a setting's first trial, 1 for its second, ...: every setting's k-th trial shares seed k
    counts: tuple[int, ...] = ()


@dataclass(frozen=True)
class Confirmed:
    """A setting played on fresh seeds: the outcome's value (`rate`) with its 95% interval.

    `counts` are every count the measure returned and `wins` the first of them: a plain rate's
    wins (then wins / games is `rate`). For several player counts (each count's wins), a gap or an
    edge (two sides' counts), `rate` is the outcome's value from all of `counts` (the farthest
    count's rate, the gap, the edge) and `wins` alone is not its numerator: read `counts`."""
    wins: int
    games: int
    rate: float
    low: float
    high: float
    covers_target: bool
    distance: float  # the outcome's distance to the target (|rate - target|, or the excess over a bound)
    counts: tuple[int, ...] = ()
    gets_there: bool = False  # by the outcome's goal (Outcome)


@dataclass(frozen=True)
class ParetoPoint:
    """A setting with the changes it makes, its search estimate (all its trials pooled), and its
    confirmation on fresh games (the only figures reported as its rate)."""
    setting: dict[str, int]
    changed: tuple[str, ...]     # the knobs whose value differs from the default, in the knobs' order
    n_changed: int
    search_wins: int
    search_games: int
    search_distance: float
    confirmed: Confirmed


@dataclass(frozen=True)
class MultiTargetResult:
    """What `find_target_multi` found.

    pareto: the settings not dominated in (search distance to the target, rules changed), fewest
    changes first, each confirmed on fresh games. smallest: the fewest-changes Pareto point whose
    confirmation gets there (the outcome's goal: for a value to hit, its interval holds the target
    or its value is within `tol`; for a bound, its value is at most the bound); None when none does
    (`rule` says so). alternative: a confirmed setting whose set of changed knobs differs from the
    smallest's (or from the closest point's when none gets there), and which changes at least one:
    the nearest such setting in the search off the Pareto set, else on it."""
    target: float
    defaults: dict[str, int]
    tol: float
    pareto: tuple[ParetoPoint, ...]
    smallest: ParetoPoint | None
    rule: str
    alternative: ParetoPoint | None
    search_games: int
    confirm_games: int           # all the confirmation games (confirm_games per confirmed setting)
    games_per_trial: int
    trials: tuple[Trial, ...]
    outcome: Outcome = RATE


def _domains(knobs: dict) -> tuple[dict[str, list[int]], dict[str, int], set[str]]:
    """{name: its values}, {name: default}, the categorical names, from the knobs' specs: (lo, hi,
    default) whole numbers, or (values, default) with values a list of whole numbers (categorical:
    no order assumed), with one-line UserErrors."""
    if len(knobs) < 1:
        raise UserError("knobs is empty: give at least one knob with (lo, hi, default)")
    dom, dflt, cat = {}, {}, set()
    for name, spec in knobs.items():
        if len(spec) == 2 and isinstance(spec[0], (list, tuple)):
            vals, d = list(spec[0]), spec[1]
            if not vals or any(v != int(v) for v in vals) or d != int(d) or len(set(vals)) != len(vals):
                raise UserError(f"knob {name}: give distinct whole-number values and a default, not {spec!r}")
            dom[name], dflt[name] = [int(v) for v in vals], int(d)
            cat.add(name)
            continue
        if len(spec) != 3 or any(v != int(v) for v in spec):
            raise UserError(f"knob {name}: give whole numbers (lo, hi, default), not {spec!r}")
        if spec[0] > spec[1]:
            raise UserError(f"knob {name} range {spec[0]}..{spec[1]} is empty: lo must be <= hi")
        dom[name], dflt[name] = list(range(int(spec[0]), int(spec[1]) + 1)), int(spec[2])
    return dom, dflt, cat


def _check_multi(target: float, budget_games: int, games_per_trial: int, confirm_games: int, refine: float,
                 outcome: Outcome) -> None:
    outcome.check(target)
    for name, v in (("games_per_trial", games_per_trial), ("confirm_games", confirm_games)):
        if v < 1:
            raise UserError(f"{name} {v} is not allowed: give at least 1 game")
    if not 0.0 <= refine < 1.0:
        raise UserError(f"refine {refine} is not allowed: give a share from 0 up to (not including) 1")
    if budget_games < games_per_trial:
        raise UserError(f"budget_games {budget_games} is below games_per_trial {games_per_trial}: "
                        f"give a budget of at least one trial")


def _pareto(dist: dict[tuple, float], changed: Callable[[tuple], int]) -> list[tuple]:
    """The settings no other setting beats in (distance, changed): fewest changes first."""
    front: list[tuple] = []
    for s in sorted(dist, key=lambda s: (changed(s), dist[s], s)):
        if all(dist[s] < dist[f] for f in front):   # fewer-or-equal changes and no farther: dominated
            front.append(s)
    return front


def find_target_multi(measure: MultiMeasure, target: float, knobs: dict[str, tuple], *,
                      budget_games: int = 20000, games_per_trial: int = 500, confirm_games: int = 2000,
                      tol: float = MULTI_TOL, refine: float = 0.3, seed: int = 0,
                      outcome: Outcome = RATE) -> MultiTargetResult:
    """The smallest change to several whole-number knobs that brings an outcome to `target`.

    knobs: {name: (lo, hi, default)}, or {name: (values, default)} for a categorical knob (values
    a list of whole numbers, each a category: Optuna samples it without order); measure(setting,
    games, seed) -> successes (or a tuple of counts, `outcome`), the same seed giving the same
    games at any setting. `outcome` says what the counts measure and whether the target is a value
    to hit or a bound (`Outcome`; default one rate to hit). budget_games // games_per_trial trials
    of `games_per_trial` games each. When every setting fits in the search's trials (all but the
    `refine` share), each is played once, in order; otherwise Optuna's TPE sampler (seeded)
    proposes settings minimising the pooled outcome's distance to the target, starting from the
    defaults and, when they fit in half the trials, every one-knob change. The number of changes
    needs no search: it is known for every setting, and the Pareto set is built from the trials
    afterwards. A setting's k-th trial plays on the k-th search seed, shared by every setting
    (common random numbers), so a revisited setting gets fresh games and its trials are pooled.
    The last trials (the `refine` share, or all left over after every setting) re-play the two
    best settings (by pooled distance) at each number of changes that are nearer than every
    setting with fewer changes, round by round, fewest changes first, so the Pareto set rests on
    more than one noisy trial per point (first, the nearest setting's reverts, each of its changed
    knobs back to the default, are played when they were not). Then the Pareto set over (pooled
    distance, changes) and an alternative are each played on `confirm_games` games from a
    separate seed stream (one fresh seed shared by the confirmed settings, so their comparison is
    paired): the reported rates and intervals come only from those."""
    import optuna

    dom, defaults, categorical = _domains(knobs)
    _check_multi(target, budget_games, games_per_trial, confirm_games, refine, outcome)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    names = list(knobs)
    search_seq, confirm_seq = np.random.SeedSequence(seed).spawn(2)
    search_rng = np.random.default_rng(search_seq)
    visit_seeds: list[int] = []
    sampler_seed = int(np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[2]).integers(2**31))
    n_trials = budget_games // games_per_trial
    n_refine = int(refine * n_trials) if n_trials > 1 else 0
    space = math.prod(len(dom[k]) for k in names)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=sampler_seed))
    # the defaults first (when they are in the space), then every one-knob change (when they fit in
    # half the search's trials)
    singles = [{**defaults, k: x} for k in names for x in dom[k] if x != defaults[k]]
    starts = [dict(defaults)] + (singles if len(singles) <= (n_trials - n_refine) // 2 else [])
    for start in starts:   # a categorical knob's default outside its values cannot be enqueued
        if all(start[k] in dom[k] for k in categorical):
            study.enqueue_trial(start)
    width = outcome.width()
    stats: dict[tuple, list[int]] = {}   # setting as a tuple in names' order -> [counts..., games]
    visits: dict[tuple, int] = {}
    trials: list[Trial] = []

    def n_changed(s: tuple) -> int:
        return sum(v != defaults[k] for k, v in zip(names, s))

    def counts_of(setting: dict, games: int, seed: int) -> tuple[int, ...]:
        got = measure(dict(setting), games, seed)
        c = (int(got),) if isinstance(got, (int, np.integer)) else tuple(int(v) for v in got)
        if len(c) != width or not all(0 <= v <= games for v in c):
            raise ValueError(f"measure returned {got} out of {games} games at {setting}; expected {width} "
                             f"count{'s' if width > 1 else ''} from 0 to {games}")
        return c

    infeasible: set[tuple] = set()

    def play(s: tuple) -> bool:
        """One trial at s; False (no games) when the rules do not allow s."""
        if s in infeasible:
            return False
        v = visits.get(s, 0)
        while len(visit_seeds) <= v:
            visit_seeds.append(int(search_rng.integers(SEED_HIGH)))
        setting = dict(zip(names, s))
        try:
            c = counts_of(setting, games_per_trial, visit_seeds[v])
        except Infeasible:
            infeasible.add(s)
            return False
        old = stats.get(s, [0] * (width + 1))
        stats[s] = [a + b for a, b in zip(old, c + (games_per_trial,))]
        visits[s] = v + 1
        trials.append(Trial(setting, c[0], games_per_trial, v, c))
        return True

    def distance(s: tuple) -> float:
        return outcome.distance_of(stats[s][:-1], stats[s][-1], target)

    def suggest(t) -> tuple:
        return tuple(t.suggest_categorical(k, dom[k]) if k in categorical else t.suggest_int(k, dom[k][0], dom[k][-1])
                     for k in names)

    if space <= n_trials - n_refine:   # every setting fits in the search's trials: each once, in order
        for s in itertools.product(*(dom[k] for k in names)):
            play(s)
        n_refine = n_trials - len(stats)
    else:
        n_search, asked = n_trials - n_refine, 0
        while len(trials) < n_search and asked < 20 * n_search:   # an infeasible setting spends no trial
            asked += 1
            t = study.ask()
            s = suggest(t)
            study.tell(t, distance(s) if play(s) else 2.0)    # 2: farther than any outcome can be
    if not stats:
        raise UserError("no setting in the knobs' ranges is allowed by the rules: widen or move the ranges")
    left = n_refine
    # simplification: the nearest setting's reverts (each changed knob back to its default, when that
    # value is in the knob's span) not yet played, so a needless change is not kept for want of a trial
    if left > 0 and stats:
        near = min(stats, key=lambda s: (distance(s), n_changed(s), s))
        for i, k in enumerate(names):
            r = near[:i] + (defaults[k],) + near[i + 1:]
            if left > 0 and near[i] != defaults[k] and defaults[k] in dom[k] and r not in stats and play(r):
                left -= 1
    def optimistic(s: tuple) -> float:
        """The smallest distance to the target within the setting's pooled 95% interval."""
        return outcome.optimistic(stats[s][:-1], stats[s][-1], target)

    while left > 0:   # refinement rounds: at each number of changes the two most promising (by the
        played = 0    # optimistic distance, then the distance) get one more trial, unless even their
        #               optimistic distance is farther than the best with fewer changes (then off the front)
        for c in sorted({n_changed(s) for s in stats}):
            fewer = min((distance(s) for s in stats if n_changed(s) < c), default=math.inf)
            best = sorted((s for s in stats if n_changed(s) == c), key=lambda s: (optimistic(s), distance(s), s))[:2]
            for s in best:
                if left > 0 and optimistic(s) < fewer:
                    play(s)
                    left -= 1
                    played += 1
        if not played:
            break

    confirm_seed = int(np.random.default_rng(confirm_seq).integers(SEED_HIGH))

    def point(s: tuple) -> ParetoPoint:
        setting = dict(zip(names, s))
        c = counts_of(setting, confirm_games, confirm_seed)
        v, low, high, dist, gets = outcome.confirm(c, confirm_games, target, tol)
        conf = Confirmed(c[0], confirm_games, v, low, high, bool(low <= target <= high), dist, c, gets)
        return ParetoPoint(setting, tuple(kn for kn, x in zip(names, s) if x != defaults[kn]), n_changed(s),
                           stats[s][0], stats[s][-1], distance(s), conf)

    front = [point(s) for s in _pareto({s: distance(s) for s in stats}, n_changed)]
    there = [p for p in front if p.confirmed.gets_there]
    kept = "" if outcome.keep is None else (f", and the first rate within {100 * outcome.keep[0]:g}-"
                                             f"{100 * outcome.keep[1]:g}%")
    how = {"at most": f"its confirmed value at most {100 * target:g} pp",
           "band": f"its confirmed value in the band {100 * (target - tol):g}-{100 * (target + tol):g}%"}.get(
        outcome.goal, f"95% interval holds the target, or within {100 * tol:g} pp") + kept
    if there:
        smallest: ParetoPoint | None = min(there, key=lambda p: (p.n_changed, p.confirmed.distance))
        assert smallest is not None
        rule = (f"the fewest rules changed among the Pareto points whose fresh games get there ({how}): "
                f"{smallest.n_changed}")
        anchor = smallest
    else:
        smallest = None
        anchor = min(front, key=lambda p: p.confirmed.distance)
        rule = (f"no Pareto point's fresh games get there ({how}: none); the closest changes {anchor.n_changed}")
    # the diverse alternative: the best-searched setting off the Pareto set that changes something, and
    # whose changed knobs differ from the anchor's (a Pareto point only when no such setting was tried)
    off = set(stats) - {tuple(p.setting.values()) for p in front}

    def other(s: tuple) -> bool:
        return n_changed(s) > 0 and tuple(kn for kn, x in zip(names, s) if x != defaults[kn]) != anchor.changed
    others = [s for s in off if other(s)] or [s for s in stats if other(s)]
    alternative = None
    if others:
        pick = min(others, key=lambda s: (distance(s), n_changed(s), s))
        alternative = next((p for p in front if tuple(p.setting.values()) == pick), None) or point(pick)
    n_confirmed = len(front) + (alternative is not None and alternative not in front)
    return MultiTargetResult(target, defaults, tol, tuple(front), smallest, rule, alternative,
                             sum(t.games for t in trials), confirm_games * n_confirmed, games_per_trial,
                             tuple(trials), outcome)
