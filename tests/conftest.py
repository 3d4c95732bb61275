"""Test configuration: hypothesis profiles.

CI is reproducible: under CI=true (or HYPOTHESIS_PROFILE=ci) hypothesis is derandomized, so every
run tries the same examples. Locally the default profile draws new examples each run, and
HYPOTHESIS_PROFILE=long tries many more (a longer randomized hunt for counterexamples)."""
import os
import sys

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.register_profile("long", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

# the property tests' example counts are multiplied by this under the "long" profile
EXAMPLES_SCALE = 25 if settings._current_profile == "long" else 1


@pytest.hookimpl(trylast=True)   # after -k / -m / --deselect have removed what they remove
def pytest_collection_modifyitems(session, config, items):
    """Start the bounds-checked process (tests/test_boundscheck.py) as soon as its test is
    collected and selected, and run that test last, so its compile overlaps the rest of the suite.
    Nothing starts under --collect-only, nor when the test is deselected."""
    checked = [i for i in items if i.nodeid.startswith("tests/test_boundscheck.py")]
    if checked and not config.option.collectonly:
        import test_boundscheck
        test_boundscheck.start()
        items[:] = [i for i in items if i not in checked] + checked


def pytest_sessionfinish(session, exitstatus):
    """The bounds-checked process never outlives the session: killed (if it still runs, as after
    -x, a deselection or an interrupt) and reaped."""
    mod = sys.modules.get("test_boundscheck")
    if mod is not None:
        mod.stop()
