"""The implementation under audit and its adapter.

``--impl`` names a function as ``path/to/module.py:function`` or
``package.module:function``.  It is called as ``function(inputs, rng,
epsilon)``: ``inputs`` a list of floats (the model's input sequence),
``rng`` a seeded :class:`numpy.random.Generator`, ``epsilon`` a float.  It
returns the sequence of its outputs.

``--adapter`` says how those outputs are the model's outputs.  Either a
table ``VALUE=SYMBOL,VALUE=SYMBOL`` (VALUE a Python literal such as
``True``, ``0``, ``None``, ``'above'``; SYMBOL a model symbol, ``top``/``⊤``,
``bot``/``⊥``, or ``_`` for "no output": the value is dropped), or a
function ``module.py:function`` that takes the returned value and returns a
list of model outputs (symbol strings and floats).  With a table, a value
not in it is a real output if it is a number, a symbol if it is a string.
The default table is ``True=⊤,False=⊥``.

Only the main process parses specs (:func:`parse_impl`, :func:`parse_adapter`);
only worker processes import the implementation (:func:`load_function`).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import numbers
import os
import re
import sys
from dataclasses import dataclass

from dslc.dipa.paths import PathTextError, parse_output, split_list

DEFAULT_ADAPTER = "True=⊤,False=⊥"
REAL = "ℝ"          # a real output, in an output sequence's key (as `dslc run` counts it)


class ImplError(Exception):
    """The implementation could not be loaded or run, or returned something
    the adapter cannot read (reported with exit 2)."""


@dataclass(frozen=True)
class FunctionSpec:
    """``module.py:function`` (``path`` set) or ``package.module:function``."""
    text: str
    path: str | None
    module: str | None
    function: str
    cwd: str                 # where `package.module` is looked up (the caller's folder)


_FAST_TYPES = (bool, int, str, type(None))


@dataclass(frozen=True)
class Adapter:
    table: tuple             # ((value, output), ...): output "" drops the value
    function: FunctionSpec | None = None
    text: str = DEFAULT_ADAPTER

    @property
    def fast(self) -> dict:
        """{(type, value): output} for the table's bool, int, str and None
        entries: the common case without the table's loop (same answers)."""
        cached = self.__dict__.get("_fast")
        if cached is None:
            cached = {}
            for wanted, out in self.table:
                if type(wanted) in _FAST_TYPES:
                    cached.setdefault((type(wanted), wanted), out)
            object.__setattr__(self, "_fast", cached)
        return cached


def parse_function(text: str, what: str) -> FunctionSpec:
    raw = text.strip()
    where, sep, name = raw.rpartition(":")
    if not sep or not where or not name.isidentifier():
        raise PathTextError(f"{what} `{text}` is not MODULE:FUNCTION",
                            f"e.g. {what} examples/audit/svt_numpy.py:svt or {what} mypackage.mechanisms:svt")
    cwd = os.getcwd()
    if where.endswith(".py") or os.sep in where or "/" in where:
        path = os.path.abspath(where)
        if not os.path.isfile(path):
            raise PathTextError(f"{what}: no file {where}", "give the path of a Python file, then :FUNCTION")
        return FunctionSpec(raw, path, None, name, cwd)
    if not all(part.isidentifier() for part in where.split(".")):
        raise PathTextError(f"{what} `{text}`: `{where}` is neither a .py file nor a module name")
    return FunctionSpec(raw, None, where, name, cwd)


def parse_impl(text: str) -> FunctionSpec:
    return parse_function(text, "--impl")


def _literal(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text            # a bare word is a string


def parse_adapter(text: str | None) -> Adapter:
    text = DEFAULT_ADAPTER if text is None else text
    if re.fullmatch(r"\s*[^=,]+:[A-Za-z_]\w*\s*", text) and "=" not in text:
        return Adapter((), parse_function(text, "--adapter"), text)
    table = []
    for k, item in enumerate(split_list(text)):
        value_text, eq, out_text = item.rpartition("=")
        if not eq or not value_text.strip() or not out_text.strip():
            raise PathTextError(f"--adapter: entry {k + 1} `{item}` is not VALUE=SYMBOL",
                                "e.g. --adapter 'True=top,False=bot' (`_` for a value that is no output)")
        out = parse_output(out_text.strip(), k)
        if isinstance(out, tuple):
            raise PathTextError(f"--adapter: entry {k + 1} maps to an interval",
                                "real outputs need no entry: a number not in the table is a real output")
        table.append((_literal(value_text.strip()), out))
    return Adapter(tuple(table), None, text)


# ---------------------------------------------------------------------------
# in the worker processes

_LOADED: dict[str, object] = {}


def load_function(spec: FunctionSpec):
    """The function named by ``spec`` (imported once per process)."""
    fn = _LOADED.get(spec.text)
    if fn is not None:
        return fn
    try:
        if spec.path is not None:
            name = "dslc_audit_impl_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(spec.path))[0])
            mod_spec = importlib.util.spec_from_file_location(name, spec.path)
            module = importlib.util.module_from_spec(mod_spec)
            sys.modules[name] = module
            folder = os.path.dirname(spec.path)
            if folder not in sys.path:
                sys.path.insert(0, folder)        # its own imports of modules beside it
            mod_spec.loader.exec_module(module)
        else:
            if spec.cwd not in sys.path:
                sys.path.insert(0, spec.cwd)
            module = importlib.import_module(spec.module)
    except Exception as exc:  # noqa: BLE001 - the user's module: report, never crash
        raise ImplError(f"cannot import {spec.path or spec.module}: {type(exc).__name__}: {exc}") from None
    fn = getattr(module, spec.function, None)
    if not callable(fn):
        raise ImplError(f"{spec.path or spec.module} has no function `{spec.function}`")
    _LOADED[spec.text] = fn
    return fn


def _is_bool(value) -> bool:
    """A Python or NumPy boolean (NumPy's is `numpy.bool_`, `numpy.bool` in NumPy 2)."""
    return isinstance(value, bool) or (type(value).__module__ == "numpy" and "bool" in type(value).__name__)


def _same(value, wanted) -> bool:
    if isinstance(wanted, bool) or _is_bool(value):
        return isinstance(wanted, bool) and _is_bool(value) and bool(value) == wanted
    if wanted is None:
        return value is None
    try:
        return type(value) is type(wanted) and value == wanted or (
            isinstance(value, numbers.Integral) and isinstance(wanted, int) and int(value) == wanted)
    except Exception:  # noqa: BLE001 - a strange value is simply not this entry
        return False


def to_model(returned, adapter: Adapter) -> tuple[tuple, list[float]]:
    """The output sequence ``returned`` as the model's: (key, real values),
    the key listing symbols and ℝ for each real output, silent outputs dropped."""
    if adapter.function is not None:
        try:
            returned = load_function(adapter.function)(returned)
        except ImplError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise ImplError(f"the adapter raised {type(exc).__name__}: {exc}") from None
    if isinstance(returned, (str, bytes)) or not hasattr(returned, "__iter__"):
        raise ImplError(f"the implementation returned {type(returned).__name__} {returned!r:.60}, "
                        "not a sequence of outputs")
    key, reals = [], []
    fast = adapter.fast
    for k, value in enumerate(returned):
        out = fast.get((type(value), value), None) if type(value) in _FAST_TYPES else None
        if out is not None:
            if out:
                key.append(out)
            continue
        for wanted, out in adapter.table:
            if _same(value, wanted):
                if out:
                    key.append(out)
                break
        else:
            if isinstance(value, str):
                out = parse_output(value, k) if value else ""
                if isinstance(out, tuple):
                    raise ImplError(f"output {k + 1} `{value}` is not a symbol")
                if out:
                    key.append(out)
            elif isinstance(value, numbers.Real) and not _is_bool(value):
                key.append(REAL)
                reals.append(float(value))
            else:
                raise ImplError(f"output {k + 1} is {type(value).__name__} {value!r:.40}, which the adapter "
                                f"`{adapter.text}` does not map", )
    return tuple(key), reals
