"""Several knobs at once (issue 41, part 2): `find_target_multi` on planted problems (a known
logistic rate over two or three whole-number knobs, Bernoulli games from the seed, no game), its
confirmation on fresh seeds, determinism and errors; and one small `boardsim target` run with two
Bethel Woods knobs."""
import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from boardsim.cli import app
from experiments.target_search import find_target_multi
from simcore.errors import UserError

TARGET = 0.40
BASE = math.log(0.28 / 0.72)   # the defaults' rate: 28%
# logit steps per unit of each knob. Planted so that the smallest change that gets within 2 pp is 2
# knobs: a 2→3 with b 2→1 gives 40.0%; every one-knob change is at least 5.6 pp away (b 2→3: 34.4%,
# a 2→3: 47.4%), and the other changes of a and b together at least 5 pp. c moves the rate about
# 0.7 pp a step (b 2→3 with c 1→3: 35.8%).
TWO = ({"a": 0.84, "b": 0.3}, {"a": (0, 4, 2), "b": (0, 3, 2)})
THREE = ({"a": 0.84, "b": 0.3, "c": 0.03}, {"a": (0, 4, 2), "b": (0, 3, 2), "c": (0, 3, 1)})


def planted(steps, knobs, seeds=None):
    def p(s):
        return 1 / (1 + math.exp(-(BASE + sum(steps[k] * (s[k] - knobs[k][2]) for k in s))))

    def measure(s, games, seed):   # common random numbers: the same seed, the same uniforms at any setting
        if seeds is not None:
            seeds.append(seed)
        return int((np.random.default_rng(seed).random(games) < p(s)).sum())
    return p, measure


def test_the_planted_problems_are_what_the_comment_says():
    p, _ = planted(*TWO)
    assert abs(p({"a": 3, "b": 1}) - TARGET) < 0.005
    ones = [p({"a": a, "b": 2}) for a in range(5) if a != 2] + [p({"a": 2, "b": b}) for b in range(4) if b != 2]
    assert min(abs(r - TARGET) for r in ones) > 0.05


@pytest.mark.parametrize("problem, budget, reps, least", [(TWO, 20000, 20, 18), (THREE, 30000, 20, 14)],
                         ids=["two knobs (every setting tried)", "three knobs (Optuna TPE)"])
def test_the_pareto_set_holds_the_smallest_change_within_2pp(problem, budget, reps, least):
    """Over 20 seeded replications, the Pareto set holds a two-knob point whose TRUE rate is within
    2 pp of the target, and it is the smallest change that gets there, in at least `least` of them
    (measured 20 of 20 with two knobs, where the 20 settings fit the search's trials, and 19 of 20
    with three, 80 settings searched by TPE (17 before the reverts and the optimistic refinement); a miss is a three-knob answer or a two-knob point
    4 pp off picked by noise)."""
    p, m = planted(*problem)
    hits = 0
    for rep in range(reps):
        r = find_target_multi(m, TARGET, problem[1], budget_games=budget, games_per_trial=500,
                              confirm_games=2000, seed=rep)
        on_front = any(pt.n_changed == 2 and abs(p(pt.setting) - TARGET) <= 0.02 for pt in r.pareto)
        hits += on_front and r.smallest is not None and r.smallest.n_changed == 2 \
            and abs(p(r.smallest.setting) - TARGET) <= 0.02
        assert [pt.n_changed for pt in r.pareto] == sorted({pt.n_changed for pt in r.pareto})
        assert r.pareto[0].n_changed == 0          # the defaults are always tried and never dominated
        assert r.search_games <= budget
    assert hits >= least


def test_confirmation_is_on_fresh_seeds_and_the_figures_come_from_it():
    seeds: list[int] = []
    p, m = planted(*TWO, seeds=seeds)
    r = find_target_multi(m, TARGET, TWO[1], budget_games=10000, games_per_trial=500, confirm_games=1500, seed=4)
    search = {s for s, t in zip(seeds, r.trials)}
    confirm = seeds[len(r.trials):]
    assert len(seeds) == len(r.trials) + len(r.pareto) + (r.alternative not in r.pareto)
    assert not set(confirm) & search
    for pt in r.pareto:
        c = pt.confirmed
        assert c.games == 1500 and c.low <= c.rate <= c.high and c.wins == m(pt.setting, 1500, confirm[0])
        assert c.covers_target == (c.low <= TARGET <= c.high)
    assert r.confirm_games == 1500 * len(confirm)
    alt = r.alternative
    assert alt is not None and alt.changed != r.smallest.changed and alt.confirmed.games == 1500


def test_the_same_seed_gives_the_same_answer_and_another_seed_other_trials():
    _, m = planted(*THREE)
    kw = dict(budget_games=8000, games_per_trial=400, confirm_games=500)
    a = find_target_multi(m, TARGET, THREE[1], seed=11, **kw)
    assert a == find_target_multi(m, TARGET, THREE[1], seed=11, **kw)
    assert a.trials != find_target_multi(m, TARGET, THREE[1], seed=12, **kw).trials


@pytest.mark.parametrize("kwargs, words", [
    (dict(target=0.0), "target 0.0"), (dict(target=1.2), "target 1.2"),
    (dict(knobs={}), "knobs is empty"), (dict(knobs={"a": (3, 1, 2)}), "3..1 is empty"),
    (dict(knobs={"a": (0, 2.5, 1)}), "whole numbers"), (dict(games_per_trial=0), "games_per_trial 0"),
    (dict(confirm_games=0), "confirm_games 0"), (dict(budget_games=100), "below games_per_trial"),
    (dict(refine=1.0), "refine 1.0")])
def test_bad_inputs_are_one_line_errors(kwargs, words):
    _, m = planted(*TWO)
    args = dict(target=TARGET, knobs=TWO[1], budget_games=2000, games_per_trial=500, confirm_games=100) | kwargs
    with pytest.raises(UserError, match=words) as e:
        find_target_multi(m, args.pop("target"), args.pop("knobs"), **args)
    assert "\n" not in str(e.value)


def test_the_command_with_two_knobs_prints_a_confirmed_pareto_set_naming_the_player():
    args = ["target", "bethel-woods", "--knob", "knowledge_limit", "--range", "6-9", "--knob",
            "malfunctions_per_turn", "--range", "3-5", "--target", "0.25", "--players", "3", "--player",
            "heuristic", "--budget-games", "1200", "--games-per-trial", "100", "--confirm-games", "150",
            "--seed", "3"]
    r = CliRunner().invoke(app, args + ["--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["player"] == "heuristic" and d["search_games"] <= 1200 and d["pareto"]
    for pt in d["pareto"]:
        assert pt["confirmed"]["games"] == 150 and set(pt["setting"]) == {"knowledge_limit", "malfunctions_per_turn"}
        assert pt["n_changed"] == sum(pt["setting"][k] != d["defaults"][k] for k in pt["setting"])
    text = CliRunner().invoke(app, args).output
    assert "played by heuristic (a bot, not people)" in text and "Pareto set" in text and "fresh games" in text
    bad = CliRunner().invoke(app, args[:8] + ["--target", "0.3"])   # two --knob, one --range
    assert bad.exit_code == 2 and "one --range per --knob" in bad.output
