"""The hypothesis profiles of the suite (tests/sizes.py says when each is used).

``quick`` (the default) keeps hypothesis' default number of examples and no
deadline: under pytest-xdist every core runs a test, and a deadline would
fail a test because its neighbour was busy.  ``thorough`` tries ten times
as many examples in the tests that do not set their own count.

Many tests run `python -m dslc …` in a child process.  Where the environment
says PYTHONDONTWRITEBYTECODE, each child would compile every module of dslc
again (about 0.17 s each); the session instead lets the children keep Python's
own bytecode in a private temporary folder (PYTHONPYCACHEPREFIX), made for
this session and removed at its end, so the repository gets no __pycache__.
dslc itself reads no cache of its own either way (tests/test_no_cache.py).
"""

import atexit
import os
import shutil
import tempfile

from hypothesis import settings

from tests.sizes import PROFILE

settings.register_profile("quick", deadline=None)
settings.register_profile("thorough", deadline=None, max_examples=1000)
settings.load_profile(PROFILE)


if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    _PREFIX = tempfile.mkdtemp(prefix="dslc-tests-bytecode-")
    os.environ["PYTHONPYCACHEPREFIX"] = _PREFIX
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    atexit.register(shutil.rmtree, _PREFIX, True)
