"""`boardsim <game> simulate` and `boardsim <game> play`: each command body written once, for every
game, over the game's adapter (``GameCommands``), as sensitivity.py does for `sensitivity`.

A game's module (bethel_woods.py, benevolent.py) makes one ``GameCommands``: its game object
(simcore.games), its own setup options (typer parameters: Bethel Woods' spies, characters and
budget, Benevolent's leaves and per-seat policies), its policy resolution, the calls into its
arena (a batch of games, one recorded game), its summary fields and lines, and its help texts.
``add_game_commands`` registers both commands on the game's command group; the options every game
shares (games, seed, threads, rules, json, records, model, game-index, trace) are declared here.

Typer reads a command's options from its signature: each command is one ``**options`` function
whose ``__signature__`` is the game's setup options followed by the shared ones, so the options,
their order, defaults and help texts are the game's own."""
from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from arena.outfiles import check_not_input, check_writable, write_csv
from arena.runner import check_game_index
from arena.trace import write_trace
from experiments.progress import ProgressBar
from simcore.game import Game

from .errors import user_errors
from .models import ModelFile, model_net


@dataclass(frozen=True)
class GameCommands:
    """What `simulate` and `play` need to know of one game; each callable takes the setup options
    as the dict ``setup`` returns (the game's own options by name, policies made canonical)."""
    game: Game
    options: Sequence[inspect.Parameter]    # the game's own setup options, first in --help
    setup: Callable[[dict], tuple[dict, list[str]]]   # options -> (canonical options, the seats' policy names)
    simulate: Callable[..., Any]   # (opts, names, games, seed, threads, rules, net, keep_records, progress) -> the run
    record: Callable[..., list]    # (opts, seed, game_index, rules, net, model) -> the trace lines
    fields: Callable[[Any, dict], dict]     # (the run, opts) -> the game's summary fields, after game/games/players
    lines: Callable[[dict], list[str]]      # the summary dict -> the table's lines above the speed line
    ended: Callable[[dict], str]    # a trace's end line -> how the game ended, for play's one line
    simulate_help: str
    play_help: str
    seed_help: str
    json_help: str
    rules_example: str              # the --rules help's example and where the game's switches are told


def option(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    """One typer option of a command made by add_game_commands (`annotation`: Annotated[type, typer.Option(...)])."""
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def summary_dict(c: GameCommands, s, rules, opts: dict) -> dict:
    """The run as one JSON-able dict: the game's fields between the run's size and its speed."""
    return {
        "game": c.game.name, "games": s.games, "players": s.players, **c.fields(s, opts),
        "games_per_second": s.games_per_second, "decisions_per_second": s.decisions_per_second,
        "seconds": s.seconds, "threads": s.threads, "seed": s.seed, "rules": rules.source,
    }


def summary_text(c: GameCommands, d: dict) -> str:
    """The table: the game's lines, the speed and the model file."""
    lines = c.lines(d) + [
        f"speed        {d['games_per_second']:,.0f} games/s, {d['decisions_per_second']:,.0f} decisions/s "
        f"on {d['threads']} thread{'s' if d['threads'] != 1 else ''} ({d['seconds']:.2f} s)"]
    if d.get("model"):
        lines.append(f"model        {d['model']}")
    return "\n".join(lines)


def _model_text(label, model) -> str | None:
    return None if label is None else f"{label} ({model})"


def run_simulate(c: GameCommands, opts: dict, games: int, seed: int, threads: Optional[int], rules: Optional[str],
                 json_out: bool, records: Optional[Path], model: Optional[Path]) -> None:
    opts, names = c.setup(opts)
    net, label = model_net(c.game.name, model, names)
    r = c.game.load_rules(rules)
    if records is not None:
        check_not_input({"the records": records}, {"the rules file": rules, "the model file": model})
        check_writable(records, "the records")
    s = c.simulate(opts, names, games, seed, threads, r, net, keep_records=records is not None,
                   progress=ProgressBar())
    d = summary_dict(c, s, r, opts)
    d["model"] = _model_text(label, model)
    if records is not None:
        write_csv(s.records, records)
    typer.echo(json.dumps(d) if json_out else summary_text(c, d))


def run_play(c: GameCommands, opts: dict, seed: int, game_index: int, rules: Optional[str], trace: Path,
             model: Optional[Path]) -> None:
    check_game_index(game_index, seed)
    opts, names = c.setup(opts)
    net, label = model_net(c.game.name, model, names)
    r = c.game.load_rules(rules)
    check_not_input({"the trace": trace}, {"the rules file": rules, "the model file": model})
    check_writable(trace, "the trace")
    lines = c.record(opts, seed, game_index, r, net, _model_text(label, model))
    write_trace(lines, trace)
    typer.echo(f"{c.ended(lines[-1])}; {len(lines)} trace lines written to {trace}")


Games = Annotated[int, typer.Option(help="Number of games.")]
Threads = Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")]
Records = Annotated[Optional[Path], typer.Option(help="Also write one row per game to this CSV file.")]
GameIndex = Annotated[int, typer.Option(help="Which game of the run with this seed to play.")]
Trace = Annotated[Path, typer.Option(help="Write the game's trace (JSON Lines) here.")]


def _shared(c: GameCommands) -> dict[str, inspect.Parameter]:
    """The options every game's commands share, with the game's own help where it differs."""
    rules = Annotated[Optional[str], typer.Option("--rules", metavar="FILE|NAMES", help=(
        "TOML rules file overriding the assumptions, or shipped rules by name: alternative data tables and "
        f"switch=value settings, comma-separated (e.g. {c.rules_example})."))]
    return {p.name: p for p in (
        option("games", Games, 100_000),
        option("seed", Annotated[int, typer.Option(help=c.seed_help)], 7),
        option("threads", Threads, None),
        option("game_index", GameIndex, 0),
        option("rules", rules, None),
        option("json_out", Annotated[bool, typer.Option("--json", help=c.json_help)], False),
        option("records", Records, None),
        option("trace", Trace, Path("game.jsonl")),
        option("model", ModelFile, None),
    )}


def _command(app: typer.Typer, c: GameCommands, name: str, help: str, shared: list[inspect.Parameter],
             body: Callable[..., None]) -> None:
    """Register one command: the game's options, then `shared`; `body` gets the game's options as one dict."""
    own = [p.name for p in c.options]

    def command(**kwargs):
        body(c, {n: kwargs.pop(n) for n in own}, **kwargs)
    command.__doc__ = help
    setattr(command, "__signature__", inspect.Signature([*c.options, *shared]))
    app.command(name=name)(user_errors(command))


def add_game_commands(app: typer.Typer, c: GameCommands) -> None:
    """Register `simulate` and `play` of the game `c` on its command group `app`."""
    p = _shared(c)
    _command(app, c, "simulate", c.simulate_help,
             [p[n] for n in ("games", "seed", "threads", "rules", "json_out", "records", "model")], run_simulate)
    _command(app, c, "play", c.play_help, [p[n] for n in ("seed", "game_index", "rules", "trace", "model")], run_play)
