"""dslc side by side with DiPAut, the DiPA authors' tool: corpus, differential test, timings.

DiPAut is not part of this repository and is not installed by it.  Point this
script at a checkout of it (https://github.com/bhusalb/DiPAut) and at a
Python that has its requirements:

    export DIPAUT_DIR=/path/to/DiPAut DIPAUT_PYTHON=/path/to/dipaut-venv/bin/python
    python3 benchmarks/bench_dipaut.py corpus        # rewrite tests/fixtures/dipaut/expected.json
    python3 benchmarks/bench_dipaut.py diff --count 3000 --seed 1
    python3 benchmarks/bench_dipaut.py time --sizes 3000 10000

(or `--dipaut DIR --dipaut-python PY` before the command).  Without DiPAut the
script prints why and exits 0.

- `corpus`: runs DiPAut's command line (`python main.py -i FILE`) on every
  `.dipa` file under tests/fixtures/dipaut/, reads its verdict table, and
  writes expected.json (with DiPAut's commit, the date and this command).
- `diff`: random small single-variable DiPAs (the three distributions of
  tests/dipa_strategies.py, plus initial transitions that output insample),
  written as `.dipa` text, read back by tests/dipaut_format.py, decided by
  DiPAut and by `dslc.dipa.check.check` and tests/literal_dipa.py; prints the
  agreement on verdicts, first detected condition, each condition, and d, and
  writes the disagreeing automata to --out.
- `time`: wall time of both command lines (fresh processes) and of both
  cores in process (DiPAut: parse + tests + weight; dslc: split, parse,
  lower, validate, check) on private and leaking SVT-like chains and random
  automata.

DiPAut runs in its own interpreter (`_worker`, below, is executed by
DIPAUT_PYTHON with DiPAut's folder on sys.path); nothing of DiPAut is copied
here.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIXTURES = ROOT / "tests" / "fixtures" / "dipaut"
TESTS_ORDER = ["Leaking Cycle", "Disclosing Cycle", "Leaking Pair", "Privacy Violating Path"]
KIND_OF_TEST = {"Leaking Cycle": "DP001", "Disclosing Cycle": "DP003", "Leaking Pair": "DP002",
                "Privacy Violating Path": "DP004"}


# ------------------------------------------------------------------ DiPAut side
def _worker(dipaut_dir: str) -> None:
    """Runs under DiPAut's Python: one JSON request per line on stdin
    ({"text": ...}), one JSON answer per line on stdout.

    Does what DiPAut's main.run does (parse, process, compute_weight), with
    DiPAut's module-level state (parser's state and variable tables, the
    memo tables of dp_tests/utils.py) reset before every automaton, as in a
    fresh `python main.py` process.  Unlike main.process it runs all four
    tests instead of stopping at the first detected one; the tests run in
    DiPAut's order, so the prefix up to the first detected test is exactly
    what DiPAut reports."""
    sys.path.insert(0, dipaut_dir)
    os.chdir(dipaut_dir)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr                 # ply and DiPAut print; keep our channel clean
    import dp_tests
    import dp_tests.utils as dutils
    import main as dmain
    from builders import component_graph_builder
    from core import parser as dparser

    def alarm(signum, frame):
        raise TimeoutError()
    signal.signal(signal.SIGALRM, alarm)

    for line in sys.stdin:
        req = json.loads(line)
        dparser.states.clear()
        dparser.variables.clear()
        dutils.sm_vars_memo.clear()
        dutils.lg_vars_memo.clear()
        answer: dict = {}
        t0 = time.perf_counter()
        signal.alarm(int(req.get("timeout", 0)))
        try:
            lines = req["text"].splitlines(keepends=True)
            parsed = dmain.parse(lines)
            graph = dmain.graph_builder.build(parsed)
            aug_graph, variables = dmain.augmentation_graph_builder.build_augmentation_for_leaking_pair(graph)
            aug_graph_b_0 = aug_graph.vs.select(b_eq=0).subgraph()
            args = {"graph": graph, "aug_graph_b_0": aug_graph_b_0,
                    "aug_graph_b_0_scc_subgraphs": aug_graph_b_0.clusters().subgraphs(),
                    "aug_graph_b_1_and_2": aug_graph.vs.select(b_in=[1, 2]).subgraph(),
                    "variables": variables}
            results = []
            for t in dp_tests.active_tests:
                if req.get("memo_per_test"):
                    # analysis only (`diff --memo-per-test`): get_sm_vars memoises by edge index
                    # alone, across the augmented graphs of different tests
                    dutils.sm_vars_memo.clear()
                results.append((t.__name__, t.perform_test(args)["result"]))
            private = not any(r for _, r in results)
            reported = []
            for name, r in results:
                reported.append([name, r])
                if r:
                    break
            answer = {"all_tests": dict(results), "reported": reported, "private": private,
                      "output_distinction_violated": dp_tests.output_distinction.perform_test(args)["result"]}
            if private or req.get("weight_always"):
                answer["d"] = str(component_graph_builder.compute_weight(graph, aug_graph_b_0))
        except TimeoutError:
            answer = {"error": "timeout"}
        except Exception as exc:            # noqa: BLE001 -- reported, not hidden
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            signal.alarm(0)
        answer["seconds"] = time.perf_counter() - t0
        real_stdout.write(json.dumps(answer) + "\n")
        real_stdout.flush()


class DiPAut:
    """A DiPAut checkout plus the Python that runs it."""

    def __init__(self, directory: str, python: str):
        self.dir = str(Path(directory).resolve())
        self.python = python
        self._procs: list[subprocess.Popen] = []

    def problem(self) -> str | None:
        """Why DiPAut cannot be used here, or None."""
        if not (Path(self.dir) / "main.py").is_file():
            return f"no DiPAut checkout at {self.dir!r} (set DIPAUT_DIR or --dipaut)"
        try:
            out = subprocess.run([self.python, "-c", "import igraph, ply, rich"], cwd=self.dir,
                                 capture_output=True, text=True, timeout=120)
        except OSError as exc:
            return f"cannot run {self.python!r}: {exc} (set DIPAUT_PYTHON or --dipaut-python)"
        if out.returncode != 0:
            return (f"{self.python} lacks DiPAut's requirements (igraph, ply, rich): "
                    f"{out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}")
        return None

    def commit(self) -> str | None:
        try:
            out = subprocess.run(["git", "-C", self.dir, "rev-parse", "HEAD"], capture_output=True, text=True)
        except OSError:
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    # -- the command line, as a user runs it
    def cli(self, path: str, timeout: float = 600, mem_gb: float = 16) -> dict:
        """`python main.py -i PATH` in a fresh process: verdict table, wall time, peak memory."""
        def limits():
            resource.setrlimit(resource.RLIMIT_AS, (int(mem_gb * 2**30), int(mem_gb * 2**30)))
        env = dict(os.environ, COLUMNS="200", TERM="dumb")
        timer = "/usr/bin/time" if Path("/usr/bin/time").exists() else None   # GNU time: peak RSS
        fd, peak_file = tempfile.mkstemp()
        os.close(fd)
        cmd = [self.python, "main.py", "-i", str(path)]
        if timer:
            cmd = [timer, "-f", "%M", "-o", peak_file] + cmd
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=self.dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, preexec_fn=limits, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            os.unlink(peak_file)
            return {"error": f"timeout after {timeout:.0f} s", "seconds": time.perf_counter() - t0}
        wall = time.perf_counter() - t0
        peak = Path(peak_file).read_text().strip().splitlines()
        os.unlink(peak_file)
        res = parse_table(out)
        res["seconds"] = wall
        if peak and peak[-1].isdigit():
            res["peak_mb"] = int(peak[-1]) / 1024
        if proc.returncode != 0 or "private" not in res:
            last = err.strip().splitlines()[-1] if err.strip() else f"exit {proc.returncode}"
            res["error"] = last
        return res

    # -- in process, many automata
    def start(self, n: int = 1) -> None:
        for _ in range(n):
            self._procs.append(subprocess.Popen(
                [self.python, str(Path(__file__).resolve()), "_worker", self.dir],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                bufsize=1))

    def ask(self, text: str, worker: int = 0, timeout: int = 0, weight_always: bool = False,
            memo_per_test: bool = False) -> dict:
        p = self._procs[worker]
        p.stdin.write(json.dumps({"text": text, "timeout": timeout, "weight_always": weight_always,
                                  "memo_per_test": memo_per_test}) + "\n")
        p.stdin.flush()
        line = p.stdout.readline()
        if not line:
            raise RuntimeError("DiPAut worker died")
        return json.loads(line)

    def ask_many(self, texts: list[str], timeout: int = 0, memo_per_test: bool = False) -> list[dict]:
        """Round-robin over the started workers (requests pipelined)."""
        import threading
        out: list[dict | None] = [None] * len(texts)

        def run(w: int):
            for i in range(w, len(texts), len(self._procs)):
                out[i] = self.ask(texts[i], w, timeout, memo_per_test=memo_per_test)
        threads = [threading.Thread(target=run, args=(w,)) for w in range(len(self._procs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out  # type: ignore[return-value]

    def stop(self) -> None:
        for p in self._procs:
            p.stdin.close()
            p.wait()
        self._procs.clear()


def parse_table(out: str) -> dict:
    """DiPAut's printed verdict: 'weight is X' or the table of tests run with Yes/No."""
    res: dict = {}
    for line in out.splitlines():
        if "differentially private and weight is" in line:
            res["private"] = True
            res["d"] = line.split("weight is", 1)[1].strip().rstrip(".").strip()
            res["reported"] = []
        cells = [c.strip() for c in line.strip().strip("│").split("│")] if "│" in line else []
        if len(cells) == 2 and cells[0] in TESTS_ORDER:
            res.setdefault("reported", []).append([cells[0], cells[1] == "Yes"])
        if "Automata is not differentially private" in line:
            res["private"] = False
            res["caption"] = "not differentially private"
        if "Automata is not well-formed" in line:
            res["private"] = False
            res["caption"] = "not well-formed (output distinction)"
    return res


def get_dipaut(args) -> DiPAut | None:
    d = DiPAut(args.dipaut or os.environ.get("DIPAUT_DIR", ""),
               args.dipaut_python or os.environ.get("DIPAUT_PYTHON", sys.executable))
    why = d.problem()
    if why:
        print(f"skipped: DiPAut is not available: {why}")
        return None
    return d


# ------------------------------------------------------------------ corpus
def cmd_corpus(args) -> None:
    import hashlib
    import datetime
    sys.path.insert(0, str(ROOT))
    from tests.dipaut_format import OutsideModel, to_dipa
    dip = get_dipaut(args)
    if dip is None:
        return
    files = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.dipa"))
    dip.start(1)
    entries = {}
    for rel in files:
        text = (FIXTURES / rel).read_text(encoding="utf-8")
        cli = dip.cli(str(FIXTURES / rel))
        inproc = dip.ask(text)
        if "error" in cli:
            raise SystemExit(f"{rel}: DiPAut failed: {cli['error']}")
        # the in-process runner (used by `diff`) must say what the command line says
        assert inproc["private"] == cli["private"] and inproc.get("d") == cli.get("d"), (rel, cli, inproc)
        entry = {"sha256": hashlib.sha256(text.encode()).hexdigest(), "private": cli["private"],
                 "d": cli.get("d")}
        if not cli["private"]:
            assert inproc["reported"] == cli["reported"], (rel, cli, inproc)
            entry["reported"] = cli["reported"]
            entry["detected"] = next(name for name, r in cli["reported"] if r)
            entry["caption"] = cli["caption"]
        try:
            conv = to_dipa(text)
            entry["model"] = "single-variable DiPA" + (
                " (initial transition outputs a real value)" if conv.initial_real_output else "")
        except OutsideModel as exc:
            entry["model"] = "outside"
            entry["skip"] = exc.reason
        entries[rel] = entry
        print(f"{rel}: {'private d=' + cli['d'] if cli['private'] else 'NOT private: ' + entry['detected']}"
              f"  [{entry.get('skip', entry['model'])}]", flush=True)
    dip.stop()
    data = {
        "about": ("Verdicts of DiPAut, the tool of the DiPA authors, on the .dipa files beside this one "
                  "(copied unchanged from DiPAut's examples/, simple_examples/ and a sample of "
                  "k_min_max_examples/ and m_range_examples/, MIT licence in LICENSE.txt; ours/ holds "
                  "automata written for this project, see disagreements.json).  "
                  "'reported' (automata it rejects) lists the tests DiPAut printed, in its order, with "
                  "Yes (true) / No (false): it stops at the first test that detects a violation; "
                  "for an automaton it accepts it prints only the weight.  'd' is the weight DiPAut "
                  "prints for a private automaton.  'model'/'skip' is our converter's "
                  "(tests/dipaut_format.py) classification, not DiPAut's."),
        "produced_by": ("python3 benchmarks/bench_dipaut.py --dipaut DIR --dipaut-python PY corpus  "
                        "(DiPAut's command line `python main.py -i FILE` on every file, its printed table "
                        "parsed; cross-checked against the in-process runner used by `diff`)"),
        "produced_on": datetime.date.today().isoformat(),
        "dipaut": {"repository": "https://github.com/bhusalb/DiPAut", "commit": dip.commit() or args.commit,
                   "python": subprocess.run([dip.python, "-c", "import sys; print(sys.version.split()[0])"],
                                            capture_output=True, text=True).stdout.strip(),
                   "requirements": "DiPAut's requirements.txt, every pin as written (igraph 0.9.9, ply 3.11, "
                                   "rich 12.3.0, numpy 1.22.3, ...), built from source for CPython 3.11"},
        "files": entries,
    }
    out = FIXTURES / "expected.json"
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")


# ------------------------------------------------------------------ random automata
def cmd_diff(args) -> None:
    sys.path.insert(0, str(ROOT))
    from fractions import Fraction
    from dslc.dipa.check import check
    from tests.dipaut_format import from_dipa, random_dipa, to_dipa, to_dp_text
    from tests.literal_dipa import literal_check
    dip = get_dipaut(args)
    if dip is None:
        return
    rng = random.Random(args.seed)
    profiles = ["normal", "private", "dense", "initreal"]
    cases = []
    for i in range(args.count):
        profile = profiles[i % len(profiles)]
        text = from_dipa(random_dipa(rng, profile, args.max_states))
        cases.append((profile, text))
    dip.start(args.workers)
    t0 = time.perf_counter()
    answers = dip.ask_many([t for _, t in cases], timeout=args.timeout, memo_per_test=args.memo_per_test)
    dip.stop()
    dipaut_s = time.perf_counter() - t0
    stats = {"automata": 0, "dipaut_errors": 0, "verdict_agree": 0, "verdict_disagree": 0,
             "private_both": 0, "d_agree": 0, "d_disagree": 0, "first_agree": 0, "first_disagree": 0,
             "literal_disagree": 0, "dipaut_private": 0, "dipaut_leaking": 0}
    per_test = {name: {"agree": 0, "dipaut_only": 0, "dslc_only": 0} for name in TESTS_ORDER}
    by_profile: dict[str, list[int]] = {}
    first_kind: dict[str, int] = {}
    bad = []
    ours_s = 0.0
    for (profile, text), ans in zip(cases, answers):
        stats["automata"] += 1
        if "error" in ans:
            stats["dipaut_errors"] += 1
            bad.append({"why": "dipaut error: " + ans["error"], "profile": profile, "dipa": text})
            continue
        conv = to_dipa(text)
        c0 = time.perf_counter()
        res = check(conv.dipa, max_per_kind=10**6)
        ours_s += time.perf_counter() - c0
        kinds, lw = literal_check(conv.dipa)
        if set(kinds) != res.subkinds or (not kinds and lw != res.weight):
            stats["literal_disagree"] += 1
        ours_private = res.well_formed
        stats["dipaut_private" if ans["private"] else "dipaut_leaking"] += 1
        prof = by_profile.setdefault(profile, [0, 0])
        prof[0] += 1
        why = []
        if ours_private == ans["private"]:
            stats["verdict_agree"] += 1
            prof[1] += 1
        else:
            stats["verdict_disagree"] += 1
            why.append(f"verdict: DiPAut {'private' if ans['private'] else 'not private'}, "
                       f"dslc {'private' if ours_private else 'not private: ' + ','.join(sorted(res.subkinds))}")
        if ours_private and ans["private"]:
            stats["private_both"] += 1
            if Fraction(ans["d"]) == res.weight:
                stats["d_agree"] += 1
            else:
                stats["d_disagree"] += 1
                why.append(f"d: DiPAut {ans['d']}, dslc {res.weight}")
        if not ans["private"]:
            # DiPAut's first detected test must be one of ours, and the tests it passed before must not
            first = next(n for n, r in ans["reported"] if r)
            first_kind[first] = first_kind.get(first, 0) + 1
            passed = [n for n, r in ans["reported"] if not r]
            ok = KIND_OF_TEST[first] in res.kinds and not any(KIND_OF_TEST[n] in res.kinds for n in passed)
            stats["first_agree" if ok else "first_disagree"] += 1
            if not ok:
                why.append(f"first condition: DiPAut {ans['reported']}, dslc {sorted(res.subkinds)}")
        for name in TESTS_ORDER:
            d_says, o_says = ans["all_tests"][name], KIND_OF_TEST[name] in res.kinds
            per_test[name]["agree" if d_says == o_says else "dipaut_only" if d_says else "dslc_only"] += 1
        if why:
            bad.append({"why": why, "profile": profile, "dipaut": ans, "dslc": sorted(res.subkinds),
                        "dslc_d": str(res.weight) if res.weight is not None else None,
                        "dipa": text, "dp": to_dp_text(conv.dipa)})
    print(f"seed {args.seed}: {stats['automata']} random automata (profiles {', '.join(profiles)}, "
          f"up to {args.max_states} states); DiPAut {dipaut_s:.0f} s wall on {args.workers} workers, "
          f"dslc check {ours_s:.2f} s")
    print(json.dumps(stats, indent=1))
    print("verdict agreement by profile:", {k: f"{v[1]}/{v[0]}" for k, v in by_profile.items()})
    print("DiPAut's first detected condition:", first_kind)
    print("each condition, all four DiPAut tests run (informational: DiPAut's later tests are "
          "only meant to run when the earlier ones pass):")
    for name, c in per_test.items():
        print(f"  {name:24s} {c}")
    if args.out:
        Path(args.out).write_text(json.dumps(bad, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"{len(bad)} disagreements written to {args.out}")


# ------------------------------------------------------------------ timings
def shapes():
    sys.path.insert(0, str(HERE))
    import gen_dipa
    from dslc.ir.dipa import Guard

    def svt_star_chain(n):
        """SVT* gadgets in a row (Fig. 4 of the paper): store a threshold, loop on `<`,
        go on `>=` to a state that loops on `>=` and leaves on `<` to the next gadget.
        Every gadget has a leaking pair (DP002)."""
        from fractions import Fraction
        from dslc.ir.dipa import DiPA, State, Transition, symbol
        top, bot, half, quarter, zero = symbol("⊤"), symbol("⊥"), Fraction(1, 2), Fraction(1, 4), Fraction(0)
        d = DiPA("svt_star_chain")
        gadgets = max(1, n // 3)
        for g in range(gadgets):
            d.add_state(State(f"t{g}", False, half, zero))
            d.add_state(State(f"l{g}", True, quarter, zero))
            d.add_state(State(f"m{g}", True, quarter, zero))
        d.add_state(State("end", True, quarter, zero))
        for g in range(gadgets):
            t, l, m, nxt = 3 * g, 3 * g + 1, 3 * g + 2, 3 * g + 3
            d.add_transition(Transition(t, Guard.TRUE, l, bot, True))
            d.add_transition(Transition(l, Guard.LT, l, bot, False))
            d.add_transition(Transition(l, Guard.GE, m, top, False))
            d.add_transition(Transition(m, Guard.GE, m, top, False))
            d.add_transition(Transition(m, Guard.LT, nxt, bot, False))
        return d
    from tests.dipaut_format import reachable_part

    def at_least(gen):
        """A random automaton whose reachable part has at least n states (the generators'
        forward DAGs reach only part of their states from the initial one)."""
        def make(n):
            for k in (1, 1.1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16):
                d = reachable_part(gen(int(n * k)))
                if len(d.states) >= n:
                    return d
            return d
        return make
    return {
        "svt_chain (private)": gen_dipa.svt_chain,
        "sorted_chain (leaking, DP001)": gen_dipa.sorted_chain,
        "svt_star_chain (leaking, DP002)": svt_star_chain,
        "random_well_formed (private)": at_least(gen_dipa.random_well_formed),
        "random_ill_formed (leaking)": at_least(gen_dipa.random_ill_formed),
    }


def _ours_inprocess(dp_text: str) -> tuple[float, str, str | None]:
    import gc
    try:
        from dslc.pipeline import check_source
    except ImportError:                            # before the pipeline moved out of dslc.driver
        from dslc.driver import check_source
    from dslc.source import SourceFile
    gc.disable()
    t0 = time.perf_counter()
    res = check_source(SourceFile("bench.dp", dp_text))
    dt = time.perf_counter() - t0
    gc.enable()
    b = res.blocks[0]
    return dt, b.verdict.value, (str(b.d) if b.d is not None else None)


def cmd_time(args) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.dipaut_format import from_dipa, reachable_part, to_dp_text
    dip = get_dipaut(args)
    if dip is None:
        return
    gens = shapes()
    wanted = [g for g in gens if not args.shapes or any(s in g for s in args.shapes.split(","))]
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; DiPAut {dip.commit()}; "
          f"timeout {args.timeout:.0f} s, memory cap {args.mem_gb:g} GB")
    print("target (issue 14): the CLI ratio ≥ 50× on every shape at 3,000 states.  dslc: best of 3 "
          "fresh processes, with its default lower-bound search (0.12 s per private block) and "
          "with --lower-bound-time 0 (only the decision, as DiPAut)")
    print("| shape | states | DiPAut CLI (s) | DiPAut peak (MB) | dslc CLI (s) | CLI ratio "
          "| dslc CLI, no lower bound (s) | ratio | DiPAut core (s) | dslc core (s) | core ratio "
          "| verdicts (DiPAut / dslc) | target |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for g in wanted:
            for n in args.sizes:
                dipa = reachable_part(gens[g](n))
                dipa.name = "bench"
                p_dipa = Path(tmp) / f"a{n}.dipa"
                p_dp = Path(tmp) / f"a{n}.dp"
                p_dipa.write_text(from_dipa(dipa), encoding="utf-8")
                p_dp.write_text(to_dp_text(dipa), encoding="utf-8")
                cli = dip.cli(str(p_dipa), timeout=args.timeout, mem_gb=args.mem_gb)
                def ours_run(*extra):
                    t0 = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "dslc", "check", str(p_dp), "--color", "never",
                                    *extra], capture_output=True, text=True, cwd=ROOT)
                    return time.perf_counter() - t0
                ours_cli = min(ours_run() for _ in range(3))
                ours_cli0 = min(ours_run("--lower-bound-time", "0") for _ in range(3))
                core_ours = min(_ours_inprocess(p_dp.read_text())[0] for _ in range(3))
                _, v_ours, d_ours = _ours_inprocess(p_dp.read_text())
                core_dip = None
                if "error" not in cli:
                    dip.start(1)
                    ans = dip.ask(p_dipa.read_text(), timeout=int(args.timeout))
                    dip.stop()
                    core_dip = ans.get("seconds") if "error" not in ans else None
                if "error" in cli:
                    v_dip = cli["error"]
                    dip_s = f"> {args.timeout:.0f}" if "timeout" in cli["error"] else \
                        f"out of memory ({args.mem_gb:g} GB)" if "MemoryError" in cli["error"] else "error"
                else:
                    v_dip = f"private d={cli['d']}" if cli["private"] else \
                        "not private: " + next(nm for nm, r in cli["reported"] if r)
                    dip_s = f"{cli['seconds']:.2f}"
                v_o = f"private d={d_ours}" if v_ours == "private" else v_ours
                def ratio_of(ours_s):
                    return f"{cli['seconds'] / ours_s:.0f}×" if "error" not in cli else \
                        f"> {args.timeout / ours_s:.0f}×" if "timeout" in cli["error"] else "—"
                ratio, ratio0 = ratio_of(ours_cli), ratio_of(ours_cli0)
                if "error" not in cli:
                    met = "met" if cli["seconds"] / ours_cli >= 50 else \
                        "met without the lower bound" if cli["seconds"] / ours_cli0 >= 50 else "not met"
                else:
                    met = "met (DiPAut fails)" if "timeout" in cli["error"] or "MemoryError" in cli["error"] else "—"
                core_ratio = f"{core_dip / core_ours:.0f}×" if core_dip else "—"
                peak = f"{cli['peak_mb']:.0f}" if "peak_mb" in cli else "—"
                print(f"| {g} | {len(dipa.states):,} | {dip_s} | {peak} | {ours_cli:.3f} | {ratio} "
                      f"| {ours_cli0:.3f} | {ratio0} "
                      f"| {'—' if core_dip is None else f'{core_dip:.2f}'} | {core_ours:.4f} | {core_ratio} "
                      f"| {v_dip} / {v_o} | {met} |", flush=True)


def main() -> None:
    if len(sys.argv) >= 3 and sys.argv[1] == "_worker":
        _worker(sys.argv[2])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dipaut", help="DiPAut checkout (default: $DIPAUT_DIR)")
    ap.add_argument("--dipaut-python", help="Python with DiPAut's requirements (default: $DIPAUT_PYTHON)")
    ap.add_argument("--commit", help="DiPAut's commit, when its folder is not a git checkout")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("corpus")
    d = sub.add_parser("diff")
    d.add_argument("--count", type=int, default=3000)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--max-states", type=int, default=8)
    d.add_argument("--workers", type=int, default=2)
    d.add_argument("--timeout", type=int, default=60, help="seconds per automaton in DiPAut")
    d.add_argument("--out", help="write the disagreements (JSON) here")
    d.add_argument("--memo-per-test", action="store_true",
                   help="analysis: clear DiPAut's get_sm_vars memo before each of its tests")
    t = sub.add_parser("time")
    t.add_argument("--sizes", type=int, nargs="+", default=[3000, 10000])
    t.add_argument("--shapes", help="comma-separated substrings of shape names")
    t.add_argument("--timeout", type=float, default=600)
    t.add_argument("--mem-gb", type=float, default=16)
    args = ap.parse_args()
    {"corpus": cmd_corpus, "diff": cmd_diff, "time": cmd_time}[args.cmd](args)


if __name__ == "__main__":
    main()
