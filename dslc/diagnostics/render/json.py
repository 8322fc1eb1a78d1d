"""The JSON form of a run (LANGUAGE.md, "Checking"), read by other tools.

Extra keys beyond the contract: per diagnostic `severity`, `notes`, `help`
and `data` (witnesses); per block `summary` and `details`; per file
`diagnostics` for errors outside any block (a missing file, stray text).
"""

from __future__ import annotations

import json
import math

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


def render_json(files: list[FileResult]) -> str:
    return json.dumps(json_safe(results_json(files)), ensure_ascii=False, indent=2, default=str,
                      allow_nan=False)
