"""Editor packaging: the VS Code extension's manifest, language configuration
and TextMate grammar, and the pre-commit hook."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "editors" / "vscode"


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_vscode_manifest_points_at_existing_files():
    pkg = load(VSCODE / "package.json")
    [language] = pkg["contributes"]["languages"]
    assert language["id"] == "dp" and language["extensions"] == [".dp"]
    assert (VSCODE / language["configuration"]).is_file()
    [grammar] = pkg["contributes"]["grammars"]
    assert grammar["language"] == "dp"
    assert load(VSCODE / grammar["path"])["scopeName"] == grammar["scopeName"] == "source.dp"
    assert (VSCODE / pkg["main"]).is_file()
    assert "onLanguage:dp" in pkg["activationEvents"]
    assert "vscode-languageclient" in pkg["dependencies"]
    client = (VSCODE / pkg["main"]).read_text(encoding="utf-8")
    assert 'args: ["lsp"]' in client
    for command in pkg["contributes"]["commands"]:
        assert f'"{command["command"]}"' in client
    for setting in pkg["contributes"]["configuration"]["properties"]:
        assert setting.startswith("dslc.")


def test_vscode_packaging_asks_no_questions():
    """`vsce package` stops on two prompts without a LICENSE file and without a
    repository field (or its --allow-missing-repository flag); `npm run package`
    is the documented command (checked by hand: no prompt, see editors/README.md)."""
    pkg = load(VSCODE / "package.json")
    assert "MIT" in (VSCODE / "LICENSE").read_text(encoding="utf-8") and pkg["license"] == "MIT"
    script = pkg["scripts"]["package"].split()
    assert script[:2] == ["vsce", "package"]
    assert "repository" in pkg or "--allow-missing-repository" in script
    assert "@vscode/vsce" in pkg["devDependencies"]
    ignored = (VSCODE / ".vscodeignore").read_text(encoding="utf-8").split()
    assert "*.vsix" in ignored and "LICENSE" not in ignored


def test_language_configuration_comments_and_brackets():
    conf = load(VSCODE / "language-configuration.json")
    assert conf["comments"] == {"lineComment": "//", "blockComment": ["/*", "*/"]}
    assert {tuple(b) for b in conf["brackets"]} == {("{", "}"), ("[", "]"), ("(", ")")}
    assert re.fullmatch(conf["wordPattern"], "insample'")
    assert re.match(conf["indentationRules"]["increaseIndentPattern"], "    state q1 input Lap(ε, 0) {")
    assert re.match(conf["indentationRules"]["decreaseIndentPattern"], "    }")


# ---------------------------------------------------------------- TextMate
def _patterns(grammar: dict, items: list[dict]) -> list[dict]:
    out = []
    for item in items:
        if "include" in item:
            out += _patterns(grammar, [grammar["repository"][item["include"][1:]]])
        elif "patterns" in item and "match" not in item and "begin" not in item:
            out += _patterns(grammar, item["patterns"])
        else:
            out.append(item)
    return out


def tokenize(grammar: dict, text: str) -> list[tuple[int, int, int, str]]:
    """A small TextMate engine (match, begin/end across lines, captures): at
    each position the pattern whose match starts first wins, ties going to the
    earlier pattern.  Returns (line, start, end, scope) for every scoped piece."""
    patterns = _patterns(grammar, grammar["patterns"])
    compiled = [(p, re.compile(p.get("match") or p["begin"])) for p in patterns]
    tokens = []
    open_block = None
    for n, line in enumerate(text.split("\n")):
        pos = 0
        if open_block is not None:
            end = re.compile(open_block["end"]).search(line)
            stop = end.end() if end else len(line)
            tokens.append((n, 0, stop, open_block["name"]))
            if end is None:
                continue
            open_block, pos = None, stop
        while pos < len(line):
            best = None
            for pat, rx in compiled:
                m = rx.search(line, pos)
                if m and m.end() > m.start() and (best is None or m.start() < best[1].start()):
                    best = (pat, m)
            if best is None:
                break
            pat, m = best
            if "begin" in pat:
                end = re.compile(pat["end"]).search(line, m.end())
                stop = end.end() if end else len(line)
                tokens.append((n, m.start(), stop, pat["name"]))
                if end is None:
                    open_block = pat
                pos = stop
                continue
            if "name" in pat:
                tokens.append((n, m.start(), m.end(), pat["name"]))
            for group, capture in pat.get("captures", {}).items():
                if m.group(int(group)) is not None:
                    tokens.append((n, m.start(int(group)), m.end(int(group)), capture["name"]))
            pos = m.end()
    return tokens


def scopes(tokens, text: str, needle: str, after: str = "") -> set[str]:
    offset = text.index(needle, text.index(after))
    line = text[:offset].count("\n")
    col = offset - (text.rfind("\n", 0, offset) + 1)
    return {scope for n, a, b, scope in tokens if n == line and a <= col < b}


GRAMMAR = load(VSCODE / "syntaxes" / "dp.tmLanguage.json")
SAMPLE = """// a comment with automaton and ε inside
mechanism svt(T = 0) {
    x := Lap(ε/2, T)   /* a block comment
       over two lines */ loop {
        if Lap(ε/4, read()) >= x { output ⊤; halt }
        output ⊥
    }
}
automaton fig5 {
    state q1 input Lap(2ε/9, 0), Lap'(ε/9, 0) {
        insample ≥ x -> q2 output insample'
    }
}
hmm survey { states pos, neg; secret positive = {pos}; check ε = ln 3, k = 2; pos emits "yes" }
"""


@pytest.mark.parametrize("needle, after, scope", [
    ("//", "", "comment.line.double-slash.dp"),
    ("automaton", "", "comment.line.double-slash.dp"),
    ("mechanism", "", "keyword.other.block.dp"),
    ("svt", "mechanism", "entity.name.type.block.dp"),
    ("Lap", "x :=", "support.function.laplace.dp"),
    ("ε", "x :=", "constant.language.epsilon.dp"),
    ("2", "x :=", "constant.numeric.dp"),
    (":=", "", "keyword.operator.dp"),
    ("over two", "", "comment.block.dp"),
    ("loop", "lines */", "keyword.control.dp"),
    ("read", "", "keyword.control.dp"),
    (">=", "", "keyword.operator.dp"),
    ("⊤", "", "constant.language.symbol.dp"),
    ("state", "fig5", "storage.type.state.dp"),
    ("q1", "fig5", "entity.name.function.state.dp"),
    ("input", "fig5", "storage.modifier.dp"),
    ("Lap'", "fig5", "support.function.laplace.dp"),
    ("insample", "fig5", "variable.language.insample.dp"),
    ("≥", "fig5", "keyword.operator.dp"),
    ("->", "fig5", "keyword.operator.arrow.dp"),
    ("q2", "fig5", "entity.name.function.state.dp"),
    ("insample'", "output", "variable.language.insample.dp"),
    ("hmm", "", "keyword.other.block.dp"),
    ("states", "survey", "keyword.other.declaration.dp"),
    ("ln", "survey", "support.function.dp"),
    ('"yes"', "survey", "string.quoted.double.dp"),
])
def test_grammar_scopes(needle, after, scope):
    assert scope in scopes(tokenize(GRAMMAR, SAMPLE), SAMPLE, needle, after)


def test_grammar_leaves_plain_names_unscoped():
    tokens = tokenize(GRAMMAR, SAMPLE)
    assert scopes(tokens, SAMPLE, "x", "Lap(ε/2, T)") == set()       # the `x` of `x := ...`
    assert scopes(tokens, SAMPLE, "T", "svt(") == set()


# ---------------------------------------------------------------- pre-commit
def test_pre_commit_hook_runs_dslc_check_on_dp_files():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    hook = dict(re.findall(r"^\s*-?\s*(id|entry|language|files):\s*(.+?)\s*$", text, re.M))
    assert hook["id"] == "dslc-check" and hook["language"] == "python"
    files = re.compile(hook["files"].replace("\\\\", "\\"))
    assert files.search("dir/svt.dp") and not files.search("notes.dpx") and not files.search("a.py")
    entry = hook["entry"].split()
    assert entry[:2] == ["dslc", "check"]
    # pre-commit appends the staged file names; the hook fails on a violation and passes otherwise
    run = [sys.executable, "-m", "dslc", *entry[1:]]
    assert subprocess.run(run + ["examples/svt.dp"], cwd=ROOT, capture_output=True).returncode == 0
    bad = subprocess.run(run + ["examples/svt.dp", "examples/sorted_desc.dp"], cwd=ROOT,
                         capture_output=True, text=True, encoding="utf-8")
    assert bad.returncode == 1 and "error[DP001]" in bad.stdout and "\x1b[" not in bad.stdout
