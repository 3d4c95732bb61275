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


def difficulty_frame(games=2000, seed=1):
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
                         "policy": "random", "games": games, "wins": wins,
                         "bag_empty": bag, "four_critical": crit, "six_spies": six})
    return pd.DataFrame(rows)


def length_hist(games=3000, seed=2):
    rng = np.random.default_rng(seed)
    rows = []
    for players in (2, 4):
        for spies in (0, 2, 5):
            turns = np.clip(rng.normal(40 - 4 * spies + 2 * players, 6, games).round(), 5, None)
            for t, c in zip(*np.unique(turns.astype(int), return_counts=True)):
                rows.append({"players": players, "spies": spies, "policy": "random",
                             "turns": int(t), "games": int(c)})
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


def candidates_frame(seed=5):
    rng = np.random.default_rng(seed)
    rows = []
    for players, n in ((3, 18), (4, 60)):
        leaves = sorted({",".join(map(str, sorted(rng.integers(1, 7, players))))
                         for _ in range(n * 3)})[:n]
        gaps = rng.uniform(0.01, 0.2, len(leaves))
        printed = "1,3,4" if players == 3 else "1,3,4,5"
        if printed not in leaves:
            leaves[-1] = printed
        best = int(np.argmin(gaps))
        for i, lv in enumerate(leaves):
            rows.append({"players": players, "leaves": lv, "games": 5000, "max_gap": gaps[i],
                         "gap_low": max(0, gaps[i] - 0.02), "gap_high": gaps[i] + 0.02,
                         "printed": lv == printed, "best": i == best})
    return pd.DataFrame(rows)


def all_charts(folder):
    """Every chart from the synthetic frames: {name: (png, svg)}."""
    d = difficulty_frame()
    return {
        "difficulty": charts.difficulty_curve(d, folder / "difficulty"),
        "losses": charts.loss_reasons(d, folder / "losses.png"),
        "length": charts.game_length(length_hist(), folder / "length"),
        "heatmap": charts.character_heatmap(sets_frame(), folder / "heatmap"),
        "forest": charts.character_forest(effects_frame(), folder / "forest", policy="random",
                                          games=84_000),
        "seats": charts.seat_bars(seats_frame(), folder / "seats"),
        "handicap": charts.handicap_landscape(candidates_frame(), folder / "handicap",
                                              policy="random"),
    }


# what each chart must say: title words, an axis label with its unit, the policy, the games
MUST_SAY = {
    "difficulty": ["win rate by difficulty", "Win rate (%)", "Policy: random",
                   "2,000 games per point, 36,000 in all", "Impossible", "Insane", "Normal",
                   "95% Wilson"],
    "losses": ["why games are lost", "Share of lost games (%)", "Policy: random",
               "36,000 in all", "Malfunction bag ran out", "4+ machines critical"],
    "length": ["how long games last", "Game length (turns)", "Share of games (%)",
               "Policy: random", "3,000 games per line, 18,000 in all"],
    "heatmap": ["pair of characters", "percentage points", "Policy: random",
                "Holm", "Nova", "Fare", "3 players, 1 spy"],
    "forest": ["odds of winning", "Odds ratio", "Policy: random", "84,000 games", "Nova"],
    "seats": ["win rate by seat", "Win rate (%)", "Policy: random", "fair share 33.3%",
              "fair share 25.0%", "leaves 1,3,4,5", "equal start", "4,000 games per"],
    "handicap": ["ranked by fairness", "Largest seat gap (pp)", "Policy: random",
                 "5,000 games per candidate", "printed: 1,3,4,5", "best:"],
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
    assert "Rules: rulebook" in text and "Rules: no-spy-cap" in text


@pytest.mark.parametrize("fn,frame,col", [
    (charts.difficulty_curve, difficulty_frame().drop(columns="wins"), "wins"),
    (charts.loss_reasons, difficulty_frame().drop(columns="six_spies"), "six_spies"),
    (charts.game_length, length_hist().drop(columns="turns"), "turns"),
    (charts.character_heatmap, sets_frame().drop(columns="significant"), "significant"),
    (charts.seat_bars, seats_frame().drop(columns="ci_high"), "ci_high"),
])
def test_missing_column_is_named(tmp_path, fn, frame, col):
    with pytest.raises(ValueError, match=col):
        fn(frame, tmp_path / "x")
    assert not list(tmp_path.iterdir())


def test_every_chart_names_policy_and_games(tmp_path):
    with pytest.raises(ValueError, match="policy"):
        charts.character_forest(effects_frame(), tmp_path / "f", games=10)
    with pytest.raises(ValueError, match="policy"):
        charts.handicap_landscape(candidates_frame(), tmp_path / "h")
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


def test_seat_fair_share_counts_only_decided_games(tmp_path):
    """A timed-out game is won by no seat, so the fair-share line is 1/players of the decided
    games: with 10% timeouts at 3 players it sits at 30%, not 33.3%."""
    s = seats_frame().assign(timeouts=400)          # 400 of 4,000 games: 10%
    _, svg = charts.seat_bars(s, tmp_path / "t")
    text = svg.read_text()
    assert "fair share 30.0%" in text and "fair share 22.5%" in text and "fair share 45.0%" in text
    assert "fair share 33.3%" not in text and "Dashed: the fair share" in text


def test_seat_fair_share_per_configuration_when_timeouts_differ(tmp_path):
    s = seats_frame()
    s["timeouts"] = np.where(s["leaves"] == "equal", 0, 800)
    _, svg = charts.seat_bars(s, tmp_path / "d")
    text = svg.read_text()
    assert "fair share of the decided games" in text        # the dashes' legend entry
    assert "fair share 33.3%" not in text                   # no single line for the panel


def test_seat_fair_share_without_a_timeout_count_is_one_over_players(tmp_path):
    s = seats_frame().assign(timeouts=np.nan)     # e.g. old and new frames concatenated
    _, svg = charts.seat_bars(s, tmp_path / "n")
    assert "fair share 33.3%" in svg.read_text() and "fair share 25.0%" in svg.read_text()


def test_each_seat_bar_sits_over_its_seat_label(tmp_path, monkeypatch):
    """The frame counts seats from 1 (seat 1 moves first): seat N's bar stands over the tick
    labelled "Seat N" with seat N's rate, in every panel and configuration."""
    import matplotlib.axes
    drawn = []
    bar = matplotlib.axes.Axes.bar

    def spy(self, x, height, *a, **k):
        drawn.append((self, np.asarray(x, float), np.asarray(height, float), k.get("label")))
        return bar(self, x, height, *a, **k)
    monkeypatch.setattr(matplotlib.axes.Axes, "bar", spy)
    s = seats_frame()
    charts.seat_bars(s, tmp_path / "p")
    assert len(drawn) == 6                      # 3 panels x 2 configurations
    for ax, x, h, label in drawn:
        players = int(ax.get_title(loc="left").split()[0])
        ticks = {int(round(t)): lab.get_text() for t, lab in zip(ax.get_xticks(), ax.get_xticklabels())}
        leaves = "equal" if label == "equal start" else label.replace("leaves ", "")
        rows = s[(s.players == players) & (s.leaves == leaves)].sort_values("seat")
        for xi, hi, r in zip(x, h, rows.itertuples()):
            assert ticks[int(round(xi))] == f"Seat {r.seat}"
            assert hi == pytest.approx(100 * r.wins / r.games)


def test_printed_leaves_are_one_legend_entry_for_every_panel(tmp_path):
    """The printed handicap is 1,3 / 1,3,4 / 1,3,4,5 by player count: one legend entry says so,
    not "leaves 1,3,4,5" over the 2- and 3-player bars too."""
    s = seats_frame()
    s["leaves"] = np.where(s["leaves"] == "equal", "equal", "printed")
    _, svg = charts.seat_bars(s, tmp_path / "pr")
    text = svg.read_text()
    assert "printed leaves (1,3 / 1,3,4 / 1,3,4,5)" in text and "leaves 1,3,4,5<" not in text


def test_game_length_shows_every_peak(monkeypatch, tmp_path):
    """Each policy's panels get a y scale that holds its highest point: a scale shared with a
    flatter policy's panels cut the random policy's peaks off (seen at 61% under a 32% axis)."""
    flat = length_hist().assign(policy="heuristic")
    spiky = pd.DataFrame([{"players": pl, "spies": 0, "policy": "random", "turns": t, "games": g}
                          for pl in (2, 4) for t, g in ((3, 610), (4, 390))])
    seen = {}

    def keep(fig, out, title, note, legend=None):
        seen["axes"] = [ax for ax in fig.axes if ax.get_visible()]
        return out, out
    monkeypatch.setattr(charts, "_finish", keep)
    charts.game_length(pd.concat([flat, spiky]), tmp_path / "g")
    tops = {ax.get_title(loc="left"): ax.get_ylim()[1] for ax in seen["axes"]}
    assert tops["2 players, random"] >= 61 and tops["4 players, random"] >= 61
    assert tops["2 players, heuristic"] < 30        # the flat policy keeps a scale of its own
    for ax in seen["axes"]:
        assert all(float(x).is_integer() for x in ax.get_xticks())   # whole turns


def test_character_forest_names_the_p_it_was_given(tmp_path):
    """The study hands the chart Holm-adjusted p: its legend and note say so (they said "p < 0.05",
    under a caption saying Holm-adjusted)."""
    _, svg = charts.character_forest(effects_frame(), tmp_path / "f", policy="heuristic", games=100,
                                     p_name="Holm-adjusted p")
    text = svg.read_text()
    assert "Holm-adjusted p &lt; 0.05" in text or "Holm-adjusted p < 0.05" in text
