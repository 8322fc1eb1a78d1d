"""Records: the part of :mod:`dataclasses` that dslc uses, without its start-up cost.

``@record`` (with ``frozen``, ``slots``, ``eq``), :func:`field` (``default``,
``default_factory``, ``repr``), :func:`fields` and :func:`replace` behave as
their :mod:`dataclasses` namesakes: fields come from the class's annotations
(after those of record bases), ``__init__`` takes them in order, ``__repr__``
shows those with ``repr=True``, ``__eq__`` compares all of them between
objects of exactly the same class, a frozen record is hashable by its fields
and refuses assignment (:class:`FrozenInstanceError`), a non-frozen one with
``eq`` is unhashable, and ``slots=True`` builds the class again with
``__slots__``.

Why not :mod:`dataclasses`: it compiles the source of every generated method
with ``exec`` at import, about 0.6 ms per class; dslc has about 60 such
classes on the path of ``dslc check``, which was a third of the start-up of
a small check (issue 14).  Here the methods of a class are compiled from one
generated text whose code object is kept in a small on-disk cache
(``~/.cache/dslc/records-<python>.marshal``, the user's own folder, like the
grammar cache) keyed by that text, so a later run only unmarshals it.  The
default values and factories are arguments of the generated code, never part
of its text, so a cached code object is valid for any values.  A missing,
unreadable or foreign cache file is ignored, and the cache is rewritten
(atomically) only when a text was new.
"""

from __future__ import annotations

import sys

__all__ = ["record", "field", "fields", "replace", "Field", "FrozenInstanceError", "MISSING"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record."""


class Field:
    __slots__ = ("name", "default", "default_factory", "repr")

    def __init__(self, default=MISSING, default_factory=MISSING, repr: bool = True):  # noqa: A002
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default, self.default_factory, self.repr = default, default_factory, repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"


def field(*, default=MISSING, default_factory=MISSING, repr: bool = True) -> Field:  # noqa: A002
    return Field(default, default_factory, repr)


def fields(obj) -> tuple[Field, ...]:
    cls = obj if isinstance(obj, type) else type(obj)
    try:
        return tuple(cls.__record_fields__.values())
    except AttributeError:
        raise TypeError(f"{cls.__qualname__} is not a record") from None


def replace(obj, /, **changes):
    """A copy of ``obj`` with some fields changed (through ``__init__``)."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def record(cls=None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True):
    def wrap(c):
        return _process(c, frozen, slots, eq)
    return wrap if cls is None else wrap(cls)


# ---------------------------------------------------------------------------

def _process(cls, frozen: bool, slots: bool, eq: bool):
    own = cls.__dict__
    all_fields: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        base_fields = base.__dict__.get("__record_fields__")
        if base_fields:
            all_fields.update(base_fields)
    for name in own.get("__annotations__", {}):
        value = own.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        if isinstance(f.default, (list, dict, set)):
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: "
                             f"use default_factory")
        f.name = name
        all_fields[name] = f
        if isinstance(value, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    names = tuple(all_fields)
    seen_default = False
    for f in all_fields.values():
        if f.default is MISSING and f.default_factory is MISSING:
            if seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
        else:
            seen_default = True

    text = _source(all_fields, frozen, eq)
    made = _make(text, cls.__module__.partition(".")[0] == "dslc")(MISSING, [f.default for f in all_fields.values()],
                       [f.default_factory for f in all_fields.values()],
                       cls, FrozenInstanceError, object.__setattr__, names)
    qualname = cls.__qualname__
    explicit_hash = own.get("__hash__", MISSING) is not MISSING and not (
        own.get("__hash__") is None and "__eq__" in own)
    for name, fn in made.items():
        if name in own and not (name == "__hash__" and not explicit_hash):
            continue            # a hand-written method wins, as with dataclasses
        fn.__qualname__ = f"{qualname}.{name}"
        setattr(cls, name, fn)
    if eq and not frozen and not explicit_hash:
        cls.__hash__ = None
    cls.__record_fields__ = all_fields
    cls.__match_args__ = names
    if slots:
        cls = _with_slots(cls, names, frozen)
    return cls


def _with_slots(cls, names: tuple[str, ...], frozen: bool):
    body = dict(cls.__dict__)
    inherited = set()
    for base in cls.__mro__[1:]:
        inherited.update(base.__dict__.get("__slots__", ()))
    body["__slots__"] = tuple(n for n in names if n not in inherited)
    for n in names:
        body.pop(n, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    new = type(cls)(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    if frozen:
        # copy and pickle restore state through __setstate__, as dataclasses does
        def __getstate__(self):
            return [getattr(self, n) for n in names]

        def __setstate__(self, state):
            for n, v in zip(names, state):
                object.__setattr__(self, n, v)
        new.__getstate__, new.__setstate__ = __getstate__, __setstate__
    return new


def _source(all_fields: dict[str, Field], frozen: bool, eq: bool) -> str:
    """The text of the methods; values enter only as arguments of ``_make``'s
    function (by position), so the text depends on names and flags only."""
    params, body = ["self"], []
    for i, f in enumerate(all_fields.values()):
        n = f.name
        if f.default_factory is not MISSING:
            params.append(f"{n}=MISSING")
            value = f"_factory[{i}]() if {n} is MISSING else {n}"
        elif f.default is not MISSING:
            params.append(f"{n}=_default[{i}]")
            value = n
        else:
            params.append(n)
            value = n
        body.append(f"  _set(self, {n!r}, {value})" if frozen else f"  self.{n} = {value}")
    lines = ["def _methods(MISSING, _default, _factory, _cls, _Frozen, _set, _names):",
             f" def __init__({', '.join(params)}):"]
    lines += body or ["  pass"]
    shown = [f.name for f in all_fields.values() if f.repr]
    parts = ", ".join(f"{n}={{self.{n}!r}}" for n in shown)
    lines += [" def __repr__(self):",
              f"  return f\"{{self.__class__.__qualname__}}({parts})\""]
    values = "(" + "".join(f"self.{n}," for n in all_fields) + ")"
    others = "(" + "".join(f"other.{n}," for n in all_fields) + ")"
    lines += [" def __eq__(self, other):",
              "  if other.__class__ is self.__class__:",
              f"   return {values} == {others}",
              "  return NotImplemented",
              " def __hash__(self):",
              f"  return hash({values})"]
    made = ["__init__", "__repr__"] + (["__eq__"] if eq else []) + (["__hash__"] if frozen and eq else [])
    if frozen:
        lines += [" def __setattr__(self, name, value):",
                  "  if type(self) is _cls or name in _names:",
                  "   raise _Frozen(f'cannot assign to field {name!r}')",
                  "  object.__setattr__(self, name, value)",
                  " def __delattr__(self, name):",
                  "  if type(self) is _cls or name in _names:",
                  "   raise _Frozen(f'cannot delete field {name!r}')",
                  "  object.__delattr__(self, name)"]
        made += ["__setattr__", "__delattr__"]
    lines.append(" return {" + ", ".join(f"{m!r}: {m}" for m in made) + "}")
    return "\n".join(lines) + "\n"


_CODE: dict[str, object] | None = None
_DIRTY = False
_USED: set[str] = set()
_LOCAL: dict[str, object] = {}        # texts of classes outside dslc: never written
MAX_CACHED = 256            # texts kept in the cache file (dslc has about 150 records); past that, only this run's


def _make(text: str, keep: bool = True):
    """The compiled methods of ``text``; with ``keep`` (dslc's own classes) the
    code object goes to the cache file, else it lives in this run only (tests
    and other users of records must not fill the cache that every start
    reads)."""
    global _CODE, _DIRTY
    if _CODE is None:
        _CODE = _load()
    code = _CODE.get(text) if keep else _LOCAL.get(text)
    if keep:
        _USED.add(text)
    if code is None:
        code = compile(text, "<dslc.record>", "exec")
        if not keep:
            _LOCAL[text] = code
        else:
            _CODE[text] = code
            if not _DIRTY:
                _DIRTY = True
                import atexit
                atexit.register(_save)
    scope: dict = {}
    exec(code, {"__builtins__": __builtins__}, scope)  # noqa: S102 - our own generated text
    return scope["_methods"]


def _cache_file() -> str | None:
    import os
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dslc", f"records-{sys.implementation.cache_tag}.marshal")


def _load() -> dict:
    import marshal
    path = _cache_file()
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not isinstance(data, dict) or len(data) > 4 * MAX_CACHED:
        return {}
    code_type = type(_load.__code__)
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, code_type)}


def _save() -> None:
    import marshal
    import os
    import tempfile
    path = _cache_file()
    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        if not os.access(folder, os.W_OK):
            return
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".records-")
        try:
            keep = _CODE if len(_CODE) <= MAX_CACHED else {t: c for t, c in _CODE.items() if t in _USED}
            with os.fdopen(fd, "wb") as fh:
                fh.write(marshal.dumps(keep))
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, ValueError):
        pass
