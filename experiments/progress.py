"""Progress bars on stderr, drawn with rich: ProgressBar for one run of games (simulate, the ladder's
rungs), StudyProgress for a whole study."""
from __future__ import annotations

SHOW_AFTER = 2.0  # seconds: shorter runs print no bar
LOG_EVERY = 60.0  # seconds between a study's progress lines in a log (no terminal: no bar)


class ProgressBar:
    """The progress(done, total, elapsed) callback of arena.runner.run_chunks, drawn with rich.

    Shown only for runs projected to last more than ``show_after`` seconds (judged once there is a
    rate to go by: the first chunks are tiny). "elapsed" and "left" are of the play itself, as the
    runner times it (compiling is not counted). The bar is drawn in place on a terminal; on a stream
    that is not one (a CI log, a pipe) rich prints only its last state, once, when the run ends.
    run_chunks calls close() when a run stops early (an error, Ctrl-C), so the terminal's cursor
    comes back."""

    def __init__(self, label="games", console=None, show_after=SHOW_AFTER):
        self.label, self.show_after = label, show_after
        self.console = console
        self.shown = False
        self._progress = None

    def __call__(self, done, total, elapsed):
        if not self.shown and (done >= total or elapsed < self.show_after / 4
                               or elapsed * total / max(done, 1) < self.show_after):
            return
        frac = done / total
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        if self._progress is None and not self.shown:
            self._start(total)
        if self._progress is None:
            return
        self._progress.update(self._task, completed=done, elapsed=elapsed, eta=eta,
                              rate=done / elapsed if elapsed > 0 else 0.0, refresh=True)
        if done >= total:
            self.close()

    def _start(self, total):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn
        self.shown = True
        self._progress = Progress(
            BarColumn(), TaskProgressColumn(),
            TextColumn("{task.completed:,.0f}/{task.total:,.0f} " + self.label),
            TextColumn("{task.fields[rate]:,.0f}/s"),
            TextColumn("{task.fields[elapsed]:.1f}s elapsed, {task.fields[eta]:.1f}s left"),
            console=self.console or Console(stderr=True), auto_refresh=False, transient=False)
        self._task = self._progress.add_task(self.label, total=total, elapsed=0.0, eta=0.0, rate=0.0)
        self._progress.start()

    def close(self):
        """Stop drawing (the line stays); nothing happens if the bar was never shown or is closed."""
        if self._progress is not None:
            progress, self._progress = self._progress, None
            progress.stop()


class StudyProgress:
    """One rich progress bar for a whole study, across every worker: games done of the total,
    games/s and time left.

        with StudyProgress("difficulty") as bar:            # the studies (experiments.report)
            execute(work, progress=bar)                     # calls bar.add(...), bar.advance(...)
        with StudyProgress("games", total=asked, done=recorded) as bar:   # runwork.run_work
            bar.on_unit(cell, start, count, counts)

    experiments.run.execute calls add(games, cost) with each batch of work it is given (a study may
    hand it several: sequential looks, a search then its confirmation) and advance(games, cost)
    after each unit, whichever worker played it; on_unit(cell, start, count[, counts]) is
    advance(count) in the executor's callback form. The bar advances by cost (nominal seconds of
    play at each cell's nominal speed, experiments.run.execute.speed; the games themselves when no
    cost is given), so "time left" stays right when a study mixes cheap and costly cells.

    Games recorded before a resume (``done=`` here, or resumed(games, cost)) count as done
    from the start but not in the rate: games/s and time left are of this run (``played``).
    Drawn on stderr; ``enabled=False`` (or ``disable=True``, or ``disable=None`` on a stream that
    is not a terminal) draws nothing, the counts are still kept."""

    def __init__(self, description: str = "study", enabled: bool = True, console=None, *,
                 total: int = 0, done: int = 0, disable: bool | None = False, say=None,
                 every: float = LOG_EVERY):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
        self.description, self.console = description, console or Console(stderr=True)
        if disable is None:
            disable = console is None and not self.console.is_terminal
        self.enabled = enabled and not disable
        self.games = 0          # games done: recorded before (resumed) + played in this run
        self.played = 0         # games played in this run
        self.units = 0          # units finished in this run
        self.total_games = 0
        self.total_cost = 0.0
        self._t0: float | None = None
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("{task.fields[games]:,}/{task.fields[all_games]:,} games"),
            TextColumn("{task.fields[rate]:,.0f} games/s"),
            TextColumn("time left"), TimeRemainingColumn(),
            console=self.console, transient=False, disable=not self.enabled,
            speed_estimate_period=60.0)
        self.task = self.progress.add_task(description, total=0, games=0, all_games=0, rate=0.0)
        self._started = False
        # in a log (no bar): say(line) once a minute with the games done, asked and the time left
        self.say, self.every = say, every
        self._said: float | None = None
        self._cost_done = 0.0
        if total or done:
            self._grow(total - done, None, done, None)

    def add(self, games: int, cost: float | None = None):
        """`games` more to play (cost: their nominal seconds, default the games)."""
        self._grow(games, cost, 0, 0.0)

    def resumed(self, games: int, cost: float | None = None):
        """`games` more that a results store already holds: counted as done from the start, not
        in this run's rate."""
        self._grow(0, 0.0, games, cost)

    def _grow(self, games, cost, done, done_cost):
        import time
        if self._t0 is None:
            self._t0 = time.perf_counter()
        cost = float(games if cost is None else cost)
        done_cost = float(done if done_cost is None else done_cost)
        self.total_games += games + done
        self.total_cost += cost + done_cost
        self.games += done
        if self.enabled and not self._started:
            self.progress.start()
            self._started = True
        self.progress.update(self.task, total=self.total_cost, all_games=self.total_games,
                             games=self.games)
        if done_cost:
            # completed without advancing: rich's speed samples (games/s, time left) are of this run
            # (update(completed=) would add a speed sample), so the Task's field is set directly
            self.progress.tasks[0].completed += done_cost

    def advance(self, games: int, cost: float | None = None):
        import time
        if self._t0 is None:
            self._t0 = time.perf_counter()
        self.games += games
        self.played += games
        self.units += 1
        dt = time.perf_counter() - self._t0
        c = float(games if cost is None else cost)
        self._cost_done += c
        self.progress.update(self.task, advance=c, games=self.games,
                             rate=self.played / dt if dt > 0 else 0.0)
        if self.say is not None:
            now = time.perf_counter()
            if self._said is None:
                self._said = self._t0
            if now - self._said >= self.every:
                self._said = now
                self.say(self.log_line(dt))

    def log_line(self, elapsed: float) -> str:
        """"difficulty: 12,000 of 40,000 games, about 3 min left" (the time left from this run's
        pace over the nominal cost still to play)."""
        left = self.total_cost - self.progress.tasks[0].completed
        pace = self._cost_done / elapsed if elapsed > 0 else 0.0
        if left <= 0 or self.games >= self.total_games:
            when = "finishing"   # every game asked is played (a later stage may ask more)
        else:
            when = (f"about {left / pace / 60:.0f} min left" if pace > 0 and left / pace >= 60 else
                    f"about {max(left / pace, 1):.0f} s left" if pace > 0 else "time left not known yet")
        return f"{self.description}: {self.games:,} of {self.total_games:,} games, {when}"

    def on_unit(self, cell, start: int, count: int, counts=None) -> None:
        self.advance(count)

    @property
    def done(self) -> int:
        return self.games

    def close(self):
        if self._started:
            self.progress.stop()
            self._started = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
