"""Process and file-system faults: each is an error, never a silent skip or
a success, never a traceback (docs/cli.md, "Exit status", "Limits").

Every probe runs the real command line in a child process:

- a folder or file under a given folder that cannot be read, a broken
  symbolic link, a link loop: E004 naming the path, exit 2, the rest checked;
- standard output that cannot be written (full disk, closed, broken pipe):
  one line on standard error, exit 2, for every command;
- SIGTERM / SIGKILL of dslc while a solver child runs: the child dies too;
- a small `ulimit -v`: a small file is read (memory taken as it is read);
- a 4,000-character name: the "did you mean" search is fast;
- rates and means from 10^-400 to 10^400: exact verdicts, never E000.

Tests run as root, whom file permissions do not stop.  The permission
probes therefore run dslc with the capabilities that let root read anything
(CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) removed from its bounding set
(`setpriv`): the kernel then denies the reads for real.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc import limits
from dslc.diagnostics import suggest

ROOT = Path(__file__).resolve().parent.parent
SVT = (ROOT / "examples" / "svt.dp").read_text()
LEAK = SVT.replace("            halt\n", "")          # SVT without halt: a leaking pair (DP002)
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"}
ENV.pop("DSLC_DEBUG", None)
DENY = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def dslc(*args, prefix=(), timeout=60, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    kwargs.setdefault("text", True)
    return subprocess.run([*prefix, sys.executable, "-m", "dslc", *args], env=ENV, timeout=timeout,
                          **kwargs)


def _denied_prefix(tmp_path: Path) -> list[str]:
    """How to run dslc so that file permissions apply: nothing for a user
    other than root; for root, setpriv without the capabilities that bypass
    them.  Skips when a folder of mode 000 can still be listed that way."""
    prefix = DENY if os.geteuid() == 0 else []
    if prefix and shutil.which("setpriv") is None:
        pytest.skip("setpriv is not installed: root would read every file")
    closed = tmp_path / "probe"
    closed.mkdir()
    closed.chmod(0)
    try:
        probe = subprocess.run([*prefix, sys.executable, "-c", "import os, sys; os.listdir(sys.argv[1])",
                                str(closed)], capture_output=True)
    finally:
        closed.chmod(0o755)
        closed.rmdir()
    if b"PermissionError" not in probe.stderr:
        pytest.skip(f"permissions cannot be made to apply here: {probe.stderr.decode()[-200:]}")
    return prefix


def _json(run) -> dict:
    return json.loads(run.stdout)


def _by_file(doc) -> dict:
    return {f["file"]: f for f in doc["files"]}


def _codes(entry) -> list[str]:
    return [d["code"] for d in entry.get("diagnostics", [])] + \
        [d["code"] for b in entry.get("blocks", []) for d in b.get("diagnostics", [])]


# ----------------------------------------------------------------- folders

@pytest.fixture
def tree(tmp_path):
    """ok/svt.dp (private) and locked/leak.dp (a leak) in a folder."""
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "svt.dp").write_text(SVT)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "leak.dp").write_text(LEAK)
    yield tmp_path
    for p in tmp_path.rglob("*"):
        if not p.is_symlink():
            p.chmod(0o755)


def test_unreadable_folder_is_an_error_and_the_rest_is_checked(tree):
    prefix = _denied_prefix(tree)
    (tree / "locked").chmod(0)
    run = dslc("check", "--format", "json", str(tree), prefix=prefix)
    assert run.returncode == 2, run.stderr
    files = _by_file(_json(run))
    locked = files[str(tree / "locked")]
    assert _codes(locked) == ["E004"]
    assert "cannot read the folder" in locked["diagnostics"][0]["message"]
    assert "Permission denied" in locked["diagnostics"][0]["message"]
    assert [b["verdict"] for b in files[str(tree / "ok" / "svt.dp")]["blocks"]] == ["private", "private"]
    # without the fault the leak inside is found: the folder is not merely reported, it was unread
    (tree / "locked").chmod(0o755)
    assert dslc("check", "--format", "json", str(tree), prefix=prefix).returncode == 1


def test_unreadable_file_in_a_folder_is_an_error(tree):
    prefix = _denied_prefix(tree)
    (tree / "locked" / "leak.dp").chmod(0)
    run = dslc("check", "--format", "gcc", str(tree), prefix=prefix)
    assert run.returncode == 2, run.stderr
    lines = run.stdout.splitlines()
    faults = [line for line in lines if "[E004]" in line]
    assert len(faults) == 1 and "permission denied" in faults[0].lower()
    assert faults[0].startswith(str(tree / "locked" / "leak.dp") + ":")


def test_faults_one_line_each_in_gcc_format(tree):
    prefix = _denied_prefix(tree)
    (tree / "locked").chmod(0)
    (tree / "ok" / "gone.dp").symlink_to("nowhere.dp")
    run = dslc("check", "--format", "gcc", str(tree), prefix=prefix)
    assert run.returncode == 2
    faults = [line for line in run.stdout.splitlines() if "[E004]" in line]
    assert len(faults) == 2
    assert faults[0].startswith(f"{tree / 'locked'}:1:1: error: cannot read the folder")
    assert faults[1].startswith(f"{tree / 'ok' / 'gone.dp'}:1:1: error: broken symbolic link")


def test_broken_links_and_loops_are_reported(tmp_path):
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "svt.dp").write_text(SVT)
    (tmp_path / "ok" / "broken").symlink_to("no-such-folder")    # not named .dp: reported too
    (tmp_path / "ok" / "up").symlink_to("..")                    # a loop
    (tmp_path / "self").symlink_to("self")                       # cannot be followed
    (tmp_path / "alias").symlink_to("ok")                        # the same folder again
    run = dslc("check", "--format", "json", str(tmp_path))
    assert run.returncode == 2, run.stderr
    files = _by_file(_json(run))
    messages = {path: f["diagnostics"][0]["message"] for path, f in files.items() if f.get("diagnostics")}
    # `alias` sorts before `ok`: the folder is walked once, under that name
    alias = tmp_path / "alias"
    assert set(messages) == {str(alias / "broken"), str(alias / "up"), str(tmp_path / "self")}
    assert "broken symbolic link" in messages[str(alias / "broken")]
    assert "no-such-folder" in messages[str(alias / "broken")]
    assert "symbolic link loop" in messages[str(alias / "up")]
    assert "Too many levels of symbolic links" in messages[str(tmp_path / "self")]
    checked = [path for path, f in files.items() if f.get("blocks")]
    assert checked == [str(alias / "svt.dp")]


def test_a_linked_folder_is_followed(tmp_path):
    """Before, a link to a folder was skipped in silence: its leak was never seen."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.dp").write_text(LEAK)
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "svt.dp").write_text(SVT)
    (tmp_path / "repo" / "vendored").symlink_to(outside)
    run = dslc("check", "--format", "json", str(tmp_path / "repo"))
    assert run.returncode == 1
    files = _by_file(_json(run))
    assert files[str(tmp_path / "repo" / "vendored" / "leak.dp")]["blocks"][0]["verdict"] == "not-private"


def test_walk_matches_a_literal_listing_without_faults(tmp_path):
    """Without links or faults the walk lists exactly the sorted `.dp` files, as before."""
    rng = random.Random(7)
    expected = []
    for i in range(40):
        parts = [rng.choice("abc") for _ in range(rng.randint(0, 3))]
        folder = tmp_path.joinpath(*parts)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"f{i}" + rng.choice([".dp", ".txt", ".dpx", ".dp"])
        (folder / name).write_text("")
        if name.endswith(".dp"):
            expected.append(str(folder / name))
    from dslc.pipeline import collect_paths
    assert collect_paths([str(tmp_path)]) == [(p, None) for p in sorted(expected)]


# ------------------------------------------------------------------ output

def _examples(tmp_path):
    (tmp_path / "svt.dp").write_text(SVT)
    (tmp_path / "leak.dp").write_text(LEAK)
    return tmp_path / "svt.dp", tmp_path / "leak.dp"


COMMANDS = [
    ("check", "{svt}"), ("check", "--format", "json", "{leak}"), ("explain", "DP001"),
    ("graph", "{svt}", "--block", "svt"),
    ("prob", "{svt}", "--block", "svt", "--epsilon", "1", "--inputs", "0,0", "--outputs", "_,⊥,⊤"),
    ("--help",),
]


def _args(tmp_path, command):
    svt, leak = _examples(tmp_path)
    return [a.format(svt=svt, leak=leak) for a in command]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c)[:30])
def test_full_disk_is_an_error(tmp_path, command):
    with open("/dev/full", "w") as full:
        run = dslc(*_args(tmp_path, command), stdout=full)
    assert run.returncode == 2
    assert run.stderr == "dslc: error: cannot write output: No space left on device\n"


@pytest.mark.parametrize("command", COMMANDS[:3], ids=lambda c: " ".join(c)[:30])
def test_broken_pipe_is_an_error(tmp_path, command):
    """`| head -0`: the reader is gone before dslc writes (whatever the verdict)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        run = dslc(*_args(tmp_path, command), stdout=write_end)
    finally:
        os.close(write_end)
    assert run.returncode == 2
    assert run.stderr == "dslc: error: cannot write output: Broken pipe\n"


@pytest.mark.parametrize("command", COMMANDS[:3], ids=lambda c: " ".join(c)[:30])
def test_closed_stdout_is_an_error(tmp_path, command):
    run = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "dslc",
                          *_args(tmp_path, command)], env=ENV, capture_output=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.decode() == "dslc: error: cannot write output: standard output is closed\n"


def test_output_that_is_read_is_unchanged(tmp_path):
    svt, leak = _examples(tmp_path)
    assert dslc("check", str(svt)).returncode == 0
    run = dslc("check", str(leak))
    assert run.returncode == 1 and run.stderr == "" and "DP002" in run.stdout


# ------------------------------------------------------------ solver child

def _slow_model(n: int = 20, k: int = 8) -> str:
    """A symbolic hmm whose first SMT query has more than isolate.ISOLATE_TERMS
    terms (solved in a child process) and takes far longer than the test."""
    rng = random.Random(1)
    states = [f"s{i}" for i in range(n)]
    lines = ["hmm h {", "states " + ", ".join(states), "observations o0, o1, o2",
             "param p in (1/4, 1/2)", "prior " + ", ".join(f"{s}: 1/{n}" for s in states)]
    for i, s in enumerate(states):
        w = [rng.randint(1, 5) for _ in states]
        lines.append(f"{s} -> " + ", ".join(f"{x}: {Fraction(c, sum(w))}" for x, c in zip(states, w)))
        lines.append(f"{s} emits o0: p, o1: 1/2 - p/2, o2: 1/2 - p/2" if i % 2 else
                     f"{s} emits o0: 1/2 - p/2, o1: p, o2: 1/2 - p/2")
    lines += ["secret a = {s0}", "secret b = {s1}", "protect a, b", f"check ε = ln 2, k = {k}", "}"]
    return "\n".join(lines) + "\n"


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_solver_child_dies_with_its_parent(tmp_path, sig):
    path = tmp_path / "slow.dp"
    path.write_text(_slow_model())
    proc = subprocess.Popen([sys.executable, "-m", "dslc", "check", "--timeout", "120", str(path)],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        start = time.monotonic()
        kids: list[int] = []
        while not kids and proc.poll() is None and time.monotonic() - start < 60:
            time.sleep(0.05)
            kids = _children(proc.pid)
        assert kids, f"no solver child appeared (exit {proc.poll()})"
        time.sleep(0.3)                      # the child is inside solver.check()
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=10)   # EOF: nobody holds dslc's stdout any more
        gone = time.monotonic()
        assert proc.returncode == -sig
        while any(_alive(k) for k in kids) and time.monotonic() - gone < 2:
            time.sleep(0.02)
        assert not any(_alive(k) for k in kids), "the solver child outlived dslc"
    finally:
        for k in _children(proc.pid) + (kids if "kids" in locals() else []):
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ------------------------------------------------------------------ memory

AS_LIMIT = 200 * 2**20         # bytes of address space: Python and dslc start; 256 MiB + 1 cannot be reserved


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


@pytest.mark.parametrize("via", ["file", "stdin"])
def test_small_file_under_ulimit_v(tmp_path, via):
    path = tmp_path / "svt.dp"
    path.write_text(SVT)
    args = ["check", "--format", "json", "-" if via == "stdin" else str(path)]
    with open(path, "rb") as stdin:
        run = subprocess.run([sys.executable, "-m", "dslc", *args], env=ENV, stdin=stdin,
                             capture_output=True, timeout=60, preexec_fn=_limited)
    assert run.returncode == 0, run.stderr.decode()[-500:]
    assert [b["verdict"] for b in _json(run)["files"][0]["blocks"]] == ["private", "private"]


def test_stdin_limit_still_holds(tmp_path):
    text = SVT
    for size, code in ((len(text.encode()), 0), (len(text.encode()) - 1, 2)):
        run = dslc("check", "--format", "json", "--max-file-size", str(size), "-", input=text)
        assert run.returncode == code
        if code == 2:
            assert _codes(_json(run)["files"][0]) == ["E010"]


class _Trickle:
    """A stream that gives at most ``step`` bytes per read (as a pipe may)."""

    def __init__(self, data: bytes, step: int):
        self.data, self.step, self.at = data, step, 0

    def read(self, n: int) -> bytes:
        n = min(n, self.step)
        out = self.data[self.at:self.at + n]
        self.at += len(out)
        return out


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 3000), st.integers(0, 4000), st.integers(1, 5000))
def test_read_bounded_against_literal(length, max_bytes, hint, step):
    """Whatever the announced size and however short the reads: the bytes
    when there are at most max_bytes, else None."""
    data = random.Random(length).randbytes(length)
    old, limits.READ_CHUNK = limits.READ_CHUNK, 97
    try:
        got = limits._read_bounded(_Trickle(data, step), max_bytes, hint)
    finally:
        limits.READ_CHUNK = old
    assert got == (data if length <= max_bytes else None)


# ----------------------------------------------------------- did you mean

def _literal_osa(a: str, b: str) -> int:
    """The full optimal-string-alignment table (the reference)."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


WORDS = st.text(alphabet="abcxy", max_size=12)


@settings(max_examples=300, deadline=None)
@given(WORDS, WORDS, st.one_of(st.none(), st.integers(0, 5)))
def test_banded_distance_against_full_table(a, b, limit):
    full = _literal_osa(a, b)
    got = suggest.edit_distance(a, b, limit)
    if limit is None or full <= limit:
        assert got == full
    else:
        assert got == limit + 1


def _literal_closest(word, candidates, ratio=0.6):
    """closest() as it was: the full table and difflib.get_close_matches."""
    import difflib
    options = [c for c in dict.fromkeys(candidates) if c and c != word]
    if not options or not word:
        return None
    for c in options:
        if c.lower() == word.lower():
            return c
    limit = suggest.max_edits(word)
    best, best_d = None, limit + 1
    for c in options:
        d = _literal_osa(word.lower(), c.lower())
        if d < best_d:
            best, best_d = c, d
    if best is not None:
        return best
    if ratio is not None:
        close = difflib.get_close_matches(word, options, n=1, cutoff=ratio)
        return close[0] if close else None
    return None


NAMES = st.text(alphabet="abcdeXY_1", min_size=1, max_size=14)


@settings(max_examples=300, deadline=None)
@given(NAMES, st.lists(NAMES, max_size=8), st.sampled_from([0.6, None]))
def test_suggestion_unchanged_for_normal_names(word, candidates, ratio):
    assert suggest.closest(word, candidates, ratio) == _literal_closest(word, candidates, ratio)


def test_suggestion_work_is_counted_not_timed(monkeypatch):
    """Past MAX_WORK cells no candidate is named (the same on every machine)."""
    names = [f"state_{i}" for i in range(3000)]
    assert suggest.closest("state_12x", names) == _literal_closest("state_12x", names) == "state_12"
    monkeypatch.setattr(suggest, "MAX_WORK", 2000)
    assert suggest.closest("state_12x", names) is None
    assert suggest.closest("state_12x", names[:3] + ["state_12"]) == "state_12"


def test_long_identifier_is_fast(tmp_path):
    name, other = "a" * 3999 + "b", "a" * 3998 + "cc"
    many = [f"{''.join(random.Random(i).choice('ab') for _ in range(4000))}" for i in range(20)]
    decls = "\n".join(f"    {n} := Lap(ε, T)" for n in many)
    text = (f"mechanism m(T = 0) {{\n    {name} := Lap(ε/2, T)\n{decls}\n    loop {{\n        q := read()\n"
            f"        if Lap(ε/4, q) >= {other} {{\n            output ⊤\n            halt\n        }}\n"
            "        output ⊥\n    }\n}\n")
    path = tmp_path / "long.dp"
    path.write_text(text)
    start = time.monotonic()
    run = dslc("check", "--format", "json", "--timeout", "1", str(path))
    took = time.monotonic() - start
    assert took < 10, took            # before: 31 s for one such name
    diag = next(d for b in _json(run)["files"][0]["blocks"] for d in b["diagnostics"] if d["code"] == "E119")
    assert f"did you mean `{name}`?" in json.dumps(diag, ensure_ascii=False)


# ----------------------------------------------------------- extreme rates

def _number(exponent: int) -> str:
    return "1" + "0" * exponent if exponent >= 0 else "1/1" + "0" * -exponent


def _rational(exponent: int) -> Fraction:
    return Fraction(10) ** exponent


EXPONENTS = st.one_of(st.integers(-400, 400), st.sampled_from([-400, -320, -309, 308, 309, 320, 400]))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(EXPONENTS, EXPONENTS, EXPONENTS, st.booleans()), min_size=1, max_size=5))
def test_extreme_rates_and_means(tmp_path, cases):
    """SVT with threshold rate r1·ε, query rate r2·ε and mean T: d = r1 + 2·r2
    exactly; without `halt` it leaks.  Never E000, whatever the sizes."""
    paths = []
    for i, (e1, e2, em, leaks) in enumerate(cases):
        text = (LEAK if leaks else SVT).split("// Fig. 1")[0]
        text = (text.replace("mechanism svt(T = 0)", f"mechanism svt(T = {_number(em)})")
                .replace("Lap(ε/2, T)", f"Lap({_number(e1)} ε, T)").replace("Lap(ε/4, q)", f"Lap({_number(e2)} ε, q)"))
        path = tmp_path / f"case{i}.dp"
        path.write_text(text)
        paths.append(str(path))
    run = dslc("check", "--format", "json", "--witness", "--explain", "--timeout", "30", *paths)
    assert run.stderr == ""
    files = _by_file(_json(run))
    assert run.returncode == (1 if any(c[3] for c in cases) else 0)
    for path, (e1, e2, em, leaks) in zip(paths, cases):
        (block,) = files[path]["blocks"]
        assert "E000" not in _codes(files[path])
        if leaks:
            assert block["verdict"] == "not-private"
            continue
        assert block["verdict"] == "private", block
        d = _rational(e1) + 2 * _rational(e2)
        assert Fraction(block["d"]) == d
        if block.get("d_lower") is not None:
            assert Fraction(block["d_lower"]) <= d
