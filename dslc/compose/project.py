"""The project's budget: `budget = "1ε"` in the configuration
(`[tool.dslc]` of `pyproject.toml`, or a `dslc.toml`; dslc/config.py).

Every release of the project must fit it (the tighter of it and the
release's own `budget` applies).  The configuration `dslc check` would find
for the checked file is read; one without the key, or none, sets no budget.
"""

from __future__ import annotations

import os
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


def project_budget(path: str) -> ProjectBudget | None:
    """The budget of the project holding ``path`` (None without one): the
    `budget` key of the configuration that `dslc check` finds for it
    (`[tool.dslc]` in pyproject.toml or a dslc.toml, docs/cli.md)."""
    from dslc.config import find_config     # where the configuration is: as `dslc check` finds it
    found = find_config(os.path.dirname(os.path.abspath(path or ".")))
    if found is None:
        return None
    try:
        st = os.stat(found)
    except OSError as exc:
        raise BudgetConfigError(f"cannot read {found}: {exc.strerror}") from None
    return _budget_of(found, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=64)
def _budget_of(config_path: str, _mtime: int, _size: int) -> ProjectBudget | None:
    """The `budget` key of one configuration file, read with tomllib (the
    rest of the file is the command line's, dslc/config.py, which validates
    this key with :func:`parse_budget` too)."""
    import tomllib
    try:
        with open(config_path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise BudgetConfigError(f"cannot read {config_path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BudgetConfigError(f"{config_path} is not valid TOML: {exc}") from None
    pyproject = os.path.basename(config_path) == "pyproject.toml"
    table = data.get("tool", {}).get("dslc", {}) if pyproject else data
    if not isinstance(table, dict) or "budget" not in table:
        return None
    where = "[tool.dslc]" if pyproject else os.path.basename(config_path)
    try:
        return ProjectBudget(parse_budget(table["budget"]), config_path)
    except BudgetConfigError as exc:
        raise BudgetConfigError(f"`budget` in {where}: {exc}") from None
