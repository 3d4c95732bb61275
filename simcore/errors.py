"""The library's error for bad input: a value, file or action the user gave that cannot be used.

Its message is one line naming the bad value and what is allowed. The command line turns exactly
this class into `error: ...` with exit code 2; any other exception is a bug and keeps its
traceback."""


class UserError(ValueError):
    """Bad input from the user (a subclass of ValueError, so callers may also catch that)."""
