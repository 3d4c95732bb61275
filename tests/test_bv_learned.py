"""Benevolent's learned player (policy `learned`, the study player) and expert (the best honest
player): features, the distinct plans, the value and repetition term it plays by, no repetition
loops, the model file, and that each is stronger than the player below it."""
import json

import numpy as np
import pytest

from arena.benevolent.batch import parse_policies, rotate_seats, seat_nets, simulate
from experiments.stats import wilson
from policies import value_model as VM
from policies.benevolent import expert as X
from policies.benevolent import heuristic as H
from policies.benevolent import learned as L
from policies.benevolent.decide import LEARNED, WS_SIZE, decide, reset
from policies.benevolent.features import FEATURE_NAMES, NF, features
from simcore.benevolent import engine as E
from simcore.benevolent.actions import N_ACTIONS, OUT_WIN, PH_TERMINAL
from simcore.benevolent.face import setup_config
from simcore.benevolent.rules import Rules
from simcore.common import PLAYER_TERMINAL
from simcore.errors import UserError
from simcore.rng import STREAM_CHANCE, stream_key

NO_NET = np.zeros(1)   # the heuristic reads no network (the plug point's signature has one)


def _positions(games=3, players=2):
    """Positions at the start of every turn of heuristic self-play games."""
    p = Rules().params
    out = []
    for g in range(games):
        s = np.zeros(E.S_SIZE, np.int32)
        E.setup(s, p, setup_config(players, (1, 3, 4, 5)[:players]), np.uint64(stream_key(np.uint64(11), g, STREAM_CHANCE)))
        ws = np.zeros(WS_SIZE, np.int32)
        acts = np.zeros(N_ACTIONS, np.int32)
        theta = np.zeros(L.THETA_SIZE)
        theta[:H.N_THETA] = H.THETA_DEFAULT
        turn = -1
        while E.current_player(s) != PLAYER_TERMINAL and s[E.TURN] < 60:
            if s[E.TURN] != turn:
                turn = s[E.TURN]
                out.append(s.copy())
            n = E.legal_actions(s, p, acts)
            E.apply(s, p, H.heuristic_action(s, p, theta, NO_NET, E.current_player(s), acts, n, np.uint64(0), ws))
    return p, out


def test_features_read_the_heuristic_and_the_kept_plans_end_in_distinct_positions():
    p, positions = _positions()
    theta = L.learned_theta()
    ws = np.zeros(L.WS_SIZE, np.int32)
    fv = np.zeros(NF)
    st = np.zeros(E.S_SIZE, np.int32)
    checked = 0
    for s in positions[::3]:
        me = s[E.CUR]
        nc = L.plan_candidates(s, p, theta, me, ws, 8)
        assert 1 <= nc <= 8
        ends = []
        for c in range(nc):
            H.end_of(s, p, ws, c, st)
            assert H.kept_hash(ws, c) == E.position_hash(st)   # the search's hash of the end, kept
            ends.append(st.copy())
            if st[E.PHASE] == PH_TERMINAL:
                continue
            features(st, p, theta, me, fv)
            assert fv[FEATURE_NAMES.index("h_eval")] == H.evaluate(st, p, theta, me)   # bit for bit
            kinds = sum(1 for g in range(5) if st[E.pl(me) + E.L_GIFTS + g] > 0)
            assert fv[FEATURE_NAMES.index("p0_kinds")] == kinds
            checked += 1
        for i in range(len(ends)):   # distinct mode: no two kept plans end in the same position
            for j in range(i):
                assert E.position_hash(ends[i]) != E.position_hash(ends[j])
        # the best plan is the heuristic's own best (distinct mode only drops duplicates)
        hw = np.zeros(H.WS_SIZE, np.int32)
        H.heuristic_reset(hw)
        assert H.search_turn(s, p, theta, me, hw, 1, 0.0, np.uint64(0)) == 1
        assert ws[H.W_CSC] == hw[H.W_CSC]
    assert checked > 50


def test_h_eval_is_the_heuristics_evaluation_bit_for_bit():
    """features combines h_eval from its per-player blocks (heuristic.player_sum,
    heuristic.opponents_term) instead of calling heuristic.evaluate: the same float, for every
    seat, at every kept plan's end of 2-4 player games."""
    theta = L.learned_theta()
    fv = np.zeros(NF)
    st = np.zeros(E.S_SIZE, np.int32)
    i_h = FEATURE_NAMES.index("h_eval")
    checked = 0
    for players, games in ((2, 4), (3, 3), (4, 3)):
        p, positions = _positions(games, players)
        ws = np.zeros(L.WS_SIZE, np.int32)
        for s in positions:
            me = int(s[E.CUR])
            nc = L.plan_candidates(s, p, theta, me, ws, 8)
            for c in range(nc):
                H.end_of(s, p, ws, c, st)
                if st[E.PHASE] == PH_TERMINAL:
                    continue
                for seat in range(players):
                    features(st, p, theta, seat, fv)
                    assert fv[i_h] == H.evaluate(st, p, theta, seat)
                    checked += 1
    assert checked > 1000


def _net_value(net, x):
    z = (x - net["mean"]) / net["scale"]
    return float(np.maximum(z @ net["W1"] + net["b1"], 0.0) @ net["W2"] + net["b2"])


def test_the_learned_player_plays_the_plan_of_highest_value_less_its_repetitions():
    """Recomputed outside the compiled player: the model file's network in numpy, and the
    repetition table kept here from what seat 0 saw."""
    net = L.model_record()
    p = Rules().params
    names, pols, thetas = parse_policies(None, ["learned", "heuristic"], 2)
    nets = seat_nets(pols)   # seat 0's: the installed model's, as read into `net` above
    assert np.array_equal(nets[0][:VM.packed_size(NF, net["hidden"])], VM.packed(net))
    theta = thetas[0]
    lam = theta[L.T_LAM]
    seen_turns = 0
    for g in range(4):
        s = np.zeros(E.S_SIZE, np.int32)
        E.setup(s, p, setup_config(2, (1, 3)), np.uint64(stream_key(np.uint64(5), g, STREAM_CHANCE)))
        ws = np.zeros((2, WS_SIZE), np.int32)
        for q in range(2):
            reset(pols[q], thetas[q], q, ws[q])
        acts = np.zeros(N_ACTIONS, np.int32)
        seen = {}
        turn = -1
        while E.current_player(s) != PLAYER_TERMINAL:
            q = E.current_player(s)
            n = E.legal_actions(s, p, acts)
            if q == 0 and s[E.TURN] != turn:
                turn = s[E.TURN]
                h0 = int(E.position_hash(s))
                seen[h0] = seen.get(h0, 0) + 1
                cw = np.zeros(L.WS_SIZE, np.int32)
                nc = L.plan_candidates(s, p, theta, 0, cw, int(theta[L.T_K]))
                vals, paths, ends = [], [], []
                st = np.zeros(E.S_SIZE, np.int32)
                fv = np.zeros(NF)
                for c in range(nc):
                    H.end_of(s, p, cw, c, st)
                    paths.append(cw[H.W_CPATH + c * H.DEPTH_MAX: H.W_CPATH + c * H.DEPTH_MAX + cw[H.W_CPL + c]].copy())
                    ends.append(st.copy())
                    if st[E.PHASE] == PH_TERMINAL and st[E.OUTCOME] == OUT_WIN:
                        vals.append(1e6 if st[E.WINNER] == 0 else -1e6)
                        continue
                    features(st, p, theta, 0, fv)
                    vals.append(_net_value(net, fv) - lam * seen.get(int(E.position_hash(st)), 0))
                a = decide(LEARNED, s, p, theta, nets[0], 0, acts, n, np.uint64(0), ws[0])
                plan = ws[0][H.W_PLAN: H.W_PLAN + ws[0][H.W_PLAN_N]]
                played = [c for c in range(nc) if len(paths[c]) == len(plan) and (paths[c] == plan).all()]
                assert played and a == plan[0]
                assert max(vals[c] for c in played) >= max(vals) - 1e-6
                c = played[0]
                if ends[c][E.PHASE] != PH_TERMINAL:
                    he = int(E.position_hash(ends[c]))
                    seen[he] = seen.get(he, 0) + 1
                seen_turns += 1
            else:
                a = decide(pols[q], s, p, thetas[q], nets[q], q, acts, n, np.uint64(0), ws[q])
            E.apply(s, p, a)
    assert seen_turns > 40


def test_no_repetition_loops_where_the_heuristic_has_them():
    """The heuristic's self-play times out (the gift loop, docs/policies.md); the learned
    player's does not, on the same deals, at every player count."""
    h = simulate(2, None, games=300, seed=7, policies=["heuristic", "heuristic"])
    lr = simulate(2, None, games=300, seed=7, policies=["learned", "learned"])
    assert h.timeouts >= 3
    assert lr.timeouts < h.timeouts and lr.timeouts / lr.games < 0.005
    for players in (3, 4):
        s = simulate(players, None, games=100, seed=7, policies=["learned"] * players)
        assert s.timeouts / s.games < 0.005


def test_the_installed_model_beats_the_heuristic_and_the_expert_beats_the_learned_player():
    w, _ = rotate_seats("learned", "heuristic", 2, 60, 101)
    won = int((w[0] == 0).sum() + (w[1] == 1).sum())
    assert wilson(won, 120)[0] > 0.5
    w, _ = rotate_seats("expert", "learned", 2, 10, 3)
    won = int((w[0] == 0).sum() + (w[1] == 1).sum())
    assert wilson(won, 20)[0] > 0.5


def test_expert_without_rollouts_is_the_learned_players_choice_among_as_many_plans():
    te = X.expert_theta(reps=0)
    tl = L.learned_theta(k=X.K_DEFAULT)
    a = simulate(2, None, games=12, seed=4, policies=["expert", "expert"], thetas=[te, te], keep_records=True)
    b = simulate(2, None, games=12, seed=4, policies=["learned", "learned"], thetas=[tl, tl], keep_records=True)
    assert a.records[["winner", "turns", "decisions"]].equals(b.records[["winner", "turns", "decisions"]])
    full = simulate(2, None, games=12, seed=4, policies=["expert", "expert"], keep_records=True)
    assert not full.records[["winner", "turns", "decisions"]].equals(a.records[["winner", "turns", "decisions"]])


def test_expert_rollouts_cut_short_by_the_learned_value():
    """theta[T_DEPTH]: 0 plays every rollout on to its end (the expert as it was); a depth longer
    than a rollout may last (T_HMAX turns) is the same games; the default depth plays other games."""
    def recs(depth=None):
        th = None if depth is None else [X.expert_theta(depth=depth)] * 2
        return simulate(2, None, games=6, seed=4, policies=["expert", "expert"], thetas=th,
                        keep_records=True).records[["winner", "turns", "decisions"]]
    full = recs(0)
    assert recs(X.HMAX_DEFAULT + 1).equals(full)
    assert X.DEPTH_DEFAULT > 0 and recs().equals(recs(X.DEPTH_DEFAULT)) and not recs().equals(full)


def test_a_model_file_of_another_game_or_cut_short_is_one_line(tmp_path):
    from policies.bethel_woods.learned import MODEL_PATH as BW_MODEL
    other = tmp_path / "bw.json"
    other.write_text(BW_MODEL.read_text())
    with pytest.raises(UserError, match="is for game 'bethel_woods', not 'benevolent'.*boardsim train benevolent"):
        L.model_record(other)
    cut = tmp_path / "cut.json"
    cut.write_text(L.MODEL_PATH.read_text()[:5000])
    with pytest.raises(UserError, match="not complete JSON") as e:
        L.model_record(cut)
    assert "\n" not in str(e.value)
    assert json.loads(L.MODEL_PATH.read_text())["game"] == "benevolent"


def test_train_benevolent_is_reproducible_from_its_seed_and_refuses_bad_values(tmp_path):
    """Two tiny runs of `boardsim train benevolent` with one seed write the same model file; another
    seed another; the model reads back as a Benevolent model; bad values are one line, exit 2."""
    from typer.testing import CliRunner
    from boardsim.cli import app

    def run(seed, name, *more):
        args = ["train", "benevolent", "--games", "6", "--iterations", "2", "--reps", "2", "--validate-games", "4",
                "--confirm-games", "4", "--seed", str(seed), "--threads", "2", "--no-install",
                "--record", str(tmp_path / f"{name}.json"), "--model", str(tmp_path / f"{name}.model.json"), *more]
        return CliRunner().invoke(app, args)

    a, b, c = run(4, "a"), run(4, "b"), run(5, "c")
    assert a.exit_code == b.exit_code == c.exit_code == 0, a.output
    ma, mb, mc = ((tmp_path / f"{n}.model.json").read_text() for n in "abc")
    assert json.loads(ma)["sha256"] == json.loads(mb)["sha256"] != json.loads(mc)["sha256"]
    rec = json.loads((tmp_path / "a.json").read_text())
    assert [r["seed"] for r in rec["rounds"]] == [4000, 4001] and rec["confirmation"]["seed"] == 4999
    assert rec["players"] == [2] and rec["rounds"][0]["labelled_plans"] > 0
    assert L.model_record(tmp_path / "a.model.json")["hidden"] >= 1
    for bad, words in ((["--spies", "1"], "Benevolent has no spies"), (["--players", "5"], "players 5"),
                       (["--reps", "31"], "reps 31")):
        r = run(4, "bad", *bad)
        assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1, r.output
        assert not (tmp_path / "bad.json").exists() and not (tmp_path / "bad.model.json").exists()
