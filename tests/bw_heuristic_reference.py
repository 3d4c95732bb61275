"""The plain reference for the Bethel Woods heuristic's evaluation (tests/test_bw_heuristic.py)."""
from numba import njit

from policies.bethel_woods.heuristic import (
    LOSS_SCORE, RISK_SCALE, T_BEST, T_BUILT, T_CONC, T_CRIT, T_DRAWS, T_EXPCRIT, T_KNOW, T_LOAD,
    T_MAXLOAD, T_MISSING, T_NEXT, T_NEXT2, T_P3, T_P4, T_PROGRESS, T_PSPY, T_READY, T_SECOND,
    T_SELF, T_SPIES, T_SPIES2, T_SPOTS, T_SPREAD, T_SPYLOSS, W_HAVE, W_NEVAL, W_RDRAWS, W_RISK,
    W_USE, WIN_SCORE, _binom_tail, _enters, _keep_value, _reach, _usable,
)
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import OUT_WIN, PH_TERMINAL
from simcore.bethel_woods.rules import E_CONSTRUCT, E_EXTRA, NOVA, P_CRIT_ABOVE, P_PER_TURN


@njit(cache=True, _nrt=False)
def evaluate_plain(s, p, theta, ws):
    """heuristic.evaluate as first written: feature by feature, with the planner's own helpers
    (_usable, _reach, _enters). The compiled evaluate fuses these passes; it must give the same
    score, bit for bit, and leave the same scratch (W_USE, W_HAVE) behind."""
    ws[W_NEVAL] = (ws[W_NEVAL] + 1) & 0x3FFFFFFF
    if s[E.PHASE] == PH_TERMINAL:
        return WIN_SCORE if s[E.OUTCOME] == OUT_WIN else -WIN_SCORE
    np_ = s[E.NP]
    cur = s[E.CUR]
    above = p[P_CRIT_ABOVE]
    built = E.orphanage_count(s)
    cost = built + 1 + E.effect_active(s, p, E_CONSTRUCT)
    _usable(s, p, ws)
    lim = E.knowledge_limit(s, p)
    # knowledge after the end-of-turn discard (canonical rule)
    know = 0
    b1 = 0
    b2 = 0
    b3 = 0
    b1q = -1
    ready = 0
    conc = 0
    for q in range(np_):
        tot = 0
        for t in range(4):
            h = s[E.HAVE + 4 * q + t]
            ws[W_HAVE + 4 * q + t] = h
            tot += h
        while tot > lim:
            bt = -1
            bv = 1 << 30
            for t in range(4):
                h = ws[W_HAVE + 4 * q + t]
                if h > 0:
                    v = _keep_value(h, ws[W_USE + t])
                    if v < bv:
                        bv = v
                        bt = t
            ws[W_HAVE + 4 * q + bt] -= 1
            tot -= 1
        know += tot
        best = 0
        for t in range(4):
            if ws[W_USE + t]:
                h = ws[W_HAVE + 4 * q + t]
                if h > best:
                    best = h
        conc += best
        if best >= cost:
            ready += 1
        if best > b1:
            b3 = b2
            b2 = b1
            b1 = best
            b1q = q
        elif best > b2:
            b3 = b2
            b2 = best
        elif best > b3:
            b3 = best
    # the next placement: expected critical machines from the bag's odds
    draws = p[P_PER_TURN] - s[E.VIOLET_RED] + E.effect_active(s, p, E_EXTRA)
    bag_n = s[E.BAG_N]
    ncrit = 0
    load = 0
    maxload = 0
    spies = 0
    d0 = 1.0
    d1 = 0.0
    d2 = 0.0
    d3 = 0.0
    d4 = 0.0  # P(4 or more)
    expc = 0.0
    quiet = 1.0  # P(no machine goes critical)
    spread = 0
    want_spread = theta[T_SPREAD] != 0.0  # a feature whose weight is 0 is left at 0 (same score)
    for m in range(6):
        if want_spread and s[E.WORK + 4 * m] + s[E.WORK + 4 * m + 1] + s[E.WORK + 4 * m + 2] + s[E.WORK + 4 * m + 3] > 0:
            spread += 1
        lm = s[E.MCOUNT + m] + s[E.SPY + m]
        spies += s[E.SPY + m]
        load += lm
        if lm > above:
            ncrit += 1
            r = 1.0
        else:
            if lm > maxload:
                maxload = lm
            if s[E.RONE_M] == m or bag_n == 0:
                r = 0.0
            elif draws == ws[W_RDRAWS] and lm < 4:
                r = ws[W_RISK + 4 * m + lm] / RISK_SCALE
            else:
                bm = 0
                for t in range(4):
                    bm += s[E.BAG + 4 * m + t]
                r = _binom_tail(draws, bm / bag_n, above + 1 - lm)
            if r == 0.0:
                continue  # exact: with r = 0 the updates below leave every product and sum as it is
            quiet *= 1.0 - r
        expc += r
        d4 = d4 + d3 * r
        d3 = d3 * (1.0 - r) + d2 * r
        d2 = d2 * (1.0 - r) + d1 * r
        d1 = d1 * (1.0 - r) + d0 * r
        d0 = d0 * (1.0 - r)
    q1 = (cur + 1) % np_
    q2 = (cur + 2) % np_
    spots, reach = _reach(s, p)
    nxt = _enters(ws, q1, cost, s[E.CHAR + q1] == NOVA, reach)
    nxt2 = 0
    if q2 != cur and theta[T_NEXT2] != 0.0:
        nxt2 = _enters(ws, q2, cost, s[E.CHAR + q2] == NOVA, reach)
    second = 0
    if b1q >= 0:
        second = b2
    prog = min(b1, cost) / cost
    if cost + 1 <= 6 + (cost - built - 1):
        prog += min(b2, cost + 1) / (cost + 1)
    if cost + 2 <= 6 + (cost - built - 1) and np_ > 2:
        prog += min(b3, cost + 2) / (cost + 2)
    selfe = _enters(ws, cur, cost, s[E.CHAR + cur] == NOVA, reach) if theta[T_SELF] != 0.0 else 0
    score = (theta[T_SPYLOSS] * ((1.0 - quiet) if spies >= 5 else 0.0) + theta[T_PSPY] * (1.0 - quiet) + theta[T_SPREAD] * spread + theta[T_MISSING] * max(0, cost - b1) + theta[T_SELF] * selfe + theta[T_SPIES2] * spies * spies + theta[T_PROGRESS] * prog + theta[T_BUILT] * built + theta[T_CRIT] * ncrit + theta[T_EXPCRIT] * expc
             + theta[T_P3] * (d3 + d4) + theta[T_P4] * d4 + theta[T_SPIES] * spies
             + theta[T_BEST] * min(b1, cost) / cost + theta[T_SECOND] * min(second, cost + 1) / (cost + 1)
             + theta[T_READY] * ready + theta[T_NEXT] * nxt + theta[T_NEXT2] * nxt2
             + theta[T_CONC] * conc + theta[T_KNOW] * know + theta[T_LOAD] * load
             + theta[T_SPOTS] * spots + theta[T_DRAWS] * draws
             + theta[T_MAXLOAD] * maxload)
    if ncrit >= E.CRITICAL_LOSS_AT:
        score += LOSS_SCORE
    return score
