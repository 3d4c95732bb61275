"""The Bethel Woods heuristic: legal, blind to hidden information, and better than random."""
import numpy as np
import pytest

from experiments.stats import wilson
from policies.bethel_woods import (
    THETA_BOUNDS, THETA_DEFAULT, THETA_NAMES, WS_SIZE, heuristic_action, heuristic_reset,
)
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import N_ACTIONS, OUT_WIN, PH_CHANCE_MALF, PH_CHANCE_SPY, PH_TERMINAL
from simcore.bethel_woods.batch import simulate
from simcore.bethel_woods.rules import Rules
from simcore.rng import STREAM_CHANCE, STREAM_POLICY, draw, stream_key

P = Rules().params


def _u64(x):
    return np.uint64(x)


def play(seed, game, players=3, spies=0, visit=None):
    """Play one game with the heuristic in every seat. visit(s, q, acts, n, a) sees every decision
    (before it is applied). Returns the final state."""
    s = np.zeros(E.S_SIZE, np.int32)
    acts = np.zeros(N_ACTIONS, np.int32)
    ck = _u64(stream_key(seed, game, STREAM_CHANCE))
    c = E.setup(s, P, players, spies, np.full(4, -1, np.int32), ck)
    ws = np.zeros((4, WS_SIZE), np.int32)
    keys = [_u64(stream_key(seed, game, STREAM_POLICY + q)) for q in range(players)]
    cnt = [0] * players
    for q in range(players):
        heuristic_reset(ws[q])
    while s[E.PHASE] != PH_TERMINAL:
        if s[E.PHASE] in (PH_CHANCE_MALF, PH_CHANCE_SPY):
            E.apply_chance(s, P, E.chance_outcome(s, ck, c))
            c += 1
            continue
        q = E.decider(s)
        n = E.legal_actions(s, P, acts)
        a = heuristic_action(s, P, THETA_DEFAULT, q, acts, n, _u64(draw(keys[q], _u64(cnt[q]))), ws[q])
        cnt[q] += 1
        if visit is not None:
            visit(s, q, acts, n, a)
        E.apply(s, P, a)
    return s


def test_theta_tables_agree():
    assert len(THETA_NAMES) == len(THETA_DEFAULT) == THETA_BOUNDS.shape[0]
    assert THETA_BOUNDS.shape[1] == 2
    assert np.all(THETA_BOUNDS[:, 0] <= THETA_DEFAULT) and np.all(THETA_DEFAULT <= THETA_BOUNDS[:, 1])


@pytest.mark.parametrize("players, spies", [(3, 0), (2, 1), (4, 2)])
def test_every_decision_is_legal(players, spies):
    seen = {"n": 0}

    def visit(s, q, acts, n, a):
        assert a in acts[:n], (a, acts[:n].tolist())
        seen["n"] += 1

    for g in range(12):
        s = play(3, g, players, spies, visit)
        assert s[E.PHASE] == PH_TERMINAL
    assert seen["n"] > 12 * 20


def _hide(s, rng):
    """The same position as a player sees it, with the hidden parts shuffled: the critical tiles of
    the machines that are not critical, and the order of the spy stack."""
    t = s.copy()
    hidden = [m for m in range(6) if not E.is_critical(t, P, m)]
    tiles = t[E.TILE + np.array(hidden, dtype=np.int64)] if hidden else np.array([], np.int32)
    for m, e in zip(hidden, rng.permutation(tiles)):
        t[E.TILE + m] = e
    k = t[E.STACK_N]
    t[E.STACK:E.STACK + k] = rng.permutation(t[E.STACK:E.STACK + k])
    E.recount(t)
    return t


def test_decisions_do_not_depend_on_hidden_state_or_key():
    rng = np.random.default_rng(5)
    positions = []

    def visit(s, q, acts, n, a):
        if rng.random() < 0.25:
            positions.append((s.copy(), q, acts[:n].copy(), a))

    for g in range(6):
        play(9, g, 3, 1, visit)
    assert len(positions) > 50
    changed = 0
    for s, q, legal, _ in positions:
        decisions = []
        for trial in range(3):
            t = s if trial == 0 else _hide(s, rng)
            changed += int(not np.array_equal(t, s))
            ws = np.zeros(WS_SIZE, np.int32)
            heuristic_reset(ws)
            acts = np.zeros(N_ACTIONS, np.int32)
            acts[:len(legal)] = legal
            decisions.append(heuristic_action(t, P, THETA_DEFAULT, q, acts, len(legal),
                                              np.uint64(1000 + trial), ws))
        assert decisions[0] == decisions[1] == decisions[2]
    assert changed > len(positions)  # the hidden parts did change in most trials


def test_heuristic_wins_far_more_than_random():
    from bw_heuristic_harness import run
    games = 300
    out, _ = run(games=games, seed=21, threads=2)
    h = int((out[:, 0] == OUT_WIN).sum())
    r = simulate(3, 0, policy="random", games=games, seed=21, threads=2).wins
    assert wilson(h, games)[0] > wilson(r, games)[1]


def test_the_turn_plan_is_replayed_not_remade():
    """One search per turn: the plan's steps are played back while the position is the one the
    plan expects (a broken replay would search again at almost every decision)."""
    from policies.bethel_woods.heuristic import W_NPLAN
    plans = turns = decisions = 0
    for g in range(10):
        s = np.zeros(E.S_SIZE, np.int32)
        acts = np.zeros(N_ACTIONS, np.int32)
        ck = _u64(stream_key(4, g, STREAM_CHANCE))
        c = E.setup(s, P, 3, 0, np.full(4, -1, np.int32), ck)
        ws = np.zeros((4, WS_SIZE), np.int32)
        for q in range(3):
            heuristic_reset(ws[q])
        while s[E.PHASE] != PH_TERMINAL:
            if s[E.PHASE] in (PH_CHANCE_MALF, PH_CHANCE_SPY):
                E.apply_chance(s, P, E.chance_outcome(s, ck, c))
                c += 1
                continue
            q = E.decider(s)
            n = E.legal_actions(s, P, acts)
            E.apply(s, P, heuristic_action(s, P, THETA_DEFAULT, q, acts, n, _u64(0), ws[q]))
        plans += int(ws[:, W_NPLAN].sum())
        turns += int(s[E.TURN]) + 1
        decisions += int(s[E.ST_DECISIONS])
    assert decisions > 3 * turns  # turns have several decisions each ...
    assert turns <= plans <= 1.05 * turns  # ... but one search


def test_same_games_on_one_and_two_threads():
    """Each parallel block owns its workspaces: the records do not depend on the thread count."""
    from bw_heuristic_harness import run
    a, _ = run(games=600, seed=8, threads=1)
    b, _ = run(games=600, seed=8, threads=2)
    assert np.array_equal(a, b)
    assert len(np.unique(a[:, 1])) > 5  # the games differ from each other
