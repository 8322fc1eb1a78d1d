"""Incremental re-checks: the language server's cache of block results.

After an edit the server checks only the blocks whose text changed.  The
pipeline splits the new text into blocks as always
(:func:`dslc.pipeline.check_source`) and asks the cache for each block's own
result (its ``block_checker``): a cached one when the block is unchanged,
else the pipeline's :func:`~dslc.pipeline.check_block`.  What depends on the
other blocks — a second block of the same name (E009) — is never cached:
``check_source`` adds it on every check.

**The key** of a block is everything its own result can depend on: its
keyword, name and exact text (keyword to closing brace); the file's path; the
check's :class:`~dslc.pipeline.Options` (all of them but the cancellation
callback); and, only for a block whose check looked up a line or a column
(a message such as "the step at line 12", noticed by :class:`TrackedSource`),
the line and column where the block starts.

**Not cached** (checked again every time): a block without its closing brace
or with an error found by the splitter (their messages may point into the
next block), a result with a span outside its own block, a result that ran
out of time (E014) or memory (E013) or met a bug (E000), and a result that
cannot be moved (one that reads the file on demand rather than through
spans, such as the columns of a very large `automaton` read by the flat
reader).

**Moving.**  An entry is kept in a frame of its own: its spans are offsets
into a :class:`~dslc.source.SourceFile` holding only the block's text, so no
entry keeps an older version of the document alive.  A reused entry becomes
a :class:`MovedBlockResult` at the block's place in the new text: its span
and diagnostics are moved at once (they are published); everything else
(syntax tree, IR, analysis, cost labels, bounds, editor features) on first
read, by hover, definition or the graph.  The outline reads the states of
reused blocks where the cache keeps them (:meth:`MovedBlockResult.local`).

**Bound.**  After every check that ran to its end, the entries of blocks that
are no longer in the document are dropped: the cache holds one entry per
block of the document, plus those added by checks cancelled since.
"""

from __future__ import annotations

import array
import copy
import enum
import logging
import re
import threading
import types
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any, Callable

from dslc import pipeline
from dslc.pipeline import Options
from dslc.results import BlockResult, FileResult, Verdict
from dslc.source import SourceFile, Span
from dslc.syntax.split import Chunk

log = logging.getLogger(__name__)

# Results that say something about this run rather than about the text.
UNCACHED_CODES = frozenset({"E000", "E013", "E014"})


class TrackedSource(SourceFile):
    """A :class:`SourceFile` that counts look-ups of lines and columns.

    A block whose check made one has a result that may depend on where the
    block is (a message naming a line), so its cache key includes its
    position.  Only the thread checking the document uses the object while
    the counts matter."""

    lookups = 0

    def line_col(self, offset: int) -> tuple[int, int]:
        self.lookups += 1
        return super().line_col(offset)

    def offset(self, line: int, column: int) -> int:
        self.lookups += 1
        return super().offset(line, column)

    def line_text(self, line: int) -> str:
        self.lookups += 1
        return super().line_text(line)

    def line_count(self) -> int:
        self.lookups += 1
        return super().line_count()


# ------------------------------------------------------------------ moving results
class NotMovable(Exception):
    """A result that cannot be moved to another place or text."""


# How the objects of a type are moved (decided once per type).
_SHARE, _DICT, _SLOTS, _COPY, _NAMED, _ARRAY, _FUNCTION, _FILE, _REFUSE = range(9)
_LEAVES = frozenset({str, int, float, bool, complex, bytes, type(None), Fraction, range})
_ONLY_LEAVES = _LEAVES.issuperset
_SHARED = (str, int, float, complex, bytes, Fraction, enum.Enum, range, type, re.Pattern,
           types.BuiltinFunctionType, types.ModuleType)
_HOW: dict[type, int] = {}
_SLOT_NAMES: dict[type, tuple[str, ...]] = {}
_MISSING = object()


def _slots(cls: type) -> tuple[str, ...]:
    names = _SLOT_NAMES.get(cls)
    if names is None:
        found: list[str] = []
        for klass in cls.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            if isinstance(slots, str):
                slots = (slots,)
            found += [s for s in slots if s not in ("__dict__", "__weakref__") and s not in found]
        names = _SLOT_NAMES[cls] = tuple(found)
    return names


def _how(cls: type) -> int:
    how = _HOW.get(cls)
    if how is None:
        how = _HOW[cls] = _classify(cls)
    return how


def _classify(cls: type) -> int:
    if issubclass(cls, SourceFile):
        return _FILE
    if issubclass(cls, _SHARED):
        return _SHARE
    if issubclass(cls, (types.FunctionType, types.MethodType)):
        return _FUNCTION
    if cls is array.array:
        return _ARRAY
    if issubclass(cls, tuple) and hasattr(cls, "_make"):
        return _NAMED
    if issubclass(cls, (list, dict, set, frozenset, tuple)):
        return _REFUSE                   # a subclass of a container: not known to be safe
    has_dict, slots = cls.__dictoffset__ != 0, _slots(cls)
    if not has_dict and not slots:
        return _REFUSE                   # an object of C (a lock, an iterator, ...)
    # A plain class (dataclasses, records): a copy is a new object with the
    # same attributes, made directly; anything else goes through copy.copy.
    plain = (cls.__new__ is object.__new__ and not hasattr(cls, "__copy__")
             and cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__)
    if plain and has_dict and not slots and getattr(cls, "__setstate__", None) is None:
        return _DICT
    if plain and slots and not has_dict:
        return _SLOTS
    return _COPY


class Mover:
    """Copies an object graph, moving every span into ``old`` (which must lie
    within ``[lo, hi]``) by ``delta`` into ``new``.  Objects and containers are
    copied, numbers, strings, enums and functions that hold no span shared.
    Raises :class:`NotMovable` for anything it cannot move: a reference to
    ``old`` or to its text other than through a span, a span outside
    ``[lo, hi]``, an object of a kind it does not know.  Everything moved by
    one Mover shares what the originals shared."""

    def __init__(self, old: SourceFile, new: SourceFile, delta: int, lo: int, hi: int):
        self.old, self.new, self.delta, self.lo, self.hi = old, new, delta, lo, hi
        self.old_text = old.text
        self.memo: dict[int, Any] = {}

    def __call__(self, obj: Any) -> Any:
        try:
            return self._move(obj)
        except RecursionError:
            raise NotMovable("nested too deeply") from None

    def _move(self, o: Any) -> Any:
        t = type(o)
        if t is Span:
            if o.file is not self.old:
                return o                          # a span into another file stays
            if not (self.lo <= o.start and o.end <= self.hi):
                raise NotMovable("a span outside the block")
            return Span(self.new, o.start + self.delta, o.end + self.delta)
        if t is str:
            if o is self.old_text:
                raise NotMovable("holds the text of the file")
            return o
        if t in _LEAVES:
            return o
        key = id(o)
        got = self.memo.get(key, _MISSING)
        if got is not _MISSING:
            return got
        # (leaves are tested inline: most values are numbers and strings)
        move, leaves, text = self._move, _LEAVES, self.old_text
        if t is list:
            if _ONLY_LEAVES(map(type, o)) and text not in o:       # (tested in C)
                new_list = o.copy()
                self.memo[key] = new_list
                return new_list
            new_list = []
            self.memo[key] = new_list
            new_list.extend([x if type(x) in leaves and x is not text else move(x) for x in o])
            return new_list
        if t is dict:
            new_dict: dict = {}
            self.memo[key] = new_dict
            for k, v in o.items():
                new_dict[k if type(k) in leaves and k is not text else move(k)] = \
                    v if type(v) in leaves and v is not text else move(v)
            return new_dict
        if t is tuple:
            if _ONLY_LEAVES(map(type, o)) and text not in o:
                new_tuple = o
            else:
                new_tuple = tuple([x if type(x) in leaves and x is not text else move(x) for x in o])
            self.memo[key] = new_tuple
            return new_tuple
        how = _how(t)
        if how == _DICT:
            new = object.__new__(t)
            self.memo[key] = new
            target = new.__dict__
            for name, value in o.__dict__.items():
                target[name] = value if type(value) in leaves and value is not text else move(value)
            return new
        if how == _SLOTS:
            new = object.__new__(t)
            self.memo[key] = new
            for name in _slots(t):
                value = getattr(o, name, _MISSING)
                if value is not _MISSING:
                    object.__setattr__(new, name, move(value))
            return new
        return self._other(o, t, how, key)

    def _other(self, o: Any, t: type, how: int, key: int) -> Any:
        if how == _SHARE:
            return o
        if how == _FILE:
            if o is self.old:
                raise NotMovable("holds the file")
            return o
        if how == _FUNCTION:
            if self._mentions(o):
                raise NotMovable("a function that holds spans")
            return o
        if t is set or t is frozenset:
            moved = t([self._move(x) for x in o])
            self.memo[key] = moved
            return moved
        if how == _ARRAY:
            copied = o[:]
            self.memo[key] = copied
            return copied
        if how == _NAMED:
            named = t._make([self._move(x) for x in o])
            self.memo[key] = named
            return named
        if how == _REFUSE:
            raise NotMovable(f"cannot move a {t.__module__}.{t.__qualname__}")
        try:
            new = copy.copy(o)
        except (TypeError, copy.Error) as exc:
            raise NotMovable(f"cannot copy a {t.__module__}.{t.__qualname__}: {exc}") from None
        self.memo[key] = new
        attrs = getattr(o, "__dict__", None)
        if attrs is not None:
            target = new.__dict__
            for name, value in attrs.items():
                target[name] = self._move(value)
        for name in _slots(t):
            value = getattr(o, name, _MISSING)
            if value is not _MISSING:
                object.__setattr__(new, name, self._move(value))
        return new

    def _mentions(self, root: Any) -> bool:
        """Whether anything reachable from ``root`` (a function: its closure,
        a bound method: its object) is a span into ``old``, ``old`` or its text."""
        stack, seen = [root], set()
        while stack:
            o = stack.pop()
            t = type(o)
            if t is Span:
                if o.file is self.old:
                    return True
                continue
            if t is str:
                if o is self.old_text:
                    return True
                continue
            if t in _LEAVES or id(o) in seen:
                continue
            seen.add(id(o))
            if o is self.old:
                return True
            if t in (list, tuple, set, frozenset):
                stack.extend(o)
            elif t is dict:
                stack.extend(o.keys())
                stack.extend(o.values())
            elif isinstance(o, types.FunctionType):
                for cell in o.__closure__ or ():
                    try:
                        stack.append(cell.cell_contents)
                    except ValueError:      # an empty cell
                        pass
            elif isinstance(o, types.MethodType):
                stack.extend((o.__self__, o.__func__))
            else:
                stack.extend(getattr(o, "__dict__", {}).values())
                stack.extend(getattr(o, name) for name in _slots(t) if hasattr(o, name))
        return False


# ------------------------------------------------------------------ reused results
@dataclass(frozen=True)
class Entry:
    """A block's own result, in a frame of its own: ``frame`` holds the
    block's text alone, and every span of ``result`` points into it."""
    result: BlockResult
    frame: SourceFile


# Fields of a reused result set at once: moved (the span and the diagnostics
# are published) or shared (values).  Every other field is moved on first read.
MOVED_AT_ONCE = ("span", "diagnostics")
SHARED_FIELDS = ("name", "kind", "verdict", "d", "summary")
_MOVING = threading.Lock()


class _MovedOnRead:
    """A field of a :class:`MovedBlockResult` moved from the cached entry on
    its first read (in whichever thread reads it first)."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        values = obj.__dict__
        if self.name not in values:
            with _MOVING:
                if self.name not in values:
                    values[self.name] = obj._move_field(self.name)
        return values[self.name]

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = value


class MovedBlockResult(BlockResult):
    """A cached block result at the block's place in a new text: verdict,
    span and diagnostics are set when it is made; every other field (the
    phase products: syntax tree, IR, analysis, ...; cost labels, bounds) is
    moved from the cache's entry when it is first read.  Otherwise a
    BlockResult.  (The fields moved later are copied by a Mover of their own:
    they share no object with the span and the diagnostics, whose values
    they do not need.)"""

    _entry: Entry
    _source: SourceFile
    _start: int
    _mover: Mover | None

    def _move_field(self, name: str) -> Any:
        entry = self._entry
        try:
            if self._mover is None:
                self._mover = Mover(entry.frame, self._source, self._start, 0, len(entry.frame.text))
            return self._mover(getattr(entry.result, name))
        except Exception as exc:  # noqa: BLE001 - hover and outline lose detail, nothing more
            log.error("internal error while reusing the %s of `%s`: %s: %s", name, self.name,
                      type(exc).__name__, exc)
            value = getattr(entry.result, name, None)
            return type(value)() if isinstance(value, (list, dict)) else None

    def local(self) -> tuple[BlockResult, int]:
        """The cached result itself, whose spans are offsets from the block's
        start, and that start: for reading many blocks without moving them
        (the outline of a large document).  Read-only."""
        return self._entry.result, self._start


for _name in (f.name for f in fields(BlockResult)):
    if _name not in MOVED_AT_ONCE and _name not in SHARED_FIELDS:
        setattr(MovedBlockResult, _name, _MovedOnRead(_name))


def moved_result(entry: Entry, source: SourceFile, start: int) -> MovedBlockResult:
    """The cached ``entry`` for the block at offset ``start`` of ``source``."""
    local = entry.result
    block = object.__new__(MovedBlockResult)
    for name in SHARED_FIELDS:
        setattr(block, name, getattr(local, name))
    span = local.span
    if span is not None and span.file is entry.frame and not local.diagnostics:     # most blocks
        block.span, block.diagnostics = Span(source, span.start + start, span.end + start), []
    else:
        mover = Mover(entry.frame, source, start, 0, len(entry.frame.text))
        for name in MOVED_AT_ONCE:
            setattr(block, name, mover(getattr(local, name)))
    block.__dict__.update(_entry=entry, _source=source, _start=start, _mover=None)
    return block


# ------------------------------------------------------------------ the cache
@dataclass
class Extent:
    """One block of a check: its range in the text (keyword to closing brace) and its result."""
    start: int
    end: int
    block: BlockResult


@dataclass
class Round:
    """What one check through the cache did."""
    placed: list[Extent] = field(default_factory=list)      # every block, in the order of the text
    checked: list[str] = field(default_factory=list)        # the blocks the pipeline checked (names)
    reused: int = 0                                          # the blocks taken from the cache


class BlockCache:
    """The block results of one document, by key (see the module's docstring).

    Used by one check at a time (the server runs at most one check per
    document); an entry never changes once stored, so results published
    earlier can still be moved from it in other threads."""

    def __init__(self, settle: Callable[[], None] | None = None, settle_every: int = 1000) -> None:
        """``settle`` is called after every ``settle_every`` blocks the
        pipeline checked (the server moves the results so far out of the
        garbage collector's sight; see dslc/lsp/server.py)."""
        self._entries: dict[tuple, Entry] = {}
        self._positional: set[tuple] = set()    # keys (without position) of blocks that depend on it
        self._settle, self._settle_every, self._unsettled = settle, settle_every, 0

    def __len__(self) -> int:
        return len(self._entries)

    def check(self, source: SourceFile, options: Options | dict | None = None) -> tuple[FileResult, Round]:
        """Check ``source`` (a :class:`TrackedSource`; with another
        SourceFile every result is taken to depend on its position) with the
        pipeline, reusing the results of unchanged blocks.  Raises what
        :func:`~dslc.pipeline.check_source` raises (CheckCancelled); the
        entries stored by a cancelled check stay for the next one."""
        options = Options.of(options)
        run, keys = Round(), set()
        settings = tuple((name, getattr(options, name)) for name in (f.name for f in fields(Options))
                         if name != "cancelled")

        def check_block(src: SourceFile, chunk: Chunk, opts: Options) -> BlockResult:
            return self._block(run, keys, settings, src, chunk, opts)

        result = pipeline.check_source(source, options, block_checker=check_block)
        self._entries = {k: v for k, v in self._entries.items() if k in keys}
        self._positional = {k[:-1] for k in keys if k[-1] is not None}
        return result, run

    def _block(self, run: Round, keys: set, settings: tuple, source: SourceFile, chunk: Chunk,
               options: Options) -> BlockResult:
        key = self._key(settings, source, chunk)
        entry = self._entries.get(key) if key is not None else None
        if entry is not None:
            try:
                block: BlockResult = moved_result(entry, source, chunk.start)
            except Exception as exc:  # noqa: BLE001 - check the block instead
                log.error("could not reuse the result of `%s`: %s: %s", chunk.name, type(exc).__name__, exc)
            else:
                keys.add(key)
                run.reused += 1
                run.placed.append(Extent(chunk.start, chunk.end, block))
                return block
        lookups = getattr(source, "lookups", None)
        block = pipeline.check_block(source, chunk, options)
        run.checked.append(chunk.name or "<unnamed>")
        run.placed.append(Extent(chunk.start, chunk.end, block))
        if key is not None and self._cacheable(block):
            if lookups is None or source.lookups != lookups:     # it may depend on its line
                self._positional.add(key[:-1])
                key = key[:-1] + (source.line_col(chunk.start),)
            try:
                frame = SourceFile(source.path, source.text[chunk.start:chunk.end])
                moved = Mover(source, frame, -chunk.start, chunk.start, chunk.end)(block)
            except NotMovable as exc:
                log.debug("the result of `%s` is not cached: %s", chunk.name, exc)
            except Exception as exc:  # noqa: BLE001 - a result that cannot be copied is not cached
                log.error("could not cache the result of `%s`: %s: %s", chunk.name, type(exc).__name__, exc)
            else:
                self._entries[key] = Entry(moved, frame)
                keys.add(key)
        self._unsettled += 1
        if self._settle is not None and self._unsettled >= self._settle_every:
            self._unsettled = 0
            self._settle()
        return block

    def _key(self, settings: tuple, source: SourceFile, chunk: Chunk) -> tuple | None:
        if not chunk.complete or chunk.fatal is not None:
            return None
        span = chunk.name_span
        key = (chunk.keyword, chunk.name, span.start - chunk.start, span.end - chunk.start,
               source.text[chunk.start:chunk.end], source.path, settings)
        return key + ((source.line_col(chunk.start) if key in self._positional else None),)

    @staticmethod
    def _cacheable(block: BlockResult) -> bool:
        # a release depends on other blocks and on imported files (dslc/compose): never cached
        return block.verdict is not Verdict.UNKNOWN and block.kind != "release" and \
            not any(d.code in UNCACHED_CODES for d in block.diagnostics)


__all__ = ["BlockCache", "TrackedSource", "Mover", "NotMovable", "MovedBlockResult", "moved_result",
           "Entry", "Extent", "Round"]
