"""`boardsim calibrate` (experiments/calibrate.py): a playtest group placed on the skill dial by
likelihood. The interval covers the true setting at its stated rate on groups simulated at known
dial settings; the command reads a playtest CSV, predicts every setup, and rejects a bad file in
one line."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from experiments.calibrate import DIAL_GRID, curve_at, fit_dial, information, read_playtests
from simcore.errors import UserError

ROOT = Path(__file__).resolve().parents[1]


def _curves():
    """Win-rate curves over the dial's grid like the bots' (falling with T), three setups."""
    t = np.asarray(DIAL_GRID)
    return np.stack([1 / (1 + np.exp(-(a - 35 * t))) for a in (0.3, -0.6, 1.0)])


def test_the_interval_covers_the_true_setting_at_its_stated_rate():
    """600 groups of 40 games at each of two setups, drawn at known dial settings from the curves
    the fit reads: the 95% likelihood-ratio interval covers the true T in at least 92% of them
    (a binomial sd of 0.9 points at 600), and the estimate sits near the truth on average."""
    p = _curves()
    rng = np.random.default_rng(4)
    hits, errs = 0, []
    reps = 200
    for t_true in (0.008, 0.02, 0.05):
        truth = curve_at(p[:2], DIAL_GRID, [t_true])[:, 0]
        for _ in range(reps):
            w = rng.binomial(40, truth)
            f = fit_dial(p[:2], DIAL_GRID, w, [40, 40], sim_games=10 ** 9)
            hits += f.t_low <= t_true <= f.t_high
            errs.append(f.t_hat - t_true)
    assert hits / (3 * reps) >= 0.92, hits / (3 * reps)
    assert abs(np.mean(errs)) < 0.005


def test_more_games_narrow_the_interval_and_the_information_is_the_slope():
    p = _curves()
    truth = curve_at(p[:1], DIAL_GRID, [0.02])[:, 0]
    small = fit_dial(p[:1], DIAL_GRID, [round(truth[0] * 40)], [40], 10 ** 9)
    big = fit_dial(p[:1], DIAL_GRID, [round(truth[0] * 640)], [640], 10 ** 9)
    assert (big.t_high - big.t_low) < 0.5 * (small.t_high - small.t_low)
    # a flat curve says nothing about T; a steeper one says more than a shallow one at the same rate
    t = np.asarray(DIAL_GRID)
    rows = np.stack([np.full(t.size, 0.4), 0.5 - 2 * t, 0.5 - 4 * t])
    info = information(rows, DIAL_GRID, 0.04)
    assert info[0] == 0 and 0 < info[1] < info[2]
    assert info[1] == pytest.approx(2 ** 2 / (0.42 * 0.58), rel=1e-6)   # slope^2 / (p (1 - p)) at p = 0.42


def test_a_group_that_wins_everything_sits_at_the_strong_end():
    p = _curves()
    f = fit_dial(p[:2], DIAL_GRID, [40, 40], [40, 40], 400)
    assert f.at_strong_end and f.t_hat == 0.0 and f.t_low == 0.0


def _write(tmp_path, text):
    f = tmp_path / "p.csv"
    f.write_text(text)
    return f


def test_read_playtests_counts_per_setup(tmp_path):
    df = read_playtests(_write(tmp_path, "Players,spies,won,note\n3,0,won,a\n3,0,lost,\n3,0,1,x\n2,5,no,\n\n"))
    assert df.values.tolist() == [[2, 5, 1, 0], [3, 0, 3, 2]]


@pytest.mark.parametrize("text, says", [
    ("players,won\n3,1\n", "no column 'spies'"),
    ("players,spies,won\n5,0,1\n", "line 2: players '5'; allowed 2, 3 or 4"),
    ("players,spies,won\n3,6,1\n", "spies '6'; allowed 0 to 5"),
    ("players,spies,won\n3,0,maybe\n", "won 'maybe'; allowed 1 or 0"),
    ("players,spies,won\n", "has no games"),
    ("", "is empty"),
])
def test_a_bad_playtest_file_is_one_line(tmp_path, text, says):
    with pytest.raises(UserError) as e:
        read_playtests(_write(tmp_path, text))
    assert says in str(e.value) and "\n" not in str(e.value)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "boardsim", "calibrate", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_the_command_places_the_docs_example_and_predicts_every_setup():
    r = _cli(str(ROOT / "docs" / "playtests_example.csv"), "--games", "30", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    dial = d["dial"]
    assert 0 <= dial["low"] <= dial["temperature"] <= dial["high"] <= DIAL_GRID[-1]
    preds = d["predictions"]
    assert len(preds) == 18 and sum(x["played"] for x in preds) == 3
    assert all(x["ci_low"] <= x["win_rate"] <= x["ci_high"] for x in preds)
    # the more spies, the fewer wins, as the bots' curves say, at every player count (estimates
    # of 30 games can tie, not turn round by much)
    for pl in (2, 3, 4):
        rates = [x["win_rate"] for x in preds if x["players"] == pl]
        assert rates[0] >= rates[-1]


@pytest.mark.parametrize("args, says", [(["missing.csv"], "does not exist"),
                                        (["docs/playtests_example.csv", "--games", "5"], "games 5: allowed 20")])
def test_bad_calibrate_input_is_one_line_and_exit_2(args, says):
    r = _cli(*args)
    assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1 and r.stdout == ""
