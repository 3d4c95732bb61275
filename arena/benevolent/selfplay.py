"""Benevolent: self-play games that label the heuristic's kept plans, the learned value's training
data (``experiments.train``).

``label_chunk`` plays games start..start+count-1 (set up as ``batch.play_game`` does, with the
printed leaves) with the learned player in every seat (theta its vector, net its network;
with none, net all zeros, it plays the heuristic's best plan less the repetition term), each seat with its
own repetition table as in the arena. At a turn start (with probability ``label_prob``, from the
labelling stream) it records, for each of the kept plans (``learned.plan_candidates``, theta[T_K]
of them): the features of its end position for the seat to move, the heuristic's score, and
``reps`` rollouts from that end (``expert.rollout``: the learned player in every seat, its second
plan with probability theta[T_RNOISE] / 10, at most theta[T_HMAX] turns), all plans on the same
random numbers (rollout r of every plan uses key number r of the turn's key). Benevolent has no
chance after setup; the labelling stream (STREAM_LABEL) only drives the sampling, the rollouts'
noise and the exploration. With probability ``eps`` the turn then plays a kept plan at random
instead of the best (exploration).

Every number is a pure function of (seed, game): a chunk's rows do not depend on threads or
chunking.
"""
import numpy as np
from numba import njit

from policies.benevolent import expert as X
from policies.benevolent import heuristic as H
from policies.benevolent import learned as L
from policies.benevolent.features import NF, features
from simcore.benevolent import GAME, engine as E
from simcore.benevolent.actions import N_ACTIONS, OUT_WIN, PH_TERMINAL
from simcore.common import PLAYER_TERMINAL
from simcore.rng import STREAM_CHANCE, below, draw, stream_key

from ..loop import label_loop

STREAM_LABEL = 9    # a game's stream for the labels' rollouts and exploration (policies use 1..4)
MAX_LABELLED = 40   # labelled turns per game at most
MAX_REPS = 30       # rollouts per plan (their outcomes are bits of an int32)
G_TURNS, G_WINNER, G_TURN_COUNT = range(3)       # per game
M_PLANS, M_CHOSEN, M_TURN, M_SEAT = range(4)     # per labelled turn


@njit(cache=True)
def label_game(p, cfg, seed, game, i, theta, net, reps, eps, label_prob, X_out, S_out, Y_out, M_out, G_out):
    """Play game `game` (the chunk's i-th), set up from cfg. Writes, for its t-th labelled turn and
    kept plan c: X_out[i, t, c] the features, S_out[i, t, c] the heuristic's score, Y_out[i, t, c]
    the rollouts the seat to move won, as bits (rollout r is bit r); M_out[i, t] and G_out[i] as
    named above (G_WINNER: -1 for a timeout)."""
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    st = np.zeros(E.S_SIZE, dtype=np.int32)
    acts = np.zeros(N_ACTIONS, dtype=np.int32)
    seats = np.zeros((4, X.LWS), dtype=np.int32)
    xws = np.zeros(X.WS_SIZE, dtype=np.int32)
    fv = np.zeros(NF, dtype=np.float64)
    lk = stream_key(seed, game, STREAM_LABEL)
    E.setup(s, p, cfg, stream_key(seed, game, STREAM_CHANCE))
    for q in range(4):
        L.learned_reset(seats[q])
    t = 0
    nturn = 0
    while True:
        q = E.current_player(s)
        if q == PLAYER_TERMINAL:
            break
        lws = seats[q]
        turn = s[E.TURN]
        n = E.legal_actions(s, p, acts)
        a = H.planned_action(s, q, acts, n, lws)
        if a < 0:
            # a turn starts: the seat notes the position and plans
            L.note_turn(s, lws)
            nc = L.plan_candidates(s, p, theta, q, lws, int(theta[L.T_K]))
            if nc < 1:
                break
            best = 0
            bv = -1.0e300
            for c in range(nc):
                v = L.plan_value(s, p, theta, net, q, lws, np.int64(c))
                if v > bv:
                    bv = v
                    best = c
            won_at_once = bv >= 1.0e6
            if (nc >= 2 and not won_at_once and t < X_out.shape[1]
                    and below(lk, 3 * nturn, 1_000_000) < label_prob * 1_000_000):
                for c in range(nc):
                    H.end_of(s, p, lws, np.int64(c), st)
                    if st[E.PHASE] != PH_TERMINAL:
                        features(st, p, theta, q, fv)
                        for z in range(NF):
                            X_out[i, t, c, z] = fv[z]
                    S_out[i, t, c] = lws[H.W_CSC + c] / H.SCORE_SCALE
                    rws = xws[X.LWS:2 * X.LWS]
                    bits = 0
                    for r in range(reps):
                        H.end_of(s, p, lws, np.int64(c), st)
                        L.hist_copy(rws, lws)
                        if st[E.PHASE] != PH_TERMINAL:
                            L.hist_add(rws, E.position_hash(st))
                        bits |= int(X.rollout(st, p, theta, net, q, xws, draw(lk, 1000 * nturn + r))) << r   # theta[T_DEPTH] is 0 here: a win or a loss
                    Y_out[i, t, c] = bits
                M_out[i, t, M_PLANS] = nc
                M_out[i, t, M_TURN] = turn
                M_out[i, t, M_SEAT] = q
                chosen = best
                if below(lk, 3 * nturn + 1, 1_000_000) < eps * 1_000_000:
                    chosen = below(lk, 3 * nturn + 2, nc)
                M_out[i, t, M_CHOSEN] = chosen
                t += 1
            else:
                chosen = best
            L.plan_end(s, p, lws, np.int64(chosen))   # its end's hash and whether the game ends there
            H.store_plan(s, lws, chosen)
            if lws[L.L_CT] == 0:
                L.hist_add(lws, lws[L.L_CH:L.L_CH + 2].view(np.uint64)[0])
            nturn += 1
            a = H.planned_action(s, q, acts, n, lws)
        E.apply(s, p, np.int64(a if a >= 0 else acts[0]))
    G_out[i, G_TURNS] = t
    G_out[i, G_WINNER] = s[E.WINNER] if s[E.OUTCOME] == OUT_WIN else -1
    G_out[i, G_TURN_COUNT] = s[E.TURN]


# the parallel loop over a chunk's games (arena/loop.py): game g (start + i) set up from
# cfgs[g % len(cfgs)]
label_chunk = label_loop(GAME.name, label_game)
