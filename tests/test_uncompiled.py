"""The uncompiled job's own check (.ci/run runs the rule tests with NUMBA_DISABLE_JIT=1 for line
coverage): the plain-Python run of the compiled code must compute what the compiled code computes,
or the rule tests passing uncompiled would say little about the compiled engines and policies.
Every policy of both games plays here and in a compiled subprocess (tests/uncompiled_games.py: a
game or two each, the searches at small budgets), and every decision, chance outcome and final
position must be equal. (Uncompiled, numpy scalars behave unlike numba's integers: an int32 word
shifted or multiplied stays an int32 and overflows, numpy bools add as OR; these games found three
such places in the policies.) Compiled, this file has nothing to compare and is skipped."""
import json
import os
import subprocess
import sys

import numba
import pytest

from policies import POLICIES

pytestmark = pytest.mark.skipif(not numba.config.DISABLE_JIT,
                                reason="compares uncompiled play with compiled play: run with NUMBA_DISABLE_JIT=1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def compiled():
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "uncompiled_games.py")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


@pytest.mark.parametrize("game,name", [(g, x) for g in POLICIES for x in POLICIES[g] + ("learned@0.03",)])
def test_uncompiled_play_equals_compiled_play(compiled, game, name):
    import uncompiled_games
    mine = uncompiled_games.play(game, name)
    theirs = compiled[game][name]
    assert len(mine) == len(theirs)
    for g, ((log, s), (clog, cs)) in enumerate(zip(mine, theirs)):
        n = next((i for i, (a, b) in enumerate(zip(log, clog)) if a != b), min(len(log), len(clog)))
        assert log == clog, f"game {g}: step {n} differs: uncompiled {log[n:n + 1]}, compiled {clog[n:n + 1]}"
        assert s == cs, f"game {g}: the final positions differ"
        assert len(log) > 20   # a real game was played
