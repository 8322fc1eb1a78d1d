"""Project configuration: ``[tool.dslc]`` in ``pyproject.toml`` or a ``dslc.toml``.

Found as ruff finds its own: from the folder of the first path given to
`dslc check` (the working folder when no path is given), each folder and then
its parents is searched for ``dslc.toml`` and then ``pyproject.toml``; the
first ``dslc.toml``, or the first ``pyproject.toml`` that has a
``[tool.dslc]`` table, is the configuration, and its folder is the project
root (relative ``exclude`` patterns are relative to it, and `dslc check`
without a path checks it).  Flags on the command line override every key.
Every key is documented in docs/cli.md ("Configuration").

A key that dslc does not know, a value of the wrong type and a file that is
not TOML are errors with the file, line and column (E190, E191, E192), never
ignored: a misspelt ``exclude`` would otherwise check what the user meant to
leave out.  Nothing here prints.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from dslc.diagnostics.model import Diagnostic, error
from dslc.source import SourceFile, display_path

CONFIG_NAMES = ("dslc.toml", "pyproject.toml")

# The keys and their meaning (docs/cli.md lists the same, one row each).
KEYS: dict[str, str] = {
    "include": "glob patterns of the files to check under a folder (default [\"*.dp\"])",
    "exclude": "glob patterns of files and folders never walked into (replaces the defaults)",
    "extend-exclude": "glob patterns excluded in addition to `exclude`",
    "respect-gitignore": "skip what .gitignore files ignore (default true)",
    "force-exclude": "apply the exclusions to files named on the command line too (default false)",
    "timeout": "seconds allowed to each block (default 60)",
    "max-d": "privacy budget d for every DiPA block (an exact number: 1, \"3/2\", 0.75)",
    "budget": "the budget every `release` of the project must fit (a multiple of ε: \"1ε\", \"ε/2\")",
    "lower-bound-work": "work for the search of a lower bound on d (0: no search)",
    "max-file-size": "largest input file (bytes, or a string such as \"256M\")",
    "output-format": "text, concise, json, gcc, sarif, github or junit",
    "color": "auto, always or never",
}


class ConfigError(Exception):
    """A configuration that cannot be used: one located diagnostic."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass
class Config:
    path: str | None = None          # the file (None: no configuration found)
    root: str = "."                  # the project root: the file's folder
    values: dict[str, Any] = field(default_factory=dict)   # validated, in the types the CLI uses

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


def find_config(start: str) -> str | None:
    """The configuration file that applies to ``start`` (a file or folder)."""
    folder = os.path.abspath(start)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate) and (name != "pyproject.toml" or _has_table(candidate)):
                return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _has_table(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return False
    return re.search(r"^\s*\[\s*tool\s*\.\s*dslc\s*[\].]", text, re.M) is not None or \
        re.search(r"^\s*tool\s*\.\s*dslc\s*\.", text, re.M) is not None


def load_config(path: str) -> Config:
    """Read and validate one configuration file (ConfigError when it cannot be used)."""
    import tomllib

    shown = display_path(path)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(error("E192", f"cannot read the configuration {shown}: {exc}",
                                SourceFile(shown, "").whole(), "cannot be read")) from None
    source = SourceFile(shown, text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"at line (\d+), column (\d+)", str(exc))
        at = _offset(text, int(m.group(1)), int(m.group(2))) if m else 0
        raise ConfigError(error("E192", f"{shown} is not valid TOML: {str(exc).split(' (at line')[0]}",
                                source.span(at, min(at + 1, len(text))), "here")
                          .with_help("see https://toml.io for the syntax")) from None
    pyproject = os.path.basename(path) == "pyproject.toml"
    table = data.get("tool", {}).get("dslc", {}) if pyproject else data
    header = "[tool.dslc]" if pyproject else shown
    values: dict[str, Any] = {}
    for key, value in table.items():
        where = _key_span(source, key, pyproject)
        if key not in KEYS:
            from dslc.diagnostics.suggest import did_you_mean
            diag = error("E190", f"unknown key `{key}` in {header}", where, "not a dslc setting")
            close = did_you_mean(key.replace("_", "-"), list(KEYS)) or (
                "did you mean `max-d`?" if key in ("max_d", "maxd") else None)
            if close:
                diag.with_help(close)
            diag.note("the keys are: " + ", ".join(KEYS))
            raise ConfigError(diag)
        try:
            values[key] = _convert(key, value)
        except ValueError as exc:
            raise ConfigError(error("E191", f"`{key}` in {header}: {exc}", where, "this value")
                              .with_help(f"`{key}`: {KEYS[key]}")) from None
    return Config(path=path, root=os.path.dirname(os.path.abspath(path)), values=values)


def _convert(key: str, value: Any) -> Any:
    if key in ("include", "exclude", "extend-exclude"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("expected a list of glob patterns such as [\"build\", \"old/*.dp\"]")
        return list(value)
    if key in ("respect-gitignore", "force-exclude"):
        if not isinstance(value, bool):
            raise ValueError("expected true or false")
        return value
    if key == "timeout":
        from dslc import limits
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("expected a number of seconds such as 60")
        return limits.parse_timeout(str(value))
    if key == "max-d":
        from dslc.commands.check import max_d_arg
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError("expected an exact number such as 1, \"3/2\" or 0.75")
        return _argparse_value(max_d_arg, str(value))
    if key == "budget":
        from dslc.compose.project import BudgetConfigError, parse_budget
        try:
            return parse_budget(value)
        except BudgetConfigError as exc:
            raise ValueError(str(exc)) from None
    if key == "lower-bound-work":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError("expected a whole number of work units such as 40000 (0: no search)")
        return value
    if key == "max-file-size":
        from dslc.commands.check import size_arg
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError("expected a size such as 1000000 or \"256M\"")
        return _argparse_value(size_arg, str(value))
    if key == "output-format":
        from dslc.commands.check import FORMATS
        if value not in FORMATS:
            raise ValueError(f"expected one of {', '.join(FORMATS)}")
        return value
    if key == "color":
        if value not in ("auto", "always", "never"):
            raise ValueError("expected \"auto\", \"always\" or \"never\"")
        return value
    raise AssertionError(key)      # pragma: no cover - KEYS and _convert list the same keys


def _argparse_value(parse, text: str) -> Any:
    import argparse
    try:
        return parse(text)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None


def _offset(text: str, line: int, column: int) -> int:
    lines = text.splitlines(keepends=True)
    return min(sum(len(t) for t in lines[:line - 1]) + max(column - 1, 0), len(text))


def _key_span(source: SourceFile, key: str, pyproject: bool):
    """Where ``key`` is written: in the ``[tool.dslc]`` table of a pyproject,
    at the top of a dslc.toml (the start of the table or file when not found)."""
    text = source.text
    start, end = 0, len(text)
    if pyproject:
        m = re.search(r"^\s*\[\s*tool\s*\.\s*dslc\s*\]", text, re.M)
        if m:
            start = m.end()
            nxt = re.search(r"^\s*\[", text[start:], re.M)
            end = start + nxt.start() if nxt else len(text)
    else:
        nxt = re.search(r"^\s*\[", text, re.M)
        end = nxt.start() if nxt else len(text)
    quoted = re.escape(key)
    m = re.compile(rf"^[ \t]*(?:tool\.dslc\.)?(\"{quoted}\"|'{quoted}'|{quoted})[ \t]*=", re.M).search(text, start, end)
    if m:
        return source.span(m.start(1), m.end(1))
    return source.span(start, start)


__all__ = ["Config", "ConfigError", "KEYS", "find_config", "load_config", "display_path"]
