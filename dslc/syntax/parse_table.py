"""The LALR parser of ``grammar/dp.lark``, built once when dslc is installed.

``grammar/dp.lark`` is the only definition of the syntax.  Building an LALR
parser from it takes about 120 ms, more than the rest of a small check, so
the build (``setup.py``) analyses the grammar once and ships the result
inside the package as ``dslc/syntax/parse_table.json``: Lark's own
serialisation of the parser (its ``memo_serialize``), plus the grammar text
and its SHA-256, and the Lark version that made it.  The file is data only
(JSON: no code, no pickle) and lives in the package, never in a user's
folder; nothing is written at run time.

:func:`load` uses the table when it is intact and current — the Lark that
reads it is the one that wrote it, and, in a source checkout, the table was
made from the ``grammar/dp.lark`` beside it.  Otherwise it builds the parser
from the grammar text in memory (a developer who changed the grammar gets
the new syntax before reinstalling, only slower).  Both paths give the same
parser; ``tests/test_parse_table.py`` checks it.

This module imports nothing from dslc: ``setup.py`` loads it by path to
write the table.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

FORMAT = 1
TABLE_FILE = Path(__file__).resolve().with_name("parse_table.json")
# grammar/dp.lark of a source checkout (an editable install or the tests)
SOURCE_GRAMMAR = Path(__file__).resolve().parent.parent.parent / "grammar" / "dp.lark"
MAX_TABLE_BYTES = 16 * 2**20

# How the parser is built: one place for the build and for the run-time fallback.
LARK_OPTIONS = {"parser": "lalr", "lexer": "contextual", "keep_all_tokens": True,
                "maybe_placeholders": False}
_START_RULE = re.compile(r"^(\w+_block)\s*:", re.M)


class TableError(Exception):
    """The grammar is nowhere to be found (a broken installation)."""


def start_rules(grammar: str) -> list[str]:
    """The grammar's start rules: every rule named ``<kind>_block``."""
    return sorted(set(_START_RULE.findall(grammar)))


def grammar_digest(grammar: str) -> str:
    return hashlib.sha256(grammar.encode("utf-8")).hexdigest()


def build(grammar: str, transformer=None):
    """The parser, analysed from the grammar text."""
    from lark import Lark
    return Lark(grammar, start=start_rules(grammar), transformer=transformer, **LARK_OPTIONS)


def table_of(grammar: str) -> dict:
    """What the build writes: the analysed parser as JSON-ready data."""
    import lark
    from lark.grammar import Rule
    from lark.lexer import TerminalDef
    data, memo = build(grammar).memo_serialize([TerminalDef, Rule])
    table = {"format": FORMAT, "lark": lark.__version__, "grammar_sha256": grammar_digest(grammar),
             "grammar": grammar, "data": data, "memo": memo}
    if _plain(json.loads(json.dumps(table), object_pairs_hook=_int_keys)) != _plain(table):
        raise TableError("the parse table does not survive JSON")   # a new Lark layout: keep the text path
    return table


def write(grammar_path: str | os.PathLike, out_path: str | os.PathLike) -> None:
    """Write the table of ``grammar_path`` to ``out_path`` (atomically)."""
    grammar = Path(grammar_path).read_text(encoding="utf-8")
    out = Path(out_path)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(table_of(grammar), separators=(",", ":"), ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, out)


def load(transformer=None):
    """The parser: from the shipped table when it is current, else from the
    grammar text."""
    import lark
    source = _read_source_grammar()
    table = _read_table()
    if table is not None and table["lark"] == lark.__version__ and (
            source is None or grammar_digest(source) == table["grammar_sha256"]):
        return lark.Lark._load_from_dict(table["data"], table["memo"], transformer=transformer)
    grammar = source if source is not None else (table or {}).get("grammar")
    if grammar is None:
        raise TableError(f"dslc's grammar is missing ({TABLE_FILE} is absent or damaged); reinstall dslc")
    return build(grammar, transformer)


def _read_source_grammar() -> str | None:
    try:
        return SOURCE_GRAMMAR.read_text(encoding="utf-8")
    except OSError:
        return None


def _read_table() -> dict | None:
    """The shipped table, or None when it is missing, not a regular file, too
    large, or not a table of this format."""
    try:
        fd = os.open(TABLE_FILE, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_TABLE_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            raw = fh.read(MAX_TABLE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        table = json.loads(raw, object_pairs_hook=_int_keys)
    except (ValueError, RecursionError):
        return None
    valid = (isinstance(table, dict) and table.get("format") == FORMAT
             and isinstance(table.get("lark"), str) and isinstance(table.get("grammar"), str)
             and isinstance(table.get("data"), dict) and isinstance(table.get("memo"), dict)
             and table.get("grammar_sha256") == grammar_digest(table["grammar"]))
    return table if valid else None


def _int_keys(pairs: list[tuple[str, object]]) -> dict:
    """JSON's object keys are strings; Lark's tables key states and memo
    entries by integers (and by names, which are never all digits)."""
    return {int(k) if k.isdigit() else k: v for k, v in pairs}


def _plain(value):
    """Tuples as lists, for comparing a table with its JSON round trip."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
