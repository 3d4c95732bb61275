"""The learned player of Bethel Woods: its features, its network, its model file, its choices."""
import json

import numpy as np
import pytest

from policies import value_model as VM
from policies.bethel_woods import expert as X
from policies.bethel_woods import heuristic as H
from policies.bethel_woods import learned as L
from policies.bethel_woods.features import FEATURE_NAMES, NF, features
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import N_ACTIONS, PH_PRE, PH_TERMINAL
from simcore.bethel_woods.face import setup_config
from simcore.bethel_woods.rules import Rules
from simcore.common import PLAYER_CHANCE, PLAYER_TERMINAL
from simcore.errors import UserError
from simcore.rng import STREAM_CHANCE, stream_key

NO_NET = np.zeros(1)   # the heuristic reads no network (the plug point's signature has one)


def turn_starts(players, spies, games, seed=3, every=3):
    """Positions where a player starts a turn, from heuristic games."""
    p = Rules().params
    cfg = setup_config(players, spies)
    out = []
    ws = np.zeros(H.WS_SIZE, np.int32)
    acts = np.zeros(N_ACTIONS, np.int32)
    for g in range(games):
        s = np.zeros(E.S_SIZE, np.int32)
        ck = np.uint64(stream_key(seed, g, STREAM_CHANCE))
        E.setup(s, p, cfg, ck)
        H.heuristic_reset(ws)
        k = 0
        while True:
            q = E.current_player(s)
            if q == PLAYER_TERMINAL:
                break
            if q == PLAYER_CHANCE:
                E.apply_chance(s, p, E.chance_outcome(s, p, ck))
                continue
            if s[E.PHASE] == PH_PRE and s[E.CUR] == q:
                k += 1
                if k % every == 0:
                    out.append(s.copy())
            n = E.legal_actions(s, p, acts)
            E.apply(s, p, H.heuristic_action(s, p, H.THETA_DEFAULT, NO_NET, q, acts, n, np.uint64(0), ws))
    return p, out


def test_the_first_features_are_the_heuristics_evaluation():
    """features[:24] are heuristic.evaluate's features: with the default weights their dot
    product (and the four-critical penalty) is evaluate's score, on every kept plan's end of
    positions from 2 to 4 players and 0 to 5 spies. (A planted error in a shared feature fails.)"""
    theta = L.learned_theta()
    ws = np.zeros(L.WS_SIZE, np.int32)
    fv = np.zeros(NF)
    compared = 0
    for players, spies in ((2, 0), (3, 2), (4, 5), (3, 0)):
        p, positions = turn_starts(players, spies, 6)
        for s in positions:
            nc = L.plan_candidates(s, p, theta, ws)
            for c in range(nc):
                end = ws[H.W_TST + c * H.S_SIZE: H.W_TST + (c + 1) * H.S_SIZE].copy()
                if end[E.PHASE] == PH_TERMINAL:
                    continue
                ncrit = features(end, p, ws, fv)
                score = H.evaluate(end, p, H.THETA_DEFAULT, ws)
                mine = float(fv[:24] @ H.THETA_DEFAULT) + (H.LOSS_SCORE if ncrit >= E.CRITICAL_LOSS_AT else 0.0)
                assert mine == pytest.approx(score, rel=1e-9, abs=1e-9)
                assert ncrit == fv[FEATURE_NAMES.index("critical")]
                compared += 1
    assert compared > 300


def _random_net(nf, nh, rng):
    return {"mean": rng.normal(size=nf), "scale": rng.uniform(0.5, 2.0, size=nf), "W1": rng.normal(size=(nf, nh)),
            "b1": rng.normal(size=nh), "W2": rng.normal(size=nh), "b2": float(rng.normal()), "hidden": nh}


def test_the_packed_network_is_the_plain_forward_pass():
    rng = np.random.default_rng(0)
    for nh in (1, 7, 32):
        net = _random_net(NF, nh, rng)
        theta = np.concatenate([[5.0, 6.0], VM.pack(net["mean"], net["scale"], net["W1"], net["b1"], net["W2"], net["b2"])])
        h = np.zeros(128)
        for _ in range(20):
            x = rng.normal(size=NF) * (rng.random(NF) < 0.7)   # zeros, as most features are
            plain = net["b2"] + np.maximum(0, ((x - net["mean"]) / net["scale"]) @ net["W1"] + net["b1"]) @ net["W2"]
            assert VM.value(x, theta, 2, h) == pytest.approx(plain, rel=1e-9, abs=1e-9)


@pytest.fixture
def model_file(tmp_path):
    net = _random_net(NF, 8, np.random.default_rng(1))
    path = tmp_path / "learned.json"
    path.write_text(VM.model_text("bethel_woods", FEATURE_NAMES, net, {"seed": 1}))
    return path, net


def test_a_model_file_reads_back_as_written(model_file):
    path, net = model_file
    got = L.model_record(path)
    for k in ("mean", "scale", "W1", "b1", "W2"):
        assert np.array_equal(got[k], net[k])
    assert got["b2"] == net["b2"] and got["hidden"] == 8 and got["training"] == {"seed": 1}
    a = L.learned_net(got)   # the network array: packed (nf, nh, the weights), zeros after
    assert len(a) == L.NET_SIZE and a[0] == NF and a[1] == 8 and not a[VM.packed_size(NF, 8):].any()
    assert np.array_equal(a[:VM.packed_size(NF, 8)], VM.packed(got))
    t = L.learned_theta()
    assert t[L.T_K] == L.K_DEFAULT and len(t) == L.THETA_SIZE


def _edit(path, fn):
    obj = json.loads(path.read_text())
    fn(obj)
    path.write_text(json.dumps(obj))


@pytest.mark.parametrize("damage, words", [
    (lambda p: p.unlink(), "no learned model"),
    (lambda p: p.write_text(p.read_text()[: len(p.read_text()) // 2]), "not complete JSON"),
    (lambda p: p.write_bytes(b"\xff\xfe\x00garbage"), "not complete JSON"),
    (lambda p: p.write_text("[1, 2, 3]"), "not a boardsim value model"),
    (lambda p: _edit(p, lambda o: o.update(version=99)), "version 99"),
    (lambda p: _edit(p, lambda o: o.update(game="benevolent")), "for game 'benevolent'"),
    (lambda p: _edit(p, lambda o: o.update(features=o["features"][:-1])), "other features"),
    (lambda p: _edit(p, lambda o: o["W2"].__setitem__(0, o["W2"][0] + 1.0)), "does not match its sha256"),
    (lambda p: _edit(p, lambda o: o.update(W2=o["W2"][:-1])), "wrong shape"),
    (lambda p: _edit(p, lambda o: o.pop("b1")), "lacks or mangles"),
    (lambda p: _edit(p, lambda o: o["b1"].__setitem__(0, "NaN")), "not finite numbers"),
    (lambda p: _edit(p, lambda o: o["b1"].__setitem__(0, "x")), "lacks or mangles"),
])
def test_a_bad_model_file_is_one_line_naming_the_file_and_the_command(model_file, damage, words):
    path, _ = model_file
    damage(path)
    with pytest.raises(UserError) as e:
        L.model_record(path)
    msg = str(e.value)
    assert words in msg and "\n" not in msg and str(path) in msg and L.COMMAND in msg


def test_a_directory_is_not_a_model(tmp_path):
    with pytest.raises(UserError, match="not a regular file"):
        L.model_record(tmp_path)


def test_the_learned_player_plays_the_kept_plan_of_highest_value():
    """Its plan is the kept plan whose end the network values most (recomputed here in numpy from
    the model file), a win first; and a plan leaving four machines critical only if all do."""
    net = L.model_record()
    theta, netv = L.learned_theta(), L.learned_net(net)
    ws = np.zeros(L.WS_SIZE, np.int32)
    fv = np.zeros(NF)
    checked = 0
    for players, spies in ((3, 0), (2, 3), (4, 1)):
        p, positions = turn_starts(players, spies, 4, seed=8)
        for s in positions:
            nc = L.plan_candidates(s, p, theta, ws)
            if nc < 2:
                continue
            vals = []
            for c in range(nc):
                end = ws[H.W_TST + c * H.S_SIZE: H.W_TST + (c + 1) * H.S_SIZE].copy()
                if end[E.PHASE] == PH_TERMINAL:
                    vals.append(np.inf)
                    continue
                ncrit = features(end, p, ws, fv)
                v = net["b2"] + np.maximum(0, ((fv - net["mean"]) / net["scale"]) @ net["W1"] + net["b1"]) @ net["W2"]
                vals.append(v - (1e6 if ncrit >= 4 else 0))
            ws2 = np.zeros(L.WS_SIZE, np.int32)
            L.choose(s, p, theta, netv, ws2)
            want = int(np.argmax(vals))
            plan = list(ws2[H.W_PLAN: H.W_PLAN + ws2[H.W_PLAN_N] - 1])
            kept = list(ws[H.W_TPATH + want * H.PATH_MAX: H.W_TPATH + want * H.PATH_MAX + ws[H.W_TPL + want]])
            assert plan[:len(kept)] == kept
            checked += 1
    assert checked > 50


def test_the_installed_model_beats_the_heuristic():
    """A guard on the shipped model file: on 600 paired games at 3 players, 0 spies, the learned
    player wins more than the heuristic (McNemar p < 0.01); a broken or untrained model does not."""
    from arena.bethel_woods.batch import simulate
    from experiments.stats import paired_difference
    a = simulate(3, 0, policy="learned", games=600, seed=11, threads=2, keep_records=True)
    b = simulate(3, 0, policy="heuristic", games=600, seed=11, threads=2, keep_records=True)
    d = paired_difference(a.records["won"].to_numpy(), b.records["won"].to_numpy())
    assert d.diff > 0 and d.pvalue < 0.01


def test_expert_budget_zero_is_the_learned_players_choice():
    """With no rollouts the expert plays what the learned player plays (the same games)."""
    from arena.bethel_woods.batch import simulate
    a = simulate(3, 1, policy="expert", budget=0, games=30, seed=5, threads=2, keep_records=True)
    b = simulate(3, 1, policy="learned", games=30, seed=5, threads=2, keep_records=True)
    assert a.records.drop(columns=[]).equals(b.records)


def test_expert_rollouts_cut_short_by_the_learned_value():
    """theta[T_DEPTH]: 0 plays every rollout to the end (the expert as it was); a depth longer than
    any game is the same games; a short depth scores each rollout by the learned value, a chance of
    winning in [0, 1], and plays other games."""
    from arena.units import Cell, run_unit

    def counts(depth, n=8):
        return run_unit(Cell("bethel_woods", 3, spies=1, policies=("expert",),
                             theta=tuple(X.expert_theta(depth=depth)), seed=6), 0, n)
    full = counts(0)
    assert np.array_equal(counts(1000), full)
    d = X.DEPTH_DEFAULT
    assert np.array_equal(run_unit(Cell("bethel_woods", 3, spies=1, policies=("expert",), seed=6), 0, 8), counts(d))
    assert d > 0 and not np.array_equal(counts(d), full)
    # the score at a position where a seat is about to plan: the value of its best kept plan, clipped
    p, positions = turn_starts(3, 1, 3)
    theta, net = X.expert_theta(), L.learned_net()
    ws = np.zeros(X.WS_SIZE, np.int32)
    seen = []
    for s in positions:
        v = X._end_value(s.copy(), p, theta, net, ws[X.LWS:2 * X.LWS])
        nc = L.plan_candidates(s.copy(), p, theta, ws[0:X.LWS])
        best = max(L.plan_value(p, net, ws[0:X.LWS], c) for c in range(nc))
        assert 0.0 <= v <= 1.0 and v == pytest.approx(min(1.0, max(0.0, best)))
        seen.append(v)
    assert len(set(seen)) > 3   # a value, not a constant


def test_train_is_reproducible_from_its_seed_and_refuses_bad_values(tmp_path):
    """Two tiny runs of `boardsim train` with one seed write the same model file, byte for byte;
    another seed another model; bad values are one-line errors, exit 2, nothing written."""
    from typer.testing import CliRunner
    from boardsim.cli import app

    def run(seed, name, *more):
        args = ["train", "bethel-woods", "--players", "3", "--spies", "1", "--games", "12", "--iterations", "2",
                "--reps", "2", "--validate-games", "20", "--confirm-games", "20", "--seed", str(seed), "--threads", "2",
                "--no-install", "--record", str(tmp_path / f"{name}.json"), "--model", str(tmp_path / f"{name}.model.json"),
                *more]
        return CliRunner().invoke(app, args)

    a, b, c = run(4, "a"), run(4, "b"), run(5, "c")
    assert a.exit_code == b.exit_code == c.exit_code == 0, a.output
    ma, mb, mc = ((tmp_path / f"{n}.model.json").read_text() for n in "abc")
    assert json.loads(ma)["sha256"] == json.loads(mb)["sha256"] != json.loads(mc)["sha256"]
    rec = json.loads((tmp_path / "a.json").read_text())
    assert [r["seed"] for r in rec["rounds"]] == [4000, 4001] and rec["confirmation"]["seed"] == 4999
    assert rec["rounds"][0]["labelled_plans"] > 0 and L.model_record(tmp_path / "a.model.json")["hidden"] >= 1
    for bad, words in ((["--reps", "31"], "reps 31"), (["--label-prob", "0"], "label-prob 0"),
                       (["--hidden", "0"], "hidden 0"), (["--players", "5"], "players 5")):
        r = run(4, "bad", *bad)
        assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1, r.output
        assert not (tmp_path / "bad.json").exists() and not (tmp_path / "bad.model.json").exists()
