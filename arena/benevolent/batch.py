"""Benevolent: the play loop (the arena) and the parallel batch runner (per-seat policies, one
record per game). ``play_game`` is the one compiled play loop of Benevolent (arena/loop.py's,
bound to Benevolent's engine and policies), used by the batch runner, the traces, the benchmarks
and the tests."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit

from policies import policy_id as _policy_id
from policies.benevolent.decide import (NET_POLICIES, NET_SIZE, THETA_SIZE, WS_SIZE, decide,  # noqa: F401 (WS_SIZE, NET_SIZE, NET_POLICIES: re-exported)
                                        default_theta, played_nets, reset, seat_nets, ws_size)
from simcore.benevolent import GAME, engine as E
from simcore.benevolent.actions import N_ACTIONS, OUT_WIN
from simcore.benevolent.face import check_players, setup_config
from simcore.benevolent.rules import GIFTS, MAX_PLAYERS, Rules, parse_leaves
from simcore.errors import UserError

from ..cell import Cell, prepared, run_cell
from ..loop import LOG_CHANCE, LOG_DECISION, play_loop  # noqa: F401 (the LOG_ codes: the traces')
from ..runner import Rates, check_run, check_threads

# record columns: winner (-1 timeout), turns, decisions, then per seat: turns taken, leaves, 5 gifts
R_WINNER, R_TURNS, R_DECISIONS = range(3)
R_SEAT = 3
SEAT_COLS = 7  # turns taken, leaves, Clover, Feather, Crystal, Amber, Figurine
N_REC = R_SEAT + MAX_PLAYERS * SEAT_COLS


@njit(cache=True)
def record(s, cfg, out, i):
    """The ended game's record (the R_* columns) into out[i]."""
    n_players = cfg[E.CFG_PLAYERS]
    out[i, R_WINNER] = s[E.WINNER] if s[E.OUTCOME] == OUT_WIN else -1
    out[i, R_TURNS] = s[E.TURN] + (1 if s[E.OUTCOME] == OUT_WIN else 0)
    out[i, R_DECISIONS] = s[E.ST_DECISIONS]
    turns = out[i, R_TURNS]
    for q in range(MAX_PLAYERS):
        c = R_SEAT + SEAT_COLS * q
        if q < n_players:
            # seats play in order 0, 1, ...: seat q has taken its turn t times if t*n+q < turns
            out[i, c] = (turns - q + n_players - 1) // n_players if turns > q else 0
            out[i, c + 1] = s[E.pl(q) + E.L_LEAVES]
            for g in range(5):
                out[i, c + 2 + g] = s[E.pl(q) + E.L_GIFTS + g]
        else:
            for j in range(SEAT_COLS):
                out[i, c + j] = 0


# the play loop (arena/loop.py), with Benevolent's engine and policies (no chance step after the
# setup; no policy is handed the chance key unless a test names one in play_game's `peek`)
play_game, play_chunk = play_loop(
    GAME.name, setup=E.setup, current_player=E.current_player, chance_outcome=E.chance_outcome,
    apply_chance=E.apply_chance, legal_actions=E.legal_actions_inlined, apply=E.apply_inlined,
    decide=decide, reset=reset, ws_size=ws_size, record=record, S_SIZE=E.S_SIZE, N_ACTIONS=N_ACTIONS,
    MAX_PLAYERS=MAX_PLAYERS, CFG_PLAYERS=E.CFG.offsets["CFG_PLAYERS"])


@dataclass
class Summary(Rates):
    players: int
    leaves: tuple
    policies: list
    seed: int
    threads: int
    games: int = 0
    seat_wins: list = field(default_factory=lambda: [0, 0, 0, 0])
    timeouts: int = 0
    turns: int = 0
    decisions: int = 0
    seconds: float = 0.0
    records: pd.DataFrame | None = None
    thetas: np.ndarray | None = None   # the seats' parameter vectors (padded to THETA_SIZE), one row a seat
    nets: list | None = None           # each seat's network (None: its policy reads none)

    def add(self, rec):
        self.games += len(rec)
        w = rec[:, R_WINNER]
        for q in range(self.players):
            self.seat_wins[q] += int((w == q).sum())
        self.timeouts += int((w < 0).sum())
        self.turns += int(rec[:, R_TURNS].sum())
        self.decisions += int(rec[:, R_DECISIONS].sum())

    @property
    def mean_rounds(self):
        return self.turns / self.players / self.games if self.games else float("nan")



def records_frame(rec, start, n):
    d = {"game": np.arange(start, start + len(rec)), "winner": rec[:, R_WINNER], "turns": rec[:, R_TURNS],
         "rounds": (rec[:, R_TURNS] + n - 1) // n, "decisions": rec[:, R_DECISIONS]}
    for q in range(n):
        c = R_SEAT + SEAT_COLS * q
        d[f"seat{q}_turns"] = rec[:, c]
        d[f"seat{q}_leaves"] = rec[:, c + 1]
        for g in range(5):
            d[f"seat{q}_{GIFTS[g].lower()}"] = rec[:, c + 2 + g]
    return pd.DataFrame(d)


def parse_policies(policy, policies, n):
    """The policy names by seat, their ids and theta rows (the arena's pols, thetas)."""
    if policies is None:
        names = [policy] * n
    else:
        names = [x.strip() for x in policies.split(",")] if isinstance(policies, str) else list(policies)
        if len(names) != n:
            raise UserError(f"--policies names {len(names)} policies for {n} players; give exactly {n}")
    pols = np.zeros(MAX_PLAYERS, dtype=np.int64)
    thetas = np.zeros((MAX_PLAYERS, THETA_SIZE), dtype=np.float64)
    for q, x in enumerate(names):
        pols[q] = _policy_id(x, GAME)
        thetas[q] = default_theta(pols[q])
    return names, pols, thetas


def simulate(players=4, leaves=None, policy="random", games=1000, seed=0, threads=None, rules=None,
             policies=None, keep_records=False, chunk=None, progress=None, policy_seed=None,
             thetas=None, net=None) -> Summary:
    """Play `games` games (games 0..games-1 of `seed`). `thetas`: one parameter vector per seat
    (None: the seat's policy's own), e.g. a candidate's weights for the heuristic in one seat;
    `net`: the network of every learned and expert seat (None: the installed model's).
    The games are the cell's (arena.cell.Cell) and are played by arena.cell.play_records, as a
    unit's are: this adds the time-sized chunks, the progress, the Summary and the records."""
    check_players(players)
    lv = parse_leaves(leaves, players)
    names, _, _ = parse_policies(policy, policies, players)
    seat_thetas = None if thetas is None else tuple(
        None if t is None else tuple(float(x) for x in np.ravel(t)) for t in thetas)
    cell = Cell(GAME.name, players, leaves=tuple(lv), policies=tuple(names), seat_thetas=seat_thetas,
                rules=rules, seed=seed, policy_seed=policy_seed,
                net=None if net is None else tuple(float(x) for x in np.ravel(net)))
    _, _, pols, played, nets = prepared(cell, cell_setup)   # the policies and the seats' vectors, checked
    threads = check_threads(threads)
    check_run(games, seed)
    check_run(1, seed if policy_seed is None else policy_seed)
    summary = Summary(players, lv, names, seed, threads, thetas=played[:players].copy(),
                      nets=played_nets(pols[:players], nets))
    frame = (lambda rec, start: records_frame(rec, start, players)) if keep_records else None
    return run_cell(cell, games, summary, cell_setup=cell_setup, play_chunk=play_chunk, n_rec=N_REC,
                    frame=frame, chunk=chunk, threads=threads, progress=progress)


# ---- units of games: a unit's count vector (arena/units.py) -----------------------------------
HAS_SPIES = False
ROUND_BINS = 64      # game length histogram: rounds 1..63, the last bin holds 64 and more
COUNT_SCALARS = ("games", "seat0_wins", "seat1_wins", "seat2_wins", "seat3_wins", "timeouts", "turns",
                 "turns_sq", "decisions", "winner_had_extra_turn")
COUNT_FIELDS = COUNT_SCALARS + tuple(f"rounds_{r}" for r in range(1, ROUND_BINS + 1))
_C = {f: i for i, f in enumerate(COUNT_SCALARS)}


def count_ends(d) -> int:
    """The games a count dict says ended: a seat won or the game timed out."""
    return sum(d[f"seat{q}_wins"] for q in range(MAX_PLAYERS)) + d["timeouts"]


def count_problem(d) -> str | None:
    """What only a Benevolent count dict can break: nothing beyond arena.units.count_problem's checks."""
    return None


def cell_setup(cell):
    """(p, cfg, pols, thetas, nets) of a cell (arena.cell.Cell), validated (UserError)."""
    check_players(cell.players)
    if cell.budget is not None:
        raise UserError(f"budget {cell.budget}: Benevolent's policies take no budget; leave it out")
    lv = parse_leaves(list(cell.leaves) if cell.leaves is not None else None, cell.players)
    _, pols, thetas = parse_policies(None, list(cell.seat_policies()), cell.players)
    if cell.theta is not None:
        for q in range(cell.players):
            thetas[q, :len(cell.theta)] = cell.theta
    return (cell.rules or Rules()).params, setup_config(cell.players, lv), pols, thetas, seat_nets(pols, cell.net)


def outcome_codes(rec, levels: int = 2) -> np.ndarray:
    """Each game's outcome as a code (a study's paired and joint checks): with 2 levels seat 1 won
    (1) or not (0); with 5 the winner's seat + 1, 0 for a timeout."""
    w = rec[:, R_WINNER].astype(np.int64)
    return (w == 0).astype(np.int64) if levels == 2 else np.where(w < 0, 0, w + 1)


def add_counts(rec, players, out):
    """Add a chunk's records (one row a game) to the count vector out (COUNT_FIELDS)."""
    w = rec[:, R_WINNER]
    t = rec[:, R_TURNS].astype(np.int64)
    out[_C["games"]] += len(rec)
    for q in range(MAX_PLAYERS):
        out[_C[f"seat{q}_wins"]] += int((w == q).sum())
    out[_C["timeouts"]] += int((w < 0).sum())
    out[_C["turns"]] += int(t.sum())
    out[_C["turns_sq"]] += int((t * t).sum())
    out[_C["decisions"]] += int(rec[:, R_DECISIONS].astype(np.int64).sum())
    seat_turns = rec[:, [R_SEAT + SEAT_COLS * q for q in range(players)]]
    has = w >= 0
    if has.any():
        wt = seat_turns[has, w[has]]
        out[_C["winner_had_extra_turn"]] += int((wt[:, None] > seat_turns[has]).any(axis=1).sum())
    rounds = (t + players - 1) // players
    out[len(COUNT_SCALARS):] += np.bincount(np.clip(rounds, 1, ROUND_BINS) - 1, minlength=ROUND_BINS)


def rotate_seats(a, b, players, games, seed, threads=None, theta_a=None, theta_b=None, leaves=None, rules=None,
                 progress_factory=None, net=None):
    """Policy `a` in each seat in turn, `b` in all the others, over the same deals (games
    0..games-1 of `seed`: the same forest, Secret tiles and seat keys; common random numbers).
    `theta_a`/`theta_b` override the policies' own parameter vectors, `net` the learned and expert
    seats' network (None: the installed model's). Returns the winners, an
    int array (players, games): row k is the rotation with `a` in seat k, entry the winning seat
    (-1 a timeout); and the seconds the runs took (compile excluded). `progress_factory`: makes
    each rotation's progress callback (simulate's `progress`), e.g. a bar."""
    winners = np.zeros((players, games), dtype=np.int64)
    secs = 0.0
    for k in range(players):
        names = [b] * players
        names[k] = a
        seat_thetas = [theta_b] * players
        seat_thetas[k] = theta_a
        s = simulate(players, leaves, games=games, seed=seed, threads=threads, rules=rules, policies=names,
                     keep_records=True, thetas=seat_thetas, net=net,
                     progress=progress_factory() if progress_factory else None)
        winners[k] = s.records["winner"].to_numpy()
        secs += s.seconds
    return winners, secs
