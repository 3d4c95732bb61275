"""One-line errors for bad input: exit code 2, no traceback."""
from __future__ import annotations

import typer

from arena.outfiles import check_not_input, check_writable  # noqa: F401  (the commands check output paths here)
from simcore.errors import UserError


def fail(message: str) -> "typer.Exit":
    """Print `error: message` on stderr and return the Exit(2) to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def user_errors(fn):
    """Turn the library's UserError (bad values, bad rules files, bad traces) into one-line exit-2
    errors. Every other exception is a bug and keeps its traceback."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BrokenPipeError:  # `| head` closed the pipe: click's own handling (exit 1), not "error:"
            raise
        except UserError as e:
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise fail(msg) from None
    return wrapper


def write_csv(frame, path):
    """Write a DataFrame to path via a temporary file: nothing half-written if it fails (a link,
    pipe or device is written through, not replaced)."""
    from arena.outfiles import atomic_open
    with atomic_open(path, "w", newline="") as f:
        frame.to_csv(f, index=False)
