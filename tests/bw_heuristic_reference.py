"""The plain references for the Bethel Woods heuristic's evaluation and the learned player's features
(tests/test_bw_heuristic.py)."""
from numba import njit

from policies.bethel_woods.heuristic import (
    LOSS_SCORE, RISK_SCALE, T_BEST, T_BUILT, T_CONC, T_CRIT, T_DRAWS, T_EXPCRIT, T_KNOW, T_LOAD,
    T_MAXLOAD, T_MISSING, T_NEXT, T_NEXT2, T_P3, T_P4, T_PROGRESS, T_PSPY, T_READY, T_SECOND,
    T_SELF, T_SPIES, T_SPIES2, T_SPOTS, T_SPREAD, T_SPYLOSS, W_HAVE, W_NEVAL, W_RDRAWS, W_RISK,
    W_USE, WIN_SCORE, _binom_tail, _enters, _keep_value, _reach, _usable,
)
from policies.bethel_woods import heuristic as H
from policies.bethel_woods.features import F_CHAR, F_CLOSE, F_EFFECT, F_HELD, NF
from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import OUT_WIN, PH_TERMINAL
from simcore.bethel_woods.rules import E_CONSTRUCT, E_EXTRA, N_CHARACTERS, N_EFFECTS, NOVA, P_CRIT_ABOVE, P_PER_TURN


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
    # each weight times its feature (spies_sq = spies * spies, best_stack = min(b1, cost) / cost,
    # second_stack: the product of the weight and the feature, as heuristic.evaluate computes it)
    score = (theta[T_SPYLOSS] * ((1.0 - quiet) if spies >= 5 else 0.0) + theta[T_PSPY] * (1.0 - quiet) + theta[T_SPREAD] * spread + theta[T_MISSING] * max(0, cost - b1) + theta[T_SELF] * selfe + theta[T_SPIES2] * (spies * spies) + theta[T_PROGRESS] * prog + theta[T_BUILT] * built + theta[T_CRIT] * ncrit + theta[T_EXPCRIT] * expc
             + theta[T_P3] * (d3 + d4) + theta[T_P4] * d4 + theta[T_SPIES] * spies
             + theta[T_BEST] * (min(b1, cost) / cost) + theta[T_SECOND] * (min(second, cost + 1) / (cost + 1))
             + theta[T_READY] * ready + theta[T_NEXT] * nxt + theta[T_NEXT2] * nxt2
             + theta[T_CONC] * conc + theta[T_KNOW] * know + theta[T_LOAD] * load
             + theta[T_SPOTS] * spots + theta[T_DRAWS] * draws
             + theta[T_MAXLOAD] * maxload)
    if ncrit >= E.CRITICAL_LOSS_AT:
        score += LOSS_SCORE
    return score


@njit(cache=True, _nrt=False)
def features_plain(s, p, ws, out):
    """features.features as first written (before issue 44): its own copy of the evaluation's
    passes, beside the 39 other features. The compiled features takes its first 24 from
    heuristic.evaluation_features; it must give the same 63 floats, bit for bit, and leave the same
    scratch (W_USE, W_HAVE) behind."""
    for i in range(NF):
        out[i] = 0.0
    np_ = s[E.NP]
    cur = s[E.CUR]
    above = p[P_CRIT_ABOVE]
    # the Orphanage and the workers (as heuristic.evaluate: one pass each)
    built = 0
    open4 = 0
    acc = 0
    for i in range(6):
        if E.section(s, i) >= 0:
            built += 1
        else:
            open4 |= 15 << (4 * i)
            acc |= ws[H.W_SECB + i]
    outm = ((1 if E.hand(s, 0) > 0 else 0) | (2 if E.hand(s, 1) > 0 else 0)
            | (4 if E.hand(s, 2) > 0 else 0) | (8 if E.hand(s, 3) > 0 else 0))
    mask = 0
    spread = 0
    for j in range(6):
        g = E.group(s, j)
        if g == 0:
            continue
        spread += 1
        tm = ((1 if E.workers(s, j, 0) > 0 else 0) | (2 if E.workers(s, j, 1) > 0 else 0)
              | (4 if E.workers(s, j, 2) > 0 else 0) | (8 if E.workers(s, j, 3) > 0 else 0))
        outm |= tm
        mask |= (tm * 0x111111) & ws[H.W_ENDS + 6 * j + (g - 1) % 6]
    mask &= open4
    use = acc & outm
    for t in range(4):
        ws[H.W_USE + t] = (use >> t) & 1
    spots, reach = H._entry_bits(mask)
    cost = E.piece_cost(s, p, built)
    lim = E.knowledge_limit(s, p)
    # the hands after the end-of-turn discard, by seat in turn order from the current one
    know = 0
    b1 = 0
    b2 = 0
    b3 = 0
    ready = 0
    conc = 0
    for r in range(np_):
        q = (cur + r) % np_
        tot = 0
        for t in range(4):
            ws[H.W_HAVE + 4 * q + t] = E.held(s, q, t)
            tot += E.held(s, q, t)
        if tot > lim:
            tot = H._discard_to_limit(ws, H.W_HAVE + 4 * q, tot, lim, use)
        know += tot
        best = 0
        for t in range(4):
            if (use >> t) & 1 and ws[H.W_HAVE + 4 * q + t] > best:
                best = ws[H.W_HAVE + 4 * q + t]
        conc += best
        if best >= cost:
            ready += 1
        if best > b1:
            b3 = b2
            b2 = b1
            b1 = best
        elif best > b2:
            b3 = b2
            b2 = best
        elif best > b3:
            b3 = best
        out[F_CLOSE + r] = min(best, cost) / cost
        out[F_HELD + r] = tot
    # the next placement (as heuristic.evaluate, with the turn's risk table where it applies)
    draws = E.draws_next(s, p)
    bag_n = s[E.BAG_N]
    table = draws == ws[H.W_RDRAWS]
    rone = s[E.RONE_M]
    ncrit = 0
    load = 0
    maxload = 0
    spies = 0
    d0 = 1.0
    d1 = 0.0
    d2 = 0.0
    d3 = 0.0
    d4 = 0.0
    expc = 0.0
    quiet = 1.0
    for m in range(6):
        sp = E.spy_at(s, m)
        lm = E.load(s, m) + sp
        spies += sp
        load += lm
        if lm > above:
            ncrit += 1
            r = 1.0
        else:
            if lm > maxload:
                maxload = lm
            if rone == m or bag_n == 0:
                continue
            elif table and lm < 4:
                r = ws[H.W_RISK + 4 * m + lm] / H.RISK_SCALE
            else:
                bm = 0
                for t in range(4):
                    bm += E.bag(s, m, t)
                r = H._binom_tail(draws, bm / bag_n, above + 1 - lm)
            if r == 0.0:
                continue
            quiet *= 1.0 - r
        expc += r
        d4 = d4 + d3 * r
        d3 = d3 * (1.0 - r) + d2 * r
        d2 = d2 * (1.0 - r) + d1 * r
        d1 = d1 * (1.0 - r) + d0 * r
        d0 = d0 * (1.0 - r)
    q1 = (cur + 1) % np_
    q2 = (cur + 2) % np_
    nxt = H._enters(ws, q1, cost, E.ability(s, p, q1) == NOVA, reach)
    nxt2 = H._enters(ws, q2, cost, E.ability(s, p, q2) == NOVA, reach) if q2 != cur else 0
    selfe = H._enters(ws, cur, cost, E.ability(s, p, cur) == NOVA, reach)
    prog = min(b1, cost) / cost
    if cost + 1 <= 6 + (cost - built - 1):
        prog += min(b2, cost + 1) / (cost + 1)
    if cost + 2 <= 6 + (cost - built - 1) and np_ > 2:
        prog += min(b3, cost + 2) / (cost + 2)
    out[0] = built
    out[1] = ncrit
    out[2] = expc
    out[3] = d3 + d4
    out[4] = d4
    out[5] = spies
    out[6] = min(b1, cost) / cost
    out[7] = min(b2, cost + 1) / (cost + 1)
    out[8] = ready
    out[9] = nxt
    out[10] = nxt2
    out[11] = conc
    out[12] = know
    out[13] = load
    out[14] = spots
    out[15] = draws
    out[16] = maxload
    out[17] = prog
    out[18] = spies * spies
    out[19] = max(0, cost - b1)
    out[20] = selfe
    out[21] = 1.0 - quiet
    out[22] = spread
    out[23] = (1.0 - quiet) if spies >= 5 else 0.0
    out[24] = bag_n
    out[25] = bag_n / 3.0 - (6 - built) * 2.0
    out[26] = s[E.TURN]
    out[27] = cost
    out[28] = 1.0 if ncrit >= E.CRITICAL_LOSS_AT else 0.0
    out[29] = s[E.UNSEEN]
    for e in range(N_EFFECTS):
        out[F_EFFECT + e] = E.effect_active(s, p, e)
    for q in range(np_):
        c = E.ability(s, p, q)  # a character whose ability is switched off (ability_off) reads as absent
        if 0 <= c < N_CHARACTERS:
            out[F_CHAR + c] = 1.0
    out[52] = d2 + d3 + d4
    out[53] = np_
    out[54] = 1.0 if s[E.UNCOVERED] else 0.0
    out[55] = 1.0 if s[E.ABIL_USED] else 0.0
    out[56] = s[E.VIOLET_RED]
    out[57] = 1.0 if rone >= 0 else 0.0
    out[58] = (use & 1) + ((use >> 1) & 1) + ((use >> 2) & 1) + ((use >> 3) & 1)
    out[59] = min(b3, cost + 2) / (cost + 2)
    out[60] = 6 - built
    out[61] = 1.0 if spies >= 5 else 0.0
    out[62] = bag_n / max(1, draws)
    return ncrit

