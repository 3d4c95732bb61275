"""Bethel Woods: self-play games that label the planner's candidate plans, the learned value's
training data (``experiments.train``).

``label_chunk`` plays games start..start+count-1 with the learned player in every seat (theta
its vector, net its network; with none, net all zeros, it plays the heuristic's best kept plan), each
game's chance from the game's chance key as in ``batch.play_game``. At a turn start (with
probability ``label_prob``, from the labelling stream) it records, for each of the planner's
kept plans (``learned.plan_candidates``): the features of its end position, the planner's score,
and ``reps`` rollouts from that end (``expert.rollout``: the same player in every seat to the end
of the game), all plans on the same sampled futures (rollout r of every plan uses key number r).
The rollouts' futures come from the game's labelling stream (STREAM_LABEL), never from its chance
key, so a label says what the position is worth to a player who does not know the future. With
probability ``eps`` the turn then plays a kept plan at random instead of the best (exploration:
the data also covers positions the player would not choose).

Every number is a pure function of (seed, game): a chunk's rows do not depend on threads or
chunking.
"""
import numpy as np
from numba import njit

from policies.bethel_woods import expert as X
from policies.bethel_woods import heuristic as H
from policies.bethel_woods import learned as L
from policies.bethel_woods.features import NF, features
from simcore.bethel_woods import GAME, engine as E
from simcore.bethel_woods.actions import N_ACTIONS, OUT_WIN, PH_PRE, PH_TERMINAL
from simcore.common import PLAYER_CHANCE, PLAYER_TERMINAL
from simcore.rng import STREAM_CHANCE, below, draw, stream_key

from ..loop import label_loop

STREAM_LABEL = 9    # a game's stream for the labels' rollouts and exploration (policies use 1..4)
MAX_TURNS = 80      # a game ends within 79 turns (docs/bethel_woods.md)
MAX_REPS = 30       # rollouts per plan (their outcomes are bits of an int32)
# per game: G_TURNS labelled turns, G_WON, G_TURN_COUNT (player turns played)
G_TURNS, G_WON, G_TURN_COUNT = range(3)
# per labelled turn: M_PLANS kept, M_CHOSEN (index played), M_TURN (the turn)
M_PLANS, M_CHOSEN, M_TURN = range(3)


@njit(cache=True)
def label_game(p, cfg, seed, game, i, theta, net, reps, eps, label_prob, X_out, S_out, Y_out, M_out, G_out):
    """Play game `game` (the chunk's i-th), set up from cfg. Writes, for its t-th labelled turn and
    kept plan c: X_out[i, t, c] the features, S_out[i, t, c] the planner's score, Y_out[i, t, c] the
    rollouts won as bits (rollout r is bit r); M_out[i, t] and G_out[i] as named above."""
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    st = np.zeros(E.S_SIZE, dtype=np.int32)
    acts = np.zeros(N_ACTIONS, dtype=np.int32)
    xws = np.zeros(X.WS_SIZE, dtype=np.int32)
    lws = xws[0:X.LWS]
    fv = np.zeros(NF, dtype=np.float64)
    ck = stream_key(seed, game, STREAM_CHANCE)
    lk = stream_key(seed, game, STREAM_LABEL)
    E.setup(s, p, cfg, ck)
    L.learned_reset(lws)
    t = 0
    while True:
        q = E.current_player(s)
        if q == PLAYER_TERMINAL:
            break
        if q == PLAYER_CHANCE:
            E.apply_chance(s, p, E.chance_outcome(s, p, ck))
            continue
        turn = s[E.TURN]
        if (s[E.PHASE] == PH_PRE and s[E.CUR] == q and t < X_out.shape[1]
                and below(lk, 3 * turn, 1_000_000) < label_prob * 1_000_000):
            nc = L.plan_candidates(s, p, theta, lws)
            best = 0
            bv = -1.0e300
            for c in range(nc):
                end = lws[H.W_TST + c * H.S_SIZE: H.W_TST + (c + 1) * H.S_SIZE]
                if end[E.PHASE] != PH_TERMINAL:
                    features(end, p, lws, fv)
                else:
                    fv[:] = 0.0
                for z in range(NF):
                    X_out[i, t, c, z] = fv[z]
                S_out[i, t, c] = lws[H.W_TSC + c] / H.SCORE_SCALE
                v = L.plan_value(p, net, lws, c)
                if v > bv:
                    bv = v
                    best = c
            for c in range(nc):
                bits = 0
                for r in range(reps):
                    for z in range(E.S_SIZE):
                        st[z] = lws[H.W_TST + c * H.S_SIZE + z]
                    bits |= int(X.rollout(st, p, theta, net, xws, draw(lk, 1000 * turn + r))) << r   # theta[T_DEPTH] is 0 here: a win or a loss
                Y_out[i, t, c] = bits
            chosen = best
            if nc >= 2 and below(lk, 3 * turn + 1, 1_000_000) < eps * 1_000_000:
                chosen = below(lk, 3 * turn + 2, nc)
            M_out[i, t, M_PLANS] = nc
            M_out[i, t, M_CHOSEN] = chosen
            M_out[i, t, M_TURN] = turn
            if nc > 0:
                L.store_candidate(s, lws, chosen)
            t += 1
        n = E.legal_actions(s, p, acts)
        E.apply(s, p, np.int64(L.learned_action(s, p, theta, net, q, acts, n, np.uint64(0), lws)))
    G_out[i, G_TURNS] = t
    G_out[i, G_WON] = 1 if s[E.OUTCOME] == OUT_WIN else 0
    G_out[i, G_TURN_COUNT] = s[E.TURN] + 1


# the parallel loop over a chunk's games (arena/loop.py): game g (start + i) set up from
# cfgs[g % len(cfgs)]
label_chunk = label_loop(GAME.name, label_game)
