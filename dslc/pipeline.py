"""The pipeline: source → blocks → syntax → IR (with its semantic checks) →
analysis → diagnostics, one block at a time (docs/architecture.md).

A :class:`BlockCompilation` carries one block through the phases; each phase
is a cached property computed on first use, so a caller that only wants the
syntax tree (the language server's outline) stops there, and one that wants
the verdict gets every phase exactly once.  The functions of each phase come
from the block's kind (:data:`dslc.kinds.KINDS`): ``lower`` (IR and semantic
checks, returning diagnostics), ``analyse`` (the verdict's data) and
``report`` (the block's result: verdict, summary, diagnostics).

Every block is isolated: an error in one block — a bug in dslc included —
becomes a located diagnostic of that block, and the other blocks and files
keep their verdicts.  Every block is checked under a time budget
(:mod:`dslc.limits`); a block that runs out of time gets the verdict
"unknown" (E014).  Nothing here prints.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from typing import Any

from dslc import limits
from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.kinds import KINDS, BlockKind
from dslc.results import BlockResult, FileResult, Verdict
from dslc.source import SourceFile
from dslc.syntax import ast
from dslc.syntax.parser import parse_block
from dslc.syntax.split import Chunk, split_blocks


@dataclass(frozen=True)
class Options:
    """What a check is asked to do (the CLI's flags, the server's settings)."""
    witness: bool = False              # build a counterexample for every DiPA violation
    epsilon: str | None = None         # ε for witness tables (None: chosen per witness)
    timeout: float | None = limits.DEFAULT_TIMEOUT   # seconds per block (None: unbounded)
    explain: bool = True               # the cost labels of critical transitions
    details: bool = True               # the facts JSON lists per block ("details")
    critical_list: bool = False        # JSON lists every critical transition, however many (--explain)
    cancelled: Callable[[], bool] | None = None     # polled by the time budget (language server)
    engine: str = "auto"               # hmm/mdp: "auto", "smt", "dp", "enum" (pruned), "enum-plain" or "probe"
    encoding: str = "improved"         # hmm/mdp SMT encoding: "improved" or "plain"
    max_file_bytes: int = limits.MAX_FILE_BYTES
    max_d: Fraction | None = None      # DiPA blocks: a budget of dε for every block (`--max-d`)
    lower_bound_work: int | None = None     # work for the search of d_lower (None: the default; 0: off)
    lower_bound_time: float | None = None   # deprecated: seconds, converted to work (lower_bound_work wins)
    backend: str = "auto"              # mechanisms: "auto", or "bounded" (docs/discrete.md)
    horizon: int | None = None         # bounded mechanisms: the horizon (None: the block's `horizon`)

    @classmethod
    def of(cls, value: "Options | dict | None") -> "Options":
        """Options from a dict of the same names (and the older spellings)."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        names = {f.name for f in fields(cls)}
        aliases = {"pufferfish_engine": "engine", "pufferfish_encoding": "encoding"}
        kwargs = {}
        for key, v in value.items():
            key = aliases.get(key, key)
            if key in names:
                kwargs[key] = v
        if "timeout" in kwargs and kwargs["timeout"] is not None:
            kwargs["timeout"] = limits.parse_timeout(kwargs["timeout"])
        if kwargs.get("max_d") is not None:
            kwargs["max_d"] = Fraction(str(kwargs["max_d"]))
        return cls(**kwargs)

    def get(self, key: str, default: Any = None) -> Any:
        """Read an option by name (for backends written against a dict)."""
        key = {"pufferfish_engine": "engine", "pufferfish_encoding": "encoding"}.get(key, key)
        return getattr(self, key, default)


class CheckCancelled(Exception):
    """The caller cancelled (``options.cancelled()`` turned true): the language
    server cancels checks of text that has changed since."""


# ------------------------------------------------------------------ one block
class BlockCompilation:
    """One block of a file, through the phases (each computed once)."""

    def __init__(self, source: SourceFile, chunk: Chunk, options: Options):
        self.source = source
        self.chunk = chunk
        self.options = options
        self.kind: BlockKind | None = KINDS.get(chunk.keyword)
        if chunk.keyword == "mechanism" and options.backend == "bounded":
            # `--backend bounded`: the bounded checker of discrete mechanisms (docs/discrete.md)
            self.kind = BlockKind("mechanism", "mechanism_block", "dslc.bounded.discrete_backend", "bounded",
                                  "a mechanism program, checked by the bounded checker")
        self.diagnostics: list[Diagnostic] = []

    @property
    def name(self) -> str:
        return self.chunk.name or "<unnamed>"

    def _failed(self, verdict: Verdict = Verdict.ERROR) -> BlockResult:
        return BlockResult(self.name, self.chunk.keyword, self.chunk.name_span, verdict,
                           diagnostics=list(self.diagnostics))

    @cached_property
    def syntax(self) -> ast.Block | None:
        """The block's syntax tree (None after a syntax error, which is recorded)."""
        if self.chunk.fatal is not None:
            self.diagnostics.append(self.chunk.fatal)
            return None
        try:
            return parse_block(self.source, self.chunk.keyword, self.chunk.start, self.chunk.end)
        except DiagnosticError as exc:
            self.diagnostics.extend(exc.diagnostics)
        return None

    @cached_property
    def lowered(self) -> tuple[Any, list[Diagnostic]] | None:
        """(IR, semantic diagnostics): the kind's ``lower`` phase."""
        block = self.syntax
        if block is None:
            return None
        try:
            module = self.kind.module()
            if hasattr(module, "lower_in_file"):      # releases: resolved in their file (dslc/compose)
                return module.lower_in_file(block, self.source, self.options)
            return module.lower(block)
        except DiagnosticError as exc:
            return None, exc.diagnostics

    @cached_property
    def result(self) -> BlockResult:
        """The block's verdict, summary and diagnostics (every phase isolated)."""
        try:
            with limits.scope(limits.Deadline(self.options.timeout, self.options.cancelled)):
                return self._with_syntax_warnings(self._run())
        except limits.Cancelled as exc:
            if exc.reason == "cancelled":
                raise CheckCancelled() from None
            return self._timed_out(exc)
        except RecursionError:
            self.diagnostics.append(error("E005", f"`{self.name}` is nested too deeply to be checked",
                                          self.chunk.name_span, "this block")
                                    .with_help("flatten the expressions or statements of the block"))
        except MemoryError:
            self.diagnostics.append(error("E013", f"`{self.name}` needs more memory than is available",
                                          self.chunk.name_span, "this block")
                                    .with_help("split the block, or check it on a larger machine"))
        except (KeyboardInterrupt, CheckCancelled):
            raise
        except Exception as exc:  # noqa: BLE001 - a bug in one block must not hide the others
            if os.environ.get("DSLC_DEBUG"):
                raise
            self.diagnostics.append(internal_error(self.chunk, exc))
        return self._failed()

    def _with_syntax_warnings(self, result: BlockResult) -> BlockResult:
        """The parser's warnings (W002) first, with every result of the block."""
        warnings = getattr(self.__dict__.get("syntax"), "syntax_warnings", None)
        if warnings:
            result.diagnostics[:0] = warnings
        return result

    def _run(self) -> BlockResult:
        if self.kind is None:
            self.diagnostics.append(error("E001", f"`{self.chunk.keyword}` blocks are not supported",
                                          self.chunk.name_span, "unsupported block kind"))
            return self._failed()
        module = self.kind.module()
        block = self.syntax
        if block is None:
            return self._failed()
        ir, diags = self.lowered
        if diags or ir is None:
            # every independent error of the block, in the order of the text
            self.diagnostics.extend(sorted(diags, key=_position))
            result = self._failed()
            result.syntax, result.ir = block, ir
            return result
        analysis = module.analyse(ir, self.options)
        result = BlockResult(self.name, self.chunk.keyword, self.chunk.name_span, Verdict.ERROR)
        result.syntax = block
        module.report(ir, analysis, result, self.options, self.source.path)
        return result

    def _timed_out(self, exc: limits.Cancelled) -> BlockResult:
        seconds = exc.seconds if exc.seconds is not None else self.options.timeout
        self.diagnostics.append(
            error("E014", f"no verdict for `{self.name}` within the time limit of {seconds:g} s",
                  self.chunk.name_span, "checking stopped here")
            .note("nothing is claimed about the privacy of this block")
            .with_help("raise the limit with `--timeout SECONDS`, or make the block smaller"))
        result = self._failed(Verdict.UNKNOWN)
        result.summary = f"unknown: the time limit of {seconds:g} s was reached"
        return result


def _position(d: Diagnostic) -> tuple[int, int]:
    return (d.span.start, d.span.end) if d.span is not None else (-1, -1)


def internal_error(chunk: Chunk, exc: BaseException) -> Diagnostic:
    text = str(exc).split("\n", 1)[0]
    if len(text) > 200:
        text = text[:197] + "..."
    what = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    name = chunk.name or "<unnamed>"
    return (error("E000", f"internal error while checking {chunk.keyword} `{name}` ({what})",
                  chunk.name_span, "dslc failed on this block")
            .note("this is a bug in dslc, not in your file; the other blocks were checked")
            .with_help("please report it with this file; `DSLC_DEBUG=1` shows where it happened"))


# ------------------------------------------------------------------ files
def read_source(path: str, max_bytes: int = limits.MAX_FILE_BYTES) -> tuple[SourceFile | None, Diagnostic | None]:
    """Read a file under the input policy; anything unreadable becomes E004
    (E010 when it is too large)."""
    placeholder = SourceFile(path, "")
    try:
        data = limits.read_input(path, max_bytes)
    except IsADirectoryError:
        return None, (error("E004", f"no `.dp` files in the folder {path}", placeholder.whole(), "empty folder")
                      .with_help("`dslc check` searches folders recursively for files ending in `.dp`"))
    except limits.InputError as exc:
        code = "E010" if "limit" in exc.message else "E004"
        diag = error(code, exc.message, placeholder.whole(), "cannot be read")
        if exc.help:
            diag.with_help(exc.help)
        return None, diag
    try:
        return SourceFile.from_bytes(path, data), None
    except UnicodeDecodeError as exc:
        good = data[:exc.start].decode("utf-8", errors="replace")
        src = SourceFile(path, good + "\n")
        at = len(src.text) - 1
        return None, (error("E004", f"{path} is not UTF-8 text (byte {exc.start} cannot be decoded)",
                            src.span(at, at), "binary or non-UTF-8 data starts here")
                      .with_help("`.dp` files are UTF-8 text; is this the right file?"))


def check_path(path: str, options: Options | dict | None = None) -> FileResult:
    return _check_one(path, Options.of(options), None)


def compile_source(source: SourceFile, options: Options | dict | None = None) -> list[BlockCompilation]:
    """The blocks of a file, ready to be taken through the phases."""
    options = Options.of(options)
    chunks, _ = split_blocks(source)
    return [BlockCompilation(source, chunk, options) for chunk in chunks]


def check_block(source: SourceFile, chunk: Chunk, options: Options) -> BlockResult:
    """One block's own result: every phase of :class:`BlockCompilation`.  It
    depends on the block's text and ``options``; what depends on the other
    blocks of the file (a duplicate name, E009) is added by :func:`check_source`."""
    return BlockCompilation(source, chunk, options).result


BlockChecker = Callable[[SourceFile, Chunk, Options], BlockResult]


def check_source(source: SourceFile, options: Options | dict | None = None,
                 progress: Callable[[str], None] | None = None,
                 block_checker: BlockChecker = check_block) -> FileResult:
    """Every block of one file (``progress(name)`` is called before each).

    ``block_checker`` gives each block's own result (:func:`check_block`, or
    the language server's cache of unchanged blocks, which returns a fresh
    object for every call); the checks across blocks run here, on every call."""
    options = Options.of(options)
    result = FileResult(source.path, source)
    try:
        chunks, diags = split_blocks(source)
    except RecursionError:          # pragma: no cover - the splitter is iterative
        chunks, diags = [], [error("E005", "the file is nested too deeply", source.whole())]
    result.diagnostics.extend(diags)
    if not chunks and not diags:
        result.diagnostics.append(
            error("E006", "this file holds no block to check", source.span(0, 0), "empty file")
            .with_help("start with `automaton NAME { ... }` or `mechanism NAME { ... }`; see examples/"))
    names: dict[str, Chunk] = {}
    if any(chunk.keyword == "import" for chunk in chunks):
        chunks = _imports(source, chunks, result)
    for chunk in chunks:
        if options.cancelled is not None and options.cancelled():
            raise CheckCancelled()
        if progress is not None:
            progress(f"{chunk.keyword} {chunk.name or '<unnamed>'}")
        block_result = block_checker(source, chunk, options)
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


def _imports(source: SourceFile, chunks: list[Chunk], result: FileResult) -> list[Chunk]:
    """The file's `import` lines resolved (dslc/compose/program.py): their
    errors are the file's; the other chunks are its blocks."""
    from dslc.compose.program import module_of
    module = module_of(source)
    for chunk in chunks:
        if chunk.keyword == "import":
            result.diagnostics.extend(module.syntax_errors(chunk))
    result.diagnostics.extend(module.diagnostics)
    return [chunk for chunk in chunks if chunk.keyword != "import"]


def collect_paths(args: list[str], accept: Callable[[str, bool], bool] | None = None) -> list[tuple[str, str | None]]:
    """Files as given; folders expanded to their `.dp` files (sorted,
    recursive).  Each entry is ``(path, fault)``: ``fault`` is None for a
    file to read, or the sentence saying why a part of a folder could not be
    walked — a folder that cannot be listed, a broken symbolic link, a link
    that loops back to a folder above it.  Nothing under a given path is
    skipped in silence: a check that did not read everything must not pass.

    Symbolic links are followed, to files and to folders; a folder reached
    a second time (through another link) is not walked again, its files are
    already listed.  A FIFO or device named `x.dp` is listed and refused by
    :func:`read_source`, never opened.  A folder without any `.dp` file and
    without a fault stays in the list as itself, so that :func:`check_path`
    reports it.

    ``accept(path, is_folder)``, when given, chooses what a walk lists: a
    folder it refuses is not walked into, a file it refuses is not listed
    (:mod:`dslc.discovery`: include/exclude patterns, .gitignore); without
    it, every file ending in `.dp` is listed."""
    out: list[tuple[str, str | None]] = []
    for arg in args:
        if os.path.isdir(arg):
            found = _walk(arg, accept)
            out.extend(found or [(arg, None)])
        else:
            out.append((arg, None))
    return out


def _walk(top: str, accept: Callable[[str, bool], bool] | None = None) -> list[tuple[str, str | None]]:
    """The `.dp` files and the faults under the folder ``top``, sorted by path."""
    import stat

    found: list[tuple[str, str | None]] = []
    try:
        st = os.stat(top)
    except OSError as exc:
        return [(top, f"cannot read the folder {top}: {exc.strerror or exc}")]
    seen = {(st.st_dev, st.st_ino)}
    stack = [(top, ((st.st_dev, st.st_ino),))]
    while stack:
        folder, above = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            found.append((folder, f"cannot read the folder {folder}: {exc.strerror or exc}"))
            continue
        below = []
        for entry in entries:
            path = entry.path
            try:
                if entry.is_symlink():
                    try:
                        st = os.stat(path)
                    except FileNotFoundError:
                        found.append((path, f"broken symbolic link: {path} points to "
                                            f"`{os.readlink(path)}`, which does not exist"))
                        continue
                    except OSError as exc:
                        found.append((path, f"cannot follow the symbolic link {path}: {exc.strerror or exc}"))
                        continue
                    is_dir = stat.S_ISDIR(st.st_mode)
                else:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    if is_dir:
                        st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                found.append((path, f"cannot read {path}: {exc.strerror or exc}"))
                continue
            if accept is not None and not accept(path, is_dir):
                continue
            if is_dir:
                key = (st.st_dev, st.st_ino)
                if key in above:
                    found.append((path, f"symbolic link loop: {path} leads back to a folder that contains it"))
                elif key not in seen:
                    seen.add(key)
                    below.append((path, above + (key,)))
            elif accept is not None or entry.name.endswith(".dp"):
                found.append((path, None))
        stack.extend(reversed(below))      # walked in order of name (the first of two links wins)
    found.sort(key=lambda item: item[0])
    return found


def check_paths(args: list[str], options: Options | dict | None = None,
                progress: Callable[[str], None] | None = None) -> list[FileResult]:
    """Check files and folders; each file is isolated like each block, and a
    part of a folder that cannot be read is an error (E004) in the results."""
    return check_collected(collect_paths(args), options, progress)


def check_collected(entries: list[tuple[str, str | None]], options: Options | dict | None = None,
                    progress: Callable[[str], None] | None = None) -> list[FileResult]:
    """Check the ``(path, fault)`` entries of :func:`collect_paths`."""
    options = Options.of(options)
    out = []
    for path, fault in entries:
        if fault is not None:
            out.append(FileResult(path, None, diagnostics=[
                error("E004", fault, SourceFile(path, "").whole(), "cannot be read")
                .with_help("dslc checks every `.dp` file under a folder it is given; make this "
                           "readable, or leave it out of the paths")]))
            continue
        if progress is not None:
            progress(path)
        try:
            out.append(_check_one(path, options, progress))
        except (KeyboardInterrupt, CheckCancelled):
            raise
        except Exception as exc:  # noqa: BLE001 - one file must not hide the others
            if os.environ.get("DSLC_DEBUG"):
                raise
            placeholder = SourceFile(path, "")
            out.append(FileResult(path, None, diagnostics=[
                error("E000", f"internal error while reading {path} ({type(exc).__name__}: {exc})",
                      placeholder.whole(), "dslc failed on this file")
                .note("this is a bug in dslc, not in your file; the other files were checked")]))
    return out


def _check_one(path: str, options: Options, progress) -> FileResult:
    source, problem = read_source(path, options.max_file_bytes)
    if source is None:
        return FileResult(path, None, diagnostics=[problem])
    if path.endswith(".dipa"):            # DiPAut's format (dslc/pipeline_dipaut.py)
        from dslc.pipeline_dipaut import check_dipaut_source
        return check_dipaut_source(source, options)
    inner = (lambda what: progress(f"{path}: {what}")) if progress is not None else None
    return check_source(source, options, inner)


__all__ = ["Options", "BlockCompilation", "BlockChecker", "CheckCancelled", "check_block", "check_source",
           "check_path", "check_paths", "check_collected", "collect_paths", "read_source", "compile_source", "internal_error"]

