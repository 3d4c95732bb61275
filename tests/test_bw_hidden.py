"""Nothing hidden in the Bethel Woods state: tiles and spies are drawn when they are revealed, with
the rulebook's odds; chance is keyed by event, so runs on one seed share their draws."""
import numpy as np
import pytest
from scipy.stats import chi2_contingency, chisquare

from arena.bethel_woods.batch import simulate
from arena.bethel_woods.pairing import shared_draws
from bw_helpers import Both, kind, scenario
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.face import State
from simcore.bethel_woods.reference import ReferenceGame
from simcore.bethel_woods.rules import Rules
from simcore.rng import STREAM_CHANCE, stream_key

KEYS = [np.uint64(stream_key(11, g, STREAM_CHANCE)) for g in range(6000)]


def outcomes_over_keys(g):
    return [int(E.chance_outcome(g.state, g.params, k)) for k in KEYS]


def test_first_tile_is_uniform_over_the_six_effects():
    # Machine 1 goes critical for the first time: its tile is drawn, uniformly over six effects
    b = Both(scenario(malfunctions={1: [(1, "Digital")] * 3}, tiles=(None,) * 6, phase="post"))
    b.do("end turn").chance(kind(1, "Mechanical"))
    assert b.g.phase == "chance_tile" and b.d["machines"][0]["critical_tile"] is None
    assert np.allclose(b.g.chance_probabilities()[:6], 1 / 6)
    counts = np.bincount(outcomes_over_keys(b.g), minlength=6)
    assert chisquare(counts).pvalue > 1e-3
    b.chance(4)  # the tile: ability_tax, revealed and now known
    assert b.d["machines"][0]["critical_tile"] == "ability_tax" and b.g.phase == "chance_malfunction"


def test_later_tiles_are_uniform_over_the_effects_not_yet_seen():
    tiles = ("redirect", None, "knowledge_limit_6", None, None, None)
    b = Both(scenario(malfunctions={2: [(2, "Digital")] * 3}, tiles=tiles, phase="post"))
    b.do("end turn").chance(kind(2, "Mechanical"))
    assert b.g.phase == "chance_tile"
    seen = outcomes_over_keys(b.g)
    assert set(seen) == {2, 3, 4, 5}  # never an effect already shown by another tile
    assert chisquare(np.bincount(seen, minlength=6)[2:]).pvalue > 1e-3


def test_a_spy_from_the_stack_is_uniform_over_the_unseen_spies():
    # spy 1 on the board, spy 2 uncovered (known, at the bottom): the top is one of spies 3-6
    d = scenario(malfunctions={4: [(4, "Digital")] * 3}, spies=(1,), stack=[2], phase="post",
                 tiles=(None,) * 6)
    b = Both(d)
    # Machine 4 goes critical (its tile: knowledge limit 6), two more draws, then a spy
    b.do("end turn").chance(kind(4, "Mechanical"), 0, kind(5, "Digital"), kind(5, "Digital"))
    assert b.g.phase == "chance_spy"
    seen = outcomes_over_keys(b.g)
    assert set(seen) == {2, 3, 4, 5}
    assert chisquare(np.bincount(seen, minlength=6)[2:]).pvalue > 1e-3


def test_once_no_spy_is_unseen_the_returned_ones_come_out_in_order():
    d = scenario(malfunctions={5: [(5, "Digital")] * 3}, spies=(1, 2, 4, 6), stack=[5, 3], phase="post",
                 tiles=(None,) * 6)
    b = Both(d)
    b.do("end turn").chance(kind(5, "Mechanical"), 0, kind(3, "Digital"), kind(3, "Digital"))
    assert set(outcomes_over_keys(b.g)) == {4}  # spy 5: the first one uncovered
    b.chance(4)
    assert b.d["spy_stack"] == {"unseen": 0, "returned": [3], "revealed_after_setup": 1}


def test_positions_show_only_what_is_known():
    for seed in range(30):
        g = State(3, 2, None, seed=seed)
        d = g.to_dict()
        assert all(m["critical_tile"] is None for m in d["machines"])
        assert d["spy_stack"] == {"unseen": 4, "returned": [], "revealed_after_setup": 0}


def test_whole_game_outcomes_match_the_model_that_fixes_everything_at_setup():
    """Drawing a tile or a spy when it is revealed, against shuffling them at setup (the previous
    engine's model, kept in the reference engine): the same game in distribution. Random play,
    3 players, 3 spies: outcomes and game lengths, chi-square test of homogeneity."""
    from benchmarks.suite import _reference_random
    from simcore.rng import STREAM_POLICY
    n = 1500
    rec = simulate(3, 3, games=n, seed=5, threads=2, keep_records=True).records
    rules = Rules()
    old = []
    for game in range(n):
        ref = ReferenceGame(rules, 3, 3, None, np.uint64(stream_key(6, game, STREAM_CHANCE)), hidden="setup")
        keys = [np.uint64(stream_key(6, game, STREAM_POLICY + q)) for q in range(3)]
        d = [0, 0, 0]
        while ref.phase != "terminal":
            if ref.phase.startswith("chance"):
                probs = ref.chance_probabilities()
                if len(probs) == 1:
                    ref.apply_chance(next(iter(probs)))
                else:
                    ref.apply_chance(ref.sample_chance())
            else:
                q = ref.current_player()
                ref.apply(_reference_random(ref.legal_actions(), keys[q], d[q]))
                d[q] += 1
        old.append((ref.outcome, ref.turn + 1))
    cats = ["four_critical", "six_spies"]
    bins = [0, 4, 6, 8, 11, 1000]
    new_tab = np.histogram2d([cats.index(o) for o in rec["outcome"].astype(str)], rec["turns"], [[0, 1, 2], bins])[0]
    old_tab = np.histogram2d([cats.index(o) for o, _ in old], [t for _, t in old], [[0, 1, 2], bins])[0]
    table = np.array([new_tab.ravel(), old_tab.ravel()])
    table = table[:, table.sum(axis=0) > 0]
    assert chi2_contingency(table).pvalue > 1e-3


@pytest.mark.parametrize("spies", [0, 3])
def test_two_policies_share_every_draw_with_the_same_history(spies):
    """Differently seeded policies, one chance seed: the n-th draw of a kind is identical whenever
    what it draws from is identical (the bag, the unseen effects, the unseen and returned spies)."""
    shares = shared_draws(40, seed=3, spies=spies)
    for kind_, c in shares.items():
        assert c.get("same_outcome_given_same_source", 0) == c.get("same_source", 0), kind_
    assert shares["malfunction"]["same_source"] > 500
    assert shares["malfunction"]["same_source"] == shares["malfunction"]["both"]  # the bag: only draws change it
