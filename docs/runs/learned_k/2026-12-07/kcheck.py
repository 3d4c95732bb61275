"""The learned player (Bethel Woods, 3 players, 0 spies) with fewer kept plans (theta[T_K]) on the
same deals: win rates and the paired differences against K=16 (docs/benchmarks.md, "The learned
value's cost"). Usage: python kcheck.py GAMES SEED"""
import sys
import numpy as np
from statsmodels.stats.contingency_tables import mcnemar
from arena.bethel_woods.batch import simulate
from policies.bethel_woods import learned as L
games = int(sys.argv[1])
seed = int(sys.argv[2])
won = {}
for k in (16, 12, 8):
    sm = simulate(players=3, spies=0, policy="learned", games=games, seed=seed, threads=2, theta=L.learned_theta(k=k), keep_records=True)
    won[k] = sm.records.sort_values("game")["won"].to_numpy().astype(bool)
    print(k, won[k].sum(), games, round(won[k].mean()*100, 2), flush=True)
for k in (12, 8):
    a, b = won[16], won[k]
    d = b.astype(int) - a.astype(int)
    diff = d.mean()
    se = d.std(ddof=1) / np.sqrt(len(d))
    t = [[(a & b).sum(), (a & ~b).sum()], [(~a & b).sum(), (~a & ~b).sum()]]
    print(f"K={k} minus K=16: {diff*100:+.2f} pp, 95% paired CI {100*(diff-1.96*se):+.2f} to {100*(diff+1.96*se):+.2f}; McNemar p={mcnemar(t, exact=False).pvalue:.2g}")
