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
    """The text is not in DiPAut's language (DiPAut itself would fail on it)."""

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


def _tokens(line: str) -> list[tuple[str, str]]:
    out = []
    pos = 0
    while pos < len(line):
        m = _TOKEN.match(line, pos)
        if m is None:
            raise DipautSyntaxError(f"illegal character {line[pos]!r} in {line!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "WS":
            continue
        text = m.group()
        if kind in ("SID", "OID", "VARIABLE"):
            kind = _RESERVED.get(text, kind)
        out.append((kind, text))
    return out


# ---------------------------------------------------------------- parse tree
@dataclass
class Branch:
    comparisons: list[tuple[str, str]]    # (operator, variable); empty: guard true
    assigns: list[str]                    # variables set to insample
    output: str                           # oNAME | insample | insampleprime
    target: int                           # state number (q3 -> 3)


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
            raise DipautSyntaxError(f"expected {' or '.join(kinds)}, found {got!r} in {self.line!r}")
        self.i += 1
        return self.toks[self.i - 1][1]

    def number(self) -> Fraction:
        if self.peek() == "LAP":
            raise DipautSyntaxError(f"`Lap(...)` as a parameter is not supported in {self.line!r}")
        n = self.take("NUMBER")
        if self.peek() == "SLASH":
            self.take("SLASH")
            m = self.take("NUMBER")
            if int(m) == 0:
                raise DipautSyntaxError(f"division by zero in {self.line!r}")
            return Fraction(int(n), int(m))
        return Fraction(int(n))

    def state_number(self) -> int:
        name = self.take("SID")
        if not re.fullmatch(r"q[0-9]+", name) or int(name[1:]) < 1:
            raise DipautSyntaxError(f"state names are q1, q2, ... (DiPAut reads the number): {name!r}")
        return int(name[1:])

    def statement_line(self) -> StateLine:
        self.take("LPAREN")
        number = self.state_number()
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
            raise DipautSyntaxError(f"unexpected {self.toks[self.i][1]!r} in {self.line!r}")
        has_prime = d_prime is not None
        for b in branches:
            if b.output == "insampleprime" and not has_prime:
                raise DipautSyntaxError(f"q{number} outputs insampleprime but has no d', mu' "
                                        "(DiPAut: \"Unable to find d' and mean'\")")
        return StateLine(number, non_input, d, mu, d_prime, mu_prime, branches, guarded)

    def guarded_branch(self) -> Branch:
        self.take("LPAREN")
        comparisons = [self.comparison()]
        while self.peek() == "AND":
            self.take("AND")
            comparisons.append(self.comparison())
        self.take("RPAREN")
        self.take("THEN")
        return self.bstatement(comparisons)

    def comparison(self) -> tuple[str, str]:
        self.take("INSAMPLE")
        op = self.take("GREATEREQUAL", "LESSEQUAL", "LESS", "GREATER")
        var = self.take("VARIABLE")
        return op, var

    def bstatement(self, comparisons) -> Branch:
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
        out = self.take("OID", "INSAMPLE", "INSAMPLEPRIME")
        self.take("SEMICOLON")
        self.take("GOTO")
        target = self.state_number()
        return Branch(comparisons, assigns, out, target)


def parse(text: str) -> Program:
    """Read a `.dipa` file (DiPAut's language, any number of variables)."""
    prog = Program()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()                       # the final newline
    assigned_so_far: set[str] = set()
    for line in lines:
        toks = _tokens(line)
        if not toks:
            raise DipautSyntaxError("blank line (DiPAut fails on it)")
        s = _Parser(toks, line).statement_line()
        if s.number in prog.states:
            raise DipautSyntaxError(f"duplicate state q{s.number}")
        # DiPAut parses line by line and knows a variable once a line assigned it
        for b in s.branches:                # in text order: a branch's comparison is read
            for _, var in b.comparisons:        # before its own assignment
                if var not in assigned_so_far:
                    raise DipautSyntaxError(f"q{s.number} compares with {var!r} before a line "
                                            "assigns it (DiPAut: Undefined variable)")
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


def to_multi(text: "str | Program", name: str = "dipaut") -> MultiDiPA:
    """The automaton a `.dipa` file describes, in the multi-variable IR.
    Raises :class:`DipautSyntaxError` for text DiPAut cannot read."""
    prog = parse(text) if isinstance(text, str) else text
    n = len(prog.numbers)
    m = MultiDiPA(name, initial=0)
    zero = Fraction(0)
    for k in range(1, n + 1):
        s = prog.states.get(k)
        if s is None:
            m.states.append(MState(f"q{k}", True, zero))
        else:
            m.states.append(MState(f"q{k}", not s.non_input, s.d, s.mu,
                                   s.d_prime if s.d_prime is not None else zero,
                                   s.mu_prime if s.mu_prime is not None else zero))
    for k in sorted(prog.states):
        s = prog.states[k]
        guards = [tuple(Literal(var, _OP[op]) for op, var in b.comparisons) for b in s.branches]
        for j, (b, pieces) in enumerate(zip(s.branches, first_match_pieces(guards)), 1):
            label = f"q{k} branch {j}" if len(s.branches) > 1 else f"q{k}"
            for piece in pieces:
                m.transitions.append(MTransition(k - 1, piece, b.target - 1, output_of(b.output),
                                                 frozenset(b.assigns), label))
    return m
