"""No policy that is a player peeks at the future: a test that can fail.

The splice: play a game, then play it again with the same policy keys where the chance steps from
number N on draw from a second chance key (``play_game``'s ``splice_seed``/``splice_at``). A
player can only know the chance outcomes that have happened, so its decisions in the two games
must be the same until the first chance outcome that differs: the first difference between the
two games' logs must be a chance step. The clairvoyant, handed the chance key of the future
(``peek``), must be caught by the same check in some game (so the check can catch a peek), and
so must the search when a test hands it the chance key in the clairvoyant's place (the planted
peek: the honest search must pass, the peeking one must fail).

Benevolent has no chance step after setup (the forest and the Secret tiles are dealt face up), so
a splice after setup changes no outcome and every policy must play the same games; a search
handed the chance key in place of its own key (its rollouts' noise) is caught all the same.
"""
import numpy as np
import pytest

from arena.bethel_woods import batch as BWB
from arena.benevolent import batch as BVB
from policies import NOT_PLAYERS, POLICIES
from simcore.bethel_woods import engine as BWE
from simcore.bethel_woods.actions import N_ACTIONS as BW_ACTIONS
from simcore.bethel_woods.face import setup_config as bw_setup
from simcore.bethel_woods.rules import Rules as BWRules
from simcore.benevolent import engine as BVE
from simcore.benevolent.actions import N_ACTIONS as BV_ACTIONS
from simcore.benevolent.face import setup_config as bv_setup
from simcore.benevolent.rules import Rules as BVRules
from simcore.common import PLAYER_CHANCE, PLAYER_TERMINAL

SEED, OTHER = 31, 977
LOG_ROWS = 6000


def _available(game, policy):
    """The policy can be set up (a learned model or tuned weights are installed)."""
    try:
        if game == "bethel_woods":
            BWB.seat_policies(policy, 3)
        else:
            BVB.parse_policies(policy, None, 2)
    except Exception:
        return False
    return True


def _bw_seats(policy):
    budget = {"search": 2, "expert": 2}.get(policy)
    return BWB.seat_policies(policy, 3, budget=budget)


def bw_log(policy, game, splice_at=-1, peek=None, pols=None, thetas=None):
    """The log (kind, seat, action) of Bethel Woods game `game` (3 players, 0 spies)."""
    if pols is None:
        pols, thetas = _bw_seats(policy)
    from policies.bethel_woods.decide import CLAIRVOYANT, WS_SIZE
    s = np.zeros(BWE.S_SIZE, np.int32)
    ws = np.zeros((4, WS_SIZE), np.int32)
    log = np.zeros((LOG_ROWS, 3), np.int32)
    n = BWB.play_game(s, BWRules().params, bw_setup(3, 0), np.uint64(SEED), np.uint64(SEED), game, pols, thetas,
                      BWB.seat_nets(pols), ws,
                      np.zeros(BW_ACTIONS, np.int32), np.zeros(4, np.uint64), np.zeros(4, np.int64), log,
                      np.uint64(OTHER), splice_at, CLAIRVOYANT if peek is None else peek)
    assert n < LOG_ROWS
    return log[:n]


def first_difference(a, b):
    """(index, kind) of the first step where two logs differ, or None when one is a prefix of the other."""
    m = min(len(a), len(b))
    d = np.nonzero((a[:m] != b[:m]).any(axis=1))[0]
    if len(d) == 0:
        return None
    i = int(d[0])
    return i, int(a[i, 0])


def spliced_pairs(policy, games=4, splice_points=(4, 25), **kw):
    """For each game and splice point, the first difference between the plain and spliced game."""
    out = []
    for g in range(games):
        plain = bw_log(policy, g, **kw)
        for at in splice_points:
            out.append(first_difference(plain, bw_log(policy, g, splice_at=at, **kw)))
    return out


BW_POLICIES = [p for p in POLICIES["bethel_woods"]]


@pytest.mark.parametrize("policy", [p for p in BW_POLICIES if p not in NOT_PLAYERS["bethel_woods"]])
def test_bethel_woods_players_decide_the_same_until_chance_differs(policy):
    if not _available("bethel_woods", policy):
        pytest.fail(f"policy {policy} cannot be set up")
    diffs = spliced_pairs(policy)
    assert any(d is not None for d in diffs), "the splice changed no game: the test would show nothing"
    for d in diffs:
        assert d is None or d[1] == BWB.LOG_CHANCE, f"{policy} decided differently before any chance outcome differed"


def test_the_clairvoyant_is_caught_peeking():
    diffs = spliced_pairs("clairvoyant")
    assert any(d is not None and d[1] == BWB.LOG_DECISION for d in diffs), \
        "the clairvoyant sees the coming draws: the splice must change one of its decisions before the draws differ"


def test_a_planted_peek_fails_the_splice_check():
    """The search handed the chance key in the clairvoyant's place (the arena's `peek`): the very
    check the players pass must fail; the same search without the key passes it."""
    from policies.bethel_woods.decide import SEARCH
    diffs = spliced_pairs("search", peek=SEARCH)
    assert any(d is not None and d[1] == BWB.LOG_DECISION for d in diffs)
    honest = spliced_pairs("search")
    assert all(d is None or d[1] == BWB.LOG_CHANCE for d in honest)


def test_a_critical_tile_stays_unknown_until_its_machine_goes_critical():
    """Over whole games of every player policy: a tile is known (s[TILE + m] >= 0) only on a
    machine that has been critical at some point of the game."""
    from policies.bethel_woods.decide import WS_SIZE, decide, reset
    from simcore.rng import STREAM_CHANCE, STREAM_POLICY, draw, stream_key
    p = BWRules().params
    checked = 0
    for policy in ("random", "heuristic", "learned"):
        pols, thetas = _bw_seats(policy)
        nets = BWB.seat_nets(pols)
        for g in range(3):
            s = np.zeros(BWE.S_SIZE, np.int32)
            ws = np.zeros((4, WS_SIZE), np.int32)
            acts = np.zeros(BW_ACTIONS, np.int32)
            ck = np.uint64(stream_key(SEED, g, STREAM_CHANCE))
            BWE.setup(s, p, bw_setup(3, 2), ck)
            for q in range(3):
                reset(pols[q], thetas[q], q, ws[q])
            ever = np.zeros(6, bool)
            count = np.zeros(4, np.int64)
            while True:
                for m in range(6):
                    ever[m] |= bool(BWE.is_critical(s, p, m))
                    assert s[BWE.TILE + m] < 0 or ever[m], f"tile of machine {m} known before it was ever critical"
                    checked += 1
                q = BWE.current_player(s)
                if q == PLAYER_TERMINAL:
                    break
                if q == PLAYER_CHANCE:
                    BWE.apply_chance(s, p, BWE.chance_outcome(s, p, ck))
                    continue
                n = BWE.legal_actions(s, p, acts)
                key = np.uint64(draw(np.uint64(stream_key(SEED, g, STREAM_POLICY + q)), count[q]))
                count[q] += 1
                BWE.apply(s, p, decide(pols[q], s, p, thetas[q], nets[q], q, acts, n, key, ws[q]))
    assert checked > 1000


def bv_log(policies, game, splice_at=-1, peek=-1):
    _, pols, thetas = BVB.parse_policies(None, policies, 2)
    from policies.benevolent.decide import WS_SIZE
    s = np.zeros(BVE.S_SIZE, np.int32)
    ws = np.zeros((4, WS_SIZE), np.int32)
    log = np.zeros((LOG_ROWS, 3), np.int32)
    n = BVB.play_game(s, BVRules().params, bv_setup(2, (1, 3)), np.uint64(SEED), np.uint64(SEED), game, pols, thetas,
                      BVB.seat_nets(pols), ws, np.zeros(BV_ACTIONS, np.int32), np.zeros(4, np.uint64), np.zeros(4, np.int64), log,
                      np.uint64(OTHER), splice_at, peek)
    return log[:n]


@pytest.mark.parametrize("policy", POLICIES["benevolent"])
def test_benevolent_has_no_chance_after_setup_and_players_play_the_same_games(policy):
    if not _available("benevolent", policy):
        pytest.fail(f"policy {policy} cannot be set up")
    for g in range(3):
        plain = bv_log([policy, "heuristic"], g)
        assert not (plain[:, 0] == BVB.LOG_CHANCE).any(), "a chance step after setup"
        spliced = bv_log([policy, "heuristic"], g, splice_at=0)
        assert first_difference(plain, spliced) is None and len(plain) == len(spliced)


def test_benevolent_search_handed_the_chance_key_is_caught():
    from policies.benevolent.decide import SEARCH
    caught = False
    for g in range(3):
        plain = bv_log(["search", "heuristic"], g, peek=SEARCH)
        spliced = bv_log(["search", "heuristic"], g, splice_at=0, peek=SEARCH)
        d = first_difference(plain, spliced)
        caught |= d is not None and d[1] == BVB.LOG_DECISION
    assert caught
