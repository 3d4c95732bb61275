"""The benchmark suite behind `boardsim bench`.

For each game and policy: games/s and decisions/s on 1 and 2 threads, each normalised by the
calibration kernel timed right before it; the reference engine on the same games (checked to give
the same outcomes) and the compiled/reference speed ratio; ns per evaluation of the learned
value at batch 1 and batched against the multiply-add floor, and the learned players' games/s
against the heuristic's (benchmarks/network.py); in the full run also the cold compile time (empty
numba cache), the warm start of a small CLI run and the peak memory of 1- and
10-million-game runs.

Every benchmark first checks that its code is right: a fixed run (seed 12345) must give the
outcomes recorded as known-good in the baseline. `compare_to_baseline` adds each normalised
figure's ratio to the baseline's (`vs_baseline`) for information only: a figure recorded on one
machine does not carry to another kind of processor, even normalised (issue 10), so the speed
check (`boardsim bench --check`) is the A/B comparison with a base commit in benchmarks/ab.py.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numba
import numpy as np

from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW

from .calibration import calibrate

BASELINE = Path(__file__).with_name("baseline.json")
CHECK_SEED = 12345
CHECK_GAMES = 2000


class BenchError(RuntimeError):
    """A benchmark that cannot run (a subprocess that fails)."""


class WrongResults(BenchError):
    """Code whose results differ from the known-good ones, or two engines that disagree."""


@dataclass
class GameBench:
    game: str
    policy: str
    simulate: Callable[..., Any]          # (games, seed, threads) -> (games, decisions, signature)
    reference: Callable[..., Any] | None  # (games, seed) -> list of per-game (outcome, turns, decisions)
    records: Callable[..., Any]           # (games, seed) -> same list from the compiled engine
    players: int
    time_same: Callable[..., Any] | None = None  # (games, seed) -> seconds for the compiled engine to play them once
    cli_sig: Callable[..., Any] | None = None    # (CLI --json output or None, simulate signature or None) -> comparable
    scale: int = 1                     # games are this much longer than Bethel Woods': play fewer
    process_rows: bool = True          # the game's cold-compile, warm-start and memory rows (once per game)


def _bw_simulate(games, seed, threads):
    from arena.bethel_woods.batch import simulate
    s = simulate(3, 0, None, "random", games, seed, threads)
    return s.games, s.decisions, {"wins": s.wins, **s.losses, "turns": s.turns, "decisions": s.decisions}


def _bw_records(games, seed):
    from arena.bethel_woods.batch import simulate
    r = simulate(3, 0, None, "random", games, seed, 1, keep_records=True).records
    return [(str(o), int(t), int(d)) for o, t, d in zip(r["outcome"], r["turns"], r["decisions"])]


def _bw_cli_sig(cli_json, sig):
    if cli_json is not None:
        return {"wins": cli_json["wins"], **cli_json["losses"]}
    return {k: sig[k] for k in ("wins", "bag_empty", "four_critical", "six_spies")}


def _bv_cli_sig(cli_json, sig):
    src = cli_json if cli_json is not None else sig
    return {"seat_wins": list(src["seat_wins"])[:4], "timeouts": src["timeouts"]}


def _time_same(game, players, games, seed):
    """Seconds for the compiled kernel (one thread, no Python in the loop) to play games
    0..games-1 of `seed` once, random play with the default setup (arena.units.play_records, the
    one way games are played): the median over repeats lasting about a second in all."""
    from arena.units import Cell, arena_module, play_records
    cell = Cell(game.name, players, policies=("random",), seed=seed)
    out = np.zeros((games, arena_module(game).N_REC), np.int32)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        play_records(cell, 0, games, out, 256)
        times = []
        t_end = time.perf_counter() + 1.0
        while time.perf_counter() < t_end or len(times) < 5:
            t0 = time.perf_counter()
            play_records(cell, 0, games, out, 256)
            times.append(time.perf_counter() - t0)
        return float(np.median(times))
    finally:
        numba.set_num_threads(old)


def _bw_time_same(games, seed):
    return _time_same(BW, 3, games, seed)


def _reference_random(legal, key, d):
    """The random policy's choice among `legal` at decision d of a seat's stream (the one rule)."""
    from policies import random_action
    from simcore.rng import draw
    return int(random_action(np.array(legal, np.int32), len(legal), np.uint64(draw(np.uint64(key), d))))


def _bw_reference(games, seed):
    """The reference engine plays the same games as the compiled runner: the same chance draws
    (keyed by event) and the same random policy (policies.random_action, one key per decision)."""
    from simcore.bethel_woods.reference import ReferenceGame
    from simcore.bethel_woods.rules import Rules
    from simcore.rng import STREAM_CHANCE, STREAM_POLICY, stream_key
    rules = Rules()
    out = []
    for g in range(games):
        ref = ReferenceGame(rules, 3, 0, None, np.uint64(stream_key(seed, g, STREAM_CHANCE)))
        keys = [np.uint64(stream_key(seed, g, STREAM_POLICY + q)) for q in range(3)]
        counters = [0, 0, 0]
        while ref.phase != "terminal":
            if ref.phase.startswith("chance"):
                ref.apply_chance(ref.sample_chance())
            else:
                q = ref.current_player()
                ref.apply(_reference_random(ref.legal_actions(), keys[q], counters[q]))
                counters[q] += 1
        out.append((ref.outcome, ref.turn + 1, ref.stats["decisions"]))
    return out


def _bv_simulate(games, seed, threads):
    from arena.benevolent.batch import simulate
    s = simulate(4, None, "random", games, seed, threads)
    return s.games, s.decisions, {"seat_wins": s.seat_wins, "timeouts": s.timeouts, "turns": s.turns,
                                  "decisions": s.decisions}


def _bv_records(games, seed):
    from arena.benevolent.batch import simulate
    r = simulate(4, None, "random", games, seed, 1, keep_records=True).records
    return [(int(w), int(t), int(d)) for w, t, d in zip(r["winner"], r["turns"], r["decisions"])]


def _bv_reference(games, seed):
    from simcore.benevolent.reference import ReferenceGame
    from simcore.benevolent.rules import DEFAULT_LEAVES, Rules
    from simcore.rng import STREAM_CHANCE, STREAM_POLICY, stream_key
    rules = Rules()
    out = []
    for g in range(games):
        ref = ReferenceGame(rules, 4, list(DEFAULT_LEAVES), np.uint64(stream_key(seed, g, STREAM_CHANCE)))
        keys = [np.uint64(stream_key(seed, g, STREAM_POLICY + q)) for q in range(4)]
        counters = [0] * 4
        while ref.phase != "terminal":
            q = ref.current
            ref.apply(_reference_random(ref.legal_actions(), keys[q], counters[q]))
            counters[q] += 1
        out.append((-1 if ref.winner is None else ref.winner, ref.turn + (ref.outcome == "win"), ref.decisions))
    return out


def _bv_time_same(games, seed):
    return _time_same(BV, 4, games, seed)


def _bv_heuristic_simulate(games, seed, threads):
    """Benevolent heuristic: 2 players, the heuristic in seat 1 against random in seat 2 (the
    policies issue's speed target: at least 2,000 games/s on 2 threads)."""
    from arena.benevolent.batch import simulate
    s = simulate(2, None, None, games, seed, threads, policies="heuristic,random")
    return s.games, s.decisions, {"seat_wins": s.seat_wins, "timeouts": s.timeouts, "turns": s.turns,
                                  "decisions": s.decisions}


def _bv_heuristic_records(games, seed):
    from arena.benevolent.batch import simulate
    r = simulate(2, None, None, games, seed, 1, policies="heuristic,random", keep_records=True).records
    return [(int(w), int(t), int(d)) for w, t, d in zip(r["winner"], r["turns"], r["decisions"])]


def _bw_policy_simulate(policy):
    """Bethel Woods with `policy` in every seat, 3 players, 0 spies (the search at its default
    budget, which the row's id names)."""
    def run_(games, seed, threads):
        from arena.bethel_woods.batch import simulate
        s = simulate(3, 0, None, policy, games, seed, threads)
        return s.games, s.decisions, {"wins": s.wins, **s.losses, "turns": s.turns, "decisions": s.decisions}
    return run_


def _bw_policy_records(policy):
    def records(games, seed):
        from arena.bethel_woods.batch import simulate
        r = simulate(3, 0, None, policy, games, seed, 1, keep_records=True).records
        return [(str(o), int(t), int(d)) for o, t, d in zip(r["outcome"], r["turns"], r["decisions"])]
    return records


def _search_label():
    from policies.bethel_woods.search import BUDGET_DEFAULT
    return f"search({BUDGET_DEFAULT})"


GAMES = [GameBench(BW.name, "random", _bw_simulate, _bw_reference, _bw_records, 3, _bw_time_same,
                   cli_sig=_bw_cli_sig),
         GameBench(BV.name, "random", _bv_simulate, _bv_reference, _bv_records, 4, _bv_time_same, scale=8,
                   cli_sig=_bv_cli_sig),
         GameBench(BV.name, "heuristic", _bv_heuristic_simulate, None, _bv_heuristic_records, 2, scale=40,
                   cli_sig=_bv_cli_sig, process_rows=False),
         # the policies issue's rows: the heuristic (target 10,000 games/s on 2 threads) and the search
         # at its default budget (reported with the budget); no reference engine plays them
         GameBench(BW.name, "heuristic", _bw_policy_simulate("heuristic"), None,
                   _bw_policy_records("heuristic"), 3, scale=50, process_rows=False),
         GameBench(BW.name, _search_label(), _bw_policy_simulate("search"), None,
                   _bw_policy_records("search"), 3, scale=5000, process_rows=False)]


def register(bench: GameBench):
    GAMES.append(bench)


def machine_note():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "numba": numba.__version__, "numpy": np.__version__, "platform": platform.platform(),
            "date": datetime.date.today().isoformat()}


def load_baseline(path=BASELINE):
    """The baseline file's JSON, None if there is no file. Read as any input is
    (``simcore.limits``): a regular file of at most 1 MiB, nested at most MAX_DEPTH deep."""
    from simcore.limits import parse_nested, read_regular
    what = f"--baseline {str(path)!r}"
    try:
        return parse_nested(lambda b: json.loads(b.decode("utf-8")), read_regular(path, what), what)
    except FileNotFoundError:
        return None


def check_correct(b: GameBench, baseline):
    """Refuse to time code whose results differ from the known-good run."""
    _, _, sig = b.simulate(max(2, CHECK_GAMES // b.scale), CHECK_SEED, None)
    key = f"{b.game}/{b.policy}"
    want = (baseline or {}).get("expected", {}).get(key)
    if want is not None and want != sig:
        raise WrongResults(f"{key}: results of the check run (seed {CHECK_SEED}, {CHECK_GAMES} games) differ from "
                         f"the known-good run: got {sig}, expected {want}; fix the engine, or if the rules "
                         f"changed on purpose run `boardsim bench --update-baseline`")
    return sig


def _median_rate(fn, repeats):
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        games, decisions = fn()
        dt = time.perf_counter() - t0
        rates.append((games / dt, decisions / dt))
    rates.sort()
    return rates[len(rates) // 2]


def run(quick=False, progress=None, baseline=None):
    """Measure everything; return (rows, expected-signatures)."""
    say = progress or (lambda msg: None)
    repeats = 3 if quick else 5
    rows, expected = [], {}
    for b in GAMES:
        games = max(4, (40_000 if quick else 400_000) // b.scale)
        ref_games = 400 // b.scale  # the same games in quick and full runs: the ratio depends on which games
        say(f"{b.game}/{b.policy}: checking results")
        expected[f"{b.game}/{b.policy}"] = check_correct(b, baseline)
        for threads in (1, 2):
            say(f"{b.game}/{b.policy}: {threads} thread(s)")
            b.simulate(min(1000, games), 1, threads)  # warm up (compiled, threads started)
            cal = calibrate(threads)
            gps, dps = _median_rate(lambda: b.simulate(games, 1, threads)[:2], repeats)
            rows.append({"id": f"{b.game}/{b.policy}/compiled/t{threads}", "game": b.game, "policy": b.policy,
                         "engine": "compiled", "threads": threads, "games_per_second": gps,
                         "decisions_per_second": dps, "calibration_steps_per_second": cal,
                         "normalized": gps / cal * 1e3})
        if b.reference is not None:
            say(f"{b.game}/{b.policy}: reference engine on {ref_games} games")
            b.reference(3, 2)  # warm up (imports, first calls) before timing
            times = []
            for _ in range(3):  # the reference's own timing moves by ~15% run to run: median of 3
                t0 = time.perf_counter()
                ref = b.reference(ref_games, 2)
                times.append(time.perf_counter() - t0)
            dt = float(np.median(times))
            if ref != b.records(ref_games, 2):
                raise WrongResults(f"{b.game}: the reference engine and the compiled engine disagree on the "
                                 f"outcome of the same games")
            rgps = ref_games / dt
            rows.append({"id": f"{b.game}/{b.policy}/reference/t1", "game": b.game, "policy": b.policy,
                         "engine": "reference", "threads": 1, "games_per_second": rgps,
                         "decisions_per_second": sum(r[2] for r in ref) / dt})
            # the compiled engine on exactly the same games, one thread
            same = b.time_same(ref_games, 2)
            rows.append({"id": f"{b.game}/{b.policy}/speedup_vs_reference", "game": b.game, "policy": b.policy,
                         "engine": "compiled/reference", "threads": 1, "ratio": dt / same,
                         "normalized": dt / same})
        if not quick and b.process_rows:
            rows += _process_rows(b, say, baseline, expected)
    from . import network   # issue 43: ns per network evaluation against the floor, learned / heuristic speed
    say("network: ns per evaluation (batch 1, batched, floor)")
    rows += network.network_rows(quick)
    say("network: learned / heuristic games/s, both games")
    rows += network.speed_rows(quick)
    return rows, expected


def _python(code, env=None, timeout=900):
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)
    if r.returncode != 0:
        raise BenchError(f"benchmark subprocess failed: {r.stderr.strip().splitlines()[-1:]}")
    return time.perf_counter() - t0, r.stdout.strip()


# a subprocess plays a run with the same code as the in-process benchmarks and prints its outcome
# signature (checked) and its peak RSS
_RUN = """
import json, resource
from benchmarks.suite import GAMES
b = [x for x in GAMES if x.game == {game!r}][0]
print(json.dumps(b.simulate({n}, {seed}, {threads})[2]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _subprocess_run(b, n, seed, threads=None, env=None):
    secs, out = _python(_RUN.format(game=b.game, n=n, seed=seed, threads=threads), env)
    lines = out.splitlines()
    return secs, json.loads(lines[-2]), int(lines[-1]) / 1024


def _same(what, got, want):
    if got != want:
        raise WrongResults(f"{what}: outcomes {got} differ from the known-good {want}")


def _process_rows(b, say, baseline, expected):
    rows = []
    say(f"{b.game}: cold compile (empty numba cache)")
    with tempfile.TemporaryDirectory() as cache:
        secs, sig, _ = _subprocess_run(b, 10, 1, 1, dict(os.environ, NUMBA_CACHE_DIR=cache))
    _same(f"{b.game} cold-compile run", sig, b.simulate(10, 1, 1)[2])
    rows.append({"id": f"{b.game}/cold_compile", "game": b.game, "engine": "compiled", "seconds": secs})
    rows.append(_compile_row(b, say, baseline, expected))
    say(f"{b.game}: warm start of `simulate --games 1000`")
    cli = Path(sys.executable).with_name("boardsim")
    want = b.cli_sig(None, b.simulate(1000, 7, None)[2])
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        r = subprocess.run([str(cli), b.game.replace("_", "-"), "simulate", "--games", "1000", "--seed", "7",
                            "--json"], capture_output=True, check=True, text=True)
        times.append(time.perf_counter() - t0)
        _same(f"{b.game} warm-start CLI run", b.cli_sig(json.loads(r.stdout), None), want)
    rows.append({"id": f"{b.game}/warm_start", "game": b.game, "engine": "cli", "seconds": float(np.median(times))})
    for n in (1_000_000, 10_000_000):
        say(f"{b.game}: peak memory of a {n:,}-game run")
        _, sig, rss = _subprocess_run(b, n, 1)
        key = f"{b.game}/{b.policy}/memory_run/{n}"
        known = (baseline or {}).get("expected", {}).get(key)
        if known is not None:
            _same(f"{b.game} {n:,}-game run", sig, known)
        expected[key] = sig
        rows.append({"id": f"{b.game}/peak_memory/{n}", "game": b.game, "engine": "compiled", "games": n,
                     "peak_rss_mb": rss})
    return rows


def _compile_row(b, say, baseline, expected):
    """The game's play loop compiled alone with an empty cache (benchmarks/compile.py): CPU seconds
    compiling, and the number of specialisations, checked against the known-good number."""
    from . import compile as C
    say(f"{b.game}: compile time per function (empty numba cache)")
    key = f"{b.game}/compiles"
    try:
        row, expected[key] = C.bench_row(b.game, (baseline or {}).get("expected", {}).get(key))
    except C.CompileCheck as e:
        raise BenchError(str(e)) from None
    return row


def compare_to_baseline(rows, baseline):
    """Add `vs_baseline` (normalised figure / the baseline's) to the rows that have one. For reading
    only: it moves with the kind of processor, so it decides nothing (see benchmarks/ab.py)."""
    figures = (baseline or {}).get("figures", {})
    for r in rows:
        if "normalized" in r and r["id"] in figures:
            r["vs_baseline"] = r["normalized"] / figures[r["id"]]
    return rows


def write_baseline(rows, expected, path=BASELINE, previous=None):
    """Known-good outcomes, the normalised figures (for reading) and a note of the machine; the base
    commit of the speed check is kept from the previous file (it is set by hand, see docs/benchmarks.md)."""
    figures = dict((previous or {}).get("figures", {}))
    figures.update({r["id"]: r["normalized"] for r in rows if "normalized" in r})
    data = {"note": "normalised figures: games/s per 1,000 calibration steps/s, for reading only; the speed "
                    "check compares with base_commit on the same machine (benchmarks/ab.py)",
            "base_commit": (previous or {}).get("base_commit"),
            "accepted": (previous or {}).get("accepted"),
            "machine": machine_note(), "expected": expected, "figures": figures}
    Path(path).write_text(json.dumps(data, indent=2) + "\n")
    return data
