"""The JSON form of a run (LANGUAGE.md, "Checking"), read by other tools.

Extra keys beyond the contract: per diagnostic `severity`, `notes`, `help`
and `data` (witnesses); per block `summary` and `details`; per file
`diagnostics` for errors outside any block (a missing file, stray text).
"""

from __future__ import annotations

import json

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
                "diagnostics": [diagnostic_json(d) for d in b.diagnostics],
                "summary": b.summary,
                "span": _span(b.span),
                "details": b.extra,
            })
        out.append({"file": f.path, "blocks": blocks,
                    "diagnostics": [diagnostic_json(d) for d in f.diagnostics]})
    return {"files": out}


def render_json(files: list[FileResult]) -> str:
    return json.dumps(results_json(files), ensure_ascii=False, indent=2, default=str)
