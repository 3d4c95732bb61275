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

    The bar advances by nominal cost (seconds of play at each cell's nominal speed, see
    experiments.execute.speed), so "time left" stays right when a study mixes cheap and costly
    cells; games and games/s are shown as counted. Drawn on stderr, only on a terminal (rich
    decides), and `enabled=False` draws nothing."""

    def __init__(self, description: str = "study", enabled: bool = True, console=None):
        self.description, self.enabled, self.console = description, enabled, console
        self._progress = None
        self.games = 0
        self.total_games = 0

    def start(self, total_games: int, total_cost: float):
        import time

        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
        self.games, self.total_games, self._t0 = 0, total_games, time.perf_counter()
        if not self.enabled:
            return
        console = self.console or Console(stderr=True)
        self._progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("{task.fields[games]:,}/{task.fields[all_games]:,} games"),
            TextColumn("{task.fields[rate]:,.0f} games/s"),
            TextColumn("time left"), TimeRemainingColumn(),
            console=console, transient=False)
        self._progress.start()
        self._task = self._progress.add_task(self.description, total=max(total_cost, 1e-9),
                                             games=0, all_games=total_games, rate=0.0)

    def advance(self, games: int, cost: float):
        import time
        self.games += games
        if self._progress is not None:
            dt = time.perf_counter() - self._t0
            self._progress.update(self._task, advance=cost, games=self.games,
                                  rate=self.games / dt if dt > 0 else 0.0)

    def stop(self):
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
