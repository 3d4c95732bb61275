"""Shared helpers for the Bethel Woods tests: lock-step play of both engines."""
import numpy as np

from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import N_ACTIONS
from simcore.bethel_woods.face import setup_config, to_dict
from simcore.bethel_woods.reference import ReferenceGame
from simcore.bethel_woods.rules import Rules
from simcore.rng import STREAM_CHANCE, STREAM_POLICY, below, stream_key


import collections

COVERAGE = collections.Counter()  # action classes and payment continuations seen in lock-step play


def ACTION_CLASS(a):
    from simcore.bethel_woods.actions import action_name
    name = action_name(a)
    return name.split(" ")[0] if not name.startswith(("uncover", "enter")) else name


def explore_weights():
    """Action weights for an exploring policy that plays long games and reaches the Orphanage,
    the critical tiles and the abilities far more often than uniform random play."""
    from simcore.bethel_woods import actions as A
    w = np.ones(N_ACTIONS)
    w[A.A_FIX:A.A_STOP_FIXING] = 30.0
    w[A.A_ENTER] = w[A.A_ENTER_NOVA] = 200.0
    w[A.A_UNCOVER:A.A_UNCOVER_FARE_CCW + 1] = 40.0
    w[A.A_HARRIS:] = 2.0
    return w


def pick(mask, n, key, counter, weights=None):
    """Uniform (or weighted) choice among the legal actions, from one draw of the stream."""
    legal = np.flatnonzero(mask)
    if weights is None:
        return int(legal[int(below(key, counter, n))])
    w = weights[legal]
    r = int(below(key, counter, 1 << 30)) / float(1 << 30) * w.sum()
    return int(legal[min(np.searchsorted(np.cumsum(w), r, side="right"), len(legal) - 1)])


def lockstep(seed, game, players, spies, chars=None, rules=None, max_steps=20000, check_every=1, weights=None):
    """Play one random game on both engines, comparing legal sets, positions, chance
    distributions and the outcome at every step. Returns (steps, final position).
    Raises AssertionError with the step and the difference on any disagreement."""
    rules = rules or Rules()
    p = rules.params
    ck = np.uint64(stream_key(seed, game, STREAM_CHANCE))
    pk = np.uint64(stream_key(seed, game, STREAM_POLICY))
    s = np.zeros(E.S_SIZE, np.int32)
    E.setup(s, p, setup_config(players, spies, chars), ck)
    ref = ReferenceGame(rules, players, spies, chars, ck)
    return _run_lockstep(s, ref, p, ck, pk, weights, max_steps, check_every)


def _diff(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                return _diff(a.get(k), b.get(k), f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _diff(x, y, f"{path}[{i}]")
    return f"{path}: compiled {a!r} reference {b!r}"


def rich_position(seed, game, players, spies, chars=None, rules=None, orphanage=None, bag_left=None):
    """A consistent mid-game position made from a fresh setup by moving components around at
    random (components stay conserved): workers already in the Orphanage, knowledge in every
    hand, extra malfunctions on the board (some machines critical), knowledge in the discard."""
    from simcore.bethel_woods.face import from_dict
    rules = rules or Rules()
    p = rules.params
    ck = np.uint64(stream_key(seed, game, STREAM_CHANCE))
    s = np.zeros(E.S_SIZE, np.int32)
    E.setup(s, p, setup_config(players, spies, chars), ck)
    rk = np.uint64(stream_key(seed, game, 99))
    c = [0]

    def r(n):
        c[0] += 1
        return int(below(rk, c[0], n))

    def take_from_bag():
        kinds = [k for k in range(24) for _ in range(s[E.BAG + k])]
        k = kinds[r(len(kinds))]
        s[E.BAG + k] -= 1
        return k

    # workers into the Orphanage (0-5 of them, or `orphanage` exactly if it can be done),
    # each into a free section that accepts it
    target = r(6) if orphanage is None else orphanage
    for _ in range(200):
        if E.orphanage_count(s) >= target:
            break
        m = r(6)
        t = [t for t in range(4) if s[E.WORK + 4 * m + t] > 0]
        if not t:
            continue
        t = t[r(len(t))]
        free = [i for i in range(6) if s[E.ORPH + i] < 0 and t in rules.section_types[i]]
        if free:
            s[E.WORK + 4 * m + t] -= 1
            s[E.ORPH + free[r(len(free))]] = t
    # near the win: the current player holds 6 knowledge of a type the free section accepts
    if orphanage is not None and E.orphanage_count(s) == 5:
        free = [i for i in range(6) if s[E.ORPH + i] < 0][0]
        t = rules.section_types[free][r(2)]
        for _ in range(6):
            ks = [k for k in range(24) if k % 4 == t and s[E.BAG + k] > 0]
            k = ks[r(len(ks))]
            s[E.BAG + k] -= 1
            s[E.KNOW + 24 * s[E.CUR] + k] += 1
    # knowledge for every player, up to the limit
    for q in range(players):
        if E.knowledge_total(s, q) > 0:
            continue
        for _ in range(r(rules.knowledge_limit + 1)):
            s[E.KNOW + 24 * q + take_from_bag()] += 1
    for _ in range(r(10)):
        s[E.DISCARD + take_from_bag()] += 1
    # malfunctions onto the board, possibly making machines critical (at most 3 critical)
    for _ in range(r(12)):
        k = take_from_bag()
        m = k // 4 if r(3) else r(6)  # sometimes lying on another machine (as after a redirect)
        s[E.BOARD + 24 * m + k] += 1
        E.recount(s)
        if E.n_critical(s, p) >= 4:
            s[E.BOARD + 24 * m + k] -= 1
            s[E.BAG + k] += 1
            E.recount(s)
    if bag_left is not None:  # a nearly empty bag: the rest goes to the discard pile
        while s[E.BAG:E.BAG + 24].sum() > bag_left:
            s[E.DISCARD + take_from_bag()] += 1
    s[E.TURN] = r(20)
    E.recount(s)
    # a critical machine shows its tile: reveal one for each (as the game would have)
    for m in range(6):
        if E.is_critical(s, p, m) and s[E.TILE + m] < 0:
            unseen = [e for e in range(6) if s[E.EFFM + e] < 0]
            s[E.TILE + m] = unseen[r(len(unseen))]
            E.recount(s)
    return to_dict(s), from_dict(to_dict(s))


def lockstep_from(position, seed, game, rules=None, weights=None, max_steps=20000):
    """Lock-step play of both engines from a given position (as lockstep)."""
    from simcore.bethel_woods.face import from_dict
    rules = rules or Rules()
    p = rules.params
    ck = np.uint64(stream_key(seed, game, 7))
    pk = np.uint64(stream_key(seed, game, STREAM_POLICY))
    s = from_dict(position)
    ref = ReferenceGame.from_dict(position, rules, ck)
    return _run_lockstep(s, ref, p, ck, pk, weights, max_steps, 1)


def lockstep_log(seed, game, players, spies, log, rules=None):
    """Lock-step play of both engines from setup (as lockstep), following the steps of a game the
    arena's loop played (``arena.bethel_woods.trace.play_logged``: rows (kind, seat, action or
    outcome)): each decision is the logged one, by the logged seat, and each keyed chance draw must
    be the logged outcome. Every logged step must be used. Returns (steps, final position)."""
    rules = rules or Rules()
    p = rules.params
    ck = np.uint64(stream_key(seed, game, STREAM_CHANCE))
    s = np.zeros(E.S_SIZE, np.int32)
    E.setup(s, p, setup_config(players, spies, None), ck)
    ref = ReferenceGame(rules, players, spies, None, ck)
    rows = iter([tuple(int(x) for x in r) for r in log])
    out = _run_lockstep(s, ref, p, ck, None, None, 20000, 1, rows)
    assert next(rows, None) is None, "the engines ended the game before the log did"
    return out


def _run_lockstep(s, ref, p, ck, pk, weights, max_steps, check_every, rows=None):
    """rows: None (a random or weighted choice from pk), or an iterator of logged (kind, seat,
    action or outcome) steps to follow (kind 0: a decision, 1: a chance outcome)."""
    mask = np.zeros(N_ACTIONS, np.bool_)
    probs = np.zeros(24)
    pc = 0
    for step in range(max_steps):
        if step % check_every == 0 or E.is_terminal(s):
            a_d, b_d = to_dict(s), ref.to_dict()
            if a_d != b_d:
                raise AssertionError(f"step {step}: positions differ: {_diff(a_d, b_d)}")
        if E.is_terminal(s):
            assert ref.phase == "terminal"
            return step, to_dict(s)
        assert E.current_player(s) == ref.current_player(), f"step {step}: current players differ"
        if E.is_chance(s):
            E.chance_probabilities(s, p, probs)
            rp = ref.chance_probabilities()
            for k in range(24):
                assert abs(probs[k] - rp.get(k, 0.0)) < 1e-12, f"step {step}: chance distributions differ"
            o = int(E.chance_outcome(s, p, ck))
            assert o == ref.sample_chance(), f"step {step}: the keyed chance draws differ"
            if rows is not None:
                assert next(rows, None) == (1, -1, o), f"step {step}: the log has another step than draw {o}"
            E.apply_chance(s, p, o)
            ref.apply_chance(o)
        else:
            n = E.legal_mask(s, p, mask)
            legal = [int(x) for x in np.flatnonzero(mask)]
            rl = ref.legal_actions()
            if legal != rl:
                raise AssertionError(f"step {step}: legal sets differ in phase {ref.phase}: "
                                     f"compiled-only {sorted(set(legal) - set(rl))}, "
                                     f"reference-only {sorted(set(rl) - set(legal))}")
            assert n == len(legal) and n > 0
            if rows is None:
                a = pick(mask, n, pk, pc, weights)
            else:
                kind, q, a = next(rows, (None, None, None))
                assert kind == 0 and q == ref.current_player(), f"step {step}: the log has {(kind, q, a)}"
                assert a in legal, f"step {step}: logged action {a} is not legal on both engines"
            COVERAGE[ACTION_CLASS(a)] += 1
            if ref.phase == "pay":
                COVERAGE["then:" + ref.payment.then] += 1
            pc += 1
            E.apply(s, p, a)
            ref.apply(a)
    raise AssertionError("game did not end")


# ---- scenarios for rule tests -------------------------------------------------------------------
def kind(machine, type_name):
    """The kind index of a malfunction/knowledge token: machine 1-6 and a type name."""
    from simcore.bethel_woods.rules import TYPES
    return 4 * (machine - 1) + TYPES.index(type_name)


def scenario(players=2, characters=("Fenn", "Nova"), current=0, workers=None, malfunctions=None,
             knowledge=None, spies=(), tiles=None, stack=None, orphanage=None, phase="pre", **turn_state):
    """A position for a rule test, in the documented format, with everything named and the rest
    as after a normal setup. The bag holds whatever of each kind is not named elsewhere; a test
    may name more tokens of a kind than the game has (the rule logic does not depend on it), and
    the bag then holds none of that kind. Conservation is the property tests' business.

    workers: {machine: [worker names]} (default: the setup workers)
    malfunctions: {machine: [(printed machine, type name), ...]} (default: none)
    knowledge: {seat: [(printed machine, type name), ...]}
    spies: machines with a spy; stack: the known bottom of the spy stack, uncovered spies in order
    (default: none; the other spies are unseen)
    tiles: six critical effect names (or None: not seen yet) for machines 1-6 (default: the
    rulebook's order, all seen)
    orphanage: six worker names or None"""
    from simcore.bethel_woods.face import State
    from simcore.bethel_woods.rules import CRITICAL_EFFECTS
    from simcore.bethel_woods.actions import kind_name
    assert tiles is None or len(set(x for x in tiles if x)) == len([x for x in tiles if x]), "an effect twice"
    g = State(players, 0, list(characters), seed=1)
    d = g.to_dict()
    rules = Rules()
    total = {kind_name(k): rules.malfunction_counts[k // 4][k % 4] for k in range(24)}
    d["current_player"] = d["first_player"] = current
    d["characters"] = list(characters)
    for m in range(6):
        md = d["machines"][m]
        md["malfunctions"] = {}
        if workers is not None:
            md["workers"] = {w: workers.get(m + 1, []).count(w) for w in md["workers"]}
        md["spy"] = (m + 1) in spies
        md["critical_tile"] = (tiles or CRITICAL_EFFECTS)[m]
    used = {}
    for m, toks in (malfunctions or {}).items():
        for pm, t in toks:
            name = kind_name(kind(pm, t))
            d["machines"][m - 1]["malfunctions"][name] = d["machines"][m - 1]["malfunctions"].get(name, 0) + 1
            used[name] = used.get(name, 0) + 1
    d["knowledge"] = [{} for _ in range(players)]
    for q, toks in (knowledge or {}).items():
        for pm, t in toks:
            name = kind_name(kind(pm, t))
            d["knowledge"][q][name] = d["knowledge"][q].get(name, 0) + 1
            used[name] = used.get(name, 0) + 1
    d["discard"] = {}
    d["bag"] = {n: c - used.get(n, 0) for n, c in total.items() if c - used.get(n, 0) > 0}
    returned = list(stack) if stack is not None else []
    d["spy_stack"] = {"unseen": 6 - len(spies) - len(returned), "returned": returned, "revealed_after_setup": 0}
    d["orphanage"] = list(orphanage) if orphanage is not None else [None] * 6
    d["daydreamer_built"] = sum(w is not None for w in d["orphanage"])
    d["phase"] = phase
    d["turn_state"].update(turn_state)
    for md in d["machines"]:
        md["critical_face_up"] = sum(md["malfunctions"].values()) + md["spy"] > 3
    return d


class Both:
    """The compiled and the reference engine at the same position, driven together; every step
    checks that they still agree."""

    def __init__(self, position, rules=None):
        from simcore.bethel_woods.face import State
        self.rules = rules or Rules()
        self.g = State.from_position(position, self.rules)
        self.ref = ReferenceGame.from_dict(position, self.rules)
        self.check()

    def check(self):
        a, b = self.g.to_dict(), self.ref.to_dict()
        assert a == b, _diff(a, b)
        if not self.g.is_chance() and not self.g.is_terminal():
            assert self.g.legal_actions() == self.ref.legal_actions()

    def legal(self):
        return self.g.legal_action_names()

    def do(self, *names):
        for name in names:
            a = self.g.apply(name)
            self.ref.apply(a)
            self.check()
        return self

    def chance(self, *outcomes):
        for o in outcomes:
            self.g.apply_chance(o)
            self.ref.apply_chance(o)
            self.check()
        return self

    @property
    def d(self):
        return self.g.to_dict()
