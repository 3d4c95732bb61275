"""Reading a user's TOML rules file: one file may hold a table per game."""
from __future__ import annotations

import tomllib

from .errors import UserError
from .limits import parse_nested, read_regular


GAME_TABLES = ("bethel_woods", "benevolent")  # the tables a rules file may hold, one per game


class RulesError(UserError):
    """A rules file or value that cannot be used; the message is one line for the user."""


def read_table(path, table: str) -> dict:
    """The `[table]` of the TOML file at path ({} if absent); RulesError with one line otherwise."""
    what = f"rules file {str(path)!r}"
    try:
        data = parse_nested(lambda b: tomllib.loads(b.decode("utf-8")), read_regular(path, what), what)
    except FileNotFoundError:
        raise RulesError(f"{what} does not exist") from None
    except tomllib.TOMLDecodeError as e:
        raise RulesError(f"{what} is not valid TOML: {e}") from None
    except UnicodeDecodeError:
        raise RulesError(f"{what} is not UTF-8 text (TOML must be)") from None
    except UserError as e:   # a folder, a device or pipe, too large, too deeply nested (simcore.limits)
        raise RulesError(str(e).replace("give a file", "give a .toml file")) from None
    except OSError as e:
        raise RulesError(f"{what} cannot be read: {e.strerror}") from None
    unknown = [k for k in data if k not in GAME_TABLES]
    if unknown:
        raise RulesError(f"rules file {str(path)!r}: unknown table or key {unknown[0]!r} at the top; "
                         f"allowed: {', '.join('[' + g + ']' for g in GAME_TABLES)}")
    if table not in data:
        raise RulesError(f"rules file {str(path)!r} has no [{table}] table, so nothing in it applies "
                         f"to this game")
    t = data[table]
    if not isinstance(t, dict):
        raise RulesError(f"rules file {str(path)!r}: [{table}] must be a table")
    return t


def is_whole(x) -> bool:
    """x is a TOML integer (a Python int that is not a bool)."""
    return isinstance(x, int) and not isinstance(x, bool)


def toml_repr(x) -> str:
    """A value as a rules file spells it: true/false for a boolean (Python would print True)."""
    return ("true" if x else "false") if isinstance(x, bool) else repr(x)


def rules_from_file(path, table: str, build):
    """build(the [table] of the rules file at path, source=path), with the file named in any
    RulesError the values raise (a bad value is then found in the right file)."""
    d = read_table(path, table)
    try:
        return build(d, source=str(path))
    except RulesError as e:
        raise RulesError(f"rules file {str(path)!r}: {e}") from None


def parse_switches(given, spec: dict, table: str) -> tuple:
    """The value index of every switch in ``spec`` ({name: (allowed values, the default first)}),
    in spec order, from the ``switches`` table of a rules file (missing: the default).

    An unknown switch or value is a RulesError naming it and what is allowed."""
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise RulesError(f"[{table}] switches: expected a table of name = \"value\"; switches: "
                         f"{', '.join(spec)}")
    for name in given:
        if name not in spec:
            raise RulesError(f"unknown switch {name!r} in [{table}.switches]; allowed: {', '.join(spec)}")
    out = []
    for name, values in spec.items():
        v = given.get(name, values[0])
        if v not in values:
            raise RulesError(f"switch {name} = {toml_repr(v)} in [{table}.switches]; allowed: "
                             f"{', '.join(repr(x) for x in values)}")
        out.append(values.index(v))
    return tuple(out)


def spec_mapping(spec: str, table: str, alternatives: dict, switches: dict):
    """A ``--rules`` value that names shipped rules instead of a file: a comma-separated list of
    alternative names (``alternatives``: name -> mapping of the [table] keys) and switch settings
    ``name=value``, applied left to right. None when ``spec`` looks like a file path (it has a
    ``/`` or ends with ``.toml``, or a file of that name exists). Two items that set the same
    table or switch differently (``machines-b,machines-c``, ``four_critical=immediate,
    four_critical=end_of_turn``) are a RulesError: the later one would silently win."""
    import os
    s = str(spec)
    if not s.strip():
        raise RulesError("--rules is empty; give a rules file or shipped rules by name "
                         f"(alternatives: {', '.join(alternatives)}; switches: {', '.join(switches)})")
    if os.path.exists(s):
        return None
    items = [x.strip() for x in s.split(",")]
    if len(items) > 1 and any("/" in x or x.endswith(".toml") for x in items):
        raise RulesError(f"--rules {s!r}: a rules file cannot be combined with named rules; "
                         f"put the switches and tables in the file, or give names only")
    if "/" in s or s.endswith(".toml"):
        return None
    d: dict = {}
    by: dict = {}     # (key or switch name) -> the item that set it

    def put(target: dict, key, value, owner, item):
        if owner in by and target[key] != value:
            raise RulesError(f"--rules {s!r}: {by[owner]!r} and {item!r} both set {owner}; give one of them")
        target[key] = value
        by[owner] = item

    for item in s.split(","):
        item = item.strip()
        if "=" in item:
            name, value = (x.strip() for x in item.split("=", 1))
            if name not in switches:
                raise RulesError(f"--rules {item!r}: unknown switch {name!r}; switches: {', '.join(switches)}")
            put(d.setdefault("switches", {}), name, value, f"switch {name}", item)
        elif item in alternatives:
            for k, v in alternatives[item].items():
                if k == "switches":
                    for name, value in v.items():
                        put(d.setdefault("switches", {}), name, value, f"switch {name}", item)
                else:
                    put(d, k, v, k, item)
        else:
            raise RulesError(f"--rules {item!r}: no such file, shipped alternative or switch=value; "
                             f"alternatives: {', '.join(alternatives)}; switches: {', '.join(switches)}")
    return d
