"""The skill study (experiments/study/skill_axis.py): every rung of skill on the same seeds, each
rung's figures from its own counts, the paired differences from the study player, the target
bands, the playtests a group would need, and the study file's checks."""
import math

import numpy as np
import pandas as pd
import pytest

from arena.units import Cell, as_dict, run_unit
from experiments.study import run_study
from experiments.stats import games_to_notice, games_to_notice_edge
from experiments.study.skill_axis import band_of, order_changes
from experiments.stats import plain_pct, plain_pp
from experiments.study.spec import DEFAULT_BANDS, study_from_dict
from simcore.errors import UserError


def _study(game="bethel_woods", **kw):
    raw = {"kind": "skill", "game": game, "rungs": ["random", "heuristic"], "policy": ["heuristic"],
           "players": [2], "games": 40, "seed": 9}
    raw.update({"spies": [0, 5]} if game == "bethel_woods" else {"leaves": ["printed", "equal"]})
    raw.update(kw)
    return study_from_dict(raw, "sk")


@pytest.mark.parametrize("change, says", [
    ({"rungs": ["random", "nobody"]}, "'nobody' is not known"),
    ({"rungs": ["random", "clairvoyant"]}, "not a player"),
    ({"rungs": ["heuristic", "heuristic"]}, "each named once"),
    ({"policy": ["learned"]}, "is one of its rungs"),
    ({"leaves": ["printed"]}, "'leaves' is for Benevolent"),
    ({"bands": {"hard": [0.3, 0.2]}}, "0 <= low < high <= 1"),
    ({"bands": [0.1, 0.2]}, "expected a table of name = [low, high]"),
    ({"games": 1}, "from 2 to"),
])
def test_a_bad_skill_study_file_is_one_line(change, says):
    with pytest.raises(UserError) as e:
        _study(**change)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_benevolent_takes_leaves_not_spies():
    with pytest.raises(UserError, match="'spies' is for Bethel Woods"):
        study_from_dict({"kind": "skill", "game": "benevolent", "spies": [0], "rungs": ["random", "heuristic"],
                         "policy": ["heuristic"]}, "sk")
    st = _study("benevolent")
    assert st.opts["bands"] == DEFAULT_BANDS and st.opts["rungs"] == ["random", "heuristic"]


@pytest.fixture(scope="module")
def bw_result():
    st = _study(bands={"low": [0.0, 0.05], "some": [0.05, 0.6]})
    return st, run_study(st, threads=1)


def test_every_rung_plays_the_same_seeds_and_its_figures_are_its_own_counts(bw_result):
    st, res = bw_result
    df = res.tables["rungs"]
    assert list(df["rung"]) == ["random", "heuristic"] * 2      # weakest to strongest in each setup
    assert len(df) == 2 * 2 and (df["seed"] == 9).all() and (df["games"] == 40).all()
    for r in df.itertuples():
        own = as_dict("bethel_woods", run_unit(Cell("bethel_woods", r.players, spies=r.spies, policies=(r.rung,),
                                                    seed=9), 0, 40))
        assert (r.wins, r.first_turn_losses, r.built_in_losses) == (own["wins"], own.get("turns_1", 0),
                                                                    own["built_in_losses"])
        assert r.win_rate == r.wins / r.games and r.ci_low <= r.win_rate <= r.ci_high
        assert r.band == band_of(r.win_rate, st.opts["bands"])
    # each rung against the study player, game by game: the difference of the rates
    for spies, g in df.groupby("spies"):
        base = g[g["rung"] == "heuristic"].iloc[0]
        other = g[g["rung"] == "random"].iloc[0]
        assert base.vs_study == 0 and other.vs_study == pytest.approx(other.win_rate - base.win_rate)
        assert other.vs_study_low <= other.vs_study <= other.vs_study_high
    # rows weakest to strongest within a setup
    assert list(df["rung_order"]) == [0, 1, 0, 1]


def test_the_front_page_gives_the_range_over_skill_first(bw_result):
    st, res = bw_result
    [a] = res.answers
    assert a.first and a.question == "Win rate across skill, 2 players"
    df = res.tables["rungs"]
    h0 = df[(df["rung"] == "heuristic") & (df["spies"] == 0)].iloc[0]
    assert a.answer.startswith("0 spies (Normal) ") and "5 spies (Impossible)" in a.answer
    assert f"heuristic {plain_pct(h0.win_rate)}" in a.answer.split(";")[0]
    # a rung that won nothing at any level is named once, not as the bottom of every range
    assert ("random won no game" in a.answer) == (df[df["rung"] == "random"]["wins"].sum() == 0)
    five = df[df["spies"] == 5].set_index("rung")
    assert (f"Lost on the first turn at 5 spies: random {plain_pct(five.loc['random'].first_turn_rate)}, "
            f"heuristic {plain_pct(five.loc['heuristic'].first_turn_rate)}") in a.answer
    tests = res.tables["playtests"]
    assert len(tests) == 2 and set(tests["rung"]) == {"random", "heuristic"}   # one step of spies per rung
    from experiments.answers import front_tables
    rows = front_tables([type(a)("bethel_woods", "other", "x", "established", "o"), a], {}, lambda t, _: t)
    assert rows[0][1]["question"].iloc[0] == a.question


def test_benevolent_rungs_give_seat_ones_edge_from_their_counts():
    st = _study("benevolent", mixed=True)
    res = run_study(st, threads=1)
    df = res.tables["rungs"]
    assert len(df) == 2 * 2 and list(df["leaves"]) == ["printed", "printed", "equal", "equal"]
    for r in df.itertuples():
        lv = tuple(int(x) for x in ("1,3" if r.leaves == "printed" else "2,2").split(","))
        own = as_dict("benevolent", run_unit(Cell("benevolent", 2, leaves=lv, policies=(r.rung,), seed=9), 0, 40))
        dec = 40 - own["timeouts"]
        assert r.decided == dec and r.edge == pytest.approx(own["seat0_wins"] / dec - 0.5)
    for _, g in df.groupby("leaves"):
        base, other = g[g["rung"] == "heuristic"].iloc[0], g[g["rung"] == "random"].iloc[0]
        assert other.vs_study == pytest.approx(other.edge - base.edge)
    assert [a.question for a in res.answers] == ["Seat 1's edge across skill, 2 players, printed leaves",
                                                 "Seat 1's edge across skill, 2 players, equal leaves"]
    # mixed tables: the random player in seat 1 against the heuristic, paired with the heuristic's self-play
    m = res.tables["mixed"]
    assert list(m["seat1"]) == ["random", "heuristic"] * 2 and (m["others"] == "heuristic").all()
    for r in m.itertuples():
        lv = (1, 3) if r.leaves == "printed" else (2, 2)
        own = as_dict("benevolent", run_unit(Cell("benevolent", 2, leaves=lv, policies=(r.seat1, "heuristic"),
                                                  seed=9), 0, 40))
        assert r.seat1_wins == own["seat0_wins"] and r.decided == 40 - own["timeouts"]
        self_play = df[(df["leaves"] == r.leaves) & (df["rung"] == "heuristic")].iloc[0]
        if r.seat1 == "heuristic":
            assert r.share == pytest.approx(self_play.edge + 0.5)
        else:
            assert r.vs_selfplay == pytest.approx(r.share - (self_play.edge + 0.5))
    with pytest.raises(UserError, match="mixed = true is for Benevolent"):
        _study(mixed=True)


def test_games_to_notice_is_the_two_proportion_power_formula():
    from scipy.stats import norm
    h = 2 * math.asin(math.sqrt(0.5)) - 2 * math.asin(math.sqrt(0.3))
    z = norm.ppf(0.975) + norm.ppf(0.8)
    assert games_to_notice(0.5, 0.3) == math.ceil(2 * (z / h) ** 2)          # two groups of games
    h1 = 2 * math.asin(math.sqrt(0.6)) - 2 * math.asin(math.sqrt(0.5))
    assert games_to_notice_edge(0.6, 0.5) == math.ceil((z / h1) ** 2)        # one group against a fixed share
    assert games_to_notice(0.5, 0.1) < games_to_notice(0.5, 0.3) < games_to_notice(0.5, 0.45)
    assert games_to_notice(0.4, 0.4) == float("inf")
    # one sample against the fair share needs fewer games than two samples of the same gap
    assert games_to_notice_edge(0.6, 0.5) < games_to_notice(0.6, 0.5)


def test_order_changes_names_a_harder_level_won_more():
    df = pd.DataFrame({"players": 3, "rung": "expert", "spies": [0, 1, 2],
                       "win_rate": [0.5, 0.52, 0.3]})
    assert order_changes(df) == ["expert, 3 players: 1 spy 52% above 0 spies 50%"]
    assert order_changes(df.assign(win_rate=[0.5, 0.4, 0.3])) == []
    assert band_of(0.35, DEFAULT_BANDS) == "standard" and band_of(0.45, DEFAULT_BANDS) == ""
    assert np.isfinite(games_to_notice(0.2, 0.1))


def test_a_rung_on_the_skill_dial_plays_the_learned_player_at_that_temperature():
    from policies import dial_theta
    st = _study(rungs=["random", "learned@0.1", "Learned"], policy=["learned"], spies=[0], games=30)
    assert st.opts["rungs"] == ["random", "learned@0.1", "learned"]
    df = run_study(st, threads=1).tables["rungs"]
    assert list(df["rung"]) == ["random", "learned@0.1", "learned"]
    r = df[df["rung"] == "learned@0.1"].iloc[0]
    own = as_dict("bethel_woods", run_unit(Cell("bethel_woods", 2, spies=0, policies=("learned",),
                                                theta=dial_theta("bethel_woods", 0.1), seed=9), 0, 30))
    assert r.wins == own["wins"]
    with pytest.raises(UserError, match="learned@T"):
        _study(rungs=["random", "heuristic@0.1"])


def test_bands_from_the_command_line_are_the_study_files_bands_in_percent():
    from experiments.report import standard_studies
    from experiments.study.spec import BANDS_EXAMPLE, parse_bands
    assert parse_bands(BANDS_EXAMPLE) == DEFAULT_BANDS
    assert parse_bands(" casual = 50-70 , expert=5-15% ") == {"casual": (0.5, 0.7), "expert": (0.05, 0.15)}
    for bad, says in (("easy=55", "is not name=LOW-HIGH"), ("easy=55-65,easy=30-40", "given twice"),
                      ("hard=20-10", "0 <= LOW < HIGH <= 100"), ("hard=10-120", "0 <= LOW < HIGH <= 100")):
        with pytest.raises(UserError) as e:
            parse_bands(bad)
        assert says in str(e.value) and "\n" not in str(e.value)
    mine = {"playtested": (0.4, 0.5)}
    studies = standard_studies(quick=True, bands=mine)
    skill = [s for s in studies if s.kind == "skill"]
    assert skill and all(s.opts["bands"] == mine for s in skill)
    targets = next(s for s in studies if s.kind == "targets")    # plays only the bands its levels name
    assert targets.opts["bands"] == {k: DEFAULT_BANDS[k] for k in targets.opts["levels"]}
    mine = {"standard": (0.25, 0.35), "casual": (0.5, 0.7)}
    t2 = next(s for s in standard_studies(quick=True, bands=mine) if s.kind == "targets")
    assert t2.opts["bands"] == {"standard": (0.25, 0.35), "hard": DEFAULT_BANDS["hard"]}
    assert all(s.opts["bands"] == {k: DEFAULT_BANDS[k] for k in s.opts.get("levels", DEFAULT_BANDS)}
               for s in standard_studies(quick=True) if "bands" in s.opts)



def test_the_adopted_handicap_is_played_by_every_rung_beside_the_printed_one():
    """with_adopted adds the handicap a handicap study adopted: each rung plays it on the same seeds
    as the printed one (whose rows do not move), and the front page gets its gap across skill."""
    from experiments.study.skill_axis import with_adopted
    st = _study("benevolent", leaves=["printed"], games=30)
    assert with_adopted(st, {3: [1, 2, 4]}) is st and with_adopted(_study(), {2: [2, 5]}).opts == _study().opts
    plain = run_study(st, threads=1)
    both = with_adopted(st, {2: [2, 5]})
    assert both.opts["leaves"] == ["printed", [2, 5]] and both.opts["adopted"] == {2: "2,5"}
    res = run_study(both, threads=1)
    df = res.tables["rungs"]
    printed = df[df["leaves"] == "printed"].reset_index(drop=True)
    pd.testing.assert_frame_equal(printed.drop(columns="setup"),
                                  plain.tables["rungs"].drop(columns="setup").reset_index(drop=True))
    adopted = df[df["leaves"] == "2,5"]
    assert adopted["rung"].tolist() == ["random", "heuristic"] and (adopted["games"] == 30).all()
    a = [x for x in res.answers if x.question == "The adopted handicap across skill, 2 players"]
    assert len(a) == 1 and a[0].first
    for r in adopted.itertuples():
        p = printed[printed["rung"] == r.rung].iloc[0]
        assert (f"{r.rung} {plain_pp(r.max_gap, sign=False).replace(' pp', '')} (printed "
                f"{plain_pp(p.max_gap, sign=False).replace(' pp', '')})") in a[0].answer
    assert "2,5 is the handicap the report's handicap study adopts at 2 players" in res.section.paragraph


def test_a_report_hands_the_adopted_handicap_to_the_skill_study(tmp_path, monkeypatch):
    import experiments.report as R
    from experiments.study.spec import study_from_dict
    hand = study_from_dict({"kind": "handicap", "players": [2], "max_leaves": 1, "games": 20, "confirm_top": 1,
                            "confirm_games": 20, "seed": 3, "policy": ["random"], "skill_games": 0}, "handicap")
    st = _study("benevolent", leaves=["printed"], games=10)
    monkeypatch.setattr(R, "adopted_handicaps", lambda res: {2: [0, 1]})   # whatever the tiny search found
    R.run_studies([hand, st], tmp_path / "r", threads=1, show_progress=False)
    rungs = pd.read_csv(tmp_path / "r" / "tables" / "sk_rungs.csv")
    assert sorted(rungs["leaves"].unique()) == ["0,1", "printed"]
    assert "The adopted handicap across skill, 2 players" in (tmp_path / "r" / "report.md").read_text()
