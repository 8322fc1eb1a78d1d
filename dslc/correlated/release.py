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

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from dslc.diagnostics.model import DiagnosticError, error
from dslc.ir.chain import ChainIR
from dslc.numbers import fmt_fraction as fmt_q
from dslc.source import SourceFile


@dataclass
class Series:
    states: list[int]          # indices into ir.states
    source: SourceFile


def _placeholder(path: str) -> SourceFile:
    return SourceFile(path, "")


def read_series(path: str, ir: ChainIR, column: str | None = None, header: bool = False) -> Series:
    """Read one state per record; raises DiagnosticError (E260–E263)."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise DiagnosticError(error("E260", f"no such data file: {path}", _placeholder(path).whole(),
                                    "file not found").with_help("check the path given to `--data`")) from None
    except IsADirectoryError:
        raise DiagnosticError(error("E260", f"{path} is a directory, not a data file",
                                    _placeholder(path).whole())) from None
    except OSError as exc:
        raise DiagnosticError(error("E260", f"cannot read {path}: {exc.strerror or exc}",
                                    _placeholder(path).whole())) from None
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
    lines = []          # (start offset, line text)
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if body.strip():
            lines.append((pos, body))
        pos += len(line)
    if not lines:
        raise DiagnosticError(error("E261", f"{path} holds no records", src.span(0, 0), "empty")
                              .with_help("write one state per line"))
    col_index = 0
    if header:
        h_start, h_body = lines[0]
        names = [f.strip().strip('"') for f, _, _ in _fields(h_body)]
        if column is not None and not column.isdigit():
            if column not in names:
                raise DiagnosticError(error("E261", f"the header has no column `{column}`",
                                            src.span(h_start, h_start + len(h_body)), "header")
                                      .with_help("columns: " + ", ".join(names)))
            col_index = names.index(column)
        lines = lines[1:]
        if not lines:
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
    out: list[int] = []
    for start, body in lines:
        fields = _fields(body)
        if col_index >= len(fields):
            raise DiagnosticError(error("E261", f"this record has {len(fields)} field"
                                                f"{'s' if len(fields) != 1 else ''}, no column {col_index + 1}",
                                        src.span(start, start + len(body)), "too few fields")
                                  .with_help("every record needs the state column"))
        value, fs, fe = fields[col_index]
        token = value.strip()
        lead = len(value) - len(value.lstrip())
        span = src.span(start + fs + lead, start + fs + lead + len(token))
        if len(token) >= 2 and token[0] == token[-1] == '"':
            token = token[1:-1]
        index = labels.get(token)
        if index is None and values:
            try:
                index = values.get(Fraction(token))
            except (ValueError, ZeroDivisionError):
                index = None
        if index is None:
            shown = ", ".join(s.label for s in ir.states[:12]) + (", …" if ir.k > 12 else "")
            diag = error("E262", f"`{token}` is not a state of `{ir.name}`", span, "not in the state space")
            diag.with_help(f"the states are: {shown}")
            if len(out) == 0 and not header:
                diag.note("if this line holds column names, pass `--header`")
            raise DiagnosticError(diag)
        out.append(index)
    if len(out) != ir.length:
        end = len(text)
        raise DiagnosticError(error("E263", f"the series has {len(out)} record{'s' if len(out) != 1 else ''}, "
                                            f"but `{ir.name}` was calibrated for length {ir.length}",
                                    src.span(end, end), f"{len(out)} records")
                              .with_help(f"give exactly {ir.length} records, or set `length = {len(out)}`"))
    return Series(out, src)


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


def evaluate(ir: ChainIR, states: list[int]) -> list[Fraction]:
    """The exact query value (one coordinate, or one per state for histograms)."""
    q = ir.query
    if q.kind == "sum":
        vals = ir.state_values()
        return [sum((vals[s] for s in states), Fraction(0))]
    if q.kind == "count":
        return [Fraction(sum(1 for s in states if s == q.count_state))]
    if q.kind == "histogram":
        counts = [0] * ir.k
        for s in states:
            counts[s] += 1
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
