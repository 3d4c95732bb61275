"""The engine's step primitives for planners (engine.pick_up / unpick, drop_and_fix / undo_drop,
enter_and_pay) against the sequences of ``engine.apply`` they are documented to equal, and their
undos against the position before, at every decision position of random and heuristic games."""
import numpy as np

from simcore.rng import STREAM_CHANCE, stream_key
from policies.bethel_woods.decide import WS_SIZE
from policies.bethel_woods.heuristic import THETA_DEFAULT, heuristic_action, heuristic_reset
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import (
    A_DROP, A_END_TURN, A_ENTER, A_FIX, A_PAY, A_STOP_FIXING, N_ACTIONS, OUT_WIN, PH_FIX, PH_MOVE, PH_PAY, PH_PRE,
    PH_CHANCE_MALF, PH_TERMINAL,
)
from simcore.bethel_woods.face import setup_config
from simcore.bethel_woods.rules import P_SECTION_TYPES, SWITCHES, Rules

NO_NET = np.zeros(1)   # the heuristic reads no network (the plug point's signature has one)

P = Rules().params
_STOPS = [0] * len(SWITCHES)
_STOPS[list(SWITCHES).index("long_group")] = 1
P_STOPS = Rules(switches=tuple(_STOPS)).params


def _legal(s, p):
    acts = np.zeros(N_ACTIONS, np.int32)
    return set(acts[:E.legal_actions(s, p, acts)].tolist())


def drop_then_fix_by_apply(s, p, t):
    """The sequence drop_and_fix equals: the drop, then while fixing, the lowest printed kind of
    type t at the machine (each action checked legal first). Returns the fixes by printed kind."""
    assert A_DROP + t in _legal(s, p)
    E.apply(s, p, A_DROP + t)
    fixes = [0] * 6
    while s[E.PHASE] == PH_FIX:
        m = s[E.POS]
        pm = next(pm for pm in range(6) if s[E.BOARD + 24 * m + 4 * pm + t] > 0)
        assert A_FIX + 4 * pm + t in _legal(s, p)
        E.apply(s, p, A_FIX + 4 * pm + t)
        fixes[pm] += 1
    return fixes


def enter_then_pay_by_apply(s, p, t):
    """The sequence enter_and_pay equals: the plain entry, then while paying, the lowest printed
    kind of type t the player holds (each action checked legal first). Returns the payments by
    printed kind."""
    assert A_ENTER in _legal(s, p)
    E.apply(s, p, A_ENTER)
    paid = [0] * 6
    q = s[E.CUR]
    while s[E.PHASE] == PH_PAY:
        pm = next(pm for pm in range(6) if s[E.KNOW + 24 * q + 4 * pm + t] > 0)
        assert A_PAY + 4 * pm + t in _legal(s, p)
        E.apply(s, p, A_PAY + 4 * pm + t)
        paid[pm] += 1
    return paid


def _positions(games):
    """(s, p, legal) at every decision of `games` games: 2 to 4 players, 0 to 5 spies, both
    readings of the long_group switch; odd games played by the heuristic, even ones at random
    preferring entries and fixes (so that several fixes in one drop and entries occur)."""
    rng = np.random.default_rng(11)
    acts = np.zeros(N_ACTIONS, np.int32)
    for g in range(games):
        players, spies, p = [(3, 0, P), (2, 2, P), (4, 1, P_STOPS), (3, 5, P_STOPS)][g % 4]
        s = np.zeros(E.S_SIZE, np.int32)
        ck = np.uint64(stream_key(np.uint64(5), g, STREAM_CHANCE))
        E.setup(s, p, setup_config(players, spies), ck)
        hws = np.zeros((4, WS_SIZE), np.int32)
        for q in range(4):
            heuristic_reset(hws[q])
        while not E.is_terminal(s):
            if E.is_chance(s):
                E.apply_chance(s, p, E.chance_outcome(s, p, ck))
                continue
            n = E.legal_actions(s, p, acts)
            legal = acts[:n].copy()
            yield s, p, legal
            if g % 2:
                q = E.current_player(s)
                a = heuristic_action(s, p, THETA_DEFAULT, NO_NET, q, acts, n, np.uint64(0), hws[q])
            else:
                pick = [a for a in legal if a == A_ENTER or A_FIX <= a < A_STOP_FIXING] or list(legal)
                a = pick[rng.integers(len(pick))]
            E.apply(s, p, int(a))


def _with(s, i, v):
    c = s.copy()
    c[i] = v
    return c


def _loaded(s, t):
    """s (PH_MOVE, a type-t worker in hand, fewer than six dropped) with one more type-t worker on
    the machine the drop reaches and two more malfunctions of each of two kinds of type t there
    (printed machines 0 and 1), so that the drop's fixes take two kinds."""
    c = s.copy()
    m = (c[E.POS] + c[E.DIR]) % 6
    c[E.WORK + 4 * m + t] += 1
    for pm in (0, 1):
        c[E.BOARD + 24 * m + 4 * pm + t] += 2
    E.recount(c)
    return c


def _last_piece(s, p, t):
    """s (the plain entry of a type-t worker legal) with every other empty section filled and the
    current player given the sixth piece's cost in type-t tokens of two kinds: the entry wins."""
    c = s.copy()
    for i in range(6):
        if i != c[E.POS] and c[E.ORPH + i] < 0:
            c[E.ORPH + i] = p[P_SECTION_TYPES + 2 * i]
    q = c[E.CUR]
    c[E.KNOW + 24 * q + t] += 1
    c[E.KNOW + 24 * q + 4 + t] += E.entry_cost(c, p)
    E.recount(c)
    return c


def test_step_primitives_equal_their_apply_sequences():
    """pick_up == apply of the pick-up; drop_and_fix == apply of the drop and the greedy fixes
    (the fixes it reports too); enter_and_pay == apply of the plain entry and its payments from the
    lowest kind (the payments it reports too); unpick and undo_drop give back the position before,
    every entry. Also: entry_type, entry_cost and entry_payable say the plain entry is legal
    exactly when the legal list has it."""
    undo = np.full(E.DROP_UNDO_SIZE, -99, np.int32)
    spent = np.zeros(6, np.int32)
    seen = {"pick": 0, "drop": 0, "no_fix": 0, "fixes": 0, "two_kinds": 0, "stops_7th_drop": 0,
            "enter": 0, "enter_two_kinds": 0, "win": 0, "no_enter": 0}
    for s, p, legal in _positions(24):
        if s[E.PHASE] == PH_PRE:
            for a in legal[legal < A_DROP].tolist():
                e, l = s.copy(), s.copy()
                E.apply(e, p, a)
                E.pick_up(l, a)
                assert np.array_equal(e, l)
                E.unpick(l, s[E.POS], s[E.DIR])
                assert np.array_equal(l, s)
                seen["pick"] += 1
        if s[E.PHASE] != PH_MOVE:
            continue
        # (with long_group "stops", also as if six workers were dropped already: the seventh
        # stays on the group's machine; and with fixes of two kinds made to wait at the next machine)
        for t in range(4):
            if s[E.HAND + t] == 0:
                continue
            extra = [_with(s, E.DROPS, 6)] if p is P_STOPS else []
            extra += [_loaded(s, t)] if s[E.DROPS] < 6 else []
            for s0 in [s] + extra:
                e, l = s0.copy(), s0.copy()
                fixes = drop_then_fix_by_apply(e, p, t)
                nfix = E.drop_and_fix(l, p, t, undo, 0)
                assert np.array_equal(e, l)
                assert nfix == sum(fixes)
                if nfix:
                    assert undo[E.DROP_UNDO_FIXES:E.DROP_UNDO_FIXES + 6].tolist() == fixes
                E.undo_drop(l, t, undo, 0)
                assert np.array_equal(l, s0)
                seen["drop"] += 1
                seen["no_fix"] += nfix == 0
                seen["fixes"] += nfix
                seen["two_kinds"] += sum(f > 0 for f in fixes) >= 2
                seen["stops_7th_drop"] += s0[E.DROPS] >= 6 and e[E.POS] == s0[E.POS]
        t = E.entry_type(s, p)
        plain = t >= 0 and E.entry_payable(s, p, t, E.entry_cost(s, p), 0)
        assert plain == (A_ENTER in legal)
        if not plain:
            seen["no_enter"] += 1
            continue
        for s0 in (s, _last_piece(s, p, t)):  # (and as the sixth piece: the entry wins)
            e, l = s0.copy(), s0.copy()
            cost = E.entry_cost(s0, p)
            paid = enter_then_pay_by_apply(e, p, t)
            E.enter_and_pay(l, t, cost, spent)
            assert np.array_equal(e, l)
            assert spent.tolist() == paid and sum(paid) == cost
            seen["enter"] += 1
            seen["enter_two_kinds"] += sum(f > 0 for f in paid) >= 2
            seen["win"] += e[E.PHASE] == PH_TERMINAL and e[E.OUTCOME] == OUT_WIN
    assert min(seen.values()) > 0, seen


def test_accessors_read_the_layout():
    """Each named accessor reads the field its name says, at the offset the layout table gives
    (a position with every entry distinct, so a wrong offset reads a wrong value)."""
    s = np.arange(E.S_SIZE, dtype=np.int32) * 7 + 3
    for t in range(4):
        assert E.hand(s, t) == s[E.HAND + t]
        assert E.need(s, t) == s[E.NEED + t] and E.paid(s, t) == s[E.PAID + t]
    for m in range(6):
        assert E.group(s, m) == s[E.WORK + 4 * m: E.WORK + 4 * m + 4].sum()
        assert E.load(s, m) == s[E.MCOUNT + m] and E.spy_at(s, m) == s[E.SPY + m]
        assert E.section(s, m) == s[E.ORPH + m]
        for t in range(4):
            assert E.workers(s, m, t) == s[E.WORK + 4 * m + t]
            for pm in range(6):
                assert E.malfunction(s, m, pm, t) == s[E.BOARD + 24 * m + 4 * pm + t]
                assert E.bag(s, pm, t) == s[E.BAG + 4 * pm + t]
    for q in range(4):
        assert E.character(s, q) == s[E.CHAR + q]
        for t in range(4):
            assert E.held(s, q, t) == s[E.HAVE + 4 * q + t]
            for pm in range(6):
                assert E.knowledge(s, q, pm, t) == s[E.KNOW + 24 * q + 4 * pm + t]


def test_same_position_leaves_out_only_the_statistics():
    """engine.same_position: a position equals itself with its statistics changed, and differs
    from itself with any other single entry changed (every entry tried, on positions of real games)."""
    stats = {E.ST_FIXED, E.ST_UNCOV, E.ST_DECISIONS}
    checked = 0
    for i, (s, _, _) in enumerate(_positions(2)):
        if i % 50:
            continue
        for j in range(E.S_SIZE):
            c = _with(s, j, s[j] + 1)
            assert E.same_position(s, c) == (j in stats)
            assert E.same_position(c, s) == (j in stats)
        checked += 1
    assert checked >= 3


def test_draws_next_is_what_the_next_placement_draws():
    """engine.draws_next (the planners' forecast, read by the heuristic and the features) at the end
    of every turn equals the malfunctions the placement after it sets out to draw, including turns
    where Violet reduced them and turns under the extra-malfunction effect (both must occur)."""
    seen = {"turns": 0, "violet": 0, "extra": 0}
    for s, p, legal in _positions(24):
        if A_END_TURN not in legal:
            continue
        d = E.draws_next(s, p)
        e = s.copy()
        E.apply(e, p, A_END_TURN)
        acts = np.zeros(N_ACTIONS, np.int32)
        while not E.is_terminal(e) and e[E.PHASE] != PH_CHANCE_MALF:   # a discard round first, perhaps
            if E.is_chance(e):
                break
            E.apply(e, p, acts[E.legal_actions(e, p, acts) - 1])
        if e[E.PHASE] != PH_CHANCE_MALF:
            continue                       # the game ended (four critical machines, an empty bag)
        assert e[E.PLACE_LEFT] == d
        seen["turns"] += 1
        seen["violet"] += s[E.VIOLET_RED] > 0
        seen["extra"] += E.effect_active(s, p, E.E_EXTRA) == 1
    assert min(seen.values()) > 0, seen
