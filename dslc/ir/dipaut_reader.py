"""DiPAut's `.dipa` language (all of it): reader into the multi-variable IR.

DiPAut (https://github.com/bhusalb/DiPAut, MIT) is the tool of the DiPA
authors for automata with several variables.  One state per line:

    (q1:non-input,1/4,0): l:= insample; output obot; goto q2
    (q3,1/4,0, 1/4,0): if (insample >= l && insample < r) then output ocontinue; goto q3 elseif (insample >= r) then output insampleprime; goto q4

This is our own code, written from DiPAut's tokenizer, parser and graph
builder (core/tokenizer.py, core/parser.py, builders/graph_builder.py at commit
c25fe4df68f471ed6bb359388098df044b11dd84), whose meaning it follows:

- A state is `(qN, d, μ)` or `(qN, d, μ, d′, μ′)`; numbers are `N` or `N/M`.
  States are input states unless written `qN:non-input`.  `qN` is state N-1,
  `q1` the initial state; the states named must be q1..qK without gaps; a
  state that is only a `goto` target has no transitions.
- Comparisons: `>` and `>=` are `insample >= v`, `<` and `<=` are
  `insample < v` (they differ on an event of probability 0).  `&&` is a
  conjunction.  `a:= insample, b:= insample;` stores the draw in a and b.
- `if (c1) then S1 elseif (c2) then S2 ...` is read as written: the first
  branch whose guard holds is taken (on no branch the run stops).  The IR
  wants exclusive guards, so branch k becomes the pieces of
  `ck && !c1 && ... && !c(k-1)`, each a conjunction (a disjoint
  decomposition, :func:`first_match_pieces`); a piece keeps the branch's
  store, output and target, and its label says which branch it came from.
- DiPAut reads each line on its own and rejects a comparison with a variable
  that no earlier line stores (its "Undefined variable"); so do we.  A blank
  line is a parse error in DiPAut and here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from dslc.ir.dipa import OUT_INSAMPLE, OUT_INSAMPLE_PRIME, symbol
from dslc.ir.multi_dipa import GE, LT, Literal, MState, MTransition, MultiDiPA

class DipautSyntaxError(ValueError):
    """The text is not in DiPAut's language (DiPAut itself would fail on it).
    ``line`` (1-based) and ``col`` (0-based offset in the line), ``end``: where, when known."""
    line: int | None = None
    col: int | None = None
    end: int | None = None

# ---------------------------------------------------------------- tokenizer
# DiPAut's lexer (ply): function rules first in definition order (non-input,
# q-names, o-names, other names with reserved words), then string rules by
# decreasing length.
_RESERVED = {"if": "IF", "then": "THEN", "elseif": "ELSEIF", "insample": "INSAMPLE",
             "insampleprime": "INSAMPLEPRIME", "goto": "GOTO", "Lap": "LAP", "output": "OUTPUT"}
_TOKEN = re.compile(r"""
    (?P<NONINPUT>non-input)
  | (?P<SID>q[a-zA-Z_0-9]*)
  | (?P<OID>o[a-zA-Z_0-9]*)
  | (?P<VARIABLE>[a-zA-Z_][a-zA-Z0-9_]*)
  | (?P<COLONEQ>:=) | (?P<LESSEQUAL><=) | (?P<GREATEREQUAL>>=) | (?P<AND>&&)
  | (?P<NUMBER>[0-9]+)
  | (?P<LPAREN>\() | (?P<RPAREN>\)) | (?P<LESS><) | (?P<GREATER>>) | (?P<COLON>:)
  | (?P<SEMICOLON>;) | (?P<COMMA>,) | (?P<SLASH>/)
  | (?P<WS>[ \t\r]+)
""", re.VERBOSE)


def _tokens(line: str) -> list[tuple[str, str, int, int]]:
    """(kind, text, start, end) of every token of the line."""
    out = []
    pos = 0
    while pos < len(line):
        m = _TOKEN.match(line, pos)
        if m is None:
            raise _at(DipautSyntaxError(f"illegal character {line[pos]!r} in {line!r}"), pos, pos + 1)
        pos = m.end()
        kind = m.lastgroup
        if kind == "WS":
            continue
        text = m.group()
        if kind in ("SID", "OID", "VARIABLE"):
            kind = _RESERVED.get(text, kind)
        out.append((kind, text, m.start(), m.end()))
    return out


def _at(exc: DipautSyntaxError, col: int, end: int) -> DipautSyntaxError:
    if exc.col is None:
        exc.col, exc.end = col, end
    return exc


# ---------------------------------------------------------------- parse tree
@dataclass
class Branch:
    comparisons: list[tuple[str, str]]    # (operator, variable); empty: guard true
    assigns: list[str]                    # variables set to insample
    output: str                           # oNAME | insample | insampleprime
    target: int                           # state number (q3 -> 3)
    start: int = 0                        # where the branch is written in its line (offsets)
    end: int = 0
    guard_end: int = 0                    # end of its `(…)` guard (0: none)
    output_start: int = 0
    output_end: int = 0


@dataclass
class StateLine:
    number: int
    non_input: bool
    d: Fraction
    mu: Fraction
    d_prime: Fraction | None
    mu_prime: Fraction | None
    branches: list[Branch]
    guarded: bool                         # written with `if`
    line: int = 0                         # 0-based line of the file
    name_start: int = 0                   # the `qN` in the line
    name_end: int = 0
    length: int = 0


@dataclass
class Program:
    states: dict[int, StateLine] = field(default_factory=dict)

    @property
    def numbers(self) -> set[int]:
        """Every state named: defined or used as a target."""
        out = set(self.states)
        for s in self.states.values():
            out.update(b.target for b in s.branches)
        return out

    @property
    def variables(self) -> set[str]:
        out: set[str] = set()
        for s in self.states.values():
            for b in s.branches:
                out.update(b.assigns)
                out.update(v for _, v in b.comparisons)
        return out


class _Parser:
    def __init__(self, toks: list[tuple[str, str]], line: str):
        self.toks = toks
        self.i = 0
        self.line = line

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.toks[j][0] if j < len(self.toks) else None

    def take(self, *kinds: str) -> str:
        kind = self.peek()
        if kind not in kinds:
            got = self.toks[self.i][1] if kind else "end of line"
            raise self.here(DipautSyntaxError(f"expected {' or '.join(kinds)}, found {got!r} in {self.line!r}"))
        self.i += 1
        return self.toks[self.i - 1][1]

    def here(self, exc: DipautSyntaxError, back: int = 0) -> DipautSyntaxError:
        """``exc`` located at the current token (``back``: tokens before it), or the end of the line."""
        j = self.i - back
        if 0 <= j < len(self.toks):
            return _at(exc, self.toks[j][2], self.toks[j][3])
        return _at(exc, len(self.line), len(self.line))

    def pos(self, back: int = 1) -> tuple[int, int]:
        """(start, end) of the token ``back`` tokens before the current one."""
        tok = self.toks[self.i - back]
        return tok[2], tok[3]

    def number(self) -> Fraction:
        if self.peek() == "LAP":
            raise self.here(DipautSyntaxError(f"`Lap(...)` as a parameter is not supported in {self.line!r}"))
        n = self.take("NUMBER")
        if self.peek() == "SLASH":
            self.take("SLASH")
            m = self.take("NUMBER")
            if int(m) == 0:
                raise self.here(DipautSyntaxError(f"division by zero in {self.line!r}"), 1)
            return Fraction(int(n), int(m))
        return Fraction(int(n))

    def state_number(self) -> int:
        name = self.take("SID")
        if not re.fullmatch(r"q[0-9]+", name) or int(name[1:]) < 1:
            raise self.here(DipautSyntaxError(f"state names are q1, q2, ... (DiPAut reads the number): {name!r}"), 1)
        return int(name[1:])

    def statement_line(self) -> StateLine:
        self.take("LPAREN")
        number = self.state_number()
        name_start, name_end = self.pos()
        non_input = False
        if self.peek() == "COLON":
            self.take("COLON")
            self.take("NONINPUT")
            non_input = True
        self.take("COMMA")
        d = self.number()
        self.take("COMMA")
        mu = self.number()
        d_prime = mu_prime = None
        if self.peek() == "COMMA":
            self.take("COMMA")
            d_prime = self.number()
            self.take("COMMA")
            mu_prime = self.number()
        self.take("RPAREN")
        self.take("COLON")
        branches: list[Branch] = []
        guarded = self.peek() == "IF"
        if guarded:
            self.take("IF")
            branches.append(self.guarded_branch())
            while self.peek() == "ELSEIF":
                self.take("ELSEIF")
                branches.append(self.guarded_branch())
        else:
            branches.append(self.bstatement([]))
        if self.peek() is not None:
            raise self.here(DipautSyntaxError(f"unexpected {self.toks[self.i][1]!r} in {self.line!r}"))
        has_prime = d_prime is not None
        for b in branches:
            if b.output == "insampleprime" and not has_prime:
                raise _at(DipautSyntaxError(f"q{number} outputs insampleprime but has no d', mu' "
                                            "(DiPAut: \"Unable to find d' and mean'\")"),
                          b.output_start, b.output_end)
        return StateLine(number, non_input, d, mu, d_prime, mu_prime, branches, guarded,
                         name_start=name_start, name_end=name_end, length=len(self.line))

    def guarded_branch(self) -> Branch:
        self.take("LPAREN")
        start = self.pos()[0]
        comparisons = [self.comparison()]
        while self.peek() == "AND":
            self.take("AND")
            comparisons.append(self.comparison())
        self.take("RPAREN")
        guard_end = self.pos()[1]
        self.take("THEN")
        b = self.bstatement(comparisons)
        b.start, b.guard_end = start, guard_end
        return b

    def comparison(self) -> tuple[str, str]:
        self.take("INSAMPLE")
        op = self.take("GREATEREQUAL", "LESSEQUAL", "LESS", "GREATER")
        var = self.take("VARIABLE")
        return op, var

    def bstatement(self, comparisons) -> Branch:
        start = self.toks[self.i][2] if self.i < len(self.toks) else len(self.line)
        assigns: list[str] = []
        if self.peek() == "VARIABLE":
            while True:
                assigns.append(self.take("VARIABLE"))
                self.take("COLONEQ")
                self.take("INSAMPLE")
                if self.peek() != "COMMA":
                    break
                self.take("COMMA")
            self.take("SEMICOLON")
        self.take("OUTPUT")
        output_start = self.pos()[0]
        out = self.take("OID", "INSAMPLE", "INSAMPLEPRIME")
        output_end = self.pos()[1]
        self.take("SEMICOLON")
        self.take("GOTO")
        target = self.state_number()
        return Branch(comparisons, assigns, out, target, start, self.pos()[1], 0, output_start, output_end)


def parse(text: str) -> Program:
    """Read a `.dipa` file (DiPAut's language, any number of variables)."""
    prog = Program()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()                       # the final newline
    assigned_so_far: set[str] = set()
    for k, line in enumerate(lines):
        try:
            toks = _tokens(line)
            if not toks:
                raise _at(DipautSyntaxError("blank line (DiPAut fails on it)"), 0, 0)
            s = _Parser(toks, line).statement_line()
        except DipautSyntaxError as exc:
            exc.line = k + 1
            raise
        s.line = k
        if s.number in prog.states:
            raise _located(DipautSyntaxError(f"duplicate state q{s.number}"), s, s.name_start, s.name_end)
        # DiPAut parses line by line and knows a variable once a line assigned it
        for b in s.branches:                # in text order: a branch's comparison is read
            for _, var in b.comparisons:        # before its own assignment
                if var not in assigned_so_far:
                    raise _located(DipautSyntaxError(f"q{s.number} compares with {var!r} before a line "
                                                     "assigns it (DiPAut: Undefined variable)"),
                                   s, b.start, b.guard_end or b.end)
            assigned_so_far.update(b.assigns)
        prog.states[s.number] = s
    if 1 not in prog.states:
        raise DipautSyntaxError("no line for the initial state q1")
    numbers = prog.numbers
    if numbers != set(range(1, len(numbers) + 1)):
        missing = sorted(set(range(1, max(numbers) + 1)) - numbers)
        raise DipautSyntaxError(f"states must be numbered q1..qK without gaps (DiPAut maps qN to "
                                f"vertex N-1); missing: {', '.join(f'q{n}' for n in missing)}")
    return prog


def _located(exc: DipautSyntaxError, s: StateLine, col: int, end: int) -> DipautSyntaxError:
    exc.line = s.line + 1
    return _at(exc, col, end)


# ---------------------------------------------------------------- to the multi-variable IR
MAX_PIECES = 10_000


class TooLarge(ValueError):
    """An `if … elseif …` chain whose first-match reading has too many pieces."""

_OP = {">=": GE, ">": GE, "<": LT, "<=": LT}


def output_of(name: str):
    """A `.dipa` output word as the IR's output."""
    if name == "insample":
        return OUT_INSAMPLE
    if name == "insampleprime":
        return OUT_INSAMPLE_PRIME
    return symbol(name)


def _conj(literals) -> tuple[Literal, ...] | None:
    """The conjunction without repeats, or None if it is contradictory."""
    unique = set(literals)
    ops: dict[str, set[str]] = {}
    for lit in unique:
        ops.setdefault(lit.var, set()).add(lit.op)
    if any(len(o) > 1 for o in ops.values()):
        return None
    return tuple(sorted(unique))


def first_match_pieces(guards: list[tuple[Literal, ...]]) -> list[list[tuple[Literal, ...]]]:
    """For each guard g_k of an if/elseif chain, disjoint conjunctions whose union is
    g_k && !g_1 && ... && !g_(k-1).  !(l1 && l2 && ...) is split as
    !l1 | (l1 && !l2) | (l1 && l2 && !l3) ..., whose disjuncts exclude each other."""
    out = []
    for k, g in enumerate(guards):
        pieces = [_conj(g)]
        for h in guards[:k]:
            nxt = []
            for piece in pieces:
                if piece is None:
                    continue
                for i, lit in enumerate(h):
                    cand = _conj(piece + tuple(h[:i]) + (lit.negated(),))
                    if cand is not None:
                        nxt.append(cand)
                if len(nxt) > MAX_PIECES:
                    raise TooLarge(f"branch {k + 1} splits into more than {MAX_PIECES} exclusive conjunctions")
            pieces = nxt
        out.append(sorted({p for p in pieces if p is not None}))
    return out


def to_multi(text: "str | Program", name: str = "dipaut", source=None) -> MultiDiPA:
    """The automaton a `.dipa` file describes, in the multi-variable IR.
    Raises :class:`DipautSyntaxError` for text DiPAut cannot read.  With
    ``source`` (the file's :class:`~dslc.source.SourceFile`, whose text was read),
    states and transitions keep the spans of their lines and branches."""
    prog = parse(text) if isinstance(text, str) else text
    n = len(prog.numbers)
    m = MultiDiPA(name, initial=0, kind="dipaut")
    starts = None
    if source is not None:
        starts = [0]
        for line in source.text.split("\n"):
            starts.append(starts[-1] + len(line) + 1)

    def span(s: StateLine, a: int, b: int):
        return None if starts is None else source.span(starts[s.line] + a, starts[s.line] + b)

    zero = Fraction(0)
    for k in range(1, n + 1):
        s = prog.states.get(k)
        if s is None:
            m.states.append(MState(f"q{k}", True, zero))
        else:
            m.states.append(MState(f"q{k}", not s.non_input, s.d, s.mu,
                                   s.d_prime if s.d_prime is not None else zero,
                                   s.mu_prime if s.mu_prime is not None else zero,
                                   span=span(s, 0, s.length), name_span=span(s, s.name_start, s.name_end)))
    if starts is not None and m.states:
        m.span = m.states[0].name_span
    for k in sorted(prog.states):
        s = prog.states[k]
        guards = [tuple(Literal(var, _OP[op]) for op, var in b.comparisons) for b in s.branches]
        for j, (b, pieces) in enumerate(zip(s.branches, first_match_pieces(guards)), 1):
            label = f"q{k} branch {j}" if len(s.branches) > 1 else f"q{k}"
            for piece in pieces:
                m.transitions.append(MTransition(
                    k - 1, piece, b.target - 1, output_of(b.output), frozenset(b.assigns), label,
                    span=span(s, b.start, b.end),
                    guard_span=span(s, b.start, b.guard_end) if b.guard_end else None,
                    output_span=span(s, b.output_start, b.output_end)))
    return m
