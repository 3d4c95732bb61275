"""The progress bar: shown on stderr only for runs projected to last more than a couple of seconds."""
import io

from experiments.progress import ProgressBar


def test_short_runs_show_no_bar():
    out = io.StringIO()
    bar = ProgressBar(stream=out)
    bar(50, 100, 0.2)   # projected 0.4 s
    bar(100, 100, 0.4)
    assert out.getvalue() == ""


def test_long_runs_show_a_bar_that_ends_with_a_newline():
    out = io.StringIO()
    bar = ProgressBar(stream=out)
    bar(10, 100, 1.0)   # projected 10 s
    bar(100, 100, 10.0)
    text = out.getvalue()
    assert "10.0%" in text and "100.0%" in text and "100/100 games" in text and text.endswith("\n")
