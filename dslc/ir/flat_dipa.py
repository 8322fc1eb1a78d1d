"""DiPAs as columns: the IR of large `automaton` blocks, and the column view
of any DiPA that the checker works on.

A :class:`FlatDiPA` stores per state its name, input flag and draw class,
and per transition its target and kind (guard, output, store) as arrays of
machine integers, with the transitions grouped by source state (CSR).  It is
a :class:`~dslc.ir.dipa.DiPA`: ``states`` and ``transitions`` are sequences
that build :class:`~dslc.ir.dipa.State` and :class:`~dslc.ir.dipa.Transition`
objects on demand, with the spans of the block's syntax tree (whose states
are themselves parsed on demand, :mod:`dslc.syntax.fast_automaton`).  A
million states thus cost a few arrays instead of millions of objects, and
code written against ``dipa.states[q]`` works unchanged.

:func:`columns` gives the checker (:mod:`dslc.dipa.check`) the same columns
for every DiPA: a flat one's own, or built from the objects of any other.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from fractions import Fraction
from itertools import accumulate, chain, compress, repeat
from operator import le
from collections.abc import Sequence
from typing import NamedTuple

from dslc.native import module as _native      # the loops over every transition in C, or None
from dslc.syntax.fast_automaton import OnDemand
from dslc.ir.dipa import DiPA, Guard, Output, OutKind, State, Transition

GUARD_CODE = {Guard.TRUE: 0, Guard.GE: 1, Guard.LT: 2}
OUT_CODE = {OutKind.SYMBOL: 0, OutKind.INSAMPLE: 1, OutKind.INSAMPLE_PRIME: 2}
STORE_BIT = 4
OUT_SHIFT = 3


def code_of(guard: Guard, output: Output, store: bool) -> int:
    """A transition's kind as a small integer: guard | store << 2 | output kind << 3."""
    return GUARD_CODE[guard] | (STORE_BIT if store else 0) | (OUT_CODE[output.kind] << OUT_SHIFT)


def table(f) -> bytes:
    """A 256-byte translation table: code -> f(guard, store, output kind) (0 or 1),
    for ``bytes.translate`` over a column of codes."""
    out = bytearray(256)
    for c in range(32):
        out[c] = 1 if f(c & 3, bool(c & STORE_BIT), c >> OUT_SHIFT) else 0
    return bytes(out)




class Columns(NamedTuple):
    """What the checker reads of a DiPA (``code``: per transition, see
    :func:`code_of`)."""
    n: int                                  # states
    m: int                                  # transitions
    start: Sequence[int] | None             # CSR offsets (n + 1) when transitions are grouped by source
    src: Sequence[int]
    dst: Sequence[int]
    code: bytes
    is_input: bytes                         # per state, 0 or 1
    rate: Sequence[int]                     # per state, an index into rates
    rates: list[tuple[Fraction, Fraction]]  # (d, d′) of each rate class


def columns(dipa: DiPA) -> Columns:
    own = getattr(dipa, "own_columns", None)
    if own is not None:
        cols = own()
        if cols is not None:
            return cols
    ts = dipa.transitions
    src = array("i", [t.source for t in ts])
    dst = array("i", [t.target for t in ts])
    code = bytes([code_of(t.guard, t.output, t.store) for t in ts])
    states = dipa.states
    is_input = bytes([1 if s.is_input else 0 for s in states])
    # rate classes by identity (the lowering shares equal Fractions), so that a
    # large automaton does not hash a Fraction per state
    classes: dict[tuple[int, int], int] = {}
    rates: list[tuple[Fraction, Fraction]] = []
    rate = array("i")
    for s in states:
        key = (id(s.d), id(s.d_prime))
        c = classes.get(key)
        if c is None:
            c = classes[key] = len(rates)
            rates.append((s.d, s.d_prime))
        rate.append(c)
    start = None
    if all(map(le, src, src[1:])) and (not src or 0 <= src[0] and src[-1] < len(states)):
        counts = array("i", bytes(4 * len(states)))
        for s in src:
            counts[s] += 1
        start = array("i", [0])
        start.extend(accumulate(counts))
    return Columns(len(states), len(ts), start, src, dst, code, is_input, rate, rates)


def lookup(values, ids: array, kind):
    """``values[i]`` for every i in ``ids``, as ``bytes`` or an ``array("i")``
    (a byte translation when ids and values fit in a byte)."""
    if kind is bytes and len(values) <= 256 and ids.itemsize == 4 and sys.byteorder == "little" \
            and all(0 <= v < 256 for v in values):
        return ids.tobytes()[::4].translate(bytes(values) + bytes(256 - len(values)))
    if kind is array and _native is not None and ids.itemsize == 4 and ids.typecode == "i":
        out = array("i")
        out.frombytes(_native.take(array("i", values), ids))
        return out
    got = map(values.__getitem__, ids)
    return bytes(got) if kind is bytes else array("i", got)


class FlatDiPA(DiPA):
    """A DiPA stored as columns (see the module's docstring).  Built by
    :func:`dslc.ir.lower_automaton.lower_automaton` for flat blocks."""

    terminal_free = True          # no state is a halt state made by lowering

    @classmethod
    def build(cls, block, names: list[str], is_input: bytes, rate: array,
              classes: list[tuple[Fraction, Fraction, Fraction, Fraction]], counts: bytes,
              dst: array, kind_id: array, kinds: list[tuple[Guard, Output, bool]],
              shape_id: array, shape_rules: list[int], shape_rate: list[int]) -> "FlatDiPA":
        """``shape_id`` gives each state's shape (states written alike); a shape
        whose ``shape_rules`` (``shape_rate``) is nonzero may break a rule of
        Definition 3 (use a draw of rate 0)."""
        dipa = cls(block.name, states=[], transitions=[], span=block.name_span, kind="automaton")
        dipa._shape_id = shape_id
        dipa._shape_rules = shape_rules
        dipa._shape_rate = shape_rate
        dipa._columns = None
        dipa._block = block
        dipa._names = names
        dipa._is_input = is_input
        dipa._rate = rate
        dipa._classes = classes
        dipa._start = start = array("i", [0])
        start.extend(accumulate(counts))
        dipa._counts = counts
        dipa._dst = dst
        dipa._kind_id = kind_id
        dipa._kinds = kinds
        dipa._code = lookup([code_of(g, o, s) for g, o, s in kinds], kind_id, bytes)
        dipa._src = None
        dipa.states = OnDemand(len(names), dipa._state, "states")
        dipa.transitions = OnDemand(len(dst), dipa._transition, "transitions")
        return dipa

    def _intact(self) -> bool:
        """True unless a copy (``dataclasses.replace``) swapped the states or transitions."""
        return isinstance(self.__dict__.get("states"), OnDemand) and "_block" in self.__dict__ \
            and self.states._build == self._state and self.transitions._build == self._transition

    def own_columns(self) -> Columns | None:
        if not self._intact():
            return None
        if self._columns is None:
            if _native is not None:
                src = array("i")
                src.frombytes(_native.expand(self._counts))
            else:
                src = array("i", chain.from_iterable(map(repeat, range(len(self._names)), self._counts)))
            rates = [(d, d2) for d, _mu, d2, _mu2 in self._classes]
            self._columns = Columns(len(self._names), len(self._dst), self._start, src, self._dst, self._code,
                                    bytes(self._is_input), self._rate, rates)
        return self._columns

    def out_edges(self) -> list[list[int]]:
        if not self._intact():
            return super().out_edges()
        start = self._start
        return [list(range(start[q], start[q + 1])) for q in range(len(self._names))]

    def edges_of(self, q: int) -> range:
        """The transitions of state q (consecutive indices)."""
        return range(self._start[q], self._start[q + 1])

    def suspects(self) -> tuple[list[int], list[int], bool] | None:
        """For Definition 3 (:func:`dslc.ir.validate.validate_dipa`): the states
        that may break determinism, output distinction or the non-input rule,
        the states that may use a draw of rate 0, and whether any transition
        compares.  Decided once per shape; every other state passes them."""
        if not self._intact():
            return None
        n = len(self._names)

        def states_of(flags: list[int]) -> list[int]:
            marked = {k for k, f in enumerate(flags) if f}
            return list(compress(range(n), map(marked.__contains__, self._shape_id))) if marked else []

        compares = any(g is not Guard.TRUE for g, _o, _s in self._kinds)
        return states_of(self._shape_rules), states_of(self._shape_rate), compares

    def _state(self, q: int) -> State:
        decl = self._block.states[q]
        d, mu, d2, mu2 = self._classes[self._rate[q]]
        draws = decl.draws
        return State(self._names[q], bool(self._is_input[q]), d, mu, d2, mu2, span=decl.span,
                     name_span=decl.name_span, draw_span=draws[0].span,
                     prime_span=draws[1].span if len(draws) > 1 else None)

    def _transition(self, e: int) -> Transition:
        q = bisect_right(self._start, e) - 1
        t = self._block.states[q].transitions[e - self._start[q]]
        guard, out, store = self._kinds[self._kind_id[e]]
        return Transition(q, guard, self._dst[e], out, store, span=t.span, guard_span=t.guard.span,
                          output_span=t.output.span if t.output else None, store_span=t.store_span,
                          target_span=t.target_span)

