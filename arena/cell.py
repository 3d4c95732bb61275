"""A cell (everything that decides how a game is played) and the one function that plays a range
of its games, given the game's own setup and compiled loop.

This module sits below the games' arena modules (arena/<game>/batch.py): a game's ``simulate``
plays its cell here, handing over its own ``cell_setup`` and ``play_chunk``; arena/units.py, above
the games' modules, looks the cell's game up in its registry (``arena.units.ARENAS``) and hands
over the same two for every other caller. So the imports run one way: units -> a game's batch ->
cell, and every batch of games, whoever asks for it, is played by ``play_records`` here.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simcore.errors import UserError


@dataclass(frozen=True)
class Cell:
    """One configuration of play. ``policies`` is one name per seat (a single name: every seat);
    ``theta`` one parameter vector for every seat of a non-default-parameter policy (None: each
    policy's defaults); ``seat_thetas`` one vector per seat laid over that (None, or a None entry:
    the seat keeps it; Benevolent's tune puts a candidate in one seat); ``budget`` the search
    policies' rollouts per decision (None: their default); ``rules`` a game's Rules object (None:
    the defaults); ``net`` the network (a packed float array, ``value_model.net_array``) of every
    seat whose policy reads one (the learned and expert players; None: the installed model's).
    ``seat_thetas``, ``budget`` and ``net`` enter a cell's key only when set."""
    game: str
    players: int
    spies: int = 0                      # Bethel Woods
    characters: tuple | None = None     # Bethel Woods, names by seat; None: dealt at random per game
    leaves: tuple | None = None         # Benevolent, starting leaves by seat; None: printed 1,3,4,5
    policies: tuple = ("random",)
    theta: tuple | None = None
    rules: Any = None   # either game's Rules
    seed: int = 0
    policy_seed: int | None = None
    label: str = field(default="", compare=False)   # a name for reports; not part of the key
    seat_thetas: tuple | None = None    # one vector (a tuple) or None per seat
    budget: int | None = None           # the search policies' rollouts per decision
    net: tuple | None = None            # the learned and expert players' network; None: the installed model's

    def seat_policies(self) -> tuple:
        return self.policies * self.players if len(self.policies) == 1 else tuple(self.policies)


def theta_hash(theta, net=None) -> str:
    """A parameter vector's hash (None: "default"), the network's numbers after theta's when the
    policy reads one (`net` not None), so the hash names the model a learned player plays."""
    if theta is None:
        return "default"
    h = hashlib.sha1(np.asarray(theta, dtype=np.float64).tobytes())
    if net is not None:
        h.update(np.asarray(net, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


@functools.lru_cache(maxsize=256)
def prepared(cell: Cell, cell_setup):
    """(p, cfg, pols, thetas, nets) of a cell, validated (UserError): the rules array, the setup
    config, and each seat's policy id, parameter row and network row as the compiled loop takes
    them (the game's ``cell_setup``, then ``seat_thetas`` laid over the rows). Cached; do not
    write to the arrays."""
    p, cfg, pols, thetas, nets = cell_setup(cell)
    for q, t in enumerate(cell.seat_thetas or ()):
        if t is None:
            continue
        t = np.asarray(t, dtype=np.float64).ravel()
        if q >= min(cell.players, thetas.shape[0]) or len(t) > thetas.shape[1]:
            raise UserError(f"theta of seat {q + 1}: {len(t)} values; allowed at most {thetas.shape[1]} per seat, "
                            f"{cell.players} seats")
        thetas[q, :len(t)] = t
    return p, cfg, pols, thetas, nets


def play_records(cell: Cell, start: int, count: int, out: np.ndarray, block: int | None, *,
                 cell_setup, play_chunk) -> np.ndarray:
    """Play games start..start+count-1 of the cell into out[:count] (one int32 record a game:
    the game's arena record columns) with the game's ``cell_setup`` and compiled ``play_chunk``,
    and return that view. THE one place where games are played in batches: units and the
    executor (``arena.units.unit_records``), ``simulate`` of each game's arena module (so the CLI,
    the ladder, tune and train), and the benchmarks all come here (through
    ``arena.units.play_records`` but for ``simulate``).

    Played on numba's current thread count in parallel blocks of ``block`` games (None: sized
    from the count and the threads); the records depend on nothing but the cell and the range."""
    import numba

    from .runner import block_size
    p, cfg, pols, thetas, nets = prepared(cell, cell_setup)
    rec = out[:count]
    pseed = cell.seed if cell.policy_seed is None else cell.policy_seed
    play_chunk(p, cfg, np.uint64(cell.seed), np.uint64(pseed), start, count, pols, thetas, nets,
               block or block_size(count, numba.get_num_threads()), rec)
    return rec


def run_cell(cell: Cell, games: int, summary, *, cell_setup, play_chunk, n_rec: int, frame=None,
             chunk=None, threads=None, progress=None):
    """Play games 0..games-1 of the cell through ``play_records`` in chunks sized by time
    (``arena.runner.run_batch``: a progress bar, summary.add of every chunk); set summary.seconds
    and summary.records (the per-game DataFrame of frame(records, start), or None) and return the
    summary: every game's ``simulate`` ends here."""
    from .runner import run_batch

    def kernel(start, count, block, out):
        play_records(cell, start, count, out, block, cell_setup=cell_setup, play_chunk=play_chunk)

    summary.seconds, summary.records = run_batch(games, kernel, n_rec, summary, frame, chunk=chunk,
                                                 threads=threads, progress=progress)
    return summary
