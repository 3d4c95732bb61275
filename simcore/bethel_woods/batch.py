"""Bethel Woods: the parallel batch runner.

``simulate`` plays games 0..n-1 of a run and returns a ``Summary`` (and, when asked, one record
per game as a pandas DataFrame). Each game's setup and chance events come from the stream
(seed, game, STREAM_CHANCE) and seat q's decisions from (seed, game, STREAM_POLICY + q), so the
same seed gives the same games on any number of threads and any chunking.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit, prange

from policies import policy_id as _policy_id, random_action
from ..batch import BLOCK, DEFAULT_CHUNK, Rates, check_run, check_threads, run_batch
from ..rng import STREAM_CHANCE, STREAM_POLICY, stream_key
from . import engine as E
from .actions import N_ACTIONS, OUTCOMES, OUT_WIN
from .face import chars_array, check_setup_args, parse_characters
from .rules import CHARACTERS, LOSS_REASONS, Rules

# one record per game: columns of the int32 record array
R_OUTCOME, R_TURNS, R_BUILT, R_UNCOVERED, R_FIXED, R_DECISIONS, R_FIRST, R_CHAR0 = range(8)
N_REC = R_CHAR0 + 4


@njit(cache=True, _nrt=False)
def play_game(s, p, acts, keys, counters, n_players, n_spies, chars, seed, game, pol):
    """Play one game to the end in s; return the number of decisions taken."""
    ck = stream_key(seed, game, STREAM_CHANCE)
    c = E.setup(s, p, n_players, n_spies, chars, ck)
    for q in range(n_players):
        keys[q] = stream_key(seed, game, STREAM_POLICY + q)
        counters[q] = 0
    while True:
        ph = s[E.PHASE]
        if ph == E.PH_TERMINAL:
            break
        if ph == E.PH_CHANCE_MALF or ph == E.PH_CHANCE_SPY:
            o = E.chance_outcome(s, ck, c)
            c += 1
            E.apply_chance(s, p, o)
        else:
            q = E.decider(s)
            n = E.legal_actions(s, p, acts)
            # policy dispatch: only the random policy exists so far
            a = random_action(acts, n, keys[q], counters[q])
            counters[q] += 1
            E.apply(s, p, a)
    return s[E.ST_DECISIONS]


@njit(cache=True, parallel=True)
def play_chunk(p, n_players, n_spies, chars, seed, start, count, pol, out):
    """Play games start..start+count-1; write one record per game into out[count, N_REC]."""
    n_blocks = (count + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        pb = p.copy()  # each block reads its own copy of the rules: no shared cache line between threads
        s = np.zeros(E.S_SIZE, dtype=np.int32)
        acts = np.zeros(N_ACTIONS, dtype=np.int32)
        keys = np.zeros(4, dtype=np.uint64)
        counters = np.zeros(4, dtype=np.int64)
        lo = b * BLOCK
        hi = min(count, lo + BLOCK)
        for i in range(lo, hi):
            play_game(s, pb, acts, keys, counters, n_players, n_spies, chars, seed, start + i, pol)
            out[i, R_OUTCOME] = s[E.OUTCOME]
            out[i, R_TURNS] = s[E.TURN] + 1  # the turn in which the game ended counts
            out[i, R_BUILT] = E.orphanage_count(s)
            out[i, R_UNCOVERED] = s[E.ST_UNCOV]
            out[i, R_FIXED] = s[E.ST_FIXED]
            out[i, R_DECISIONS] = s[E.ST_DECISIONS]
            out[i, R_FIRST] = s[E.FIRST]
            for q in range(4):
                out[i, R_CHAR0 + q] = s[E.CHAR + q]


@dataclass
class Summary(Rates):
    """Aggregates of a run; ``records`` holds one row per game only when asked for."""
    players: int
    spies: int
    characters: list | None
    policy: str
    seed: int
    threads: int
    games: int = 0
    wins: int = 0
    losses: dict = field(default_factory=lambda: {r: 0 for r in LOSS_REASONS})
    turns: int = 0
    decisions: int = 0
    built: int = 0
    uncovered: int = 0
    fixed: int = 0
    seconds: float = 0.0
    records: pd.DataFrame | None = None

    def add(self, rec):
        out = rec[:, R_OUTCOME]
        self.games += len(rec)
        self.wins += int((out == OUT_WIN).sum())
        for i, r in enumerate(LOSS_REASONS):
            self.losses[r] += int((out == OUTCOMES.index(r)).sum())
        self.turns += int(rec[:, R_TURNS].sum())
        self.decisions += int(rec[:, R_DECISIONS].sum())
        self.built += int(rec[:, R_BUILT].sum())
        self.uncovered += int(rec[:, R_UNCOVERED].sum())
        self.fixed += int(rec[:, R_FIXED].sum())

    @property
    def win_rate(self):
        return self.wins / self.games if self.games else float("nan")

    @property
    def mean_turns(self):
        return self.turns / self.games if self.games else float("nan")



def records_frame(rec, start, n_players):
    """One row per game: game, won, outcome, turns, daydreamer_built, spies_uncovered,
    malfunctions_fixed, decisions, first_player, characters."""
    chars = rec[:, R_CHAR0:R_CHAR0 + n_players]
    return pd.DataFrame({
        "game": np.arange(start, start + len(rec)),
        "won": rec[:, R_OUTCOME] == OUT_WIN,
        "outcome": pd.Categorical.from_codes(rec[:, R_OUTCOME], categories=list(OUTCOMES)),
        "turns": rec[:, R_TURNS],
        "daydreamer_built": rec[:, R_BUILT],
        "spies_uncovered": rec[:, R_UNCOVERED],
        "malfunctions_fixed": rec[:, R_FIXED],
        "decisions": rec[:, R_DECISIONS],
        "first_player": rec[:, R_FIRST],
        "characters": [",".join(CHARACTERS[c] for c in row) for row in chars],
    })


def simulate(players=3, spies=0, characters=None, policy="random", games=1000, seed=0, threads=None,
             rules: Rules | None = None, keep_records=False, chunk=DEFAULT_CHUNK, progress=None) -> Summary:
    """Play `games` games and aggregate them. Raises ValueError naming a bad argument."""
    check_setup_args(players, spies)
    chars = parse_characters(characters, players)
    pol = _policy_id(policy)
    threads = check_threads(threads)
    check_run(games, seed)
    rules = rules or Rules()
    p = rules.params
    ch = chars_array(chars)
    summary = Summary(players, spies, chars and [CHARACTERS[c] for c in chars], policy, seed, threads)

    def kernel(start, count, out):
        play_chunk(p, players, spies, ch, np.uint64(seed), start, count, pol, out)

    summary.seconds, summary.records = run_batch(
        games, kernel, N_REC, summary, (lambda rec, start: records_frame(rec, start, players)) if keep_records else None,
        chunk=chunk, threads=threads, progress=progress)
    return summary

