"""The ``target`` study: one knob of a game tuned until an outcome hits a designer's target, as a
study file (docs/target.md): the search of ``experiments.target`` with every batch played through
the executor, so a study of this kind is kept in a results store and resumed, runs on Dask and
shows progress like every other kind. The search is a pure function of the seed and the counts,
so a resumed run asks for the same batches and reads them back from the store.

Keys: game, policy (the player, one), players (one count; with knobs, several: one change for all
of them), spies (Bethel Woods) or seat
(Benevolent), knob with range = [lo, hi], or knobs with ranges (one span each: [lo, hi], or "all"
or a list of names for a switch or component table), target (a value to hit) or at_most (a
bound), outcome (Bethel Woods "win", "gap:Q" or "edge:CHARACTER"; Benevolent "seat-win" or "seat-gap:J"), games
(the search's budget), games_per_trial (several knobs), confirm_games, seed; band = [low, high]
instead of target: aim at the middle, get there inside the band; keep_rate = [low, high] with a
gap outcome: the first rate must stay in that range.
"""
from __future__ import annotations

import pandas as pd

from arena.units import as_dict

from ..render import Section
from ..run.execute import execute
from .common import Result, table_csv_path
from .spec import Study, players_arg


def run_target_study(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from simcore.games import game as game_of

    from ..answers import Answer, verdict_level
    from ..target import problem, result_text, run_target
    o = st.opts
    g = game_of(st.game)
    if o.get("multi"):
        return _run_several(st, g, threads, progress, backend)
    pr = problem(g, o["knob"], o["players"][0], st.policies[0], spies=o.get("spies", [0])[0], seat=o.get("seat", 1))
    lo, hi = o["range"]

    def measure(x, games, seed):
        counts = execute([(pr.cell(int(x), seed), games)], threads=threads, progress=progress, **(backend or {}))[0]
        return int(pr.success(as_dict(g.name, counts)))

    res = run_target(pr, lo, hi, o["target"], o["games"], o["confirm_games"], o["seed"], measure=measure)
    path = pd.DataFrame([{"step": i, o["knob"]: int(s.value), "wins": s.wins, "games": s.games,
                          "rate": s.wins / s.games if s.games else float("nan")} for i, s in enumerate(res.path)])
    conf = [(r, c) for r, c in (("recommendation", res.confirmed), ("other side", res.alternative),
                                ("printed", res.printed)) if c is not None]
    confirmed = pd.DataFrame([{"role": role, o["knob"]: int(c.value),
                               "wins": c.wins, "games": c.games, "rate": c.rate, "ci_low": c.low, "ci_high": c.high,
                               "covers_target": c.covers_target, "target": res.target,
                               "answer": c.value == res.answer.value, "player": pr.player}
                              for role, c in conf])
    lines = [ln.strip() for ln in result_text(pr, res, g.title).splitlines()]
    text = "\n\n".join(ln[0].upper() + ln[1:] + ("" if ln.endswith(".") else ".") for ln in lines)
    c = res.answer
    where = f"{pr.players} players" + (f", {pr.spies} spies" if g.cooperative and o["knob"] != "spies" else "")
    goal = (f"a {100 * res.target:.0f}% win rate" if g.cooperative
            else f"seat {pr.seat} to win {100 * res.target:.0f}%")
    keep = "keep the printed " if res.keep_printed else ""
    answer = Answer(g.name, f"{o['knob']} for {goal}, {where}",
                    f"{keep}{o['knob']} = {int(c.value)}: {100 * c.rate:.1f}% ({100 * c.low:.1f}–{100 * c.high:.1f})",
                    verdict_level((c.high - c.low) / 2), st.name, player=pr.player)
    section = Section(st.title, text, tables=[
        ("The recommendation, the nearest value on the other side of the target and the printed value, each "
         "on the same fresh games (Wilson 95% intervals); answer marks the value to play", confirmed,
         table_csv_path(st, "confirmed")),
        ("The search: each batch, in order (games at one knob value on one seed)", path, table_csv_path(st, "path"))],
        anchor=st.name)
    return Result(st, {"confirmed": confirmed, "path": path}, section, answers=[answer])


def _run_several(st: Study, g, threads, progress, backend) -> Result:
    """The several-knob search (or one categorical knob, or an outcome that is not one rate to hit)
    with every trial played through the executor: the Pareto set, the smallest change, an
    alternative, each confirmed on fresh games."""
    from ..answers import Answer, verdict_level
    from ..target import changes_text, goal_text, problem_multi, result_text_multi, run_target_multi, value_text
    o = st.opts
    bound = "at_most" in o
    pr = problem_multi(g, o["knobs"], players_arg(o), st.policies[0], spies=o.get("spies", [0])[0],
                       seat=o.get("seat", 1), outcome=o.get("outcome"), at_most=bound,
                       keep=tuple(o["keep_rate"]) if "keep_rate" in o else None)
    spans = {k: (list(sp) if pr.labels and k in pr.labels else tuple(sp)) for k, sp in zip(o["knobs"], o["ranges"])}

    def measure(setting, games, seed):
        units = execute(pr.work(setting, games, seed), threads=threads, progress=progress, **(backend or {}))
        return pr.counts_from(units, games)

    target = o["at_most"] if bound else o.get("target", 0.5)
    res = run_target_multi(pr, spans, target, o["games"], o["games_per_trial"], o["confirm_games"], o["seed"],
                           measure=measure, band=tuple(o["band"]) if "band" in o else None)
    out = res.outcome

    def row(role, p):
        c = p.confirmed
        return {"role": role, **{k: pr.label(k, v) for k, v in p.setting.items()}, "changes": changes_text(p, res.defaults, pr.label),
                "rules_changed": p.n_changed, "value": c.rate, "ci_low": c.low, "ci_high": c.high,
                **{f"count{j}": v for j, v in enumerate(c.counts)}, "games": c.games,
                "gets_there": c.gets_there, "target": res.target, "goal": out.goal, "player": pr.player}
    rows = [row("smallest" if p == res.smallest else "pareto", p) for p in res.pareto]
    if res.alternative is not None and res.alternative not in res.pareto:
        rows.append(row("alternative", res.alternative))
    elif res.alternative is not None:
        rows[res.pareto.index(res.alternative)]["role"] += ", alternative"
    pareto = pd.DataFrame(rows)
    trials = pd.DataFrame([{"trial": i, **{k: pr.label(k, v) for k, v in t.setting.items()}, "visit": t.visit,
                            "games": t.games, **{f"count{j}": v for j, v in enumerate(t.counts)}}
                           for i, t in enumerate(res.trials)])
    lines = [ln.strip() for ln in result_text_multi(pr, res, g.title).splitlines()]
    text = "\n\n".join(ln[0].upper() + ln[1:] + ("" if ln.endswith((".", ":")) else ".") for ln in lines)
    counts = ", ".join(map(str, pr.player_counts)) if pr.player_counts else str(pr.players)
    where = f"{counts} players" + (f", {pr.spies} spies" if g.cooperative and "spies" not in pr.knobs else "")
    pick = res.smallest or min(res.pareto, key=lambda p: p.confirmed.distance)
    c = pick.confirmed
    head = changes_text(pick, res.defaults, pr.label) if res.smallest is not None else \
        f"none gets there; closest {changes_text(pick, res.defaults, pr.label)}"
    answer = Answer(g.name, f"{', '.join(pr.knobs)} for {pr.short()} {goal_text(out, res.target, res.tol)}, {where}",
                    f"{head}: {value_text(out, c.rate)} ({value_text(out, c.low)}–{value_text(out, c.high)}); "
                    f"{pick.n_changed} rule{'s' if pick.n_changed != 1 else ''} changed",
                    verdict_level((c.high - c.low) / 2), st.name, player=pr.player)
    section = Section(st.title, text, tables=[
        ("The Pareto set (distance to the target against rules changed), the smallest change that gets there and "
         "a different change, each on the same fresh games (95% intervals; count0, count1 the outcome's counts)",
         pareto, table_csv_path(st, "pareto")),
        ("The search: each trial, in order (games at one setting on the visit's seed; count0, count1 the "
         "outcome's counts)", trials, table_csv_path(st, "trials"))], anchor=st.name)
    return Result(st, {"pareto": pareto, "trials": trials}, section, answers=[answer])
