"""The optional native part of dslc (pyproject.toml holds the rest).

`dslc/_native.c` holds the hot loops of the automaton path in C: resolving
target names, and the checker's graph searches.  It is optional: where no C
compiler is found the build goes on without it, and dslc runs the same loops
in Python (same results, slower on large automata).
"""

import zlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "dslc/_native.c"
# dslc/native.py uses the module only if it was built from the source beside it
DIGEST = f"{zlib.crc32((Path(__file__).parent / SOURCE).read_bytes()):08x}"

setup(ext_modules=[Extension("dslc._native", [SOURCE], optional=True, extra_compile_args=["-O2"],
                             define_macros=[("DSLC_SOURCE_CRC32", f'"{DIGEST}"')])])
