"""The hypothesis profiles of the suite (tests/sizes.py says when each is used).

``quick`` (the default) keeps hypothesis' default number of examples and no
deadline: under pytest-xdist every core runs a test, and a deadline would
fail a test because its neighbour was busy.  ``thorough`` tries ten times
as many examples in the tests that do not set their own count.
"""

from hypothesis import settings

from tests.sizes import PROFILE

settings.register_profile("quick", deadline=None)
settings.register_profile("thorough", deadline=None, max_examples=1000)
settings.load_profile(PROFILE)
