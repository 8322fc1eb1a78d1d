"""dslc as a citizen of the Python toolchain: configuration, file discovery
like ruff's, the CI formats, flags of every subcommand (docs/cli.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SVT = (ROOT / "examples" / "svt.dp").read_text(encoding="utf-8")
LEAK = (ROOT / "examples" / "lee_clifton.dp").read_text(encoding="utf-8")


def dslc(*args, cwd, stdin=None):
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=os.pathsep.join(
        [str(ROOT), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]))
    return subprocess.run([sys.executable, "-m", "dslc", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, input=stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL)


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".git").mkdir()
    for rel in ("src/a.dp", "src/B.DP", "build/b.dp", "node_modules/x/c.dp", ".venv/d.dp",
                "sub/gen/e.dp", "sub/keep.dp"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(SVT, encoding="utf-8")
    (tmp_path / "sub" / ".gitignore").write_text("gen/\n", encoding="utf-8")
    return tmp_path


def checked(proc) -> list[str]:
    return sorted(f["file"] for f in json.loads(proc.stdout)["files"])


def test_discovery_skips_default_excludes_and_gitignored_folders(project):
    pytest.importorskip("pathspec")
    proc = dslc("check", "--format", "json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert checked(proc) == ["src/B.DP", "src/a.dp", "sub/keep.dp"]
    proc = dslc("check", "--format", "json", "--no-respect-gitignore", "--extend-exclude", "keep.dp", ".",
                cwd=project)
    assert checked(proc) == ["src/B.DP", "src/a.dp", "sub/gen/e.dp"]
    proc = dslc("check", "--format", "json", "--exclude", "src", ".", cwd=project)     # replaces the defaults
    assert "build/b.dp" in checked(proc) and "src/a.dp" not in checked(proc)


def test_named_files_are_checked_unless_force_exclude(project):
    pytest.importorskip("pathspec")
    proc = dslc("check", "--format", "json", "build/b.dp", cwd=project)
    assert checked(proc) == ["build/b.dp"]
    proc = dslc("check", "--format", "json", "--force-exclude", "build/b.dp", "sub/gen/e.dp", "src/a.dp",
                cwd=project)
    assert checked(proc) == ["src/a.dp"]


def test_paths_are_printed_relative_to_the_working_folder(project):
    proc = dslc("check", "--format", "concise", str(project / "src" / "a.dp"), cwd=project / "src")
    assert proc.stdout.splitlines()[-1].startswith("checked 2 blocks in 1 file")
    proc = dslc("check", "--format", "json", str(project / "src"), cwd=project / "src")
    assert checked(proc) == ["B.DP", "a.dp"]


def test_an_empty_folder_warns_and_exits_0(tmp_path):
    proc = dslc("check", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr.startswith("warning: no .dp files found")


def test_configuration_is_read_and_flags_override(project):
    pytest.importorskip("pathspec")
    (project / "src" / "leak.dp").write_text(LEAK, encoding="utf-8")
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.dslc]\noutput-format = "concise"\nextend-exclude = ["sub"]\n'
        'max-d = "3/2"\n', encoding="utf-8")
    proc = dslc("check", "-q", cwd=project / "src")        # no path: the project, found above
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and lines and all(line.startswith("leak.dp:") for line in lines), proc.stdout
    proc = dslc("check", "--format", "json", cwd=project)
    assert "sub/keep.dp" not in checked(proc)
    (project / "dslc.toml").write_text('output-format = "json"\n', encoding="utf-8")   # dslc.toml wins
    proc = dslc("check", cwd=project)
    assert "sub/keep.dp" in checked(proc)
    assert dslc("check", "--isolated", "--format", "text", "src/a.dp", cwd=project).stdout.startswith("✓")


def test_an_unknown_key_is_a_located_error_with_a_suggestion(tmp_path):
    (tmp_path / "a.dp").write_text(SVT, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.other]\nx = 1\n\n[tool.dslc]\ntimeout = 5\ntimout = 5\n',
                                             encoding="utf-8")
    proc = dslc("check", "--format", "gcc", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == "pyproject.toml:6:1: error: unknown key `timout` in [tool.dslc] [E190]\n"
    text = dslc("check", cwd=tmp_path).stdout
    assert "did you mean `timeout`?" in text
    (tmp_path / "pyproject.toml").write_text('[tool.dslc]\ntimeout = "soon"\n', encoding="utf-8")
    assert "pyproject.toml:2:1: error: `timeout` in [tool.dslc]" in dslc("check", "--format", "gcc", cwd=tmp_path).stdout
    (tmp_path / "pyproject.toml").write_text('[tool.dslc]\ntimeout = \n', encoding="utf-8")
    proc = dslc("check", "--format", "gcc", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout.startswith("pyproject.toml:2:") and "[E192]" in proc.stdout


def test_ci_formats(tmp_path):
    (tmp_path / "leak.dp").write_text(LEAK, encoding="utf-8")
    (tmp_path / "ok.dp").write_text(SVT, encoding="utf-8")
    proc = dslc("check", "--format", "github", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.startswith("::error file=leak.dp,line=11,col=40,endLine=11,endColumn=48,"
                                  "title=dslc DP006::DP006 budget exceeded")
    assert len(proc.stdout.splitlines()) == 1 and "%0Ahelp: " in proc.stdout
    proc = dslc("check", "--format", "junit", "--output-file", "out.xml", "--exit-zero", ".", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""
    suites = ET.parse(tmp_path / "out.xml").getroot()
    assert (suites.get("tests"), suites.get("failures"), suites.get("errors")) == ("4", "1", "0")
    failure = suites.find("testsuite[@name='leak.dp']/testcase[@name='mechanism lee_clifton']/failure")
    assert failure is not None and "DP006" in failure.text
    broken = tmp_path / "broken.dp"
    broken.write_text("mechanism m {", encoding="utf-8")
    proc = dslc("check", "--format", "concise", "--exit-zero", ".", cwd=tmp_path)
    assert proc.returncode == 2                               # --exit-zero: still 2 on errors
    assert proc.stdout.startswith("broken.dp:1:") and proc.stdout.splitlines()[-1].startswith("checked 5 blocks")


def test_quiet_and_verbose(tmp_path):
    (tmp_path / "ok.dp").write_text(SVT, encoding="utf-8")
    proc = dslc("check", "-q", "ok.dp", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    proc = dslc("check", "-v", "ok.dp", cwd=tmp_path)
    assert "dslc: configuration: none" in proc.stderr
    assert any(line.endswith("ok.dp: mechanism svt") and " s " in line for line in proc.stderr.splitlines())


def test_standard_input(tmp_path):
    proc = dslc("check", "--format", "concise", "-q", "--stdin-filename", "dir/x.dp", cwd=tmp_path, stdin=LEAK)
    assert proc.returncode == 1 and proc.stdout.startswith("dir/x.dp:11:40: DP006")
    proc = dslc("check", "--format", "concise", "-q", cwd=tmp_path, stdin=LEAK)     # `dslc check < file`
    assert proc.returncode == 1 and proc.stdout.startswith("-:11:40: DP006")
    proc = dslc("check", "-", "-q", cwd=tmp_path, stdin=SVT)
    assert proc.returncode == 0


def test_every_subcommand_takes_color_and_bad_flags_show_its_usage(tmp_path):
    from dslc.cli import COMMANDS
    for _, name, _ in COMMANDS:
        proc = dslc(name, "--color", "never", "--no-such-flag", cwd=tmp_path)
        assert proc.returncode == 2
        assert proc.stderr.startswith(f"usage: dslc {name} "), proc.stderr
        assert "unrecognized arguments: --no-such-flag" in proc.stderr or "required" in proc.stderr


def test_version_is_fast_and_names_the_c_module(tmp_path):
    proc = dslc("--version", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("dslc ") and "(C module: " in proc.stdout
    env_off = dict(os.environ, DSLC_NATIVE="0", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "dslc", "--version"], env=env_off,
                         capture_output=True, text=True, cwd=tmp_path)
    assert "C module: off, DSLC_NATIVE=0" in out.stdout
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines()}
    assert not imported & {"argparse", "lark", "rich", "fractions", "dslc.pipeline"}, imported


def test_pre_commit_hook_entry(tmp_path):
    """The hook's entry, as pre-commit runs it: the staged files as arguments
    (`pre-commit try-repo` itself needs the network to install dslc)."""
    import re
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    entry = re.search(r"^  entry: dslc (.*)$", hooks, re.M).group(1).split()
    pattern = re.search(r"^  files: (.*)$", hooks, re.M).group(1)
    (tmp_path / "ok.dp").write_text(SVT, encoding="utf-8")
    (tmp_path / "LEAK.DP").write_text(LEAK, encoding="utf-8")
    staged = [n for n in ("ok.dp", "LEAK.DP", "notes.txt") if re.search(pattern, n)]
    assert staged == ["ok.dp", "LEAK.DP"]
    assert dslc(*entry, "ok.dp", cwd=tmp_path).returncode == 0
    proc = dslc(*entry, *staged, cwd=tmp_path)
    assert proc.returncode == 1 and "DP006" in proc.stdout and "checked" not in proc.stdout
