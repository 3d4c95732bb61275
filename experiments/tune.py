"""`boardsim tune bethel-woods|benevolent`: tune the heuristic's weights (theta) for win rate with CMA-ES.

CMA-ES (Hansen's ``cma`` package): a derivative-free search for noisy objectives in a few dozen
dimensions, the usual choice for tuning evaluation weights by play. The 24 weights are searched in
[0, 1]^24, each mapped linearly onto its THETA_BOUNDS interval, starting from THETA_DEFAULT with
step size ``sigma0`` (a fraction of every bound's width).

Common random numbers: in generation g every candidate plays the same games (games 0..n-1 of the
seed ``seed * 1000 + g``), and the default weights play them too, so candidates are ranked on the
same luck and every generation says how far its best candidate is above the defaults. Fitness is
the number of games won (CMA-ES minimises minus that).

Guard against tuning to noise: the result (CMA-ES's mean, ``xfavorite``, less selected on luck
than the best single evaluation) is confirmed on fresh seeds (``seed * 1000 + 999``, never used in
the tuning) against the defaults with a paired 95% interval and McNemar's p-value
(experiments.stats.paired_difference). Only a confirmed vector (interval above zero) is written
into the package (policies/bethel_woods/tuned.json), where ``--policy tuned`` finds it; the run's
record (every generation's figures, the confirmation, the vector) is always written to
``--record``.

Benevolent (``tune_benevolent``, the same search, ``cma_search``): the candidate plays against the
default heuristic, seats rotated: generation g's games are deals 0..m-1 of its seed, each played
once with the candidate in every seat (m = games per candidate / players; the arena's
``rotate_seats``), and fitness is the candidate's wins. The defaults' figure of a generation is
what the default weights win in the same seats: with the defaults in every seat the rotations are
one game (the heuristic never uses its key), so it is the number of those deals that did not time
out, (1 - timeouts) / players of the games: 50% less half the timeouts for 2 players, the share
that equal weights get. The confirmation pairs each game of the tuned weights (deal d, seat k)
with the all-default game of the same deal, same seat, and takes the deal as the unit (the
seats of one deal are strongly correlated: in the all-default game exactly one of them wins): the
t interval and t-test of the per-deal differences (experiments.stats.paired_difference_by_deal).
Confirmed when the interval is above zero, i.e. the tuned weights win more than the defaults'
share on the same deals. Installed into policies/benevolent/tuned.json.
"""
from __future__ import annotations

import datetime
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW

from .stats import paired_difference, paired_difference_by_deal, p_text, pct, signed, wilson



def _theta(x, lo, hi):
    return lo + np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0) * (hi - lo)


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def cma_search(default, bounds, fitness, reference, budget_games, games_per_candidate, popsize, seed, sigma0,
               reference_games, say=print):
    """CMA-ES over the weights scaled to [0, 1] within `bounds`, from `default`, within
    `budget_games` games. Generation g evaluates every candidate with ``fitness(theta, gseed)``
    (the candidate's wins on the games of seed ``seed * 1000 + g``, games_per_candidate of them)
    and the defaults with ``reference(gseed)`` (their wins on the same games, costing
    `reference_games` games). Returns (the tuned vector: CMA-ES's mean ``xfavorite``, the history
    of the generations, the generations, the games played, the population, the seconds)."""
    import cma

    from simcore.errors import UserError

    if games_per_candidate < 10:
        raise UserError(f"games per candidate {games_per_candidate}: allowed 10 or more")
    lo, hi = bounds[:, 0], bounds[:, 1]
    x0 = (default - lo) / (hi - lo)
    opts = {"bounds": [0.0, 1.0], "seed": seed + 1, "verbose": -9}
    if popsize:
        opts["popsize"] = popsize
    es = cma.CMAEvolutionStrategy(list(x0), sigma0, opts)
    per_gen = es.popsize * games_per_candidate + reference_games  # the defaults play every generation's games too
    gens = budget_games // per_gen
    if gens < 1:
        raise UserError(f"budget {budget_games:,} games is less than one generation "
                        f"({es.popsize} candidates x {games_per_candidate} games + the defaults' "
                        f"{reference_games} = {per_gen:,})")
    history = []
    t0 = time.perf_counter()
    played = 0
    for g in range(gens):
        gseed = seed * 1000 + g
        xs = es.ask()
        w = [int(fitness(_theta(x, lo, hi), gseed)) for x in xs]
        wd = int(reference(gseed))
        played += per_gen
        es.tell(xs, [-float(v) for v in w])
        row = {"generation": g, "seed": gseed, "games": games_per_candidate, "best_wins": int(max(w)),
               "mean_wins": float(np.mean(w)), "default_wins": wd, "sigma": float(es.sigma)}
        history.append(row)
        say(f"generation {g + 1}/{gens} (seed {gseed}): best {max(w)}/{games_per_candidate}, "
            f"mean {np.mean(w):.1f}, defaults {wd}; sigma {es.sigma:.3f}; {time.perf_counter() - t0:.0f} s")
    tuned = _theta(es.result.xfavorite, lo, hi)
    return tuned, history, gens, played, es.popsize, time.perf_counter() - t0


def _method(popsize, sigma0):
    import cma
    return (f"CMA-ES (cma {cma.__version__}), weights scaled to [0, 1] within THETA_BOUNDS, "
            f"sigma0 {sigma0}, popsize {popsize}, common random numbers per generation")


def _ci(k, n):
    """'(27.000%, 95% CI 25.063% to 29.008%)': a tally's rate with its Wilson interval, as
    stats.pct prints rates (0 wins of 20,000: '0%, 95% CI 0% to 0.0192%', never '0.0% to 0.0%')."""
    lo, hi = wilson(k, n)
    return f"({pct(k / n)}, 95% CI {pct(lo)} to {pct(hi)})"


def _bw_problem(players, spies, games_per_candidate, confirm_games, threads):
    """Bethel Woods' tuning problem: the heuristic's win rate at one setup (every seat the
    candidate), the confirmation paired game by game against the default weights."""
    from arena.bethel_woods.batch import simulate
    from policies.bethel_woods.heuristic import THETA_DEFAULT

    def wins(theta, gseed, n):
        return simulate(players, spies, policy="heuristic", games=n, seed=gseed, threads=threads, theta=theta)

    def confirm(tuned, cseed):
        a = simulate(players, spies, policy="heuristic", games=confirm_games, seed=cseed, threads=threads,
                     theta=tuned, keep_records=True)
        b = simulate(players, spies, policy="heuristic", games=confirm_games, seed=cseed, threads=threads,
                     theta=THETA_DEFAULT, keep_records=True)
        d = paired_difference(a.records["won"].to_numpy(), b.records["won"].to_numpy())
        confirmed = d.ci_low > 0
        rec = {
            "seed": cseed, "games": confirm_games,
            "tuned_wins": a.wins, "tuned_win_rate": a.win_rate, "tuned_ci95": list(wilson(a.wins, a.games)),
            "default_wins": b.wins, "default_win_rate": b.win_rate, "default_ci95": list(wilson(b.wins, b.games)),
            "diff": d.diff, "diff_ci95": [d.ci_low, d.ci_high], "p_value": d.pvalue,
            "only_tuned": d.only_a, "only_default": d.only_b,
            "test": "Newcombe square-and-add interval for paired proportions, exact McNemar test",
        }
        line = (f"tuned {a.wins}/{a.games} {_ci(a.wins, a.games)} against defaults {b.wins}/{b.games} "
                f"{_ci(b.wins, b.games)}: {signed(d.diff * 100)} pp "
                f"(95% CI {signed(d.ci_low * 100)} to {signed(d.ci_high * 100)}), McNemar p {p_text(d.pvalue)}: "
                + ("confirmed" if confirmed else "NOT confirmed"))
        return rec, confirmed, line

    return Problem(
        fitness=lambda th, gs: wins(th, gs, games_per_candidate).wins,
        reference=lambda gs: wins(THETA_DEFAULT, gs, games_per_candidate).wins,
        unit=games_per_candidate, unit_fields={},
        head={"players": players, "spies": spies}, setup_args=f"--players {players} --spies {spies}",
        confirm_line=f"confirming on fresh seed {{seed}}: {confirm_games:,} games each, tuned against the defaults",
        confirm=confirm)


def _deals(games, players, what):
    from simcore.errors import UserError
    if games % players or games < 2 * players:
        raise UserError(f"{what} {games}: for {players} players give a multiple of {players}, at least "
                        f"{2 * players} (every deal is played once with the candidate in each seat)")
    return games // players


def bv_rotated_wins(theta, players, deals, seed, threads=None, reference=None):
    """The heuristic with weights `theta` in each seat in turn, the heuristic with `reference`
    (default: its default weights) in the others, over deals 0..deals-1 of `seed`. Returns a 0/1
    array (deals, players): entry (d, k) is 1 when `theta` won deal d from seat k."""
    from arena.benevolent.batch import rotate_seats
    w, _ = rotate_seats("heuristic", "heuristic", players, deals, seed, threads, theta_a=theta, theta_b=reference)
    return (w == np.arange(players)[:, None]).T


def bv_reference_wins(players, deals, seed, threads=None, reference=None):
    """What the reference weights win in the same slots: with the reference in every seat the
    rotations are one and the same game (the heuristic never uses its key), so entry (d, k) is 1
    when seat k won the all-reference game on deal d; each deal has exactly one 1, none on a
    timeout. Its mean is (1 - timeout rate) / players: 50% less half the timeouts for 2 players."""
    from arena.benevolent.batch import simulate
    s = simulate(players, None, games=deals, seed=seed, threads=threads, policies=["heuristic"] * players,
                 keep_records=True, thetas=[reference] * players)
    w = s.records["winner"].to_numpy()
    return w[:, None] == np.arange(players)[None, :]


def confirm_benevolent(theta, players, games, seed, threads=None, reference=None):
    """The tuned weights against the reference (default: the default weights) on `games` fresh
    games (games / players deals, the tuned weights in every seat once). Paired by deal and seat:
    the tuned weights in seat k of deal d against the reference weights in the same seat of the
    same deal (the all-reference game); the deal is the unit (experiments.stats.
    paired_difference_by_deal). Returns (the paired difference, tuned's wins by slot, the
    reference's wins by slot)."""
    deals = _deals(games, players, "confirm-games")
    a = bv_rotated_wins(theta, players, deals, seed, threads, reference)
    b = bv_reference_wins(players, deals, seed, threads, reference)
    return paired_difference_by_deal(a, b), a, b


def _bv_problem(players, spies, games_per_candidate, confirm_games, threads):
    """Benevolent's tuning problem: the candidate in one seat against the default heuristic in the
    others, seats rotated over the same deals; the confirmation on fresh deals."""
    from simcore.benevolent.face import check_players

    check_players(players)
    deals = _deals(games_per_candidate, players, "games per candidate")
    _deals(confirm_games, players, "confirm-games")

    def confirm(tuned, cseed):
        d, a, b = confirm_benevolent(tuned, players, confirm_games, cseed, threads)
        confirmed = d.ci_low > 0
        ta, tb, n = int(a.sum()), int(b.sum()), int(a.size)
        rec = {
            "seed": cseed, "games": n, "deals": n // players,
            "tuned_wins": ta, "tuned_win_rate": ta / n, "tuned_ci95": list(wilson(ta, n)),
            "default_wins": tb, "default_win_rate": tb / n, "default_ci95": list(wilson(tb, n)),
            "fair_share": 1 / players, "timeouts_all_default": int(n // players - tb),
            "diff": d.diff, "diff_ci95": [d.ci_low, d.ci_high], "p_value": d.pvalue,
            "only_tuned": d.only_a, "only_default": d.only_b,
            "test": "paired by deal and seat against the all-default game on the same deal; t interval and "
                    "t-test of the per-deal mean differences (the deal is the unit)",
        }
        # the all-default game of a deal is won by one seat or none, so the default's wins over the
        # rotated seats are the decided all-default games: its rate is the fair share of the decided games
        line = (f"tuned {ta}/{n} {_ci(ta, n)} against the defaults (the default in the same seats: {tb}/{n} "
                f"{_ci(tb, n)}, which is the fair share: 1/{players} of the games some seat won; "
                f"{1 / players:.0%} without timeouts): {signed(d.diff * 100)} pp (95% CI {signed(d.ci_low * 100)} to "
                f"{signed(d.ci_high * 100)}), p (by deal) {p_text(d.pvalue)}: " + ("confirmed" if confirmed else "NOT confirmed"))
        return rec, confirmed, line

    return Problem(
        fitness=lambda th, gs: int(bv_rotated_wins(th, players, deals, gs, threads).sum()),
        reference=lambda gs: int(bv_reference_wins(players, deals, gs, threads).sum()),
        unit=deals, unit_fields={"deals_per_candidate": deals},
        head={"players": players,
              "opponents": "the default heuristic in every other seat; the candidate plays every seat once on each deal"},
        setup_args=f"--players {players}",
        confirm_line=(f"confirming on fresh seed {{seed}}: {confirm_games:,} games ({confirm_games // players:,} deals, "
                      "the tuned weights in every seat once) against the defaults"),
        confirm=confirm)


@dataclass(frozen=True)
class Problem:
    """One game's tuning problem at one setup (its part of the game's adapter): the candidate's
    fitness and the defaults' on a generation's seed, the generation's unit of games, the
    confirmation on fresh seeds, and the record's own fields."""
    fitness: Callable        # (theta, generation seed) -> the candidate's wins
    reference: Callable      # generation seed -> the default weights' wins on the same games
    unit: int                # CMA-ES's unit of a candidate's games (games, or deals)
    unit_fields: dict        # the record's fields after games_per_candidate
    head: dict               # the record's setup fields after game and policy
    setup_args: str          # the command's setup options
    confirm_line: str        # the confirmation's first line ({seed})
    confirm: Callable        # (tuned, seed) -> (the confirmation's record, confirmed, its last line)


_PROBLEMS = {BW.name: _bw_problem, BV.name: _bv_problem}


def tune(game, players, spies=0, budget_games=100_000, games_per_candidate=500, popsize=None, seed=1, sigma0=0.03,
         confirm_games=20_000, threads=None, say=print):
    """CMA-ES on a game's heuristic weights within `budget_games` games of tuning (``cma_search``),
    then the confirmation on fresh seeds; returns the record (dict). The game's ``Problem`` says
    what a candidate's games are."""
    from simcore.games import game as game_of
    g = game_of(game)
    H = heuristic_module(g)
    pr = _PROBLEMS[g.name](players, spies, games_per_candidate, confirm_games, threads)
    tuned, history, gens, played, pop, secs = cma_search(
        H.THETA_DEFAULT, H.THETA_BOUNDS, pr.fitness, pr.reference, budget_games, games_per_candidate, popsize, seed,
        sigma0, pr.unit, say)
    cseed = seed * 1000 + 999
    say(pr.confirm_line.format(seed=cseed))
    confirmation, confirmed, line = pr.confirm(tuned, cseed)
    rec = {
        "game": g.name, "policy": "heuristic", **pr.head,
        "method": _method(pop, sigma0),
        "seed": seed, "generations": gens, "games_per_candidate": games_per_candidate, **pr.unit_fields,
        "tuning_games": played, "tuning_seconds": secs,
        "history": history,
        "confirmation": confirmation,
        "confirmed": bool(confirmed),
        "theta": {n: float(v) for n, v in zip(H.THETA_NAMES, tuned)},
        "theta_default": {n: float(v) for n, v in zip(H.THETA_NAMES, H.THETA_DEFAULT)},
        "date": _now(),
        "command": f"boardsim tune {g.command} {pr.setup_args} --budget-games {budget_games} "
                   f"--games-per-candidate {games_per_candidate} --seed {seed} --confirm-games {confirm_games} "
                   f"--sigma0 {sigma0}" + (f" --popsize {popsize}" if popsize else ""),
    }
    say(line)
    return rec


def heuristic_module(game):
    """The game's heuristic (its THETA_NAMES, THETA_DEFAULT, THETA_BOUNDS)."""
    from policies import modules
    return modules(game).heuristic


def tune_bethel_woods(players=3, spies=0, budget_games=100_000, games_per_candidate=500, popsize=None,
                      seed=1, sigma0=0.03, confirm_games=20_000, threads=None, say=print):
    """``tune`` for Bethel Woods (the heuristic's win rate at one setup)."""
    return tune(BW, players, spies, budget_games, games_per_candidate, popsize, seed, sigma0, confirm_games, threads,
                say)


def tune_benevolent(players=2, budget_games=100_000, games_per_candidate=1000, popsize=None, seed=1, sigma0=0.03,
                    confirm_games=20_000, threads=None, say=print):
    """``tune`` for Benevolent (the candidate in one seat against the default heuristic)."""
    return tune(BV, players, 0, budget_games, games_per_candidate, popsize, seed, sigma0, confirm_games, threads, say)
