"""Shared helpers for the Benevolent tests: lock-step play of the two engines."""
import collections
import zlib

import numpy as np

from bw_helpers import _diff
from simcore.benevolent import engine as E
from simcore.benevolent.actions import N_ACTIONS, action_name
from simcore.benevolent.face import from_dict, setup_config, to_dict
from simcore.benevolent.reference import ReferenceGame
from simcore.benevolent.rules import DEFAULT_LEAVES, Rules
from simcore.rng import STREAM_CHANCE, STREAM_POLICY, below, stream_key

COVERAGE = collections.Counter()
# what lock-step play has compared so far in this process (never cleared): steps compared, and the
# distinct (rules, players, action) triples applied (rules: a hash of the parameter vector)
COMPARED = collections.Counter()
SEEN = set()


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


def lockstep(seed, game, players, leaves=None, rules=None, weights=None, position=None, max_steps=200000,
             log=None):
    """Play one game on both engines comparing position and legal actions at every step. With
    `log` (rows (kind, seat, action) of a game the arena's loop played,
    ``arena.benevolent.trace._play_logged``), each decision is the logged one by the logged seat,
    and the log must end with the game."""
    rules = rules or Rules()
    p = rules.params
    leaves = leaves or DEFAULT_LEAVES[:players]
    ck = np.uint64(stream_key(seed, game, STREAM_CHANCE))
    pk = np.uint64(stream_key(seed, game, STREAM_POLICY))
    if position is None:
        s = np.zeros(E.S_SIZE, np.int32)
        E.setup(s, p, setup_config(players, leaves), ck)
        ref = ReferenceGame(rules, players, list(leaves), ck)
    else:
        s = from_dict(position)
        ref = ReferenceGame.from_dict(position, rules)
    acts = np.zeros(N_ACTIONS, np.int32)
    for step in range(max_steps):
        a_d, b_d = to_dict(s), ref.to_dict()
        if a_d != b_d:
            raise AssertionError(f"step {step}: positions differ: {_diff(a_d, b_d)}")
        if E.is_terminal(s):
            COMPARED["games"] += 1
            assert log is None or step == len(log), f"the game ended after {step} of the log's {len(log)} steps"
            return step, a_d
        n = E.legal_actions(s, p, acts)
        rl = ref.legal_actions()
        if list(acts[:n]) != rl:
            raise AssertionError(f"step {step}: legal sets differ in phase {ref.phase}: compiled-only "
                                 f"{sorted(set(acts[:n]) - set(rl))}, reference-only {sorted(set(rl) - set(acts[:n]))}")
        if log is None:
            a = pick(acts, n, pk, step, weights)
        else:
            assert step < len(log), "the log ended before the game"
            kind, q, a = (int(x) for x in log[step])
            assert kind == 0 and q == ref.current_player(), f"step {step}: the log has {(kind, q, a)}"
            assert a in rl, f"step {step}: logged action {a} is not legal on both engines"
        COVERAGE[action_class(a)] += 1
        COMPARED["steps"] += 1
        SEEN.add((zlib.crc32(p.tobytes()), int(s[E.NP]), a))
        E.apply(s, p, a)
        ref.apply(a)
    raise AssertionError("game did not end")


def scenario(players=2, hexes=None, me=None, others=None, current=0, phase="move", entered=None, pool=None,
             triangle=None, rules=None):
    """A Benevolent position for a rule test. hexes: list of (type name, gray) for the forest's hexes
    (2 players: 8 hexes, neighbours as in the default layout); me/others: dicts overriding the
    current player's / the others' leaves, gifts ({name: n}), footsteps (hexes), dream, single_use,
    permanent, tile. The supply and the gift pool are recomputed so that the 64 leaves and the gift
    tokens stay conserved (pool: override per gift)."""
    from simcore.benevolent.face import State
    from simcore.benevolent.rules import GIFTS, POOL, TOTAL_LEAVES
    g = State(players, None, seed=3, rules=rules)
    d = g.to_dict()
    if hexes is not None:
        for h, (t, gray) in enumerate(hexes):
            d["forest"]["hexes"][h]["type"] = t
            d["forest"]["hexes"][h]["gray_footstep"] = gray
    for q, pd in enumerate(d["player_state"]):
        over = me if q == current else (others or {}).get(q) if isinstance(others, dict) else None
        over = over or {}
        if "leaves" in over:
            pd["leaves"] = over["leaves"]
        if "gifts" in over:
            pd["gifts"] = {x: over["gifts"].get(x, 0) for x in GIFTS}
        if "footsteps" in over:
            pd["footsteps_on_forest"] = sorted(over["footsteps"])
            pd["footsteps_on_card"] = 4 - len(over["footsteps"])
        for k, key in (("dream", "dream_position"), ("single_use", "single_use"), ("permanent", "permanent"),
                       ("tile", "gather_tile_leaves")):
            if k in over:
                pd[key] = over[k]
    d["current_player"] = current
    d["phase"] = phase
    d["turn_state"]["entered_hex"] = entered
    if triangle is not None:
        for i, t in enumerate(d["triangle"]):
            if i in triangle:
                t["tile"] = triangle[i]
    held = sum(pd["leaves"] + pd["gather_tile_leaves"] for pd in d["player_state"])
    d["supply"] = TOTAL_LEAVES - held
    for i, x in enumerate(GIFTS):
        d["gift_pool"][x] = POOL[players][i] - sum(pd["gifts"][x] for pd in d["player_state"])
        if pool and x in pool:
            d["gift_pool"][x] = pool[x]
    for t in d["triangle"]:
        t["secret"] = None if t["tile"] is None else t["secret"]
    return d


class Both:
    """Both engines at one position, driven together and compared after every step."""

    def __init__(self, position, rules=None):
        from simcore.benevolent.face import State
        self.rules = rules or Rules()
        self.g = State.from_position(position, self.rules)
        self.ref = ReferenceGame.from_dict(position, self.rules)
        self.d_fix = None
        self.check()

    def check(self):
        a = self.g.to_dict()
        b = self.ref.to_dict()
        # the triangle's derived fields (secret name, available) come from the tiles: compare both
        assert a == b, _diff(a, b)
        if not self.g.is_terminal():
            assert self.g.legal_actions() == self.ref.legal_actions()

    def legal(self):
        return self.g.legal_action_names()

    def do(self, *names):
        for name in names:
            a = self.g.apply(name)
            self.ref.apply(a)
            self.check()
        return self

    @property
    def d(self):
        return self.g.to_dict()

    def me(self, q=None):
        d = self.d
        return d["player_state"][d["current_player"] if q is None else q]
