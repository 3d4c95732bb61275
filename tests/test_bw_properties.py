"""Invariants of Bethel Woods, property-tested with hypothesis over seeds, player counts,
difficulties and characters, at every step of whole games of the compiled engine."""
import numpy as np
from hypothesis import given, settings, strategies as st

from conftest import EXAMPLES_SCALE

import bw_helpers as H
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import N_ACTIONS
from simcore.bethel_woods.face import from_dict, setup_config, to_dict
from simcore.bethel_woods.rules import Rules
from simcore.rng import STREAM_CHANCE, STREAM_POLICY, stream_key

RULES = Rules()
P = RULES.params
TOTAL_MALFUNCTIONS = 84

games = st.tuples(st.integers(0, 2**40), st.integers(0, 10**6), st.integers(2, 4), st.integers(0, 5),
                  st.booleans(), st.permutations(range(8)), st.booleans())


def play(seed, game, players, spies, chars, explore, on_step, log=None):
    """One game on the compiled engine, calling on_step(s, action) after every step: random (or
    exploring) decisions, or with `log` the decisions of a game the arena's loop played (rows
    (kind, seat, action or outcome); each keyed chance draw must be the logged one)."""
    ck = np.uint64(stream_key(seed, game, STREAM_CHANCE))
    pk = np.uint64(stream_key(seed, game, STREAM_POLICY))
    s = np.zeros(E.S_SIZE, np.int32)
    E.setup(s, P, setup_config(players, spies, chars), ck)
    mask = np.zeros(N_ACTIONS, np.bool_)
    acts = np.zeros(N_ACTIONS, np.int32)
    probs = np.zeros(24)
    w = H.explore_weights() if explore else None
    pc = 0
    on_step(s, None)
    while not E.is_terminal(s):
        if E.is_chance(s):
            E.chance_probabilities(s, P, probs)
            assert abs(probs.sum() - 1.0) < 1e-9 and (probs >= 0).all()
            o = int(E.chance_outcome(s, P, ck))
            assert probs[o] > 0
            if log is not None:
                assert tuple(log[pc]) == (1, -1, o)
                pc += 1
            E.apply_chance(s, P, o)
        else:
            n = E.legal_mask(s, P, mask)
            assert n > 0 and n == mask.sum(), "a decision step must have a legal action"
            assert E.legal_actions(s, P, acts) == n
            assert (acts[:n] == np.flatnonzero(mask)).all(), "the list is the mask, ascending"
            if log is None:
                a = H.pick(mask, n, pk, pc, w)
            else:
                assert log[pc, 0] == 0 and log[pc, 1] == E.current_player(s) and mask[log[pc, 2]]
                a = int(log[pc, 2])
            pc += 1
            E.apply(s, P, a)
            on_step(s, a)
    return s


def components(s, n):
    malf = int(s[E.BAG:E.BAG + 24].sum() + s[E.BOARD:E.BOARD + 144].sum() + s[E.DISCARD:E.DISCARD + 24].sum()
               + s[E.KNOW:E.KNOW + 24 * n].sum())
    workers = int(s[E.WORK:E.WORK + 24].sum() + s[E.HAND:E.HAND + 4].sum() + (s[E.ORPH:E.ORPH + 6] >= 0).sum())
    stack = [int(x) for x in s[E.STACK:E.STACK + s[E.STACK_N]]]
    on_board = [m for m in range(6) if s[E.SPY + m]]
    return malf, workers, stack, on_board


def invariants(players):
    """A step check of every invariant for a game of `players` (it keeps what it saw last)."""
    state = {"orph": None, "turn": 0, "decisions_this_turn": 0}

    def check(s, a):
        malf, workers, stack, on_board = components(s, players)
        assert malf == TOTAL_MALFUNCTIONS
        assert workers == 12
        # 6 spies: on the board, uncovered at the bottom of the stack, or never seen
        assert len(set(stack + on_board)) == len(stack + on_board)
        assert len(stack) + len(on_board) + s[E.UNSEEN] == 6
        assert all(s[E.SPY + m] in (0, 1) for m in range(6))
        assert (s[E.BAG:E.BAG + 24] >= 0).all() and (s[E.KNOW:E.KNOW + 96] >= 0).all()
        assert (s[E.BOARD:E.BOARD + 144] >= 0).all() and (s[E.WORK:E.WORK + 24] >= 0).all()
        # Orphanage workers never move
        orph = [int(x) for x in s[E.ORPH:E.ORPH + 6]]
        if state["orph"] is not None:
            assert all(old < 0 or old == new for old, new in zip(state["orph"], orph))
        state["orph"] = orph
        # knowledge within the limit at every end of turn, i.e. when the next turn starts
        if int(s[E.TURN]) != state["turn"]:
            state["turn"] = int(s[E.TURN])
            state["decisions_this_turn"] = 0
            for q in range(players):
                assert E.knowledge_total(s, q) <= E.knowledge_limit(s, P)
        if a is not None:
            state["decisions_this_turn"] += 1
            assert state["decisions_this_turn"] < 200
        # the derived caches equal their definitions
        for m in range(6):
            assert s[E.MCOUNT + m] == s[E.BOARD + 24 * m:E.BOARD + 24 * m + 24].sum()
            if s[E.TILE + m] >= 0:
                assert s[E.EFFM + s[E.TILE + m]] == m
            # a tile is known exactly when its machine has been critical (face up now, or seen)
            assert s[E.TILE + m] >= 0 or not E.is_critical(s, P, m) or s[E.REVEAL_M] == m
        for e in range(6):
            assert s[E.EFFM + e] < 0 or s[E.TILE + s[E.EFFM + e]] == e
        assert s[E.BAG_N] == s[E.BAG:E.BAG + 24].sum()
        for q in range(4):
            for t in range(4):
                assert s[E.HAVE + 4 * q + t] == s[E.KNOW + 24 * q + t:E.KNOW + 24 * q + 24:4].sum()
        # positions survive the JSON format unchanged
        assert (from_dict(to_dict(s)) == s).all()

    return check


@settings(max_examples=60 * EXAMPLES_SCALE, deadline=None)
@given(games)
def test_components_are_conserved_and_limits_hold(args):
    seed, game, players, spies, dealt, perm, explore = args
    chars = None if dealt else list(perm[:players])
    s = play(seed, game, players, spies, chars, explore, invariants(players))
    # every turn draws at least one malfunction from a bag that never refills: a proven bound
    assert s[E.TURN] <= TOTAL_MALFUNCTIONS - 6
    assert s[E.OUTCOME] != 0


@settings(max_examples=30 * EXAMPLES_SCALE, deadline=None)
@given(games, st.sampled_from(["heuristic", "tuned"]))
def test_invariants_hold_under_skilled_play(args, policy):
    """The same invariants at every step of the games the studies report on: the arena's loop
    plays the game with a skilled policy in every seat, and the steps are played again here."""
    from arena.bethel_woods.trace import play_logged
    seed, game, players, spies, dealt, perm, _ = args
    chars = None if dealt else list(perm[:players])
    log, end = play_logged(players, spies, chars, policy, seed, game, RULES)
    s = play(seed, game, players, spies, chars, False, invariants(players), log=log)
    assert (s == end).all()
    assert s[E.OUTCOME] != 0


@settings(max_examples=30 * EXAMPLES_SCALE, deadline=None)
@given(games)
def test_same_seed_same_game(args):
    seed, game, players, spies, dealt, perm, explore = args
    chars = None if dealt else list(perm[:players])
    a = play(seed, game, players, spies, chars, explore, lambda s, a: None)
    b = play(seed, game, players, spies, chars, explore, lambda s, a: None)
    assert (a == b).all()


@settings(max_examples=40 * EXAMPLES_SCALE, deadline=None)
@given(st.integers(0, 2**40), st.integers(2, 4), st.integers(0, 5))
def test_setup(seed, players, spies):
    s = np.zeros(E.S_SIZE, np.int32)
    E.setup(s, P, setup_config(players, spies), np.uint64(stream_key(seed, 0, STREAM_CHANCE)))
    for m in range(6):  # two workers, of the machine's two types
        a, b = RULES.machine_types[m]
        assert s[E.WORK + 4 * m + a] == 1 and s[E.WORK + 4 * m + b] == 1 and s[E.WORK + 4 * m:E.WORK + 4 * m + 4].sum() == 2
        assert not E.is_critical(s, P, m)
    # nothing hidden is in the state: every tile face down and unknown, the stack all unseen
    assert (s[E.TILE:E.TILE + 6] == -1).all() and (s[E.EFFM:E.EFFM + 6] == -1).all()
    assert s[E.STACK_N] == 0 and s[E.UNSEEN] == 6 - spies
    assert s[E.BOARD:E.BOARD + 144].sum() == 6 and s[E.BAG:E.BAG + 24].sum() == 78
    assert s[E.SPY:E.SPY + 6].sum() == spies
    chars = [int(c) for c in s[E.CHAR:E.CHAR + players]]
    assert len(set(chars)) == players and all(0 <= c < 8 for c in chars)
    assert 0 <= s[E.FIRST] < players and s[E.CUR] == s[E.FIRST]
