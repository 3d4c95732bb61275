"""Bethel Woods: the play loop (the arena) and the parallel batch runner.

``play_game`` is the one compiled play loop of Bethel Woods (arena/loop.py's, bound to Bethel
Woods' engine and policies): the batch runner, the traces, the
benchmarks and the tests all play through it. ``simulate`` plays games 0..n-1 of a run and returns
a ``Summary`` (and, when asked, one record per game as a pandas DataFrame). Each game's chance
events come from the key (seed, game, STREAM_CHANCE), split by event (engine.CH_*); seat q's
decisions from (policy seed, game, STREAM_POLICY + q), one number per decision, so the same seed
gives the same games on any number of threads and any chunking, and no policy ever sees the
chance key, except the clairvoyant (policy id CLAIRVOYANT, a measuring stick and not a player),
which play_game hands the chance key in place of its decision key.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit

from policies import policy_id as _policy_id
from policies.bethel_woods.decide import (CLAIRVOYANT, NET_POLICIES, NET_SIZE, THETA_SIZE, WS_SIZE, decide,  # noqa: F401 (WS_SIZE, NET_SIZE, NET_POLICIES: re-exported)
                                          default_theta, played_nets, reset, seat_nets, ws_size)
from simcore.bethel_woods import GAME, engine as E
from simcore.bethel_woods.actions import N_ACTIONS, OUTCOMES, OUT_WIN
from simcore.bethel_woods.face import check_setup_args, parse_characters, setup_config
from simcore.bethel_woods.rules import CHARACTERS, LOSS_REASONS, MAX_PLAYERS, Rules
from policies.bethel_woods import expert as _expert
from policies.bethel_woods import learned as _learned
from policies.bethel_woods import search as _search
from simcore.errors import UserError

from ..cell import Cell, prepared, run_cell
from ..loop import LOG_CHANCE, LOG_DECISION, play_loop  # noqa: F401 (the LOG_ codes: the traces')
from ..runner import Rates, check_run, check_threads

# one record per game: columns of the int32 record array
R_OUTCOME, R_TURNS, R_BUILT, R_UNCOVERED, R_FIXED, R_DECISIONS, R_FIRST, R_CHAR0 = range(8)
N_REC = R_CHAR0 + MAX_PLAYERS
# the policies that take --budget (rollouts per decision): where it sits in theta and its default
# (the clairvoyant needs one rollout per plan and takes none)
BUDGETS = {"search": (_search.T_BUDGET, _search.BUDGET_DEFAULT), "expert": (_learned.THETA.offsets["T_BUDGET"], _expert.BUDGET_DEFAULT)}
SEARCH_POLICIES = tuple(BUDGETS)
MAX_BUDGET = 100_000   # rollouts per decision


@njit(cache=True)
def record(s, cfg, out, i):
    """The ended game's record (the R_* columns) into out[i]."""
    out[i, R_OUTCOME] = s[E.OUTCOME]
    out[i, R_TURNS] = s[E.TURN] + 1  # the turn in which the game ended counts
    out[i, R_BUILT] = E.orphanage_count(s)
    out[i, R_UNCOVERED] = s[E.ST_UNCOV]
    out[i, R_FIXED] = s[E.ST_FIXED]
    out[i, R_DECISIONS] = s[E.ST_DECISIONS]
    out[i, R_FIRST] = s[E.FIRST]
    for q in range(MAX_PLAYERS):
        out[i, R_CHAR0 + q] = s[E.CHAR + q]


# the play loop (arena/loop.py), with Bethel Woods' engine and policies; the clairvoyant alone is
# handed the chance key
play_game, play_chunk = play_loop(
    GAME.name, peek=CLAIRVOYANT, setup=E.setup, current_player=E.current_player,
    chance_outcome=E.chance_outcome_inlined, apply_chance=E.apply_chance_inlined,
    legal_actions=E.legal_actions_inlined, apply=E.apply_inlined, decide=decide, reset=reset,
    ws_size=ws_size, record=record, S_SIZE=E.S_SIZE, N_ACTIONS=N_ACTIONS, MAX_PLAYERS=MAX_PLAYERS,
    CFG_PLAYERS=E.CFG.offsets["CFG_PLAYERS"])


# ---- units of games: a unit's count vector (arena/units.py) -----------------------------------
HAS_SPIES = True     # the setup takes a difficulty (spies); a cell's spies are part of its key
TURN_BINS = 128      # game length histogram: turns 1..127, the last bin holds 128 and more
COUNT_SCALARS = ("games", "wins", "loss_bag_empty", "loss_four_critical", "loss_six_spies", "turns",
                 "turns_sq", "decisions", "daydreamer_built", "spies_uncovered", "malfunctions_fixed",
                 "built_in_losses", "uncovered_in_losses", "turns_in_wins")
COUNT_FIELDS = COUNT_SCALARS + tuple(f"turns_{t}" for t in range(1, TURN_BINS + 1))
_C = {f: i for i, f in enumerate(COUNT_SCALARS)}


def count_ends(d) -> int:
    """The games a count dict says ended: won or lost for one of the three reasons."""
    return d["wins"] + sum(d[f"loss_{r}"] for r in LOSS_REASONS)


def count_problem(d) -> str | None:
    """What only a Bethel Woods count dict can break (arena.units.count_problem checks the rest)."""
    if d["turns_in_wins"] > d["turns"]:
        return f"turns_in_wins {d['turns_in_wins']} exceed turns {d['turns']}"
    return None


def cell_setup(cell):
    """(p, cfg, pols, thetas, nets) of a cell (arena.cell.Cell), validated (UserError)."""
    check_setup_args(cell.players, cell.spies)
    chars = parse_characters(list(cell.characters) if cell.characters else None, cell.players)
    names = cell.seat_policies()
    if len(set(names)) != 1:
        # Bethel Woods is cooperative: per-seat policies would work in the arena but no study
        # needs them yet, and one name keeps the key simple
        raise UserError(f"policies {','.join(names)}: Bethel Woods cells play one policy at every seat")
    pols, thetas = seat_policies(names[0], cell.players, cell.theta, cell.budget)
    return (cell.rules or Rules()).params, setup_config(cell.players, cell.spies, chars), pols, thetas, \
        seat_nets(pols, cell.net)


def outcome_codes(rec, levels: int = 2) -> np.ndarray:
    """Each game's outcome as a code (a study's paired and joint checks): 1 won, 0 lost. Bethel
    Woods has the two levels only."""
    return (rec[:, R_OUTCOME] == OUT_WIN).astype(np.int64)


def add_counts(rec, players, out):
    """Add a chunk's records (one row a game) to the count vector out (COUNT_FIELDS)."""
    o = rec[:, R_OUTCOME]
    t = rec[:, R_TURNS].astype(np.int64)
    won = o == OUT_WIN
    lost = ~won
    out[_C["games"]] += len(rec)
    out[_C["wins"]] += int(won.sum())
    for r in LOSS_REASONS:
        out[_C[f"loss_{r}"]] += int((o == OUTCOMES.index(r)).sum())
    out[_C["turns"]] += int(t.sum())
    out[_C["turns_sq"]] += int((t * t).sum())
    out[_C["decisions"]] += int(rec[:, R_DECISIONS].astype(np.int64).sum())
    out[_C["daydreamer_built"]] += int(rec[:, R_BUILT].sum())
    out[_C["spies_uncovered"]] += int(rec[:, R_UNCOVERED].sum())
    out[_C["malfunctions_fixed"]] += int(rec[:, R_FIXED].sum())
    out[_C["built_in_losses"]] += int(rec[lost, R_BUILT].sum())
    out[_C["uncovered_in_losses"]] += int(rec[lost, R_UNCOVERED].sum())
    out[_C["turns_in_wins"]] += int(t[won].sum())
    out[len(COUNT_SCALARS):] += np.bincount(np.clip(t, 1, TURN_BINS) - 1, minlength=TURN_BINS)


def seat_policies(policy, players, theta=None, budget=None):
    """Every seat plays `policy` (with parameters `theta`, default: the policy's own; `budget`:
    the search's rollouts per decision): the ids and the theta rows the arena takes."""
    pid = _policy_id(policy, GAME)
    if budget is not None:
        if policy not in SEARCH_POLICIES:
            raise UserError(f"--budget is for policies {', '.join(SEARCH_POLICIES)} only, not {policy!r}")
        if not 0 <= int(budget) <= MAX_BUDGET:
            raise UserError(f"budget {budget} out of range; allowed: 0 to {MAX_BUDGET} rollouts per decision")
    pols = np.full(MAX_PLAYERS, pid, dtype=np.int64)
    thetas = np.zeros((MAX_PLAYERS, THETA_SIZE), dtype=np.float64)
    if theta is not None and len(theta) == THETA_SIZE:
        base = np.zeros(THETA_SIZE)   # a vector in full needs no defaults (nor the learned player's model file)
    else:
        base = default_theta(pid)
    for q in range(MAX_PLAYERS):
        thetas[q] = base
        if theta is not None:
            thetas[q, :len(theta)] = theta
        if budget is not None:
            thetas[q, BUDGETS[policy][0]] = int(budget)
    return pols, thetas


def played_budget(policy, budget=None):
    """The search's rollouts per decision as it plays (its default when none was given); None for
    the policies that take no budget."""
    if policy not in SEARCH_POLICIES:
        return None
    return BUDGETS[policy][1] if budget is None else int(budget)


def policy_label(policy, budget=None):
    """The policy's name as tables show it: the search's budget, and `not a player` where it is not."""
    from policies import NOT_PLAYERS
    b = played_budget(policy, budget)
    name = policy if b is None else f"{policy}({b})"
    if policy in NOT_PLAYERS[GAME.name]:
        name += " [not a player]"
    return name


@dataclass
class Summary(Rates):
    """Aggregates of a run; ``records`` holds one row per game only when asked for."""
    players: int
    spies: int
    characters: list | None
    policy: str
    seed: int
    threads: int
    games: int = 0
    wins: int = 0
    losses: dict = field(default_factory=lambda: {r: 0 for r in LOSS_REASONS})
    turns: int = 0
    decisions: int = 0
    built: int = 0
    uncovered: int = 0
    fixed: int = 0
    seconds: float = 0.0
    records: pd.DataFrame | None = None
    theta: np.ndarray | None = None   # the seats' parameter vector (padded to THETA_SIZE)
    net: np.ndarray | None = None     # the seats' network (the learned and expert players; None: reads none)

    def add(self, rec):
        out = rec[:, R_OUTCOME]
        self.games += len(rec)
        self.wins += int((out == OUT_WIN).sum())
        for i, r in enumerate(LOSS_REASONS):
            self.losses[r] += int((out == OUTCOMES.index(r)).sum())
        self.turns += int(rec[:, R_TURNS].sum())
        self.decisions += int(rec[:, R_DECISIONS].sum())
        self.built += int(rec[:, R_BUILT].sum())
        self.uncovered += int(rec[:, R_UNCOVERED].sum())
        self.fixed += int(rec[:, R_FIXED].sum())

    @property
    def win_rate(self):
        return self.wins / self.games if self.games else float("nan")

    @property
    def mean_turns(self):
        return self.turns / self.games if self.games else float("nan")



def records_frame(rec, start, n_players):
    """One row per game: game, won, outcome, turns, daydreamer_built, spies_uncovered,
    malfunctions_fixed, decisions, first_player, characters."""
    chars = rec[:, R_CHAR0:R_CHAR0 + n_players]
    return pd.DataFrame({
        "game": np.arange(start, start + len(rec)),
        "won": rec[:, R_OUTCOME] == OUT_WIN,
        "outcome": pd.Categorical.from_codes(rec[:, R_OUTCOME], categories=list(OUTCOMES)),
        "turns": rec[:, R_TURNS],
        "daydreamer_built": rec[:, R_BUILT],
        "spies_uncovered": rec[:, R_UNCOVERED],
        "malfunctions_fixed": rec[:, R_FIXED],
        "decisions": rec[:, R_DECISIONS],
        "first_player": rec[:, R_FIRST],
        "characters": [",".join(CHARACTERS[c] for c in row) for row in chars],
    })


def simulate(players=3, spies=0, characters=None, policy="random", games=1000, seed=0, threads=None,
             rules: Rules | None = None, keep_records=False, chunk=None, progress=None,
             policy_seed=None, theta=None, budget=None, net=None) -> Summary:
    """Play `games` games and aggregate them. Raises UserError naming a bad argument.

    policy_seed (default: seed) keys the policies' streams apart from the chance stream, so two
    runs can face the same chance with differently seeded policies; theta (default: the policy's
    own) sets the policy's parameters; budget (search policies only) the rollouts per decision;
    net (the learned and expert players; default: the installed model's) their network array.
    The games are the cell's (arena.cell.Cell) and are played by arena.cell.play_records, as a
    unit's are: this adds the time-sized chunks, the progress, the Summary and the records."""
    check_setup_args(players, spies)
    chars = parse_characters(characters, players)
    cell = Cell(GAME.name, players, spies, characters=chars and tuple(CHARACTERS[c] for c in chars),
                policies=(policy,), theta=None if theta is None else tuple(float(x) for x in np.ravel(theta)),
                rules=rules, seed=seed, policy_seed=policy_seed, budget=budget,
                net=None if net is None else tuple(float(x) for x in np.ravel(net)))
    _, _, pols, thetas, nets = prepared(cell, cell_setup)   # the policy and the budget, checked
    threads = check_threads(threads)
    check_run(games, seed)
    check_run(1, seed if policy_seed is None else policy_seed)
    summary = Summary(players, spies, chars and [CHARACTERS[c] for c in chars], policy, seed, threads)
    summary.theta = thetas[0].copy()
    summary.net = played_nets(pols, nets)[0]
    frame = (lambda rec, start: records_frame(rec, start, players)) if keep_records else None
    return run_cell(cell, games, summary, cell_setup=cell_setup, play_chunk=play_chunk, n_rec=N_REC,
                    frame=frame, chunk=chunk, threads=threads, progress=progress)
