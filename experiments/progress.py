"""A plain progress bar on stderr for runs longer than a couple of seconds."""
from __future__ import annotations

import sys

SHOW_AFTER = 2.0  # seconds: shorter runs print no bar


class ProgressBar:
    def __init__(self, label="games", stream=None, width=30, show_after=SHOW_AFTER):
        self.label, self.stream, self.width, self.show_after = label, stream or sys.stderr, width, show_after
        self.shown = False

    def __call__(self, done, total, elapsed):
        # shown only for runs that look long once there is a rate to go by (the first chunks are tiny)
        if not self.shown and (done >= total or elapsed < self.show_after / 4
                               or elapsed * total / max(done, 1) < self.show_after):
            return
        self.shown = True
        frac = done / total
        bar = "#" * int(frac * self.width)
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        self.stream.write(f"\r[{bar:<{self.width}}] {frac:6.1%} {done:,}/{total:,} {self.label} "
                          f"{elapsed:5.1f}s elapsed, {eta:5.1f}s left")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


class StudyProgress:
    """One rich progress bar for a whole study: games done of the total, games/s and time left.

    experiments.execute calls add(games, cost) with each batch of work it is given (a study may
    hand it several: sequential looks, a search then its confirmation) and advance(games, cost)
    after each unit; the owner calls close() at the end. The bar advances by nominal cost
    (seconds of play at each cell's nominal speed, experiments.execute.speed), so "time left"
    stays right when a study mixes cheap and costly cells; games and games/s are counted. Drawn
    on stderr; enabled=False draws nothing (the counts are still kept)."""

    def __init__(self, description: str = "study", enabled: bool = True, console=None):
        self.description, self.enabled, self.console = description, enabled, console
        self._progress = None
        self.games = 0
        self.total_games = 0
        self.total_cost = 0.0

    def add(self, total_games: int, total_cost: float):
        import time
        if self.total_games == 0:
            self._t0 = time.perf_counter()
        self.total_games += total_games
        self.total_cost += total_cost
        if not self.enabled:
            return
        if self._progress is None:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
            console = self.console or Console(stderr=True)
            self._progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(),
                TextColumn("{task.fields[games]:,}/{task.fields[all_games]:,} games"),
                TextColumn("{task.fields[rate]:,.0f} games/s"),
                TextColumn("time left"), TimeRemainingColumn(),
                console=console, transient=False)
            self._progress.start()
            self._task = self._progress.add_task(self.description, total=self.total_cost,
                                                 games=0, all_games=self.total_games, rate=0.0)
        else:
            self._progress.update(self._task, total=self.total_cost, all_games=self.total_games)

    def advance(self, games: int, cost: float):
        import time
        self.games += games
        if self._progress is not None:
            dt = time.perf_counter() - self._t0
            self._progress.update(self._task, advance=cost, games=self.games,
                                  rate=self.games / dt if dt > 0 else 0.0)

    def close(self):
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
