"""One-line errors for bad input: exit code 2, no traceback."""
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



def check_writable(path):
    """UserError unless a file can be created at path (its folder exists): checked before a long
    run, so that nothing is played for a file that cannot be written."""
    import os
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise UserError(f"cannot write {str(path)!r}: the folder {os.path.dirname(str(path)) or '.'!r} does not exist")


def write_csv(frame, path):
    """Write a DataFrame to path via a temporary file: nothing half-written if it fails."""
    check_writable(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        frame.to_csv(tmp, index=False)
        tmp.replace(path)
    except OSError as e:
        raise UserError(f"cannot write {str(path)!r}: {e.strerror}") from None
    finally:
        if tmp.exists():
            tmp.unlink()
