"""`dslc calibrate FILE`: the noise each mechanism needs for every `chain` block."""

from __future__ import annotations

import json
import sys

from rich.text import Text

from dslc import limits
from dslc.commands.check import console, timeout_arg
from dslc.diagnostics.model import Diagnostic, error
from dslc.diagnostics.render.json import diagnostic_json
from dslc.diagnostics.render.text import render_diagnostic
from dslc.pipeline import Options, check_path
from dslc.results import FileResult, Verdict


def add_parser(sub) -> None:
    p = sub.add_parser("calibrate", help="noise scales of the Markov Quilt, Wasserstein and group-DP "
                                         "mechanisms for `chain` blocks",
                       description="For every `chain` block of FILE: the Laplace noise scale of each "
                                   "applicable mechanism (Markov Quilt, exact and eigen-gap; "
                                   "Wasserstein; group differential privacy T·L/ε), the active quilt "
                                   "of the worst node, and the recommended mechanism. Exit status 0, "
                                   "or 2 when a block has errors.")
    p.add_argument("file", metavar="FILE", help=".dp file with `chain` blocks")
    p.add_argument("--block", metavar="NAME", help="only this block")
    p.add_argument("--node", type=int, metavar="I",
                   help="also list the quilts of node X_I with their max-influence and score")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    add_timeout(p)
    p.set_defaults(func=run)


def add_timeout(p) -> None:
    p.add_argument("--timeout", type=timeout_arg, default=limits.DEFAULT_TIMEOUT, metavar="SECONDS",
                   help="time allowed to each block (default 60), and again to the `--node` table; "
                        "a block that needs longer is not calibrated (E014)")


def run(args) -> int:
    # `dslc.correlated.backend` registers the `chain` block kind when loaded.
    import dslc.correlated.backend  # noqa: F401
    result = check_path(args.file, Options(timeout=args.timeout))
    blocks, problems = select_blocks(result, args.block)
    if args.format == "json":
        out = {"file": result.path,
               "blocks": [_block_json(b, args) for b in blocks],
               "diagnostics": [diagnostic_json(d) for d in result.diagnostics + problems]}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        text = Text()
        for d in result.diagnostics + problems:
            render_diagnostic(d, text)
            text.append("\n")
        for b in blocks:
            _block_text(b, result, args, text)
        console(args.color).print(text, end="")
    bad = problems or any(d.is_error for d in result.diagnostics) or any(
        b.verdict is not Verdict.PRIVATE for b in blocks)
    return 2 if bad else 0


def select_blocks(result: FileResult, name: str | None):
    """The chain blocks to use, and E264 problems when there are none."""
    problems: list[Diagnostic] = []
    if result.source is None:
        return [], problems
    chains = [b for b in result.blocks if b.kind == "chain"]
    if name is not None:
        named = [b for b in result.blocks if b.name == name]
        if not named:
            from dslc.diagnostics.suggest import did_you_mean
            diag = error("E264", f"{result.path} has no block named `{name}`")
            close = did_you_mean(name, [b.name for b in chains])
            if close:
                diag.with_help(close)
            problems.append(diag.with_help("chain blocks here: " + (", ".join(b.name for b in chains) or "none")))
            return [], problems
        if named[0].kind != "chain":
            problems.append(error("E264", f"`{name}` is a `{named[0].kind}` block, not a `chain` block",
                                  named[0].span, "not a chain"))
            return [], problems
        return named[:1], problems
    if not chains:
        problems.append(error("E264", f"{result.path} has no `chain` block")
                        .with_help("see docs/correlated.md for the syntax of `chain NAME { ... }`"))
    return chains, problems


def _fmt_row(title: str, scale: str, mark: str = "") -> str:
    return f"  {title:<46} {scale:>14}{mark}\n"


def _block_text(b, result: FileResult, args, out: Text) -> None:
    for d in b.diagnostics:
        render_diagnostic(d, out)
        out.append("\n")
    where = result.path
    if b.span is not None:
        line, col = b.span.start_line_col
        where = f"{result.path}:{line}:{col}"
    if b.verdict is not Verdict.PRIVATE:
        out.append(f"! chain {b.name} ({where}): could not be calibrated\n", "bold red")
        return
    cal = b.analysis
    ir = cal.ir
    from dslc.numbers import fmt_fraction as fmt_q
    out.append(f"chain {b.name}", "bold")
    out.append(f" ({where}): T = {ir.length}, ε = {fmt_q(ir.epsilon)}, query {ir.query.describe(ir.states)} "
               f"(L = {fmt_q(ir.query.lipschitz)}), {len(ir.models)} model{'s' if len(ir.models) != 1 else ''}, "
               f"method {ir.method}\n")
    out.append(_fmt_row("mechanism", "noise scale"), "bold")
    for m in cal.mechanisms:
        title = m.title + (" (T·L/ε)" if m.key == "group_dp" else "")
        if m.applicable:
            mark = "   ← recommended" if m is cal.recommended else ""
            out.append(_fmt_row(title, m.scale_text, mark), "bold green" if mark else "")
        else:
            out.append(_fmt_row(title, "n/a"))
            out.append(f"      {m.reason}\n", "dim")
    for m in cal.mechanisms:
        if not m.applicable or not m.key.startswith("markov_quilt"):
            continue
        d = m.details
        q = d["active_quilt"]
        infl = q["max_influence"]
        if infl.startswith("log("):
            infl += f" ≈ {q['max_influence_value']:.4f}"
        more = f" (and {d['nodes_at_max'] - 1} more)" if d["nodes_at_max"] > 1 else ""
        out.append(f"  {m.title}: worst node X{q['node']}{more}, active quilt {q['quilt']}, "
                   f"X_N = {q['nearby']} (card {q['card']}), max-influence {infl}, "
                   f"σ_max = {d['sigma_max']}\n")
        out.append(f"      {d['path']}\n", "dim")
        for note in d.get("notes", []):
            out.append(f"      {note}\n", "dim")
    w = cal.mechanism("wasserstein")
    if w is not None and w.applicable:
        wit = w.details["witness"]
        out.append(f"  Wasserstein: W = {w.details['W']} (node X{wit['node']}, secrets "
                   f"X{wit['node']} = {wit['secrets'][0]} vs {wit['secrets'][1]}, model {wit['model']})\n")
    for note in cal.notes:
        out.append(f"  note: {note}\n", "dim")
    out.append("  Scales with a logarithm are rounded up to 6 significant digits; `dslc release` adds "
               "noise with the printed scale.\n", "dim")
    if args.node is not None:
        _node_table(cal, args.node, out, args.timeout)
    out.append("\n")


def node_rows(cal, node: int, timeout: float | None = None):
    """The rows of the `--node` table, or None when they take longer than
    ``timeout`` seconds (the table is bounded like every phase)."""
    from dslc.correlated.mqm import node_quilts
    ir = cal.ir
    m = cal.mechanism("markov_quilt")
    reach = m.details.get("searched_distance", 60) if m is not None and m.applicable else 60
    try:
        with limits.scope(limits.Deadline(timeout)):
            return node_quilts(ir.length, ir.epsilon, node, cal.node_tables, cal.distance_influence,
                               max(1, reach))
    except limits.Cancelled as exc:
        if exc.reason != "timeout":
            raise
        return None


def _node_table(cal, node: int, out: Text, timeout: float | None = None) -> None:
    from dslc.correlated.numeric import fmt_float, fmt_q, fmt_up
    ir = cal.ir
    if not 1 <= node <= ir.length:
        out.append(f"  --node {node}: nodes are X1..X{ir.length}\n", "bold red")
        return
    if cal.node_tables is None and cal.distance_influence is None:
        out.append("  --node: the exact max-influences were not computed (`method = approx`)\n")
        return
    rows = node_rows(cal, node, timeout)
    if rows is None:
        out.append(f"  --node {node}: the table was not finished within the time limit of {timeout:g} s "
                   "(raise it with `--timeout SECONDS`)\n", "bold red")
        return
    out.append(f"  quilts of X{node} (best first):\n", "bold")
    out.append(f"    {'quilt':<16} {'X_N':<14} {'card':>6}  {'max-influence':<24} {'score':>12}\n", "bold")
    for q, ratio, exact in rows:
        if ratio is not None and ratio == 1:
            infl = "0"
        elif ratio is not None:
            infl = ("" if exact else "≤ ") + (f"log({fmt_q(ratio)})" if len(fmt_q(ratio)) <= 18
                                              else f"{fmt_float(q.influence, 6)}")
        else:
            infl = "∞" if q.influence == float("inf") else f"≤ {fmt_float(q.influence, 6)}"
        sc = "∞" if q.score == float("inf") else (fmt_q(q.exact_score) if q.exact_score is not None
                                                  else fmt_up(q.score))
        out.append(f"    {q.describe():<16} {q.nearby():<14} {q.card:>6}  {infl:<24} {sc:>12}\n")


def _block_json(b, args) -> dict:
    out = {"name": b.name, "kind": b.kind, "verdict": b.verdict.value,
           "diagnostics": [diagnostic_json(d) for d in b.diagnostics]}
    if b.verdict is Verdict.PRIVATE:
        cal = b.analysis
        out["calibration"] = cal.to_json()
        out["seconds"] = round(cal.seconds, 4)
        if args.node is not None and 1 <= args.node <= cal.ir.length and (
                cal.node_tables is not None or cal.distance_influence is not None):
            from dslc.correlated.numeric import fmt_q, fmt_up
            rows = node_rows(cal, args.node, args.timeout)
            if rows is None:
                out["node_quilts"] = None
                out["node_quilts_reason"] = f"not finished within the time limit of {args.timeout:g} s"
                return out
            out["node_quilts"] = [
                {"quilt": q.describe(), "nearby": q.nearby(), "card": q.card,
                 "max_influence_ratio": fmt_q(r) if r is not None else None,
                 "ratio_is_exact_max_influence": exact,
                 "max_influence_value": None if q.influence == float("inf") else q.influence,
                 "score": (fmt_q(q.exact_score) if q.exact_score is not None
                           else (None if q.score == float("inf") else fmt_up(q.score)))}
                for q, r, exact in rows]
    return out
