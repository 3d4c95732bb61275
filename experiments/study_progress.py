"""One progress bar over a whole study, across every worker: games done of games asked, games/s
and time left (rich).

The executor makes one ``StudyProgress`` for the games still to play and passes its ``on_unit``
as the callback called with each finished unit, whichever worker played it. Games recorded
before a resume count as done from the start but not in the rate (the rate is of this run).
"""
from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn, \
    TimeRemainingColumn
from rich.text import Text


class GamesPerSecond(ProgressColumn):
    """The task's recent speed in games/s (rich's own speed column is for bytes)."""

    def render(self, task) -> Text:
        s = task.finished_speed or task.speed
        if s is None:
            return Text("- games/s", style="progress.data.speed")
        return Text(f"{s:,.0f} games/s", style="progress.data.speed")


class StudyProgress:
    """Context manager: ``with StudyProgress(asked, done) as bar: ... bar.on_unit(cell, start,
    count, counts)``. ``disable=True`` (or a stream that is not a terminal, unless ``console``
    is given) shows nothing but still counts."""

    def __init__(self, total: int, done: int = 0, description: str = "games", console: Console | None = None,
                 disable: bool | None = None):
        self.console = console or Console(file=sys.stderr)
        if disable is None:
            disable = console is None and not self.console.is_terminal
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 GamesPerSecond(), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                                 console=self.console, disable=disable, speed_estimate_period=60.0)
        self.task = self.progress.add_task(description, total=total, completed=done)
        self.units = 0

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()

    def add(self, games: int, cost: float | None = None) -> None:
        """More games to play (the ``add(games, cost)`` protocol of experiments.execute; the bar
        counts games, so `cost` is not used)."""
        t = self.progress.tasks[0]
        self.progress.update(self.task, total=(t.total or 0) + games)

    def advance(self, games: int, cost: float | None = None) -> None:
        self.on_unit(None, 0, games)

    def on_unit(self, cell, start: int, count: int, counts=None) -> None:
        self.units += 1
        self.progress.advance(self.task, count)

    @property
    def done(self) -> int:
        return int(self.progress.tasks[0].completed)
