"""The build steps pyproject.toml cannot declare.

- ``dslc/syntax/parse_table.json``: the LALR parser of ``grammar/dp.lark``,
  analysed once here and shipped as data (``dslc/syntax/parse_table.py``).
- ``dslc/_native.c``: the hot loops of the automaton path in C.  Optional:
  where no C compiler is found the build goes on without it, and dslc runs
  the same loops in Python (same results, slower on large automata).
"""

import importlib.util
import zlib
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SOURCE = "dslc/_native.c"
# dslc/native.py uses the module only if it was built from the source beside it
DIGEST = f"{zlib.crc32((HERE / SOURCE).read_bytes()):08x}"


class BuildWithParseTable(build_py):
    """build_py that first writes the parse table beside its module (so an
    editable install has it too, and a wheel carries it as package data)."""

    def run(self):
        spec = importlib.util.spec_from_file_location("_dslc_parse_table", HERE / "dslc/syntax/parse_table.py")
        table = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(table)
        table.write(HERE / "grammar" / "dp.lark", table.TABLE_FILE)
        super().run()


setup(cmdclass={"build_py": BuildWithParseTable},
      ext_modules=[Extension("dslc._native", [SOURCE], optional=True, extra_compile_args=["-O2"],
                             define_macros=[("DSLC_SOURCE_CRC32", f'"{DIGEST}"')])])
