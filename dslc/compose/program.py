"""Files as modules: their blocks, their imports, and what each name means.

    import above_threshold, noisy_answer from stdlib
    import m from "other.dp"          // relative to the importing file

A :class:`Module` is one file split into chunks (:mod:`dslc.syntax.split`),
with its `import` lines resolved: every imported name maps to a
:class:`Definition` — the chunk of a block in another file.  Import errors
(E170 unreadable file, E171 unknown name, E172 cycle, E173 shadowing) are
located at the import line of the file that has them.

Each file is read, split and its imports resolved once per content: modules
are cached by (real path, text), so a folder whose files import the same
file reads it once, and a change of the file (on disk, or in an editor's
buffer given by :func:`set_overlay`) is a new module.  Nothing here prints.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.diagnostics.suggest import name_help
from dslc.source import SourceFile, Span
from dslc.syntax import ast
from dslc.syntax.split import Chunk, split_blocks

STDLIB = Path(__file__).resolve().parent.parent / "stdlib"
"""The standard library: `.dp` files shipped inside the package."""


@dataclass
class Definition:
    """A block a name stands for: its file's module and its chunk."""
    name: str
    module: "Module"
    chunk: Chunk
    imported_at: Span | None = None      # the name in the import line (None: defined in the file)

    @property
    def span(self) -> Span:
        return self.chunk.name_span

    def syntax(self) -> ast.Block:
        return self.module.syntax(self.chunk)


@dataclass
class Module:
    source: SourceFile
    key: str                                    # the real path (or the path as given)
    chunks: list[Chunk] = field(default_factory=list)
    local: dict[str, Chunk] = field(default_factory=dict)
    imports: dict[str, Definition] = field(default_factory=dict)
    imported_files: list[str] = field(default_factory=list)   # keys of the modules imported
    diagnostics: list[Diagnostic] = field(default_factory=list)   # import errors of this file
    cycle_to: set[str] = field(default_factory=set)            # keys of files on a cycle through here
    _syntax: dict[int, ast.Block | None] = field(default_factory=dict)
    _errors: dict[int, list[Diagnostic]] = field(default_factory=dict)
    memo: dict = field(default_factory=dict)   # checks of calls of this file's blocks (dslc.compose.release)
    deps: list["Module"] = field(default_factory=list)        # the modules of the files imported by path
    missing: list[str] = field(default_factory=list)           # imported paths that could not be read

    def lookup(self, name: str) -> Definition | None:
        if name in self.local:
            return Definition(name, self, self.local[name])
        return self.imports.get(name)

    def names(self) -> list[str]:
        return list(self.local) + list(self.imports)

    def syntax(self, chunk: Chunk) -> ast.Block | None:
        """The chunk's syntax tree (parsed once; None after a syntax error)."""
        if chunk.start not in self._syntax:
            from dslc.syntax.parser import parse_block
            tree, errors = None, []
            if chunk.fatal is not None:
                errors = [chunk.fatal]
            else:
                try:
                    tree = parse_block(self.source, chunk.keyword, chunk.start, chunk.end)
                except DiagnosticError as exc:
                    errors = list(exc.diagnostics)
            self._syntax[chunk.start], self._errors[chunk.start] = tree, errors
        return self._syntax[chunk.start]

    def syntax_errors(self, chunk: Chunk) -> list[Diagnostic]:
        self.syntax(chunk)
        return self._errors.get(chunk.start, [])


# ------------------------------------------------------------------ cache
_LOCK = threading.RLock()
_CACHE: dict[tuple[str, str], Module] = {}
_MAX_CACHE = 256
_OVERLAY: dict[str, str] = {}


def module_path(source: SourceFile) -> str:
    """A file's path as reports show it: `stdlib/NAME.dp` for the standard library."""
    path = source.path or ""
    try:
        if Path(path).resolve().parent == STDLIB:
            return f"stdlib/{Path(path).name}"
    except (OSError, ValueError):
        pass
    return path


def set_overlay(path: str, text: str | None) -> None:
    """The text of a file as an editor holds it (None: read it from disk)."""
    with _LOCK:
        key = _real(path)
        if text is None:
            _OVERLAY.pop(key, None)
        else:
            _OVERLAY[key] = text


def real_path(path: str) -> str:
    return _real(path)


def _canonical(real: str) -> str:
    """The path an imported file is read under, whoever imports it: relative
    to the working folder when it lies below it (reports stay the same on any
    machine), else absolute."""
    try:
        rel = os.path.relpath(real)
    except ValueError:                   # another drive (Windows)
        return real
    return real if rel.startswith("..") else rel


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def module_of(source: SourceFile) -> Module:
    """The module of a file being checked (its imports resolved)."""
    return _load(source, _real(source.path) if source.path else source.path, ())


def _load(source: SourceFile, key: str, stack: tuple[str, ...]) -> Module:
    with _LOCK:
        cached = _CACHE.get((key, source.path, source.text))
    if cached is not None and _current(cached):
        return cached
    module = Module(source, key)
    module.chunks, _ = split_blocks(source)
    imports = []
    for chunk in module.chunks:
        if chunk.keyword == "import":
            imports.append(chunk)
        elif chunk.name and chunk.name not in module.local:
            module.local[chunk.name] = chunk
    for chunk in imports:
        decl = module.syntax(chunk)
        if isinstance(decl, ast.ImportDecl):
            _resolve(module, decl, stack + (key,))
    with _LOCK:
        if len(_CACHE) >= _MAX_CACHE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[(key, source.path, source.text)] = module
    return module


def _current(module: Module, depth: int = 0) -> bool:
    """Whether the files ``module`` imports still hold the text it was resolved with."""
    for dep in module.deps:
        source, _ = _read(dep.source.path)
        if source is None or source.text != dep.source.text or (depth < 32 and not _current(dep, depth + 1)):
            return False
    return all(_read(path)[0] is None for path in module.missing)


def _read(path: str) -> tuple[SourceFile | None, str | None]:
    with _LOCK:
        text = _OVERLAY.get(_real(path))
    if text is not None:
        return SourceFile(path, text), None
    from dslc.pipeline import read_source
    source, problem = read_source(path)
    return source, (problem.message if problem is not None else None)


def stdlib_modules(stack: tuple[str, ...] = ()) -> list[Module]:
    out = []
    for path in sorted(STDLIB.glob("*.dp")):
        source, _ = _read(str(path))
        if source is not None:
            out.append(_load(source, _real(str(path)), stack))
    return out


def _resolve(module: Module, decl: ast.ImportDecl, stack: tuple[str, ...]) -> None:
    if decl.stdlib and decl.origin != "stdlib":
        module.diagnostics.append(
            error("E170", f"`{decl.origin}` is not a place to import from", decl.origin_span,
                  "expected `stdlib` or a quoted path")
            .with_help(f'write `from stdlib` or a path in quotes: `from "{decl.origin}.dp"`'))
        return
    if decl.stdlib:
        targets = stdlib_modules(stack)
        where = "the standard library"
    else:
        base = os.path.dirname(module.source.path or ".")
        key = _real(os.path.join(base, decl.origin))
        path = _canonical(key)
        if key in stack:
            chain = " → ".join(os.path.basename(k) for k in stack[stack.index(key):] + (key,))
            module.diagnostics.append(
                error("E172", f"import cycle: {chain}", decl.origin_span, "this import closes the cycle")
                .with_help("move the blocks both files need into a third file and import them from there"))
            module.cycle_to.add(key)
            return
        source, problem = _read(path)
        if source is None:
            module.missing.append(path)
            module.diagnostics.append(
                error("E170", f"cannot import from {decl.origin}: {problem}", decl.origin_span,
                      "this file cannot be read")
                .note(f"the path is relative to the folder of this file: {path}")
                .with_help("check the path; the standard library is imported with `from stdlib`"))
            return
        target = _load(source, key, stack)
        module.imported_files.append(key)
        module.deps.append(target)
        if target.cycle_to & set(stack + (module.key,)):
            module.diagnostics.append(
                error("E172", f"import cycle: {os.path.basename(module.key)} imports from {decl.origin}, "
                              f"which imports back from it", decl.origin_span, "part of an import cycle")
                .with_help("move the blocks both files need into a third file and import them from there"))
            module.cycle_to |= target.cycle_to
            return
        targets = [target]
        where = decl.origin
    for name, span in decl.names:
        found = next(((m, m.local[name]) for m in targets if name in m.local), None)
        if found is None or found[1].keyword == "import":
            available = [n for m in targets for n, c in m.local.items()]
            diag = error("E171", f"`{name}` is not defined in {where}", span, "not found there")
            close = name_help(name, available)
            if close:
                diag.with_help(close)
            elif available:
                diag.with_help(f"{where} defines {', '.join(f'`{n}`' for n in available[:8])}"
                               + (" and more" if len(available) > 8 else ""))
            module.diagnostics.append(diag)
            continue
        if name in module.local:
            module.diagnostics.append(
                error("E173", f"`{name}` is imported, but a block of this file has the same name", span,
                      "imported here")
                .secondary(module.local[name].name_span, "defined here")
                .with_help(f"rename the block, or leave `{name}` out of the import"))
            continue
        if name in module.imports:
            module.diagnostics.append(
                error("E173", f"`{name}` is imported twice", span, "imported again here")
                .secondary(module.imports[name].imported_at, "first imported here")
                .with_help(f"import `{name}` once"))
            continue
        module.imports[name] = Definition(name, found[0], found[1], imported_at=span)


def importers_of(path: str) -> set[str]:
    """The files (real paths) in the cache that import ``path``, directly or not:
    the files the language server checks again when ``path`` changes."""
    key = _real(path)
    with _LOCK:
        modules = list(_CACHE.values())
    out: set[str] = set()
    changed = True
    targets = {key}
    while changed:
        changed = False
        for m in modules:
            if m.key not in out and targets & set(m.imported_files + [d.module.key for d in m.imports.values()]):
                out.add(m.key)
                targets.add(m.key)
                changed = True
    out.discard(key)
    return out


def imported_result(defn: Definition):
    """The imported block's own check (for the language server's hover),
    once per module: without the lower bound's search, so it is quick."""
    key = ("block", defn.chunk.start)
    if key not in defn.module.memo:
        from dslc.pipeline import Options, check_block
        defn.module.memo[key] = check_block(defn.module.source, defn.chunk,
                                            Options(lower_bound_work=0, timeout=5.0, details=False))
    return defn.module.memo[key]
