"""The optional native part of dslc (pyproject.toml holds the rest).

`dslc/_native.c` holds the hot loops of the automaton path in C: resolving
target names, and the checker's graph searches.  It is optional: where no C
compiler is found the build goes on without it, and dslc runs the same loops
in Python (same results, slower on large automata).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("dslc._native", ["dslc/_native.c"], optional=True,
                             extra_compile_args=["-O2"])])
