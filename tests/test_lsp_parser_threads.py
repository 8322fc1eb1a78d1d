"""The parser is used from the language server's worker threads at once: many
different files parsed from several threads give exactly the syntax trees
(every span, and the file each span points into) of a single-threaded parse."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import dslc.bounded.backend  # noqa: F401 - registers hmm/mdp rules
import dslc.correlated.backend  # noqa: F401 - registers chain rules
from dslc.source import SourceFile, Span
from dslc.syntax.parser import parse_block
from dslc.syntax.split import split_blocks

ROOT = Path(__file__).resolve().parent.parent
THREADS = 4
ROUNDS = 6


def sources() -> list[SourceFile]:
    """Every example and stdlib file, each also shifted by a different prefix
    (so that the same block sits at different offsets in different files)."""
    out = []
    for i, path in enumerate(sorted([*ROOT.glob("examples/*.dp"), *ROOT.glob("stdlib/*.dp")])):
        text = path.read_text(encoding="utf-8")
        out.append(SourceFile(str(path), text))
        out.append(SourceFile(f"{path}#shifted", "\n" * (i + 1) + "// " + "x" * (7 * i) + "\n" + text))
    return out


def spans(node, source: SourceFile, path: str = "") -> list[tuple[str, int, int]]:
    """(where in the tree, start, end) of every span; a span into another file fails."""
    out = []
    if isinstance(node, Span):
        assert node.file is source, f"{path} points into {node.file.path}, not {source.path}"
        out.append((path, node.start, node.end))
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            out += spans(getattr(node, f.name), source, f"{path}.{f.name}")
    elif isinstance(node, (list, tuple)):
        for i, item in enumerate(node):
            out += spans(item, source, f"{path}[{i}]")
    elif isinstance(node, dict):
        for k, v in node.items():
            out += spans(v, source, f"{path}[{k!r}]")
    return out


def parse_all(source: SourceFile) -> list[tuple[str, int, int]]:
    chunks, _ = split_blocks(source)
    out = []
    for chunk in chunks:
        if chunk.fatal is not None:
            continue
        # fast=False: automata too go through the shared Lark parser
        block = parse_block(source, chunk.keyword, chunk.start, chunk.end, fast=False)
        out += [(chunk.name or "", *s) for s in spans(block, source)]
    return out


def test_parsing_from_several_threads_gives_the_single_threaded_trees():
    files = sources()
    expected = {id(src): parse_all(src) for src in files}
    assert sum(len(v) for v in expected.values()) > 3000          # a real workload
    assert {c.keyword for src in files for c in split_blocks(src)[0]} >= {
        "automaton", "mechanism", "hmm", "mdp", "chain"}

    start = threading.Barrier(THREADS)
    failures: list[str] = []

    def work(k: int) -> None:
        start.wait()
        order = files[k:] + files[:k]                  # each thread in its own order
        for _ in range(ROUNDS):
            for src in order:
                try:
                    got = parse_all(src)
                except AssertionError as exc:
                    failures.append(f"thread {k}: {exc}")
                    return
                if got != expected[id(src)]:
                    failures.append(f"thread {k}: spans of {src.path} differ from a single-threaded parse")
                    return

    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
