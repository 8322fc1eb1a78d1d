"""Formats for CI and scripts: `concise`, `github` and `junit` (`dslc check --format`).

- ``concise``: one line per finding, ``file:line:col: CODE message`` (ruff's
  concise format), then the count line of the text format.
- ``github``: GitHub Actions workflow commands (``::error file=…,line=…::…``),
  which the Actions runner shows as annotations on the pull request.
- ``junit``: JUnit XML: one test suite per file, one test case per block
  (``<failure>`` for a violation, ``<error>`` for a block that could not be
  checked or whose verdict is unknown) and one for the file's own diagnostics.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from dslc.diagnostics.model import Diagnostic, Severity
from dslc.diagnostics.render.gcc import _one_line
from dslc.diagnostics.render.display import visible
from dslc.results import FileResult, Verdict


def _where(d: Diagnostic, f: FileResult) -> tuple[str, int, int, int, int]:
    if d.span is not None:
        line, col = d.span.start_line_col
        end_line, end_col = d.span.end_line_col
        return d.span.path, line, col, end_line, end_col
    return f.path, 1, 1, 1, 1


def _count_line(files: list[FileResult]) -> str:
    from dslc.diagnostics.render.text import render_results
    return render_results([FileResult(f.path, f.source, f.blocks, f.diagnostics) for f in files],
                          styled=False).plain.splitlines()[-1] + "\n"


def render_concise(files: list[FileResult], quiet: bool = False) -> str:
    lines = []
    for f in files:
        for d in f.all_diagnostics:
            path, line, col, _, _ = _where(d, f)
            severity = "" if d.severity is Severity.ERROR else f"{d.severity.value}: "
            lines.append(f"{visible(path, one_line=True)}:{line}:{col}: {d.code or 'E000'} "
                         f"{severity}{_one_line(d.message)}")
    out = "\n".join(lines) + ("\n" if lines else "")
    return out if quiet or not files else out + _count_line(files)


_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(files: list[FileResult]) -> str:
    """One workflow command per finding (the runner's escaping of ``%``, line
    breaks, and in properties ``:`` and ``,``)."""
    lines = []
    for f in files:
        for d in f.all_diagnostics:
            path, line, col, end_line, end_col = _where(d, f)
            code = d.code or "E000"
            message = "\n".join([d.message, *(f"note: {n}" for n in d.notes), *(f"help: {h}" for h in d.help)])
            props = [f"file={_escape_property(path)}", f"line={line}", f"col={col}",
                     f"endLine={end_line}"]
            if end_line == line:
                props.append(f"endColumn={end_col}")
            props.append(f"title={_escape_property(f'dslc {code}')}")
            lines.append(f"::{_GITHUB_LEVEL.get(d.severity, 'error')} {','.join(props)}::"
                         f"{_escape_data(f'{code} {message}')}")
    return "\n".join(lines) + ("\n" if lines else "")


def render_junit(files: list[FileResult]) -> str:
    suites = ET.Element("testsuites", name="dslc")
    total = {"tests": 0, "failures": 0, "errors": 0}
    for f in files:
        suite = ET.SubElement(suites, "testsuite", name=f.path)
        counts = {"tests": 0, "failures": 0, "errors": 0}
        cases = []
        if f.diagnostics or not f.blocks:
            errors = [d for d in f.diagnostics if d.is_error]
            cases.append(("(file)", Verdict.ERROR if errors else Verdict.PRIVATE, f.diagnostics, ""))
        for b in f.blocks:
            cases.append((f"{b.kind} {b.name}", b.verdict, b.diagnostics, b.summary))
        for name, verdict, diagnostics, summary in cases:
            case = ET.SubElement(suite, "testcase", name=name, classname=f.path)
            counts["tests"] += 1
            body = "\n".join(render_concise([FileResult(f.path, f.source, [], list(diagnostics))],
                                            quiet=True).splitlines())
            if verdict is Verdict.NOT_PRIVATE:
                counts["failures"] += 1
                ET.SubElement(case, "failure", message=summary or "not private", type="not private").text = body
            elif verdict in (Verdict.ERROR, Verdict.UNKNOWN):
                counts["errors"] += 1
                ET.SubElement(case, "error", message=summary or verdict.value, type=verdict.value).text = body
            elif body:
                ET.SubElement(case, "system-out").text = body
        for key, value in counts.items():
            suite.set(key, str(value))
            total[key] += value
    for key, value in total.items():
        suites.set(key, str(value))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


__all__ = ["render_concise", "render_github", "render_junit"]
