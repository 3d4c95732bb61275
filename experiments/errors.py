"""One-line errors for bad input: exit code 2, no traceback."""
from __future__ import annotations

import typer


def fail(message: str) -> "typer.Exit":
    """Print `error: message` on stderr and return the Exit(2) to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def user_errors(fn):
    """Turn the library's ValueErrors (bad values, bad rules files) into one-line exit-2 errors."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BrokenPipeError:  # `| head` closed the pipe: click's own handling (exit 1), not "error:"
            raise
        except (ValueError, OSError) as e:
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise fail(msg) from None
    return wrapper



def write_csv(frame, path):
    """Write a DataFrame to path via a temporary file: nothing half-written if it fails."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        frame.to_csv(tmp, index=False)
        tmp.replace(path)
    finally:
        if tmp.exists():
            tmp.unlink()
