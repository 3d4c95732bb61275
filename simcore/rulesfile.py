"""Reading a user's TOML rules file: one file may hold a table per game."""
from __future__ import annotations

import tomllib

from .errors import UserError


class RulesError(UserError):
    """A rules file or value that cannot be used; the message is one line for the user."""


def read_table(path, table: str) -> dict:
    """The `[table]` of the TOML file at path ({} if absent); RulesError with one line otherwise."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise RulesError(f"rules file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as e:
        raise RulesError(f"rules file {str(path)!r} is not valid TOML: {e}") from None
    except OSError as e:
        raise RulesError(f"rules file {str(path)!r} cannot be read: {e.strerror}") from None
    t = data.get(table, {})
    if not isinstance(t, dict):
        raise RulesError(f"rules file {str(path)!r}: [{table}] must be a table")
    return t
