"""A position's array layout from one table, and its JSON form from the same table.

A game's position is one flat int32 array. Its layout is a table, one row per field in array
order: (name, shape, decode, comment). ``shape`` is a number of entries, or (rows, entries per
row) for a field read row by row (BOARD: one row of 24 kinds per machine), or (rows, Layout) for
a block repeated per seat (Benevolent's players). The offsets are the running sums of the sizes,
computed once at import; the engine binds them as plain module ints (``globals().update``), so
numba reads them as compile-time constants exactly as it read hand-written numbers, and the
compiled code is the same. A row may have a fifth entry, ``align``: the field then starts at the
next multiple of it (``EVEN``: a field of float64 or uint64 values viewed over pairs of int32
entries, as the players' workspaces hold them); the entries skipped are a field of their own,
``<name>_PAD`` (not in the JSON), so the table still covers every index exactly once.

``decode`` says how the field appears in the JSON position (a codec below; None: not in it, a
cache the face rebuilds). The face lays the fields out in the documented order and nesting with a
small skeleton (``Rows``, ``When``, ``Derived``, ...) that names fields, never offsets; ``shower``
and ``read`` walk it both ways, so ``to_dict`` and ``from_dict`` come from the one table.
"""
from __future__ import annotations

import numpy as np


# ---- codecs: one field (or one row of it) <-> its JSON value -------------------------------------
class Codec:
    empty = 0          # the value of an entry nothing was read into (from_dict starts from it)

    def show(self, a):
        raise NotImplementedError

    def code(self, at, width, const):
        """Python source for ``show`` of the field's entries in the list ``v`` (``shower``
        compiles it in place of a call): ``at(i)`` is the source of entry i's index, ``const(x)``
        the name of a constant bound to x. By default a call of ``show`` on the slice."""
        return f"{const(self)}.show(v[{at(0)}:{at(width)}])"

    def read(self, x, a):
        raise NotImplementedError


class Int(Codec):
    """A number shown as it is."""
    def show(self, a):
        return int(a[0])

    def code(self, at, width, const):
        return f"v[{at(0)}]"

    def read(self, x, a):
        a[0] = x


class Bool(Codec):
    """0 or 1 shown as false or true."""
    def show(self, a):
        return bool(a[0])

    def code(self, at, width, const):
        return f"(v[{at(0)}] != 0)"

    def read(self, x, a):
        a[0] = int(x)


class Opt(Codec):
    """-1 shown as null, else the number plus ``add`` (1: a machine's printed number)."""
    empty = -1

    def __init__(self, add=0):
        self.add = add

    def show(self, a):
        return None if a[0] < 0 else int(a[0]) + self.add

    def code(self, at, width, const):
        x = f"v[{at(0)}]"
        return f"(None if {x} < 0 else {x} + {self.add})" if self.add else f"(None if {x} < 0 else {x})"

    def read(self, x, a):
        a[0] = -1 if x is None else x - self.add


class Name(Codec):
    """An index shown as its name; -1 as null."""
    empty = -1

    def __init__(self, names):
        self.names = tuple(names)

    def show(self, a):
        return None if a[0] < 0 else self.names[a[0]]

    def code(self, at, width, const):
        x = f"v[{at(0)}]"
        return f"(None if {x} < 0 else {const(self.names)}[{x}])"

    def read(self, x, a):
        a[0] = -1 if x is None else self.names.index(x)


class Choice(Codec):
    """A value from a short list shown by its label (``labels``: value -> label)."""
    def __init__(self, labels, empty=0):
        self.labels = dict(labels)
        self.values = {v: k for k, v in self.labels.items()}
        self.empty = empty

    def show(self, a):
        return self.labels[int(a[0])]

    def code(self, at, width, const):
        return f"{const(self.labels)}[v[{at(0)}]]"

    def read(self, x, a):
        a[0] = self.values[x]


class PerName(Codec):
    """One count per name, shown as {name: count} for every name."""
    def __init__(self, names):
        self.names = tuple(names)

    def show(self, a):
        return {n: int(a[i]) for i, n in enumerate(self.names)}

    def code(self, at, width, const):
        return "{" + ", ".join(f"{n!r}: v[{at(i)}]" for i, n in enumerate(self.names)) + "}"

    def read(self, x, a):
        for i, n in enumerate(self.names):
            a[i] = x[n]


class Counts(Codec):
    """One count per name, shown as {name: count} for the non-zero counts only."""
    def __init__(self, names):
        self.names = tuple(names)

    def show(self, a):
        return {n: int(a[i]) for i, n in enumerate(self.names) if a[i]}

    def code(self, at, width, const):
        return f"{{n: x for n, x in zip({const(self.names)}, v[{at(0)}:{at(width)}]) if x}}"

    def read(self, x, a):
        a[:] = 0
        for n, c in x.items():
            a[self.names.index(n)] = c


class Flags(Codec):
    """One 0/1 per name, shown as the list of the names set."""
    def __init__(self, names):
        self.names = tuple(names)

    def show(self, a):
        return [n for i, n in enumerate(self.names) if a[i]]

    def code(self, at, width, const):
        return f"[n for n, x in zip({const(self.names)}, v[{at(0)}:{at(width)}]) if x]"

    def read(self, x, a):
        for n in x:
            a[self.names.index(n)] = 1


class Bits(Codec):
    """A bitmask of indices below ``n``, shown as the list of the bits set."""
    def __init__(self, n):
        self.n = n

    def show(self, a):
        v = int(a[0])
        return [j for j in range(self.n) if (v >> j) & 1]

    def code(self, at, width, const):   # each mask's list worked out once (a copy shown each time)
        return f"{const(_Memo(lambda v: self.show([v])))}[v[{at(0)}]][:]"

    def read(self, x, a):
        a[0] = sum(1 << j for j in x)


class Sorted(Codec):
    """Slots holding an index or -1 (empty), shown as the sorted list of the indices."""
    empty = -1

    def show(self, a):
        return sorted(int(v) for v in a if v >= 0)

    def code(self, at, width, const):
        return f"sorted([x for x in v[{at(0)}:{at(width)}] if x >= 0])"

    def read(self, x, a):
        a[:] = -1
        a[:len(x)] = x


class _Memo(dict):
    """f(x), computed the first time x is asked for."""
    def __init__(self, f):
        self.f = f

    def __missing__(self, x):
        y = self[x] = self.f(x)
        return y


# ---- the table ----------------------------------------------------------------------------------------
EVEN = 2   # a row's ``align`` for 8-byte values (float64, uint64) over int32 pairs: an even offset


class Field:
    def __init__(self, name, shape, decode, comment, offset, align=1):
        self.name, self.decode, self.comment, self.offset, self.align = name, decode, comment, offset, align
        self.block = None
        if isinstance(shape, tuple):
            rows, width = shape
            if isinstance(width, Layout):
                self.block, width = width, width.size
        else:
            rows, width = 1, shape
        self.rows, self.width = rows, width
        self.size = rows * width
        if not (isinstance(rows, int) and isinstance(width, int) and rows > 0 and width > 0):
            raise ValueError(f"field {name}: shape {shape!r} must be positive")


class Layout:
    """The fields of one flat array, in order, from rows (name, shape, decode, comment[, align])."""

    def __init__(self, *rows):
        self.fields = []
        at = 0
        for name, shape, decode, comment, *more in rows:
            align = more[0] if more else 1
            if len(more) > 1 or not (isinstance(align, int) and align > 0):
                raise ValueError(f"field {name}: a row is (name, shape, decode, comment[, align > 0])")
            if at % align:      # the entries up to the next multiple of align: a pad field of their own
                pad = Field(f"{name}_PAD", align - at % align, None, f"unused: {name} starts at a multiple of {align}", at)
                self.fields.append(pad)
                at += pad.size
            f = Field(name, shape, decode, comment, at, align)
            self.fields.append(f)
            at += f.size
        self.size = at
        self.offsets = {f.name: f.offset for f in self.fields}
        if len(self.offsets) != len(self.fields):
            raise ValueError("two fields of one layout share a name")
        self._empty = None
        self._where = {}
        for f in self.fields:
            self._where[f.name] = (f.offset, f.width, f.width, f.rows, f.decode)
            if f.block is not None:     # a block's fields: row q is the field in seat q's block
                for g in f.block.fields:
                    self._where[g.name] = (f.offset + g.offset, f.width, g.size, f.rows, g.decode)

    def where(self, name):
        """(start of row 0, stride between rows, entries per row, rows, codec) of a field, also
        of a field inside a block (row q: the field in seat q's block)."""
        return self._where[name]

    def at(self, name, row):
        """The slice of a field (of row ``row`` when it has several rows) and its codec."""
        start, stride, width, rows, codec = self._where[name]
        if rows > 1:
            if row is None:
                raise ValueError(f"field {name} has {rows} rows: show it in Rows")
            start += stride * row
        return slice(start, start + width), codec

    def owners(self):
        """For every index of the array, the names of the fields holding it (a block's fields as
        'PL[q].L_GIFTS'): each list should have exactly one name."""
        own = [[] for _ in range(self.size)]
        for f in self.fields:
            inner = f.block.owners() if f.block is not None else [[""]] * f.width
            for r in range(f.rows):
                for i, names in enumerate(inner):
                    at = f.offset + r * f.width + i
                    own[at] += [f"{f.name}[{r}].{n}" if f.block is not None else f.name for n in names]
        return own

    def empty(self):
        """An array with every field at its codec's empty value (caches 0)."""
        if self._empty is None:
            self._empty = self._make_empty()
        return self._empty.copy()

    def _make_empty(self):
        s = np.zeros(self.size, dtype=np.int32)
        for f in self.fields:
            if f.block is not None:
                b = f.block.empty()
                for r in range(f.rows):
                    s[f.offset + r * f.width: f.offset + (r + 1) * f.width] = b
            elif f.decode is not None:
                s[f.offset: f.offset + f.size] = f.decode.empty
        return s


# ---- the JSON skeleton --------------------------------------------------------------------------------
# A skeleton is a dict (keys in the JSON's order), a list, a field name (str), or one of these:
class Const:
    """A fixed value (the game's name); not read back."""
    def __init__(self, value):
        self.value = value


class Index:
    """The row number (plus ``add``: 1 for printed machine numbers); not read back."""
    def __init__(self, add=0):
        self.add = add


class Rows:
    """A list with one entry per row: ``n`` rows, or as many as the field named ``n`` says; with
    ``counted`` the list's length is read back into that field; with ``keep`` only the rows where
    that field is not empty."""
    def __init__(self, n, item, counted=False, keep=None):
        self.n, self.item, self.counted, self.keep = n, item, counted, keep


class When:
    """``item`` if ``test(s)``, else null (every field in it then left empty)."""
    def __init__(self, test, item):
        self.test, self.item = test, item


class Derived:
    """A value computed from the position, ``show(s, row)``; read back only to check it,
    ``check(value, s, row)`` (raise ValueError when it does not agree)."""
    def __init__(self, show, check=None):
        self.show, self.check = show, check


class Missing:
    """A field an older position may lack (it then stays empty)."""
    def __init__(self, item):
        self.item = item


def shower(layout, sk):
    """A function s -> the JSON value of skeleton ``sk`` on array ``s``. The skeleton is compiled
    once into the source of one Python function: a field is an expression on ``v = s.tolist()``
    (plain ints: no numpy scalar per entry) at its offset, a dict or a list a literal, ``Rows`` a
    comprehension, so a position costs no call per field (the differential tests show a
    position at every step)."""
    consts = {}

    def const(x):
        name = f"_c{len(consts)}"
        consts[name] = x
        return name

    src = f"def show(s):\n    v = s.tolist()\n    return {_code(layout, sk, None, const)}\n"
    ns = dict(consts)
    exec(compile(src, "<layout.shower>", "exec"), ns)
    show = ns["show"]
    show.source = src
    return show


def _code(layout, sk, row, const):
    # the source of skeleton sk's value; row: the name of the enclosing Rows' row variable, or None
    def again(x, r=row):
        return _code(layout, x, r, const)
    if isinstance(sk, str):
        start, stride, width, rows, codec = layout.where(sk)
        if rows > 1:
            if row is None:
                raise ValueError(f"field {sk} has {rows} rows: show it in Rows")
            step = row if stride == 1 else f"{stride} * {row}"
            return codec.code(lambda i: f"{start + i} + {step}", width, const)
        return codec.code(lambda i: f"{start + i}", width, const)
    if isinstance(sk, dict):
        return "{" + ", ".join(f"{k!r}: {again(x)}" for k, x in sk.items()) + "}"
    if isinstance(sk, list):
        return "[" + ", ".join(again(x) for x in sk) + "]"
    if isinstance(sk, Rows):
        r = "r0" if row is None else f"r{int(row[1:]) + 1}"   # a nested Rows has a row of its own
        item = again(sk.item, r)
        if sk.keep is not None:
            kstart, kstride = layout.where(sk.keep)[:2]
            return f"[{item} for {r} in range({sk.n}) if v[{kstart} + {kstride} * {r}] >= 0]"
        n = sk.n if isinstance(sk.n, int) else f"v[{layout.where(sk.n)[0]}]"
        return f"[{item} for {r} in range({n})]"
    if isinstance(sk, When):
        return f"({again(sk.item)} if {const(sk.test)}(s) else None)"
    if isinstance(sk, Derived):
        return f"{const(sk.show)}(s, {row})"
    if isinstance(sk, Index):
        if row is None:
            raise ValueError("Index outside Rows: there is no row number to show")
        return f"({row} + {sk.add})" if sk.add else row
    if isinstance(sk, Const):
        return const(sk.value)
    if isinstance(sk, Missing):
        return again(sk.item)
    raise TypeError(f"not a skeleton: {sk!r}")


def read(layout, sk, x, s, row=None):
    """Write the JSON value ``x`` of skeleton ``sk`` into array ``s``."""
    if isinstance(sk, str):
        sl, codec = layout.at(sk, row)
        codec.read(x, s[sl])
    elif isinstance(sk, dict):
        for k, v in sk.items():
            if isinstance(v, Missing) and k not in x:
                continue
            read(layout, v, x[k], s, row)
    elif isinstance(sk, list):
        if len(x) != len(sk):
            raise ValueError(f"{x!r} should have {len(sk)} entries")
        for v, xv in zip(sk, x):
            read(layout, v, xv, s, row)
    elif isinstance(sk, Rows):
        if isinstance(sk.n, int) and len(x) > sk.n:
            raise ValueError(f"{len(x)} entries where there are {sk.n}")
        for r, xr in enumerate(x):
            read(layout, sk.item, xr, s, r)
        if sk.counted:
            s[layout.where(sk.n)[0]] = len(x)
    elif isinstance(sk, When):
        if x is not None:
            read(layout, sk.item, x, s, row)
    elif isinstance(sk, Derived):
        if sk.check is not None:
            sk.check(x, s, row)
    elif isinstance(sk, Missing):
        read(layout, sk.item, x, s, row)
    elif not isinstance(sk, (Index, Const)):
        raise TypeError(f"not a skeleton: {sk!r}")


def fields_named(sk):
    """Every field name a skeleton shows (a field shown twice appears twice)."""
    if isinstance(sk, str):
        return [sk]
    if isinstance(sk, dict):
        return [n for v in sk.values() for n in fields_named(v)]
    if isinstance(sk, list):
        return [n for v in sk for n in fields_named(v)]
    if isinstance(sk, Rows):
        return ([sk.n] if sk.counted else []) + fields_named(sk.item)
    if isinstance(sk, (When, Missing)):
        return fields_named(sk.item)
    return []
