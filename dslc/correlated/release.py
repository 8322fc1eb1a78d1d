"""Releasing a query of a series with calibrated Laplace noise.

Reading the series (with diagnostics that point into the data file),
evaluating the query exactly, and sampling the noise.  Nothing here prints.

The sampler
-----------
Lap(b) is drawn as  sign · b · E  with E = −log(1 − U) ~ Exp(1), U uniform on
[0, 1) with 53 random bits (``random.random``), and an independent fair sign
bit.  With ``--seed S`` the generator is Python's Mersenne Twister seeded with
S (reproducible across runs and platforms); without a seed it is
``random.SystemRandom``, i.e. the operating system's randomness (os.urandom).

Floating-point caveat: this is the textbook floating-point Laplace sampler.
Its outputs are not exactly Laplace-distributed (U has 2^53 values; the log
and the product are rounded), and Mironov (CCS 2012) showed that the low-order
bits of such a noisy float can reveal the unnoised value.  dslc does not
implement the snapping mechanism that defends against this; treat the
released float as if rounded to a few significant digits if that matters.
"""

from __future__ import annotations

import itertools
import math
import random
from array import array
from dataclasses import dataclass
from fractions import Fraction

from dslc import limits
from dslc.diagnostics.model import DiagnosticError, error
from dslc.ir.chain import ChainIR
from dslc.numbers import fmt_fraction as fmt_q
from dslc.source import SourceFile


# The largest data file `dslc release` reads: 64 MiB (about 32 million records
# of one digit).  Records are kept as one byte each, so the memory stays
# within a few times the file size.
MAX_DATA_BYTES = 64 * 2**20


@dataclass
class Series:
    states: bytearray | array   # indices into ir.states, one per record
    source: SourceFile


def _placeholder(path: str) -> SourceFile:
    return SourceFile(path, "")


def read_series(path: str, ir: ChainIR, column: str | None = None, header: bool = False,
                max_bytes: int = limits.MAX_FILE_BYTES) -> Series:
    """Read one state per record; raises DiagnosticError (E260–E263, E267)."""
    # The input policy (dslc.limits): a regular file (or `-`) of bounded size;
    # a FIFO, a device such as /dev/zero or a socket is refused without being read.
    try:
        raw = limits.read_input(path, max_bytes, "data file")
    except IsADirectoryError:
        raise DiagnosticError(error("E260", f"{path} is a directory, not a data file",
                                    _placeholder(path).whole(), "a directory")
                              .with_help("give the file that holds the series")) from None
    except limits.InputError as exc:
        diag = error("E260", exc.message, _placeholder(path).whole(), "cannot be read")
        diag.with_help("check the path given to `--data`" if exc.message.startswith("no such")
                       else exc.help or "give a regular file, or `-` to read standard input")
        raise DiagnosticError(diag) from None
    try:
        raw.decode("utf-8")              # the first undecodable byte, before NUL checks
        src = SourceFile.from_bytes(path, raw)
    except UnicodeDecodeError as exc:
        good = raw[:exc.start].decode("utf-8", errors="replace")
        src = SourceFile(path, good + "\n")
        raise DiagnosticError(error("E260", f"{path} is not UTF-8 text (byte {exc.start} cannot be decoded)",
                                    src.span(len(good), len(good)), "binary data starts here")
                              .with_help("the series is a text file with one record per line")) from None
    text = src.text
    records = _records(text)
    first = next(records, None)
    if first is None:
        raise DiagnosticError(error("E261", f"{path} holds no records", src.span(0, 0), "empty")
                              .with_help("write one state per line"))
    col_index = 0
    if header:
        h_start, h_body = first
        names = [f.strip().strip('"') for f, _, _ in _fields(h_body)]
        if column is not None and not column.isdigit():
            if column not in names:
                raise DiagnosticError(error("E261", f"the header has no column `{column}`",
                                            src.span(h_start, h_start + len(h_body)), "header")
                                      .with_help("columns: " + ", ".join(names)))
            col_index = names.index(column)
        first = next(records, None)
        if first is None:
            raise DiagnosticError(error("E261", f"{path} holds a header but no records",
                                        src.span(h_start, h_start + len(h_body)), "only a header"))
    if column is not None and column.isdigit():
        col_index = int(column) - 1
        if col_index < 0:
            raise DiagnosticError(error("E261", "columns are numbered from 1", None))
    elif column is not None and not header:
        raise DiagnosticError(error("E261", f"`--column {column}` names a column, but there is no header",
                                    None).with_help("add `--header`, or give the column number"))
    labels = {s.label: i for i, s in enumerate(ir.states)}
    values = {}
    for i, s in enumerate(ir.states):
        if s.value is not None and s.label == fmt_q(s.value):
            values[s.value] = i
    # one small integer per record (memory: a byte per record for up to 256 states)
    out = bytearray() if ir.k <= 256 else array("l")
    n = 0
    for start, body in itertools.chain([first], records):
        if not n & 4095:
            limits.checkpoint()
        if n == ir.length:
            total = n + 1 + sum(1 for _ in records)
            raise DiagnosticError(error("E263", f"the series has {total} records, but `{ir.name}` was "
                                                f"calibrated for length {ir.length}",
                                        src.span(start, start + len(body)), f"record {ir.length + 1}")
                                  .with_help(f"give exactly {ir.length} records, or set `length = {total}`"))
        token, span = _state_field(src, start, body, col_index)
        index = labels.get(token)
        if index is None and values:
            try:
                index = values.get(Fraction(token)) if len(token) <= 100 else None
            except (ValueError, ZeroDivisionError):
                index = None
        if index is None:
            shown = ", ".join(s.label for s in ir.states[:12]) + (", …" if ir.k > 12 else "")
            diag = error("E262", f"`{_short(token)}` is not a state of `{ir.name}`", span, "not in the state space")
            diag.with_help(f"the states are: {shown}")
            if n == 0 and not header:
                diag.note("if this line holds column names, pass `--header`")
            raise DiagnosticError(diag)
        out.append(index)
        n += 1
    if n != ir.length:
        end = len(text)
        raise DiagnosticError(error("E263", f"the series has {n} record{'s' if n != 1 else ''}, "
                                            f"but `{ir.name}` was calibrated for length {ir.length}",
                                    src.span(end, end), f"{n} records")
                              .with_help(f"give exactly {ir.length} records, or set `length = {n}`"))
    impossible = _impossible(ir, out)
    if impossible is not None:
        at, why = impossible
        span = prev = None
        for i, (start, body) in enumerate(_records(text, skip=1 if header else 0)):
            if i == at - 1:
                prev = _state_field(src, start, body, col_index)[1]
            if i == at:
                span = _state_field(src, start, body, col_index)[1]
                break
        diag = error("E267", f"this series cannot come from the chain{'s' if len(ir.models) > 1 else ''} of "
                             f"`{ir.name}`: {why}", span, "impossible here")
        if prev is not None:
            diag.secondary(prev, "after this record")
        diag.note("the noise is calibrated for the series that the declared Θ allows; for this one it "
                  "would guarantee nothing, so nothing is released")
        diag.with_help("fix the data, or declare a model (`initial`, `transition`) under which it is possible")
        raise DiagnosticError(diag)
    return Series(out, src)


def _records(text: str, skip: int = 0):
    """(start offset, line) of every non-blank line, lazily (no list of lines)."""
    pos = 0
    n = len(text)
    find = text.find
    while pos < n:
        nl = find("\n", pos)
        if nl < 0:
            nl = n
        body = text[pos:nl].rstrip("\r")
        if body.strip():
            if skip:
                skip -= 1
            else:
                yield pos, body
        pos = nl + 1


def _state_field(src: SourceFile, start: int, body: str, col_index: int):
    """The state token of a record and its span (E261 when the column is missing)."""
    fields = _fields(body)
    if col_index >= len(fields):
        raise DiagnosticError(error("E261", f"this record has {len(fields)} field"
                                            f"{'s' if len(fields) != 1 else ''}, no column {col_index + 1}",
                                    src.span(start, start + len(body)), "too few fields")
                              .with_help("every record needs the state column"))
    value, fs, _fe = fields[col_index]
    token = value.strip()
    lead = len(value) - len(value.lstrip())
    span = src.span(start + fs + lead, start + fs + lead + len(token))
    if len(token) >= 2 and token[0] == token[-1] == '"':
        token = token[1:-1]
    return token, span


def _short(token: str) -> str:
    return token if len(token) <= 40 else token[:37] + "..."


def _impossible(ir: ChainIR, states) -> tuple[int, str] | None:
    """None when some θ ∈ Θ gives the series a positive probability, else
    (record index, reason) for the θ that follows it longest."""
    best: tuple[int, str] | None = None
    for model in ir.models:
        P, q = model.transition, model.initial
        possible = [bytes(1 if p > 0 else 0 for p in row) for row in P]
        if q[states[0]] == 0:
            at, why = 0, f"the first record `{ir.states[states[0]].label}` has initial probability 0"
        else:
            at, why = -1, ""
            for t in range(1, len(states)):
                if not t & 65535:
                    limits.checkpoint()
                if not possible[states[t - 1]][states[t]]:
                    at = t
                    why = (f"record {t + 1} goes from `{ir.states[states[t - 1]].label}` to "
                           f"`{ir.states[states[t]].label}`, a transition of probability 0")
                    break
            if at < 0:
                return None
        if len(ir.models) > 1:
            why += f" (model `{model.name}`)"
        if best is None or at > best[0]:
            best = (at, why)
    return best


def _fields(line: str) -> list[tuple[str, int, int]]:
    """Comma-separated fields with their offsets; double quotes group."""
    out = []
    start = 0
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            out.append((line[start:i], start, i))
            start = i + 1
    out.append((line[start:], start, len(line)))
    return out


def evaluate(ir: ChainIR, states) -> list[Fraction]:
    """The exact query value (one coordinate, or one per state for histograms),
    from the number of records in each state."""
    q = ir.query
    if isinstance(states, (bytes, bytearray)):
        counts = [states.count(i) for i in range(ir.k)]
    else:
        counts = [0] * ir.k
        for s in states:
            counts[s] += 1
    if q.kind == "sum":
        vals = ir.state_values()
        return [sum((vals[i] * c for i, c in enumerate(counts) if c), Fraction(0))]
    if q.kind == "count":
        return [Fraction(counts[q.count_state])]
    if q.kind == "histogram":
        return [Fraction(c) for c in counts]
    raise ValueError("query not computable")


def make_rng(seed: int | None) -> random.Random:
    return random.Random(seed) if seed is not None else random.SystemRandom()


def laplace(rng: random.Random, scale: float) -> float:
    """One draw of Lap(scale): sign · scale · Exp(1)."""
    if scale == 0:
        return 0.0
    e = -math.log1p(-rng.random())          # 1 − U ∈ (0, 1], so E is finite
    sign = 1.0 if rng.getrandbits(1) else -1.0
    return sign * scale * e


def release(values: list[Fraction], scale: float, rng: random.Random) -> list[float]:
    return [float(v) + laplace(rng, scale) for v in values]
