"""`dslc lsp`: run the language server over stdin/stdout."""

from __future__ import annotations

import argparse
import logging
import sys


def add_parser(sub) -> None:
    p = sub.add_parser("lsp", help="run the language server (LSP over stdio) for editors",
                       description="Run the `.dp` language server, speaking the Language Server "
                                   "Protocol on stdin/stdout. Editors start it; see docs/editors.md.")
    p.add_argument("--stdio", action="store_true",
                   help="use stdin/stdout (the default and only transport; accepted for clients that pass it)")
    p.add_argument("--debounce", type=_seconds, default=None, metavar="SECONDS",
                   help="quiet time after an edit before the document is checked (default 0.25)")
    p.add_argument("--log-file", default=None, metavar="PATH",
                   help="write the server's log to PATH (default: warnings to stderr)")
    p.add_argument("--verbose", action="store_true", help="log the server's own work (checks, timings) at debug level")
    p.set_defaults(func=run)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (0 <= value < float("inf")):
        raise argparse.ArgumentTypeError(f"the debounce must be 0 or more seconds and finite, not {text}")
    return value


class _OneLineFormatter(logging.Formatter):
    """Every record as one line: the first line of its message, and for an
    exception its type and text (no Python traceback in the editor's log)
    unless --verbose."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        first = message.split("\n", 1)[0].rstrip()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text = str(exc).split("\n", 1)[0]
            first += f" ({type(exc).__name__}{': ' + text if text else ''}; run `dslc lsp --verbose` for details)"
        elif "\n" in message.strip():
            first += " (run `dslc lsp --verbose` for details)"
        record_time = self.formatTime(record)
        return f"{record_time} {record.levelname} {record.name}: {first}"


def run(args) -> int:
    level = logging.DEBUG if args.verbose else logging.WARNING
    handler: logging.Handler = (logging.FileHandler(args.log_file, encoding="utf-8") if args.log_file
                                else logging.StreamHandler(sys.stderr))
    handler.setFormatter((logging.Formatter if args.verbose else _OneLineFormatter)(
        "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("dslc").setLevel(level)     # pygls' debug log would echo every message
    from dslc.lsp.server import DEBOUNCE, serve
    debounce = DEBOUNCE if args.debounce is None else args.debounce
    return serve(debounce)
