"""Nothing runs that dslc did not ship: dslc reads no cache folder, so no file
planted there can run code in it or change a verdict, and it writes nothing
outside standard output and standard error."""

from __future__ import annotations

import ast
import marshal
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dslc"


class _Plant:
    """A pickle that, when loaded, creates a marker file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _files(folder: Path) -> dict[str, tuple]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            st = p.lstat()
            out[str(p)] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def _plant_everywhere(cache: Path, marker: Path) -> None:
    """Files at every path an older dslc read from its cache folder, and a
    few a newer one might: pickles that run code, marshalled code that would
    print a verdict, a FIFO (a read blocks for ever) and links to /dev/zero."""
    folder = cache / "dslc"
    folder.mkdir(parents=True)
    tag = sys.implementation.cache_tag
    payload = pickle.dumps(_Plant(marker))
    code = compile(f"open({str(marker)!r}, 'w').write('ran')", "<planted>", "exec")
    (folder / f"records-{tag}.marshal").write_bytes(marshal.dumps({"x": code}))
    for name in ("grammar.lark-cache", "records.marshal", "parse_table.json", "table.pickle"):
        (folder / name).write_bytes(payload)
    os.mkfifo(folder / "grammar-0000000000000000.lark-cache")
    (folder / f"records-{tag}-zero.marshal").symlink_to("/dev/zero")
    for i in range(16):      # every hash the old grammar cache could have used is a FIFO or a pickle
        target = folder / f"grammar-{i:016x}.lark-cache"
        if not target.exists():
            target.write_bytes(payload)


@pytest.mark.parametrize("example, code", [("examples/sorted_desc.dp", 1), ("examples/svt.dp", 0)])
def test_planted_cache_files_change_nothing(tmp_path, example, code):
    home, cache = tmp_path / "home", tmp_path / "cache"
    home.mkdir()
    marker = tmp_path / "planted-code-ran"
    _plant_everywhere(cache, marker)
    _plant_everywhere(home / ".cache", marker)
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(cache), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    before = _files(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "json", example],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == code, proc.stderr
    assert not marker.exists(), "code planted in a cache folder ran"
    assert _files(tmp_path) == before, "dslc wrote or changed a file outside stdout/stderr"
    assert "Traceback" not in proc.stderr


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_loads_code_or_pickles():
    """No module of dslc imports a loader of code or pickles, nor runs text
    as code (exec, eval, compile)."""
    forbidden_imports = {"marshal", "pickle", "shelve", "dill", "cloudpickle"}
    found = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [(path, a.name) for a in node.names if a.name.split(".")[0] in forbidden_imports]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in forbidden_imports:
                found.append((path, node.module))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in {"exec", "eval", "compile", "__import__"}):
                found.append((path, node.func.id))
    assert found == []


def test_no_module_names_a_cache_folder():
    """dslc keeps no cache of its own (docs/cli.md, "Files dslc reads and writes")."""
    hits = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    "XDG_CACHE_HOME" in node.value or ".cache" in node.value or "cache_tag" in node.value):
                hits.append((path, node.value))
            elif isinstance(node, ast.Attribute) and node.attr in {"cache_tag", "gettempdir"}:
                hits.append((path, node.attr))
    assert hits == []
