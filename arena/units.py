"""Work units: a cell of a study, and the fixed vector of counts a range of its games yields.

A *cell* is everything that decides how a game is played: the game, the setup (players, spies and
characters, or starting leaves), the policies by seat with their parameters, the rules data and
the seeds. A *unit* is a cell and a range of game indices [start, start + count). Its result is a
fixed int64 vector of counts (``FIELDS[game]``) that depends on nothing else: every random number
is keyed by (seed, game index, stream), and counts add, so any split of a cell's games into units,
on any executor, in any order, gives bit-identical totals.

``unit_key`` names a unit with everything its result depends on (the cell, the rules content
hash, the policy parameters' hash, the engine source hash, the range), so a results store can
refuse to mix results from another engine version, rules file or parameter vector.

This module is the arena layer: it imports engines and policies and nothing above them. It holds
the arena's registry of games, ``ARENAS``: each game's arena module (arena/<game>/batch.py), filled
by explicit imports and keyed by the game object's name. The games' modules never import this one
(a game's ``simulate`` plays through arena/cell.py, below them), so the imports run one way.
"""
from __future__ import annotations

import functools
import hashlib
import json
import pathlib
from types import ModuleType

import numpy as np

import policies
import simcore
from simcore.benevolent import GAME as _BV
from simcore.bethel_woods import GAME as _BW
from simcore.errors import UserError
from simcore.games import GAMES, game as game_of
from simcore.numbacache import source_hash

from . import cell as _cell
from .benevolent import batch as _bv_batch
from .bethel_woods import batch as _bw_batch
from .cell import Cell, theta_hash  # the cell and its theta hash, for every caller of the arena


# ---------------------------------------------------------------------------------------------
# the arena's registry: each game's arena module (arena/<game>/batch.py: its play loop, records
# and counts), by the game object's name. A third game adds its module here.
ARENAS: dict[str, ModuleType] = {_BW.name: _bw_batch, _BV.name: _bv_batch}


def arena_module(game) -> ModuleType:
    """The game's arena module (its play loop, records and counts), from ``ARENAS``."""
    return ARENAS[game_of(game).name]


# ---------------------------------------------------------------------------------------------
# count vectors: each game's arena module names its fields (COUNT_FIELDS), adds a chunk's records
# to them (add_counts) and says how its games end (count_ends)

FIELDS = {g.name: arena_module(g).COUNT_FIELDS for g in GAMES.values()}
GAME_NAMES = tuple(FIELDS)


def field_index(game, name: str) -> int:
    return FIELDS[game_of(game).name].index(name)


def as_dict(game, counts) -> dict:
    """The count vector as {field: int} (histogram bins with zero counts left out)."""
    return {f: int(c) for f, c in zip(FIELDS[game_of(game).name], counts) if c or not f.startswith(("turns_", "rounds_"))}


def count_problem(game, counts) -> str | None:
    """The first way a unit's count vector breaks what every played unit satisfies, in words, or
    None: the right length, no negative count, every game ending one way (Bethel Woods: won or
    lost for one of three reasons; Benevolent: a seat won or it timed out), the length histogram
    holding every game, turns in wins at most all turns, and turns squared at least turns. A
    results store checks each unit with it (``experiments.run.store``); it catches a naive edit of
    one count, not one that keeps these sums (only replaying the unit catches that)."""
    g = game_of(game)
    names = FIELDS[g.name]
    c = [int(x) for x in counts]
    if len(c) != len(names):
        return f"{len(c)} counts, not the {len(names)} of a {g.name} unit"
    neg = [n for n, x in zip(names, c) if x < 0]
    if neg:
        return f"{neg[0]} is negative"
    d = dict(zip(names, c))
    games = d["games"]
    arena = arena_module(g)
    own = arena.count_problem(d)
    if own:
        return own
    ends = arena.count_ends(d)
    hist = sum(c[len(arena.COUNT_SCALARS):])
    if ends != games:
        return f"the games' ends add up to {ends:,}, not to its {games:,} games"
    if hist != games:
        return f"the length histogram holds {hist:,} games, not its {games:,}"
    if d["turns_sq"] < d["turns"]:
        return f"turns_sq {d['turns_sq']} is below turns {d['turns']}"
    return None


# ---------------------------------------------------------------------------------------------
# cells (the Cell itself and its theta_hash: arena/cell.py, below the games' arena modules)

def rules_hash(rules) -> str:
    """Content hash of a Rules object (None: the defaults of the game)."""
    d = {} if rules is None else rules.to_dict()
    return hashlib.sha1(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


INSTALLED = ("learned.json", "tuned.json")   # the files in policies/<game>/ the players read by default


@functools.lru_cache(maxsize=1)
def engine_hash() -> str:
    """Hash of every compiled source (engines, policies, arena) and of the installed files the
    players read by default (``INSTALLED``: each game's learned model, its tuned weights): results
    of another engine version, or of a model or weights installed since (``boardsim train``,
    ``boardsim tune``), are never mixed with this one's. A cell that names its own network or
    vector keys it by its hash (``cell_dict``)."""
    src = source_hash([pathlib.Path(m.__file__).resolve().parent for m in (simcore, policies)]  # type: ignore[arg-type]
                      + [pathlib.Path(__file__).resolve().parent])
    files = installed_digest()
    return src if not files else hashlib.sha1(f"{src}\0{files}".encode()).hexdigest()[:16]


def installed_digest(root=None) -> str:
    """A hash of the installed model and tuned files (``INSTALLED`` in root/<game>/; root: the
    policies package) by name and content ("" when there is none)."""
    root = pathlib.Path(root) if root is not None else pathlib.Path(policies.__file__).resolve().parent
    files = sorted(f for name in INSTALLED for f in root.glob(f"*/{name}") if f.is_file())
    if not files:
        return ""
    h = hashlib.sha1()
    for f in files:
        h.update(f"{f.relative_to(root).as_posix()}\0".encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cell_dict(cell: Cell) -> dict:
    """The cell as plain JSON-able data, with the rules and theta as content hashes."""
    return {"game": cell.game, "players": cell.players, "spies": cell.spies if arena_module(cell.game).HAS_SPIES else None,
            "characters": list(cell.characters) if cell.characters is not None else None,
            "leaves": list(cell.leaves) if cell.leaves is not None else None,
            "policies": list(cell.seat_policies()), "theta": theta_hash(cell.theta),
            "rules": rules_hash(cell.rules), "seed": cell.seed,
            "policy_seed": cell.seed if cell.policy_seed is None else cell.policy_seed, **_extras(cell, theta_hash)}


def _extras(cell: Cell, theta_form) -> dict:
    """The optional fields that are set, for a key or a recipe (unset ones are left out, so the
    keys of the cells without them do not change)."""
    d: dict = {}
    if cell.seat_thetas is not None:
        d["seat_thetas"] = [None if t is None else theta_form(t) for t in cell.seat_thetas]
    if cell.budget is not None:
        d["budget"] = int(cell.budget)
    if cell.net is not None:
        d["net"] = theta_form(cell.net)
    return d


def cell_recipe(cell: Cell) -> dict:
    """Everything needed to build the cell again, as JSON-able data: its fields with the rules as
    their mapping (None: the game's defaults) and theta as numbers, where ``cell_dict`` keeps only
    their hashes (and net as numbers). ``cell_from_recipe`` inverts it (a results store replays units from it)."""
    return {"game": cell.game, "players": cell.players, "spies": cell.spies,
            "characters": list(cell.characters) if cell.characters is not None else None,
            "leaves": list(cell.leaves) if cell.leaves is not None else None,
            "policies": list(cell.policies), "theta": None if cell.theta is None else [float(x) for x in cell.theta],
            "rules": None if cell.rules is None else cell.rules.to_dict(), "seed": cell.seed,
            "policy_seed": cell.policy_seed, "label": cell.label,
            **_extras(cell, lambda t: [float(x) for x in t])}


def cell_from_recipe(d: dict) -> Cell:
    """The cell a ``cell_recipe`` describes (UserError for a game or rules it cannot be)."""
    if d.get("game") not in FIELDS:
        raise UserError(f"game {d.get('game')!r} is not known; allowed: {', '.join(GAME_NAMES)}")
    rules = None
    if d["rules"] is not None:
        rules = GAMES[d["game"]].rules_from_mapping(d["rules"], source="results store")
    tup = lambda v: None if v is None else tuple(v)   # noqa: E731
    return Cell(d["game"], d["players"], spies=d["spies"], characters=tup(d["characters"]), leaves=tup(d["leaves"]),
                policies=tuple(d["policies"]), theta=tup(d["theta"]), rules=rules, seed=d["seed"],
                policy_seed=d["policy_seed"], label=d.get("label", ""),
                seat_thetas=None if d.get("seat_thetas") is None else tuple(tup(t) for t in d["seat_thetas"]),
                budget=d.get("budget"), net=tup(d.get("net")))


def cell_key(cell: Cell) -> str:
    """A stable string naming the cell and the engine version (JSON, keys sorted)."""
    d = cell_dict(cell)
    d["engine"] = engine_hash()
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def unit_key(cell: Cell, start: int, count: int) -> str:
    return f"{cell_key(cell)}#{start}+{count}"


# ---------------------------------------------------------------------------------------------
# running a unit

SUB_CHUNK = 1 << 15   # games per compiled call inside a unit (bounds the records' memory)


def _arena_of(cell: Cell):
    """The arena module of the cell's game (UserError naming the known games)."""
    if cell.game not in ARENAS:
        raise UserError(f"game {cell.game!r} is not known; allowed: {', '.join(GAME_NAMES)}")
    return ARENAS[cell.game]


def prepared(cell: Cell):
    """(p, cfg, pols, thetas) of a cell, validated (UserError): the rules array, the setup
    config, and each seat's policy id and parameter row as the compiled loop takes them (the
    game's arena module's ``cell_setup``, then ``seat_thetas`` laid over the rows:
    ``arena.cell.prepared``). Cached; do not write to the arrays."""
    return _cell.prepared(cell, _arena_of(cell).cell_setup)


def check_cell(cell: Cell) -> None:
    """Validate a cell (UserError naming the bad value)."""
    prepared(cell)


def play_records(cell: Cell, start: int, count: int, out: np.ndarray, block: int | None = None) -> np.ndarray:
    """Play games start..start+count-1 of the cell into out[:count] (one int32 record a game:
    the game's arena record columns) and return that view: ``arena.cell.play_records`` with the
    game's setup and compiled loop from its arena module. Every caller but a game's own
    ``simulate`` (which hands over its own two) plays batches of games here: units and the
    executor (``unit_records``), the benchmarks, the warm start.

    Played on numba's current thread count in parallel blocks of ``block`` games (None: sized
    from the count and the threads); the records depend on nothing but the cell and the range."""
    a = _arena_of(cell)
    return _cell.play_records(cell, start, count, out, block, cell_setup=a.cell_setup, play_chunk=a.play_chunk)


def unit_records(cell: Cell, start: int, count: int, block: int | None = None):
    """The per-game records of games start..start+count-1 of the cell (the game's arena record
    columns), yielded in chunks of at most SUB_CHUNK games (the buffer is reused: copy a chunk to
    keep it). Played on numba's current thread count; depends on nothing but the arguments."""
    buf = np.zeros((min(count, SUB_CHUNK), arena_module(cell.game).N_REC), dtype=np.int32)
    for a in range(start, start + count, SUB_CHUNK):
        yield play_records(cell, a, min(SUB_CHUNK, start + count - a), buf, block)


def run_unit(cell: Cell, start: int, count: int, block: int | None = None) -> np.ndarray:
    """The count vector of games start..start+count-1 of the cell, played on numba's current
    thread count. Depends on nothing but the arguments (not the block size, not the threads)."""
    out = np.zeros(len(FIELDS[cell.game]), dtype=np.int64)
    reduce = arena_module(cell.game).add_counts
    for rec in unit_records(cell, start, count, block):
        reduce(rec, cell.players, out)
    return out
