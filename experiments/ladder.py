"""The skill ladder: every policy of a game on the same seeds, side by side, each rung against the
rung below with a paired 95% interval and a p-value (McNemar's for Bethel Woods, a t-test over
the deals for Benevolent).

Bethel Woods (cooperative): rungs random, heuristic, tuned (when a confirmed tuned vector is in
the package), search at two or three budgets (a skill trace: does doubling the budget still
help?), then the clairvoyant bound (the search handed the chance key: not a player). Every rung
plays games 0..N-1 of the same seed, so game i of every rung faces the same chance key (common
random numbers; chance is keyed by event, so the draws agree as long as the bag does). A rung's
``diff_vs_below`` is its win rate minus the rung below's, on the same games:
``experiments.stats.paired_difference`` (Newcombe's square-and-add interval for paired
proportions, exact McNemar test on the discordant games).

Benevolent (competitive, 2 players): rungs random, heuristic, tuned (when a confirmed tuned
vector is in the package), search (``bv_rungs``). Each pair of policies plays the same N deals twice, seats swapped. A rung's ``wins`` /
``win_rate`` are its wins against the rung below over those 2N games; ``diff_vs_below`` is its win
rate against the rung below minus the rung below's win rate against it, paired by (deal, seat)
(the same seat on the same deal, the two policies in it). The two slots of a deal are not
independent pairs (without timeouts they show the same difference), so the deal is the unit:
the t interval of the per-deal differences and the one-sample t-test, or when every deal shows
the same difference the bound of ``stats.constant_mean_interval`` and the p it inverts
(``experiments.stats.paired_difference_by_deal``; before 2026-12-01 McNemar's test and the
square-and-add interval on the 2N slots, which counted every deal twice).
``vs`` holds every policy's record against every other one (seats rotated, same deals).
"""
from __future__ import annotations

import time

import numpy as np

from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW, game as game_of

from .stats import paired_difference, paired_difference_by_deal, signed, wilson

BW_BUDGETS = (4, 8, 16)   # the search's skill trace: each budget doubles the one before


def _diff(a, b):
    d = paired_difference(a, b)
    return d.diff, [d.ci_low, d.ci_high], d.pvalue, d.only_a, d.only_b


def _diff_by_deal(a, b):
    """The Benevolent rungs' difference: a and b hold 2N games as _head_to_head gives them (seat
    0 of deals 0..N-1, then seat 1), paired by (deal, seat). Without timeouts both slots of a deal
    show the same difference (a's two games decide both), so the slots are not independent pairs:
    the deal is the unit (``paired_difference_by_deal``: t interval and t-test over the deals)."""
    n = a.size // 2
    d = paired_difference_by_deal(a.reshape(2, n).T, b.reshape(2, n).T)
    return d.diff, [d.ci_low, d.ci_high], d.pvalue, d.only_a, d.only_b


def rungs(game, budgets, model: bool = False):
    """(label, policy, budget) of a game's ladder, weakest first: random, heuristic, tuned (only
    when a confirmed tuned vector is in the package), the search at each budget, learned and expert
    (only when a learned model is in the package or given, `model`; the expert labelled with its rollouts when it has
    a fixed budget), then what is not a player (Bethel Woods' clairvoyant bound)."""
    from policies import NOT_PLAYERS, POLICIES
    from policies.registry import modules
    from policies.tuned import tuned_available
    g = game_of(game)
    rungs = [("random", "random", None), ("heuristic", "heuristic", None)]
    if "tuned" in POLICIES[g.name] and tuned_available(g.name):
        rungs.append(("tuned", "tuned", None))
    rungs += [(f"search({b})", "search", b) for b in budgets]
    if model or modules(g).learned.learned_available():
        budget = getattr(modules(g).expert, "BUDGET_DEFAULT", None)
        rungs += [("learned", "learned", None), ("expert" if budget is None else f"expert({budget})", "expert", None)]
    rungs += [(p, p, None) for p in NOT_PLAYERS[g.name]]
    return rungs


def bw_rungs(budgets=BW_BUDGETS, model: bool = False):
    """The Bethel Woods ladder's rungs (``rungs``)."""
    return rungs(BW, budgets, model)


REFERENCE = "search(8)"   # the rung every other is also compared with (the players issue's yardstick)


def ladder_bethel_woods(players=3, spies=0, games=1000, seed=7, threads=None, budgets=BW_BUDGETS,
                        progress_factory=None, say=None, reference=REFERENCE, net=None):
    """One dict per rung (see the module doc). Every rung is also compared with the rung named
    `reference` (when it is on the ladder), paired on the same games, and its speed is given as a
    ratio to the heuristic's in the same run. net: the learned and expert players' network instead
    of the installed model's (`ladder --model`: a model file's)."""
    from arena.bethel_woods.batch import policy_label, simulate
    from arena.units import theta_hash
    from arena.runner import check_run, check_threads
    from policies import NOT_PLAYERS
    from simcore.bethel_woods.face import check_setup_args
    check_setup_args(players, spies)   # every argument checked before the first rung plays
    check_run(games, seed)
    check_threads(threads)
    rows = []
    wons = {}
    below = None
    for label, policy, budget in bw_rungs(budgets, model=net is not None):
        if say:
            say(f"rung {label}: {games:,} games")
        t0 = time.perf_counter()
        s = simulate(players, spies, None, policy, games, seed, threads, keep_records=True, budget=budget,
                     progress=progress_factory() if progress_factory else None, net=net)
        won = s.records["won"].to_numpy()
        lo, hi = wilson(s.wins, s.games)
        row = {"policy": label, "name": policy, "budget": budget, "label": policy_label(policy, budget),
               "player": policy not in NOT_PLAYERS[BW.name], "theta_hash": theta_hash(s.theta, s.net),
               "games": s.games, "wins": s.wins, "win_rate": s.win_rate, "ci95": [lo, hi],
               "diff_vs_below": None, "diff_ci95": None, "p_value": None, "only_this": None, "only_below": None,
               "games_per_second": s.games_per_second, "seconds": time.perf_counter() - t0,
               "players": players, "spies": spies, "seed": seed, "threads": s.threads}
        if below is not None:
            d, ci, p, oa, ob = _diff(won, below)
            row.update(diff_vs_below=d, diff_ci95=ci, p_value=p, only_this=oa, only_below=ob)
        rows.append(row)
        wons[label] = won
        below = won
    base = next((r for r in rows if r["policy"] == "heuristic"), None)
    for r in rows:
        r["reference"] = reference if reference in wons else None
        r["diff_vs_reference"] = r["reference_ci95"] = r["reference_p_value"] = None
        if reference in wons and r["policy"] != reference:
            d, ci, p, _, _ = _diff(wons[r["policy"]], wons[reference])
            r.update(diff_vs_reference=d, reference_ci95=ci, reference_p_value=p)
        r["speed_vs_heuristic"] = r["games_per_second"] / base["games_per_second"] if base else None
    return rows


BV_BUDGETS = (8,)   # the Benevolent search's budgets on the ladder (its own default is 32; 8 is the yardstick)


def bv_rungs(budgets=BV_BUDGETS, model: bool = False):
    """The Benevolent ladder's rungs (``rungs``)."""
    return rungs(BV, budgets, model)


def _bv_theta(policy, budget):
    """A Benevolent policy's parameter vector as the ladder plays it (the search at `budget`)."""
    from policies import policy_id
    from policies.benevolent.decide import default_theta
    from policies.benevolent.search import T_BUDGET
    th = default_theta(policy_id(policy, BV.name))
    if budget is not None:
        th[T_BUDGET] = int(budget)
    return th


def _head_to_head(a, b, players, games, seed, threads, progress_factory=None, theta_a=None, theta_b=None, net=None):
    """a against b on the same deals, seats swapped: (a's wins by game as seat 0 then 1, b's wins
    the same way, seconds, games played)."""
    from arena.benevolent.batch import rotate_seats
    assert players == 2
    w, secs = rotate_seats(a, b, 2, games, seed, threads, theta_a=theta_a, theta_b=theta_b,   # row k: a in seat k
                           progress_factory=progress_factory, net=net)
    a_won = np.concatenate([w[0] == 0, w[1] == 1])  # a in seat 0 of deal d, then in seat 1
    b_won = np.concatenate([w[1] == 0, w[0] == 1])  # b in seat 0 of deal d, then in seat 1
    return a_won, b_won, secs, 2 * games  # the runs' own times (no compile)


def _selfplay_speed(policy, theta, games, seed, threads, net=None):
    """Games/s of `policy` in both seats (2 players) on `games` deals (compile excluded)."""
    from arena.benevolent.batch import simulate
    s = simulate(2, None, games=games, seed=seed, threads=threads, policies=[policy, policy], thetas=[theta, theta],
                 net=net)
    return s.games / s.seconds if s.seconds > 0 else float("nan")


def ladder_benevolent(players=2, games=1000, seed=7, threads=None, budgets=BV_BUDGETS, say=None,
                      progress_factory=None, reference=REFERENCE, speed_games=200, net=None):
    """One dict per rung (see the module doc), in the order of bv_rungs(budgets). Each rung plays
    the rung below and `reference` (when it is on the ladder); its speed is its self-play games/s
    on `speed_games` deals, also as a ratio to the heuristic's. net: the learned and expert
    players' network instead of the installed model's (`ladder --model`)."""
    from simcore.errors import UserError
    if players != 2:
        raise UserError(f"players {players}: the Benevolent ladder is for 2 players (seats rotated); allowed: 2")
    from arena.runner import check_run, check_threads
    from arena.units import theta_hash
    check_run(games, seed)
    nthreads = check_threads(threads)
    from arena.benevolent.batch import played_nets, seat_nets
    from policies import policy_id
    rungs = bv_rungs(budgets, model=net is not None)
    labels = [r[0] for r in rungs]
    pol = {r[0]: r[1] for r in rungs}
    bud = {r[0]: r[2] for r in rungs}
    th = {r[0]: _bv_theta(r[1], r[2]) for r in rungs}
    # the network each rung plays (None: it reads none), for its theta hash
    ids = {r[0]: np.array([policy_id(r[1], BV.name)]) for r in rungs}
    nets = {a: played_nets(ids[a], seat_nets(ids[a], net))[0] for a in labels}
    ref = reference if reference in labels else None
    pair = {}

    def play(a, b):
        if (a, b) in pair:
            return
        if say:
            say(f"{a} against {b}: {games:,} deals, seats swapped")
        a_won, b_won, sec, n = _head_to_head(pol[a], pol[b], players, games, seed, threads, progress_factory,
                                             th[a], th[b], net)
        pair[(a, b)] = (a_won, b_won, sec, n)
        pair[(b, a)] = (b_won, a_won, sec, n)

    speed = {}
    for i, a in enumerate(labels):
        if i > 0:
            play(a, labels[i - 1])
        if ref is not None and a != ref:
            play(a, ref)
        if say:
            say(f"{a}: self-play speed on {min(games, speed_games):,} deals")
        speed[a] = _selfplay_speed(pol[a], th[a], min(games, speed_games), seed, threads, net)
    base = speed.get("heuristic")
    rows = []
    for i, a in enumerate(labels):
        vs = {}
        for b in labels:
            if (a, b) in pair:
                w = int(pair[(a, b)][0].sum())
                n = pair[(a, b)][3]
                vs[b] = {"games": n, "wins": w, "win_rate": w / n, "ci95": list(wilson(w, n))}
        opp = labels[i - 1] if i > 0 else (ref if ref is not None and a != ref else None)
        row = {"policy": a, "name": pol[a], "budget": bud[a], "label": a, "theta_hash": theta_hash(th[a], nets[a]),
               "against": opp, "games": 0, "wins": 0, "win_rate": None, "ci95": None,
               "diff_vs_below": None, "diff_ci95": None, "p_value": None, "only_this": None, "only_below": None,
               "games_per_second": float("nan"), "vs": vs, "players": players, "seed": seed, "threads": nthreads,
               "reference": ref, "reference_win_rate": None, "reference_wilson95": None, "diff_vs_reference": None,
               "reference_ci95": None, "reference_p_value": None,
               "selfplay_games_per_second": speed[a], "speed_games": min(games, speed_games),
               "speed_vs_heuristic": speed[a] / base if base else None}
        if opp is not None:
            a_won, b_won, sec, n = pair[(a, opp)]
            w = int(a_won.sum())
            row.update(games=n, wins=w, win_rate=w / n, ci95=list(wilson(w, n)),
                       games_per_second=n / sec if sec > 0 else float("nan"))
        if i > 0:
            d, ci, p, oa, ob = _diff_by_deal(*pair[(a, labels[i - 1])][:2])
            row.update(diff_vs_below=d, diff_ci95=ci, p_value=p, only_this=oa, only_below=ob)
        if ref is not None and a != ref:
            a_won, b_won, _, n = pair[(a, ref)]
            w = int(a_won.sum())
            d, ci, p, _, _ = _diff_by_deal(a_won, b_won)
            row.update(reference_win_rate=w / n, reference_wilson95=list(wilson(w, n)), diff_vs_reference=d,
                       reference_ci95=ci, reference_p_value=p)
        rows.append(row)
    return rows


def _fmt_p(p):
    if p is None:
        return ""
    return f"{p:.2g}" if p >= 1e-4 else "<1e-4"


def ladder_table(rows, game):
    """The ladder as a plain-text table (a rung that is not a player is marked so)."""
    from tabulate import tabulate
    from .stats import pct

    def ci(lo_hi):
        return f"{signed(lo_hi[0] * 100)} to {signed(lo_hi[1] * 100)}"

    out = []
    for r in rows:
        name = r.get("label", r["policy"])
        if game_of(game) is BV and r.get("against"):
            name = f"{name} vs {r['against']}"
        diff = "" if r["diff_vs_below"] is None else f"{signed(r['diff_vs_below'] * 100)} pp ({ci(r['diff_ci95'])})"
        if r["win_rate"] is None:
            row = [name, "", "", "", ""]
        else:
            row = [name, f"{r['games']:,}", f"{r['wins']:,}", pct(r["win_rate"]),
                   f"{pct(r['ci95'][0])} to {pct(r['ci95'][1])}"]
        row += [diff, _fmt_p(r["p_value"])]
        if game_of(game) is BV:
            ref = "" if r.get("reference_win_rate") is None else (
                f"{pct(r['reference_win_rate'])} ({pct(r['reference_wilson95'][0])} to "
                f"{pct(r['reference_wilson95'][1])}); {signed(r['diff_vs_reference'] * 100)} pp "
                f"({ci(r['reference_ci95'])})")
            row += [ref, _fmt_p(r.get("reference_p_value")), f"{r['selfplay_games_per_second']:,.1f}"]
        else:
            ref = "" if r.get("diff_vs_reference") is None else (
                f"{signed(r['diff_vs_reference'] * 100)} pp ({ci(r['reference_ci95'])})")
            row += [ref, _fmt_p(r.get("reference_p_value")), f"{r['games_per_second']:,.1f}"]
        row.append("" if r.get("speed_vs_heuristic") is None else f"{r['speed_vs_heuristic']:.3g}")
        out.append(row)
    refname = next((r["reference"] for r in rows if r.get("reference")), None) or "reference"
    if game_of(game) is BV:   # paired by (deal, seat); the deal is the unit (_diff_by_deal)
        head = ["rung", "games", "wins", "win rate", "95% CI", "vs rung below (95% CI by deal)", "p (by deal)",
                f"against {refname}: win rate; difference (95% CI by deal)", "p (by deal)", "self-play games/s",
                "x heuristic speed"]
    else:
        head = ["rung", "games", "wins", "win rate", "95% CI", "vs rung below (paired 95% CI)", "McNemar p",
                f"vs {refname} (paired 95% CI)", "McNemar p", "games/s", "x heuristic speed"]
    text = tabulate(out, head, tablefmt="simple", disable_numparse=True)
    if game_of(game) is BV:
        names = [r.get("label", r["policy"]) for r in rows]

        def cell(v):
            return "" if v is None else f"{pct(v['win_rate'])} ({pct(v['ci95'][0])} to {pct(v['ci95'][1])})"
        mat = [[a] + [cell(r["vs"].get(b)) for b in names] for a, r in zip(names, rows)]
        text += ("\n\nwin rate of the row's policy against the column's, with its 95% Wilson interval "
                 "(seats rotated, same deals; the pairs the ladder played):\n")
        text += tabulate(mat, ["policy"] + names, tablefmt="simple", disable_numparse=True)
    return text
