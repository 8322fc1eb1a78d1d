"""`dslc check --format sarif`: SARIF 2.1.0, validated structurally.

The validator below checks the properties the SARIF 2.1.0 specification
requires (and the constraints code-review tools rely on) for the parts of the
format dslc writes: sarifLog, run, tool/driver, reportingDescriptor (rules),
result, location, physicalLocation, artifactLocation and region.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.diagnostics import codes
from dslc.diagnostics.model import Diagnostic
from dslc.diagnostics.render.json import results_json
from dslc.diagnostics.render.sarif import render_sarif, sarif_log
from dslc.pipeline import check_paths, check_source
from dslc.results import FileResult
from dslc.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
LEVELS = {"none", "note", "warning", "error"}


def _message(obj: dict, where: str) -> None:
    assert isinstance(obj, dict) and isinstance(obj.get("text"), str) and obj["text"], f"{where}: message.text"


def _region(region: dict, where: str) -> None:
    for key in ("startLine", "startColumn", "endLine", "endColumn"):
        if key in region:
            assert isinstance(region[key], int) and region[key] >= 1, f"{where}: {key} is 1-based"
    assert "startLine" in region, f"{where}: a text region needs startLine"
    end_line = region.get("endLine", region["startLine"])
    assert end_line >= region["startLine"], f"{where}: endLine before startLine"
    if end_line == region["startLine"] and "endColumn" in region:
        assert region["endColumn"] >= region.get("startColumn", 1), f"{where}: endColumn before startColumn"


def _location(loc: dict, where: str, base_ids: dict) -> None:
    phys = loc["physicalLocation"]
    art = phys["artifactLocation"]
    assert isinstance(art["uri"], str) and art["uri"], f"{where}: artifactLocation.uri"
    if "uriBaseId" in art:
        assert art["uriBaseId"] in base_ids, f"{where}: unknown uriBaseId"
        assert not art["uri"].startswith("/"), f"{where}: a relative reference"
    else:
        assert art["uri"].startswith("file:"), f"{where}: an absolute URI"
    _region(phys["region"], where)
    if "message" in loc:
        _message(loc["message"], where)


def validate_sarif(log: dict) -> None:
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and log["runs"]
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        rules = driver.get("rules", [])
        ids = [r["id"] for r in rules]
        assert len(ids) == len(set(ids)), "rule ids are unique"
        for rule in rules:
            assert isinstance(rule["id"], str) and rule["id"]
            for key in ("shortDescription", "fullDescription", "help"):
                if key in rule:
                    _message(rule[key], f"rule {rule['id']} {key}")
            if "defaultConfiguration" in rule:
                assert rule["defaultConfiguration"]["level"] in LEVELS
        assert run.get("columnKind") in ("utf16CodeUnits", "unicodeCodePoints")
        base_ids = run.get("originalUriBaseIds", {})
        for name, base in base_ids.items():
            assert base["uri"].startswith("file:") and base["uri"].endswith("/"), name
        for i, result in enumerate(run["results"]):
            where = f"result {i}"
            _message(result["message"], where)
            assert result["level"] in LEVELS
            assert result["ruleId"] in ids, f"{where}: ruleId is a rule"
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"], f"{where}: ruleIndex matches ruleId"
            assert result["locations"], f"{where}: has a location"
            for loc in result["locations"]:
                _location(loc, where, base_ids)
            related_ids = [r["id"] for r in result.get("relatedLocations", [])]
            assert len(related_ids) == len(set(related_ids)) and all(
                isinstance(x, int) and x >= 0 for x in related_ids), f"{where}: relatedLocation ids"
            for loc in result.get("relatedLocations", []):
                _location(loc, where, base_ids)


def test_a_log_without_results_has_no_rules(tmp_path):
    (tmp_path / "ok.dp").write_text((ROOT / "examples" / "svt.dp").read_text(encoding="utf-8"), encoding="utf-8")
    log = json.loads(render_sarif(check_paths([str(tmp_path / "ok.dp")])))
    validate_sarif(log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []
    assert len(json.dumps(log)) < 5000


def test_examples_sarif_is_valid_and_matches_the_json_output():
    files = check_paths([str(ROOT / "examples")])
    log = json.loads(render_sarif(files))
    validate_sarif(log)
    run = log["runs"][0]
    rule_ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert rule_ids == {r["ruleId"] for r in run["results"]}   # the rules its results use, no other
    assert all("helpUri" not in r and set(r) >= {"name", "help"} for r in run["tool"]["driver"]["rules"])
    assert "informationUri" not in run["tool"]["driver"]
    assert {"DP001", "DP002", "DP004", "DP101"} <= {r["ruleId"] for r in run["results"]}
    # one result per diagnostic, in order, at the same place as in the JSON output
    expected = []
    for f in results_json(files)["files"]:
        lines = Path(f["file"]).read_text(encoding="utf-8").split("\n")
        for d in f["diagnostics"] + [d for b in f["blocks"] for d in b["diagnostics"]]:
            span = d["span"]
            text = lines[span["line"] - 1]
            col16 = len(text[:span["column"] - 1].encode("utf-16-le")) // 2 + 1
            expected.append((f["file"], d["code"], span["line"], col16, len(d["related"])))
    got = []
    for r in run["results"]:
        phys = r["locations"][0]["physicalLocation"]
        got.append((phys["artifactLocation"]["uri"], r["ruleId"], phys["region"]["startLine"],
                    phys["region"]["startColumn"], len(r.get("relatedLocations", []))))
    assert [(Path(unquote(u)).name, *rest) for u, *rest in got] == \
        [(Path(f).name, *rest) for f, *rest in expected]
    blocks = run["properties"]["blocks"]
    assert {"file", "name", "kind", "verdict", "d"} <= set(blocks[0])
    assert sum(len(f.blocks) for f in files) == len(blocks)


def test_dp001_result_has_cycle_related_locations_and_relative_uri(monkeypatch):
    monkeypatch.chdir(ROOT)
    files = check_paths(["examples/sorted_desc.dp"])
    log = sarif_log(files)
    validate_sarif(log)
    text = (ROOT / "examples" / "sorted_desc.dp").read_text(encoding="utf-8")
    lines = text.split("\n")
    first = log["runs"][0]["results"][0]
    assert first["ruleId"] == "DP001" and first["level"] == "error"
    loc = first["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "examples/sorted_desc.dp", "uriBaseId": "%SRCROOT%"}
    store_line = next(i for i, line in enumerate(lines, 1) if "x := s" in line)
    col = lines[store_line - 1].index("x := s") + 1
    assert loc["region"] == {"startLine": store_line, "startColumn": col, "endLine": store_line,
                             "endColumn": col + 6, "snippet": {"text": "x := s"}}
    related = {(r["physicalLocation"]["region"]["startLine"], r["message"]["text"])
               for r in first["relatedLocations"]}
    loop_line = next(i for i, line in enumerate(lines, 1) if "loop {" in line)
    assert related == {(store_line, "the next turn compares a fresh draw with that `x`"),
                       (loop_line, "and the loop repeats")}
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.as_uri() + "/"
    assert "help: " in first["message"]["text"]


def test_columns_are_utf16_code_units():
    text = "automaton a {\n    /* 😀 */ state q0 noinput Lap(2/ε, 0) { true -> q0 store }\n}\n"
    result = check_source(SourceFile("/abs/emoji.dp", text))
    log = sarif_log([result])
    validate_sarif(log)
    [res] = log["runs"][0]["results"]
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "file:///abs/emoji.dp"}
    line = text.split("\n")[1]
    bad = next(d for d in result.all_diagnostics)
    col = bad.span.start - text.index(line) + 1                # code point column
    assert loc["region"]["startLine"] == 2
    assert loc["region"]["startColumn"] == col + 1             # the emoji is two UTF-16 units


def test_missing_file_and_unregistered_code():
    missing = check_paths(["/nonexistent/dir/x.dp"])
    odd = FileResult("odd.dp", SourceFile("odd.dp", "x"))
    odd.diagnostics.append(Diagnostic("X999", "a code nobody registered"))
    log = sarif_log(missing + [odd])
    validate_sarif(log)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["E004", "X999"]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    assert results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "odd.dp"


def test_cli_writes_sarif_and_keeps_the_exit_status(tmp_path):
    out = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "sarif",
                          "examples/sorted_desc.dp", "examples/svt.dp"],
                         cwd=ROOT, capture_output=True, text=True, encoding="utf-8",
                         env={**os.environ, "NO_COLOR": "1"})
    assert out.returncode == 1 and out.stderr == ""
    log = json.loads(out.stdout)
    validate_sarif(log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["DP001", "DP001"]


@pytest.mark.parametrize("broken", [
    {"version": "2.0.0"},
    {"runs": [{"tool": {"driver": {"name": "dslc", "rules": [{"id": "DP001"}]}}, "columnKind": "utf16CodeUnits",
               "results": [{"ruleId": "DP002", "ruleIndex": 0, "level": "error", "message": {"text": "m"},
                            "locations": []}]}]},
    {"runs": [{"tool": {"driver": {"name": "dslc", "rules": [{"id": "DP001"}]}}, "columnKind": "utf16CodeUnits",
               "results": [{"ruleId": "DP001", "ruleIndex": 0, "level": "error", "message": {"text": "m"},
                            "locations": [{"physicalLocation": {"artifactLocation": {"uri": "file:///a"},
                                                                "region": {"startLine": 0}}}]}]}]},
])
def test_the_validator_rejects_broken_logs(broken):
    log = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", **broken}
    with pytest.raises((AssertionError, KeyError)):
        validate_sarif(log)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab\n\r\t é😀\u2028\x85\f")), max_size=40), st.data())
def test_regions_equal_the_protocol_positions(text, data):
    """SARIF's UTF-16 positions, computed from the source's own line table,
    are the language server's (`PositionEncoder`) on the same text."""
    from dslc.diagnostics.render.lsp import UTF16, PositionEncoder
    from dslc.diagnostics.render.sarif import _position
    source = SourceFile("t.dp", text)
    enc = PositionEncoder(source.text, UTF16)
    offset = data.draw(st.integers(0, len(source.text) + 2))
    p = enc.position(offset)
    assert _position(source, offset) == (p.line + 1, p.character + 1)
