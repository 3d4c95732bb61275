"""Benevolent: the parallel batch runner (per-seat policies, one record per game)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit, prange

from policies import policy_id as _policy_id, random_action
from ..batch import BLOCK, DEFAULT_CHUNK, Rates, check_run, check_threads, run_batch
from ..rng import STREAM_CHANCE, STREAM_POLICY, stream_key
from . import engine as E
from .actions import N_ACTIONS, OUT_WIN
from .face import check_players, leaves_array
from .rules import GIFTS, Rules, parse_leaves

# record columns: winner (-1 timeout), turns, decisions, then per seat: turns taken, leaves, 5 gifts
R_WINNER, R_TURNS, R_DECISIONS = range(3)
R_SEAT = 3
SEAT_COLS = 7  # turns taken, leaves, Clover, Feather, Crystal, Amber, Figurine
N_REC = R_SEAT + 4 * SEAT_COLS


@njit(cache=True, _nrt=False)
def play_game(s, p, acts, keys, counters, n_players, leaves, pols, seed, game):
    ck = stream_key(seed, game, STREAM_CHANCE)
    E.setup(s, p, n_players, leaves, ck)
    for q in range(n_players):
        keys[q] = stream_key(seed, game, STREAM_POLICY + q)
        counters[q] = 0
    while s[E.PHASE] != E.PH_TERMINAL:
        q = s[E.CUR]
        n = E.legal_actions(s, p, acts)
        # per-seat policy dispatch: only the random policy exists so far (pols[q] == 0)
        a = random_action(acts, n, keys[q], counters[q])
        counters[q] += 1
        E.apply(s, p, a)
    return s[E.ST_DECISIONS]


@njit(cache=True, parallel=True)
def play_chunk(p, n_players, leaves, pols, seed, start, count, out):
    n_blocks = (count + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        pb = p.copy()
        s = np.zeros(E.S_SIZE, dtype=np.int32)
        acts = np.zeros(N_ACTIONS, dtype=np.int32)
        keys = np.zeros(4, dtype=np.uint64)
        counters = np.zeros(4, dtype=np.int64)
        lo = b * BLOCK
        hi = min(count, lo + BLOCK)
        for i in range(lo, hi):
            play_game(s, pb, acts, keys, counters, n_players, leaves, pols, seed, start + i)
            out[i, R_WINNER] = s[E.WINNER] if s[E.OUTCOME] == OUT_WIN else -1
            out[i, R_TURNS] = s[E.TURN] + (1 if s[E.OUTCOME] == OUT_WIN else 0)
            out[i, R_DECISIONS] = s[E.ST_DECISIONS]
            turns = out[i, R_TURNS]
            for q in range(4):
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
    if policies is None:
        names = [policy] * n
    else:
        names = [x.strip() for x in policies.split(",")] if isinstance(policies, str) else list(policies)
        if len(names) != n:
            raise ValueError(f"--policies names {len(names)} policies for {n} players; give exactly {n}")
    return names, np.array([_policy_id(x) for x in names], dtype=np.int64)


def simulate(players=4, leaves=None, policy="random", games=1000, seed=0, threads=None, rules=None,
             policies=None, keep_records=False, chunk=DEFAULT_CHUNK, progress=None) -> Summary:
    check_players(players)
    lv = parse_leaves(leaves, players)
    names, pols = parse_policies(policy, policies, players)
    threads = check_threads(threads)
    check_run(games, seed)
    rules = rules or Rules()
    p = rules.params
    la = leaves_array(lv)
    summary = Summary(players, lv, names, seed, threads)

    def kernel(start, count, out):
        play_chunk(p, players, la, pols, np.uint64(seed), start, count, out)

    summary.seconds, summary.records = run_batch(
        games, kernel, N_REC, summary, (lambda rec, start: records_frame(rec, start, players)) if keep_records else None,
        chunk=chunk, threads=threads, progress=progress)
    return summary
