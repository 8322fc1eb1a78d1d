"""Parsing of one block with Lark (LALR, positions on every node).

Syntax errors are turned into diagnostics that say in words what was
expected (``expected a guard such as `insample >= x` ``), with the span of
the offending token.
"""

from __future__ import annotations

import re
import threading
from fractions import Fraction
from functools import lru_cache

from dslc import limits
from dslc.diagnostics.model import DiagnosticError, error
from dslc.source import SourceFile, Span
from dslc.syntax import ast, parse_table

# Lark is imported on first use (_parser): `dslc check` on automata that the
# fast path reads never loads it.  Token is lark.Token from then on.
Token = None

from dslc.kinds import START_RULES  # noqa: E402  (keyword -> start rule, from the table of kinds)


def _transformers() -> list[type]:
    """The builders of the other kinds' rules, mixed into the one transformer."""
    from dslc.syntax.chain import ChainBuilder
    from dslc.syntax.hmm import MarkovBuilderMixin
    return [MarkovBuilderMixin, ChainBuilder]


# Automaton blocks larger than this are first tried with the regex fast path
# (dslc/syntax/fast_automaton.py), which builds the same AST much faster.
FAST_PATH_MIN_CHARS = 0


# ------------------------------------------------------------------ words
TOKEN_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "STRING": "a quoted string",
    "LAP": "a draw `Lap(rate, mean)`", "LAP_PRIME": "a second draw `Lap'(rate, mean)`",
    "INSAMPLE": "`insample`", "INSAMPLE_PRIME": "`insample'`",
    "INPUT": "`input`", "NOINPUT": "`noinput`", "OUTPUT": "`output`", "STORE": "`store`",
    "TRUE": "`true`", "IF": "`if`", "ELSE": "`else`", "LOOP": "`loop`", "HALT": "`halt`",
    "BREAK": "`break`", "READ": "`read()`", "TOP": "`⊤`", "TOP_A": "`top`", "BOT": "`⊥`",
    "BUDGET": "`budget`", "SENSITIVITY": "`sensitivity`",
    "IMPORT": "`import`", "FROM": "`from`", "RELEASE": "`release`", "WITH": "`with`",
    "DISJOINT": "`disjoint`",
    "BOT_A": "`bot`", "EPS": "`ε`", "EPS_A": "`eps`", "ARROW": "`->`", "ASSIGN": "`:=`",
    "GE": "`>=`", "LE": "`<=`", "LT": "`<`", "GT": "`>`", "PLUS": "`+`", "MINUS": "`-`",
    "STAR": "`*`", "SLASH": "`/`", "LBRACE": "`{`", "RBRACE": "`}`", "LPAR": "`(`",
    "RPAR": "`)`", "COMMA": "`,`", "SEMICOLON": "`;`", "EQUAL": "`=`", "COLON": "`:`",
    "$END": "the end of the block", "AND_KW": "`and`", "AND_AMP": "`&&`", "VARIABLES": "`variables`", "STORE_NAME": "a variable",
    "LSQB": "`[`", "RSQB": "`]`", "CHAIN_STATIONARY": "`stationary`", "CHAIN_SUM": "`sum`",
    "CHAIN_HISTOGRAM": "`histogram`", "CHAIN_COUNT": "`count(S)`", "CHAIN_LIPSCHITZ": "`lipschitz(L)`",
}

# Whole expected-sets that read better as one phrase.
PHRASES: list[tuple[frozenset, str]] = [
    (frozenset({"TRUE", "INSAMPLE"}), "a guard such as `insample >= x`"),
    (frozenset({"INPUT", "NOINPUT"}), "`input` or `noinput` (does the state read an input?)"),
    (frozenset({"GE", "LT", "GT", "LE"}), "a comparison such as `>=` or `<`"),
    (frozenset({"ARROW"}), "`->` followed by the target state"),
    (frozenset({"LAP"}), "a draw such as `Lap(ε/4, 0)`"),
    (frozenset({"NUMBER", "EPS", "LAP"}), "an expression such as `ε/4`, `0` or `Lap(ε, q)`"),
    (frozenset({"PLUS", "MINUS", "STAR", "SLASH"}), "an operator (`+`, `-`, `*`, `/`)"),
    (frozenset({"IF", "LOOP", "OUTPUT", "HALT", "BREAK"}), "a statement (`x := ...`, `if`, `loop`, `output`, `halt`, `break`)"),
    (frozenset({"PRIOR", "SECRET", "PROTECT", "CHECK"}),
     "a statement (`states`, `observations`, `prior`, `s -> t: p`, `s emits o: p`, `secret`, `protect`, `check`, ...)"),
    (frozenset({"INITIAL", "TRANSITION", "LENGTH", "QUERY"}),
     "a setting (`states`, `initial`, `transition`, `length`, `query`, `ε`, `method`, `model`)"),
]
# Tokens a phrase stands for although it does not need them to match.
_PHRASE_COVERS = {
    "a statement (`states`": {"STATES", "OBSERVATIONS", "OBS", "ACTIONS", "PARAM", "ASSUME", "FIND",
                              "NAME", "NUMBER", "STRING"},
    "a setting (`states`": {"STATES", "EPS", "EPS_A", "EPSILON", "METHOD", "MODEL", "T"},
}


def describe_expected(expected: set[str], keyword: str | None = None) -> str:
    """The tokens a parser state accepts, in words (``keyword``: the kind of
    block, for phrases that only fit one kind)."""
    expected = {e for e in expected if not e.startswith("__")}
    phrases = []
    rest = set(expected)
    for names, phrase in PHRASES:
        if names <= expected:
            if names == {"ARROW"} and keyword not in (None, "automaton"):
                phrase = "`->`"
            phrases.append(phrase)
            rest -= names
            for head, covered in _PHRASE_COVERS.items():
                if phrase.startswith(head):
                    rest -= covered
    if {"PLUS", "STAR"} <= expected and "NUMBER" not in expected:
        rest -= {"EPS", "EPS_A"}            # `2ε`: ε after a value multiplies
    if {"IF", "LOOP", "OUTPUT"} <= expected:
        rest.discard("NAME")                # `x := ...` is among the statements
    # Drop spellings already covered by a phrase or a twin.
    twins = {"TOP_A": "TOP", "BOT_A": "BOT", "EPS_A": "EPS", "LAP_PRIME": "LAP",
             "INSAMPLE_PRIME": "INSAMPLE", "SEMICOLON": None, "MINUS": "NUMBER",
             "LPAR": "NUMBER", "STRING": "TOP", "READ": "NUMBER", "NAME": None}
    for twin, main in twins.items():
        if twin in rest and main and (main in expected):
            rest.discard(twin)
    if "SEMICOLON" in rest and len(rest) > 1:
        rest.discard("SEMICOLON")
    words = phrases + sorted(TOKEN_WORDS.get(e, f"`{e.lower()}`") for e in rest)
    if not words:
        return "something else"
    if len(words) == 1:
        return words[0]
    if len(words) > 6:
        words = words[:6] + ["..."]
    return ", ".join(words[:-1]) + " or " + words[-1]


def describe_token(token: Token) -> str:
    if token.type == "$END":
        return "the end of the block"
    text = str(token)
    if len(text) > 30:
        text = text[:27] + "..."
    return f"`{text}`"


# ------------------------------------------------------------------ transformer
class _Builder:
    """Builds AST nodes during LALR reductions (no parse tree is kept); mixed
    with lark's Transformer by :func:`_parser`.

    The parser keeps all tokens (``keep_all_tokens``), so a node's span runs
    from its first token to its last, punctuation included.
    """

    file: SourceFile
    base: int = 0

    def _span(self, children) -> Span:
        first = self._edge(children, 0)
        last = self._edge(children, -1)
        if first is None:
            return Span(self.file, self.base, self.base)
        return Span(self.file, first.start, last.end)

    def _edge(self, items, index):
        seq = items if index == 0 else reversed(items)
        for c in seq:
            if isinstance(c, Token):
                return self._tok(c)
            if isinstance(c, ast.Node):
                return c.span
            if isinstance(c, Span):
                return c
            if isinstance(c, (list, tuple)):
                found = self._edge(c, index)
                if found is not None:
                    return found
        return None

    def _tok(self, tok: Token) -> Span:
        return Span(self.file, self.base + tok.start_pos, self.base + tok.end_pos)

    @staticmethod
    def _nodes(children, cls=ast.Node):
        return [c for c in children if isinstance(c, cls)]

    def _num(self, tok: Token) -> ast.Num:
        """A number literal (E011 when it is too long to be read exactly)."""
        span = self._tok(tok)
        try:
            return ast.Num(span, ast.number_value(str(tok)))
        except ast.NumberTooLong:
            raise DiagnosticError(error("E011", f"this number has {len(str(tok))} digits; at most "
                                                f"{limits.MAX_NUMBER_DIGITS} are read", span, "too many digits")
                                  .with_help("write it with fewer digits, e.g. as a fraction")) from None

    # ---- expressions
    def number(self, children):
        num = self._num(children[0])
        num.span = self._span(children)
        return num

    def eps(self, children):
        return ast.Eps(self._span(children))

    def name(self, children):
        return ast.Name(self._span(children), str(children[0]))

    def sym_top(self, children):
        return ast.Symbol(self._span(children), "⊤")

    def sym_bot(self, children):
        return ast.Symbol(self._span(children), "⊥")

    def sym_string(self, children):
        return ast.Symbol(self._span(children), str(children[0])[1:-1])

    def atom(self, children):           # "(" expr ")"
        return children[1]

    def binop(self, children):
        left, op, right = children
        return ast.BinOp(self._span(children), "*" if str(op) == "·" else str(op), left, right)

    def implicit_mul(self, children):
        left, eps_tok = children
        return ast.BinOp(self._span(children), "*", left, ast.Eps(self._tok(eps_tok)))

    def neg(self, children):
        return ast.Neg(self._span(children), children[1])

    def draw(self, children):
        kw = children[0]
        rate, mean = self._nodes(children, ast.Expr)
        return ast.Draw(self._span(children), kw.type == "LAP_PRIME", rate, mean, self._tok(kw))

    def read_call(self, children):
        return ast.Read(self._span(children))

    def cmp_op(self, children):
        return children[0]

    # ---- automaton
    def automaton_block(self, children):
        name = children[1]
        states = self._nodes(children, ast.StateDecl)
        block = ast.AutomatonBlock(self._span(children), str(name), self._tok(name), states=states,
                                   claims=self._nodes(children, ast.Claim))
        declared = self._nodes(children, ast.VariablesDecl)
        if declared:
            block.variables_decl = declared[0]
        return block

    def claim_budget(self, children):
        return ast.Claim(self._span(children), "budget", children[1], self._tok(children[0]))

    def claim_sensitivity(self, children):
        return ast.Claim(self._span(children), "sensitivity", children[1], self._tok(children[0]))

    def state(self, children):
        name, kind = children[1], children[2]
        draws = self._nodes(children, ast.Draw)
        transitions = self._nodes(children, ast.TransitionDecl)
        return ast.StateDecl(self._span(children), str(name), self._tok(name),
                             kind.type == "INPUT", self._tok(kind), draws, transitions)

    def input_kind(self, children):
        return children[0]

    def transition(self, children):
        guard, _arrow, target, *rest = children
        output = None
        store = None
        store_vars = []
        for c in rest:
            if isinstance(c, ast.OutputDecl):
                output = c
            elif isinstance(c, ast.Symbol):
                output = ast.OutputDecl(c.span, "symbol", c.name)
            elif isinstance(c, Token) and c.type == "STORE":
                store = self._tok(c)
            elif isinstance(c, StoreVars):
                store_vars = list(c)
                store = Span(store.file, store.start, store_vars[-1][1].end)
        decl = ast.TransitionDecl(self._span(children), guard, str(target), self._tok(target), output, store)
        if store_vars:
            decl.store_vars = store_vars
        return decl

    def guard_true(self, children):
        return ast.GuardDecl(self._span(children), "true")

    def guard_cmp(self, children):
        _ins, op, var = children
        return ast.GuardDecl(self._span(children), _norm_op(op), str(var), self._tok(var))

    def out_clause(self, children):
        out = children[1]
        if isinstance(out, ast.Symbol):
            return ast.OutputDecl(self._span(children), "symbol", out.name)
        out.span = self._span(children)
        return out

    def out_name(self, children):
        return ast.Symbol(self._span(children), str(children[0]))

    def out_insample(self, children):
        return ast.OutputDecl(self._span(children), "insample")

    def out_insample_prime(self, children):
        return ast.OutputDecl(self._span(children), "insample'")

    # ---- mechanism
    def mechanism_block(self, children):
        name = children[1]
        for decl in self._nodes(children, ast.VariablesDecl):
            raise DiagnosticError(error("E133", "`variables` is declared in `automaton` blocks; a mechanism's "
                                                "variables are the names it assigns", decl.span, "not here")
                                  .with_help("remove the declaration"))
        params = next((c for c in children if isinstance(c, list)), [])
        body = children[-1]
        return ast.MechanismBlock(self._span(children), str(name), self._tok(name),
                                  params=params, body=body[0], end_span=body[1],
                                  claims=self._nodes(children, ast.Claim))

    def params(self, children):
        return self._nodes(children, ast.Param)

    def param(self, children):
        exprs = self._nodes(children, ast.Expr)
        return ast.Param(self._span(children), str(children[0]), exprs[0] if exprs else None)

    def body(self, children):
        return (self._nodes(children, ast.Stmt), self._tok(children[-1]))

    def assign(self, children):
        target, _op, value = children
        return ast.Assign(self._span(children), str(target), self._tok(target), value)

    def if_stmt(self, children):
        kw, cond, then, *rest = children
        orelse = None
        if rest:
            other = rest[-1]
            orelse = [other] if isinstance(other, ast.If) else other[0]
        return ast.If(self._span(children), cond, then[0], orelse, self._tok(kw))

    def cond(self, children):
        left, op, right = children
        return ast.Cond(self._span(children), _norm_op(op), left, right, self._tok(op))

    def loop_stmt(self, children):
        kw, body = children
        return ast.Loop(self._span(children), body[0], self._tok(kw), body[1])

    def output_stmt(self, children):
        return ast.Output(self._span(children), children[1])

    # ---- several stored variables (docs/language.md, "Several variables")
    def store_vars(self, children):
        return StoreVars((str(c), self._tok(c)) for c in children if c.type == "STORE_NAME")

    def guard_conj(self, children):
        literals, i = [], 0
        while i < len(children):
            if isinstance(children[i], Token) and children[i].type == "INSAMPLE":
                ins, op, var = children[i:i + 3]
                literals.append(ast.GuardDecl(self._span([ins, var]), _norm_op(op), str(var), self._tok(var)))
                i += 3
            else:
                i += 1
        return ast.ConjGuardDecl(self._span(children), literals)

    def claim_variables(self, children):
        return ast.VariablesDecl(self._span(children), [(str(c), self._tok(c)) for c in children[1:]
                                                        if c.type == "NAME"])

    def cond_conj(self, children):
        return ast.CondAnd(self._span(children), self._nodes(children, ast.Cond))

    def halt_stmt(self, children):
        return ast.Halt(self._span(children))

    def break_stmt(self, children):
        return ast.Break(self._span(children))

    # ---- programs of mechanisms (imports and releases, dslc/compose/)
    def import_block(self, children):
        names = [(str(t), self._tok(t)) for t in children[1:-2] if getattr(t, "type", None) == "NAME"]
        origin = children[-1]
        text = str(origin)
        quoted = origin.type == "STRING"
        return ast.ImportDecl(self._span(children), names[0][0], names[0][1], names=names,
                              origin=text[1:-1] if quoted else text, origin_span=self._tok(origin),
                              stdlib=not quoted)

    def release_block(self, children):
        name = children[1]
        items = [c for c in children if isinstance(c, (ast.Call, ast.Disjoint))]
        return ast.ReleaseBlock(self._span(children), str(name), self._tok(name), items=items,
                                claims=self._nodes(children, ast.Claim))

    def release_call(self, children):
        name = children[0]
        args = next((c for c in children if isinstance(c, list)), [])
        return ast.Call(self._span(children), str(name), self._tok(name), args, children[-1])

    def call_args(self, children):
        return self._nodes(children, ast.CallArg)

    def call_arg(self, children):
        return ast.CallArg(self._span(children), str(children[0]), self._tok(children[0]), children[-1])

    def release_disjoint(self, children):
        kw, _disjoint, name = children[0], children[1], children[2]
        return ast.Disjoint(self._span(children), str(name), self._tok(name),
                            self._nodes(children, ast.Call), self._tok(kw))

    # ---- discrete mechanisms (docs/discrete.md)
    def dlap(self, children):
        rate, mean = self._nodes(children, ast.Expr)
        return ast.DLap(self._span(children), rate, mean, self._tok(children[0]))

    def flip(self, children):
        (prob,) = self._nodes(children, ast.Expr)
        return ast.Flip(self._span(children), prob, self._tok(children[0]))

    def clamp(self, children):
        value, lo, hi = self._nodes(children, ast.Expr)
        return ast.Clamp(self._span(children), value, lo, hi, self._tok(children[0]))

    def exp_eps(self, children):
        return ast.ExpOf(self._span(children), ast.Eps(self._tok(children[1])))

    def exp_of(self, children):
        (exponent,) = self._nodes(children, ast.Expr)
        return ast.ExpOf(self._span(children), exponent)

    def cond_truth(self, children):
        return ast.CondTruth(self._span(children), children[0])

    def claim_input(self, children):
        lo, hi = self._nodes(children, ast.Expr)
        return ast.DomainClaim(self._span(children), "input", lo, self._tok(children[0]), hi)

    def claim_adjacent(self, children):
        return ast.Claim(self._span(children), "adjacent", children[1], self._tok(children[0]))

    def claim_horizon(self, children):
        return ast.Claim(self._span(children), "horizon", children[1], self._tok(children[0]))



class StoreVars(list):
    """The names after `store` (a list of (name, span)), until the transition is built."""


def _norm_op(tok: Token) -> str:
    return {"≥": ">=", "≤": "<="}.get(str(tok), str(tok))


# The cached parser's builder carries per-parse state (file, base), so one
# parse at a time: the language server checks on several worker threads.
_PARSE_LOCK = threading.Lock()


@lru_cache(maxsize=None)
def _parser() -> tuple[Lark, _Builder]:
    global Token
    from lark import Transformer
    from lark import Token as _Token
    Token = _Token
    builder_cls = type("Builder", tuple(_transformers()) + (_Builder, Transformer), {})
    builder = builder_cls()
    return parse_table.load(transformer=builder), builder


def parse_block(source: SourceFile, keyword: str, start: int, end: int,
                fast: bool | None = None) -> ast.Block:
    """Parse ``source.text[start:end]`` as a block of the given keyword.

    Raises :class:`DiagnosticError` with every syntax error of the block
    (:mod:`dslc.syntax.recover`: parse-error recovery, at most 20 errors).
    """
    if fast is None:
        fast = end - start > FAST_PATH_MIN_CHARS
    if keyword == "automaton" and fast:
        from dslc.syntax.fast_automaton import parse_automaton_fast
        block = parse_automaton_fast(source, start, end)
        if block is not None:
            return _with_warnings(block, source, start, end)
    from lark.exceptions import VisitError

    from dslc.syntax import recover
    try:
        with _PARSE_LOCK:
            parser, builder = _parser()
            builder.file = source
            builder.base = start
            block, diags = recover.parse(parser, source, start, end, keyword, START_RULES[keyword])
    except VisitError as exc:  # a builder raised a diagnostic
        if isinstance(exc.orig_exc, DiagnosticError):
            raise exc.orig_exc from None
        raise
    if diags:
        raise DiagnosticError(*diags)
    return _with_warnings(block, source, start, end)


_FOUR_DECIMALS = re.compile(r"\.[0-9]{4}")    # what every W002 literal contains (as lookalike's)


def _with_warnings(block: ast.Block, source: SourceFile, start: int, end: int) -> ast.Block:
    """Attach the warnings of the text (W002, decimals cut short) to the block
    as ``syntax_warnings``; the pipeline reports them with its result."""
    if _FOUR_DECIMALS.search(source.text, start, end) is None:   # most blocks: no import of lookalike
        return block
    from dslc.syntax.lookalike import decimal_warnings
    warnings = decimal_warnings(source, start, end)
    if warnings:
        block.syntax_warnings = warnings
    return block


