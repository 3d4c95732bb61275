"""The report's front page: each study's plain answers, with a verdict and whether they hold with
stronger play.

Every study runner returns ``Answer`` objects beside its tables (``Result.answers``); the front
page (``front_page``) lists them per game, in the report's first screen: the answer rounded as a
designer would say it, its 95% interval, one verdict word and the skill check, each question a
link to its study's section.

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
from .stats import plain_pct, plain_pp

ESTABLISHED, SUGGESTED, NOISY = "established", "suggested", "too noisy to say"
APPROXIMATE = "approximate"   # a level known to +-2 MARGIN (an effect's middle word is SUGGESTED)
ORDER = {ESTABLISHED: 0, APPROXIMATE: 1, SUGGESTED: 1, NOISY: 2}
SUGGEST_P = 0.20   # an effect whose p is below this (and not significant) is "suggested"


@dataclass
class Answer:
    """One plain answer of a study: `question` (what a designer asks), `answer` (rounded, with its
    interval), `verdict` (one of the three words), `anchor` (the study's section), `skill` (the
    answer with stronger play: "" when not measured), `detect` (for an answer that is not
    established: the smallest effect the sample had an 80% chance to find)."""
    game: str
    question: str
    answer: str
    verdict: str
    anchor: str
    skill: str = ""
    detect: str = ""
    first: bool = False   # the skill study's ranges over skill: listed first in the game's table
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


def pp_ci(d: float, lo: float, hi: float) -> str:
    """A difference in points with its interval, no unit: "+7 (+6 to +9)" (the caller says pp once)."""
    d_ = plain_pp(d).replace(" pp", "")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return d_
    return f"{d_} ({plain_pp(lo).replace(' pp', '')} to {plain_pp(hi).replace(' pp', '')})"


def skills_text(items) -> str:
    """The front page's stronger-play cell from skill rows (experiments.skill), each with a key
    ("2 pl", "0 spies", or "" for one row): the word once when every row agrees ("changes: 2 pl
    +24 (+15 to +33); 3 pl +17 (+6 to +27) pp, n=120"), else a word per row; n = seeds per arm."""
    items = [(k, r) for k, r in items if r is not None]
    if not items:
        return ""
    words = [SKILL_WORDS[r["robust"]] for _, r in items]
    ns = sorted({int(r["games"]) for _, r in items})
    n = f"n={ns[0]:,}" if len(ns) == 1 else f"n={ns[0]:,}–{ns[-1]:,}"
    d = [pp_ci(r["diff"], r["diff_low"], r["diff_high"]) for _, r in items]
    if len(set(words)) == 1:
        body = "; ".join(f"{k} {x}" if k else x for (k, _), x in zip(items, d))
        return f"{words[0]}: {body} pp, {n}"
    return "; ".join(f"{k} {w} {x}" for (k, _), w, x in zip(items, words, d)) + f" pp, {n}"


def skill_text(row) -> str:
    """One skill row as the front page's cell: "changes: +24 (+15 to +33) pp, n=120"."""
    return skills_text([("", row)]) if row is not None else ""


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
            "answer (95% CI)": [a.answer for a in rows],
            "verdict": [a.verdict + (f"; {a.detect}" if a.detect else "") for a in rows],
            "with stronger play": [a.skill or "not measured" for a in rows],
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
    "with the smallest effect the sample had an 80% chance to find. With stronger play: the same "
    "question answered by the best honest player on the same seeds, as the paired difference stronger "
    f"minus study player: holds = within ±{100 * MARGIN:.0f} points, changes = the interval excludes 0. "
    "Playtests to notice: how many games a group of people would have to play (at each of the two "
    "setups compared; for a seat's edge, decided games) to see the finding with an 80% chance at the 5% "
    "level, at the rates measured.")

__all__ = ["pp_ci", "skills_text", "Answer", "ESTABLISHED", "APPROXIMATE", "SUGGESTED", "NOISY", "verdict_level", "verdict_effect", "weakest",
           "grouped", "skill_text", "front_tables", "cannot_say", "range_text", "pp_range", "VERDICT_NOTE",
           "HOLDS", "CHANGES", "SKILL_NOISY"]
