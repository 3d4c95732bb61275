"""A random local search of the Bethel Woods heuristic's weights (how THETA_DEFAULT was found).

Every candidate plays the same games (common random numbers) through the arena; a candidate that
wins more replaces the best. This is a development tool, not yet the CMA-ES tuner of issue 8:

    python -m experiments.weight_search --iters 200 --games 4000 --seed 11
"""
from __future__ import annotations

import argparse

import numpy as np

from arena.bethel_woods.batch import simulate
from policies.bethel_woods.heuristic import THETA_BOUNDS, THETA_DEFAULT, THETA_NAMES


def wins(theta, games, seed, players, spies, threads):
    return simulate(players, spies, policy="heuristic", games=games, seed=seed, threads=threads, theta=theta).wins


def search(iters, games, seed, players=3, spies=0, threads=None, theta0=THETA_DEFAULT, step=0.15, say=print):
    """Perturb 1-3 weights (within THETA_BOUNDS) per step and keep improvements; return the best."""
    rng = np.random.default_rng(seed + 12345)
    lo, hi = THETA_BOUNDS[:, 0], THETA_BOUNDS[:, 1]
    best = np.clip(np.asarray(theta0, dtype=np.float64), lo, hi)
    bw = wins(best, games, seed, players, spies, threads)
    say(f"start {bw}/{games}")
    for it in range(iters):
        cand = best.copy()
        k = rng.integers(1, 4)
        idx = rng.choice(len(cand), size=k, replace=False)
        cand[idx] += rng.normal(0, step, size=k) * (hi[idx] - lo[idx])
        cand = np.clip(cand, lo, hi)
        w = wins(cand, games, seed, players, spies, threads)
        if w > bw:
            bw, best = w, cand
            say(f"iter {it}: {w}/{games}, changed {[THETA_NAMES[i] for i in idx]}")
    say("final " + ",".join(f"{x:.3f}" for x in best) + f" ({bw}/{games})")
    return best


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--spies", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None)
    a = ap.parse_args()
    search(a.iters, a.games, a.seed, a.players, a.spies, a.threads)
