"""The cells of a study beyond an arena cell, and how any cell's unit is played.

A study plays ``arena.units.Cell`` s, and four kinds of cell built from them whose unit counts
are more than a game's counts (each has ``game``, ``fields``, ``seat_policies()``, ``store_dict()``,
``recipe()``/``from_recipe`` and ``unit_counts(start, count)``, so the executor, the results store
and the backends treat them as they treat an arena cell):

- ``LengthsCell`` (the difficulty study): the game's counts and the won games' length histogram;
- ``PairedCell`` (the variants study): a rules variant and the defaults on the same seeds;
- ``JointCell`` (every study's skill check): several arms on the same seeds, the joint histogram
  of their per-game outcomes;
- ``StarCell`` (the sensitivity tables): a default arm and several arms each paired with it on
  the same seeds, one table of (arm, default) outcome pairs per arm, the default played once.

The executor (``experiments.run.execute``), the results store (``experiments.run.store``) and the studies
import them from here, so none of them imports another to know a cell.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.units import FIELDS, Cell, cell_dict, cell_from_recipe, cell_recipe, run_unit


def games_per_seed(cell) -> int:
    """Games a cell plays for each seed: 1, or 2 for a paired cell (the variants study's
    ``PairedCell`` plays the variant and the defaults on every seed). Progress counts games
    played, so a paired unit of n seeds advances the bar by 2n."""
    return getattr(cell, "games_per_seed", 1)


def cell_unit(cell, start: int, count: int) -> np.ndarray:
    """Any cell's unit: its own ``unit_counts`` (LengthsCell, PairedCell, JointCell) or
    arena.units.run_unit's (an arena Cell)."""
    if hasattr(cell, "unit_counts"):
        return cell.unit_counts(start, count)
    return run_unit(cell, start, count)


def with_model(cell, model: dict | None):
    """The cell with a user's model (``--model``) in place of the installed one: a cell with a
    seat that reads a network (the learned and expert players, a skill-dial rung ``learned@T``
    too) plays ``model[cell.game]`` (a network array, ``boardsim.cli.models.model_net``) as
    its ``net``; the seats' parameter vectors are left as they are. The cells a study builds from
    arena cells (LengthsCell, PairedCell, JointCell, StarCell) are mapped arm by arm. A cell that
    already carries a network of its own is a UserError: the model would silently not be played.
    With no model for the cell's game, the cell itself."""
    import dataclasses

    from simcore.errors import UserError
    if not model or model.get(cell.game) is None:
        return cell
    if not isinstance(cell, Cell):
        changes = {}
        for f in dataclasses.fields(cell):
            v = getattr(cell, f.name)
            if isinstance(v, Cell) or dataclasses.is_dataclass(v) and hasattr(v, "game"):
                changes[f.name] = with_model(v, model)
            elif isinstance(v, tuple) and v and all(hasattr(x, "game") for x in v):
                changes[f.name] = tuple(with_model(x, model) for x in v)
        return dataclasses.replace(cell, **changes) if changes else cell
    from arena.units import arena_module
    if not set(cell.seat_policies()) & arena_module(cell.game).NET_POLICIES:
        return cell
    if cell.net is not None:
        raise UserError("--model cannot be played in a cell that carries a network of its own; leave --model out "
                        "for this study")
    m = model[cell.game]
    return dataclasses.replace(cell, net=m if isinstance(m, tuple) else tuple(float(x) for x in np.ravel(m)))


# Bethel Woods: the game's counts and, after them, the length histogram of the won games -----------

WON_LENGTH_BINS = 128   # as arena.units.BW_TURN_BINS: turns 1..127, the last bin 128 and more


@dataclass(frozen=True)
class LengthsCell:
    """A Bethel Woods cell whose unit counts are the game's (arena.units.FIELDS) followed by the
    histogram of the won games' lengths in turns (WON_LENGTH_BINS): lost games' lengths are the
    game histogram minus it. Both come from one play of the games (``lengths_unit``), so the
    difficulty study tells won and lost games apart at no extra cost. Its key in a results store is
    the cell's with ``"won_lengths": true``."""
    cell: Cell

    @property
    def game(self):
        return self.cell.game

    @property
    def fields(self) -> tuple:
        return FIELDS[self.cell.game] + tuple(f"won_turns_{t}" for t in range(1, WON_LENGTH_BINS + 1))

    @property
    def label(self):
        return self.cell.label

    def seat_policies(self):
        return self.cell.seat_policies()

    def store_dict(self) -> dict:
        return {**cell_dict(self.cell), "won_lengths": True}

    def recipe(self) -> dict:
        return {**cell_recipe(self.cell), "won_lengths": True}

    @classmethod
    def from_recipe(cls, d: dict) -> "LengthsCell":
        return cls(cell_from_recipe({k: v for k, v in d.items() if k != "won_lengths"}))

    def unit_counts(self, start: int, count: int) -> np.ndarray:
        return lengths_unit(self, start, count)


def lengths_unit(lc: LengthsCell, start: int, count: int) -> np.ndarray:
    """The counts of games start..start+count-1 of a LengthsCell: arena.units.run_unit's counts of
    the cell (the same reduction of the same records, so they are equal to the count) and the won
    games' length histogram."""
    from arena.bethel_woods.batch import R_OUTCOME, R_TURNS
    from simcore.bethel_woods.actions import OUT_WIN

    nf = len(FIELDS[lc.cell.game])
    out = np.zeros(nf + WON_LENGTH_BINS, dtype=np.int64)
    for rec, reduce in records(lc.cell, start, count):
        reduce(rec, lc.cell.players, out[:nf])
        t = rec[rec[:, R_OUTCOME] == OUT_WIN, R_TURNS].astype(np.int64)
        out[nf:] += np.bincount(np.clip(t, 1, WON_LENGTH_BINS) - 1, minlength=WON_LENGTH_BINS)
    return out


# the per-game records of an arena cell, and the joint cell: several arms on the same seeds -----------

def records(cell, start: int, count: int):
    """The per-game records of games start..start+count-1 of an arena cell
    (arena.units.unit_records, the arrays arena.units.run_unit reduces), in chunks, each with the
    game's reduce function: (records, reduce)."""
    from arena.units import arena_module, unit_records
    reduce = arena_module(cell.game).add_counts
    for rec in unit_records(cell, start, count):
        yield rec, reduce


def outcome_codes(cell, start: int, count: int, levels: int) -> np.ndarray:
    """Per-game outcome codes of games start..start+count-1 of an arena cell: with 2 levels
    Bethel Woods won (1) or lost, Benevolent seat 1 won (1) or not; with 5 levels (Benevolent) the
    winner's seat + 1, 0 for a timeout."""
    from arena.units import arena_module
    codes = arena_module(cell.game).outcome_codes
    return np.concatenate([codes(rec, levels) for rec, _ in records(cell, start, count)])


@dataclass(frozen=True)
class JointCell:
    """Arena cells played on the same seeds (the same seed field, game i of each with the same
    chance key). Its unit counts are [games, n_0, n_1, ...]: n_j counts the games whose outcome
    codes (``outcome_codes``) make pattern j = sum_i code_i * levels**i over the arms i."""
    arms: tuple
    levels: int = 2

    @property
    def game(self):
        return self.arms[0].game

    @property
    def fields(self) -> tuple:
        return ("games",) + tuple(f"pattern_{j}" for j in range(self.levels ** len(self.arms)))

    @property
    def games_per_seed(self) -> int:
        return len(self.arms)

    label = ""

    def seat_policies(self):
        return tuple(p for a in self.arms for p in a.seat_policies())

    def store_dict(self) -> dict:
        """Its key in a results store: every arm's key, and the number of levels (the
        ``"pair"`` key makes the store treat it as the variants study's paired cells are)."""
        ds = [cell_dict(a) for a in self.arms]
        return {"pair": ds, "joint": self.levels, "game": self.game,
                "rules": "|".join(d["rules"] for d in ds), "theta": "|".join(d["theta"] for d in ds)}

    def recipe(self) -> dict:
        return {"pair": [cell_recipe(a) for a in self.arms], "joint": self.levels}

    @classmethod
    def from_recipe(cls, d: dict) -> "JointCell":
        return cls(tuple(cell_from_recipe(a) for a in d["pair"]), int(d["joint"]))

    def unit_counts(self, start: int, count: int) -> np.ndarray:
        return joint_unit(self, start, count)


def joint_unit(jc: JointCell, start: int, count: int) -> np.ndarray:
    """The counts of games start..start+count-1 of a JointCell (its ``unit_counts``)."""
    codes = [outcome_codes(a, start, count, jc.levels) for a in jc.arms]
    pattern = np.zeros(count, dtype=np.int64)
    for i, c in enumerate(codes):
        pattern += c * jc.levels ** i
    hist = np.bincount(pattern, minlength=jc.levels ** len(jc.arms))
    return np.concatenate([[count], hist]).astype(np.int64)


# variants: paired units -----------------------------------------------------------------------

@dataclass(frozen=True)
class PairedCell:
    """Two cells on the same seeds (a rules variant and the defaults). Its unit counts are
    [games, both won, only a won, only b won, neither]; for Benevolent "won" is seat 1 winning."""
    a: Cell
    b: Cell

    @property
    def game(self):
        return self.a.game

    def seat_policies(self):
        return self.a.seat_policies() + self.b.seat_policies()

    fields = ("games", "both_won", "only_a_won", "only_b_won", "neither_won")
    label = ""
    games_per_seed = 2   # each seed is played twice: the variant and the defaults

    def store_dict(self) -> dict:
        """Its key in a results store (experiments.run.store): both cells' keys, rules and theta."""
        a, b = cell_dict(self.a), cell_dict(self.b)
        return {"pair": [a, b], "game": self.game, "rules": f"{a['rules']}|{b['rules']}",
                "theta": f"{a['theta']}|{b['theta']}"}

    def recipe(self) -> dict:
        """What builds the pair again (a results store replays its units from it)."""
        return {"pair": [cell_recipe(self.a), cell_recipe(self.b)]}

    @classmethod
    def from_recipe(cls, d: dict):
        """The paired cell a recipe describes; a skill check's JointCell (``"joint"`` in the
        recipe: several arms) comes back as one, so a results store rebuilds both."""
        if "joint" in d:
            return JointCell.from_recipe(d)
        if "star" in d:
            return StarCell.from_recipe(d)
        a, b = d["pair"]
        return cls(cell_from_recipe(a), cell_from_recipe(b))

    def unit_counts(self, start: int, count: int) -> np.ndarray:
        """The counts of games start..start+count-1 (``paired_unit``)."""
        return paired_unit(self, start, count)


def _outcomes(cell: Cell, start: int, count: int) -> np.ndarray:
    """Per game: did it end the way the variants study counts (Bethel Woods won; Benevolent seat 1 won)."""
    return outcome_codes(cell, start, count, 2).astype(bool)


def paired_unit(pc: PairedCell, start: int, count: int) -> np.ndarray:
    a, b = _outcomes(pc.a, start, count), _outcomes(pc.b, start, count)
    return np.array([count, np.sum(a & b), np.sum(a & ~b), np.sum(~a & b), np.sum(~a & ~b)],
                    dtype=np.int64)


# sensitivity: a default arm and several arms, each paired with it ---------------------------------

@dataclass(frozen=True)
class StarCell:
    """A default arm ``base`` and ``arms`` played on the same seeds (game i of each shares the
    chance key), each arm compared with the default only: the sensitivity tables' every reading
    against the default rules. The default is played once a seed (a PairedCell per arm would play
    it once per arm). Its unit counts are [games, then per arm i the levels x levels table of
    (arm i's code, the default's code), at 1 + i * levels**2 + code_i * levels + code_default]
    (codes as ``outcome_codes``): every paired statistic of an arm against the default that does
    not depend on the order of the games.

    With ``counts=True`` (the handicap study's confirmation) the pair tables are followed by every
    cell's own counts (``arena.units.FIELDS``), the default's first, from the same play of the
    games: the descriptive tables (seat wins, timeouts, turns) and the paired figures come from
    one play. Its key and recipe then carry ``"counts": true``; without it they are as before."""
    base: Cell
    arms: tuple
    levels: int = 2
    counts: bool = False

    @property
    def game(self):
        return self.base.game

    @property
    def fields(self) -> tuple:
        pairs = tuple(f"arm{i}_{a}_{b}" for i in range(len(self.arms))
                      for a in range(self.levels) for b in range(self.levels))
        own = tuple(f"{who}_{f}" for who in ["default"] + [f"arm{i}" for i in range(len(self.arms))]
                    for f in FIELDS[self.game]) if self.counts else ()
        return ("games",) + pairs + own

    @property
    def games_per_seed(self) -> int:
        return 1 + len(self.arms)

    label = ""

    def seat_policies(self):
        return tuple(p for c in (self.base,) + tuple(self.arms) for p in c.seat_policies())

    def store_dict(self) -> dict:
        """Its key in a results store: the default's and every arm's keys (``"pair"``, the default
        first) and the number of levels (``"star"``)."""
        ds = [cell_dict(c) for c in (self.base,) + tuple(self.arms)]
        return {"pair": ds, "star": self.levels, "game": self.game,
                "rules": "|".join(d["rules"] for d in ds), "theta": "|".join(d["theta"] for d in ds),
                **({"counts": True} if self.counts else {})}

    def recipe(self) -> dict:
        return {"pair": [cell_recipe(c) for c in (self.base,) + tuple(self.arms)], "star": self.levels,
                **({"counts": True} if self.counts else {})}

    @classmethod
    def from_recipe(cls, d: dict) -> "StarCell":
        cells = [cell_from_recipe(c) for c in d["pair"]]
        return cls(cells[0], tuple(cells[1:]), int(d["star"]), bool(d.get("counts", False)))

    def unit_counts(self, start: int, count: int) -> np.ndarray:
        return star_unit(self, start, count)

    def pair_table(self, counts, i: int) -> np.ndarray:
        """Arm i's levels x levels table of (its code, the default's code) from the cell's counts."""
        k = self.levels * self.levels
        return np.asarray(counts[1 + i * k: 1 + (i + 1) * k]).reshape(self.levels, self.levels)

    def cell_counts(self, counts, i: int) -> np.ndarray:
        """With ``counts=True``: cell i's own counts (``arena.units.FIELDS``; 0 the default, 1 + j
        arm j) from the cell's counts."""
        if not self.counts:
            raise ValueError("this StarCell keeps no counts of its cells (counts=False)")
        nf = len(FIELDS[self.game])
        at = 1 + len(self.arms) * self.levels * self.levels + i * nf
        return np.asarray(counts[at:at + nf], dtype=np.int64)


def _codes_and_counts(cell, start: int, count: int, levels: int, keep: bool):
    """A cell's per-game outcome codes of games start..start+count-1 and, when keep, its counts
    (FIELDS) reduced from the same records."""
    from arena.units import arena_module
    codes, total = [], np.zeros(len(FIELDS[cell.game]), dtype=np.int64)
    code = arena_module(cell.game).outcome_codes
    for rec, reduce in records(cell, start, count):
        codes.append(code(rec, levels))
        if keep:
            reduce(rec, cell.players, total)
    return np.concatenate(codes), total


def star_unit(sc: StarCell, start: int, count: int) -> np.ndarray:
    """The counts of games start..start+count-1 of a StarCell (its ``unit_counts``)."""
    b, own_b = _codes_and_counts(sc.base, start, count, sc.levels, sc.counts)
    out, own = [np.array([count], dtype=np.int64)], [own_b]
    for arm in sc.arms:
        a, own_a = _codes_and_counts(arm, start, count, sc.levels, sc.counts)
        out.append(np.bincount(a * sc.levels + b, minlength=sc.levels * sc.levels).astype(np.int64))
        own.append(own_a)
    return np.concatenate(out + (own if sc.counts else []))


def pairs_from_table(table) -> tuple[np.ndarray, np.ndarray]:
    """Per-game (arm code, default code) arrays with the pair counts of a levels x levels table,
    in a canonical order (by arm code, then the default's): what a statistic of the paired games
    that does not depend on their order needs."""
    table = np.asarray(table)
    lv = table.shape[0]
    n = table.reshape(-1)
    return np.repeat(np.repeat(np.arange(lv), lv), n), np.repeat(np.tile(np.arange(lv), lv), n)
