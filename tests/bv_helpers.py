"""Shared helpers for the Benevolent tests: lock-step play of the two engines."""
import collections

import numpy as np

from bw_helpers import _diff
from simcore.benevolent import engine as E
from simcore.benevolent.actions import N_ACTIONS, action_name
from simcore.benevolent.face import from_dict, leaves_array, to_dict
from simcore.benevolent.reference import ReferenceGame
from simcore.benevolent.rules import DEFAULT_LEAVES, Rules
from simcore.rng import STREAM_CHANCE, STREAM_POLICY, below, stream_key

COVERAGE = collections.Counter()


def action_class(a):
    name = action_name(a)
    for prefix in ("place", "move", "purchase", "sleep", "exchange", "take Secret", "take it from"):
        if name.startswith(prefix):
            return prefix
    return name


def explore_weights():
    """Favour the hex actions over gathering so games reach Secrets, empty stacks and repeats."""
    from simcore.benevolent import actions as A
    w = np.ones(N_ACTIONS)
    w[A.A_BUY:A.A_SECRET] = 6.0
    w[A.A_SECRET:A.A_DECLINE] = 4.0
    return w


def pick(acts, n, key, counter, weights=None):
    legal = acts[:n]
    if weights is None:
        return int(legal[int(below(key, counter, n))])
    w = weights[legal]
    r = int(below(key, counter, 1 << 30)) / float(1 << 30) * w.sum()
    return int(legal[min(np.searchsorted(np.cumsum(w), r, side="right"), n - 1)])


def lockstep(seed, game, players, leaves=None, rules=None, weights=None, position=None, max_steps=200000):
    """Play one game on both engines comparing position and legal actions at every step."""
    rules = rules or Rules()
    p = rules.params
    leaves = leaves or DEFAULT_LEAVES[:players]
    ck = np.uint64(stream_key(seed, game, STREAM_CHANCE))
    pk = np.uint64(stream_key(seed, game, STREAM_POLICY))
    if position is None:
        s = np.zeros(E.S_SIZE, np.int32)
        c = E.setup(s, p, players, leaves_array(leaves), ck)
        ref = ReferenceGame(rules, players, list(leaves), ck)
        assert ref.counter == c
    else:
        s = from_dict(position)
        ref = ReferenceGame.from_dict(position, rules)
    acts = np.zeros(N_ACTIONS, np.int32)
    for step in range(max_steps):
        a_d, b_d = to_dict(s), ref.to_dict()
        if a_d != b_d:
            raise AssertionError(f"step {step}: positions differ: {_diff(a_d, b_d)}")
        if E.is_terminal(s):
            return step, a_d
        n = E.legal_actions(s, p, acts)
        rl = ref.legal_actions()
        if list(acts[:n]) != rl:
            raise AssertionError(f"step {step}: legal sets differ in phase {ref.phase}: compiled-only "
                                 f"{sorted(set(acts[:n]) - set(rl))}, reference-only {sorted(set(rl) - set(acts[:n]))}")
        a = pick(acts, n, pk, step, weights)
        COVERAGE[action_class(a)] += 1
        E.apply(s, p, a)
        ref.apply(a)
    raise AssertionError("game did not end")
