"""Emacs: dp-mode's indentation, and eglot end to end in batch Emacs with the
configuration blocks of editors/README.md (verbatim, with the path of this
repository put in), against copies of examples/.  Compared with `dslc check
--format json`: the flymake diagnostics at the CLI's line and column, with
the other lines of the leaking cycle in their text; the hover with the
verdict; go-to-definition (xref, `M-.`); a leak typed into a private file
reported within a few seconds.  Without Emacs (or without eglot on Emacs
28) the tests skip with the reason."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.editor_support import FIXTURES, ROOT, cli_diagnostics, editor_env, emacs, snippet

EMACS = emacs()
DP_MODE = ROOT / "editors" / "emacs" / "dp-mode.el"
LEAK_SECONDS = 5.0

needs_emacs = pytest.mark.skipif(EMACS is None, reason="no Emacs on PATH (apt-get install emacs-nox)")


def batch(*args: str, cwd: Path, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    assert EMACS is not None
    return subprocess.run([EMACS[0], "--batch", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def has_eglot(env: dict, cwd: Path) -> bool:
    run = batch("--eval", "(package-activate-all)", "--eval",
                "(princ (if (locate-library \"eglot\") \"yes\" \"no\"))", cwd=cwd, env=env)
    return run.stdout.strip().endswith("yes")


# ------------------------------------------------------------------ indentation
SAMPLES = sorted([*ROOT.glob("examples/*.dp"), *ROOT.glob("stdlib/*.dp")])


@needs_emacs
def test_dp_mode_reindents_every_example_as_written(tmp_path):
    """Every example with its indentation removed, re-indented by dp-mode
    (`indent-region`), is the example again: closing braces one level out,
    spaces only, matrix rows lined up."""
    flat_dir, out_dir = tmp_path / "flat", tmp_path / "out"
    flat_dir.mkdir()
    out_dir.mkdir()
    for path in SAMPLES:
        text = path.read_text(encoding="utf-8")
        (flat_dir / path.name).write_text("\n".join(line.lstrip() for line in text.split("\n")), encoding="utf-8")
    names = " ".join(f'"{p.name}"' for p in SAMPLES)
    program = f"""(progn
      (setq-default indent-tabs-mode t)   ; the global default: dp-mode must not use tabs anyway
      (dolist (name (list {names}))
        (find-file (expand-file-name name "{flat_dir}"))
        (unless (eq major-mode 'dp-mode) (error "not dp-mode: %s" major-mode))
        (indent-region (point-min) (point-max))
        (write-region nil nil (expand-file-name name "{out_dir}"))
        (kill-buffer)))"""
    run = batch("-Q", "-l", str(DP_MODE), "--eval", program, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    for path in SAMPLES:
        got = (out_dir / path.name).read_text(encoding="utf-8")
        assert "\t" not in got
        assert got == path.read_text(encoding="utf-8"), f"dp-mode re-indents {path.name} differently"


@needs_emacs
def test_dp_mode_indents_while_typing(tmp_path):
    """Typing a block line by line (newline-and-indent, `}` electric)."""
    program = r"""(progn
      (with-temp-buffer
        (dp-mode)
        (dolist (piece '("automaton a {" "state q0 noinput Lap(ε, 0) {" "true -> q1 output ⊥ store" "}" "}"))
          (insert piece)
          (indent-according-to-mode)
          (newline-and-indent))
        (princ (buffer-string))))"""
    run = batch("-Q", "-l", str(DP_MODE), "--eval", program, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:5] == [
        "automaton a {",
        "    state q0 noinput Lap(ε, 0) {",
        "        true -> q1 output ⊥ store",
        "    }",
        "}",
    ]


# ------------------------------------------------------------------ eglot end to end
@needs_emacs
@pytest.mark.parametrize("name", ["emacs-dp-mode", "emacs-any-mode"])
def test_documented_emacs_setup(name, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    leaky, private = work / "sorted_desc.dp", work / "svt.dp"
    shutil.copy(ROOT / "examples" / "sorted_desc.dp", leaky)
    shutil.copy(ROOT / "examples" / "svt.dp", private)
    env = editor_env(tmp_path / "home")
    if not has_eglot(env, work):
        pytest.skip(f"Emacs {EMACS[1][0]}.{EMACS[1][1]} without eglot (apt-get install elpa-eglot, "
                    "or Emacs 29+)")
    init = tmp_path / "home" / ".emacs.d" / "init.el"
    init.parent.mkdir(parents=True)
    init.write_text(snippet(name).replace("/path/to/dslc", str(ROOT)), encoding="utf-8")
    out = tmp_path / "result.json"
    env.update(DSLC_E2E_OUT=str(out), DSLC_E2E_LEAKY=str(leaky), DSLC_E2E_PRIVATE=str(private),
               DSLC_E2E_COUNT=str(len(cli_diagnostics(leaky))))
    # batch Emacs reads no init file: activate packages and load it as startup would
    run = batch("--eval", "(package-activate-all)", "-l", str(init), "-l", str(FIXTURES / "emacs_e2e.el"),
                cwd=work, env=env)
    assert out.exists(), f"Emacs wrote no result (exit {run.returncode}): {run.stderr}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["ok"] is True, f"{result.get('error')}; stderr: {run.stderr}"
    assert result["mode"] == ("dp-mode" if name == "emacs-dp-mode" else "dslc-dp-mode")
    assert "dslc lsp" in result["server"]

    expected = cli_diagnostics(leaky)
    got = result["diagnostics"]
    assert [(d["line"], d["column"]) for d in got] == [(d["span"]["line"], d["span"]["column"]) for d in expected]
    for g, e in zip(got, expected):
        assert e["message"] in g["text"] and e["code"] in g["text"]
        for rel in e["related"]:                       # every other line of the cycle, in the text
            assert f"{leaky}:{rel['span']['line']}:{rel['span']['column']}: {rel['message']}" in g["text"]

    assert "`sorted_desc`" in result["hover"] and "✗ not private" in result["hover"]
    assert result["definition_moved"] and result["definition_line"].lstrip().startswith("state q2")
    assert result["edited_line"].rstrip().endswith("output ⊥ store")
    assert result["leak_ms"] < LEAK_SECONDS * 1000
