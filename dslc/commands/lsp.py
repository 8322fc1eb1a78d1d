"""`dslc lsp`: run the language server over stdin/stdout."""

from __future__ import annotations

import logging
import sys


def add_parser(sub) -> None:
    p = sub.add_parser("lsp", help="run the language server (LSP over stdio) for editors",
                       description="Run the `.dp` language server, speaking the Language Server "
                                   "Protocol on stdin/stdout. Editors start it; see docs/editors.md.")
    p.add_argument("--stdio", action="store_true",
                   help="use stdin/stdout (the default and only transport; accepted for clients that pass it)")
    p.add_argument("--debounce", type=float, default=None, metavar="SECONDS",
                   help="quiet time after an edit before the document is checked (default 0.25)")
    p.add_argument("--log-file", default=None, metavar="PATH",
                   help="write the server's log to PATH (default: warnings to stderr)")
    p.add_argument("--verbose", action="store_true", help="log the server's own work (checks, timings) at debug level")
    p.set_defaults(func=run)


class _OneLineFormatter(logging.Formatter):
    """Errors as one line (no Python traceback in the editor's log) unless --verbose."""

    def formatException(self, ei) -> str:  # noqa: N802 - logging's name
        return f"  ({ei[0].__name__}: {ei[1]}; run `dslc lsp --verbose` for details)"


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
    debounce = DEBOUNCE if args.debounce is None else max(0.0, args.debounce)
    return serve(debounce)
