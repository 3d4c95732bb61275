"""The study progress bar counts games across units and shows games/s and time left."""
import io
import time

from rich.console import Console

from experiments.progress import StudyProgress


def test_one_bar_counts_units_and_shows_rate_and_time_left():
    out = io.StringIO()
    con = Console(file=out, force_terminal=True, width=150, color_system=None)
    with StudyProgress("games", total=10_000, done=4_000, console=con) as bar:
        stamps = []
        time.sleep(0.3)   # were the 4000 resumed games a sample at the start, the rate would be 3 x lower
        for k in range(3):
            time.sleep(0.05)
            bar.on_unit(None, 4000 + 1000 * k, 1000)
            stamps.append(time.monotonic())
        assert bar.done == 7_000 and bar.units == 3
        task = bar.progress.tasks[0]
        # the rate is of this run (the last 2000 games over the time since the first unit), not
        # of the 4000 recorded before the resume
        assert 0.8 < task.speed * (stamps[-1] - stamps[0]) / 2000 < 1.25
        bar.progress.refresh()
    text = out.getvalue()
    assert "7,000/10,000" in text or "7000/10000" in text
    assert "games/s" in text and "left" in text


def test_silent_when_not_a_terminal():
    bar = StudyProgress("games", total=100, disable=None)          # stderr under pytest is not a terminal
    with bar:
        bar.on_unit(None, 0, 60)
    assert bar.done == 60 and not bar.enabled


def test_the_studies_protocol_adds_batches_and_resumed_games_are_done_not_played():
    bar = StudyProgress("study", enabled=False)
    bar.add(1000, 2.0)            # a batch of 1000 games still to play, 2 nominal seconds
    bar.resumed(3000, 6.0)        # and 3000 the results store holds
    bar.advance(500, 1.0)
    task = bar.progress.tasks[0]
    assert (bar.games, bar.played, bar.total_games) == (3500, 500, 4000)
    assert task.total == 8.0 and task.completed == 7.0
    assert bar.done == 3500 and bar.units == 1
