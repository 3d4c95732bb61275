"""The front page: verdict words, the stronger-play cell, the tables per game, the glossary."""
import numpy as np
import pytest

from experiments.stats import plain_pp
from experiments import answers as A
from experiments.skill import CHANGES, HOLDS, MARGIN, NOISY


def test_level_verdicts_follow_the_intervals_half_width():
    assert A.verdict_level(MARGIN) == A.ESTABLISHED
    assert A.verdict_level(MARGIN + 1e-9) == A.APPROXIMATE
    assert A.verdict_level(2 * MARGIN) == A.APPROXIMATE
    assert A.verdict_level(2 * MARGIN + 1e-9) == A.NOISY
    assert A.verdict_level(float("nan")) == A.NOISY


@pytest.mark.parametrize("lo,hi,p,sig,verdict,null", [
    (0.01, 0.09, 0.001, None, A.ESTABLISHED, False),     # the interval excludes 0
    (-0.02, 0.02, 0.9, None, A.ESTABLISHED, True),       # no effect larger than the margin: that is the answer
    (-0.01, 0.09, 0.1, None, A.SUGGESTED, False),        # leans one way
    (-0.06, 0.09, 0.5, None, A.NOISY, False),
    (0.01, 0.09, 0.001, False, A.SUGGESTED, False),      # excludes 0 per comparison, not after Holm's correction
    (-0.01, 0.09, 0.1, True, A.ESTABLISHED, False),
])
def test_effect_verdicts(lo, hi, p, sig, verdict, null):
    assert A.verdict_effect(lo, hi, p, significant=sig) == (verdict, null)


def test_grouped_verdicts_name_what_each_covers():
    assert A.grouped({2: A.ESTABLISHED, 3: A.ESTABLISHED}) == A.ESTABLISHED
    assert A.grouped({2: A.NOISY, 3: A.ESTABLISHED, 4: A.NOISY}) == \
        "established (3 pl); too noisy to say (2, 4 pl)"
    assert A.weakest([A.ESTABLISHED, A.SUGGESTED]) == A.SUGGESTED


def _row(word, d, lo, hi, n=120, values=(0.49, 0.83), weaker=None):
    """A skill row: the check's word and paired difference, the study and stronger players' values,
    and (weaker = (name, value)) the weaker rung's."""
    r = {"robust": word, "diff": d, "diff_low": lo, "diff_high": hi, "games": n, "best_policy": "expert",
         "study_policy": "learned", "study_value": values[0], "best_value": values[1]}
    if weaker:
        r.update(weaker_policy=weaker[0], weaker_value=weaker[1])
    return r


def test_skill_cells_name_every_rung_weakest_first_and_the_word_once_when_every_row_agrees():
    one = A.skill_text(_row(CHANGES, 0.34, 0.23, 0.44, weaker=("heuristic", 0.31)))
    assert one == "changes: heuristic 31% → learned 49% → expert 83% (n=120)"
    two = A.skills_text([("2 pl", _row(CHANGES, 0.24, 0.15, 0.33, values=(0.02, 0.26), weaker=("heuristic", -0.05))),
                         ("3 pl", _row(CHANGES, 0.17, 0.06, 0.27, values=(0.01, 0.18), weaker=("heuristic", 0.004)))],
                        diff=True)
    assert two == ("changes: 2 pl heuristic -5 → learned +2 → expert +26; 3 pl heuristic +0.4 → learned +1 → "
                   "expert +18 pp (n=120)")
    mixed = A.skills_text([("2 pl", _row(HOLDS, 0.01, -0.02, 0.02, 300, values=(0.1, 0.11))),
                           ("3 pl", _row(NOISY, -0.1, -0.3, 0.1, 20, values=(0.2, 0.1)))], diff=True)
    assert mixed == ("2 pl holds: learned +10 → expert +11; 3 pl too few games: learned +20 → expert +10 pp "
                     "(n=20–300; could find 29 pp)")
    assert A.skill_text(None) == ""
    # each ±: the widest 95% interval among the values the cell shows (rates or effects)
    wide = _row(NOISY, 0.1, -0.2, 0.4, 20, values=(0.4, 0.5), weaker=("heuristic", 0.2))
    wide.update(study_low=0.2, study_high=0.6, best_low=0.28, best_high=0.7, weaker_low=0.1, weaker_high=0.3)
    # where the check cannot say, the change it could have found: 1.43 half-widths of the paired difference
    from experiments.stats import detectable_from_interval
    found = plain_pp(detectable_from_interval(-0.2, 0.4), sign=False)
    assert found == "43 pp"
    assert A.skill_text(wide) == ("too few games: heuristic 20% → learned 40% → expert 50% (n=20, ±21 pp; "
                                  f"could find {found})")
    assert A.skill_text(_row(NOISY, 0.0, np.nan, np.nan, 6, values=(0.5, np.nan))) == \
        "too few games: learned 50% → expert n/a (n=6)"   # no interval: nothing it could find is claimed


def test_front_tables_one_per_game_each_question_a_link():
    from experiments.render import Link
    ans = [A.Answer("benevolent", "Seat 1's edge", "+7 (+6 to +9) pp", A.ESTABLISHED, "seats"),
           A.Answer("bethel_woods", "Win rate, 2 players", "Normal 49%", A.SUGGESTED, "difficulty",
                    skill="heuristic 31% → learned 49% → expert 83%", player="learned"),
           A.Answer("bethel_woods", "Characters", "Violet ×2.3", A.NOISY, "characters", detect="could find ×1.8",
                    playtests="400 games each"),
           A.Answer("bethel_woods", "Win rate across skill", "Normal heuristic 27% to expert 68%", A.SUGGESTED,
                    "skill", first=True)]
    tables = A.front_tables(ans, {"bethel_woods": "played by learned"}, lambda t, a: Link(t, "#" + a))
    assert [c for c, _ in tables] == ["Bethel Woods: played by learned", "Benevolent"]
    bw = tables[0][1]
    assert list(bw.columns) == ["question", "answer (95% CI)", "verdict", A.SKILL_COLUMN, "playtests to notice"]
    assert A.SKILL_COLUMN == "across skill (same seeds)"
    # the study player's answer names the player; the row across skill is every rung's
    assert bw["answer (95% CI)"].tolist() == ["Normal heuristic 27% to expert 68%", "learned: Normal 49%", "Violet ×2.3"]
    # the range over skill first, then the others in the studies' order
    assert [q.href for q in bw["question"]] == ["#skill", "#difficulty", "#characters"]
    assert bw["verdict"].tolist() == ["suggested", "suggested", "too noisy to say; could find ×1.8"]
    assert bw[A.SKILL_COLUMN].tolist() == ["not measured", "heuristic 31% → learned 49% → expert 83%", "not measured"]
    assert bw["playtests to notice"].tolist() == ["—", "—", "400 games each"]
    assert A.cannot_say(ans).startswith("This run's samples cannot give 1 of the 4 answers")
    assert A.cannot_say(ans[:2]) == ""


def test_every_rules_reading_and_table_has_a_plain_name():
    """No code name reaches the reader: every switch reading and alternative table of both games is
    in the glossary (a new one without an entry fails here)."""
    from experiments.glossary import GLOSSARY, plain
    from experiments.sensitivity import variants
    for game in ("bethel_woods", "benevolent"):
        for name, _, _ in variants(game):
            assert name in GLOSSARY and plain(name) != name and "_" not in plain(name), name


def test_rules_files_are_named_by_their_first_comment(tmp_path):
    from experiments.glossary import rules_file_title
    f = tmp_path / "knowledge_limit_6.toml"
    f.write_text("# Knowledge limit 6 instead of 7 (docs/bethel_woods.md).\n[bethel_woods]\nknowledge_limit = 6\n")
    assert rules_file_title(f) == "Knowledge limit 6 instead of 7"
    f.write_text("[bethel_woods]\nknowledge_limit = 6\n")
    assert rules_file_title(f) == "knowledge limit 6"
