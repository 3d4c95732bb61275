"""The policy plug point, written once for every game: ``decide``, ``reset``, ``ws_size``,
``default_theta`` and ``seat_nets`` from a game's table of policies (``policies/<game>/decide.py``).

A game lists its policies in id order (the order of ``policies.POLICIES[game]``), each a
``Policy``: its compiled action (None for the random player, id 0), its compiled reset
(``reset(ws)`` at a game's start; None: nothing to forget), the int32 scratch entries a seat
needs, how its default parameter vector is made and, for a player that reads a learned value,
how its default network is made. A seat's parameters are two float arrays: ``theta`` (weights,
budgets, settings) and ``net`` (a network packed by ``value_model.pack``; all zeros: none).
Every action is ``action(s, p, theta, net, seat, acts, n, key, ws)``; a policy that reads no
network leaves ``net`` unread (the play loop hands it a row of zeros).
``plug_point(tag, table, theta_size, net_size)`` returns the game's ``PlugPoint``. Policies that share an action (the heuristic and the tuned
heuristic) share its branch.

The compiled three are templates below, specialised per game by `simcore.numbacache.specialise`
(cached on disk per game; the names each binds are listed there). ``_planner`` has room for
PLANNERS distinct actions and ``reset`` for RESETS distinct resets, each reached by up to two
ids; a game with fewer fills the rest with ids no policy has. The last planner is the fallback,
as a chain of ``if`` needs one.

The planning policies sit behind one call that LLVM must not inline (numba marks a function
compiled with debug info ``noinline``): inlined, their code made the play loop itself slower for
every policy, random play included (callgrind: 84.3 M instructions for 2000 random Bethel Woods
games against 71.8 M with the random rule alone in the loop).
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from simcore.errors import UserError
from simcore.numbacache import specialise

from .random import random_action

PLANNERS = 5    # distinct planning actions a game may have (Bethel Woods has 5)
RESETS = 4      # distinct resets
NO_ID = -1      # the id of an unused branch: no policy has it


class Policy(NamedTuple):
    name: str
    action: Any = None                                # compiled action; None: the random player
    reset: Any = None                                 # compiled reset(ws); None: nothing to forget
    ws: int = 1                                       # int32 scratch entries a seat needs
    theta: Callable[[], np.ndarray] | None = None     # its default parameter vector; None: none
    names: tuple = ()                                 # the names of its parameters that a user may set
    net: Callable[[], np.ndarray] | None = None       # its default network (the installed model's); None: reads none


class PlugPoint(NamedTuple):
    """A game's plug point (``plug_point``): the compiled three, the default arrays and sizes."""
    decide: Any           # decide(policy_id, s, p, theta, net, seat, acts, n, key, ws) -> action
    reset: Any            # reset(policy_id, theta, seat, ws)
    ws_size: Any          # ws_size(pols) -> the int32 scratch entries a seat needs
    default_theta: Callable[[int], np.ndarray]    # a policy's default vector, THETA_SIZE floats
    seat_nets: Callable[..., np.ndarray]          # seat_nets(pols, net=None): each seat's network row
    played_nets: Callable[..., list]              # played_nets(pols, nets): the network each seat plays, or None
    WS_SIZE: int          # the widest scratch
    NET_SIZE: int         # the floats of a network array
    THETA_NAMES: dict     # each id's settable parameter names
    NET_POLICIES: frozenset   # the names of the policies that read a network


def _planner(policy_id, s, p, theta, net, seat, acts, n, key, ws):
    if policy_id == A0 or policy_id == B0:  # noqa: F821 (A*, B*: the ids of planner k; ACT*: its action)
        return ACT0(s, p, theta, net, seat, acts, n, key, ws)  # noqa: F821
    if policy_id == A1 or policy_id == B1:  # noqa: F821
        return ACT1(s, p, theta, net, seat, acts, n, key, ws)  # noqa: F821
    if policy_id == A2 or policy_id == B2:  # noqa: F821
        return ACT2(s, p, theta, net, seat, acts, n, key, ws)  # noqa: F821
    if policy_id == A3 or policy_id == B3:  # noqa: F821
        return ACT3(s, p, theta, net, seat, acts, n, key, ws)  # noqa: F821
    return ACT4(s, p, theta, net, seat, acts, n, key, ws)  # noqa: F821


def decide(policy_id, s, p, theta, net, seat, acts, n, key, ws):
    """The action of policy `policy_id` for `seat` among acts[:n] (theta, net: the seat's
    parameter vector and network)."""
    if policy_id == 0:
        return random_action(acts, n, key)
    return planner(policy_id, s, p, theta, net, seat, acts, n, key, ws)  # noqa: F821


def reset(policy_id, theta, seat, ws):
    """Forget everything of the previous game (a new game starts)."""
    if policy_id == RA0 or policy_id == RB0:  # noqa: F821 (RA*, RB*: the ids of reset k; RES*: the reset)
        RES0(ws)  # noqa: F821
    elif policy_id == RA1 or policy_id == RB1:  # noqa: F821
        RES1(ws)  # noqa: F821
    elif policy_id == RA2 or policy_id == RB2:  # noqa: F821
        RES2(ws)  # noqa: F821
    elif policy_id == RA3 or policy_id == RB3:  # noqa: F821
        RES3(ws)  # noqa: F821
    else:
        ws[0] = 0


def ws_size(pols):
    """The int32 scratch entries per seat that the policies in pols need (at least 1): a play
    loop of random players then allocates no planning workspace."""
    n = 1
    for pid in pols:
        if 0 <= pid < WS_BY_ID.shape[0]:  # noqa: F821 (WS_BY_ID: each id's entries)
            n = max(n, WS_BY_ID[pid])  # noqa: F821
    return n


def _branches(table, attr, room, what):
    """[(ids, function)] of the distinct non-None `attr` of the table's policies, in id order,
    each reached by at most two ids."""
    out: list[tuple[list[int], Any]] = []
    for pid, pol in enumerate(table):
        f = getattr(pol, attr)
        if f is None:
            continue
        for ids, g in out:
            if g is f:
                ids.append(pid)
                break
        else:
            out.append(([pid], f))
    if len(out) > room or any(len(ids) > 2 for ids, _ in out):
        raise ValueError(f"{what}: {len(out)} distinct {attr}s (room for {room}, two ids each)")
    return out


def plug_point(tag: str, table, theta_size: int, net_size: int) -> PlugPoint:
    """The game's ``PlugPoint`` from its policy table (a sequence of ``Policy`` in id order, the
    random player first); `theta_size`: the length every parameter vector is padded to (the widest
    policy's); `net_size`: the floats of a network array (the game's learned player's)."""
    table = tuple(table)
    if table[0].action is not None:
        raise ValueError(f"{tag}: policy id 0 is the random player (no action of its own)")
    names: dict[str, Any] = {}
    plans = _branches(table, "action", PLANNERS, tag)   # (the random player, id 0, has none)
    # the unused branches go before the last (the fallback) and are reached by no id
    plans = plans[:-1] + [([NO_ID], plans[0][1])] * (PLANNERS - len(plans)) + plans[-1:]
    for k, (ids, f) in enumerate(plans):
        names[f"A{k}"], names[f"B{k}"] = ids[0], ids[-1]
        names[f"ACT{k}"] = f
    resets = _branches(table, "reset", RESETS, tag)
    filler = resets[0][1] if resets else None
    resets = resets + [([NO_ID], filler)] * (RESETS - len(resets))
    for k, (ids, f) in enumerate(resets):
        names[f"RA{k}"], names[f"RB{k}"] = ids[0], ids[-1]
        names[f"RES{k}"] = f
    planner = specialise(_planner, tag, names, _nrt=False, debug=True, boundscheck=False,
                         _dbg_extend_lifetimes=False)
    dec = specialise(decide, tag, {"planner": planner}, _nrt=False)
    res = specialise(reset, tag, names, _nrt=False)
    wsz = specialise(ws_size, tag, {"WS_BY_ID": np.array([pol.ws for pol in table], dtype=np.int64)}, _nrt=False)

    def default_theta(policy_id: int) -> np.ndarray:
        """The policy's default parameter vector, padded to THETA_SIZE (tuned: the installed tuned
        weights; a one-line UserError while none is installed)."""
        theta = np.zeros(theta_size, dtype=np.float64)
        pid = int(policy_id)
        if 0 <= pid < len(table) and table[pid].theta is not None:
            d = table[pid].theta()
            theta[:len(d)] = d
        return theta

    def seat_nets(pols, net=None) -> np.ndarray:
        """The network row of each seat (MAX_PLAYERS rows as pols): `net` (a network array; None:
        the policy's default, the installed model's) where the seat's policy reads one, zeros
        elsewhere; one column of zeros when no seat reads one (no model file is read)."""
        with_net = [q for q, pid in enumerate(pols) if 0 <= int(pid) < len(table) and table[int(pid)].net is not None]
        out = np.zeros((len(pols), net_size if with_net else 1), dtype=np.float64)
        if net is not None:
            v = np.asarray(net, dtype=np.float64).ravel()
            if len(v) > net_size:
                raise UserError(f"a network of {len(v)} floats; allowed at most {net_size} ({tag})")
        made: dict[int, np.ndarray] = {}   # each policy's default, made (the model file read) once
        for q in with_net:
            pid = int(pols[q])
            if net is None:
                if pid not in made:
                    made[pid] = table[pid].net()
                v = made[pid]
            out[q, :len(v)] = v
        return out

    def played_nets(pols, nets) -> list:
        """The network each seat plays: a copy of its row of `nets` (seat_nets' rows) where its
        policy reads one, None where it reads none. What a seat's theta hash covers after its
        vector (`arena.cell.theta_hash`), so a hash names the model a learned player played."""
        return [nets[q].copy() if 0 <= int(pid) < len(table) and table[int(pid)].net is not None else None
                for q, pid in enumerate(pols)]
    return PlugPoint(dec, res, wsz, default_theta, seat_nets, played_nets, max(pol.ws for pol in table), int(net_size),
                     {pid: pol.names for pid, pol in enumerate(table)},
                     frozenset(pol.name for pol in table if pol.net is not None))
