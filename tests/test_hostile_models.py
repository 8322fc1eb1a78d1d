"""Hostile `hmm`/`mdp`/`chain` inputs (issue 10): each case gets a located
error or a verdict within its time limit, under 1 GB, with no traceback.

Every case runs the real command line (`python -m dslc ...`) in a child
process with a wall-clock limit (the child is killed past it); the child's
peak memory is read from ``os.wait4`` (ru_maxrss).  Large inputs are
generated on the fly.  The whole file takes about 40 s.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MEMORY_LIMIT_KB = 1024 * 1024           # 1 GB
STARTUP = 3.0                           # interpreter start-up and imports, on a loaded 2-core machine


class Run:
    def __init__(self, code: int, out: str, err: str, seconds: float, maxrss_kb: int):
        self.code, self.out, self.err, self.seconds, self.maxrss_kb = code, out, err, seconds, maxrss_kb

    def json(self):
        return json.loads(self.out)

    def check_clean(self):
        assert "Traceback" not in self.err and "Traceback" not in self.out, self.err[-2000:]
        assert self.maxrss_kb < MEMORY_LIMIT_KB, f"{self.maxrss_kb} KB"


# The child runs under a small launcher: a process's peak memory (ru_maxrss)
# includes the memory of the process it was forked from, so `python -m dslc`
# forked straight from pytest would report pytest's size.  The launcher
# (a bare interpreter) forks and execs dslc, forwards SIGINT, and writes the
# child's ru_maxrss to a file.
LAUNCHER = r"""
import os, signal, sys
out = sys.argv[1]
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-m", "dslc", *sys.argv[2:]])
signal.signal(signal.SIGINT, lambda *_: os.kill(pid, signal.SIGINT))
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def dslc(*args: str, limit: float, interrupt_after: float | None = None, tmp: Path) -> Run:
    """Run `python -m dslc ARGS`, killed after ``limit`` seconds; with
    ``interrupt_after`` a SIGINT is sent that many seconds after the start."""
    out_path, err_path, rss_path = tmp / "child.out", tmp / "child.err", tmp / "child.rss"
    rss_path.unlink(missing_ok=True)
    with open(out_path, "w+b") as out, open(err_path, "w+b") as err:
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(rss_path), *args], stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, cwd=ROOT, env={**os.environ, "COLUMNS": "120"},
                                start_new_session=True)

        def kill():
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        killer = threading.Timer(limit, kill)
        killer.start()
        interrupter = None
        if interrupt_after is not None:
            interrupter = threading.Timer(interrupt_after, lambda: proc.send_signal(signal.SIGINT))
            interrupter.start()
        try:
            proc.wait()
        finally:
            killer.cancel()
            if interrupter is not None:
                interrupter.cancel()
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        maxrss = int(rss_path.read_text()) if rss_path.exists() else 0
        return Run(proc.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                   seconds, maxrss)


def blocks(run: Run) -> dict[str, dict]:
    return {b["name"]: b for f in run.json()["files"] for b in f["blocks"]}


def codes(block: dict) -> list[str]:
    return [d["code"] for d in block["diagnostics"]]


# ---------------------------------------------------------------- generators
def big_hmm(n: int, k: int, seed: int = 1) -> str:
    """n states, 3 observations, sparse random rows; secrets on two states."""
    rng = random.Random(seed)
    lines = ["hmm big {", "  states " + ", ".join(f"s{i}" for i in range(n)), "  observations a, b, c",
             "  prior s0: 1/2, s1: 1/2"]
    for i in range(n):
        t = rng.sample(range(n), 3)
        lines.append(f"  s{i} -> s{t[0]}: 1/2, s{t[1]}: 1/4, s{t[2]}: 1/4")
    for i in range(n):
        lines.append("  s%d emits %s" % (i, rng.choice(["a: 1/2, b: 1/3, c: 1/6", "a: 1/3, b: 1/3, c: 1/3",
                                                          "b: 2/3, c: 1/3", "a: 1/5, b: 3/5, c: 1/5"])))
    lines += ["  secret x = {s0}", "  secret y = {s1}", "  protect x, y", f"  check ε = ln 4, k = {k}", "}"]
    return "\n".join(lines)


def _row(rng: random.Random, n: int, zero_p: float, top: int = 6) -> list[Fraction]:
    w = [0 if rng.random() < zero_p else rng.randint(1, top) for _ in range(n)]
    if not any(w):
        w[rng.randrange(n)] = 1
    return [Fraction(x, sum(w)) for x in w]


def random_mdp(seed: int, k: int, n: int = 4, eps: str = "ln 1000") -> str:
    """A small random MDP (3 observations, 2 actions), as in issue 14."""
    rng = random.Random(seed)
    st, ob = [f"s{i}" for i in range(n)], ["o0", "o1", "o2"]

    def fmt(names, row):
        return ", ".join(f"{nm}: {p}" for nm, p in zip(names, row) if p)
    lines = [f"mdp r{seed} {{", "states " + ", ".join(st), "observations " + ", ".join(ob), "actions A0, A1",
             "prior " + fmt(st, _row(rng, n, 0))]
    for s in st:
        for a in ("A0", "A1"):
            lines.append(f"{s} on {a} -> " + fmt(st, _row(rng, n, 0.3)))
        lines.append(f"{s} emits " + fmt(ob, _row(rng, 3, 0.3)))
    lines += ["secret a = {s0}", "secret b = {s1}", "protect a, b", f"check ε = {eps}, k = {k}", "}"]
    return "\n".join(lines)


def symbolic_mdp(seed: int, k: int) -> str:
    """:func:`random_mdp` with a symbolic prior (p ∈ (1/10, 1/5) on the secret `a`): always SMT."""
    text = random_mdp(seed, k)
    start = text.index("prior ")
    end = text.index("\n", start)
    return (text[:start] + "param p in (1/10, 1/5)\nprior s0: p, s1: 1/2 - p, s2: 1/4, s3: 1/4"
            + text[end:])


def random_chain(n: int, length: int, seed: int = 0, query: str = "sum", initial: str = "stationary",
                 top: int = 9, zero_p: float = 0.0) -> str:
    rng = random.Random(seed)
    P = [_row(rng, n, zero_p, top) for _ in range(n)]
    init = "stationary" if initial == "stationary" else "[" + ", ".join(map(str, _row(rng, n, 0, top))) + "]"
    return "\n".join([
        f"chain c{n} {{", "  states = [" + ", ".join(map(str, range(n))) + "]", f"  initial = {init}",
        "  transition = [" + ",\n    ".join("[" + ", ".join(map(str, r)) + "]" for r in P) + "]",
        f"  length = {length}", f"  query = {query}", "  ε = 1", "}"])


BINARY = """chain long {{
    states = [0, 1]
    initial = {initial}
    transition = [[9/10, 1/10], [1/5, 4/5]]
    length = {length}
    query = {query}
    ε = 1
}}
"""


# ---------------------------------------------------------------- hmm / mdp
@pytest.mark.parametrize("k", [200, 12])
def test_hmm_200_states_ends_within_its_limit(tmp_path, k):
    """k = 200 took 165 s with `--timeout 5`: its query is now refused by size
    at once (E230, unknown).  k = 12 builds a query on which z3 ignores its own
    time-out for minutes: it is solved in a child process that is stopped at
    the limit (E014)."""
    path = tmp_path / "big.dp"
    path.write_text(big_hmm(200, k), encoding="utf-8")
    run = dslc("check", str(path), "--timeout", "4", "--format", "json", limit=4 + STARTUP + 10, tmp=tmp_path)
    run.check_clean()
    assert run.code == 2
    b = blocks(run)["big"]
    assert b["verdict"] == "unknown" and codes(b) in (["E014"], ["E230"]), b
    if k == 200:
        assert codes(b) == ["E230"] and "terms" in b["diagnostics"][0]["message"]
    assert run.seconds < 4 + STARTUP, run.seconds


def test_small_random_mdp_is_decided_by_enumeration_quickly(tmp_path):
    """Issue 14: k = 6 random MDPs took 21-39 s (or timed out) with SMT alone."""
    path = tmp_path / "mdp.dp"
    path.write_text("\n\n".join(random_mdp(seed, 6) for seed in (0, 1, 2, 5, 6)), encoding="utf-8")
    run = dslc("check", str(path), "--timeout", "20", "--format", "json", limit=40, tmp=tmp_path)
    run.check_clean()
    for b in blocks(run).values():
        assert b["verdict"] in ("private", "not-private"), b
        assert b["details"]["engine"] == "enum"
    assert run.seconds < 5 + STARTUP, run.seconds


@pytest.mark.parametrize("where,after", [("z3", 1.5), ("encoding", 1.0), ("child", 2.5)])
def test_ctrl_c_ends_the_check_at_once(tmp_path, where, after):
    """SIGINT while z3 solves (z3 catches it and answers "unknown (interrupted
    from keyboard)") or while the query is built: exit 130 within 2 s, one line."""
    path = tmp_path / "slow.dp"
    # a k = 10 MDP with a symbolic prior is hard for z3 (solved in-process; symbolic models are never
    # enumerated — the numeric one is now decided by the pruned enumeration in milliseconds); the
    # 200-state hmm spends a second building its query, which is then solved in a child process
    path.write_text(symbolic_mdp(0, 10) if where == "z3" else big_hmm(200, 12), encoding="utf-8")
    # (the check of a slow query ends at --timeout 60; Ctrl-C must end it long before)
    run = dslc("check", str(path), "--timeout", "60", limit=after + 10, interrupt_after=after, tmp=tmp_path)
    assert run.code == 130, (run.code, run.err[-500:])
    assert run.seconds < after + 2, run.seconds
    assert run.err.strip() == "dslc: interrupted"
    assert "Traceback" not in run.err


# ---------------------------------------------------------------- chains
@pytest.mark.parametrize("length,query,initial", [
    (10 ** 9, "sum", "stationary"),
    (10 ** 12, "count(1)", "stationary"),
    (10 ** 12, "sum", "[1, 0]"),
])
def test_chain_length_does_not_cost_time(tmp_path, length, query, initial):
    path = tmp_path / "long.dp"
    path.write_text(BINARY.format(length=length, query=query, initial=initial), encoding="utf-8")
    run = dslc("check", str(path), "--timeout", "20", "--format", "json", limit=30, tmp=tmp_path)
    run.check_clean()
    assert run.code == 0
    cal = blocks(run)["long"]["details"]["calibration"]
    assert cal["recommended"] == "markov_quilt" and float(cal["recommended_scale"]) < 25
    assert run.seconds < 3 + STARTUP, run.seconds


@pytest.mark.parametrize("n,length,initial", [(40, 1000, "stationary"), (100, 1000, "stationary"),
                                              (50, 100, "vector")])
def test_large_chains_finish_or_time_out_within_the_limit(tmp_path, n, length, initial):
    """40 states took 46 s and 100 states over 200 s with no limit; a valid
    50-state chain crashed.  Now: a verdict or E014 within --timeout."""
    path = tmp_path / "chain.dp"
    path.write_text(random_chain(n, length, seed=n, initial=initial), encoding="utf-8")
    run = dslc("check", str(path), "--timeout", "4", "--format", "json", limit=4 + STARTUP + 10, tmp=tmp_path)
    run.check_clean()
    b = blocks(run)[f"c{n}"]
    assert (run.code, b["verdict"], codes(b)) in ((0, "private", []), (2, "unknown", ["E014"])), b
    assert run.seconds < 4 + STARTUP, run.seconds


def test_calibrate_is_bounded_by_its_timeout(tmp_path):
    path = tmp_path / "chain.dp"
    path.write_text(random_chain(100, 1000, seed=3), encoding="utf-8")
    run = dslc("calibrate", str(path), "--timeout", "3", "--format", "json", limit=3 + STARTUP + 10, tmp=tmp_path)
    run.check_clean()
    assert run.code == 2 and run.seconds < 3 + STARTUP
    [b] = run.json()["blocks"]
    assert b["verdict"] == "unknown" and codes(b) == ["E014"]


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "x"])
def test_calibrate_and_release_validate_timeout(tmp_path, value):
    for cmd in (["calibrate", "examples/chain_worked.dp"],
                ["release", "examples/chain_worked.dp", "--data", "nothing.csv"]):
        run = dslc(*cmd, f"--timeout={value}", limit=20, tmp=tmp_path)
        assert run.code == 2 and "--timeout" in run.err and "Traceback" not in run.err


# ---------------------------------------------------------------- release --data
DETERMINISTIC = """chain det {
    states = [0, 1]
    initial = [1, 0]
    transition = [[1, 0], [0, 1]]
    length = 4
    query = sum
    ε = 1
}
"""


def _release(tmp_path: Path, data: str, limit: float = 20) -> tuple[Run, list[dict]]:
    block = tmp_path / "det.dp"
    block.write_text(DETERMINISTIC, encoding="utf-8")
    run = dslc("release", str(block), "--data", data, "--seed", "1", "--format", "json", limit=limit, tmp=tmp_path)
    run.check_clean()
    doc = run.json()
    assert doc["released"] is None
    return run, doc["diagnostics"]


def test_release_refuses_a_fifo_without_blocking(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    run, diags = _release(tmp_path, str(fifo), limit=10)
    assert run.code == 2 and [d["code"] for d in diags] == ["E260"] and "FIFO" in diags[0]["message"]
    assert run.seconds < STARTUP + 2


def test_release_refuses_dev_zero(tmp_path):
    run, diags = _release(tmp_path, "/dev/zero", limit=10)
    assert run.code == 2 and [d["code"] for d in diags] == ["E260"] and "device" in diags[0]["message"]
    assert run.seconds < STARTUP + 2


@pytest.mark.parametrize("rows,code,line", [
    ("1\n1\n1\n1\n", "E267", 1),           # impossible start: the chain starts in 0 and never leaves it
    ("0\n0\n1\n0\n", "E267", 3),           # a transition of probability 0
    ("0\n0\n0\n", "E263", 4),              # too short
    ("0\n" * 7, "E263", 5),                # too long: the first extra record is pointed at
    ("0\n0\n2\n0\n", "E262", 3),           # not a state
])
def test_release_refuses_impossible_or_wrong_data(tmp_path, rows, code, line):
    data = tmp_path / "series.csv"
    data.write_text(rows, encoding="utf-8")
    run, diags = _release(tmp_path, str(data))
    assert run.code == 2 and [d["code"] for d in diags] == [code]
    assert diags[0]["span"]["line"] == line


def test_release_of_a_large_series_is_bounded(tmp_path):
    """2 million records: read, checked against Θ and released in bounded memory."""
    block = tmp_path / "walk.dp"
    T = 2_000_000
    block.write_text(BINARY.format(length=T, query="sum", initial="stationary").replace("long", "walk"),
                     encoding="utf-8")
    data = tmp_path / "series.csv"
    rng = random.Random(7)
    state, out = 0, []
    for _ in range(T):
        out.append("01"[state])
        if rng.random() < (0.1 if state == 0 else 0.2):
            state = 1 - state
    data.write_text("\n".join(out) + "\n", encoding="utf-8")
    run = dslc("release", str(block), "--data", str(data), "--seed", "3", "--format", "json", limit=60,
               tmp=tmp_path)
    run.check_clean()
    assert run.code == 0 and run.json()["records"] == T
    assert run.maxrss_kb < 300 * 1024, run.maxrss_kb
    # an oversize data file is refused by its size, before it is read
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:
        f.truncate(65 * 2 ** 20)
    run = dslc("release", str(block), "--data", str(big), "--format", "json", limit=20, tmp=tmp_path)
    run.check_clean()
    assert run.code == 2 and [d["code"] for d in run.json()["diagnostics"]] == ["E260"]
    assert run.maxrss_kb < 200 * 1024


@pytest.mark.parametrize("eps", ["1/" + "1" + "0" * 400, "1" + "0" * 400])
def test_chain_epsilon_out_of_float_range_is_located(tmp_path, eps):
    """ε = 10^-400 or 10^400 crashed the float search (OverflowError, E000)."""
    path = tmp_path / "eps.dp"
    path.write_text(BINARY.format(length=1000, query="sum", initial="stationary").replace("ε = 1", f"ε = {eps}"),
                    encoding="utf-8")
    run = dslc("check", str(path), "--format", "json", limit=20, tmp=tmp_path)
    run.check_clean()
    b = blocks(run)["long"]
    assert run.code == 2 and codes(b) == ["E254"] and b["diagnostics"][0]["span"]["line"] == 7
