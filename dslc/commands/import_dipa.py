"""`dslc import FILE.dipa`: the `.dp` automaton of a file in DiPAut's format."""

from __future__ import annotations

import sys


def add_parser(sub) -> None:
    p = sub.add_parser("import", help="print the .dp automaton of a DiPAut .dipa file",
                       description="Read a file in DiPAut's `.dipa` format and print the equivalent "
                                   "`.dp` automaton (several variables, conjunctive guards).  "
                                   "`dslc check FILE.dipa` checks such a file directly.")
    p.add_argument("file", help="a .dipa file")
    p.add_argument("-o", "--output", help="write the automaton to this file instead of standard output")
    p.set_defaults(func=run)


def run(args) -> int:
    from dslc.diagnostics.model import DiagnosticError
    from dslc.diagnostics.render.text import render_diagnostic, new_text
    from dslc.pipeline import read_source
    from dslc.pipeline_dipaut import import_text
    source, problem = read_source(args.file)
    diags = [problem] if source is None else []
    text = None
    if source is not None:
        try:
            text = import_text(source)
        except DiagnosticError as exc:
            diags = exc.diagnostics
    if diags:
        out = new_text(False)
        for d in diags:
            render_diagnostic(d, out)
        print(str(out), file=sys.stderr, end="")
        return 2
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            print(f"dslc import: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        return 0
    sys.stdout.write(text)
    return 0
