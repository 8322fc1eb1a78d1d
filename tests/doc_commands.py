"""The commands shown in README.md and docs/, read from their Markdown.

A fenced block shows commands as lines that start with ``$ ``; the lines up
to the next ``$ `` line or the end of the block are the output the command
prints (standard output, then standard error).  The comparison is literal
but for three things: trailing spaces are ignored; a line that is just
``...`` stands for any number of lines; ``...`` inside a line stands for any
text on that line.  A comment at the end of the command line (`` # ...``)
is not part of the command; when it says ``exit N``, the command must exit
with N.

Commands written in running text (```dslc check …```) are collected too:
they must run without a usage error and name only files that exist.

The README's first block (install, then run the tests) is what CI itself
runs, so it is not run again from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(```+|~~~+)")
_EXIT = re.compile(r"\bexits? (?:with )?(\d+)\b")
_INLINE = re.compile(r"`(dslc [^`\n]+)`")


@dataclass
class ShownCommand:
    doc: str                    # the Markdown file, relative to the repository
    line: int                   # 1-based line of the `$ ` line
    command: str
    expected: list[str] = field(default_factory=list)
    exit_code: int | None = None

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


@dataclass
class InlineCommand:
    doc: str
    line: int
    command: str

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def _split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing comment (a ` #` outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and i > 0 and line[i - 1] in " \t":
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def shown_commands(path: Path) -> list[ShownCommand]:
    rel = path.relative_to(ROOT).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[ShownCommand] = []
    fence = None
    first_block = True
    current: ShownCommand | None = None
    for number, line in enumerate(lines, 1):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                skip = rel == "README.md" and first_block
                first_block = False
            continue
        if line.startswith(fence):
            fence, current = None, None
            continue
        if skip:
            continue
        if line.startswith("$ "):
            command, comment = _split_comment(line[2:])
            exit_match = _EXIT.search(comment)
            current = ShownCommand(rel, number, command, [],
                                   int(exit_match.group(1)) if exit_match else None)
            out.append(current)
        elif current is not None:
            current.expected.append(line)
    for cmd in out:
        while cmd.expected and not cmd.expected[-1].strip():
            cmd.expected.pop()
    return out


def inline_commands(path: Path) -> list[InlineCommand]:
    rel = path.relative_to(ROOT).as_posix()
    out = []
    fence = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            continue
        if fence is not None:
            if line.startswith(fence):
                fence = None
            continue
        for m in _INLINE.finditer(line):
            out.append(InlineCommand(rel, number, m.group(1)))
    return out


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """``actual`` against ``expected`` with the ``...`` rules above."""
    exp = [e.rstrip() for e in expected]
    act = [a.rstrip() for a in actual]
    memo: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(exp):
            result = j == len(act)
        elif exp[i].strip() == "...":
            result = any(match(i + 1, k) for k in range(j, len(act) + 1))
        else:
            result = j < len(act) and line_matches(exp[i], act[j]) and match(i + 1, j + 1)
        memo[key] = result
        return result

    return match(0, 0)


def line_matches(expected: str, actual: str) -> bool:
    if "..." not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


def all_shown() -> list[ShownCommand]:
    return [c for doc in DOCS for c in shown_commands(doc)]


def all_inline() -> list[InlineCommand]:
    return [c for doc in DOCS for c in inline_commands(doc)]
