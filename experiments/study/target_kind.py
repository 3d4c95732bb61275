"""The ``target`` study: one knob of a game tuned until an outcome hits a designer's target, as a
study file (docs/target.md): the search of ``experiments.target`` with every batch played through
the executor, so a study of this kind is kept in a results store and resumed, runs on Dask and
shows progress like every other kind. The search is a pure function of the seed and the counts,
so a resumed run asks for the same batches and reads them back from the store.

Keys: game, policy (the player, one), players (one count), spies (Bethel Woods) or seat
(Benevolent), knob, range = [lo, hi], target (a rate), games (the search's budget), confirm_games,
seed.
"""
from __future__ import annotations

import pandas as pd

from arena.units import as_dict

from ..render import Section
from ..run.execute import execute
from .common import Result, _csv
from .spec import Study


def run_target_study(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from simcore.games import game as game_of

    from ..answers import Answer, verdict_level
    from ..target import problem, result_text, run_target
    o = st.opts
    g = game_of(st.game)
    pr = problem(g, o["knob"], o["players"][0], st.policies[0], spies=o.get("spies", [0])[0], seat=o.get("seat", 1))
    lo, hi = o["range"]

    def measure(x, games, seed):
        counts = execute([(pr.cell(int(x), seed), games)], threads=threads, progress=progress, **(backend or {}))[0]
        return int(pr.success(as_dict(g.name, counts)))

    res = run_target(pr, lo, hi, o["target"], o["games"], o["confirm_games"], o["seed"], measure=measure)
    path = pd.DataFrame([{"step": i, o["knob"]: int(s.value), "wins": s.wins, "games": s.games,
                          "rate": s.wins / s.games if s.games else float("nan")} for i, s in enumerate(res.path)])
    conf = [c for c in (res.confirmed, res.alternative) if c is not None]
    confirmed = pd.DataFrame([{"role": "recommendation" if i == 0 else "other side", o["knob"]: int(c.value),
                               "wins": c.wins, "games": c.games, "rate": c.rate, "ci_low": c.low, "ci_high": c.high,
                               "covers_target": c.covers_target, "target": res.target, "player": pr.player}
                              for i, c in enumerate(conf)])
    lines = [ln.strip() for ln in result_text(pr, res, g.title).splitlines()]
    text = "\n\n".join(ln[0].upper() + ln[1:] + ("" if ln.endswith(".") else ".") for ln in lines)
    c = res.confirmed
    where = f"{pr.players} players" + (f", {pr.spies} spies" if g.cooperative and o["knob"] != "spies" else "")
    goal = (f"a {100 * res.target:.0f}% win rate" if g.cooperative
            else f"seat {pr.seat} to win {100 * res.target:.0f}%")
    answer = Answer(g.name, f"{o['knob']} for {goal}, {where}",
                    f"{o['knob']} = {int(res.recommendation)}: {100 * c.rate:.1f}% ({100 * c.low:.1f}–{100 * c.high:.1f})",
                    verdict_level((c.high - c.low) / 2), st.name, player=pr.player)
    section = Section(st.title, text, tables=[
        ("The recommendation and the nearest value on the other side of the target, each on fresh games "
         "(Wilson 95% intervals)", confirmed, _csv(st, "confirmed")),
        ("The search: each batch, in order (games at one knob value on one seed)", path, _csv(st, "path"))],
        anchor=st.name)
    return Result(st, {"confirmed": confirmed, "path": path}, section, answers=[answer])
