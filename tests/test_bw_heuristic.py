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
        play_game(s, P, cfg, np.uint64(4), np.uint64(4), g, pols, thetas, ws, np.zeros(N_ACTIONS, np.int32),
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


def test_section_filter_never_hides_an_entry():
    """The planner makes no legal list for a last worker the section at its machine does not
    take (heuristic._section_takes): in random games, whenever the filter says no, the engine
    lists no entry either; and entries the filter lets through do occur."""
    from arena.bethel_woods.batch import STREAM_CHANCE, stream_key
    from policies.bethel_woods.heuristic import _section_takes
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
            if s[E.PHASE] == PH_MOVE and E.hand_total(s) == 1 and s[E.ORPH + s[E.POS]] < 0:
                if not _section_takes(s, P):
                    refused += 1
                    assert A_ENTER not in legal and A_ENTER_NOVA not in legal
                elif A_ENTER in legal or A_ENTER_NOVA in legal:
                    entered += 1
            E.apply(s, P, int(acts[rng.integers(n)]))
    assert refused > 0 and entered > 0
