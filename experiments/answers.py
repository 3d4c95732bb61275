"""The report's front page: each study's plain answers, with a verdict and the answer at every rung
of skill the study's check played on the same seeds.

Every study runner returns ``Answer`` objects beside its tables (``Result.answers``); the front
page (``front_page``) lists them per game, in the report's first screen: the study player's answer
rounded as a designer would say it (naming the player), its 95% interval, one verdict word and the
answer across skill (weaker rung, study player, stronger player on the same seeds, with the word
of the stronger-against-study check), each question a link to its study's section.

Verdicts (docs/studies.md, "The front page"):

- an answer that is a level (a win rate "about 26%"): **established** when every rate of the
  answer is known to +-MARGIN (its 95% interval's half-width), **approximate** to +-2 MARGIN,
  else **too noisy to say** (a level's verdict grades its precision: "suggested" there read as doubt
  about rows whose differences have p < 1e-30);
- an answer that is an effect (seat 1's edge, a character against the others, a variant, a
  handicap against the printed one): **established** when its 95% interval excludes 0 (after the
  study's Holm correction where it makes one), or when it lies inside +-MARGIN (then the answer is
  "no effect a designer would act on"); **suggested** when its p-value is below SUGGEST_P (the
  data lean one way, not enough to call it); else **too noisy to say**, with the smallest effect
  the sample had an 80% chance to find (``stats.detectable_*``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .skill import CHANGES, HOLDS, MARGIN, NOISY as SKILL_NOISY
from .stats import detectable_from_interval, plain_pct, plain_pp

ESTABLISHED, SUGGESTED, NOISY = "established", "suggested", "too noisy to say"
APPROXIMATE = "approximate"   # a level known to +-2 MARGIN (an effect's middle word is SUGGESTED)
ORDER = {ESTABLISHED: 0, APPROXIMATE: 1, SUGGESTED: 1, NOISY: 2}
SUGGEST_P = 0.20   # an effect whose p is below this (and not significant) is "suggested"


@dataclass
class Answer:
    """One plain answer of a study: `question` (what a designer asks), `answer` (rounded, with its
    interval), `verdict` (one of the three words), `anchor` (the study's section), `skill` (the
    answer across skill, ``skills_text``: "" when not measured), `detect` (for an answer that is not
    established: the smallest effect the sample had an 80% chance to find)."""
    game: str
    question: str
    answer: str
    verdict: str
    anchor: str
    skill: str = ""
    detect: str = ""
    first: bool = False   # the skill study's ranges over skill: listed first in the game's table
    player: str = ""      # whose answer it is (the study player; study.run_study sets it): the cell names it
    playtests: str = ""   # how many games a group of people would need to notice it (80% power)


def verdict_level(halfwidth: float, margin: float = MARGIN) -> str:
    if not np.isfinite(halfwidth):
        return NOISY
    if halfwidth <= margin:
        return ESTABLISHED
    return APPROXIMATE if halfwidth <= 2 * margin else NOISY


def verdict_effect(lo: float, hi: float, p: float, significant: bool | None = None,
                   margin: float = MARGIN) -> tuple[str, bool]:
    """(verdict, null): `null` is True when the answer established is "no effect larger than the
    margin". `significant` overrides "the interval excludes 0" where the study corrects for many
    comparisons (Holm)."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return NOISY, False
    excludes = (lo > 0 or hi < 0) if significant is None else bool(significant)
    if excludes:
        return ESTABLISHED, False
    if -margin < lo and hi < margin:
        return ESTABLISHED, True
    if np.isfinite(p) and p < SUGGEST_P:
        return SUGGESTED, False
    return NOISY, False


def weakest(verdicts) -> str:
    vs = [v for v in verdicts if v]
    return max(vs, key=ORDER.__getitem__) if vs else NOISY


def grouped(verdicts: dict, unit: str = " pl") -> str:
    """One verdict word, or several with what each covers ("established (2 pl); too noisy to say
    (3, 4 pl)")."""
    words: dict = {}
    for key, v in verdicts.items():
        words.setdefault(v, []).append(key)
    if len(words) == 1:
        return next(iter(words))
    parts = []
    for v in sorted(words, key=ORDER.__getitem__):
        keys = words[v]
        parts.append(f"{v} ({', '.join(map(str, keys))}{unit})")
    return "; ".join(parts)


def range_text(lo: float, hi: float) -> str:
    """An interval of rates as a designer reads it: "22-30%" (an en dash)."""
    a, b = plain_pct(lo).rstrip("%"), plain_pct(hi)
    return f"{a}–{b}"


def pp_range(lo: float, hi: float) -> str:
    """An interval of a difference in points: "+3 to +9 pp"."""
    return f"{plain_pp(lo).replace(' pp', '')} to {plain_pp(hi)}"


SKILL_WORDS = {HOLDS: "holds", CHANGES: "changes", SKILL_NOISY: "too few games"}
SKILL_COLUMN = "across skill (same seeds)"   # the front page's column of each answer at every rung


def pp_ci(d: float, lo: float, hi: float) -> str:
    """A difference in points with its interval, no unit: "+7 (+6 to +9)" (the caller says pp once)."""
    d_ = plain_pp(d).replace(" pp", "")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return d_
    return f"{d_} ({plain_pp(lo).replace(' pp', '')} to {plain_pp(hi).replace(' pp', '')})"


def rung_text(row, diff: bool = False) -> str:
    """One skill row's value at each rung it played, weakest first, on the same seeds: "heuristic
    31% → learned 49% → expert 83%" (a rate), or with diff=True a difference in points, "heuristic
    +2 → learned +6 → expert +1 pp". The weaker rung only where the row has one (weaker_policy)."""
    def fmt(v) -> str:
        if v is None or not np.isfinite(v):
            return "n/a"
        return plain_pp(v).replace(" pp", "") if diff else plain_pct(v)
    rungs = []
    weaker = row.get("weaker_policy")
    if isinstance(weaker, str) and weaker:
        rungs.append((weaker, row["weaker_value"]))
    rungs += [(row["study_policy"], row["study_value"]), (row["best_policy"], row["best_value"])]
    return " → ".join(f"{p} {fmt(v)}" for p, v in rungs) + (" pp" if diff else "")


def _halfwidth(rows) -> float:
    """The largest half-width of the 95% intervals of the values a skill cell shows (each rung's
    ``<rung>_low``/``_high``), nan when none is known."""
    hws = [(r[f"{k}_high"] - r[f"{k}_low"]) / 2 for r in rows for k in ("weaker", "study", "best")
           if f"{k}_low" in r and r.get(f"{k}_low") is not None and np.isfinite(r[f"{k}_low"])
           and np.isfinite(r[f"{k}_high"]) and (k != "weaker" or r.get("weaker_policy"))]
    return max(hws) if hws else float("nan")


def skills_text(items, diff: bool = False) -> str:
    """The front page's across-skill cell from skill rows (experiments.skill), each with a key
    ("2 pl", "0 spies", or "" for one row): each row's value at every rung on the same seeds
    (``rung_text``), n = seeds per arm, then the word of the paired check stronger against study
    player first, once when every row agrees: "changes: 2 pl heuristic 31% → learned 49% → expert
    83%; 3 pl ... (n=120, ±9 pp)" (the ±: the widest 95% interval of the values shown), else
    a word per row ("2 pl holds: ...; 3 pl too few games: ... (n=20–300)"). Where a row's word is
    too few games, the change of stronger against study player its check had an 80% chance to
    find closes the parenthesis ("; could find 40 pp", the largest over such rows)."""
    items = [(k, r) for k, r in items if r is not None]
    if not items:
        return ""
    words = [SKILL_WORDS[r["robust"]] for _, r in items]
    ns = sorted({int(r["games"]) for _, r in items})
    n = f"n={ns[0]:,}" if len(ns) == 1 else f"n={ns[0]:,}–{ns[-1]:,}"
    hw = _halfwidth(r for _, r in items)
    if np.isfinite(hw):   # the widest 95% interval of the values shown: a reader sees n=20 is rough
        n += f", ±{plain_pp(hw, sign=False).replace(' pp', '')} pp"
    det = [detectable_from_interval(r["diff_low"], r["diff_high"]) for _, r in items
           if r["robust"] == SKILL_NOISY and np.isfinite(r["diff_low"]) and np.isfinite(r["diff_high"])]
    if det:   # where the check cannot say, the smallest change it could have found (80% power)
        n += f"; could find {plain_pp(max(det), sign=False)}"
    # a difference's unit once, after the last row ("2 pl ... → expert +30; 3 pl ... → expert +7 pp")
    texts = [rung_text(r, diff) for _, r in items]
    texts = [x.removesuffix(" pp") for x in texts[:-1]] + texts[-1:]
    if len(set(words)) == 1:
        ranges = "; ".join(f"{k} {x}" if k else x for (k, _), x in zip(items, texts))
        return f"{words[0]}: {ranges} ({n})"
    return "; ".join(f"{k} {w}: {x}" for (k, _), w, x in zip(items, words, texts)) + f" ({n})"


def skill_text(row, diff: bool = False) -> str:
    """One skill row as the front page's cell: "changes: heuristic 31% → learned 49% → expert 83%
    (n=120, ±9 pp)"."""
    return skills_text([("", row)], diff) if row is not None else ""


def front_tables(answers: list[Answer], players: dict, link) -> list[tuple]:
    """The front page's tables, one per game: (caption, DataFrame). `players`: game -> text naming
    the study player and the stronger one; link(text, anchor) makes a cell that links."""
    from .glossary import GAME_NAMES
    out = []
    for game in GAME_NAMES:
        rows = sorted((a for a in answers if a.game == game), key=lambda a: not a.first)
        if not rows:
            continue
        df = pd.DataFrame({
            "question": [link(a.question, a.anchor) for a in rows],
            "answer (95% CI)": [f"{a.player}: {a.answer}" if a.player and not a.first else a.answer for a in rows],
            "verdict": [a.verdict + (f"; {a.detect}" if a.detect else "") for a in rows],
            SKILL_COLUMN: [a.skill or "not measured" for a in rows],
            "playtests to notice": [a.playtests or "—" for a in rows]})
        out.append((f"{GAME_NAMES[game]}: {players.get(game, '')}".rstrip(": "), df))
    return out


def cannot_say(answers: list[Answer]) -> str:
    """The sentence naming the answers the report cannot give (verdict too noisy to say)."""
    noisy = [a for a in answers if NOISY in a.verdict]
    if not noisy:
        return ""
    return (f"This run's samples cannot give {len(noisy)} of the {len(answers)} answers (marked too noisy to "
            "say, with what the sample could have found): run the full report (boardsim report) for larger "
            "samples.")


VERDICT_NOTE = (
    f"Verdicts: established = the 95% interval excludes zero (after Holm's correction where a "
    f"study makes one), or every rate is known to ±{100 * MARGIN:.0f} points, or the effect is shown "
    f"to be smaller than {100 * MARGIN:.0f} points; approximate = the rates are known to ±"
    f"{200 * MARGIN:.0f} points; suggested = the effect leans that way (p < {SUGGEST_P:g}); too noisy to say = neither, "
    "with the smallest effect the sample had an 80% chance to find. Across skill (same seeds): the same "
    "question answered on the same seeds by a weaker player (the heuristic unless the study names "
    "another), the study player and the best honest player, weakest first (for an effect, the effect "
    "each player finds), n = seeds per player, ± = the widest 95% interval of the values shown "
    "(at the quick report's 20 seeds, ±20 points or more: the skill study's rows at the top are the "
    "precise ones); then the word of the paired difference stronger minus "
    f"study player: holds = within ±{100 * MARGIN:.0f} points, changes = its 95% interval excludes 0, "
    "too few games = neither, with the change it could have found (80% power; each study's skill table "
    "has every player's interval and the paired "
    "differences). "
    "Playtests to notice: how many games a group of people would have to play (at each of the two "
    "setups compared; for a seat's edge, decided games) to see the finding with an 80% chance at the 5% "
    "level, at the rates measured.")

__all__ = ["pp_ci", "skills_text", "Answer", "ESTABLISHED", "APPROXIMATE", "SUGGESTED", "NOISY", "verdict_level", "verdict_effect", "weakest",
           "grouped", "skill_text", "rung_text", "SKILL_COLUMN", "front_tables", "cannot_say", "range_text", "pp_range", "VERDICT_NOTE",
           "HOLDS", "CHANGES", "SKILL_NOISY"]
