"""The learned value's batched evaluation (issue 43): ``value_model.values`` evaluates a decision's
kept plans four at a time over padded feature rows. It must be the network (a plain numpy forward
pass), give each position the same number whatever row it sits in, and leave the learned players'
choices what they were when every kept plan was valued one at a time by ``value_model.value``
(the screen plus the exact values of the plans near the top), on many positions of both games."""
import numpy as np
import pytest
from test_bv_learned import _positions as bv_positions
from test_learned import turn_starts as bw_positions

from policies import value_model as VM
from policies.benevolent import heuristic as VH
from policies.benevolent import learned as VL
from policies.bethel_woods import heuristic as BH
from policies.bethel_woods import learned as BL
from simcore.benevolent import engine as VE


def _net(nf, nh, rng):
    return {"mean": rng.normal(size=nf), "scale": rng.uniform(0.5, 2.0, size=nf), "W1": rng.normal(size=(nf, nh)),
            "b1": rng.normal(size=nh), "W2": rng.normal(size=nh), "b2": float(rng.normal()), "hidden": nh}


def _plain(net, x):
    return net["b2"] + np.maximum(0, ((x - net["mean"]) / net["scale"]) @ net["W1"] + net["b1"]) @ net["W2"]


@pytest.mark.parametrize("nf,nh", [(63, 31), (120, 32), (63, 1), (17, 1), (16, 5), (3, 2)])
def test_the_batched_network_is_the_forward_pass_and_a_rows_value_is_its_own(nf, nh):
    """values() and value() agree with numpy's forward pass (to 1e-9) for the shipped shapes and
    for shapes whose padding the weights after the last row cannot cover (17 features, 1 unit);
    a position's value is bit for bit the same in any row, next to any other rows."""
    rng = np.random.default_rng(nf * 1000 + nh)
    net = _net(nf, nh, rng)
    theta = np.concatenate([[7.0, 8.0, 9.0], VM.pack(net["mean"], net["scale"], net["W1"], net["b1"], net["W2"], net["b2"])])
    st = VM.stride(nf)
    assert st % VM.LANES == 0 and nf <= st < nf + VM.LANES
    k = 16
    xs = rng.normal(size=(k, nf)) * (rng.random((k, nf)) < 0.7)
    X = np.zeros((k, st))
    X[:, :nf] = xs
    out = np.zeros(k)
    VM.values(X.ravel(), st, k, theta, 3, out)
    h = np.zeros(st)
    for c in range(k):
        want = _plain(net, xs[c])
        assert out[c] == pytest.approx(want, rel=1e-9, abs=1e-9)
        assert VM.value(xs[c], theta, 3, h) == pytest.approx(want, rel=1e-9, abs=1e-9)
    # the rows shuffled, other rows' contents changed, fewer rows asked for: each value the same bits
    perm = rng.permutation(k)
    Y = X[perm].copy()
    out2 = np.full(k, np.nan)
    VM.values(Y.ravel(), st, k, theta, 3, out2)
    assert np.array_equal(out2, out[perm])
    for c in range(k):
        Z = np.zeros((4, st))
        Z[:, :nf] = rng.normal(size=(4, nf))
        Z[c % 4] = X[c]
        one = np.zeros(4)
        VM.values(Z.ravel(), st, 1, theta, 3, one)
        assert one[c % 4] == out[c]


@pytest.mark.parametrize("nf,nh", [(63, 31), (120, 32), (17, 1), (3, 2)])
def test_the_sparse_screen_is_the_forward_pass_and_its_copy_follows_the_network(nf, nh):
    """values_sparse() agrees with numpy's forward pass and with values() (to 1e-12) on rows that
    are mostly zero and differ from row 0 in a few features; transposed() copies the first layer
    again when theta holds another network (and not when it holds the same one)."""
    rng = np.random.default_rng(nf * 1000 + nh + 1)
    st = VM.stride(nf)
    WT = np.zeros(nf * nh)
    meta = np.zeros(VM.meta_size())
    acc = np.zeros(2 * nh + 2 * nf)
    for round_ in range(2):   # a second network in the same scratch: the copy is made again
        net = _net(nf, nh, rng)
        theta = np.concatenate([[7.0, 8.0, 9.0], VM.pack(net["mean"], net["scale"], net["W1"], net["b1"], net["W2"],
                                                          net["b2"])])
        k = 9
        x0 = rng.normal(size=nf) * (rng.random(nf) < 0.3)
        xs = np.tile(x0, (k, 1))
        for c in range(1, k):
            d = rng.random(nf) < 0.1
            xs[c, d] = rng.integers(-3, 4, size=d.sum())
        X = np.zeros((k + 3, st))
        X[:k, :nf] = xs
        VM.transposed(theta, 3, WT, meta)
        assert np.array_equal(WT.reshape(nf, nh), np.asarray(theta[5:5 + nf * nh]).reshape(nh, nf).T)
        out = np.full(k, np.nan)
        VM.values_sparse(X.ravel(), st, k, theta, 3, WT, acc, out)
        dense = np.zeros(k + 3)
        VM.values(X.ravel(), st, k, theta, 3, dense)
        for c in range(k):
            assert out[c] == pytest.approx(_plain(net, xs[c]), rel=1e-9, abs=1e-9)
            assert abs(out[c] - dense[c]) <= 1e-12 * (1 + abs(dense[c]))
        before = WT.copy()
        WT[0] += 1.0                      # the same network again: the copy is kept as it is
        VM.transposed(theta, 3, WT, meta)
        assert WT[0] == before[0] + 1.0
        WT[0] = before[0]


def test_bethel_woods_choices_are_the_plan_by_plan_ones():
    """On the turn starts of 2-4 player games with 0-5 spies, the learned player's choice
    (``best_plan``: the screen, then the exact values near the top) is the first kept plan of the
    highest ``plan_value``, every time; the screen is within 1e-12 of plan_value and
    ``exact_value`` is plan_value bit for bit."""
    theta, net = BL.learned_theta(), BL.learned_net()
    ws = np.zeros(BL.WS_SIZE, np.int32)
    vals = np.zeros(BH.K_CAND)
    checked = ties = 0
    for players, spies, games in ((3, 0, 40), (2, 3, 20), (4, 5, 20), (4, 1, 20)):
        p, positions = bw_positions(players, spies, games, seed=21, every=1)
        for s in positions:
            nc = BL.plan_candidates(s, p, theta, ws)
            if nc < 2:
                continue
            old = [BL.plan_value(p, net, ws, c) for c in range(nc)]
            BL.screen_values(p, net, ws, nc, vals)
            assert vals[:nc] == pytest.approx(old, rel=1e-12, abs=1e-12)
            assert [BL.exact_value(p, net, ws, c) for c in range(nc)] == old
            want = int(np.argmax(old))            # the first of the highest, as the plan-by-plan loop took it
            assert BL.best_plan(p, net, ws, nc) == want
            ws2 = np.zeros(BL.WS_SIZE, np.int32)
            BL.choose(s, p, theta, net, ws2)
            n = ws[BH.W_TPL + want]
            assert list(ws2[BH.W_PLAN: BH.W_PLAN + n]) == list(ws[BH.W_TPATH + want * BH.PATH_MAX:][:n])
            top2 = sorted(old)[-2:]
            ties += top2[0] == top2[1]
            checked += 1
    assert checked > 1500
    assert ties > 50        # positions where two kept plans share the best value: the first is played


def _bv_plan_by_plan(s, p, theta, net, me, ws, nc):
    """The Benevolent learned player's choice valuing every kept plan with plan_value (its loop
    before issue 43): the first win at once, else the first of the highest."""
    best, bv = 0, -1.0e300
    for c in range(nc):
        v = VL.plan_value(s, p, theta, net, me, ws, c)
        if v >= 1.0e6:
            return c
        if v > bv:
            best, bv = c, v
    return best


def test_benevolent_choices_are_the_plan_by_plan_ones():
    """On the turn starts of 2-4 player heuristic games, with positions already seen in the
    repetition table, the learned player keeps the plan that valuing every kept plan with
    plan_value finds, every time, and leaves the chosen end's hash for it."""
    theta, net = VL.learned_theta(), VL.learned_net()
    k = int(theta[VL.T_K])
    vals = np.zeros(VH.K_MAX)
    checked = 0
    for players, games in ((2, 12), (3, 6), (4, 6)):
        p, positions = bv_positions(games, players)
        ws = np.zeros(VL.WS_SIZE, np.int32)
        ws2 = np.zeros(VL.WS_SIZE, np.int32)
        VL.learned_reset(ws)
        VL.learned_reset(ws2)
        for s in positions:
            me = int(s[VE.CUR])
            nc = VL.plan_candidates(s, p, theta, me, ws, k)
            if nc < 2:
                continue
            want = _bv_plan_by_plan(s, p, theta, net, me, ws, nc)
            w = VL.screen_values(s, p, theta, net, me, ws, nc, vals)
            if w < 0:
                old = [VL.plan_value(s, p, theta, net, me, ws, c) for c in range(nc)]
                assert vals[:nc] == pytest.approx(old, rel=1e-12, abs=1e-12)
            got = VL.choose(s, p, theta, net, me, ws2, k)
            assert got == want
            VL.plan_end(s, p, ws, want)
            assert list(ws2[VL.L_CT:VL.L_CH + 2]) == list(ws[VL.L_CT:VL.L_CH + 2])
            for w_ in (ws, ws2):             # the table grows as in play: the chosen end is seen
                VL.hist_add(w_, np.uint64(VE.position_hash(s)))
            checked += 1
    assert checked > 400
