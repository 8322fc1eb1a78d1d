"""SARIF 2.1.0 output (`dslc check --format sarif`) for code-review tools.

One run per invocation.  ``tool.driver.rules`` lists the codes its results
use (a log without results has no rule), in order of code; ``results`` one result per
diagnostic with its primary location and a ``relatedLocations`` entry per
secondary label.  Regions are 1-based; columns are counted in UTF-16 code
units (``run.columnKind``), as the web viewers of SARIF expect, and the end
column is exclusive.  Relative paths are given relative to ``%SRCROOT%``, the
working directory of the run.  Block verdicts are listed in
``run.properties.blocks``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from dslc import __version__, limits
from dslc.diagnostics import codes
from dslc.diagnostics.model import Diagnostic, Severity
from dslc.diagnostics.render.json import dumps, json_safe
from dslc.ir.dipa import fmt_fraction
from dslc.results import FileResult
from dslc.source import SourceFile, Span

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
SRCROOT = "%SRCROOT%"


def _default_level(code: str) -> str:
    if code.startswith("W"):
        return "warning"
    return "error"


def _rule(info: codes.CodeInfo) -> dict:
    rule = {
        "id": info.code,
        "name": info.title,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.explanation or info.summary},
        "help": {"text": info.explanation or info.summary},
        "defaultConfiguration": {"level": _default_level(info.code)},
    }
    return rule


def _artifact_location(path: str) -> dict:
    p = Path(path)
    if p.is_absolute():
        return {"uri": p.as_uri()}
    return {"uri": quote(p.as_posix()), "uriBaseId": SRCROOT}


def _position(file: SourceFile, offset: int) -> tuple[int, int]:
    """1-based line and 1-based column in UTF-16 code units of a character
    offset (the text's lines end at `\n`: SourceFile normalises CR and CRLF)."""
    offset = max(0, min(offset, len(file.text)))
    line, col = file.line_col(offset)
    prefix = file.text[offset - col + 1:offset]
    if not prefix.isascii():
        col = len(prefix.encode("utf-16-le", "surrogatepass")) // 2 + 1
    return line, col


class _Regions:
    def region(self, span: Span) -> dict:
        (line, col), (end_line, end_col) = (_position(span.file, span.start),
                                            _position(span.file, max(span.start, span.end)))
        region = {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col}
        if span.end > span.start and end_line == line:
            region["snippet"] = {"text": span.text}
        return region

    def location(self, span: Span | None, path: str, message: str = "") -> dict:
        if span is not None:
            physical = {"artifactLocation": _artifact_location(span.path), "region": self.region(span)}
        else:
            physical = {"artifactLocation": _artifact_location(path),
                        "region": {"startLine": 1, "startColumn": 1}}
        loc: dict = {"physicalLocation": physical}
        if message:
            loc["message"] = {"text": message}
        return loc


def _text(d: Diagnostic) -> str:
    lines = [d.message]
    lines += [f"note: {n}" for n in d.notes]
    lines += [f"help: {h}" for h in d.help]
    return "\n".join(lines)


def sarif_log(files: list[FileResult]) -> dict:
    used = sorted({d.code or "E000" for f in files for d in f.all_diagnostics})
    rules = [_rule(codes.REGISTRY[code]) if code in codes.REGISTRY
             else {"id": code, "defaultConfiguration": {"level": _default_level(code)}}   # unregistered: still a valid rule
             for code in used]
    index = {code: i for i, code in enumerate(used)}
    regions = _Regions()
    results = []
    blocks = []
    artifacts: dict[str, dict] = {}

    def add_artifact(path: str, source: SourceFile | None) -> None:
        if path not in artifacts:
            item = {"location": _artifact_location(path)}
            if source is not None:
                item["length"] = len(source.text.encode("utf-8"))
            artifacts[path] = item

    for f in files:
        add_artifact(f.path, f.source)
        for b in f.blocks:
            block = {"file": f.path, "name": b.name, "kind": b.kind, "verdict": b.verdict.value,
                     "d": fmt_fraction(b.d) if b.d is not None else None}
            if b.span is not None:
                block["region"] = regions.region(b.span)
            blocks.append(block)
        for d in f.all_diagnostics:
            limits.checkpoint()
            code = d.code or "E000"
            primary = d.primary
            result = {
                "ruleId": code,
                "ruleIndex": index[code],
                "level": LEVEL.get(d.severity, "error"),
                "message": {"text": _text(d)},
                "locations": [regions.location(d.span, f.path, primary.message if primary else "")],
            }
            related = []
            for i, label in enumerate(d.related, start=1):
                if label.span is None:
                    continue
                add_artifact(label.span.path, label.span.file)
                related.append({"id": i, **regions.location(label.span, f.path,
                                                            label.message or "related location")})
            if related:
                result["relatedLocations"] = related
            if d.data:
                result["properties"] = json.loads(json.dumps(json_safe(d.data), default=str))
            results.append(result)

    cwd = Path(os.getcwd()).as_uri().rstrip("/") + "/"
    run = {
        "tool": {"driver": {"name": "dslc", "version": __version__, "semanticVersion": __version__,
                            "rules": rules}},
        "originalUriBaseIds": {SRCROOT: {"uri": cwd}},
        "artifacts": list(artifacts.values()),
        "columnKind": "utf16CodeUnits",
        "results": results,
        "properties": {"blocks": blocks},
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(files: list[FileResult]) -> str:
    """The SARIF log as compact JSON (:func:`dslc.diagnostics.render.json.dumps`)."""
    return dumps(sarif_log(files))
