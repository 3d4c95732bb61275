"""A small part of the suite with numba's bounds checking on: every array index of the engines,
the policies and the play loops is checked while a few hundred games of each game are played.
It runs in a fresh process with NUMBA_BOUNDSCHECK=1 and its own numba cache (cached code compiled
without the checks must not be reused), so it costs one compile of both games; it starts right after collection and runs beside the
rest of the suite (conftest.py), and this test, moved to the end, collects its result."""
import json
import os
import subprocess
import sys
import tempfile

CODE = """
import json
from arena.bethel_woods.batch import simulate as bw
from arena.benevolent.batch import simulate as bv
from arena.bethel_woods.trace import record_game
a = bw(3, 2, games=300, seed=1, threads=1)
b = bw(4, 5, games=300, seed=2, threads=1)
c = bv(4, games=60, seed=3, threads=1)
d = bv(2, games=60, seed=4, threads=1)
t = record_game(3, 1, None, "random", 5, 0)
import numpy as np
from numba import njit
@njit
def past_the_end(x):
    return x[len(x)]
try:  # the checks are really on in this process
    past_the_end(np.zeros(3))
    live = False
except IndexError:
    live = True
print(json.dumps([a.games, b.games, c.games, d.games, t[-1]["type"], live]))
"""


_RUN = {}


def start():
    """Start the checked process (once): conftest.py starts it right after collection, so its
    compile (one core, minutes on a cold cache) overlaps the rest of the suite."""
    if "proc" not in _RUN:
        d = tempfile.mkdtemp(prefix="boardsim-boundscheck-")
        env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=os.path.join(d, "cache"))
        _RUN["proc"] = subprocess.Popen([sys.executable, "-c", CODE], env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
    return _RUN["proc"]


def test_games_play_with_bounds_checking():
    proc = start()
    out, err = proc.communicate(timeout=1800)
    assert proc.returncode == 0, err[-3000:]  # an out-of-bounds index raises IndexError in there
    assert json.loads(out.splitlines()[-1]) == [300, 300, 60, 60, "end", True]
