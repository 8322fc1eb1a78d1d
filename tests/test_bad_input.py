"""Bad input never shows a traceback: each gets an error with a code and a span, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def check_json(path: Path) -> tuple[int, dict, str]:
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "json", str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def all_diags(data: dict) -> list[dict]:
    out = []
    for f in data["files"]:
        out.extend(f["diagnostics"])
        for b in f["blocks"]:
            out.extend(b["diagnostics"])
    return out


CASES = {
    "empty": (b"", "E006"),
    "only_comments": (b"// nothing here\n/* nor here */\n", "E006"),
    "binary": (bytes(range(256)) * 8, "E004"),
    "nested_braces": (b"{" * 10000 + b"}" * 10000, "E007"),
    "nested_in_block": (b"mechanism m { " + b"loop { " * 10000 + b"}" * 10001, "E005"),
    "nested_parens_in_bad_block": (b"mechanism m { x := Lap(eps, " + b"(" * 10000 + b"0" + b")" * 10000 + b") q }", "E001"),
    "unknown_state": ("automaton a {\n  state q0 noinput Lap(ε, 0) { true -> q9 store }\n}\n".encode(), "E101"),
    "two_initial": ("automaton a {\n  state q0 noinput Lap(ε, 0) {\n    true -> q1 store\n"
                    "    true -> q1 output ⊤ store\n  }\n  state q1 input Lap(ε, 0) { }\n}\n".encode(), "E105"),
    "scale_not_rate": ("automaton a {\n  state q0 noinput Lap(2/ε, 0) { true -> q1 store }\n"
                       "  state q1 input Lap(ε, 0) { }\n}\n".encode(), "E107"),
    "copy_of_stored": ("mechanism m {\n  l := Lap(ε/4, 0)\n  r := Lap(ε/4, 1)\n  loop {\n"
                       "    s := Lap(ε/4, read())\n"
                       "    if s >= l && s < r { output ⊤; l := r } else { halt }\n  }\n}\n".encode(), "E133"),
    "stray_text": (b"hello world\n", "E007"),
    "unterminated_comment": ("automaton a { /* never closed\n".encode(), "E003"),
    "not_utf8": ("automaton a { }".encode("utf-16"), "E004"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_gets_code_span_and_exit_2(tmp_path, name):
    data, code = CASES[name]
    path = tmp_path / f"{name}.dp"
    path.write_bytes(data)
    status, out, _ = check_json(path)
    assert status == 2
    diags = all_diags(out)
    assert code in {d["code"] for d in diags}
    for d in diags:
        assert d["span"] is not None and d["span"]["line"] >= 1 and d["span"]["column"] >= 1
        assert d["message"]


def test_missing_file(tmp_path):
    status, out, _ = check_json(tmp_path / "nope.dp")
    assert status == 2
    (diag,) = all_diags(out)
    assert diag["code"] == "E004" and diag["span"]["line"] == 1


def test_ten_megabyte_file(tmp_path):
    path = tmp_path / "big.dp"
    line = "state q1 input Lap(ε/4, 0) { insample < x -> q1 output ⊥ } garbage\n"
    path.write_text("automaton big {\n" + line * (10_000_000 // len(line)) + "}\n", encoding="utf-8")
    assert path.stat().st_size > 10_000_000
    status, out, _ = check_json(path)
    assert status == 2
    assert {d["code"] for d in all_diags(out)} == {"E001"}


def test_text_format_has_no_traceback_either(tmp_path):
    path = tmp_path / "bin.dp"
    path.write_bytes(b"\x00\x01\x02")
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "E004" in proc.stdout and "Traceback" not in proc.stderr


@pytest.mark.parametrize("argv", [[], ["check", "--no-such-flag"], ["check", "--format", "xml", "x.dp"], ["frobnicate"]])
def test_usage_errors_exit_2(argv):
    proc = subprocess.run([sys.executable, "-m", "dslc", *argv], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_version_and_help():
    for argv in (["--version"], ["--help"], ["check", "--help"]):
        proc = subprocess.run([sys.executable, "-m", "dslc", *argv], capture_output=True, text=True,
                              cwd=ROOT, timeout=60)
        assert proc.returncode == 0 and proc.stdout.strip()


def test_deep_parentheses_are_only_parentheses(tmp_path):
    """10,000 nested parentheses around a mean are valid and read without recursion."""
    path = tmp_path / "parens.dp"
    path.write_text("mechanism m { x := Lap(eps, " + "(" * 10000 + "0" + ")" * 10000 + ")\n"
                    "  loop { if Lap(eps/4, read()) >= x { output top; halt }\n output bot } }\n")
    status, out, _ = check_json(path)
    assert status == 0 and out["files"][0]["blocks"][0]["d"] == "3/2"


def test_folder_without_dp_files_is_a_warning_not_a_failure(tmp_path):
    """As ruff does: a folder with nothing to check warns and exits 0."""
    (tmp_path / "notes.txt").write_text("nothing to check")
    status, out, err = check_json(tmp_path)
    assert status == 0
    assert "no .dp files found" in err
    assert all_diags(out) == []


def test_long_else_if_chain_gets_a_verdict(tmp_path):
    """3,000 `else if`s nest no braces: the program is lowered (without recursion)
    and judged.  Each `else if` draws afresh, so one loop turn holds both an
    `insample >= x` and an `insample < x` comparison: a leaking pair."""
    path = tmp_path / "chain.dp"
    path.write_text("mechanism m { x := Lap(ε, 0) loop { if Lap(ε, read()) >= x { output a } "
                    + " else if Lap(ε, read()) >= x { output b }" * 3000 + " } }", encoding="utf-8")
    status, out, _ = check_json(path)
    assert status == 1
    assert {d["code"] for d in all_diags(out)} == {"DP002"}
