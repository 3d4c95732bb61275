"""Limits on what boardsim reads from a user's files, stated once and checked before anything is used.

A rules file, a study file, a baseline or a trace is read whole, so each is bounded: it must be a
regular file (not a device such as /dev/zero, a pipe or a folder, which could be read without
end), no larger than a stated size, and its values nested no deeper than ``MAX_DEPTH`` (Python's
TOML and JSON parsers recurse, so a file nested thousands of levels deep would otherwise end in
a RecursionError). Each breach is a one-line ``UserError`` naming the file and the limit.
"""
from __future__ import annotations

import os
import stat

from .errors import UserError

MAX_DEPTH = 32                 # nesting of tables, arrays and objects; the files boardsim reads use 5 at most
MAX_TEXT_BYTES = 1 << 20       # a rules, study or baseline file (a few kB in practice): 1 MiB


def depth(value) -> int:
    """How deeply lists, tuples and dicts nest in value (a scalar is 0, [] and [1] are 1), without
    recursion, so that any parsed value can be measured."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        elif not isinstance(v, (list, tuple)):
            continue
        deepest = max(deepest, d)
        stack.extend((x, d + 1) for x in v)
    return deepest


def too_deep(what: str) -> UserError:
    return UserError(f"{what} is nested more than {MAX_DEPTH} levels deep (the limit)")


def parse_nested(parse, data, what: str):
    """parse(data), refused when its value nests deeper than MAX_DEPTH. A parser that recurses
    past Python's limit (thousands of levels, far beyond MAX_DEPTH) is the same error."""
    try:
        value = parse(data)
    except RecursionError:
        raise too_deep(what) from None
    if depth(value) > MAX_DEPTH:
        raise too_deep(what)
    return value


def open_regular(path, what: str, limit: int):
    """The file at path opened for reading in binary, checked to be a regular file of at most
    `limit` bytes. A pipe is opened without waiting for a writer, then refused. UserError naming
    the file (`what`) otherwise; OSError (missing, unreadable) is left to the caller."""
    fd = os.open(os.fspath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UserError(f"{what} is a folder; give a file")
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"{what} is not a regular file (a device, pipe or socket could be read without end)")
        if st.st_size > limit:
            raise UserError(f"{what} is {st.st_size:,} bytes; the limit is {limit:,}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path, what: str, limit: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (``open_regular``); a file that grows
    past the limit while it is read is refused too."""
    with open_regular(path, what, limit) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UserError(f"{what} is more than {limit:,} bytes (the limit)")
    return data
