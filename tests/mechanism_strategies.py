"""Hypothesis strategies: random `mechanism` programs, written as source text.

Programs are drawn from the grammar's statement forms over a small
vocabulary, so that names collide (a parameter called like a variable, a read
kept across steps, the stored variable overwritten with an input, ...).  Many
generated programs are outside the DiPA fragment; the lowering must refuse
those.  A share of the programs start from shapes known to lower (a noisy
threshold, then a loop), so the translation check sees many valid ones.
"""

from __future__ import annotations

from hypothesis import strategies as st

VARS = ["x", "q", "s", "y"]
PARAMS = ["T", "q", "x", "c"]
RATES = ["ε", "ε/2", "ε/4", "2ε/9", "ε/9", "3*ε"]
SYMBOLS = ["⊤", "⊥", "a", '"b"']


@st.composite
def means(draw, names: list[str]) -> str:
    base = draw(st.sampled_from(["0", "1", "read()", "read()", "read() + 1", "-1/2"] + names))
    if draw(st.integers(0, 5)) == 0:
        base = f"{base} + {draw(st.sampled_from(['1', '2', 'T', 'q']))}"
    return base


@st.composite
def draws(draw, names: list[str]) -> str:
    return f"Lap({draw(st.sampled_from(RATES))}, {draw(means(names))})"


@st.composite
def operands(draw, names: list[str]) -> str:
    if draw(st.booleans()):
        return draw(draws(names))
    return draw(st.sampled_from(names))


@st.composite
def statements(draw, depth: int, in_loop: bool, names: list[str]) -> list[str]:
    count = draw(st.integers(0 if depth else 1, 4 if depth < 2 else 2))
    out: list[str] = []
    for _ in range(count):
        kinds = ["read", "draw", "copy", "out_sym", "out_sym", "out_var", "out_draw", "if", "if"]
        if depth < 2:
            kinds += ["loop"]
        if in_loop:
            kinds += ["break"]
        kinds += ["halt"]
        kind = draw(st.sampled_from(kinds))
        var = draw(st.sampled_from(VARS))
        if kind == "read":
            out.append(f"{var} := read()")
        elif kind == "draw":
            out.append(f"{var} := {draw(draws(names))}")
        elif kind == "copy":
            out.append(f"{var} := {draw(st.sampled_from(names))}")
        elif kind == "out_sym":
            out.append(f"output {draw(st.sampled_from(SYMBOLS))}")
        elif kind == "out_var":
            out.append(f"output {draw(st.sampled_from(names))}")
        elif kind == "out_draw":
            out.append(f"output {draw(draws(names))}")
        elif kind == "if":
            left = draw(operands(names))
            right = draw(st.sampled_from(["x", "x", "y"] + names)) if draw(st.booleans()) else draw(operands(names))
            op = draw(st.sampled_from([">=", "<", ">", "<="]))
            then = draw(statements(depth + 1, in_loop, names))
            text = f"if {left} {op} {right} {{ {'; '.join(then)} }}"
            if draw(st.booleans()):
                orelse = draw(statements(depth + 1, in_loop, names))
                text += f" else {{ {'; '.join(orelse)} }}"
            out.append(text)
        elif kind == "loop":
            body = draw(statements(depth + 1, True, names))
            out.append(f"loop {{ {'; '.join(body)} }}")
        elif kind == "break":
            out.append("break")
        else:
            out.append("halt")
    return out


@st.composite
def tails(draw, depth: int, in_loop: bool) -> list[str]:
    """What a branch does after a comparison: outputs, stores, exits, a nested step."""
    out: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["sym", "sym", "sym", "prime", "prime", "out_s", "store", "store",
                                     "store_read", "store_q", "halt", "break", "step", "free"]))
        if kind == "sym":
            out.append(f"output {draw(st.sampled_from(SYMBOLS))}")
        elif kind == "prime":
            out.append(f"output Lap({draw(st.sampled_from(RATES))}, {draw(st.sampled_from(['q', 'q + 1', 'read()', '0']))})")
        elif kind == "out_s":
            out.append(f"output {draw(st.sampled_from(['s', 'q', 'x']))}")
        elif kind == "store":
            out.append("x := s")
        elif kind == "store_read":
            out.append("x := read()")
        elif kind == "store_q":
            out.append("x := q")
        elif kind == "halt":
            out.append("halt")
        elif kind == "break" and in_loop:
            out.append("break")
        elif kind == "step" and depth < 3:
            out.extend(draw(steps(depth + 1, in_loop)))
        elif kind == "free":
            out.extend(draw(statements(2, in_loop, VARS + ["T"])))
    return out


@st.composite
def steps(draw, depth: int, in_loop: bool) -> list[str]:
    """One step of a sparse-vector-like program (or a mutation of one)."""
    r = draw(st.sampled_from(RATES))
    op = draw(st.sampled_from([">=", "<", ">", "<="]))
    kind = draw(st.sampled_from(["read_if", "inline_if", "stored_if", "release", "symbol", "threshold",
                                 "read_release", "flip_if"]))
    def branch(first: str) -> str:
        items = draw(tails(depth, in_loop))
        if draw(st.integers(0, 9)) < 7:          # usually the two branches say different things
            items = [f"output {first}"] + items
        return "; ".join(items)

    then = branch("⊤")
    orelse = f" else {{ {branch('⊥')} }}" if draw(st.booleans()) else ""
    if kind == "read_if":
        return ["q := read()", f"if Lap({r}, {draw(st.sampled_from(['q', 'q + 1', 'q - 1/2']))}) {op} x {{ {then} }}{orelse}"]
    if kind == "inline_if":
        return [f"if Lap({r}, read()) {op} x {{ {then} }}{orelse}"]
    if kind == "flip_if":
        return [f"if x {op} Lap({r}, read()) {{ {then} }}{orelse}"]
    if kind == "stored_if":
        return [f"s := Lap({r}, read())", f"if s {op} x {{ {then} }}{orelse}"]
    if kind == "release":
        return [f"output Lap({r}, read())"]
    if kind == "read_release":
        return ["q := read()", f"output Lap({r}, q)"]
    if kind == "symbol":
        return [f"output {draw(st.sampled_from(SYMBOLS))}"]
    return [f"x := Lap({r}, {draw(st.sampled_from(['0', '1', 'T', 'read()']))})"]


@st.composite
def structured(draw) -> str:
    """A noisy threshold, then steps and loops of steps."""
    params = ["T"]
    if draw(st.integers(0, 5)) == 0:              # sometimes a parameter named like a variable
        params.append(draw(st.sampled_from(["q", "x", "s"])))
    body: list[str] = [f"x := Lap({draw(st.sampled_from(RATES))}, {draw(st.sampled_from(['0', 'T', 'read()']))})"]
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            inner: list[str] = []
            for _ in range(draw(st.integers(1, 3))):
                inner.extend(draw(steps(1, True)))
            body.append(f"loop {{ {'; '.join(inner)} }}")
        else:
            body.extend(draw(steps(1, False)))
    header = ", ".join(f"{p} = {draw(st.sampled_from(['0', '1', '-2', '1/2']))}" for p in params)
    return f"mechanism m({header}) {{ {'; '.join(body)} }}"


SHAPES = [
    # a noisy threshold then a loop that compares (the sparse vector family)
    "x := Lap({r0}, {m0}); loop {{ {body} }}",
    "x := Lap({r0}, {m0}); {flat}",
    "x := Lap({r0}, {m0}); loop {{ {body} }}; {tail}",
    "{flat}",
]


@st.composite
def free_programs(draw) -> str:
    """Any combination of the statement forms."""
    params = draw(st.lists(st.sampled_from(PARAMS), max_size=2, unique=True))
    names = VARS + params
    body = "; ".join(draw(statements(1, True, names)))
    flat = "; ".join(draw(statements(1, False, names)))
    tail = "; ".join(draw(statements(1, False, names)))
    shape = draw(st.sampled_from(SHAPES))
    text = shape.format(r0=draw(st.sampled_from(RATES)), m0=draw(st.sampled_from(["0", "1"] + params)),
                        body=body, flat=flat, tail=tail)
    header = ""
    if params:
        header = "(" + ", ".join(f"{p} = {draw(st.sampled_from(['0', '1', '-2', '1/2']))}" for p in params) + ")"
    return f"mechanism m{header} {{ {text} }}"


def programs():
    return st.one_of(structured(), structured(), structured(), free_programs())


# ------------------------------------------------------------------ several stored variables
THRESHOLDS = ["l", "r", "x"]
CMP = [">=", "<", ">", "<="]


@st.composite
def several_conditions(draw, names: list[str]) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        left = "s" if draw(st.integers(0, 9)) else "q"
        right = draw(st.sampled_from(names))
        if draw(st.integers(0, 3)) == 0:
            left, right = right, left
        parts.append(f"{left} {draw(st.sampled_from(CMP))} {right}")
    return draw(st.sampled_from([" && ", " and "])).join(parts)


@st.composite
def several_statements(draw, depth: int, in_loop: bool, names: list[str]) -> list[str]:
    out: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        kinds = ["out_sym", "out_sym", "out_sym", "if", "if", "if", "store", "halt", "out_s", "out_draw"]
        if in_loop and draw(st.integers(0, 3)) == 0:
            kinds.append("break")
        if draw(st.integers(0, 9)) == 0:
            kinds.append("copy")
        kind = draw(st.sampled_from(kinds))
        if kind == "out_sym":
            out.append(f"output {draw(st.sampled_from(SYMBOLS))}")
        elif kind == "out_s":
            out.append("output s")
        elif kind == "out_draw":
            out.append(f"output Lap({draw(st.sampled_from(RATES))}, q)")
        elif kind == "store":
            out.append(f"{draw(st.sampled_from(names))} := s")
        elif kind == "copy":
            out.append(f"{draw(st.sampled_from(names))} := {draw(st.sampled_from(names + ['s']))}")
        elif kind == "halt":
            out.append("halt")
        elif kind == "break":
            out.append("break")
        else:
            cond = draw(several_conditions(names))
            then = "; ".join(draw(several_statements(depth + 1, in_loop, names))) if depth < 2 else "output ⊤"
            text = f"if {cond} {{ {then} }}"
            if draw(st.booleans()):
                other = "; ".join(draw(several_statements(depth + 1, in_loop, names))) if depth < 2 else "output ⊥"
                text += f" else {{ {other} }}"
            out.append(text)
    return out


@st.composite
def several_programs(draw) -> str:
    """Programs with two or three noisy thresholds, compared (often in conjunctions)
    with a fresh draw of each step; many lower to an automaton with several variables."""
    names = THRESHOLDS[:draw(st.integers(2, 3))]
    body = [f"{v} := Lap({draw(st.sampled_from(RATES))}, {draw(st.sampled_from(['0', '1', '-1/2']))})"
            for v in names]
    for _ in range(draw(st.integers(1, 2))):
        looped = draw(st.booleans())
        step = ["q := read()", f"s := Lap({draw(st.sampled_from(RATES))}, q)"]
        step += draw(several_statements(1, looped, names))
        if looped:
            body.append(f"loop {{ {'; '.join(step)} }}")
        else:
            body.extend(step)
    return f"mechanism m {{ {'; '.join(body)} }}"
