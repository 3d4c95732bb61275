"""The command line's one-line errors for bad input: exit code 2, no traceback."""
from __future__ import annotations

import typer

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
