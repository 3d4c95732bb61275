"""Trace files of either game: writing them, reading them, and the checks a replay makes of each line.

The game packages (``arena.bethel_woods.trace``, ``arena.benevolent.trace``) record and replay their
own games; what they share is here: ``write_trace``, ``read_trace``, ``trace_game``, ``TraceLine``,
``trace_lines``, ``first_difference``, ``check_decision``, ``check_policy_decision``,
``check_position``, ``check_weights`` and ``check_end``.
"""
from __future__ import annotations

import itertools
import json

from simcore.errors import UserError
from simcore.games import GAMES
from simcore.limits import open_regular, parse_nested

from .runner import check_game_index


def replayed_steps(g, steps, final, turn_field: int, action_names, chance_kind=None) -> list[dict]:
    """The trace lines of a game the arena played, replayed on the game's Python face ``g`` (a
    checked apply: each logged action must be legal there too): a "decision" line per decision, a
    "chance" line per logged chance outcome (kind ``chance_kind``; a game whose log holds none passes
    None), a "position" line after each turn and at the end. ``steps`` are the log's (kind, seat,
    action or outcome) rows, ``turn_field`` the state's turn entry; the replayed state must equal
    ``final``, the arena's, or the replay is refused."""
    import numpy as np
    lines: list[dict] = []
    for kind, q, a in steps.tolist():
        turn = int(g.state[turn_field])
        if chance_kind is not None and kind == chance_kind:
            o, name = g.apply_chance(a)
            lines.append({"type": "chance", "turn": turn, "outcome": o, "name": name})
        else:
            g.apply(a)  # checked: the arena's action must be legal on the Python face too
            lines.append({"type": "decision", "turn": turn, "player": q, "action": a, "name": action_names[a]})
        if g.is_terminal() or int(g.state[turn_field]) != turn:
            lines.append({"type": "position", "turn": turn, "position": g.to_dict()})
    if not np.array_equal(g.state, final):
        raise RuntimeError("the replayed game differs from the arena's")
    return lines


def write_trace(lines, path):
    """Write a trace atomically: nothing is left half-written if it fails."""
    from arena.outfiles import atomic_open
    with atomic_open(path, "w", what="the trace") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def check_policy_decision(line, moves, k, a, names, label):
    """The trace's k-th decision `a` against `moves`, the decisions its policy makes in that game
    (either game): a UserError where they part."""
    if k >= len(moves):
        raise line.error(f"{label} has no decision left here (the trace goes on past its game)")
    if a != moves[k]:
        raise line.error(f"{label} plays {names[moves[k]]} here, not {names[a]}: the decision is legal but not "
                         f"the one the setup's policy makes (replay --legal-only accepts any legal decision)")


MAX_TRACE_BYTES = 64 << 20   # a trace file: 64 MiB (the longest games' traces are well under 1 MiB)
MAX_LINE_BYTES = 1 << 20     # one line of a trace: 1 MiB (a position line is a few kB)


def read_trace(path, numbered=False):
    """The lines of a trace file (either game) as parsed JSON, and with ``numbered`` also their line
    numbers in the file (blank lines are skipped). UserError naming the file (and the line) for a
    missing or unreadable file, a folder, a device or pipe (it could be read without end: only a
    regular file is read), a file over MAX_TRACE_BYTES or a line over MAX_LINE_BYTES, text that is
    not UTF-8, a line that is not JSON, or one nested deeper than ``simcore.limits.MAX_DEPTH``."""
    lines, numbers = [], []
    try:
        with open_regular(path, f"the trace {str(path)!r}", MAX_TRACE_BYTES) as f:
            total = 0
            for n in itertools.count(1):
                raw = f.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    break
                total += len(raw)
                if len(raw) > MAX_LINE_BYTES:
                    raise UserError(f"{path} line {n}: longer than {MAX_LINE_BYTES:,} bytes (the limit for a line)")
                if total > MAX_TRACE_BYTES:
                    raise UserError(f"the trace {str(path)!r} is more than {MAX_TRACE_BYTES:,} bytes (the limit)")
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise UserError(f"{path} line {n}: not UTF-8 text, so not a trace") from None
                if text.strip():
                    try:
                        lines.append(parse_nested(lambda t: json.loads(t, parse_constant=_no_constant), text,
                                                  f"{path} line {n}"))
                    except json.JSONDecodeError as e:
                        raise UserError(f"{path} line {n}: not JSON: {e.msg}") from None
                    except UserError:
                        raise
                    except ValueError as e:
                        raise UserError(f"{path} line {n}: not JSON: {e}") from None
                    numbers.append(n)
    except OSError as e:
        raise UserError(f"cannot read the trace {str(path)!r}: {e.strerror or e}") from None
    return (lines, numbers) if numbered else lines


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def trace_game(lines, source="trace", numbers=None):
    """The name of the game a trace is of (a key of simcore.games.GAMES), from its first line."""
    if not lines:
        raise UserError(f"{source}: the trace is empty (no setup line)")
    head = TraceLine(lines[0], numbers[0] if numbers else 1, source)
    game = head.obj.get("game") if isinstance(head.obj, dict) else None
    if head.kind != "setup" or not isinstance(game, str) or game not in GAMES:
        known = " or ".join(repr(g) for g in GAMES)
        raise head.error(f"not a trace: the first line must be a setup line naming the game "
                         f"({known}), found {_show(head.obj)}")
    return game


_KINDS = {int: "a whole number", str: "a string", dict: "a JSON object", list: "a list"}


def _json_kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, (int, float)):
        return "a number"
    return {str: "a string", dict: "a JSON object", list: "a list"}.get(type(v), type(v).__name__)


def _show(v, width=40):
    s = json.dumps(v)
    return s if len(s) <= width else s[:width - 3] + "..."


class TraceLine:
    """One line of a trace with its number in the file: typed access to its fields, and one-line
    errors naming the file and the line."""

    def __init__(self, obj, n, source):
        self.obj, self.n, self.source = obj, n, source

    def error(self, msg) -> UserError:
        return UserError(f"{self.source} line {self.n}: {msg}")

    @property
    def kind(self):
        return self.obj.get("type") if isinstance(self.obj, dict) else None

    def get(self, key, typ):
        if key not in self.obj:
            raise self.error(f"the {self.kind} line has no {key!r}")
        v = self.obj[key]
        if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
            raise self.error(f"{key} is {_show(v)} ({_json_kind(v)}); expected {_KINDS[typ]}")
        return v

    def int(self, key):
        return self.get(key, int)

    def str(self, key):
        return self.get(key, str)

    def dict(self, key):
        return self.get(key, dict)

    def seed_and_game(self):
        """The setup's seed and game index, checked as `play` takes them."""
        seed, gi = self.int("seed"), self.int("game_index")
        try:
            check_game_index(gi, seed)
        except UserError as e:
            raise self.error(f"setup: {e}") from None
        return seed, gi

    def rules(self, from_mapping):
        """The rules the setup line names, through the game's ``rules_from_mapping``."""
        d = self.dict("rules")
        try:
            return from_mapping(d, source="trace")
        except UserError as e:
            raise self.error(f"setup rules: {e}") from None
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
            raise self.error(f"setup rules are malformed ({type(e).__name__} {e})") from None


def trace_lines(lines, source="trace", numbers=None):
    """The lines as TraceLine objects; UserError for an empty trace or a line that is not an object."""
    if not lines:
        raise UserError(f"{source}: the trace is empty (no setup line)")
    out = [TraceLine(obj, n, source) for obj, n in zip(lines, numbers or range(1, len(lines) + 1))]
    for line in out:
        if not isinstance(line.obj, dict):
            raise line.error(f"expected a JSON object, found {_json_kind(line.obj)}")
    return out


def first_difference(a, b, path=""):
    """(where, a's value, b's value) shown briefly, at the first place two JSON values differ (a
    whole number and true, or 1 and 1.0, differ); None when they are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(b) + [k for k in a if k not in b]:
            where = f"{path}.{k}" if path else str(k)
            if k not in a or k not in b:
                return where, "(missing)" if k not in a else _show(a[k]), "(missing)" if k not in b else _show(b[k])
            d = first_difference(a[k], b[k], where)
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return path or "(top)", _show(a), _show(b)
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if _json_kind(a) != _json_kind(b) or isinstance(a, float) != isinstance(b, float) or a != b:
        return path or "(top)", _show(a), _show(b)
    return None


def check_decision(line, g, q, a, name, names):
    """A decision line against the replayed game `g` (either game's face): the seat to play, the
    action's legality and its name (`names`: the game's ACTION_NAMES)."""
    if q != g.current_player():
        raise line.error(f"the trace's player is {q}, but the replayed game waits for player "
                         f"{g.current_player()} (seats count from 0)")
    legal = g.legal_actions()
    if a not in legal:
        shown = f"{a} ({names[a]})" if 0 <= a < len(names) else str(a)
        raise line.error(f"action {shown} is illegal here; legal: {', '.join(names[b] for b in legal)}")
    if name != names[a]:
        raise line.error(f"action {a} is named {name!r}; its name is {names[a]!r}")


def check_position(line, pending, g):
    """A position line against the replayed game `g` (either game's face): it must come after the
    turn that just ended (`pending`, None when none has) and equal the replayed position."""
    if pending is None:
        raise line.error("a position line where no turn has ended")
    turn = line.int("turn")
    if turn != pending:
        raise line.error(f"the position after turn {turn + 1} where the one after turn {pending + 1} is due")
    diff = first_difference(line.dict("position"), g.to_dict())
    if diff:
        raise line.error("the recorded position differs from the replayed game at {}: trace {}, replay {}".format(*diff))


def check_weights(line, what, theirs, label, ours):
    """The setup's hash of a policy's weights (`what` names it) against this package's: a trace
    played with other weights is a UserError (either game)."""
    if theirs != ours:
        model = line.obj.get("model") if isinstance(line.obj, dict) else None
        hint = f"; it names the model it was played with, {model}: replay --model FILE" if isinstance(model, str) else ""
        raise line.error(f"setup: {what} {theirs!r}, but this package's {label} has {ours!r}: the trace was "
                         f"played with other weights (replay --legal-only checks everything else){hint}")


def check_end(lines, i, fields):
    """UserError unless the end line lines[i] is the last and each (field, the trace's value, the
    replayed value) agrees."""
    for key, theirs, ours in fields:
        if first_difference(theirs, ours):
            raise lines[i].error(f"the end line's {key} is {_show(theirs)} but the replayed game's is {_show(ours)}")
    if i + 1 < len(lines):
        raise lines[i + 1].error("a line after the end line")
