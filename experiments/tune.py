"""`boardsim tune bethel-woods`: tune the heuristic's weights (theta) for win rate with CMA-ES.

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
"""
from __future__ import annotations

import datetime
import json
import time
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from .stats import paired_difference, wilson

TUNE_GAMES = ("bethel-woods",)


def _theta(x, lo, hi):
    return lo + np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0) * (hi - lo)


def tune_bethel_woods(players=3, spies=0, budget_games=100_000, games_per_candidate=500, popsize=None,
                      seed=1, sigma0=0.03, confirm_games=20_000, threads=None, say=print):
    """Run CMA-ES within `budget_games` games of tuning, then confirm; return the record (dict)."""
    import cma

    from arena.bethel_woods.batch import simulate
    from policies.bethel_woods.heuristic import THETA_BOUNDS, THETA_DEFAULT, THETA_NAMES
    from simcore.errors import UserError

    if games_per_candidate < 10:
        raise UserError(f"games per candidate {games_per_candidate}: allowed 10 or more")
    lo, hi = THETA_BOUNDS[:, 0], THETA_BOUNDS[:, 1]
    x0 = (THETA_DEFAULT - lo) / (hi - lo)
    opts = {"bounds": [0.0, 1.0], "seed": seed + 1, "verbose": -9}
    if popsize:
        opts["popsize"] = popsize
    es = cma.CMAEvolutionStrategy(list(x0), sigma0, opts)
    per_gen = (es.popsize + 1) * games_per_candidate  # the defaults play every generation's games too
    gens = budget_games // per_gen
    if gens < 1:
        raise UserError(f"budget {budget_games:,} games is less than one generation "
                        f"({es.popsize} candidates + the defaults, {games_per_candidate} games each = {per_gen:,})")

    def wins(theta, gseed, n):
        return simulate(players, spies, policy="heuristic", games=n, seed=gseed, threads=threads, theta=theta)

    history = []
    t0 = time.perf_counter()
    played = 0
    for g in range(gens):
        gseed = seed * 1000 + g
        xs = es.ask()
        w = [wins(_theta(x, lo, hi), gseed, games_per_candidate).wins for x in xs]
        wd = wins(THETA_DEFAULT, gseed, games_per_candidate).wins
        played += per_gen
        es.tell(xs, [-float(v) for v in w])
        row = {"generation": g, "seed": gseed, "games": games_per_candidate, "best_wins": int(max(w)),
               "mean_wins": float(np.mean(w)), "default_wins": int(wd), "sigma": float(es.sigma)}
        history.append(row)
        say(f"generation {g + 1}/{gens} (seed {gseed}): best {max(w)}/{games_per_candidate}, "
            f"mean {np.mean(w):.1f}, defaults {wd}; sigma {es.sigma:.3f}; {time.perf_counter() - t0:.0f} s")
    tuned = _theta(es.result.xfavorite, lo, hi)

    cseed = seed * 1000 + 999
    say(f"confirming on fresh seed {cseed}: {confirm_games:,} games each, tuned against the defaults")
    a = simulate(players, spies, policy="heuristic", games=confirm_games, seed=cseed, threads=threads, theta=tuned,
                 keep_records=True)
    b = simulate(players, spies, policy="heuristic", games=confirm_games, seed=cseed, threads=threads,
                 theta=THETA_DEFAULT, keep_records=True)
    d = paired_difference(a.records["won"].to_numpy(), b.records["won"].to_numpy())
    confirmed = d.ci_low > 0
    rec = {
        "game": "bethel_woods", "policy": "heuristic", "players": players, "spies": spies,
        "method": f"CMA-ES (cma {cma.__version__}), weights scaled to [0, 1] within THETA_BOUNDS, "
                  f"sigma0 {sigma0}, popsize {es.popsize}, common random numbers per generation",
        "seed": seed, "generations": gens, "games_per_candidate": games_per_candidate,
        "tuning_games": played, "tuning_seconds": time.perf_counter() - t0,
        "history": history,
        "confirmation": {
            "seed": cseed, "games": confirm_games,
            "tuned_wins": a.wins, "tuned_win_rate": a.win_rate, "tuned_ci95": list(wilson(a.wins, a.games)),
            "default_wins": b.wins, "default_win_rate": b.win_rate, "default_ci95": list(wilson(b.wins, b.games)),
            "diff": d.diff, "diff_ci95": [d.ci_low, d.ci_high], "p_value": d.pvalue,
            "only_tuned": d.only_a, "only_default": d.only_b,
            "test": "paired Wald interval of the per-game differences, exact McNemar test",
        },
        "confirmed": bool(confirmed),
        "theta": {n: float(v) for n, v in zip(THETA_NAMES, tuned)},
        "theta_default": {n: float(v) for n, v in zip(THETA_NAMES, THETA_DEFAULT)},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": f"boardsim tune bethel-woods --players {players} --spies {spies} --budget-games {budget_games} "
                   f"--games-per-candidate {games_per_candidate} --seed {seed} --confirm-games {confirm_games} --sigma0 {sigma0}"
                   + (f" --popsize {popsize}" if popsize else ""),
    }
    say(f"tuned {a.wins}/{a.games} against defaults {b.wins}/{b.games}: {d.diff * 100:+.2f} pp "
        f"(95% CI {d.ci_low * 100:+.2f} to {d.ci_high * 100:+.2f}), McNemar p {d.pvalue:.2g}: "
        + ("confirmed" if confirmed else "NOT confirmed"))
    return rec


def tune(
    game: Annotated[str, typer.Argument(help="bethel-woods (Benevolent: not yet).")],
    players: Annotated[int, typer.Option(help="Players, 2 to 4.")] = 3,
    spies: Annotated[int, typer.Option(help="Spies at setup, 0 to 5.")] = 0,
    budget_games: Annotated[int, typer.Option(help="Games to spend on the tuning (confirmation not counted).")] = 100_000,
    games_per_candidate: Annotated[int, typer.Option(help="Games each candidate plays per generation.")] = 500,
    popsize: Annotated[Optional[int], typer.Option(help="CMA-ES population (default: the package's, 4 + 3 ln 24 = 13).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the tuning (generation g plays seed*1000+g; confirmation seed*1000+999).")] = 1,
    confirm_games: Annotated[int, typer.Option(help="Games of the confirmation on fresh seeds.")] = 20_000,
    sigma0: Annotated[float, typer.Option(help="CMA-ES's initial step, as a fraction of every weight's bound width.")] = 0.03,
    threads: Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")] = None,
    record: Annotated[Path, typer.Option(help="Write the run's record (JSON) here.")] = Path("tune_record.json"),
    install: Annotated[bool, typer.Option(help="Write a confirmed vector into the package (policies/bethel_woods/tuned.json).")] = True,
):
    """Tune the heuristic's weights for win rate with CMA-ES (common random numbers), confirm on fresh seeds, install if confirmed."""
    from simcore.bethel_woods.face import check_setup_args
    from simcore.errors import UserError

    from .errors import check_writable, fail
    try:
        if game not in TUNE_GAMES:
            raise UserError(f"unknown game {game!r} for tune; allowed: {', '.join(TUNE_GAMES)}")
        check_setup_args(players, spies)
        if budget_games < 1 or confirm_games < 2:
            raise UserError(f"budget-games {budget_games} / confirm-games {confirm_games}: allowed 1+ / 2+")
        check_writable(record)
        if not 0 < sigma0 <= 0.5:
            raise UserError(f"sigma0 {sigma0}: allowed above 0 and at most 0.5")
        rec = tune_bethel_woods(players, spies, budget_games, games_per_candidate, popsize, seed, sigma0,
                                confirm_games=confirm_games, threads=threads,
                                say=lambda m: typer.echo(m, err=True))
    except UserError as e:
        raise fail(str(e).splitlines()[0]) from None
    Path(record).write_text(json.dumps(rec, indent=1) + "\n")
    typer.echo(f"record written to {record}")
    if install and rec["confirmed"]:
        from policies.bethel_woods.tuned import TUNED_PATH
        TUNED_PATH.write_text(json.dumps(rec, indent=1) + "\n")
        typer.echo(f"confirmed: installed as {TUNED_PATH} (--policy tuned)")
    elif not rec["confirmed"]:
        typer.echo("not confirmed on fresh seeds: nothing installed")
