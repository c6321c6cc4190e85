"""Settings every test shares."""

from hypothesis import settings

# No test passes or fails on wall-clock time: Hypothesis's deadline (200 ms an example by
# default) failed properties whose definitions walk text in Python when the machine was
# busy, so it is off for every property here.
settings.register_profile("ctxbudget", deadline=None)
settings.load_profile("ctxbudget")
