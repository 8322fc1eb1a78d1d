"""The project's budget: `[tool.dslc] budget = "1ε"` in `pyproject.toml`.

Every release of the project must fit it (the tighter of it and the
release's own `budget` applies).  The nearest `pyproject.toml` at or above
the checked file's folder is read, with the standard library's ``tomllib``;
a file without the key, or no file, sets no budget.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from dslc.source import SourceFile


class BudgetConfigError(ValueError):
    """The key is there but is not a budget (the message says why)."""


@dataclass(frozen=True)
class ProjectBudget:
    limit: Fraction
    path: str                  # the pyproject.toml it came from


def parse_budget(text: object) -> Fraction:
    """`"1ε"`, `"ε/2"`, `"3/2 ε"`, `"1eps"`, `1`, `"0.5"` → the multiple of ε."""
    if isinstance(text, bool) or not isinstance(text, (int, float, str)):
        raise BudgetConfigError(f"expected a multiple of ε such as \"1ε\", not {text!r}")
    if isinstance(text, (int, float)):
        value = Fraction(str(text))
    else:
        from dslc.ir.linear import NotLinear, constant_resolver, evaluate
        from dslc.diagnostics.model import DiagnosticError
        from dslc.syntax.parser import parse_block
        body = text.strip()
        if "ε" not in body and "eps" not in body:
            body = f"({body}) ε"
        src = SourceFile("<budget>", f"release r budget {body} {{ }}")
        try:
            tree = parse_block(src, "release", 0, len(src.text))
            v = evaluate(tree.claims[0].value, constant_resolver({}))
        except (DiagnosticError, NotLinear, IndexError):
            raise BudgetConfigError(f"expected a multiple of ε such as \"1ε\", not {text!r}") from None
        if v.const != 0 or v.input != 0:
            raise BudgetConfigError(f"expected a multiple of ε such as \"1ε\", not {text!r}")
        value = v.eps
    if value < 0:
        raise BudgetConfigError(f"a budget is not negative ({text!r})")
    return value


def find_pyproject(path: str) -> str | None:
    folder = os.path.dirname(os.path.abspath(path or "."))
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def read_budget(pyproject: str) -> ProjectBudget | None:
    """`[tool.dslc] budget` of one pyproject.toml (None when it has none).
    Raises :class:`BudgetConfigError` for a bad value or an unreadable file."""
    try:
        st = os.stat(pyproject)
    except OSError as exc:
        raise BudgetConfigError(f"cannot read {pyproject}: {exc.strerror}") from None
    return _read_budget(pyproject, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=64)
def _read_budget(pyproject: str, _mtime: int, _size: int) -> ProjectBudget | None:
    try:
        with open(pyproject, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise BudgetConfigError(f"cannot read {pyproject}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BudgetConfigError(f"{pyproject} is not valid TOML: {exc}") from None
    tool = data.get("tool", {}).get("dslc", {})
    if not isinstance(tool, dict) or "budget" not in tool:
        return None
    try:
        return ProjectBudget(parse_budget(tool["budget"]), pyproject)
    except BudgetConfigError as exc:
        raise BudgetConfigError(f"{pyproject}: [tool.dslc] budget: {exc}") from None


def project_budget(path: str) -> ProjectBudget | None:
    """The budget of the project holding ``path`` (None without one)."""
    found = find_pyproject(path)
    return read_budget(found) if found is not None else None
