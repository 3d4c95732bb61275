"""The arena (one compiled play loop per game) and the policy plug point, for every game x policy:
conformance (Pgx's api_test, OpenSpiel's random-simulation test) and no peeking."""
import json

import numpy as np
import pytest

import arena.benevolent.batch as bv_batch
import arena.benevolent.trace as bv_trace
import arena.bethel_woods.batch as bw_batch
import arena.bethel_woods.trace as bw_trace
import policies.benevolent.decide as bv_decide
import policies.tuned as tuned_mod
import policies.bethel_woods.decide as bw_decide
from policies import NOT_PLAYERS, POLICIES, policy_id
from policies.tuned import tuned_available
from simcore.benevolent import face as bv_face
from simcore.bethel_woods import face as bw_face
from simcore.common import PLAYER_CHANCE, PLAYER_TERMINAL

GAMES = {
    "bethel_woods": dict(
        record=lambda policy, seed, gi: bw_trace.record_game(3, 2, None, policy, seed, gi),
        simulate=lambda policy, seed, n: bw_batch.simulate(3, 2, policy=policy, games=n, seed=seed, threads=2,
                                                           keep_records=True).records,
        end=lambda rec: (str(rec["outcome"]), int(rec["turns"])),
        trace_end=lambda line: (line["outcome"], line["turns"]),
        face=bw_face, decide=bw_decide),
    "benevolent": dict(
        record=lambda policy, seed, gi: bv_trace.record_game(3, None, policy, seed, gi),
        simulate=lambda policy, seed, n: bv_batch.simulate(3, policy=policy, games=n, seed=seed, threads=2,
                                                           keep_records=True).records,
        end=lambda rec: (int(rec["winner"]), int(rec["turns"])),
        trace_end=lambda line: (-1 if line["winner"] is None else line["winner"], line["turns"]),
        face=bv_face, decide=bv_decide),
}
# every policy; `tuned` (the heuristic's code with the weights `boardsim tune` installs) of Bethel
# Woods only once a confirmed tuned vector is in the package: without one it is a one-line error,
# not a player. Benevolent's `tuned` always: with no vector installed the tests install one of their
# own in a temporary file (the bv_tuned fixture).
CASES = [(g, p) for g in GAMES for p in POLICIES[g] if not (g == "bethel_woods" and p == "tuned" and not tuned_available("bethel_woods"))]
# the players: every policy but the measuring sticks handed the chance key (the clairvoyant; it has
# its own test in test_bw_search.py that it is stronger than the honest search)
PLAYERS = [(g, p) for g, p in CASES if p not in NOT_PLAYERS[g]]
# games of the conformance test; fewer for policies that search with rollouts
CONFORMANCE_GAMES = {("benevolent", "search"): 4, ("bethel_woods", "search"): 4, ("bethel_woods", "clairvoyant"): 4,
                     ("bethel_woods", "expert"): 4, ("benevolent", "expert"): 4}
# games of the no-peeking test (a decision on a fresh workspace plans the turn again: with rollouts for the expert)
NO_PEEK_GAMES = {("bethel_woods", "expert"): 1, ("benevolent", "expert"): 1}


@pytest.fixture(autouse=True)
def bv_tuned(tmp_path, monkeypatch):
    """Benevolent's tuned weights: the installed ones, or (none installed) a confirmed record of
    other weights than the defaults in a temporary file, so that `tuned` is always tested."""
    if tuned_mod.tuned_available("benevolent"):
        return
    from policies.benevolent.heuristic import THETA_DEFAULT, THETA_NAMES
    theta = THETA_DEFAULT.copy()
    theta[THETA_NAMES.index("spare")] = 0.0
    f = tmp_path / "tuned.json"
    f.write_text(json.dumps({"confirmed": True, "theta": dict(zip(THETA_NAMES, map(float, theta)))}))
    monkeypatch.setitem(tuned_mod.PATHS, "benevolent", f)


def positions(game, trace):
    """Replay a trace on the Python face; yield (position array, seat, legal actions, recorded
    action) at every decision, checking the engine API on the way."""
    G = GAMES[game]
    face = G["face"]
    g = face.State.from_position(trace[0]["position"], rules=None)
    for line in trace[1:]:
        if line["type"] == "chance":
            assert g.current_player() == PLAYER_CHANCE
            probs = g.chance_probabilities()
            assert abs(probs.sum() - 1) < 1e-9 and probs[line["outcome"]] > 0
            g.apply_chance(line["outcome"])
        elif line["type"] == "decision":
            q = g.current_player()
            assert q == line["player"] and q >= 0
            legal = g.legal_actions()
            assert legal, "a decision step must have a legal action"
            yield g.state.copy(), q, legal, line["action"]
            g.apply(line["action"])
    assert g.current_player() == PLAYER_TERMINAL


@pytest.mark.parametrize("game, policy", CASES)
def test_conformance(game, policy):
    G = GAMES[game]
    n = CONFORMANCE_GAMES.get((game, policy), 12)
    rec = G["simulate"](policy, 9, n)
    for gi in range(0, n, 3):
        trace = G["record"](policy, 9, gi)  # every action is applied through the checked State.apply
        assert trace == G["record"](policy, 9, gi), "same seed, same game"
        assert sum(1 for _ in positions(game, trace)) == sum(1 for x in trace if x["type"] == "decision")
        assert G["trace_end"](trace[-1]) == G["end"](rec.iloc[gi]), "the batch record is the traced game"


@pytest.mark.parametrize("game, policy", PLAYERS)
def test_no_peeking(game, policy):
    """A decision depends only on what the players know: the state is exactly its public JSON view
    (nothing hidden is stored), and the decision on the state rebuilt from that view is the same.
    No policy receives the chance key: decide has no argument for it."""
    G = GAMES[game]
    face, dec = G["face"], G["decide"]
    pid = policy_id(policy, game)
    p = face.State(3).params if game == "benevolent" else face.State(3, 2).params
    theta = dec.default_theta(pid)
    net = dec.seat_nets(np.array([pid]))[0]   # the installed model's where the policy reads one
    key = np.uint64(12345)
    acts = np.zeros(256, np.int32)
    n_checked = 0
    for gi in range(NO_PEEK_GAMES.get((game, policy), 3)):
        for s, q, legal, _ in positions(game, G["record"](policy, 4, gi)):
            view = face.from_dict(face.to_dict(s))
            assert face.to_dict(view) == face.to_dict(s)
            if game == "bethel_woods":  # (Benevolent's Footstep slots may come back in another order)
                assert (view == s).all(), "the state holds something its public view does not show"
            acts[:len(legal)] = legal
            a = dec.decide(pid, s, p, theta, net, q, acts, len(legal), key, np.zeros(dec.WS_SIZE, np.int32))
            b = dec.decide(pid, view, p, theta, net, q, acts, len(legal), key, np.zeros(dec.WS_SIZE, np.int32))
            assert a == b and a in legal
            n_checked += 1
    assert n_checked > 20
    import inspect
    assert "chance" not in " ".join(inspect.signature(dec.decide.py_func).parameters)
