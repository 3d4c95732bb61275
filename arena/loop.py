"""The compiled play loop, written once for every game: ``play_game`` and ``play_chunk``; and the
parallel loop of the self-play labelling, ``label_chunk`` (each game's ``label_game`` plays one).

The two functions below are templates: plain Python that reaches a game's engine and policies
through the names a game binds (``setup``, ``current_player``, ``chance_outcome``, ``apply_chance``,
``legal_actions``, ``apply``, ``decide``, ``reset``, ``ws_size``, ``record``, ``S_SIZE``,
``N_ACTIONS``, ``MAX_PLAYERS``, ``CFG_PLAYERS``; the list is ``GAME_NAMES``). A game's arena
module calls ``play_loop(tag, ...)`` once with its own functions and gets its own two numba
dispatchers (``arena/<game>/batch.py``: ``play_game, play_chunk = play_loop("bethel_woods", ...)``).

Each game's pair is `simcore.numbacache.specialise` of the templates: cached on disk per game,
with nothing of the game in a closure (that module says how and why).
"""
from __future__ import annotations

import numpy as np
from numba import prange

from simcore.common import PLAYER_CHANCE, PLAYER_TERMINAL
from simcore.numbacache import bind, specialise
from simcore.rng import STREAM_CHANCE, STREAM_POLICY, draw, game_key, stream_key, stream_of

# a step of the log kept by play_game for traces: (LOG_DECISION, seat, action) or (LOG_CHANCE, -1, outcome)
LOG_DECISION, LOG_CHANCE = 0, 1

# the names a game binds (play_loop's keyword arguments), each the game's own:
GAME_NAMES = (
    "setup",            # setup(s, p, cfg, chance_key): the position of a new game in s
    "current_player",   # current_player(s): the seat to move, PLAYER_CHANCE or PLAYER_TERMINAL
    "chance_outcome",   # chance_outcome(s, p, chance_key): the outcome of the chance step in s
    "apply_chance",     # apply_chance(s, p, outcome)
    "legal_actions",    # legal_actions(s, p, acts) -> n: the legal actions in acts[:n]
    "apply",            # apply(s, p, action)
    "decide",           # the policy plug point: decide(policy, s, p, theta, net, seat, acts, n, key, ws)
    "reset",            # reset(policy, theta, seat, ws): a seat's scratch at a game's start
    "ws_size",          # ws_size(pols): int32 scratch entries a seat needs for these policies
    "record",           # record(s, cfg, out, i): the ended game's record into out[i]
    "S_SIZE",           # int32 entries of a position
    "N_ACTIONS",        # the action numbering's size
    "MAX_PLAYERS",      # seats of the records and the policy arrays
    "CFG_PLAYERS",      # where the player count sits in a setup config
)


def play_game(s, p, cfg, seed, pseed, game, pols, thetas, nets, ws, acts, keys, counts, log,
              splice_seed=0, splice_at=-1, peek=-1):
    """Play one game to the end in s; return the number of steps logged (0 unless log has rows).

    pols[q], thetas[q], nets[q], ws[q]: seat q's policy id, parameter vector, network (the
    plug point's ``seat_nets``) and scratch. With log of shape
    (k, 3), the first k steps are written to it (the traces replay them).

    The honesty test's splice (tests/test_honesty.py): with splice_at >= 0, the chance steps of
    play from number splice_at on draw from the chance key of `splice_seed` instead of `seed`'s
    (the setup always from `seed`'s). `peek` is the one policy id handed the chance key in place
    of its decision key (the key the future is drawn from): by default Bethel Woods' clairvoyant,
    which is not a player, and no policy of Benevolent's; the test hands it to another policy to
    show that the splice catches a peek."""
    ck = stream_key(seed, game, STREAM_CHANCE)
    ck2 = stream_key(splice_seed, game, STREAM_CHANCE) if splice_at >= 0 else ck
    setup(s, p, cfg, ck)  # noqa: F821 (a game's name: GAME_NAMES)
    gk = game_key(pseed, game)  # the seats' streams share the hashing of (policy seed, game)
    for q in range(cfg[CFG_PLAYERS]):  # noqa: F821
        keys[q] = stream_of(gk, STREAM_POLICY + q)
        counts[q] = 0
        reset(pols[q], thetas[q], q, ws[q])  # noqa: F821
    steps = 0
    nch = 0
    while True:
        q = current_player(s)  # noqa: F821
        if q == PLAYER_TERMINAL:
            break
        if q == PLAYER_CHANCE:
            a = chance_outcome(s, p, ck if splice_at < 0 or nch < splice_at else ck2)  # noqa: F821
            nch += 1
            apply_chance(s, p, a)  # noqa: F821
            kind = LOG_CHANCE
        else:
            n = legal_actions(s, p, acts)  # noqa: F821
            # the one policy that may peek (the clairvoyant, a measuring stick) is handed the chance key
            k = ck2 if pols[q] == peek else draw(keys[q], counts[q])
            a = decide(pols[q], s, p, thetas[q], nets[q], q, acts, n, k, ws[q])  # noqa: F821
            counts[q] += 1
            apply(s, p, a)  # noqa: F821
            kind = LOG_DECISION
        if steps < log.shape[0]:
            log[steps, 0] = kind
            log[steps, 1] = q
            log[steps, 2] = a
            steps += 1
    return steps


def play_chunk(p, cfg, seed, pseed, start, count, pols, thetas, nets, block, out):
    """Play games start..start+count-1 in parallel blocks of `block` games; write one record per
    game into out[count, N_REC] (the game's ``record``)."""
    n_blocks = (count + block - 1) // block
    for b in prange(n_blocks):
        pb = p.copy()  # each block reads its own copy of the rules: no shared cache line between threads
        s = np.zeros(S_SIZE, dtype=np.int32)  # noqa: F821
        acts = np.zeros(N_ACTIONS, dtype=np.int32)  # noqa: F821
        ws = np.zeros((MAX_PLAYERS, ws_size(pols)), dtype=np.int32)  # noqa: F821
        keys = np.zeros(MAX_PLAYERS, dtype=np.uint64)  # noqa: F821
        counts = np.zeros(MAX_PLAYERS, dtype=np.int64)  # noqa: F821
        log = np.zeros((0, 3), dtype=np.int32)
        lo = b * block
        hi = min(count, lo + block)
        for i in range(lo, hi):
            play_game(s, pb, cfg, seed, pseed, start + i, pols, thetas, nets, ws, acts, keys, counts, log)
            record(s, cfg, out, i)  # noqa: F821


def play_loop(tag: str, *, peek: int = -1, **names):
    """The game `tag`'s ``(play_game, play_chunk)``, compiled with its names (all of GAME_NAMES,
    no others); `peek`: the policy id play_game hands the chance key by default (-1: none)."""
    names = bind(GAME_NAMES, names, f"play_loop({tag!r})")
    game = specialise(play_game, tag, names, defaults=(0, -1, int(peek)), _nrt=False)
    chunk = specialise(play_chunk, tag, {**names, "play_game": game}, parallel=True)
    return game, chunk


def label_chunk(p, cfgs, seed, start, count, theta, net, reps, eps, label_prob, X_out, S_out, Y_out, M_out, G_out):
    """Self-play labelling (``arena/<game>/selfplay.py``, ``experiments.train``): game g (start +
    i) of the chunk, set up from cfgs[g % len(cfgs)], played and labelled by the game's
    ``label_game`` into row i of the outputs, the games in parallel."""
    ncfg = cfgs.shape[0]
    for i in prange(count):
        game = start + i
        label_game(p, cfgs[game % ncfg], seed, game, i, theta, net, reps, eps, label_prob,  # noqa: F821
                   X_out, S_out, Y_out, M_out, G_out)


def label_loop(tag: str, label_game):
    """The game `tag`'s compiled ``label_chunk``, with its ``label_game`` (one game, row i)."""
    return specialise(label_chunk, tag, {"label_game": label_game}, parallel=True)
