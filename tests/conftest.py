"""Test configuration: hypothesis profiles.

CI is reproducible: under CI=true (or HYPOTHESIS_PROFILE=ci) hypothesis is derandomized, so every
run tries the same examples. Locally the default profile draws new examples each run, and
HYPOTHESIS_PROFILE=long tries many more (a longer randomized hunt for counterexamples)."""
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.register_profile("long", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

# the property tests' example counts are multiplied by this under the "long" profile
EXAMPLES_SCALE = 25 if settings._current_profile == "long" else 1


def pytest_collection_modifyitems(session, config, items):
    """Start the bounds-checked process (tests/test_boundscheck.py) as soon as it is collected and
    run its test last, so its compile overlaps the rest of the suite."""
    checked = [i for i in items if i.nodeid.startswith("tests/test_boundscheck.py")]
    if checked:
        import test_boundscheck
        test_boundscheck.start()
        items[:] = [i for i in items if i not in checked] + checked
