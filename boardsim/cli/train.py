"""`boardsim train GAME`: train the learned player's value (experiments/train.py), write the
record and the model, install a confirmed model."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.outfiles import check_writable, write_text
from experiments.progress import ProgressBar
from experiments.train import train as train_game, trainer
from simcore.errors import UserError

from .errors import user_errors

TRAIN_GAMES = ("bethel-woods", "benevolent")
MAX_TRAIN_SEED = (2 ** 63 - 1 - 999) // 1000
# A round's labelled plans are held in memory to fit the network: Bethel Woods keeps about 160 plans
# a self-play game (63 float32 features each), some 45 kB a game, so 100,000 games are some 4.5 GB
# (the default is 5,400 games, about 17 minutes of 2 cores).
MAX_TRAIN_GAMES = 100_000
# The validation and the confirmation keep every game's outcome for their paired interval, which
# needs 2 games at least; 1,000,000 a setup is 500 times the default confirmation.
MIN_CHECK_GAMES, MAX_CHECK_GAMES = 2, 1_000_000

class _Lines:
    """Progress for a log (stderr not a terminal, where no bar is drawn): a line at every tenth
    of the self-play."""

    def __init__(self, say):
        self.say, self.next = say, 0.1

    def __call__(self, done, total, elapsed):
        if done >= self.next * total and done < total:
            self.say(f"  {done:,}/{total:,} self-play games, {elapsed:.0f} s")
            while self.next * total <= done:
                self.next += 0.1


def _parse_list(spec, what, lo, hi):
    out = []
    for part in str(spec).split(","):
        part = part.strip()
        try:
            if "-" in part:
                a, b = part.split("-", 1)
                vals = list(range(int(a), int(b) + 1))
            else:
                vals = [int(part)]
        except ValueError:
            raise UserError(f"{what} {spec!r}: give whole numbers or ranges, e.g. 2,3,4 or {lo}-{hi}") from None
        for v in vals:
            if not lo <= v <= hi:
                raise UserError(f"{what} {v} is not allowed; allowed: {lo} to {hi}")
            if v not in out:
                out.append(v)
    if not out:
        raise UserError(f"{what} {spec!r}: give at least one value, {lo} to {hi}")
    return out


def _check_outputs(game: str, record: Path, model: Optional[Path]) -> None:
    """UserError if two of the run's files are one (through links): the record and --model, or
    either of them and the installed model, which only a confirmed model replaces (--install)."""
    from arena.outfiles import same_file
    installed = _installed_path(game)
    if model is not None and same_file(record, model):
        raise UserError(f"--record {str(record)!r} and --model {str(model)!r} are the same file; the record would "
                        "be lost: give them different paths")
    if same_file(record, installed):
        raise UserError(f"--record {str(record)!r} is the installed model ({installed}), which only a confirmed "
                        "model replaces: give the record another path")
    if model is not None and same_file(model, installed):
        raise UserError(f"--model {str(model)!r} is the installed model ({installed}); --model is written confirmed "
                        "or not, and only a confirmed model replaces the installed one (--install, the default): "
                        "give --model another path")


def _installed_path(game: str) -> Path:
    return trainer(game).model_path


@user_errors
def train(
    game: Annotated[str, typer.Argument(help="bethel-woods or benevolent.")],
    players: Annotated[Optional[str], typer.Option(help="Player counts to train on, e.g. 3 or 2,3,4 or 2-4 (default: Bethel Woods 2-4, Benevolent 2).")] = None,
    spies: Annotated[Optional[str], typer.Option(help="Bethel Woods: spies at setup to train on, e.g. 0 or 0-5 (default 0-5).")] = None,
    games: Annotated[Optional[int], typer.Option(help="Self-play games per round, spread over the setups in turn (default: Bethel Woods 5400, Benevolent 5000).")] = None,
    iterations: Annotated[Optional[int], typer.Option(help="Rounds of expert iteration: self-play, fit, validation (default: Bethel Woods 3, Benevolent 2).")] = None,
    reps: Annotated[int, typer.Option(help="Rollouts per kept plan of a labelled turn.")] = 4,
    label_prob: Annotated[Optional[float], typer.Option(help="Share of the turns that are labelled, 0 to 1 (default: Bethel Woods 0.5, Benevolent 0.3).")] = None,
    hidden: Annotated[int, typer.Option(help="Hidden units of the value network.")] = 32,
    seed: Annotated[int, typer.Option(help="Seed (round r plays seed*1000+r; validation seed*1000+900; confirmation seed*1000+999).")] = 1,
    validate_games: Annotated[int, typer.Option(help="Games per setup of each round's validation against the heuristic.")] = 300,
    confirm_games: Annotated[int, typer.Option(help="Games per setup of the confirmation on fresh seeds.")] = 2000,
    threads: Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")] = None,
    record: Annotated[Path, typer.Option(help="Write the run's record (JSON) here.")] = Path("train_record.json"),
    install: Annotated[bool, typer.Option(help="Write a confirmed model into the package (policies/<game>/learned.json).")] = True,
    model: Annotated[Optional[Path], typer.Option(help="Also write the model file here, confirmed or not (play it with `simulate --model PATH` or `ladder --model PATH`).")] = None,
):
    """Train the learned player's value by expert iteration (rollout-labelled self-play, a small
    network), confirm it against the heuristic on fresh seeds, install it if confirmed.

    The defaults are the run that made the shipped model (docs/runs/train-bethel-woods-seed1.json;
    about 90 minutes on 2 busy cores). The same seed gives the same model on the same versions of
    numpy and scikit-learn."""

    say = lambda m: typer.echo(m, err=True)  # noqa: E731
    if game not in TRAIN_GAMES:
        raise UserError(f"unknown game {game!r} for train; allowed: {', '.join(TRAIN_GAMES)}")
    tr = trainer(game)
    if not tr.has_spies and spies is not None:
        raise UserError(f"--spies {spies}: {tr.game.title} has no spies; leave --spies out")
    players = players if players is not None else tr.default_players
    spies = spies if spies is not None else "0-5"
    games = games if games is not None else tr.default_games
    iterations = iterations if iterations is not None else tr.default_iterations
    label_prob = label_prob if label_prob is not None else tr.default_label_prob
    if not 1 <= games <= MAX_TRAIN_GAMES:
        raise UserError(f"games {games}: allowed 1 to {MAX_TRAIN_GAMES:,} self-play games a round (a round's "
                        "labelled positions are held in memory; docs/policies.md)")
    if not 1 <= iterations <= 20:
        raise UserError(f"iterations {iterations}: allowed 1 to 20")
    if not 0 < label_prob <= 1:
        raise UserError(f"label-prob {label_prob}: allowed above 0 and at most 1")
    from arena.bethel_woods.selfplay import MAX_REPS
    if not 1 <= reps <= MAX_REPS:
        raise UserError(f"reps {reps}: allowed 1 to {MAX_REPS} rollouts per plan")
    if not 1 <= hidden <= 128:
        raise UserError(f"hidden {hidden}: allowed 1 to 128 units")
    for name, n in (("validate-games", validate_games), ("confirm-games", confirm_games)):
        if not MIN_CHECK_GAMES <= n <= MAX_CHECK_GAMES:
            raise UserError(f"{name} {n}: allowed {MIN_CHECK_GAMES} to {MAX_CHECK_GAMES:,} games a setup (a paired "
                            "interval needs 2 games at least)")
    from arena.runner import check_threads
    if threads is not None:
        check_threads(threads)
    if not 0 <= seed <= MAX_TRAIN_SEED:
        raise UserError(f"seed {seed} is not allowed; train takes 0 to {MAX_TRAIN_SEED:,}")
    check_writable(record, "the record")
    if model is not None:
        check_writable(model, "the model file")
    _check_outputs(game, record, model)
    factory = (lambda: ProgressBar("self-play games")) if sys.stderr.isatty() else (lambda: _Lines(say))  # noqa: E731
    setups = tr.make_setups(_parse_list(players, "players", tr.game.min_players, tr.game.max_players),
                            _parse_list(spies, "spies", 0, 5) if tr.has_spies else None)
    net, rec = train_game(tr.game, setups, games, iterations, reps, seed, threads, hidden, eps=tr.eps,
                          label_prob=label_prob, validate_games=validate_games, confirm_games=confirm_games, say=say,
                          progress_factory=factory)
    model_path, feature_names, gname = tr.model_path, tr.features, tr.game.name
    rec["command"] = (f"boardsim train {game} --players {players}" + (f" --spies {spies}" if tr.has_spies else "") + f" --games {games} "
                      f"--iterations {iterations} --reps {reps} --label-prob {label_prob} --hidden {hidden} "
                      f"--seed {seed} --validate-games {validate_games} --confirm-games {confirm_games}")
    write_text(record, json.dumps(rec, indent=1) + "\n", "the record")
    typer.echo(f"record written to {record}")
    from policies.value_model import model_text
    if model is not None:
        write_text(model, model_text(gname, feature_names, net, rec), "the model file")
        typer.echo(f"model written to {model}")
    if install and rec["confirmed"]:
        write_text(model_path, model_text(gname, feature_names, net, rec), "the learned model")
        typer.echo(f"confirmed: installed as {model_path} (--policy learned)")
    elif not rec["confirmed"]:
        typer.echo("not confirmed on fresh seeds: nothing installed")
