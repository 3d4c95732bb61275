"""Scratch harness for the Bethel Woods heuristic (development only; the lead's arena replaces it).

A copy of simcore/bethel_woods/batch.py's play_game/play_chunk with every seat deciding by
``heuristic_action``. Usage:

    .venv/bin/python tests/bw_heuristic_harness.py --games 2000 --seed 1 --threads 2
"""
import argparse
import time

import numba
import numpy as np
from numba import njit, prange

from experiments.stats import pct, wilson
from policies.bethel_woods.heuristic import THETA_DEFAULT, WS_SIZE, heuristic_action, heuristic_reset
from simcore.batch import BLOCK
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import N_ACTIONS, OUT_WIN
from simcore.bethel_woods.rules import Rules
from simcore.rng import STREAM_CHANCE, STREAM_POLICY, draw, stream_key

N_OUT = 4  # outcome, turns, built, spies uncovered


@njit(cache=True, _nrt=False)
def play_game_h(s, p, theta, acts, keys, counters, ws, n_players, n_spies, chars, seed, game):
    ck = stream_key(seed, game, STREAM_CHANCE)
    c = E.setup(s, p, n_players, n_spies, chars, ck)
    for q in range(n_players):
        keys[q] = stream_key(seed, game, STREAM_POLICY + q)
        counters[q] = 0
        heuristic_reset(ws[q])
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
            a = heuristic_action(s, p, theta, q, acts, n, draw(keys[q], counters[q]), ws[q])
            counters[q] += 1
            E.apply(s, p, a)
    return s[E.ST_DECISIONS]


@njit(cache=True, parallel=True)
def play_chunk_h(p, theta, n_players, n_spies, chars, seed, start, count, out):
    n_blocks = (count + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        pb = p.copy()
        th = theta.copy()
        s = np.zeros(E.S_SIZE, dtype=np.int32)
        acts = np.zeros(N_ACTIONS, dtype=np.int32)
        keys = np.zeros(4, dtype=np.uint64)
        counters = np.zeros(4, dtype=np.int64)
        ws = np.zeros((4, WS_SIZE), dtype=np.int32)
        lo = b * BLOCK
        hi = min(count, lo + BLOCK)
        for i in range(lo, hi):
            play_game_h(s, pb, th, acts, keys, counters, ws, n_players, n_spies, chars, seed, start + i)
            out[i, 0] = s[E.OUTCOME]
            out[i, 1] = s[E.TURN] + 1
            out[i, 2] = E.orphanage_count(s)
            out[i, 3] = s[E.ST_UNCOV]


def run(games=2000, seed=1, players=3, spies=0, theta=None, threads=2, start=0):
    """Play games start..start+games-1; return (records, seconds)."""
    theta = THETA_DEFAULT if theta is None else np.asarray(theta, dtype=np.float64)
    p = Rules().params
    chars = np.full(4, -1, dtype=np.int32)
    out = np.zeros((games, N_OUT), dtype=np.int32)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        play_chunk_h(p, theta, players, spies, chars, np.uint64(seed), 0, 0, out[:0])  # compile
        t0 = time.perf_counter()
        play_chunk_h(p, theta, players, spies, chars, np.uint64(seed), start, games, out)
        secs = time.perf_counter() - t0
    finally:
        numba.set_num_threads(old)
    return out, secs


def report(out, secs):
    g = len(out)
    w = int((out[:, 0] == OUT_WIN).sum())
    lo, hi = wilson(w, g)
    outs = np.bincount(out[:, 0], minlength=5)
    built = np.bincount(out[:, 2], minlength=7)
    return (f"games {g}  wins {w} = {pct(w / g)} (95% CI {pct(lo)} to {pct(hi)})  "
            f"losses bag {outs[2]} four_crit {outs[3]} six_spies {outs[4]}  "
            f"mean turns {out[:, 1].mean():.1f}  built hist {built.tolist()}  "
            f"{g / secs:,.0f} games/s")


def search(iters, games, seed, players, spies, threads, theta0, step=0.15):
    """Random local search: perturb a few weights (within THETA_BOUNDS), keep improvements. All
    candidates play the same games (common random numbers)."""
    from policies.bethel_woods.heuristic import THETA_BOUNDS, THETA_NAMES
    rng = np.random.default_rng(seed + 12345)
    lo, hi = THETA_BOUNDS[:, 0], THETA_BOUNDS[:, 1]
    best = np.clip(np.asarray(theta0, dtype=np.float64), lo, hi)
    out, _ = run(games, seed, players, spies, theta=best, threads=threads)
    bw = int((out[:, 0] == OUT_WIN).sum())
    print(f"start {bw}/{games}", flush=True)
    for it in range(iters):
        cand = best.copy()
        k = rng.integers(1, 4)
        idx = rng.choice(len(cand), size=k, replace=False)
        cand[idx] += rng.normal(0, step, size=k) * (hi[idx] - lo[idx])
        cand = np.clip(cand, lo, hi)
        out, _ = run(games, seed, players, spies, theta=cand, threads=threads)
        w = int((out[:, 0] == OUT_WIN).sum())
        if w > bw:
            bw, best = w, cand
            print(f"iter {it}: {w}/{games} changed {[THETA_NAMES[i] for i in idx]}", flush=True)
            print("  theta " + ",".join(f"{x:.3f}" for x in best), flush=True)
    print("final " + ",".join(f"{x:.3f}" for x in best), bw, flush=True)
    return best


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--spies", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--search", type=int, default=0, help="iterations of a random local search of theta")
    ap.add_argument("--theta", type=str, default=None, help="comma-separated weights")
    a = ap.parse_args()
    theta0 = THETA_DEFAULT if a.theta is None else np.array([float(x) for x in a.theta.split(",")])
    if a.search:
        search(a.search, a.games, a.seed, a.players, a.spies, a.threads, theta0)
    else:
        out, secs = run(a.games, a.seed, a.players, a.spies, theta=theta0, threads=a.threads)
        print(report(out, secs))
