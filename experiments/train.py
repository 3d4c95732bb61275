"""`boardsim train bethel-woods|benevolent`: train the learned player's value (expert iteration).

Each round of training:

1. **Self-play with labels** (``arena.<game>.selfplay``): the current player plays games in
   every seat; at a sample of its turns every plan the planner keeps (its K best distinct
   plans) is labelled with the outcome of ``reps`` rollouts from that plan's end, played by the
   same player to the end of the game on futures sampled from the game's labelling stream (never
   its chance key), all plans on the same futures. The first round's player is the planner
   alone (the heuristic's choice); each later round's player is the previous round's model, so
   its labels value positions under stronger play (expert iteration, Anthony et al. 2017).
2. **Fit**: a network of one hidden layer (scikit-learn's ``MLPRegressor``, ReLU, L2 penalty
   ``alpha``, early stopping on a tenth of the rows) maps an end position's features to the
   fraction of its rollouts won, fit on the rows of every round so far. scikit-learn does it
   better than code of ours would (its Adam optimiser, early stopping, tested), and its BLAS
   calls are held to one thread (threadpoolctl), so the same seed gives the same weights.
3. **Validation**: the round's model plays the validation games (seed * 1000 + 900) of every
   setup, paired with the heuristic on the same games.

After the last round the model is **confirmed** on fresh games (seed * 1000 + 999, which no round
played): the learned player against the heuristic on the same games, per setup and pooled, with
the paired 95% interval and McNemar's p (``experiments.stats.paired_difference``), and the speed
of both measured side by side. A confirmed model (the pooled interval above zero) is written to
``policies/<game>/learned.json``, with the record (data, seeds, settings, every round's figures,
the confirmation); the record alone always goes to ``--record``.

Every number is a pure function of the seed: round r's self-play is seed * 1000 + r, and the fit's
random state is the seed.
"""
from __future__ import annotations

import datetime
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW

from .stats import p_text, paired_difference, pct, signed, wilson

CHUNK = 32   # self-play games per call of the labelling kernel (progress is reported between calls)


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Rows:
    """Labelled plans: one row per kept plan of a labelled turn."""
    X: np.ndarray       # features (float32)
    score: np.ndarray   # the planner's score
    wins: np.ndarray    # rollouts won
    reps: int
    turn_id: np.ndarray  # the labelled turn (unique over the rows of one call)
    game: np.ndarray
    chosen: np.ndarray   # the row's plan was the one played

    @property
    def y(self):
        return self.wins / self.reps

    def __len__(self):
        return len(self.wins)


def concat(parts) -> Rows:
    off = 0
    ids = []
    for r in parts:
        ids.append(r.turn_id + off)
        off += int(r.turn_id.max()) + 1 if len(r) else 0
    return Rows(np.concatenate([r.X for r in parts]), np.concatenate([r.score for r in parts]),
                np.concatenate([r.wins for r in parts]), parts[0].reps, np.concatenate(ids),
                np.concatenate([r.game for r in parts]), np.concatenate([r.chosen for r in parts]))


def _popcount(bits, reps):
    w = np.zeros(bits.shape, dtype=np.int64)
    b = bits.astype(np.int64)
    for r in range(reps):
        w += (b >> r) & 1
    return w


def bw_selfplay(configs, theta, net, games, seed, reps, eps, label_prob, threads=None, progress=None, rules=None) -> tuple:
    """Bethel Woods self-play with labels: games 0..games-1 of `seed`, game g set up as
    configs[g % len(configs)] ((players, spies) pairs). Returns (Rows of the turns with at least
    two kept plans, per-game array (labelled turns, won, turns), seconds)."""
    from arena.bethel_woods import selfplay as SP
    from policies.bethel_woods.features import NF
    from policies.bethel_woods.heuristic import K_CAND
    from simcore.bethel_woods.face import setup_config
    from simcore.bethel_woods.rules import Rules

    if not 1 <= reps <= SP.MAX_REPS:
        from simcore.errors import UserError
        raise UserError(f"reps {reps}: allowed 1 to {SP.MAX_REPS} rollouts per plan")
    cfgs = np.stack([setup_config(pl, sp) for pl, sp in configs])
    return _selfplay(SP, (rules or Rules()).params, cfgs, SP.MAX_TURNS, K_CAND, NF, 3, theta, net, games, seed, reps, eps,
                     label_prob, threads, progress)


def _selfplay(SP, p, cfgs, T, K, NF, nm, theta, net, games, seed, reps, eps, label_prob, threads, progress):
    """Run SP.label_chunk over games 0..games-1 in chunks (T labelled turns a game at most, K plans
    a turn, NF features, nm fields per labelled turn) and gather the rows of the turns with at least
    two kept plans."""
    from arena.runner import run_chunks
    parts = []
    per_game = np.zeros((games, 3), dtype=np.int64)

    def play(start, count):
        Xo = np.zeros((count, T, K, NF), dtype=np.float32)
        So = np.zeros((count, T, K), dtype=np.float32)
        Yo = np.zeros((count, T, K), dtype=np.int32)
        Mo = np.zeros((count, T, nm), dtype=np.int32)
        Go = np.zeros((count, 3), dtype=np.int32)
        SP.label_chunk(p, cfgs, np.uint64(seed), start, count, theta, net, reps, eps, label_prob, Xo, So, Yo, Mo, Go)
        return Xo, So, Yo, Mo, Go

    def collect(start, count, res):
        Xo, So, Yo, Mo, Go = res
        per_game[start:start + count] = Go
        gi, ti = np.nonzero(Mo[:, :, SP.M_PLANS] >= 2)
        if len(gi) == 0:
            return
        nc = Mo[gi, ti, SP.M_PLANS]
        rows_g = np.repeat(gi, nc)
        rows_t = np.repeat(ti, nc)
        rows_c = np.concatenate([np.arange(k) for k in nc])
        tid = np.repeat(np.arange(len(gi)), nc)
        parts.append(Rows(Xo[rows_g, rows_t, rows_c], So[rows_g, rows_t, rows_c],
                          _popcount(Yo[rows_g, rows_t, rows_c], reps), reps, tid, start + rows_g,
                          Mo[rows_g, rows_t, SP.M_CHOSEN] == rows_c))

    seconds = run_chunks(games, play, collect, chunk=CHUNK, threads=threads, progress=progress)
    rows = concat(parts) if parts else Rows(np.zeros((0, NF), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64),
                                            reps, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool))
    return rows, per_game, seconds


def fit_value(X, y, hidden=32, alpha=1e-3, seed=0, max_iter=300) -> tuple:
    """Fit the value network (features -> win fraction). Returns (net dict for value_model, info)."""
    from sklearn.neural_network import MLPRegressor
    from threadpoolctl import threadpool_limits

    X = np.asarray(X, dtype=np.float64)
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    Z = (X - mean) / scale
    with threadpool_limits(limits=1):
        m = MLPRegressor(hidden_layer_sizes=(hidden,), activation="relu", alpha=alpha, max_iter=max_iter,
                         early_stopping=True, validation_fraction=0.1, random_state=seed)
        m.fit(Z, y)
    from policies.value_model import prune
    net = prune({"mean": mean, "scale": scale, "W1": m.coefs_[0], "b1": m.intercepts_[0], "W2": m.coefs_[1][:, 0],
                 "b2": float(m.intercepts_[1][0]), "hidden": hidden})
    info = {"epochs": int(m.n_iter_), "validation_r2": float(m.best_validation_score_),
            "rows": int(len(y)), "hidden_kept": int(net["hidden"])}
    return net, info


def bw_paired(net_a, configs, games, seed, threads=None, policy_b="heuristic", theta_b=None):
    """Per setup: the learned player with the network net_a against policy_b on the same games
    (paired). Returns a list of dicts and the pooled paired difference."""
    from arena.bethel_woods.batch import simulate
    rows = []
    won_a, won_b = [], []
    for pl, sp in configs:
        a = simulate(pl, sp, policy="learned", games=games, seed=seed, threads=threads, net=net_a,
                     keep_records=True)
        b = simulate(pl, sp, policy=policy_b, games=games, seed=seed, threads=threads, theta=theta_b,
                     keep_records=True)
        wa, wb = a.records["won"].to_numpy(), b.records["won"].to_numpy()
        d = paired_difference(wa, wb)
        won_a.append(wa)
        won_b.append(wb)
        rows.append({"players": pl, "spies": sp, "games": games, "learned_wins": a.wins, policy_b + "_wins": b.wins,
                     "diff": d.diff, "diff_ci95": [d.ci_low, d.ci_high], "p_value": d.pvalue,
                     "learned_games_per_second": a.games_per_second,
                     policy_b + "_games_per_second": b.games_per_second})
    pooled = paired_difference(np.concatenate(won_a), np.concatenate(won_b))
    return rows, pooled


def _versions():
    import numpy
    import sklearn
    return {"numpy": numpy.__version__, "scikit-learn": sklearn.__version__}


def _bw_validate(net, configs, games, seed, threads):
    """A round's validation: the learned player (with the network `net`) against the heuristic on
    the same games."""
    vrows, vpool = bw_paired(net, configs, games, seed, threads)
    text = (f"  validation (seed {seed}, {games:,} games a setup): learned "
            f"{signed(vpool.diff * 100)} pp against the heuristic (95% CI {signed(vpool.ci_low * 100)} to "
            f"{signed(vpool.ci_high * 100)})")
    return {"seed": seed, "per_setup": vrows, "diff": vpool.diff, "diff_ci95": [vpool.ci_low, vpool.ci_high],
            "p_value": vpool.pvalue}, text


def _bw_confirm(net, configs, games, seed, threads, say):
    """The confirmation on fresh games: (its record, confirmed) with the pooled paired interval."""
    crows, cpool = bw_paired(net, configs, games, seed, threads)
    confirmed = bool(cpool.ci_low > 0)
    for r in crows:
        ratio = r["learned_games_per_second"] / r["heuristic_games_per_second"]
        say(f"  {r['players']} players {r['spies']} spies: learned {r['learned_wins']}/{r['games']} "
            f"({pct(r['learned_wins'] / r['games'])}), heuristic {r['heuristic_wins']}/{r['games']} "
            f"({pct(r['heuristic_wins'] / r['games'])}): {signed(r['diff'] * 100)} pp "
            f"({signed(r['diff_ci95'][0] * 100)} to {signed(r['diff_ci95'][1] * 100)}); speed {ratio:.2f} x the heuristic's")
    say(f"pooled: {signed(cpool.diff * 100)} pp (95% CI {signed(cpool.ci_low * 100)} to {signed(cpool.ci_high * 100)}), "
        f"McNemar p {p_text(cpool.pvalue)}: " + ("confirmed" if confirmed else "NOT confirmed"))
    return {"seed": seed, "games_per_setup": games, "per_setup": crows,
            "diff": cpool.diff, "diff_ci95": [cpool.ci_low, cpool.ci_high], "p_value": cpool.pvalue,
            "only_learned": cpool.only_a, "only_heuristic": cpool.only_b,
            "test": "Newcombe square-and-add interval for paired proportions, exact McNemar test"}, confirmed


def _bw_trainer():
    from policies.bethel_woods import learned as L
    from policies.bethel_woods.features import FEATURE_NAMES
    return Trainer(
        game=BW, first_player="the planner's own choice", selfplay_theta=L.learned_theta,
        net_array=L.learned_net, net_size=L.NET_SIZE, selfplay=bw_selfplay,
        selfplay_text=lambda pg, games: f"self-play won {int(pg[:, 1].sum()):,}/{games:,}",
        selfplay_field=lambda pg: ("selfplay_wins", int(pg[:, 1].sum())),
        validate=_bw_validate, confirm_line="confirming on fresh games (seed {seed}, {games:,} a setup): learned "
                                            "against the heuristic",
        confirm=_bw_confirm,
        setup_fields=lambda configs: {"setups": [{"players": pl, "spies": sp} for pl, sp in configs]},
        player_fields=lambda th: {"candidates": int(th[L.T_K]), "ktop": int(th[L.T_KTOP])},
        rollout_fields=lambda th: {}, features=FEATURE_NAMES, model_path=L.MODEL_PATH,
        make_setups=lambda players, spies: [(pl, sp) for pl in players for sp in spies], has_spies=True,
        eps=0.1, default_players="2-4", default_games=5400, default_iterations=3, default_label_prob=0.5)


def bv_setups(players_list):
    """(players, printed leaves) setups of Benevolent self-play."""
    from simcore.benevolent.face import setup_config
    return np.stack([setup_config(pl, (1, 3, 4, 5)[:pl]) for pl in players_list])


def bv_label_theta(theta):
    """theta with the labels' rollout settings (the expert's fields: 8 plans, the second with
    probability 0.15, at most 120 turns)."""
    from policies.benevolent import learned as L
    t = theta.copy()
    t[L.T_RK], t[L.T_RNOISE], t[L.T_HMAX] = 8, 1.5, 120
    return t


def bv_selfplay(players_list, theta, net, games, seed, reps, eps, label_prob, threads=None, progress=None) -> tuple:
    """Benevolent self-play with labels: games 0..games-1 of `seed`, game g with
    players_list[g % len]. Returns (Rows of the labelled turns, per-game array (labelled turns,
    winner, turns), seconds)."""
    from arena.benevolent import selfplay as SP
    from policies.benevolent.features import NF
    from policies.benevolent.heuristic import K_MAX
    from simcore.benevolent.rules import Rules
    return _selfplay(SP, Rules().params, bv_setups(players_list), SP.MAX_LABELLED, K_MAX, NF, 4, theta, net, games, seed,
                     reps, eps, label_prob, threads, progress)


def bv_paired(net_a, players_list, games, seed, threads=None):
    """Per player count: the learned player (network net_a) in each seat in turn, the heuristic in the
    others, on the same deals. Its share of the games with a Wilson interval against the fair
    share, timeouts, and for 2 players the difference from the heuristic by deal."""
    from arena.benevolent.batch import rotate_seats
    from .stats import paired_difference_by_deal
    rows = []
    for pl in players_list:
        w, secs = rotate_seats("learned", "heuristic", pl, games, seed, threads, net=net_a)
        won = np.stack([w[k] == k for k in range(pl)], axis=1)        # deal x seat: learned won
        n = pl * games
        wins = int(won.sum())
        lo, hi = wilson(wins, n)
        row = {"players": pl, "deals": games, "games": n, "learned_wins": wins, "share": wins / n,
               "share_ci95": [lo, hi], "fair_share": 1 / pl, "timeouts": int((w < 0).sum()),
               "games_per_second": n / secs if secs > 0 else float("nan")}
        if pl == 2:
            other = np.stack([w[k] == 1 - k for k in range(2)], axis=1)   # the heuristic won the same game
            d = paired_difference_by_deal(won, other)
            row.update(diff=d.diff, diff_ci95=[d.ci_low, d.ci_high], p_value=d.pvalue)
        rows.append(row)
    return rows


def _bv_validate(net, players_list, games, seed, threads):
    """A round's validation: the learned player (network `net`) in each seat in turn against the heuristic."""
    vrows = bv_paired(net, players_list, games, seed, threads)
    text = ("  validation (seed {}, {:,} deals a player count): ".format(seed, games)
            + "; ".join(f"{r['players']} players: learned wins {pct(r['share'])} of its games "
                        f"({pct(r['share_ci95'][0])} to {pct(r['share_ci95'][1])}; fair share {pct(r['fair_share'])})"
                        for r in vrows))
    return {"seed": seed, "per_players": vrows}, text


def _bv_confirm(net, players_list, games, seed, threads, say):
    """The confirmation on fresh deals: (its record, confirmed): the learned player's share above
    the fair share at every player count."""
    crows = bv_paired(net, players_list, games, seed, threads)
    confirmed = all(r["share_ci95"][0] > r["fair_share"] for r in crows)
    for r in crows:
        say(f"  {r['players']} players: learned {r['learned_wins']:,}/{r['games']:,} ({pct(r['share'])}, "
            f"{pct(r['share_ci95'][0])} to {pct(r['share_ci95'][1])}; fair share {pct(r['fair_share'])}), "
            f"timeouts {r['timeouts']}")
    say("confirmed" if confirmed else "NOT confirmed (some player count's interval reaches its fair share)")
    return {"seed": seed, "deals_per_player_count": games, "per_players": crows,
            "test": "the learned player's share in each seat against the heuristic, Wilson 95% "
                    "interval above the fair share at every player count"}, confirmed


def _bv_trainer():
    from policies.benevolent import learned as L
    from policies.benevolent.features import FEATURE_NAMES
    return Trainer(
        game=BV, first_player="the heuristic's choice less the repetition term",
        selfplay_theta=lambda: bv_label_theta(L.learned_theta()), net_array=L.learned_net, net_size=L.NET_SIZE,
        selfplay=bv_selfplay,
        selfplay_text=lambda pg, games: f"{int((pg[:, 1] < 0).sum()):,} of {games:,} self-play games timed out",
        selfplay_field=lambda pg: ("selfplay_timeouts", int((pg[:, 1] < 0).sum())),
        validate=_bv_validate, confirm_line="confirming on fresh deals (seed {seed}, {games:,} a player count): "
                                            "learned in each seat against the heuristic",
        confirm=_bv_confirm,
        setup_fields=lambda players_list: {"players": list(players_list), "leaves": "printed"},
        player_fields=lambda th: {"candidates": int(th[L.T_K]), "repetition_term": float(th[L.T_LAM])},
        rollout_fields=lambda th: {"rollouts": {"plans": int(th[L.T_RK]), "noise": float(th[L.T_RNOISE]),
                                                "max_turns": int(th[L.T_HMAX])}},
        features=FEATURE_NAMES, model_path=L.MODEL_PATH, make_setups=lambda players, spies: list(players),
        has_spies=False, eps=0.2, default_players="2", default_games=5000, default_iterations=2,
        default_label_prob=0.3)


def train_benevolent(players_list, games=5000, iterations=2, reps=4, seed=1, threads=None, hidden=32, alpha=1e-3,
                     eps=0.2, label_prob=0.3, validate_games=300, confirm_games=2000, say=print, progress_factory=None):
    """Expert iteration for the Benevolent learned player (``train`` with its trainer). Returns (net, record)."""
    return train(BV, players_list, games, iterations, reps, seed, threads, hidden, alpha, eps, label_prob,
                 validate_games, confirm_games, say, progress_factory)


@dataclass(frozen=True)
class Trainer:
    """What expert iteration needs of one game (its part of the game's adapter): the players'
    parameter vectors, labelled self-play, a round's validation and the confirmation, and the
    record's game-specific fields. ``train`` is the one loop over it; ``TRAINERS`` holds one per
    game, made when first asked for (``trainer``)."""
    game: Any
    first_player: str                 # who plays round 1's self-play, in words
    selfplay_theta: Callable          # () -> the self-play's vector (every round's; the network is apart)
    net_array: Callable               # a fitted model (dict) -> its network array (validation, confirmation, self-play)
    net_size: int                     # a network array's floats (round 1 plays all zeros: the planner's own choice)
    selfplay: Callable                # (setups, theta, net, games, seed, reps, eps, label_prob, threads, progress) -> (Rows, per_game, s)
    selfplay_text: Callable           # (per_game, games) -> what the self-play's games did, in words
    selfplay_field: Callable          # per_game -> (the round record's field, its value)
    validate: Callable                # (net, setups, games, seed, threads) -> (record, line)
    confirm_line: str                 # the confirmation's first line ({seed}, {games})
    confirm: Callable                 # (net, setups, games, seed, threads, say) -> (record, confirmed)
    setup_fields: Callable            # setups -> the record's fields naming them
    player_fields: Callable           # theta -> the planner's settings in the record
    rollout_fields: Callable          # theta -> the labels' rollout settings in the record
    features: tuple
    model_path: Any                   # where the installed model lives (policies/<game>/learned.json)
    make_setups: Callable             # (player counts, spies counts or None) -> the setups ``train`` takes
    has_spies: bool                   # whether setups take spies
    eps: float                        # self-play's exploration
    default_players: str              # the command's defaults: the run that made the shipped model
    default_games: int
    default_iterations: int
    default_label_prob: float


_TRAINER_MAKERS = {BW.name: _bw_trainer, BV.name: _bv_trainer}


def trainer(game) -> Trainer:
    """The game's trainer."""
    from simcore.games import game as game_of
    return _TRAINER_MAKERS[game_of(game).name]()


def train(game, setups, games, iterations=2, reps=4, seed=1, threads=None, hidden=32, alpha=1e-3, eps=0.1,
          label_prob=1.0, validate_games=1000, confirm_games=4000, say=print, progress_factory=None):
    """Expert iteration for a game's learned player over `setups` (Bethel Woods: (players, spies)
    pairs; Benevolent: player counts). Returns (net, record)."""
    from policies.value_model import no_net
    tr = trainer(game)
    theta = tr.selfplay_theta()
    play_net = no_net(tr.net_size)   # round 1: no network, the planner's own choice
    data, rounds = [], []
    net = None
    t0 = time.perf_counter()
    for it in range(iterations):
        dseed = seed * 1000 + it
        who = tr.first_player if net is None else f"round {it}'s model"
        say(f"round {it + 1}/{iterations}: self-play of {games:,} games (seed {dseed}, {who}), "
            f"{reps} rollouts per kept plan")
        rows, per_game, secs = tr.selfplay(setups, theta, play_net, games, dseed, reps, eps, label_prob, threads,
                                           progress_factory() if progress_factory else None)
        data.append(rows)
        allrows = concat(data)
        say(f"  {len(rows):,} labelled plans of {len(np.unique(rows.turn_id)):,} turns in {secs:.0f} s; "
            f"{tr.selfplay_text(per_game, games)}; fitting on {len(allrows):,} plans")
        net, info = fit_value(allrows.X, allrows.y, hidden, alpha, seed)
        play_net = tr.net_array(net)
        validation, line = tr.validate(play_net, setups, validate_games, seed * 1000 + 900, threads)
        say(line)
        field, value = tr.selfplay_field(per_game)
        rounds.append({"round": it, "seed": dseed, "games": games, "player": who, "labelled_plans": len(rows),
                       "labelled_turns": int(len(np.unique(rows.turn_id))), field: value,
                       "selfplay_seconds": secs, "fit": info, "validation": validation})
    cseed = seed * 1000 + 999
    say(tr.confirm_line.format(seed=cseed, games=confirm_games))
    confirmation, confirmed = tr.confirm(play_net, setups, confirm_games, cseed, threads, say)
    record = {
        "game": tr.game.name, "policy": "learned", **tr.setup_fields(setups),
        "seed": seed, "iterations": iterations, "games_per_round": games, "reps": reps,
        **tr.player_fields(theta), "hidden": hidden, "alpha": alpha,
        "exploration": eps, "label_prob": label_prob, "features": list(tr.features), **tr.rollout_fields(theta),
        "method": "expert iteration: rollout-labelled kept plans, one-hidden-layer ReLU network "
                  "(scikit-learn MLPRegressor, early stopping), fit on every round's rows",
        "rounds": rounds, "confirmation": confirmation,
        "confirmed": confirmed, "seconds": time.perf_counter() - t0, "versions": _versions(), "date": _now(),
    }
    return net, record


def train_bethel_woods(configs, games=2000, iterations=2, reps=4, seed=1, threads=None, hidden=32, alpha=1e-3,
                       eps=0.1, label_prob=1.0, validate_games=1000, confirm_games=4000, say=print,
                       progress_factory=None):
    """Expert iteration for the Bethel Woods learned player (``train`` with its trainer). Returns (net, record)."""
    return train(BW, configs, games, iterations, reps, seed, threads, hidden, alpha, eps, label_prob,
                 validate_games, confirm_games, say, progress_factory)
