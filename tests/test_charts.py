"""Report charts from synthetic frames: files written, texts every chart must carry, bad input."""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import imread

from experiments import charts

CHARS = ["Nova", "Harris", "Junas", "Linny", "Violet", "Fenn", "Rone", "Fare"]
NAMES = {0: "Normal", 1: "Hard", 2: "Hard", 3: "Insane", 4: "Insane", 5: "Impossible"}


def difficulty_frame(games=2000, seed=1, policy="random"):
    rng = np.random.default_rng(seed)
    rows = []
    for players in (2, 3, 4):
        for spies in range(6):
            p = 0.55 * math.exp(-0.55 * spies) * (1.1 - 0.1 * players)
            wins = int(rng.binomial(games, p))
            lost = games - wins
            share = np.array([0.5 + 0.05 * spies, 0.45 - 0.06 * spies, 0.05 + 0.01 * spies])
            bag, crit, six = rng.multinomial(lost, share / share.sum())
            rows.append({"players": players, "spies": spies, "difficulty": NAMES[spies],
                         "policy": policy, "games": games, "wins": wins,
                         "bag_empty": bag, "four_critical": crit, "six_spies": six})
    return pd.DataFrame(rows)


def never_wins(games=600):
    """A policy that won no game at any level (random play at Bethel Woods)."""
    d = difficulty_frame(games=games, seed=3, policy="random")
    d["six_spies"] += d["wins"]
    d["wins"] = 0
    return d


def length_hist(games=3000, seed=2):
    """Lengths of won and lost games: won games are long, lost ones anywhere."""
    rng = np.random.default_rng(seed)
    rows = []
    for players in (2, 4):
        for spies in (0, 2, 5):
            won = rng.random(games) < 0.4 * math.exp(-0.5 * spies)
            turns = np.where(won, rng.normal(26, 3, games), rng.normal(22 - 3 * spies, 6, games))
            turns = np.clip(turns.round(), 1, 79).astype(int)
            for t in np.unique(turns):
                at = turns == t
                rows.append({"players": players, "spies": spies, "policy": "random", "turns": int(t),
                             "games": int(at.sum()), "won": int((at & won).sum()), "lost": int((at & ~won).sum())})
    return pd.DataFrame(rows)


def sets_frame(games=400, seed=3):
    rng = np.random.default_rng(seed)
    rows = []
    for players, spies in ((2, 0), (2, 3), (3, 1)):
        for combo in itertools.combinations(CHARS, players):
            p = (0.3 - 0.05 * spies + (0.12 if "Nova" in combo else 0)
                 - (0.08 if "Fenn" in combo else 0))
            wins = int(rng.binomial(games, p))
            rows.append({"players": players, "spies": spies, "characters": ",".join(combo),
                         "policy": "random", "games": games, "wins": wins,
                         "significant": players == 2 and "Nova" in combo and "Harris" in combo})
    return pd.DataFrame(rows)


def effects_frame():
    ors = [1.45, 1.12, 1.02, 0.97, 0.9, 0.78, 0.95]
    return pd.DataFrame({
        "term": ["Intercept"] + CHARS[:7],
        "odds_ratio": [0.4] + ors,
        "or_low": [0.35] + [o / 1.15 for o in ors],
        "or_high": [0.45] + [o * 1.15 for o in ors],
        "p_value": [1e-9, 1e-5, 0.2, 0.8, 0.7, 0.3, 0.002, 0.5],
    })


def seats_frame(games=4000, seed=4):
    from experiments.stats import seat_intervals
    rng = np.random.default_rng(seed)
    rows = []
    for players, printed in ((2, "1,3"), (3, "1,3,4"), (4, "1,3,4,5")):
        for leaves, tilt in (("equal", 0.08), (printed, 0.02)):
            w = np.linspace(1 + tilt * players, 1 - tilt * players, players)
            counts = rng.multinomial(games, w / w.sum())
            ci = seat_intervals(counts)
            for seat in range(players):
                rows.append({"players": players, "leaves": leaves, "policy": "random",
                             "games": games, "seat": seat + 1, "wins": int(counts[seat]),
                             "ci_low": ci[seat, 0], "ci_high": ci[seat, 1]})
    return pd.DataFrame(rows)


def handicap_seats(seed=5, games=1000):
    """The search's seat rows: every non-decreasing vector of 0-4 leaves at 2 and 3 players, a seat
    winning more with more leaves than the table's mean (and seat 1 ahead)."""
    from itertools import combinations_with_replacement
    rng = np.random.default_rng(seed)
    rows = []
    for players in (2, 3):
        printed = (1, 3) if players == 2 else (1, 3, 4)
        for lv in combinations_with_replacement(range(5), players):
            w = np.array([1.2 - 0.1 * q + 0.15 * (lv[q] - np.mean(lv)) for q in range(players)])
            timeouts = int(rng.integers(0, 30))
            counts = rng.multinomial(games - timeouts, w / w.sum())
            for q in range(players):
                rows.append({"players": players, "leaves": ",".join(map(str, lv)), "seat": q + 1,
                             "wins": int(counts[q]), "decided": games - timeouts, "games": games,
                             "timeouts": timeouts, "printed": lv == printed, "policy": "random"})
    return pd.DataFrame(rows)


def confirmed_seats(games=5000, seed=6):
    from experiments.stats import seat_intervals
    rng = np.random.default_rng(seed)
    rows = []
    for players, cands in ((2, [("0,2", "search's fairest", False), ("1,2", "smallest change", False),
                                ("1,3", "printed", True)]),
                           (3, [("1,2,3", "search's fairest", False), ("1,3,4", "printed", True)])):
        for lv, role, printed in cands:
            timeouts = int(rng.integers(10, 200))
            counts = rng.multinomial(games - timeouts, np.ones(players) / players)
            ci = seat_intervals(counts)
            for q in range(players):
                rows.append({"players": players, "leaves": lv, "seat": q + 1, "wins": int(counts[q]),
                             "decided": games - timeouts, "games": games, "timeouts": timeouts,
                             "ci_low": ci[q, 0], "ci_high": ci[q, 1], "printed": printed, "role": role,
                             "policy": "random"})
    return pd.DataFrame(rows)


def decision_frames(adopt3=True):
    """The handicap study's confirmation and holdout rows as the decision chart takes them: at 2
    players the candidates all less fair than printed (keep it), at 3 one fairer on the holdout
    games (adopt it) unless adopt3 is False."""
    conf = pd.DataFrame([
        {"players": 2, "leaves": "1,3", "printed": True, "role": "printed", "chosen": True, "vs_printed_diff": 0.0,
         "vs_printed_diff_low": 0.0, "vs_printed_diff_high": 0.0},
        {"players": 2, "leaves": "0,2", "printed": False, "role": "search's fairest", "chosen": False,
         "vs_printed_diff": 0.061, "vs_printed_diff_low": 0.025, "vs_printed_diff_high": 0.092},
        {"players": 2, "leaves": "1,2", "printed": False, "role": "smallest change", "chosen": False,
         "vs_printed_diff": 0.012, "vs_printed_diff_low": -0.01, "vs_printed_diff_high": 0.035},
        {"players": 3, "leaves": "1,3,4", "printed": True, "role": "printed", "chosen": False, "vs_printed_diff": 0.0,
         "vs_printed_diff_low": 0.0, "vs_printed_diff_high": 0.0},
        {"players": 3, "leaves": "1,2,4", "printed": False, "role": "search's fairest", "chosen": True,
         "vs_printed_diff": -0.04, "vs_printed_diff_low": -0.06, "vs_printed_diff_high": -0.02}])
    conf["games"], conf["policy"] = 3000, "random"
    hold = pd.DataFrame([
        {"players": 2, "leaves": "1,3", "printed": True, "challenger": False},
        {"players": 2, "leaves": "1,2", "printed": False, "challenger": True, "vs_printed_diff": 0.008,
         "vs_printed_diff_low": -0.012, "vs_printed_diff_high": 0.027},
        {"players": 3, "leaves": "1,3,4", "printed": True, "challenger": False},
        {"players": 3, "leaves": "1,2,4", "printed": False, "challenger": True, "vs_printed_diff": -0.031,
         "vs_printed_diff_low": -0.05 if adopt3 else -0.06, "vs_printed_diff_high": -0.011 if adopt3 else 0.004}])
    hold = hold.fillna({"vs_printed_diff": 0.0, "vs_printed_diff_low": 0.0, "vs_printed_diff_high": 0.0})
    hold["decision"] = ["adopt" if (adopt3 and pl == 3) else "keep the printed" for pl in hold["players"]]
    hold["games"], hold["policy"] = 4000, "random"
    return conf, hold


def skill_rows(game="bethel_woods"):
    """The skill study's rows: four rungs, weakest to strongest, win rates rising with skill and
    falling with spies (Bethel Woods), or seat 1's edge and gap per rung (Benevolent)."""
    rng = np.random.default_rng(8)
    rungs = ["random", "heuristic", "learned", "expert"]
    rows = []
    for pl in (2, 3):
        if game == "bethel_woods":
            for sp in (0, 2, 5):
                for k, r in enumerate(rungs):
                    p = min(0.95, k * 0.22 * (1 - sp / 6))
                    rows.append({"players": pl, "spies": sp, "difficulty": charts.DIFFICULTY[sp], "rung": r,
                                 "rung_order": k, "games": 400, "wins": int(rng.binomial(400, p)),
                                 "study_player": "learned"})
        else:
            for k, r in enumerate(rungs):
                e = 0.02 * k
                rows.append({"players": pl, "leaves": "printed", "rung": r, "rung_order": k, "games": 400,
                             "edge": e, "edge_low": e - 0.05, "edge_high": e + 0.05, "max_gap": 0.05 + e,
                             "gap_low": e, "gap_high": 0.12 + e})
    return pd.DataFrame(rows)


def sensitivity_rows(game="benevolent", sig=False, timeouts=False):
    rows = []
    setups = (2, 3, 4) if game == "benevolent" else range(6)
    for v, kind, d in (("sides-common", "table", 0.02), ("empty_gift=offered", "switch", -0.01),
                       ("four_critical=immediate", "switch", -0.03)):
        for st in setups:
            r = {"game": game, "variant": v, "kind": kind, "players": st if game == "benevolent" else 3,
                 "spies": st if game != "benevolent" else 0, "metric": "largest seat gap", "games": 200,
                 "diff": d, "ci_low": d - 0.04, "ci_high": d + 0.04, "policy": "random", "seed": 7,
                 "p_holm": 0.001 if (sig and v == "sides-common") else 0.9,
                 "default_timeouts": 8, "variant_timeouts": 102 if (timeouts and v == "sides-common" and st == 3) else 9}
            rows.append(r)
    return pd.DataFrame(rows)


def all_charts(folder):
    """Every chart from the synthetic frames: {name: (png, svg)}."""
    d = pd.concat([difficulty_frame(policy="learned"), never_wins()])
    return {
        "difficulty": charts.difficulty_curve(d, folder / "difficulty"),
        "losses": charts.loss_reasons(d, folder / "losses.png"),
        "length": charts.game_length(length_hist(), folder / "length"),
        "heatmap": charts.character_heatmap(sets_frame(), folder / "heatmap"),
        "forest": charts.character_forest(effects_frame(), folder / "forest", policy="random",
                                          games=84_000),
        "seats": charts.seat_bars(seats_frame(), folder / "seats"),
        "dose": charts.handicap_dose(handicap_seats(), folder / "dose"),
        "confirmed": charts.handicap_confirmed(confirmed_seats(), folder / "confirmed"),
        "decision": charts.handicap_decision(*decision_frames(), folder / "decision"),
        "skill_curve": charts.skill_curve(skill_rows(), folder / "skill_curve",
                                          bands={"standard": (0.3, 0.4), "hard": (0.1, 0.2)}),
        "skill_seats": charts.skill_seats(skill_rows("benevolent"), folder / "skill_seats"),
        "sensitivity": charts.sensitivity_forest(sensitivity_rows(timeouts=True), folder / "sensitivity"),
    }


# what each chart must say: title words, an axis label with its unit, the policy, the games
MUST_SAY = {
    "difficulty": ["win rate by difficulty", "Win rate (%)", "Policies: learned, random",
                   "2,000 games per point", "Impossible", "Insane", "Normal",
                   "95% Wilson", "no win in any of its 10,800 games"],
    "losses": ["why games are lost", "Share of lost games (%)", "Policies: learned, random",
               "Malfunction bag ran out", "4+ machines critical"],
    "length": ["how long won and lost games last", "Game length (turns)", "Share (%)", "won games",
               "lost games", "Policy: random", "3,000 games per cell, 18,000 in all", "A turn is one player's turn"],
    "heatmap": ["pair of characters", "Win rate of the pair (%)", "Policy: random",
                "Holm", "Nova", "Fare", "3 players, 1 spy", "half-width of its 95% Wilson interval",
                "Games per cell: 2 players 400"],
    "forest": ["odds of winning", "against an average character", "Policy: random", "84,000 games", "Nova",
               "an average character"],
    "seats": ["share of the decided games", "Share of the decided games (%)", "Policy: random",
              "fair share 33.3%", "fair share 25.0%", "leaves 1,3,4,5",
              "equal leaves (2,2 / 3,3,3 / 3,3,3,3)", "4,000 games per"],
    "dose": ["what a leaf is worth", "Leaves above the table's mean", "Share of the decided games (%)",
             "Policy: random", "1,000 games per candidate", "printed 1,3", "printed 1,3,4", "seat 3"],
    "confirmed": ["confirmed handicaps on fresh games", "Share of the decided games (%)", "Policy: random",
                  "5,000 games per handicap", "search's fairest", "smallest change", "printed", "timeouts",
                  "1,2,3"],
    "decision": ["fairer than the printed one", "Largest seat gap minus the printed handicap's", "Policy: random",
                 "2 players: keep the printed 1,3", "3 players: adopt 1,2,4", "holdout games (decides)",
                 "confirmation games (choose)", "3,000 games per", "4,000 games per",
                 "1,2: smallest change", "1,2,4: search's fairest (chosen)"],
    "skill_curve": ["win rate against player skill", "Win rate (%)", "Player (weakest to strongest)",
                    "random", "expert", "0 spies: Normal", "2 spies: Hard", "5 spies: Impossible", "standard",
                    "30–40%", "bots, not people", "400 games per", "designer's target bands"],
    "skill_seats": ["seat order against player skill", "seat 1's edge over its fair share", "largest seat gap",
                    "2 players, printed leaves", "bots, not people", "400 games per", "no edge"],
    "sensitivity": ["moves the largest seat gap", "common hex types on every side",
                    "lose at once on the 4th critical machine", "Policy: random", "timeouts differ",
                    "102 of 200"],
}


_MADE = {}


@pytest.fixture(scope="session")
def made(tmp_path_factory):
    """All seven charts, made once per test session: test_render and test_browser import this
    fixture, which gives each module its own fixture definition, hence the module-level cache."""
    if not _MADE:
        _MADE.update(all_charts(tmp_path_factory.mktemp("charts")))
    return _MADE


@pytest.mark.parametrize("name", sorted(MUST_SAY))
def test_chart_files_and_texts(made, name):
    png, svg = made[name]
    assert png.suffix == ".png" and svg.suffix == ".svg" and png.stem == svg.stem == name
    img = imread(png)
    h, w = img.shape[:2]
    assert 700 <= w <= 2600 and 300 <= h <= 3000, (w, h)  # blog size at 150 dpi
    assert img[..., :3].std() > 0.05  # not blank
    text = svg.read_text()
    for s in MUST_SAY[name]:
        assert s in text, f"{name}: {s!r} missing from the chart"


def test_same_data_same_svg(tmp_path):
    d = difficulty_frame()
    _, a = charts.difficulty_curve(d, tmp_path / "a")
    _, b = charts.difficulty_curve(d, tmp_path / "b")
    assert a.read_bytes() == b.read_bytes()


def test_difficulty_curve_panels_per_rules_variant(tmp_path):
    d = pd.concat([difficulty_frame().assign(rules="rulebook"),
                   difficulty_frame(seed=9).assign(rules="no-spy-cap")])
    _, svg = charts.difficulty_curve(d, tmp_path / "v")
    text = svg.read_text()
    assert "rules: rulebook" in text and "rules: no-spy-cap" in text


@pytest.mark.parametrize("fn,frame,col", [
    (charts.difficulty_curve, difficulty_frame().drop(columns="wins"), "wins"),
    (charts.loss_reasons, difficulty_frame().drop(columns="six_spies"), "six_spies"),
    (charts.game_length, length_hist().drop(columns="turns"), "turns"),
    (charts.character_heatmap, sets_frame().drop(columns="significant"), "significant"),
    (charts.seat_bars, seats_frame().drop(columns="ci_high"), "ci_high"),
    (charts.handicap_dose, handicap_seats().drop(columns="decided"), "decided"),
    (charts.handicap_confirmed, confirmed_seats().drop(columns="timeouts"), "timeouts"),
])
def test_missing_column_is_named(tmp_path, fn, frame, col):
    with pytest.raises(ValueError, match=col):
        fn(frame, tmp_path / "x")
    assert not list(tmp_path.iterdir())


def test_every_chart_names_policy_and_games(tmp_path):
    with pytest.raises(ValueError, match="policy"):
        charts.character_forest(effects_frame(), tmp_path / "f", games=10)
    with pytest.raises(ValueError, match="policy"):
        charts.handicap_dose(handicap_seats().drop(columns="policy"), tmp_path / "h")
    with pytest.raises(ValueError, match="policy"):
        charts.handicap_confirmed(confirmed_seats().drop(columns="policy"), tmp_path / "c")
    with pytest.raises(ValueError, match="policy"):
        charts.character_heatmap(sets_frame().drop(columns="policy"), tmp_path / "m")


def test_loss_counts_cannot_exceed_losses(tmp_path):
    d = difficulty_frame()
    d.loc[0, "bag_empty"] = d.loc[0, "games"]
    with pytest.raises(ValueError, match="more than the lost games"):
        charts.loss_reasons(d, tmp_path / "l")


def test_charts_leave_global_matplotlib_state_alone(tmp_path):
    import matplotlib
    before = dict(matplotlib.rcParams)
    backend = matplotlib.get_backend()
    charts.seat_bars(seats_frame(), tmp_path / "s")
    assert matplotlib.get_backend() == backend
    assert dict(matplotlib.rcParams) == before


def _drawn(monkeypatch, fn, *args, **kw):
    """The figure a chart function draws, its layout done (the files are not written)."""
    seen = {}

    def keep(fig, out, title, note, legend=None):
        fig.canvas.draw()
        seen.update(fig=fig, note=note, legend=legend)
        return out, out
    monkeypatch.setattr(charts, "_finish", keep)
    fn(*args, **kw)
    return seen


def test_seat_fair_share_is_one_line_per_panel_at_one_over_players(tmp_path, monkeypatch):
    """Every share is of the decided games, so the fair share is 1/players in every panel, one line,
    however the configurations' timeouts differ (the 2-player fair share was two dashes at
    different heights before)."""
    s = seats_frame()   # shares of 4,000 decided games, of 4,000 or 4,800 played
    s["timeouts"] = np.where(s["leaves"] == "equal", 0, 800)
    s["decided"] = s["games"]
    s["games"] = s["decided"] + s["timeouts"]
    seen = _drawn(monkeypatch, charts.seat_bars, s, tmp_path / "d")
    for ax in [a for a in seen["fig"].axes if a.get_visible()]:
        players = int(ax.get_title(loc="left").split()[0])
        flat = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
        assert len(flat) == 1 and set(flat[0].get_ydata()) == {100 / players}
        assert not ax.collections or all(len(c.get_segments()) == 0 for c in ax.collections
                                         if hasattr(c, "get_segments") and c.get_linestyle() == "--")
    # the timeouts are said in the note, per configuration
    assert "2 players, leaves 1,3: 800 of 4,800" in seen["note"] and "equal leaves: 0 of" not in seen["note"]


def test_each_seat_bar_sits_over_its_seat_label(tmp_path, monkeypatch):
    """The frame counts seats from 1 (seat 1 moves first): seat N's bar stands over the tick
    labelled "Seat N" with seat N's share of the decided games, in every panel and configuration."""
    import matplotlib.axes
    drawn = []
    bar = matplotlib.axes.Axes.bar

    def spy(self, x, height, *a, **k):
        drawn.append((self, np.asarray(x, float), np.asarray(height, float), k.get("label")))
        return bar(self, x, height, *a, **k)
    monkeypatch.setattr(matplotlib.axes.Axes, "bar", spy)
    s = seats_frame().assign(decided=4000, games=4400, timeouts=400)
    charts.seat_bars(s, tmp_path / "p")
    assert len(drawn) == 6                      # 3 panels x 2 configurations
    for ax, x, h, label in drawn:
        players = int(ax.get_title(loc="left").split()[0])
        ticks = {int(round(t)): lab.get_text() for t, lab in zip(ax.get_xticks(), ax.get_xticklabels())}
        leaves = "equal" if label.startswith("equal leaves") else label.replace("leaves ", "")
        rows = s[(s.players == players) & (s.leaves == leaves)].sort_values("seat")
        for xi, hi, r in zip(x, h, rows.itertuples()):
            assert ticks[int(round(xi))] == f"Seat {r.seat}"
            assert hi == pytest.approx(100 * r.wins / 4000)


def test_printed_leaves_are_one_legend_entry_for_every_panel(tmp_path):
    """The printed handicap is 1,3 / 1,3,4 / 1,3,4,5 by player count: one legend entry says so,
    not "leaves 1,3,4,5" over the 2- and 3-player bars too."""
    s = seats_frame()
    s["leaves"] = np.where(s["leaves"] == "equal", "equal", "printed")
    _, svg = charts.seat_bars(s, tmp_path / "pr")
    text = svg.read_text()
    assert "printed leaves (1,3 / 1,3,4 / 1,3,4,5)" in text and "leaves 1,3,4,5<" not in text


def test_difficulty_curve_draws_no_lines_for_a_policy_that_never_won(tmp_path, monkeypatch):
    """Random play wins nothing: its three player counts were three lines on top of one another
    at 0%. Its panel has no line, and says it won no game with the bound it rests on."""
    d = pd.concat([difficulty_frame(policy="learned"), never_wins()])
    seen = _drawn(monkeypatch, charts.difficulty_curve, d, tmp_path / "c")
    axes = {a.get_title(loc="left"): a for a in seen["fig"].axes if a.get_visible()}
    assert set(axes) == {"learned", "random"}
    assert len([ln for ln in axes["learned"].get_lines() if len(ln.get_xdata()) == 6]) == 3
    assert not [ln for ln in axes["random"].get_lines() if len(ln.get_xdata()) == 6]
    assert any("no win in any of its 10,800 games" in t.get_text() for t in axes["random"].texts)
    # the level names under the ticks do not touch: their boxes are apart
    r = seen["fig"].canvas.get_renderer()
    names = [t for t in axes["learned"].texts if t.get_text() in ("Normal", "Hard", "Insane", "Impossible")]
    assert [t.get_text() for t in names] == ["Normal", "Hard", "Insane", "Impossible"]
    boxes = sorted((t.get_window_extent(r) for t in names), key=lambda b: b.x0)
    assert all(a.x1 + 4 < b.x0 for a, b in zip(boxes, boxes[1:]))


def test_game_length_splits_won_and_lost_games_on_one_turn_axis(monkeypatch, tmp_path):
    """Won and lost games in panels of their own, every panel on the same turn axis, each spies
    count its own colour."""
    seen = _drawn(monkeypatch, charts.game_length, length_hist(), tmp_path / "g")
    axes = [a for a in seen["fig"].axes if a.get_visible()]
    titles = [a.get_title(loc="left") for a in axes]
    assert sum("won games" in t for t in titles) == 2 and sum("lost games" in t for t in titles) == 2
    assert len({a.get_xlim() for a in axes}) == 1
    for a in axes:
        colours = [ln.get_color() for ln in a.get_lines()]
        assert len(colours) == len(set(colours)) == 3
    # a panel of won games holds the won games' shares: they add up to 100%
    h = length_hist()
    won = next(a for a in axes if a.get_title(loc="left") == "2 players, random: won games")
    assert sum(ln.get_ydata().sum() for ln in won.get_lines()) == pytest.approx(300)
    assert max(ln.get_xdata().min() for ln in won.get_lines()) >= h[h.won > 0]["turns"].min()
    # without the split every game is one distribution, and the panel says so
    seen = _drawn(monkeypatch, charts.game_length, h.drop(columns=["won", "lost"]), tmp_path / "a")
    assert all("won and lost together" in a.get_title(loc="left") for a in seen["fig"].axes if a.get_visible())



def test_game_length_leaves_out_a_line_of_too_few_games(monkeypatch, tmp_path):
    """A cell won 3 times drew a 66% spike on its won-games panel: a line of fewer than
    MIN_LENGTH_GAMES games is not drawn, the others are, and the note names the one left out."""
    h = length_hist()
    few = (h["players"] == 2) & (h["spies"] == 5) & (h["won"] > 0)
    keep = h[few].index[:1]
    h.loc[few & ~h.index.isin(keep), "won"] = 0
    h.loc[keep, "won"] = 3
    seen = _drawn(monkeypatch, charts.game_length, h, tmp_path / "f")
    axes = {a.get_title(loc="left"): a for a in seen["fig"].axes if a.get_visible()}
    assert len(axes["2 players, random: won games"].get_lines()) == 2
    assert len(axes["2 players, random: lost games"].get_lines()) == 3
    assert len(axes["4 players, random: won games"].get_lines()) == 3
    assert f"fewer than {charts.MIN_LENGTH_GAMES} games" in seen["note"]
    assert "2 players, random, 5 spies: 3 won games" in seen["note"]
    # a study too small for any line (10 games a cell) still gets its chart, every cell named
    tiny = pd.DataFrame([{"players": pl, "spies": sp, "policy": "random", "turns": 20, "games": 10,
                          "won": 1, "lost": 9} for pl in (2, 4) for sp in (0, 2, 5)])
    seen = _drawn(monkeypatch, charts.game_length, tiny, tmp_path / "t")
    assert seen["legend"] is None and not any(a.get_lines() for a in seen["fig"].axes)
    assert seen["note"].count("won games") == 6 and seen["note"].count("lost games") == 6

def test_heatmap_shows_each_pair_once_coloured_by_its_rate(monkeypatch, tmp_path):
    """The lower triangle only (every pair once), the colour the same number as the text (the
    pair's win rate, not its difference from the panel), and each cell's interval under it."""
    from experiments.stats import pair_table, wilson
    sets = sets_frame()
    seen = _drawn(monkeypatch, charts.character_heatmap, sets, tmp_path / "h")
    axes = [a for a in seen["fig"].axes if a.get_visible() and a.images]
    pairs = pair_table(sets)
    for ax, ((pl, sp), g) in zip(axes, pairs.groupby(["players", "spies"], sort=True)):
        m = ax.images[0].get_array()
        shown = np.argwhere(~np.ma.getmaskarray(m))
        assert len(shown) == len(g) and all(i > j for i, j in shown)
        got = sorted(round(float(m[i, j]), 6) for i, j in shown)
        assert got == sorted(round(100 * w / n, 6) for w, n in zip(g["wins"], g["games"]))
        halves = sorted(t.get_text() for t in ax.texts if t.get_text().startswith("±"))
        want = sorted(f"±{100 * (hi - lo) / 2:.0f}" for lo, hi in
                      (wilson(int(w), int(n)) for w, n in zip(g["wins"], g["games"])))
        assert halves == want


def test_forest_keeps_player_counts_apart(monkeypatch, tmp_path):
    """Effects fitted per player count are drawn per player count (Violet's 2.29 at 2 players and
    1.83 at 4 were pooled into one dot), against an average character, not "no effect"."""
    e = pd.concat([effects_frame().assign(players=2, odds_ratio=lambda d: d.odds_ratio * 1.2),
                   effects_frame().assign(players=4)])
    seen = _drawn(monkeypatch, charts.character_forest, e, tmp_path / "f", policy="random", games=1000)
    ax = seen["fig"].axes[0]
    from matplotlib.collections import PathCollection
    xs = sorted(round(float(x), 6) for c in ax.collections if isinstance(c, PathCollection)
                for x, _ in c.get_offsets())
    assert xs == sorted(round(float(x), 6) for x in e[e.term != "Intercept"]["odds_ratio"])
    assert "average" in ax.get_xlabel() and "no effect" not in ax.get_xlabel()
    assert [lab for lab in seen["legend"][1] if "players" in lab] == ["2 players", "4 players"]


def test_handicap_dose_plots_each_seat_against_its_leaves_above_the_mean(monkeypatch, tmp_path):
    """Every candidate's seat is a dot at (its leaves minus the table's mean, its share of the
    decided games): the dose and the response, seat by seat (the landscape chart showed ranks)."""
    from matplotlib.collections import PathCollection
    s = handicap_seats()
    seen = _drawn(monkeypatch, charts.handicap_dose, s, tmp_path / "d")
    ax = next(a for a in seen["fig"].axes if a.get_title(loc="left").startswith("3 players"))
    per_seat = [c for c in ax.collections if isinstance(c, PathCollection) and len(c.get_offsets()) > 3]
    assert len(per_seat) == 3
    for q, c in enumerate(per_seat, start=1):
        rows = s[(s.players == 3) & (s.seat == q)]
        dose = [int(lv.split(",")[q - 1]) - np.mean([int(x) for x in lv.split(",")]) for lv in rows["leaves"]]
        jitter = (q - 2) * 0.04
        got = sorted(zip(np.round(c.get_offsets()[:, 0] - jitter, 6), np.round(c.get_offsets()[:, 1], 6)))
        want = sorted(zip(np.round(dose, 6), np.round(100 * rows["wins"] / rows["decided"], 6)))
        assert got == want


def test_handicap_confirmed_names_candidates_and_timeouts(tmp_path):
    c = confirmed_seats()
    _, svg = charts.handicap_confirmed(c, tmp_path / "c")
    text = svg.read_text()
    for r in c.drop_duplicates(["players", "leaves"]).itertuples():
        assert f"timeouts {100 * r.timeouts / r.games:.1f}%" in text and r.leaves in text


def test_handicap_decision_draws_each_paired_difference_and_says_the_decision(monkeypatch, tmp_path):
    """One panel per player count: its title is the holdout's decision (keep the printed handicap
    unless the challenger's holdout interval lies below 0), the holdout's difference is drawn first
    (filled) and every confirmed candidate's below it (open), each at its paired difference in
    points with its interval."""
    for adopt in (True, False):
        conf, hold = decision_frames(adopt)
        seen = _drawn(monkeypatch, charts.handicap_decision, conf, hold, tmp_path / f"d{adopt}")
        axes = [a for a in seen["fig"].axes if a.get_visible()]
        assert [a.get_title(loc="left") for a in axes] == [
            "2 players: keep the printed 1,3", "3 players: adopt 1,2,4" if adopt else "3 players: keep the printed 1,3,4"]
        for ax, pl in zip(axes, (2, 3)):
            ch = hold[(hold["players"] == pl) & hold["challenger"]].iloc[0]
            rows = conf[(conf["players"] == pl) & ~conf["printed"]].sort_values("vs_printed_diff")
            want = [100 * ch.vs_printed_diff] + list(100 * rows["vs_printed_diff"])
            got = [ln.get_xdata()[0] for ln in ax.get_lines() if ln.get_marker() in ("D", "o")]
            assert got == pytest.approx(want)
            ticks = [t.get_text() for t in ax.get_yticklabels()]
            assert ticks[0] == f"{ch.leaves} on the holdout games" and len(ticks) == 1 + len(rows)


def test_sensitivity_legend_lists_only_markers_drawn(monkeypatch, tmp_path):
    """No "filled" entry when no row is significant after Holm's correction (it named a marker that
    never appeared), although every row's own interval misses 0 here; a filled marker means what it
    means in the other charts (Holm); a Benevolent row whose arms' timeouts differ by 5% of the
    games is marked."""
    rows = sensitivity_rows().assign(ci_low=lambda d: np.where(d["diff"] > 0, 0.001, d["ci_low"]))
    plain = _drawn(monkeypatch, charts.sensitivity_forest, rows, tmp_path / "a")
    labels = plain["legend"][1]
    assert not any("timeouts" in x for x in labels)
    assert charts.HOLLOW_HOLM in labels and not any(x.startswith("filled") for x in labels)
    marked = _drawn(monkeypatch, charts.sensitivity_forest, sensitivity_rows(sig=True, timeouts=True), tmp_path / "b")
    labels = marked["legend"][1]
    assert charts.FILLED_HOLM in labels and any("timeouts differ" in x for x in labels)
    filled = [c for a in marked["fig"].axes for c in a.collections if c.get_offsets().shape[0] == 1
              and len(c.get_facecolor()) and c.get_facecolor()[0][:3].tolist() != [1.0, 1.0, 1.0]
              and c.get_sizes()[0] == 30]
    assert len(filled) == 3   # sides-common at each of the 3 player counts: its p_holm is below 0.05
    crosses = [c for a in marked["fig"].axes for c in a.collections if c.get_offsets().shape[0] == 1
               and c.get_paths() and len(c.get_facecolor()) and tuple(np.round(c.get_edgecolor()[0][:3], 2)) ==
               tuple(np.round(matplotlib_colour("#d55e00"), 2))]
    assert len(crosses) == 1



def _panel_grid(fig):
    """(columns, rows) of a figure's visible panels, from their positions."""
    boxes = [a.get_position() for a in fig.axes if a.get_visible() and a.get_label() != "<colorbar>"]
    return len({round(b.x0, 3) for b in boxes}), len({round(b.y0, 3) for b in boxes})


def test_wide_charts_wrap_so_their_text_reads_at_800_px(monkeypatch, tmp_path):
    """Six sensitivity panels side by side made a PNG 1,967 px wide, and three confirmation panels
    one 1,806 px wide: shrunk into an 800 px page their labels were 7 px tall. The sensitivity
    forest puts at most three panels a row (the names on every row), the confirmation one a row
    (each panel with its own percentages), and neither PNG is wider than 1,600 px."""
    seen = _drawn(monkeypatch, charts.sensitivity_forest, sensitivity_rows("bethel_woods"), tmp_path / "s")
    assert _panel_grid(seen["fig"]) == (charts.SENSITIVITY_COLUMNS, 2) == (3, 2)
    firsts = [a for a in seen["fig"].axes if a.get_visible() and a.get_subplotspec().is_first_col()]
    assert all([t.get_text() for t in a.get_yticklabels() if t.get_visible()] for a in firsts)
    seen = _drawn(monkeypatch, charts.handicap_confirmed, confirmed_seats(), tmp_path / "c")
    assert _panel_grid(seen["fig"])[0] == 1
    assert all(any(t.get_text() for t in a.get_xticklabels()) for a in seen["fig"].axes if a.get_visible())
    monkeypatch.undo()   # draw the files for real
    from PIL import Image
    for png in (charts.sensitivity_forest(sensitivity_rows("bethel_woods"), tmp_path / "s2")[0],
                charts.handicap_confirmed(confirmed_seats(), tmp_path / "c2")[0]):
        assert Image.open(png).size[0] <= 1600

def matplotlib_colour(c):
    from matplotlib.colors import to_rgb
    return to_rgb(c)


def test_variants_chart_gives_the_baseline(tmp_path):
    df = pd.DataFrame({"variant": ["a", "a"], "title": ["Knowledge limit 6", "Knowledge limit 6"],
                       "label": ["3 players, 0 spies", "3 players, 2 spies"], "policy": ["learned"] * 2,
                       "games": [600, 600], "wins_default": [300, 150], "wins_variant": [270, 150],
                       "diff": [-0.05, 0.0], "diff_low": [-0.08, -0.03], "diff_high": [-0.02, 0.03],
                       "significant": [True, False]})
    _, svg = charts.paired_differences(df, tmp_path / "v")
    text = svg.read_text()
    assert "defaults 50%, with it 45%" in text and "defaults 25%, with it 25%" in text
    assert "Knowledge limit 6" in text and "significant" in text


def test_paired_differences_chart(tmp_path):
    df = pd.DataFrame({"variant": ["a", "a", "b"], "label": ["x", "y", "x"],
                       "policy": ["heuristic"] * 3, "games": [500] * 3,
                       "diff": [-0.04, 0.01, 0.0], "diff_low": [-0.07, -0.02, -0.03],
                       "diff_high": [-0.01, 0.04, 0.03], "significant": [True, False, False]})
    png, svg = charts.paired_differences(df, tmp_path / "p")
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 10_000
    text = svg.read_text()
    assert "Policy: heuristic" in text and "500 games per row" in text and "not significant" in text
    with pytest.raises(ValueError, match="needs columns"):
        charts.paired_differences(df.drop(columns=["diff_low"]), tmp_path / "q")


COLUMN_PX = 1056   # the report's text column at 1280 px: 68rem less 2rem of padding (render.CSS)
MIN_TEXT_PX = 9.0


@pytest.mark.parametrize("name", sorted(MUST_SAY))
def test_chart_text_is_readable_in_the_report(made, name):
    """The smallest text of a chart, shown in the report's column at 1280 px (the chart shown at
    its printed size, 96 CSS px per inch, or shrunk to the column), is 9 CSS px or more (the
    heatmap's numbers were about 7)."""
    import re
    png, svg = made[name]
    width_px = int.from_bytes(png.read_bytes()[16:20], "big") * 96 / charts.DPI
    scale = min(1.0, COLUMN_PX / width_px)
    # matplotlib's SVG is 72 user units an inch: its "px" font sizes are points
    sizes = [float(x) * 96 / 72 for x in re.findall(r"font-size:\s*([\d.]+)px", svg.read_text())]
    assert sizes, "no text sizes found in the SVG"
    assert min(sizes) * scale >= MIN_TEXT_PX, (name, min(sizes), scale)


def test_character_forest_names_the_p_it_was_given(tmp_path):
    """The study hands the chart Holm-adjusted p: its legend and note say so (they said "p < 0.05",
    under a caption saying Holm-adjusted)."""
    _, svg = charts.character_forest(effects_frame(), tmp_path / "f", policy="heuristic", games=100,
                                     p_name="Holm-adjusted p")
    text = svg.read_text()
    assert "Holm-adjusted p &lt; 0.05" in text or "Holm-adjusted p < 0.05" in text
