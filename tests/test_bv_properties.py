"""Benevolent invariants, property-tested with hypothesis at every step of whole games."""
import numpy as np
from hypothesis import given, settings, strategies as st

from conftest import EXAMPLES_SCALE

import bv_helpers as H
from simcore.benevolent import engine as E
from simcore.benevolent.actions import A_GATHER, N_ACTIONS, OUT_ONGOING, OUT_WIN
from simcore.benevolent.face import from_dict, setup_config, to_dict
from simcore.benevolent.rules import PM_TWO_ON_HEX, PM_UNCONNECTED, POOL, Rules
from simcore.rng import STREAM_CHANCE, STREAM_POLICY, stream_key

RULES = Rules()
P = RULES.params

games = st.tuples(st.integers(0, 2**40), st.integers(0, 10**6), st.integers(2, 4), st.booleans(),
                  st.lists(st.integers(0, 10), min_size=4, max_size=4))


@settings(max_examples=40 * EXAMPLES_SCALE, deadline=None)
@given(games)
def test_invariants(args):
    seed, game, n, explore, leaves = args
    check_game(seed, game, n, leaves[:n], H.explore_weights() if explore else None)


@settings(max_examples=20 * EXAMPLES_SCALE, deadline=None)
@given(games, st.sampled_from([("heuristic", "heuristic"), ("heuristic", "random"), ("tuned", "heuristic")]))
def test_invariants_hold_under_skilled_play(args, pairing):
    """The same invariants at every step of the games the seat studies report on: the arena's loop
    plays the game with skilled policies (the pairing alternates by seat), and the steps are
    played again here."""
    from arena.benevolent.batch import parse_policies
    from arena.benevolent.trace import _play_logged
    from simcore.benevolent.face import State
    seed, game, n, _, leaves = args
    _, pols, thetas = parse_policies(None, [pairing[q % 2] for q in range(n)], n)
    log, end = _play_logged(State(n, leaves[:n], seed, game, None), seed, game, pols, thetas)
    s = check_game(seed, game, n, leaves[:n], None, log=log)
    assert (s == end).all()


def check_game(seed, game, n, leaves, w, log=None):
    """Play one game on the compiled engine (random or weighted choices, or the decisions of
    `log`: rows (kind, seat, action) the arena's loop logged), checking every invariant after
    every step; returns the final position."""
    s = np.zeros(E.S_SIZE, np.int32)
    E.setup(s, P, setup_config(n, leaves), np.uint64(stream_key(seed, game, STREAM_CHANCE)))
    pk = np.uint64(stream_key(seed, game, STREAM_POLICY))
    acts = np.zeros(N_ACTIONS, np.int32)
    mask = np.zeros(N_ACTIONS, np.bool_)
    totals = POOL[n]
    step = 0
    while not E.is_terminal(s):
        k = E.legal_actions(s, P, acts)
        assert k > 0 and E.legal_mask(s, P, mask) == k and (np.flatnonzero(mask) == acts[:k]).all()
        if log is None:
            a = H.pick(acts, k, pk, step, w)
        else:
            assert log[step, 0] == 0 and log[step, 1] == E.current_player(s) and mask[log[step, 2]]
            a = int(log[step, 2])
        moving = a < A_GATHER
        E.apply(s, P, a)
        step += 1
        # 64 leaves: supply + players + gather tiles
        assert s[E.SUPPLY] + sum(s[E.pl(q) + E.L_LEAVES] + s[E.pl(q) + E.L_TILE] for q in range(n)) == 64
        assert s[E.SUPPLY] >= 0 and all(s[E.pl(q) + E.L_LEAVES] >= 0 for q in range(n))
        # gift tokens: pool + players
        for g in range(5):
            assert s[E.POOL + g] + sum(s[E.pl(q) + E.L_GIFTS + g] for q in range(n)) == totals[g]
            assert s[E.POOL + g] >= 0
        for q in range(n):
            feet = [int(x) for x in s[E.pl(q) + E.L_FOOT: E.pl(q) + E.L_FOOT + 4]]
            assert len(feet) == 4 and 0 <= s[E.pl(q) + E.L_DREAM] <= 3   # 4 in the forest or on the card + 1 dreaming
            on = [f for f in feet if f >= 0]
            most = 2 if s[E.pl(q) + E.L_PERM + PM_TWO_ON_HEX] else 1
            assert all(on.count(h) <= most for h in on)
            if moving and q == s[E.CUR] and not s[E.pl(q) + E.L_PERM + PM_UNCONNECTED]:
                assert E.connected(s, E.occupied_mask(s, q))
        # the position survives the JSON format (Footsteps are listed by hex, so the array's slot
        # order may differ) and the engine sees the same legal actions there
        d = to_dict(s)
        r = from_dict(d)
        assert to_dict(r) == d
        acts2 = np.zeros(N_ACTIONS, np.int32)
        if not E.is_terminal(s):
            k1 = E.legal_actions(s, P, acts)
            assert E.legal_actions(r, P, acts2) == k1 and (acts2[:k1] == acts[:k1]).all()
    assert s[E.TURN] <= RULES.timeout_rounds * n
    winners = [q for q in range(n) if E.has_all_gifts(s, q)]
    if s[E.OUTCOME] == OUT_WIN:
        assert winners == [s[E.WINNER]]   # at most one winner, and the game stopped at once
    else:
        assert s[E.OUTCOME] != OUT_ONGOING and winners == []
    assert log is None or step == len(log)
    return s


@settings(max_examples=20 * EXAMPLES_SCALE, deadline=None)
@given(st.integers(0, 2**40), st.integers(2, 4))
def test_same_seed_same_game(seed, n):
    def play():
        s = np.zeros(E.S_SIZE, np.int32)
        E.setup(s, P, setup_config(n, [1, 3, 4, 5][:n]), np.uint64(stream_key(seed, 0, STREAM_CHANCE)))
        acts = np.zeros(N_ACTIONS, np.int32)
        pk = np.uint64(stream_key(seed, 0, STREAM_POLICY))
        step = 0
        while not E.is_terminal(s):
            k = E.legal_actions(s, P, acts)
            E.apply(s, P, H.pick(acts, k, pk, step))
            step += 1
        return s
    assert (play() == play()).all()
