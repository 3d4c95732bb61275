"""The Bethel Woods search policy and the clairvoyant bound (conformance and no peeking for the
search: test_arena.py, as for every player)."""
import numpy as np
import pytest

from arena.bethel_woods.batch import seat_policies, simulate
from experiments.stats import paired_difference
from policies.bethel_woods import heuristic as H
from policies.bethel_woods import search as S
from policies.bethel_woods.decide import SEARCH, WS_SIZE, decide, default_theta, reset
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import N_ACTIONS
from simcore.bethel_woods.face import State
from simcore.errors import UserError

NO_NET = np.zeros(1)   # the search reads no network


def test_budget_zero_is_the_heuristic():
    """With no rollouts the search plays the heuristic's own plan: the very same games."""
    a = simulate(3, 1, policy="heuristic", games=40, seed=31, threads=2, keep_records=True).records
    b = simulate(3, 1, policy="search", budget=0, games=40, seed=31, threads=2, keep_records=True).records
    assert a.equals(b) and a["turns"].nunique() > 3


def test_candidates_are_distinct_plans_best_first():
    """The planner's kept plans end in distinct positions, and the best of them is the heuristic's plan."""
    g = State(3, 0, None, 5, 0)
    s = g.state.copy()
    ws = np.zeros(H.WS_SIZE, np.int32)
    H.heuristic_reset(ws)
    ws[H.W_TOPK] = 6
    H.plan_turn(s, g.params, H.THETA_DEFAULT, ws)
    nt = ws[H.W_TN]
    assert 2 <= nt <= 6
    ends = [ws[H.W_TST + i * H.S_SIZE: H.W_TST + (i + 1) * H.S_SIZE].copy() for i in range(nt)]
    stats = [E.ST_FIXED, E.ST_UNCOV, E.ST_DECISIONS]
    keyed = {tuple(np.delete(e, stats)) for e in ends}
    assert len(keyed) == nt, "the kept plans end in distinct positions"
    for i, e in enumerate(ends):   # each kept end is where its path leads
        st = s.copy()
        for a in ws[H.W_TPATH + i * H.PATH_MAX:][:ws[H.W_TPL + i]]:
            E.apply(st, g.params, a)
        assert (st == e).all()
    best = int(np.argmax(ws[H.W_TSC:H.W_TSC + nt]))
    assert ws[H.W_TSC + best] == ws[H.W_BEST]
    pl = ws[H.W_TPL + best]
    assert list(ws[H.W_TPATH + best * H.PATH_MAX:][:pl]) == list(ws[H.W_PLAN:H.W_PLAN + pl])


def test_search_decision_depends_on_its_own_key_only():
    """The search samples the unknowns from its decision key: the same key gives the same decision,
    and over many keys a contested first decision is not always the same (it really samples)."""
    g = State(3, 0, None, 2, 3)
    s, p = g.state.copy(), g.params
    acts = np.zeros(N_ACTIONS, np.int32)
    n = E.legal_actions(s, p, acts)
    theta = default_theta(SEARCH)
    q = int(E.current_player(s))
    out = []
    for k in range(12):
        ws = np.zeros(WS_SIZE, np.int32)
        reset(SEARCH, theta, q, ws)
        a1 = decide(SEARCH, s.copy(), p, theta, NO_NET, q, acts, n, np.uint64(1000 + k), ws)
        ws2 = np.zeros(WS_SIZE, np.int32)
        a2 = decide(SEARCH, s.copy(), p, theta, NO_NET, q, acts, n, np.uint64(1000 + k), ws2)
        assert a1 == a2 and a1 in acts[:n]
        assert ws[S.X_NROLL] == (theta[S.T_BUDGET] // theta[S.T_CANDIDATES]) * ws[H.W_TN], "budget // candidates each"
        out.append(a1)
    assert len(set(out)) > 1
    assert np.array_equal(ws[:H.WS_SIZE], ws2[:H.WS_SIZE])


def test_same_records_on_one_and_two_threads():
    a = simulate(3, 0, policy="search", budget=4, games=6, seed=8, threads=1, keep_records=True).records
    b = simulate(3, 0, policy="search", budget=4, games=6, seed=8, threads=2, keep_records=True).records
    assert a.equals(b)


def test_clairvoyant_is_stronger_than_the_honest_search():
    """Handed the game's chance key, the same search wins measurably more of the same games
    (McNemar on the paired games). If it did not, the honest search would be peeking, or the
    clairvoyant would not be getting the key."""
    n = 24
    honest = simulate(3, 0, policy="search", budget=4, games=n, seed=77, threads=2, keep_records=True).records
    clair = simulate(3, 0, policy="clairvoyant", games=n, seed=77, threads=2, keep_records=True).records
    d = paired_difference(clair["won"].values, honest["won"].values)
    assert d.diff > 0 and d.ci_low > 0 and d.pvalue < 0.01


def test_budget_is_checked():
    with pytest.raises(UserError, match="budget"):
        seat_policies("heuristic", 3, budget=4)
    with pytest.raises(UserError, match="budget -1"):
        seat_policies("search", 3, budget=-1)
    pols, thetas = seat_policies("search", 3, budget=12)
    assert (thetas[:, S.T_BUDGET] == 12).all() and (thetas[:, :len(H.THETA_DEFAULT)] == H.THETA_DEFAULT).all()


def test_cli_budget_and_json_names_the_policy():
    import json

    from typer.testing import CliRunner

    from boardsim.cli import app
    run = lambda *a: CliRunner().invoke(app, ["bethel-woods", "simulate", "--games", "2", "--threads", "2", "--json", *a])
    r4, r8 = run("--policy", "search", "--budget", "4"), run("--policy", "search")
    assert r4.exit_code == 0 and r8.exit_code == 0, r4.output + r8.output
    d4, d8 = (json.loads(next(x for x in r.stdout.splitlines() if x.startswith("{"))) for r in (r4, r8))
    assert (d4["policy"], d4["budget"], d4["policy_label"]) == ("search", 4, "search(4)")
    assert d8["budget"] == S.BUDGET_DEFAULT and d4["theta_hash"] != d8["theta_hash"]
    bad = run("--policy", "heuristic", "--budget", "4")
    assert bad.exit_code == 2 and "--budget is for policies search, expert only" in bad.output


def test_trace_records_the_budget_it_played():
    """A trace names the policy as tables do, with the search's budget (the default when none is
    given) and the parameters' hash; the same game with another budget says so."""
    from arena.bethel_woods.trace import record_game
    from arena.units import theta_hash

    two = record_game(3, 0, None, "search", 3, 0, budget=2)[0]
    dflt = record_game(3, 0, None, "search", 3, 0)[0]
    heur = record_game(3, 0, None, "heuristic", 3, 0)[0]
    assert (two["budget"], two["policy_label"]) == (2, "search(2)")
    assert (dflt["budget"], dflt["policy_label"]) == (S.BUDGET_DEFAULT, f"search({S.BUDGET_DEFAULT})")
    assert two["theta_hash"] != dflt["theta_hash"]  # the budget is part of the search's theta
    assert heur["budget"] is None and heur["theta_hash"] == theta_hash(default_theta(1))
