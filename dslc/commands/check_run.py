"""The run of `dslc check`: configuration, file discovery, the check, the output.

The parser is in :mod:`dslc.commands.check`; this module applies the
configuration (:mod:`dslc.config`; flags win), finds the files
(:mod:`dslc.discovery`), checks them (:mod:`dslc.pipeline`) and writes the
chosen format to standard output or ``--output-file``.
"""

from __future__ import annotations

import gc
import os
import stat
import sys
import time

from dslc import limits
from dslc.commands.check import console, styled
from dslc.config import Config, ConfigError, display_path, find_config, load_config
from dslc.pipeline import Options, check_collected, check_source, read_source
from dslc.results import FileResult, exit_status


RENDER_FLOOR = 2.0       # seconds: the least time the output of a run gets (docs/cli.md, "Limits")


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def _stdin_is_data() -> bool:
    """Standard input is a file or a pipe (`dslc check < x.dp`, `cat x.dp | dslc check`),
    not a terminal or /dev/null."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, ValueError, OSError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def _config(args) -> Config:
    if args.isolated:
        return Config()
    if args.config is not None:
        return load_config(args.config)
    start = next((p for p in args.paths if p != "-"), None)
    if start is None and args.stdin_filename:
        start = args.stdin_filename
    found = find_config(start if start is not None else os.getcwd())
    return load_config(found) if found else Config()


def run_check(args) -> int:
    # A short-lived process that builds many small objects and no cycles:
    # the cyclic garbage collector only costs time here (half of it on large
    # automata), so it is switched off for the run.
    gc.disable()
    try:
        config = _config(args)
    except ConfigError as exc:
        return _write(args, [FileResult(exc.diagnostic.span.path, None, diagnostics=[exc.diagnostic])],
                      args.format or "text", args.color or "auto", config_error=True)
    fmt = args.format or config.get("output-format", "text")
    color = args.color or config.get("color", "auto")
    if args.verbose:
        from dslc import native
        _say(f"dslc: configuration: {display_path(config.path) if config.path else 'none (defaults)'}")
        note = native.state_note()
        if note:
            _say(f"dslc: note: {note}")
    options = Options(witness=args.witness, epsilon=args.epsilon,
                      timeout=args.timeout if args.timeout is not None else config.get("timeout", limits.DEFAULT_TIMEOUT),
                      # --explain: the cost labels in text, the list of every critical
                      # transition in JSON (each is made only for the format that shows it)
                      explain=args.explain and fmt == "text", details=fmt == "json",
                      critical_list=args.explain and fmt == "json",
                      max_d=args.max_d if args.max_d is not None else config.get("max-d"),
                      lower_bound_work=(args.lower_bound_work if args.lower_bound_work is not None
                                        else (None if args.lower_bound_time is not None
                                              else config.get("lower-bound-work"))),
                      lower_bound_time=args.lower_bound_time,
                      max_file_bytes=(args.max_file_size if args.max_file_size is not None
                                      else config.get("max-file-size", limits.MAX_FILE_BYTES)),
                      backend=args.backend, horizon=args.horizon)
    from dslc.discovery import Discovery
    discovery = Discovery.of(config, exclude=args.exclude, extend_exclude=args.extend_exclude,
                             respect_gitignore=args.respect_gitignore, force_exclude=args.force_exclude)
    paths = list(args.paths)
    if not paths:
        if args.stdin_filename or _stdin_is_data():
            paths = ["-"]
        else:
            paths = [display_path(config.root) if config.path else "."]
    entries = discovery.collect(paths)
    entries = [(display_path(p) if p != "-" else p, fault) for p, fault in entries]
    if not entries:
        _say("warning: no .dp files found under " + ", ".join(paths))
        return _write(args, [], fmt, color)
    timings: list[tuple[str, float]] = []

    def timed(show):
        def progress(what: str) -> None:
            timings.append((what, time.perf_counter()))
            show(what)
        return progress

    from dslc.commands.progress import progress_display
    with progress_display(enabled=not args.quiet, what="checking") as show:
        progress = timed(show) if args.verbose else show
        files = []
        for path, fault in entries:
            if path == "-" and args.stdin_filename:
                files.append(_check_stdin(args.stdin_filename, discovery, options, progress))
            else:
                files.extend(check_collected([(path, fault)], options, progress))
        timings.append(("", time.perf_counter()))
    if args.verbose:
        for (what, start), (_, end) in zip(timings, timings[1:]):
            if ": " in what:                       # a block (the other calls name a file)
                _say(f"dslc: {end - start:8.3f} s  {what}")
    files = [f for f in files if f is not None]
    return _write(args, files, fmt, color)


def _check_stdin(name: str, discovery, options: Options, progress) -> FileResult | None:
    """Standard input checked as the file ``name`` (`--stdin-filename`)."""
    if discovery.force_exclude and (discovery.excluded_with_parents(name) or discovery.ignored_by_git(name, False)):
        return None                     # as ruff: an excluded --stdin-filename is not checked
    source, problem = read_source("-", options.max_file_bytes)
    if source is None:
        return FileResult(name, None, diagnostics=[problem])
    from dslc.source import SourceFile
    progress(name)
    return check_source(SourceFile(name, source.text), options,
                        lambda what: progress(f"{name}: {what}"))


def _write(args, files: list[FileResult], fmt: str, color: str, config_error: bool = False) -> int:
    """Render ``files`` whole under the time limit (rendering counts against
    ``--timeout``), then write them to standard output or ``--output-file``."""
    status = 2 if config_error else exit_status(files)
    timeout = args.timeout if args.timeout is not None else limits.DEFAULT_TIMEOUT
    # the output gets the limit once more, at least RENDER_FLOOR seconds: a tiny
    # --timeout that makes every block unknown must still print those verdicts
    timeout = max(timeout, RENDER_FLOOR)
    try:
        with limits.scope(limits.Deadline(timeout)):
            write = _render(args, files, fmt, color, config_error)
    except limits.Cancelled:
        # Nothing was written: the output is made whole before it is written.
        _say(f"dslc: error: writing the results ({fmt}) did not finish within the time limit of {timeout:g} s")
        _say("  help: raise it with --timeout SECONDS")
        return 1 if status == 1 else 2
    if args.output_file:
        try:
            with open(args.output_file, "w", encoding="utf-8") as fh:
                write(fh)
        except OSError as exc:
            _say(f"dslc: error: cannot write {args.output_file}: {exc.strerror or exc}")
            return 2
    else:
        write(sys.stdout)
    if config_error:
        return 2
    if args.exit_zero and status == 1:      # findings do not fail; inputs that could not be checked do
        unchecked = [f for f in files if f.diagnostics and any(d.is_error for d in f.diagnostics)] + \
            [f for f in files for b in f.blocks if b.verdict.value in ("error", "unknown")]
        return 2 if unchecked else 0
    return status


def _render(args, files: list[FileResult], fmt: str, color: str, config_error: bool):
    """The output in ``fmt``, made whole (the renderers check the time
    budget); returns the function that writes it to a stream."""
    quiet = args.quiet or config_error
    if fmt == "json":
        from dslc.diagnostics.render.json import render_json
        text = render_json(files) + "\n"
    elif fmt == "gcc":
        from dslc.diagnostics.render.gcc import render_gcc
        text = render_gcc(files)
    elif fmt == "sarif":
        from dslc.diagnostics.render.sarif import render_sarif
        text = render_sarif(files) + "\n"
    elif fmt == "concise":
        from dslc.diagnostics.render.ci import render_concise
        text = render_concise(files, quiet=quiet)
    elif fmt == "github":
        from dslc.diagnostics.render.ci import render_github
        text = render_github(files)
    elif fmt == "junit":
        from dslc.diagnostics.render.ci import render_junit
        text = render_junit(files)
    else:
        from dslc.diagnostics.render.text import render_results
        if not files:
            text = ""
        elif not args.output_file and styled(color, sys.stdout):
            out = render_results(files, explain=args.explain, quiet=quiet)
            return lambda stream: console(color).print(out, end="")
        else:
            text = render_results(files, explain=args.explain, styled=False, quiet=quiet).plain
    return lambda stream: stream.write(text)
