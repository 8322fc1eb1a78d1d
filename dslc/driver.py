"""The pipeline: source → blocks → AST → IR → backend → results.

One function per phase, each returning data; nothing here prints.  Backends
for block kinds are looked up by keyword in the static table :data:`dslc.kinds.KINDS`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.kinds import KINDS
from dslc.results import BlockResult, FileResult, Verdict
from dslc.source import SourceFile
from dslc.syntax import ast
from dslc.syntax.parser import parse_block
from dslc.syntax.split import Chunk, split_blocks

Backend = Callable[[ast.Block, SourceFile, dict], BlockResult]


class CheckCancelled(Exception):
    """Raised by :func:`check_source` when ``options["cancelled"]()`` turns true
    (the language server cancels checks of text that has changed since)."""


def _backend(keyword: str) -> Backend | None:
    kind = KINDS.get(keyword)
    return kind.load_backend() if kind is not None else None


def read_source(path: str) -> tuple[SourceFile | None, Diagnostic | None]:
    """Read a file; a missing, unreadable or binary file becomes E004."""
    placeholder = SourceFile(path, "")
    try:
        return SourceFile.from_path(path), None
    except FileNotFoundError:
        return None, (error("E004", f"no such file: {path}", placeholder.whole(), "file not found")
                      .with_help("check the path; `dslc check` takes `.dp` files or folders"))
    except IsADirectoryError:
        return None, (error("E004", f"no `.dp` files in the folder {path}", placeholder.whole(),
                            "empty folder")
                      .with_help("`dslc check` searches folders recursively for files ending in `.dp`"))
    except PermissionError:
        return None, error("E004", f"permission denied: {path}", placeholder.whole())
    except UnicodeDecodeError as exc:
        raw = Path(path).read_bytes()
        good = raw[:exc.start].decode("utf-8", errors="replace")
        text = good + "\n"
        src = SourceFile(path, text)
        at = len(good)
        return None, (error("E004", f"{path} is not UTF-8 text (byte {exc.start} cannot be decoded)",
                            src.span(at, at), "binary or non-UTF-8 data starts here")
                      .with_help("`.dp` files are UTF-8 text; is this the right file?"))
    except OSError as exc:
        return None, error("E004", f"cannot read {path}: {exc.strerror or exc}", placeholder.whole())


def check_path(path: str, options: dict | None = None) -> FileResult:
    source, problem = read_source(path)
    if source is None:
        return FileResult(path, None, diagnostics=[problem])
    return check_source(source, options)


def check_source(source: SourceFile, options: dict | None = None) -> FileResult:
    result = FileResult(source.path, source)
    chunks, diags = split_blocks(source)
    result.diagnostics.extend(diags)
    if not chunks and not diags:
        result.diagnostics.append(
            error("E006", "this file holds no block to check", source.span(0, 0), "empty file")
            .with_help("start with `automaton NAME { ... }` or `mechanism NAME { ... }`; see examples/"))
    names: dict[str, Chunk] = {}
    cancelled = (options or {}).get("cancelled")
    for chunk in chunks:
        if cancelled is not None and cancelled():
            raise CheckCancelled()
        block_result = check_chunk(source, chunk, options or {})
        if chunk.name and chunk.name in names:
            first = names[chunk.name]
            block_result.diagnostics.insert(0, error(
                "E009", f"a block named `{chunk.name}` is already defined in this file",
                chunk.name_span, "second definition").secondary(first.name_span, "first defined here")
                .with_help("rename one of the blocks"))
            block_result.verdict = Verdict.ERROR
            block_result.d = None
        elif chunk.name:
            names[chunk.name] = chunk
        result.blocks.append(block_result)
    return result


def check_chunk(source: SourceFile, chunk: Chunk, options: dict | None = None) -> BlockResult:
    name = chunk.name or "<unnamed>"
    failed = BlockResult(name, chunk.keyword, chunk.name_span, Verdict.ERROR)
    if chunk.fatal is not None:
        failed.diagnostics.append(chunk.fatal)
        return failed
    backend = _backend(chunk.keyword)
    if backend is None:
        failed.diagnostics.append(error("E001", f"`{chunk.keyword}` blocks are not supported yet",
                                        chunk.name_span, "unsupported block kind"))
        return failed
    block = _phase(failed, "read", chunk, lambda: parse_block(source, chunk.keyword, chunk.start, chunk.end))
    if block is None:
        return failed
    result = _phase(failed, "checked", chunk, lambda: backend(block, source, options or {}))
    return failed if result is None else result


def _phase(failed: BlockResult, what: str, chunk: Chunk, run: Callable):
    """Run one phase of a block; its errors go to ``failed`` (and None is returned)."""
    try:
        return run()
    except DiagnosticError as exc:
        failed.diagnostics.extend(exc.diagnostics)
    except RecursionError:
        failed.diagnostics.append(error("E005", f"the block is nested too deeply to be {what}",
                                        chunk.name_span))
    return None


def collect_paths(args: list[str]) -> list[str]:
    """Files as given; folders expanded to their `.dp` files (sorted, recursive).
    A folder without any `.dp` file stays in the list as itself, so that
    :func:`check_path` reports it."""
    out: list[str] = []
    for arg in args:
        if os.path.isdir(arg):
            found = []
            for root, dirs, files in os.walk(arg):
                dirs.sort()
                for f in files:
                    if f.endswith(".dp"):
                        found.append(os.path.join(root, f))
            out.extend(sorted(found) or [arg])
        else:
            out.append(arg)
    return out


def check_paths(args: list[str], options: dict | None = None) -> list[FileResult]:
    """Check files and folders.  ``options`` are passed to every backend
    (``witness``, ``epsilon``, ``timeout``; a backend ignores what it does not use)."""
    return [check_path(p, options) for p in collect_paths(args)]
