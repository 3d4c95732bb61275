"""The progress bar of one run (simulate, the ladder's rungs): drawn with rich on stderr, only for runs
projected to last more than a couple of seconds, and stopped (cursor back) however the run ends."""
import io

import pytest
from rich.console import Console

from arena.runner import run_chunks
from experiments.progress import ProgressBar

SHOW_CURSOR = "\x1b[?25h"
HIDE_CURSOR = "\x1b[?25l"


def _bar(terminal):
    out = io.StringIO()
    return ProgressBar(console=Console(file=out, width=120, force_terminal=terminal)), out


@pytest.mark.parametrize("terminal", [False, True])
def test_short_runs_show_no_bar(terminal):
    bar, out = _bar(terminal)
    bar(50, 100, 0.2)   # projected 0.4 s
    bar(100, 100, 0.4)
    assert out.getvalue() == "" and not bar.shown


def test_long_runs_in_a_log_print_the_last_state_once():
    bar, out = _bar(False)
    bar(10, 1000, 1.0)   # projected 100 s
    bar(500, 1000, 5.0)
    bar(1000, 1000, 10.0)
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    assert "1,000/1,000 games" in text and "100%" in text and "10.0s elapsed, 0.0s left" in text
    assert "500/1,000" not in text


def test_long_runs_on_a_terminal_draw_in_place_and_give_the_cursor_back():
    bar, out = _bar(True)
    bar(10, 1000, 1.0)
    bar(500, 1000, 5.0)
    assert HIDE_CURSOR in out.getvalue() and SHOW_CURSOR not in out.getvalue()
    assert "500/1,000 games" in out.getvalue() and "5.0s elapsed, 5.0s left" in out.getvalue()
    bar(1000, 1000, 10.0)
    assert "1,000/1,000 games" in out.getvalue() and out.getvalue().endswith(SHOW_CURSOR)


def test_a_run_stopped_early_closes_the_bar():
    """run_chunks calls close() on the way out, so an error (or Ctrl-C) mid-run leaves no hidden cursor."""
    bar, out = _bar(True)
    bar.show_after = 0.0   # show from the first chunk

    def play(start, count):
        if start >= 20:
            raise RuntimeError("stopped")
        return count

    with pytest.raises(RuntimeError, match="stopped"):
        run_chunks(100, play, lambda *a: None, chunk=10, threads=1, progress=bar)
    assert bar.shown and "20/100 games" in out.getvalue() and out.getvalue().endswith(SHOW_CURSOR)
    bar.close()   # closing twice is harmless
    assert out.getvalue().endswith(SHOW_CURSOR) and out.getvalue().count(SHOW_CURSOR) == 1
