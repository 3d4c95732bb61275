"""Studies: the executor's units, study files (good and bad), a report folder at tiny size."""
import json
import textwrap

import numpy as np
import pandas as pd
import pytest

from arena.units import Cell, run_unit
from boardsim.cli import main
from experiments.run.execute import FIRST_UNIT, execute, unit_cap, units
from experiments.progress import StudyProgress
from experiments.report import STANDARD, STUDIES_DIR, run_studies
from experiments.study.handicap import candidates
from experiments.study.characters import character_effects
from experiments.study.common import fixed_games, leaves_order
from experiments.study.spec import leaves_for
from experiments.study import load_study
from experiments.answers import SKILL_WORDS
from experiments.stats import plain_pct, plain_pp, prose_pct, rate_text, wilson
from test_browser import chromium  # noqa: F401  (a fixture)

BW = Cell("bethel_woods", 3, spies=2, seed=5)


# --------------------------------------------------------------------------------- executor

def test_units_follow_a_fixed_grid():
    cap = unit_cap(BW)
    assert cap & (cap - 1) == 0 and cap >= FIRST_UNIT          # a power of two
    u = units(BW, 5000)
    assert u == [(0, 256), (256, 512), (768, 1024), (1792, 2048), (3840, 1160)]
    # a later range is cut at the same grid points: its units are the whole run's units
    assert units(BW, 3000, 1000) == [(1000, 792), (1792, 2048), (3840, 160)]
    assert units(BW, 5000) == units(BW, 5000)
    # a slow policy gets a smaller cap, so a unit stays a few seconds
    assert unit_cap(Cell("bethel_woods", 3, policies=("heuristic",))) < cap
    # the expert's units are the smallest (a few seconds, not minutes: resumes lose little)
    assert unit_cap(Cell("benevolent", 2, policies=("expert",))) == FIRST_UNIT
    assert unit_cap(Cell("benevolent", 2, policies=("learned",))) > FIRST_UNIT
    assert sum(n for _, n in units(Cell("benevolent", 4), 123_457)) == 123_457


def test_execute_sums_units_and_calls_back_once_per_unit():
    seen = []
    bv = Cell("benevolent", 2, leaves=(2, 2), seed=3)
    bar = StudyProgress(enabled=False)
    tot = execute([(BW, 1500), (bv, 700, 100)], threads=1, progress=bar,
                  on_unit=lambda c, a, n, counts: seen.append((c, a, n, counts.copy())))
    assert np.array_equal(tot[0], run_unit(BW, 0, 1500))
    assert np.array_equal(tot[1], run_unit(bv, 100, 700))
    assert [(a, n) for c, a, n, _ in seen if c == BW] == units(BW, 1500)
    assert [(a, n) for c, a, n, _ in seen if c == bv] == units(bv, 700, 100)
    assert np.array_equal(sum(k for c, _, _, k in seen if c == bv), tot[1])
    assert bar.games == bar.total_games == 2200
    # two threads: the same totals
    tot2 = execute([(BW, 1500)], threads=2)
    assert np.array_equal(tot2[0], tot[0])


# --------------------------------------------------------------------------------- pieces

def test_leaves_and_candidates():
    assert leaves_for("printed", 3) == (1, 3, 4)
    assert leaves_for("equal", 2) == (2, 2) and leaves_for("equal", 4) == (3, 3, 3, 3)
    c = candidates(3, 2)
    assert len(c) == 10 and all(list(x) == sorted(x) for x in c) and len(set(c)) == 10


def test_fixed_games_reaches_the_target_and_no_more():
    for h in (0.2, 0.05, 0.01, 0.005, 0.001):
        n = fixed_games(h)
        lo, hi = wilson(n // 2, n)
        assert (hi - lo) / 2 <= h
        for m in (n - 1, n - 2):   # one game fewer misses the target, at either parity
            lo, hi = wilson(m // 2, m)
            assert (hi - lo) / 2 > h, (h, n, m)


def test_character_effects_recover_a_planted_effect():
    # expected wins from a known logistic model: Nova +0.8, everyone else -0.8/7 (sum zero)
    from itertools import combinations

    from simcore.bethel_woods.rules import CHARACTERS
    rows = []
    for pl in (2, 3):
        for cs in combinations(CHARACTERS, pl):
            eta = -1.0 + 0.3 * (pl == 3) + sum(0.8 if c == "Nova" else -0.8 / 7 for c in cs)
            g = 100_000
            rows.append({"players": pl, "spies": 0, "characters": ",".join(cs), "games": g,
                         "wins": int(round(g / (1 + np.exp(-eta))))})
    e = character_effects(pd.DataFrame(rows)).set_index("term")
    assert e.loc["Nova", "coef"] == pytest.approx(0.8, abs=0.01)
    assert e.loc["Fare", "coef"] == pytest.approx(-0.8 / 7, abs=0.01)   # the derived last one
    assert e["coef"].sum() == pytest.approx(0.0, abs=1e-9)
    assert (e["ci_low"] < e["coef"]).all() and (e["coef"] < e["ci_high"]).all()


# --------------------------------------------------------------------------------- study files

def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


@pytest.mark.parametrize("body,needle", [
    ('kind = "difficulty"\nplayerz = [3]\n', "key 'playerz' is not known for a difficulty study; allowed:"),
    ('kind = "difficulty"\nspies = [0, 9]\n', "spies = [0, 9]: 9 is not allowed; spies 0 to 5"),
    ('kind = "difficulty"\ngames = -4\n', "games = -4: expected a whole number from 1"),
    ('kind = "seats"\npolicy = "smart"\n', "policy 'smart' is not known for Benevolent; allowed: random"),
    ('kind = "difficulty"\npolicy = "clairvoyant"\n',
     "policy 'clairvoyant' is an upper bound that sees the coming draws, not a player; a study plays players; "
     "allowed: random, heuristic, search, tuned"),
    ('kind = "difficulty"\nplayers = [3]\ncharacters = ["Nova", "Bob", "Fenn"]\n',
     "unknown character 'Bob'; allowed: Nova, Harris"),
    ('kind = "dificulty"\n', "kind = 'dificulty' is not known; allowed: difficulty, characters"),
    ('kind = "variants"\nvariants = ["missing.toml"]\n', "missing.toml' does not exist"),
    ('kind = "difficulty"\n[quick]\ngamez = 3\n', "[quick]: key 'gamez' is not known"),
    ('kind = "seats"\nleaves = ["printed", [1, 2]]\n', "leaves [1, 2] has 2 seats; a 3-player entry needs 3"),
    ('kind = "seats"\nleaves = [[1, -2]]\nplayers = [2]\n', "leaves: [1, -2] is not allowed"),
    ('kind = "difficulty"\ngames = [\n', "is not valid TOML"),
    ('kind = "sensitivity"\nplayers = [3]\n', "key 'players' is not known for a sensitivity study; allowed:"),
    ('kind = "sensitivity"\ngame = "chess"\n', "game = 'chess' is not known; allowed: bethel_woods, benevolent"),
    ('kind = "sensitivity"\nonly = ["k=9"]\n', "only: variant 'k=9' is not known for Bethel Woods; allowed:"),
    ('kind = "sensitivity"\npolicy = ["random", "heuristic"]\n', "a sensitivity study plays one policy"),
    ('kind = "sensitivity"\ngames = 1\n', "games = 1: expected a whole number from 2"),
])
def test_bad_study_files_are_one_line_exit_2_nothing_written(tmp_path, capsys, body, needle):
    f = write(tmp_path, "bad.toml", body)
    out = tmp_path / "out"
    assert main(["experiment", "run", str(f), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and needle in err, err
    assert not out.exists()


def test_study_character_names_are_matched_without_case(tmp_path):
    """'nova' in a study file is Nova: the same cell (key, table label) as the rulebook's spelling."""
    from experiments.study.spec import study_characters
    from experiments.study import load_study
    body = 'kind = "difficulty"\nplayers = [3]\ncharacters = [%s]\n'
    low = load_study(write(tmp_path, "low.toml", body % '"nova", "HARRIS", "Fenn"'))
    std = load_study(write(tmp_path, "std.toml", body % '"Nova", "Harris", "Fenn"'))
    assert study_characters(low) == study_characters(std) == ("Nova", "Harris", "Fenn")


def test_bad_rules_file_and_bad_out_folder(tmp_path, capsys):
    write(tmp_path, "r.toml", "[bethel_woods]\nknowledge_limit = 99\n")
    f = write(tmp_path, "v.toml", 'kind = "variants"\nvariants = ["r.toml"]\n')
    assert main(["experiment", "run", str(f), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "knowledge_limit: 99 is not an integer from 1 to 40" in err
    assert main(["report", "--quick", "--out", str(tmp_path / "no" / "such")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
    assert not (tmp_path / "o").exists() and not (tmp_path / "no").exists()


def test_standard_study_files_are_valid():
    for name in STANDARD:
        for quick in (False, True):
            st = load_study(STUDIES_DIR / f"{name}.toml", quick=quick)
            assert st.kind == name.split("_")[0] and st.opts["games"] >= 1


# --------------------------------------------------------------------------------- a tiny report

TINY = {
    # the skill checks are small: a few games of the stronger player per headline cell. The
    # variants study plays the default study player (policies.STUDY_PLAYER); the others play the
    # heuristic and check it against the search (skill_policy), the quickest pair: what these
    # tests test is the study, not the player (tests/test_skill.py: the default pair, and the
    # CI's `report --quick` plays it)
    "difficulty": 'kind = "difficulty"\npolicy = ["heuristic", "random"]\nplayers = [3]\n'
                  'spies = [0, 3]\ngames = 150\nseed = 11\nskill_games = 6\nskill_policy = "search"\n'
                  'skill_weaker = "random"\n',
    "characters": 'kind = "characters"\npolicy = ["heuristic"]\nplayers = [2]\nspies = [0]\ngames = 40\nseed = 12\n'
                  'skill_games = 6\nskill_policy = "search"\n',
    "seats": 'kind = "seats"\npolicy = ["heuristic"]\nplayers = [2, 3]\ngames = 400\nseed = 13\nskill_games = 4\n'
             'skill_policy = "search"\nskill_weaker = "random"\n',
    "handicap": 'kind = "handicap"\nplayers = [2]\nmax_leaves = 2\ngames = 200\n'
                'confirm_top = 1\nconfirm_games = 300\nseed = 14\nskill_games = 4\npolicy = ["heuristic"]\n'
                'skill_policy = "search"\n',
    "variants": 'kind = "variants"\nvariants = ["k6.toml"]\nplayers = [3]\nspies = [0]\n'
                'games = 150\nseed = 15\n',
    "skill": 'kind = "skill"\ngame = "bethel_woods"\nrungs = ["random", "heuristic"]\npolicy = ["heuristic"]\n'
             'players = [2]\nspies = [0, 3]\ngames = 60\nseed = 16\n',
}


@pytest.fixture(scope="module")
def tiny_studies(tmp_path_factory):
    d = tmp_path_factory.mktemp("studies")
    (d / "k6.toml").write_text("[bethel_woods]\nknowledge_limit = 6\n")
    paths = {}
    for name, body in TINY.items():
        (d / f"{name}.toml").write_text(body)
        paths[name] = d / f"{name}.toml"
    return paths


@pytest.fixture(scope="module")
def tiny_report(tiny_studies, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "r"
    studies = [load_study(p) for p in tiny_studies.values()]
    lines = []
    info = run_studies(studies, out, threads=2, show_progress=False, say=lines.append)
    info["said"] = lines   # (not in run.json: the lines a log is shown as each study finishes)
    return out, info


def test_report_folder_contents(tiny_report):
    out, info = tiny_report
    # one line per study as it finishes, in order, with its games (a study longer than a minute,
    # as on a loaded machine, also says a line a minute: those are not counted here)
    said = [line for line in info["said"] if line.startswith("study ")]
    assert len(said) == len(info["studies"]) == len(TINY)
    for i, (line, s) in enumerate(zip(said, info["studies"])):
        assert line.startswith(f"study {i + 1} of {len(TINY)}, {s['study']}: {s['games']:,} games in ")
    assert (out / "report.md").stat().st_size > 1000
    html = (out / "report.html").read_text()
    assert html.count("<img ") >= 8 and "data:image/png;base64," in html and "src=\"http" not in html
    md = (out / "report.md").read_text()
    for name in TINY:
        assert list((out / "tables").glob(f"{name}_*.csv")) and list((out / "tables").glob(f"{name}_*.parquet"))
    for png in (out / "charts").glob("*.png"):
        assert png.with_suffix(".svg").is_file() and f"charts/{png.name}" in md
    run = json.loads((out / "run.json").read_text())
    assert [s["study"] for s in run["studies"]] == list(TINY)
    # games played: a variants pair plays each seed twice (the variant and the defaults)
    seeds = pd.read_csv(out / "tables" / "variants_pairs.csv")["games"].sum()
    var = next(s for s in run["studies"] if s["study"] == "variants")
    assert var["games"] == var["played"] == 2 * seeds == 300
    # the skill study plays every rung of every setup on the same seeds: 2 rungs x 2 spies x 60
    sk = next(s for s in run["studies"] if s["study"] == "skill")
    assert sk["games"] == sk["played"] == 2 * 2 * 60
    # a skill check plays each of its arms on every seed: the difficulty study's 4 cells and its 2
    # headline cells of 6 seeds, 2 arms each, and each cell's weaker twin (the weaker rung and the
    # study player, 2 arms)
    assert run["studies"][0]["games"] == 4 * 150 + 2 * 6 * 2 + 2 * 6 * 2
    # the Benevolent seat and handicap findings say they rest on the assumed components
    assert md.count("These figures rest on assumed component data (segment sides") == 2

    t = out / "tables"
    cells = pd.read_csv(t / "difficulty_cells.csv")
    assert pd.read_parquet(t / "difficulty_cells.parquet").equals(cells)
    assert {"players", "spies", "difficulty", "policy", "games", "wins", "bag_empty",
            "four_critical", "six_spies", "turns", "win_rate", "ci_low", "ci_high"} <= set(cells.columns)
    assert len(cells) == 4 and (cells["games"] == 150).all()
    assert (cells["wins"] + cells["bag_empty"] + cells["four_critical"] + cells["six_spies"]
            == cells["games"]).all()
    assert set(cells["difficulty"]) == {"Normal", "Insane"}
    lengths = pd.read_csv(t / "difficulty_lengths.csv")
    assert (lengths.groupby(["policy", "spies"])["games"].sum() == 150).all()
    # won and lost games apart (the length chart draws them apart): the won add up to the wins
    assert (lengths["won"] + lengths["lost"] == lengths["games"]).all()
    won = lengths.groupby(["policy", "spies"])["won"].sum()
    assert all(won[(r.policy, r.spies)] == r.wins for r in cells.itertuples())
    assert not (lengths["turns"] < 6)[lengths["won"] > 0].any()   # no game is won before its sixth turn
    # how close the lost games came: the pieces built per lost game, with its conservative interval
    from experiments.stats import bounded_mean_interval
    for r in cells.itertuples():
        assert r.built_per_lost_game == pytest.approx(r.built_in_losses / (r.games - r.wins))
        assert (r.built_low, r.built_high) == pytest.approx(bounded_mean_interval(r.built_in_losses, r.games - r.wins, 0, 6))
    skill = pd.read_csv(t / "difficulty_skill.csv")
    # one row per headline cell of the study player and one per player count (every level); the
    # stronger player is the file's skill_policy (by default policies.BEST_PLAYER's), the study
    # player the file's first
    assert len(skill) == 3 and set(skill["best_policy"]) == {"search"}
    assert set(skill["study_policy"]) == {"heuristic"} and set(skill["games"]) == {6, 12}
    # the weaker rung (the file's skill_weaker) on the same seeds: its value and its paired difference
    assert set(skill["weaker_policy"]) == {"random"}
    assert {"weaker_value", "weaker_low", "weaker_high", "weaker_diff", "weaker_diff_low", "weaker_diff_high",
            "weaker_wins"} <= set(skill.columns)
    assert len(pd.read_csv(t / "difficulty_skill_weaker_patterns.csv"))
    pats = pd.read_csv(t / "difficulty_skill_patterns.csv")
    for i, r in skill.iterrows():   # the table's wins are the patterns' (arm0: stronger, arm1: study player)
        p = pats[pats["check"] == i]
        if r.spies >= 0:
            assert p["games"].sum() == r.games
            assert p[p.arm0 == 1]["games"].sum() == r.best_wins and p[p.arm1 == 1]["games"].sum() == r.study_wins

    sets = pd.read_csv(t / "characters_sets.csv")
    assert len(sets) == 28 and (sets["games"] == 40).all()
    assert {"characters", "p_value", "p_holm", "significant"} <= set(sets.columns)
    eff = pd.read_csv(t / "characters_effects.csv")
    assert len(eff) == 8 and eff["coef"].sum() == pytest.approx(0, abs=1e-8)
    # each character's row counts the games and wins of the sets it is in (not the study's total)
    for r in eff.itertuples():
        mine = sets[sets["characters"].str.split(",").apply(lambda cs: r.term in cs)]
        assert (r.games, r.wins) == (mine["games"].sum(), mine["wins"].sum()) and r.games < sets["games"].sum()
    # the character check pools its partner sets: its patterns are the pooled histogram (they held
    # one partner set's games, under another player count's question, before)
    cs, cp = pd.read_csv(t / "characters_skill.csv"), pd.read_csv(t / "characters_skill_patterns.csv")
    assert len(cs) == cp["check"].nunique() == 1 and cs.partner_sets[0] == 6
    assert cp["games"].sum() == cs.games[0] >= 6 and set(cp["question"]) == {cs.question[0]}
    for k in range(4):   # arm0..3: stronger player strongest / weakest, study player strongest / weakest
        assert cp[cp[f"arm{k}"] == 1]["games"].sum() == cs[f"arm{k}_wins"][0]
    assert "each of the 6 partner sets" in cs.arm0[0]

    seats = pd.read_csv(t / "seats_cells.csv")
    assert len(seats) == 4
    from experiments.stats import mean_interval, seat_intervals
    for _, r in seats.iterrows():
        wins = [r[f"seat{q + 1}_wins"] for q in range(r.players)]
        assert sum(wins) + r.timeouts == r.games == 400
        # every share is of the decided games (a timeout is won by no seat): the edge, the gap and
        # Balance alike, with the fair share 1/players
        assert r.decided == sum(wins) and r.first_seat_edge == pytest.approx(r.seat1_wins / r.decided - 1 / r.players)
        shares = np.array(wins) / r.decided
        assert r.max_gap == pytest.approx(shares.max() - shares.min()) and r.balance == pytest.approx(1 - r.max_gap)
        ci = seat_intervals(wins)   # Goodman on the decided games: the gap's bounds
        assert r.gap_high == pytest.approx(ci[:, 1].max() - ci[:, 0].min())
        lo, hi = wilson(r.seat1_wins, r.decided)
        assert (r.first_seat_edge_low, r.first_seat_edge_high) == pytest.approx((lo - 1 / r.players, hi - 1 / r.players))
        assert (r.balance_low, r.balance_high) == pytest.approx((1 - r.gap_high, 1 - r.gap_low))
        assert r.balance_low <= r.balance <= r.balance_high
        # completion (games some seat won, of all games) and duration (mean turns), with intervals
        assert (r.completion, r.completion_low, r.completion_high) == pytest.approx((r.decided / r.games, *wilson(r.decided, r.games)))
        assert (r.mean_turns, r.mean_turns_low, r.mean_turns_high) == pytest.approx(mean_interval(r.turns, r.turns_sq, r.games))
    # the extra-turn share (one minus the last seat's share, by construction) is gone
    assert "extra turn" not in md and "extra_turn_low" not in seats.columns
    assert "Balance is 1 minus the largest seat gap" in md
    sw = pd.read_csv(t / "seats_seats.csv")
    assert (sw["ci_low"] <= sw["rate"]).all() and (sw["rate"] <= sw["ci_high"]).all()
    assert (sw["rate"] == sw["wins"] / sw["decided"]).all()
    # the report's tables count seats from 1 alike: seat N's row holds the cell's seatN_wins
    for r in sw.itertuples():
        cell = seats[(seats.players == r.players) & (seats.leaves.astype(str) == str(r.leaves))].iloc[0]
        assert 1 <= r.seat <= r.players and r.wins == cell[f"seat{r.seat}_wins"]
    # the report prints each seat's share with its simultaneous interval and the counts in one cell
    from experiments.study.common import rate_cell
    for r in sw.itertuples():
        assert rate_cell(r.wins, r.decided, r.ci_low, r.ci_high).replace("\n", "<br>") in md

    cand = pd.read_csv(t / "handicap_candidates.csv")
    assert len(cand) == 6 + 1     # 6 candidates up to 2 leaves, plus the printed 1,3
    assert cand["printed"].sum() == 1 and cand["best"].sum() == 1
    # the fairest is the search's first (the gap over the decided games compared exactly, ties to
    # the lower leaves), not the one that looks fairest on the confirmation seeds it is reported on
    wins = cand[["seat1_wins", "seat2_wins"]].to_numpy()
    assert (cand["gap_games"] == wins.max(axis=1) - wins.min(axis=1)).all()
    assert np.allclose(cand["max_gap"], cand["gap_games"] / cand["decided"])
    from fractions import Fraction
    first = min(cand.itertuples(), key=lambda r: (Fraction(int(r.gap_games), int(r.decided)),
                                                  tuple(map(int, r.leaves.split(",")))))
    assert bool(first.best)
    # the search cannot tell the fairest from the candidates whose gap interval overlaps its own
    assert (cand["overlaps_best"] == ((cand["gap_low"] <= first.gap_high) & ~cand["best"])).all()
    # the confirmation: the search's top, the smallest change to the printed 1,3 (its fairest
    # neighbour one leaf away) and the printed handicap, on fresh seeds, each paired with the printed
    assert cand["smallest_change"].sum() == 1 and cand[cand["smallest_change"]]["leaves"].tolist() == ["1,2"]
    conf = pd.read_csv(t / "handicap_confirm.csv")
    assert (conf["seed"] != cand["seed"].iloc[0]).all()   # fresh seeds
    assert (conf["gap_low"] <= conf["max_gap"]).all() and (conf["max_gap"] <= conf["gap_high"]).all()
    assert conf[conf["best"]]["leaves"].tolist() == [first.leaves]
    assert set(conf["leaves"]) == {first.leaves, "1,2", "1,3"} and conf["printed"].sum() == 1
    pr_c = conf[conf["printed"]].iloc[0]
    assert pr_c.vs_printed_diff == 0 and pr_c.leaves_changed == 0
    # each candidate's difference is its gap minus the printed one's on the same games
    assert np.allclose(conf["vs_printed_diff"], conf["max_gap"] - pr_c.max_gap)
    # the choice is among the candidates and the printed one, by the paired difference
    assert conf["chosen"].sum() == 1
    chosen = conf[conf["chosen"]].iloc[0]
    assert chosen.vs_printed_diff == conf["vs_printed_diff"].min()
    # the holdout: other fresh seeds, the challenger against the printed; only these games decide
    hold = pd.read_csv(t / "handicap_holdout.csv")
    assert len(hold) == 2 and hold["printed"].sum() == 1 and hold["challenger"].sum() == 1
    assert not set(hold["seed"]) & (set(conf["seed"]) | set(cand["seed"]))
    b, pr = hold[hold["challenger"]].iloc[0], hold[hold["printed"]].iloc[0]
    rivals = conf[~conf["printed"]].sort_values("vs_printed_diff")
    assert b.leaves == (chosen.leaves if not chosen.printed else rivals.iloc[0].leaves)
    assert np.isclose(b.vs_printed_diff, b.max_gap - pr.max_gap)
    assert b.decision == ("adopt" if b.vs_printed_diff_high < 0 else "keep the printed")
    # the front page names a handicap other than the printed one only when the holdout shows it fairer
    front = md.split("## Contents")[0]
    if b.decision == "adopt":
        assert f"2 pl adopt {b.leaves}" in front
    else:
        assert "2 pl keep the printed 1,3" in front and "adopt" not in front
    # the findings give the challenger's weakest and strongest seat and its timeouts beside the
    # printed one's: a handicap that evens the gap may move the edge or add games without a winner
    (lw, lq), (hw, hq) = min((b.seat1_wins, 1), (b.seat2_wins, 2)), max((b.seat1_wins, 1), (b.seat2_wins, 2))
    assert (f"seat {lq} wins least, {rate_text(lw, b.decided, 'per-seat 95% CI ')}, seat {hq} most, "
            f"{rate_text(hw, b.decided, 'per-seat 95% CI ')} of the decided games; timeouts {b.timeouts:,} of "
            f"{b.games:,} (printed: {pr.timeouts:,} of {pr.games:,})") in md
    # the skill check plays the challenger against the printed with both players on the holdout seeds
    hs = pd.read_csv(t / "handicap_skill.csv").iloc[0]
    assert hs.candidate == b.leaves and hs.printed == pr.leaves and hs.games == 4
    assert hs.arm0 == f"{hs.best_policy}: 2 players, leaves {b.leaves}" and hs.arm3 == f"{hs.study_policy}: 2 players, leaves {pr.leaves}"

    # beside every finding that is not significant, what its sample could have found
    import re
    quiet = [m.end() for m in re.finditer(r"NOT significant|not significantly different|no evidence the seats differ|"
                                          r"not significant after Holm|not established|include 0 in every setup", md)]
    assert quiet
    for end in quiet:
        assert re.search(r"80% chance|stop overlapping", md[end:end + 400]), md[end - 80:end + 400]
    # the front page: a table per game, each question linking to its section, a verdict word per answer
    from experiments.answers import ESTABLISHED, NOISY, SUGGESTED
    head = md.split("## Contents")[0]
    for anchor in ("difficulty", "characters", "seats", "handicap", "variants"):
        assert f"](#{anchor})" in head and f'<a id="{anchor}"></a>' in md
    rows = [line for line in head.splitlines() if line.startswith("| [")]
    assert len(rows) >= 6 and all(any(v in line for v in (ESTABLISHED, SUGGESTED, NOISY)) for line in rows)
    # the range over skill is the first answer of its game's table, its question linking to the study
    bw_rows = head.split("**Bethel Woods")[1].split("**Benevolent")[0]
    first = [line for line in bw_rows.splitlines() if line.startswith("| [")][0]
    assert first.startswith("| [Win rate across skill, 2 players](#skill)") and "| 0 spies (Normal) " in first
    # beside each study player's answer, the same question at every rung on the same seeds, weakest
    # first with its value, then the word of the stronger against the study player; the answer
    # names its player and the caption the rungs
    assert "**Bethel Woods: played by heuristic (across skill: random → heuristic → search)**" in head
    win3 = [line for line in bw_rows.splitlines() if line.startswith("| [Win rate, 3 players](#difficulty)")][0]
    pooled = skill[skill["spies"] == -1].iloc[0]
    # the ± is the widest of the three values' 95% intervals in the skill table; the word first
    hw = max((pooled[f"{k}_high"] - pooled[f"{k}_low"]) / 2 for k in ("weaker", "study", "best"))
    word = SKILL_WORDS[pooled.robust]
    assert (f"{word}: all levels pooled, random {plain_pct(pooled.weaker_value)} → heuristic "
            f"{plain_pct(pooled.study_value)} → search {plain_pct(pooled.best_value)} "
            f"(n=12, ±{plain_pp(hw, sign=False).replace(' pp', '')} pp") in win3
    assert "| heuristic: Normal (0 spies) " in win3
    seat = [line for line in head.splitlines() if line.startswith("| [Seat 1's edge, printed leaves](#seats)")][0]
    assert _re_count(r"2 pl random [-+]?[\d.]+ → heuristic [-+]?[\d.]+ → search [-+]?[\d.]+(; | pp)", seat) == 1
    ss = pd.read_csv(t / "seats_skill.csv")
    assert set(ss["weaker_policy"]) == {"random"} and (ss["weaker_decided"] <= ss["games"]).all()
    # playtests to notice beside the findings: the difficulty rows (the easiest level against the
    # hardest), seat 1's edge (decided games) and each variant (games per rule set)
    assert "playtests to notice" in head
    from experiments.stats import games_to_notice
    cells = pd.read_csv(t / "difficulty_cells.csv")
    c3 = cells[(cells["policy"] == "heuristic") & (cells["players"] == 3)].sort_values("spies")
    n = games_to_notice(c3.iloc[0].win_rate, c3.iloc[-1].win_rate)
    if np.isfinite(n):
        assert f"0 spies against 3 spies: {int(n):,} games each" in head
    import re as _re
    assert _re.search(r"2 pl [\d,]+(; 3 pl [\d,]+)? decided games", head)
    assert "games per rule set" in head
    sk = pd.read_csv(t / "skill_rungs.csv")
    assert set(sk["rung"]) == {"random", "heuristic"} and (sk["games"] == 60).all() and (sk["seed"] == 16).all()
    assert "<h2>Contents</h2>" in html and 'href="#seats"' in html

    pairs = pd.read_csv(t / "variants_pairs.csv")
    r = pairs.iloc[0]
    assert r.both_won + r.only_variant_won + r.only_default_won + r.neither_won == r.games == 150
    # the default arm is the plain cell: the same wins as running that cell alone
    from policies import STUDY_PLAYER   # the study names no policy: the study player plays
    base = Cell("bethel_woods", 3, spies=0, policies=(STUDY_PLAYER["bethel_woods"],), seed=15)
    k = run_unit(base, 0, 150)
    assert r.wins_default == k[1]


def _re_count(pattern: str, text: str) -> int:
    import re
    return len(re.findall(pattern, text))


def test_assumed_components_note_names_what_is_still_assumed():
    from experiments.study.seats import assumed_components_note
    from simcore.benevolent.rules import ALTERNATIVES, Rules, load_rules, rules_from_mapping
    note = assumed_components_note(None)
    assert all(w in note for w in ("segment sides", "gray Footsteps", "forest layouts", "Dream Path",
                                    "Secret tiles"))
    assert assumed_components_note(Rules()) == note
    d = load_rules("dream-b")   # the Dream Path replaced: no longer named
    assert "Dream Path" not in assumed_components_note(d) and "segment sides" in assumed_components_note(d)
    every = rules_from_mapping({**ALTERNATIVES["sides-gray3"], **ALTERNATIVES["sides-shuffled"],
                                **ALTERNATIVES["layout-row"], **ALTERNATIVES["dream-b"],
                                **ALTERNATIVES["secrets-shift"]})
    assert assumed_components_note(every) == ""


def test_same_seed_same_tables(tiny_studies, tiny_report, tmp_path):
    out, _ = tiny_report
    studies = [load_study(tiny_studies[n]) for n in ("difficulty", "seats")]
    run_studies(studies, tmp_path / "again", threads=1, show_progress=False)
    for name in ("difficulty_cells", "difficulty_lengths", "seats_cells", "seats_seats"):
        assert (tmp_path / "again" / "tables" / f"{name}.csv").read_bytes() == \
            (out / "tables" / f"{name}.csv").read_bytes()
    # and another seed gives other games
    other = [load_study(tiny_studies["seats"], seed=99)]
    run_studies(other, tmp_path / "other", threads=1, show_progress=False)
    assert (tmp_path / "other" / "tables" / "seats_cells.csv").read_bytes() != \
        (out / "tables" / "seats_cells.csv").read_bytes()


def test_a_stopped_report_leaves_its_folder_as_it_was(tmp_path, monkeypatch):
    """Ctrl-C (or an error) in the second study: the first study's tables and charts, already made,
    are not moved in: a new folder is not left behind, and an old one keeps its files unchanged."""
    import experiments.report as R
    # what is tested is the folder, not the study: two small studies (the first runs three times)
    small = {"difficulty": 'kind = "difficulty"\npolicy = ["heuristic"]\nplayers = [2]\nspies = [0]\n'
                           'games = 30\nseed = 11\nskill_games = 0\n',
             "seats": 'kind = "seats"\npolicy = ["heuristic"]\nplayers = [2]\ngames = 30\nseed = 13\n'
                      'skill_games = 0\n'}
    studies = [load_study(write(tmp_path, f"{n}.toml", body)) for n, body in small.items()]
    real = R.run_study

    def stop_in_the_second(st, **kw):
        if st.name == "seats":
            raise KeyboardInterrupt
        return real(st, **kw)
    monkeypatch.setattr(R, "run_study", stop_in_the_second)
    with pytest.raises(KeyboardInterrupt):
        run_studies(studies, tmp_path / "new", threads=1, show_progress=False)
    assert not (tmp_path / "new").exists()
    old = tmp_path / "old"
    (old / "tables").mkdir(parents=True)
    (old / "tables" / "difficulty_cells.csv").write_text("an earlier run's table\n")
    (old / "notes.txt").write_text("mine\n")
    with pytest.raises(KeyboardInterrupt):
        run_studies(studies, old, threads=1, show_progress=False)
    assert sorted(p.relative_to(old).as_posix() for p in old.rglob("*")) == [
        "notes.txt", "tables", "tables/difficulty_cells.csv"]
    assert (old / "tables" / "difficulty_cells.csv").read_text() == "an earlier run's table\n"
    # a run that finishes writes in place: replaces the table, keeps the other file, no hidden folder left
    monkeypatch.setattr(R, "run_study", real)
    run_studies(studies[:1], old, threads=1, show_progress=False)
    assert (old / "tables" / "difficulty_cells.csv").read_text().startswith("players,")
    assert (old / "notes.txt").read_text() == "mine\n" and (old / "report.html").exists()
    assert not list(old.glob(".partial-*"))


def test_sequential_stops_at_the_target(tmp_path):
    # 3 seats: Goodman's simultaneous intervals (level 1 - 0.05/3) differ from the sequential ones
    f = write(tmp_path, "seq.toml", 'kind = "seats"\nplayers = [3]\nleaves = ["printed"]\n'
              'games = 64000\ntarget_halfwidth = 0.05\nsequential_n0 = 500\nseed = 2\n')
    st = load_study(f)
    from experiments.study import run_study
    res = run_study(st, threads=2)
    c = res.tables["cells"].iloc[0]
    assert c.games < 64000 and c.games % 500 == 0      # stopped early, at a planned look
    from experiments.stats import sequential_plan
    plan = sequential_plan(0.05, n0=500)
    assert c.games == plan.games_at(int(c.look))
    for q in (1, 2, 3):   # every seat's share of the decided games is known to the target
        assert plan.halfwidth(int(c[f"seat{q}_wins"]), int(c.decided), int(c.look)) <= 0.05
    # the seat rows carry the interval of the stopping look's level, and the report shows it
    for r in res.tables["seats"].itertuples():
        assert (r.seq_ci_low, r.seq_ci_high) == plan.interval(int(r.wins), int(r.decided), int(r.look))
    caption, shares = res.section.tables[1][:2]
    assert "sequential 95% interval per seat" in caption
    from experiments.study.common import rate_cell
    for r in res.tables["seats"].itertuples():
        assert shares[f"seat {r.seat}"].iloc[0] == rate_cell(r.wins, r.decided, r.seq_ci_low, r.seq_ci_high)
    # the findings quote the seats' sequential intervals, not the Goodman ones
    text = res.section.paragraph
    s = res.tables["seats"].sort_values("rate").iloc[-1]
    assert f"({prose_pct(s.rate)}, {prose_pct(s.seq_ci_low)} to {prose_pct(s.seq_ci_high)})" in text
    assert f"{prose_pct(s.ci_low)} to {prose_pct(s.ci_high)}" not in text
    assert "sequential 95% intervals per seat" in text and "not adjusted for the looks" in text


def test_sequential_difficulty_findings_quote_the_sequential_interval():
    from experiments.stats import independent_difference, sequential_plan
    from experiments.study.difficulty import difficulty_findings
    plan = sequential_plan(0.05, n0=500)
    df = pd.DataFrame([
        {"policy": "heuristic", "players": 3, "spies": 0, "difficulty": "Normal", "games": 1000, "wins": 270,
         "bag_empty": 500, "four_critical": 130, "six_spies": 100},
        {"policy": "heuristic", "players": 3, "spies": 5, "difficulty": "Impossible", "games": 2000, "wins": 30,
         "bag_empty": 300, "four_critical": 70, "six_spies": 1600}])
    df["win_rate"] = df["wins"] / df["games"]
    df["ci_low"], df["ci_high"] = zip(*[wilson(w, n) for w, n in zip(df["wins"], df["games"])])
    looks = [1, 2]
    df["look"] = looks
    df["seq_ci_low"], df["seq_ci_high"] = zip(*[plan.interval(w, n, k) for w, n, k in zip(df["wins"], df["games"], looks)])
    text = difficulty_findings(df, seq=True)
    lo, hi = plan.interval(270, 1000, 1)
    assert f"sequential 95% CI {prose_pct(lo)} to {prose_pct(hi)}" in text
    plain = wilson(270, 1000)
    assert f"{prose_pct(plain[0])} to" not in text     # the plain interval is not quoted after stopping
    d, dlo, dhi = independent_difference(270, 1000, 30, 2000)
    assert f"a drop of {100 * d:.1f} pp (95% CI {100 * dlo:.1f} to {100 * dhi:.1f})" in text
    # a win rate that rises with the spies is said as a rise, its interval turned round with it
    up = df.assign(wins=[30, 270 * 2], games=[1000, 2000])
    up["win_rate"] = up["wins"] / up["games"]
    up["ci_low"], up["ci_high"] = zip(*[wilson(w, n) for w, n in zip(up["wins"], up["games"])])
    d, dlo, dhi = independent_difference(30, 1000, 540, 2000)
    assert d < 0 and f"a rise of {-100 * d:.1f} pp (95% CI {-100 * dhi:.1f} to {-100 * dlo:.1f})" in \
        difficulty_findings(up, seq=False)
    assert "95% CI" in difficulty_findings(df, seq=False) and "sequential" not in difficulty_findings(df, seq=False)
    # a policy that won nothing: the bound quoted is the sequential interval's upper end
    none = df.assign(wins=0, win_rate=0.0)
    none["seq_ci_low"], none["seq_ci_high"] = zip(*[plan.interval(0, n, k) for n, k in zip(none["games"], looks)])
    assert f"at most {prose_pct(none['seq_ci_high'].max())} per level" in difficulty_findings(none, seq=True)


# --------------------------------------------------------------------------------- notebooks, browser

@pytest.mark.parametrize("name", ["bethel_woods_balance", "benevolent_seat_order"])
def test_notebooks_run_on_the_report_tables(tiny_report, tmp_path, monkeypatch, name):
    import nbformat   # dev dependencies: a missing one fails, it is never skipped
    from nbclient import NotebookClient
    from pathlib import Path
    out, _ = tiny_report
    monkeypatch.setenv("BOARDSIM_REPORT", str(out))
    monkeypatch.setenv("BOARDSIM_NOTEBOOK_OUT", str(tmp_path / "charts"))
    root = Path(__file__).resolve().parent.parent
    nb = nbformat.read(root / "notebooks" / f"{name}.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(root / "notebooks")}}).execute()
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if "image/png" in o.get("data", {})]
    assert len(images) >= 3
    assert all(p.stat().st_size > 5000 for p in (tmp_path / "charts").glob("*.png"))
    # the notebook's numbers are the report's: the same functions on the same tables
    said = json.loads(next(o["text"] for o in nb.cells[-1]["outputs"] if o.get("name") == "stdout"))
    t = out / "tables"
    md = (out / "report.md").read_text()
    if name == "bethel_woods_balance":
        from experiments.study.characters import pick_sets
        sets = pd.read_csv(t / "characters_sets.csv")
        picks = pick_sets(sets)
        for which in ("weakest", "strongest"):
            want = picks[picks["which"] == which][["policy", "players", "spies", "characters", "wins", "games"]]
            assert said[which] == want.values.tolist()
            for row in said[which]:   # the report names the same sets
                assert row[3].replace(",", ", ") in md
        eff = pd.read_csv(t / "characters_effects.csv")
        assert [r[3] for r in said["holm"]] == pytest.approx(eff["p_holm"].tolist())
    else:
        seats = pd.read_csv(t / "seats_seats.csv")
        got = pd.DataFrame(said["seats"], columns=["players", "leaves", "seat", "wins", "decided", "rate", "ci_low", "ci_high"])
        pd.testing.assert_frame_equal(got, seats[got.columns].reset_index(drop=True), check_dtype=False)
        cand = pd.read_csv(t / "handicap_candidates.csv")
        assert said["fairest"] == cand[cand["best"]][["players", "leaves"]].values.tolist()
        hold = pd.read_csv(t / "handicap_holdout.csv")
        assert said["decision"] == hold[hold["challenger"]][["players", "leaves", "decision"]].values.tolist()


def test_generated_report_renders_in_chromium(tiny_report, chromium, tmp_path):
    from test_browser import CHROMIUM_ARGS, VIEWPORTS, _images, layout_problems
    exe, sync_playwright = chromium
    out, _ = tiny_report
    html = out / "report.html"
    n_png = len(list((out / "charts").glob("*.png")))
    console, page_errors, failed = [], [], []
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=exe, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1100, "height": 900})
        try:
            page = context.new_page()
            page.on("console", lambda m: console.append((m.type, m.text)))
            page.on("pageerror", lambda e: page_errors.append(str(e)))
            page.on("requestfailed", lambda r: failed.append(r.url))
            page.goto(html.as_uri(), wait_until="load")
            imgs = _images(page)
            assert len(imgs) == n_png >= 8
            assert all(ok and w > 0 and h > 0 for ok, w, h, _, _ in imgs), imgs
            headings = page.eval_on_selector_all("h2", "els => els.map(e => e.textContent)")
            assert headings[:2] == ["Answers", "Contents"] and headings[-2:] == ["Glossary", "About this run"]
            assert len(headings) == 4 + len(TINY)
            # every contents entry leads to a heading of the page
            targets = page.eval_on_selector_all("nav.toc a", "els => els.map(e => e.getAttribute('href'))")
            assert len(targets) == len(TINY) + 2
            assert all(page.query_selector(f"{t} h2") for t in targets), targets
            shots = []
            for width, height in VIEWPORTS:
                page.set_viewport_size({"width": width, "height": height})
                assert layout_problems(page) == [], (width, layout_problems(page))
                shots.append(tmp_path / f"report-{width}.png")
                page.screenshot(path=str(shots[-1]))
            shot = shots[0]
        finally:
            context.close()
    errors = [t for kind, t in console if kind == "error"]
    assert not errors and not page_errors and not failed, (errors, page_errors, failed)
    assert shot.stat().st_size > 50_000
    print(f"\nscreenshot: {shot}")


def test_benevolent_variant_is_paired_on_the_same_seeds(tmp_path):
    from experiments.study import run_study
    write(tmp_path, "same.toml", "[benevolent]\ntimeout_rounds = 200\n")   # the default value
    write(tmp_path, "short.toml", "[benevolent]\ntimeout_rounds = 3\n")
    f = write(tmp_path, "v.toml", 'kind = "variants"\ngame = "benevolent"\nplayers = [2]\n'
              'variants = ["same.toml", "short.toml"]\ngames = 300\nseed = 4\npolicy = ["random"]\n')
    df = run_study(load_study(f), threads=1).tables["pairs"].set_index("variant")
    same = df.loc["same"]
    # the same rules on the same seeds: every game agrees, a difference of exactly 0
    assert same.only_variant_won == same.only_default_won == 0 and same["diff"] == 0.0
    assert same.wins_default == run_unit(Cell("benevolent", 2, seed=4),
                                         0, 300)[1]   # seat 1, random play (the study names it)
    short = df.loc["short"]
    assert short.only_variant_won + short.only_default_won > 0   # 3 rounds: many timeouts
    assert short.wins_variant < short.wins_default


def test_study_progress_bar_shows_games_rate_and_time_left():
    import io

    from rich.console import Console
    buf = io.StringIO()
    bar = StudyProgress("difficulty", console=Console(file=buf, force_terminal=True, width=140))
    execute([(BW, 600)], threads=1, progress=bar)
    execute([(BW, 400, 600)], threads=1, progress=bar)   # a second batch extends the same bar
    bar.close()
    text = buf.getvalue()
    assert "difficulty" in text and "1,000/1,000 games" in text
    assert "games/s" in text and "time left" in text
    assert bar.games == bar.total_games == 1000


def test_characters_study_with_a_policy_that_never_wins(tmp_path):
    """Random play wins no Bethel Woods game: there is no character effect to fit, and the study
    says so instead of failing (it used to divide by zero in the forest plot)."""
    from experiments.study import run_study
    f = write(tmp_path, "c.toml", 'kind = "characters"\npolicy = ["random"]\nplayers = [2]\n'
              'spies = [0]\ngames = 20\nseed = 3\n')
    res = run_study(load_study(f), threads=1, chart_dir=tmp_path)
    sets = res.tables["sets"]
    assert len(sets) == 28 and sets["wins"].sum() == 0 and (sets["games"] == 20).all()
    assert res.tables["effects"].empty
    assert "no character effect can be estimated" in res.section.paragraph
    assert list(tmp_path.glob("character_heatmap_random.png")) and not list(tmp_path.glob("character_forest_*"))


def test_sensitivity_study_rows_paragraph_and_progress(tmp_path):
    """The study's table is sensitivity()'s, its paragraph names the reading whose interval
    excludes 0 (losing at once on the 4th critical machine costs about 5 points at 0 spies,
    docs/sensitivity.md) as mattering and one that plays identical games as not."""
    from experiments.sensitivity import sensitivity
    from experiments.study import run_study
    f = write(tmp_path, "s.toml", 'kind = "sensitivity"\ngames = 300\nseed = 7\n'
              'only = ["four_critical=immediate", "ability_window=before_after"]\n[quick]\ngames = 30\n')
    st = load_study(f)
    from policies import STUDY_PLAYER
    assert st.game == "bethel_woods" and st.policies == [STUDY_PLAYER["bethel_woods"]] and st.opts["games"] == 300
    assert load_study(f, quick=True).opts["games"] == 30
    bar = StudyProgress(enabled=False)
    res = run_study(st, threads=2, progress=bar, chart_dir=tmp_path)
    rows = res.tables["rows"]
    direct = sensitivity("bethel_woods", 300, 7, STUDY_PLAYER["bethel_woods"], 2,
                         only=["four_critical=immediate", "ability_window=before_after"])
    pd.testing.assert_frame_equal(rows, direct)
    assert len(rows) == 12 and (rows["games"] == 300).all()
    assert bar.games == bar.total_games == 3 * 6 * 300     # defaults + 2 variants, 6 difficulties
    fc = rows[rows["variant"] == "four_critical=immediate"]
    assert (fc["ci_high"] < 0).any()                        # the case that must differ
    aw = rows[rows["variant"] == "ability_window=before_after"]
    assert (aw["only_variant"] == 0).all() and (aw["only_default"] == 0).all()
    from experiments.glossary import plain
    text = res.section.paragraph.split("\n\n", 1)[1]   # the details, after the summary
    fc_name, aw_name = plain("four_critical=immediate"), plain("ability_window=before_after")
    assert fc_name != "four_critical=immediate" and "four_critical" not in res.section.paragraph
    matter, _, dont = text.partition("Readings whose intervals include 0")
    assert fc_name in matter and aw_name not in matter
    assert aw_name in dont and fc_name not in dont
    n_ex = int((fc["ci_high"] < 0).sum() + (fc["ci_low"] > 0).sum())
    assert f"excludes 0 in {n_ex} of 6 setups" in matter
    assert (tmp_path / "sensitivity_bethel_woods.png").exists()
    # the table: one row per reading, its largest effect with both arms' counts (every setup in the CSV)
    caption, shown, link = res.section.tables[0]
    assert len(shown) == 2 and link == "tables/s_rows.csv" and set(shown["reading"]) == {fc_name, aw_name}
    for r in shown.itertuples():
        v = "four_critical=immediate" if r.reading == fc_name else "ability_window=before_after"
        g = rows[rows["variant"] == v]
        top = g.loc[g["diff"].abs().idxmax()] if not (g["p_holm"] < 0.05).any() else \
            g[g["p_holm"] < 0.05].loc[lambda d: d["diff"].abs().idxmax()]
        cell = shown.loc[r.Index, "win rate: defaults, with it"]
        assert f"{int(top.default_wins):,} of {int(top.games):,}" in cell and f"{int(top.variant_wins):,} of" in cell


def test_sensitivity_study_benevolent_counts(tmp_path):
    from experiments.sensitivity import sensitivity
    from experiments.study import run_study
    f = write(tmp_path, "s.toml", 'kind = "sensitivity"\ngame = "benevolent"\npolicy = "random"\n'
              'games = 30\nseed = 3\nonly = ["empty_gift=offered", "sides-common"]\n')
    res = run_study(load_study(f), threads=1)
    rows = res.tables["rows"]
    pd.testing.assert_frame_equal(rows, sensitivity("benevolent", 30, 3, "random", 1,
                                                    only=["empty_gift=offered", "sides-common"]))
    assert len(rows) == 6
    for r in rows.itertuples():
        assert sum(getattr(r, f"default_seat{q + 1}_wins") for q in range(r.players)) + r.default_timeouts == 30
    # every variant is named once by its plain name, in one of the lists of the details
    from experiments.glossary import plain
    details = res.section.paragraph.split("\n\n", 1)[1]
    for v in ("empty_gift=offered", "sides-common"):
        assert details.count(plain(v)) == 1 and v not in res.section.paragraph


def test_loss_findings_are_per_policy_not_pooled():
    from experiments.study.difficulty import loss_findings
    # random play loses 90 games to four critical machines, the heuristic 60 to the empty bag:
    # pooled, "four critical" would lead, but for the heuristic it is the bag
    df = pd.DataFrame([
        {"policy": "heuristic", "spies": 0, "games": 50, "wins": 10, "bag_empty": 30, "four_critical": 5, "six_spies": 5},
        {"policy": "heuristic", "spies": 5, "games": 50, "wins": 0, "bag_empty": 20, "four_critical": 0, "six_spies": 30},
        {"policy": "random", "spies": 0, "games": 50, "wins": 0, "bag_empty": 0, "four_critical": 50, "six_spies": 0},
        {"policy": "random", "spies": 5, "games": 50, "wins": 0, "bag_empty": 0, "four_critical": 40, "six_spies": 10}])
    h, r = loss_findings(df)

    def ci(k, n):   # each share with its Wilson interval
        lo, hi = wilson(k, n)
        return f", 95% CI {prose_pct(lo)} to {prose_pct(hi)}"
    assert h == ("With the heuristic player the most common end of a lost game is the malfunction bag "
                 f"running out (55.6% of 90 lost games{ci(50, 90)}); at 0 spies the malfunction bag running out "
                 f"(75.0% of 40 lost games{ci(30, 40)}), at 5 spies all 6 spies on the board (60.0% of 50 "
                 f"lost games{ci(30, 50)}).")
    assert r.startswith("With the random player the most common end of a lost game is four or more "
                        f"machines critical (90.0% of 100 lost games{ci(90, 100)})")
    # a policy that lost no game gets no sentence
    assert loss_findings(df.assign(wins=df["games"], bag_empty=0, four_critical=0, six_spies=0)) == []


def test_sensitivity_findings_separate_holm_from_chance():
    """A reading moves the answer when a row of it survives Holm's correction; one whose interval
    excludes 0 without that is listed as possibly chance. The same rule for both games (Benevolent's
    p-values are the paired bootstrap's)."""
    from experiments.study.sensitivity import sensitivity_findings
    rows = [("real", 0, -0.05, -0.06, -0.04, 1e-9), ("lucky", 2, 0.02, 0.001, 0.04, 0.6),
            ("flat", 1, 0.0, -0.01, 0.01, 1.0)]
    df = pd.DataFrame([{"game": "bethel_woods", "variant": v, "spies": sp, "players": 3, "diff": d,
                        "ci_low": lo, "ci_high": hi, "p_holm": ph, "games": 500, "seed": 7,
                        "policy": "heuristic"} for v, sp, d, lo, hi, ph in rows])
    text = sensitivity_findings(df)
    moves, _, rest = text.partition("Readings whose per-comparison interval excludes 0")
    chance, _, dont = rest.partition("Readings whose intervals include 0")
    assert "real (-5.0 pp at 0 spies" in moves and "significant after Holm's correction in 1" in moves
    assert "lucky" not in moves and "lucky (+2.0 pp at 2 spies" in chance and "real" not in chance
    assert "flat (largest difference 0.0 pp, at 1 spy)" in dont
    bv = df.assign(game="benevolent")
    text = sensitivity_findings(bv)
    moves, _, rest = text.partition("Readings whose per-comparison interval excludes 0")
    assert moves.startswith("Readings that move the largest seat gap (printed leaves), significant after "
                            "Holm's correction of the paired bootstrap's p over the 3 comparisons")
    assert "real (-5.0 pp at 3 players" in moves and "lucky" not in moves
    assert "lucky (+2.0 pp at 3 players" in rest.split("Readings whose intervals")[0]
    text = sensitivity_findings(bv.assign(p_holm=1.0))
    assert text.startswith("No reading moves the largest seat gap (printed leaves) significantly") and \
        "real (-5.0 pp" in text.split("Readings whose intervals")[0]
    # a reading that changed no game's result is said so, not "largest difference 0.0 pp"
    text = sensitivity_findings(df.assign(only_variant=[9, 3, 0], only_default=[1, 1, 0]))
    assert "flat (changed no game's result in any setup)" in text
    text = sensitivity_findings(bv.assign(changed_games=[50, 9, 0]))
    assert "flat (changed no game's winner in any setup)" in text
    text = sensitivity_findings(bv.assign(changed_games=[50, 9, 2]))
    assert "flat (largest difference 0.0 pp, at 3 players)" in text
    # timeouts that differ between the arms by 5% of the games or more are named
    text = sensitivity_findings(bv.assign(default_timeouts=[8, 8, 8], variant_timeouts=[102, 32, 33]))
    assert "real at 3 players, 102 of 500 games against 8 with the defaults" in text
    assert "flat at 3 players, 33 of 500" in text and "lucky at" not in text


def test_leaves_sort_by_their_numbers():
    df = pd.DataFrame({"gap_games": [3, 3, 3, 1], "leaves": ["0,10", "0,9", "1,2", "5,5"]})
    assert list(df.sort_values(["gap_games", "leaves"], key=leaves_order)["leaves"]) == \
        ["5,5", "0,9", "0,10", "1,2"]


def test_sensitivity_findings_quote_a_significant_row():
    """When a reading has a Holm-significant row, the effect quoted is that row's, even if a larger
    row of the same reading only has its interval exclude 0."""
    from experiments.study.sensitivity import sensitivity_findings
    rows = [("mixed", 2, 0.08, 0.01, 0.15, 0.4), ("mixed", 3, 0.05, 0.04, 0.06, 1e-6)]
    df = pd.DataFrame([{"game": "benevolent", "variant": v, "players": pl, "diff": d, "ci_low": lo,
                        "ci_high": hi, "p_holm": ph, "games": 500, "seed": 7, "policy": "heuristic"}
                       for v, pl, d, lo, hi, ph in rows])
    text = sensitivity_findings(df)
    assert "mixed (+5.0 pp at 3 players" in text and "excludes 0 in 2 of 2 setups" in text
    assert "+8.0 pp" not in text


def test_character_findings_say_when_the_order_is_not_clear():
    """The weakest character is named with the runner-up whose estimate lies inside its interval
    (Fare 0.79 and Harris 0.80 read as a clear order otherwise); a clear gap adds nothing."""
    from experiments.study.characters import characters_findings
    sets = pd.DataFrame({c: [] for c in ("policy", "players", "spies", "characters", "games", "wins",
                                          "win_rate", "ci_low", "ci_high", "vs_rest", "p_holm", "significant")})

    def effects(second):
        rows = [("Fare", 0.79, 0.73, 0.86), ("Harris", second, second - 0.06, second + 0.07),
                ("Nova", 1.0, 0.95, 1.05), ("Violet", 1.93, 1.79, 2.08)]
        return pd.DataFrame([{"policy": "heuristic", "term": t, "odds_ratio": o, "or_low": lo, "or_high": hi,
                              "p_holm": 0.5, "games": 100, "wins": 30} for t, o, lo, hi in rows])
    assert "Fare least (0.79, 0.73 to 0.86; Harris 0.80 within its interval)" in \
        characters_findings(sets, effects(0.797))
    assert "Fare least (0.79, 0.73 to 0.86);" in characters_findings(sets, effects(0.90))


def test_first_turn_losses_are_named_where_they_are_common():
    """A cell where 10% of the games or more end on the first turn is named with its interval (a
    mean game length hides it); below 10% nothing is said."""
    from experiments.study.difficulty import first_turn_findings
    rows = [("heuristic", 3, 5, 1, 185), ("heuristic", 3, 5, 20, 415),     # 185 of 600 on turn 1
            ("heuristic", 3, 0, 1, 59), ("heuristic", 3, 0, 25, 541),      # 59 of 600: under 10%
            ("random", 2, 5, 1, 367), ("random", 2, 5, 3, 233)]
    h = pd.DataFrame([dict(zip(("policy", "players", "spies", "turns", "games"), r)) for r in rows])
    text = first_turn_findings(h)
    assert f"With the heuristic player, games lost on the first turn: 3 players, 5 spies: {rate_text(185, 600)}." in text
    assert f"With the random player, games lost on the first turn: 2 players, 5 spies: {rate_text(367, 600)}." in text
    assert "0 spies" not in text
    assert first_turn_findings(h[h["spies"] == 0]) == ""
