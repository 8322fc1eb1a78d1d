"""The JSON form of a run (LANGUAGE.md, "Checking"), read by other tools.

Extra keys beyond the contract: per diagnostic `severity`, `notes`, `help`
and `data` (witnesses); per block `summary` and `details`; per file
`diagnostics` for errors outside any block (a missing file, stray text).

The text is compact (no indentation, no spaces after separators): it is
written by the json module's C encoder, in time proportional to its size
(indentation makes json use its Python encoder, about 30 times slower on a
large automaton's lists).  `--format json | python3 -m json.tool` shows it
indented.
"""

from __future__ import annotations

import json
import math

from dslc import limits
from dslc.diagnostics.model import Diagnostic
from dslc.ir.dipa import fmt_fraction
from dslc.results import FileResult


def _span(span) -> dict | None:
    return span.to_dict() if span is not None else None


def diagnostic_json(d: Diagnostic) -> dict:
    return {
        "code": d.code,
        "severity": d.severity.value,
        "message": d.message,
        "span": _span(d.span),
        "related": [{"message": lab.message, "span": _span(lab.span)} for lab in d.related],
        "notes": list(d.notes),
        "help": list(d.help),
        **({"data": d.data} if d.data else {}),
    }


def results_json(files: list[FileResult]) -> dict:
    out = []
    for f in files:
        blocks = []
        for b in f.blocks:
            limits.checkpoint()
            blocks.append({
                "name": b.name,
                "kind": b.kind,
                "verdict": b.verdict.value,
                "d": fmt_fraction(b.d) if b.d is not None else None,
                **b.bounds,
                "diagnostics": [diagnostic_json(d) for d in b.diagnostics],
                "summary": b.summary,
                "span": _span(b.span),
                "details": b.details,
            })
        out.append({"file": f.path, "blocks": blocks,
                    "diagnostics": [diagnostic_json(d) for d in f.diagnostics]})
    return {"files": out}


def json_safe(value):
    """Strict JSON has no NaN or infinity: such floats are written as strings
    ("inf", "-inf", "nan"), so every consumer can parse the output."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def dumps(value) -> str:
    """``value`` as compact, strict JSON (non-finite floats as strings, see
    :func:`json_safe`; other objects through ``str``).  The C encoder writes
    it in one call; only a document that holds a non-finite float is walked
    in Python first.  The time budget is checked after the encoding."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=False)
    except ValueError:                      # a non-finite float somewhere
        limits.checkpoint()
        text = json.dumps(json_safe(value), ensure_ascii=False, separators=(",", ":"), default=str,
                          allow_nan=False)
    limits.checkpoint()
    return text


def render_json(files: list[FileResult]) -> str:
    return dumps(results_json(files))
