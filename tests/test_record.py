"""dslc.record against dataclasses: the same classes made both ways behave alike."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc import record as rec

NAMES = ["a", "b", "c", "d", "e"]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """The random class shapes below must not land in the user's cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(rec, "_CODE", {})
    monkeypatch.setattr(rec, "_USED", set())


def _make(kind, names, defaults, factories, hidden, frozen, slots, eq, base_fields=()):
    """One class made by ``dataclasses`` or by ``dslc.record`` from the same spec."""
    deco = (dataclasses.dataclass if kind == "dc" else rec.record)(frozen=frozen, slots=slots, eq=eq)
    mk = dataclasses.field if kind == "dc" else rec.field
    ns: dict = {"__annotations__": {}}
    for n in names:
        ns["__annotations__"][n] = "int"
        if n in factories:
            ns[n] = mk(default_factory=list, repr=n not in hidden)
        elif n in defaults:
            ns[n] = mk(default=defaults[n], repr=n not in hidden) if n in hidden else defaults[n]
    base = object
    if base_fields:
        bns = {"__annotations__": {n: "int" for n in base_fields}}
        base = deco(type("Base", (), bns))
    return deco(type("K", (base,), ns))


@st.composite
def specs(draw):
    k = draw(st.integers(0, 4))
    names = NAMES[:k]
    n_req = draw(st.integers(0, k))       # required first, then defaults/factories
    defaults, factories = {}, set()
    for n in names[n_req:]:
        if draw(st.booleans()):
            factories.add(n)
        else:
            defaults[n] = draw(st.integers(-3, 3))
    hidden = set(draw(st.lists(st.sampled_from(names), unique=True))) if names else set()
    hidden -= set()
    return names, defaults, factories, hidden, draw(st.booleans()), draw(st.booleans()), draw(st.booleans())


def _behaviour(cls, names, n_req, values):
    out = []
    obj = cls(*values[:n_req])
    out.append(("repr", repr(obj).replace(cls.__qualname__, "K")))
    out.append(("fields", [getattr(obj, n) for n in names]))
    other = cls(*values[:n_req])
    out.append(("eq", obj == other, obj != other, obj == 5))
    try:
        out.append(("hash", hash(obj) == hash(other)))
    except TypeError:
        out.append(("hash", "unhashable"))
    try:
        if names:
            setattr(obj, names[0], 9)
        out.append(("set", "ok"))
    except AttributeError as exc:
        out.append(("set", type(exc).__name__ if not isinstance(exc, (dataclasses.FrozenInstanceError,
                                                                       rec.FrozenInstanceError))
                    else "frozen"))
    c = copy.copy(obj)
    out.append(("copy", c == obj, [getattr(c, n) for n in names]))
    out.append(("slots", hasattr(obj, "__dict__")))
    out.append(("match", cls.__match_args__))
    return out


@settings(max_examples=300, deadline=None)
@given(specs(), st.lists(st.integers(-5, 5), min_size=5, max_size=5))
def test_record_behaves_like_dataclass(spec, values):
    names, defaults, factories, hidden, frozen, slots, eq = spec
    n_req = len([n for n in names if n not in defaults and n not in factories])
    a = _make("dc", names, defaults, factories, hidden, frozen, slots, eq)
    b = _make("rec", names, defaults, factories, hidden, frozen, slots, eq)
    assert _behaviour(a, names, n_req, values) == _behaviour(b, names, n_req, values)
    # keywords and replace
    if names:
        kw = {n: v for n, v in zip(names, values)}
        x, y = a(**kw), b(**kw)
        assert [getattr(dataclasses.replace(x, **{names[0]: 7}), n) for n in names] == \
               [getattr(rec.replace(y, **{names[0]: 7}), n) for n in names]
        assert [f.name for f in dataclasses.fields(a)] == [f.name for f in rec.fields(b)]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(NAMES), unique=True, max_size=2), specs())
def test_inherited_fields_come_first(base_fields, spec):
    names, defaults, factories, hidden, frozen, slots, eq = spec
    names = [n for n in names if n not in base_fields]
    defaults = {n: v for n, v in defaults.items() if n in names}
    factories = {n for n in factories if n in names}
    a = _make("dc", names, defaults, factories, set(), frozen, False, eq, tuple(base_fields))
    b = _make("rec", names, defaults, factories, set(), frozen, False, eq, tuple(base_fields))
    assert [f.name for f in dataclasses.fields(a)] == [f.name for f in rec.fields(b)]
    vals = list(range(len(base_fields) + len(names)))
    n_req = len(base_fields) + len([n for n in names if n not in defaults and n not in factories])
    assert repr(a(*vals[:n_req])).replace("K(", "") == repr(b(*vals[:n_req])).replace("K(", "")


def test_mutable_default_and_order_are_refused():
    with pytest.raises(ValueError):
        rec.record(type("K", (), {"__annotations__": {"a": "list"}, "a": []}))
    with pytest.raises(TypeError):
        rec.record(type("K", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1}))


@rec.record(frozen=True, slots=True)
class _Point:
    x: int
    y: int = 2


def test_frozen_slots_pickle_and_copy():
    p = _Point(1)
    assert pickle.loads(pickle.dumps(p)) == p
    assert copy.deepcopy(p) == p and hash(copy.copy(p)) == hash(p)
    with pytest.raises(AttributeError):
        p.x = 3


def test_cache_round_trip(tmp_path, monkeypatch):
    """A code object read back from the cache makes the same methods."""
    k1 = rec.record(type("K", (), {"__annotations__": {"a": "int", "b": "int"}, "b": 4, "__module__": "dslc.x"}))
    rec._save()
    monkeypatch.setattr(rec, "_CODE", None)
    loaded = rec._load()
    assert len(loaded) == 1
    k2 = rec.record(type("K", (), {"__annotations__": {"a": "int", "b": "int"}, "b": 5, "__module__": "dslc.x"}))
    assert rec._CODE is not None and len(rec._CODE) == 1       # no new text: served from the cache
    assert repr(k1(1)) == "K(a=1, b=4)" and repr(k2(1)) == "K(a=1, b=5)"
    (tmp_path / "dslc" / rec._cache_file().rsplit("/", 1)[1]).write_bytes(b"garbage")
    monkeypatch.setattr(rec, "_CODE", None)
    assert rec._load() == {}


def test_a_full_cache_keeps_only_what_this_run_used(monkeypatch):
    monkeypatch.setattr(rec, "MAX_CACHED", 3)
    monkeypatch.setattr(rec, "_CODE", {f"old {i}": compile("pass", "x", "exec") for i in range(5)})
    rec.record(type("K", (), {"__annotations__": {"a": "int"}, "__module__": "dslc.x"}))
    rec._save()
    assert len(rec._load()) == 1


def test_only_dslc_classes_enter_the_cache():
    """Every start reads the cache: classes of tests or of other programs
    must not fill it (501 random test shapes once made it 1.4 MB, 8 ms a start)."""
    outside = rec.record(type("K", (), {"__annotations__": {"a": "int", "q": "int"}}))
    assert outside(1, 2) == outside(1, 2)
    rec._save()
    assert rec._load() == {}
    rec.record(type("K", (), {"__annotations__": {"a": "int", "q": "int"}, "__module__": "dslc.x"}))
    rec._save()
    assert len(rec._load()) == 1
