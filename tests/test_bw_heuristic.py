"""The Bethel Woods heuristic through the arena: its tables, legal and deterministic play, one
search per turn, and far more wins than random play. (No peeking and conformance: test_arena.py,
for every policy.)"""
import numpy as np

from arena.bethel_woods.batch import play_game, seat_policies, simulate
from experiments.stats import wilson
from policies.bethel_woods.decide import WS_SIZE
from policies.bethel_woods.heuristic import THETA_BOUNDS, THETA_DEFAULT, THETA_NAMES, W_NPLAN
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import N_ACTIONS
from simcore.bethel_woods.face import setup_config
from simcore.bethel_woods.rules import Rules

NO_NET = np.zeros(1)   # the heuristic reads no network (the plug point's signature has one)

P = Rules().params


def test_theta_tables_agree():
    assert len(THETA_NAMES) == len(THETA_DEFAULT) == THETA_BOUNDS.shape[0]
    assert THETA_BOUNDS.shape[1] == 2
    assert np.all(THETA_BOUNDS[:, 0] <= THETA_DEFAULT) and np.all(THETA_DEFAULT <= THETA_BOUNDS[:, 1])


def test_heuristic_wins_far_more_than_random():
    games = 300
    h = simulate(3, 0, policy="heuristic", games=games, seed=21, threads=2).wins
    r = simulate(3, 0, policy="random", games=games, seed=21, threads=2).wins
    assert wilson(h, games)[0] > wilson(r, games)[1]


def test_weights_matter():
    """theta reaches the policy: with the Daydreamer weight zeroed and entries punished, the same
    games are won far less often."""
    games = 200
    bad = THETA_DEFAULT.copy()
    bad[THETA_NAMES.index("built")] = 0.0
    bad[THETA_NAMES.index("best_stack")] = 0.0
    good = simulate(3, 0, policy="heuristic", games=games, seed=5, threads=2).wins
    worse = simulate(3, 0, policy="heuristic", games=games, seed=5, threads=2, theta=bad).wins
    assert wilson(worse, games)[1] < wilson(good, games)[0]


def test_the_turn_plan_is_replayed_not_remade():
    """One search per turn: the plan's steps are played back while the position is the one the
    plan expects (a broken replay would search again at almost every decision)."""
    pols, thetas = seat_policies("heuristic", 3)
    cfg = setup_config(3, 0)
    plans = turns = decisions = 0
    for g in range(10):
        s = np.zeros(E.S_SIZE, np.int32)
        ws = np.zeros((4, WS_SIZE), np.int32)
        play_game(s, P, cfg, np.uint64(4), np.uint64(4), g, pols, thetas, np.zeros((4, 1)), ws, np.zeros(N_ACTIONS, np.int32),
                  np.zeros(4, np.uint64), np.zeros(4, np.int64), np.zeros((0, 3), np.int32))
        plans += int(ws[:, W_NPLAN].sum())
        turns += int(s[E.TURN]) + 1
        decisions += int(s[E.ST_DECISIONS])
    assert decisions > 3 * turns  # turns have several decisions each ...
    assert turns <= plans <= 1.05 * turns  # ... but one search


def test_same_records_on_one_and_two_threads():
    a = simulate(3, 1, policy="heuristic", games=200, seed=8, threads=1, keep_records=True).records
    b = simulate(3, 1, policy="heuristic", games=200, seed=8, threads=2, keep_records=True).records
    assert a.equals(b) and a["turns"].nunique() > 5


def test_entry_filter_never_hides_an_entry():
    """The planner tries no entry where engine.entry_type says none can be legal (the worker's
    type is not taken by the empty section at its machine, or the hand is not one worker): in
    random games, whenever it says no, the engine lists no entry either; when an entry is listed,
    it names the type of the worker in hand; and both cases occur."""
    from simcore.rng import STREAM_CHANCE, stream_key
    from simcore.bethel_woods.actions import A_ENTER, A_ENTER_NOVA, PH_MOVE
    rng = np.random.default_rng(3)
    cfg = setup_config(3, 0)
    acts = np.zeros(N_ACTIONS, np.int32)
    refused = entered = 0
    for g in range(30):
        s = np.zeros(E.S_SIZE, np.int32)
        ck = np.uint64(stream_key(np.uint64(9), g, STREAM_CHANCE))
        E.setup(s, P, cfg, ck)
        while not E.is_terminal(s):
            if E.is_chance(s):
                E.apply_chance(s, P, E.chance_outcome(s, P, ck))
                continue
            n = E.legal_actions(s, P, acts)
            legal = set(acts[:n].tolist())
            if s[E.PHASE] == PH_MOVE:
                t = E.entry_type(s, P)
                if t < 0:
                    refused += E.hand_total(s) == 1
                    assert A_ENTER not in legal and A_ENTER_NOVA not in legal
                elif A_ENTER in legal or A_ENTER_NOVA in legal:
                    assert E.hand_total(s) == 1 and s[E.HAND + t] == 1
                    entered += 1
            E.apply(s, P, int(acts[rng.integers(n)]))
    assert refused > 0 and entered > 0


def test_planner_lists_equal_the_legal_list():
    """The planner takes parts of the legal list without making it: the uncovers after the last
    worker (engine.uncover_actions), Nova's entry (engine.entry_payable with nova=1, after the
    planner's own test of her character and unused ability) and the abilities of a candidate
    (engine.ability_actions). At every decision position of random and heuristic games
    with Nova, Fenn, Fare and the active characters seated, each part is the legal list's. (The
    legal list itself is checked against the reference engine by test_bw_differential.py; the
    parts are what legal_actions calls, so these asserts guard against another source of actions
    in their ranges and against the planner's own conditions around them.)"""
    from simcore.bethel_woods.actions import A_ENTER, A_ENTER_NOVA, A_HARRIS, A_UNCOVER, A_UNCOVER_FARE_CCW, PH_MOVE, PH_POST
    from simcore.bethel_woods.rules import E_ABILITY, E_CONSTRUCT, FARE, FENN, HARRIS, JUNAS, LINNY, NOVA, RONE, VIOLET
    part = np.zeros(N_ACTIONS, np.int32)
    seen = {"uncover": 0, "fenn_or_fare": 0, "nova_yes": 0, "nova_only": 0, "nova_no": 0, "nova_tax": 0,
            "ability": 0}
    tables = [(NOVA, FENN, FARE), (NOVA, HARRIS, LINNY), (NOVA, JUNAS, RONE, VIOLET), (FARE, FENN, NOVA)]
    for s, acts, n in _decision_positions(17, 24, np.random.default_rng(5), chars=tables):
        legal = acts[:n].tolist()
        if s[E.PHASE] == PH_POST:
            k = E.uncover_actions(s, P, part, 0)
            assert part[:k].tolist() == [a for a in legal if A_UNCOVER <= a <= A_UNCOVER_FARE_CCW]
            seen["uncover"] += k > 0
            seen["fenn_or_fare"] += k > 0 and part[k - 1] > A_UNCOVER
            k = E.ability_actions(s, P, part, 0)
            assert part[:k].tolist() == [a for a in legal if a >= A_HARRIS]
            seen["ability"] += k > 0
        if (s[E.PHASE] == PH_MOVE and E.entry_type(s, P) >= 0
                and s[E.CHAR + s[E.CUR]] == NOVA and s[E.ABIL_USED] == 0):
            t = int(np.flatnonzero(s[E.HAND: E.HAND + 4])[0])
            cost = E.orphanage_count(s) + 1 + E.effect_active(s, P, E_CONSTRUCT)
            ok = E.entry_payable(s, P, t, cost, 1)
            assert ok == (A_ENTER_NOVA in legal)
            seen["nova_yes" if ok else "nova_no"] += 1
            seen["nova_only"] += ok and A_ENTER not in legal   # the plain entry is not legal: the substitution is needed
            seen["nova_tax"] += E.effect_active(s, P, E_ABILITY)
    assert min(seen.values()) > 0, seen


def _engine_then_settle(s, p, a, ws):
    """The reference for the planner's own steps: the engine's apply, then the planner's
    canonical order-free steps (greedy fixes, canonical payments) through the engine."""
    from policies.bethel_woods.heuristic import W_PATH, _settle
    ws[W_PATH] = a
    E.apply(s, p, a)
    return _settle(s, p, ws, 1)


def _with(s, i, v):
    c = s.copy()
    c[i] = v
    return c


def test_planner_steps_equal_the_engine():
    """The planner makes drops with their greedy fixes and plain Orphanage entries through the
    engine's step primitives (engine.drop_and_fix, enter_and_pay: tests/test_bw_steps.py checks
    them against engine.apply) and writes their actions into its path itself (heuristic._drop_do,
    _enter_do, from what the primitives report). On every such decision of random and heuristic
    games (both readings of the long_group switch, 2 to 4 players, with spies), the position and
    the path equal the engine's apply followed by the planner's canonical steps (_settle), and
    _drop_undo gives the position back exactly."""
    from simcore.rng import STREAM_CHANCE, stream_key
    from policies.bethel_woods.heuristic import (
        W_PATH, _drop_do, _drop_undo, _enter_do, heuristic_action, heuristic_reset)
    from simcore.bethel_woods.actions import A_DROP, A_ENTER, A_FIX, A_STOP_FIXING, PH_MOVE
    from simcore.bethel_woods.rules import SWITCHES
    stops = [0] * len(SWITCHES)
    stops[list(SWITCHES).index("long_group")] = 1
    rng = np.random.default_rng(11)
    acts = np.zeros(N_ACTIONS, np.int32)
    ws_e = np.zeros(WS_SIZE, np.int32)
    ws_l = np.zeros(WS_SIZE, np.int32)
    seen = {"drop": 0, "fixes": 0, "several_fixes": 0, "enter": 0, "stops_7th_drop": 0}
    for g, (players, spies, sw) in enumerate([(3, 0, None), (2, 2, None), (4, 1, stops), (3, 5, stops)] * 5):
        p = P if sw is None else Rules(switches=tuple(sw)).params
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
            if s[E.PHASE] == PH_MOVE:
                # (with long_group "stops", also as if six workers were dropped already: the
                # seventh stays on the group's machine)
                for s0 in [s] + ([_with(s, E.DROPS, 6)] if sw is not None else []):
                    for t in range(4):
                        if s0[E.HAND + t] == 0:
                            continue
                        e, l = s0.copy(), s0.copy()
                        n_e = _engine_then_settle(e, p, A_DROP + t, ws_e)
                        n_l = _drop_do(l, p, ws_l, 0, t, 3)
                        assert np.array_equal(e, l) and n_e == n_l
                        assert np.array_equal(ws_e[W_PATH:W_PATH + n_e], ws_l[W_PATH:W_PATH + n_l])
                        _drop_undo(l, ws_l, t, 3)
                        assert np.array_equal(l, s0)
                        seen["drop"] += 1
                        seen["fixes"] += n_e - 1
                        seen["several_fixes"] += n_e > 2
                        seen["stops_7th_drop"] += s0[E.DROPS] >= 6 and e[E.POS] == s0[E.POS]
                if A_ENTER in legal:
                    t = E.entry_type(s, p)
                    e, l = s.copy(), s.copy()
                    n_e = _engine_then_settle(e, p, A_ENTER, ws_e)
                    n_l = _enter_do(l, ws_l, 0, t, E.entry_cost(s, p))
                    assert np.array_equal(e, l) and n_e == n_l
                    assert np.array_equal(ws_e[W_PATH:W_PATH + n_e], ws_l[W_PATH:W_PATH + n_l])
                    seen["enter"] += 1
            if g % 2:  # the heuristic's own play (stacks, entries, several fixes in one drop)
                q = E.current_player(s)
                a = heuristic_action(s, p, THETA_DEFAULT, NO_NET, q, acts, n, np.uint64(0), hws[q])
            else:  # random play that enters and fixes whenever it may
                pick = [a for a in legal if a == A_ENTER or A_FIX <= a < A_STOP_FIXING] or list(legal)
                a = pick[rng.integers(len(pick))]
            E.apply(s, p, int(a))
    assert min(seen.values()) > 0, seen


def _decision_positions(seed, games, rng, chars=None):
    """Every decision position of `games` games (3p/0s, 2p/2s, 4p/5s, 3p/3s in turn; or, given
    chars, a list of character tuples, the seats of chars[g % len(chars)] with g % 3 spies; odd
    games played by the heuristic, even ones at random with rng): yields (s, acts, n), then plays on."""
    from simcore.rng import STREAM_CHANCE, stream_key
    from policies.bethel_woods.heuristic import heuristic_action, heuristic_reset
    acts = np.zeros(N_ACTIONS, np.int32)
    for g in range(games):
        seats = None if chars is None else chars[g % len(chars)]
        players, spies = [(3, 0), (2, 2), (4, 5), (3, 3)][g % 4] if seats is None else (len(seats), g % 3)
        s = np.zeros(E.S_SIZE, np.int32)
        ck = np.uint64(stream_key(np.uint64(seed), g, STREAM_CHANCE))
        E.setup(s, P, setup_config(players, spies, seats), ck)
        hws = np.zeros((4, WS_SIZE), np.int32)
        for q in range(4):
            heuristic_reset(hws[q])
        while not E.is_terminal(s):
            if E.is_chance(s):
                E.apply_chance(s, P, E.chance_outcome(s, P, ck))
                continue
            n = E.legal_actions(s, P, acts)
            yield s, acts, n
            if g % 2:
                q = E.current_player(s)
                a = heuristic_action(s, P, THETA_DEFAULT, NO_NET, q, acts, n, np.uint64(0), hws[q])
            else:
                a = acts[rng.integers(n)]
            E.apply(s, P, int(a))


def test_evaluate_equals_the_plain_reference():
    """heuristic.evaluate fuses the Orphanage, worker and reach passes into one; on every decision
    position of random and heuristic games (2 to 4 players, 0 to 5 spies), with the default and
    with random weights (so features weighted 0 by default count too), with and without the
    turn's risk table, it gives the plain reference's score bit for bit and leaves the same
    scratch behind (tests/bw_heuristic_reference.py)."""
    from bw_heuristic_reference import evaluate_plain
    from policies.bethel_woods.heuristic import W_HAVE, W_RDRAWS, W_USE, _risk_table, evaluate
    rng = np.random.default_rng(3)
    lo, hi = THETA_BOUNDS[:, 0], THETA_BOUNDS[:, 1]
    ws_a = np.zeros(WS_SIZE, np.int32)
    ws_b = np.zeros(WS_SIZE, np.int32)
    seen = {"positions": 0, "critical": 0, "over_limit": 0, "five_spies": 0, "no_table": 0, "built": 0}
    for s, _, _ in _decision_positions(9, 12, rng):
        for theta in (THETA_DEFAULT, lo + (hi - lo) * rng.random(len(lo))):
            _risk_table(s, P, ws_a)
            if rng.random() < 0.3:
                ws_a[W_RDRAWS] = -1  # as after an ability that changes the draws: no table
                seen["no_table"] += 1
            ws_b[:] = ws_a
            a, b = evaluate(s, P, theta, ws_a), evaluate_plain(s, P, theta, ws_b)
            assert a == b, (a, b)
            assert np.array_equal(ws_a[W_USE:W_USE + 4], ws_b[W_USE:W_USE + 4])
            np_ = s[E.NP]
            assert np.array_equal(ws_a[W_HAVE:W_HAVE + 4 * np_], ws_b[W_HAVE:W_HAVE + 4 * np_])
        seen["positions"] += 1
        seen["critical"] += E.n_critical(s, P) > 0
        seen["over_limit"] += max(E.knowledge_total(s, q) for q in range(s[E.NP])) > E.knowledge_limit(s, P)
        seen["five_spies"] += s[E.SPY:E.SPY + 6].sum() >= 5
        seen["built"] += E.orphanage_count(s) > 0
    assert min(seen.values()) > 0, seen


def _weighted_sum(theta, fv):
    """theta[i] * fv[i] summed in heuristic.EVAL_ORDER, in plain Python floats, plus LOSS_SCORE for
    four machines critical: what heuristic.evaluate must return."""
    from policies.bethel_woods.heuristic import EVAL_ORDER, LOSS_SCORE, T_CRIT
    score = 0.0
    for k, i in enumerate(EVAL_ORDER):
        score = theta[i] * fv[i] if k == 0 else score + theta[i] * fv[i]
    if fv[T_CRIT] >= E.CRITICAL_LOSS_AT:
        score += LOSS_SCORE
    return score


def test_evaluate_is_the_weights_times_the_features():
    """heuristic.evaluate is theta[i] times the learned player's feature i (features.features, whose
    first 24 are heuristic.evaluation_features', all computed) summed in EVAL_ORDER, bit for bit:
    on every decision position of random and heuristic games (2 to 4 players, 0 to 5 spies; the
    ends of turns among them), with the default weights (next2_enter, self_enter and spread
    weighted 0, so left uncomputed by evaluate) and random ones, with and without the turn's risk
    table."""
    from policies.bethel_woods.features import NF, features
    from policies.bethel_woods.heuristic import W_HAVE, W_RDRAWS, W_USE, _risk_table, evaluate
    from simcore.bethel_woods.actions import PH_POST
    rng = np.random.default_rng(8)
    lo, hi = THETA_BOUNDS[:, 0], THETA_BOUNDS[:, 1]
    ws_a = np.zeros(WS_SIZE, np.int32)
    ws_b = np.zeros(WS_SIZE, np.int32)
    fv = np.zeros(NF)
    seen = {"positions": 0, "end_of_turn": 0, "critical": 0, "four_critical": 0, "five_spies": 0, "no_table": 0,
            "next2": 0, "self": 0}
    for s, _, _ in _decision_positions(21, 12, rng):
        _risk_table(s, P, ws_a)
        if rng.random() < 0.3:
            ws_a[W_RDRAWS] = -1
            seen["no_table"] += 1
        ws_b[:] = ws_a
        ncrit = features(s, P, ws_b, fv)
        assert ncrit == fv[THETA_NAMES.index("critical")]
        for theta in (THETA_DEFAULT, lo + (hi - lo) * rng.random(len(lo))):
            a = evaluate(s, P, theta, ws_a)
            assert a == _weighted_sum(theta, fv), (a, _weighted_sum(theta, fv))
            assert np.array_equal(ws_a[W_USE:W_USE + 4], ws_b[W_USE:W_USE + 4])
            assert np.array_equal(ws_a[W_HAVE:W_HAVE + 16], ws_b[W_HAVE:W_HAVE + 16])
        seen["positions"] += 1
        seen["end_of_turn"] += s[E.PHASE] == PH_POST
        seen["critical"] += fv[THETA_NAMES.index("critical")] > 0
        seen["four_critical"] += fv[THETA_NAMES.index("critical")] >= E.CRITICAL_LOSS_AT
        seen["five_spies"] += fv[THETA_NAMES.index("spies")] >= 5
        seen["next2"] += fv[THETA_NAMES.index("next2_enter")] > 0
        seen["self"] += fv[THETA_NAMES.index("self_enter")] > 0
    assert min(seen.values()) > 0, seen


def test_features_equal_the_plain_reference():
    """features.features (its first 24 from heuristic.evaluation_features, the rest from what that
    returns) gives the 63 features of the plain reference, the function as first written with its
    own copy of the evaluation (tests/bw_heuristic_reference.py::features_plain), bit for bit, with
    the same critical count and the same scratch left behind: on every decision position of random
    and heuristic games, 2 to 4 players, 0 to 5 spies, with and without the turn's risk table."""
    from bw_heuristic_reference import features_plain
    from policies.bethel_woods.features import NF, feature_vector, features
    from policies.bethel_woods.heuristic import W_RDRAWS, _risk_table
    rng = np.random.default_rng(9)
    ws_a = np.zeros(WS_SIZE, np.int32)
    ws_b = np.zeros(WS_SIZE, np.int32)
    fa = np.zeros(NF)
    fb = np.zeros(NF)
    seen = {"positions": 0, "over_limit": 0, "no_table": 0, "p_ge2": 0, "third": 0, "four_seats": 0}
    for s, _, _ in _decision_positions(23, 12, rng):
        _risk_table(s, P, ws_a)
        if rng.random() < 0.3:
            ws_a[W_RDRAWS] = -1
            seen["no_table"] += 1
        ws_b[:] = ws_a
        fa[:] = np.nan
        fb[:] = np.nan
        assert features(s, P, ws_a, fa) == features_plain(s, P, ws_b, fb)
        assert np.array_equal(fa, fb), [(i, x, y) for i, (x, y) in enumerate(zip(fa, fb)) if x != y]
        assert np.array_equal(ws_a, ws_b)
        assert np.array_equal(feature_vector(s, P, ws_a), fb)
        seen["positions"] += 1
        seen["over_limit"] += max(E.knowledge_total(s, q) for q in range(s[E.NP])) > E.knowledge_limit(s, P)
        seen["p_ge2"] += 0 < fa[52] < 1
        seen["third"] += fa[59] > 0
        seen["four_seats"] += s[E.NP] == 4
    assert min(seen.values()) > 0, seen


def test_exact_payment_step_equals_the_general_one():
    """The canonical payment step skips engine.may_pay (engine.feasible) for payments of exact
    types (it compares paid with need instead). At every payment of random and heuristic games (2 to 4 players, 0 to
    5 spies, random payments too, so not only the canonical ones), with the position's usable
    types and with random ones (which change the keep values and so the ties), it chooses the
    token the general step (heuristic._pay_step_general, with engine.may_pay) chooses."""
    from policies.bethel_woods.heuristic import W_USE, _pay_step, _pay_step_general, _usable
    from simcore.bethel_woods.actions import A_PAY, PH_PAY
    rng = np.random.default_rng(5)
    ws = np.zeros(WS_SIZE, np.int32)
    seen = {"exact": 0, "general": 0, "two_owed": 0, "not_first_owed": 0, "destination": 0}
    for s, acts, n in _decision_positions(13, 40, rng):
        if s[E.PHASE] != PH_PAY:
            continue
        q = s[E.PAYER]
        exact = s[E.ANY_N] == 0 and s[E.SUB] == 0
        for k in range(3):
            _usable(s, P, ws)
            if k:
                ws[W_USE:W_USE + 4] = rng.integers(0, 2, 4)
            a = _pay_step(s, ws)
            assert a == _pay_step_general(s, ws, q), (a, _pay_step_general(s, ws, q))
            assert a in acts[:n]
        seen["exact" if exact else "general"] += 1
        if exact:
            owed = [t for t in range(4) if s[E.PAID + t] < s[E.NEED + t] and s[E.HAVE + 4 * q + t] > 0]
            seen["two_owed"] += len(owed) >= 2
            seen["not_first_owed"] += (a - A_PAY) % 4 != owed[0]
            seen["destination"] += s[E.DEST] >= 0
    assert min(seen.values()) > 0, seen
