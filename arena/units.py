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

This module is the arena layer: it imports engines and policies and nothing above them.
"""
from __future__ import annotations

import functools
import hashlib
import json
import pathlib
from dataclasses import dataclass, field

import numpy as np

import policies
import simcore
from simcore.numbacache import source_hash

# ---------------------------------------------------------------------------------------------
# count vectors

BW_TURN_BINS = 128   # game length histogram: turns 1..127, the last bin holds 128 and more
BV_ROUND_BINS = 64   # rounds 1..63, the last bin holds 64 and more

BW_SCALARS = ("games", "wins", "loss_bag_empty", "loss_four_critical", "loss_six_spies", "turns",
              "turns_sq", "decisions", "daydreamer_built", "spies_uncovered", "malfunctions_fixed",
              "built_in_losses", "uncovered_in_losses", "turns_in_wins")
BV_SCALARS = ("games", "seat0_wins", "seat1_wins", "seat2_wins", "seat3_wins", "timeouts", "turns",
              "turns_sq", "decisions", "winner_had_extra_turn")

FIELDS = {
    "bethel_woods": BW_SCALARS + tuple(f"turns_{t}" for t in range(1, BW_TURN_BINS + 1)),
    "benevolent": BV_SCALARS + tuple(f"rounds_{r}" for r in range(1, BV_ROUND_BINS + 1)),
}
GAMES = tuple(FIELDS)


def field_index(game: str, name: str) -> int:
    return FIELDS[game].index(name)


def as_dict(game: str, counts) -> dict:
    """The count vector as {field: int} (histogram bins with zero counts left out)."""
    return {f: int(c) for f, c in zip(FIELDS[game], counts) if c or not f.startswith(("turns_", "rounds_"))}


def count_problem(game: str, counts) -> str | None:
    """The first way a unit's count vector breaks what every played unit satisfies, in words, or
    None: the right length, no negative count, every game ending one way (Bethel Woods: won or
    lost for one of three reasons; Benevolent: a seat won or it timed out), the length histogram
    holding every game, turns in wins at most all turns, and turns squared at least turns. A
    results store checks each unit with it (``experiments.store``); it catches a naive edit of
    one count, not one that keeps these sums (only replaying the unit catches that)."""
    names = FIELDS[game]
    c = [int(x) for x in counts]
    if len(c) != len(names):
        return f"{len(c)} counts, not the {len(names)} of a {game} unit"
    neg = [n for n, x in zip(names, c) if x < 0]
    if neg:
        return f"{neg[0]} is negative"
    d = dict(zip(names, c))
    games = d["games"]
    if game == "bethel_woods":
        ends = d["wins"] + d["loss_bag_empty"] + d["loss_four_critical"] + d["loss_six_spies"]
        hist = sum(c[len(BW_SCALARS):])
        if d["turns_in_wins"] > d["turns"]:
            return f"turns_in_wins {d['turns_in_wins']} exceed turns {d['turns']}"
    else:
        ends = sum(d[f"seat{q}_wins"] for q in range(4)) + d["timeouts"]
        hist = sum(c[len(BV_SCALARS):])
    if ends != games:
        return f"the games' ends add up to {ends:,}, not to its {games:,} games"
    if hist != games:
        return f"the length histogram holds {hist:,} games, not its {games:,}"
    if d["turns_sq"] < d["turns"]:
        return f"turns_sq {d['turns_sq']} is below turns {d['turns']}"
    return None


# ---------------------------------------------------------------------------------------------
# cells

@dataclass(frozen=True)
class Cell:
    """One configuration of play. ``policies`` is one name per seat (a single name: every seat);
    ``theta`` one parameter vector for every seat of a non-default-parameter policy (None: each
    policy's defaults); ``rules`` a game's Rules object (None: the defaults)."""
    game: str
    players: int
    spies: int = 0                      # Bethel Woods
    characters: tuple | None = None     # Bethel Woods, names by seat; None: dealt at random per game
    leaves: tuple | None = None         # Benevolent, starting leaves by seat; None: printed 1,3,4,5
    policies: tuple = ("random",)
    theta: tuple | None = None
    rules: object = None
    seed: int = 0
    policy_seed: int | None = None
    label: str = field(default="", compare=False)   # a name for reports; not part of the key

    def seat_policies(self) -> tuple:
        return self.policies * self.players if len(self.policies) == 1 else tuple(self.policies)


def rules_hash(rules) -> str:
    """Content hash of a Rules object (None: the defaults of the game)."""
    d = {} if rules is None else rules.to_dict()
    return hashlib.sha1(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


def theta_hash(theta) -> str:
    if theta is None:
        return "default"
    return hashlib.sha1(np.asarray(theta, dtype=np.float64).tobytes()).hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def engine_hash() -> str:
    """Hash of every compiled source (engines, policies, arena): results of another engine version
    are never mixed with this one's."""
    return source_hash([pathlib.Path(m.__file__).resolve().parent for m in (simcore, policies)]
                       + [pathlib.Path(__file__).resolve().parent])


def cell_dict(cell: Cell) -> dict:
    """The cell as plain JSON-able data, with the rules and theta as content hashes."""
    return {"game": cell.game, "players": cell.players, "spies": cell.spies if cell.game == "bethel_woods" else None,
            "characters": list(cell.characters) if cell.characters is not None else None,
            "leaves": list(cell.leaves) if cell.leaves is not None else None,
            "policies": list(cell.seat_policies()), "theta": theta_hash(cell.theta),
            "rules": rules_hash(cell.rules), "seed": cell.seed,
            "policy_seed": cell.seed if cell.policy_seed is None else cell.policy_seed}


def cell_recipe(cell: Cell) -> dict:
    """Everything needed to build the cell again, as JSON-able data: its fields with the rules as
    their mapping (None: the game's defaults) and theta as numbers, where ``cell_dict`` keeps only
    their hashes. ``cell_from_recipe`` inverts it (a results store replays units from it)."""
    return {"game": cell.game, "players": cell.players, "spies": cell.spies,
            "characters": list(cell.characters) if cell.characters is not None else None,
            "leaves": list(cell.leaves) if cell.leaves is not None else None,
            "policies": list(cell.policies), "theta": None if cell.theta is None else [float(x) for x in cell.theta],
            "rules": None if cell.rules is None else cell.rules.to_dict(), "seed": cell.seed,
            "policy_seed": cell.policy_seed, "label": cell.label}


def cell_from_recipe(d: dict) -> Cell:
    """The cell a ``cell_recipe`` describes (UserError for a game or rules it cannot be)."""
    from simcore.errors import UserError
    if d.get("game") not in FIELDS:
        raise UserError(f"game {d.get('game')!r} is not known; allowed: {', '.join(GAMES)}")
    rules = None
    if d["rules"] is not None:
        if d["game"] == "bethel_woods":
            from simcore.bethel_woods.rules import rules_from_mapping
        else:
            from simcore.benevolent.rules import rules_from_mapping
        rules = rules_from_mapping(d["rules"], source="results store")
    tup = lambda v: None if v is None else tuple(v)   # noqa: E731
    return Cell(d["game"], d["players"], spies=d["spies"], characters=tup(d["characters"]), leaves=tup(d["leaves"]),
                policies=tuple(d["policies"]), theta=tup(d["theta"]), rules=rules, seed=d["seed"],
                policy_seed=d["policy_seed"], label=d.get("label", ""))


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


@functools.lru_cache(maxsize=256)
def _prepared(cell: Cell):
    """(play_chunk, p, cfg, pols, thetas, n_rec, reduce) for a cell, validated (UserError)."""
    if cell.game == "bethel_woods":
        from simcore.bethel_woods.face import check_setup_args, parse_characters, setup_config
        from simcore.bethel_woods.rules import Rules

        from .bethel_woods import batch as B
        check_setup_args(cell.players, cell.spies)
        chars = parse_characters(list(cell.characters) if cell.characters else None, cell.players)
        names = cell.seat_policies()
        if len(set(names)) != 1:
            # Bethel Woods is cooperative: per-seat policies would work in the arena but no study
            # needs them yet, and one name keeps the key simple
            from simcore.errors import UserError
            raise UserError(f"policies {','.join(names)}: Bethel Woods cells play one policy at every seat")
        pols, thetas = B.seat_policies(names[0], cell.players, cell.theta)
        cfg = setup_config(cell.players, cell.spies, chars)
        rules = cell.rules or Rules()
        return B.play_chunk, rules.params, cfg, pols, thetas, B.N_REC, _reduce_bw
    if cell.game == "benevolent":
        from simcore.benevolent.face import check_players, setup_config
        from simcore.benevolent.rules import Rules, parse_leaves

        from .benevolent import batch as V
        check_players(cell.players)
        lv = parse_leaves(list(cell.leaves) if cell.leaves is not None else None, cell.players)
        _, pols, thetas = V.parse_policies(None, list(cell.seat_policies()), cell.players)
        if cell.theta is not None:
            for q in range(cell.players):
                thetas[q, :len(cell.theta)] = cell.theta
        cfg = setup_config(cell.players, lv)
        rules = cell.rules or Rules()
        return V.play_chunk, rules.params, cfg, pols, thetas, V.N_REC, _reduce_bv
    from simcore.errors import UserError
    raise UserError(f"game {cell.game!r} is not known; allowed: {', '.join(GAMES)}")


def _reduce_bw(rec, players, out):
    from .bethel_woods.batch import R_BUILT, R_FIXED, R_OUTCOME, R_TURNS, R_UNCOVERED, R_DECISIONS
    from simcore.bethel_woods.actions import OUTCOMES, OUT_WIN
    o = rec[:, R_OUTCOME]
    t = rec[:, R_TURNS].astype(np.int64)
    won = o == OUT_WIN
    lost = ~won
    out[0] += len(rec)
    out[1] += int(won.sum())
    for i, r in enumerate(("bag_empty", "four_critical", "six_spies")):
        out[2 + i] += int((o == OUTCOMES.index(r)).sum())
    out[5] += int(t.sum())
    out[6] += int((t * t).sum())
    out[7] += int(rec[:, R_DECISIONS].astype(np.int64).sum())
    out[8] += int(rec[:, R_BUILT].sum())
    out[9] += int(rec[:, R_UNCOVERED].sum())
    out[10] += int(rec[:, R_FIXED].sum())
    out[11] += int(rec[lost, R_BUILT].sum())
    out[12] += int(rec[lost, R_UNCOVERED].sum())
    out[13] += int(t[won].sum())
    n0 = len(BW_SCALARS)
    out[n0:] += np.bincount(np.clip(t, 1, BW_TURN_BINS) - 1, minlength=BW_TURN_BINS)


def _reduce_bv(rec, players, out):
    from .benevolent.batch import R_DECISIONS, R_SEAT, R_TURNS, R_WINNER, SEAT_COLS
    w = rec[:, R_WINNER]
    t = rec[:, R_TURNS].astype(np.int64)
    out[0] += len(rec)
    for q in range(4):
        out[1 + q] += int((w == q).sum())
    out[5] += int((w < 0).sum())
    out[6] += int(t.sum())
    out[7] += int((t * t).sum())
    out[8] += int(rec[:, R_DECISIONS].astype(np.int64).sum())
    seat_turns = rec[:, [R_SEAT + SEAT_COLS * q for q in range(players)]]
    has = w >= 0
    if has.any():
        wt = seat_turns[has, w[has]]
        out[9] += int((wt[:, None] > seat_turns[has]).any(axis=1).sum())
    rounds = (t + players - 1) // players
    n0 = len(BV_SCALARS)
    out[n0:] += np.bincount(np.clip(rounds, 1, BV_ROUND_BINS) - 1, minlength=BV_ROUND_BINS)


def check_cell(cell: Cell) -> None:
    """Validate a cell (UserError naming the bad value)."""
    _prepared(cell)


def run_unit(cell: Cell, start: int, count: int, block: int | None = None) -> np.ndarray:
    """The count vector of games start..start+count-1 of the cell, played on numba's current
    thread count. Depends on nothing but the arguments (not the block size, not the threads)."""
    import numba

    from .runner import block_size
    play_chunk, p, cfg, pols, thetas, n_rec, reduce = _prepared(cell)
    out = np.zeros(len(FIELDS[cell.game]), dtype=np.int64)
    seed = np.uint64(cell.seed)
    pseed = np.uint64(cell.seed if cell.policy_seed is None else cell.policy_seed)
    done = 0
    buf = np.zeros((min(count, SUB_CHUNK), n_rec), dtype=np.int32)
    while done < count:
        k = min(SUB_CHUNK, count - done)
        rec = buf[:k]
        play_chunk(p, cfg, seed, pseed, start + done, k, pols, thetas,
                   block or block_size(k, numba.get_num_threads()), rec)
        reduce(rec, cell.players, out)
        done += k
    return out
