"""The optional C module (``dslc/_native.c``), or None.

None when it was not built (no C compiler at install) and when the built
module does not come from the ``_native.c`` beside it: an editable install
keeps its old build after a `git pull`, and an old build may lack a
function or fill an array differently.  setup.py compiles the source's
CRC-32 into the module (``SOURCE_CRC32``; zlib, a small C module, costs
less to import than hashlib); it is compared here with the
source file when that file is present.  Every user of the module has a
Python loop that gives the same result (tests/test_native.py);
``DSLC_NATIVE=0`` in the environment runs those loops.
"""

from __future__ import annotations

import os
import zlib


def _load():
    if os.environ.get("DSLC_NATIVE") == "0":   # the Python loops only (docs/cli.md)
        return None
    try:
        from dslc import _native
    except ImportError:
        return None
    source = os.path.join(os.path.dirname(__file__), "_native.c")
    try:
        with open(source, "rb") as fh:
            digest = f"{zlib.crc32(fh.read()):08x}"
    except OSError:
        return _native                       # an installed wheel: built from its own source
    return _native if getattr(_native, "SOURCE_CRC32", None) == digest else None


module = _load()


def state() -> str:
    """The C module's state in a few words (`dslc --version`, `dslc check -v`)."""
    if module is not None:
        return "C module: in use"
    if os.environ.get("DSLC_NATIVE") == "0":
        return "C module: off, DSLC_NATIVE=0"
    try:
        from dslc import _native  # noqa: F401
    except ImportError:
        return "C module: not built, the slower Python loops run; install with a C compiler to build it"
    return ("C module: out of date, built from another _native.c, the Python loops run; "
            "rebuild it with `python setup.py build_ext --inplace`")


def state_note() -> str | None:
    """The note shown when the C module is not used, or None when it is."""
    return None if module is not None else state()
