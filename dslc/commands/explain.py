"""`dslc explain CODE`: the long explanation of a diagnostic code."""

from __future__ import annotations

import sys

from dslc.diagnostics import codes


def add_parser(sub) -> None:
    p = sub.add_parser("explain", help="explain a diagnostic code (e.g. DP001)",
                       description="Print the long explanation of a diagnostic code; "
                                   "without a code, list all codes.")
    p.add_argument("code", nargs="?", help="a code such as DP001 or E107")
    p.set_defaults(func=run)


def run(args) -> int:
    _load_all()
    if not args.code:
        for code, info in sorted(codes.REGISTRY.items()):
            print(f"{code:6} {info.title:36} {info.summary}")
        return 0
    info = codes.lookup(args.code)
    if info is None:
        print(f"dslc: unknown code `{args.code}`; `dslc explain` lists them all", file=sys.stderr)
        return 2
    print(f"{info.code}: {info.title}\n\n{info.summary}\n")
    if info.explanation:
        print(info.explanation)
    return 0


def _load_all() -> None:
    """Backends register their own codes when imported."""
    for module in ("dslc.pufferfish.codes", "dslc.quilt.codes"):
        try:
            __import__(module)
        except ImportError:
            pass
