"""`dslc check --format json|sarif` on large automata: the output stays the
size of the verdict unless the per-transition list is asked for
(`--explain`), it is compact JSON, and writing it counts against `--timeout`
(a render past it writes nothing and exits with an error)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from dslc import limits
from dslc.cli import main

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

SMALL = """automaton small {
  state q0 noinput Lap(ε/2, 0) { true -> q1 store }
  state q1 input Lap(ε/4, 0) { insample < x -> q1 output ⊥; insample >= x -> q2 output ⊤ }
  state q2 input Lap(ε/4, 0) { }
}
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["check", "-q", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def chains(tmp_path_factory):
    import gen_dipa
    tmp = tmp_path_factory.mktemp("chains")
    paths = {}
    for n in (2_000, 10_000):
        paths[n] = tmp / f"chain{n}.dp"
        gen_dipa.write_text("svt_chain", n, paths[n])
    return paths


def test_json_of_a_large_automaton_lists_transitions_only_when_asked(capsys, chains):
    sizes, explained = {}, {}
    for n, path in chains.items():
        code, out, _ = run(capsys, "--format", "json", "--lower-bound-time", "0", path)
        assert code == 0
        assert out.count("\n") == 1                           # compact: one line
        (block,) = json.loads(out)["files"][0]["blocks"]
        assert block["verdict"] == "private" and block["d"] == str(n // 2)
        details = block["details"]
        assert "critical" not in details and details["critical_count"] == n // 2 * 2
        sizes[n] = len(out)
        code, out, _ = run(capsys, "--format", "json", "--explain", "--lower-bound-time", "0", path)
        (block,) = json.loads(out)["files"][0]["blocks"]
        critical = block["details"]["critical"]
        assert len(critical) == block["details"]["critical_count"] == n // 2 * 2
        assert {"from", "to", "guard", "cost", "on_heaviest_path", "span"} <= set(critical[0])
        explained[n] = len(out)
    assert sizes[10_000] < sizes[2_000] + 100                 # the verdict's size, not the automaton's
    assert 4 < explained[10_000] / explained[2_000] < 6       # linear in the automaton when asked


def test_small_blocks_keep_their_critical_list(capsys, tmp_path):
    path = tmp_path / "small.dp"
    path.write_text(SMALL, encoding="utf-8")
    code, out, _ = run(capsys, "--format", "json", path)
    (block,) = json.loads(out)["files"][0]["blocks"]
    assert code == 0 and block["details"]["critical_count"] == len(block["details"]["critical"]) == 2


def test_sarif_of_a_large_automaton_is_compact(capsys, chains):
    code, out, _ = run(capsys, "--format", "sarif", "--lower-bound-time", "0", chains[10_000])
    assert code == 0 and out.count("\n") == 1
    assert json.loads(out)["runs"][0]["properties"]["blocks"][0]["d"] == "5000"


@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
@pytest.mark.parametrize("leak", [False, True])
def test_a_render_past_the_time_limit_writes_nothing(capsys, tmp_path, monkeypatch, fmt, leak):
    """A slow render (made slow here) ends in one error line on stderr, no
    output at all, and exit 2 (1 when a violation was found)."""
    from dslc.diagnostics.render import json as json_render, sarif, text

    def slow(render):
        def inner(*args, **kwargs):
            time.sleep(2.2)
            limits.checkpoint()
            return render(*args, **kwargs)
        return inner
    monkeypatch.setattr(json_render, "results_json", slow(json_render.results_json))
    monkeypatch.setattr(sarif, "sarif_log", slow(sarif.sarif_log))
    monkeypatch.setattr(text, "render_results", slow(text.render_results))
    path = tmp_path / "small.dp"
    path.write_text(SMALL.replace("insample < x -> q1 output ⊥", "insample < x -> q1 output insample")
                    if leak else SMALL, encoding="utf-8")
    code, out, err = run(capsys, "--format", fmt, "--timeout", "0.5", "--lower-bound-time", "0",
                         "--color", "never", path)
    assert out == ""
    assert err.startswith(f"dslc: error: writing the results ({fmt}) did not finish within the time limit "
                          "of 2 s")          # the output's limit is --timeout, at least RENDER_FLOOR
    assert code == (1 if leak else 2)
