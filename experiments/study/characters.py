"""The ``characters`` study: Bethel Woods, every character set of each player count on common deals
(one seed for every set); logistic regression of win on characters, spies and players; sets that
differ from the rest flagged after Holm's correction (docs/studies.md)."""
from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd

from arena.units import Cell
from simcore.games import BETHEL_WOODS as BW

from .. import charts
from ..cells import JointCell
from ..run.execute import execute
from ..render import Section
from ..stats import (adjust_pvalues, against_rest, detectable_difference, detectable_from_interval, plain_pp,
                     rate_text, spies_label)
from .spec import DIFFICULTY, Study
from .common import (Result, bw_frame, could_find, table_csv_path, study_games, pivot, play_checks, rate_cell,
                     rungs_named, skill_plan, skill_row, skill_show, skill_tables, weaker_rung, weaker_cols)


def _effects_fit(sets: pd.DataFrame):
    """The logistic regression of ``character_effects``: (fit, character names in the fit, the
    has-character matrix, the frame)."""
    import statsmodels.api as sm

    from simcore.bethel_woods.rules import CHARACTERS
    d = sets.reset_index(drop=True)
    names = [c for c in CHARACTERS if d["characters"].str.split(",").apply(lambda cs: c in cs).any()]
    has = np.array([[c in s.split(",") for c in names] for s in d["characters"]], dtype=float)
    # effect coding: column c is x_c - x_last, so that sum_c b_c x_c with b_last = -sum b_c
    z = has[:, :-1] - has[:, -1:]
    X = pd.DataFrame(z, columns=names[:-1])
    for col, vals in (("players", d["players"]), ("spies", d["spies"])):
        levels = sorted(vals.unique())
        for lv in levels[1:]:
            X[f"{col}={lv}"] = (vals == lv).astype(float).to_numpy()
    X = sm.add_constant(X, has_constant="add")
    y = np.column_stack([d["wins"], d["games"] - d["wins"]])
    fit = sm.GLM(y, X, family=sm.families.Binomial()).fit()
    return fit, names, has, d


def _effect_vector(fit, names, c) -> np.ndarray:
    """The contrast vector of character c's effect (the last one: minus the sum of the others)."""
    L = np.zeros(len(fit.params))
    cols = list(fit.params.index)
    for k in ([c] if c != names[-1] else names[:-1]):
        L[cols.index(k)] = 1.0 if c != names[-1] else -1.0
    return L


def _wald(fit, L):
    """statsmodels' Wald test of the contrast L: (estimate, low, high, p)."""
    t = fit.t_test(L)
    b, se = float(np.squeeze(t.effect)), float(np.squeeze(t.sd))
    lo, hi = (float(v) for v in np.squeeze(t.conf_int(alpha=0.05)))
    return b, lo, hi, (float(np.squeeze(t.pvalue)) if se > 0 else 1.0)


def character_effects(sets: pd.DataFrame) -> pd.DataFrame:
    """Logistic regression of win on characters (sum-to-zero coding), spies and players
    (statsmodels GLM, Binomial, one row per set with wins and games). A character's effect is
    the log odds of winning with it in the team relative to an average character; the 8 effects
    add up to 0 (the last one and its interval come from the fit's covariance). The study fits it
    per player count (a character's effect differs between them), where players is constant."""
    fit, names, has, d = _effects_fit(sets)
    rows = []
    for c in names:
        # the effect as a contrast of the fit's parameters; statsmodels' Wald test of it (normal, as
        # the GLM's own intervals) gives its interval and p
        b, lo, hi, p = _wald(fit, _effect_vector(fit, names, c))
        rows.append({"term": c, "coef": b, "ci_low": lo, "ci_high": hi, "p_value": p})
    e = pd.DataFrame(rows)
    e["p_holm"] = adjust_pvalues(e["p_value"].to_numpy())
    e["odds_ratio"], e["or_low"], e["or_high"] = np.exp(e["coef"]), np.exp(e["ci_low"]), np.exp(e["ci_high"])
    # each character's own record: the games and wins of the sets it is in (the fit uses them all)
    e["games"] = (has.T @ d["games"].to_numpy()).astype(int)
    e["wins"] = (has.T @ d["wins"].to_numpy()).astype(int)
    return e


def effect_contrast(sets: pd.DataFrame, a: str, b: str):
    """Character a's effect minus character b's in the same fit (log odds; the Wald test of the
    contrast): (odds ratio a over b, low, high, p). Used to say whether the strongest character is
    clearly ahead of the runner-up."""
    fit, names, _, _ = _effects_fit(sets)
    d, lo, hi, p = _wald(fit, _effect_vector(fit, names, a) - _effect_vector(fit, names, b))
    return float(np.exp(d)), float(np.exp(lo)), float(np.exp(hi)), p


def flag_sets(sets: pd.DataFrame) -> pd.DataFrame:
    """Each set against the other sets of its (players, spies): Fisher's exact test of the 2x2
    table (stats.against_rest; a set plays few games, so expected counts fall below the
    chi-square's 5), Holm-adjusted within the (players, spies) block (see docs/studies.md for
    why Holm)."""
    out = []
    for _, g in sets.groupby(["policy", "players", "spies"], sort=False):
        g = g.copy()
        tg, tw = g["games"].sum(), g["wins"].sum()
        ps = []
        for w, n in zip(g["wins"], g["games"]):
            ps.append(against_rest(int(w), int(n), int(tw - w), int(tg - n)))
        g["p_value"] = ps
        g["p_holm"] = adjust_pvalues(np.array(ps))
        g["significant"] = g["p_holm"] < 0.05
        g["vs_rest"] = np.where(~g["significant"], "", np.where(
            g["wins"] / g["games"] > (tw - g["wins"]) / (tg - g["games"]), "better", "worse"))
        out.append(g)
    return pd.concat(out, ignore_index=True)


def pick_sets(sets: pd.DataFrame) -> pd.DataFrame:
    """The weakest and the strongest set of each policy, player count and difficulty: the lowest
    and the highest win rate, a tie going to the set listed first (the sets' order in the table,
    the rulebook's order of characters); `ties` counts the sets at that rate. The report and the
    notebook both call this, so they name the same sets."""
    rows = []
    for (pol, pl, sp), g in sets.groupby(["policy", "players", "spies"], sort=True):
        g = g.reset_index(drop=True)
        for which, idx in (("weakest", int(g["win_rate"].idxmin())), ("strongest", int(g["win_rate"].idxmax()))):
            r = g.iloc[idx]   # idxmin / idxmax: the first row at the extreme
            rows.append({"policy": pol, "players": pl, "spies": sp, "which": which,
                         "characters": r.characters, "games": int(r.games), "wins": int(r.wins),
                         "ties": int((g["win_rate"] == r.win_rate).sum()), "p_holm": float(r.p_holm),
                         "significant": bool(r.significant), "family": len(g),
                         "rest_games": int(g["games"].sum() - r.games), "rest_wins": int(g["wins"].sum() - r.wins)})
    return pd.DataFrame(rows)


def fit_effects(sets: pd.DataFrame) -> pd.DataFrame:
    """Character effects per policy and player count (a character's effect differs between player
    counts: its odds ratio is not one number), Holm-adjusted within each fit; a policy and player
    count whose sets won no game, or every game, has none."""
    fitted = [character_effects(g).assign(policy=pol, players=pl)
              for (pol, pl), g in sets.groupby(["policy", "players"], sort=True)
              if 0 < g["wins"].sum() < g["games"].sum()]
    return (pd.concat(fitted, ignore_index=True) if fitted else
            pd.DataFrame(columns=["policy", "players", "term", "coef", "ci_low", "ci_high", "games", "wins",
                                  "odds_ratio", "or_low", "or_high", "p_value", "p_holm"]))


def run_characters(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from simcore.bethel_woods.rules import CHARACTERS
    o = st.opts
    n = study_games(st)
    cells = [Cell(BW.name, pl, spies=sp, characters=tuple(cs), policies=(pol,),
                  rules=st.rules, seed=o["seed"])
             for pol in o["policy"] for pl in o["players"] for sp in o["spies"]
             for cs in itertools.combinations(CHARACTERS, pl)]
    totals = execute([(c, n) for c in cells], threads=threads, progress=progress,
                     **(backend or {}))
    sets = bw_frame(cells, totals)
    sets["win_rate"] = sets["wins"] / sets["games"]
    sets = flag_sets(sets)
    effects = fit_effects(sets)
    top = _top_characters(sets, effects)
    picks = pick_sets(sets)

    # skill check: per player count, teams with the strongest and with the weakest character (the
    # same partners), played by both players on the same seeds
    skill_rows: list = []
    checks: list = []
    counts: list = []
    wcounts: list = []
    splan = skill_plan(st)
    pol0 = st.policies[0]
    if splan is not None and len(top):
        from ..skill import contrast_change
        _, best, n_skill = splan
        sp0 = o["spies"][0]
        groups = []
        for r in top[top["policy"] == pol0].itertuples():
            others = [c for c in CHARACTERS if c not in (r.strongest, r.weakest)]
            partners = list(itertools.combinations(others, r.players - 1))
            base = Cell(BW.name, r.players, spies=sp0, rules=st.rules, seed=o["seed"])
            mine = []
            for ps in partners:
                s_team = tuple(c for c in CHARACTERS if c in (r.strongest, *ps))
                w_team = tuple(c for c in CHARACTERS if c in (r.weakest, *ps))
                arms = tuple(replace(base, characters=t, policies=(p,))
                             for p in (best, pol0) for t in (s_team, w_team))
                mine.append(len(checks))
                checks.append(({"players": r.players, "spies": sp0}, JointCell(arms, 2)))
            groups.append((r, mine))
        counts = [None] * len(checks)
        wcounts = [None] * len(checks)
        weaker = weaker_rung(st)
        for r, mine in groups:   # about n_skill seeds per arm and player count, spread over its partner sets
            per = max(1, -(-n_skill // len(mine)))
            own, twin = play_checks(st, [checks[i] for i in mine], per, threads, progress, backend)
            for k, i in enumerate(mine):
                counts[i] = own[k]
                wcounts[i] = twin[k] if twin else None
        pooled_counts, pooled_checks, pooled_weaker = [], [], []   # per player count: every partner set's games together
        for r, mine in groups:
            pooled = sum(counts[i] for i in mine)
            stat = contrast_change(pooled)
            if weaker:
                pooled_weaker.append(sum(wcounts[i] for i in mine))
                stat.update(weaker_cols(contrast_change(pooled_weaker[-1]), weaker))
            row = skill_row(
                {"players": r.players, "spies": sp0, "strongest": r.strongest, "weakest": r.weakest,
                 "partner_sets": len(mine)}, checks[mine[0]][1], pooled, splan,
                f"{r.strongest}'s teams against {r.weakest}'s, {r.players} players", stat)
            for k, (pol, ch) in enumerate((p, ch) for p in (best, pol0) for ch in (r.strongest, r.weakest)):
                row[f"arm{k}"] = (f"{pol}: {r.players} players, {spies_label(sp0)}, {ch} with each of the "
                                  f"{len(mine)} partner sets")
            skill_rows.append(row)
            pooled_counts.append(pooled)
            pooled_checks.append(checks[mine[0]])
        checks, counts, wcounts = pooled_checks, pooled_counts, pooled_weaker   # the patterns: pooled histograms
    skill_df = pd.DataFrame(skill_rows)

    figs = []
    if chart_dir is not None:
        for pol, g in sets.groupby("policy", sort=False):
            figs.append((f"Win rate by pair of characters ({pol}): lower triangle; each cell the rate and its "
                         "95% interval",
                         charts.character_heatmap(g, chart_dir / f"character_heatmap_{pol}")[0]))
            e = effects[effects["policy"] == pol]
            if e.empty:
                continue
            figs.append((f"Character effects per player count ({pol}): odds of winning with the character "
                         "against an average character; filled: Holm-adjusted p < 0.05",
                         forest_chart(e, g, chart_dir / f"character_forest_{pol}")[0]))
    tables = []
    if len(effects):
        eff = pivot(effects, ["policy", "term"], "players",
                     lambda r: (f"×{r.odds_ratio:.2f} ({r.or_low:.2f}–{r.or_high:.2f})"
                                + (" *" if r.p_holm < 0.05 else "") + f"\n{int(r.wins):,} of {int(r.games):,}"),
                     lambda pl: f"{pl} players")
        order = effects.groupby(["policy", "term"])["coef"].mean()
        eff["_o"] = [-order[(a, b)] for a, b in zip(eff["policy"], eff["term"])]
        eff = eff.sort_values(["policy", "_o"]).drop(columns="_o").rename(columns={"term": "character"})
        tables.append(("Character effects: odds of winning with the character against an average character "
                       "(95% interval; * Holm-adjusted p < 0.05), and the wins of the games its sets played",
                       eff, table_csv_path(st, "effects")))
    pk = picks.copy()
    pk["difficulty"] = [DIFFICULTY[int(x)] for x in pk["spies"]]
    pk["set"] = [c.replace(",", ", ") + (f" (one of {t} tied)" if t > 1 else "") for c, t in zip(pk["characters"], pk["ties"])]
    pk["win rate (95% CI)"] = [rate_cell(w, g) for w, g in zip(pk["wins"], pk["games"])]
    pk["against the rest"] = [_set_vs_rest(r) for r in picks.itertuples()]
    tables.append(("Weakest and strongest set per player count and difficulty (against the other sets of "
                   "its player count and difficulty: Fisher's exact test, Holm-adjusted)",
                   pk[["policy", "players", "difficulty", "which", "set", "win rate (95% CI)", "against the rest"]],
                   table_csv_path(st, "sets")))
    flagged = sets[sets["significant"]]
    if len(flagged):
        fl = flagged.head(FLAGGED_SHOWN)
        tables.append((f"Sets that differ from the rest after Holm's correction ({len(flagged)}"
                       + (f"; the first {FLAGGED_SHOWN} shown" if len(flagged) > FLAGGED_SHOWN else "") + ")",
                       pd.DataFrame({"policy": fl["policy"], "players": fl["players"],
                                     "difficulty": [DIFFICULTY[int(x)] for x in fl["spies"]],
                                     "set": fl["characters"].str.replace(",", ", "),
                                     "win rate (95% CI)": [rate_cell(w, g) for w, g in zip(fl["wins"], fl["games"])],
                                     "than the rest": fl["vs_rest"], "p (Holm)": fl["p_holm"]}),
                       table_csv_path(st, "sets")))
    if len(skill_df):
        tables.append((f"Across skill: teams with the strongest character against the same teams with the "
                       f"weakest, played by {rungs_named(st)} on the same seeds ({spies_label(o['spies'][0])}; "
                       "differences of win rates, paired 95% intervals)",
                       skill_show(skill_df, ["players", "strongest", "weakest"], diff=True), table_csv_path(st, "skill")))
    text = characters_summary(top) + "\n\n" + characters_findings(sets, effects, picks)
    section = Section(st.title, text, tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"sets": sets, "effects": effects,
                       **skill_tables(st, skill_rows, counts, checks, wcounts)}, section,
                  answers=characters_answers(st, top, skill_df))


FLAGGED_SHOWN = 12   # rows of the flagged sets the report shows; every set is in the CSV


def forest_chart(effects: pd.DataFrame, sets: pd.DataFrame, out):
    """The character forest of one policy as the report draws it (the notebook calls this too):
    filled markers where Holm's adjusted p is below 0.05, the games of that policy's sets."""
    pol = str(effects["policy"].iloc[0])
    return charts.character_forest(effects.assign(p_value=effects["p_holm"]), out, policy=pol,
                                   games=int(sets[sets["policy"] == pol]["games"].sum()), p_name="Holm-adjusted p")


def _set_vs_rest(r) -> str:
    """A picked set against the rest: Holm's p and, when not significant, the smallest difference
    the sample had an 80% chance to find at Holm's first level (0.05 / the sets in the family)."""
    rest = r.rest_wins / r.rest_games if r.rest_games else np.nan
    if r.significant:
        return f"{'below' if r.wins / r.games < rest else 'above'} (Holm p = {r.p_holm:.2g})"
    d = detectable_difference(r.games, rest, r.rest_games, alpha=0.05 / r.family,
                              direction=-1 if r.which == "weakest" else 1)
    return (f"not different (Holm p = {r.p_holm:.2g}); could find "
            + (f"{plain_pp(d, sign=False)} or more" if np.isfinite(d) else "no difference") + " with 80% chance")


def _top_characters(sets, effects) -> pd.DataFrame:
    """Per policy and player count: the strongest and the weakest character (largest and smallest
    effect), each against its runner-up (the Wald test of the difference of their effects in the
    same fit) and against an average character (Holm-adjusted)."""
    rows = []
    for (pol, pl), e in effects.groupby(["policy", "players"], sort=True):
        e = e.sort_values("coef").reset_index(drop=True)
        g = sets[(sets["policy"] == pol) & (sets["players"] == pl)]
        hi, hi2, lo, lo2 = e.iloc[-1], e.iloc[-2], e.iloc[0], e.iloc[1]
        s_or, s_lo, s_hi, s_p = effect_contrast(g, hi.term, hi2.term)
        w_or, w_lo, w_hi, w_p = effect_contrast(g, lo2.term, lo.term)
        rows.append({"policy": pol, "players": pl, "strongest": hi.term, "s_or": hi.odds_ratio, "s_low": hi.or_low,
                     "s_high": hi.or_high, "s_holm": hi.p_holm, "runner_up": hi2.term, "s_vs_next": s_or,
                     "s_vs_next_low": s_lo, "s_vs_next_high": s_hi, "s_vs_next_p": s_p,
                     "weakest": lo.term, "w_or": lo.odds_ratio, "w_low": lo.or_low, "w_high": lo.or_high,
                     "w_holm": lo.p_holm, "next_weakest": lo2.term, "w_vs_next": w_or, "w_vs_next_low": w_lo,
                     "w_vs_next_high": w_hi, "w_vs_next_p": w_p})
    return pd.DataFrame(rows, columns=["policy", "players", "strongest", "s_or", "s_low", "s_high", "s_holm",
                                       "runner_up", "s_vs_next", "s_vs_next_low", "s_vs_next_high", "s_vs_next_p",
                                       "weakest", "w_or", "w_low", "w_high", "w_holm", "next_weakest", "w_vs_next",
                                       "w_vs_next_low", "w_vs_next_high", "w_vs_next_p"])


def _order_verdict(holm: float, vs_next_p: float, lo: float, hi: float) -> tuple[str, str]:
    """(verdict, what the sample could find) for "the strongest / weakest character": established
    when its effect differs from an average character's after Holm's correction and from the
    runner-up's (the Wald test of the two effects, p < 0.05); suggested when one of them holds or
    the runner-up test leans (p < 0.2); else too noisy to say, with the odds ratio between the two
    that the sample had an 80% chance to find."""
    from ..answers import ESTABLISHED, NOISY, SUGGESTED, SUGGEST_P
    if holm < 0.05 and vs_next_p < 0.05:
        return ESTABLISHED, ""
    if holm < 0.05 or vs_next_p < SUGGEST_P:
        return SUGGESTED, ""
    d = detectable_from_interval(np.log(lo), np.log(hi))
    return NOISY, f"could find odds ×{np.exp(d):.2f} between it and the runner-up"


def characters_summary(top: pd.DataFrame) -> str:
    if not len(top):
        return "In short: no character effect could be estimated (no policy both won and lost games)."
    parts = []
    for r in top.itertuples():
        parts.append(f"{r.players} players ({r.policy} player): {r.strongest} helps most (odds ×{r.s_or:.2f} against an "
                     f"average character), {r.weakest} least (×{r.w_or:.2f}).")
    return "In short: " + " ".join(parts)


def characters_answers(st: Study, top: pd.DataFrame, skill_df: pd.DataFrame) -> list:
    """The front page's character line: per player count, the strongest and the weakest character
    with their odds ratios against an average character (one row for every player count)."""
    from ..answers import Answer, ESTABLISHED, grouped, skills_text
    parts, verdicts, detect, skills = [], {}, [], []
    for r in top[top["policy"] == st.policies[0]].itertuples():
        vs, ds = _order_verdict(r.s_holm, r.s_vs_next_p, r.s_vs_next_low, r.s_vs_next_high)
        vw, dw = _order_verdict(r.w_holm, r.w_vs_next_p, r.w_vs_next_low, r.w_vs_next_high)
        verdicts[r.players] = vs if vs == vw else ("suggested" if ESTABLISHED in (vs, vw) else vs)
        parts.append(f"{r.players} pl {r.strongest} ×{r.s_or:.2f} ({r.s_low:.2f}–{r.s_high:.2f}), "
                     f"{r.weakest} ×{r.w_or:.2f} ({r.w_low:.2f}–{r.w_high:.2f})")
        if ds or dw:
            detect.append(f"{r.players} pl: " + " and ".join(x for x in (ds and "strongest " + ds.split(" between")[0],
                                                                           dw and "weakest " + dw.split(" between")[0]) if x)
                          + " against the runner-up")
        if len(skill_df):
            m = skill_df[skill_df["players"] == r.players]
            if len(m):
                skills.append((f"{r.players} pl", m.iloc[0]))
    if not parts:
        return []
    return [Answer(BW.name, "Strongest, weakest character (odds)",
                   "; ".join(parts), grouped(verdicts), st.name, skill=skills_text(skills, diff=True),
                   detect="; ".join(detect))]


def _could_find_odds(e: pd.DataFrame) -> str:
    """"; the fit had an 80% chance to find an odds ratio of 1.25 (or 0.80) or more": for a set of
    character effects none of which is significant, at Holm's first level (0.05 / the effects),
    from the median width of their intervals (log odds; stats.detectable_from_interval)."""
    if "ci_low" not in e or not len(e):
        return ""
    d = float(np.median([detectable_from_interval(a, b, alpha=0.05 / len(e)) for a, b in zip(e["ci_low"], e["ci_high"])]))
    return (f" (at Holm's first level the fit had an 80% chance to find an odds ratio of {np.exp(d):.2f}, or "
            f"{np.exp(-d):.2f}, against an average character)")


def characters_findings(sets, effects, picks=None) -> str:
    parts = []
    for pol, g in sets.groupby("policy", sort=False):
        if pol not in set(effects["policy"]):
            parts.append(f"With the {pol} player the sets won {int(g['wins'].sum()):,} of "
                         f"{int(g['games'].sum()):,} games: no character effect can be estimated.")
    keys = ["policy", "players"] if "players" in effects.columns else ["policy"]
    for key, e in effects.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        pol = key[0]
        where = f"With the {pol} player" + (f" at {key[1]} players" if len(key) > 1 else "")
        e = e.sort_values("odds_ratio")
        hi, lo = e.iloc[-1], e.iloc[0]
        sig = e[e["p_holm"] < 0.05]

        def close(r, others):   # the runners-up whose estimate lies inside r's interval: no clear order
            near = [f"{o.term} {o.odds_ratio:.2f}" for o in others.itertuples()
                    if r.or_low <= o.odds_ratio <= r.or_high]
            return f"; {', '.join(near)} within its interval" if near else ""
        parts.append(
            f"{where}, {hi.term} helps most (odds ratio {hi.odds_ratio:.2f} against "
            f"an average character, 95% CI {hi.or_low:.2f} to {hi.or_high:.2f}{close(hi, e.iloc[-2:-1])}) "
            f"and {lo.term} least ({lo.odds_ratio:.2f}, {lo.or_low:.2f} to {lo.or_high:.2f}"
            f"{close(lo, e.iloc[1:2])}); "
            + (f"{len(sig)} of {len(e)} character effects differ from the average after Holm's "
               f"correction ({', '.join(sig['term'])})." if len(sig) else
               "no character's effect differs from the average after Holm's correction"
               + _could_find_odds(e) + "."))
    if picks is None:
        picks = pick_sets(sets)
    for w in (picks[picks["which"] == "weakest"] if len(picks) else picks).itertuples():
        parts.append(f"{w.players} players, {spies_label(w.spies)}: weakest set {w.characters} "
                     + (f"(one of {w.ties} sets at " if w.ties > 1 else "(")
                     + f"{rate_text(w.wins, w.games)} of {int(w.games):,} games, "
                     + ("significantly below the rest" if w.significant else
                        "not significantly different from the rest"
                        + could_find(detectable_difference(w.games, w.rest_wins / w.rest_games, w.rest_games,
                                                            alpha=0.05 / w.family, direction=-1),
                                      "a weakness")
                        + f" at Holm's first level, 0.05/{w.family}") + ").")
    n_sig = int(sets["significant"].sum())
    parts.append(f"{n_sig} of {len(sets)} sets differ from the rest of their player count and "
                 f"difficulty after Holm's correction; {int(sets['games'].sum()):,} games, every "
                 "set on the same deals.")
    return "\n\n".join(parts)
