"""`boardsim tune benevolent` and policy `tuned` of Benevolent (tiny runs: the figures of the real
run are in docs/policies.md)."""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

import policies.tuned as tuned_mod
from arena.benevolent.batch import rotate_seats, simulate
from arena.units import theta_hash
from boardsim.cli import app
from experiments.stats import paired_difference, paired_difference_by_deal
from experiments.tune import bv_reference_wins, bv_rotated_wins, confirm_benevolent
from policies import policy_id
from policies.benevolent.decide import TUNED, default_theta
from policies.benevolent.heuristic import THETA_BOUNDS, THETA_DEFAULT, THETA_NAMES
from simcore.errors import UserError

# all weights 0: only a win is worth anything, so it plays the first plan it finds otherwise
WEAK = np.zeros(len(THETA_NAMES))


def _write_record(path, theta, confirmed=True):
    rec = {"game": "benevolent", "confirmed": confirmed, "theta": {n: float(v) for n, v in zip(THETA_NAMES, theta)}}
    path.write_text(json.dumps(rec))
    return rec


@pytest.fixture
def tuned_path(tmp_path, monkeypatch):
    """policies/benevolent/tuned.json pointed at a temporary file (nothing in the package is touched)."""
    p = tmp_path / "tuned.json"
    monkeypatch.setitem(tuned_mod.PATHS, "benevolent", p)
    return p


def test_default_rotations_are_one_game_and_the_reference_is_that_game():
    # with the default weights in every seat the rotations coincide: what the defaults "win in the
    # candidate's seats" is one win per deal that did not time out
    w, _ = rotate_seats("heuristic", "heuristic", 2, 12, seed=5, threads=2)
    assert (w[0] == w[1]).all()
    a = bv_rotated_wins(THETA_DEFAULT, 2, 12, 5, threads=2)
    b = bv_reference_wins(2, 12, 5, threads=2)
    assert a.shape == b.shape == (12, 2) and (a == b).all()
    assert (b.sum(axis=1) == (w[0] >= 0)).all()
    # another vector in seat 1 only: rotation 0 plays it in seat 1, rotation 1 in seat 2
    s = simulate(2, None, games=12, seed=5, threads=2, policies=["heuristic"] * 2, keep_records=True, thetas=[WEAK, None])
    w2, _ = rotate_seats("heuristic", "heuristic", 2, 12, seed=5, threads=2, theta_a=WEAK)
    assert (s.records["winner"].to_numpy() == w2[0]).all()
    with pytest.raises(UserError, match="theta of seat 1"):
        from policies.benevolent.decide import THETA_SIZE
        simulate(2, None, games=2, seed=5, policies=["heuristic"] * 2, thetas=[np.zeros(THETA_SIZE + 1), None])


def test_paired_difference_by_deal_takes_the_deal_as_the_unit():
    rng = np.random.default_rng(3)
    deals = 400
    # the reference: exactly one seat of two wins each deal (as in the all-default game)
    b0 = rng.random(deals) < 0.5
    b = np.stack([b0, ~b0], axis=1)
    a = rng.random((deals, 2)) < 0.55
    d = paired_difference_by_deal(a, b)
    assert d.diff == pytest.approx(a.mean() - b.mean())
    assert d.ci_low < d.diff < d.ci_high and d.n == 2 * deals
    assert d.only_a == int((a & ~b).sum()) and d.only_b == int((~a & b).sum())
    # the seats of a deal are negatively correlated in b: the per-game interval (which treats the
    # two as independent) is wider than the per-deal one
    g = paired_difference(a.ravel(), b.ravel())
    assert g.diff == pytest.approx(d.diff)
    assert (d.ci_high - d.ci_low) < (g.ci_high - g.ci_low)
    same = paired_difference_by_deal(b, b)
    assert (same.diff, same.pvalue) == (0, 1.0) and same.ci_low < 0 < same.ci_high
    # every deal the same difference (a wins every game, b none): not a point interval, and it
    # agrees with the sign test on the deals (p = 2 / 2^deals): 0 is excluded from 6 deals on
    for deals in (2, 5, 6, 10):
        tiny = paired_difference_by_deal(np.ones((deals, 2), bool), np.zeros((deals, 2), bool))
        assert tiny.diff == 1 and tiny.ci_high == 1 and tiny.ci_low < 1
        assert tiny.pvalue == pytest.approx(2 / 2 ** deals)
        assert (tiny.ci_low > 0) == (tiny.pvalue < 0.05) == (deals >= 6)
    # the bound at 10 deals: the Clopper-Pearson lower bound s of 10/10, the rest of the deals at -1
    s = 0.025 ** (1 / 10)
    assert paired_difference_by_deal(np.ones((10, 2), bool), np.zeros((10, 2), bool)).ci_low == pytest.approx(2 * s - 1)
    # equal differences that are not equal floats (1 - 1/3 and 2/3 - 0) are still found equal
    a3 = np.array([[1, 1, 1], [1, 1, 0]] * 5, bool)
    b3 = np.array([[1, 0, 0], [0, 0, 0]] * 5, bool)
    odd = paired_difference_by_deal(a3, b3)
    assert odd.diff == pytest.approx(2 / 3) and odd.ci_high - odd.ci_low > 0.5
    assert odd.pvalue == pytest.approx(2 * (5 / 3) ** -10)
    # with a difference below 1 in every deal, p and the interval still agree on every count of
    # deals (the sign test's 2 / 2^deals did not: 9 deals of d = 0.5 gave p 0.004 and an interval
    # holding 0)
    for deals in range(2, 40):
        half = paired_difference_by_deal(np.array([[1, 0]] * deals, bool), np.zeros((deals, 2), bool))
        assert half.diff == 0.5 and (half.ci_low > 0) == (half.pvalue < 0.05), deals
    with pytest.raises(ValueError):
        paired_difference_by_deal(a.ravel(), b.ravel())


def test_confirmation_confirms_only_a_better_vector():
    # the defaults against the weak weights: confirmed; the weak weights against the defaults: not
    up, a, b = confirm_benevolent(THETA_DEFAULT, 2, 40, seed=9, threads=2, reference=WEAK)
    assert a.shape == (20, 2) and up.ci_low > 0 and up.pvalue < 0.01
    down, _, _ = confirm_benevolent(WEAK, 2, 40, seed=9, threads=2)
    assert down.ci_high < 0
    same, a, b = confirm_benevolent(THETA_DEFAULT, 2, 40, seed=9, threads=2)
    assert (a == b).all() and not same.ci_low > 0


def _tiny(tmp_path, name, seed=2, extra=()):
    rec = tmp_path / name
    args = ["tune", "benevolent", "--players", "2", "--budget-games", "200", "--games-per-candidate", "20",
            "--popsize", "4", "--seed", str(seed), "--confirm-games", "40", "--sigma0", "0.1", "--threads", "2",
            "--record", str(rec), *extra]
    res = CliRunner().invoke(app, args)
    return res, rec


def test_cli_tiny_tuning_writes_the_record_and_installs_only_when_confirmed(tmp_path, tuned_path):
    res, rec_file = _tiny(tmp_path, "run.json")
    assert res.exit_code == 0, res.output
    rec = json.loads(rec_file.read_text())
    # 4 candidates x 20 games + the defaults' 10 deals = 90 games a generation: 2 in 200
    assert rec["game"] == "benevolent" and rec["generations"] == 2 and rec["tuning_games"] == 180
    assert rec["deals_per_candidate"] == 10 and len(rec["history"]) == 2
    c = rec["confirmation"]
    assert c["games"] == 40 and c["deals"] == 20 and c["seed"] not in [h["seed"] for h in rec["history"]]
    assert rec["confirmed"] == (c["diff_ci95"][0] > 0)
    # the defaults' figure: the all-default game on the generation's deals, one win per deal without timeout
    h0 = rec["history"][0]
    assert h0["default_wins"] == int(bv_reference_wins(2, 10, h0["seed"], threads=2).sum())
    assert h0["default_wins"] <= 10 and h0["best_wins"] <= 20
    th = np.array([rec["theta"][n] for n in THETA_NAMES])
    assert np.all(th >= THETA_BOUNDS[:, 0]) and np.all(th <= THETA_BOUNDS[:, 1]) and not np.allclose(th, THETA_DEFAULT)
    # the confirmation's figures are the tuned vector's games on the fresh deals
    a = bv_rotated_wins(th, 2, 20, c["seed"], threads=2)
    assert c["tuned_wins"] == int(a.sum())
    assert tuned_path.exists() == rec["confirmed"]
    # the same seed gives the same record (but for the clock)
    res2, rec_file2 = _tiny(tmp_path, "again.json", extra=("--no-install",))
    assert res2.exit_code == 0, res2.output
    rec2 = json.loads(rec_file2.read_text())
    for r in (rec, rec2):
        r.pop("date"), r.pop("tuning_seconds")
    assert rec == rec2


@pytest.mark.parametrize("confirmed", [True, False])
def test_cli_installs_a_confirmed_vector_only(tmp_path, tuned_path, monkeypatch, confirmed):
    theta = THETA_DEFAULT.copy()
    theta[THETA_NAMES.index("spare")] = 0.0
    fake = {"game": "benevolent", "confirmed": confirmed, "theta": dict(zip(THETA_NAMES, map(float, theta)))}
    monkeypatch.setattr("boardsim.cli.tune.tune_benevolent", lambda *a, **k: fake)   # what the command calls
    res, rec_file = _tiny(tmp_path, "run.json")
    assert res.exit_code == 0, res.output
    assert json.loads(rec_file.read_text()) == fake
    assert tuned_path.exists() == confirmed
    if confirmed:
        assert "installed" in res.output and (tuned_mod.tuned_theta("benevolent") == theta).all()
    else:
        assert "nothing installed" in res.output
        with pytest.raises(UserError, match="no tuned weights"):
            tuned_mod.tuned_theta("benevolent")


@pytest.mark.parametrize("args, needle", [
    (["--budget-games", "50"], "less than one generation"),
    (["--players", "5"], "players 5"),
    (["--players", "1"], "players 1"),
    (["--games-per-candidate", "21"], "multiple of 2"),
    (["--confirm-games", "3"], "confirm-games 3"),
    (["--spies", "1"], "spies 1"),
    (["--sigma0", "0"], "sigma0 0"),
])
def test_cli_bad_input_is_a_one_line_error(tmp_path, tuned_path, args, needle):
    rec = tmp_path / "run.json"
    res = CliRunner().invoke(app, ["tune", "benevolent", "--games-per-candidate", "20", "--popsize", "4",
                                   "--confirm-games", "40", "--record", str(rec), *args])
    assert res.exit_code == 2 and needle in res.output and len(res.output.strip().splitlines()) == 1, res.output
    assert not rec.exists() and not tuned_path.exists()


def test_policy_tuned_is_the_heuristic_with_the_installed_weights(tuned_path, tmp_path):
    assert policy_id("tuned", "benevolent") == TUNED
    # none installed: a one-line error
    res = CliRunner().invoke(app, ["benevolent", "simulate", "--players", "2", "--policies", "tuned,heuristic",
                                   "--games", "4"])
    assert res.exit_code == 2 and "no tuned weights" in res.output and "boardsim tune benevolent" in res.output
    _write_record(tuned_path, WEAK, confirmed=False)
    with pytest.raises(UserError, match="not confirmed"):
        default_theta(TUNED)
    theta = THETA_DEFAULT.copy()
    theta[THETA_NAMES.index("opp_win_next")] = 0.0
    _write_record(tuned_path, theta)
    assert (default_theta(TUNED)[:len(theta)] == theta).all()
    res = CliRunner().invoke(app, ["benevolent", "simulate", "--players", "2", "--policies", "tuned,heuristic",
                                   "--games", "30", "--seed", "4", "--threads", "2", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    ref = simulate(2, None, games=30, seed=4, threads=2, policies=["heuristic"] * 2, thetas=[theta, None])
    assert d["policies"] == ["tuned", "heuristic"] and d["seat_wins"] == ref.seat_wins[:2]
    # the JSON says which weights played
    assert d["theta_hashes"] == [theta_hash(default_theta(TUNED)), theta_hash(default_theta(policy_id("heuristic", "benevolent")))]
    assert d["theta_hashes"][0] != d["theta_hashes"][1]
    trace = tmp_path / "g.jsonl"  # never the default game.jsonl in the folder the tests run from
    res = CliRunner().invoke(app, ["benevolent", "play", "--players", "2", "--policies", "heuristic,tuned", "--seed", "4",
                                   "--trace", str(trace)])
    assert res.exit_code == 0, res.output
    assert json.loads(trace.read_text().splitlines()[0])["policies"] == ["heuristic", "tuned"]


def test_the_installed_tuned_vector_if_any_is_a_confirmed_record():
    """policies/benevolent/tuned.json, when the package has one, is a confirmed record of the tuner
    (its theta is what policy `tuned` plays)."""
    if not tuned_mod.tuned_path("benevolent").exists():
        assert not tuned_mod.tuned_available("benevolent")
        return
    rec = tuned_mod.tuned_record("benevolent")
    assert rec["game"] == "benevolent" and rec["confirmed"] and rec["confirmation"]["diff_ci95"][0] > 0
    th = np.array([rec["theta"][n] for n in THETA_NAMES])
    assert (default_theta(TUNED)[:len(th)] == th).all()


def test_ladder_has_a_tuned_rung_only_when_one_is_installed(tuned_path):
    from experiments.ladder import bv_rungs
    assert [r[0] for r in bv_rungs()] == ["random", "heuristic", "search(8)", "learned", "expert"]
    _write_record(tuned_path, THETA_DEFAULT)
    assert [r[0] for r in bv_rungs()] == ["random", "heuristic", "tuned", "search(8)", "learned", "expert"]
