"""Parsing a block with error recovery: every independent syntax error.

The LALR parser of :mod:`dslc.syntax.parser` is driven token by token here
(Lark's interactive parser).  At a syntax error the driver first goes back
to the state right after the last good token (LALR(1) tables may reduce on a
token before finding that it cannot be read; a snapshot of the stacks every
64 tokens and the tokens read since give that state back), then

1. explains the error in words and repairs it as the user meant it, when it
   recognises the mistake: a misspelled keyword (E020, "did you mean
   `output`?", also `summ` read as `sum` + `m`), a construct of another
   language (E022: `while`, `for`, `return`, `print`, `elif`, `let`, `and`,
   `=` for `:=`, `==`, `=>`), a condition in parentheses, a `{` too many or
   one that stands alone;
2. or else inserts, deletes or replaces one token — the repair after which
   the parser reads furthest in the next eight tokens (at least three) — and
   says "expected X, found Y" (E001), X being what the parser really accepts
   there, in words; a line that starts the next construct gets a missing
   `}` (or `{`) inserted before it;
3. or else skips ahead (panic mode) to a token that fits, dropping the
   unfinished statement: it pops whole statements only, never an open `{`,
   and never skips an unbalanced `{` or `}`, so the recovery does not close
   a construct the user did not close.

After a repair of kind 2 or 3 the driver stays quiet until three tokens have
been read, so that one mistake gives one error, not a cascade.  Characters
no token starts with are handled in the same way: look-alikes (E021: `ϵ`,
`−`, `≔`, curly quotes, fullwidth forms) are read as the intended token,
decimals that go on (`0.333…`) are E008, anything else is E003.  Unclosed
`/*` and `{` are reported where they open (E003, E002; which `{` lacks its
`}` is judged by indentation).

A block reports at most :data:`MAX_ERRORS` errors.  After the first error
the parser builds no syntax tree (the block gets no verdict), so the repairs
cannot produce misleading semantic errors.
"""

from __future__ import annotations

import os
import re
from copy import copy
from typing import Any

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.parsers.lalr_analysis import Shift
from lark.parsers.lalr_parser_state import ParserState

from dslc import limits
from dslc.diagnostics.model import Diagnostic, error
from dslc.diagnostics.suggest import closest
from dslc.source import SourceFile, Span
from dslc.syntax import lookalike

MAX_ERRORS = 20                  # errors reported per block
QUIET_TOKENS = 3                 # tokens to read after a repair before reporting again
LOOKAHEAD = 3                    # tokens a repair must let the parser read
REPAIR_WINDOW = 8                # tokens over which one-token repairs are compared
MAX_TOKENS_AFTER_ERROR = 50_000  # tokens read after the first error (huge generated blocks)
MAX_SKIP = 400                   # tokens panic mode looks at
MAX_TRIALS = 3000                # trial parses per panic
SNAPSHOT_EVERY = 64              # tokens between two copies of the parser's stacks

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_OPENERS = {"LBRACE": "RBRACE", "LPAR": "RPAR", "LSQB": "RSQB"}

# Tokens to try inserting or substituting, most plausible first.  No opening
# `(`, `[` or `{` (a repair must not leave something to close), except that a
# `(` may be inserted when its `)` follows within the window.
_REPAIR_ORDER = ["ARROW", "ASSIGN", "COMMA", "RPAR", "RSQB", "COLON", "EQUAL", "INPUT", "NOINPUT",
                 "NAME", "NUMBER", "GE", "LT"]
_SYNTH_VALUES = {"NAME": "_", "NUMBER": "0", "STRING": '""', "ARROW": "->", "ASSIGN": ":=",
                 "GE": ">=", "LE": "<=", "LT": "<", "GT": ">", "PLUS": "+", "MINUS": "-", "STAR": "*",
                 "SLASH": "/", "LPAR": "(", "RPAR": ")", "LBRACE": "{", "RBRACE": "}", "COMMA": ",",
                 "SEMICOLON": ";", "COLON": ":", "EQUAL": "=", "LSQB": "[", "RSQB": "]", "EPS": "ε",
                 "TOP": "⊤", "BOT": "⊥", "MK_EQEQ": "==", "MK_NE": "!=", "INSAMPLE_PRIME": "insample'",
                 "LAP_PRIME": "Lap'"}

# Words of other languages, and what `.dp` has instead.
_STOP_WORDS = {"return", "print", "println", "printf", "emit", "yield", "release", "publish", "echo"}
_DECLARE_WORDS = {"let", "var", "val", "const", "def", "int", "float", "double", "real", "auto", "mut"}
_ELIF_WORDS = {"elif", "elsif", "elseif"}
_LOGIC_WORDS = {"and", "or", "not"}
_THEN_WORDS = {"then", "begin"}                      # before a body: `.dp` has `{`
_END_WORDS = {"end", "endif", "fi", "done", "od", "endwhile", "endfor", "endloop"}


# ------------------------------------------------------------------ entry point
def parse(parser, source: SourceFile, base: int, end: int, keyword: str,
          start_rule: str) -> tuple[Any, list[Diagnostic]]:
    """Parse ``source.text[base:end]`` with the start rule of ``keyword``.

    Returns (the transformed block or None, the diagnostics sorted by
    position); the block is None whenever there is a diagnostic."""
    run = _Run(parser, source, base, end, keyword, start_rule)
    result = run.run()
    diags = sorted(run.diags, key=lambda d: (d.span.start if d.span else 0))
    if diags:
        if run.stopped_note:
            diags[-1].note(run.stopped_note)
        return None, diags
    return result, []


class _Stop(Exception):
    """No further recovery: the diagnostics so far are the answer."""


class _Run:
    def __init__(self, parser, source: SourceFile, base: int, end: int, keyword: str, start_rule: str):
        self.parser = parser
        self.source = source
        self.base = base
        self.end = end
        self.keyword = keyword
        self.start_rule = start_rule
        self.text = source.text[base:end]
        self.diags: list[Diagnostic] = []
        self.quiet = 0
        self.last: Token | None = None     # the last token read from the input
        self.before_last: Token | None = None
        self.recovering = False            # after the first error: no callbacks, no tree
        self.read_after_error = 0
        self.errors_at: dict[int, int] = {}
        self.comment_at: int | None = None  # an unterminated `/*` (the text is cut there)
        self.stopped_note = ""

    # -------------------------------------------------------------- driving
    def run(self):
        comment = _unterminated_comment(self.text)
        if comment is not None:
            self.comment_at = comment
            self._report(error("E003", "unterminated block comment", self._span(comment, comment + 2),
                               "this `/*` is never closed")
                         .note("everything after it, to the end of the file, is inside the comment")
                         .with_help("close the comment with `*/`"), force=True)
            self.text = self.text[:comment]
        ip = self.parser.parse_interactive(self.text, start=self.start_rule)
        self.ps: ParserState = ip.parser_state
        self.lt = ip.lexer_thread
        self.nocb = copy(self.ps.parse_conf)
        self.nocb.callbacks = {}
        self.states = self.ps.parse_conf.states
        self._snapshot()
        while True:
            try:
                return self._drive()
            except UnexpectedToken as exc:
                if not self._recover(self._token_error, exc.token, exc):
                    return None
            except UnexpectedCharacters as exc:
                if not self._recover(self._char_error, exc.pos_in_stream, exc):
                    return None
            except _Stop:
                return None

    def _recover(self, handler, arg, exc: UnexpectedInput) -> bool:
        """Explain and repair one error; False when parsing stops here.  A
        failure of the recovery itself (a bug) stops the block's parse with
        the errors found so far — never with less than this one."""
        before = len(self.diags)
        try:
            handler(arg)
            return True
        except _Stop:
            return False
        except (limits.Cancelled, KeyboardInterrupt, MemoryError, RecursionError):
            raise
        except Exception:  # noqa: BLE001 - the errors found so far are still worth reporting
            if os.environ.get("DSLC_DEBUG"):
                raise
            if len(self.diags) == before:
                pos = getattr(exc, "pos_in_stream", None)
                if pos is None:
                    pos = getattr(getattr(exc, "token", None), "start_pos", 0) or 0
                pos = min(max(pos, 0), len(self.text))
                self.diags.append(error("E001", "syntax error", self._span(pos, min(pos + 1, len(self.text))),
                                        "the parser stopped here")
                                  .with_help("check the text around this point against docs/language.md"))
            return False

    def _drive(self):
        ps = self.ps
        n = 0
        for tok in self.lt.lex(ps):
            if tok.type == "NUMBER" and len(tok) > limits.MAX_NUMBER_DIGITS:
                tok = self._long_number(tok)
            try:
                ps.feed_token(tok)
            except UnexpectedToken:
                self._undo()
                raise
            self.before_last, self.last = self.last, tok
            self.log.append(tok)
            if len(self.log) >= SNAPSHOT_EVERY:
                self._snapshot()
            if self.quiet:
                self.quiet -= 1
            n += 1
            if self.recovering:
                self.read_after_error += 1
                if self.read_after_error > MAX_TOKENS_AFTER_ERROR:
                    line = self.source.line_col(self.base + tok.start_pos)[0]
                    self.stopped_note = (f"dslc stopped looking for syntax errors in this block at line {line}; "
                                         "fix these and check again")
                    raise _Stop
            if not n & 4095:
                limits.checkpoint()
        end_tok = Token("$END", "", len(self.text), end_pos=len(self.text))
        try:
            result = ps.feed_token(end_tok, True)
        except UnexpectedToken:
            self._undo()
            raise
        return None if self.recovering else result

    # -------------------------------------------------------------- undoing a token
    def _snapshot(self) -> None:
        """Remember the parser's stacks (every :data:`SNAPSHOT_EVERY` tokens and
        after every repair), and log the tokens read since."""
        self.snap = (list(self.ps.state_stack), list(self.ps.value_stack))
        self.log = []

    def _undo(self) -> None:
        """Back to the state right after the last token read.  LALR(1) tables
        may reduce on a token before finding that it cannot be read; the
        repairs need the state before those reductions, which is rebuilt
        from the last snapshot and the tokens read since."""
        self._start_recovering()
        states, values = self.snap
        self.ps.state_stack[:] = states
        self.ps.value_stack[:] = values
        for t in self.log:
            self.ps.feed_token(t)

    # -------------------------------------------------------------- reporting
    def _span(self, start: int, end: int) -> Span:
        return self.source.span(self.base + start, self.base + end)

    def _tspan(self, tok: Token) -> Span:
        return self._span(tok.start_pos, tok.end_pos)

    def _report(self, diag: Diagnostic, force: bool = False) -> None:
        """Record a diagnostic (unless quiet after a repair; ``force``: always)."""
        if not force and self.quiet:
            return
        span = diag.span
        for d in self.diags:
            if d.span is not None and span is not None and d.span.start == span.start and d.code == diag.code:
                return
        self.diags.append(diag)
        if len(self.diags) >= MAX_ERRORS:
            self.stopped_note = (f"dslc stops after {MAX_ERRORS} syntax errors in one block; "
                                 "fix these and check again")
            raise _Stop

    def _start_recovering(self) -> None:
        if not self.recovering:
            self.recovering = True
            self.ps.parse_conf = self.nocb

    # -------------------------------------------------------------- parser states
    def _trial_state(self, cut: int) -> ParserState:
        stack = self.ps.state_stack[:cut]
        return ParserState(self.nocb, None, stack, [None] * (len(stack) - 1))

    def _try(self, st: ParserState, t: Token) -> bool:
        """Feed one token to a trial state; False (and the state untouched)
        when it cannot be read.  A keyword that does not fit is read as a
        name where a name fits, as the contextual lexer would (the tokens
        ahead are read without context: `T` is a keyword of `chain`)."""
        if t.type == "$END":
            if not self._will_read("$END", st.state_stack):
                return False
            st.feed_token(t, True)
            return True
        if not self._will_read(t.type, st.state_stack):
            if t.type == "NAME" or not _WORD.match(str(t)) or not self._will_read("NAME", st.state_stack):
                return False
            t = Token("NAME", str(t), t.start_pos, end_pos=t.end_pos)
        st.feed_token(t)
        return True

    def _fits(self, cut: int, feed: list[Token], toks: list[Token], need: int = LOOKAHEAD) -> bool:
        """Can the parser, cut to ``cut`` states, read ``feed`` and then the
        first ``need`` tokens of ``toks``?"""
        st = self._trial_state(cut)
        try:
            for t in feed:
                if not self._try(st, t):
                    return False
            for t in toks[:need]:
                if not self._try(st, t):
                    return False
                if t.type == "$END":
                    return True
        except (UnexpectedInput, AssertionError, IndexError, KeyError):
            return False
        return True

    def _will_read(self, ttype: str, stack: list | None = None) -> bool:
        """Would the parser shift a token of this type (or accept the end),
        after the reductions it calls for?  Looks at the stack without
        changing it: LALR(1) tables may reduce on a token before finding out
        that it cannot be read, which would leave the repairs a state that
        is further along than the text."""
        states = self.states
        stack = self.ps.state_stack if stack is None else stack
        depth = len(stack)
        extra: list = []
        end_state = self.ps.parse_conf.end_state
        while True:
            top = extra[-1] if extra else stack[depth - 1]
            act = states[top].get(ttype)
            if act is None:
                return False
            action, arg = act
            if action is Shift:
                return True
            size = len(arg.expansion)
            if size:
                if size <= len(extra):
                    del extra[len(extra) - size:]
                else:
                    depth -= size - len(extra)
                    extra.clear()
            top = extra[-1] if extra else stack[depth - 1]
            extra.append(states[top][arg.origin.name][1])
            if ttype == "$END" and extra[-1] == end_state:
                return True

    def _reach(self, cut: int, feed: list[Token], toks: list[Token]) -> int:
        """How many tokens of ``toks`` the parser (cut to ``cut`` states)
        reads after ``feed`` (-1: not even ``feed``; ``len(toks)`` when it
        reads them all or accepts the end)."""
        st = self._trial_state(cut)
        try:
            for t in feed:
                if not self._try(st, t):
                    return -1
            for n, t in enumerate(toks):
                if not self._try(st, t):
                    return n
                if t.type == "$END":
                    return len(toks)
        except (UnexpectedInput, AssertionError, IndexError, KeyError):
            return -1
        return len(toks)

    def _accepts(self, cut: int | None = None) -> set[str]:
        """The terminals the parser (cut to ``cut`` states) can really read next."""
        stack = self.ps.state_stack if cut is None else self.ps.state_stack[:cut]
        return {t for t in self.states[stack[-1]]
                if (t == "$END" or t.isupper()) and self._will_read(t, stack)}

    def _keywords(self, accepted: set[str]) -> dict[str, str]:
        """word -> terminal, for the keywords among ``accepted``."""
        words = _keyword_words(self.parser)
        out = {}
        for t in sorted(accepted):
            for w in words.get(t, ()):
                out.setdefault(w, t)
        return out

    def _synth(self, type_: str, at: Token, value: str | None = None) -> Token:
        if value is None:
            value = _SYNTH_VALUES.get(type_) or next(iter(_keyword_words(self.parser).get(type_, ())), type_.lower())
        return Token(type_, value, at.start_pos, end_pos=at.end_pos)

    def _covers(self, value, tok: Token) -> bool:
        """Does a value of the parser's stack consist of exactly the token ``tok``?"""
        while True:
            if isinstance(value, Token):
                return value.start_pos == tok.start_pos and value.end_pos == tok.end_pos
            if isinstance(value, (list, tuple)):
                if len(value) != 1:
                    return False
                value = value[0]
                continue
            span = getattr(value, "span", None)     # a node built by the transformer
            return isinstance(span, Span) and (span.start - self.base, span.end - self.base) == \
                (tok.start_pos, tok.end_pos)

    # -------------------------------------------------------------- the lexer
    def _seek(self, pos: int) -> None:
        """Continue reading the input at ``pos`` (0-based in the block's text)."""
        lc = self.lt.state.line_ctr
        lc.char_pos = pos
        lc.line = self.text.count("\n", 0, pos) + 1
        lc.line_start_pos = self.text.rfind("\n", 0, pos) + 1
        lc.column = pos - lc.line_start_pos + 1

    def _lex_from(self, pos: int, limit: int) -> list[Token]:
        """Up to ``limit`` tokens from ``pos``, read without context (every
        keyword is a keyword), ending with `$END` at the end of the text; the
        list stops early at a character no token starts with."""
        state = copy(self.lt.state)
        lc = state.line_ctr
        lc.char_pos = pos
        lc.line_start_pos = 0
        lc.line = 1
        lc.column = pos + 1
        root = self.lt.lexer.root_lexer
        out: list[Token] = []
        try:
            while len(out) < limit:
                out.append(root.next_token(state, None))
        except EOFError:
            out.append(Token("$END", "", len(self.text), end_pos=len(self.text)))
        except UnexpectedCharacters:
            pass
        return out

    # -------------------------------------------------------------- token errors
    def _token_error(self, tok: Token) -> None:
        if tok.type == "$END":
            self._report_end()
            raise _Stop
        first = not self.diags
        accepted = self._accepts()
        self._start_recovering()
        # the contextual lexer may have cut a longer token short (`->` read as `-` where
        # only `-` was expected); the repairs and the message need the token as written
        # (or read a keyword as a name where a name was also possible: `true`)
        root = self._lex_from(tok.start_pos, 1)
        if root and root[0].type != "$END" and (root[0].end_pos > tok.end_pos or
                                                (tok.type == "NAME" and root[0].type != "NAME"
                                                 and root[0].end_pos == tok.end_pos)):
            tok = root[0]
        seen = self.errors_at.get(tok.start_pos, 0)
        self.errors_at[tok.start_pos] = seen + 1
        if seen >= 4:
            raise _Stop
        ahead = [tok] + self._lex_from(tok.end_pos, LOOKAHEAD + 1)
        repair = None
        if seen < 2:
            repair = self._explained_repair(tok, ahead, accepted)
            if repair is not None and len(repair) == 4:
                repair = (*repair, 0)       # the mistake is understood: the next one is reported
        if repair is None:
            repair = self._generic_repair(tok, ahead, accepted, allow_insert=seen < 2)
            if repair is not None:
                repair = (*repair, QUIET_TOKENS)
        if repair is None:
            diag = self._generic_diag(tok, accepted)
            self._report(diag, force=first)
            self.quiet = QUIET_TOKENS
            self._panic(tok)
            return
        cut, feed, resume, diag, quiet = repair
        if diag is not None:
            self._report(diag, force=first)
        self.quiet = max(self.quiet, quiet)
        self._apply(cut, feed, resume)

    def _apply(self, cut: int, feed: list[Token], resume: int) -> None:
        ps = self.ps
        del ps.state_stack[cut:]
        del ps.value_stack[cut - 1:]
        for t in feed:
            ps.feed_token(t)
        self._snapshot()
        self._seek(resume)

    def _prev_word(self, tok: Token) -> tuple[Token, int] | None:
        """The word read just before ``tok`` and the parser state before it,
        when the parser has not yet combined it with anything before."""
        prev = self.last
        if prev is None or prev.type != "NAME" or prev.end_pos > tok.start_pos:
            return None
        if not self.ps.value_stack or not self._covers(self.ps.value_stack[-1], prev):
            return None
        return prev, len(self.ps.state_stack) - 1

    def _explained_repair(self, tok: Token, ahead: list[Token], accepted: set[str]):
        """A repair that explains the mistake (E020, E022, specific E001), or None."""
        text = str(tok)
        cut = len(self.ps.state_stack)
        rest = ahead[1:]
        word = _WORD.match(text) is not None

        # -- a keyword cut out of a longer word (`summ` read as `sum` + `m`; the
        #    lexer does not require a keyword to end a word)
        prev = self.last
        if word and prev is not None and prev.type != "NAME" and prev.end_pos == tok.start_pos \
                and _WORD.match(str(prev)) and self._fits(cut, [], rest, need=1):
            whole = str(prev) + text
            span = self._span(prev.start_pos, tok.end_pos)
            return cut, [], tok.end_pos, (
                error("E020", f"`{whole}` is not a keyword; did you mean `{prev}`?", span,
                      f"did you mean `{prev}`?")
                .with_help(f"write `{prev}`"))

        # -- a keyword run into the next word (`noinputLap(ε, 0)`, `outputtop`): a
        #    keyword ends where a word ends, so this is one unknown word
        if word and tok.type == "NAME":
            glued = self._glued_keyword(tok, cut, accepted)
            if glued is not None:
                return glued

        # -- this token is a word from another language, or a misspelled keyword
        if word and tok.type == "NAME":
            foreign = self._foreign_word(tok, cut, ahead, after=False)
            if foreign is not None:
                return foreign
            kws = self._keywords(accepted)
            best = closest(text, kws, ratio=None)
            if best is not None and self._fits(cut, [self._synth(kws[best], tok, best)], rest, need=1):
                return cut, [self._synth(kws[best], tok, best)], tok.end_pos, self._typo_diag(tok, best)

        # -- the word before this token was one (it was read as a name)
        prev = self._prev_word(tok)
        if prev is not None:
            ptok, pcut = prev
            glued = self.before_last
            if glued is not None and glued.type != "NAME" and glued.end_pos == ptok.start_pos \
                    and _WORD.match(str(glued)) and self._fits(pcut, [], ahead, need=1):
                # `outputs ⊤` read as `output s` + `⊤`
                whole = str(glued) + str(ptok)
                return pcut, [], tok.start_pos, (
                    error("E020", f"`{whole}` is not a keyword; did you mean `{glued}`?",
                          self._span(glued.start_pos, ptok.end_pos), f"did you mean `{glued}`?")
                    .with_help(f"write `{glued}`"))
            foreign = self._foreign_word(ptok, pcut, ahead, after=True)
            if foreign is not None:
                return foreign
            kws = self._keywords(self._accepts(pcut))
            best = closest(str(ptok), kws, ratio=None)
            if best is not None and self._fits(pcut, [self._synth(kws[best], ptok, best)], ahead, need=1):
                return (pcut, [self._synth(kws[best], ptok, best)], tok.start_pos,
                        self._typo_diag(ptok, best))

        # -- a `{` too many (the block has more `{` than `}`): drop it
        if tok.type == "LBRACE" and self._brace_surplus() > 0 and self._fits(cut, [], rest, need=1):
            return cut, [], tok.end_pos, (
                error("E001", "unexpected `{`", self._tspan(tok), "this `{` opens nothing")
                .note("the block has more `{` than `}`")
                .with_help("remove this `{`" + (", or write `loop`, `if COND` or `else` before it"
                                                if self.keyword == "mechanism" else "")))

        # -- a `{ ... }` where a statement starts: it belongs to `loop`, `if` or `else`
        if tok.type == "LBRACE" and self.keyword == "mechanism" and "LOOP" in accepted:
            feed = [Token("LOOP", "loop", tok.start_pos, end_pos=tok.start_pos)]
            if self._fits(cut, feed, ahead, need=1):
                return cut, feed, tok.start_pos, (
                    error("E001", "a `{ ... }` block cannot stand alone", self._tspan(tok),
                          "expected a statement")
                    .with_help("a block belongs to `loop { ... }`, `if COND { ... }` or `else { ... }`"))

        # -- `if COND:` / `else:` / `loop:` as in Python
        colon = (error("E022", "`.dp` writes bodies in braces, not after `:`", self._tspan(tok), "write `{` here")
                 .note("indentation means nothing to `.dp`; the statements after this line are read as "
                       "statements after it")
                 .with_help("`if COND { ... } else { ... }`, `loop { ... }`"))
        if text == ":" and self.keyword == "mechanism" and self.last is not None \
                and str(self.last) == "else" and self._prev_word(tok) is not None:
            pcut = self._prev_word(tok)[1]
            if self._fits(pcut, [], rest, need=1):
                return pcut, [], tok.end_pos, colon
        if text == ":" and "LBRACE" in accepted and self.keyword == "mechanism":
            feed = [self._synth("LBRACE", tok), self._synth("RBRACE", tok)]
            if self._fits(cut, feed, rest, need=1):
                return cut, feed, tok.end_pos, colon

        # -- `=` for `:=`, `==` for a comparison, `=>` for `->`
        cmp_ok = bool(accepted & {"GE", "LT", "GT", "LE"})
        if text in ("=", "==", "===") and "ASSIGN" in accepted:
            assign = self._synth("ASSIGN", tok)
            if self._fits(cut, [assign], rest, need=1):
                return cut, [assign], tok.end_pos, self._assign_diag(tok)
        if text in ("=", "==", "===", "!=", "≠", "<>") and cmp_ok:
            ge = self._synth("GE", tok)
            if self._fits(cut, [ge], rest, need=1):
                return cut, [ge], tok.end_pos, self._equality_diag(tok)
        if text == "=" and "ARROW" in accepted and rest and str(rest[0]) == ">" \
                and rest[0].start_pos == tok.end_pos:
            arrow = Token("ARROW", "->", tok.start_pos, end_pos=rest[0].end_pos)
            if self._fits(cut, [arrow], rest[1:], need=1):
                span = self._span(tok.start_pos, rest[0].end_pos)
                return cut, [arrow], rest[0].end_pos, (
                    error("E022", "`=>` is not an arrow of `.dp`", span, "write `->` here")
                    .with_help("write `->` (or `→`): a transition reads `GUARD -> TARGET`"))

        # -- a comparison inside the parentheses of a condition: `if (s >= x) {`
        if tok.type in ("GE", "LT", "GT", "LE", "MK_EQEQ", "MK_NE") and "RPAR" in accepted:
            paren = self._condition_paren()
            if paren is not None:
                lpar, pcut = paren
                inner = self._lex_from(lpar.end_pos, MAX_SKIP)
                if self._fits(pcut, [], inner, need=1):
                    diag = (error("E001", "a condition is not written in parentheses", self._tspan(lpar),
                                  "this `(` holds the whole condition")
                            .with_help("write the comparison bare: `if s >= x { ... }`; parentheses group "
                                       "arithmetic (`(q + 1)`) inside one side"))
                    # stay quiet up to the `)` that closes it (it is dropped silently)
                    depth, quiet = 0, 0
                    for quiet, t in enumerate(inner, 1):
                        if t.type == "LPAR":
                            depth += 1
                        elif t.type == "RPAR":
                            if depth == 0:
                                break
                            depth -= 1
                    return pcut, [], lpar.end_pos, diag, quiet + 1
        return None

    def _brace_surplus(self) -> int:
        """How many more `{` than `}` the block has (outside comments and strings)."""
        if not hasattr(self, "_surplus"):
            opens = closes = 0
            for m in _BRACE_SCAN.finditer(self.text):
                b = m.group("b")
                if b == "{":
                    opens += 1
                elif b == "}":
                    closes += 1
            self._surplus = opens - closes
        return self._surplus

    def _condition_paren(self):
        """An unclosed `(` right after `if`, as (token, parser cut before it)."""
        vs = self.ps.value_stack
        for i in range(len(vs) - 2, -1, -1):
            v = vs[i]
            if isinstance(v, Token) and v.type == "IF":
                after = vs[i + 1]
                if isinstance(after, Token) and after.type == "LPAR":
                    return after, i + 2
                return None
        return None

    def _foreign_word(self, wtok: Token, cut: int, ahead: list[Token], after: bool):
        """`while`, `for`, `return`, `print`, `elif`, `let`, `and`, a misplaced
        `else`: what `.dp` has instead, with a repair.  ``after``: the word
        was read already (``ahead`` starts after it); else it is ``ahead[0]``."""
        word = str(wtok)
        low = word.lower()
        rest = ahead if after else ahead[1:]
        resume = ahead[0].start_pos if after else wtok.end_pos
        span = self._tspan(wtok)
        if self.keyword != "mechanism":
            return None
        if low == "while":
            feed = [self._synth("IF", wtok, "if")]
            if self._fits(cut, feed, rest, need=1):
                return cut, feed, resume, (
                    error("E022", "`.dp` has no `while` loop", span, "not a keyword of `.dp`")
                    .note("`loop { ... }` repeats once per input, as long as input lasts")
                    .with_help("write `loop { if COND { ... } else { break } }`, or stop inside the "
                               "loop with `break` or `halt`"))
        if low in ("for", "foreach", "repeat", "do"):
            toks = self._lex_from(resume, MAX_SKIP)
            depth = 0
            for t in toks:
                if t.type == "LBRACE" and depth == 0:
                    feed = [self._synth("LOOP", wtok, "loop")]
                    if self._fits(cut, feed, self._lex_from(t.start_pos, LOOKAHEAD + 1), need=1):
                        return cut, feed, t.start_pos, (
                            error("E022", f"`.dp` has no `{word}` loop", span, "not a keyword of `.dp`")
                            .note("`loop { ... }` repeats once per input, as long as input lasts; "
                                  "there are no counters")
                            .with_help("write `loop { ... }` and leave it with `break` (or stop with `halt`)"))
                    break
                if t.type in ("RBRACE", "$END"):
                    break
        if low in _STOP_WORDS:
            for kw, what in (("OUTPUT", "output"), ("HALT", "halt")):
                feed = [self._synth(kw, wtok, what)]
                if self._fits(cut, feed, rest, need=1):
                    diag = (error("E022", f"`.dp` has no `{word}`", span, "not a keyword of `.dp`")
                            .with_help("a mechanism releases a value with `output VALUE`, and stops with "
                                       "`halt`" if low != "return" else
                                       "a mechanism releases its results with `output VALUE` (one per step) "
                                       "and stops with `halt`"))
                    return cut, feed, resume, diag
        if low in _ELIF_WORDS:
            feed = [self._synth("IF", wtok, "if")]
            if self._fits(cut, feed, rest, need=1):
                return cut, feed, resume, (
                    error("E022", f"`{word}` is written `else if` in `.dp`", span, "write `else if`")
                    .with_help("`if COND { ... } else if COND { ... } else { ... }`"))
        if low in _DECLARE_WORDS and after and rest and rest[0].type == "NAME":
            if self._fits(cut, [], rest, need=1):
                return cut, [], resume, (
                    error("E022", f"`.dp` declares no variables with `{word}`", span, "remove this word")
                    .with_help("a variable comes into being when it is assigned: `x := Lap(ε, 0)`"))
        if low == "else" and after:
            feed = [self._synth("LOOP", wtok, "loop")]
            if self._fits(cut, feed, rest, need=1):
                return cut, feed, resume, (
                    error("E022", "`else` without an `if` just before it", span, "no `if` ends right before")
                    .with_help("`else` follows the `}` of its `if` directly: `if COND { ... } else { ... }` "
                               "(no `;` or statement in between)"))
        if low in _LOGIC_WORDS and not after:
            return self._logic_repair(wtok, cut)
        if low in _THEN_WORDS | _END_WORDS and self._fits(cut, [], rest, need=1):
            if low in _THEN_WORDS:
                diag = (error("E022", f"`.dp` has no `{word}`", span, "remove this word")
                        .with_help("the body follows the condition in braces: `if COND { ... }`"))
            else:
                diag = (error("E022", f"`.dp` has no `{word}`", span, "remove this word")
                        .with_help("a `}` ends a block: `if COND { ... }`, `loop { ... }`"))
            return cut, [], resume, diag
        return None

    def _logic_repair(self, wtok: Token, cut: int):
        """`if a >= x and ...`: explain, and skip to the `{` of the `if`."""
        toks = self._lex_from(wtok.start_pos, MAX_SKIP)
        for t in toks:
            if t.type == "LBRACE":
                if self._fits(cut, [], self._lex_from(t.start_pos, LOOKAHEAD + 1), need=1):
                    return cut, [], t.start_pos, self._logic_diag(self._tspan(wtok), str(wtok))
                return None
            if t.type in ("RBRACE", "$END"):
                return None
        return None

    @staticmethod
    def _logic_diag(span: Span, what: str) -> Diagnostic:
        return (error("E022", f"`.dp` conditions have no `{what}`", span,
                      "a condition is one comparison")
                .note("a step compares its fresh draw with the stored variable once")
                .with_help("nest the tests: `if A { if B { ... } }` — each comparison in its own step, "
                           "with a fresh draw"))

    def _glued_keyword(self, tok: Token, cut: int, accepted: set[str]):
        """`noinputLap`: a keyword that fits here followed by letters that read
        on (the longest such keyword); the repair reads them as two words."""
        text = str(tok)
        for word, terminal in sorted(self._keywords(accepted).items(), key=lambda kv: -len(kv[0])):
            if len(word) >= len(text) or not text.startswith(word):
                continue
            split = tok.start_pos + len(word)
            feed = [self._synth(terminal, Token(terminal, word, tok.start_pos, end_pos=split), word)]
            if self._fits(cut, feed, self._lex_from(split, LOOKAHEAD + 1), need=2):
                rest = text[len(word):]
                return cut, feed, split, (
                    error("E020", f"`{text}` is not a keyword: `{word}` runs into `{rest}`",
                          self._tspan(tok), f"write a space after `{word}`")
                    .note("a keyword ends where a word ends; letters, digits or `_` after it make one word")
                    .with_help(f"write `{word} {rest}`"))
        return None

    # -------------------------------------------------------------- messages
    def _typo_diag(self, tok: Token, best: str) -> Diagnostic:
        word = str(tok)
        if tok.start_pos == 0:
            msg = f"`{word}` is not a kind of block; did you mean `{best}`?"
        else:
            msg = f"`{word}` is not a keyword; did you mean `{best}`?"
        return (error("E020", msg, self._tspan(tok), f"did you mean `{best}`?")
                .with_help(f"write `{best}`"))

    def _assign_diag(self, tok: Token) -> Diagnostic:
        return (error("E022", f"assignment is written `:=`, not `{tok}`", self._tspan(tok), "write `:=` here")
                .with_help("`x := Lap(ε, 0)`; `=` gives parameters their values (`mechanism m(T = 0)`)"))

    def _equality_diag(self, tok: Token) -> Diagnostic:
        text = str(tok)
        if self.keyword == "automaton":
            help_ = "guards are `insample >= x` or `insample < x` (or `true`)"
        else:
            help_ = "compare the draw with `>=`, `<`, `>` or `<=`: `if Lap(ε/4, q) >= x { ... }`"
        if text == "=":
            msg = "`=` does not compare in `.dp`"
        else:
            msg = f"`{text}` is not a comparison of `.dp`"
        return (error("E022", msg, self._tspan(tok), "not a comparison")
                .note("a draw from a continuous distribution equals any given value with probability 0, "
                      "so `.dp` compares only with `>=`, `<`, `>` and `<=`")
                .with_help(help_))

    def _generic_diag(self, tok: Token, accepted: set[str]) -> Diagnostic:
        from dslc.syntax.parser import describe_expected, describe_token
        expected = describe_expected(accepted, self.keyword)
        diag = error("E001", f"expected {expected}, found {describe_token(tok)}", self._tspan(tok),
                     f"expected {expected}")
        hint = _hint(tok, accepted) if self.keyword in ("automaton", "mechanism") else None
        if hint:
            diag.with_help(hint)
        elif "NAME" in accepted and tok.type != "NAME" and _WORD.match(str(tok)):
            diag.note(f"`{tok}` is a keyword of `.dp`; it cannot be a name here")
            diag.with_help(f"use another name than `{tok}`")
        self._statement_hint(diag, tok)
        return diag

    def _statement_hint(self, diag: Diagnostic, tok: Token) -> None:
        """Newlines do not end statements.  When the unfinished statement
        began in the middle of a line (`a -> a: 1/2 b: 1/2` reads `b` as a
        new row), or on an earlier line, point at where it began."""
        start = self._statement_start()
        if start is None or start.start_pos >= tok.start_pos:
            return
        line_start = self.text.rfind("\n", 0, start.start_pos) + 1
        before = self.text[line_start:start.start_pos].strip()
        if before and not before.endswith((";", "{", "}")):
            if self.keyword in ("hmm", "mdp", "chain"):
                diag.secondary(self._tspan(start), f"a new statement starts at `{start}`")
                diag.with_help(f"`{start}` is read as the start of a new statement (newlines do not end "
                               "statements); if it belongs to what comes before it, a `,` or `:` is "
                               "missing there")
            return
        if self.keyword == "chain":
            return                              # settings span lines (matrices)
        start_line = self.source.line_col(self.base + start.start_pos)[0]
        tok_line = self.source.line_col(self.base + tok.start_pos)[0]
        if tok_line <= start_line:
            return
        what = {"STATE": "state", "TRUE": "transition", "INSAMPLE": "transition"}.get(start.type, "statement")
        tok_line_start = self.text.rfind("\n", 0, tok.start_pos) + 1
        first = tok_line_start + len(self.text[tok_line_start:tok.start_pos]) - \
            len(self.text[tok_line_start:tok.start_pos].lstrip())
        if first < tok.start_pos:
            # the beginning of this line was read as the end of that statement
            word = re.match(r"\S+", self.text[first:tok.start_pos])
            stop = first + (len(word.group()) if word else 1)
            diag.secondary(self._span(first, stop), f"read as part of the {what} of line {start_line}")
        else:
            diag.secondary(self._tspan(start), f"this {what} is not finished")
        diag.with_help(f"newlines do not end a {what}: is something missing at the end of line "
                       f"{tok_line - 1}?")

    def _statement_start(self) -> Token | None:
        """The first token of the statement the parser is in the middle of."""
        stack = self.ps.state_stack
        states = self.states
        for cut in range(len(stack) - 1, 0, -1):
            # a list of statements reads `;` directly (no reduction first)
            act = states[stack[cut - 1]].get("SEMICOLON")
            if act is not None and act[0] is Shift:
                return _first_token(self.ps.value_stack[cut - 1:])
        return None

    def _generic_repair(self, tok: Token, ahead: list[Token], accepted: set[str], allow_insert: bool):
        """Insert, delete or replace one token (E001), or None: the repair
        after which the parser reads furthest (up to :data:`REPAIR_WINDOW`
        tokens; at least :data:`LOOKAHEAD`), the first of equals."""
        cut = len(self.ps.state_stack)
        window = [tok] + self._lex_from(tok.end_pos, REPAIR_WINDOW)
        rest = window[1:]
        order = [t for t in _REPAIR_ORDER if t in accepted]
        if allow_insert and self._starts_line(tok):
            # a line that starts the next construct: a `}` or `{` is missing before it
            if "RBRACE" in accepted:
                feed = [self._synth("RBRACE", tok)]
                if self._fits(cut, feed, ahead):
                    return cut, feed, tok.start_pos, self._missing_brace_diag(tok)
            if "LBRACE" in accepted:
                feed = [self._synth("LBRACE", tok)]
                if self._fits(cut, feed, ahead):
                    return cut, feed, tok.start_pos, self._generic_diag(tok, {"LBRACE"})
        candidates = []
        if allow_insert:
            # a missing `(` may be inserted (its `)` must then be read in the window), not substituted
            inserts = order + (["LPAR"] if "LPAR" in accepted else [])
            candidates += [([self._synth(t, tok)], tok.start_pos, window) for t in inserts]
        candidates.append(([], tok.end_pos, rest))
        candidates += [([self._synth(t, tok)], tok.end_pos, rest) for t in order]
        best, best_n = None, -1
        for feed, resume, toks in candidates:
            n = self._reach(cut, feed, toks)
            need = min(LOOKAHEAD, len(toks))
            if n >= need and n > best_n:
                best, best_n = (feed, resume), n
                if n == len(toks):
                    break
        if best is None:
            return None
        feed, resume = best
        return cut, feed, resume, self._generic_diag(tok, accepted)

    def _starts_line(self, tok: Token) -> bool:
        line_start = self.text.rfind("\n", 0, tok.start_pos) + 1
        return not self.text[line_start:tok.start_pos].strip()

    def _missing_brace_diag(self, tok: Token) -> Diagnostic:
        diag = error("E001", f"expected `}}` before {_describe(tok)}", self._tspan(tok),
                     "a `}` is missing before this line")
        opener = self._innermost_open("LBRACE")
        if opener is not None:
            line = self.source.line_col(self.base + opener.start_pos)[0]
            diag.secondary(self._tspan(opener), "this `{` is not closed")
            diag.with_help(f"close the `{{` of line {line} with `}}` before this line")
        return diag

    def _innermost_open(self, type_: str) -> Token | None:
        for v in reversed(self.ps.value_stack):
            if isinstance(v, Token) and v.type == type_:
                return v
        return None

    # -------------------------------------------------------------- panic mode
    def _panic(self, tok: Token) -> None:
        """Skip to a token that fits, popping unfinished constructs; never skip
        an unbalanced brace.  Stops the block when nothing fits."""
        toks = self._lex_from(tok.start_pos, MAX_SKIP)
        stack_len = len(self.ps.state_stack)
        # never drop an open `{`: its `}` is still ahead and would close another construct
        vs = self.ps.value_stack
        lowest = next((i + 2 for i in range(len(vs) - 1, -1, -1)
                       if isinstance(vs[i], Token) and vs[i].type == "LBRACE"), 1)
        trials = 0
        depth = 0
        loop_tok = self.keyword == "mechanism"
        known: dict[int, bool] = {}

        def boundary(cut: int) -> bool:
            """Is the parser, cut to ``cut`` states, between two statements
            (transitions, states, settings): can it read a `;` there?"""
            if cut not in known:
                known[cut] = self._will_read("SEMICOLON", self.ps.state_stack[:cut])
            return known[cut]

        for j, t in enumerate(toks):
            if depth == 0:
                window = toks[j:j + LOOKAHEAD + 1]
                top = stack_len if j > 0 else stack_len - 1
                # a line that starts a statement needs less evidence, and what follows it is
                # reported again: a mistake on the next line is a mistake of its own
                fresh = j > 0 and self._starts_line(t)
                for cut in range(top, lowest - 1, -1):
                    if cut != stack_len and not boundary(cut):
                        continue            # pop whole statements only, never into a finished one
                    trials += 1
                    if trials > MAX_TRIALS:
                        raise _Stop
                    if self._fits(cut, [], window, need=2 if fresh else LOOKAHEAD):
                        self._apply(cut, [], t.start_pos)
                        if fresh and boundary(cut):
                            self.quiet = 0
                        return
                    if loop_tok and t.type == "LBRACE":
                        feed = [Token("LOOP", "loop", t.start_pos, end_pos=t.start_pos)]
                        if self._fits(cut, feed, window):
                            self._apply(cut, feed, t.start_pos)
                            return
            if t.type == "LBRACE":
                depth += 1
            elif t.type == "RBRACE":
                depth -= 1
                if depth < 0:
                    break
            elif t.type == "$END":
                break
        if toks and toks[-1].type != "$END" and len(toks) < MAX_SKIP:
            # the tokens stop at a character no token starts with: report it there
            self._seek(toks[-1].end_pos)
            return
        raise _Stop

    # -------------------------------------------------------------- characters
    def _char_error(self, pos: int) -> None:
        text = self.text
        ch = text[pos]
        accepted = self._accepts()
        self._start_recovering()
        if ch == '"':
            eol = text.find("\n", pos)
            eol = len(text) if eol == -1 else eol
            self._report(error("E003", "unterminated string", self._span(pos, pos + 1),
                               "this string is never closed")
                         .with_help('close the string with `"` on the same line'), force=True)
            self.quiet = QUIET_TOKENS
            self._seek(eol)
            return
        if ch == "/" and text.startswith("/*", pos):       # cannot happen: the text is cut there
            raise _Stop
        if self._decimal(pos):
            return
        if ch in lookalike.SMART_QUOTES:
            self._smart_string(pos)
            return
        look = lookalike.lookup(ch)
        if look is not None:
            self._lookalike(pos, look)
            return
        # an unknown character (a run of them is one error)
        stop = pos + 1
        while stop < len(text) and stop - pos < 40 and not text[stop].isspace() and self._bad_at(stop):
            stop += 1
        if ch in "&|":
            diag = self._logic_diag(self._span(pos, stop), text[pos:stop])
        else:
            shown = lookalike.show(ch) if not ch.isascii() else f"`{ch}`"
            what = f"unexpected character {shown}" if stop == pos + 1 else \
                f"unexpected characters `{text[pos:stop]}`"
            diag = error("E003", what, self._span(pos, stop),
                         f"expected {_expected_words(accepted, self.keyword)}" if accepted else "not part of `.dp`")
            diag.with_help("`.dp` spells operators `>=`/`≥`, `<`, `->`/`→`, `:=`; see `dslc explain E003`")
        self._report(diag, force=True)
        self.quiet = QUIET_TOKENS
        self._seek(stop)

    def _bad_at(self, pos: int) -> bool:
        toks = self._lex_from(pos, 1)
        return not toks

    def _decimal(self, pos: int) -> bool:
        """`0.333…` or `0.333...`: a decimal that does not end (E008)."""
        text = self.text
        if text.startswith("…", pos):
            stop = pos + 1
        elif text.startswith("..", pos):
            stop = pos
            while stop < len(text) and text[stop] == ".":
                stop += 1
        else:
            return False
        prev = self.last
        if prev is None or prev.type != "NUMBER" or prev.end_pos != pos:
            if text[pos] == "…":
                return False
            prev = None
        digits = str(prev) if prev is not None else ""
        value = lookalike.repeating_fraction(digits) if digits else None
        start = prev.start_pos if prev is not None else pos
        diag = error("E008", f"`{text[start:stop]}` is not an exact number", self._span(start, stop),
                     "a decimal that goes on")
        diag.note("numbers in `.dp` are exact rationals; a decimal is read exactly as written")
        if value is not None:
            diag.with_help(f"write the fraction `{lookalike.fraction_text(value)}`")
        else:
            diag.with_help("write the number as a fraction such as `1/3`, or as a decimal that ends")
        self._report(diag, force=True)
        self._seek(stop)
        return True

    def _lookalike(self, pos: int, look: lookalike.LookAlike) -> None:
        text = self.text
        ch = look.char
        stop = pos + 1
        intended = look.intended
        terminal = look.terminal
        code = ord(ch)
        what = "fullwidth letters"
        if terminal == "NUMBER":                    # digits of another script: `３`, `٣`
            intended = lookalike.digit_run(text, pos)
            stop = pos + len(intended)
            what = "digits that are not 0-9"
        elif 0xFF01 <= code <= 0xFF5E:
            run = lookalike.fullwidth_run(text, pos)
            stop = pos + len(run)
            intended = run
            terminal = _word_terminal(self.parser, run) if len(run) > 1 else terminal
        shown = lookalike.show(ch) if stop == pos + 1 else f"`{text[pos:stop]}` ({what})"
        if intended == " ":
            diag = error("E021", f"unusual space {lookalike.char_name(ch)}", self._span(pos, stop),
                         "an invisible character")
            diag.with_help("replace it with an ordinary space")
        else:
            also = f" (or {look.also})" if look.also else ""
            diag = error("E021", f"{shown} looks like `{intended}` but is a different character",
                         self._span(pos, stop), f"write `{intended}`{also} here")
            if look.why:
                diag.note(look.why)
            diag.with_help(f"`.dp` reads `{intended}`{also}; replace this character")
        # primes: `insample’` / `Lap’`
        fed = False
        if intended == "'" and self.last is not None and self.last.end_pos == pos \
                and self.last.type in ("INSAMPLE", "LAP"):
            prime = {"INSAMPLE": "INSAMPLE_PRIME", "LAP": "LAP_PRIME"}[self.last.type]
            if self.ps.value_stack and self._covers(self.ps.value_stack[-1], self.last):
                cut = len(self.ps.state_stack) - 1
                tok = Token(prime, str(self.last) + "'", self.last.start_pos, end_pos=stop)
                if self._fits(cut, [tok], self._lex_from(stop, LOOKAHEAD + 1)):
                    self._report(diag, force=True)
                    self._apply(cut, [tok], stop)
                    return
        if terminal is not None:
            tok = Token(terminal, intended, pos, end_pos=stop)
            cut = len(self.ps.state_stack)
            if self._fits(cut, [tok], self._lex_from(stop, LOOKAHEAD + 1)) or \
                    self._fits(cut, [tok], []):
                self._report(diag, force=True)
                self._apply(cut, [tok], stop)
                self.last = tok
                fed = True
        if not fed:
            self._report(diag, force=True)
            self.quiet = QUIET_TOKENS
            self._seek(stop)

    def _smart_string(self, pos: int) -> None:
        text = self.text
        eol = text.find("\n", pos)
        eol = len(text) if eol == -1 else eol
        close = -1
        for i in range(pos + 1, eol):
            if text[i] in lookalike.SMART_QUOTES or text[i] == '"':
                close = i
                break
        stop = close + 1 if close != -1 else pos + 1
        ch = text[pos]
        diag = (error("E021", f"{lookalike.show(ch)} is a typographic quote", self._span(pos, pos + 1),
                      'write `"` here')
                .note("word processors turn `\"` into curly quotes")
                .with_help('`.dp` strings are written between straight quotes: `"done"`'))
        if close != -1:
            inner = text[pos + 1:close]
            tok = Token("STRING", f'"{inner}"', pos, end_pos=stop)
            cut = len(self.ps.state_stack)
            if self._fits(cut, [tok], self._lex_from(stop, LOOKAHEAD + 1)) or self._fits(cut, [tok], []):
                self._report(diag, force=True)
                self._apply(cut, [tok], stop)
                self.last = tok
                return
        self._report(diag, force=True)
        self.quiet = QUIET_TOKENS
        self._seek(stop)

    # -------------------------------------------------------------- numbers
    def _long_number(self, tok: Token) -> Token:
        """E011 for a number literal that is too long; read on as `0`."""
        span = self._tspan(tok)
        self._report(error("E011", f"this number has {len(tok)} digits; at most "
                                   f"{limits.MAX_NUMBER_DIGITS} are read", span, "too many digits")
                     .with_help("write it with fewer digits, e.g. as a fraction"), force=True)
        self._start_recovering()
        return Token.new_borrow_pos("NUMBER", "0", tok)

    # -------------------------------------------------------------- the end
    def _report_end(self) -> None:
        if self.comment_at is not None:
            return                      # the comment swallowed the rest; already explained
        end = len(self.text)
        opens = [v for v in self.ps.value_stack if isinstance(v, Token) and v.type in _OPENERS]
        accepted = self._accepts()
        from dslc.syntax.parser import describe_expected
        expected = describe_expected(accepted, self.keyword)
        braces = [v for v in opens if v.type == "LBRACE"]
        if braces:
            diag = self._unclosed_diag(braces, opens)
        else:
            span = self._span(max(0, end - 1), end) if end > 0 else self._span(0, 0)
            diag = (error("E002", f"unexpected end of block: expected {expected}", span,
                          f"expected {expected} after this")
                    .with_help("every `{` needs a matching `}`"))
            for v in opens:
                diag.secondary(self._tspan(v), f"this `{v}` is not closed")
        self._report(diag, force=True)

    def _unclosed_diag(self, braces: list[Token], opens: list[Token]) -> Diagnostic:
        culprit, evidence = _brace_culprit(self.text, [b.start_pos for b in braces])
        if evidence is None:
            culprit = braces[-1].start_pos          # no evidence: the innermost one
        line = self.source.line_col(self.base + culprit)[0]
        diag = error("E002", f"unclosed `{{`: the block ends before the `{{` of line {line} is closed",
                     self._span(culprit, culprit + 1), "this `{` has no matching `}`")
        if evidence is not None:
            close_pos, open_pos = evidence
            open_line = self.source.line_col(self.base + open_pos)[0]
            diag.secondary(self._span(close_pos, close_pos + 1),
                           f"this `}}` is indented like line {open_line}, so it closes that line's `{{`")
        else:
            for b in braces[:-1]:
                diag.secondary(self._tspan(b), "and this `{` is not closed either")
            for v in opens:
                if v.type != "LBRACE" and v.start_pos > culprit:
                    diag.secondary(self._tspan(v), f"this `{v}` is not closed")
        absolute_end = self.base + len(self.text)
        full = self.source.text
        if absolute_end < len(full) and full[absolute_end:].strip():
            word = re.match(r"[A-Za-z_]\w*", full[absolute_end:])
            width = len(word.group()) if word else 1
            diag.secondary(self.source.span(absolute_end, absolute_end + width),
                           "the next block starts here, so the one above ends before it")
        diag.with_help("add the missing `}`; every `{` needs a matching `}`")
        return diag


# ------------------------------------------------------------------ helpers


_KEYWORD_CACHE: dict[int, dict[str, tuple[str, ...]]] = {}
_KEYWORD_PATTERN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(\?!\[A-Za-z0-9_\]\)\Z")


def _keyword_words(parser) -> dict[str, tuple[str, ...]]:
    """terminal name -> the keyword words it is spelled as (from the grammar)."""
    key = id(parser)
    words = _KEYWORD_CACHE.get(key)
    if words is None:
        words = {}
        for t in parser.terminals:
            pattern = t.pattern
            if getattr(pattern, "type", "") == "str" and _WORD.match(pattern.value):
                words[t.name] = (pattern.value,)
            elif getattr(pattern, "type", "") == "re":
                # a keyword ends at a word boundary: /state(?![A-Za-z0-9_])/
                m = _KEYWORD_PATTERN.match(pattern.value)
                if m is not None:
                    words[t.name] = (m.group(1),)
        _KEYWORD_CACHE[key] = words
    return words


def _word_terminal(parser, word: str) -> str | None:
    for name, spellings in _keyword_words(parser).items():
        if word in spellings:
            return name
    if _WORD.match(word):
        return "NAME"
    if word.isdigit():
        return "NUMBER"
    return None


def _first_token(values) -> Token | None:
    """The first token among values of the parser's stack (tokens, lists of
    them, or nodes with a span, which give a token at their start)."""
    for v in values:
        if isinstance(v, Token):
            return v
        if isinstance(v, (list, tuple)):
            found = _first_token(v)
            if found is not None:
                return found
    return None


def _describe(tok: Token) -> str:
    from dslc.syntax.parser import describe_token
    return describe_token(tok)


def _expected_words(accepted: set[str], keyword: str) -> str:
    from dslc.syntax.parser import describe_expected
    return describe_expected(accepted, keyword)


_COMMENT_SCAN = re.compile(r"//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/|(?P<open>/\*)|\"[^\"\n]*\"", re.S)


def _unterminated_comment(text: str) -> int | None:
    """The offset of a `/*` that is never closed (outside strings and comments)."""
    if "/*" not in text:
        return None
    for m in _COMMENT_SCAN.finditer(text):
        if m.group("open"):
            return m.start()
    return None


_BRACE_SCAN = re.compile(r"//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/|\"[^\"\n]*\"|(?P<b>[{}])", re.S)


def _indent(text: str, pos: int) -> tuple[int, bool]:
    """(indentation of the line holding ``pos``, whether ``pos`` is its first character)."""
    line_start = text.rfind("\n", 0, pos) + 1
    prefix = text[line_start:pos]
    stripped = len(prefix) - len(prefix.lstrip(" \t"))
    return stripped, not prefix.strip()


def _brace_culprit(text: str, unclosed: list[int]) -> tuple[int | None, tuple[int, int] | None]:
    """Which `{` lacks its `}`, judged by indentation: a `}` that starts a
    line closes the open `{` whose line is indented like it.  Returns (the
    offset of the `{` that is most likely unclosed, (offset of the `}`, offset
    of the `{` it lines up with) or None)."""
    stack: list[tuple[int, int]] = []          # (offset, indentation of its line)
    suspect = None
    evidence = None
    for m in _BRACE_SCAN.finditer(text):
        if m.group("b") is None:
            continue
        pos = m.start()
        if m.group("b") == "{":
            stack.append((pos, _indent(text, pos)[0]))
            continue
        if not stack:
            continue
        ind, first = _indent(text, pos)
        if first and stack[-1][1] != ind:
            match = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][1] == ind), None)
            if match is not None and match < len(stack) - 1:
                if suspect is None:
                    suspect = stack[match + 1][0]
                    evidence = (pos, stack[match][0])
                del stack[match:]
                continue
        stack.pop()
    if suspect is not None:
        return suspect, evidence
    if unclosed:
        return unclosed[-1], None
    return None, None


def _hint(tok: Token, expected: set[str]) -> str | None:
    """A help line for the generic E001 of an automaton or mechanism."""
    if {"TRUE", "INSAMPLE"} <= expected:
        return "a transition reads `GUARD -> TARGET [output OUT] [store]`, e.g. `insample < x -> q1 output ⊥`"
    if {"INPUT", "NOINPUT"} <= expected:
        return "a state reads `state NAME input|noinput Lap(rate, mean) { ... }`"
    if "ARROW" in expected:
        return "write `->` (or `→`) between the guard and the target state"
    if "ASSIGN" in expected:
        return "a statement starting with a name is an assignment `NAME := VALUE`"
    return None


__all__ = ["parse", "MAX_ERRORS"]
