"""How many examples the expensive property tests try: a test profile.

``DSLC_TEST_PROFILE=thorough`` (what ``.ci/run`` sets when CI has the time)
gives every property test the count it was written with; the default
``quick`` profile divides the counts of the expensive ones, so that a
contributor can run the whole suite before each commit.  The property
checked is the same in both profiles: only the number of random cases
changes.  tests/conftest.py loads the matching hypothesis profile.
"""

from __future__ import annotations

import os

PROFILE = os.environ.get("DSLC_TEST_PROFILE", "quick")
if PROFILE not in ("quick", "thorough"):
    raise RuntimeError(f"DSLC_TEST_PROFILE must be quick or thorough, not {PROFILE!r}")


def examples(thorough: int, quick: int) -> int:
    """``thorough`` examples under the thorough profile, else ``quick``."""
    return thorough if PROFILE == "thorough" else quick
