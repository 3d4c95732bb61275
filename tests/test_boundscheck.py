"""A small part of the suite with numba's bounds checking on: every array index of the engines,
every policy of both games (policies.POLICIES) and the play loops is checked while a few hundred
random games and a game or a few of every other policy are played (the slow searches at small
budgets: the index arithmetic is the same at any budget).
It runs in a fresh process with NUMBA_BOUNDSCHECK=1 and a numba cache of its own: code compiled
without the checks must never be loaded there, and code compiled with them never anywhere else.
That cache is kept, like the suite's own (simcore/numbacache.py: a directory per hash of the
sources), under <cache home>/boardsim-boundscheck (``checked_cache_home``): the first run after a
change to the compiled layers compiles both games with the checks (about 185 s of a core,
measured 2026-12-05), and every later run loads them and plays in about 2 s. It runs at a lower
priority (nice 10), so that the suite's own processes come first. It starts right after
collection (when this test is selected and the run is not --collect-only) and runs beside the
rest of the suite (conftest.py), and this test, moved to the end, collects its result. The
session's end kills it if it is still running (the test deselected by -x, interrupted: stop)."""
import atexit
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CODE = """
import json
import numpy as np
from numba import njit
from policies import POLICIES
from arena.bethel_woods.batch import simulate as bw, seat_policies
from arena.benevolent.batch import simulate as bv, parse_policies
from arena.bethel_woods.trace import record_game
from policies.bethel_woods.search import T_BUDGET as BW_BUDGET
from policies.bethel_woods.learned import T_BUDGET as BW_X_BUDGET
from policies.benevolent.search import T_BUDGET as BV_BUDGET
from policies.benevolent import learned as BL

played = {"bethel_woods": {}, "benevolent": {}}
a = bw(3, 2, games=300, seed=1, threads=1)
b = bw(4, 5, games=300, seed=2, threads=1)
played["bethel_woods"]["random"] = a.games + b.games
c = bv(4, games=60, seed=3, threads=1)
d = bv(2, games=60, seed=4, threads=1)
played["benevolent"]["random"] = c.games + d.games
t = record_game(3, 1, None, "random", 5, 0)

# every other policy: a few games (the searches: one or two, at small budgets)
BW_SMALL = {"search": (BW_BUDGET, 2), "clairvoyant": (BW_BUDGET, 2), "expert": (BW_X_BUDGET, 4)}
for name in POLICIES["bethel_woods"][1:]:
    theta = None
    if name in BW_SMALL:
        _, th = seat_policies(name, 4)
        th[0, BW_SMALL[name][0]] = BW_SMALL[name][1]
        theta = th[0]
    n = 0
    for players, spies, games in ((2, 0, 1), (4, 3, 1)) if name in BW_SMALL else ((2, 0, 2), (3, 1, 2), (4, 5, 2)):
        n += bw(players, spies, policy=name, games=games, seed=6, threads=1, theta=theta).games
    played["bethel_woods"][name] = n

BV_SMALL = {"search": {BV_BUDGET: 2}, "expert": {BL.T_M: 2, BL.T_REPS: 1, BL.T_HMAX: 6}}
for name in POLICIES["benevolent"][1:]:
    n = 0
    for players in (2, 3, 4):
        # the policy in every seat but the last, which plays the heuristic (a mixed table)
        names = [name] * (players - 1) + ["heuristic"]
        _, _, thetas = parse_policies(None, names, players)
        for q in range(players - 1):
            for i, v in BV_SMALL.get(name, {}).items():
                thetas[q, i] = v
        games = 1 if name in BV_SMALL else 2
        n += bv(players, policies=names, games=games, seed=7, threads=1, thetas=list(thetas[:players])).games
    played["benevolent"][name] = n


@njit
def past_the_end(x):
    return x[len(x)]
try:  # the checks are really on in this process
    past_the_end(np.zeros(3))
    live = False
except IndexError:
    live = True
print(json.dumps([a.games, b.games, c.games, d.games, t[-1]["type"], live, played]))
"""

_RUN = {}


def _die_with_parent():
    """In the child: a lower priority than the suite's (nice 10); on Linux the kernel kills it
    when pytest dies, even by SIGKILL (where no hook of pytest's runs)."""
    os.nice(10)
    if sys.platform.startswith("linux"):
        import ctypes
        import signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG


def checked_cache_home() -> Path:
    """Where the checked process keeps its numba cache: <cache home>/boardsim-boundscheck (the cache
    home: XDG_CACHE_HOME or ~/.cache; the temporary folder when that cannot be written). Inside it,
    simcore/numbacache.py keys a directory by the sources, as for the suite's own cache."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "boardsim-boundscheck"
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError:
        home = Path(tempfile.gettempdir()) / f"boardsim-boundscheck-{os.getuid()}"
        home.mkdir(parents=True, exist_ok=True)
    return home


def start():
    """Start the checked process (once): conftest.py starts it right after collection, so its
    compile (one core, minutes when the sources changed) overlaps the rest of the suite."""
    if "proc" not in _RUN:
        env = dict(os.environ, NUMBA_BOUNDSCHECK="1", XDG_CACHE_HOME=str(checked_cache_home()))
        # the checks are on compiled code, cached only in the checked process's own place (never
        # in a NUMBA_CACHE_DIR inherited from this process or from the user)
        for name in ("NUMBA_DISABLE_JIT", "NUMBA_CACHE_DIR", "BOARDSIM_NUMBA_CACHE_DIR"):
            env.pop(name, None)
        _RUN["proc"] = subprocess.Popen([sys.executable, "-c", CODE], env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, preexec_fn=_die_with_parent)
        atexit.register(stop)   # in case the session's end (conftest.py) is never reached
    return _RUN["proc"]


def stop():
    """Kill the checked process if it is still running and reap it: called at the session's end
    (conftest.py), whether or not the test ran. (numba writes each cache file whole, by a rename: a
    process killed while compiling leaves no broken entry.)"""
    proc = _RUN.get("proc")
    if proc is not None and proc.returncode is None:   # not yet collected by the test
        proc.kill()
        proc.communicate()   # reaps it and closes its pipes


def test_games_play_with_bounds_checking():
    proc = start()
    out, err = proc.communicate(timeout=1800)
    # imported only now: importing the package may compile (cold cache), which a signal cannot
    # interrupt, and an interrupted session must end at once (test_boundscheck_lifecycle.py)
    from policies import POLICIES
    assert proc.returncode == 0, err[-3000:]  # an out-of-bounds index raises IndexError in there
    *head, played = json.loads(out.splitlines()[-1])
    assert head == [300, 300, 60, 60, "end", True]
    for game, names in POLICIES.items():   # every policy of both games played a game at least
        assert sorted(played[game]) == sorted(names), (game, played[game])
        assert all(n > 0 for n in played[game].values()), played[game]
