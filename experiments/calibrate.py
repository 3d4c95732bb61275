"""From bots to a table of people: place a playtest group on the skill dial (docs/studies.md,
"Calibrating a group").

A designer records their group's Bethel Woods playtests (a CSV: players, spies, won) and asks what
the group would see at every other difficulty and player count. The learned player with the skill
dial at temperature T (``policies.dial_theta``) is a one-parameter family of players, weaker as T
grows; ``calibrate``

1. plays every setup of the playtests and of the predictions at each temperature of ``DIAL_GRID``
   (the same seeds for every temperature), giving a win-rate curve p_s(T) per setup, read between
   the grid's points by linear interpolation;
2. places the group at the T of the highest binomial likelihood of its wins, with the 95%
   likelihood-ratio interval (the Ts whose log-likelihood is within chi2(1, 0.95) / 2 = 1.92 of
   the best); the curves' own simulation noise is left out of it (it is small beside a playtest's
   at the default games, and the predictions below add it);
3. predicts the group's win rate at every setup: p_s(T) at the best T, with the range of p_s over
   the interval widened by each end's Wilson interval of the simulation;
4. says how many more playtest games would halve the interval: the Fisher information of one game
   at setup s is p_s'(T)^2 / (p_s (1 - p_s)) at the best T; halving the interval takes four times
   the information the playtests hold, so three times as much more, played at the setup of the
   most information per game.

The dial only weakens the learned player: a group that wins more than it at T = 0 is placed at
the dial's strong end ("as strong as the learned player or stronger"), one that wins less than at
the grid's top at its weak end. Bethel Woods only: a cooperative group has one skill; a Benevolent
seat's share depends on every player at the table.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.errors import UserError

DIAL_GRID = (0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2)
SIM_GAMES = 400          # games per setup and temperature of the curves
MAX_ROWS = 100_000       # playtest rows a file may hold
LR_DROP = 1.920729410347062   # chi2.ppf(0.95, 1) / 2: the likelihood-ratio interval's drop
FINE = 2000              # points of the fine grid the likelihood is read on
WON_WORDS = {"1": 1, "0": 0, "won": 1, "lost": 0, "win": 1, "loss": 0, "yes": 1, "no": 0, "true": 1, "false": 0}


def read_playtests(path) -> pd.DataFrame:
    """A playtest CSV as one row per setup (players, spies, games, wins). Columns: players (2-4),
    spies (0-5), won (1/0, won/lost, yes/no); other columns are ignored. A one-line UserError for
    anything else, naming the row and the value."""
    from simcore.limits import read_regular
    path = Path(path)
    what = f"playtest file {str(path)!r}"
    try:
        text = read_regular(path, what).decode("utf-8-sig")
    except FileNotFoundError:
        raise UserError(f"{what} does not exist") from None
    except UnicodeDecodeError:
        raise UserError(f"{what} is not UTF-8 text (a CSV with columns players, spies, won)") from None
    except OSError as e:
        raise UserError(f"{what} cannot be read: {e.strerror or e}") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise UserError(f"{what} is empty; expected a header players,spies,won and a row per game")
    head = [h.strip().lower() for h in rows[0]]
    missing = [c for c in ("players", "spies", "won") if c not in head]
    if missing:
        raise UserError(f"{what}: no column {', '.join(repr(m) for m in missing)} in the header {rows[0]!r}; "
                        "expected players, spies, won")
    body = [r for r in rows[1:] if any(x.strip() for x in r)]
    if not body:
        raise UserError(f"{what} has no games: one row per game (players, spies, won)")
    if len(body) > MAX_ROWS:
        raise UserError(f"{what} has {len(body):,} games; at most {MAX_ROWS:,}")
    ix = {c: head.index(c) for c in ("players", "spies", "won")}
    out = []
    for k, r in enumerate(rows[1:], start=2):
        if not any(x.strip() for x in r):
            continue
        if len(r) < len(head):
            raise UserError(f"{what}, line {k}: {len(r)} fields, the header has {len(head)}")
        pl, sp, won = (r[ix[c]].strip() for c in ("players", "spies", "won"))
        if pl not in ("2", "3", "4"):
            raise UserError(f"{what}, line {k}: players {pl!r}; allowed 2, 3 or 4")
        if sp not in tuple("012345"):
            raise UserError(f"{what}, line {k}: spies {sp!r}; allowed 0 to 5")
        if won.lower() not in WON_WORDS:
            raise UserError(f"{what}, line {k}: won {won!r}; allowed 1 or 0 (or won/lost, yes/no)")
        out.append((int(pl), int(sp), WON_WORDS[won.lower()]))
    df = pd.DataFrame(out, columns=["players", "spies", "won"])
    return (df.groupby(["players", "spies"], as_index=False).agg(games=("won", "size"), wins=("won", "sum"))
            .astype({"games": int, "wins": int}))


@dataclass
class Fit:
    t_hat: float
    t_low: float
    t_high: float
    fine: np.ndarray         # the fine grid of temperatures
    loglik: np.ndarray       # the log-likelihood on it
    at_strong_end: bool      # the best T is the dial's strong end (0)
    at_weak_end: bool        # ... or its weak end (the grid's top)


def curve_at(p_grid: np.ndarray, grid, t) -> np.ndarray:
    """Setups' win rates at temperatures t, read linearly between the grid's points:
    p_grid (setups, len(grid)) -> (setups, len(t))."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    return np.stack([np.interp(t, grid, row) for row in np.atleast_2d(p_grid)])


def fit_dial(p_grid, grid, wins, games, sim_games: int = SIM_GAMES) -> Fit:
    """The group's place on the dial: the T of the highest binomial log-likelihood of `wins` of
    `games` at each setup (rows of p_grid) and the 95% likelihood-ratio interval. A curve's rate
    is kept within [1/(2 sim_games), 1 - 1/(2 sim_games)] (a simulated 0% is not impossible)."""
    grid = np.asarray(grid, dtype=float)
    fine = np.linspace(grid[0], grid[-1], FINE)
    eps = 0.5 / sim_games
    p = np.clip(curve_at(p_grid, grid, fine), eps, 1 - eps)
    w = np.asarray(wins, dtype=float)[:, None]
    n = np.asarray(games, dtype=float)[:, None]
    ll = (w * np.log(p) + (n - w) * np.log1p(-p)).sum(axis=0)
    best = int(np.argmax(ll))
    inside = fine[ll >= ll[best] - LR_DROP]
    return Fit(float(fine[best]), float(inside.min()), float(inside.max()), fine, ll,
               best == 0, best == FINE - 1)


def information(p_grid, grid, t: float) -> np.ndarray:
    """The Fisher information about T of one game at each setup at temperature t:
    p'(t)^2 / (p (1 - p)), the slope from the neighbouring grid points."""
    grid = np.asarray(grid, dtype=float)
    h = max(1e-4, (grid[-1] - grid[0]) / FINE * 5)
    lo, hi = max(grid[0], t - h), min(grid[-1], t + h)
    a, b = curve_at(p_grid, grid, [lo, hi]).T
    mid = np.clip(curve_at(p_grid, grid, [t])[:, 0], 1e-3, 1 - 1e-3)
    slope = (b - a) / (hi - lo)
    return slope ** 2 / (mid * (1 - mid))


def curves(setups, games: int = SIM_GAMES, seed: int = 61, grid=DIAL_GRID, threads=None, progress=None):
    """Play every setup (players, spies) at every temperature of the grid, on the same seeds for
    every temperature: wins per (setup, temperature) and the games."""
    from arena.units import Cell, as_dict
    from policies import DIAL_PLAYER, dial_theta
    from simcore.games import BETHEL_WOODS as BW

    from .run.execute import execute
    cells = [Cell(BW.name, pl, spies=sp, policies=(DIAL_PLAYER,), theta=dial_theta(BW.name, t), seed=seed)
             for pl, sp in setups for t in grid]
    totals = execute([(c, games) for c in cells], threads=threads, progress=progress)
    wins = np.array([as_dict(BW.name, t)["wins"] for t in totals], dtype=np.int64)
    return wins.reshape(len(setups), len(grid)), games


def calibrate(playtests: pd.DataFrame, games: int = SIM_GAMES, seed: int = 61, threads=None, progress=None,
              grid=DIAL_GRID) -> dict:
    """The whole answer for a playtest table (``read_playtests``): the fit, the predictions at
    every setup (players 2-4 x spies 0-5) and the playtests that would halve the interval."""
    from .stats import wilson
    setups = [(pl, sp) for pl in (2, 3, 4) for sp in range(6)]
    wins, n = curves(setups, games, seed, grid, threads, progress)
    p_grid = wins / n
    row = {s: i for i, s in enumerate(setups)}
    obs = [row[(int(r.players), int(r.spies))] for r in playtests.itertuples()]
    fit = fit_dial(p_grid[obs], grid, playtests["wins"], playtests["games"], n)
    preds = []
    for (pl, sp), pg, w in zip(setups, p_grid, wins):
        at = curve_at(pg, grid, [fit.t_hat, fit.t_low, fit.t_high])[0]
        lo_ends = [wilson(int(round(x * n)), n)[0] for x in at]
        hi_ends = [wilson(int(round(x * n)), n)[1] for x in at]
        preds.append({"players": pl, "spies": sp, "win_rate": float(at[0]), "ci_low": float(min(lo_ends)),
                      "ci_high": float(max(hi_ends)), "played": bool((playtests[["players", "spies"]] == (pl, sp))
                                                                   .all(axis=1).any())})
    info = information(p_grid, grid, fit.t_hat)
    have = float((info[obs] * playtests["games"].to_numpy()).sum())
    best = int(np.argmax(info))
    more = math.ceil(3 * have / info[best]) if info[best] > 0 else None
    return {"fit": fit, "predictions": pd.DataFrame(preds), "playtests": playtests, "sim_games": n,
            "grid": list(grid), "more_games": more, "more_at": setups[best], "seed": seed}


def describe(res: dict) -> list[str]:
    """The answer in plain lines: where the group sits on the dial and what it would see."""
    from .stats import plain_pct, spies_label
    f = res["fit"]
    pt = res["playtests"]
    lines = [f"{int(pt['games'].sum()):,} playtest games at {len(pt)} setup{'s' if len(pt) != 1 else ''}; "
             f"curves of {res['sim_games']:,} games per setup and temperature (seed {res['seed']})."]
    place = f"learned@{f.t_hat:.3f} (95% interval {f.t_low:.3f} to {f.t_high:.3f})"
    if f.at_strong_end:
        place += ": as strong as the learned player or stronger (the dial only weakens it)"
    elif f.at_weak_end:
        place += ": at the weak end of the dial or weaker"
    lines.append(f"The group plays like {place}.")
    pr = res["predictions"]
    for pl, g in pr.groupby("players"):
        lines.append(f"{pl} players: " + "; ".join(
            f"{spies_label(r.spies)} {plain_pct(r.win_rate)} ({plain_pct(r.ci_low).rstrip('%')}–{plain_pct(r.ci_high)})"
            + (" (played)" if r.played else "") for r in g.itertuples()))
    if res["more_games"]:
        pl, sp = res["more_at"]
        lines.append(f"About {res['more_games']:,} more playtest games at {pl} players, {spies_label(sp)} (where a game "
                     "says the most about this group's skill) would halve the interval.")
    lines.append("The players are bots on the skill dial (docs/studies.md, \"Calibrating a group\"), not people: the "
                 "predictions hold as far as the group's play differs from the bot's only by how often it picks a "
                 "weaker plan.")
    return lines
